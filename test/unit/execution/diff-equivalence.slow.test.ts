/**
 * The executor's diff (src/execution/diff.ts, written lean: it runs on every cycle) gives exactly
 * what its straightforward version gives (diff-reference.ts, a frozen copy): the same cancels, the
 * same places and the same kept pairs, in the same order, on generated markets where candidates tie,
 * need sorting and need augmenting paths.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ConditionId, OrderId, TokenId } from '../../../src/core/ids.ts';
import type { DesiredQuotes, LiveOrderView, QuoteIntent } from '../../../src/core/intents.ts';
import type { Micro, Pips, Side } from '../../../src/core/units.ts';
import { diffQuotes } from '../../../src/execution/diff.ts';
import { diffQuotesReference } from './diff-reference.ts';

const M = '0xm' as ConditionId;
const OTHER = '0xo' as ConditionId;
const Y = 'y' as TokenId;
const N = 'n' as TokenId;

const sideArb = fc.constantFrom<Side>('BUY', 'SELL');
const tokenArb = fc.constantFrom(Y, Y, N);
// few prices and sizes: many candidates per quote, ties, and quotes competing for the same orders
const priceArb = fc.oneof(fc.integer({ min: 1, max: 99 }), fc.integer({ min: 48, max: 52 })).map((t) => t * 100);
const sizeArb = fc.oneof(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 9, max: 11 })).map((n) => n * 1_000_000);
const quoteArb = fc
  .record({ tokenId: tokenArb, side: sideArb, price: priceArb, size: sizeArb })
  .map((x): QuoteIntent => ({ tokenId: x.tokenId, side: x.side, price: x.price as Pips, size: x.size as Micro }));
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
    xs.map(
      (x, i): LiveOrderView => ({
        id: `o${i}` as OrderId,
        market: x.other ? OTHER : M,
        tokenId: x.tokenId,
        side: x.side,
        price: x.price as Pips,
        originalSize: x.size as Micro,
        sizeMatched: (Math.floor((x.size * x.matchedPct) / 100 / 10_000) * 10_000) as Micro,
      }),
    ),
  );
const tolArb = fc.record({
  priceTicks: fc.integer({ min: 0, max: 3 }),
  sizeFraction: fc.constantFrom(0, 0.05, 0.1, 0.25, 1),
});
const tickArb = fc.constantFrom(1, 10, 100, 0);

describe('diffQuotes against its reference', () => {
  it('gives the same diff, in the same order', () => {
    fc.assert(
      fc.property(fc.array(quoteArb, { maxLength: 12 }), liveArb, tolArb, tickArb, (qs, lv, tol, tick) => {
        const d: DesiredQuotes = { market: M, quotes: qs, at: 0 };
        expect(diffQuotes(d, lv, tol, tick)).toEqual(diffQuotesReference(d, lv, tol, tick));
      }),
      { numRuns: 20_000 },
    );
  });

  it('throws the same errors', () => {
    const d: DesiredQuotes = { market: M, quotes: [], at: 0 };
    for (const [tol, tick] of [
      [{ priceTicks: -1, sizeFraction: 0 }, 1],
      [{ priceTicks: 0, sizeFraction: Number.NaN }, 1],
      [{ priceTicks: 0, sizeFraction: 0 }, Number.POSITIVE_INFINITY],
    ] as const) {
      expect(() => diffQuotes(d, [], tol, tick)).toThrow(
        (() => {
          try {
            diffQuotesReference(d, [], tol, tick);
          } catch (e) {
            return (e as Error).message;
          }
          return 'no error';
        })(),
      );
    }
  });
});
