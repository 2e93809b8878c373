/**
 * Backtests count liquidity rewards (feed mode): the kernel's reward tracker scores the bot's own
 * quotes every minute of virtual time against the recorded book's competition (the simulated venue
 * shows our orders in the book; the estimate takes them out), by the public methodology
 * (src/core/rewards.ts). Real runner, engine, risk gate, executor, simulated venue and store; the
 * feed is a small static book whose header carries the reward config (test/support/reward-feed.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeMetrics } from '../../src/backtest/metrics.ts';
import { formatSummary } from '../../src/backtest/report.ts';
import { renderHtmlReport } from '../../src/backtest/report-html.ts';
import { runBacktest } from '../../src/backtest/runner.ts';
import { createFeedDriver } from '../../src/backtest/feed-driver.ts';
import { backtestJson } from '../../src/cli/backtest.ts';
import { ConfigError } from '../../src/core/errors.ts';
import type { RewardConfig } from '../../src/core/rewards.ts';
import type { Micro, Pips } from '../../src/core/units.ts';
import { REWARD_MARKET, writeRewardFeed } from '../support/reward-feed.ts';

const STRATEGY = new URL('../support/two-sided-quotes-strategy.ts', import.meta.url).pathname;
// 3 cents, 20 shares, 144 USDC a day: 0.1 USDC a minute
const CFG: RewardConfig = { maxSpread: 300 as Pips, minSize: 20_000_000 as Micro, dailyRate: 144_000_000 as Micro };
// the others: 100 shares at 0.48 and at 0.52
const BOOK = { bids: [[4800, 100_000_000]] as const, asks: [[5200, 100_000_000]] as const };
const TEN_MIN = 600_001;

let dir: string;
const feed = (name: string, o: Partial<Parameters<typeof writeRewardFeed>[1]> = {}): string => {
  const f = join(dir, `${name}.ndjson.gz`);
  writeRewardFeed(f, { rewards: CFG, ...BOOK, durationMs: TEN_MIN, ...o });
  return f;
};
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mmkit-bt-rewards-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('backtest rewards: a recorded feed with a reward config', () => {
  it('scores our two-sided quotes each minute against the book minus our own orders', async () => {
    // ours: 50 at 0.49 and 50 at 0.51 (s = 1 cent: S = 4/9, Q = 22.2 a side); the others' 100 at
    // 0.48 / 0.52 (s = 2 cents: S = 1/9, Q = 11.1 a side): our share is 2/3 of each sample's pool
    // (0.1 USDC), 10 samples in 10 minutes: 10 x 66,666.67 micro, floored once
    const r = await runBacktest({ feeds: [feed('two-sided')], strategy: STRATEGY, params: { size: 50 } });
    expect(r.fillCount).toBe(0);
    expect(r.rewards).toEqual({
      source: 'estimate',
      total: 666_666,
      byMarket: [{ market: REWARD_MARKET, accrued: 666_666, samples: 10, scoredSamples: 10 }],
    });
    // apart from the trading PnL, and summed in the metrics
    const m = computeMetrics(r);
    expect(r.pnl.total).toBe(0);
    expect(m.rewards).toBe(666_666);
    expect(m.pnlWithRewards).toBe(r.pnl.total + 666_666);
    const json = backtestJson(r, m) as { rewards: unknown; metrics: { rewards: number; pnlWithRewards: number } };
    expect(json.rewards).toEqual(r.rewards);
    expect(json.metrics.rewards).toBe(666_666);
    expect(formatSummary(r, m)).toMatch(
      /rewards {9}\+0\.67 USDC estimated against the recorded book \(10 of 10 samples scored; 1 market\); PnL with rewards \+0\.67 USDC/,
    );
    const html = renderHtmlReport(r, m);
    expect(html).toContain('<h2>Liquidity rewards</h2>');
    expect(html).toContain('<td>Rewarded market?</td><td>0.67</td><td>10 / 10</td>');
  }, 60_000);

  it('rewardSampleMs: twice the samples, each worth half the pool: the same accrual', async () => {
    const r = await runBacktest({ feeds: [feed('half')], strategy: STRATEGY, rewardSampleMs: 30_000 });
    expect(r.rewards?.byMarket).toEqual([{ market: REWARD_MARKET, accrued: 666_666, samples: 20, scoredSamples: 20 }]);
    const err = await runBacktest({ feeds: [feed('half')], strategy: STRATEGY, rewardSampleMs: 50 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).key).toBe('backtest.rewardSampleMs');
  }, 60_000);

  it('a one-sided quote is divided by 3; below the min size nothing scores', async () => {
    // one side only (bid 0.49; the ask at 0.60, far outside the band). The adjusted mid is
    // (0.49 + 0.52) / 2 = 0.505. Ours: s = 1.5 cents, S = 1/4, Q_one = 12.5, Q_two = 0: Q_min =
    // 12.5 / 3. The others: 100 at 0.48 (s = 2.5: S = 1/36) and 100 at 0.52 (s = 1.5: S = 1/4):
    // Q_one = 2.78, Q_two = 25, Q_min = 25 / 3. Our share: 12.5 / 37.5 = 1/3 of 0.1 USDC, 10 times
    const one = await runBacktest({ feeds: [feed('one-sided')], strategy: STRATEGY, params: { ask: 0.6, size: 50 } });
    expect(one.rewards?.byMarket).toEqual([
      { market: REWARD_MARKET, accrued: 333_333, samples: 10, scoredSamples: 10 },
    ]);
    // 10 shares < the 20-share min size: never scores
    const small = await runBacktest({ feeds: [feed('small')], strategy: STRATEGY, params: { size: 10 } });
    expect(small.rewards?.byMarket[0]).toMatchObject({ accrued: 0, samples: 10, scoredSamples: 0 });
    expect(small.rewards?.total).toBe(0);
  }, 60_000);

  it('a feed without rewards (an old header, or rewards null) has no rewards key: results as before', async () => {
    for (const rewards of ['omit', null] as const) {
      const r = await runBacktest({ feeds: [feed(`none-${rewards}`, { rewards })], strategy: STRATEGY });
      expect('rewards' in r).toBe(false);
      const m = computeMetrics(r);
      expect('rewards' in m || 'pnlWithRewards' in m).toBe(false);
      expect(formatSummary(r, m)).not.toMatch(/^ {2}rewards /m);
      expect(renderHtmlReport(r, m)).not.toContain('Liquidity rewards');
    }
  }, 60_000);

  it('the simulated venue lists the reward config; a malformed one is a ConfigError naming the market', async () => {
    const d = await createFeedDriver({
      files: [feed('venue')],
      seed: 1,
      queue: 'risk-averse',
      latencyMs: 0,
      collateral: 1e10,
    });
    try {
      expect((await d.venue.markets())[0]?.rewards).toEqual(CFG);
      expect(d.markets[0]?.rewards).toEqual(CFG);
      expect(d.bookIncludesOwn).toBe(true);
    } finally {
      await d.close();
    }
    const bad = feed('bad', { rewards: { maxSpread: '3', minSize: 1, dailyRate: 1 } });
    const err = await runBacktest({ feeds: [bad], strategy: STRATEGY }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain(REWARD_MARKET);
    expect((err as Error).message).toContain('rewards.maxSpread');
  }, 60_000);

  it("a strategy's selectMarkets chooses among the feed's markets from the books it starts with", async () => {
    // the shipped rewards strategy ranks rewarded markets by their estimated daily reward
    const r = await runBacktest({ feeds: [feed('select')], strategy: 'rewards' });
    expect(r.markets.map((m) => m.market)).toEqual([REWARD_MARKET]);
    expect(r.rewards?.byMarket[0]?.samples).toBe(10);
    // no rewarded market: it chooses none, a clear error (naming markets forces the choice)
    const plain = feed('select-plain', { rewards: null });
    const err = await runBacktest({ feeds: [plain], strategy: 'rewards' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain("the strategy's selectMarkets chose none of the feed's 1 active markets");
    const named = await runBacktest({ feeds: [plain], strategy: 'rewards', markets: [REWARD_MARKET] });
    expect(named.markets.map((m) => m.market)).toEqual([REWARD_MARKET]);
    expect('rewards' in named).toBe(false);
  }, 60_000);
});
