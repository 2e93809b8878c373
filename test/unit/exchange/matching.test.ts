import { describe, expect, it } from 'vitest';
import { DEFAULT_FEE_ACCOUNT, MatchingEngine, REJECT_MESSAGES } from '../../../src/exchange/matching/engine.ts';
import type { EngineEvent, MarketDef, NewOrder, OrderState } from '../../../src/exchange/matching/types.ts';

const SH = 1_000_000; // one share, in micro
const USD = 1_000_000; // one unit of collateral, in micro
/** Collateral amount in micro (exact: decimal literals like 4.2 are rounded to the micro). */
const u = (x: number): number => Math.round(x * USD);

const M1: MarketDef = {
  conditionId: 'c1',
  yesToken: 'Y',
  noToken: 'N',
  tickPips: 100,
  minSizeMicro: 5 * SH,
  negRisk: false,
  feeRateBps: 0,
};
const M2: MarketDef = {
  conditionId: 'c2',
  yesToken: 'Y2',
  noToken: 'N2',
  tickPips: 10,
  minSizeMicro: 1 * SH,
  negRisk: true,
  feeRateBps: 0,
};

let idSeq = 0;
function ord(p: Partial<NewOrder> = {}): NewOrder {
  return {
    id: `o${++idSeq}`,
    account: 'alice',
    owner: 'key-alice',
    tokenId: 'Y',
    side: 'BUY',
    price: 5000,
    size: 10 * SH,
    type: 'GTC',
    postOnly: false,
    expiresAt: 0,
    feeRateBps: 0,
    ...p,
  };
}

/** An engine with markets c1 (tick 100) and c2 (tick 10), alice/bob/carol funded with 1000 collateral. */
function setup(opts: ConstructorParameters<typeof MatchingEngine>[0] = {}): MatchingEngine {
  const e = new MatchingEngine(opts);
  e.addMarket(M1);
  e.addMarket(M2);
  for (const a of ['alice', 'bob', 'carol']) e.credit(a, u(1000));
  e.drainEvents();
  return e;
}

function placeOk(e: MatchingEngine, o: NewOrder, now = 1000) {
  const r = e.place(o, now);
  if (!r.ok) throw new Error(`rejected ${r.code}`);
  return r;
}

function coll(e: MatchingEngine, a: string): { avail: number; res: number } {
  const b = e.balance(a);
  return { avail: b.collateral, res: b.collateralReserved };
}
function tok(e: MatchingEngine, a: string, t: string): { avail: number; res: number } {
  const b = e.balance(a).tokens.get(t);
  return { avail: b?.available ?? 0, res: b?.reserved ?? 0 };
}

/** Full observable state, for "changes nothing" checks. */
function stateOf(e: MatchingEngine): unknown {
  const accounts = ['alice', 'bob', 'carol', DEFAULT_FEE_ACCOUNT];
  return {
    balances: accounts.map((a) => {
      const b = e.balance(a);
      return [b.collateral, b.collateralReserved, [...b.tokens.entries()]];
    }),
    orders: accounts.map((a) => e.ordersOf(a)),
    books: ['Y', 'N', 'Y2', 'N2'].map((t) => e.book(t)),
    totals: e.totals(),
  };
}

describe('markets and funding', () => {
  it('registers markets and refuses duplicate conditions and tokens', () => {
    const e = new MatchingEngine();
    e.addMarket(M1);
    expect(() => e.addMarket(M1)).toThrow(/duplicate market/);
    expect(() => e.addMarket({ ...M1, conditionId: 'other' })).toThrow(/duplicate token/);
    expect(() => e.addMarket({ ...M1, conditionId: 'other', yesToken: 'Y9', noToken: 'N' })).toThrow(/duplicate token/);
    expect(() => e.addMarket({ ...M1, conditionId: 'x', yesToken: 'a', noToken: 'b', tickPips: 50 })).toThrow(/tick/);
    expect(e.getMarket('c1')).toEqual({ ...M1, status: 'active' });
    expect(e.marketOfToken('N')?.conditionId).toBe('c1');
    expect(e.getMarket('nope')).toBeUndefined();
    expect(e.marketOfToken('nope')).toBeUndefined();
  });

  it('credits, sets and copies balances; never lets available collateral go negative', () => {
    const e = setup();
    e.credit('dave', u(5));
    e.credit('dave', -u(2));
    expect(coll(e, 'dave')).toEqual({ avail: u(3), res: 0 });
    expect(() => e.credit('dave', -u(4))).toThrow();
    expect(coll(e, 'dave').avail).toBe(u(3));
    expect(() => e.credit('dave', 0.5)).toThrow();
    e.setCollateral('dave', 7);
    expect(coll(e, 'dave').avail).toBe(7);
    expect(() => e.setCollateral('dave', -1)).toThrow();
    e.setTokens('dave', 'Y', 3 * SH);
    expect(tok(e, 'dave', 'Y')).toEqual({ avail: 3 * SH, res: 0 });
    expect(() => e.setTokens('dave', 'nope', 1)).toThrow(/unknown token/);
    const copy = e.balance('dave');
    copy.collateral = 999;
    copy.tokens.get('Y')!.available = 0;
    expect(coll(e, 'dave').avail).toBe(7);
    expect(tok(e, 'dave', 'Y').avail).toBe(3 * SH);
    expect(e.balance('nobody')).toEqual({ collateral: 0, collateralReserved: 0, tokens: new Map() });
  });
});

describe('resting orders and reservations', () => {
  it('a BUY reserves its notional, a SELL its tokens; cancelling releases them', () => {
    const e = setup();
    e.setTokens('bob', 'Y', 20 * SH);
    const b = placeOk(e, ord({ price: 4200, size: 10 * SH }));
    expect(b.status).toBe('live');
    expect(b.order).toMatchObject({ status: 'LIVE', sizeMatched: 0, reserved: u(4.2), outcome: 'Yes', market: 'c1' });
    expect(coll(e, 'alice')).toEqual({ avail: u(995.8), res: u(4.2) });
    const s = placeOk(e, ord({ account: 'bob', side: 'SELL', price: 6000, size: 15 * SH }));
    expect(tok(e, 'bob', 'Y')).toEqual({ avail: 5 * SH, res: 15 * SH });
    expect(s.makingAmount).toBe(0);
    expect(e.bestBidAsk('Y')).toEqual({ bid: 4200, ask: 6000 });

    const c1 = e.cancel('alice', b.order.id, 2000);
    expect(c1.ok && c1.order.status).toBe('CANCELED');
    expect(coll(e, 'alice')).toEqual({ avail: u(1000), res: 0 });
    const c2 = e.cancel('bob', s.order.id, 2000);
    expect(c2.ok).toBe(true);
    expect(tok(e, 'bob', 'Y')).toEqual({ avail: 20 * SH, res: 0 });
    expect(e.bestBidAsk('Y')).toEqual({ bid: null, ask: null });
  });

  it('a BUY with a fee rate also reserves the fee cap, and rests with exactly its notional', () => {
    const e = setup();
    const r = placeOk(e, ord({ price: 4200, size: 10 * SH, feeRateBps: 100 }));
    // the order rests untouched: the fee cap is given back at once
    expect(r.order.reserved).toBe(u(4.2));
    expect(coll(e, 'alice')).toEqual({ avail: u(995.8), res: u(4.2) });
  });

  it('keeps the book in YES terms: a NO order is the complementary YES order', () => {
    const e = setup();
    e.setTokens('bob', 'N', 50 * SH);
    placeOk(e, ord({ tokenId: 'N', side: 'BUY', price: 3000, size: 10 * SH })); // YES ask at 7000
    placeOk(e, ord({ account: 'bob', tokenId: 'N', side: 'SELL', price: 6000, size: 5 * SH })); // YES bid at 4000
    placeOk(e, ord({ tokenId: 'Y', side: 'BUY', price: 4000, size: 7 * SH })); // YES bid at 4000
    expect(e.book('Y')).toEqual({
      market: 'c1',
      tokenId: 'Y',
      bids: [{ price: 4000, size: 12 * SH }],
      asks: [{ price: 7000, size: 10 * SH }],
    });
    // the NO book mirrors it: NO bid at q = YES ask at 10000 - q
    expect(e.book('N')).toEqual({
      market: 'c1',
      tokenId: 'N',
      bids: [{ price: 3000, size: 10 * SH }],
      asks: [{ price: 6000, size: 12 * SH }],
    });
    expect(e.bestBidAsk('N')).toEqual({ bid: 3000, ask: 6000 });
    expect(() => e.book('zzz')).toThrow();
  });

  it('lists levels best first', () => {
    const e = setup();
    for (const p of [4000, 4500, 3000]) placeOk(e, ord({ price: p }));
    e.setTokens('bob', 'Y', 100 * SH);
    for (const p of [7000, 6000, 9900]) placeOk(e, ord({ account: 'bob', side: 'SELL', price: p }));
    const b = e.book('Y');
    expect(b.bids.map((l) => l.price)).toEqual([4500, 4000, 3000]);
    expect(b.asks.map((l) => l.price)).toEqual([6000, 7000, 9900]);
  });
});

describe('matching', () => {
  it('BUY YES x SELL YES: the token moves, at the resting price; the price improvement is released', () => {
    const e = setup();
    e.setTokens('bob', 'Y', 10 * SH);
    const maker = placeOk(e, ord({ account: 'bob', owner: 'key-bob', side: 'SELL', price: 5500 }));
    const r = placeOk(e, ord({ side: 'BUY', price: 6000, size: 10 * SH }));
    expect(r.status).toBe('matched');
    expect(r.order.status).toBe('MATCHED');
    expect(r.order.sizeMatched).toBe(10 * SH);
    expect(r.order.reserved).toBe(0);
    expect(r.makingAmount).toBe(u(5.5));
    expect(r.takingAmount).toBe(10 * SH);
    expect(r.trade).toMatchObject({
      price: 5500,
      size: 10 * SH,
      side: 'BUY',
      tokenId: 'Y',
      outcome: 'Yes',
      takerOrderId: r.order.id,
      fee: 0,
    });
    expect(r.trade!.makers).toEqual([
      {
        orderId: maker.order.id,
        account: 'bob',
        owner: 'key-bob',
        tokenId: 'Y',
        outcome: 'Yes',
        side: 'SELL',
        price: 5500,
        size: 10 * SH,
      },
    ]);
    expect(coll(e, 'alice')).toEqual({ avail: u(994.5), res: 0 });
    expect(tok(e, 'alice', 'Y')).toEqual({ avail: 10 * SH, res: 0 });
    expect(coll(e, 'bob')).toEqual({ avail: u(1005.5), res: 0 });
    expect(tok(e, 'bob', 'Y')).toEqual({ avail: 0, res: 0 });
    const m = e.getOrder(maker.order.id)!;
    expect(m).toMatchObject({ status: 'MATCHED', sizeMatched: 10 * SH, reserved: 0 });
    expect(m.tradeIds).toEqual([r.trade!.id]);
    expect(r.order.tradeIds).toEqual([r.trade!.id]);
  });

  it('SELL YES taker x resting BUY YES: trades at the bid, seller gets the bid', () => {
    const e = setup();
    e.setTokens('bob', 'Y', 10 * SH);
    placeOk(e, ord({ side: 'BUY', price: 4500 }));
    const r = placeOk(e, ord({ account: 'bob', side: 'SELL', price: 4000 }));
    expect(r.trade!.price).toBe(4500);
    expect(r.makingAmount).toBe(10 * SH);
    expect(r.takingAmount).toBe(u(4.5));
    expect(coll(e, 'bob').avail).toBe(u(1004.5));
    expect(tok(e, 'alice', 'Y').avail).toBe(10 * SH);
    expect(coll(e, 'alice')).toEqual({ avail: u(995.5), res: 0 });
  });

  it('honours price-time priority, FIFO within a level across both kinds of order', () => {
    const e = setup();
    e.setTokens('bob', 'Y', 100 * SH);
    const a1 = placeOk(e, ord({ account: 'bob', side: 'SELL', price: 6000, size: 5 * SH })); // YES ask 6000
    const a2 = placeOk(e, ord({ account: 'carol', tokenId: 'N', side: 'BUY', price: 4000, size: 5 * SH })); // YES ask 6000
    const a3 = placeOk(e, ord({ account: 'bob', side: 'SELL', price: 6000, size: 5 * SH })); // YES ask 6000
    const best = placeOk(e, ord({ account: 'bob', side: 'SELL', price: 5900, size: 5 * SH })); // better price, later
    const r = placeOk(e, ord({ side: 'BUY', price: 6000, size: 12 * SH }));
    expect(r.trade!.makers.map((m) => [m.orderId, m.size, m.price])).toEqual([
      [best.order.id, 5 * SH, 5900],
      [a1.order.id, 5 * SH, 6000],
      [a2.order.id, 2 * SH, 4000], // NO maker: its price on its own scale
    ]);
    expect(e.getOrder(a2.order.id)).toMatchObject({ status: 'LIVE', sizeMatched: 2 * SH });
    expect(e.getOrder(a3.order.id)).toMatchObject({ status: 'LIVE', sizeMatched: 0 });
    // mixed prices: size-weighted average for the taker, rounded to the pip
    expect(r.trade!.price).toBe(Math.round((5 * 5900 + 7 * 6000) / 12));
    expect(r.trade!.size).toBe(12 * SH);
    expect(e.book('Y').asks).toEqual([{ price: 6000, size: 8 * SH }]);
  });

  it('partial fills: the maker keeps its rest, a GTC taker rests its remainder with its notional reserved', () => {
    const e = setup();
    e.setTokens('bob', 'Y', 6 * SH);
    const mk = placeOk(e, ord({ account: 'bob', side: 'SELL', price: 5000, size: 6 * SH }));
    const r = placeOk(e, ord({ side: 'BUY', price: 5200, size: 20 * SH }));
    expect(r.status).toBe('live');
    expect(r.order).toMatchObject({ status: 'LIVE', sizeMatched: 6 * SH, reserved: u(7.28) });
    expect(coll(e, 'alice')).toEqual({ avail: u(1000) - u(3) - u(7.28), res: u(7.28) });
    expect(e.getOrder(mk.order.id)!.status).toBe('MATCHED');
    expect(e.book('Y')).toMatchObject({ bids: [{ price: 5200, size: 14 * SH }], asks: [] });

    // and the other way round: the maker partially filled
    e.setTokens('carol', 'Y', 5 * SH);
    const r2 = placeOk(e, ord({ account: 'carol', side: 'SELL', price: 5200, size: 5 * SH }));
    expect(r2.status).toBe('matched');
    expect(e.getOrder(r.order.id)).toMatchObject({ status: 'LIVE', sizeMatched: 11 * SH, reserved: u(4.68) });
    expect(e.getOrder(r.order.id)!.tradeIds).toEqual([r.trade!.id, r2.trade!.id]);
  });

  it('BUY YES x BUY NO mints a pair from both sides collateral', () => {
    const e = setup();
    const no = placeOk(e, ord({ account: 'bob', tokenId: 'N', side: 'BUY', price: 3500 })); // YES ask 6500
    const r = placeOk(e, ord({ tokenId: 'Y', side: 'BUY', price: 7000 }));
    expect(r.trade!.price).toBe(6500);
    expect(r.trade!.makers[0]).toMatchObject({
      orderId: no.order.id,
      tokenId: 'N',
      outcome: 'No',
      side: 'BUY',
      price: 3500,
    });
    expect(coll(e, 'alice')).toEqual({ avail: u(993.5), res: 0 });
    expect(coll(e, 'bob')).toEqual({ avail: u(996.5), res: 0 });
    expect(tok(e, 'alice', 'Y').avail).toBe(10 * SH);
    expect(tok(e, 'bob', 'N').avail).toBe(10 * SH);
    const t = e.totals();
    expect(t.tokenSupply.get('Y')).toBe(10 * SH);
    expect(t.tokenSupply.get('N')).toBe(10 * SH);
    expect(t.collateral + t.tokenSupply.get('Y')!).toBe(u(3000));
  });

  it('SELL YES x SELL NO merges a pair back into collateral', () => {
    const e = setup();
    e.setTokens('alice', 'Y', 10 * SH);
    e.setTokens('bob', 'N', 10 * SH);
    placeOk(e, ord({ account: 'bob', tokenId: 'N', side: 'SELL', price: 3800 })); // YES bid 6200
    const r = placeOk(e, ord({ tokenId: 'Y', side: 'SELL', price: 6000 }));
    expect(r.trade!.price).toBe(6200);
    expect(r.takingAmount).toBe(u(6.2));
    expect(coll(e, 'alice').avail).toBe(u(1006.2));
    expect(coll(e, 'bob').avail).toBe(u(1003.8));
    expect(tok(e, 'alice', 'Y')).toEqual({ avail: 0, res: 0 });
    expect(tok(e, 'bob', 'N')).toEqual({ avail: 0, res: 0 });
  });

  it('BUY NO x SELL NO transfers the NO token at the NO price', () => {
    const e = setup();
    e.setTokens('bob', 'N', 10 * SH);
    placeOk(e, ord({ account: 'bob', tokenId: 'N', side: 'SELL', price: 3000 })); // YES bid 7000
    const r = placeOk(e, ord({ tokenId: 'N', side: 'BUY', price: 3100 })); // YES ask 6900: crosses
    expect(r.trade).toMatchObject({ price: 3000, tokenId: 'N', outcome: 'No', side: 'BUY' });
    expect(r.makingAmount).toBe(u(3));
    expect(tok(e, 'alice', 'N').avail).toBe(10 * SH);
    expect(coll(e, 'bob').avail).toBe(u(1003));
    expect(coll(e, 'alice')).toEqual({ avail: u(997), res: 0 });
  });

  it('SELL NO taker against a resting SELL YES merges; against BUY NO transfers', () => {
    const e = setup();
    e.setTokens('bob', 'Y', 10 * SH);
    e.setTokens('alice', 'N', 20 * SH);
    placeOk(e, ord({ account: 'bob', side: 'SELL', price: 6000, size: 10 * SH })); // YES ask 6000
    placeOk(e, ord({ account: 'carol', tokenId: 'N', side: 'BUY', price: 3900, size: 10 * SH })); // YES ask 6100
    const r = placeOk(e, ord({ tokenId: 'N', side: 'SELL', price: 3900, size: 20 * SH })); // YES bid 6100
    expect(r.trade!.makers.map((m) => [m.tokenId, m.side, m.price, m.size])).toEqual([
      ['Y', 'SELL', 6000, 10 * SH],
      ['N', 'BUY', 3900, 10 * SH],
    ]);
    // taker-scale prices 4000 (merge) and 3900 (transfer)
    expect(r.trade!.price).toBe(3950);
    expect(r.takingAmount).toBe(u(4) + u(3.9));
    expect(coll(e, 'bob').avail).toBe(u(1006));
    expect(tok(e, 'carol', 'N').avail).toBe(10 * SH);
    expect(tok(e, 'alice', 'N')).toEqual({ avail: 0, res: 0 });
  });

  it('allows self-trades', () => {
    const e = setup();
    e.setTokens('alice', 'Y', 10 * SH);
    placeOk(e, ord({ side: 'SELL', price: 5000 }));
    const r = placeOk(e, ord({ side: 'BUY', price: 5000 }));
    expect(r.trade!.makers[0]!.account).toBe('alice');
    expect(coll(e, 'alice')).toEqual({ avail: u(1000), res: 0 });
    expect(tok(e, 'alice', 'Y')).toEqual({ avail: 10 * SH, res: 0 });
  });
});

describe('order types', () => {
  it('FOK fills entirely across levels, or is refused and changes nothing', () => {
    const e = setup();
    e.setTokens('bob', 'Y', 20 * SH);
    placeOk(e, ord({ account: 'bob', side: 'SELL', price: 5000, size: 6 * SH }));
    placeOk(e, ord({ account: 'bob', side: 'SELL', price: 5100, size: 6 * SH }));
    e.drainEvents();
    const before = stateOf(e);
    const refused = ord({ type: 'FOK', price: 5100, size: 13 * SH });
    expect(e.place(refused, 1000)).toEqual({
      ok: false,
      code: 'FOK_ORDER_NOT_FILLED_ERROR',
      message: REJECT_MESSAGES.FOK_ORDER_NOT_FILLED_ERROR,
    });
    expect(e.place(ord({ type: 'FOK', price: 5000, size: 7 * SH }), 1000)).toMatchObject({
      code: 'FOK_ORDER_NOT_FILLED_ERROR',
    });
    expect(stateOf(e)).toEqual(before);
    expect(e.drainEvents()).toEqual([]);
    expect(e.getOrder(refused.id)).toBeUndefined();
    // the refused id is not remembered
    const r = placeOk(e, { ...refused, size: 12 * SH });
    expect(r.status).toBe('matched');
    expect(r.order.status).toBe('MATCHED');
    expect(r.trade!.size).toBe(12 * SH);
    expect(r.trade!.price).toBe(5050);
    expect(coll(e, 'alice')).toEqual({ avail: u(1000) - u(3) - u(3.06), res: 0 });
  });

  it('FAK takes what it can and drops the rest; with nothing to take it is unmatched', () => {
    const e = setup();
    e.setTokens('bob', 'Y', 5 * SH);
    placeOk(e, ord({ account: 'bob', side: 'SELL', price: 5000, size: 5 * SH }));
    const r = placeOk(e, ord({ type: 'FAK', price: 5500, size: 10 * SH }));
    expect(r.status).toBe('matched');
    expect(r.order).toMatchObject({ status: 'CANCELED', sizeMatched: 5 * SH, reserved: 0 });
    expect(r.makingAmount).toBe(u(2.5));
    expect(coll(e, 'alice')).toEqual({ avail: u(997.5), res: 0 });
    expect(e.book('Y').bids).toEqual([]);
    const un = placeOk(e, ord({ type: 'FAK', price: 5500, size: 10 * SH }));
    expect(un.status).toBe('unmatched');
    expect(un.trade).toBeNull();
    expect(un.order).toMatchObject({ status: 'CANCELED', sizeMatched: 0 });
    expect(coll(e, 'alice')).toEqual({ avail: u(997.5), res: 0 });
    const ev = e.drainEvents();
    expect(
      ev.filter((x) => x.type === 'order_canceled').map((x) => x.type === 'order_canceled' && [x.order.id, x.reason]),
    ).toEqual([
      [r.order.id, 'UNFILLED_REMAINDER'],
      [un.order.id, 'UNFILLED_REMAINDER'],
    ]);
  });

  it('GTD orders expire at expiresAt through advance() and through any later call', () => {
    const e = setup();
    const g1 = placeOk(e, ord({ type: 'GTD', expiresAt: 5000, price: 4000 }), 1000);
    const g2 = placeOk(e, ord({ type: 'GTD', expiresAt: 3000, price: 4100 }), 1000);
    const g3 = placeOk(e, ord({ type: 'GTD', expiresAt: 9000, price: 4200 }), 1000);
    expect(g1.order.expiresAt).toBe(5000);
    e.drainEvents();
    e.advance(2999);
    expect(e.openOrders('alice')).toHaveLength(3);
    e.advance(3000);
    expect(e.getOrder(g2.order.id)!.status).toBe('CANCELED');
    const ev = e.drainEvents();
    expect(ev.find((x) => x.type === 'order_canceled')).toMatchObject({
      reason: 'EXPIRED',
      order: { id: g2.order.id },
      at: 3000,
    });
    // place() expires first: at 5000 g1 is gone before the new order is considered
    placeOk(e, ord({ price: 1000 }), 5000);
    expect(e.getOrder(g1.order.id)!.status).toBe('CANCELED');
    expect(e.getOrder(g3.order.id)!.status).toBe('LIVE');
    expect(coll(e, 'alice')).toEqual({ avail: u(1000) - u(4.2) - u(1), res: u(5.2) });
    // a GTD that filled or was cancelled is simply skipped by the heap
    const g4 = placeOk(e, ord({ type: 'GTD', expiresAt: 8000, price: 4300 }), 5000);
    e.cancel('alice', g4.order.id, 6000);
    e.advance(10_000);
    expect(e.getOrder(g3.order.id)!.status).toBe('CANCELED');
    expect(e.openOrders('alice').map((o) => o.price)).toEqual([1000]);
  });

  it('post-only: refused when it would cross, accepted when it rests, refused with FOK/FAK', () => {
    const e = setup();
    e.setTokens('bob', 'Y', 10 * SH);
    placeOk(e, ord({ account: 'bob', side: 'SELL', price: 6000 }));
    expect(e.place(ord({ postOnly: true, price: 6000 }), 1000)).toMatchObject({
      ok: false,
      code: 'INVALID_POST_ONLY_ORDER',
    });
    // a NO buy at 4000 is a YES ask at 6000: it would not cross the ask side; a NO sell at 4000 would
    expect(placeOk(e, ord({ postOnly: true, price: 5900 })).status).toBe('live');
    e.setTokens('alice', 'N', 10 * SH);
    expect(e.place(ord({ postOnly: true, tokenId: 'N', side: 'SELL', price: 4000 }), 1000)).toMatchObject({
      code: 'INVALID_POST_ONLY_ORDER',
    });
    expect(placeOk(e, ord({ postOnly: true, tokenId: 'N', side: 'SELL', price: 4100 })).status).toBe('live');
    expect(placeOk(e, ord({ postOnly: true, type: 'GTD', expiresAt: 99_999, price: 5000 })).status).toBe('live');
    expect(e.place(ord({ postOnly: true, type: 'FOK' }), 1000)).toMatchObject({ code: 'INVALID_POST_ONLY_ORDER_TYPE' });
    expect(e.place(ord({ postOnly: true, type: 'FAK' }), 1000)).toMatchObject({ code: 'INVALID_POST_ONLY_ORDER_TYPE' });
  });
});

describe('validation', () => {
  it('refuses with the venue codes and messages, in the venue order', () => {
    const e = setup();
    const rej = (o: NewOrder, now = 1000) => {
      const r = e.place(o, now);
      return r.ok ? 'OK' : r.code;
    };
    expect(rej(ord({ tokenId: 'unknown' }))).toBe('MARKET_NOT_READY');
    const first = placeOk(e, ord({ id: 'dup' }));
    expect(rej(ord({ id: 'dup' }))).toBe('INVALID_ORDER_DUPLICATED');
    // duplicated beats everything after it
    expect(rej(ord({ id: 'dup', price: 5050, size: 1 }))).toBe('INVALID_ORDER_DUPLICATED');
    expect(rej(ord({ postOnly: true, type: 'FOK', price: 5050 }))).toBe('INVALID_POST_ONLY_ORDER_TYPE');
    expect(rej(ord({ price: 5050 }))).toBe('INVALID_ORDER_MIN_TICK_SIZE');
    expect(rej(ord({ price: 0 }))).toBe('INVALID_ORDER_MIN_TICK_SIZE');
    expect(rej(ord({ price: 10_000 }))).toBe('INVALID_ORDER_MIN_TICK_SIZE');
    expect(rej(ord({ price: 9950 }))).toBe('INVALID_ORDER_MIN_TICK_SIZE');
    expect(rej(ord({ price: 100, size: 1 }))).toBe('INVALID_ORDER_MIN_SIZE');
    expect(rej(ord({ price: 5050, size: 1 }))).toBe('INVALID_ORDER_MIN_TICK_SIZE');
    expect(rej(ord({ tokenId: 'Y2', price: 5050, size: 0.5 * SH }))).toBe('INVALID_ORDER_MIN_SIZE');
    expect(rej(ord({ size: 5 * SH + 1 }))).toBe('INVALID_ORDER_ERROR');
    expect(rej(ord({ size: 600_000 * SH }))).toBe('INVALID_ORDER_ERROR');
    expect(rej(ord({ feeRateBps: 1001 }))).toBe('INVALID_ORDER_ERROR');
    expect(rej(ord({ type: 'GTD', expiresAt: 1000 }))).toBe('INVALID_ORDER_EXPIRATION');
    expect(rej(ord({ type: 'GTD', expiresAt: 999 }))).toBe('INVALID_ORDER_EXPIRATION');
    expect(rej(ord({ price: 9900, size: 2000 * SH }))).toBe('INVALID_ORDER_NOT_ENOUGH_BALANCE');
    expect(rej(ord({ side: 'SELL' }))).toBe('INVALID_ORDER_NOT_ENOUGH_BALANCE');
    expect(rej(ord({ account: 'nobody' }))).toBe('INVALID_ORDER_NOT_ENOUGH_BALANCE');
    // a not-enough-balance order that would also cross post-only: balance comes first
    expect(rej(ord({ postOnly: true, side: 'SELL', price: 4000 }))).toBe('INVALID_ORDER_NOT_ENOUGH_BALANCE');
    expect(rej(ord({ type: 'FOK', size: 5 * SH }))).toBe('FOK_ORDER_NOT_FILLED_ERROR');
    const r = e.place(ord({ price: 5050 }), 1000);
    expect(r).toEqual({
      ok: false,
      code: 'INVALID_ORDER_MIN_TICK_SIZE',
      message: 'order is invalid. Price breaks minimum tick size rules',
    });
    expect(first.ok).toBe(true);
  });

  it('checks the fee rate against the market fee', () => {
    const e = new MatchingEngine();
    e.addMarket({ ...M1, feeRateBps: 50 });
    e.credit('alice', u(100));
    expect(e.place(ord({ feeRateBps: 49 }), 1)).toMatchObject({ code: 'INVALID_ORDER_ERROR' });
    expect(e.place(ord({ feeRateBps: 50 }), 1).ok).toBe(true);
  });

  it('a rejected order changes nothing, and its id stays free', () => {
    const e = setup();
    placeOk(e, ord({ price: 4000 }));
    e.drainEvents();
    const before = stateOf(e);
    const bad = ord({ price: 9900, size: 2000 * SH });
    expect(e.place(bad, 1000).ok).toBe(false);
    expect(stateOf(e)).toEqual(before);
    expect(e.drainEvents()).toEqual([]);
    expect(e.place({ ...bad, size: 10 * SH }, 1000).ok).toBe(true);
  });

  it('refuses an id accepted before, whatever became of it', () => {
    const e = setup();
    const o = ord();
    placeOk(e, o);
    e.cancel('alice', o.id, 1000);
    expect(e.place(o, 1000)).toMatchObject({ ok: false, code: 'INVALID_ORDER_DUPLICATED' });
    const f = ord({ type: 'FAK' });
    placeOk(e, f);
    expect(e.place({ ...f, type: 'GTC' }, 1000)).toMatchObject({ code: 'INVALID_ORDER_DUPLICATED' });
  });
});

describe('fees', () => {
  it('charges the taker only: on top for a BUY, deducted for a SELL, on min(p, 1-p)', () => {
    const e = setup();
    e.setTokens('bob', 'Y', 30 * SH);
    placeOk(e, ord({ account: 'bob', side: 'SELL', price: 8000, size: 10 * SH, feeRateBps: 1000 }));
    // BUY taker at the 0.80 ask: fee on min(0.8, 0.2) = 0.2 per share, 2% -> 10 * 0.2 * 0.02 = 0.04
    const r = placeOk(e, ord({ side: 'BUY', price: 8000, size: 10 * SH, feeRateBps: 200 }));
    expect(r.trade!.fee).toBe(u(0.04));
    expect(r.trade!.feeRateBps).toBe(200);
    expect(r.makingAmount).toBe(u(8.04));
    // the cap was 2% of 8.00 = 0.16: the rest is back
    expect(coll(e, 'alice')).toEqual({ avail: u(1000) - u(8.04), res: 0 });
    expect(coll(e, 'bob').avail).toBe(u(1008)); // the maker pays nothing, whatever its fee rate
    expect(coll(e, DEFAULT_FEE_ACCOUNT).avail).toBe(u(0.04));

    // SELL taker into a bid at 0.30: fee on 0.3 per share
    placeOk(e, ord({ account: 'carol', side: 'BUY', price: 3000, size: 10 * SH }));
    const s = placeOk(e, ord({ account: 'bob', side: 'SELL', price: 3000, size: 10 * SH, feeRateBps: 100 }));
    expect(s.trade!.fee).toBe(u(0.03));
    expect(s.takingAmount).toBe(u(3) - u(0.03));
    expect(coll(e, 'bob').avail).toBe(u(1008) + u(2.97));
    expect(e.totals().fees).toBe(u(0.07));
    expect(coll(e, DEFAULT_FEE_ACCOUNT).avail).toBe(u(0.07));
    const t = e.totals();
    expect(t.collateral).toBe(u(3000));
  });

  it('rounds each fill fee down to the micro, on the taker scale', () => {
    const e = setup({ feeAccount: 'fees' });
    placeOk(e, ord({ account: 'bob', tokenId: 'N', side: 'BUY', price: 3300, size: 7 * SH + 30_000 })); // YES ask 6700
    const r = placeOk(e, ord({ side: 'BUY', price: 6700, size: 7 * SH + 30_000, feeRateBps: 7 }));
    // floor(floor(7.03e6 * 3300 / 1e4) * 7 / 1e4) = floor(2319900 * 7 / 1e4) = 1623
    expect(r.trade!.fee).toBe(1623);
    expect(coll(e, 'fees').avail).toBe(1623);
  });
});

describe('market lifecycle', () => {
  it('a tick-size change cancels resting orders off the new tick', () => {
    const e = setup();
    const a = placeOk(e, ord({ tokenId: 'Y2', price: 4510 }));
    const b = placeOk(e, ord({ tokenId: 'Y2', price: 4500 }));
    e.setTokens('bob', 'N2', 10 * SH);
    const c = placeOk(e, ord({ account: 'bob', tokenId: 'N2', side: 'SELL', price: 3990 })); // YES bid 6010: off-tick too
    e.drainEvents();
    e.setTickSize('c2', 100, 2000);
    expect(e.getOrder(a.order.id)!.status).toBe('CANCELED');
    expect(e.getOrder(b.order.id)!.status).toBe('LIVE');
    expect(e.getOrder(c.order.id)!.status).toBe('CANCELED');
    expect(tok(e, 'bob', 'N2')).toEqual({ avail: 10 * SH, res: 0 });
    const ev = e.drainEvents();
    expect(ev[0]).toEqual({ type: 'tick_size_change', market: 'c2', oldTickPips: 10, newTickPips: 100, at: 2000 });
    expect(ev.filter((x) => x.type === 'order_canceled').map((x) => x.type === 'order_canceled' && x.reason)).toEqual([
      'TICK_SIZE_CHANGE',
      'TICK_SIZE_CHANGE',
    ]);
    expect(e.getMarket('c2')!.tickPips).toBe(100);
    expect(e.place(ord({ tokenId: 'Y2', price: 4510 }), 2000)).toMatchObject({ code: 'INVALID_ORDER_MIN_TICK_SIZE' });
    // a finer tick cancels nothing
    e.setTickSize('c2', 1, 3000);
    expect(e.getOrder(b.order.id)!.status).toBe('LIVE');
    expect(() => e.setTickSize('c2', 3, 3000)).toThrow();
    expect(() => e.setTickSize('zz', 100, 3000)).toThrow();
  });

  it('closing a market cancels its orders and refuses new ones', () => {
    const e = setup();
    const a = placeOk(e, ord({ price: 4000 }));
    const other = placeOk(e, ord({ tokenId: 'Y2', price: 4000 }));
    e.drainEvents();
    e.closeMarket('c1', 2000);
    expect(e.getOrder(a.order.id)!.status).toBe('CANCELED');
    expect(e.getOrder(other.order.id)!.status).toBe('LIVE');
    expect(e.getMarket('c1')!.status).toBe('closed');
    expect(coll(e, 'alice').res).toBe(u(4));
    const ev = e.drainEvents();
    expect(ev).toContainEqual({ type: 'market_status', market: 'c1', status: 'closed', at: 2000 });
    expect(ev.find((x) => x.type === 'order_canceled')).toMatchObject({ reason: 'MARKET_CLOSED' });
    expect(e.place(ord({ price: 4000 }), 2000)).toMatchObject({ code: 'MARKET_NOT_READY' });
  });

  it('resolving cancels open orders (releasing their reservations) and leaves every balance to be redeemed', () => {
    const e = setup();
    // mint 10 pairs: alice YES, bob NO; carol buys 4 YES from alice
    placeOk(e, ord({ account: 'bob', tokenId: 'N', side: 'BUY', price: 4000 }));
    placeOk(e, ord({ side: 'BUY', price: 6000 }));
    placeOk(e, ord({ side: 'SELL', price: 7000, size: 6 * SH })); // rests: 6 YES reserved
    placeOk(e, ord({ account: 'carol', side: 'BUY', price: 5000, size: 5 * SH })); // rests
    e.drainEvents();
    e.resolveMarket('c1', 'Y', 3000);
    // nobody is paid by the resolution itself; reservations are back to available
    expect(coll(e, 'alice')).toEqual({ avail: u(1000) - u(6), res: 0 });
    expect(coll(e, 'bob')).toEqual({ avail: u(996), res: 0 });
    expect(coll(e, 'carol')).toEqual({ avail: u(1000), res: 0 });
    expect(tok(e, 'alice', 'Y')).toEqual({ avail: u(10), res: 0 });
    expect(tok(e, 'bob', 'N')).toEqual({ avail: u(10), res: 0 });
    expect(e.openOrders('alice')).toEqual([]);
    expect(e.getMarket('c1')).toMatchObject({ status: 'resolved', winningToken: 'Y' });
    const ev = e.drainEvents();
    expect(ev.filter((x) => x.type === 'order_canceled').map((x) => x.type === 'order_canceled' && x.reason)).toEqual([
      'MARKET_RESOLVED',
      'MARKET_RESOLVED',
    ]);
    expect(ev).toContainEqual({ type: 'market_status', market: 'c1', status: 'resolved', winningToken: 'Y', at: 3000 });
    expect(e.totals().collateral).toBe(u(3000) - u(10));
    expect(e.place(ord(), 3000)).toMatchObject({ code: 'MARKET_NOT_READY' });
    expect(() => e.resolveMarket('c1', 'Y', 3000)).toThrow();
    expect(() => e.resolveMarket('c2', 'Y', 3000)).toThrow();
    expect(() => e.closeMarket('c1', 3000)).toThrow();
    // redemption: the winner pays 1 per share, the loser 0; collateral is whole again
    expect(e.redeem('alice', 'c1', undefined, 3001)).toEqual({
      ok: true,
      collateral: u(10),
      tokens: [{ tokenId: 'Y', delta: -u(10) }],
    });
    expect(e.redeem('bob', 'c1', undefined, 3001)).toEqual({
      ok: true,
      collateral: 0,
      tokens: [{ tokenId: 'N', delta: -u(10) }],
    });
    expect(coll(e, 'alice').avail).toBe(u(1004));
    expect(coll(e, 'bob').avail).toBe(u(996));
    expect(tok(e, 'alice', 'Y')).toEqual({ avail: 0, res: 0 });
    expect(e.totals().collateral).toBe(u(3000));
  });

  it('resolving for NO: the NO holders redeem 1 per share', () => {
    const e = setup();
    placeOk(e, ord({ account: 'bob', tokenId: 'N', side: 'BUY', price: 4000 }));
    placeOk(e, ord({ side: 'BUY', price: 6000 }));
    e.resolveMarket('c1', 'N', 3000);
    expect(coll(e, 'bob').avail).toBe(u(996));
    expect(e.redeem('bob', 'c1', undefined, 3000)).toMatchObject({ ok: true, collateral: u(10) });
    expect(e.redeem('alice', 'c1', undefined, 3000)).toMatchObject({ ok: true, collateral: 0 });
    expect(coll(e, 'bob').avail).toBe(u(1006));
    expect(coll(e, 'alice').avail).toBe(u(994));
  });

  it('a new market can start closed', () => {
    const e = new MatchingEngine();
    e.addMarket({ ...M1, status: 'closed' });
    e.credit('alice', u(100));
    expect(e.place(ord(), 1)).toMatchObject({ code: 'MARKET_NOT_READY' });
  });
});

describe('cancels and queries', () => {
  it("never reveals another account's order", () => {
    const e = setup();
    const a = placeOk(e, ord());
    expect(e.cancel('bob', a.order.id, 1000)).toEqual({ ok: false, reason: 'NOT_FOUND' });
    expect(e.cancel('bob', 'nope', 1000)).toEqual({ ok: false, reason: 'NOT_FOUND' });
    expect(e.getOrder(a.order.id)!.status).toBe('LIVE');
    expect(e.cancel('alice', a.order.id, 1000).ok).toBe(true);
    expect(e.cancel('alice', a.order.id, 1000)).toEqual({ ok: false, reason: 'NOT_LIVE' });
  });

  it('cancelAll and cancelMarket filter by market and token', () => {
    const e = setup();
    e.setTokens('alice', 'N', 100 * SH);
    const y = placeOk(e, ord({ tokenId: 'Y', price: 4000 }));
    const n = placeOk(e, ord({ tokenId: 'N', side: 'SELL', price: 9000 }));
    const y2 = placeOk(e, ord({ tokenId: 'Y2', price: 4000 }));
    const bobs = placeOk(e, ord({ account: 'bob', price: 3000 }));
    expect(e.openOrders('alice', { tokenId: 'N' }).map((o) => o.id)).toEqual([n.order.id]);
    expect(e.openOrders('alice', { market: 'c1' }).map((o) => o.id)).toEqual([y.order.id, n.order.id]);
    expect(e.cancelMarket('alice', { market: 'c1', tokenId: 'N' }, 1000).map((o) => o.id)).toEqual([n.order.id]);
    expect(e.cancelMarket('alice', { market: 'c2', tokenId: 'Y' }, 1000)).toEqual([]);
    const c = e.cancelMarket('alice', { market: 'c1' }, 1000);
    expect(c.map((o) => [o.id, o.status])).toEqual([[y.order.id, 'CANCELED']]);
    expect(e.cancelAll('alice', 1000).map((o) => o.id)).toEqual([y2.order.id]);
    expect(e.cancelAll('alice', 1000)).toEqual([]);
    expect(e.openOrders('bob').map((o) => o.id)).toEqual([bobs.order.id]);
    expect(e.cancelAll('nobody', 1000)).toEqual([]);
    const hb = e.cancelAll('bob', 1000, 'HEARTBEAT');
    expect(hb).toHaveLength(1);
    expect(
      e
        .drainEvents()
        .filter((x) => x.type === 'order_canceled')
        .pop(),
    ).toMatchObject({ reason: 'HEARTBEAT' });
    expect(coll(e, 'alice')).toEqual({ avail: u(1000), res: 0 });
    expect(tok(e, 'alice', 'N')).toEqual({ avail: 100 * SH, res: 0 });
  });

  it('lists every order of an account, any status, oldest first; snapshots are copies', () => {
    const e = setup();
    const a = placeOk(e, ord({ price: 4000 }));
    const b = placeOk(e, ord({ type: 'FAK', price: 4000 }));
    e.cancel('alice', a.order.id, 1000);
    expect(e.ordersOf('alice').map((o) => [o.id, o.status])).toEqual([
      [a.order.id, 'CANCELED'],
      [b.order.id, 'CANCELED'],
    ]);
    expect(e.ordersOf('nobody')).toEqual([]);
    expect(a.order.status).toBe('LIVE'); // the old snapshot did not change
    const snap = e.getOrder(a.order.id)!;
    (snap as { sizeMatched: number }).sizeMatched = 123;
    expect(e.getOrder(a.order.id)!.sizeMatched).toBe(0);
    expect(e.getOrder('nope')).toBeUndefined();
  });
});

describe('events', () => {
  it('reports placement, fills, the trade, level totals and balances of one operation', () => {
    const e = setup();
    e.setTokens('bob', 'Y', 20 * SH);
    expect(e.drainEvents()).toEqual([{ type: 'balance', account: 'bob', at: 0 }]);
    const m1 = placeOk(e, ord({ account: 'bob', side: 'SELL', price: 6000, size: 5 * SH }), 100);
    let ev = e.drainEvents();
    expect(ev).toEqual([
      { type: 'order_placed', order: m1.order, at: 100 },
      { type: 'level', market: 'c1', side: 'ask', yesPrice: 6000, size: 5 * SH, at: 100 },
      { type: 'balance', account: 'bob', at: 100 },
    ]);
    const m2 = placeOk(e, ord({ account: 'carol', tokenId: 'N', side: 'BUY', price: 4000, size: 5 * SH }), 200);
    const m3 = placeOk(e, ord({ account: 'bob', side: 'SELL', price: 6100, size: 5 * SH }), 200);
    e.drainEvents();
    const r = placeOk(e, ord({ side: 'BUY', price: 6100, size: 12 * SH, feeRateBps: 100 }), 300);
    ev = e.drainEvents();
    const types = ev.map((x) => x.type);
    expect(types).toEqual([
      'order_placed',
      'order_updated',
      'order_updated',
      'order_updated',
      'order_updated',
      'trade',
      'level',
      'level',
      'balance',
      'balance',
      'balance',
      'balance',
    ]);
    const placed = ev[0] as Extract<EngineEvent, { type: 'order_placed' }>;
    expect(placed.order).toMatchObject({ id: r.order.id, sizeMatched: 0, status: 'LIVE' });
    const updates = ev
      .filter((x): x is Extract<EngineEvent, { type: 'order_updated' }> => x.type === 'order_updated')
      .map((x) => x.order);
    expect(updates.map((o) => [o.id, o.sizeMatched, o.status])).toEqual([
      [m1.order.id, 5 * SH, 'MATCHED'],
      [m2.order.id, 5 * SH, 'MATCHED'],
      [m3.order.id, 2 * SH, 'LIVE'],
      [r.order.id, 12 * SH, 'MATCHED'],
    ]);
    expect(ev[5]).toEqual({ type: 'trade', trade: r.trade, at: 300 });
    // one level event per touched level, with its final total (6000 emptied)
    expect(ev.filter((x) => x.type === 'level')).toEqual([
      { type: 'level', market: 'c1', side: 'ask', yesPrice: 6000, size: 0, at: 300 },
      { type: 'level', market: 'c1', side: 'ask', yesPrice: 6100, size: 3 * SH, at: 300 },
    ]);
    expect(ev.filter((x) => x.type === 'balance').map((x) => x.type === 'balance' && x.account)).toEqual([
      'bob',
      'carol',
      DEFAULT_FEE_ACCOUNT,
      'alice',
    ]);
  });

  it('records nothing when recordEvents is false', () => {
    const e = setup({ recordEvents: false });
    e.setTokens('bob', 'Y', 20 * SH);
    placeOk(e, ord({ account: 'bob', side: 'SELL', price: 6000 }));
    placeOk(e, ord({ side: 'BUY', price: 6000 }));
    e.setTickSize('c1', 10, 5);
    e.closeMarket('c1', 6);
    expect(e.drainEvents()).toEqual([]);
  });

  it('uses the tradeId function given', () => {
    const e = setup({ tradeId: (n) => `trade-${n}` });
    e.setTokens('bob', 'Y', 20 * SH);
    placeOk(e, ord({ account: 'bob', side: 'SELL', price: 6000 }));
    const r = placeOk(e, ord({ side: 'BUY', price: 6000, size: 5 * SH }));
    const r2 = placeOk(e, ord({ side: 'BUY', price: 6000, size: 5 * SH }));
    expect([r.trade!.id, r2.trade!.id]).toEqual(['trade-1', 'trade-2']);
    expect(e.ordersOf('bob')[0]!.tradeIds).toEqual(['trade-1', 'trade-2']);
  });

  it('default trade ids are deterministic', () => {
    const run = () => {
      const e = setup();
      e.setTokens('bob', 'Y', 20 * SH);
      placeOk(e, { ...ord({ account: 'bob', side: 'SELL', price: 6000 }), id: 'm' });
      return placeOk(e, { ...ord({ side: 'BUY', price: 6000 }), id: 't' }).trade!.id;
    };
    const a = run();
    expect(a).toBe(run());
    expect(a).toMatch(/^[0-9a-f]{8}-0000-4000-8000-0{11}1$/);
  });
});

describe('scale', () => {
  it('keeps working across many orders (record pages, id index growth)', () => {
    const e = new MatchingEngine({ recordEvents: false });
    e.addMarket(M1);
    e.credit('alice', 1e14);
    e.setTokens('alice', 'Y', 1e14);
    const ids: string[] = [];
    for (let i = 0; i < 70_000; i++) {
      const id = `0x${i.toString(16).padStart(64, '0')}`;
      ids.push(id);
      const r = e.place(
        ord({
          id,
          side: i % 2 ? 'BUY' : 'SELL',
          price: i % 2 ? 100 + (i % 40) * 100 : 6000 + (i % 30) * 100,
          size: 5 * SH,
        }),
        i,
      );
      expect(r.ok).toBe(true);
    }
    for (let i = 0; i < 70_000; i += 7) expect(e.getOrder(ids[i]!)!.id).toBe(ids[i]);
    expect(e.place(ord({ id: ids[12_345]! }), 1)).toMatchObject({ code: 'INVALID_ORDER_DUPLICATED' });
    expect(e.openOrders('alice')).toHaveLength(70_000);
    let cancelled = 0;
    for (let i = 0; i < 70_000; i += 3) if (e.cancel('alice', ids[i]!, 2).ok) cancelled++;
    expect(cancelled).toBe(Math.ceil(70_000 / 3));
    const live: OrderState[] = e.openOrders('alice');
    expect(live).toHaveLength(70_000 - cancelled);
    const b = e.balance('alice');
    const wantColl = live.filter((o) => o.side === 'BUY').reduce((s, o) => s + (o.originalSize * o.price) / 10_000, 0);
    expect(b.collateralReserved).toBe(wantColl);
  });

  it('expires the right GTD orders after many were cancelled or filled (heap clean-up)', () => {
    const e = new MatchingEngine();
    e.addMarket({ ...M1, minSizeMicro: 0 });
    e.credit('alice', 1e14);
    e.credit('bob', 1e14);
    const live = new Map<string, number>();
    for (let i = 0; i < 3000; i++) {
      const id = `g${i}`;
      const exp = 10_000 + ((i * 7919) % 5000);
      placeOk(e, ord({ id, type: 'GTD', expiresAt: exp, price: 100 + (i % 30) * 100, size: SH / 100 }), 1);
      live.set(id, exp);
    }
    // cancel most of them, and fill some others through a seller taking the bids
    for (let i = 0; i < 3000; i++)
      if (i % 5 !== 0 && i % 7 !== 0) e.cancel('alice', `g${i}`, 2) && live.delete(`g${i}`);
    e.setTokens('bob', 'Y', 1e14);
    const r = placeOk(e, ord({ account: 'bob', side: 'SELL', type: 'FAK', price: 2900, size: SH }), 3);
    for (const m of r.trade!.makers) if (e.getOrder(m.orderId)!.status === 'MATCHED') live.delete(m.orderId);
    // more GTD orders: the heap drops its dead entries on the way
    for (let i = 3000; i < 5000; i++) {
      const id = `g${i}`;
      const exp = 10_000 + ((i * 7919) % 5000);
      placeOk(e, ord({ id, type: 'GTD', expiresAt: exp, price: 100, size: SH / 100 }), 4);
      live.set(id, exp);
    }
    e.drainEvents();
    for (const t of [9_999, 11_000, 12_345, 14_999, 15_000]) {
      e.advance(t);
      const open = new Set(e.openOrders('alice').map((o) => o.id));
      const want = [...live].filter(([, exp]) => exp > t).map(([id]) => id);
      expect(open.size).toBe(want.length);
      for (const id of want) expect(open.has(id)).toBe(true);
    }
    const expired = e.drainEvents().filter((x) => x.type === 'order_canceled');
    // earliest expiry first
    const times = expired.map((x) => (x.type === 'order_canceled' ? x.order.expiresAt : 0));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(expired.every((x) => x.type === 'order_canceled' && x.reason === 'EXPIRED')).toBe(true);
    expect(e.openOrders('alice')).toEqual([]);
  });

  it('keeps every trade id of every order, in order, across many trades', () => {
    const e = new MatchingEngine({ recordEvents: false });
    e.addMarket({ ...M1, minSizeMicro: 0 });
    e.credit('alice', 1e14);
    e.credit('bob', 1e14);
    // one big resting order filled by many small takers
    const big = e.place(
      ord({ id: 'big', account: 'bob', tokenId: 'N', side: 'BUY', price: 5000, size: 10_000 * SH }),
      1,
    );
    expect(big.ok).toBe(true);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = placeOk(e, ord({ id: `t${i}`, side: 'BUY', price: 5000, size: SH / 100 }), 2);
      ids.push(r.trade!.id);
    }
    expect(e.getOrder('big')!.tradeIds).toEqual(ids);
    // then enough trades to fill several pages of trade ids
    const sample = new Map<string, string>();
    for (let i = 0; i < 70_000; i++) {
      const taker = `x${i}`;
      const r = e.place(ord({ id: taker, side: 'BUY', price: 5000, size: SH / 100 }), 3);
      if (!r.ok || r.trade === null) throw new Error('no trade');
      if (i % 997 === 0) sample.set(taker, r.trade.id);
    }
    for (const [taker, tradeId] of sample) expect(e.getOrder(taker)!.tradeIds).toEqual([tradeId]);
    const all = e.getOrder('big')!.tradeIds;
    expect(all).toHaveLength(70_003);
    expect(all.slice(0, 3)).toEqual(ids);
    expect(new Set(all).size).toBe(70_003);
    // the default ids count up: the n-th trade's id ends with n in hex
    expect(all[0]).toMatch(/-000000000001$/);
    expect(all[70_002]).toMatch(new RegExp(`-${(70_003).toString(16).padStart(12, '0')}$`));
    expect(e.getOrder('big')).toMatchObject({ status: 'LIVE', sizeMatched: 70_003 * (SH / 100) });
  });
});
