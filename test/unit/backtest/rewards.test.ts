/**
 * The result's rewards (src/backtest/rewards.ts) and how the metrics and reports show them, from a
 * hand-built result (test/unit/backtest/fixtures.ts).
 */
import { describe, expect, it } from 'vitest';
import { computeMetrics } from '../../../src/backtest/metrics.ts';
import { formatSummary } from '../../../src/backtest/report.ts';
import { rewardsResult } from '../../../src/backtest/rewards.ts';
import { exchangeRewards } from '../../../src/backtest/synthetic.ts';
import type { ConditionId, TokenId } from '../../../src/core/ids.ts';
import type { RewardConfig } from '../../../src/core/rewards.ts';
import type { Micro, Pips } from '../../../src/core/units.ts';
import type { MarketInfo } from '../../../src/core/venue.ts';
import type { RewardEstimate } from '../../../src/engine/reward-tracker.ts';
import { sampleResult } from './fixtures.ts';

const cfg: RewardConfig = { maxSpread: 300 as Pips, minSize: 20_000_000 as Micro, dailyRate: 144_000_000 as Micro };
const info = (id: string): MarketInfo => ({
  market: id as ConditionId,
  question: `${id}?`,
  tokens: [
    { tokenId: `${id}y` as TokenId, outcome: 'Yes' },
    { tokenId: `${id}n` as TokenId, outcome: 'No' },
  ],
  tick: '0.01',
  minOrderSize: 5_000_000 as Micro,
  negRisk: false,
  feeRateBps: 0,
  active: true,
  endDate: '',
});
const est = (market: string, accrued: number, samples = 10, scored = 7): RewardEstimate => ({
  market: market as ConditionId,
  config: cfg,
  samples,
  scoredSamples: scored,
  accrued: accrued as Micro,
  lastShare: 0,
  lastDaily: 0 as Micro,
  lastAt: null,
  last: null,
});

describe('rewardsResult', () => {
  it('none: no rewarded market, no result', () => {
    expect(rewardsResult([info('a')], [])).toBeUndefined();
    expect(rewardsResult([info('a')], [], new Map())).toBeUndefined();
  });

  it('feed mode: the estimate, per market in the order of the markets, and the total', () => {
    const r = rewardsResult([info('a'), info('b'), info('c')], [est('c', 5), est('a', 1_000_001)]);
    expect(r).toEqual({
      source: 'estimate',
      total: 1_000_006,
      byMarket: [
        { market: 'a', accrued: 1_000_001, samples: 10, scoredSamples: 7 },
        { market: 'c', accrued: 5, samples: 10, scoredSamples: 7 },
      ],
    });
  });

  it("world mode: the exchange's figures, the estimate beside them", () => {
    const x = new Map([['a', { accrued: 900, paid: 400 }]]);
    expect(rewardsResult([info('a'), info('b')], [est('a', 1000), est('b', 3)], x)).toEqual({
      source: 'exchange',
      total: 900,
      byMarket: [
        { market: 'a', accrued: 900, samples: 10, scoredSamples: 7, estimated: 1000, paid: 400 },
        { market: 'b', accrued: 0, samples: 10, scoredSamples: 7, estimated: 3, paid: 0 },
      ],
    });
  });
});

describe('rewards in the metrics and the summary', () => {
  it('absent without rewards (results as before); apart from the PnL and summed with it otherwise', () => {
    const plain = sampleResult();
    const m0 = computeMetrics(plain);
    expect('rewards' in m0).toBe(false);
    expect(formatSummary(plain, m0)).not.toMatch(/^ {2}rewards /m);
    const r = { ...plain, rewards: rewardsResult([info('m1')], [est('m1', 2_345_678, 60, 42)])! };
    const m = computeMetrics(r);
    expect(m.pnl).toBe(m0.pnl);
    expect(m.rewards).toBe(2_345_678);
    expect(m.pnlWithRewards).toBe(m0.pnl + 2_345_678);
    const line = formatSummary(r, m)
      .split('\n')
      .find((l) => l.startsWith('  rewards '));
    expect(line).toContain('+2.35 USDC estimated against the recorded book (42 of 60 samples scored; 1 market)');
    expect(line).toContain(`PnL with rewards ${m0.pnl + 2_345_678 >= 0 ? '+' : ''}`);
  });
});

describe('exchangeRewards (world mode)', () => {
  it("sums our account's earnings and payments per traded market and adds the running epoch's standing", () => {
    const payer = {
      configOf: () => null,
      historyOf: (maker: string) =>
        maker === '0xme'
          ? [
              { market: 'a', earned: 1_500_000, paid: 1_500_000 },
              { market: 'a', earned: 2_000_000, paid: 2_000_000 },
              { market: 'a', earned: 400_000, paid: 0 }, // below the minimum payout
              { market: 'z', earned: 7, paid: 7 }, // not traded
            ]
          : [{ market: 'a', earned: 9_000_000, paid: 9_000_000 }],
      standing: (maker: string) =>
        maker === '0xme'
          ? [
              { market: 'a', earnedSoFar: 250_000 },
              { market: 'b', earnedSoFar: 10 },
            ]
          : [],
    };
    const m = [info('a'), info('b'), info('c'), { ...info('d'), rewards: cfg }];
    expect([...exchangeRewards(payer, '0xMe', m, 42)]).toEqual([
      ['a', { accrued: 4_150_000, paid: 3_500_000 }],
      ['b', { accrued: 10, paid: 0 }],
      ['d', { accrued: 0, paid: 0 }], // rewarded, nothing earned
    ]);
  });
});
