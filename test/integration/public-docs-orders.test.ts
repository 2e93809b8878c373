/**
 * What a client written from the public service's API reference (not from its client libraries)
 * expects of the paper exchange's CLOB, found by an integrator's trial (trial 18): the real exchange
 * on loopback, orders signed as the public docs say, raw HTTP.
 *
 *  - F3: `GET /order/{orderID}` (the reference's path for one order) answers as `/data/order/{id}`.
 *  - F5: the reference's own order example sends `"metadata": ""` (and may send `"builder": ""`): the zero bytes32.
 *  - F6: an order the venue cannot read (post-only on FOK, a bad body) is refused with `errorMsg` and `orderID`.
 *  - F7: an order above the largest size says so (not the generic "could not insert order", which reads as transient).
 *  - F9: a GTD order reads back with the expiration it was sent with (the book drops it 60 s earlier).
 *  - F12: the book's `hash` and `timestamp` stay the same while the book does not change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVenue, type TestVenue } from './support/setup.ts';
import type { Trader } from './support/trader.ts';

let v: TestVenue;
let t: Trader;
let yes: string;
beforeAll(async () => {
  v = await startVenue(); // V2 orders (the default protocol)
  t = await v.trader();
  yes = v.m1.tokens[0]!.token_id;
}, 60_000);
afterAll(async () => {
  await v?.close();
});

describe('the public API reference, read literally', () => {
  it('F3: GET /order/{orderID} is one order, as /data/order/{id}', async () => {
    const r = await t.place(yes, 'BUY', '0.05', '10');
    expect(r.status).toBe(200);
    const a = await t.l2('GET', `/order/${r.id}`);
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    expect(a.body).toEqual((await t.l2('GET', `/data/order/${r.id}`)).body);
    expect(a.body).toMatchObject({ id: r.id, status: 'LIVE', price: '0.05' });
    expect((await t.l2('GET', `/order/0x${'ab'.repeat(32)}`)).status).toBe(404);
  });

  it('F5: "metadata": "" and "builder": "" are the zero bytes32 (the order as signed with zeros)', async () => {
    const { body, id } = t.order(yes, 'BUY', '0.06', '10');
    const order = body['order'] as Record<string, unknown>;
    const r = await t.l2('POST', '/order', { ...body, order: { ...order, metadata: '', builder: '' } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ success: true, orderID: id });
    const bad = await t.l2('POST', '/order', { ...body, order: { ...order, metadata: '0x12' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errorMsg).toContain('order.metadata: expected a bytes32');
  });

  it('F6: a post-only FOK and an unreadable body are refused with errorMsg and orderID, as every refusal', async () => {
    const { body } = t.order(yes, 'BUY', '0.07', '10', { type: 'FOK' });
    const po = await t.l2('POST', '/order', { ...body, postOnly: true });
    expect(po.status).toBe(400);
    expect(po.body).toMatchObject({
      success: false,
      errorMsg: 'invalid post-only order: only GTC and GTD order types are allowed',
      orderID: '',
      status: '',
      error: { code: 'INVALID_POST_ONLY_ORDER_TYPE' },
    });
    const ioc = await t.l2('POST', '/order', { ...body, orderType: 'IOC' });
    expect(ioc.status).toBe(400);
    expect(ioc.body).toMatchObject({ success: false, orderID: '', error: { code: 'BAD_REQUEST' } });
    expect(ioc.body.errorMsg).toContain('orderType');
  });

  it('F7: an order above 500,000 shares says so', async () => {
    const r = await t.place(yes, 'BUY', '0.30', '999999');
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      success: false,
      errorMsg: 'order is invalid. Size 999999 exceeds the maximum of 500000 shares',
      error: { code: 'INVALID_ORDER_ERROR' },
    });
  });

  it('F9: a GTD order reads back with the expiration it was sent with', async () => {
    const expiration = Math.floor(Date.now() / 1000) + 600;
    const r = await t.place(yes, 'BUY', '0.04', '10', { type: 'GTD', expiration });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const o = await t.l2('GET', `/data/order/${r.id}`);
    expect(o.body).toMatchObject({ order_type: 'GTD', expiration: String(expiration) });
    const open = await t.l2('GET', '/data/orders');
    expect((open.body.data as Array<{ id: string; expiration: string }>).find((x) => x.id === r.id)?.expiration).toBe(
      String(expiration),
    );
  });

  it('F12: the book hash and timestamp stay while the book does not change, and move when it does', async () => {
    const read = async () => {
      const res = await fetch(`${v.clob}/book?token_id=${yes}`);
      return (await res.json()) as { hash: string; timestamp: string; bids: unknown[] };
    };
    const a = await read();
    await new Promise((r) => setTimeout(r, 30));
    const b = await read();
    expect(b.hash).toBe(a.hash);
    expect(b.timestamp).toBe(a.timestamp);
    expect((await t.place(yes, 'BUY', '0.03', '10')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 5));
    const c = await read();
    expect(c.hash).not.toBe(a.hash);
    expect(Number(c.timestamp)).toBeGreaterThan(Number(a.timestamp));
    expect(c.bids.length).toBe(a.bids.length + 1);
  });
});
