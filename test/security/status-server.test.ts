/**
 * Issue 16, defect 6: the daemon's status server (src/ops/status-server.ts, started by the daemon's
 * ops, src/ops/daemon-ops.ts, as `mmkit run` starts it) against a DNS-rebinding page, a local
 * process without the control token, and an oversized kill body:
 *
 *  1. every route (/, /api/status, /metrics, /healthz, /api/events, POST /api/kill) refuses a Host
 *     header it does not know (421, a JSON error, nothing of the daemon's), and one missing
 *     (HTTP/1.0); loopback names with the server's port (or none) are answered, and so is a host the
 *     operator allowed (`ops.allowedHosts`: `name` any port, `name:port` that port only);
 *  2. POST /api/kill without the control token is refused (401), with a wrong one too (403), and
 *     the kill switch stays armed; with the token (Bearer or X-Control-Token) it trips;
 *  3. the token file is `<dataDir>/control.token`, mode 0600 from its creation; the page served to
 *     an allowed host carries it (for its kill button), /api/status, /metrics, /healthz, the event
 *     stream, refusals and the log do not;
 *  4. a kill body over 4 KiB is answered 413 with a JSON error (not a reset connection), the switch
 *     stays armed, and the connection still serves the next request.
 */
import { readFileSync, statSync, mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { LiveClock } from '../../src/core/clock.ts';
import { KillSwitch } from '../../src/risk/kill-switch.ts';
import { startOps, type DaemonOps } from '../../src/ops/daemon-ops.ts';
import { AllowedHosts, validateAllowedHosts } from '../../src/ops/allowed-hosts.ts';
import { loadConfig } from '../../src/cli/config.ts';
import { stubDaemonParts } from '../support/daemon-parts.ts';

const ADDRESS = '0x1111111111111111111111111111111111111111';
const open: DaemonOps[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) await o.close();
});

/** The daemon's ops with its status server on a free loopback port, its log captured, and a kill switch attached. */
async function daemon(allowedHosts?: string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'mmkit-status-sec-'));
  const lines: string[] = [];
  const log = pino(
    { level: 'debug' },
    new Writable({
      write(c, _e, cb) {
        lines.push(String(c));
        cb();
      },
    }),
  );
  const clock = new LiveClock();
  const ops = await startOps({
    clock,
    log,
    http: { httpHost: '127.0.0.1', httpPort: 0, ...(allowedHosts ? { allowedHosts } : {}) },
    dataDir: dir,
    version: '1.0.0',
    sampleMs: 100,
  });
  open.push(ops);
  const kill = new KillSwitch(clock);
  // the daemon's parts, reduced to what the status snapshot reads (an account, no market)
  (ops as unknown as { attach: (p: unknown) => void }).attach(
    stubDaemonParts({ kill, address: ADDRESS, availableCollateral: 5_000_000 }),
  );
  // the daemon answers a trip with its flat check; here: flat at once
  kill.onTrip((t) => setTimeout(() => ops.flattened({ flat: true, open: [] }, `kill switch: ${t.trigger}`), 10));
  const url = ops.url!;
  const port = Number(new URL(url).port);
  const token = (): string => readFileSync(join(dir, 'control.token'), 'utf8').trim();
  return { ops, dir, url, port, kill, lines, token };
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw request: any Host, any headers, any body; `agent` to reuse a connection. */
function raw(
  port: number,
  path: string,
  o: {
    method?: string;
    headers?: Record<string, string | number>;
    body?: string | Buffer;
    firstChunkOnly?: boolean;
  } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: o.method ?? 'GET', headers: o.headers ?? {}, setHost: false },
      (res) => {
        let b = '';
        res.on('data', (c) => {
          b += c;
          // an event stream never ends: its first frame is enough
          if (o.firstChunkOnly && b.includes('\n\n')) {
            res.destroy();
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: b });
          }
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: b }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(o.body);
  });
}

const ROUTES: Array<[string, string]> = [
  ['GET', '/'],
  ['GET', '/index.html'],
  ['GET', '/api/status'],
  ['GET', '/metrics'],
  ['GET', '/healthz'],
  ['GET', '/api/events'],
  ['GET', '/nope'],
  ['POST', '/api/kill'],
];

describe('1. DNS rebinding: the Host header is checked on every route', () => {
  it('refuses an unknown Host (421, JSON, nothing of the daemon) and answers loopback names', async () => {
    const d = await daemon();
    const token = d.token();
    for (const host of ['evil.example', `evil.example:${d.port}`, `127.0.0.1.evil.example:${d.port}`, '10.0.0.2']) {
      for (const [method, path] of ROUTES) {
        const r = await raw(d.port, path, {
          method,
          headers: {
            host,
            'content-type': 'application/json',
            ...(method === 'POST' ? { authorization: `Bearer ${token}` } : {}),
          },
          ...(method === 'POST' ? { body: '{}' } : {}),
        });
        expect(r.status, `${method} ${path} Host ${host}`).toBe(421);
        expect(r.headers['content-type']).toContain('application/json');
        expect(JSON.parse(r.body)).toMatchObject({ error: expect.stringContaining('host') });
        expect(r.body).not.toContain(ADDRESS);
        expect(r.body).not.toContain(token);
      }
    }
    // a loopback name with another port (a published port, `-p 127.0.0.1:9000:8787`) is answered: a
    // rebinding page cannot make the browser send a loopback name; a name that only starts like one is not
    expect((await raw(d.port, '/api/status', { headers: { host: `127.0.0.1:${d.port + 1}` } })).status).toBe(200);
    expect((await raw(d.port, '/api/status', { headers: { host: `localhost:${d.port}.evil.example` } })).status).toBe(
      421,
    );
    // the kill switch never tripped
    expect(d.kill.reason).toBe(null);

    // the names an operator on this machine uses are answered
    for (const host of [
      `127.0.0.1:${d.port}`,
      `localhost:${d.port}`,
      `LOCALHOST:${d.port}`,
      `[::1]:${d.port}`,
      'localhost',
    ]) {
      const r = await raw(d.port, '/api/status', { headers: { host } });
      expect(r.status, host).toBe(200);
      expect(JSON.parse(r.body)).toMatchObject({ schema: 1, account: { address: ADDRESS } });
    }
    const m = await raw(d.port, '/metrics', { headers: { host: `localhost:${d.port}` } });
    expect(m.status).toBe(200);
    expect(m.body).toContain('mmkit_info');
    const sse = await raw(d.port, '/api/events', { headers: { host: `127.0.0.1:${d.port}` }, firstChunkOnly: true });
    expect(sse.status).toBe(200);
    expect(sse.headers['content-type']).toContain('text/event-stream');
  });

  it('refuses a request without a Host header (HTTP/1.0)', async () => {
    const d = await daemon();
    const answer = await new Promise<string>((resolve, reject) => {
      const s = connect(d.port, '127.0.0.1', () => s.end('GET /api/status HTTP/1.0\r\n\r\n'));
      let b = '';
      s.on('data', (c) => (b += c));
      s.on('end', () => resolve(b));
      s.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.[01] 421 /);
    expect(answer).toContain('"error"');
    expect(answer).not.toContain(ADDRESS);
  });

  it('answers a host the operator allowed (ops.allowedHosts): a name with any port, name:port that port only', async () => {
    const d = await daemon(['mmkit.lan', 'Box.Example:9000', '192.168.1.5']);
    for (const host of ['mmkit.lan', 'mmkit.lan:9000', `mmkit.lan:${d.port}`, 'box.example:9000', '192.168.1.5:18787'])
      expect((await raw(d.port, '/api/status', { headers: { host } })).status, host).toBe(200);
    for (const host of ['box.example', 'box.example:9001', 'evil.mmkit.lan', 'mmkit.lan.evil.example'])
      expect((await raw(d.port, '/api/status', { headers: { host } })).status, host).toBe(421);
    // the kill button works through such a name (a container's published port): the page carries the token
    const page = await raw(d.port, '/', { headers: { host: 'box.example:9000' } });
    expect(page.status).toBe(200);
    expect(page.body).toContain(`<meta name="mmkit-control-token" content="${d.token()}">`);
    const k = await raw(d.port, '/api/kill', {
      method: 'POST',
      headers: {
        host: 'box.example:9000',
        origin: 'http://box.example:9000',
        'content-type': 'application/json',
        'x-control-token': d.token(),
      },
      body: JSON.stringify({ reason: 'the page behind the published port' }),
    });
    expect(k.status, k.body).toBe(200);
    expect(JSON.parse(k.body)).toMatchObject({ killed: true, flat: true });
    expect(d.kill.reason?.trigger).toBe('cli');
  });

  it('the configuration key: ops.allowedHosts / MMKIT_STATUS_ALLOWED_HOSTS, checked', () => {
    expect(loadConfig(undefined, {}, {}).ops.allowedHosts).toEqual([]);
    expect(
      loadConfig(undefined, {}, { MMKIT_STATUS_ALLOWED_HOSTS: 'mmkit.lan, 10.0.0.5:8787,[fd00::5]' }).ops.allowedHosts,
    ).toEqual(['mmkit.lan', '10.0.0.5:8787', '[fd00::5]']);
    expect(loadConfig(undefined, {}, { MMKIT_STATUS_ALLOWED_HOSTS: '["a.lan","b.lan:1"]' }).ops.allowedHosts).toEqual([
      'a.lan',
      'b.lan:1',
    ]);
    for (const bad of ['*', 'http://mmkit.lan', 'user@mmkit.lan', 'mmkit.lan/x', 'mmkit.lan:99999', 'a b'])
      expect(() => loadConfig(undefined, {}, { MMKIT_STATUS_ALLOWED_HOSTS: bad }), bad).toThrow(/ops\.allowedHosts/);
    expect(() => validateAllowedHosts(['*'])).toThrow();
    // a wildcard bind (0.0.0.0 in a container) allows no name by itself; a specific one does
    const wild = new AllowedHosts(8787, ['0.0.0.0', '::']);
    expect(wild.allows('0.0.0.0:8787')).toBe(false);
    expect(wild.allows('[::]:8787')).toBe(false);
    expect(wild.allows('127.0.0.1:8787')).toBe(true);
    const lan = new AllowedHosts(8787, ['192.168.1.5', 'fe80::1']);
    expect(lan.allows('192.168.1.5:8787')).toBe(true);
    expect(lan.allows('[fe80::1]:8787')).toBe(true);
    expect(lan.allows('192.168.1.5:9000')).toBe(false);
    expect(lan.allows(undefined)).toBe(false);
    expect(lan.allows('')).toBe(false);
  });
});

describe('2. the kill route takes the control token', () => {
  it('refuses a kill without it (401) or with a wrong one (403): the switch stays armed; the token trips it', async () => {
    const d = await daemon();
    const token = d.token();
    const kill = (headers: Record<string, string>) =>
      raw(d.port, '/api/kill', {
        method: 'POST',
        headers: { host: `127.0.0.1:${d.port}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ reason: 'a local process' }),
      });
    const none = await kill({});
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toContain('Bearer');
    expect(JSON.parse(none.body).error).toContain('control token');
    const wrongs = [
      'f'.repeat(64), // same length
      token.slice(0, -1), // a prefix
      `${token}0`,
      token.toUpperCase() === token ? `x${token}` : token.toUpperCase(),
      'x',
    ];
    for (const w of wrongs) {
      for (const headers of [{ authorization: `Bearer ${w}` }, { 'x-control-token': w }] as Record<string, string>[]) {
        const r = await kill(headers);
        expect(r.status, JSON.stringify(headers)).toBe(403);
        expect(r.body).not.toContain(token);
      }
    }
    // not a bearer token: Basic, or the token alone
    expect((await kill({ authorization: `Basic ${Buffer.from(`x:${token}`).toString('base64')}` })).status).toBe(401);
    expect((await kill({ authorization: token })).status).toBe(401);
    // nothing tripped, the daemon runs on
    expect(d.kill.reason).toBe(null);
    const st = await raw(d.port, '/api/status', { headers: { host: `127.0.0.1:${d.port}` } });
    expect(JSON.parse(st.body)).toMatchObject({ killSwitch: { tripped: false } });
    // and a foreign Origin with the right token is still refused (another site's page holds no token anyway)
    expect((await kill({ authorization: `Bearer ${token}`, origin: 'http://evil.example' })).status).toBe(403);
    expect(d.kill.reason).toBe(null);

    const ok = await kill({ authorization: `Bearer ${token}` });
    expect(ok.status, ok.body).toBe(200);
    expect(JSON.parse(ok.body)).toEqual({ killed: true, flat: true, openOrders: 0, reason: 'kill switch: cli' });
    expect(d.kill.reason).toMatchObject({ trigger: 'cli', message: 'a local process' });
  });

  it('takes the token in X-Control-Token too', async () => {
    const d = await daemon();
    const r = await raw(d.port, '/api/kill', {
      method: 'POST',
      headers: { host: `localhost:${d.port}`, 'content-type': 'application/json', 'x-control-token': d.token() },
      body: '{}',
    });
    expect(r.status, r.body).toBe(200);
    expect(d.kill.reason?.trigger).toBe('cli');
  });
});

describe('3. the token: owner-only file, on the page for an allowed host, nowhere else', () => {
  it('is written 0600 to <dataDir>/control.token, fresh per daemon, and removed at close', async () => {
    const d = await daemon();
    const file = join(d.dir, 'control.token');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(d.token()).toMatch(/^[0-9a-f]{64}$/);
    const other = await daemon();
    expect(other.token()).not.toBe(d.token());
    await d.ops.close();
    expect(() => statSync(file)).toThrow(/ENOENT/);
  });

  it('is in the page served to an allowed host, not in /api/status, /metrics, /healthz, the events, refusals or the log', async () => {
    const d = await daemon();
    const token = d.token();
    const host = { host: `127.0.0.1:${d.port}` };
    const page = await raw(d.port, '/', { headers: host });
    expect(page.status).toBe(200);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body).toContain(`<meta name="mmkit-control-token" content="${token}">`);
    // the page's kill button sends it
    expect(page.body).toContain("headers['x-control-token']");
    // fetch over the whole routes: only the page holds it
    const seen: Answer[] = [
      await raw(d.port, '/api/status', { headers: host }),
      await raw(d.port, '/metrics', { headers: host }),
      await raw(d.port, '/healthz', { headers: host }),
      await raw(d.port, '/api/events', { headers: host, firstChunkOnly: true }),
      await raw(d.port, '/nope', { headers: host }),
      await raw(d.port, '/', { headers: { host: 'evil.example' } }),
      await raw(d.port, '/', { headers: { host: `evil.example:${d.port}` } }),
      await raw(d.port, '/api/kill', {
        method: 'POST',
        headers: { ...host, 'content-type': 'application/json' },
        body: '{}',
      }),
      await raw(d.port, '/api/kill', {
        method: 'POST',
        headers: { ...host, 'content-type': 'application/json', 'x-control-token': 'wrong-token-0123456789' },
        body: '{}',
      }),
    ];
    // (/healthz: 503 `starting` until the daemon says it runs)
    expect(seen.map((s) => s.status)).toEqual([200, 200, 503, 200, 404, 421, 421, 401, 403]);
    expect(JSON.parse(seen[0]!.body)).toMatchObject({ account: { address: ADDRESS } });
    for (const s of seen) {
      expect(s.body).not.toContain(token);
      expect(JSON.stringify(s.headers)).not.toContain(token);
    }
    // a kill with the token: still not in any answer, nor in the log
    const k = await raw(d.port, '/api/kill', {
      method: 'POST',
      headers: { ...host, 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ reason: 'logged, with no token' }),
    });
    expect(k.status).toBe(200);
    expect(k.body).not.toContain(token);
    const log = d.lines.join('');
    expect(log).toContain('kill request refused');
    expect(log).toContain('kill switch tripped over HTTP');
    expect(log).not.toContain(token);
    expect(log).not.toContain('status sample failed');
  });
});

describe('4. a kill body over 4 KiB', () => {
  it('is answered 413 with a JSON error, not a reset connection; the switch stays armed', async () => {
    const d = await daemon();
    const token = d.token();
    const headers = {
      host: `127.0.0.1:${d.port}`,
      'content-type': 'application/json',
      authorization: `Bearer ${token}`,
    };
    const big = JSON.stringify({ reason: 'x'.repeat(5 * 1024) });
    const r = await raw(d.port, '/api/kill', { method: 'POST', headers, body: big });
    expect(r.status).toBe(413);
    expect(r.headers['content-type']).toContain('application/json');
    expect(JSON.parse(r.body).error).toContain('4096');
    // chunked (no Content-Length) too
    const chunked = await new Promise<Answer>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port: d.port, path: '/api/kill', method: 'POST', headers, setHost: false },
        (res) => {
          let b = '';
          res.on('data', (c) => (b += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: b }));
        },
      );
      req.on('error', reject);
      for (let i = 0; i < 5; i++) req.write('x'.repeat(1024));
      req.end();
    });
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body).error).toContain('too large');
    expect(d.kill.reason).toBe(null);

    // the same connection serves the next request (the body was read, not left on the wire)
    const s = connect(d.port, '127.0.0.1');
    await new Promise((r) => s.once('connect', r));
    let got = '';
    s.on('data', (c) => (got += c));
    const closed = new Promise<void>((r) => s.on('close', () => r()));
    const body = Buffer.from(big);
    s.write(
      `POST /api/kill HTTP/1.1\r\nHost: 127.0.0.1:${d.port}\r\nContent-Type: application/json\r\nAuthorization: Bearer ${token}\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    s.write(body);
    s.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${d.port}\r\nConnection: close\r\n\r\n`);
    await closed;
    expect(got).toMatch(/^HTTP\/1\.1 413 /);
    expect(got).toMatch(/HTTP\/1\.1 (200|503) [\s\S]*"checks"/);
    expect(d.kill.reason).toBe(null);

    // a body within the limit still works
    const ok = await raw(d.port, '/api/kill', {
      method: 'POST',
      headers,
      body: JSON.stringify({ reason: 'y'.repeat(3000) }),
    });
    expect(ok.status, ok.body).toBe(200);
    expect(d.kill.reason?.trigger).toBe('cli');
  });
});
