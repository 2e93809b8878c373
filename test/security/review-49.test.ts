/**
 * Security review 49 (a helper's review of the paper exchange, 2026-11-30), each defect against a real
 * exchange on a loopback port:
 *  - F1/F2: a percent-encoded API prefix (`/%63lob/...`, routed as `/clob/...`) skipped every HTTP rate
 *    limit, and the L2 signature was checked over the path "/" for any route under it;
 *  - F3: RTDS comment filters had no cap per connection (one socket stalled the event loop);
 *  - F4: the user channel kept every market id a client subscribed to, no cap;
 *  - F5: one L1 signature minted a key per spelling of its nonce ("0", "00", ...), no cap per address;
 *  - F6: `order=__proto__` (an inherited property name) on the Gamma lists was a 500.
 */
import { request } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { createOrDeriveApiKey } from '../../src/api/auth.ts';
import { createTransport } from '../../src/api/http/transport.ts';
import { l2Headers } from '../../src/api/signing/hmac.ts';
import { ValidationError } from '../../src/core/errors.ts';
import { ADMIN, startVenue, yes, type TestVenue } from '../integration/support/setup.ts';
import { WsClient } from '../integration/support/ws-client.ts';

const venues: TestVenue[] = [];
afterAll(async () => Promise.all(venues.map((v) => v.close())));

const limited = async () => {
  const v = await startVenue({ http: { rateLimits: { enabled: true, scale: 1, queueMs: 0 } } });
  venues.push(v);
  return v;
};

describe('security review 49', () => {
  it('F1/F2: an encoded API prefix is refused (400), so it neither skips the rate limits nor unbinds the signed path', async () => {
    const v = await limited();
    const root = v.clob.replace(/\/clob$/, '');
    // GET /book: 100 per 10 s per client address; the encoded prefix counted nowhere before
    const book = `/book?token_id=${yes(v.m1)}`;
    const encoded = await fetch(`${root}/%63lob${book}`);
    expect(encoded.status).toBe(400);
    expect(((await encoded.json()) as any).error.message).toContain('percent-encoded');
    for (const p of ['/%64ata/markets', '/%61dmin/security', '/%67amma/markets', '/c%6Cob/time']) {
      const r = await fetch(`${root}${p}`, { headers: { 'x-admin-token': 'guess' } });
      expect(r.status, p).toBe(400);
      await r.body?.cancel();
    }
    // nor is a target in absolute form, or with a fragment (review 49b F1: routed, but counted nowhere)
    const { port } = new URL(root);
    const raw = (path: string) =>
      new Promise<number>((resolve, reject) => {
        const r = request({ host: '127.0.0.1', port, path, headers: { 'x-admin-token': 'guess' } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        r.on('error', reject);
        r.end();
      });
    for (const target of [
      `http://h${book.replace('/book', '/clob/book')}`,
      '/admin#x',
      '/clob/time#x',
      'http://h/admin/security',
    ])
      expect(await raw(target), target).toBe(400);
    const statuses: number[] = [];
    for (let i = 0; i < 110; i++) {
      const r = await fetch(`${root}/clob${book}`);
      statuses.push(r.status);
      await r.body?.cancel();
    }
    expect(statuses.filter((s) => s === 429).length).toBe(10);
    // one signature over (ts, DELETE, "/") authenticates no route
    const t = await v.trader();
    const c = t.creds!;
    const slash = l2Headers(
      { key: c.apiKey, secret: c.secret, passphrase: c.passphrase },
      t.wallet.address,
      'DELETE',
      '/',
      undefined,
      Math.floor(Date.now() / 1000),
    );
    for (const p of ['/%63lob/cancel-all', '/%63lob/auth/api-key', '/clob/cancel-all']) {
      const r = await fetch(`${root}${p}`, { method: 'DELETE', headers: { ...slash } });
      expect(r.status, p).toBeGreaterThanOrEqual(400);
      await r.body?.cancel();
    }
    // the key still works
    expect((await t.l2('GET', '/auth/api-keys')).status).toBe(200);
    expect(ADMIN).toBeTypeOf('string');
  });

  it("F6: an inherited property name as the Gamma lists' order is a 400 naming the known orders, never a 500", async () => {
    const v = await limited();
    const gamma = v.running.urls.gamma_url;
    for (const list of ['markets', 'events'])
      for (const name of ['__proto__', 'valueOf', 'hasOwnProperty', 'constructor', '__lookupGetter__', 'toString']) {
        const r = await fetch(`${gamma}/${list}?order=${name}`);
        expect(r.status, `${list} ${name}`).toBe(400);
        expect(((await r.json()) as any).error.message).toContain('order must be one of volume');
      }
  });

  it('F3: an RTDS connection keeps at most 100 comment filters; a message past it is refused whole and changes nothing', async () => {
    const v = await limited();
    const c = await WsClient.open(`${v.running.urls.ws_url}/rtds`);
    try {
      const filters = (from: number, n: number) =>
        Array.from({ length: n }, (_, i) => ({
          topic: 'comments',
          type: 'comment_created',
          filters: { parentEntityID: String(from + i), parentEntityType: 'Event' },
        }));
      c.send({ action: 'subscribe', subscriptions: filters(0, 50) });
      c.send({ action: 'subscribe', subscriptions: filters(50, 50) });
      // the same 50 again: no new filter, no refusal
      c.send({ action: 'subscribe', subscriptions: filters(0, 50) });
      c.send({ action: 'subscribe', subscriptions: [...filters(100, 1), ...filters(0, 1)] });
      const refused = await c.waitFor((e) => e.event_type === 'error', { what: 'the refusal' });
      expect(refused.error).toMatchObject({ code: 'LIMIT_EXCEEDED' });
      expect(refused.error.message).toContain('at most 100 comment filters');
      await c.quiet(100);
      expect(c.events.filter((e) => e.event_type === 'error')).toHaveLength(1);
      // unsubscribing one makes room for the one refused
      c.send({ action: 'unsubscribe', subscriptions: filters(0, 1) });
      c.send({ action: 'subscribe', subscriptions: filters(100, 1) });
      await c.quiet(100);
      expect(c.events.filter((e) => e.event_type === 'error')).toHaveLength(1);
      // too many crypto symbols in all (101 distinct, over messages of at most 100)
      const syms = (from: number, n: number) => Array.from({ length: n }, (_, i) => `sym${from + i}`).join(',');
      c.send({
        action: 'subscribe',
        subscriptions: [{ topic: 'crypto_prices', type: 'update', filters: syms(0, 100) }],
      });
      c.send({
        action: 'subscribe',
        subscriptions: [{ topic: 'crypto_prices', type: 'update', filters: syms(100, 1) }],
      });
      await c.waitFor((e) => e.event_type === 'error' && e.error.message.includes('100 crypto symbols'), {
        what: 'the symbols refusal',
      });
    } finally {
      c.close();
    }
  });

  it('F4: a user-channel connection keeps at most 1000 market ids', async () => {
    const v = await limited();
    const t = await v.trader();
    const c = await WsClient.open(`${v.running.urls.ws_url}/ws/user`);
    try {
      const ids = (from: number, n: number) => Array.from({ length: n }, (_, i) => `m-${from + i}`);
      const cr = t.creds!;
      c.send({ auth: { apiKey: cr.apiKey, secret: cr.secret, passphrase: cr.passphrase }, markets: ids(0, 600) });
      c.send({ operation: 'subscribe', markets: ids(600, 400) });
      await c.quiet(100);
      expect(c.events.filter((e) => e.event_type === 'error')).toEqual([]);
      c.send({ operation: 'subscribe', markets: ids(1000, 1) });
      const refused = await c.waitFor((e) => e.event_type === 'error', { what: 'the refusal' });
      expect(refused.error).toMatchObject({ code: 'LIMIT_EXCEEDED' });
      expect(refused.error.message).toContain('at most 1000 market ids (1000 now, 1 more asked)');
      // ids already kept are no new ones
      c.send({ operation: 'subscribe', markets: ids(0, 1000) });
      await c.quiet(100);
      expect(c.events.filter((e) => e.event_type === 'error')).toHaveLength(1);
      expect(c.closed).toBeUndefined();
    } finally {
      c.close();
    }
  });

  it('F5: one L1 signature is one nonce however spelled ("0", "00"), and an address holds at most 20 API keys', async () => {
    const v = await limited();
    const t = await v.trader(); // its key: nonce 0
    const h = t.l1(0);
    for (const spelled of ['00', '000000', '0'.repeat(30)]) {
      const r = await t.raw('POST', '/auth/api-key', { headers: { ...h, POLY_NONCE: spelled } });
      expect(r.status, spelled).toBe(400);
      expect((r.body as any).error.code).toBe('API_KEY_EXISTS');
    }
    expect(((await t.l2('GET', '/auth/api-keys')).body as any).apiKeys).toHaveLength(1);
    // 19 more nonces: 20 keys; the 21st is refused, naming the limit; a deleted one makes room
    for (let n = 1; n < 20; n++) expect((await t.raw('POST', '/auth/api-key', { headers: t.l1(n) })).status).toBe(200);
    const over = await t.raw('POST', '/auth/api-key', { headers: t.l1(20) });
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ error: { code: 'API_KEY_LIMIT' } });
    expect(((await t.l2('GET', '/auth/api-keys')).body as any).apiKeys).toHaveLength(20);
    // an existing key is still derived and re-created as existing, not refused for the limit
    expect((await t.raw('GET', '/auth/derive-api-key', { headers: t.l1(7) })).status).toBe(200);
    expect(((await t.raw('POST', '/auth/api-key', { headers: t.l1(7) })).body as any).error.code).toBe(
      'API_KEY_EXISTS',
    );
    // mmkit's own create-or-derive says the limit, not "none exists: create it" (review 49b F5)
    const base = v.clob.replace(/\/clob$/, '');
    const transport = createTransport({
      urls: { clob: v.clob, data: `${base}/data`, content: `${base}/content` },
      signer: t.wallet,
      authMode: 'l2',
    });
    try {
      const err = await createOrDeriveApiKey(transport, { nonce: 20 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).details?.['code']).toBe('API_KEY_LIMIT');
      expect((err as Error).message).toContain('holds 20 already');
    } finally {
      await transport.close();
    }
    expect((await t.l2('DELETE', '/auth/api-key')).status).toBe(200);
    expect((await t.raw('POST', '/auth/api-key', { headers: t.l1(20) })).status).toBe(200);
  });
});
