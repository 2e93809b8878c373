/**
 * Orders built and signed by mmkit's OrderBuilder, placed on the real paper exchange over loopback
 * HTTP with L2 auth: accepted with the locally computed id, matched, cancelled; batches; a duplicate
 * re-send is refused (idempotency); a neg-risk market order; a GTD order; the pure-JS crypto path;
 * a proxy (signatureType 1) order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveClock } from '../../src/core/clock.ts';
import { OrderBuilder, toPostBody, type BuiltOrder, type PostBodyOptions } from '../../src/api/orders.ts';
import { nativeCrypto, setCryptoBackend } from '../../src/api/signing/fast-crypto.ts';
import { getJson, no, startVenue, yes, type TestVenue } from './support/setup.ts';
import { tickOf, type Trader } from './support/trader.ts';

let v: TestVenue;
let a: Trader;
let b: Trader;
let ba: OrderBuilder<1>;
let bb: OrderBuilder<1>;

const post = (t: Trader, o: BuiltOrder, opts: Partial<PostBodyOptions> = {}) =>
  t.l2('POST', '/order', toPostBody(o, { owner: t.creds!.apiKey, ...opts }));

beforeAll(async () => {
  v = await startVenue();
  a = await v.trader();
  b = await v.trader();
  ba = new OrderBuilder({ wallet: a.wallet, chainId: 137, clock: new LiveClock() });
  bb = new OrderBuilder({ wallet: b.wallet, chainId: 137, clock: new LiveClock() });
});
afterAll(async () => v?.close());

describe('OrderBuilder orders on the paper exchange', () => {
  it('a GTC bid rests under its local id, a crossing offer matches it, amounts as signed', async () => {
    const m = v.m1;
    const bid = ba.buildLimit({
      tokenId: yes(m),
      side: 'BUY',
      price: '0.41',
      size: '10',
      tick: '0.01',
      negRisk: false,
    });
    const r = await post(a, bid);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, status: 'live', orderID: bid.id });
    const rec = (await a.l2('GET', `/data/order/${bid.id}`)).body;
    expect(rec).toMatchObject({ id: bid.id, price: '0.41', original_size: '10', side: 'BUY', asset_id: yes(m) });
    // B buys NO at 0.59 (integer pips and micro-shares), the complement of A's bid: a mint
    const cross = bb.buildLimit({
      tokenId: no(m),
      side: 'BUY',
      price: 5900,
      size: 10_000_000,
      tick: '0.01',
      negRisk: false,
    });
    const rc = await post(b, cross);
    expect(rc.body).toMatchObject({
      success: true,
      status: 'matched',
      orderID: cross.id,
      makingAmount: '5.9',
      takingAmount: '10',
    });
  });

  it('cancels by id (DELETE /order) and in a batch (DELETE /orders)', async () => {
    const m = v.m1;
    const o = ba.buildLimit({ tokenId: yes(m), side: 'BUY', price: '0.2', size: '5', tick: '0.01', negRisk: false });
    expect((await post(a, o)).body.status).toBe('live');
    const c = await a.l2('DELETE', '/order', { orderID: o.id });
    expect(c.body).toEqual({ canceled: [o.id], not_canceled: {} });

    const batch = [0.21, 0.22, 0.23].map((p) =>
      ba.buildLimit({ tokenId: yes(m), side: 'BUY', price: p.toFixed(2), size: '5', tick: '0.01', negRisk: false }),
    );
    const rb = await a.l2(
      'POST',
      '/orders',
      batch.map((x) => toPostBody(x, { owner: a.creds!.apiKey, postOnly: true })),
    );
    expect(rb.status).toBe(200);
    expect(rb.body.map((x: any) => x.orderID)).toEqual(batch.map((x) => x.id));
    expect(rb.body.every((x: any) => x.success && x.status === 'live')).toBe(true);
    const cb = await a.l2(
      'DELETE',
      '/orders',
      batch.map((x) => x.id),
    );
    expect(new Set(cb.body.canceled)).toEqual(new Set(batch.map((x) => x.id)));
  });

  it('re-sending the identical signed order is refused as a duplicate, never a second order', async () => {
    const o = ba.buildLimit({
      tokenId: yes(v.m1),
      side: 'BUY',
      price: '0.15',
      size: '5',
      tick: '0.01',
      negRisk: false,
    });
    const body = toPostBody(o, { owner: a.creds!.apiKey });
    expect((await a.l2('POST', '/order', body)).body.status).toBe('live');
    const again = await a.l2('POST', '/order', body);
    expect(again.body).toMatchObject({ success: false, error: { code: 'INVALID_ORDER_DUPLICATED' } });
    const open = (await a.l2('GET', '/data/orders')).body.data.filter((x: any) => x.id === o.id);
    expect(open).toHaveLength(1);
    await a.l2('DELETE', '/order', { orderID: o.id });
  });

  it('post-only refuses to cross', async () => {
    const m = v.m1;
    const ask = bb.buildLimit({ tokenId: no(m), side: 'BUY', price: '0.3', size: '5', tick: '0.01', negRisk: false }); // = YES ask at 0.7
    expect((await post(b, ask)).body.status).toBe('live');
    const cross = ba.buildLimit({
      tokenId: yes(m),
      side: 'BUY',
      price: '0.7',
      size: '5',
      tick: '0.01',
      negRisk: false,
    });
    const r = await post(a, cross, { postOnly: true });
    expect(r.body).toMatchObject({ success: false, error: { code: 'INVALID_POST_ONLY_ORDER' } });
    await b.l2('DELETE', '/order', { orderID: ask.id });
  });

  it('a neg-risk market order (FOK BUY of $ collateral) fills against the complement', async () => {
    const m = v.negRisk;
    const tick = tickOf(m);
    // B bids NO at 0.45 (= offers YES at 0.55), then A spends $5.5 on YES with a worst price of 0.6
    const rest = bb.buildLimit({ tokenId: no(m), side: 'BUY', price: '0.45', size: '20', tick, negRisk: true });
    expect((await post(b, rest)).body).toMatchObject({ success: true, status: 'live', orderID: rest.id });
    const wrongDomain = ba.buildMarket({
      tokenId: yes(m),
      side: 'BUY',
      price: '0.6',
      amount: '5.5',
      tick,
      negRisk: false,
    });
    expect((await post(a, wrongDomain, { orderType: 'FOK' })).body).toMatchObject({
      success: false,
      error: { code: 'INVALID_SIGNATURE' },
    });
    const mo = ba.buildMarket({ tokenId: yes(m), side: 'BUY', price: '0.6', amount: '5.5', tick, negRisk: true });
    expect(mo.struct.makerAmount).toBe(5_500_000n);
    const r = await post(a, mo, { orderType: 'FOK' });
    expect(r.body).toMatchObject({ success: true, status: 'matched', orderID: mo.id });
    expect(Number(r.body.takingAmount)).toBeGreaterThanOrEqual(9.16); // 5.5 / 0.6 at worst; 10 at 0.55
    const trades = (await a.l2('GET', '/data/trades')).body.data;
    expect(trades.some((t: any) => t.taker_order_id === mo.id)).toBe(true);
    await b.l2('DELETE', '/cancel-all');
  });

  it('a GTD order rests with its expiration and is cancelled', async () => {
    const o = ba.buildLimit({
      tokenId: yes(v.m1),
      side: 'BUY',
      price: '0.12',
      size: '5',
      tick: '0.01',
      negRisk: false,
      ttlSec: 120,
    });
    const now = Math.floor(Date.now() / 1000);
    expect(Number(o.expiration)).toBeGreaterThanOrEqual(now + 179);
    const r = await post(a, o, { orderType: 'GTD' });
    expect(r.body).toMatchObject({ success: true, status: 'live', orderID: o.id });
    const rec = (await a.l2('GET', `/data/order/${o.id}`)).body;
    // the record echoes the expiration sent (the venue keeps the order until 60 s before it)
    expect(Number(rec.expiration)).toBe(Number(o.expiration));
    expect(rec.order_type).toBe('GTD');
    expect((await a.l2('DELETE', '/order', { orderID: o.id })).body.canceled).toEqual([o.id]);
    // expired already (inside the threshold): refused
    const stale = ba.buildLimit({
      tokenId: yes(v.m1),
      side: 'BUY',
      price: '0.12',
      size: '5',
      tick: '0.01',
      negRisk: false,
      expiration: now + 30,
    });
    expect((await post(a, stale, { orderType: 'GTD' })).body).toMatchObject({
      success: false,
      error: { code: 'INVALID_ORDER_EXPIRATION' },
    });
  });

  it('orders signed on the pure-JS path are accepted too', async () => {
    setCryptoBackend('pure-js');
    try {
      const o = ba.buildLimit({
        tokenId: yes(v.m1),
        side: 'SELL',
        price: '0.95',
        size: '5',
        tick: '0.01',
        negRisk: false,
      });
      // A holds YES from the first test
      expect((await post(a, o)).body).toMatchObject({ success: true, orderID: o.id });
      await a.l2('DELETE', '/order', { orderID: o.id });
    } finally {
      if (nativeCrypto) setCryptoBackend('native');
    }
  });

  it('a proxy order (signatureType 1): maker = a funder registered to the API key wallet, signed by it', async () => {
    const funder = '0x' + 'ab'.repeat(20);
    expect((await v.admin('/balances', { address: funder, collateral: '100' })).status).toBe(200);
    // not the signer's derived proxy wallet: an operator registers it to the signer
    expect((await v.admin('/funders', { signer: a.wallet.address, funder })).status).toBe(200);
    const pb = new OrderBuilder({ wallet: a.wallet, chainId: 137, signatureType: 1, funder });
    const o = pb.buildLimit({ tokenId: yes(v.m1), side: 'BUY', price: '0.1', size: '5', tick: '0.01', negRisk: false });
    const r = await post(a, o);
    expect(r.body).toMatchObject({ success: true, status: 'live', orderID: o.id });
    const book = await getJson(`${v.clob}/book?token_id=${yes(v.m1)}`);
    expect(book.bids.some((l: any) => l.price === '0.1')).toBe(true);
  });
});
