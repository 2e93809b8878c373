/**
 * A worker of distributed sweeps (`mmkit sweep-worker --redis URL`; the coordinator is
 * ./sweep-queue.ts): takes points from the queue of its own code fingerprint, checks the files a
 * point needs (feeds, a strategy file) against the coordinator's sha256, runs the point in a
 * worker thread (./sweep-threads.ts) with this machine's feed cache, and hands back the row as
 * lossless JSON.
 *
 * Worker death: each point holds a lock that this process renews every `lockMs / 2`. When the
 * process dies (kill -9, a lost machine), the lock lapses after `lockMs` and the stalled check of
 * any live worker (every `lockMs / 2`) puts the point back on the queue, so another worker runs it
 * (at-least-once; points are pure, the coordinator keeps one row). A point that stalls more than
 * `MAX_STALLS` times fails ("job stalled more than allowable limit"): a point that kills its workers
 * must not kill the fleet. A file that is missing or different here fails the point with a message
 * naming the file and this host (UnrecoverableError: no retry).
 */
import { hostname } from 'node:os';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import { queueRedis } from '../fleet/redis.ts';
import { fromLosslessJson, toLosslessJson } from './lossless-json.ts';
import { codeFingerprint, FileHashes } from './sweep-fingerprint.ts';
import { reachable, sweepQueueName, type PointJob, type PointJobData } from './sweep-queue.ts';
import { SweepThreads } from './sweep-threads.ts';

/** Default lock of a point, ms (a dead worker's point is retried within about twice this). */
export const DEFAULT_LOCK_MS = 10_000;
/** Stalls a point may go through before it fails. */
export const MAX_STALLS = 3;

export interface SweepWorkerOptions {
  /** redis:// or rediss:// (may carry a password: never logged). */
  readonly redisUrl: string;
  /** Points run at once (threads). */
  readonly concurrency: number;
  /** This machine's feed-cache folder (none: decode the feed text every time). */
  readonly feedCache?: string;
  /** A point's lock, ms (default DEFAULT_LOCK_MS; at least 1000). */
  readonly lockMs?: number;
  /** Progress lines (a point started, done, refused). */
  readonly log?: (line: string) => void;
  /** Code fingerprint (default: this process's). */
  readonly fingerprint?: string;
}

/** A running worker. */
export interface SweepWorkerHandle {
  /** The queue it takes points from. */
  readonly queue: string;
  /** Stops taking points, waits for the running ones, ends the threads and the connection. */
  close(): Promise<void>;
}

/**
 * Starts a worker (see the module comment).
 * @throws NetworkError when Redis does not answer, ConfigError (fleet.redisUrl) on a malformed URL
 */
export async function startSweepWorker(o: SweepWorkerOptions): Promise<SweepWorkerHandle> {
  await reachable(o.redisUrl);
  const lockMs = Math.max(1_000, o.lockMs ?? DEFAULT_LOCK_MS);
  const log = o.log ?? (() => undefined);
  const name = sweepQueueName(o.fingerprint ?? codeFingerprint());
  const host = hostname();
  const threads = new SweepThreads();
  const hashes = new FileHashes();
  const run = async (job: Job<PointJobData, string>): Promise<string> => {
    const p = fromLosslessJson(job.data.wire) as PointJob;
    for (const f of p.files) {
      const sha = await hashes.of(f.path);
      if (sha !== f.sha256) {
        const why =
          sha === null
            ? `${f.path} is missing on ${host}`
            : `${f.path} on ${host} differs from the coordinator's (sha256 ${sha.slice(0, 12)}…, expected ${f.sha256.slice(0, 12)}…)`;
        log(`point ${job.id} refused: ${why}`);
        throw new UnrecoverableError(why);
      }
    }
    const { feedCache: _, ...options } = p.task.options;
    const task = {
      ...p.task,
      options: { ...options, ...(o.feedCache !== undefined ? { feedCache: o.feedCache } : {}) },
    };
    const t0 = Date.now();
    log(
      `point ${job.id} started${job.stalledCounter > 0 ? ` (again: its worker stalled ${job.stalledCounter}×)` : ''}`,
    );
    const row = await threads.run(task);
    log(
      `point ${job.id} done in ${((Date.now() - t0) / 1000).toFixed(2)} s${row.error !== undefined ? ` (error: ${row.error})` : ''}`,
    );
    return toLosslessJson(row);
  };
  const connection = queueRedis(o.redisUrl);
  connection.on('error', () => undefined);
  const worker = new Worker<PointJobData, string>(name, run, {
    connection,
    concurrency: Math.max(1, o.concurrency),
    lockDuration: lockMs,
    stalledInterval: Math.floor(lockMs / 2),
    maxStalledCount: MAX_STALLS,
    name: `${host}-${process.pid}`,
  });
  // BullMQ reports connection trouble here; it reconnects by itself (the URL is never printed)
  let lastErr = '';
  worker.on('error', (e: Error) => {
    if (e.message !== lastErr) log(`redis: ${e.message}`);
    lastErr = e.message;
  });
  await worker.waitUntilReady();
  return {
    queue: name,
    async close() {
      await worker.close();
      await threads.close();
      connection.disconnect();
    },
  };
}
