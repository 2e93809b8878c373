import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  adjustedMid2,
  EpochScores,
  epochPool,
  estimateDailyReward,
  levelScores,
  maxSpreadFromCents,
  normaliseSample,
  qMin3,
  qMinToShares,
  type RewardConfig,
  SHARE_SCALE,
  type ScoredOrder,
  scoreDenominator,
  scoreSample,
} from '../../../src/core/rewards.ts';
import type { Micro, Pips } from '../../../src/core/units.ts';

const sh = (n: number) => (n * 1_000_000) as Micro;
const px = (p: number) => Math.round(p * 10_000) as Pips;
const cfg: RewardConfig = { maxSpread: 300 as Pips, minSize: sh(50), dailyRate: sh(100) };
const o = (maker: string, bid: boolean, price: number, size: number): ScoredOrder => ({
  maker,
  bid,
  price: px(price),
  size: sh(size),
});
/** A maker's Q_min in share-units (for readable expectations). */
const qMin = (n: bigint) => qMinToShares(cfg, n);

describe('liquidity reward scoring (the public methodology, exact)', () => {
  it("scores the docs' worked example: Q_one = 1000/9 exactly", () => {
    // mid 0.50, v = 3 cents: 100 bid on YES @0.49, 200 bid on YES @0.48, 100 ask on NO @0.51 (a YES bid @0.49)
    const orders = [o('a', true, 0.49, 100), o('a', true, 0.48, 200), o('a', true, 0.49, 100), o('z', false, 0.51, 60)];
    const s = scoreSample(cfg, orders);
    expect(s.mid2).toBe(px(1));
    const a = s.sides.get('a');
    // 1000/9 shares over the denominator (2v)^2, in micro: numerator x 9 = 1000 x den x 1e6
    expect((a?.qOne ?? 0n) * 9n).toBe(1000n * scoreDenominator(cfg) * 1_000_000n);
    expect(a?.qTwo).toBe(0n);
  });

  it('a one-sided maker scores a third inside [0.10, 0.90] and nothing outside', () => {
    const inside = scoreSample(cfg, [o('a', true, 0.49, 100), o('b', false, 0.51, 100), o('b', true, 0.49, 100)]);
    const sideA = inside.sides.get('a');
    const sideB = inside.sides.get('b');
    expect(sideA?.qTwo).toBe(0n);
    expect(inside.qMin3.get('a')).toBe(sideA?.qOne); // 3 x Q_min = Q_one: Q_min = Q_one / 3
    expect(inside.qMin3.get('b')).toBe(3n * (sideB?.qOne ?? 0n)); // two-sided and balanced: Q_min = Q_one
    // near the edge (mid 0.05) only two-sided quoting scores
    const edge = scoreSample(cfg, [o('a', true, 0.04, 100), o('b', false, 0.06, 100), o('b', true, 0.04, 100)]);
    expect(edge.mid2).toBe(px(0.1));
    expect(edge.qMin3.has('a')).toBe(false);
    expect(edge.qMin3.get('b')).toBeGreaterThan(0n);
    // the band's ends belong to it: mid exactly 0.10 scores one side
    expect(qMin3({ qOne: 9n, qTwo: 0n }, px(0.2))).toBe(9n);
    expect(qMin3({ qOne: 9n, qTwo: 0n }, px(0.2) - 1)).toBe(0n);
    expect(qMin3({ qOne: 9n, qTwo: 0n }, px(1.8))).toBe(9n);
    expect(qMin3({ qOne: 9n, qTwo: 0n }, px(1.8) + 1)).toBe(0n);
  });

  it('a quote below the min size or at the max spread and beyond scores nothing', () => {
    const s = scoreSample(cfg, [
      o('small', true, 0.495, 49.99),
      o('far', true, 0.47, 500), // exactly 3 cents from 0.50: S = 0
      o('farther', false, 0.54, 500),
      o('m', true, 0.49, 100),
      o('m', false, 0.51, 100),
    ]);
    expect(s.mid2).toBe(px(1));
    expect([...s.qMin3.keys()]).toEqual(['m']);
  });

  it('orders below the min size do not move the adjusted midpoint', () => {
    const orders = [o('tiny', true, 0.55, 10), o('a', true, 0.49, 100), o('a', false, 0.53, 100)];
    expect(adjustedMid2(orders, sh(50))).toBe(px(1.02)); // 0.51, not (0.55 + 0.53) / 2
    expect(adjustedMid2(orders, sh(5))).toBe(px(1.08));
    expect(adjustedMid2([o('a', true, 0.49, 100)], sh(50))).toBeNull();
    // the cutoff changes who scores: at the raw mid 0.54, 'a's bid would be 5 cents away
    const s = scoreSample(cfg, orders);
    expect(s.qMin3.get('a')).toBeGreaterThan(0n);
  });

  it('two makers split a pool by their normalised sample scores', () => {
    const epoch = new EpochScores();
    // sample 1: a and b quote the same, each half; sample 2: only a
    epoch.add(
      scoreSample(cfg, [
        o('a', true, 0.49, 100),
        o('a', false, 0.51, 100),
        o('b', true, 0.49, 100),
        o('b', false, 0.51, 100),
      ]),
    );
    epoch.add(scoreSample(cfg, [o('a', true, 0.49, 100), o('a', false, 0.51, 100)]));
    epoch.add(scoreSample(cfg, [])); // nobody scores: no weight
    expect(epoch.samples).toBe(3);
    expect(epoch.scoredSamples).toBe(2);
    const p = epoch.payout(sh(40), sh(1));
    expect(p.paid.get('a')).toBe(sh(30)); // (1/2 + 1) / 2 of the pool
    expect(p.paid.get('b')).toBe(sh(10));
    expect(p.unpaid).toBe(0);
    // below the minimum payout nothing is paid, and it stays unpaid
    const q = epoch.payout(sh(40), sh(11));
    expect(q.paid.has('b')).toBe(false);
    expect(q.earned.get('b')).toBe(sh(10));
    expect(q.unpaid).toBe(sh(10));
    expect(epoch.shareOf('a')).toBe((SHARE_SCALE * 3n) / 4n);
  });

  it('a pool is the daily rate over the epoch, floored to the micro', () => {
    expect(epochPool(sh(100), 86_400_000)).toBe(sh(100));
    expect(epochPool(sh(100), 120_000)).toBe(Math.floor((100_000_000 * 120_000) / 86_400_000));
    expect(epochPool(1, 60_000)).toBe(0);
  });

  it('estimates a daily reward against the competition', () => {
    const mid2 = px(1);
    const own = levelScores(cfg, mid2, [{ price: px(0.49), size: sh(100) }], [{ price: px(0.51), size: sh(100) }]);
    expect(estimateDailyReward(cfg, mid2, own, { qOne: 0n, qTwo: 0n })).toBe(sh(100));
    expect(estimateDailyReward(cfg, mid2, own, own)).toBe(sh(50));
    expect(estimateDailyReward(cfg, mid2, { qOne: 0n, qTwo: 0n }, own)).toBe(0);
  });

  it('reads the wire max spread in cents', () => {
    expect(maxSpreadFromCents(4.5)).toBe(450);
    expect(maxSpreadFromCents(3)).toBe(300);
    expect(maxSpreadFromCents(0)).toBeNull();
    expect(maxSpreadFromCents(0.001)).toBeNull();
  });

  it('shares of a sample sum to the scale within one unit per maker; a pool splits to the micro (property)', () => {
    const order = fc.record({
      maker: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
      bid: fc.boolean(),
      price: fc.integer({ min: 1, max: 9_999 }),
      size: fc.integer({ min: 1, max: 100_000 }).map((n) => n * 10_000),
    });
    fc.assert(
      fc.property(
        fc.array(fc.array(order, { maxLength: 30 }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 0, max: 10_000_000_000 }),
        (samples, pool) => {
          const loose: RewardConfig = { maxSpread: 500 as Pips, minSize: sh(1), dailyRate: sh(1) };
          const epoch = new EpochScores();
          for (const os of samples) {
            const s = scoreSample(loose, os as ScoredOrder[]);
            const shares = normaliseSample(s);
            let sum = 0n;
            for (const v of shares.values()) sum += v;
            if (s.total > 0n) {
              expect(sum).toBeLessThanOrEqual(SHARE_SCALE);
              expect(SHARE_SCALE - sum).toBeLessThan(BigInt(shares.size));
            } else expect(shares.size).toBe(0);
            epoch.add(s);
          }
          const p = epoch.payout(pool, 0);
          let paid = 0;
          for (const v of p.paid.values()) paid += v;
          expect(paid + p.unpaid).toBe(pool);
          if (epoch.scoredSamples > 0) {
            // each maker loses less than one micro to the floor
            expect(p.unpaid).toBeLessThan(Math.max(1, p.earned.size));
          } else expect(p.unpaid).toBe(pool);
          for (const v of p.earned.values()) expect(Number.isInteger(v)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reports Q_min in share-units consistently (a readable cross-check)', () => {
    const s = scoreSample(cfg, [o('a', true, 0.49, 100), o('a', false, 0.51, 100)]);
    // both sides at 1 cent from 0.50 with v = 3: ((3 - 1) / 3)^2 x 100 = 44.44 each side; Q_min = 44.44
    expect(qMin(s.qMin3.get('a') ?? 0n)).toBeCloseTo(400 / 9, 9);
  });
});
