/**
 * Two wallets trade with each other on the real paper exchange over loopback HTTP, with real
 * EIP-712-signed orders and L2-authenticated requests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, getJson, startVenue, yes, no, type TestVenue } from './support/setup.ts';
import type { Trader } from './support/trader.ts';

let v: TestVenue;
let a: Trader;
let b: Trader;

const collateral = async (t: Trader): Promise<string> => (await t.l2('GET', '/balances')).body.collateral.balance;
const tokenBal = async (t: Trader, token: string): Promise<string> =>
  (await t.l2('GET', '/balances')).body.tokens.find((x: any) => x.asset_id === token)?.balance ?? '0';
const openIds = async (t: Trader): Promise<string[]> =>
  (await t.l2('GET', '/data/orders')).body.data.map((o: any) => o.id);

beforeAll(async () => {
  v = await startVenue({ http: { rateLimits: { enabled: true, scale: 10, queueMs: 500 } } });
  a = await v.trader();
  b = await v.trader();
});
afterAll(async () => v?.close());

describe('funding and markets', () => {
  it('funds a new key with the starting collateral', async () => {
    expect(await collateral(a)).toBe('10000');
    expect(await collateral(b)).toBe('10000');
  });
  it('lists markets with their tokens, ticks and neg-risk flags', async () => {
    expect(v.markets.length).toBeGreaterThanOrEqual(5);
    const ticks = new Set(v.markets.map((m) => m.minimum_tick_size));
    expect(ticks.size).toBeGreaterThanOrEqual(3);
    expect(v.markets.some((m) => m.neg_risk)).toBe(true);
    const one = await getJson(`${v.clob}/markets/${v.m1.condition_id}`);
    expect(one.condition_id).toBe(v.m1.condition_id);
    expect(one.tokens.map((t: any) => t.outcome)).toEqual(['Yes', 'No']);
    const tick = await getJson(`${v.clob}/tick-size?token_id=${yes(v.m1)}`);
    expect(tick).toEqual({ minimum_tick_size: 0.01 });
    const nr = await getJson(`${v.clob}/neg-risk?token_id=${yes(v.negRisk)}`);
    expect(nr).toEqual({ neg_risk: true });
  });
});

describe('matching between two wallets', () => {
  it('mints: BUY YES and BUY NO whose prices sum to 1 match', async () => {
    const m = v.m1;
    const rb = await b.place(yes(m), 'BUY', '0.40', '10');
    expect(rb.status).toBe(200);
    expect(rb.body).toMatchObject({ success: true, status: 'live', orderID: rb.id });
    const book = await getJson(`${v.clob}/book?token_id=${yes(m)}`);
    expect(book.bids).toEqual([{ price: '0.4', size: '10' }]);
    // the NO book mirrors it: an ask at 0.6
    const noBook = await getJson(`${v.clob}/book?token_id=${no(m)}`);
    expect(noBook.asks).toEqual([{ price: '0.6', size: '10' }]);

    const ra = await a.place(no(m), 'BUY', '0.60', '10');
    expect(ra.body).toMatchObject({ success: true, status: 'matched', makingAmount: '6', takingAmount: '10' });
    expect(await tokenBal(a, no(m))).toBe('10');
    expect(await tokenBal(b, yes(m))).toBe('10');
    expect(await collateral(a)).toBe('9994');
    expect(await collateral(b)).toBe('9996');
    const after = await getJson(`${v.clob}/book?token_id=${yes(m)}`);
    expect(after.bids).toEqual([]);
  });

  it('same token: trades at the resting order price, buyer keeps the improvement', async () => {
    const m = v.m1;
    const rs = await b.place(yes(m), 'SELL', '0.55', '5');
    expect(rs.body.status).toBe('live');
    const rb = await a.place(yes(m), 'BUY', '0.58', '5');
    expect(rb.body).toMatchObject({ status: 'matched', makingAmount: '2.75', takingAmount: '5' });
    expect(await collateral(a)).toBe('9991.25');
    expect(await collateral(b)).toBe('9998.75');
    const last = await getJson(`${v.clob}/last-trade-price?token_id=${yes(m)}`);
    expect(last).toEqual({ price: '0.55', side: 'BUY' });
    // the batch read answers the tokens that traded only, as the public service (findings-3 F8); the
    // single read of a token without a trade is the venue's sentinel, side "" (and /book says "")
    const other = v.markets.filter((x) => x !== m && x !== v.negRisk).at(-1)!;
    const batch = await fetch(`${v.clob}/last-trades-prices`, {
      method: 'POST',
      body: JSON.stringify([{ token_id: yes(m) }, { token_id: yes(other) }]),
    });
    expect(await batch.json()).toEqual([{ token_id: yes(m), price: '0.55', side: 'BUY' }]);
    expect(await getJson(`${v.clob}/last-trade-price?token_id=${yes(other)}`)).toEqual({ price: '0.5', side: '' });
    expect((await getJson(`${v.clob}/book?token_id=${yes(other)}`)).last_trade_price).toBe('');
    // both see the trade; A as taker, B as maker
    const ta = (await a.l2('GET', '/data/trades')).body;
    const tb = (await b.l2('GET', '/data/trades')).body;
    const tradeA = ta.data.find((t: any) => t.taker_order_id === rb.id);
    expect(tradeA).toMatchObject({ side: 'BUY', price: '0.55', size: '5', trader_side: 'TAKER', status: 'MATCHED' });
    expect(tradeA.maker_orders[0]).toMatchObject({ order_id: rs.id, matched_amount: '5', price: '0.55', side: 'SELL' });
    expect(tb.data.find((t: any) => t.id === tradeA.id).trader_side).toBe('MAKER');
    // another user's API key never appears in what a user sees
    expect(JSON.stringify(ta)).not.toContain(b.creds!.apiKey);
  });

  it('merges: SELL YES and SELL NO whose prices sum to at most 1 match', async () => {
    const m = v.m1;
    const ra = await a.place(no(m), 'SELL', '0.40', '5');
    expect(ra.body.status).toBe('live');
    const rb = await b.place(yes(m), 'SELL', '0.60', '5');
    expect(rb.body).toMatchObject({ status: 'matched', makingAmount: '5', takingAmount: '3' });
    expect(await tokenBal(a, no(m))).toBe('5');
    expect(await tokenBal(b, yes(m))).toBe('0');
    expect(await collateral(a)).toBe('9993.25');
    expect(await collateral(b)).toBe('10001.75');
    // collateral + locked pairs is conserved: 20000 = 9993.25 + 10001.75 + 5 pairs
  });

  it('fills partially and leaves the rest on the book', async () => {
    const m = v.m1;
    const rb = await b.place(yes(m), 'BUY', '0.30', '20');
    const ra = await a.place(no(m), 'BUY', '0.70', '8');
    expect(ra.body.status).toBe('matched');
    const o = (await b.l2('GET', `/data/order/${rb.id}`)).body;
    expect(o).toMatchObject({
      status: 'LIVE',
      original_size: '20',
      size_matched: '8',
      price: '0.3',
      side: 'BUY',
      outcome: 'Yes',
    });
    const c = await b.l2('DELETE', '/order', { orderID: rb.id });
    expect(c.body).toEqual({ canceled: [rb.id], not_canceled: {} });
  });

  it('trades on a neg-risk market with orders signed for the neg-risk exchange', async () => {
    const m = v.negRisk;
    const rb = await b.place(yes(m), 'BUY', '0.5', '10', { negRisk: true, tick: String(m.minimum_tick_size) as any });
    expect(rb.body).toMatchObject({ success: true, status: 'live' });
    // signed for the wrong exchange contract: the signature does not recover the signer
    const wrong = await a.place(no(m), 'BUY', '0.5', '10', {
      negRisk: false,
      tick: String(m.minimum_tick_size) as any,
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.code).toBe('INVALID_SIGNATURE');
    const ra = await a.place(no(m), 'BUY', '0.5', '10', { negRisk: true, tick: String(m.minimum_tick_size) as any });
    expect(ra.body.status).toBe('matched');
  });
});

describe('order types', () => {
  it('FOK: all or nothing; a refused FOK changes nothing', async () => {
    const m = v.m1;
    const rest = await b.place(yes(m), 'SELL', '0.70', '2', {});
    expect(rest.status).toBe(400); // B holds no YES now
    await v.admin('/balances', { address: b.address, tokens: { [yes(m)]: '100' } });
    const r1 = await b.place(yes(m), 'SELL', '0.70', '10');
    expect(r1.body.status).toBe('live');
    const before = await collateral(a);
    const fok = await a.place(yes(m), 'BUY', '0.70', '15', { type: 'FOK' });
    expect(fok.status).toBe(400);
    expect(fok.body).toMatchObject({ success: false, error: { code: 'FOK_ORDER_NOT_FILLED_ERROR' } });
    expect(await collateral(a)).toBe(before);
    const book = await getJson(`${v.clob}/book?token_id=${yes(m)}`);
    expect(book.asks).toEqual([{ price: '0.7', size: '10' }]);
    const ok = await a.place(yes(m), 'BUY', '0.70', '10', { type: 'FOK' });
    expect(ok.body).toMatchObject({ status: 'matched', takingAmount: '10' });
  });

  it('FAK: fills what it can, cancels the rest', async () => {
    const m = v.m1;
    await a.l2('DELETE', '/cancel-all');
    await b.l2('DELETE', '/cancel-all');
    expect((await b.place(yes(m), 'SELL', '0.72', '6')).body.status).toBe('live');
    const fak = await a.place(yes(m), 'BUY', '0.75', '10', { type: 'FAK' });
    expect(fak.body).toMatchObject({ status: 'matched', takingAmount: '6', makingAmount: '4.32' });
    expect(await openIds(a)).not.toContain(fak.id);
    const none = await a.place(yes(m), 'BUY', '0.10', '10', { type: 'FAK' });
    expect(none.body).toMatchObject({ success: true, status: 'unmatched' });
  });

  it('market orders built like the public client (amount in collateral) fill', async () => {
    const m = v.m1;
    await b.place(yes(m), 'SELL', '0.60', '20');
    const r = await a.place(yes(m), 'BUY', '0.60', '6', { type: 'FOK', market: true });
    expect(r.body).toMatchObject({ status: 'matched', makingAmount: '6', takingAmount: '10' });
  });

  it('GTD: refused when already (nearly) expired; leaves the book at expiration minus the 60 s threshold', async () => {
    const m = v.m1;
    const now = Math.floor(Date.now() / 1000);
    const bad = await a.place(yes(m), 'BUY', '0.20', '5', { type: 'GTD', expiration: now + 30 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_ORDER_EXPIRATION');
    const g = await a.place(yes(m), 'BUY', '0.20', '5', { type: 'GTD', expiration: now + 62 });
    expect(g.body.status).toBe('live');
    expect(await openIds(a)).toContain(g.id);
    // it leaves about 2 s from now (whole seconds): waited for, well before its expiration proper
    await eventually(async () => !(await openIds(a)).includes(g.id), 30_000, 200);
    expect(await openIds(a)).not.toContain(g.id);
    const o = (await a.l2('GET', `/data/order/${g.id}`)).body;
    expect(o.status).toBe('CANCELED');
  });

  it('post-only: refused when it would cross, rests otherwise, refused with FOK/FAK', async () => {
    const m = v.m1;
    await a.l2('DELETE', '/cancel-all');
    await b.l2('DELETE', '/cancel-all');
    await b.place(yes(m), 'SELL', '0.80', '5');
    const cross = await a.place(yes(m), 'BUY', '0.80', '5', { postOnly: true });
    expect(cross.status).toBe(400);
    expect(cross.body.error.code).toBe('INVALID_POST_ONLY_ORDER');
    const ok = await a.place(yes(m), 'BUY', '0.79', '5', { postOnly: true });
    expect(ok.body.status).toBe('live');
    const typ = await a.place(yes(m), 'BUY', '0.79', '5', { postOnly: true, type: 'FOK' });
    expect(typ.status).toBe(400);
    expect(typ.body.error.code).toBe('INVALID_POST_ONLY_ORDER_TYPE');
  });

  it('refuses off-tick prices, sizes under the minimum, unaffordable orders and duplicates', async () => {
    const m = v.m1;
    const tick = await a.place(yes(m), 'BUY', '0.555', '10', { tick: '0.001' });
    expect(tick.body.error.code).toBe('INVALID_ORDER_MIN_TICK_SIZE');
    const size = await a.place(yes(m), 'BUY', '0.50', '1');
    expect(size.body.error.code).toBe('INVALID_ORDER_MIN_SIZE');
    const money = await a.place(yes(m), 'BUY', '0.50', '100000');
    expect(money.body.error.code).toBe('INVALID_ORDER_NOT_ENOUGH_BALANCE');
    const { body } = a.order(yes(m), 'BUY', '0.05', '5');
    const first = await a.l2('POST', '/order', body);
    expect(first.body.status).toBe('live');
    const again = await a.l2('POST', '/order', body);
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('INVALID_ORDER_DUPLICATED');
    await a.l2('DELETE', '/order', { orderID: first.body.orderID });
    const afterCancel = await a.l2('POST', '/order', body);
    expect(afterCancel.body.error.code).toBe('INVALID_ORDER_DUPLICATED');
  });
});

describe('batches and cancels', () => {
  it('POST /orders places up to 15; one bad entry does not sink the others', async () => {
    const m = v.m1;
    const bodies = Array.from({ length: 15 }, (_, i) => a.order(yes(m), 'BUY', (0.01 * (i + 1)).toFixed(2), '5').body);
    (bodies[7] as any).order.signature = '0x' + '11'.repeat(65);
    const r = await a.l2('POST', '/orders', bodies);
    expect(r.status).toBe(200);
    expect(r.body).toHaveLength(15);
    expect(r.body.filter((x: any) => x.success).length).toBe(14);
    expect(r.body[7]).toMatchObject({ success: false, error: { code: 'INVALID_SIGNATURE' } });
    const tooMany = await a.l2('POST', '/orders', [...bodies, bodies[0]]);
    expect(tooMany.status).toBe(400);
  });

  it("DELETE /orders, /cancel-market-orders and /cancel-all cancel only the caller's orders", async () => {
    const m = v.m1;
    await a.l2('DELETE', '/cancel-all');
    await b.l2('DELETE', '/cancel-all');
    const a1 = await a.place(yes(m), 'BUY', '0.11', '5');
    const a2 = await a.place(yes(m), 'BUY', '0.12', '5');
    const a3 = await a.place(yes(v.negRisk), 'BUY', '0.2', '5', {
      negRisk: true,
      tick: String(v.negRisk.minimum_tick_size) as any,
    });
    const b1 = await b.place(yes(m), 'BUY', '0.13', '5');
    const batch = await a.l2('DELETE', '/orders', [a1.id, b1.id]);
    expect(batch.body.canceled).toEqual([a1.id]);
    expect(Object.keys(batch.body.not_canceled)).toEqual([b1.id]);
    const byMarket = await a.l2('DELETE', '/cancel-market-orders', { market: m.condition_id });
    expect(byMarket.body.canceled).toEqual([a2.id]);
    expect(await openIds(a)).toEqual([a3.id]);
    const all = await a.l2('DELETE', '/cancel-all');
    expect(all.body.canceled).toEqual([a3.id]);
    expect(await openIds(a)).toEqual([]);
    expect(await openIds(b)).toEqual([b1.id]);
    const byAsset = await b.l2('DELETE', '/cancel-market-orders', { asset_id: yes(m) });
    expect(byAsset.body.canceled).toEqual([b1.id]);
  });

  it('releases reserved collateral on cancel', async () => {
    const before = (await a.l2('GET', '/balances')).body.collateral;
    const r = await a.place(yes(v.m1), 'BUY', '0.50', '100');
    const mid = (await a.l2('GET', '/balances')).body.collateral;
    expect(mid.reserved).not.toBe(before.reserved);
    await a.l2('DELETE', '/order', { orderID: r.id });
    expect((await a.l2('GET', '/balances')).body.collateral).toEqual(before);
  });
});

describe('market lifecycle', () => {
  it('a tick-size change cancels resting orders off the new tick', async () => {
    const m = v.markets.find((x) => x.minimum_tick_size === 0.001)!;
    const on = await a.place(yes(m), 'BUY', '0.30', '10', { tick: '0.001', negRisk: m.neg_risk });
    const off = await a.place(yes(m), 'BUY', '0.305', '10', { tick: '0.001', negRisk: m.neg_risk });
    expect(off.body.status).toBe('live');
    expect((await v.admin(`/markets/${m.condition_id}/tick-size`, { tick_size: '0.01' })).status).toBe(200);
    const ids = await openIds(a);
    expect(ids).toContain(on.id);
    expect(ids).not.toContain(off.id);
    expect(await getJson(`${v.clob}/tick-size?token_id=${yes(m)}`)).toEqual({ minimum_tick_size: 0.01 });
  });

  it('resolution cancels open orders; holders redeem 1 per winning share through the relayer', async () => {
    const m = v.markets.find((x) => x.minimum_tick_size === 0.1)!;
    const tick = '0.1' as const;
    await b.place(yes(m), 'BUY', '0.3', '10', { tick, negRisk: m.neg_risk });
    await a.place(no(m), 'BUY', '0.7', '10', { tick, negRisk: m.neg_risk });
    const resting = await a.place(yes(m), 'BUY', '0.1', '10', { tick, negRisk: m.neg_risk });
    const ca = Number(await collateral(a));
    const cb = Number(await collateral(b));
    await v.admin(`/markets/${m.condition_id}/resolve`, { winning_token: no(m) });
    expect(await openIds(a)).not.toContain(resting.id);
    // the resolution pays nobody by itself (the resting order's reservation is released)
    expect(Number(await collateral(a))).toBe(ca);
    expect(await tokenBal(a, no(m))).toBe('10');
    expect((await a.submit({ type: 'REDEEM', conditionId: m.condition_id })).status).toBe(200);
    expect((await b.submit({ type: 'REDEEM', conditionId: m.condition_id })).status).toBe(200);
    expect(Number(await collateral(a))).toBe(ca + 10);
    expect(Number(await collateral(b))).toBe(cb);
    expect(await tokenBal(a, no(m))).toBe('0');
    const rec = await getJson(`${v.clob}/markets/${m.condition_id}`);
    expect(rec).toMatchObject({ active: false, closed: true });
    expect(rec.tokens.find((t: any) => t.winner).token_id).toBe(no(m));
    const late = await a.place(yes(m), 'BUY', '0.5', '10', { tick, negRisk: m.neg_risk });
    expect(late.body.error.code).toBe('MARKET_NOT_READY');
  });
});

describe('positions', () => {
  it('reports size and average price of what a wallet holds', async () => {
    const p = (await a.l2('GET', '/positions')).body as any[];
    const noPos = p.find((x) => x.asset_id === no(v.m1));
    // 10 bought at 0.6 (mint), 5 sold (merge), 8 bought at 0.7: 13 held at (5 x 0.6 + 8 x 0.7) / 13
    expect(noPos).toMatchObject({ size: '13', avg_price: '0.661538', outcome: 'No' });
    expect(noPos.realized_pnl).toBe('-1'); // sold 5 at 0.4 that cost 0.6
  });
});
