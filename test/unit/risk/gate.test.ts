import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.ts';
import type { ConditionId, TokenId } from '../../../src/core/ids.ts';
import type { DesiredQuotes, ImmediateIntent, LiveOrderView, QuoteIntent } from '../../../src/core/intents.ts';
import type { Micro, Pips, Side } from '../../../src/core/units.ts';
import { isValidPrice, LOT_MICRO, notional } from '../../../src/core/units.ts';
import type { MarketInfo } from '../../../src/core/venue.ts';
import { gate, gateOrder, gateOrders, type RiskView } from '../../../src/risk/gate.ts';
import { KillSwitch } from '../../../src/risk/kill-switch.ts';
import { resolveRiskLimits, type RiskLimitsConfig } from '../../../src/risk/limits.ts';
import type { BookView } from '../../../src/strategy/api.ts';
import { bookView, complementView, M1, M2, marketInfo, NO1, NO2, order, SH, YES1, YES2 } from '../strategy/fixtures.ts';

interface ViewInit {
  books?: BookView[];
  positions?: Record<string, number>;
  orders?: LiveOrderView[];
  /** Orders resting on our wallet that the bot did not place (the self-trade check). */
  foreign?: LiveOrderView[];
  collateral?: number;
  limits?: RiskLimitsConfig;
  markets?: MarketInfo[];
  killSwitch?: KillSwitch;
  halted?: string | null;
  heartbeatOk?: boolean;
  tick?: number;
}
const yesBook = (bid = 4900, ask = 5100, stale = false) => bookView(YES1, [[bid, 100 * SH]], [[ask, 100 * SH]], stale);

function view(o: ViewInit = {}): RiskView {
  const books = new Map<TokenId, BookView>((o.books ?? [yesBook()]).map((b) => [b.tokenId, b]));
  const markets = new Map<string, MarketInfo>(
    (o.markets ?? [marketInfo(M1, YES1, NO1), marketInfo(M2, YES2, NO2)]).map((m) => [m.market, m]),
  );
  return {
    limits: resolveRiskLimits(o.limits ?? {}),
    killSwitch: o.killSwitch,
    halted: o.halted,
    heartbeatOk: o.heartbeatOk,
    market: (id) => markets.get(id),
    tick: o.tick === undefined ? undefined : () => o.tick as Pips,
    book: (t) => books.get(t),
    position: (t) => (o.positions?.[t] ?? 0) as Micro,
    openOrders: () => o.orders ?? [],
    ...(o.foreign !== undefined ? { foreignOrders: (m: ConditionId) => o.foreign!.filter((x) => x.market === m) } : {}),
    availableCollateral: (o.collateral ?? 10_000 * SH) as Micro,
  };
}
const q = (tokenId: TokenId, side: Side, price: number, shares: number): QuoteIntent => ({
  tokenId,
  side,
  price: price as Pips,
  size: Math.round(shares * SH) as Micro,
});
const desired = (quotes: QuoteIntent[], market: ConditionId = M1): DesiredQuotes => ({ market, quotes, at: 123 });
const codes = (r: ReturnType<typeof gate>) => r.refusals.map((x) => x.code);

describe('gate: approval', () => {
  it('approves valid quotes unchanged, keeping market and time', () => {
    const qs = [q(YES1, 'BUY', 4800, 10), q(YES1, 'SELL', 5200, 10), q(NO1, 'BUY', 4700, 10)];
    const r = gate(desired(qs), view({ positions: { [YES1]: 10 * SH } }));
    expect(r.refusals).toEqual([]);
    expect(r.trims).toEqual([]);
    expect(r.approved).toEqual({ market: M1, quotes: qs, at: 123 });
  });
  it('always passes an empty set (pulling quotes), even when tripped', () => {
    const ks = new KillSwitch(new VirtualClock());
    ks.trip('cli');
    const r = gate(desired([]), view({ killSwitch: ks, books: [] }));
    expect(r).toEqual({ approved: { market: M1, quotes: [], at: 123 }, refusals: [], trims: [] });
  });
  it('is pure: the same inputs give the same answer and nothing is mutated', () => {
    const qs = Object.freeze([Object.freeze(q(YES1, 'BUY', 4800, 300))]);
    const d = Object.freeze(desired(qs as QuoteIntent[]));
    const v = view();
    expect(gate(d, v)).toEqual(gate(d, v));
    expect(d.quotes[0]!.size).toBe(300 * SH);
  });
});

describe('gate: whole-market refusals', () => {
  const qs = [q(YES1, 'BUY', 4800, 10), q(YES1, 'SELL', 5200, 10)];
  it('kill switch tripped: everything refused, with the trip reason', () => {
    const ks = new KillSwitch(new VirtualClock());
    expect(gate(desired(qs), view({ killSwitch: ks })).approved.quotes).toHaveLength(1); // armed: fine (no YES held for the sell)
    ks.trip('lossLimit', 'PnL -120');
    const r = gate(desired(qs), view({ killSwitch: ks, positions: { [YES1]: 10 * SH } }));
    expect(r.approved.quotes).toEqual([]);
    expect(codes(r)).toEqual(['KILL_SWITCH', 'KILL_SWITCH']);
    expect(r.refusals[0]!.reason).toMatch(/lossLimit: PnL -120/);
  });
  it.each([
    ['halted', { halted: 'reconciling' }, 'HALTED'],
    ['failing heartbeats', { heartbeatOk: false }, 'HEARTBEAT'],
    ['no book', { books: [] }, 'NO_BOOK'],
    ['a stale book', { books: [yesBook(4900, 5100, true)] }, 'STALE_BOOK'],
    ['a crossed book', { books: [bookView(YES1, [[5100, SH]], [[5000, SH]])] }, 'CROSSED_BOOK'],
    ['a locked book', { books: [bookView(YES1, [[5000, SH]], [[5000, SH]])] }, 'CROSSED_BOOK'],
    ['a one-sided book', { books: [bookView(YES1, [[4900, SH]], [])] }, 'NO_MID'],
    ['an empty book', { books: [bookView(YES1, [], [])] }, 'NO_MID'],
    ['an inactive market', { markets: [marketInfo(M1, YES1, NO1, { active: false })] }, 'MARKET_INACTIVE'],
    ['an unknown market', { markets: [] }, 'UNKNOWN_MARKET'],
  ] as const)('%s: the market quotes are refused', (_, init, code) => {
    const r = gate(desired(qs), view({ ...init, positions: { [YES1]: 10 * SH } } as ViewInit));
    expect(r.approved.quotes).toEqual([]);
    expect(codes(r)).toEqual([code, code]);
  });
  it('a stale NO view refuses the market even when the YES view is fine', () => {
    const y = yesBook();
    const r = gate(
      desired([q(YES1, 'BUY', 4800, 10), q(NO1, 'BUY', 4800, 10)]),
      view({ books: [y, { ...complementView(NO1, y), stale: true }] }),
    );
    expect(codes(r)).toEqual(['STALE_BOOK', 'STALE_BOOK']);
  });
  it("a token without its own book is checked on the other token's book through the complement", () => {
    const r = gate(desired([q(NO1, 'BUY', 4800, 10)]), view({ books: [yesBook()] }));
    expect(r.refusals).toEqual([]);
    const crossing = gate(desired([q(NO1, 'BUY', 5100, 10)]), view({ books: [yesBook()] })); // NO ask = 1 - 0.49
    expect(codes(crossing)).toEqual(['WOULD_CROSS']);
  });
});

describe('gate: per-quote refusals', () => {
  it.each([
    ['a token of another market', q(YES2, 'BUY', 4800, 10), 'WRONG_TOKEN'],
    ['an off-tick price', q(YES1, 'BUY', 4850, 10), 'OFF_TICK'],
    ['a zero price', q(YES1, 'BUY', 0, 10), 'INVALID_PRICE'],
    ['a price of 1', q(YES1, 'SELL', 10_000, 10), 'INVALID_PRICE'],
    ['a fractional price', q(YES1, 'BUY', 4800.5, 10), 'INVALID_PRICE'],
    ['a price beyond the band around the mid', q(YES1, 'BUY', 3900, 10), 'PRICE_BAND'],
    ['a bid at the best ask', q(YES1, 'BUY', 5100, 10), 'WOULD_CROSS'],
    ['an ask at the best bid', q(YES1, 'SELL', 4900, 10), 'WOULD_CROSS'],
    ['a zero size', q(YES1, 'BUY', 4800, 0), 'INVALID_SIZE'],
    ['a negative size', q(YES1, 'BUY', 4800, -5), 'INVALID_SIZE'],
    ['a size below the minimum', q(YES1, 'BUY', 4800, 4.99), 'MIN_SIZE'],
  ] as const)('%s', (_, quote, code) => {
    const r = gate(desired([quote]), view({ positions: { [YES1]: 100 * SH } }));
    expect(codes(r)).toEqual([code]);
    expect(r.approved.quotes).toEqual([]);
    expect(r.refusals[0]!.quote).toBe(quote);
    expect(r.refusals[0]!.reason.length).toBeGreaterThan(5);
  });
  it('an untyped output is refused with what was given and the unit, not a range it is inside (trial 10 F3, F15)', () => {
    const reason = (over: Record<string, unknown>) => {
      const quote = { ...q(YES1, 'BUY', 4800, 10), ...over } as unknown as QuoteIntent;
      const r = gate(desired([quote]), view({ positions: { [YES1]: 100 * SH } }));
      expect(r.approved.quotes).toEqual([]);
      return `${r.refusals[0]!.code}: ${r.refusals[0]!.reason}`;
    };
    expect(reason({ price: '0.21' })).toBe(
      'INVALID_PRICE: price "0.21" is a string, not a number: prices are integer pips (0.21 is 2100)',
    );
    expect(reason({ price: 0.48 })).toBe(
      'INVALID_PRICE: price 0.48 is not a whole number of pips: prices are integer pips (0.48 is 4800)',
    );
    expect(reason({ price: Number.NaN })).toBe('INVALID_PRICE: price NaN is not a number of pips');
    expect(reason({ size: '5' })).toBe(
      'INVALID_SIZE: size "5" is a string, not a number: sizes are integer micro-shares (5 shares is 5000000)',
    );
    expect(reason({ side: 'buy' })).toBe("INVALID_SIDE: unknown side \"buy\": expected 'BUY' or 'SELL' (upper case)");
  });
  it('an immediate order of a bad side or a string price is refused as such (trial 10 F3, F15)', () => {
    const fak = (over: Record<string, unknown>) =>
      ({
        market: M1,
        tokenId: YES1,
        side: 'BUY',
        price: 5100,
        size: 10 * SH,
        type: 'FAK',
        ...over,
      }) as unknown as ImmediateIntent;
    expect(gateOrder(fak({ side: 'sell' }), view()).refusal?.code).toBe('INVALID_SIDE');
    const r = gateOrder(fak({ price: '0.51' }), view()).refusal;
    expect(r?.code).toBe('INVALID_PRICE');
    expect(r?.reason).toContain('is a string, not a number');
  });
  it('enforces min/max price', () => {
    const v = view({ books: [bookView(YES1, [[500, SH]], [[700, SH]])], limits: { minPrice: 0.06 } });
    const r = gate(desired([q(YES1, 'BUY', 500, 10), q(YES1, 'BUY', 600, 10)]), v);
    expect(codes(r)).toEqual(['PRICE_LIMIT']);
    expect(r.approved.quotes.map((x) => x.price)).toEqual([600]);
    const hi = gate(
      desired([q(YES1, 'SELL', 9950, 10)]),
      view({ books: [bookView(YES1, [[9930, SH]], [[9960, SH]])], tick: 10, positions: { [YES1]: 10 * SH } }),
    );
    expect(codes(hi)).toEqual(['PRICE_LIMIT']);
  });
  it('uses the current tick when the view gives one', () => {
    const r = gate(desired([q(YES1, 'BUY', 4850, 10)]), view({ tick: 10 }));
    expect(r.refusals).toEqual([]);
  });
  it('does not count our own orders (being replaced) as the book to cross', () => {
    // the best ask 0.51 is our own order; the market's ask is 0.53
    const b = bookView(
      YES1,
      [[4900, 50 * SH]],
      [
        [5100, 10 * SH],
        [5300, 50 * SH],
      ],
    );
    const mine = order(M1, YES1, 'SELL', 5100, 10 * SH);
    const v = view({ books: [b], orders: [mine], positions: { [YES1]: 10 * SH } });
    expect(gate(desired([q(YES1, 'BUY', 5100, 10)]), v).refusals).toEqual([]);
    expect(codes(gate(desired([q(YES1, 'BUY', 5300, 10)]), v))).toEqual(['WOULD_CROSS']);
    // our NO bid at 0.49 is a YES ask at 0.51 too
    const noBid = order(M1, NO1, 'BUY', 4900, 10 * SH);
    expect(gate(desired([q(YES1, 'BUY', 5100, 10)]), view({ books: [b], orders: [noBid] })).refusals).toEqual([]);
  });
  it('refuses quotes that cross another approved quote, also across the complement', () => {
    const r = gate(
      desired([q(YES1, 'BUY', 5000, 10), q(NO1, 'BUY', 5000, 10), q(NO1, 'BUY', 4900, 10)]),
      view({ books: [bookView(YES1, [[4900, SH]], [[5200, SH]])] }),
    );
    expect(codes(r)).toEqual(['SELF_CROSS']);
    expect(r.refusals[0]!.quote.price).toBe(5000);
    expect(r.approved.quotes).toHaveLength(2);
  });
});

describe('gate: trimming', () => {
  it('cuts to the lot and to maxOrderSize, reporting the trim', () => {
    const r = gate(desired([q(YES1, 'BUY', 4800, 10.005), q(YES1, 'BUY', 4700, 150)]), view());
    expect(r.approved.quotes.map((x) => x.size)).toEqual([10 * SH, 100 * SH]);
    expect(r.trims.map((t) => [t.code, t.size])).toEqual([
      ['LOT', 10 * SH],
      ['ORDER_SIZE', 100 * SH],
    ]);
    expect(codes(gate(desired([q(YES1, 'BUY', 4800, 10)]), view({ limits: { maxOrderSizeShares: 3 } })))).toEqual([
      'ORDER_SIZE',
    ]);
  });
  it('cuts buys to the position room per token, then refuses', () => {
    const v = view({ positions: { [YES1]: 40 * SH }, limits: { maxPositionShares: 50 } });
    const r = gate(desired([q(YES1, 'BUY', 4800, 8), q(YES1, 'BUY', 4700, 20), q(NO1, 'BUY', 4700, 20)]), v);
    expect(r.approved.quotes.map((x) => [x.tokenId, x.size])).toEqual([
      [YES1, 8 * SH],
      [NO1, 20 * SH],
    ]);
    expect(codes(r)).toEqual(['POSITION']); // 2 shares of room left: below the minimum
    const cut = gate(desired([q(YES1, 'BUY', 4800, 30)]), v);
    expect(cut.trims).toMatchObject([{ code: 'POSITION', size: 10 * SH }]);
  });
  it('cuts sells to the shares held (no shorting)', () => {
    const r = gate(
      desired([q(YES1, 'SELL', 5200, 20), q(YES1, 'SELL', 5300, 5), q(NO1, 'SELL', 5200, 5)]),
      view({ positions: { [YES1]: 12 * SH } }),
    );
    expect(r.approved.quotes.map((x) => x.size)).toEqual([12 * SH]);
    expect(r.trims).toMatchObject([{ code: 'NO_INVENTORY', size: 12 * SH }]);
    expect(codes(r)).toEqual(['NO_INVENTORY', 'NO_INVENTORY']);
  });
  it('cuts buys to the collateral available plus what this market already reserves', () => {
    const r = gate(desired([q(YES1, 'BUY', 4900 - 100, 20)]), view({ collateral: 5 * SH }));
    expect(r.trims).toMatchObject([{ code: 'COLLATERAL', size: 10.41 * SH }]); // 5 / 0.48
    expect(notional(r.approved.quotes[0]!.size, 4800, 'up')).toBeLessThanOrEqual(5 * SH);
    // a live buy of 10 at 0.48 in this market reserves 4.8 more (it is being replaced)
    const live = order(M1, YES1, 'BUY', 4800, 10 * SH);
    const r2 = gate(desired([q(YES1, 'BUY', 4800, 20)]), view({ collateral: 5.2 * SH, orders: [live] }));
    expect(r2.trims).toEqual([]);
    // another market's live buy does not free anything
    const other = order(M2, YES2, 'BUY', 4800, 10 * SH);
    expect(
      gate(desired([q(YES1, 'BUY', 4800, 20)]), view({ collateral: 5.2 * SH, orders: [other] })).trims,
    ).toMatchObject([{ code: 'COLLATERAL' }]);
  });
  it('cuts to the market notional', () => {
    const v = view({ limits: { maxNotionalPerMarket: 10 }, positions: { [YES1]: 100 * SH } });
    const r = gate(desired([q(YES1, 'BUY', 4800, 10), q(YES1, 'SELL', 5200, 20), q(YES1, 'BUY', 4700, 10)]), v);
    // 4.80 used; 5.20 left at 0.52: 10 shares
    expect(r.approved.quotes.map((x) => x.size)).toEqual([10 * SH, 10 * SH]);
    expect(r.trims).toMatchObject([{ code: 'NOTIONAL_MARKET' }]);
    expect(codes(r)).toEqual(['NOTIONAL_MARKET']);
  });
  it('cuts to the global notional, counting the other markets live orders', () => {
    const others = [order(M2, YES2, 'BUY', 5000, 30 * SH), order(M2, YES2, 'BUY', 4000, 20 * SH, 10 * SH)]; // 15 + 4
    const v = view({ limits: { maxNotionalGlobal: 24 }, orders: others });
    const r = gate(desired([q(YES1, 'BUY', 4800, 20)]), v);
    expect(r.trims).toMatchObject([{ code: 'NOTIONAL_GLOBAL', size: 10.41 * SH }]); // 5 left at 0.48
  });
  it('caps open orders per market and globally', () => {
    const qs = [q(YES1, 'BUY', 4800, 5), q(YES1, 'BUY', 4700, 5), q(YES1, 'BUY', 4600, 5)];
    const r = gate(desired(qs), view({ limits: { maxOpenOrdersPerMarket: 2 } }));
    expect(codes(r)).toEqual(['OPEN_ORDERS_MARKET']);
    expect(r.approved.quotes).toHaveLength(2);
    // this market's live orders are being replaced and do not count; the other market's do
    const live = [
      order(M1, YES1, 'BUY', 4800, 5 * SH),
      order(M2, YES2, 'BUY', 4800, 5 * SH),
      order(M2, YES2, 'BUY', 4700, 5 * SH, 5 * SH),
    ];
    const g = gate(desired(qs), view({ limits: { maxOpenOrdersGlobal: 3 }, orders: live }));
    expect(codes(g)).toEqual(['OPEN_ORDERS_GLOBAL']);
    expect(g.approved.quotes).toHaveLength(2);
  });
  it('a refused quote does not use up any limit', () => {
    const r = gate(
      desired([q(YES1, 'BUY', 3000, 10), q(YES1, 'BUY', 4800, 10)]),
      view({ limits: { maxOpenOrdersPerMarket: 1 } }),
    );
    expect(codes(r)).toEqual(['PRICE_BAND']);
    expect(r.approved.quotes).toHaveLength(1);
  });
});

describe('gateOrder (FOK/FAK)', () => {
  const o = (over: Partial<ImmediateIntent> = {}): ImmediateIntent => ({
    market: M1,
    tokenId: YES1,
    side: 'BUY',
    price: 5100 as Pips,
    size: (10 * SH) as Micro,
    type: 'FAK',
    ...over,
  });
  it('approves a sane order whole', () => {
    expect(gateOrder(o(), view())).toEqual({ approved: o(), refusal: null });
  });
  it('approves a BUY at 4 decimals at the size its whole-cent amount buys: the size asked, or a little more (trial 12 F1)', () => {
    const fine = [marketInfo(M1, YES1, NO1, { tick: '0.0001' })];
    const books = [yesBook(5600, 5675)];
    // 5 @ 0.5675 = 2.8375 -> signed 2.84 -> 5 shares: whole (it was signed 2.83 -> 4.98, under the minimum)
    expect(gateOrder(o({ price: 5675 as Pips, size: (5 * SH) as Micro }), view({ markets: fine, books }))).toEqual({
      approved: o({ price: 5675 as Pips, size: (5 * SH) as Micro }),
      refusal: null,
    });
    // 5 @ 0.5001 -> 2.51 -> 5.01 shares: approved at what the exchange will read, counted as such
    const r = gateOrder(
      o({ price: 5001 as Pips, size: (5 * SH) as Micro }),
      view({ markets: fine, books: [yesBook(4990, 5001)] }),
    );
    expect(r.approved?.size).toBe(5.01 * SH);
    // and the position limit counts the 5.01 (250 max: 245 held + 5.01 is over, + 5 was not)
    const atLimit = gateOrder(
      o({ price: 5001 as Pips, size: (5 * SH) as Micro }),
      view({ markets: fine, books: [yesBook(4990, 5001)], positions: { [YES1]: 245 * SH } }),
    );
    expect(atLimit.refusal).toMatchObject({ code: 'POSITION' });
    expect(atLimit.refusal?.reason).toContain('5.01 as signed');
    // a SELL is signed in shares: whole
    expect(
      gateOrder(
        o({ side: 'SELL', price: 5001 as Pips, size: (5 * SH) as Micro }),
        view({ markets: fine, books: [yesBook(5001, 5010)], positions: { [YES1]: 50 * SH } }),
      ).approved?.size,
    ).toBe(5 * SH);
  });
  it.each([
    [
      'tripped',
      () => {
        const ks = new KillSwitch(new VirtualClock());
        ks.trip('signal');
        return [o(), view({ killSwitch: ks })] as const;
      },
      'KILL_SWITCH',
    ],
    ['stale', () => [o(), view({ books: [yesBook(4900, 5100, true)] })] as const, 'STALE_BOOK'],
    ['off tick', () => [o({ price: 5150 as Pips }), view()] as const, 'OFF_TICK'],
    ['far from the mid', () => [o({ price: 6200 as Pips }), view()] as const, 'PRICE_BAND'],
    ['too big', () => [o({ size: (101 * SH) as Micro }), view()] as const, 'ORDER_SIZE'],
    ['not a lot', () => [o({ size: 10_000_001 as Micro }), view()] as const, 'INVALID_SIZE'],
    ['position', () => [o(), view({ positions: { [YES1]: 245 * SH } })] as const, 'POSITION'],
    ['collateral', () => [o(), view({ collateral: 5 * SH })] as const, 'COLLATERAL'],
    ['no inventory', () => [o({ side: 'SELL', price: 4900 as Pips }), view()] as const, 'NO_INVENTORY'],
    ['wrong token', () => [o({ tokenId: YES2 }), view()] as const, 'WRONG_TOKEN'],
    ['under the minimum size', () => [o({ size: (4 * SH) as Micro }), view()] as const, 'MIN_SIZE'],
    [
      'a SELL under the minimum size',
      () =>
        [
          o({ side: 'SELL', price: 4900 as Pips, size: (4 * SH) as Micro }),
          view({ positions: { [YES1]: 50 * SH } }),
        ] as const,
      'MIN_SIZE',
    ],
  ])('refuses: %s', (_, make, code) => {
    const [ord, v] = make();
    const r = gateOrder(ord, v);
    expect(r.approved).toBeNull();
    expect(r.refusal?.code).toBe(code);
  });
});

describe('gateOrders: the room an output leaves its immediate orders (trial 10 F5)', () => {
  const sell = (shares: number, price = 4900): ImmediateIntent => ({
    market: M1,
    tokenId: YES1,
    side: 'SELL',
    price: price as Pips,
    size: (shares * SH) as Micro,
    type: 'FAK',
  });
  const buy = (shares: number, price = 5100): ImmediateIntent => ({ ...sell(shares, price), side: 'BUY' });
  const held = { [YES1]: 10 * SH };
  // a market of a 1-share minimum: these orders are small on purpose
  const smallMin = [marketInfo(M1, YES1, NO1, { minOrderSize: SH as Micro }), marketInfo(M2, YES2, NO2)];
  it('refuses a SELL of shares our resting ask holds, saying so (the venue would refuse it)', () => {
    const v = view({ markets: smallMin, positions: held, orders: [order(M1, YES1, 'SELL', 5300, 6 * SH)] });
    const r = gateOrder(sell(6), v);
    expect(r.refusal?.code).toBe('NO_INVENTORY');
    expect(r.refusal?.reason).toBe(
      'sells 6 with 10 shares held, 6 held by your resting sells (pull or shrink them first)',
    );
    // what the ask leaves free goes; a partly filled ask holds only its remaining size
    expect(gateOrder(sell(4), v).refusal).toBeNull();
    const partly = view({
      markets: smallMin,
      positions: held,
      orders: [order(M1, YES1, 'SELL', 5300, 6 * SH, 4 * SH)],
    });
    expect(gateOrder(sell(8), partly).refusal).toBeNull();
    // another token's sells hold nothing of this one
    expect(
      gateOrder(sell(10), view({ markets: smallMin, positions: held, orders: [order(M1, NO1, 'SELL', 5300, 6 * SH)] }))
        .refusal,
    ).toBeNull();
  });
  it("counts the same output's quote set instead of the market's live orders (it replaces them first)", () => {
    const v = view({ markets: smallMin, positions: held, orders: [order(M1, YES1, 'SELL', 5300, 6 * SH)] });
    // the asks pulled in the same output: all 10 are free
    expect(gateOrders([sell(10)], v, [desired([])])[0]!.refusal).toBeNull();
    // the asks shrunk to 3: 7 free
    const shrunk = [desired([q(YES1, 'SELL', 5300, 3)])];
    expect(gateOrders([sell(7)], v, shrunk)[0]!.refusal).toBeNull();
    expect(gateOrders([sell(8)], v, shrunk)[0]!.refusal?.code).toBe('NO_INVENTORY');
    // another market's set changes nothing here
    expect(gateOrders([sell(10)], v, [desired([], M2)])[0]!.refusal?.code).toBe('NO_INVENTORY');
  });
  it('spends shares and collateral order by order within one output', () => {
    const v = view({ markets: smallMin, positions: held });
    expect(gateOrders([sell(6), sell(4), sell(1)], v).map((r) => r.refusal?.code ?? 'ok')).toEqual([
      'ok',
      'ok',
      'NO_INVENTORY',
    ]);
    expect(gateOrders([sell(6), sell(5)], v)[1]!.refusal?.reason).toBe(
      'sells 5 with 10 shares held, 6 sold by the orders before it',
    );
    // 10 shares at 0.51 cost 5.10 USDC: the second finds 4.90 left
    const poor = view({ markets: smallMin, collateral: 10 * SH });
    expect(gateOrders([buy(10), buy(10)], poor).map((r) => r.refusal?.code ?? 'ok')).toEqual(['ok', 'COLLATERAL']);
    expect(gateOrders([buy(10), buy(10)], poor)[1]!.refusal?.reason).toBe(
      'needs more than the 4.9 USDC collateral available',
    );
    // the position limit counts the buys before it (maxPosition 250 by default)
    const near = view({ markets: smallMin, positions: { [YES1]: 240 * SH } });
    expect(gateOrders([buy(6), buy(6)], near).map((r) => r.refusal?.code ?? 'ok')).toEqual(['ok', 'POSITION']);
  });
  it("frees the collateral of a replaced market's live buys and takes its set's", () => {
    // 5 USDC free, a live bid of 10 at 0.48 holds 4.80 more
    const v = view({ markets: smallMin, collateral: 5 * SH, orders: [order(M1, YES1, 'BUY', 4800, 10 * SH)] });
    expect(gateOrder(buy(10), v).refusal?.code).toBe('COLLATERAL');
    expect(gateOrders([buy(10)], v, [desired([])])[0]!.refusal).toBeNull();
    // kept (the set asks for it again): 5 free, 5.10 needed
    expect(gateOrders([buy(10)], v, [desired([q(YES1, 'BUY', 4800, 10)])])[0]!.refusal?.code).toBe('COLLATERAL');
    expect(gateOrders([buy(10)], v, [desired([q(YES1, 'BUY', 4800, 5)])])[0]!.refusal).toBeNull();
  });
});

describe('gate: reasons in decimals (shares, USDC, prices), never micro-units or pips', () => {
  it('says a refused immediate order and a trimmed quote in decimals', () => {
    expect(gateOrder({ ...fokOf(), size: (500 * SH) as Micro }, view()).refusal?.reason).toBe(
      'size 500 above maxOrderSize 100',
    );
    expect(gateOrder({ ...fokOf(), price: 6200 as Pips }, view()).refusal?.reason).toMatch(
      /^worst price 0\.62 is too far from the mid 0\.5 \(band 0\.\d+\)$/,
    );
    expect(gateOrder(fokOf(), view({ collateral: 5 * SH })).refusal?.reason).toBe(
      'needs more than the 5 USDC collateral available',
    );
    const r = gate(desired([q(YES1, 'BUY', 4700, 150)]), view());
    expect(r.trims[0]!.reason).toBe('cut to maxOrderSize 100');
    const far = gate(desired([q(YES1, 'BUY', 3000, 10)]), view());
    expect(far.refusals[0]!.reason).toMatch(/^price 0\.3 is 0\.2 from the mid 0\.5 \(band 0\.\d+\)$/);
  });
});

function fokOf(): ImmediateIntent {
  return { market: M1, tokenId: YES1, side: 'BUY', price: 5100 as Pips, size: (10 * SH) as Micro, type: 'FOK' };
}

// ---- property: whatever comes in, what goes out respects every limit -----------------------------

describe('gate: properties', () => {
  const quoteArb = fc.record({
    token: fc.constantFrom(YES1, NO1),
    side: fc.constantFrom<Side>('BUY', 'SELL'),
    price: fc.oneof(
      fc.integer({ min: 1, max: 99 }).map((t) => t * 100),
      fc.integer({ min: -10, max: 10_010 }),
    ),
    size: fc.oneof(
      fc.integer({ min: 1, max: 200 }).map((s) => s * SH),
      fc.integer({ min: -5, max: 300 * SH }),
    ),
  });
  it('approved quotes are valid, inside every limit, never crossing the book or each other', () => {
    fc.assert(
      fc.property(
        fc.array(quoteArb, { maxLength: 25 }),
        fc.integer({ min: 2, max: 97 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: 0, max: 300 }),
        fc.array(
          fc.record({
            m2: fc.boolean(),
            price: fc.integer({ min: 1, max: 99 }),
            size: fc.integer({ min: 5, max: 50 }),
          }),
          { maxLength: 6 },
        ),
        fc.record({
          maxPositionShares: fc.constantFrom(20, 100),
          maxNotionalPerMarket: fc.constantFrom(15, 100),
          maxNotionalGlobal: fc.constantFrom(30, 1000),
          maxOpenOrdersPerMarket: fc.constantFrom(2, 20),
          maxOpenOrdersGlobal: fc.constantFrom(4, 200),
          maxOrderSizeShares: fc.constantFrom(10, 100),
          maxMidDistance: fc.constantFrom(0.03, 0.2),
        }),
        (raw, bidTicks, spreadTicks, yesHeld, noHeld, collateral, liveRaw, limits) => {
          const bid = bidTicks * 100;
          const ask = Math.min(9900, bid + spreadTicks * 100);
          // this market's live bids rest below the best bid (the top levels are someone else's)
          const live = liveRaw
            .filter((l) => l.m2 || l.price * 100 < bid)
            .map((l) =>
              l.m2
                ? order(M2, YES2, 'BUY', l.price * 100, l.size * SH)
                : order(M1, YES1, 'BUY', l.price * 100, l.size * SH),
            );
          const v = view({
            books: [bookView(YES1, [[bid, 100 * SH]], [[ask, 100 * SH]])],
            positions: { [YES1]: yesHeld * SH, [NO1]: noHeld * SH },
            collateral: collateral * SH,
            orders: live,
            limits,
          });
          const qs = raw.map((r) => ({
            tokenId: r.token,
            side: r.side,
            price: r.price as Pips,
            size: r.size as Micro,
          }));
          const res = gate(desired(qs), v);
          const L = v.limits.defaults;
          expect(res.approved.quotes.length + res.refusals.length).toBe(qs.length);
          const buys = new Map<TokenId, number>();
          const sells = new Map<TokenId, number>();
          let notionalHere = 0;
          let buyCost = 0;
          let maxYesBid = -1;
          let minYesAsk = 1e9;
          for (const a of res.approved.quotes) {
            expect(isValidPrice(a.price, 100)).toBe(true);
            expect(a.size % LOT_MICRO).toBe(0);
            expect(a.size).toBeGreaterThanOrEqual(5 * SH);
            expect(a.size).toBeLessThanOrEqual(L.maxOrderSize);
            const mid = a.tokenId === YES1 ? (bid + ask) / 2 : 10_000 - (bid + ask) / 2;
            expect(Math.abs(a.price - mid)).toBeLessThanOrEqual(L.maxMidDistance);
            const yesBid = (a.tokenId === YES1) === (a.side === 'BUY');
            const yp = a.tokenId === YES1 ? a.price : 10_000 - a.price;
            if (yesBid) {
              expect(yp).toBeLessThan(ask);
              maxYesBid = Math.max(maxYesBid, yp);
            } else {
              expect(yp).toBeGreaterThan(bid);
              minYesAsk = Math.min(minYesAsk, yp);
            }
            const n = notional(a.size, a.price, 'up');
            notionalHere += n;
            if (a.side === 'BUY') {
              buys.set(a.tokenId, (buys.get(a.tokenId) ?? 0) + a.size);
              buyCost += n;
            } else sells.set(a.tokenId, (sells.get(a.tokenId) ?? 0) + a.size);
          }
          expect(maxYesBid).toBeLessThan(minYesAsk);
          expect((buys.get(YES1) ?? 0) + yesHeld * SH).toBeLessThanOrEqual(Math.max(L.maxPosition, yesHeld * SH));
          expect((buys.get(NO1) ?? 0) + noHeld * SH).toBeLessThanOrEqual(Math.max(L.maxPosition, noHeld * SH));
          if ((buys.get(YES1) ?? 0) > 0)
            expect((buys.get(YES1) ?? 0) + yesHeld * SH).toBeLessThanOrEqual(L.maxPosition);
          expect(sells.get(YES1) ?? 0).toBeLessThanOrEqual(yesHeld * SH);
          expect(sells.get(NO1) ?? 0).toBeLessThanOrEqual(noHeld * SH);
          const reservedHere = live
            .filter((o) => o.market === M1)
            .reduce((s, o) => s + notional(o.originalSize, o.price, 'up'), 0);
          expect(buyCost).toBeLessThanOrEqual(collateral * SH + reservedHere);
          expect(notionalHere).toBeLessThanOrEqual(L.maxNotional);
          const otherLive = live.filter((o) => o.market !== M1);
          expect(
            notionalHere + otherLive.reduce((s, o) => s + notional(o.originalSize, o.price, 'up'), 0),
          ).toBeLessThanOrEqual(
            Math.max(
              v.limits.global.maxNotional,
              otherLive.reduce((s, o) => s + notional(o.originalSize, o.price, 'up'), 0),
            ),
          );
          expect(res.approved.quotes.length).toBeLessThanOrEqual(L.maxOpenOrders);
          expect(res.approved.quotes.length + otherLive.length).toBeLessThanOrEqual(
            Math.max(v.limits.global.maxOpenOrders, otherLive.length),
          );
        },
      ),
      { numRuns: 1500 },
    );
  });
});

describe('gate: self-trade prevention (foreign orders resting on our own wallet)', () => {
  // the book mirror (bid 49, ask 51) does not show the foreign order yet: only SELF_TRADE can catch it
  const pos = { positions: { [YES1]: 100 * SH, [NO1]: 100 * SH } };
  const refusedCode = (quote: QuoteIntent, foreign: LiveOrderView[]) =>
    codes(gate(desired([quote]), view({ ...pos, foreign })))[0] ?? 'ok';

  it('refuses a quote that would cross or touch a foreign order on the same token', () => {
    const sell = order(M1, YES1, 'SELL', 5000, 10);
    expect(refusedCode(q(YES1, 'BUY', 5000, 10), [sell])).toBe('SELF_TRADE');
    expect(refusedCode(q(YES1, 'BUY', 4900, 10), [sell])).toBe('ok');
    const buy = order(M1, YES1, 'BUY', 5000, 10);
    expect(refusedCode(q(YES1, 'SELL', 5000, 10), [buy])).toBe('SELF_TRADE');
    expect(refusedCode(q(YES1, 'SELL', 5100, 10), [buy])).toBe('ok');
    // the same side never trades with it
    expect(refusedCode(q(YES1, 'BUY', 5000, 10), [buy])).toBe('ok');
  });

  it('refuses across the YES/NO complement (a mint of two buys, a merge of two sells)', () => {
    // BUY YES at p and BUY NO at q match when p + q >= 1
    expect(refusedCode(q(YES1, 'BUY', 5000, 10), [order(M1, NO1, 'BUY', 5000, 10)])).toBe('SELF_TRADE');
    expect(refusedCode(q(YES1, 'BUY', 5000, 10), [order(M1, NO1, 'BUY', 4900, 10)])).toBe('ok');
    // SELL YES at p and SELL NO at q match when p + q <= 1
    expect(refusedCode(q(YES1, 'SELL', 5100, 10), [order(M1, NO1, 'SELL', 4900, 10)])).toBe('SELF_TRADE');
    expect(refusedCode(q(YES1, 'SELL', 5100, 10), [order(M1, NO1, 'SELL', 5000, 10)])).toBe('ok');
  });

  it("ignores another market's foreign orders and fully matched ones; only the offending quote is refused", () => {
    expect(refusedCode(q(YES1, 'BUY', 5000, 10), [order(M2, YES2, 'SELL', 100, 10)])).toBe('ok');
    expect(refusedCode(q(YES1, 'BUY', 5000, 10), [order(M1, YES1, 'SELL', 5000, 10, 10)])).toBe('ok');
    const r = gate(
      desired([q(YES1, 'BUY', 5000, 10), q(YES1, 'BUY', 4800, 10)]),
      view({ ...pos, foreign: [order(M1, YES1, 'SELL', 4900, 10)] }),
    );
    expect(codes(r)).toEqual(['SELF_TRADE']);
    expect(r.approved.quotes.map((x) => x.price)).toEqual([4800]);
    expect(r.refusals[0]!.reason).toMatch(/our own wallet/);
  });

  it('a view without foreign orders refuses nothing for it', () => {
    expect(codes(gate(desired([q(YES1, 'BUY', 5000, 10)]), view(pos)))).toEqual([]);
  });

  it('refuses an immediate order whose worst price reaches a foreign order', () => {
    const fok = (side: Side, price: number): ImmediateIntent => ({
      market: M1,
      tokenId: YES1,
      side,
      price: price as Pips,
      size: (10 * SH) as Micro,
      type: 'FOK',
    });
    const v = view({ ...pos, foreign: [order(M1, YES1, 'SELL', 5100, 10)] });
    expect(gateOrder(fok('BUY', 5100), v).refusal?.code).toBe('SELF_TRADE');
    expect(gateOrder(fok('BUY', 5000), v).refusal).toBeNull();
    expect(gateOrder(fok('SELL', 4900), v).refusal).toBeNull();
  });

  it('property: refused exactly when the two orders, seen as YES bids and asks, meet', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(YES1, NO1),
        fc.constantFrom<Side>('BUY', 'SELL'),
        fc.integer({ min: 45, max: 55 }),
        fc.constantFrom(YES1, NO1),
        fc.constantFrom<Side>('BUY', 'SELL'),
        fc.integer({ min: 40, max: 60 }),
        (qt, qs, qp, ft, fs, fp) => {
          const quote = q(qt, qs, qp * 100, 10);
          const f = order(M1, ft, fs, fp * 100, 10);
          // as YES: a BUY YES or a SELL NO is a YES bid, at its YES-equivalent price
          const yesSide = (t: TokenId, s: Side) => ((t === YES1) === (s === 'BUY') ? 'bid' : 'ask');
          const yesPrice = (t: TokenId, p: number) => (t === YES1 ? p : 10_000 - p);
          const a = { side: yesSide(qt, qs), price: yesPrice(qt, qp * 100) };
          const b = { side: yesSide(ft, fs), price: yesPrice(ft, fp * 100) };
          const meet = a.side !== b.side && (a.side === 'bid' ? a.price >= b.price : a.price <= b.price);
          // keep to quotes the rest of the gate approves (inside the book: bid 49, ask 51)
          const inside = a.side === 'bid' ? a.price < 5100 : a.price > 4900;
          fc.pre(inside);
          expect(refusedCode(quote, [f]) === 'SELF_TRADE').toBe(meet);
        },
      ),
      { numRuns: 500 },
    );
  });
});
