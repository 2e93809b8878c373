/**
 * Issue 16, defect 1: an API key may trade only for its own wallet, its derived proxy wallet
 * (signatureType 1) and Safe (signatureType 2), and funders an operator registered to it
 * (POST /admin/funders). Naming another wallet as maker is refused and changes nothing; order
 * traffic never links accounts. Real paper exchange on loopback, real HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderToWire, signOrder, type SignedOrderStruct } from '../../src/api/signing/order.ts';
import { limitOrderAmounts, type Side } from '../../src/core/units.ts';
import { proxyWalletOf, safeOf } from '../../src/exchange/accounts/funders.ts';
import { getJson, startVenue, yes, type TestVenue } from '../integration/support/setup.ts';
import type { Trader } from '../integration/support/trader.ts';

let v: TestVenue;
let a: Trader; // the attacker's key
let b: Trader; // the victim
let seller: Trader;
let salt = 1;

/** A signed order of `t` funded by `maker` with `signatureType`, as a POST /order body. */
function orderFor(
  t: Trader,
  maker: string,
  signatureType: 0 | 1 | 2,
  side: Side,
  price: string,
  size: string,
  orderType: 'GTC' | 'FOK' = 'FOK',
): { id: string; body: Record<string, unknown> } {
  const amounts = limitOrderAmounts(side, '0.01', price, size);
  const struct: SignedOrderStruct = {
    salt: BigInt(Date.now() * 1000 + salt++),
    maker,
    signer: t.wallet.address,
    taker: '0x0000000000000000000000000000000000000000',
    tokenId: BigInt(yes(v.m1)),
    makerAmount: amounts.makerAmount,
    takerAmount: amounts.takerAmount,
    expiration: 0n,
    nonce: 0n,
    feeRateBps: 0n,
    side: side === 'BUY' ? 0 : 1,
    signatureType,
  };
  const { digest, signature } = signOrder(t.wallet, struct, 137, false);
  return { id: digest, body: { order: orderToWire(struct, signature), owner: t.creds!.apiKey, orderType } };
}

/** Everything the victim can observe of its account. */
async function stateOf(t: Trader) {
  return {
    balances: (await t.l2('GET', '/balances')).body,
    positions: (await t.l2('GET', '/positions')).body,
    orders: (await t.l2('GET', '/data/orders')).body,
    trades: (await t.l2('GET', '/data/trades')).body,
  };
}

const asks = async () => (await getJson(`${v.clob}/book?token_id=${yes(v.m1)}`)).asks;

beforeAll(async () => {
  v = await startVenue({ exchange: { protocol: 1 } }); // V1-signed orders (V2: v2-orders.test.ts)
  a = await v.trader();
  b = await v.trader();
  seller = await v.trader();
  expect((await v.admin('/balances', { address: b.address, collateral: '1000' })).status).toBe(200);
  expect((await v.admin('/balances', { address: seller.address, tokens: { [yes(v.m1)]: '1000' } })).status).toBe(200);
  expect((await seller.place(yes(v.m1), 'SELL', '0.50', '500')).body).toMatchObject({ success: true });
  // the victim has a resting order of its own
  expect((await b.place(yes(v.m1), 'BUY', '0.20', '10')).body).toMatchObject({ success: true, status: 'live' });
});
afterAll(async () => v?.close());

describe('maker authorization (issue 16, defect 1)', () => {
  it.each([1, 2] as const)(
    "key A naming B as maker (signatureType %i) is refused; B's account is untouched",
    async (st) => {
      const before = await stateOf(b);
      const asksBefore = await asks();
      const o = orderFor(a, b.wallet.address, st, 'BUY', '0.50', '20');
      const r = await a.l2('POST', '/order', o.body);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ success: false, error: { code: 'INVALID_ORDER_OWNER' }, orderID: o.id });
      expect(r.body.errorMsg).toMatch(/maker \(funder\)/);
      expect(await stateOf(b)).toEqual(before);
      expect(await asks()).toEqual(asksBefore);
      // a resting (GTC) order on B's account is refused the same way
      const g = orderFor(a, b.wallet.address, st, 'BUY', '0.10', '10', 'GTC');
      expect((await a.l2('POST', '/order', g.body)).body).toMatchObject({ error: { code: 'INVALID_ORDER_OWNER' } });
      expect(await stateOf(b)).toEqual(before);
    },
  );

  it("A cannot see, list or cancel B's orders or trades (no account was linked)", async () => {
    const bOrders = (await b.l2('GET', '/data/orders')).body.data.map((x: any) => x.id);
    expect(bOrders).toHaveLength(1);
    const id = bOrders[0];
    expect((await a.l2('GET', '/data/orders')).body.data).toEqual([]);
    expect((await a.l2('GET', `/data/order/${id}`)).status).toBe(404);
    // B's address as maker_address: a 400 on every read that takes it (never B's orders or trades)
    for (const path of ['/data/trades', '/data/orders', '/balances', '/positions']) {
      const r = await a.l2('GET', path, undefined, `maker_address=${b.address}`);
      expect(r.status, path).toBe(400);
      expect(JSON.stringify(r.body)).not.toContain(id);
    }
    const c = await a.l2('DELETE', '/order', { orderID: id });
    expect(c.body.canceled ?? []).toEqual([]);
    expect((await a.l2('DELETE', '/cancel-all')).body.canceled).toEqual([]);
    expect((await b.l2('GET', '/data/orders')).body.data.map((x: any) => x.id)).toEqual([id]);
  });

  it('the derived proxy wallet (type 1) and Safe (type 2) of A may fund its orders, and only for their type', async () => {
    const proxy = proxyWalletOf(a.address);
    const safe = safeOf(a.address);
    expect(proxy).not.toBe(safe);
    for (const addr of [proxy, safe])
      expect((await v.admin('/balances', { address: addr, collateral: '100' })).status).toBe(200);
    // a proxy wallet is not a Safe, nor the other way round
    expect((await a.l2('POST', '/order', orderFor(a, proxy, 2, 'BUY', '0.50', '10').body)).body).toMatchObject({
      error: { code: 'INVALID_ORDER_OWNER' },
    });
    expect((await a.l2('POST', '/order', orderFor(a, safe, 1, 'BUY', '0.50', '10').body)).body).toMatchObject({
      error: { code: 'INVALID_ORDER_OWNER' },
    });
    const p = orderFor(a, proxy, 1, 'BUY', '0.50', '10');
    expect((await a.l2('POST', '/order', p.body)).body).toMatchObject({ success: true, status: 'matched' });
    const s = orderFor(a, safe, 2, 'BUY', '0.50', '10');
    expect((await a.l2('POST', '/order', s.body)).body).toMatchObject({ success: true, status: 'matched' });
    // the fills are the derived wallets' (5 USDC each, 10 YES each), not A's own; A's key sees them
    const ex = v.running.exchange;
    const aOwn = ex.engine.balance(a.address).collateral;
    for (const addr of [proxy, safe]) {
      const bl = ex.engine.balance(addr);
      expect(bl.collateral).toBe(95_000_000);
      expect(bl.tokens.get(yes(v.m1))?.available).toBe(10_000_000);
    }
    expect(ex.engine.balance(a.address).collateral).toBe(aOwn);
    expect((await a.l2('GET', '/data/trades')).body.data).toHaveLength(2);
  });

  it('a funder registered to A by an operator may fund its proxy orders; the route needs the admin token', async () => {
    const funder = '0x' + '5a'.repeat(20);
    expect((await v.admin('/balances', { address: funder, collateral: '100' })).status).toBe(200);
    const before = orderFor(a, funder, 1, 'BUY', '0.50', '5');
    expect((await a.l2('POST', '/order', before.body)).body).toMatchObject({ error: { code: 'INVALID_ORDER_OWNER' } });
    const base = v.clob.replace(/\/clob$/, '');
    const noToken = await fetch(`${base}/admin/funders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ signer: a.address, funder }),
    });
    expect(noToken.status).toBe(403);
    const bad = await v.admin('/funders', { signer: a.address, funder: 'nope' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ success: false, error: { code: 'BAD_REQUEST' } });
    const reg = await v.admin('/funders', { signer: a.address, funder });
    expect(reg).toMatchObject({ status: 200, body: { ok: true, added: true } });
    for (const st of [1, 2] as const) {
      const o = orderFor(a, funder, st, 'BUY', '0.50', '5');
      expect((await a.l2('POST', '/order', o.body)).body).toMatchObject({ success: true, status: 'matched' });
    }
    // B still cannot be named: registration is per signer
    expect((await b.l2('POST', '/order', orderFor(b, funder, 1, 'BUY', '0.50', '5').body)).body).toMatchObject({
      error: { code: 'INVALID_ORDER_OWNER' },
    });
  });

  it('derives the Safe address the public service derives (a published signer/Safe pair)', () => {
    expect(safeOf('0xBBc264c10F54A61607A31B53358a5A87d4B045be')).toBe('0xefae63145ffb73ab047e578324bca9baabe5e1ad');
  });
});
