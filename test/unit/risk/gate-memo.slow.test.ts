/**
 * GateMemo (src/risk/gate-memo.ts) against the gate itself, model-based: random sequences of
 * changes to a live view (book levels at and behind the top with the book objects kept, as the
 * engine's mirrors are; stale books, a missing NO book; orders here and elsewhere; fills,
 * positions, collateral; kill switch, halt, heartbeat; tick; foreign orders resting on our wallet,
 * the self-trade check's input) interleaved with gating a few
 * desired sets that are reused by identity (as a memoising strategy does), some of them at or
 * through the top so that the gate's crossing check reads the book's depth. After every gate call
 * the memo's approved set equals `gate(...).approved`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DesiredQuotes, LiveOrderView, QuoteIntent } from '../../../src/core/intents.ts';
import type { Micro, Pips, Side } from '../../../src/core/units.ts';
import { gate, type RiskView } from '../../../src/risk/gate.ts';
import { GateMemo } from '../../../src/risk/gate-memo.ts';
import { M1, M2, marketInfo, NO1, order, SH, YES1, YES2, NO2 } from '../strategy/fixtures.ts';
import { limits, MutBook } from './gate-memo-support.ts';

type Op =
  | { k: 'level'; book: 'A' | 'B'; side: 'bids' | 'asks'; price: number; size: number }
  | { k: 'stale'; book: 'A' | 'B' }
  | { k: 'dropB' }
  | { k: 'addOrder'; other: boolean; token: 'A' | 'B'; side: Side; price: number; size: number }
  | { k: 'removeOrder'; i: number }
  | { k: 'fill'; i: number; size: number }
  | { k: 'touchOrders' }
  | { k: 'position'; token: 'A' | 'B'; size: number }
  | { k: 'collateral'; v: number }
  | { k: 'kill' }
  | { k: 'halt' }
  | { k: 'heartbeat' }
  | { k: 'tick' }
  | { k: 'addForeign'; token: 'A' | 'B'; side: Side; price: number; size: number }
  | { k: 'removeForeign'; i: number }
  | { k: 'fillForeign'; i: number; size: number }
  | { k: 'touchForeign' }
  | { k: 'gate'; set: number };

// few prices around the books' tops, tight limits: every input the gate reads changes its answer
const price = fc.integer({ min: 46, max: 54 }).map((x) => x * 100);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.record({
      k: fc.constant('level' as const),
      book: fc.constantFrom('A' as const, 'B' as const),
      side: fc.constantFrom('bids' as const, 'asks' as const),
      price,
      size: fc.constantFrom(0, 10 * SH, 20 * SH, 0, 10 * SH, 37 * SH),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ k: fc.constant('stale' as const), book: fc.constantFrom('A' as const, 'B' as const) }),
  },
  { weight: 1, arbitrary: fc.constant({ k: 'dropB' as const }) },
  {
    weight: 3,
    arbitrary: fc.record({
      k: fc.constant('addOrder' as const),
      other: fc.boolean(),
      token: fc.constantFrom('A' as const, 'B' as const),
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
  { weight: 1, arbitrary: fc.constant({ k: 'touchOrders' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      k: fc.constant('position' as const),
      token: fc.constantFrom('A' as const, 'B' as const),
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
  { weight: 1, arbitrary: fc.constant({ k: 'kill' as const }) },
  { weight: 1, arbitrary: fc.constant({ k: 'halt' as const }) },
  { weight: 1, arbitrary: fc.constant({ k: 'heartbeat' as const }) },
  { weight: 1, arbitrary: fc.constant({ k: 'tick' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      k: fc.constant('addForeign' as const),
      token: fc.constantFrom('A' as const, 'B' as const),
      side: fc.constantFrom<Side>('BUY', 'SELL'),
      price,
      size: fc.constantFrom(10 * SH, 5 * SH),
    }),
  },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('removeForeign' as const), i: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      k: fc.constant('fillForeign' as const),
      i: fc.nat(),
      size: fc.integer({ min: 1, max: 10 }).map((s) => s * SH),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ k: 'touchForeign' as const }) },
  {
    weight: 40,
    arbitrary: fc.record({ k: fc.constant('gate' as const), set: fc.oneof(fc.nat({ max: 1 }), fc.nat({ max: 5 })) }),
  },
);

const quoteArb: fc.Arbitrary<QuoteIntent> = fc.record({
  tokenId: fc.constantFrom(YES1, NO1, YES1, NO1, YES2),
  side: fc.constantFrom<Side>('BUY', 'SELL'),
  price: price.map((p) => p as Pips),
  size: fc.integer({ min: 5, max: 50 }).map((s) => (s * SH) as Micro),
});

describe('GateMemo', () => {
  it('approves exactly what the gate approves, after any sequence of changes to the view', () => {
    let hits = 0;
    let calls = 0;
    fc.assert(
      fc.property(
        fc.array(fc.array(quoteArb, { minLength: 1, maxLength: 5 }), { minLength: 6, maxLength: 6 }),
        fc.array(opArb, { minLength: 30, maxLength: 150 }),
        (sets, ops) => {
          const info = marketInfo(M1, YES1, NO1);
          const info2 = marketInfo(M2, YES2, NO2);
          const A = new MutBook(YES1);
          let B: MutBook | undefined = new MutBook(NO1);
          for (const [p, s] of [
            [4800, 10],
            [4700, 20],
          ] as const)
            A.bids.set(p, s * SH);
          for (const [p, s] of [
            [5200, 10],
            [5300, 20],
          ] as const)
            A.asks.set(p, s * SH);
          for (const [p, s] of [[4800, 10]] as const) B.bids.set(p, s * SH);
          for (const [p, s] of [[5200, 10]] as const) B.asks.set(p, s * SH);
          let orders: LiveOrderView[] = [];
          // foreign orders of M1 (as the tracker hands them: a list that changes identity on a change)
          let foreign: LiveOrderView[] = [];
          const pos = new Map<string, number>();
          let collateral = 30 * SH;
          const kill = { tripped: false, reason: null };
          let halted: string | null = null;
          let heartbeatOk = true;
          let tick: Pips | undefined;
          const view: RiskView = {
            limits,
            killSwitch: kill,
            get halted() {
              return halted;
            },
            get heartbeatOk() {
              return heartbeatOk;
            },
            market: (id) => (id === M1 ? info : id === M2 ? info2 : undefined),
            tick: () => tick,
            book: (t) => (t === YES1 ? A : t === NO1 ? B : undefined),
            position: (t) => (pos.get(t) ?? 0) as Micro,
            openOrders: () => orders,
            foreignOrders: (m) => (m === M1 ? foreign : []),
            get availableCollateral() {
              return collateral as Micro;
            },
          };
          // what the memo tells of each answer's refusals and trims (GateTally): the gate's codes
          let told: string[] = [];
          const memo = new GateMemo((refusals, trims) => {
            told = [...refusals.map((x) => `refused.${x.code}`), ...trims.map((x) => `trimmed.${x.code}`)];
          });
          const desired = sets.map((quotes) => quotes);
          for (const op of ops) {
            switch (op.k) {
              case 'level': {
                const bk = op.book === 'A' ? A : B;
                if (bk !== undefined) (op.side === 'bids' ? bk.bids : bk.asks).set(op.price, op.size);
                break;
              }
              case 'stale': {
                const bk = op.book === 'A' ? A : B;
                if (bk !== undefined) bk.stale = !bk.stale;
                break;
              }
              case 'dropB':
                B = B === undefined ? new MutBook(NO1) : undefined;
                break;
              case 'addOrder':
                orders = [
                  ...orders,
                  order(
                    op.other ? M2 : M1,
                    op.other ? YES2 : op.token === 'A' ? YES1 : NO1,
                    op.side,
                    op.price,
                    op.size,
                  ),
                ];
                break;
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
              case 'touchOrders':
                orders = [...orders]; // same orders, a new list
                break;
              case 'position':
                pos.set(op.token === 'A' ? YES1 : NO1, op.size);
                break;
              case 'collateral':
                collateral = op.v;
                break;
              case 'kill':
                kill.tripped = !kill.tripped;
                break;
              case 'halt':
                halted = halted === null ? 'reconciling' : null;
                break;
              case 'heartbeat':
                heartbeatOk = !heartbeatOk;
                break;
              case 'tick':
                tick = tick === undefined ? (200 as Pips) : undefined; // 47xx, 49xx... off this tick
                break;
              case 'addForeign':
                foreign = [...foreign, order(M1, op.token === 'A' ? YES1 : NO1, op.side, op.price, op.size)];
                break;
              case 'removeForeign':
                if (foreign.length > 0) foreign = foreign.filter((_, i) => i !== op.i % foreign.length);
                break;
              case 'fillForeign':
                if (foreign.length > 0) {
                  const i = op.i % foreign.length;
                  const o = foreign[i]!;
                  foreign = foreign.map((x, j) =>
                    j === i ? { ...o, sizeMatched: Math.min(o.originalSize, o.sizeMatched + op.size) as Micro } : x,
                  );
                }
                break;
              case 'touchForeign':
                foreign = [...foreign]; // the same orders, a new list
                break;
              case 'gate': {
                const d: DesiredQuotes = { market: M1, quotes: desired[op.set]!, at: calls };
                const r = gate(d, view);
                const want = r.approved;
                told = [];
                const got = memo.approve(d, view);
                calls++;
                expect(got.market).toBe(want.market);
                expect(got.at).toBe(want.at);
                expect(got.quotes).toEqual(want.quotes);
                expect(told).toEqual([
                  ...r.refusals.map((x) => `refused.${x.code}`),
                  ...r.trims.map((x) => `trimmed.${x.code}`),
                ]);
                break;
              }
            }
          }
          hits += memo.hits;
        },
      ),
      { numRuns: 1000 },
    );
    // the memo is exercised, not bypassed
    expect(hits).toBeGreaterThan(calls / 10);
  });

  it('a foreign order appearing (or filling) under an unchanged book changes the answer', () => {
    const info = marketInfo(M1, YES1, NO1);
    const A = new MutBook(YES1);
    A.bids.set(4800, 10 * SH);
    A.asks.set(5200, 10 * SH);
    let foreign: LiveOrderView[] = [];
    const view: RiskView = {
      limits,
      market: (id) => (id === M1 ? info : undefined),
      book: (t) => (t === YES1 ? A : undefined),
      position: () => 0 as Micro,
      openOrders: () => [],
      foreignOrders: () => foreign,
      availableCollateral: (30 * SH) as Micro,
    };
    const quotes: QuoteIntent[] = [{ tokenId: YES1, side: 'BUY', price: 5000 as Pips, size: (10 * SH) as Micro }];
    const memo = new GateMemo();
    const d = (at: number): DesiredQuotes => ({ market: M1, quotes, at });
    expect(memo.approve(d(1), view).quotes).toEqual(quotes);
    expect(memo.approve(d(2), view).quotes).toEqual(quotes);
    expect(memo.hits).toBe(1);
    foreign = [order(M1, YES1, 'SELL', 5000, 10 * SH)]; // not in the book mirror yet
    expect(gate(d(3), view).approved.quotes).toEqual([]);
    expect(memo.approve(d(3), view).quotes).toEqual([]);
    const f = foreign[0]!;
    foreign = [{ ...f, sizeMatched: f.originalSize }]; // filled: nothing of it left to trade with
    expect(memo.approve(d(4), view).quotes).toEqual(quotes);
  });

  it('does not memoise a quote through the top: the crossing check read levels behind it, which can change under the same top', () => {
    const info = marketInfo(M1, YES1, NO1);
    const A = new MutBook(YES1);
    A.bids.set(4800, 10 * SH);
    A.asks.set(5200, 10 * SH); // all of it ours (the SELL below)
    let orders: LiveOrderView[] = [order(M1, YES1, 'SELL', 5200, 10 * SH)];
    const view: RiskView = {
      limits,
      market: (id) => (id === M1 ? info : undefined),
      book: (t) => (t === YES1 ? A : undefined),
      position: () => 0 as Micro,
      openOrders: () => orders,
      availableCollateral: (30 * SH) as Micro,
    };
    const quotes: QuoteIntent[] = [{ tokenId: YES1, side: 'BUY', price: 5300 as Pips, size: (10 * SH) as Micro }];
    const memo = new GateMemo();
    const d = (at: number): DesiredQuotes => ({ market: M1, quotes, at });
    expect(memo.approve(d(1), view).quotes).toEqual(quotes); // nothing of others' at or below 5300
    A.asks.set(5300, 20 * SH); // behind the top: the top, the orders and everything else unchanged
    expect(gate(d(2), view).approved.quotes).toEqual([]); // now it would cross
    expect(memo.approve(d(2), view).quotes).toEqual([]);
    orders = [...orders];
    expect(memo.approve(d(3), view).quotes).toEqual([]);
  });

  it("hits while the other markets' orders change but not their count and notional (all the gate reads of them)", () => {
    const info = marketInfo(M1, YES1, NO1);
    const info2 = marketInfo(M2, YES2, NO2);
    const A = new MutBook(YES1);
    A.bids.set(4800, 10 * SH);
    A.asks.set(5200, 10 * SH);
    const mine = order(M1, YES1, 'BUY', 4700, 10 * SH);
    let orders: LiveOrderView[] = [mine, order(M2, YES2, 'BUY', 4000, 10 * SH)];
    // global limits that bind: the other market's count and notional change the answer
    const tight = { ...limits, global: { ...limits.global, maxOpenOrders: 3, maxNotional: (12 * SH) as Micro } };
    const view: RiskView = {
      limits: tight,
      market: (id) => (id === M1 ? info : id === M2 ? info2 : undefined),
      book: (t) => (t === YES1 ? A : undefined),
      position: () => 0 as Micro,
      openOrders: () => orders,
      availableCollateral: (30 * SH) as Micro,
    };
    const quotes: QuoteIntent[] = [
      { tokenId: YES1, side: 'BUY', price: 4700 as Pips, size: (10 * SH) as Micro },
      { tokenId: YES1, side: 'BUY', price: 4600 as Pips, size: (10 * SH) as Micro },
    ];
    const memo = new GateMemo();
    let at = 0;
    const check = (): void => {
      const d: DesiredQuotes = { market: M1, quotes, at: ++at };
      expect(memo.approve(d, view).quotes).toEqual(gate(d, view).approved.quotes);
    };
    check();
    // the other market's order replaced by another of the same size and price: a hit
    orders = [mine, order(M2, YES2, 'BUY', 4000, 10 * SH)];
    check();
    expect(memo.hits).toBe(1);
    // another price (notional), another count: misses, and the gate's answers
    orders = [mine, order(M2, YES2, 'BUY', 3000, 10 * SH)];
    check();
    orders = [mine, order(M2, YES2, 'BUY', 3000, 10 * SH), order(M2, NO2, 'BUY', 1000, 1 * SH)];
    check();
    // this market's order is a new view (a fill): a miss
    orders = [order(M1, YES1, 'BUY', 4700, 10 * SH, 1 * SH), ...orders.slice(1)];
    check();
    expect(memo.hits).toBe(1);
    expect(memo.misses).toBe(4);
  });

  it("reuses an answer over the collateral and the other markets' orders where every quote gets the same, and only there", () => {
    // the books, this market's orders and the quotes stay; the collateral and the other markets'
    // orders move (what the gate reads of them: the collateral cut, the global notional and count)
    const info = marketInfo(M1, YES1, NO1);
    const info2 = marketInfo(M2, YES2, NO2);
    const A = new MutBook(YES1);
    A.bids.set(4800, 10 * SH);
    A.asks.set(5200, 10 * SH);
    const inside = fc.constantFrom(4900, 5000, 5100).map((p) => p as Pips);
    const qArb: fc.Arbitrary<QuoteIntent> = fc.record({
      tokenId: fc.constantFrom(YES1, NO1),
      side: fc.constantFrom<Side>('BUY', 'BUY', 'SELL'),
      price: inside,
      size: fc.integer({ min: 5, max: 30 }).map((x) => (x * SH) as Micro),
    });
    type Move =
      | { k: 'collateral'; v: number }
      | { k: 'add'; price: number; size: number }
      | { k: 'remove'; i: number }
      | { k: 'fill'; i: number; size: number }
      | { k: 'split'; i: number }
      | { k: 'gate' };
    const moveArb: fc.Arbitrary<Move> = fc.oneof(
      { weight: 3, arbitrary: fc.integer({ min: 0, max: 60 }).map((v): Move => ({ k: 'collateral', v: v * SH })) },
      {
        weight: 3,
        arbitrary: fc
          .record({
            price: fc.integer({ min: 10, max: 90 }).map((p) => p * 100),
            size: fc.integer({ min: 1, max: 20 }).map((x) => 2 * x * SH),
          })
          .map((r): Move => ({ k: 'add', ...r })),
      },
      { weight: 2, arbitrary: fc.nat().map((i): Move => ({ k: 'remove', i })) },
      {
        weight: 1,
        arbitrary: fc
          .record({ i: fc.nat(), size: fc.integer({ min: 1, max: 10 }).map((x) => x * SH) })
          .map((r): Move => ({ k: 'fill', ...r })),
      },
      // one order elsewhere becomes two of half its size at its price: the same notional, one more order
      { weight: 2, arbitrary: fc.nat().map((i): Move => ({ k: 'split', i })) },
      { weight: 6, arbitrary: fc.constant<Move>({ k: 'gate' }) },
    );
    let rangeHits = 0;
    fc.assert(
      fc.property(
        fc.array(qArb, { minLength: 1, maxLength: 4 }),
        fc.array(moveArb, { minLength: 10, maxLength: 80 }),
        fc.constantFrom(40, 80, 120),
        fc.constantFrom(2, 3, 4, 6),
        (quotes, moves, globalNotional, globalOrders) => {
          const lim = {
            ...limits,
            global: { maxNotional: (globalNotional * SH) as Micro, maxOpenOrders: globalOrders },
          } as typeof limits;
          const mine = [order(M1, YES1, 'BUY', 4700, 10 * SH)];
          let others: LiveOrderView[] = [];
          let orders: LiveOrderView[] = mine;
          let collateral = 30 * SH;
          const view: RiskView = {
            limits: lim,
            market: (id) => (id === M1 ? info : id === M2 ? info2 : undefined),
            book: (t) => (t === YES1 ? A : undefined),
            position: (t) => (t === YES1 ? 20 * SH : 5 * SH) as Micro,
            openOrders: () => orders,
            get availableCollateral() {
              return collateral as Micro;
            },
          };
          const memo = new GateMemo();
          let at = 0;
          let moved = false;
          for (const mv of moves) {
            switch (mv.k) {
              case 'collateral':
                collateral = mv.v;
                moved = true;
                break;
              case 'add':
                others = [...others, order(M2, YES2, 'BUY', mv.price, mv.size)];
                moved = true;
                break;
              case 'remove':
                if (others.length > 0) others = others.filter((_, i) => i !== mv.i % others.length);
                moved = true;
                break;
              case 'fill':
                if (others.length > 0) {
                  const i = mv.i % others.length;
                  const o = others[i]!;
                  others = others.map((x, j) =>
                    j === i ? { ...o, sizeMatched: Math.min(o.originalSize, o.sizeMatched + mv.size) as Micro } : x,
                  );
                }
                moved = true;
                break;
              case 'split':
                if (others.length > 0) {
                  const i = mv.i % others.length;
                  const o = others[i]!;
                  const rem = o.originalSize - o.sizeMatched;
                  if (rem >= 2 * SH && rem % (2 * SH) === 0)
                    others = [
                      ...others.filter((_, j) => j !== i),
                      order(M2, YES2, 'BUY', o.price, rem / 2),
                      order(M2, YES2, 'BUY', o.price, rem / 2),
                    ];
                }
                moved = true;
                break;
              case 'gate': {
                orders = [...mine, ...others];
                const d: DesiredQuotes = { market: M1, quotes, at: ++at };
                const hits = memo.hits;
                expect(memo.approve(d, view).quotes).toEqual(gate(d, view).approved.quotes);
                if (moved && memo.hits > hits) rangeHits++;
                moved = false;
                break;
              }
            }
          }
        },
      ),
      { numRuns: 1000 },
    );
    // the ranges are used, not bypassed
    expect(rangeHits).toBeGreaterThan(100);
  });

  it('reuses an answer across top moves that leave every quote strictly inside and its price band verdict as it was', () => {
    const info = marketInfo(M1, YES1, NO1);
    const A = new MutBook(YES1);
    A.bids.set(4800, 10 * SH);
    A.asks.set(5200, 10 * SH);
    const view: RiskView = {
      limits,
      market: (id) => (id === M1 ? info : undefined),
      book: (t) => (t === YES1 ? A : undefined),
      position: () => 0 as Micro,
      openOrders: () => [],
      availableCollateral: (30 * SH) as Micro,
    };
    // the band is 300 pips around the mid: 4600 is out of it at a mid of 5000
    const quotes: QuoteIntent[] = [
      { tokenId: YES1, side: 'BUY', price: 4900 as Pips, size: (10 * SH) as Micro },
      { tokenId: YES1, side: 'BUY', price: 4600 as Pips, size: (10 * SH) as Micro },
    ];
    const memo = new GateMemo();
    let at = 0;
    const check = (): readonly QuoteIntent[] => {
      const d: DesiredQuotes = { market: M1, quotes, at: ++at };
      const got = memo.approve(d, view).quotes;
      expect(got).toEqual(gate(d, view).approved.quotes);
      return got;
    };
    expect(check()).toEqual([quotes[0]]);
    A.asks.set(5200, 0);
    A.asks.set(5100, 10 * SH); // mid 4950: the same verdicts
    expect(check()).toEqual([quotes[0]]);
    expect(memo.hits).toBe(1);
    A.bids.set(4800, 0);
    A.bids.set(4500, 10 * SH); // mid 4800: 4600 in the band now
    expect(check()).toEqual(quotes);
    expect(memo.hits).toBe(1);
    A.asks.set(4900, 10 * SH); // the top at a quote's price: it would cross (the crossing check reads the levels)
    expect(check()).toEqual([quotes[1]]);
    expect(memo.hits).toBe(1);
  });
});
