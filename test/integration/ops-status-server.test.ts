/**
 * The status server over real loopback HTTP: every route, SSE pushes, and the kill endpoint's
 * guards (control token, Origin, JSON content type, POST only) and its wait for the flat check.
 * (Host checks, the token and body limits as attacks: test/security/status-server.test.ts.)
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startStatusServer, type KillResult, type StatusServer } from '../../src/ops/status-server.ts';
import type { HealthReport } from '../../src/ops/health.ts';
import type { StatusSnapshot } from '../../src/ops/status.ts';

const TOKEN = 'a'.repeat(64);
const AUTH = { authorization: `Bearer ${TOKEN}` };
let server: StatusServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const health = (healthy: boolean): HealthReport => ({
  status: healthy ? 'ok' : 'unhealthy',
  healthy,
  reasons: healthy ? [] : [{ code: 'feed_stale', message: 'no market data for 20 s' }],
  checks: {
    lifecycle: 'running',
    marketDataAgeSec: 1,
    marketStream: 'up',
    userStream: 'up',
    staleBooks: 0,
    heartbeatFailures: 0,
    killSwitch: false,
  },
});

async function start(
  o: {
    healthy?: () => boolean;
    kill?: (r: string) => Promise<KillResult>;
    status?: (n: number) => Record<string, unknown>;
  } = {},
) {
  let n = 0;
  server = await startStatusServer({
    host: '127.0.0.1',
    port: 0,
    page: '<!doctype html><title>mmkit status</title>',
    status: () => (o.status ? o.status(++n) : { schema: 1, n: ++n }) as unknown as StatusSnapshot,
    health: () => health(o.healthy ? o.healthy() : true),
    metrics: async () => 'mmkit_up 1\n',
    metricsContentType: 'text/plain; version=0.0.4; charset=utf-8',
    controlToken: TOKEN,
    ...(o.kill ? { kill: o.kill } : {}),
    ssePeriodMs: 50,
  });
  return server;
}

/** A raw request (to set Host and Origin freely). */
function raw(
  url: string,
  o: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: o.method ?? 'GET', headers: o.headers ?? {} }, (res) => {
      let b = '';
      res.on('data', (c) => (b += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: b }));
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

describe('status server', () => {
  it('serves the page, /metrics, /healthz (200 or 503) and /api/status', async () => {
    let healthy = true;
    const s = await start({ healthy: () => healthy });
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const page = await fetch(`${s.url}/`);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await page.text()).toContain('mmkit status');
    const m = await fetch(`${s.url}/metrics`);
    expect(m.headers.get('content-type')).toContain('text/plain');
    expect(await m.text()).toBe('mmkit_up 1\n');
    const h = await fetch(`${s.url}/healthz`);
    expect(h.status).toBe(200);
    expect(await h.json()).toMatchObject({ status: 'ok' });
    healthy = false;
    const h2 = await fetch(`${s.url}/healthz`);
    expect(h2.status).toBe(503);
    expect(await h2.json()).toMatchObject({ status: 'unhealthy', reasons: [{ code: 'feed_stale' }] });
    // liveness: alive while unhealthy (a venue blip is no reason to restart the process: trial 17 F9)
    const live = await fetch(`${s.url}/livez`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'alive' });
    expect(await (await fetch(`${s.url}/api/status`)).json()).toMatchObject({ schema: 1 });
    expect((await fetch(`${s.url}/nope`)).status).toBe(404);
    expect((await fetch(`${s.url}/metrics`, { method: 'POST' })).status).toBe(405);
  });

  it('pushes status snapshots over server-sent events, and ends the stream on close', async () => {
    const s = await start();
    const r = await fetch(`${s.url}/api/events`);
    expect(r.headers.get('content-type')).toContain('text/event-stream');
    const reader = r.body!.getReader();
    let text = '';
    while ((text.match(/event: status/g) ?? []).length < 3)
      text += new TextDecoder().decode((await reader.read()).value);
    expect(text).toContain('retry: 2000');
    expect(text).toMatch(/data: \{"schema":1,"n":\d+\}/);
    const closing = s.close();
    for (;;) {
      const x = await reader.read();
      if (x.done) break;
      text += new TextDecoder().decode(x.value);
    }
    await closing;
    server = undefined;
    expect(text).toContain('event: end');
  });

  it('sends the PnL series whole once, then only its changes; whole again after a thinning', async () => {
    // the n-th snapshot's series, as the monitor builds it: the points kept (one a sample, thinned to
    // every other one at n = 8), then the current sample
    const pt = (t: number) => ({ t, realized: '0', unrealized: '0', rewards: '0', total: String(t) });
    const seriesAt = (n: number) => {
      const kept = Array.from({ length: n }, (_, i) => pt(i * 1000)).filter((_, i) => n < 8 || i % 2 === 0);
      return [...kept, pt(n * 1000 + 500)];
    };
    const s = await start({ status: (n) => ({ schema: 1, n, pnl: { total: '1', series: seriesAt(n) } }) });
    const r = await fetch(`${s.url}/api/events`);
    const reader = r.body!.getReader();
    let text = '';
    const frames = () => [...text.matchAll(/event: status\ndata: (.*)\n\n/g)].map((m) => JSON.parse(m[1]!));
    while (frames().length < 12) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    // what a client rebuilds (the page does the same) is the series of that snapshot, every time
    let held: unknown[] = [];
    const f = frames();
    for (const x of f) {
      const u = x.pnl.seriesUpdate;
      held = u === undefined ? x.pnl.series : [...held.slice(0, u.keep), ...u.points];
      expect(held, `frame n=${x.n}`).toEqual(seriesAt(x.n));
    }
    // the first frame and the one after the thinning carry it whole, the others only the change
    expect(f[0].pnl.series).toBeDefined();
    const whole = f.filter((x) => x.pnl.series !== undefined).map((x) => x.n);
    expect(whole).toEqual([f[0].n, ...(f[0].n < 8 ? [8] : [])]);
    const later = f.find((x) => x.n > 9)!;
    expect(later.pnl).not.toHaveProperty('series');
    expect(later.pnl.seriesUpdate.points.length).toBeLessThanOrEqual(2);
  });

  it('sends quotes and recent fills whole once, then only when they change: a quiet second sends neither', async () => {
    // the n-th snapshot: market A's quotes replaced at n = 5, B's never; a fill at n = 4 and two at
    // n = 7 (after ones at n = 1 and 2), at most 3 kept (the oldest drop off); every other second is quiet
    const quote = (id: string) => ({
      id,
      tokenId: 't1',
      outcome: 'Yes',
      side: 'BUY',
      price: '0.4',
      size: '10',
      matched: '0',
    });
    const fill = (k: number) => ({
      time: new Date(k * 1000).toISOString(),
      market: 'A',
      question: 'q',
      outcome: 'Yes',
      side: 'BUY',
      role: 'maker',
      price: '0.4',
      size: '1',
      status: 'MATCHED',
    });
    const fillsAt = (n: number) =>
      [1, 2, 4, 7, 7.5]
        .filter((k) => Math.floor(k) <= n)
        .reverse()
        .slice(0, 3)
        .map(fill);
    const snap = (n: number) => ({
      schema: 1,
      n,
      markets: [
        { market: 'A', question: 'a', tokens: [{ bestBid: String(n) }], quotes: [quote(n < 5 ? 'a1' : 'a2')] },
        { market: 'B', question: 'b', tokens: [], quotes: [quote('b1'), quote('b2')] },
      ],
      fills: { count: fillsAt(n).length, recent: fillsAt(n) },
    });
    const s = await start({ status: snap });
    const r = await fetch(`${s.url}/api/events`);
    const reader = r.body!.getReader();
    let text = '';
    const frames = () => [...text.matchAll(/event: status\ndata: (.*)\n\n/g)].map((m) => JSON.parse(m[1]!));
    while (frames().length < 10) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    const f = frames();
    // what a client rebuilds (the page does the same) is that snapshot's quotes and fills, every time
    let quotes = new Map<string, unknown>();
    let fills: unknown[] = [];
    for (const x of f) {
      const held = new Map<string, unknown>();
      for (const m of x.markets) held.set(m.market, m.quotes ?? quotes.get(m.market));
      quotes = held;
      const u = x.fills.recentUpdate;
      fills = u === undefined ? x.fills.recent : [...u.add, ...fills.slice(0, u.keep)];
      const want = snap(x.n);
      expect(Object.fromEntries(quotes), `frame n=${x.n}`).toEqual(
        Object.fromEntries(want.markets.map((m) => [m.market, m.quotes])),
      );
      expect(fills, `frame n=${x.n}`).toEqual(want.fills.recent);
      // the figures still come every time
      expect(x.markets[0].tokens).toEqual(want.markets[0]!.tokens);
      expect(x.fills.count).toBe(want.fills.count);
    }
    // the first frame carries them whole; a quiet second carries no quote and no fill at all
    expect(f[0].markets.every((m: { quotes?: unknown }) => Array.isArray(m.quotes))).toBe(true);
    expect(f[0].fills.recent).toBeDefined();
    const quiet = f.slice(1).filter((x) => ![2, 4, 5, 7].includes(x.n));
    expect(quiet.length).toBeGreaterThan(3);
    for (const x of quiet) {
      expect(
        x.markets.some((m: { quotes?: unknown }) => 'quotes' in m),
        `frame n=${x.n}`,
      ).toBe(false);
      expect(x.fills, `frame n=${x.n}`).not.toHaveProperty('recent');
      expect(x.fills.recentUpdate.add, `frame n=${x.n}`).toEqual([]);
    }
    // a change sends only what changed: A's new quotes (not B's), the new fills (not the old ones)
    const at = (n: number) => f.find((x) => x.n === n);
    if (at(5) && f[0].n < 5) {
      expect(at(5).markets.map((m: { quotes?: unknown }) => 'quotes' in m)).toEqual([true, false]);
    }
    if (at(7) && f[0].n < 7)
      expect(at(7).fills.recentUpdate).toEqual({ keep: 1, add: snap(7).fills.recent.slice(0, 2) });
  });

  it('POST /api/kill: trips once, waits for the flat check, answers the result', async () => {
    const reasons: string[] = [];
    let release!: (r: KillResult) => void;
    const done = new Promise<KillResult>((r) => (release = r));
    const s = await start({
      kill: (reason) => {
        reasons.push(reason);
        return done;
      },
    });
    const a = fetch(`${s.url}/api/kill`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...AUTH },
      body: JSON.stringify({ reason: 'test stop' }),
    });
    // the second request once the first has tripped it (two connections race to the server: on a
    // loaded machine the second can arrive first)
    for (let i = 0; i < 600 && reasons.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    const b = fetch(`${s.url}/api/kill`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-control-token': TOKEN },
      body: '{}',
    });
    await new Promise((r) => setTimeout(r, 100));
    release({ flat: true, openOrders: 0, reason: 'kill switch: cli: test stop' });
    const [ra, rb] = await Promise.all([a, b]);
    expect(ra.status).toBe(200);
    expect(await ra.json()).toEqual({ killed: true, flat: true, openOrders: 0, reason: 'kill switch: cli: test stop' });
    expect(rb.status).toBe(200);
    expect(reasons).toEqual(['test stop']);
  });

  it('POST /api/kill refuses other hosts, foreign origins, non-JSON bodies and GET', async () => {
    let kills = 0;
    const s = await start({ kill: async () => (kills++, { flat: true, openOrders: 0, reason: 'x' }) });
    const json = { 'content-type': 'application/json', ...AUTH };
    expect(
      (await raw(`${s.url}/api/kill`, { method: 'POST', headers: { ...json, host: 'evil.example:8787' }, body: '{}' }))
        .status,
    ).toBe(421);
    expect(
      (
        await raw(`${s.url}/api/kill`, {
          method: 'POST',
          headers: { ...json, origin: 'http://evil.example' },
          body: '{}',
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await raw(`${s.url}/api/kill`, {
          method: 'POST',
          headers: { ...AUTH, 'content-type': 'text/plain' },
          body: '{}',
        })
      ).status,
    ).toBe(415);
    expect(
      (
        await raw(`${s.url}/api/kill`, {
          method: 'POST',
          headers: { ...AUTH, 'content-type': 'application/x-www-form-urlencoded' },
          body: 'a=1',
        })
      ).status,
    ).toBe(415);
    expect((await raw(`${s.url}/api/kill`)).status).toBe(405);
    expect((await raw(`${s.url}/api/kill`, { method: 'POST', headers: json, body: 'not json' })).status).toBe(400);
    expect(kills).toBe(0);
    // its own page's origin is fine
    expect(
      (await raw(`${s.url}/api/kill`, { method: 'POST', headers: { ...json, origin: s.url }, body: '{}' })).status,
    ).toBe(200);
    expect(kills).toBe(1);
  });

  it('fails to start on a port in use', async () => {
    const s = await start();
    await expect(
      startStatusServer({
        host: '127.0.0.1',
        port: s.port,
        page: '',
        status: () => ({}) as StatusSnapshot,
        health: () => health(true),
        metrics: async () => '',
        metricsContentType: 'text/plain',
        controlToken: TOKEN,
      }),
    ).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });
});
