/**
 * Transport error mapping, envelopes, auth headers and resend-identical-bytes, against a tiny local
 * node:http server that answers what each test scripts (the integration tests use the real exchange).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Wallet } from 'ethers';
import { z } from 'zod';
import {
  AuthError,
  NetworkError,
  NotFoundError,
  OrderRejectedError,
  RateLimitError,
  TimeoutError,
  ValidationError,
} from '../../src/core/errors.ts';
import { recoverClobAuth } from '../../src/api/signing/clob-auth.ts';
import { verifyHmacSignature } from '../../src/api/signing/hmac.ts';
import { createTransport, queryString, unwrapEnvelope, type HttpTransport } from '../../src/api/http/transport.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}
type Handler = (req: Seen, res: ServerResponse) => void;

let server: Server;
let base: string;
let handler: Handler;
let seen: Seen[] = [];

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const s: Seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      seen.push(s);
      handler(s, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
beforeEach(() => {
  seen = [];
});

const SECRET = Buffer.alloc(32, 7).toString('base64');
const creds = { apiKey: 'key-1234-abcd', secret: SECRET, passphrase: 'pass-phrase-xyz' };
const wallet = new Wallet('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');

function transport(extra: Partial<Parameters<typeof createTransport>[0]> = {}): HttpTransport {
  return createTransport({
    urls: { clob: `${base}/clob`, data: `${base}/data` },
    credentials: creds,
    signer: wallet,
    timeoutMs: 2000,
    retry: { maxAttempts: 3, baseMs: 1, capMs: 5, random: () => 0.5 },
    ...extra,
  });
}

const anything = z.unknown();
const get = (t: HttpTransport, path = '/x', extra: Record<string, unknown> = {}) =>
  t.request({ api: 'clob', method: 'GET', path, auth: 'none', idempotent: true, ...extra }, anything);

async function caught(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}

describe('envelopes', () => {
  it('unwraps {success, data}, keeps page facts, passes bare payloads', async () => {
    expect(unwrapEnvelope({ success: true, data: { a: 1 } })).toEqual({ a: 1 });
    expect(unwrapEnvelope({ success: true, data: [1], next_cursor: 'LTE=', count: 1 })).toEqual({
      data: [1],
      next_cursor: 'LTE=',
      count: 1,
    });
    expect(unwrapEnvelope({ success: true, errorMsg: '', orderID: '0x1' })).toEqual({
      success: true,
      errorMsg: '',
      orderID: '0x1',
    });
    expect(unwrapEnvelope([1, 2])).toEqual([1, 2]);
    const t = transport();
    handler = (_r, res) => json(res, 200, { success: true, data: { mid: '0.5', extra: true } });
    await expect(
      t.request(
        { api: 'data', method: 'GET', path: '/m', auth: 'none', idempotent: true },
        z.object({ mid: z.string() }),
      ),
    ).resolves.toEqual({ mid: '0.5' });
    handler = (_r, res) => json(res, 200, { mid: '0.5' });
    await expect(
      t.request(
        { api: 'clob', method: 'GET', path: '/m', auth: 'none', idempotent: true },
        z.object({ mid: z.string() }),
      ),
    ).resolves.toEqual({ mid: '0.5' });
    await t.close();
  });

  it('builds the query and the path under the base URL', async () => {
    expect(queryString({ a: 1, b: undefined, c: ['x', 'y'], d: true })).toBe('?a=1&c=x&c=y&d=true');
    const t = transport();
    handler = (_r, res) => json(res, 200, {});
    await t.request(
      { api: 'clob', method: 'GET', path: '/book', query: { token_id: '12' }, auth: 'none', idempotent: true },
      anything,
    );
    expect(seen[0]!.url).toBe('/clob/book?token_id=12');
    await t.close();
  });

  it('a malformed answer is a ValidationError naming the path', async () => {
    const t = transport();
    handler = (_r, res) => json(res, 200, { bids: [{ price: 5 }] });
    const e = await caught(
      t.request(
        { api: 'clob', method: 'GET', path: '/book', auth: 'none', idempotent: true },
        z.object({ bids: z.array(z.object({ price: z.string() })) }),
      ),
    );
    expect(e).toBeInstanceOf(ValidationError);
    expect((e as Error).message).toContain('bids.0.price');
    expect(seen).toHaveLength(1); // never retried
    await t.close();
  });
});

describe('error mapping', () => {
  const cases: Array<[string, number, unknown, Record<string, string>, (e: unknown) => void]> = [
    [
      '401',
      401,
      { success: false, error: { code: 'UNAUTHORIZED', message: 'Invalid api key' } },
      {},
      (e) => expect(e).toMatchObject({ code: 'UNAUTHORIZED' }),
    ],
    ['403', 403, { error: 'forbidden' }, {}, (e) => expect(e).toMatchObject({ code: 'FORBIDDEN' })],
    [
      '404',
      404,
      { success: false, error: { code: 'NOT_FOUND', message: 'order not found' } },
      {},
      (e) => expect(e).toBeInstanceOf(NotFoundError),
    ],
    [
      '400 venue code',
      400,
      {
        success: false,
        error: { code: 'INVALID_ORDER_MIN_SIZE', message: 'Size lower than the minimum' },
        errorMsg: 'x',
        orderID: '0xab',
      },
      {},
      (e) => {
        expect(e).toBeInstanceOf(OrderRejectedError);
        expect(e).toMatchObject({
          code: 'INVALID_ORDER_MIN_SIZE',
          retryable: false,
          details: { orderID: '0xab', status: 400 },
        });
      },
    ],
    [
      '400 public shape',
      400,
      { error: 'order is invalid. Duplicated. Same order has already been placed' },
      {},
      (e) => expect(e).toMatchObject({ name: 'OrderRejectedError', code: 'INVALID_ORDER_DUPLICATED' }),
    ],
    [
      '400 other',
      400,
      { success: false, error: { code: 'BAD_REQUEST', message: 'missing token_id' } },
      {},
      (e) => expect(e).toMatchObject({ name: 'ValidationError', code: 'VALIDATION' }),
    ],
    ['400 public other', 400, { error: 'Invalid token id' }, {}, (e) => expect(e).toBeInstanceOf(ValidationError)],
    [
      '413',
      413,
      { success: false, error: { code: 'PAYLOAD_TOO_LARGE', message: 'big' } },
      {},
      (e) => expect(e).toBeInstanceOf(ValidationError),
    ],
  ];
  for (const [name, status, body, headers, check] of cases) {
    it(`maps ${name}`, async () => {
      const t = transport();
      handler = (_r, res) => json(res, status, body, headers);
      const e = await caught(get(t));
      check(e);
      expect(seen).toHaveLength(1);
      await t.close();
    });
  }

  it('maps 429 with the later of Retry-After and X-RateLimit-Reset, and retries after it', async () => {
    const t = transport({ retry: { maxAttempts: 1 } });
    // (the reset 4-5 s away: the later of the two by far, even when the answer is slow under load)
    const reset = Math.ceil(Date.now() / 1000) + 5;
    handler = (_r, res) =>
      json(
        res,
        429,
        { success: false, error: { code: 'RATE_LIMITED', message: 'slow down' } },
        { 'retry-after': '1', 'x-ratelimit-reset': String(reset), 'x-ratelimit-limit': '5' },
      );
    const e = await caught(get(t));
    expect(e).toBeInstanceOf(RateLimitError);
    expect((e as RateLimitError).retryAfterMs).toBeGreaterThan(1000);
    expect((e as RateLimitError).retryAfterMs).toBeLessThanOrEqual(6000);
    expect((e as RateLimitError).details).toMatchObject({ limit: 5 });
    await t.close();
  });

  it('retries 425/503 (even non-idempotent) and 5xx (only idempotent)', async () => {
    const t = transport();
    let n = 0;
    handler = (_r, res) =>
      n++ === 0
        ? json(res, 425, { error: 'Service is not ready' }, { 'retry-after': '0' })
        : json(res, 200, { ok: true });
    await expect(
      t.request(
        { api: 'clob', method: 'POST', path: '/order', body: { a: 1 }, auth: 'none', idempotent: false },
        anything,
      ),
    ).resolves.toEqual({ ok: true });
    expect(seen).toHaveLength(2);
    seen = [];
    n = 0;
    handler = (_r, res) =>
      n++ === 0 ? json(res, 503, { error: 'Trading is currently disabled' }) : json(res, 200, { ok: 2 });
    await expect(
      t.request({ api: 'clob', method: 'POST', path: '/order', body: {}, auth: 'none', idempotent: false }, anything),
    ).resolves.toEqual({ ok: 2 });
    seen = [];
    handler = (_r, res) => json(res, 500, { success: false, error: { code: 'INTERNAL', message: 'boom' } });
    const e = await caught(
      t.request({ api: 'clob', method: 'POST', path: '/thing', body: {}, auth: 'none', idempotent: false }, anything),
    );
    expect(e).toMatchObject({ name: 'NetworkError', code: 'NETWORK', retryable: true });
    expect(seen).toHaveLength(1);
    seen = [];
    await caught(get(t));
    expect(seen).toHaveLength(3); // maxAttempts
    await t.close();
  });

  it('a connection failure is a NetworkError; a slow answer a TimeoutError (retried only when idempotent)', async () => {
    const dead = createTransport({ urls: { clob: 'http://127.0.0.1:1/clob' }, retry: { maxAttempts: 1 } });
    const e = await caught(get(dead));
    expect(e).toBeInstanceOf(NetworkError);
    expect((e as NetworkError).code).toBe('NETWORK');
    await dead.close();
    const t = transport({ timeoutMs: 100 });
    handler = (_r, res) => setTimeout(() => json(res, 200, {}), 400);
    const te = await caught(
      t.request(
        { api: 'clob', method: 'POST', path: '/order', body: { x: 1 }, auth: 'none', idempotent: false },
        anything,
      ),
    );
    expect(te).toBeInstanceOf(TimeoutError);
    expect(te).toBeInstanceOf(NetworkError);
    expect(te).toMatchObject({ code: 'TIMEOUT', retryable: true });
    expect(seen.length).toBeLessThanOrEqual(1);
    expect(t.stats().timeouts).toBe(1);
    await t.close();
  });

  it('honours the caller signal (queued, in flight or sleeping between retries)', async () => {
    const t = transport();
    handler = (_r, res) => setTimeout(() => json(res, 200, {}), 1000);
    const ac = new AbortController();
    const p = caught(get(t, '/slow', { signal: ac.signal }));
    setTimeout(() => ac.abort(new Error('caller gave up')), 50);
    const e = await p;
    expect((e as Error).message).toBe('caller gave up');
    const pre = new AbortController();
    pre.abort(new Error('already'));
    expect(((await caught(get(t, '/x', { signal: pre.signal }))) as Error).message).toBe('already');
    await t.close();
  });

  it('never puts secrets in error messages', async () => {
    const t = transport();
    handler = (_r, res) =>
      json(res, 400, {
        success: false,
        error: { code: 'BAD_REQUEST', message: `bad ${SECRET} ${creds.passphrase} ${creds.apiKey}` },
      });
    const e = (await caught(
      t.request({ api: 'clob', method: 'GET', path: '/x', auth: 'l2', idempotent: true }, anything),
    )) as Error;
    expect(e.message).not.toContain(SECRET);
    expect(e.message).not.toContain(creds.passphrase);
    expect(e.message).not.toContain(creds.apiKey);
    expect(e.message).toContain('[redacted]');
    // a secret straddling the message's cut (500 characters): no prefix of it survives
    for (const secret of [SECRET, creds.passphrase]) {
      for (let pad = 420; pad <= 500; pad += 2) {
        handler = (_r, res) =>
          json(res, 400, {
            success: false,
            error: { code: 'BAD_REQUEST', message: 'x'.repeat(pad) + secret + ' tail' },
          });
        const m = (
          (await caught(
            t.request({ api: 'clob', method: 'GET', path: '/x', auth: 'l2', idempotent: true }, anything),
          )) as Error
        ).message;
        expect(m.length).toBeLessThanOrEqual(520);
        for (let k = 6; k <= secret.length; k++) expect(m, `pad ${pad}`).not.toContain(secret.slice(0, k));
        // a plain-text error body too
        handler = (_r, res) => {
          res.writeHead(400, { 'content-type': 'text/plain' });
          res.end('y'.repeat(pad - 200) + secret + ' tail');
        };
        const t2 = (
          (await caught(
            t.request({ api: 'clob', method: 'GET', path: '/x', auth: 'l2', idempotent: true }, anything),
          )) as Error
        ).message;
        for (let k = 6; k <= secret.length; k++) expect(t2, `text pad ${pad}`).not.toContain(secret.slice(0, k));
      }
    }
    const noCreds = transport({ credentials: undefined });
    const ae = await caught(
      noCreds.request({ api: 'clob', method: 'GET', path: '/x', auth: 'l2', idempotent: true }, anything),
    );
    expect(ae).toBeInstanceOf(AuthError);
    await t.close();
    await noCreds.close();
  });
});

describe('auth and bytes', () => {
  it('signs L2 over the exact bytes sent and re-sends the same bytes on retry', async () => {
    const t = transport();
    let n = 0;
    handler = (_r, res) =>
      n++ < 2 ? json(res, 503, { error: 'not ready' }, { 'retry-after': '0' }) : json(res, 200, { ok: true });
    const body = { order: { salt: 12345678901, price: '0.5' }, owner: creds.apiKey, orderType: 'GTC' };
    await t.request({ api: 'clob', method: 'POST', path: '/order', body, auth: 'l2', idempotent: true }, anything);
    expect(seen).toHaveLength(3);
    const bodies = new Set(seen.map((s) => s.body));
    expect(bodies.size).toBe(1);
    expect([...bodies][0]).toBe(JSON.stringify(body));
    for (const s of seen) {
      expect(s.url).toBe('/clob/order');
      expect(s.headers['poly_api_key']).toBe(creds.apiKey);
      expect(s.headers['poly_address']).toBe(wallet.address);
      expect(
        verifyHmacSignature(
          SECRET,
          String(s.headers['poly_timestamp']),
          'POST',
          '/order',
          s.body,
          String(s.headers['poly_signature']),
        ),
      ).toBe(true);
    }
    await t.close();
  });

  it('sends Bearer in bearer mode and L1 wallet headers for auth l1', async () => {
    const t = transport({ authMode: 'bearer' });
    handler = (_r, res) => json(res, 200, {});
    await t.request({ api: 'clob', method: 'GET', path: '/data/orders', auth: 'l2', idempotent: true }, anything);
    expect(seen[0]!.headers['authorization']).toBe(`Bearer ${creds.apiKey}`);
    expect(seen[0]!.headers['poly_signature']).toBeUndefined();
    await t.request(
      { api: 'clob', method: 'GET', path: '/auth/derive-api-key', auth: 'l1', nonce: 3, idempotent: true },
      anything,
    );
    const h = seen[1]!.headers;
    expect(h['poly_nonce']).toBe('3');
    expect(
      recoverClobAuth(137, String(h['poly_address']), String(h['poly_timestamp']), 3n, String(h['poly_signature'])),
    ).toBe(wallet.address.toLowerCase());
    await t.close();
  });
});

describe('round trips (onAnswer)', () => {
  it('tells each answered attempt with its status and its time from departure to the whole answer; not a timeout', async () => {
    let t = 1000;
    const answers: Array<{ api: string; method: string; path: string; status: number; ms: number }> = [];
    const tr = transport({ onAnswer: (e) => answers.push(e), hrNow: () => (t += 7), timeoutMs: 300 });
    handler = (_req, res) => json(res, 200, { ok: true });
    await tr.request(
      { api: 'clob', method: 'POST', path: '/orders', auth: 'none', idempotent: false, body: [] },
      anything,
    );
    handler = (_req, res) => json(res, 400, { error: 'bad' });
    await expect(get(tr, '/order')).rejects.toBeInstanceOf(ValidationError);
    // (a slow answer: a timeout, no round trip)
    handler = (_req, res) => setTimeout(() => json(res, 200, {}), 600);
    await expect(get(tr, '/slow', { idempotent: false })).rejects.toBeInstanceOf(TimeoutError);
    expect(answers).toEqual([
      { api: 'clob', method: 'POST', path: '/orders', status: 200, ms: 7 },
      { api: 'clob', method: 'GET', path: '/order', status: 400, ms: 7 },
    ]);
    await tr.close();
  });
});
