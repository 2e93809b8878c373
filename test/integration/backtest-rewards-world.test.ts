/**
 * Synthetic backtests count the paper exchange's own reward payout: the traded markets carry the
 * exchange's reward configs, the exchange samples every maker (our account among the world's
 * liquidity providers) and pays at each epoch's end, and the result reports our share of its pools
 * (closed epochs and the running one), what it credited, and the bot's own estimate beside it.
 * Real world, exchange, runner, engine and store; a small scripted quoter at the touch.
 */
import { describe, expect, it } from 'vitest';
import { computeMetrics } from '../../src/backtest/metrics.ts';
import { formatSummary } from '../../src/backtest/report.ts';
import { runBacktest } from '../../src/backtest/runner.ts';

const STRATEGY = new URL('../support/band-quoter-strategy.ts', import.meta.url).pathname;
/** Rewarded markets of world 1 (Bitcoin above $96,000 on January 1; Morgan Blake, 2028). */
const REWARDED = [
  '0x1b85dd4827a85d8a43718df2a0cd07a0be75df2ca37fa7b42ae3fc2a75f11583',
  '0x7ee4a6cf24955885f346910810af182dc81374f93cfccab18cd758b0c71bc659',
];

describe('backtest rewards: a synthetic world', () => {
  it("reports the exchange's payout to our account, close to the bot's own estimate", async () => {
    // 20 minutes after a minute of warm-up, 10-minute epochs (closing at 00:10 and 00:20), every
    // payout credited (no minimum); two of the world's rewarded markets (with uneven activity the
    // most liquid contested ones are not all rewarded any more)
    const r = await runBacktest({
      world: { seed: 1, durationMs: 20 * 60_000, rewards: { epochMs: 600_000, minPayout: 0 } },
      strategy: STRATEGY,
      markets: REWARDED,
      maxFillRows: 0,
    });
    expect(r.source.world?.rewards).toEqual({ epochMs: 600_000, minPayout: 0 });
    const rw = r.rewards!;
    expect(rw.source).toBe('exchange');
    // the traded markets are rewarded: each has a row
    expect(rw.byMarket.map((x) => x.market)).toEqual(r.markets.map((m) => m.market));
    const sum = (f: (x: (typeof rw.byMarket)[number]) => number): number => rw.byMarket.reduce((a, x) => a + f(x), 0);
    expect(rw.total).toBe(sum((x) => x.accrued));
    expect(rw.total).toBeGreaterThan(0);
    // two epochs closed during the run and paid in full (no minimum); the running one is not paid yet
    expect(sum((x) => x.paid ?? 0)).toBeGreaterThan(0);
    for (const x of rw.byMarket) expect(x.paid!).toBeLessThanOrEqual(x.accrued);
    // the bot scored its quotes against the book it saw, the exchange against its own: the same
    // method at the same minutes, so the two agree to within a few percent
    const est = sum((x) => x.estimated ?? 0);
    expect(est).toBeGreaterThan(0);
    expect(Math.abs(est - rw.total)).toBeLessThan(0.25 * rw.total);
    const m = computeMetrics(r);
    expect(m.pnlWithRewards).toBe(r.pnl.total + rw.total);
    expect(formatSummary(r, m)).toMatch(/^ {2}rewards {9}\+\d+\.\d{2,6} USDC earned at the exchange \(/m);
  }, 120_000);

  it('the default epoch (a day) pays nothing during a short run: the standing is the figure', async () => {
    const r = await runBacktest({ world: { seed: 1, durationMs: 10 * 60_000 }, strategy: STRATEGY, maxFillRows: 0 });
    const rw = r.rewards!;
    expect(rw.total).toBeGreaterThan(0);
    for (const x of rw.byMarket) expect(x.paid).toBe(0);
  }, 120_000);

  it("the rewards strategy chooses the world's rewarded markets (selectMarkets) and earns there", async () => {
    const r = await runBacktest({ world: { seed: 1, durationMs: 10 * 60_000 }, strategy: 'rewards', maxFillRows: 0 });
    const bands = await runBacktest({ world: { seed: 1, durationMs: 60_000 }, strategy: 'bands', maxFillRows: 0 });
    expect(r.markets).toHaveLength(3);
    // its own pick, not the default one (the most liquid contested markets)
    expect(r.markets.map((m) => m.market)).not.toEqual(bands.markets.map((m) => m.market));
    expect(r.rewards?.byMarket.map((x) => x.market)).toEqual(r.markets.map((m) => m.market));
    expect(r.rewards!.total).toBeGreaterThan(0);
  }, 120_000);

  // The rewards strategy reads the competition's midpoint net of its own orders; at zero latency
  // the order list moves before the book shows it, so its band could flip on every event its own
  // orders caused and a run never left one instant (world 2, calm). Both defences are tested: the
  // strategy changes a market's quotes at most once per minRequoteMs, and the backtest's venue
  // holds requests beyond the spec's budgets in virtual time, as the live client would.
  for (const [seed, profile] of [
    [1, 'calm'],
    [1, 'realistic'],
    [2, 'calm'],
    [2, 'realistic'],
  ] as const)
    it(`the rewards strategy at zero latency runs to the end (world ${seed}, ${profile})`, async () => {
      const r = await runBacktest({
        world: { seed, durationMs: 30 * 60_000, profile },
        strategy: 'rewards',
        latencyMs: 0,
        maxFillRows: 0,
      });
      expect(r.stopReason).toBe('end of duration');
      expect(r.endMs - r.startMs).toBe(30 * 60_000);
      expect(r.rewards!.total).toBeGreaterThan(0);
      // a minimum requote interval keeps it far inside the order budget
      const burst = r.budgets.find((b) => b.rule === 'POST /orders:burst')!;
      expect(burst.over).toBe(0);
      expect(burst.peak).toBeLessThan(burst.limit / 10);
    }, 120_000);

  it('without a requote interval, the budgets bound it: requests wait in virtual time and the run ends', async () => {
    const r = await runBacktest({
      world: { seed: 2, durationMs: 30 * 60_000, profile: 'calm' },
      strategy: 'rewards',
      params: { minRequoteMs: 0 },
      latencyMs: 0,
      maxFillRows: 0,
    });
    expect(r.stopReason).toBe('end of duration');
    const burst = r.budgets.find((b) => b.rule === 'POST /orders:burst')!;
    expect(burst.over).toBeGreaterThan(0);
    expect(burst.peak).toBe(burst.limit); // never above: what did not fit waited
  }, 120_000);
});
