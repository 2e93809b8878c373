/**
 * Distributed sweeps (`mmkit sweep --redis URL`): the coordinator puts the grid's points on a
 * BullMQ queue in Redis, `mmkit sweep-worker --redis URL` processes (./sweep-queue-worker.ts) on
 * any machine run them, and the coordinator ranks the rows exactly as the local sweep does
 * (./sweep.ts `rankRows`), so the table is the same, byte for byte.
 *
 *  - Queue `mmkit-sweep-<code fingerprint>` (./sweep-fingerprint.ts): only workers of the same
 *    code and Node.js take the points. Job ids are deterministic, `<sweep id>-<index>` (BullMQ
 *    refuses ':' in ids), the sweep id a hash of the points, the feeds' and the strategy file's
 *    hashes: a coordinator started again on the same sweep finds the points already done or
 *    under way (BullMQ adds an existing id once) and does not run them again.
 *  - A job's data and result are lossless JSON (./lossless-json.ts): BullMQ stores JSON, which
 *    would turn NaN into null and -0 into 0.
 *  - Feeds travel by path (absolute; the same path on every machine) with their sha256, a strategy
 *    given by path likewise; a worker that has other bytes there refuses the point (a failed row
 *    naming the file and the host), never runs it on other data.
 *  - A worker killed mid-point: its lock lapses and another worker's stalled check puts the point
 *    back on the queue (./sweep-queue-worker.ts); at-least-once, harmless since a point is pure.
 *  - The coordinator removes its jobs at the end. Interrupted, it leaves them: the workers finish
 *    them and the next run of the same sweep collects the rows.
 */
import { isAbsolute, resolve } from 'node:path';
import { Queue, QueueEvents, type Job } from 'bullmq';
import { createHash } from 'node:crypto';
import { NetworkError } from '../core/errors.ts';
import { isStrategyPath } from '../strategy/loader.ts';
import { connectFleetRedis, queueRedis } from '../fleet/redis.ts';
import { fromLosslessJson, toLosslessJson } from './lossless-json.ts';
import { codeFingerprint, fileSha256 } from './sweep-fingerprint.ts';
import {
  failedRow,
  rankRows,
  sweepConditions,
  sweepTasks,
  type SweepOptions,
  type SweepResult,
  type SweepRow,
  type SweepTask,
} from './sweep.ts';

/** A file a point needs, and its sha256 on the coordinator. */
export interface CheckedFile {
  readonly path: string;
  readonly sha256: string;
}

/** One point on the queue (the job's data is `{ wire: toLosslessJson(PointJob) }`). */
export interface PointJob {
  readonly sweep: string;
  readonly task: SweepTask;
  readonly files: readonly CheckedFile[];
}

/** The data BullMQ stores for a point. */
export interface PointJobData {
  readonly wire: string;
}

/** The queue of the points that workers of this code fingerprint take. */
export function sweepQueueName(fingerprint: string): string {
  return `mmkit-sweep-${fingerprint}`;
}

/** The job id of a point: `<sweep id>-<index>` (no ':', which BullMQ refuses). */
export function pointJobId(sweep: string, index: number): string {
  return `${sweep}-${index}`;
}

/** Options of a distributed sweep: a local sweep's, less the threads, plus Redis. */
export interface QueuedSweepOptions extends Omit<SweepOptions, 'workers'> {
  /** redis:// or rediss:// (may carry a password: never logged). */
  readonly redisUrl: string;
  /** Called (at most once per episode) when the queue has no worker for a few seconds. */
  readonly onNoWorkers?: (queue: string) => void;
  /** Code fingerprint (default: this process's, ./sweep-fingerprint.ts). */
  readonly fingerprint?: string;
}

/**
 * The base options as every machine can read them: feeds and a strategy path made absolute, no
 * feed-cache folder (each worker uses its own).
 */
export function distributableBase(base: SweepOptions['base'], cwd: string = process.cwd()): SweepOptions['base'] {
  const { feedCache: _, ...rest } = base;
  return {
    ...rest,
    ...(base.feeds !== undefined ? { feeds: base.feeds.map((f) => (isAbsolute(f) ? f : resolve(cwd, f))) } : {}),
    ...(isStrategyPath(base.strategy) && !isAbsolute(base.strategy) ? { strategy: resolve(cwd, base.strategy) } : {}),
  };
}

/** The row a worker sent back, checked (a failed row when it is not the point's). */
export function decodeRow(task: SweepTask, wire: unknown): SweepRow {
  try {
    const row = typeof wire === 'string' ? (fromLosslessJson(wire) as SweepRow) : undefined;
    if (row === undefined || typeof row !== 'object' || row === null || row.index !== task.index)
      return failedRow(task.index, task.point, 'the worker sent back no row for this point');
    return row;
  } catch (e) {
    return failedRow(task.index, task.point, `the worker's row is unreadable: ${(e as Error).message}`);
  }
}

/**
 * Fails fast when Redis does not answer (BullMQ's own connections would wait for it forever).
 * @throws NetworkError naming the URL without its credentials
 */
export async function reachable(url: string): Promise<void> {
  let c: Awaited<ReturnType<typeof connectFleetRedis>>;
  try {
    c = await connectFleetRedis(url);
  } catch (e) {
    throw new NetworkError((e as Error).message);
  }
  try {
    await c.ping();
  } finally {
    c.disconnect();
  }
}

/**
 * Runs the sweep on the queue (see the module comment); resolves with the ranked result, as
 * `runSweep` does.
 * @throws ConfigError on a bad grid or a point whose params the strategy refuses (before anything
 *   is queued), ConfigError (fleet.redisUrl) on a malformed URL, NetworkError when Redis does not answer
 */
export async function runQueuedSweep(o: QueuedSweepOptions): Promise<SweepResult> {
  await reachable(o.redisUrl);
  const base = distributableBase(o.base);
  const { strategy, tasks, fixedParams } = await sweepTasks({ base, grid: o.grid });
  const rankBy = o.rankBy ?? 'pnl';
  const files: CheckedFile[] = [];
  for (const f of [...(base.feeds ?? []), ...(isStrategyPath(base.strategy) ? [base.strategy] : [])])
    files.push({ path: f, sha256: await fileSha256(f) });
  const sweep = createHash('sha256').update(toLosslessJson({ tasks, files })).digest('hex').slice(0, 16);
  const name = sweepQueueName(o.fingerprint ?? codeFingerprint());
  const qc = queueRedis(o.redisUrl);
  const ec = queueRedis(o.redisUrl);
  qc.on('error', () => undefined);
  ec.on('error', () => undefined);
  const queue = new Queue<PointJobData, string>(name, { connection: qc });
  const events = new QueueEvents(name, { connection: ec });
  events.setMaxListeners(0);
  let watch: ReturnType<typeof setInterval> | undefined;
  try {
    await events.waitUntilReady();
    const jobs: Job<PointJobData, string>[] = await queue.addBulk(
      tasks.map((task) => ({
        name: 'point',
        data: { wire: toLosslessJson({ sweep, task, files } satisfies PointJob) },
        opts: { jobId: pointJobId(sweep, task.index), attempts: 1, removeOnComplete: false, removeOnFail: false },
      })),
    );
    // a point that failed in an earlier run of this sweep (e.g. stalled too often) runs again
    for (const j of jobs) if (await j.isFailed()) await j.retry('failed');
    const rows: SweepRow[] = new Array(tasks.length);
    let done = 0;
    let failed = 0;
    let allDone: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => (allDone = resolve));
    const finish = (row: SweepRow): void => {
      if (rows[row.index] !== undefined) return; // seen by both the events and the poll
      rows[row.index] = row;
      done++;
      if (row.error !== undefined) failed++;
      o.onProgress?.({ done, total: tasks.length, failed });
      if (done === tasks.length) allDone();
    };
    const jobOpts = (i: number) => ({
      jobId: pointJobId(sweep, tasks[i]!.index),
      attempts: 1,
      removeOnComplete: false,
      removeOnFail: false,
    });
    const jobData = (i: number): PointJobData => ({
      wire: toLosslessJson({ sweep, task: tasks[i]!, files } satisfies PointJob),
    });
    let warned = false;
    let idleChecks = 0;
    let polling = false;
    // the poll: the events stream is fast but can miss an answer (a Redis restarted empty loses the
    // stream and the jobs): every second each unfinished point is read back, finished from its state,
    // or queued again under its id when Redis no longer has it
    const poll = async (): Promise<void> => {
      if (polling) return;
      polling = true;
      try {
        const n = await queue.getWorkersCount();
        idleChecks = n === 0 ? idleChecks + 1 : 0;
        if (n > 0) warned = false;
        else if (idleChecks >= 3 && !warned) {
          warned = true;
          o.onNoWorkers?.(name);
        }
        for (let i = 0; i < tasks.length; i++) {
          if (rows[tasks[i]!.index] !== undefined) continue;
          const id = pointJobId(sweep, tasks[i]!.index);
          const j = await queue.getJob(id);
          if (j == null) {
            await queue.add('point', jobData(i), jobOpts(i));
            continue;
          }
          const state = await j.getState();
          if (state === 'completed') finish(decodeRow(tasks[i]!, j.returnvalue));
          else if (state === 'failed') finish(failedRow(i, tasks[i]!.point, `worker: ${j.failedReason}`));
        }
      } catch {
        // Redis unreachable for now: the next poll tries again
      } finally {
        polling = false;
      }
    };
    watch = setInterval(() => void poll(), 1_000);
    // a rejection is not taken as the point's failure: it is also what a Redis that came back empty
    // gives (`Missing key for job ... isFinished`, when the check reaches Redis after the restart: on
    // a loaded machine it does), and the point must then be queued again, not reported failed. The
    // poll reads the job's state back at once and decides (failed, completed, or gone: queued again).
    for (let i = 0; i < jobs.length; i++)
      jobs[i]!.waitUntilFinished(events).then(
        (wire) => finish(decodeRow(tasks[i]!, wire)),
        () => void poll(),
      );
    await finished;
    await Promise.all(jobs.map((j) => queue.remove(j.id!)));
    return {
      strategy,
      grid: o.grid,
      rankBy,
      points: tasks.length,
      conditions: sweepConditions(o.base, rows, fixedParams),
      rows: rankRows(rows, rankBy),
    };
  } finally {
    if (watch !== undefined) clearInterval(watch);
    await events.close().catch(() => undefined);
    await queue.close().catch(() => undefined);
    qc.disconnect();
    ec.disconnect();
  }
}
