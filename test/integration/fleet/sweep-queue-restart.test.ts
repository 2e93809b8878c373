/**
 * A distributed sweep survives a Redis that comes back empty (src/backtest/sweep-queue.ts): the
 * coordinator reads every unfinished point back each second and queues again, under its id, a point
 * Redis no longer has, so the sweep ends (it waited forever before) and ranks the same rows as the
 * local sweep.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { runSweep } from '../../../src/backtest/sweep.ts';
import { runQueuedSweep, sweepQueueName } from '../../../src/backtest/sweep-queue.ts';
import { startSweepWorker } from '../../../src/backtest/sweep-queue-worker.ts';
import { queueRedis } from '../../../src/fleet/redis.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';

let r: TestRedis;
beforeAll(async () => {
  r = await startRedis();
}, 30_000);
afterAll(async () => {
  await r?.stop();
});

const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));

describe('a distributed sweep when Redis restarts empty', () => {
  it("queues its points again and ends with the local sweep's rows", async () => {
    const base = { world: { seed: 3, durationMs: 60_000 }, strategy: 'template', maxFillRows: 0 } as const;
    const grid = { halfSpread: [0.01, 0.02] };
    const fingerprint = 'fp-restart';
    const local = await runSweep({ base, grid, workers: 0 });
    const coordinator = runQueuedSweep({ redisUrl: r.url, base, grid, fingerprint });
    // the points are queued, no worker yet; then Redis loses everything
    const conn = queueRedis(r.url);
    conn.on('error', () => undefined);
    const q = new Queue(sweepQueueName(fingerprint), { connection: conn });
    for (let i = 0; i < 100 && (await q.count()) < 2; i++) await sleep(100);
    expect(await q.count()).toBe(2);
    await q.close();
    conn.disconnect();
    await r.restart();
    const worker = await startSweepWorker({ redisUrl: r.url, concurrency: 1, fingerprint, log: () => undefined });
    try {
      const result = await coordinator;
      expect(result.rows).toEqual(local.rows);
    } finally {
      await worker.close();
    }
  }, 120_000);
});
