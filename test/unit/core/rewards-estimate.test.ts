import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { estimateMarketReward, type RewardConfig, scoreSample, type ScoredOrder } from '../../../src/core/rewards.ts';
import type { Micro, Pips } from '../../../src/core/units.ts';

const sh = (n: number) => Math.round(n * 1_000_000) as Micro;
const px = (p: number) => Math.round(p * 10_000) as Pips;
const cfg: RewardConfig = { maxSpread: 300 as Pips, minSize: sh(50), dailyRate: sh(100) };
const lv = (p: number, s: number) => [px(p), sh(s)] as const;
const TICK = 100;

describe('estimateMarketReward: a two-sided min-size quote against the competition in the band', () => {
  it('joins the touch and takes its share of the pool (worked example)', () => {
    // mid 0.50, v = 3c: our 50 @0.49 and 50 @0.51 score (2/3)^2 x 50 each side = 22.22;
    // the competition: bids 100 @0.49 (44.44) + 200 @0.48 (22.22), asks 100 @0.51 (44.44) and 30 @0.52
    // below the min size (0): Q_min = max(min(66.67, 44.44), 66.67 / 3) = 44.44; our share 1/3
    const e = estimateMarketReward(cfg, [lv(0.49, 100), lv(0.48, 200)], [lv(0.51, 100), lv(0.52, 30)], TICK);
    expect(e.bid).toBe(px(0.49));
    expect(e.ask).toBe(px(0.51));
    expect(e.size).toBe(sh(50));
    expect(e.mid2).toBe(px(1));
    expect(e.competitionScore).toBeCloseTo(400 / 9, 9);
    expect(e.estDaily).toBe(33_333_333);
  });

  it('a touch outside the band: the quotes move to the first tick inside it and take the whole pool alone', () => {
    const e = estimateMarketReward(cfg, [lv(0.4, 100)], [lv(0.6, 100)], TICK);
    expect(e.bid).toBe(px(0.48));
    expect(e.ask).toBe(px(0.52));
    expect(e.competitionScore).toBe(0);
    expect(e.estDaily).toBe(sh(100));
  });

  it('a touch exactly at v from the mid does not score: the quote moves one tick in', () => {
    const e = estimateMarketReward(cfg, [lv(0.47, 100)], [lv(0.53, 100)], TICK);
    expect([e.bid, e.ask]).toEqual([px(0.48), px(0.52)]);
    expect(e.estDaily).toBe(sh(100));
  });

  it('more competition in the band, a smaller estimate; the pool scales it', () => {
    const thin = estimateMarketReward(cfg, [lv(0.49, 100)], [lv(0.51, 100)], TICK);
    const thick = estimateMarketReward(cfg, [lv(0.49, 1000)], [lv(0.51, 1000)], TICK);
    expect(thick.estDaily).toBeLessThan(thin.estDaily);
    expect(thick.competitionScore).toBeGreaterThan(thin.competitionScore);
    const rich = estimateMarketReward({ ...cfg, dailyRate: sh(400) }, [lv(0.49, 1000)], [lv(0.51, 1000)], TICK);
    expect(rich.estDaily - 4 * thick.estDaily).toBeGreaterThanOrEqual(0);
    expect(rich.estDaily - 4 * thick.estDaily).toBeLessThan(4); // each floored to the micro
  });

  it('no estimate without a two-sided book', () => {
    for (const [b, a] of [
      [[], [lv(0.51, 100)]],
      [[lv(0.49, 100)], []],
      [[], []],
    ] as const) {
      const e = estimateMarketReward(cfg, b, a, TICK);
      expect(e.mid2).toBeNull();
      expect(e.estDaily).toBe(0);
    }
  });

  it('a larger size scores more; never below the min size', () => {
    const book = [[lv(0.49, 100)], [lv(0.51, 100)]] as const;
    const small = estimateMarketReward(cfg, book[0], book[1], TICK, sh(10));
    expect(small.size).toBe(sh(50));
    const big = estimateMarketReward(cfg, book[0], book[1], TICK, sh(200));
    expect(big.size).toBe(sh(200));
    expect(big.estDaily).toBeGreaterThan(small.estDaily);
  });

  it('equals the exchange-side scoring of one sample with one competitor (property)', () => {
    const level = fc.tuple(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 400 }));
    fc.assert(
      fc.property(
        fc.integer({ min: 20, max: 80 }),
        fc.array(level, { minLength: 1, maxLength: 5 }),
        fc.array(level, { minLength: 1, maxLength: 5 }),
        (midCents, bidOffsets, askOffsets) => {
          const bids = [...new Map(bidOffsets.map(([d, s]) => [midCents - d, s])).entries()]
            .filter(([p]) => p >= 1)
            .sort((x, y) => y[0] - x[0])
            .map(([p, s]) => [p * 100, sh(s)] as const);
          const asks = [...new Map(askOffsets.map(([d, s]) => [midCents + d, s])).entries()]
            .filter(([p]) => p <= 99)
            .sort((x, y) => x[0] - y[0])
            .map(([p, s]) => [p * 100, sh(s)] as const);
          const e = estimateMarketReward(cfg, bids, asks, TICK);
          if (e.mid2 === null) return;
          const orders: ScoredOrder[] = [
            ...bids.map(([p, s]) => ({ maker: 'c', bid: true, price: p as Pips, size: s as Micro })),
            ...asks.map(([p, s]) => ({ maker: 'c', bid: false, price: p as Pips, size: s as Micro })),
            { maker: 'me', bid: true, price: e.bid!, size: e.size },
            { maker: 'me', bid: false, price: e.ask!, size: e.size },
          ];
          const sample = scoreSample(cfg, orders);
          expect(sample.mid2).toBe(e.mid2);
          const mine = sample.qMin3.get('me') ?? 0n;
          expect(mine).toBe(e.ownQMin3);
          expect(sample.qMin3.get('c') ?? 0n).toBe(e.othersQMin3);
          const want = mine === 0n ? 0 : Number((BigInt(cfg.dailyRate) * mine) / sample.total);
          expect(e.estDaily).toBe(want);
        },
      ),
    );
  });
});
