import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ConditionId, OrderId, TokenId } from '../../../src/core/ids.ts';
import type { DesiredQuotes, LiveOrderView, QuoteIntent } from '../../../src/core/intents.ts';
import { LOT_MICRO, type Micro, type Pips, type Side } from '../../../src/core/units.ts';
import { diffQuotes, type DiffTolerance } from '../../../src/execution/diff.ts';

const M = '0xm' as ConditionId;
const OTHER = '0xo' as ConditionId;
const Y = 'y' as TokenId;
const N = 'n' as TokenId;
const TICK = 100;

const q = (side: Side, price: number, size: number, tokenId: TokenId = Y): QuoteIntent => ({
  tokenId,
  side,
  price: price as Pips,
  size: size as Micro,
});
const live = (
  id: string,
  side: Side,
  price: number,
  size: number,
  matched = 0,
  tokenId: TokenId = Y,
  market: ConditionId = M,
): LiveOrderView => ({
  id: id as OrderId,
  market,
  tokenId,
  side,
  price: price as Pips,
  originalSize: size as Micro,
  sizeMatched: matched as Micro,
});
const desired = (quotes: QuoteIntent[]): DesiredQuotes => ({ market: M, quotes, at: 0 });
const EXACT: DiffTolerance = { priceTicks: 0, sizeFraction: 0 };

describe('diffQuotes', () => {
  it('keeps exact matches, cancels the rest, places the missing', () => {
    const d = diffQuotes(
      desired([q('BUY', 4900, 10e6), q('SELL', 5100, 10e6)]),
      [live('a', 'BUY', 4900, 10e6), live('b', 'SELL', 5200, 10e6)],
      EXACT,
      TICK,
    );
    expect(d.kept).toEqual([{ id: 'a', quote: 0 }]);
    expect(d.cancels).toEqual(['b']);
    expect(d.places).toEqual([q('SELL', 5100, 10e6)]);
  });

  it('keeps an order within the price tolerance (ticks × tick)', () => {
    const t = { priceTicks: 1, sizeFraction: 0 };
    expect(diffQuotes(desired([q('BUY', 4900, 10e6)]), [live('a', 'BUY', 5000, 10e6)], t, TICK).cancels).toEqual([]);
    expect(diffQuotes(desired([q('BUY', 4900, 10e6)]), [live('a', 'BUY', 5100, 10e6)], t, TICK).cancels).toEqual(['a']);
    // the same distance on a finer tick is out of tolerance
    expect(diffQuotes(desired([q('BUY', 4900, 10e6)]), [live('a', 'BUY', 5000, 10e6)], t, 10).cancels).toEqual(['a']);
  });

  it('compares the REMAINING size within sizeFraction BELOW the desired size, never above it', () => {
    const t = { priceTicks: 0, sizeFraction: 0.1 };
    // 10 shares, 0.5 matched: 9.5 remaining, within 10 %
    expect(diffQuotes(desired([q('BUY', 4900, 10e6)]), [live('a', 'BUY', 4900, 10e6, 0.5e6)], t, TICK).places).toEqual(
      [],
    );
    // 2 matched: 8 remaining, outside
    const d = diffQuotes(desired([q('BUY', 4900, 10e6)]), [live('a', 'BUY', 4900, 10e6, 2e6)], t, TICK);
    expect(d.cancels).toEqual(['a']);
    expect(d.places).toHaveLength(1);
    // 9 remaining: -10 %, inside (boundary included)
    expect(diffQuotes(desired([q('BUY', 4900, 10e6)]), [live('a', 'BUY', 4900, 10e6, 1e6)], t, TICK).cancels).toEqual(
      [],
    );
    // 10.05 shares live for an approved 10 (the gate trimmed the quote to fit a notional cap): a kept
    // order that large would rest beyond the cap, so it is replaced (trial 22 F4: 40.05 of 40 USDC)
    const over = diffQuotes(desired([q('BUY', 4900, 10e6)]), [live('a', 'BUY', 4900, 10.05e6)], t, TICK);
    expect(over.cancels).toEqual(['a']);
    expect(over.places).toEqual([q('BUY', 4900, 10e6)]);
    // but a remaining size above by under a lot is kept: a partial fill of 3.333333 leaves 6.666667, and
    // the gate approves the quote cut down to the lot, 6.66 (review 48 F3: it was replaced every time)
    const part = diffQuotes(desired([q('BUY', 4900, 6.66e6)]), [live('b', 'BUY', 4900, 10e6, 3.333333e6)], t, TICK);
    expect(part.cancels).toEqual([]);
    expect(part.places).toEqual([]);
  });

  it('token and side must match', () => {
    const t = { priceTicks: 5, sizeFraction: 1 };
    const d = diffQuotes(
      desired([q('BUY', 4900, 10e6, Y)]),
      [live('a', 'SELL', 4900, 10e6, 0, Y), live('b', 'BUY', 4900, 10e6, 0, N)],
      t,
      TICK,
    );
    expect(d.cancels).toEqual(['a', 'b']);
    expect(d.places).toHaveLength(1);
  });

  it('ignores live orders of other markets', () => {
    const d = diffQuotes(
      desired([]),
      [live('a', 'BUY', 4900, 10e6), live('x', 'BUY', 4900, 10e6, 0, Y, OTHER)],
      EXACT,
      TICK,
    );
    expect(d.cancels).toEqual(['a']);
  });

  it('an empty desired set cancels everything in the market', () => {
    const d = diffQuotes(desired([]), [live('a', 'BUY', 4900, 10e6), live('b', 'SELL', 5100, 10e6)], EXACT, TICK);
    expect(d.cancels).toEqual(['a', 'b']);
    expect(d.places).toEqual([]);
  });

  it('prefers the closest price, then the closest size, then the earliest order', () => {
    const t = { priceTicks: 2, sizeFraction: 0.5 };
    let d = diffQuotes(
      desired([q('BUY', 5000, 10e6)]),
      [live('far', 'BUY', 5200, 10e6), live('near', 'BUY', 4900, 10e6)],
      t,
      TICK,
    );
    expect(d.kept).toEqual([{ id: 'near', quote: 0 }]);
    d = diffQuotes(
      desired([q('BUY', 5000, 10e6)]),
      [live('s1', 'BUY', 5000, 7e6), live('s2', 'BUY', 5000, 9e6)],
      t,
      TICK,
    );
    expect(d.kept).toEqual([{ id: 's2', quote: 0 }]);
    d = diffQuotes(
      desired([q('BUY', 5000, 10e6)]),
      [live('first', 'BUY', 5000, 10e6), live('second', 'BUY', 5000, 10e6)],
      t,
      TICK,
    );
    expect(d.kept).toEqual([{ id: 'first', quote: 0 }]);
    expect(d.cancels).toEqual(['second']);
  });

  it('exact matches first: a fresh exact order is not stolen by a looser quote (no churn on repeat)', () => {
    const t = { priceTicks: 2, sizeFraction: 0 };
    const qs = desired([q('BUY', 5000, 10e6), q('BUY', 4900, 10e6)]);
    const d1 = diffQuotes(qs, [live('L', 'BUY', 5200, 10e6)], t, TICK);
    expect(d1.kept).toEqual([{ id: 'L', quote: 0 }]);
    expect(d1.places).toEqual([q('BUY', 4900, 10e6)]);
    const d2 = diffQuotes(qs, [live('L', 'BUY', 5200, 10e6), live('N', 'BUY', 4900, 10e6)], t, TICK);
    expect(d2.cancels).toEqual([]);
    expect(d2.places).toEqual([]);
    expect(d2.kept).toEqual([
      { id: 'L', quote: 0 },
      { id: 'N', quote: 1 },
    ]);
  });

  it('duplicate desired quotes each need their own order', () => {
    const d = diffQuotes(
      desired([q('BUY', 4900, 10e6), q('BUY', 4900, 10e6)]),
      [live('a', 'BUY', 4900, 10e6)],
      EXACT,
      TICK,
    );
    expect(d.kept).toHaveLength(1);
    expect(d.places).toHaveLength(1);
  });

  it('rejects negative or non-finite tolerances', () => {
    expect(() => diffQuotes(desired([]), [], { priceTicks: -1, sizeFraction: 0 }, TICK)).toThrow(RangeError);
    expect(() => diffQuotes(desired([]), [], { priceTicks: 0, sizeFraction: Number.NaN }, TICK)).toThrow(RangeError);
    expect(() => diffQuotes(desired([]), [], EXACT, Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});

// ---- properties ----------------------------------------------------------------------------------

const sideArb = fc.constantFrom<Side>('BUY', 'SELL');
const tokenArb = fc.constantFrom(Y, Y, N);
const priceArb = fc.oneof(fc.integer({ min: 1, max: 99 }), fc.integer({ min: 48, max: 52 })).map((t) => t * TICK);
const sizeArb = fc.oneof(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 9, max: 11 })).map((n) => n * 1_000_000);
const quoteArb = fc
  .record({ tokenId: tokenArb, side: sideArb, price: priceArb, size: sizeArb })
  .map((x) => q(x.side, x.price, x.size, x.tokenId));
const liveArb = fc
  .array(
    fc.record({
      tokenId: tokenArb,
      side: sideArb,
      price: priceArb,
      size: sizeArb,
      matchedPct: fc.integer({ min: 0, max: 90 }),
      other: fc.boolean(),
    }),
    { maxLength: 20 },
  )
  .map((xs) =>
    xs.map((x, i) =>
      live(
        `o${i}`,
        x.side,
        x.price,
        x.size,
        Math.floor((x.size * x.matchedPct) / 100 / 10_000) * 10_000,
        x.tokenId,
        x.other ? OTHER : M,
      ),
    ),
  );
const tolArb = fc.record({
  priceTicks: fc.integer({ min: 0, max: 3 }),
  sizeFraction: fc.constantFrom(0, 0.05, 0.1, 0.25, 1),
});

function within(o: LiveOrderView, qq: QuoteIntent, t: DiffTolerance): boolean {
  return (
    o.tokenId === qq.tokenId &&
    o.side === qq.side &&
    Math.abs(o.price - qq.price) <= t.priceTicks * TICK &&
    o.originalSize - o.sizeMatched < qq.size + LOT_MICRO &&
    qq.size - (o.originalSize - o.sizeMatched) <= Math.floor(qq.size * t.sizeFraction)
  );
}

describe('diffQuotes (properties)', () => {
  it('partitions the market live orders into kept and cancelled, and the quotes into kept and placed', () => {
    fc.assert(
      fc.property(fc.array(quoteArb, { maxLength: 12 }), liveArb, tolArb, (qs, lv, tol) => {
        const d = diffQuotes(desired(qs), lv, tol, TICK);
        const mine = lv.filter((o) => o.market === M).map((o) => o.id);
        const keptIds = d.kept.map((k) => k.id);
        expect(new Set([...keptIds, ...d.cancels]).size).toBe(keptIds.length + d.cancels.length);
        expect([...keptIds, ...d.cancels].sort()).toEqual([...mine].sort());
        expect(d.kept.length + d.places.length).toBe(qs.length);
        expect(new Set(d.kept.map((k) => k.quote)).size).toBe(d.kept.length);
        // cancels keep live order, places keep desired order
        expect(d.cancels).toEqual(mine.filter((id) => d.cancels.includes(id)));
        const placedIdx = qs.map((_, i) => i).filter((i) => !d.kept.some((k) => k.quote === i));
        expect(d.places).toEqual(placedIdx.map((i) => qs[i]));
      }),
      { numRuns: 400 },
    );
  });

  it('every kept order is within tolerance of its quote; no placed quote could have used a cancelled order', () => {
    fc.assert(
      fc.property(fc.array(quoteArb, { maxLength: 12 }), liveArb, tolArb, (qs, lv, tol) => {
        const d = diffQuotes(desired(qs), lv, tol, TICK);
        const byId = new Map(lv.map((o) => [o.id, o]));
        for (const k of d.kept) expect(within(byId.get(k.id)!, qs[k.quote]!, tol)).toBe(true);
        for (const p of d.places) for (const c of d.cancels) expect(within(byId.get(c)!, p, tol)).toBe(false);
      }),
      { numRuns: 400 },
    );
  });

  it('is deterministic, and applying its result is a fixed point (no churn on a repeat)', () => {
    fc.assert(
      fc.property(fc.array(quoteArb, { maxLength: 12 }), liveArb, tolArb, (qs, lv, tol) => {
        const d1 = diffQuotes(desired(qs), lv, tol, TICK);
        expect(diffQuotes(desired(qs), lv, tol, TICK)).toEqual(d1);
        // the book after the diff: kept orders + one new order per placed quote
        const after = [
          ...lv.filter((o) => o.market !== M || d1.kept.some((k) => k.id === o.id)),
          ...d1.places.map((p, i) => live(`new${i}`, p.side, p.price, p.size, 0, p.tokenId)),
        ];
        const d2 = diffQuotes(desired(qs), after, tol, TICK);
        expect(d2.cancels).toEqual([]);
        expect(d2.places).toEqual([]);
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps as many orders as any matching could (maximum matching, checked by brute force)', () => {
    const maxMatching = (qs: QuoteIntent[], lv: LiveOrderView[], tol: DiffTolerance): number => {
      const mine = lv.filter((o) => o.market === M);
      const go = (qi: number, used: Set<number>): number => {
        if (qi === qs.length) return 0;
        let best = go(qi + 1, used);
        mine.forEach((o, i) => {
          if (used.has(i) || !within(o, qs[qi]!, tol)) return;
          used.add(i);
          best = Math.max(best, 1 + go(qi + 1, used));
          used.delete(i);
        });
        return best;
      };
      return go(0, new Set());
    };
    fc.assert(
      fc.property(
        fc.array(quoteArb, { maxLength: 5 }),
        liveArb.map((l) => l.slice(0, 6)),
        tolArb,
        (qs, lv, tol) => {
          expect(diffQuotes(desired(qs), lv, tol, TICK).kept.length).toBe(maxMatching(qs, lv, tol));
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('a ladder drifting by a tick is kept whole (no churn)', () => {
    const qs = [q('BUY', 4800, 9e6), q('BUY', 4900, 9e6)];
    const lv = [live('o0', 'BUY', 4800, 9e6), live('o1', 'BUY', 4900, 9e6)];
    const moved = qs.map((x) => ({ ...x, price: (x.price + 200) as Pips }));
    const d = diffQuotes(desired(moved), lv, { priceTicks: 2, sizeFraction: 0 }, TICK);
    expect(d).toEqual({
      cancels: [],
      places: [],
      kept: [
        { id: 'o0', quote: 0 },
        { id: 'o1', quote: 1 },
      ],
    });
  });

  it('with zero tolerance, an identical book needs nothing; noise inside the tolerance needs nothing either', () => {
    fc.assert(
      fc.property(fc.array(quoteArb, { maxLength: 10 }), fc.integer({ min: 0, max: 2 }), (qs, drift) => {
        const lv = qs.map((x, i) => live(`o${i}`, x.side, x.price, x.size, 0, x.tokenId));
        const d = diffQuotes(desired(qs), lv, { priceTicks: 0, sizeFraction: 0 }, TICK);
        expect(d.cancels).toEqual([]);
        expect(d.places).toEqual([]);
        const moved = qs.map((x) => ({ ...x, price: Math.min(9900, x.price + drift * TICK) as Pips }));
        const d2 = diffQuotes(desired(moved), lv, { priceTicks: 2, sizeFraction: 0 }, TICK);
        expect(d2.cancels).toEqual([]);
        expect(d2.places).toEqual([]);
      }),
      { numRuns: 1000 },
    );
  });
});
