/**
 * The common quoting rules (src/strategy/quoting.ts): tick rounding with a direction, the top of a
 * market (no quote without a trustworthy price), the YES-ladder shaping (minimum spread, range,
 * post-only, self-cross guard), complement routing (never the same exposure twice), refresh
 * tolerance and maximum order age. Prices in pips, sizes in micro-shares (SH = one share).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MmkitEvent } from '../../../src/core/events.ts';
import type { LiveOrderView, QuoteIntent } from '../../../src/core/intents.ts';
import { isValidPrice, LOT_MICRO, type Micro, type Pips } from '../../../src/core/units.ts';
import {
  agedOrders,
  askPips,
  bidPips,
  ceilToTick,
  finishQuotes,
  floorToTick,
  inventoryOf,
  isFresh,
  logit,
  lotsDown,
  marketTop,
  othersLevels,
  MarketRegistry,
  reconcileLive,
  routeLadder,
  shapeLadder,
  sharesToMicro,
  sigmoid,
  type MarketRef,
  type QuotingRules,
  type YesLevel,
} from '../../../src/strategy/quoting.ts';
import { rulesOf } from '../../../src/strategy/common-params.ts';
import {
  bookView,
  complementView,
  fakeState,
  levelEvent,
  M1,
  M2,
  marketInfo,
  NO1,
  order,
  SH,
  snapshotEvent,
  timerEvent,
  YES1,
  YES2,
  NO2,
} from './fixtures.ts';

const ref = (): MarketRef => new MarketRegistry([marketInfo(M1, YES1, NO1)]).get(M1)!;
const RULES: QuotingRules = {
  tokens: 'yes',
  minSpread: 0,
  postOnly: 'move',
  outOfRange: 'drop',
  maxPosition: 100 * SH,
  priceTolerance: 0,
  sizeTolerance: 0,
  maxOrderAgeMs: 0,
};
const rules = (o: Partial<QuotingRules> = {}): QuotingRules => ({ ...RULES, ...o });
const simple = (qs: readonly QuoteIntent[]) =>
  qs.map((q) => `${q.tokenId === YES1 ? 'Y' : 'N'} ${q.side} ${q.price} ${q.size / SH}`);
const lv = (bid: boolean, price: number, size = 10 * SH): YesLevel => ({ bid, price, size });
const NO_TOUCH = { touchBid: null, touchAsk: null };
const q = (tokenId: typeof YES1, side: 'BUY' | 'SELL', price: number, size: number): QuoteIntent => ({
  tokenId,
  side,
  price: price as Pips,
  size: size as Micro,
});

describe('ticks and lots', () => {
  it('rounds bids down and asks up, absorbing float noise', () => {
    // 0.29 * 10000 = 2899.9999999999995: still the 0.29 tick, on both sides
    expect(bidPips(0.29, 100)).toBe(2900);
    expect(askPips(0.29, 100)).toBe(2900);
    expect(bidPips(0.2999, 100)).toBe(2900);
    expect(askPips(0.2901, 100)).toBe(3000);
    expect(floorToTick(4687.9, 10)).toBe(4680);
    expect(ceilToTick(5212.37, 10)).toBe(5220);
    expect(floorToTick(-5, 100)).toBe(-100);
  });
  it('sizes in whole lots, rounded down', () => {
    expect(lotsDown(14_357_866.2)).toBe(14_350_000);
    expect(lotsDown(9_999.99)).toBe(0);
    expect(lotsDown(-5)).toBe(0);
    expect(sharesToMicro(33.339)).toBe(33_330_000);
    expect(sharesToMicro(0.29)).toBe(290_000); // 0.29e6 = 289999.99999999994 is still 29 lots
  });
  it('logit and sigmoid are inverses', () => {
    expect(logit(0.5)).toBe(0);
    for (const p of [0.01, 0.2, 0.73, 0.999]) expect(sigmoid(logit(p))).toBeCloseTo(p, 12);
  });
  it('isFresh: at most staleMs old', () => {
    expect(isFresh(undefined, 1000, 500)).toBe(false);
    expect(isFresh(500, 1000, 500)).toBe(true);
    expect(isFresh(499, 1000, 500)).toBe(false);
  });
});

describe('marketTop: no quote without a trustworthy price', () => {
  const y = () => bookView(YES1, [[4900, 100 * SH]], [[5100, 100 * SH]]);
  const opts = { excludeOwn: true, tokens: 'yes' } as const;
  it('is the YES book top and mid', () => {
    expect(marketTop(fakeState({ books: [y()] }), ref(), opts)).toEqual({
      bid: 4900,
      ask: 5100,
      mid: 5000,
      touchBid: 4900,
      touchAsk: 5100,
    });
  });
  it.each([
    ['no book', fakeState()],
    ['a stale book', fakeState({ books: [bookView(YES1, [[4900, SH]], [[5100, SH]], true)] })],
    ['a crossed book', fakeState({ books: [bookView(YES1, [[5100, SH]], [[4900, SH]])] })],
  ])('%s: null', (_, s) => {
    expect(marketTop(s, ref(), opts)).toBeNull();
  });
  it('a one-sided book has no mid', () => {
    expect(marketTop(fakeState({ books: [bookView(YES1, [[4900, SH]], [])] }), ref(), opts)).toEqual({
      bid: 4900,
      ask: null,
      mid: null,
      touchBid: 4900,
      touchAsk: null,
    });
  });
  it('falls back to the NO book through the complement', () => {
    expect(marketTop(fakeState({ books: [complementView(NO1, y())] }), ref(), opts)).toEqual({
      bid: 4900,
      ask: 5100,
      mid: 5000,
      touchBid: 4900,
      touchAsk: 5100,
    });
  });
  it("with 'both' a stale NO view is untrustworthy too (NO orders rest there)", () => {
    const s = fakeState({ books: [y(), { ...complementView(NO1, y()), stale: true }] });
    expect(marketTop(s, ref(), { excludeOwn: true, tokens: 'both' })).toBeNull();
    expect(marketTop(s, ref(), opts)?.mid).toBe(5000);
  });
  it('excludes our own orders from the best prices (the touch keeps them)', () => {
    // our YES bid 10 @ 0.50 and our NO bid 5 @ 0.45 (= a YES ask @ 0.55) are alone at their levels
    const b = bookView(
      YES1,
      [
        [5000, 10 * SH],
        [4700, 50 * SH],
      ],
      [
        [5500, 5 * SH],
        [5600, 50 * SH],
      ],
    );
    const s = fakeState({
      books: [b],
      orders: [order(M1, YES1, 'BUY', 5000, 10 * SH), order(M1, NO1, 'BUY', 4500, 5 * SH)],
    });
    expect(marketTop(s, ref(), opts)).toEqual({ bid: 4700, ask: 5600, mid: 5150, touchBid: 5000, touchAsk: 5500 });
    expect(marketTop(s, ref(), { ...opts, excludeOwn: false })?.mid).toBe(5250);
  });
  it('an order of ours the book does not show (in flight) does not hide the others at its level (trial 21 F2)', () => {
    // our YES bid 9 @ 0.32 is cancelled and gone from the book (its level shows the others' 8) before
    // its cancellation reaches us: the level is still the others' (it read as ours alone, so the mid
    // moved for one round trip, the quotes with it, and back: a place/cancel loop of the same orders)
    const b = bookView(
      YES1,
      [
        [3200, 8 * SH],
        [3100, 16 * SH],
      ],
      [[3600, 58 * SH]],
    );
    const s = fakeState({ books: [b], orders: [order(M1, YES1, 'BUY', 3200, 9 * SH)] });
    expect(marketTop(s, ref(), opts)).toMatchObject({ bid: 3200, mid: 3400 });
    // two orders of ours at the level, one shown (5) and one in flight (6), and no one else's: still ours
    const alone = bookView(
      YES1,
      [
        [3200, 5 * SH],
        [3100, 16 * SH],
      ],
      [[3600, 58 * SH]],
    );
    const both = fakeState({
      books: [alone],
      orders: [order(M1, YES1, 'BUY', 3200, 5 * SH), order(M1, YES1, 'BUY', 3200, 6 * SH)],
    });
    expect(marketTop(both, ref(), opts)).toMatchObject({ bid: 3100 });
    // the same with 3 of the others' there too: theirs
    const more = fakeState({
      books: [
        bookView(
          YES1,
          [
            [3200, 8 * SH],
            [3100, 16 * SH],
          ],
          [[3600, 58 * SH]],
        ),
      ],
      orders: [order(M1, YES1, 'BUY', 3200, 5 * SH), order(M1, YES1, 'BUY', 3200, 6 * SH)],
    });
    expect(marketTop(more, ref(), opts)).toMatchObject({ bid: 3200 });
  });
});

describe('inventoryOf', () => {
  it("nets YES against NO in 'both' mode; ignores NO (and shorts) in 'yes' mode", () => {
    const s = fakeState({ positions: { [YES1]: 30 * SH, [NO1]: 50 * SH } });
    expect(inventoryOf(s, ref(), 'both')).toEqual({ yes: 30 * SH, no: 50 * SH, net: -20 * SH });
    expect(inventoryOf(s, ref(), 'yes')).toEqual({ yes: 30 * SH, no: 0, net: 30 * SH });
    expect(inventoryOf(fakeState({ positions: { [YES1]: -5 } }), ref(), 'yes').yes).toBe(0);
  });
});

describe('shapeLadder', () => {
  it('rounds bids down and asks up, and keeps the minimum spread around the centre', () => {
    // centre 5000, minSpread 400: no bid above 4800, no ask below 5200
    expect(
      shapeLadder(
        [lv(true, 4999), lv(false, 5001), lv(true, 4650.5), lv(false, 5310)],
        5000,
        NO_TOUCH,
        100,
        rules({ minSpread: 400 }),
        0,
      ),
    ).toEqual([lv(true, 4800), lv(true, 4600), lv(false, 5200), lv(false, 5400)]);
  });
  it("'clamp' puts out-of-range quotes on the edge when the minimum spread allows; 'drop' drops them", () => {
    // centre 150: a bid at 50 -> 100 (bidCap = floor(150) = 100)
    expect(shapeLadder([lv(true, 50)], 150, NO_TOUCH, 100, rules({ outOfRange: 'clamp' }), 0)).toEqual([lv(true, 100)]);
    expect(shapeLadder([lv(true, 50)], 150, NO_TOUCH, 100, rules({ outOfRange: 'drop' }), 0)).toEqual([]);
    // minSpread 200 puts bidCap at floor(50) = 0: a bid at the edge would break it
    expect(shapeLadder([lv(true, 50)], 150, NO_TOUCH, 100, rules({ outOfRange: 'clamp', minSpread: 200 }), 0)).toEqual(
      [],
    );
    // near 1: an ask at 1.005 -> 0.99 when the centre is 0.985 (askFloor = ceil(9850) = 9900)
    expect(shapeLadder([lv(false, 10050)], 9850, NO_TOUCH, 100, rules({ outOfRange: 'clamp' }), 0)).toEqual([
      lv(false, 9900),
    ]);
    expect(
      shapeLadder([lv(false, 10050)], 9850, NO_TOUCH, 100, rules({ outOfRange: 'clamp', minSpread: 200 }), 0),
    ).toEqual([]);
    // a bid above 1 - tick and an ask below one tick come back inside whatever the mode
    expect(
      shapeLadder([lv(true, 9990), lv(false, 20)], 9995, NO_TOUCH, 10, rules({ minSpread: 0 }), 0).map((x) => x.price),
    ).toEqual([9990]);
  });
  it("post-only: a quote crossing the touch moves one tick behind it ('move') or is dropped ('drop')", () => {
    const touch = { touchBid: 4900, touchAsk: 5000 };
    // centre 5200 (say a skewed reservation): the bid at 0.51 would take the 0.50 ask
    expect(shapeLadder([lv(true, 5100), lv(false, 5300)], 5200, touch, 100, rules(), 0)).toEqual([
      lv(true, 4900),
      lv(false, 5300),
    ]);
    expect(shapeLadder([lv(true, 5100), lv(false, 5300)], 5200, touch, 100, rules({ postOnly: 'drop' }), 0)).toEqual([
      lv(false, 5300),
    ]);
    // centre 4700: the ask at 0.48 would hit the 0.49 bid
    expect(shapeLadder([lv(true, 4600), lv(false, 4800)], 4700, touch, 100, rules(), 0)).toEqual([
      lv(true, 4600),
      lv(false, 5000),
    ]);
    expect(shapeLadder([lv(true, 4600), lv(false, 4800)], 4700, touch, 100, rules({ postOnly: 'drop' }), 0)).toEqual([
      lv(true, 4600),
    ]);
  });
  it('merges levels landing on the same price and sorts each side best first', () => {
    const touch = { touchBid: 4900, touchAsk: 5000 };
    expect(
      shapeLadder(
        [lv(true, 4500, 3 * SH), lv(true, 5100, 2 * SH), lv(true, 5200, 4 * SH)],
        6000,
        touch,
        100,
        rules(),
        0,
      ),
    ).toEqual([lv(true, 4900, 6 * SH), lv(true, 4500, 3 * SH)]);
  });
  it('never lets our own bid and ask cross: the side adding to the position gives way', () => {
    const ladder = [lv(true, 5000), lv(false, 5000)];
    expect(shapeLadder(ladder, 5000, NO_TOUCH, 100, rules(), 10 * SH)).toEqual([lv(false, 5000)]); // long: no bid
    expect(shapeLadder(ladder, 5000, NO_TOUCH, 100, rules(), 0)).toEqual([lv(true, 5000)]); // flat or short: no ask
  });
  it('drops empty and non-finite levels', () => {
    expect(
      shapeLadder([lv(true, 4800, 0), lv(true, NaN), lv(false, Infinity)], 5000, NO_TOUCH, 100, rules(), 0),
    ).toEqual([]);
  });
});

describe('routeLadder: complement awareness and limits', () => {
  const ladder = [lv(true, 4800), lv(false, 5200)];
  it("'yes': bids buy YES, asks sell only YES held (at least the minimum size)", () => {
    expect(simple(routeLadder(ladder, ref(), rules(), { yes: 0, no: 0, net: 0 }))).toEqual(['Y BUY 4800 10']);
    expect(simple(routeLadder(ladder, ref(), rules(), { yes: 7 * SH, no: 0, net: 7 * SH }))).toEqual([
      'Y BUY 4800 10',
      'Y SELL 5200 7',
    ]);
    expect(simple(routeLadder(ladder, ref(), rules(), { yes: 3 * SH, no: 0, net: 3 * SH }))).toEqual(['Y BUY 4800 10']); // 3 < 5
  });
  it("'both': without inventory an ask is a NO bid at 1 - price", () => {
    expect(simple(routeLadder(ladder, ref(), rules({ tokens: 'both' }), { yes: 0, no: 0, net: 0 }))).toEqual([
      'Y BUY 4800 10',
      'N BUY 4800 10',
    ]);
  });
  it("'both': each level sells the held token first, buys the other for the rest (one exposure per level)", () => {
    // bid 10 @ 0.48: sell 6 NO @ 0.52, buy 4 YES -> below the minimum 5: only the NO sale goes out
    // ask 10 @ 0.52: sell 10 of the 12 YES held @ 0.52
    expect(
      simple(routeLadder(ladder, ref(), rules({ tokens: 'both' }), { yes: 12 * SH, no: 6 * SH, net: 6 * SH })),
    ).toEqual(['N SELL 5200 6', 'Y SELL 5200 10']);
    // 4 YES held (below the minimum size): the whole ask is a NO bid
    expect(
      simple(routeLadder(ladder, ref(), rules({ tokens: 'both' }), { yes: 4 * SH, no: 30 * SH, net: -26 * SH })),
    ).toEqual(['N SELL 5200 10', 'N BUY 4800 10']);
  });
  it('stops adding exposure at maxPosition (net YES), level by level', () => {
    const two = [lv(true, 4800), lv(true, 4700), lv(false, 5200), lv(false, 5300)];
    // +15 max, net +2: bids may add 13 (10 + 3 -> the 3 is below the minimum); asks may take 17 in 'both'
    expect(
      simple(
        routeLadder(two, ref(), rules({ tokens: 'both', maxPosition: 15 * SH }), { yes: 2 * SH, no: 0, net: 2 * SH }),
      ),
    ).toEqual(['Y BUY 4800 10', 'N BUY 4800 10', 'N BUY 4700 7']);
  });
  it('property: never the same exposure twice, never beyond holdings or limits', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            bid: fc.boolean(),
            ticks: fc.integer({ min: 1, max: 99 }),
            lots: fc.integer({ min: 1, max: 3000 }),
          }),
          { maxLength: 8 },
        ),
        fc.integer({ min: 0, max: 200 }),
        fc.integer({ min: 0, max: 200 }),
        fc.constantFrom('yes' as const, 'both' as const),
        fc.integer({ min: 1, max: 150 }),
        (raw, yesHeld, noHeld, tokens, maxPos) => {
          const levels = shapeLadder(
            raw.map((r) => lv(r.bid, r.ticks * 100, r.lots * LOT_MICRO)),
            5000,
            NO_TOUCH,
            100,
            rules(),
            0,
          );
          const inv = {
            yes: yesHeld * SH,
            no: tokens === 'both' ? noHeld * SH : 0,
            net: yesHeld * SH - (tokens === 'both' ? noHeld * SH : 0),
          };
          const r = rules({ tokens, maxPosition: maxPos * SH });
          const out = routeLadder(levels, ref(), r, inv);
          const bidAt = new Map<number, number>();
          const askAt = new Map<number, number>();
          let bidTotal = 0;
          let askTotal = 0;
          let soldYes = 0;
          let soldNo = 0;
          for (const x of out) {
            expect(x.size % LOT_MICRO).toBe(0);
            expect(x.size).toBeGreaterThanOrEqual(5 * SH);
            if (tokens === 'yes') expect(x.tokenId).toBe(YES1);
            const isYes = x.tokenId === YES1;
            const bid = isYes === (x.side === 'BUY');
            const yp = isYes ? x.price : 10_000 - x.price;
            const m = bid ? bidAt : askAt;
            m.set(yp, (m.get(yp) ?? 0) + x.size);
            if (bid) bidTotal += x.size;
            else askTotal += x.size;
            if (x.side === 'SELL') {
              if (isYes) soldYes += x.size;
              else soldNo += x.size;
            }
          }
          // each YES level is expressed at most once: its size, whatever the token mix
          for (const l of levels) expect((l.bid ? bidAt : askAt).get(l.price) ?? 0).toBeLessThanOrEqual(l.size);
          expect(bidTotal).toBeLessThanOrEqual(Math.max(0, r.maxPosition - inv.net));
          expect(askTotal).toBeLessThanOrEqual(tokens === 'both' ? Math.max(0, r.maxPosition + inv.net) : inv.yes);
          expect(soldYes).toBeLessThanOrEqual(inv.yes);
          expect(soldNo).toBeLessThanOrEqual(inv.no);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('reconcileLive: refresh tolerance and maximum order age', () => {
  const want = [q(YES1, 'BUY', 4800, 10 * SH)];
  const withAge = (o: LiveOrderView, createdAt: number): LiveOrderView => ({ ...o, createdAt });
  it('outputs a live order with its exact price and remaining size when within tolerance', () => {
    expect(reconcileLive(want, [order(M1, YES1, 'BUY', 4800, 10 * SH)], ref(), rules(), 1000)).toEqual(want);
    // one tick away: kept with priceTolerance 1, replaced with 0
    const away = [order(M1, YES1, 'BUY', 4700, 10 * SH)];
    expect(simple(reconcileLive(want, away, ref(), rules({ priceTolerance: 1 }), 1000))).toEqual(['Y BUY 4700 10']);
    expect(simple(reconcileLive(want, away, ref(), rules(), 1000))).toEqual(['Y BUY 4800 10']);
  });
  it('keeps a partly filled order down to (1 - sizeTolerance) of the size, never a larger one', () => {
    const r = rules({ sizeTolerance: 0.2 });
    expect(simple(reconcileLive(want, [order(M1, YES1, 'BUY', 4800, 10 * SH, 1.5 * SH)], ref(), r, 1000))).toEqual([
      'Y BUY 4800 8.5',
    ]);
    expect(simple(reconcileLive(want, [order(M1, YES1, 'BUY', 4800, 10 * SH, 3 * SH)], ref(), r, 1000))).toEqual([
      'Y BUY 4800 10',
    ]); // 7 < 8
    expect(simple(reconcileLive(want, [order(M1, YES1, 'BUY', 4800, 12 * SH)], ref(), r, 1000))).toEqual([
      'Y BUY 4800 10',
    ]); // 12 > 10
  });
  it("compares with the gate's cut size when the quote is above maxOrderSize (trial 21 F6)", () => {
    const big = [q(YES1, 'BUY', 4800, 30 * SH)];
    // the gate sent the 30-share quote as 10 (maxOrderSize 10): a tick of the centre later, that order
    // still stands for the quote (priceTolerance 1) and is output as itself
    const sent = [order(M1, YES1, 'BUY', 4700, 10 * SH)];
    const r = rules({ priceTolerance: 1 });
    expect(simple(reconcileLive(big, sent, ref(), r, 1000, 10 * SH))).toEqual(['Y BUY 4700 10']);
    // without the gate's limit: compared with 30, never kept, and every tick replaces it
    expect(simple(reconcileLive(big, sent, ref(), r, 1000))).toEqual(['Y BUY 4800 30']);
    // partly filled down to (1 - sizeTolerance) of the cut size still kept; a limit in odd micro is cut to lots
    const part = [order(M1, YES1, 'BUY', 4700, 10 * SH, 1 * SH)];
    expect(
      simple(reconcileLive(big, part, ref(), rules({ priceTolerance: 1, sizeTolerance: 0.1 }), 1000, 10 * SH + 7)),
    ).toEqual(['Y BUY 4700 9']);
    // a quote under the limit is compared with its own size, as always
    expect(simple(reconcileLive(want, sent, ref(), r, 1000, 100 * SH))).toEqual(['Y BUY 4700 10']);
    expect(simple(reconcileLive(want, [order(M1, YES1, 'BUY', 4700, 12 * SH)], ref(), r, 1000, 100 * SH))).toEqual([
      'Y BUY 4800 10',
    ]);
  });
  it("finishQuotes reads the gate's limit from the state (StrategyState.maxOrderSize)", () => {
    const m = ref();
    const st = fakeState({
      books: [bookView(YES1, [[4900, 100 * SH]], [[5100, 100 * SH]])],
      orders: [order(M1, YES1, 'BUY', 4800, 10 * SH)],
    });
    const levels: YesLevel[] = [{ bid: true, price: 4810, size: 30 * SH }];
    const r = rules({ priceTolerance: 1, minSpread: 0 });
    const top = { touchBid: 4900, touchAsk: 5100 };
    expect(simple(finishQuotes(levels, 5000, top, m, r, st))).toEqual(['Y BUY 4800 30']);
    const gated = Object.assign(st, { maxOrderSize: () => 10 * SH });
    expect(simple(finishQuotes(levels, 5000, top, m, r, gated))).toEqual(['Y BUY 4800 10']);
  });
  it('never keeps a live order of another token, side, market, or off the current tick', () => {
    const live = [
      order(M1, NO1, 'BUY', 4800, 10 * SH),
      order(M1, YES1, 'SELL', 4800, 10 * SH),
      order(M2, YES1, 'BUY', 4800, 10 * SH),
      order(M1, YES1, 'BUY', 4810, 10 * SH),
    ];
    const out = reconcileLive(want, live, ref(), rules({ priceTolerance: 5, sizeTolerance: 1 }), 1000);
    expect(out).toEqual(want);
    expect(out[0]).toBe(want[0]); // the desired quote itself, not a live order
  });
  it('an order at least maxOrderAge old is not kept, and nothing is quoted at its price while it rests', () => {
    const r = rules({ maxOrderAgeMs: 5000, priceTolerance: 1 });
    const old = withAge(order(M1, YES1, 'BUY', 4800, 10 * SH), 4_000);
    expect(agedOrders([old], 9_000, 5000)).toEqual(new Set([old.id]));
    expect(agedOrders([old], 8_999, 5000).size).toBe(0);
    expect(agedOrders([old], 9_000, 0).size).toBe(0);
    expect(reconcileLive(want, [old], ref(), r, 8_999)).toEqual([{ ...want[0], price: 4800, size: 10 * SH }]); // young enough: kept
    expect(reconcileLive(want, [old], ref(), r, 9_000)).toEqual([]); // held back until the cancel lands
    // the aged order at 0.47 is not kept for the 0.48 quote (tolerance 1), which goes out
    expect(simple(reconcileLive(want, [withAge(order(M1, YES1, 'BUY', 4700, 10 * SH), 0)], ref(), r, 9_000))).toEqual([
      'Y BUY 4800 10',
    ]);
    // once gone, the fresh quote goes out
    expect(reconcileLive(want, [], ref(), r, 9_001)).toEqual(want);
  });
  it('an order of unknown age (adopted) never ages', () => {
    const r = rules({ maxOrderAgeMs: 1 });
    expect(reconcileLive(want, [order(M1, YES1, 'BUY', 4800, 10 * SH)], ref(), r, 1e12)).toEqual(want);
  });
  it('keeps nothing when keeping would make our own bid and ask cross', () => {
    const d = [q(YES1, 'BUY', 4800, 10 * SH), q(YES1, 'SELL', 4900, 10 * SH)];
    const live = [order(M1, YES1, 'BUY', 4900, 10 * SH)];
    expect(reconcileLive(d, live, ref(), rules({ priceTolerance: 1 }), 1000)).toEqual(d);
  });
});

describe('finishQuotes', () => {
  it('is the whole pipeline: shape, route, reconcile', () => {
    const s = fakeState({
      books: [bookView(YES1, [[4900, 100 * SH]], [[5100, 100 * SH]])],
      positions: { [YES1]: 20 * SH },
    });
    const r = rulesOf({
      tokens: 'both',
      minSpread: 0.02,
      postOnly: 'move',
      outOfRange: 'clamp',
      maxPosition: 100,
      priceTolerance: 1,
      sizeTolerance: 0.2,
      maxOrderAge: 30,
    });
    expect(r).toEqual({
      tokens: 'both',
      minSpread: 200,
      postOnly: 'move',
      outOfRange: 'clamp',
      maxPosition: 100 * SH,
      priceTolerance: 1,
      sizeTolerance: 0.2,
      maxOrderAgeMs: 30_000,
    });
    const first = finishQuotes(
      [lv(true, 4870), lv(false, 5120)],
      5000,
      { touchBid: 4900, touchAsk: 5100 },
      ref(),
      r,
      s,
    );
    expect(simple(first)).toEqual(['Y BUY 4800 10', 'Y SELL 5200 10']);
    // live now: a move of the model by less than the tolerance changes nothing
    s.orders = first.map((x) => order(M1, x.tokenId, x.side, x.price, x.size));
    expect(
      finishQuotes([lv(true, 4950), lv(false, 5050)], 5080, { touchBid: 4900, touchAsk: 5100 }, ref(), r, s),
    ).toEqual(first);
  });
  it('property: on tick, in range, whole lots, never crossing the book or itself, within holdings and limits', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(100, 10),
        fc.integer({ min: 2, max: 97 }),
        fc.integer({ min: 1, max: 5 }),
        fc.array(
          fc.record({
            bid: fc.boolean(),
            off: fc.integer({ min: -3000, max: 3000 }),
            lots: fc.integer({ min: 1, max: 3000 }),
          }),
          { maxLength: 8 },
        ),
        fc.record({ yes: fc.integer({ min: 0, max: 150 }), no: fc.integer({ min: 0, max: 150 }) }),
        fc.record({
          tokens: fc.constantFrom('yes', 'both'),
          minSpread: fc.constantFrom(0, 0.01, 0.05),
          postOnly: fc.constantFrom('move', 'drop'),
          outOfRange: fc.constantFrom('clamp', 'drop'),
          maxPosition: fc.constantFrom(5, 50, 100),
        }),
        (tick, bidCents, spreadTicks, raw, held, p) => {
          const bb = bidCents * 100;
          const ba = bb + spreadTicks * tick;
          const r = ref();
          r.tick = tick;
          const s = fakeState({
            books: [bookView(YES1, [[bb, 100 * SH]], [[ba, 100 * SH]])],
            positions: { [YES1]: held.yes * SH, [NO1]: held.no * SH },
          });
          const rl = rulesOf({ ...p, maxOrderAge: 0 });
          const center = (bb + ba) / 2;
          const out = finishQuotes(
            raw.map((x) => lv(x.bid, center + x.off, x.lots * LOT_MICRO)),
            center,
            { touchBid: bb, touchAsk: ba },
            r,
            rl,
            s,
          );
          let maxBid = -1;
          let minAsk = Infinity;
          const inv = inventoryOf(s, r, rl.tokens);
          let bidTotal = 0;
          for (const x of out) {
            expect(isValidPrice(x.price, tick)).toBe(true);
            expect(x.size % LOT_MICRO).toBe(0);
            const isYes = x.tokenId === YES1;
            const bid = isYes === (x.side === 'BUY');
            const yp = isYes ? x.price : 10_000 - x.price;
            if (bid) {
              expect(yp).toBeLessThan(ba);
              expect(yp).toBeLessThanOrEqual(center - rl.minSpread / 2);
              maxBid = Math.max(maxBid, yp);
              bidTotal += x.size;
            } else {
              expect(yp).toBeGreaterThan(bb);
              expect(yp).toBeGreaterThanOrEqual(center + rl.minSpread / 2);
              minAsk = Math.min(minAsk, yp);
            }
          }
          expect(maxBid).toBeLessThan(minAsk);
          expect(bidTotal).toBeLessThanOrEqual(Math.max(0, rl.maxPosition - inv.net));
        },
      ),
      { numRuns: 1500 },
    );
  });
});

describe('MarketRegistry', () => {
  const reg = () => new MarketRegistry([marketInfo(M1, YES1, NO1), marketInfo(M2, YES2, NO2, { active: false })]);
  const kind = (r: MarketRegistry, e: MmkitEvent) => {
    const a = r.note(e);
    return a.kind === 'market' ? a.ref.market : a.kind;
  };
  it('maps events to the markets to re-quote', () => {
    const r = reg();
    expect(kind(r, snapshotEvent(M1, NO1))).toBe(M1);
    expect(kind(r, levelEvent(M1, YES1, false))).toBe('none');
    expect(kind(r, levelEvent(M1, YES1, true))).toBe(M1);
    expect(kind(r, levelEvent(M1, '999' as never, true))).toBe('none');
    expect(kind(r, timerEvent())).toBe('all');
    expect(kind(r, { type: 'resynced', stream: 'market', initial: false, venueTime: 1, recvTime: 1 })).toBe('all');
    expect(kind(r, { type: 'disconnected', stream: 'user', reason: 'x', venueTime: 1, recvTime: 1 })).toBe('all');
    expect(kind(r, { type: 'disconnected', stream: 'rtds', reason: 'x', venueTime: 1, recvTime: 1 })).toBe('none');
    expect(
      kind(r, { type: 'price_tick', symbol: 'btcusdt', value: 1, snapshot: false, venueTime: 1, recvTime: 1 }),
    ).toBe('none');
    expect(kind(r, { type: 'fill', market: M2 } as never)).toBe(M2);
  });
  it('follows tick sizes, minimum sizes and resolution', () => {
    const r = reg();
    expect(r.get(M1)).toMatchObject({ tick: 100, minSize: 5 * SH, quotable: true, yes: YES1, no: NO1 });
    expect(r.get(M2)?.quotable).toBe(false); // listed inactive
    r.note({ ...snapshotEvent(M1, YES1, 10), minOrderSize: 15 * SH } as MmkitEvent);
    expect(r.get(M1)).toMatchObject({ tick: 10, minSize: 15 * SH });
    r.note({
      type: 'tick_size_change',
      market: M1,
      tokenId: YES1,
      old: 10,
      new: 1000,
      venueTime: 1,
      recvTime: 1,
    } as never);
    expect(r.get(M1)!.tick).toBe(1000);
    r.note({
      type: 'market_resolved',
      market: M1,
      winningTokenId: YES1,
      winningOutcome: 'Yes',
      venueTime: 1,
      recvTime: 1,
    });
    expect(r.get(M1)!.quotable).toBe(false);
    expect(r.byToken(NO1)).toBe(r.get(M1));
    expect(r.all().map((x) => x.market)).toEqual([M1, M2]);
  });
  it("follows the venue's market info (market_updated): reward config, status, minimum size; a resolved market stays unquotable", () => {
    const r = reg();
    const updated = (cid: typeof M1, info: ReturnType<typeof marketInfo>): MmkitEvent => ({
      type: 'market_updated',
      market: cid,
      info,
      changed: ['rewards', 'status', 'minOrderSize'],
      venueTime: 1,
      recvTime: 1,
    });
    const rewards = { maxSpread: 350 as Pips, minSize: (80 * SH) as Micro, dailyRate: (100 * SH) as Micro };
    const closed = marketInfo(M1, YES1, NO1, { active: false, rewards, minOrderSize: (10 * SH) as Micro });
    const a = r.note(updated(M1, closed));
    expect(a).toMatchObject({ kind: 'market', ref: { market: M1 } });
    expect(r.get(M1)).toMatchObject({ quotable: false, minSize: 10 * SH, info: closed });
    expect(r.get(M1)!.info.rewards).toEqual(rewards);
    r.note(updated(M1, marketInfo(M1, YES1, NO1)));
    expect(r.get(M1)!.quotable).toBe(true); // reopened
    expect(r.get(M1)!.info.rewards).toBeUndefined();
    // M2 was listed inactive, then resolved: active again in a listing does not make it quotable
    r.note(updated(M2, marketInfo(M2, YES2, NO2)));
    expect(r.get(M2)!.quotable).toBe(true);
    r.note({
      type: 'market_resolved',
      market: M2,
      winningTokenId: YES2,
      winningOutcome: 'Yes',
      venueTime: 1,
      recvTime: 1,
    });
    r.note(updated(M2, marketInfo(M2, YES2, NO2)));
    expect(r.get(M2)!.quotable).toBe(false);
    expect(kind(r, updated('0xnone' as never, marketInfo(M1, YES1, NO1)))).toBe('none');
  });
});

describe('othersLevels: the book net of our own orders (trial 23 F6)', () => {
  it('takes our resting size out of the levels that show it, YES and NO orders both, and drops levels of ours alone', () => {
    const st = fakeState({
      books: [
        bookView(
          YES1,
          [
            [4900, 30 * SH],
            [4800, 10 * SH],
          ],
          [[5100, 25 * SH]],
        ),
        bookView(
          NO1,
          [[4900, 25 * SH]],
          [
            [5100, 30 * SH],
            [5200, 10 * SH],
          ],
        ),
      ],
      orders: [
        order(M1, YES1, 'BUY', 4900, 10 * SH), // 10 of the 30 at YES 0.49
        order(M1, NO1, 'BUY', 4000, 10 * SH), // a NO bid at 0.40 is a YES ask at 0.60: not on these levels
        order(M1, YES1, 'BUY', 4800, 10 * SH), // the whole 0.48 level
        order(M1, NO1, 'SELL', 5100, 5 * SH), // a NO ask at 0.51 is a YES bid at 0.49: 5 more of it
      ],
    });
    const m = ref();
    expect(othersLevels(st, m, YES1, 'bids')).toEqual([[4900, 15 * SH]]);
    expect(othersLevels(st, m, YES1, 'asks')).toEqual([[5100, 25 * SH]]);
    // the NO book: its asks are the YES bids at 1 - p (0.51 <-> 0.49: ours 15 of 30), its 0.52 ask is the YES 0.48 bid (ours)
    expect(othersLevels(st, m, NO1, 'asks')).toEqual([[5100, 15 * SH]]);
    expect(othersLevels(st, m, NO1, 'bids')).toEqual([[4900, 25 * SH]]);
    // no book: nothing
    expect(othersLevels(fakeState({}), m, YES1, 'bids')).toEqual([]);
  });
});
