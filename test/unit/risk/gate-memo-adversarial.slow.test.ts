/**
 * GateMemo against gate (from a review) on a wider space than gate-memo.test.ts: either token's book may be
 * missing (complement reads both ways) or replaced by a new object, books of both markets change in
 * place (levels at and behind the top), desired sets for both markets share one memo and reuse
 * arrays across markets, quotes with invalid sides, fractional / NaN prices, tokens of the other
 * market, duplicate tokens.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TokenId } from '../../../src/core/ids.ts';
import type { DesiredQuotes, LiveOrderView, QuoteIntent } from '../../../src/core/intents.ts';
import type { Micro, Pips, Side } from '../../../src/core/units.ts';
import { gate, type RiskView } from '../../../src/risk/gate.ts';
import { GateMemo } from '../../../src/risk/gate-memo.ts';
import { M1, M2, marketInfo, NO1, order, SH, YES1, YES2, NO2 } from '../strategy/fixtures.ts';
import { filledBook, limits, type MutBook } from './gate-memo-support.ts';

const TOKENS = [YES1, NO1, YES2, NO2] as const;
const price = fc.integer({ min: 46, max: 54 }).map((x) => x * 100);
type Op =
  | { k: 'level'; book: number; side: 'bids' | 'asks'; price: number; size: number }
  | { k: 'stale'; book: number }
  | { k: 'drop'; book: number }
  | { k: 'replace'; book: number }
  | { k: 'addOrder'; token: number; side: Side; price: number; size: number }
  | { k: 'removeOrder'; i: number }
  | { k: 'fill'; i: number; size: number }
  | { k: 'position'; token: number; size: number }
  | { k: 'collateral'; v: number }
  | { k: 'gate'; set: number; m2: boolean };
const tok = fc.integer({ min: 0, max: 3 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.record({
      k: fc.constant('level' as const),
      book: tok,
      side: fc.constantFrom('bids' as const, 'asks' as const),
      price,
      size: fc.constantFrom(0, 10 * SH, 20 * SH, 37 * SH),
    }),
  },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('stale' as const), book: tok }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('drop' as const), book: tok }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('replace' as const), book: tok }) },
  {
    weight: 3,
    arbitrary: fc.record({
      k: fc.constant('addOrder' as const),
      token: tok,
      side: fc.constantFrom<Side>('BUY', 'SELL'),
      price,
      size: fc.constantFrom(10 * SH, 20 * SH, 7 * SH),
    }),
  },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('removeOrder' as const), i: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      k: fc.constant('fill' as const),
      i: fc.nat(),
      size: fc.integer({ min: 1, max: 10 }).map((s) => s * SH),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      k: fc.constant('position' as const),
      token: tok,
      size: fc.integer({ min: 0, max: 80 }).map((s) => s * SH),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      k: fc.constant('collateral' as const),
      v: fc.integer({ min: 0, max: 40 }).map((s) => s * SH),
    }),
  },
  { weight: 40, arbitrary: fc.record({ k: fc.constant('gate' as const), set: fc.nat({ max: 5 }), m2: fc.boolean() }) },
);
const quoteArb: fc.Arbitrary<QuoteIntent> = fc.record({
  tokenId: fc.constantFrom(...TOKENS, YES1, NO1, 'zzz' as TokenId),
  side: fc.constantFrom<Side>('BUY', 'SELL', 'BUY', 'SELL', 'buy' as Side),
  price: fc
    .oneof({ weight: 8, arbitrary: price }, { weight: 1, arbitrary: fc.constantFrom(4850.5, NaN, 0, 10000, 5150) })
    .map((p) => p as Pips),
  size: fc.integer({ min: 5, max: 50 }).map((s) => (s * SH) as Micro),
});

describe('review: GateMemo', () => {
  it('equals the gate with both books droppable/replaceable, two markets, odd quotes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(quoteArb, { minLength: 1, maxLength: 5 }), { minLength: 6, maxLength: 6 }),
        fc.array(opArb, { minLength: 30, maxLength: 200 }),
        (sets, ops) => {
          const infos = [marketInfo(M1, YES1, NO1), marketInfo(M2, YES2, NO2)];
          const books: (MutBook | undefined)[] = TOKENS.map((t) => filledBook(t));
          let orders: LiveOrderView[] = [];
          const pos = new Map<string, number>();
          let collateral = 30 * SH;
          const view: RiskView = {
            limits,
            market: (id) => (id === M1 ? infos[0] : id === M2 ? infos[1] : undefined),
            book: (t) => books[TOKENS.indexOf(t as (typeof TOKENS)[number])],
            position: (t) => (pos.get(t) ?? 0) as Micro,
            openOrders: () => orders,
            get availableCollateral() {
              return collateral as Micro;
            },
          };
          const memo = new GateMemo();
          let calls = 0;
          for (const op of ops) {
            switch (op.k) {
              case 'level': {
                const bk = books[op.book];
                if (bk !== undefined) (op.side === 'bids' ? bk.bids : bk.asks).set(op.price, op.size);
                break;
              }
              case 'stale': {
                const bk = books[op.book];
                if (bk !== undefined) bk.stale = !bk.stale;
                break;
              }
              case 'drop':
                books[op.book] = books[op.book] === undefined ? filledBook(TOKENS[op.book]!) : undefined;
                break;
              case 'replace': {
                const old = books[op.book];
                const nb = filledBook(TOKENS[op.book]!);
                if (old !== undefined) {
                  nb.bids.clear();
                  nb.asks.clear();
                  for (const [p, s] of old.bids) nb.bids.set(p, s);
                  for (const [p, s] of old.asks) nb.asks.set(p, s);
                  nb.stale = old.stale;
                }
                books[op.book] = nb;
                break;
              }
              case 'addOrder': {
                const t = TOKENS[op.token]!;
                orders = [...orders, order(op.token < 2 ? M1 : M2, t, op.side, op.price, op.size)];
                break;
              }
              case 'removeOrder':
                if (orders.length > 0) orders = orders.filter((_, i) => i !== op.i % orders.length);
                break;
              case 'fill':
                if (orders.length > 0) {
                  const i = op.i % orders.length;
                  const o = orders[i]!;
                  orders = orders.map((x, j) =>
                    j === i ? { ...o, sizeMatched: Math.min(o.originalSize, o.sizeMatched + op.size) as Micro } : x,
                  );
                }
                break;
              case 'position':
                pos.set(TOKENS[op.token]!, op.size);
                break;
              case 'collateral':
                collateral = op.v;
                break;
              case 'gate': {
                const d: DesiredQuotes = { market: op.m2 ? M2 : M1, quotes: sets[op.set]!, at: calls++ };
                const want = gate(d, view).approved;
                const got = memo.approve(d, view);
                expect(got.market).toBe(want.market);
                expect(got.at).toBe(want.at);
                expect(got.quotes).toEqual(want.quotes);
                break;
              }
            }
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
});
