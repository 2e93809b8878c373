/**
 * Issue 16, routes public clients call: read-only API keys and a market's live activity.
 *
 * A read-only key (`POST /auth/readonly-api-key`, a bare key without secret) reads its account as
 * `Authorization: Bearer <key>` and nothing more: it never places or cancels an order, sends a
 * heartbeat, manages keys or submits to the relayer (403), and it never sees the account's API key.
 * Keys are listed, validated (public) and deleted by the account; they survive a restart with --db.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_READONLY_KEYS } from '../../src/exchange/accounts/keys.ts';
import { startExchange, type RunningExchange } from '../../src/exchange/server.ts';
import { no, startVenue, yes, type TestVenue } from '../integration/support/setup.ts';
import { Trader } from '../integration/support/trader.ts';

let v: TestVenue;
const extra: RunningExchange[] = [];
beforeAll(async () => {
  v = await startVenue({ http: { rateLimits: { enabled: true, scale: 10, queueMs: 500 } } });
});
afterAll(async () => {
  await v?.close();
  for (const e of extra) await e.close();
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe('read-only API keys (issue 16)', () => {
  it('are created, listed, validated and deleted by their account', async () => {
    const t = await v.trader();
    const other = await v.trader();
    const created = await t.l2('POST', '/auth/readonly-api-key');
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ apiKey: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const key: string = created.body.apiKey;
    expect(key).not.toBe(t.creds!.apiKey);
    const second = (await t.l2('POST', '/auth/readonly-api-key')).body.apiKey as string;
    expect(second).not.toBe(key);
    expect((await t.l2('GET', '/auth/readonly-api-keys')).body).toEqual([key, second]);
    expect((await other.l2('GET', '/auth/readonly-api-keys')).body).toEqual([]);

    const validate = async (address: string, k: string) =>
      (await t.raw('GET', '/auth/validate-readonly-api-key', { query: `address=${address}&key=${k}` })).body;
    expect(await validate(t.address, key)).toEqual({ valid: true });
    expect(await validate(t.wallet.address, key)).toEqual({ valid: true }); // checksummed address
    expect(await validate(other.address, key)).toEqual({ valid: false });
    expect(await validate(t.address, t.creds!.apiKey)).toEqual({ valid: false }); // a full key is no read-only key
    expect(await validate(t.address, '00000000-0000-4000-8000-000000000000')).toEqual({ valid: false });
    expect((await t.raw('GET', '/auth/validate-readonly-api-key', { query: `address=${t.address}` })).status).toBe(400);

    // another account cannot delete it; its owner can, once
    expect((await other.l2('DELETE', '/auth/readonly-api-key', { key })).body).toBe(false);
    expect(await validate(t.address, key)).toEqual({ valid: true });
    expect((await t.l2('DELETE', '/auth/readonly-api-key', { key })).body).toBe(true);
    expect((await t.l2('DELETE', '/auth/readonly-api-key', { key })).body).toBe(false);
    expect(await validate(t.address, key)).toEqual({ valid: false });
    expect((await t.l2('GET', '/auth/readonly-api-keys')).body).toEqual([second]);
    expect((await t.raw('GET', '/data/orders', { headers: bearer(key) })).status).toBe(401);
  });

  it('read the account as Bearer, and cannot place, cancel, heartbeat, submit or manage keys', async () => {
    const t = await v.trader();
    const live = await t.place(yes(v.m1), 'BUY', '0.20', '10');
    expect(live.status).toBe(200);
    const key: string = (await t.l2('POST', '/auth/readonly-api-key')).body.apiKey;
    const read = (path: string, query?: string) =>
      t.raw('GET', path, { headers: bearer(key), ...(query ? { query } : {}) });

    const orders = await read('/data/orders');
    expect(orders.status).toBe(200);
    expect(orders.body.data.map((o: { id: string }) => o.id)).toEqual([live.id]);
    // the account's API key never shows: the owner is its alias, as to anyone but the key itself
    expect(orders.body.data[0].owner).not.toBe(t.creds!.apiKey);
    expect(JSON.stringify(orders.body)).not.toContain(t.creds!.apiKey);
    expect((await read(`/data/order/${live.id}`)).status).toBe(200);
    for (const path of ['/data/trades', '/balances', '/positions', '/notifications', '/auth/ban-status/closed-only'])
      expect((await read(path)).status, path).toBe(200);
    expect((await read('/balance-allowance', 'asset_type=COLLATERAL')).status).toBe(200);

    const order = t.order(yes(v.m1), 'BUY', '0.21', '10');
    const refused: Array<[string, string, unknown]> = [
      ['POST', '/order', order.body],
      ['POST', '/orders', [order.body]],
      ['DELETE', '/order', { orderID: live.id }],
      ['DELETE', '/orders', [live.id]],
      ['DELETE', '/cancel-all', undefined],
      ['DELETE', '/cancel-market-orders', { market: v.m1.condition_id }],
      ['POST', '/v1/heartbeats', { heartbeat_id: null }],
      ['GET', '/auth/api-key', undefined],
      ['GET', '/auth/api-keys', undefined],
      ['DELETE', '/auth/api-key', undefined],
      ['POST', '/auth/readonly-api-key', undefined],
      ['GET', '/auth/readonly-api-keys', undefined],
      ['DELETE', '/auth/readonly-api-key', { key }],
      ['GET', '/balance-allowance/update', undefined],
    ];
    for (const [method, path, body] of refused) {
      const r = await t.raw(method, path, { headers: bearer(key), ...(body !== undefined ? { body } : {}) });
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body).toMatchObject({ success: false, error: { code: 'FORBIDDEN' } });
    }
    // not as POLY_API_KEY either (it has no secret to sign with)
    const asL2 = await t.raw('POST', '/order', {
      body: order.body,
      headers: {
        POLY_API_KEY: key,
        POLY_ADDRESS: t.address,
        POLY_PASSPHRASE: 'x',
        POLY_SIGNATURE: 'x',
        POLY_TIMESTAMP: String(Math.floor(Date.now() / 1000)),
      },
    });
    expect(asL2.status).toBe(403);
    const relayer = await t.raw('POST', '/submit', {
      base: t.relayerUrl,
      headers: bearer(key),
      body: { type: 'SPLIT', conditionId: v.m1.condition_id, amount: '1' },
    });
    expect(relayer.status).toBe(403);
    // nothing changed: the one order still rests, no other was placed
    expect((await read('/data/orders')).body.data.map((o: { id: string }) => o.id)).toEqual([live.id]);
    expect((await t.l2('GET', '/auth/readonly-api-keys')).body).toEqual([key]);
    expect(v.running.security.counts().auth_failed).toBeGreaterThanOrEqual(refused.length + 2);
  });

  it(`are at most ${MAX_READONLY_KEYS} per address`, async () => {
    const t = await v.trader();
    for (let i = 0; i < MAX_READONLY_KEYS; i++) expect((await t.l2('POST', '/auth/readonly-api-key')).status).toBe(200);
    const over = await t.l2('POST', '/auth/readonly-api-key');
    expect(over.status).toBe(400);
    expect(over.body.error.code).toBe('TOO_MANY_READONLY_KEYS');
    const first = (await t.l2('GET', '/auth/readonly-api-keys')).body[0] as string;
    expect((await t.l2('DELETE', '/auth/readonly-api-key', { key: first })).body).toBe(true);
    expect((await t.l2('POST', '/auth/readonly-api-key')).status).toBe(200);
  });

  it('survive a restart with --db (journaled), deletions too', async () => {
    const dbFile = join(mkdtempSync(join(tmpdir(), 'mmkit-rokeys-')), 'x.db');
    const opts = { port: 0, seed: 3, dbFile, world: { agents: 'none' as const, lifecycle: false, priceFeed: false } };
    const a = await startExchange(opts);
    extra.push(a);
    const t = new Trader(a.urls.clob_url);
    expect((await t.createKey()).status).toBe(200);
    const kept: string = (await t.l2('POST', '/auth/readonly-api-key')).body.apiKey;
    const dropped: string = (await t.l2('POST', '/auth/readonly-api-key')).body.apiKey;
    expect((await t.l2('DELETE', '/auth/readonly-api-key', { key: dropped })).body).toBe(true);
    await a.close();

    const b = await startExchange(opts);
    extra.push(b);
    const t2 = new Trader(b.urls.clob_url, t.wallet.privateKey);
    t2.creds = t.creds;
    expect((await t2.l2('GET', '/auth/readonly-api-keys')).body).toEqual([kept]);
    const check = async (k: string) =>
      (await t2.raw('GET', '/auth/validate-readonly-api-key', { query: `address=${t.address}&key=${k}` })).body;
    expect(await check(kept)).toEqual({ valid: true });
    expect(await check(dropped)).toEqual({ valid: false });
    expect((await t2.raw('GET', '/balances', { headers: bearer(kept) })).status).toBe(200);
    // a new key after the restart is a new one, not a replay of the deleted one
    const fresh: string = (await t2.l2('POST', '/auth/readonly-api-key')).body.apiKey;
    expect([kept, dropped]).not.toContain(fresh);
  });
});

describe('GET /live-activity/events/{condition_id} (issue 16)', () => {
  it("answers the market's trades, newest first, in the public client's shape", async () => {
    const buyer = await v.trader();
    const seller = await v.trader();
    const m = v.markets.find((x) => !x.neg_risk && x.minimum_tick_size === 0.01 && x !== v.m1) ?? v.m1;
    const quiet = v.markets.find((x) => x !== m);
    const before = await buyer.raw('GET', `/live-activity/events/${m.condition_id}`);
    expect(before.status).toBe(200);
    const n0 = (before.body as unknown[]).length;
    expect((await buyer.place(yes(m), 'BUY', '0.40', '10')).status).toBe(200);
    const hit = await seller.place(no(m), 'BUY', '0.60', '10');
    expect(hit.body).toMatchObject({ success: true, status: 'matched' });
    const r = await buyer.raw('GET', `/live-activity/events/${m.condition_id}`);
    expect(r.status).toBe(200);
    expect(r.body.length).toBe(n0 + 1);
    expect(r.body[0]).toEqual({
      event_type: 'trade',
      market: {
        condition_id: m.condition_id,
        asset_id: no(m),
        question: expect.any(String),
        icon: expect.any(String),
        slug: expect.any(String),
      },
      user: {
        address: seller.address,
        username: expect.any(String),
        profile_picture: expect.any(String),
        optimized_profile_picture: expect.any(String),
        pseudonym: expect.any(String),
      },
      side: 'BUY',
      size: '10',
      fee_rate_bps: expect.stringMatching(/^\d+$/),
      price: '0.6',
      outcome: 'No',
      outcome_index: 1,
      transaction_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      timestamp: expect.stringMatching(/^\d{10}$/),
    });
    expect(Math.abs(Number(r.body[0].timestamp) - Date.now() / 1000)).toBeLessThan(60);
    const limited = await buyer.raw('GET', `/live-activity/events/${m.condition_id}`, { query: 'limit=1' });
    expect(limited.body.length).toBe(1);
    if (quiet) expect((await buyer.raw('GET', `/live-activity/events/${quiet.condition_id}`)).status).toBe(200);
    const unknown = await buyer.raw('GET', `/live-activity/events/0x${'0'.repeat(64)}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
  });
});
