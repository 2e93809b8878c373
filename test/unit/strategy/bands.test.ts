import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/errors.ts';
import type { TokenId } from '../../../src/core/ids.ts';
import type { DesiredQuotes, LiveOrderView, QuoteIntent } from '../../../src/core/intents.ts';
import type { Side } from '../../../src/core/units.ts';
import { isValidPrice, LOT_MICRO } from '../../../src/core/units.ts';
import { resolveParams } from '../../../src/strategy/params.ts';
import bands, { BANDS_PARAMS, bandsConfig, quoteMarket, type MarketPlan } from '../../../strategies/bands.ts';
import {
  bookView,
  complementView,
  ctxFor,
  fakeState,
  levelEvent,
  M1,
  M2,
  marketInfo,
  NO1,
  NO2,
  order,
  SH,
  snapshotEvent,
  timerEvent,
  YES1,
  YES2,
  type FakeState,
  type Lv,
} from './fixtures.ts';

const plan: MarketPlan = { market: M1, yes: YES1, no: NO1, tick: 100, minSize: 5 * SH };
/**
 * The tests' bands: at 0.02 / 0.04 / 0.06 from the mid, ± 0.01, YES only unless a test says 'both'
 * (the mechanics, not the shipped defaults: those quote both tokens).
 */
const BASE = { margin: 0.02, marginTolerance: 0.01, tokens: 'yes' };
const cfgOf = (o: Record<string, unknown> = {}) => bandsConfig(resolveParams(BANDS_PARAMS, { ...BASE, ...o }));
const simple = (qs: readonly QuoteIntent[]) =>
  qs.map((q) => `${q.tokenId === YES1 ? 'Y' : 'N'} ${q.side} ${q.price} ${q.size / SH}`);

/** A two-sided YES book around 0.50: bid 0.49, ask 0.51 (others' size 100 shares). */
function book(bid = 4900, ask = 5100, extra: { bids?: Lv[]; asks?: Lv[] } = {}, stale = false) {
  return bookView(YES1, [[bid, 100 * SH], ...(extra.bids ?? [])], [[ask, 100 * SH], ...(extra.asks ?? [])], stale);
}
/** Live orders as the engine would report them after placing `qs`. */
function live(qs: readonly QuoteIntent[], market = M1): LiveOrderView[] {
  return qs.map((q) => order(market, q.tokenId, q.side, q.price, q.size));
}

describe('bands: params', () => {
  it('generates 3 bands by default, in integer units', () => {
    const c = cfgOf();
    // two-sided from collateral by default (README, bands: why)
    expect(bandsConfig(resolveParams(BANDS_PARAMS, {})).tokens).toBe('both');
    expect(c.bands).toEqual([
      { minMargin: 100, avgMargin: 200, maxMargin: 300, minAmount: 5 * SH, avgAmount: 10 * SH, maxAmount: 15 * SH },
      { minMargin: 300, avgMargin: 400, maxMargin: 500, minAmount: 7.5 * SH, avgAmount: 15 * SH, maxAmount: 22.5 * SH },
      { minMargin: 500, avgMargin: 600, maxMargin: 700, minAmount: 10 * SH, avgAmount: 20 * SH, maxAmount: 30 * SH },
    ]);
    expect(c.maxPosition).toBe(100 * SH);
  });
  it('takes explicit bands as JSON (poly-market-maker format)', () => {
    const c = cfgOf({
      bandsJson: JSON.stringify([
        { minMargin: 0.005, avgMargin: 0.01, maxMargin: 0.02, minAmount: 20, avgAmount: 30, maxAmount: 40 },
      ]),
    });
    expect(c.bands).toEqual([
      { minMargin: 50, avgMargin: 100, maxMargin: 200, minAmount: 20 * SH, avgAmount: 30 * SH, maxAmount: 40 * SH },
    ]);
  });
  it.each([
    ['not json', /not valid JSON/],
    ['[]', /1 to 20 bands/],
    ['[1]', /must be an object/],
    [
      JSON.stringify([{ minMargin: 0.02, avgMargin: 0.01, maxMargin: 0.03, minAmount: 1, avgAmount: 2, maxAmount: 3 }]),
      /minMargin <= avgMargin/,
    ],
    [
      JSON.stringify([{ minMargin: 0, avgMargin: 0.01, maxMargin: 0.03, minAmount: 3, avgAmount: 2, maxAmount: 3 }]),
      /minAmount <= avgAmount/,
    ],
    [
      JSON.stringify([{ minMargin: 0, avgMargin: 0.01, maxMargin: 0.03, minAmount: 1, avgAmount: 2 }]),
      /maxAmount must be/,
    ],
    [
      JSON.stringify([
        { minMargin: 0, avgMargin: 0.01, maxMargin: 0.03, minAmount: 1, avgAmount: 2, maxAmount: 3, x: 1 },
      ]),
      /unknown key x/,
    ],
  ])('refuses bandsJson %s', (json, msg) => {
    expect(() => cfgOf({ bandsJson: json })).toThrow(ConfigError);
    try {
      cfgOf({ bandsJson: json });
    } catch (e) {
      expect((e as ConfigError).key).toBe('bot.params.bandsJson');
      expect((e as Error).message).toMatch(msg);
    }
  });
  it('create() refuses bad params with a ConfigError', () => {
    const ctx = ctxFor([marketInfo(M1, YES1, NO1)]);
    expect(() => bands.create(ctx, resolveParams(bands.params, { bandsJson: '{' }))).toThrow(ConfigError);
  });
});

describe('bands: quotes around the mid', () => {
  it('quotes one bid per band at mid - avgMargin, rounded down to the tick; no ask without inventory', () => {
    const s = fakeState({ books: [book()] });
    expect(simple(quoteMarket(plan, cfgOf(), s))).toEqual(['Y BUY 4800 10', 'Y BUY 4600 15', 'Y BUY 4400 20']);
  });
  it('rounds bids down and asks up on a half-tick mid', () => {
    const s = fakeState({ books: [book(4900, 5000)], positions: { [YES1]: 45 * SH } });
    const q = quoteMarket(plan, cfgOf({ inventorySkew: 0 }), s);
    // mid 4950: bids at 4750 -> 4700, asks at 5150 -> 5200
    expect(simple(q)).toEqual([
      'Y BUY 4700 10',
      'Y SELL 5200 10',
      'Y BUY 4500 15',
      'Y SELL 5400 15',
      'Y BUY 4300 20',
      'Y SELL 5600 20',
    ]);
  });
  it('quotes on a finer tick', () => {
    const s = fakeState({ books: [book(4930, 4970)] });
    const q = quoteMarket({ ...plan, tick: 10 }, cfgOf({ margin: 0.0125 }), s);
    expect(q.map((x) => x.price)).toEqual([4820, 4620, 4420]);
  });
  it('never crosses the opposite best (a strong skew is clamped to one tick inside)', () => {
    const s = fakeState({ books: [book(4900, 5000)], positions: { [YES1]: 100 * SH } });
    const q = quoteMarket(plan, cfgOf({ inventorySkew: 20 }), s);
    const asks = q.filter((x) => x.side === 'SELL');
    expect(asks.length).toBeGreaterThan(0);
    for (const a of asks) expect(a.price).toBeGreaterThanOrEqual(5000);
    expect(q.filter((x) => x.side === 'BUY')).toEqual([]); // at maxPosition: no more buying
  });
  it('drops a band that would leave [tick, 1 - tick] instead of pulling it toward the mid', () => {
    const s = fakeState({ books: [book(200, 400)] }); // mid 0.03
    const q = quoteMarket(plan, cfgOf(), s);
    expect(simple(q)).toEqual(['Y BUY 100 10']); // 0.01; bands at -0.01 and -0.03 dropped
  });
});

describe('bands: tolerance (no churn)', () => {
  it('outputs the live orders again while they sit in their bands (small mid moves)', () => {
    const cfg = cfgOf({ inventorySkew: 0 });
    const s = fakeState({ books: [book()], positions: { [YES1]: 45 * SH } });
    const first = quoteMarket(plan, cfg, s);
    s.orders = live(first);
    expect(quoteMarket(plan, cfg, s)).toEqual(first);
    // the mid moves half a tick, then a tick: the same orders come back
    for (const [b, a] of [
      [4900, 5000],
      [5000, 5100],
      [4800, 5000],
    ] as const) {
      s.books.set(YES1, book(b, a));
      const again = quoteMarket(plan, cfg, s);
      expect(simple(again).sort()).toEqual(simple(first).sort());
    }
  });
  it('keeps size as the remaining size of a live order', () => {
    const cfg = cfgOf({ inventorySkew: 0 });
    const s = fakeState({ books: [book()] });
    s.orders = [order(M1, YES1, 'BUY', 4800, 12 * SH, 4 * SH)]; // 8 left: inside [5, 15]
    const q = quoteMarket(plan, cfg, s);
    expect(simple(q)[0]).toBe('Y BUY 4800 8');
  });
  it('replaces orders that left every band after a big move', () => {
    const cfg = cfgOf({ inventorySkew: 0 });
    const s = fakeState({ books: [book()] });
    s.orders = live(quoteMarket(plan, cfg, s));
    s.books.set(YES1, book(5900, 6100));
    expect(simple(quoteMarket(plan, cfg, s))).toEqual(['Y BUY 5800 10', 'Y BUY 5600 15', 'Y BUY 5400 20']);
  });
  it('tops up a band emptied by a partial fill, keeping the partial order (queue priority)', () => {
    const cfg = cfgOf({ inventorySkew: 0 });
    const s = fakeState({ books: [book()] });
    const first = quoteMarket(plan, cfg, s);
    s.orders = live(first);
    s.orders[0] = { ...s.orders[0]!, sizeMatched: (7 * SH) as never }; // 3 left < minAmount 5
    const q = simple(quoteMarket(plan, cfg, s));
    expect(q).toEqual(['Y BUY 4800 3', 'Y BUY 4800 7', 'Y BUY 4600 15', 'Y BUY 4400 20']);
  });
  it('cuts an over-full band down to what fits under maxAmount', () => {
    const cfg = cfgOf({ inventorySkew: 0 });
    const s = fakeState({ books: [book()] });
    s.orders = [order(M1, YES1, 'BUY', 4800, 10 * SH), order(M1, YES1, 'BUY', 4800, 10 * SH)];
    const q = simple(quoteMarket(plan, cfg, s));
    expect(q).toEqual(['Y BUY 4800 10', 'Y BUY 4600 15', 'Y BUY 4400 20']);
    expect(quoteMarket(plan, cfg, s)[0]!.size).toBe(10 * SH);
  });
  it('moves an order that no longer fits its band to the next band it sits in', () => {
    const cfg = cfgOf({ inventorySkew: 0 });
    const s = fakeState({ books: [book()] });
    s.orders = [order(M1, YES1, 'BUY', 4800, 10 * SH), order(M1, YES1, 'BUY', 4700, 10 * SH)];
    // 4700 (0.03 from the mid) is on the boundary of bands 0 and 1; band 0 is full: it serves band 1
    expect(simple(quoteMarket(plan, cfg, s))).toEqual(['Y BUY 4800 10', 'Y BUY 4700 10', 'Y BUY 4400 20']);
  });
  it('assigns each order to the band with the nearest avgMargin when bands overlap', () => {
    const cfg = cfgOf({ inventorySkew: 0, marginStep: 0.01, marginTolerance: 0.01 });
    const s = fakeState({ books: [book()] });
    const first = quoteMarket(plan, cfg, s);
    expect(first.map((x) => x.price)).toEqual([4800, 4700, 4600]);
    s.orders = live(first);
    expect(quoteMarket(plan, cfg, s)).toEqual(first);
  });
  it('replaces orders that are off the current tick', () => {
    const cfg = cfgOf({ inventorySkew: 0 });
    const s = fakeState({ books: [book()] });
    s.orders = [order(M1, YES1, 'BUY', 4810, 10 * SH)];
    expect(simple(quoteMarket(plan, cfg, s))[0]).toBe('Y BUY 4800 10');
  });
});

describe('bands: inventory', () => {
  it('skews both sides against the position', () => {
    const s = fakeState({ books: [book()], positions: { [YES1]: 50 * SH } });
    // skew 2 ticks x 50/100 = 1 tick down: center 0.49
    expect(simple(quoteMarket(plan, cfgOf(), s))).toEqual([
      'Y BUY 4700 10',
      'Y SELL 5100 10',
      'Y BUY 4500 15',
      'Y SELL 5300 15',
      'Y BUY 4300 20',
      'Y SELL 5500 20',
    ]);
  });
  it('stops adding beyond maxPosition and sells only what is held', () => {
    const s = fakeState({ books: [book()], positions: { [YES1]: 92 * SH } });
    const q = quoteMarket(plan, cfgOf({ inventorySkew: 0 }), s);
    const buys = q.filter((x) => x.side === 'BUY');
    expect(buys.reduce((a, x) => a + x.size, 0)).toBeLessThanOrEqual(8 * SH);
    expect(simple(buys)).toEqual(['Y BUY 4800 8']);
    s.positions.set(YES1, 12 * SH);
    const sells = quoteMarket(plan, cfgOf({ inventorySkew: 0 }), s).filter((x) => x.side === 'SELL');
    expect(simple(sells)).toEqual(['Y SELL 5200 10']); // 2 left: below the minimum size
  });
  it('at maxPosition quotes no bids and cancels the resting ones', () => {
    const s = fakeState({ books: [book()], positions: { [YES1]: 100 * SH } });
    s.orders = [order(M1, YES1, 'BUY', 4700, 10 * SH)];
    expect(quoteMarket(plan, cfgOf(), s).filter((x) => x.side === 'BUY')).toEqual([]);
  });
});

describe('bands: no book, no quote', () => {
  const cfg = cfgOf();
  it.each([
    ['no book', fakeState()],
    ['a stale book', fakeState({ books: [book(4900, 5100, {}, true)] })],
    ['a one-sided book', fakeState({ books: [bookView(YES1, [[4900, SH]], [])] })],
    ['a crossed book', fakeState({ books: [bookView(YES1, [[5100, SH]], [[4900, SH]])] })],
    [
      'only our own orders on one side',
      fakeState({
        books: [bookView(YES1, [[4800, 10 * SH]], [[5100, SH]])],
        orders: [order(M1, YES1, 'BUY', 4800, 10 * SH)],
      }),
    ],
  ])('%s: empty quotes', (_, s) => {
    expect(quoteMarket(plan, cfg, s)).toEqual([]);
  });
  it('with both tokens, a stale NO view pulls the quotes too', () => {
    const y = book();
    const s = fakeState({ books: [y, { ...complementView(NO1, y), stale: true }] });
    expect(quoteMarket(plan, cfgOf({ tokens: 'both' }), s)).toEqual([]);
    expect(quoteMarket(plan, cfgOf({ tokens: 'yes' }), s).length).toBe(3);
  });
  it('uses the NO book through the complement when there is no YES book', () => {
    const s = fakeState({ books: [complementView(NO1, book())] });
    expect(simple(quoteMarket(plan, cfgOf(), s))).toEqual(['Y BUY 4800 10', 'Y BUY 4600 15', 'Y BUY 4400 20']);
  });
});

describe('bands: own orders and the mid', () => {
  it('takes the mid net of our own orders (does not chase itself)', () => {
    // our bid at 0.50 is the best bid; the market's is 0.47; asks 0.53: fair mid 0.50, raw mid 0.515
    const b = bookView(
      YES1,
      [
        [5000, 10 * SH],
        [4700, 50 * SH],
      ],
      [[5300, 50 * SH]],
    );
    const s = fakeState({ books: [b], orders: [order(M1, YES1, 'BUY', 5000, 10 * SH)] });
    // net of our order: mid 0.50, our bid sits at distance 0 (outside every band) and is replaced
    expect(simple(quoteMarket(plan, cfgOf({ inventorySkew: 0 }), s))).toEqual([
      'Y BUY 4800 10',
      'Y BUY 4600 15',
      'Y BUY 4400 20',
    ]);
    // with our order counted the mid is 0.515 and our own bid looks like a band-0 order: kept
    expect(simple(quoteMarket(plan, cfgOf({ inventorySkew: 0, excludeOwnOrders: false }), s))[0]).toBe('Y BUY 5000 10');
  });
});

describe("bands: tokens 'both'", () => {
  const cfg = cfgOf({ tokens: 'both', inventorySkew: 0 });
  it('without inventory, asks become NO bids at 1 - price', () => {
    const s = fakeState({ books: [book(), complementView(NO1, book())] });
    expect(simple(quoteMarket(plan, cfg, s))).toEqual([
      'Y BUY 4800 10',
      'N BUY 4800 10',
      'Y BUY 4600 15',
      'N BUY 4600 15',
      'Y BUY 4400 20',
      'N BUY 4400 20',
    ]);
  });
  it('sells inventory first, the rest as buys of the other token', () => {
    const s = fakeState({ books: [book()], positions: { [YES1]: 12 * SH, [NO1]: 30 * SH } });
    expect(simple(quoteMarket(plan, cfg, s))).toEqual([
      'N SELL 5200 10',
      'Y SELL 5200 10',
      'N SELL 5400 15',
      'N BUY 4600 15',
      'N SELL 5600 5',
      'Y BUY 4400 15',
      'N BUY 4400 20',
    ]);
  });
  it('keeps live orders of both tokens (no churn across the complement)', () => {
    const s = fakeState({ books: [book()], positions: { [NO1]: 30 * SH } });
    const first = quoteMarket(plan, cfg, s);
    s.orders = live(first);
    expect(quoteMarket(plan, cfg, s)).toEqual(first);
  });
  it('uses the net YES exposure for skew and limits', () => {
    const c = cfgOf({ tokens: 'both', inventorySkew: 2 });
    const s = fakeState({ books: [book()], positions: { [NO1]: 100 * SH } }); // net -100: short YES
    const q = quoteMarket(plan, c, s);
    // center shifted up 2 ticks; no more YES-short exposure (no NO buys); bids sell NO first
    expect(q.every((x) => !(x.tokenId === NO1 && x.side === 'BUY'))).toBe(true);
    expect(q[0]).toMatchObject({ tokenId: NO1, side: 'SELL', price: 10_000 - 5000 });
  });
});

describe('bands: the handler', () => {
  const m1 = marketInfo(M1, YES1, NO1);
  const m2 = marketInfo(M2, YES2, NO2);
  function setup(over: Record<string, unknown> = {}) {
    const h = bands.create(ctxFor([m1, m2]), resolveParams(bands.params, { ...BASE, ...over }));
    const s = fakeState({ books: [book(), bookView(YES2, [[2900, 100 * SH]], [[3100, 100 * SH]])], now: 5_000 });
    return { h, s };
  }
  const markets = (o: { quotes?: readonly DesiredQuotes[] } | undefined) => o?.quotes?.map((d) => d.market);

  it('answers a snapshot and the end of a level batch for that market only', () => {
    const { h, s } = setup();
    const out = h.onEvent(snapshotEvent(M1, YES1), s);
    expect(markets(out)).toEqual([M1]);
    expect(out?.quotes?.[0]?.at).toBe(5_000);
    expect(out?.quotes?.[0]?.quotes.length).toBe(3);
    expect(h.onEvent(levelEvent(M2, YES2, false), s)).toBeUndefined();
    expect(markets(h.onEvent(levelEvent(M2, YES2, true), s))).toEqual([M2]);
    expect(h.onEvent(levelEvent(M2, '999' as TokenId, true), s)).toBeUndefined();
  });
  it('answers timers and market-stream resyncs for every market, ignores the rest', () => {
    const { h, s } = setup();
    expect(markets(h.onEvent(timerEvent(), s))).toEqual([M1, M2]);
    expect(
      markets(h.onEvent({ type: 'resynced', stream: 'market', initial: false, venueTime: 1, recvTime: 1 }, s)),
    ).toEqual([M1, M2]);
    expect(
      h.onEvent({ type: 'resynced', stream: 'rtds', initial: false, venueTime: 1, recvTime: 1 }, s),
    ).toBeUndefined();
    expect(
      h.onEvent({ type: 'price_tick', symbol: 'btcusdt', value: 1, snapshot: false, venueTime: 1, recvTime: 1 }, s),
    ).toBeUndefined();
  });
  it('answers fills for their market', () => {
    const { h, s } = setup();
    const fill = {
      type: 'fill',
      tradeId: 't',
      orderId: 'o',
      status: 'MATCHED',
      role: 'MAKER',
      market: M2,
      tokenId: YES2,
      side: 'BUY',
      price: 2800,
      size: SH,
      feeRateBps: 0,
      takerOrderId: 'x',
      source: 'stream',
      venueTime: 1,
      recvTime: 1,
    } as const;
    expect(markets(h.onEvent(fill as never, s))).toEqual([M2]);
  });
  it('follows tick changes', () => {
    const { h, s } = setup();
    s.books.set(YES1, book(4930, 4970));
    const out = h.onEvent(
      { type: 'tick_size_change', market: M1, tokenId: YES1, old: 100, new: 10, venueTime: 1, recvTime: 1 } as never,
      s,
    );
    expect(out?.quotes?.[0]?.quotes.map((q) => q.price)).toEqual([4750, 4550, 4350]);
    const out2 = h.onEvent(snapshotEvent(M1, YES1, 100), s);
    expect(out2?.quotes?.[0]?.quotes.map((q) => q.price)).toEqual([4700, 4500, 4300]);
  });
  it('pulls and stops quoting a resolved or inactive market', () => {
    const h = bands.create(
      ctxFor([m1, marketInfo(M2, YES2, NO2, { active: false })]),
      resolveParams(bands.params, BASE),
    );
    const s = fakeState({ books: [book(), bookView(YES2, [[2900, SH]], [[3100, SH]])] });
    const out = h.onEvent(
      { type: 'market_resolved', market: M1, winningTokenId: YES1, winningOutcome: 'Yes', venueTime: 1, recvTime: 1 },
      s,
    );
    expect(out?.quotes).toEqual([{ market: M1, quotes: [], at: s.now }]);
    expect(h.onEvent(timerEvent(), s)?.quotes?.map((d) => d.quotes.length)).toEqual([0, 0]);
  });
});

// ---- property: on tick, in range, never crossing, within inventory ---------------------------------

interface World {
  tick: number;
  split: number;
  others: { bids: Lv[]; asks: Lv[] };
  own: { bid: boolean; yes: boolean; off: number; lots: number; matched: number }[];
  yesHeld: number;
  noHeld: number;
  params: Record<string, unknown>;
  withNoBook: boolean;
}

const worldArb: fc.Arbitrary<World> = fc
  .record({
    tick: fc.constantFrom(100, 10),
    splitTicks: fc.integer({ min: 2, max: 98 }),
    bidOffs: fc.array(fc.tuple(fc.integer({ min: 1, max: 30 }), fc.integer({ min: 1, max: 200 })), {
      minLength: 0,
      maxLength: 5,
    }),
    askOffs: fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 1, max: 200 })), {
      minLength: 0,
      maxLength: 5,
    }),
    own: fc.array(
      fc.record({
        bid: fc.boolean(),
        yes: fc.boolean(),
        off: fc.integer({ min: 0, max: 30 }),
        lots: fc.integer({ min: 1, max: 3000 }),
        matched: fc.integer({ min: 0, max: 100 }),
      }),
      { maxLength: 8 },
    ),
    yesHeld: fc.integer({ min: 0, max: 300 }),
    noHeld: fc.integer({ min: 0, max: 300 }),
    tokens: fc.constantFrom('yes', 'both'),
    bands: fc.integer({ min: 1, max: 5 }),
    margin: fc.constantFrom(0.001, 0.005, 0.01, 0.02, 0.05),
    marginStep: fc.constantFrom(0, 0.005, 0.01, 0.03),
    marginTolerance: fc.constantFrom(0, 0.002, 0.01, 0.05),
    amount: fc.constantFrom(1, 5, 10, 33.33),
    inventorySkew: fc.constantFrom(0, 1, 3, 50),
    maxPosition: fc.constantFrom(5, 50, 100),
    excludeOwnOrders: fc.boolean(),
    withNoBook: fc.boolean(),
  })
  .map((r) => {
    const split = r.splitTicks * (10_000 / 100); // a price on the 0.01 grid: also on 0.001
    const t = r.tick;
    const clampP = (p: number) => Math.max(t, Math.min(10_000 - t, p));
    return {
      tick: t,
      split,
      others: {
        bids: r.bidOffs.map(([o, s]) => [clampP(split - o * t), s * SH] as Lv).filter(([p]) => p < split),
        asks: r.askOffs.map(([o, s]) => [clampP(split + o * t), s * SH] as Lv).filter(([p]) => p >= split),
      },
      own: r.own,
      yesHeld: r.yesHeld * SH,
      noHeld: r.noHeld * SH,
      params: {
        tokens: r.tokens,
        bands: r.bands,
        margin: r.margin,
        marginStep: r.marginStep,
        marginTolerance: r.marginTolerance,
        amount: r.amount,
        inventorySkew: r.inventorySkew,
        maxPosition: r.maxPosition,
        excludeOwnOrders: r.excludeOwnOrders,
      },
      withNoBook: r.withNoBook,
    };
  });

function buildState(w: World): { s: FakeState; bestBid: number | null; bestAsk: number | null } {
  const t = w.tick;
  const bids = new Map<number, number>();
  const asks = new Map<number, number>();
  for (const [p, s] of w.others.bids) bids.set(p, (bids.get(p) ?? 0) + s);
  for (const [p, s] of w.others.asks) asks.set(p, (asks.get(p) ?? 0) + s);
  const orders: LiveOrderView[] = [];
  for (const o of w.own) {
    const yp = o.bid ? Math.max(t, w.split - (o.off + 1) * t) : Math.min(10_000 - t, w.split + o.off * t);
    if (o.bid ? yp >= w.split : yp < w.split) continue;
    const size = o.lots * LOT_MICRO;
    const matched = Math.floor((size * o.matched) / 100 / LOT_MICRO) * LOT_MICRO;
    const side: Side = o.yes === o.bid ? 'BUY' : 'SELL';
    orders.push(order(M1, o.yes ? YES1 : NO1, side, o.yes ? yp : 10_000 - yp, size, matched));
    const m = o.bid ? bids : asks;
    if (size > matched) m.set(yp, (m.get(yp) ?? 0) + size - matched);
  }
  const y = bookView(YES1, [...bids], [...asks]);
  const books = [y];
  if (w.withNoBook) books.push(complementView(NO1, y));
  const s = fakeState({ books, orders, positions: { [YES1]: w.yesHeld, [NO1]: w.noHeld } });
  return { s, bestBid: y.bestBid, bestAsk: y.bestAsk };
}

describe('bands: properties', () => {
  it('quotes are on tick, in [tick, 1 - tick], whole lots, never cross the book or each other, within inventory and maxPosition', () => {
    fc.assert(
      fc.property(worldArb, (w) => {
        const cfg = cfgOf(w.params);
        const p: MarketPlan = { ...plan, tick: w.tick };
        const { s, bestBid, bestAsk } = buildState(w);
        const q = quoteMarket(p, cfg, s);
        if (bestBid === null || bestAsk === null) {
          expect(q).toEqual([]);
          return;
        }
        let maxBid = -1;
        let minAsk = 1e9;
        const sold = new Map<TokenId, number>();
        let bidSize = 0;
        for (const x of q) {
          expect(isValidPrice(x.price, w.tick)).toBe(true);
          expect(x.size).toBeGreaterThan(0);
          expect(x.size % LOT_MICRO).toBe(0);
          if (cfg.tokens === 'yes') expect(x.tokenId).toBe(YES1);
          const yesSide = (x.tokenId === YES1) === (x.side === 'BUY');
          const yp = x.tokenId === YES1 ? x.price : 10_000 - x.price;
          if (yesSide) {
            expect(yp).toBeLessThan(bestAsk);
            maxBid = Math.max(maxBid, yp);
            bidSize += x.size;
          } else {
            expect(yp).toBeGreaterThan(bestBid);
            minAsk = Math.min(minAsk, yp);
          }
          if (x.side === 'SELL') sold.set(x.tokenId, (sold.get(x.tokenId) ?? 0) + x.size);
        }
        expect(maxBid).toBeLessThan(minAsk);
        expect(sold.get(YES1) ?? 0).toBeLessThanOrEqual(w.yesHeld);
        expect(sold.get(NO1) ?? 0).toBeLessThanOrEqual(w.noHeld);
        const net = w.yesHeld - (cfg.tokens === 'both' ? w.noHeld : 0);
        expect(bidSize).toBeLessThanOrEqual(Math.max(0, cfg.maxPosition - net));
      }),
      { numRuns: 2000 },
    );
  });
  it('is idempotent: the quotes, once live, are output again unchanged', () => {
    fc.assert(
      fc.property(worldArb, (w) => {
        const cfg = cfgOf(w.params);
        const p: MarketPlan = { ...plan, tick: w.tick };
        const { s } = buildState({ ...w, own: [] });
        const first = quoteMarket(p, cfg, s);
        // our orders go live: the engine lists them and the book shows them
        s.orders = live(first);
        const y = s.books.get(YES1)!;
        const bids = new Map(y.levels('bids').map(([px, sz]) => [px as number, sz as number]));
        const asks = new Map(y.levels('asks').map(([px, sz]) => [px as number, sz as number]));
        for (const q of first) {
          const bid = (q.tokenId === YES1) === (q.side === 'BUY');
          const yp = q.tokenId === YES1 ? q.price : 10_000 - q.price;
          const m = bid ? bids : asks;
          m.set(yp, (m.get(yp) ?? 0) + q.size);
        }
        const y2 = bookView(YES1, [...bids], [...asks]);
        s.books.set(YES1, y2);
        if (s.books.has(NO1)) s.books.set(NO1, complementView(NO1, y2));
        const again = quoteMarket(p, cfg, s);
        if (cfg.excludeOwnOrders) expect(simple(again).sort()).toEqual(simple(first).sort());
      }),
      { numRuns: 1000 },
    );
  });
});

describe("bands: the risk gate's price limits (findings-4 F19)", () => {
  // a 0.001-tick market near 0.045: the second band's bid (0.005) is on the tick, inside [tick, 1 - tick],
  // and below the default bot.risk.minPrice 0.01, which the gate would refuse on every re-quote
  const thin = marketInfo(M1, YES1, NO1, { tick: '0.001' });
  const s = () => fakeState({ books: [bookView(YES1, [[440, 100 * SH]], [[460, 100 * SH]])] });
  const quotesWith = (limits?: { min: number; max: number }) => {
    const ctx = ctxFor([thin]);
    const h = bands.create(
      limits === undefined ? ctx : { ...ctx, priceLimits: () => limits as never },
      resolveParams(bands.params, { ...BASE, tokens: 'both' }),
    );
    return h
      .onEvent(snapshotEvent(M1, YES1), s())
      ?.quotes?.[0]?.quotes.map((q) => `${q.tokenId === YES1 ? 'Y' : 'N'} ${q.side} ${q.price}`);
  };
  it('without limits (a hand-made ctx) quotes every band inside [tick, 1 - tick] (asks as bids of NO)', () => {
    expect(quotesWith()).toEqual(['Y BUY 250', 'N BUY 9350', 'Y BUY 50', 'N BUY 9150', 'N BUY 8950']);
  });
  it('leaves out the quotes outside ctx.priceLimits, keeping the rest as they were', () => {
    expect(quotesWith({ min: 100, max: 9900 })).toEqual(['Y BUY 250', 'N BUY 9350', 'N BUY 9150', 'N BUY 8950']);
    // the asks are bids of NO at 1 - p: the limits apply to the price of the token sent
    expect(quotesWith({ min: 100, max: 9200 })).toEqual(['Y BUY 250', 'N BUY 9150', 'N BUY 8950']);
  });
});
