/**
 * Issue 16: the HTTP layer's remaining holes.
 *  - The /admin routes were exempt from rate limits: now rule `admin` (60 / 10 s) by client
 *    address, counted before the token is checked, so failed token attempts count too.
 *  - Errors raised before routing (a path parameter over the router's limit: 414; a request line
 *    and headers over node's limit: 431; a malformed percent-encoding: 400) answered fastify's or
 *    node's own body, echoing the (hostile) path: now the spec's envelope, path not echoed. The other
 *    early errors (404, a known path with another method, 413, malformed JSON) are checked too.
 *  - Rate-limit identity: a Bearer request whose key exists counts under the key, as a verified L2
 *    request does (in the spec's Bearer form the key is the credential; this part held already and
 *    is kept as a regression test), a read-only key under its own key, never under its account's
 *    relayer budget; an unknown Bearer token counts under the client address.
 */
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN, startVenue, yes, type TestVenue } from '../integration/support/setup.ts';

const venues: TestVenue[] = [];
afterAll(async () => Promise.all(venues.map((v) => v.close())));

const venue = async (queueMs = 0) => {
  const v = await startVenue({ http: { rateLimits: { enabled: true, scale: 1, queueMs } } });
  venues.push(v);
  return v;
};
const rootOf = (v: TestVenue) => v.clob.replace(/\/clob$/, '');

/** Where a raw connection comes from (`localAddress`: a loopback address) and how long it waits at most. */
interface RawOptions {
  ms?: number;
  localAddress?: string;
}

/**
 * A raw TCP connection to the venue's port, for what node's HTTP client would not send (a body dripped slowly,
 * a header line twice) and for the connection caps. `send` writes once connected; resolves what was received
 * once the server closed the connection (`closed`), or when `ms` passed (`closed` false), with the socket error
 * if there was one.
 */
const rawConn = (v: TestVenue, send: (s: Socket) => void, o: RawOptions = {}) =>
  new Promise<{ data: string; closed: boolean; afterMs: number; error?: Error }>((resolve) => {
    const u = new URL(rootOf(v));
    const t0 = Date.now();
    const s = connect({
      port: Number(u.port),
      host: u.hostname,
      ...(o.localAddress ? { localAddress: o.localAddress } : {}),
    });
    let data = '';
    let error: Error | undefined;
    const done = (closed: boolean) => {
      clearTimeout(timer);
      s.destroy();
      resolve({ data, closed, afterMs: Date.now() - t0, ...(error ? { error } : {}) });
    };
    const timer = setTimeout(() => done(false), o.ms ?? 30_000);
    s.on('data', (d) => (data += d.toString()));
    s.on('close', () => done(true));
    s.on('error', (e) => (error = e));
    s.on('connect', () => send(s));
  });

/** Sends `text` on a raw connection (see rawConn) and resolves all the server answered; rejects on a socket error. */
async function rawExchange(v: TestVenue, text: string, o: RawOptions = {}): Promise<string> {
  const r = await rawConn(v, (s) => s.write(text), o);
  if (r.error) throw r.error;
  return r.data;
}

/** `n` raw connections to the venue's port (from `localAddress` if given), held open once connected. */
async function holdConns(v: TestVenue, n: number, localAddress?: string): Promise<Socket[]> {
  const u = new URL(rootOf(v));
  const held: Socket[] = [];
  for (let i = 0; i < n; i++) {
    const s = connect({ port: Number(u.port), host: u.hostname, ...(localAddress ? { localAddress } : {}) });
    s.on('error', () => undefined);
    await new Promise((r) => s.once('connect', r));
    held.push(s);
  }
  return held;
}

async function expectEnvelope(r: Response, status: number, code: string): Promise<string> {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  const text = await r.text();
  expect(JSON.parse(text)).toEqual({ success: false, error: { code, message: expect.any(String) } });
  return text;
}

describe('admin routes are rate-limited (issue 16)', () => {
  it('60 requests per 10 s per client address, then 429 with the headers', async () => {
    const v = await venue();
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 61; i++) {
      last = await fetch(`${rootOf(v)}/admin/faults`, { headers: { 'x-admin-token': ADMIN } });
      statuses.push(last.status);
      if (i < 60) await last.body?.cancel();
    }
    expect(statuses.filter((s) => s === 200).length).toBe(60);
    expect(statuses[60]).toBe(429);
    expect(last!.headers.get('x-ratelimit-limit')).toBe('60');
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    await expectEnvelope(last!, 429, 'RATE_LIMITED');
  });

  it('failed token attempts count: after 60 of them the right token is held off too', async () => {
    const v = await venue();
    for (let i = 0; i < 60; i++) {
      const r = await fetch(`${rootOf(v)}/admin/faults`, { headers: { 'x-admin-token': `guess-${i}` } });
      expect(r.status).toBe(403);
      await r.body?.cancel();
    }
    const r = await fetch(`${rootOf(v)}/admin/faults`, { headers: { 'x-admin-token': ADMIN } });
    await expectEnvelope(r, 429, 'RATE_LIMITED');
    // the CLOB's limits are apart
    expect((await fetch(`${v.clob}/time`)).status).toBe(200);
    expect(v.running.security.counts().rate_limited).toBe(1);
  });
});

/** A raw HTTP/1.1 GET (fetch refuses some of these requests before sending them). */
function rawGet(port: number, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('errors raised before routing answer the envelope without echoing the path (issue 16)', () => {
  it('414: a path parameter over the router limit', async () => {
    const v = await venue();
    const hostile = `<script>${'x'.repeat(300)}`;
    const r = await fetch(`${v.clob}/data/order/${encodeURIComponent(hostile)}`);
    const text = await expectEnvelope(r, 414, 'URI_TOO_LONG');
    expect(text).not.toContain('xxxxxxxx');
    expect(text).not.toContain('script');
  });

  it('431: a request line and headers over the parser limit, as an HTTP/1.1 response', async () => {
    const v = await venue();
    const marker = 'HOSTILEPATH';
    const long = await rawGet(v.running.port, `/clob/${marker}${'y'.repeat(20_000)}`);
    expect(long.status).toBe(431);
    expect(long.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(long.body)).toEqual({
      success: false,
      error: { code: 'REQUEST_HEADERS_TOO_LARGE', message: expect.any(String) },
    });
    expect(long.body).not.toContain(marker);
    const fat = await rawGet(v.running.port, '/clob/time', { 'x-junk': 'z'.repeat(20_000) });
    expect(fat.status).toBe(431);
    expect(JSON.parse(fat.body).error.code).toBe('REQUEST_HEADERS_TOO_LARGE');
    // the server still serves
    expect((await fetch(`${v.clob}/time`)).status).toBe(200);
  });

  it('400: a malformed percent-encoding', async () => {
    const v = await venue();
    const r = await rawGet(v.running.port, '/clob/data/order/%E0%A4%AHOSTILE');
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body)).toEqual({ success: false, error: { code: 'BAD_REQUEST', message: expect.any(String) } });
    expect(r.body).not.toContain('HOSTILE');
  });

  it('404 (unknown route, or another method), 413, malformed JSON: all in the envelope, no path echoed', async () => {
    const v = await venue();
    const unknown = await expectEnvelope(await fetch(`${v.clob}/no-such-route-HOSTILE`), 404, 'NOT_FOUND');
    expect(unknown).not.toContain('HOSTILE');
    await expectEnvelope(await fetch(`${v.clob}/book`, { method: 'PUT' }), 404, 'NOT_FOUND');
    await expectEnvelope(await fetch(`${rootOf(v)}/nowhere`), 404, 'NOT_FOUND');
    const big = await fetch(`${v.clob}/order`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pad: 'p'.repeat(300_000) }),
    });
    await expectEnvelope(big, 413, 'PAYLOAD_TOO_LARGE');
    const bad = await fetch(`${v.clob}/order`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"order":',
    });
    await expectEnvelope(bad, 400, 'BAD_REQUEST');
    const form = await fetch(`${v.clob}/order`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=b',
    });
    await expectEnvelope(form, 400, 'BAD_REQUEST');
  });
});

describe('a Bearer request whose key exists counts under the key (issue 16)', () => {
  it('is served from the key windows once the client address is spent; an unknown token is not', async () => {
    const v = await venue();
    const t = await v.trader();
    const url = `${v.clob}/book?token_id=${yes(v.m1)}`;
    for (let i = 0; i < 100; i++) {
      const r = await fetch(url);
      expect(r.status).toBe(200);
      await r.body?.cancel();
    }
    expect((await fetch(url)).status).toBe(429);
    const bearer = await fetch(url, { headers: { authorization: `Bearer ${t.creds!.apiKey}` } });
    expect(bearer.status).toBe(200);
    expect(bearer.headers.get('x-ratelimit-remaining')).toBe('99');
    // the same key signing L2 headers is the same identity
    const l2 = await t.l2('GET', '/book', undefined, `token_id=${yes(v.m1)}`);
    expect(l2.status).toBe(200);
    expect(l2.headers.get('x-ratelimit-remaining')).toBe('98');
    const unknown = await fetch(url, { headers: { authorization: 'Bearer 00000000-0000-4000-8000-000000000000' } });
    expect(unknown.status).toBe(429);
    // a read-only key is a credential too: its own windows
    const ro: string = (await t.l2('POST', '/auth/readonly-api-key')).body.apiKey;
    const roBook = await fetch(url, { headers: { authorization: `Bearer ${ro}` } });
    expect(roBook.status).toBe(200);
    expect(roBook.headers.get('x-ratelimit-remaining')).toBe('99');
  });

  it("a read-only key never spends its account's relayer budget", async () => {
    const v = await venue();
    const t = await v.trader();
    const ro: string = (await t.l2('POST', '/auth/readonly-api-key')).body.apiKey;
    const op = { type: 'SPLIT', conditionId: v.m1.condition_id, amount: '1' };
    for (let i = 0; i < 25; i++) {
      const r = await t.raw('POST', '/submit', {
        base: t.relayerUrl,
        headers: { authorization: `Bearer ${ro}` },
        body: op,
      });
      expect(r.status).toBe(403);
    }
    const own = await t.submit(op);
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect(own.headers.get('x-ratelimit-remaining')).toBe('24');
  });
});

describe('slow and piled-up connections (trial 7 F3)', () => {
  it('a body dripped slowly is answered 408 REQUEST_TIMEOUT and closed at the request timeout', async () => {
    const v = await startVenue({ http: { requestTimeoutMs: 1_000 } });
    venues.push(v);
    const drip: ReturnType<typeof setInterval>[] = [];
    const r = await rawConn(
      v,
      (s) => {
        s.write(
          'POST /clob/order HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
        );
        drip.push(setInterval(() => s.writable && s.write(' '), 200));
      },
      { ms: 30_000 },
    );
    for (const d of drip) clearInterval(d);
    expect(r.closed).toBe(true);
    expect(r.data).toMatch(/^HTTP\/1\.1 408/);
    expect(r.data).toContain('REQUEST_TIMEOUT');
  });

  it('connections beyond maxConnections are closed at once; the venue still answers afterwards', async () => {
    const v = await startVenue({ http: { maxConnections: 8 } });
    venues.push(v);
    const held = await holdConns(v, 8);
    // let the server accept them all
    await new Promise((r) => setTimeout(r, 200));
    const extra = await rawConn(v, (s) => s.write('GET /clob/time HTTP/1.1\r\nHost: x\r\n\r\n'), { ms: 10_000 });
    expect(extra.closed).toBe(true);
    expect(extra.data).toBe('');
    for (const s of held) s.destroy();
    await new Promise((r) => setTimeout(r, 200));
    const ok = await fetch(`${v.clob}/time`);
    expect(ok.status).toBe(200);
  });

  it('connections beyond maxConnectionsPerIp from one address are closed at once; another address is served', async () => {
    const v = await startVenue({ http: { maxConnectionsPerIp: 4 } });
    venues.push(v);
    const held = await holdConns(v, 4, '127.0.0.1');
    await new Promise((r) => setTimeout(r, 200));
    const extra = await rawConn(v, (s) => s.write('GET /clob/time HTTP/1.1\r\nHost: x\r\n\r\n'), { ms: 10_000 });
    expect(extra.closed).toBe(true);
    expect(extra.data).toBe('');
    // another client address (the loopback net is 127/8) is not held off by this one's connections
    const other = await rawExchange(v, 'GET /clob/time HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', {
      localAddress: '127.0.0.2',
    });
    expect(other).toMatch(/^HTTP\/1\.1 200/);
    for (const s of held) s.destroy();
    await new Promise((r) => setTimeout(r, 200));
    const ok = await fetch(`${v.clob}/time`);
    expect(ok.status).toBe(200);
  });
});

describe('credential headers given twice are refused (trial 7)', () => {
  /** A raw GET with the header lines as given (node's client would not send some of these); the status line and body. */
  const rawGetLines = (v: TestVenue, path: string, lines: string[]) =>
    rawExchange(v, `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${lines.join('\r\n')}\r\n\r\n`);

  it('two Authorization headers (two accounts): 401, not the first one taken as the identity', async () => {
    const v = await venue();
    const a = await v.trader();
    const b = await v.trader();
    const one = await rawGetLines(v, '/clob/data/orders', [`Authorization: Bearer ${a.creds!.apiKey}`]);
    expect(one).toMatch(/^HTTP\/1\.1 200/);
    const two = await rawGetLines(v, '/clob/data/orders', [
      `Authorization: Bearer ${a.creds!.apiKey}`,
      `Authorization: Bearer ${b.creds!.apiKey}`,
    ]);
    expect(two).toMatch(/^HTTP\/1\.1 401/);
    expect(two).toContain('Authorization header given more than once');
    expect(two).not.toContain(a.creds!.apiKey);
  });

  it('a POLY_PASSPHRASE given twice: 401 naming it (node joins the two values)', async () => {
    const v = await venue();
    const a = await v.trader();
    const r = await rawGetLines(v, '/clob/data/orders', [
      `POLY_API_KEY: ${a.creds!.apiKey}`,
      `POLY_PASSPHRASE: ${a.creds!.passphrase}`,
      `poly_passphrase: ${a.creds!.passphrase}`,
    ]);
    expect(r).toMatch(/^HTTP\/1\.1 401/);
    expect(r).toContain('POLY_PASSPHRASE header given more than once');
    expect(r).not.toContain(a.creds!.passphrase);
  });
});
