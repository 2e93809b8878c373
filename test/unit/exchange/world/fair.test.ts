import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { conditionIdFor, tokenIdFor, type MarketMeta } from '../../../../src/exchange/markets.ts';
import { CryptoWalk } from '../../../../src/exchange/world/crypto.ts';
import { binaryP0, FairModel, parseStrike, type MarketFacts } from '../../../../src/exchange/world/fair.ts';
import type { CryptoSymbol, EventRec } from '../../../../src/exchange/world/model.ts';

const T0 = Date.UTC(2025, 0, 6, 12);
const MIN = 60_000;

function meta(label: string, endMs: number, extra: Partial<MarketMeta> = {}): MarketMeta {
  return {
    conditionId: conditionIdFor(label),
    questionId: label,
    question: label,
    description: '',
    slug: label,
    outcomes: ['Yes', 'No'],
    tokens: [tokenIdFor(`${label}:y`), tokenIdFor(`${label}:n`)],
    tick: '0.01',
    minSizeMicro: 5_000_000,
    negRisk: false,
    feeRateBps: 0,
    endDate: new Date(endMs).toISOString(),
    createdAt: new Date(T0).toISOString(),
    category: 'test',
    tags: [],
    ...extra,
  };
}

/** A fair model over an in-memory set of markets (and events, for neg-risk groups). */
function world(seed: number, markets: MarketMeta[], events: EventRec[] = []) {
  const facts = new Map<string, MarketFacts>(markets.map((m) => [m.conditionId, { meta: m, createdMs: T0 }]));
  const walks = new Map<CryptoSymbol, CryptoWalk>();
  const eventOf = new Map<string, EventRec>();
  for (const e of events) for (const c of e.marketIds) eventOf.set(c, e);
  return new FairModel(
    seed,
    (s) => {
      let w = walks.get(s);
      if (w === undefined) walks.set(s, (w = new CryptoWalk(s, seed, T0)));
      return w;
    },
    (c) => facts.get(c),
    (c) => eventOf.get(c),
  );
}

function event(id: string, ms: MarketMeta[]): EventRec {
  return {
    id,
    slug: id,
    title: id,
    description: '',
    tags: [],
    category: 'test',
    startDate: '',
    endDate: '',
    imageUrl: '',
    createdAt: '',
    negRisk: true,
    marketIds: ms.map((m) => m.conditionId),
  };
}

describe('binary markets', () => {
  it('open at p0, stay in [0, 1], and settle on 0 or 1 at the end', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1e6 }),
        fc.integer({ min: 5, max: 60 * 24 * 30 }),
        fc.array(fc.double({ min: 0, max: 1.2, noNaN: true }), { minLength: 1, maxLength: 8 }),
        (seed, lifeMin, fracs) => {
          const m = meta(`b${seed}`, T0 + lifeMin * MIN);
          const fm = world(seed, [m]);
          expect(fm.fair(m.conditionId, T0)).toBeCloseTo(binaryP0(seed, m.conditionId), 6);
          for (const f of [...fracs].sort()) {
            const p = fm.fair(m.conditionId, T0 + f * lifeMin * MIN);
            expect(p).toBeGreaterThanOrEqual(0);
            expect(p).toBeLessThanOrEqual(1);
          }
          const end = fm.fair(m.conditionId, T0 + lifeMin * MIN);
          expect([0, 1]).toContain(end);
          expect(fm.resolvesYes(m.conditionId)).toBe(end === 1);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('is recomputed identically by a fresh model (a restart), whatever was asked before', () => {
    const m = meta('restart', T0 + 45 * MIN);
    const a = world(3, [m]);
    for (let t = T0; t < T0 + 20 * MIN; t += 7_000) a.fair(m.conditionId, t);
    const b = world(3, [m]);
    expect(b.fair(m.conditionId, T0 + 20 * MIN)).toBe(a.fair(m.conditionId, T0 + 20 * MIN));
  });

  it('is calibrated: markets opening at p resolve YES about p of the time', () => {
    const ms = Array.from({ length: 1500 }, (_, i) => meta(`cal${i}`, T0 + 30 * MIN));
    const fm = world(11, ms);
    const buckets = [
      { lo: 0, hi: 0.3, n: 0, yes: 0, p: 0 },
      { lo: 0.3, hi: 0.7, n: 0, yes: 0, p: 0 },
      { lo: 0.7, hi: 1, n: 0, yes: 0, p: 0 },
    ];
    for (const m of ms) {
      const p0 = fm.fair(m.conditionId, T0);
      const b = buckets.find((x) => p0 >= x.lo && p0 < x.hi)!;
      b.n++;
      b.p += p0;
      if (fm.resolvesYes(m.conditionId)) b.yes++;
    }
    for (const b of buckets) {
      expect(b.n).toBeGreaterThan(100);
      // jumps widen the outcome distribution a little (toward 0.5): allow some slack
      expect(Math.abs(b.yes / b.n - b.p / b.n)).toBeLessThan(0.1);
    }
  });

  it('converges toward the outcome as the end nears', () => {
    const ms = Array.from({ length: 200 }, (_, i) => meta(`conv${i}`, T0 + 20 * MIN));
    const fm = world(5, ms);
    let err0 = 0;
    let errEnd = 0;
    for (const m of ms) {
      const y = fm.resolvesYes(m.conditionId) ? 1 : 0;
      const fresh = world(5, [m]);
      err0 += Math.abs(fresh.fair(m.conditionId, T0) - y);
      errEnd += Math.abs(fresh.fair(m.conditionId, T0 + 20 * MIN - 10_000) - y);
    }
    expect(errEnd).toBeLessThan(err0 / 3);
  });
});

describe('neg-risk groups', () => {
  it('probabilities sum to 1 and exactly one member resolves YES', () => {
    for (let seed = 0; seed < 20; seed++) {
      const ms = Array.from({ length: 4 }, (_, i) => meta(`g${seed}:${i}`, T0 + 40 * MIN, { negRisk: true }));
      const fm = world(seed, ms, [event(`e${seed}`, ms)]);
      for (const t of [T0, T0 + 10 * MIN, T0 + 39 * MIN]) {
        const sum = ms.reduce((s, m) => s + fm.fair(m.conditionId, t), 0);
        expect(sum).toBeCloseTo(1, 9);
      }
      expect(ms.filter((m) => fm.resolvesYes(m.conditionId)).length).toBe(1);
    }
  });

  it('the first listed member is the favourite more often than not', () => {
    let first = 0;
    for (let seed = 0; seed < 40; seed++) {
      const ms = Array.from({ length: 5 }, (_, i) => meta(`f${seed}:${i}`, T0 + 300 * 86_400_000, { negRisk: true }));
      const fm = world(seed, ms, [event(`e${seed}`, ms)]);
      const ps = ms.map((m) => fm.fair(m.conditionId, T0));
      if (ps[0] === Math.max(...ps)) first++;
    }
    expect(first).toBeGreaterThan(20);
  });
});

describe('crypto markets', () => {
  it('follow P(price at end >= strike) and settle on the price at the end', () => {
    const walk = new CryptoWalk('btcusdt', 4, T0);
    const strike = walk.startPrice;
    const m = meta('btc-updown', T0 + 5 * MIN, {
      cryptoSymbol: 'btcusdt',
      description: `Up or down. Price to beat: $${strike.toLocaleString('en-US')}.`,
    });
    expect(parseStrike(m.description)).toBeCloseTo(strike, 2);
    const fm = world(4, [m]);
    expect(fm.fair(m.conditionId, T0)).toBeCloseTo(0.5, 2);
    const end = walk.priceAt(T0 + 5 * MIN);
    expect(fm.resolvesYes(m.conditionId)).toBe(end >= parseStrike(m.description)!);
    // well after the end the answer does not change
    expect(fm.fair(m.conditionId, T0 + 50 * MIN)).toBe(fm.resolvesYes(m.conditionId) ? 1 : 0);
  });

  it('without a stated strike uses the price when the market was created', () => {
    const m = meta('eth-nostrike', T0 + 15 * MIN, { cryptoSymbol: 'ethusdt' });
    expect(world(8, [m]).fair(m.conditionId, T0)).toBeCloseTo(0.5, 6);
  });
});
