/**
 * The runner settles the bot's promises only when something of the bot's may be pending: the
 * world's timers and the runner's own measurement timers (samples, markouts) are quiet
 * (src/backtest/quiet-clock.ts). Settling after every timer instead (`settleOnEveryTimer`, the
 * former behaviour) must give the same result, byte for byte: in world mode (with and without
 * latency: the venue adapter's timers answer requests) and in feed mode.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runBacktest, type BacktestOptions } from '../../src/backtest/runner.ts';

const SAMPLE = new URL('../fixtures/sample-feed.ndjson.gz', import.meta.url).pathname;
const world = { seed: 3, durationMs: 6 * 60_000, warmupMs: 30_000, marketCount: 2 };
const params = { margin: 0.01, marginStep: 0.01, amount: 10 };

async function same(o: BacktestOptions): Promise<void> {
  const quiet = await runBacktest(o);
  const every = await runBacktest({ ...o, settleOnEveryTimer: true });
  expect(quiet.fillCount).toBeGreaterThan(0);
  expect(quiet.fills).toEqual(every.fills);
  expect(quiet.counts).toEqual(every.counts);
  expect(quiet.orders).toEqual(every.orders);
  expect(JSON.stringify(quiet) === JSON.stringify(every), 'byte-identical JSON').toBe(true);
}

describe('backtest: quiet timers change nothing but the speed', () => {
  it('world mode', () => same({ world, strategy: 'bands', params, seed: 7 }), 120_000);
  it('world mode with latency', () => same({ world, strategy: 'bands', params, seed: 7, latencyMs: 40 }), 120_000);
  it.skipIf(!existsSync(SAMPLE))(
    'feed mode, with latency',
    () =>
      same({
        feeds: [SAMPLE],
        strategy: 'bands',
        params: { margin: 0.005, marginStep: 0.005, amount: 20, maxPosition: 30 },
        latencyMs: 25,
        risk: { maxRejections: 100_000 },
      }),
    120_000,
  );
});
