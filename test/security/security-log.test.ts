/**
 * Issue 16: the HTTP layer feeds the security log. Every failed authentication (L1, L2, Bearer),
 * every refused order or cancel with its code, every admin action (accepted or refused) and every
 * 429 is an event with the route, the client address and the claimed identity; no event and no log
 * line carries a secret, passphrase, signature, admin token or a whole API key.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { l2Headers } from '../../src/api/signing/hmac.ts';
import type { SecurityEvent } from '../../src/exchange/security-log.ts';
import { ADMIN, startVenue, yes, type TestVenue } from '../integration/support/setup.ts';
import { Trader } from '../integration/support/trader.ts';

let v: TestVenue;
let logText = '';
let base: string;
let trader: Trader;
const sent: string[] = [];

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, done) {
      logText += String(chunk);
      done();
    },
  });
  v = await startVenue({
    logger: pino({ level: 'info' }, sink),
    http: {
      rateLimits: { enabled: true, scale: 1, queueMs: 0, rules: { 'GET /tick-size': { limit: 3, windowMs: 60_000 } } },
    },
  });
  base = v.clob.replace(/\/clob$/, '');
  trader = await v.trader();
});
afterAll(async () => v?.close());

const events = (kind: SecurityEvent['kind']) => v.running.security.recent().filter((e) => e.kind === kind);
const keyPrefix = () => trader.creds!.apiKey.slice(0, 8);

describe('the security log (issue 16)', () => {
  it('records failed L2, Bearer and L1 authentication with the claimed identity', async () => {
    const creds = trader.creds!;
    // a wrong passphrase, then a signature made with a wrong secret
    const wrongPassphrase = 'not-the-passphrase-0123456789';
    sent.push(wrongPassphrase);
    const wrongPass = await trader.raw('GET', '/balances', {
      headers: {
        POLY_API_KEY: creds.apiKey,
        POLY_ADDRESS: trader.address,
        POLY_PASSPHRASE: wrongPassphrase,
        POLY_SIGNATURE: 'AAAA',
        POLY_TIMESTAMP: String(Math.floor(Date.now() / 1000)),
      },
    });
    expect(wrongPass.status).toBe(401);
    const forged = l2Headers(
      { key: creds.apiKey, secret: Buffer.alloc(32, 7).toString('base64'), passphrase: creds.passphrase },
      trader.address,
      'GET',
      '/balances',
      undefined,
      Math.floor(Date.now() / 1000),
    );
    sent.push(forged.POLY_SIGNATURE);
    expect((await trader.raw('GET', '/balances', { headers: { ...forged } })).status).toBe(401);
    // a Bearer token no key has
    const bogus = 'b0gus000-1111-4222-8333-444444444444';
    expect((await trader.raw('GET', '/data/orders', { headers: { authorization: `Bearer ${bogus}` } })).status).toBe(
      401,
    );
    // L1 with a signature by another wallet
    const other = new Trader(v.clob);
    const l1: Record<string, string> = { ...other.l1(), POLY_ADDRESS: trader.wallet.address };
    sent.push(l1.POLY_SIGNATURE as string);
    expect((await trader.raw('POST', '/auth/api-key', { headers: l1 })).status).toBe(401);

    const failed = events('auth_failed');
    expect(failed.length).toBe(4);
    for (const e of failed) {
      expect(e.ip).toMatch(/127\.0\.0\.1/);
      expect(e.reason).toMatch(/^UNAUTHORIZED: /);
    }
    expect(failed[0]).toMatchObject({
      route: 'GET /clob/balances',
      identity: `${trader.address} key:${keyPrefix()}…`,
    });
    expect(failed[1]!.reason).toContain('Invalid L2 signature');
    expect(failed[2]).toMatchObject({ route: 'GET /clob/data/orders', identity: 'key:b0gus000…' });
    expect(failed[3]).toMatchObject({ route: 'POST /clob/auth/api-key', identity: trader.address });
  });

  it('records refused orders with their venue code, refused batch entries, and not-canceled ids', async () => {
    // off the market's 0.01 tick
    const off = await trader.place(yes(v.m1), 'BUY', '0.555', '10', { tick: '0.001' });
    expect(off.status).toBe(400);
    const good = trader.order(yes(v.m1), 'BUY', '0.20', '10');
    const bad = trader.order(yes(v.m1), 'BUY', '0.555', '10', { tick: '0.001' });
    const batch = await trader.l2('POST', '/orders', [good.body, bad.body]);
    expect(batch.status).toBe(200);
    expect(batch.body[0].success).toBe(true);
    const gone = `0x${'ab'.repeat(32)}`;
    expect((await trader.l2('DELETE', '/order', { orderID: gone })).status).toBe(200);
    expect((await trader.l2('DELETE', '/orders', [gone, `0x${'ac'.repeat(32)}`])).status).toBe(200);
    // thrown refusals on order routes: a malformed body
    expect((await trader.l2('POST', '/order', { owner: trader.creds!.apiKey })).status).toBe(400);

    const refused = events('order_refused');
    expect(refused.map((e) => [e.route, e.reason])).toEqual([
      ['POST /clob/order', 'INVALID_ORDER_MIN_TICK_SIZE'],
      ['POST /clob/orders', 'INVALID_ORDER_MIN_TICK_SIZE'],
      ['DELETE /clob/order', "order can't be found - already canceled or matched"],
      ['DELETE /clob/orders', "order can't be found - already canceled or matched"],
      ['POST /clob/order', 'BAD_REQUEST'],
    ]);
    expect(refused[0]).toMatchObject({ detail: `order ${off.id}`, identity: `${trader.address} key:${keyPrefix()}…` });
    expect(refused[1]!.detail).toBe(`order ${bad.id}`);
    expect(refused[3]!.detail).toBe('2 not canceled');
  });

  it('records admin actions, accepted and refused, and never the token', async () => {
    const admin = (path: string, token: string, method = 'GET') =>
      fetch(`${base}/admin${path}`, { method, headers: { 'x-admin-token': token } });
    expect((await admin('/faults', ADMIN)).status).toBe(200);
    const wrong = `${ADMIN}-typo`;
    sent.push(wrong);
    expect((await admin('/faults', wrong)).status).toBe(403);
    expect((await admin('/no-such-route', ADMIN)).status).toBe(404);
    expect((await admin('/markets/0xdead/close', ADMIN, 'POST')).status).toBe(404);
    expect(events('admin').map((e) => [e.route, e.reason])).toEqual([
      ['GET /admin/faults', 'accepted'],
      ['GET /admin/faults', 'refused: bad admin token'],
      ['GET /admin/no-such-route', 'refused: status 404'],
      ['POST /admin/markets/0xdead/close', 'refused: status 404'],
    ]);
  });

  it('records 429s with the rule and the identity', async () => {
    const url = `${v.clob}/tick-size?token_id=${yes(v.m1)}`;
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await fetch(url)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = events('rate_limited');
    expect(limited.length).toBe(1);
    expect(limited[0]).toMatchObject({
      route: 'GET /clob/tick-size',
      reason: 'RATE_LIMITED',
      detail: 'GET /tick-size',
    });
    expect(limited[0]!.identity).toMatch(/^ip:.*127\.0\.0\.1$/);
    // a key's own window: the identity names the key by its prefix only
    const statusesKey: number[] = [];
    for (let i = 0; i < 4; i++)
      statusesKey.push((await trader.l2('GET', '/tick-size', undefined, `token_id=${yes(v.m1)}`)).status);
    expect(statusesKey).toEqual([200, 200, 200, 429]);
    expect(events('rate_limited')[1]!.identity).toBe(`key:${keyPrefix()}…`);
  });

  it('serves counts and recent events on GET /admin/security, and nothing secret anywhere', async () => {
    const r = await fetch(`${base}/admin/security`, { headers: { 'x-admin-token': ADMIN } });
    expect(r.status).toBe(200);
    const body = (await r.json()) as { counts: Record<string, number>; recent: SecurityEvent[] };
    expect(body.counts).toMatchObject({ auth_failed: 4, order_refused: 5, rate_limited: 2 });
    expect(body.counts.admin).toBeGreaterThanOrEqual(4);
    expect(body.recent.length).toBeGreaterThan(10);

    const recorded = JSON.stringify(v.running.security.recent());
    expect(logText).toContain('"component":"security"');
    const creds = trader.creds!;
    for (const secret of [creds.secret, creds.passphrase, creds.apiKey, ADMIN, ...sent]) {
      expect(recorded.includes(secret), `event holds ${secret.slice(0, 6)}…`).toBe(false);
      expect(logText.includes(secret), `log holds ${secret.slice(0, 6)}…`).toBe(false);
    }
  });
});
