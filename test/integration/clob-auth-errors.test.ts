/**
 * Auth failures and bad input against the real server: every refusal is the spec's error envelope
 * with the right status, and none of them changes anything.
 */
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { l1Headers } from '../../src/api/signing/clob-auth.ts';
import { buildHmacSignature } from '../../src/api/signing/hmac.ts';
import { startVenue, yes, getJson, type TestVenue } from './support/setup.ts';
import { Trader } from './support/trader.ts';

let v: TestVenue;
let a: Trader;
let b: Trader;
let restingId: string;

const state = async (t: Trader) => ({
  balances: (await t.l2('GET', '/balances')).body,
  open: (await t.l2('GET', '/data/orders')).body.data,
});

function expectEnvelope(r: { status: number; body: any }, status: number, code?: string) {
  expect(r.status).toBe(status);
  expect(r.body.success).toBe(false);
  expect(typeof r.body.error.code).toBe('string');
  expect(typeof r.body.error.message).toBe('string');
  if (code) expect(r.body.error.code).toBe(code);
}

beforeAll(async () => {
  v = await startVenue({ http: { rateLimits: { enabled: true, scale: 10, queueMs: 500 } } });
  a = await v.trader();
  b = await v.trader();
  const r = await a.place(yes(v.m1), 'BUY', '0.40', '10');
  restingId = r.id;
});
afterAll(async () => v?.close());

describe('API keys (L1)', () => {
  it('creates once per nonce and derives the same credentials again', async () => {
    const t = new Trader(v.clob);
    const c1 = await t.createKey(3);
    expect(c1.status).toBe(200);
    expect(Object.keys(c1.body).sort()).toEqual(['apiKey', 'passphrase', 'secret']);
    const c2 = await t.raw('POST', '/auth/api-key', { headers: t.l1(3) });
    expectEnvelope(c2, 400);
    const d = await t.raw('GET', '/auth/derive-api-key', { headers: t.l1(3) });
    expect(d.body).toEqual(c1.body);
    const keys = await t.l2('GET', '/auth/api-keys');
    expect(keys.body.apiKeys).toEqual([c1.body.apiKey]);
  });

  it('derive never creates: a nonce (or a wallet) without a key is 400, and nothing is created nor credited (findings-5 P5)', async () => {
    const t = new Trader(v.clob);
    await t.createKey(3);
    // the public service answers 400 "Could not derive api key!" for a key never created
    const other = await t.raw('GET', '/auth/derive-api-key', { headers: t.l1(4) });
    expectEnvelope(other, 400, 'BAD_REQUEST');
    expect(other.body.error.message).toMatch(/^Could not derive api key!/);
    expect((await t.l2('GET', '/auth/api-keys')).body.apiKeys).toHaveLength(1);
    // a fresh wallet: no key, no account (the starting balance comes with the first key created)
    const fresh = new Trader(v.clob);
    expectEnvelope(await fresh.raw('GET', '/auth/derive-api-key', { headers: fresh.l1(0) }), 400);
    expect(v.running.exchange.keys.list(fresh.address)).toEqual([]);
    expect(v.running.exchange.engine.balance(fresh.address).collateral).toBe(0);
    // created, then derived: the same credentials
    const created = await fresh.createKey(0);
    const derived = await fresh.raw('GET', '/auth/derive-api-key', { headers: fresh.l1(0) });
    expect(derived.status).toBe(200);
    expect(derived.body).toEqual(created.body);
  });

  it('refuses an L1 signature made by another wallet', async () => {
    const victim = new Wallet(Wallet.createRandom().privateKey);
    const attacker = new Wallet(Wallet.createRandom().privateKey);
    const h = l1Headers(attacker, 137, Math.floor(Date.now() / 1000), 0);
    const r = await a.raw('POST', '/auth/api-key', { headers: { ...h, POLY_ADDRESS: victim.address } });
    expectEnvelope(r, 401);
    const missing = await a.raw('GET', '/auth/derive-api-key', { headers: { POLY_ADDRESS: victim.address } });
    expectEnvelope(missing, 401);
    const stale = l1Headers(victim, 137, Math.floor(Date.now() / 1000) - 3600, 0);
    expectEnvelope(await a.raw('POST', '/auth/api-key', { headers: { ...stale } }), 401);
  });

  it('deletes a key, after which it no longer authenticates', async () => {
    const t = new Trader(v.clob);
    await t.createKey(0);
    expect((await t.l2('DELETE', '/auth/api-key')).status).toBe(200);
    expectEnvelope(await t.l2('GET', '/balances'), 401);
  });

  it('a key created again after its deletion is a new key: the deleted (leaked) credentials stay dead (trial 7 F8)', async () => {
    const t = new Trader(v.clob);
    await t.createKey(0);
    const leaked = t.creds!;
    expect((await t.l2('DELETE', '/auth/api-key')).status).toBe(200);
    expect((await t.createKey(0)).status).toBe(200);
    const fresh = t.creds!;
    expect(fresh.apiKey).not.toBe(leaked.apiKey);
    expect(fresh.secret).not.toBe(leaked.secret);
    expect(fresh.passphrase).not.toBe(leaked.passphrase);
    expect((await t.l2('GET', '/balances')).status).toBe(200);
    t.creds = leaked;
    expectEnvelope(await t.l2('GET', '/balances'), 401);
    // deriving gives the live key, not the deleted one
    t.creds = fresh;
    const derived = await t.raw('GET', '/auth/derive-api-key', { headers: t.l1(0) });
    expect(derived.body).toMatchObject({ apiKey: fresh.apiKey });
  });
});

describe('request auth (L2 and Bearer)', () => {
  it('refuses requests without credentials, with an unknown key or a wrong passphrase', async () => {
    expectEnvelope(await a.raw('GET', '/data/orders'), 401, 'UNAUTHORIZED');
    expectEnvelope(
      await a.raw('GET', '/balances', { headers: { authorization: 'Bearer 00000000-0000-4000-8000-000000000000' } }),
      401,
    );
    const ts = Math.floor(Date.now() / 1000);
    const headers = {
      POLY_ADDRESS: a.wallet.address,
      POLY_API_KEY: a.creds!.apiKey,
      POLY_PASSPHRASE: 'wrong',
      POLY_TIMESTAMP: String(ts),
      POLY_SIGNATURE: buildHmacSignature(a.creds!.secret, ts, 'GET', '/balances'),
    };
    expectEnvelope(await a.raw('GET', '/balances', { headers }), 401);
  });

  it('refuses an HMAC over a different body or path (tampering)', async () => {
    const ts = Math.floor(Date.now() / 1000);
    const signedBody = JSON.stringify({ orderID: '0x' + '00'.repeat(32) });
    const sentBody = JSON.stringify({ orderID: restingId });
    const headers = {
      POLY_ADDRESS: a.wallet.address,
      POLY_API_KEY: a.creds!.apiKey,
      POLY_PASSPHRASE: a.creds!.passphrase,
      POLY_TIMESTAMP: String(ts),
      POLY_SIGNATURE: buildHmacSignature(a.creds!.secret, ts, 'DELETE', '/order', signedBody),
    };
    const tampered = await a.raw('DELETE', '/order', { rawBody: sentBody, headers });
    expectEnvelope(tampered, 401);
    expect(tampered.body.error.message).toBe(
      'Invalid L2 signature (HMAC of timestamp + method + path + body, the path relative to the API base, e.g. /order)',
    );
    // the path signed is relative to the API base: signing "/clob/order" is wrong
    const h2 = {
      ...headers,
      POLY_SIGNATURE: buildHmacSignature(a.creds!.secret, ts, 'DELETE', '/clob/order', sentBody),
    };
    const wholePath = await a.raw('DELETE', '/order', { rawBody: sentBody, headers: h2 });
    expectEnvelope(wholePath, 401);
    // the usual mistake is named, with the path to sign
    expect(wholePath.body.error.message).toBe(
      'Invalid L2 signature: it was made over /clob/order; sign the path relative to the API base (/order)',
    );
    expect(wholePath.body.error.message).not.toContain(a.creds!.secret);
    expect((await state(a)).open.map((o: any) => o.id)).toContain(restingId);
  });

  it("accepts the spec's Bearer form", async () => {
    const r = await a.raw('GET', '/balances', { headers: { authorization: `Bearer ${a.creds!.apiKey}` } });
    expect(r.status).toBe(200);
    expect(r.body.address).toBe(a.address);
  });

  it("hides and protects another user's orders", async () => {
    expectEnvelope(await b.l2('GET', `/data/order/${restingId}`), 404, 'NOT_FOUND');
    // as the public service: 200, nothing cancelled, the reason its clients match
    const one = await b.l2('DELETE', '/order', { orderID: restingId });
    expect(one.status).toBe(200);
    expect(one.body).toEqual({
      canceled: [],
      not_canceled: { [restingId]: "order can't be found - already canceled or matched" },
    });
    const many = await b.l2('DELETE', '/orders', [restingId]);
    expect(many.body.canceled).toEqual([]);
    expect(Object.keys(many.body.not_canceled)).toEqual([restingId]);
    await b.l2('DELETE', '/cancel-all');
    await b.l2('DELETE', '/cancel-market-orders', { market: v.m1.condition_id });
    expect((await a.l2('GET', `/data/order/${restingId}`)).body.status).toBe('LIVE');
  });

  it('answers one not_canceled reason for every id that is no live order of the caller: own done ones too (findings-3 F2)', async () => {
    const reason = "order can't be found - already canceled or matched";
    const mine = (await a.place(yes(v.m1), 'BUY', '0.30', '5')).id;
    expect((await a.l2('DELETE', '/order', { orderID: mine })).body).toEqual({ canceled: [mine], not_canceled: {} });
    // the caller's own order, already cancelled: the same text as an unknown id or another user's
    const again = await a.l2('DELETE', '/order', { orderID: mine });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ canceled: [], not_canceled: { [mine]: reason } });
    const unknown = `0x${'ef'.repeat(32)}`;
    const many = await a.l2('DELETE', '/orders', [mine, unknown]);
    expect(many.status).toBe(200);
    expect(many.body).toEqual({ canceled: [], not_canceled: { [mine]: reason, [unknown]: reason } });
    expect((await b.l2('DELETE', '/orders', [restingId])).body.not_canceled).toEqual({ [restingId]: reason });
  });

  it("refuses an order signed by another wallet, or placed under another user's key", async () => {
    const before = await state(a);
    const forged = a.order(yes(v.m1), 'BUY', '0.30', '10');
    const mallory = new Wallet(Wallet.createRandom().privateKey);
    (forged.body.order as any).signature = mallory.signingKey.sign(forged.id).serialized;
    const r = await a.l2('POST', '/order', forged.body);
    expectEnvelope(r, 400, 'INVALID_SIGNATURE');
    // B submits A's correctly signed order under B's own key
    const stolen = a.order(yes(v.m1), 'BUY', '0.30', '10');
    const r2 = await b.l2('POST', '/order', { ...stolen.body, owner: b.creds!.apiKey });
    expectEnvelope(r2, 400, 'INVALID_ORDER_OWNER');
    const r3 = await a.l2('POST', '/order', { ...stolen.body, owner: b.creds!.apiKey });
    expectEnvelope(r3, 400, 'INVALID_ORDER_OWNER');
    expect(await state(a)).toEqual(before);
  });
});

describe('bad input', () => {
  it('malformed JSON, missing and mistyped fields, oversized bodies: 4xx envelope, nothing changes', async () => {
    const before = await state(a);
    const send = (raw: string) => a.l2raw('POST', '/order', raw);
    expectEnvelope(await send('{"order": '), 400, 'BAD_REQUEST');
    expectEnvelope(await send('[]'), 400);
    const empty = await send('{}');
    expectEnvelope(empty, 400);
    // a missing field said plainly, not as "expected nonoptional, received undefined"
    expect(empty.body.error.message).toBe('invalid order request: order: required field is missing');
    // the spec's unsigned body: told what to send instead (trial 24 F6)
    const unsigned = await send(JSON.stringify({ tokenID: yes(v.m1), price: '0.30', size: '10', side: 'BUY' }));
    expectEnvelope(unsigned, 400, 'BAD_REQUEST');
    expect(unsigned.body.error.message).toMatch(
      /^invalid order request: an order is signed by its maker: send \{order: \{salt, maker, signer/,
    );
    const good = a.order(yes(v.m1), 'BUY', '0.30', '10').body as any;
    expectEnvelope(await send(JSON.stringify({ ...good, orderType: 'IOC' })), 400);
    const { owner: _, ...noOwner } = good;
    const ownerless = await send(JSON.stringify(noOwner));
    expectEnvelope(ownerless, 400);
    expect(ownerless.body.error.message).toBe('invalid order request: owner: required field is missing');
    expectEnvelope(await send(JSON.stringify({ ...good, order: { ...good.order, makerAmount: -5 } })), 400);
    expectEnvelope(await send(JSON.stringify({ ...good, order: { ...good.order, side: 'HOLD' } })), 400);
    expectEnvelope(await send(JSON.stringify({ ...good, order: { ...good.order, tokenId: 'abc' } })), 400);
    expectEnvelope(await send(JSON.stringify({ ...good, order: { ...good.order, maker: '0x1234' } })), 400);
    expectEnvelope(await send(JSON.stringify({ ...good, order: { ...good.order, signature: 'nope' } })), 400);
    expectEnvelope(await send(JSON.stringify({ ...good, order: { ...good.order, tokenId: '12345' } })), 400);
    const huge = JSON.stringify({ ...good, padding: 'x'.repeat(300 * 1024) });
    expectEnvelope(await send(huge), 413, 'PAYLOAD_TOO_LARGE');
    expectEnvelope(await a.l2raw('DELETE', '/order', '{"orderID": 5}'), 400);
    expectEnvelope(await a.l2raw('DELETE', '/orders', '{"not":"an array"}'), 400);
    const unknown = await a.l2('DELETE', '/order', { orderID: '0x' + 'ab'.repeat(32) });
    expect(unknown.status).toBe(200);
    expect(unknown.body.canceled).toEqual([]);
    expectEnvelope(await a.l2('GET', '/data/order/0xdeadbeef'), 404);
    expect(await state(a)).toEqual(before);
  });

  it('public market data: unknown token 404, bad token 400, unknown route 404', async () => {
    const r1 = await fetch(`${v.clob}/book?token_id=123`);
    expect(r1.status).toBe(404);
    expect(((await r1.json()) as any).success).toBe(false);
    const r2 = await fetch(`${v.clob}/book?token_id=abc`);
    expect(r2.status).toBe(400);
    const r3 = await fetch(`${v.clob}/no-such-route`);
    expect(r3.status).toBe(404);
    expect(((await r3.json()) as any).error.code).toBe('NOT_FOUND');
    const r4 = await fetch(`${v.clob}/markets/0x${'00'.repeat(32)}`);
    expect(r4.status).toBe(404);
    const page = await getJson(`${v.clob}/markets?next_cursor=%%%`);
    expect(page.success).toBe(false);
  });

  it('admin routes need the admin token', async () => {
    const res = await fetch(`${v.clob.replace(/\/clob$/, '')}/admin/balances`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-admin-token': 'wrong' },
      body: JSON.stringify({ address: a.address, collateral: '1000000' }),
    });
    expect(res.status).toBe(403);
    expect((await a.l2('GET', '/balances')).body.collateral.balance).toBe('10000');
  });
});
