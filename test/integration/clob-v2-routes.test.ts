/**
 * The CLOB V2 routes over plain HTTP (issue 17): shapes, validation (malformed ids 400, unknown 404,
 * in the error envelope), authentication of the account routes, the builder-key limit and its
 * journal (--db). The public V2 client's view of the same routes: public-client-v2.test.ts.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BUILDER_KEYS } from '../../src/exchange/accounts/keys.ts';
import { startExchange, type RunningExchange } from '../../src/exchange/server.ts';
import { Trader } from './support/trader.ts';
import { no, startVenue, yes, type TestVenue } from './support/setup.ts';

let v: TestVenue;
const extra: RunningExchange[] = [];
const CID0 = `0x${'0'.repeat(64)}`;

beforeAll(async () => {
  v = await startVenue({ exchange: { protocol: 2 }, http: { rateLimits: { enabled: true, scale: 10, queueMs: 500 } } });
});
afterAll(async () => {
  await Promise.all([v?.close(), ...extra.map((x) => x.close())]);
});

const get = async (path: string, query?: string) => new Trader(v.clob).raw('GET', path, query ? { query } : {});
const envelope = (code: string) => ({ success: false, error: { code, message: expect.any(String) } });

describe('CLOB V2 public routes', () => {
  it('GET /version answers the protocol', async () => {
    expect(await get('/version')).toMatchObject({ status: 200, body: { version: 2 } });
  });

  it('GET /clob-markets/{condition_id}: the compact market info; 400 malformed, 404 unknown', async () => {
    const m = v.m1;
    const r = await get(`/clob-markets/${m.condition_id}`);
    expect(r.status).toBe(200);
    // the reward config (min size, max spread) of a rewarded market, null otherwise
    const cfg = v.running.exchange.rewards.configOf(m.condition_id);
    expect(r.body).toEqual({
      c: m.condition_id,
      t: [
        { t: yes(m), o: 'Yes' },
        { t: no(m), o: 'No' },
      ],
      mts: 0.01,
      nr: false,
      mos: m.minimum_order_size,
      mbf: 0,
      tbf: expect.any(Number),
      fd: { r: expect.any(Number), e: 1, to: true },
      r: cfg === null ? null : { mi: cfg.minSize / 1e6, ma: cfg.maxSpread / 100 },
      gst: null,
      sd: 0,
      ao: true,
      rfqe: false,
      ibce: false,
    });
    expect(r.body.fd.r).toBeCloseTo(r.body.tbf / 10_000, 12);
    expect((await get(`/clob-markets/${v.negRisk.condition_id}`)).body.nr).toBe(true);
    expect(await get('/clob-markets/0x1234')).toMatchObject({ status: 400, body: envelope('BAD_REQUEST') });
    expect(await get(`/clob-markets/${CID0}`)).toMatchObject({ status: 404, body: envelope('NOT_FOUND') });
  });

  it('GET /markets-by-token/{token_id}: the market of a token; 400 malformed, 404 unknown', async () => {
    const m = v.negRisk;
    const want = { condition_id: m.condition_id, primary_token_id: yes(m), secondary_token_id: no(m) };
    expect(await get(`/markets-by-token/${no(m)}`)).toMatchObject({ status: 200, body: want });
    expect((await get(`/markets-by-token/${yes(m)}`)).body).toEqual(want);
    expect(await get('/markets-by-token/abc')).toMatchObject({ status: 400, body: envelope('BAD_REQUEST') });
    expect(await get('/markets-by-token/123456')).toMatchObject({ status: 404, body: envelope('NOT_FOUND') });
  });

  it('GET /prices-history: {history} bare; bad queries 400, an unknown token 404', async () => {
    const m = v.m1;
    const r = await get('/prices-history', `market=${yes(m)}&interval=1h&fidelity=1`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ history: expect.any(Array) });
    expect(await get('/prices-history')).toMatchObject({ status: 400, body: envelope('BAD_REQUEST') });
    for (const q of [
      'market=abc',
      `market=${yes(m)}&interval=2y`,
      `market=${yes(m)}&fidelity=0`,
      `market=${yes(m)}&startTs=abc`,
      `market=${yes(m)}&startTs=200&endTs=100`,
    ])
      expect(await get('/prices-history', q), q).toMatchObject({ status: 400, body: envelope('BAD_REQUEST') });
    expect(await get('/prices-history', 'market=123456')).toMatchObject({ status: 404, body: envelope('NOT_FOUND') });
  });

  it('GET /markets/live-activity/{condition_id}: as /live-activity/events; 400 malformed, 404 unknown', async () => {
    const m = v.m1;
    const a = await get(`/markets/live-activity/${m.condition_id}`);
    const b = await get(`/live-activity/events/${m.condition_id}`);
    expect(a.status).toBe(200);
    expect(a.body).toEqual(b.body);
    expect(await get('/markets/live-activity/nope')).toMatchObject({ status: 400, body: envelope('BAD_REQUEST') });
    expect(await get(`/markets/live-activity/${CID0}`)).toMatchObject({ status: 404, body: envelope('NOT_FOUND') });
  });

  it('GET /fees/builder-fees/{code} and /builder/trades: bytes32, non-zero codes only', async () => {
    const code = `0x${'12'.repeat(32)}`;
    expect(await get(`/fees/builder-fees/${code}`)).toMatchObject({
      status: 200,
      body: { builder_maker_fee_rate_bps: 0, builder_taker_fee_rate_bps: 0 },
    });
    expect(await get(`/builder/trades`, `builder_code=${code}`)).toMatchObject({
      status: 200,
      body: { limit: 100, count: 0, next_cursor: 'LTE=', data: [] },
    });
    for (const bad of ['0x12', CID0, 'abc'])
      expect(await get(`/fees/builder-fees/${bad}`), bad).toMatchObject({ status: 400, body: envelope('BAD_REQUEST') });
    for (const q of ['', 'builder_code=0x12', `builder_code=${CID0}`, `builder_code=${code}&before=yesterday`])
      expect(await get('/builder/trades', q), q).toMatchObject({ status: 400, body: envelope('BAD_REQUEST') });
  });
});

describe('CLOB V2 account routes', () => {
  it('GET /data/pre-migration-orders needs a key; a read-only key reads it', async () => {
    const anon = await get('/data/pre-migration-orders');
    expect(anon).toMatchObject({ status: 401, body: envelope('UNAUTHORIZED') });
    const t = await v.trader();
    // a V1 order signed before the migration: placed while the exchange spoke V1
    (v.running.exchange.opts as { protocol?: 1 | 2 }).protocol = 1;
    const placed = await t.place(yes(v.m1), 'BUY', '0.05', '10', { protocol: 1 });
    (v.running.exchange.opts as { protocol?: 1 | 2 }).protocol = 2;
    expect(placed.status).toBe(200);
    t.protocol = 2;
    expect((await t.place(yes(v.m1), 'BUY', '0.04', '10')).status).toBe(200);
    const page = await t.l2('GET', '/data/pre-migration-orders');
    expect(page).toMatchObject({ status: 200, body: { count: 1, next_cursor: 'LTE=', limit: 500 } });
    expect(page.body.data[0]).toMatchObject({ id: placed.id, status: 'LIVE', owner: t.creds!.apiKey });
    const ro: string = (await t.l2('POST', '/auth/readonly-api-key')).body.apiKey;
    const byRo = await t.raw('GET', '/data/pre-migration-orders', { headers: { authorization: `Bearer ${ro}` } });
    expect(byRo.status).toBe(200);
    expect(byRo.body.data.map((o: { id: string }) => o.id)).toEqual([placed.id]);
    // a read-only key manages no builder key
    const roCreate = await t.raw('POST', '/auth/builder-api-key', { headers: { authorization: `Bearer ${ro}` } });
    expect(roCreate).toMatchObject({ status: 403, body: envelope('FORBIDDEN') });
  });

  it('builder keys: L2 only, at most MAX_BUILDER_KEYS live ones, revocation of one or all', async () => {
    expect(await new Trader(v.clob).raw('POST', '/auth/builder-api-key')).toMatchObject({ status: 401 });
    expect(await new Trader(v.clob).raw('GET', '/auth/builder-api-key')).toMatchObject({ status: 401 });
    const t = await v.trader();
    expect((await t.l2('GET', '/auth/builder-api-key')).body).toEqual([]);
    const keys: string[] = [];
    for (let i = 0; i < MAX_BUILDER_KEYS; i++) {
      const r = await t.l2('POST', '/auth/builder-api-key');
      expect(r.status).toBe(200);
      keys.push(r.body.key);
    }
    const over = await t.l2('POST', '/auth/builder-api-key');
    expect(over).toMatchObject({ status: 400, body: envelope('TOO_MANY_BUILDER_KEYS') });
    // revoke one by key: it stays listed with its revocation time, and frees a place
    expect((await t.l2('DELETE', '/auth/builder-api-key', { key: keys[0] })).body).toBe('OK');
    const listed = (await t.l2('GET', '/auth/builder-api-key')).body as Array<{ key: string; revokedAt?: string }>;
    expect(listed.length).toBe(MAX_BUILDER_KEYS);
    expect(listed.filter((k) => k.revokedAt !== undefined).map((k) => k.key)).toEqual([keys[0]]);
    expect((await t.l2('POST', '/auth/builder-api-key')).status).toBe(200);
    // another address's keys are not the caller's to revoke
    const other = await v.trader();
    expect((await other.l2('DELETE', '/auth/builder-api-key', { key: keys[1] })).body).toBe('OK');
    expect((await t.l2('GET', '/auth/builder-api-key')).body.filter((k: any) => k.revokedAt).length).toBe(1);
    expect(await other.l2('DELETE', '/auth/builder-api-key', { key: 7 })).toMatchObject({ status: 400 });
    // no body: every live key of the caller
    expect((await t.l2('DELETE', '/auth/builder-api-key')).body).toBe('OK');
    const all = (await t.l2('GET', '/auth/builder-api-key')).body as Array<{ revokedAt?: string }>;
    expect(all.length).toBe(MAX_BUILDER_KEYS + 1);
    expect(all.every((k) => typeof k.revokedAt === 'string')).toBe(true);
  });

  it('builder keys survive a restart with --db (journaled), revocations too', async () => {
    const dbFile = join(mkdtempSync(join(tmpdir(), 'mmkit-bkeys-')), 'x.db');
    const opts = { port: 0, seed: 3, dbFile, world: { agents: 'none' as const, lifecycle: false, priceFeed: false } };
    const a = await startExchange(opts);
    extra.push(a);
    const t = new Trader(a.urls.clob_url);
    expect((await t.createKey()).status).toBe(200);
    const kept = (await t.l2('POST', '/auth/builder-api-key')).body;
    const revoked = (await t.l2('POST', '/auth/builder-api-key')).body;
    await t.l2('DELETE', '/auth/builder-api-key', { key: revoked.key });
    const before = (await t.l2('GET', '/auth/builder-api-key')).body;
    await a.close();

    const b = await startExchange(opts);
    extra.push(b);
    const t2 = new Trader(b.urls.clob_url, t.wallet.privateKey);
    t2.creds = t.creds;
    expect((await t2.l2('GET', '/auth/builder-api-key')).body).toEqual(before);
    expect(before.map((k: { key: string }) => k.key)).toEqual([kept.key, revoked.key]);
    // a key made after the restart is new, not a replay of an earlier one
    const fresh = (await t2.l2('POST', '/auth/builder-api-key')).body;
    expect([kept.key, revoked.key]).not.toContain(fresh.key);
    expect(fresh.secret).not.toBe(kept.secret);
  });

  it('GET /version answers 1 on an exchange speaking V1, and pre-migration orders are none', async () => {
    const d = await startVenue({ exchange: { protocol: 1 } });
    try {
      const t = await d.trader();
      expect((await t.raw('GET', '/version')).body).toEqual({ version: 1 });
      expect((await t.place(yes(d.m1), 'BUY', '0.05', '10')).status).toBe(200);
      expect((await t.l2('GET', '/data/pre-migration-orders')).body).toEqual({
        limit: 500,
        count: 0,
        next_cursor: 'LTE=',
        data: [],
      });
    } finally {
      await d.close();
    }
  });
});
