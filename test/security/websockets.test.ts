/**
 * Issue 16, defect 4 and the WebSocket part of defect 5: one client must not be able to stall the
 * exchange or hold its sockets. Re-subscribing answers with fresh snapshots within a per-connection
 * budget (no amplification), sockets are capped in all and per client address (refused before the
 * handshake, with the error envelope), /ws/user must authenticate in time, and the server pings:
 * a socket that answers nothing is cut after the idle timeout. Every refusal is in the security log.
 */
import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { ExchangeServerOptions } from '../../src/exchange/server.ts';
import {
  ADMIN,
  eventually,
  getJson,
  no,
  sleep,
  startVenue,
  yes,
  type TestVenue,
} from '../integration/support/setup.ts';
import type { MarketInfo } from '../integration/support/trader.ts';
import { WsClient } from '../integration/support/ws-client.ts';

const venues: TestVenue[] = [];
const sockets: WebSocket[] = [];
const clients: WsClient[] = [];
afterEach(() => {
  while (sockets.length) sockets.pop()!.terminate();
  while (clients.length) clients.pop()!.close();
});
afterAll(async () => Promise.all(venues.map((v) => v.close())));

async function venue(ws?: ExchangeServerOptions['ws']): Promise<TestVenue> {
  const v = await startVenue({ http: { rateLimits: { enabled: false, scale: 1, queueMs: 0 } }, ...(ws ? { ws } : {}) });
  venues.push(v);
  return v;
}

async function client(v: TestVenue, path: string): Promise<WsClient> {
  const c = await WsClient.open(`${v.running.urls.ws_url}${path}`);
  clients.push(c);
  return c;
}

/** A raw socket that counts the bytes it receives. */
interface Raw {
  ws: WebSocket;
  bytes: number;
  frames: string[];
  closed: { code: number } | undefined;
}
async function raw(url: string, opts: WebSocket.ClientOptions = {}): Promise<Raw> {
  const ws = new WebSocket(url, opts);
  sockets.push(ws);
  const r: Raw = { ws, bytes: 0, frames: [], closed: undefined };
  ws.on('message', (d: Buffer) => {
    r.bytes += d.length;
    r.frames.push(d.toString());
  });
  ws.on('close', (code) => (r.closed = { code }));
  ws.on('error', () => {});
  await once(ws, 'open');
  return r;
}

/** Tries to open a socket: the handshake's HTTP status and body when refused, 101 when opened. */
function attempt(url: string, localAddress?: string): Promise<{ status: number; body: any; ws?: WebSocket }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, localAddress ? { localAddress } : {});
    ws.on('error', () => {});
    ws.once('open', () => {
      sockets.push(ws);
      resolve({ status: 101, body: undefined, ws });
    });
    ws.once('unexpected-response', (_req, res: IncomingMessage) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
      res.on('error', reject);
    });
  });
}

/** Deep books: 40 bid and 40 ask levels on both tokens of `markets` (placed in-process). */
function deepBooks(v: TestVenue, markets: MarketInfo[]): void {
  const ex = v.running.exchange;
  const account = `0x${'d'.repeat(36)}0001`;
  ex.fund(account, 1_000_000 * 1_000_000);
  let n = 0;
  for (const m of markets)
    for (const token of [yes(m), no(m)])
      for (let i = 1; i <= 40; i++) {
        // a NO bid at p is a YES ask at 1 - p: both tokens' books get 40 levels a side
        const r = ex.placeInternal({
          id: `deep-${++n}`,
          account,
          tokenId: token,
          side: 'BUY',
          price: i * 100,
          size: (10 + i) * 1_000_000,
          type: 'GTC',
        });
        if (!r.ok) throw new Error(`placeInternal: ${JSON.stringify(r)}`);
      }
}

async function bookLatencyMs(v: TestVenue, token: string): Promise<number> {
  const t0 = performance.now();
  const r = await fetch(`${v.clob}/book?token_id=${token}`);
  await r.arrayBuffer();
  return performance.now() - t0;
}

describe('market channel: re-subscribing cannot amplify (defect 4)', () => {
  it('200 re-subscribes to 20 deep books: bounded output, GET /book stays fast, the socket is closed 1008', async () => {
    const v = await venue();
    const markets = v.markets.filter((m) => !m.neg_risk && m.minimum_tick_size <= 0.01).slice(0, 10);
    expect(markets.length).toBe(10);
    deepBooks(v, markets);
    const tokens = markets.flatMap((m) => [yes(m), no(m)]);
    const probe = tokens[0]!;
    const idle: number[] = [];
    for (let i = 0; i < 10; i++) idle.push(await bookLatencyMs(v, probe));

    const c = await raw(`${v.running.urls.ws_url}/ws/market`);
    c.ws.send(JSON.stringify({ assets_ids: tokens, type: 'market' }));
    await eventually(() => c.frames.length > 0, 10_000, 10);
    const first = JSON.parse(c.frames[0]!) as any[];
    expect(first).toHaveLength(20); // the first subscription is answered whole
    const snapshotBytes = c.bytes;
    expect(snapshotBytes).toBeGreaterThan(40_000); // ~2.7 KB a book: 200 re-sends would be ~11 MB

    const before = v.running.security.counts().ws_refused;
    const frame = JSON.stringify({ assets_ids: tokens, operation: 'subscribe' });
    for (let i = 0; i < 200; i++) c.ws.send(frame);
    // GET /book while the exchange handles the flood
    const during: number[] = [];
    const until = Date.now() + 1000;
    while (Date.now() < until) during.push(await bookLatencyMs(v, probe));
    await eventually(() => c.closed !== undefined, 10_000);

    const after = c.bytes - snapshotBytes;
    expect(after).toBeLessThan(1_000_000);
    const books = c.frames.slice(1).filter((f) => f.startsWith('[')).length;
    expect(books).toBeGreaterThanOrEqual(5); // re-subscribes within the budget got their snapshots
    expect(books).toBeLessThan(20);
    expect(c.frames.some((f) => f.includes('"RATE_LIMITED"'))).toBe(true);
    expect(c.closed?.code).toBe(1008);
    const median = [...idle].sort((a, b) => a - b)[5]!;
    expect(Math.max(...during)).toBeLessThan(Math.max(400, 20 * median));
    expect(v.running.security.counts().ws_refused).toBeGreaterThan(before);
    expect(v.running.security.recent().some((e) => /message budget/.test(e.reason))).toBe(true);
    expect(v.running.streams.stats().budgetClosed).toBe(1);
  });

  it('a re-subscribe within the budget still answers a fresh snapshot; pushed data is never limited', async () => {
    const v = await venue({ budget: { replyBurstBytes: 8_000, replyBytesPerSec: 1 } });
    const m = v.markets.find((x) => !x.neg_risk && x.minimum_tick_size === 0.01)!;
    deepBooks(v, [m]); // ~2.7 KB a book
    const a = await v.trader();
    const c = await client(v, '/ws/market');
    c.send({ assets_ids: [yes(m)], type: 'market' });
    await c.waitFor((e) => e.event_type === 'book');
    // three re-subscribes fit in 8 KB: each answers the book as it is now
    const placed: string[] = [];
    for (const price of ['0.41', '0.42', '0.43']) {
      const r = await a.place(yes(m), 'BUY', price, '5');
      expect(r.body.success).toBe(true);
      placed.push(r.id);
      await c.waitFor((e) => e.event_type === 'price_change' && e.price_changes.some((p: any) => p.price === price));
      const from = c.events.length;
      c.send({ assets_ids: [yes(m)], operation: 'subscribe' });
      const snap = await c.waitFor((e) => e.event_type === 'book', { from });
      expect(snap.bids).toEqual((await getJson(`${v.clob}/book?token_id=${yes(m)}`)).bids);
      expect(snap.bids.at(-1)).toEqual({ price, size: '5' });
    }
    // the fourth is over the budget: an error frame instead, the subscription stands
    let from = c.events.length;
    c.send({ assets_ids: [yes(m)], operation: 'subscribe' });
    const err = await c.waitFor((e) => e.event_type === 'error', { from });
    expect(err.error).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringMatching(/snapshot budget/) });
    // changes keep streaming
    from = c.events.length;
    const r = await a.place(yes(m), 'BUY', '0.44', '5');
    await c.waitFor((e) => e.event_type === 'price_change', { from });
    expect(c.events.slice(from).some((e) => e.event_type === 'book')).toBe(false);
    expect(c.closed).toBeUndefined();
    await a.l2('DELETE', '/orders', [...placed, r.id]);
  });
});

describe('connection caps (defect 5)', () => {
  it('refuses the connection over the per-address cap with 429 and over the total cap with 503, with the envelope', async () => {
    const v = await venue({ maxConnections: 5, maxConnectionsPerIp: 3 });
    const url = `${v.running.urls.ws_url}/ws/market`;
    for (let i = 0; i < 3; i++) expect((await attempt(url, '127.0.0.1')).status).toBe(101);
    const perIp = await attempt(url, '127.0.0.1');
    expect(perIp.status).toBe(429);
    expect(perIp.body).toMatchObject({ success: false, error: { code: 'TOO_MANY_CONNECTIONS' } });
    expect(perIp.body.error.message).toMatch(/per address/);
    // other addresses are not held by it, up to the total
    for (let i = 0; i < 2; i++) expect((await attempt(url, '127.0.0.2')).status).toBe(101);
    const total = await attempt(`${v.running.urls.ws_url}/rtds`, '127.0.0.3');
    expect(total.status).toBe(503);
    expect(total.body).toMatchObject({ success: false, error: { code: 'TOO_MANY_CONNECTIONS' } });
    const log = v.running.security.recent().filter((e) => e.kind === 'ws_refused');
    expect(log).toHaveLength(2);
    expect(log[0]).toMatchObject({ route: '/ws/market', ip: '127.0.0.1' });
    expect(log[1]).toMatchObject({ route: '/rtds', ip: '127.0.0.3' });
    expect(v.running.streams.stats().refusedConnections).toBe(2);
    // a closed socket frees its place
    sockets[0]!.terminate();
    expect(
      await eventually(async () => {
        const r = await attempt(url, '127.0.0.1');
        return r.status === 101;
      }, 5000),
    ).toBe(true);
  });

  it('the defaults: 1000 in all, 100 per address', async () => {
    const v = await venue();
    expect(v.running.streams.limits).toMatchObject({ maxConnections: 1000, maxConnectionsPerIp: 100 });
  });
});

describe('authentication deadline on the user channel (defect 5)', () => {
  it('closes a /ws/user socket that does not authenticate in time, and a /ws socket that picks no channel', async () => {
    const v = await venue({ authTimeoutMs: 500 });
    const a = await v.trader();
    const t0 = Date.now();
    const idle = await client(v, '/ws/user');
    const pending = await client(v, '/ws');
    const authed = await client(v, '/ws/user');
    authed.send({ auth: { ...a.creds! }, markets: [], type: 'user' });
    const viaWs = await client(v, '/ws');
    viaWs.send({ auth: { ...a.creds! }, markets: [], type: 'user' });
    const market = await client(v, '/ws/market'); // no authentication there

    const closed = await idle.waitClose(5000);
    expect(closed).toEqual({ code: 1008, reason: 'authentication timeout' });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(450);
    expect(idle.events).toEqual([
      { event_type: 'error', error: { code: 'UNAUTHORIZED', message: expect.stringMatching(/500 ms/) } },
    ]);
    expect((await pending.waitClose(5000)).code).toBe(1008);
    await sleep(300);
    for (const c of [authed, viaWs, market]) {
      expect(c.closed).toBeUndefined();
      const n = c.texts.length;
      c.send('PING');
      await c.waitText('PONG', n);
    }
    const log = v.running.security.recent().filter((e) => e.kind === 'ws_refused');
    expect(log.map((e) => e.route).sort()).toEqual(['/ws', '/ws/user']);
    expect(log.every((e) => /auth timeout/.test(e.reason) && e.ip === '127.0.0.1')).toBe(true);
    expect(v.running.streams.stats().authTimeouts).toBe(2);
  });

  it('logs a failed authentication without the secret or the whole key, on /ws/user and /ws (findings-5 F2)', async () => {
    const v = await venue();
    const a = await v.trader();
    const wrong = { ...a.creds!, secret: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=' };
    for (const path of ['/ws/user', '/ws']) {
      const c = await client(v, path);
      c.send({ auth: wrong, markets: [], type: 'user' });
      expect((await c.waitClose(5000)).code).toBe(1008);
    }
    const log = v.running.security.recent().filter((e) => e.kind === 'auth_failed');
    expect(log.map((e) => e.route)).toEqual(['/ws/user', '/ws']);
    // the key as the REST failures show it: `key:` and its first 8 characters (Bearer: the key alone logs in)
    for (const e of log) expect(e.identity).toBe(`key:${a.creds!.apiKey.slice(0, 8)}…`);
    const r = await fetch(`${v.clob.replace(/\/clob$/, '')}/admin/security`, { headers: { 'x-admin-token': ADMIN } });
    expect(r.status).toBe(200);
    const body = await r.text();
    for (const text of [JSON.stringify(log), body]) {
      expect(text).not.toContain(a.creds!.apiKey);
      expect(text).not.toContain(a.creds!.passphrase);
    }
  });
});

describe('server pings and the idle timeout (defect 5)', () => {
  it('pings every socket; one that never answers is terminated, the others stay', async () => {
    const v = await venue({ pingIntervalMs: 150, idleTimeoutMs: 1000 });
    const base = v.running.urls.ws_url;
    const normal = await client(v, '/ws/market');
    const deaf = await raw(`${base}/ws/market`, { autoPong: false });
    let deafPings = 0;
    deaf.ws.on('ping', () => deafPings++);
    const rtds = await client(v, '/rtds');
    await eventually(() => deaf.closed !== undefined, 5000, 20);
    expect(deaf.closed?.code).toBe(1006); // terminated: no close frame
    expect(deafPings).toBeGreaterThanOrEqual(2);
    await sleep(600);
    for (const c of [normal, rtds]) {
      expect(c.closed).toBeUndefined();
      expect(c.pings).toBeGreaterThanOrEqual(5);
    }
    // the RTDS text ping is still answered with "pong" and a ping frame
    const pings = rtds.pings;
    rtds.send('ping');
    await rtds.waitText('pong');
    await rtds.until(() => rtds.pings > pings, 3000, 'a ping frame');
    const log = v.running.security.recent().filter((e) => e.kind === 'ws_refused');
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ route: '/ws/market', ip: '127.0.0.1', reason: expect.stringMatching(/idle/) });
    expect(v.running.streams.stats().idleTerminated).toBe(1);
  });
});
