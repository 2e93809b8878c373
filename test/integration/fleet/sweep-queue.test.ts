/**
 * The worker of distributed sweeps (src/backtest/sweep-queue-worker.ts) over a real Redis: it
 * refuses a point whose feed is missing or has other bytes than the coordinator's (the point fails
 * with a message naming the file, it never runs on other data), and it takes points only from the
 * queue of its own code fingerprint.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue, QueueEvents } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toLosslessJson } from '../../../src/backtest/lossless-json.ts';
import { fileSha256 } from '../../../src/backtest/sweep-fingerprint.ts';
import { type PointJob, type PointJobData, pointJobId, sweepQueueName } from '../../../src/backtest/sweep-queue.ts';
import { startSweepWorker, type SweepWorkerHandle } from '../../../src/backtest/sweep-queue-worker.ts';
import { queueRedis } from '../../../src/fleet/redis.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';

let r: TestRedis;
let dir: string;
let worker: SweepWorkerHandle;
const lines: string[] = [];
beforeAll(async () => {
  r = await startRedis();
  dir = mkdtempSync(join(tmpdir(), 'mmkit-sweep-queue-'));
  worker = await startSweepWorker({
    redisUrl: r.url,
    concurrency: 1,
    fingerprint: 'fp-test',
    log: (l) => lines.push(l),
  });
}, 30_000);
afterAll(async () => {
  await worker?.close();
  await r?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const job = (feed: string, sha256: string, index: number): PointJob => ({
  sweep: 'feedcheck',
  task: { index, point: { margin: 0.01 }, options: { strategy: 'bands', feeds: [feed] } },
  files: [{ path: feed, sha256 }],
});

describe('sweep worker', () => {
  it('fails a point whose feed is missing or differs here, naming the file; other queues are not its own', async () => {
    expect(worker.queue).toBe(sweepQueueName('fp-test'));
    const feed = join(dir, 'feed.ndjson.gz');
    writeFileSync(feed, 'not the coordinator bytes');
    const sha = await fileSha256(feed);
    const conn = queueRedis(r.url);
    const econn = queueRedis(r.url);
    const q = new Queue<PointJobData, string>(worker.queue, { connection: conn });
    const events = new QueueEvents(worker.queue, { connection: econn });
    await events.waitUntilReady();
    const other = new Queue<PointJobData, string>(sweepQueueName('fp-other'), { connection: conn });
    try {
      const stray = await other.add(
        'point',
        { wire: toLosslessJson(job(feed, sha, 9)) },
        { jobId: pointJobId('stray', 9) },
      );
      const [differs, missing] = await q.addBulk([
        {
          name: 'point',
          data: { wire: toLosslessJson(job(feed, 'ab'.repeat(32), 0)) },
          opts: { jobId: pointJobId('feedcheck', 0) },
        },
        {
          name: 'point',
          data: { wire: toLosslessJson(job(join(dir, 'nope.gz'), sha, 1)) },
          opts: { jobId: pointJobId('feedcheck', 1) },
        },
      ]);
      await expect(differs!.waitUntilFinished(events)).rejects.toThrow(
        /feed\.ndjson\.gz on .* differs from the coordinator's \(sha256 [0-9a-f]{12}…, expected abababababab…\)/,
      );
      await expect(missing!.waitUntilFinished(events)).rejects.toThrow(/nope\.gz is missing on /);
      expect(lines.filter((l) => l.includes('refused'))).toHaveLength(2);
      expect(lines.some((l) => l.includes('started'))).toBe(false);
      // no worker of fingerprint fp-other: the stray point still waits
      expect(await stray.getState()).toBe('waiting');
    } finally {
      await events.close();
      await other.close();
      await q.close();
      conn.disconnect();
      econn.disconnect();
    }
  }, 60_000);
});
