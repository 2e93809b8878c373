/**
 * Issue 16: the bugs the fuzzer (test/fuzz/) found, one test each; each fails without its fix.
 *
 *  1. A path component with a malformed percent-encoding (`/gamma/events/%zz`) was refused by
 *     fastify's router with its own body `{"error", "code": "FST_ERR_BAD_URL", "message",
 *     "statusCode"}` (echoing the path), not the spec's envelope.
 *  2. A path parameter over 100 characters (`/clob/data/order/<101 characters>`): 414 with
 *     fastify's `FST_ERR_MAX_PARAM_LENGTH` body, not the envelope.
 *  3. A request the HTTP parser refuses (a malformed request line; a request line and headers over
 *     16 KiB) was answered by fastify's default client-error handler with its own body.
 *  4. `POST /admin/balances` with a valid `collateral` and a bad token amount (or an unknown token)
 *     set the collateral, then answered 400 (404): a refused request changed a balance.
 * Fixed in src/exchange/http/server.ts (`frameworkErrors`, `clientErrorHandler`; the admin route
 * checks everything before setting anything).
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/clock.ts';
import { DEFAULT_EXCHANGE_OPTIONS, PaperExchange } from '../../src/exchange/exchange.ts';
import { buildHttpApp, DEFAULT_HTTP_OPTIONS } from '../../src/exchange/http/server.ts';
import { seedWorld } from '../../src/exchange/world/index.ts';
import { notEnvelope } from '../fuzz/harness.ts';

const ADMIN = 'regression-admin-token';
let app: FastifyInstance;
let ex: PaperExchange;
let port: number;

beforeAll(async () => {
  ex = new PaperExchange({ ...DEFAULT_EXCHANGE_OPTIONS, clock: new VirtualClock(Date.UTC(2025, 5, 1)) });
  seedWorld(ex, 7);
  app = buildHttpApp(ex, {
    ...DEFAULT_HTTP_OPTIONS,
    rateLimits: { enabled: false, scale: 1, queueMs: 0 },
    adminToken: ADMIN,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as AddressInfo).port;
});
afterAll(async () => app?.close());

/** Sends raw bytes on a new connection; the whole answer once the server closes it (or after 5 s). */
function raw(bytes: string): Promise<string> {
  return new Promise((resolve) => {
    const c = net.connect(port, '127.0.0.1');
    let out = '';
    const t = setTimeout(() => c.destroy(), 5000);
    c.on('data', (d) => (out += d.toString('latin1')));
    c.on('error', () => {});
    c.on('close', () => {
      clearTimeout(t);
      resolve(out);
    });
    c.write(bytes);
  });
}

/** Status and JSON body of a raw HTTP answer. */
function parseAnswer(text: string): { status: number; body: unknown; contentType: string } {
  const [head = '', body = ''] = text.split('\r\n\r\n');
  const status = Number(head.split(' ')[1]);
  const contentType = /content-type: ([^\r\n]*)/i.exec(head)?.[1] ?? '';
  return { status, body: JSON.parse(body), contentType };
}

describe('refusals the fuzzer found outside the envelope (issue 16)', () => {
  it('a malformed percent-encoding in a path parameter: 400 in the envelope, the path not echoed', async () => {
    for (const url of ['/gamma/events/%zz', '/clob/data/order/%E0%A4%A', '/content/articles/%']) {
      const r = await app.inject({ method: 'GET', url });
      expect(r.statusCode, url).toBe(400);
      expect(notEnvelope(r.json()), url).toBeUndefined();
      expect(r.json().error.code).toBe('BAD_REQUEST');
      expect(r.body).not.toContain('%');
    }
  });

  it('a path parameter over 100 characters: 414 in the envelope', async () => {
    const r = await app.inject({ method: 'GET', url: `/clob/data/order/0x${'f'.repeat(130)}` });
    expect(r.statusCode).toBe(414);
    expect(notEnvelope(r.json())).toBeUndefined();
    expect(r.json().error.code).toBe('URI_TOO_LONG');
    expect(r.body).not.toContain('ffff');
  });

  it('a request line the HTTP parser refuses: 400 in the envelope on the socket', async () => {
    const a = parseAnswer(await raw('GET /data/health?a b HTTP/1.1\r\nHost: x\r\n\r\n'));
    expect(a.status).toBe(400);
    expect(a.contentType).toMatch(/^application\/json/);
    expect(notEnvelope(a.body)).toBeUndefined();
  });

  it('a request line and headers over 16 KiB: 431 in the envelope on the socket', async () => {
    const a = parseAnswer(await raw(`GET /clob/time?x=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`));
    expect(a.status).toBe(431);
    expect(notEnvelope(a.body)).toBeUndefined();
    expect((a.body as { error: { code: string } }).error.code).toBe('REQUEST_HEADERS_TOO_LARGE');
  });

  it('POST /admin/balances refused for a bad token amount or an unknown token sets no balance', async () => {
    const addr = '0x' + 'c1'.repeat(20);
    const token = ex.listMarkets()[0]!.meta.tokens[0];
    const post = (body: unknown) =>
      app.inject({
        method: 'POST',
        url: '/admin/balances',
        headers: { 'x-admin-token': ADMIN },
        payload: body as object,
      });
    expect((await post({ address: addr, collateral: '100' })).statusCode).toBe(200);
    const before = ex.engine.balance(addr);
    for (const [body, status] of [
      [{ address: addr, collateral: '0', tokens: { [token]: 'not a number' } }, 400],
      [{ address: addr, collateral: '7', tokens: { [token]: '5', '12345': '5' } }, 404],
    ] as const) {
      const r = await post(body);
      expect(r.statusCode).toBe(status);
      expect(notEnvelope(r.json())).toBeUndefined();
      expect(ex.engine.balance(addr)).toEqual(before);
    }
    expect(before.collateral).toBe(100_000_000);
  });
});
