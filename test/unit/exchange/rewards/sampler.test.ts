import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scoreSample, type RewardConfig, type ScoredOrder } from '../../../../src/core/rewards.ts';
import type { Micro, Pips } from '../../../../src/core/units.ts';
import { MatchingEngine } from '../../../../src/exchange/matching/engine.ts';
import type { MarketDef, NewOrder } from '../../../../src/exchange/matching/types.ts';
import { bandOrders, bookMid2, sampleMarket } from '../../../../src/exchange/rewards/sampler.ts';

const SH = 1_000_000;
const M: MarketDef = {
  conditionId: 'c1',
  yesToken: 'Y',
  noToken: 'N',
  tickPips: 10,
  minSizeMicro: 1 * SH,
  negRisk: false,
  feeRateBps: 0,
};
const CFG: RewardConfig = { maxSpread: 300 as Pips, minSize: (20 * SH) as Micro, dailyRate: (100 * SH) as Micro };

let seq = 0;
function engine(): MatchingEngine {
  const e = new MatchingEngine();
  e.addMarket(M);
  for (const a of ['a', 'b', 'c', 'd']) {
    e.credit(a, 10_000_000 * SH);
    e.setTokens(a, 'Y', 1_000_000 * SH);
    e.setTokens(a, 'N', 1_000_000 * SH);
  }
  e.drainEvents();
  return e;
}
function rest(
  e: MatchingEngine,
  account: string,
  tokenId: 'Y' | 'N',
  side: 'BUY' | 'SELL',
  price: number,
  shares: number,
) {
  const o: NewOrder = {
    id: `o${++seq}`,
    account,
    owner: account,
    tokenId,
    side,
    price,
    size: shares * SH,
    type: 'GTC',
    postOnly: true,
    expiresAt: 0,
    feeRateBps: 0,
  };
  const r = e.place(o, 1000);
  if (!r.ok || r.status !== 'live') throw new Error(`not resting: ${JSON.stringify(r)}`);
}

/** Every resting order of the market in YES terms (the brute-force reference). */
function allOrders(e: MatchingEngine): ScoredOrder[] {
  const out: ScoredOrder[] = [];
  for (const side of ['bid', 'ask'] as const)
    e.forEachResting('c1', side, (maker, price, size) => {
      out.push({ maker, bid: side === 'bid', price: price as Pips, size: size as Micro });
      return true;
    });
  return out;
}

describe('the reward sampler (one sample of a market from the engine)', () => {
  it('walks the YES book: a NO bid at q is a YES ask at 1 - q, counted once', () => {
    const e = engine();
    rest(e, 'a', 'Y', 'BUY', 4900, 100);
    rest(e, 'a', 'N', 'BUY', 4900, 100); // a YES ask at 0.51
    expect(bookMid2(e, 'c1', CFG.minSize)).toBe(4900 + 5100);
    const orders = bandOrders(e, 'c1', CFG);
    expect(orders).toEqual([
      { maker: 'a', bid: true, price: 4900, size: 100 * SH },
      { maker: 'a', bid: false, price: 5100, size: 100 * SH },
    ]);
  });

  it('the size cutoff moves the midpoint: orders below the min size neither score nor set it', () => {
    const e = engine();
    rest(e, 'b', 'Y', 'BUY', 5000, 10); // below 20 shares: ignored
    rest(e, 'a', 'Y', 'BUY', 4800, 50);
    rest(e, 'a', 'Y', 'SELL', 5200, 50);
    expect(bookMid2(e, 'c1', CFG.minSize)).toBe(10_000);
    const s = sampleMarket(e, 'c1', CFG);
    expect(s.mid2).toBe(10_000);
    expect([...s.qMin3.keys()]).toEqual(['a']);
  });

  it('stops at the band: orders at v or beyond the adjusted midpoint are left out', () => {
    const e = engine();
    rest(e, 'a', 'Y', 'BUY', 4900, 100);
    rest(e, 'a', 'Y', 'SELL', 5100, 100);
    rest(e, 'b', 'Y', 'BUY', 4700, 100); // exactly v (3 cents) below 0.50: S = 0
    rest(e, 'b', 'Y', 'SELL', 5350, 100);
    const orders = bandOrders(e, 'c1', CFG);
    expect(orders.map((o) => o.maker)).toEqual(['a', 'a']);
  });

  it('nothing scores when a side has no qualifying order, or the qualifying touch is 2v wide or more', () => {
    const e = engine();
    rest(e, 'a', 'Y', 'BUY', 4900, 100);
    expect(sampleMarket(e, 'c1', CFG)).toMatchObject({ mid2: null, total: 0n });
    rest(e, 'a', 'Y', 'SELL', 5500, 100); // 6 cents apart: each at v from the midpoint
    expect(bandOrders(e, 'c1', CFG)).toEqual([]);
    expect(sampleMarket(e, 'c1', CFG).total).toBe(0n);
  });

  it('walks past small orders at the touch to the qualifying ones, and the midpoint moves with them', () => {
    const e = engine();
    rest(e, 'b', 'Y', 'BUY', 5400, 5); // small, at the touch
    rest(e, 'a', 'Y', 'BUY', 4900, 100);
    rest(e, 'a', 'Y', 'SELL', 5500, 100);
    rest(e, 'c', 'Y', 'SELL', 5450, 5);
    // qualifying touch 0.49 / 0.55: midpoint 0.52, both at 3 cents = v: nothing scores
    expect(bandOrders(e, 'c1', CFG)).toEqual([]);
    // a qualifying bid at 0.51: midpoint 0.53; a's bid (4 cents away) is out, its ask (2 cents) in
    rest(e, 'd', 'Y', 'BUY', 5100, 30);
    const orders = bandOrders(e, 'c1', CFG);
    expect(orders.map((o) => [o.maker, o.price])).toEqual([
      ['d', 5100],
      ['a', 5500],
    ]);
  });

  it('equals scoring every resting order of the book (random books, brute force)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            maker: fc.constantFrom('a', 'b', 'c', 'd'),
            bid: fc.boolean(),
            no: fc.boolean(),
            tick: fc.integer({ min: 1, max: 999 }),
            shares: fc.constantFrom(5, 10, 19, 20, 21, 50, 100, 300),
          }),
          { maxLength: 40 },
        ),
        fc.constantFrom(50, 150, 300, 450, 650),
        (orders, v) => {
          const e = engine();
          for (const o of orders) {
            const yes = o.tick * 10;
            const { bid: bb, ask: ba } = e.bestBidAsk('Y');
            // keep the book uncrossed: a bid below the best ask, an ask above the best bid
            if (o.bid && ba !== null && yes >= ba) continue;
            if (!o.bid && bb !== null && yes <= bb) continue;
            if (o.no) rest(e, o.maker, 'N', o.bid ? 'SELL' : 'BUY', 10_000 - yes, o.shares);
            else rest(e, o.maker, 'Y', o.bid ? 'BUY' : 'SELL', yes, o.shares);
          }
          const cfg = { ...CFG, maxSpread: v as Pips };
          const fast = sampleMarket(e, 'c1', cfg);
          const slow = scoreSample(cfg, allOrders(e));
          expect(fast.total).toBe(slow.total);
          expect(fast.qMin3).toEqual(slow.qMin3);
          if (slow.total > 0n) expect(fast.mid2).toBe(slow.mid2);
        },
      ),
      { numRuns: 300 },
    );
  });
});
