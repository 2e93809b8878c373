/**
 * The daemon's HTTP status server (default 127.0.0.1:8787; port 0 picks a free one):
 *
 *   GET  /             the status page (one self-contained HTML document, ./status-page.ts)
 *   GET  /metrics      Prometheus exposition (./metrics.ts)
 *   GET  /healthz      200 {status:'ok',...} or 503 {status:'unhealthy', reasons:[...]} (./health.ts)
 *   GET  /api/status   the status snapshot as JSON (./status.ts)
 *   GET  /api/events   server-sent events: `status` with the snapshot every second (and at once)
 *   POST /api/kill     trips the kill switch (trigger 'cli'), waits until the daemon has cancelled
 *                      everything and verified zero open orders, answers {flat, openOrders}
 *
 * Built on node:http rather than fastify (which the paper exchange uses): six fixed routes, one of
 * them a long-lived SSE stream that wants the raw response anyway (fastify would need
 * `reply.hijack()` for it), no bodies to parse but one tiny JSON, and nothing to add to the daemon's
 * start-up time or its dependency surface on the trading process.
 *
 * POST /api/kill is refused (403) unless the caller is on the loopback interface, the Host header
 * names a loopback host (no DNS rebinding), and any Origin is this server's own; it needs
 * `Content-Type: application/json` so a cross-site form cannot send it. The snapshot, health and
 * metrics hold no secrets (no keys, no API credentials: only the public address).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock, TimerHandle } from '../core/clock.ts';
import { LiveClock } from '../core/clock.ts';
import type { HealthReport } from './health.ts';
import type { StatusSnapshot } from './status.ts';

/** What POST /api/kill answers once the daemon has flattened. */
export interface KillResult {
  /** True when the venue confirmed zero open orders. */
  readonly flat: boolean;
  readonly openOrders: number;
  /** Why the daemon stops (the first trip's reason; may be another trigger than this request). */
  readonly reason: string;
}

/** A minimal logger (pino fits). */
export interface ServerLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  debug?(obj: object, msg?: string): void;
}

/** Options of `startStatusServer`. */
export interface StatusServerOptions {
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly status: () => StatusSnapshot;
  readonly health: () => HealthReport;
  readonly metrics: () => Promise<string>;
  readonly metricsContentType: string;
  /** Trip the kill switch (reason text) and resolve once the daemon verified it is flat. Without it, /api/kill answers 501. */
  readonly kill?: (reason: string) => Promise<KillResult>;
  /** The page served at `/`. */
  readonly page: string;
  /** SSE push period, ms (default 1000). */
  readonly ssePeriodMs?: number;
  readonly clock?: Clock;
  readonly logger?: ServerLogger;
}

/** A running status server. */
export interface StatusServer {
  /** Base URL, e.g. http://127.0.0.1:8787 */
  readonly url: string;
  readonly port: number;
  readonly host: string;
  /** Push a snapshot to every SSE client now (besides the periodic push). */
  push(): void;
  /** Tell SSE clients the daemon stops, end their streams, stop listening. Idempotent. */
  close(): Promise<void>;
}

const LOOPBACK_ADDR = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/** True for a loopback peer address. */
export function isLoopbackAddress(a: string | undefined): boolean {
  return a !== undefined && (LOOPBACK_ADDR.has(a) || a.startsWith('127.') || a.startsWith('::ffff:127.'));
}

/** True when a Host header names a loopback host (localhost, 127.x, [::1]) with any port. */
export function isLoopbackHost(host: string | undefined): boolean {
  if (host === undefined) return false;
  const h = host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:\d+$/, '');
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

const CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function send(
  res: ServerResponse,
  status: number,
  body: string,
  type: string,
  extra: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'content-type': type,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'content-length': Buffer.byteLength(body),
    ...extra,
  });
  res.end(body);
}

const json = (res: ServerResponse, status: number, v: unknown): void =>
  send(res, status, JSON.stringify(v), 'application/json; charset=utf-8');

/**
 * Start listening (see the module comment).
 * @throws Error (EADDRINUSE, EACCES...) when the address cannot be bound.
 */
export async function startStatusServer(o: StatusServerOptions): Promise<StatusServer> {
  const clock = o.clock ?? new LiveClock();
  const clients = new Set<ServerResponse>();
  let closing: Promise<void> | undefined;
  let timer: TimerHandle | undefined;
  let killing: Promise<KillResult> | undefined;

  const frame = (): string => {
    let body: string;
    try {
      body = JSON.stringify(o.status());
    } catch (e) {
      body = JSON.stringify({ error: (e as Error).message });
    }
    return `event: status\ndata: ${body}\n\n`;
  };
  const push = (): void => {
    if (clients.size === 0) return;
    const f = frame();
    for (const c of clients) c.write(f);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://status.local');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const method = req.method ?? 'GET';
    const isRead = method === 'GET' || method === 'HEAD';
    switch (path) {
      case '/':
      case '/index.html':
        if (!isRead) return json(res, 405, { error: 'method not allowed' });
        return send(res, 200, o.page, 'text/html; charset=utf-8', {
          'content-security-policy': CSP,
          'referrer-policy': 'no-referrer',
          'x-frame-options': 'DENY',
        });
      case '/metrics':
        if (!isRead) return json(res, 405, { error: 'method not allowed' });
        return send(res, 200, await o.metrics(), o.metricsContentType);
      case '/healthz': {
        if (!isRead) return json(res, 405, { error: 'method not allowed' });
        const h = o.health();
        return json(res, h.healthy ? 200 : 503, h);
      }
      case '/api/status':
        if (!isRead) return json(res, 405, { error: 'method not allowed' });
        return json(res, 200, o.status());
      case '/api/events': {
        if (!isRead) return json(res, 405, { error: 'method not allowed' });
        if (closing) return json(res, 503, { error: 'stopping' });
        res.writeHead(200, {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-store',
          connection: 'keep-alive',
          'x-accel-buffering': 'no',
        });
        res.write('retry: 2000\n\n');
        res.write(frame());
        clients.add(res);
        req.on('close', () => clients.delete(res));
        return;
      }
      case '/api/kill': {
        if (method !== 'POST') return json(res, 405, { error: 'POST only' });
        const peer = req.socket.remoteAddress;
        const origin = req.headers.origin;
        const host = req.headers.host;
        if (
          !isLoopbackAddress(peer) ||
          !isLoopbackHost(host) ||
          (origin !== undefined && origin !== `http://${host}`)
        ) {
          o.logger?.warn({ peer, host, origin }, 'kill request refused: not from loopback');
          return json(res, 403, { error: 'the kill switch can only be tripped from the loopback interface' });
        }
        if (!/^application\/json\b/i.test(req.headers['content-type'] ?? ''))
          return json(res, 415, { error: 'Content-Type must be application/json' });
        const body = await readBody(req, 4096);
        let reason = 'operator kill (mmkit kill)';
        try {
          const b = body.length > 0 ? (JSON.parse(body) as { reason?: unknown }) : {};
          if (typeof b.reason === 'string' && b.reason.trim() !== '') reason = b.reason.trim().slice(0, 200);
        } catch {
          return json(res, 400, { error: 'body must be JSON' });
        }
        if (o.kill === undefined) return json(res, 501, { error: 'no kill switch' });
        o.logger?.warn({ peer, reason }, 'kill switch tripped over HTTP');
        killing ??= o.kill(reason);
        try {
          const r = await killing;
          return json(res, r.flat ? 200 : 500, { killed: true, ...r });
        } catch (e) {
          return json(res, 500, { killed: true, flat: false, error: (e as Error).message });
        }
      }
      default:
        return json(res, 404, {
          error: 'not found',
          routes: ['/', '/metrics', '/healthz', '/api/status', '/api/events', 'POST /api/kill'],
        });
    }
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      o.logger?.warn({ err: (e as Error).message, url: req.url }, 'status server request failed');
      if (!res.headersSent) json(res, 500, { error: 'internal error' });
      else res.end();
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    const onError = (e: Error) => reject(e);
    server.once('error', onError);
    server.listen(o.port, o.host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  server.unref();
  const addr = server.address() as AddressInfo;
  const hostForUrl = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const url = `http://${hostForUrl === '0.0.0.0' || hostForUrl === '[::]' ? '127.0.0.1' : hostForUrl}:${addr.port}`;
  timer = clock.setInterval(push, o.ssePeriodMs ?? 1000);

  return {
    url,
    port: addr.port,
    host: addr.address,
    push,
    close(): Promise<void> {
      closing ??= (async () => {
        if (timer !== undefined) clock.clearInterval(timer);
        timer = undefined;
        try {
          const last = frame();
          for (const c of clients) c.end(`${last}event: end\ndata: {}\n\n`);
        } catch {
          for (const c of clients) c.end();
        }
        clients.clear();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
          // answers in progress (a kill waiting for the flat check) get a moment to finish
          setTimeout(() => server.closeAllConnections(), 1000).unref();
        });
      })();
      return closing;
    },
  };
}

function readBody(req: IncomingMessage, max: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let n = 0;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      n += c.length;
      if (n > max) {
        reject(new Error('body too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
