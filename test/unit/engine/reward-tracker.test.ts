import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.ts';
import type { ConditionId, OrderId, TokenId } from '../../../src/core/ids.ts';
import type { LiveOrderView } from '../../../src/core/intents.ts';
import type { Micro, Pips } from '../../../src/core/units.ts';
import type { MarketInfo } from '../../../src/core/venue.ts';
import type { BookView } from '../../../src/core/views.ts';
import { ownQuotes } from '../../../src/core/rewards.ts';
import { RewardTracker } from '../../../src/engine/reward-tracker.ts';

const M = '0xm1' as ConditionId;
const YES = '1' as TokenId;
const NO = '2' as TokenId;
const sh = (n: number) => (n * 1_000_000) as Micro;
const market = (rewards: MarketInfo['rewards']): MarketInfo => ({
  market: M,
  question: 'q',
  tokens: [
    { tokenId: YES, outcome: 'Yes' },
    { tokenId: NO, outcome: 'No' },
  ],
  tick: '0.01',
  minOrderSize: sh(5),
  negRisk: false,
  feeRateBps: 0,
  active: true,
  endDate: '2030-01-01T00:00:00Z',
  rewards,
});
const book = (bids: Array<[number, number]>, asks: Array<[number, number]>): BookView => ({
  tokenId: YES,
  bestBid: (bids[0]?.[0] ?? null) as Pips | null,
  bestAsk: (asks[0]?.[0] ?? null) as Pips | null,
  mid: null,
  stale: false,
  levels: (side) => (side === 'bids' ? bids : asks) as never,
});
const order = (id: string, tokenId: TokenId, side: 'BUY' | 'SELL', price: number, size: number): LiveOrderView => ({
  id: id as OrderId,
  market: M,
  tokenId,
  side,
  price: price as Pips,
  originalSize: sh(size),
  sizeMatched: 0 as Micro,
});
const cfg = { maxSpread: 300 as Pips, minSize: sh(50), dailyRate: sh(144) };

describe('RewardTracker (the bot estimate of its liquidity rewards)', () => {
  it('mirrors orders on the second token into YES terms', () => {
    const q = ownQuotes(YES, [order('a', NO, 'BUY', 4_900, 100), order('b', YES, 'SELL', 5_100, 10)]);
    expect(q).toEqual([
      { bid: false, price: 5_100, size: sh(100) },
      { bid: false, price: 5_100, size: sh(10) },
    ]);
  });

  it('samples on the clock and accrues its share of the pool against the competition', () => {
    const clock = new VirtualClock(0);
    // the book shows our 100 @0.49 and 100 @0.51 plus the same again from a competitor
    const mine = [order('a', YES, 'BUY', 4_900, 100), order('b', NO, 'BUY', 4_900, 100)];
    const t = new RewardTracker({
      clock,
      markets: [market(cfg), { ...market(null), market: '0xm2' as ConditionId }],
      book: () => book([[4_900, sh(200)]], [[5_100, sh(200)]]),
      openOrders: () => mine,
      bookIncludesOwn: true,
      sampleMs: 600_000,
    });
    expect(t.active).toBe(true);
    t.start();
    clock.advance(6 * 600_000);
    const [e] = t.snapshot();
    expect(t.snapshot()).toHaveLength(1); // the unrewarded market is not followed
    expect(e?.samples).toBe(6);
    expect(e?.scoredSamples).toBe(6);
    expect(e?.lastShare).toBeCloseTo(0.5, 12);
    // 6 samples of 10 minutes at half of 144 USDC a day: 144 x 1/24 x 1/2 = 3 USDC
    expect(e?.accrued).toBe(sh(3));
    expect(e?.lastDaily).toBe(sh(72));
    t.stop();
    clock.advance(600_000);
    expect(t.snapshot()[0]?.samples).toBe(6);
  });

  it('a recorded book without our orders: the whole book is competition; no quotes, no reward', () => {
    const clock = new VirtualClock(0);
    let mine: LiveOrderView[] = [order('a', YES, 'BUY', 4_900, 100), order('b', YES, 'SELL', 5_100, 100)];
    const t = new RewardTracker({
      clock,
      markets: [market(cfg)],
      book: () => book([[4_900, sh(100)]], [[5_100, sh(100)]]),
      openOrders: () => mine,
      bookIncludesOwn: false,
    });
    t.sample();
    expect(t.snapshot()[0]?.lastShare).toBeCloseTo(0.5, 12);
    mine = [];
    t.sample();
    expect(t.snapshot()[0]?.lastShare).toBe(0);
    expect(t.snapshot()[0]?.scoredSamples).toBe(1);
  });
});
