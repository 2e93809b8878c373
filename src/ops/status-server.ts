/**
 * The daemon's HTTP status server (default 127.0.0.1:8787; port 0 picks a free one):
 *
 *   GET  /             the status page (one self-contained HTML document, ./status-page.ts)
 *   GET  /metrics      Prometheus exposition (./metrics.ts)
 *   GET  /healthz      200 {status:'ok',...} or 503 {status:'unhealthy', reasons:[...]} (./health.ts): readiness
 *   GET  /livez        200 {status:'alive'} whenever the process answers (its event loop runs): liveness,
 *                      which a venue outage does not fail (trial 17 F9: a liveness probe on /healthz
 *                      restarted a daemon rightly waiting out a venue blip)
 *   GET  /api/status   the status snapshot as JSON (./status.ts)
 *   GET  /api/events   server-sent events: `status` with the snapshot every second (and at once); the
 *                      PnL series, own quotes and recent fills whole in the first frame, then only
 *                      their changes (./sse-client.ts)
 *   POST /api/kill     trips the kill switch (trigger 'cli'), waits until the daemon has cancelled
 *                      everything and verified zero open orders, answers {flat, openOrders}
 *
 * Built on node:http rather than fastify (which the paper exchange uses): seven fixed routes, one of
 * them a long-lived SSE stream that wants the raw response anyway (fastify would need
 * `reply.hijack()` for it), no bodies to parse but one tiny JSON, and nothing to add to the daemon's
 * start-up time or its dependency surface on the trading process.
 *
 * Every route checks the Host header first (./allowed-hosts.ts: loopback names and the bound
 * address with the server's port, plus the operator's `ops.allowedHosts`): any other Host, or none,
 * is answered 421 with a JSON error, so a DNS-rebinding page cannot read the page, the snapshot
 * (address, positions, PnL, orders), /metrics or the event stream.
 *
 * The control route (POST /api/kill) also takes the daemon's control token (`Authorization: Bearer
 * <token>` or `X-Control-Token: <token>`, compared in constant time; missing 401, wrong 403): the
 * daemon writes it owner-only to `<dataDir>/control.token`, where `mmkit kill` reads it. The page
 * served at `/` carries it (a `<meta name="mmkit-control-token">`), so its kill button works
 * wherever the page is served, which is only to an allowed Host: through a container's published
 * port once the operator allowed the name it is reached by. No other answer carries it (not
 * /api/status, not /metrics, not an error, not a log line). Any Origin must be this server's own,
 * and the body must be `Content-Type: application/json` of at most 4 KiB (413 with a JSON error
 * beyond; the rest of the body is read and dropped, up to 64 KiB, so the answer is not lost in a
 * reset connection). The snapshot, health and metrics hold no secrets (no keys, no API
 * credentials, no token: only the public address).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock, TimerHandle } from '../core/clock.ts';
import { LiveClock } from '../core/clock.ts';
import { AllowedHosts } from './allowed-hosts.ts';
import { sameToken } from './daemon-file.ts';
import type { HealthReport } from './health.ts';
import type { StatusSnapshot } from './status.ts';
import { SseClientView } from './sse-client.ts';

/** What POST /api/kill answers once the daemon has flattened. */
export interface KillResult {
  /** True when the venue confirmed zero open orders. */
  readonly flat: boolean;
  readonly openOrders: number;
  /** Why the daemon stops (the first trip's reason; may be another trigger than this request). */
  readonly reason: string;
  /** A shadow daemon's (its orders were simulated: none was sent to the venue); absent: a live one's. */
  readonly mode?: 'shadow';
  /** A fleet member's: `flat` and `openOrders` are this member's orders; the other members' rest on. */
  readonly fleet?: true;
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
  /** The page served at `/` (the control token is added to its `<head>`). */
  readonly page: string;
  /** The secret of the control routes (POST /api/kill); see the module comment. */
  readonly controlToken: string;
  /** Host names (`name` any port, `name:port`) answered besides loopback and the bound address (`ops.allowedHosts`). */
  readonly allowedHosts?: readonly string[];
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

/** Largest kill request body, bytes. */
export const MAX_CONTROL_BODY = 4096;
/** A larger body is still read (and dropped) up to this, so the 413 reaches the client. */
const MAX_DRAINED_BODY = 64 * 1024;

/** The meta element that hands the page its control token. */
export const CONTROL_TOKEN_META = 'mmkit-control-token';

const escAttr = (v: string): string =>
  v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** `page` with the control token in a `<meta name="mmkit-control-token">` right after `<head>`. */
export function pageWithToken(page: string, token: string): string {
  const meta = `<meta name="${CONTROL_TOKEN_META}" content="${escAttr(token)}">`;
  const m = /<head[^>]*>/i.exec(page);
  return m === null
    ? meta + page
    : page.slice(0, m.index + m[0].length) + `\n${meta}` + page.slice(m.index + m[0].length);
}

/** The token a request presents: `X-Control-Token`, else `Authorization: Bearer <token>`. */
function presentedToken(req: IncomingMessage): string | undefined {
  const x = req.headers['x-control-token'];
  if (typeof x === 'string' && x.trim() !== '') return x.trim();
  const a = req.headers.authorization;
  const m = typeof a === 'string' ? /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(a) : null;
  return m?.[1];
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

const json = (res: ServerResponse, status: number, v: unknown, extra: Record<string, string> = {}): void =>
  send(res, status, JSON.stringify(v), 'application/json; charset=utf-8', extra);

/**
 * Start listening (see the module comment).
 * @throws Error (EADDRINUSE, EACCES...) when the address cannot be bound.
 */
export async function startStatusServer(o: StatusServerOptions): Promise<StatusServer> {
  const clock = o.clock ?? new LiveClock();
  // each event-stream client, with what it holds of the snapshot's series, quotes and fills
  const clients = new Map<ServerResponse, SseClientView>();
  let closing: Promise<void> | undefined;
  let timer: TimerHandle | undefined;
  let killing: Promise<KillResult> | undefined;
  // set once listening (the server's port is part of the check)
  let hosts: AllowedHosts | undefined;
  let page = o.page;
  let refused = 0;

  const snapshot = (): StatusSnapshot | { error: string } => {
    try {
      return o.status();
    } catch (e) {
      return { error: (e as Error).message };
    }
  };
  const frame = (s: StatusSnapshot | { error: string } = snapshot()): string =>
    `event: status\ndata: ${JSON.stringify(s)}\n\n`;
  // a client's frame: the series, quotes and fills whole the first time, then only their changes
  const frameFor = (c: ServerResponse, s: StatusSnapshot | { error: string }): string => {
    const view = clients.get(c);
    return view === undefined ? frame(s) : `event: status\ndata: ${JSON.stringify(view.frame(s))}\n\n`;
  };
  const push = (): void => {
    if (clients.size === 0) return;
    const s = snapshot();
    for (const c of clients.keys()) c.write(frameFor(c, s));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://status.local');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const method = req.method ?? 'GET';
    const isRead = method === 'GET' || method === 'HEAD';
    const host = req.headers.host;
    // every route: a Host the operator does not use (DNS rebinding), or none, gets nothing
    if (hosts === undefined || !hosts.allows(host)) {
      refused++;
      if (refused <= 10 || refused % 1000 === 0)
        o.logger?.warn(
          { host: host?.slice(0, 100) ?? null, path: path.slice(0, 100), peer: req.socket.remoteAddress, refused },
          'status server request refused: Host not allowed (ops.allowedHosts)',
        );
      return json(res, 421, {
        error:
          host === undefined
            ? 'a Host header is required'
            : 'this status server does not answer that host name: allow it with ops.allowedHosts (MMKIT_STATUS_ALLOWED_HOSTS)',
      });
    }
    switch (path) {
      case '/':
      case '/index.html':
        if (!isRead) return json(res, 405, { error: 'method not allowed' });
        // the page with the control token goes to an allowed Host only (checked above, again here)
        if (!hosts.allows(host)) return json(res, 421, { error: 'host not allowed' });
        return send(res, 200, page, 'text/html; charset=utf-8', {
          'content-security-policy': CSP,
          'referrer-policy': 'no-referrer',
          'x-frame-options': 'DENY',
        });
      case '/metrics':
        if (!isRead) return json(res, 405, { error: 'method not allowed' });
        return send(res, 200, await o.metrics(), o.metricsContentType);
      case '/livez':
        if (!isRead) return json(res, 405, { error: 'method not allowed' });
        return json(res, 200, { status: 'alive' });
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
        clients.set(res, new SseClientView());
        res.write(frameFor(res, snapshot()));
        req.on('close', () => clients.delete(res));
        return;
      }
      case '/api/kill': {
        if (method !== 'POST') return json(res, 405, { error: 'POST only' });
        const peer = req.socket.remoteAddress;
        const origin = req.headers.origin;
        if (origin !== undefined && origin !== `http://${host}` && origin !== `https://${host}`) {
          o.logger?.warn({ peer, host, origin: origin.slice(0, 200) }, 'kill request refused: foreign origin');
          return json(res, 403, { error: 'a kill request from another origin is refused' });
        }
        const token = presentedToken(req);
        if (token === undefined) {
          o.logger?.warn({ peer, host }, 'kill request refused: no control token');
          return json(
            res,
            401,
            {
              error:
                'the control token is required (Authorization: Bearer <token> or X-Control-Token): `mmkit kill` reads it from <dataDir>/control.token, or takes --token / MMKIT_CONTROL_TOKEN',
            },
            { 'www-authenticate': 'Bearer realm="mmkit"' },
          );
        }
        if (!sameToken(token, o.controlToken)) {
          o.logger?.warn({ peer, host }, 'kill request refused: wrong control token');
          return json(res, 403, {
            error: 'wrong control token (a daemon writes a new one to <dataDir>/control.token at each start)',
          });
        }
        if (!/^application\/json\b/i.test(req.headers['content-type'] ?? ''))
          return json(res, 415, { error: 'Content-Type must be application/json' });
        const body = await readBody(req, MAX_CONTROL_BODY, MAX_DRAINED_BODY);
        if (!body.ok)
          return json(
            res,
            413,
            { error: `the body is too large: at most ${MAX_CONTROL_BODY} bytes` },
            // not read whole: the connection cannot carry another request
            body.drained ? {} : { connection: 'close' },
          );
        let reason = 'operator kill (mmkit kill)';
        try {
          const b = body.text.length > 0 ? (JSON.parse(body.text) as { reason?: unknown }) : {};
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
          routes: ['/', '/metrics', '/healthz', '/livez', '/api/status', '/api/events', 'POST /api/kill'],
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
  hosts = new AllowedHosts(addr.port, [o.host, addr.address], o.allowedHosts ?? []);
  page = pageWithToken(o.page, o.controlToken);
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
          const s = snapshot();
          for (const c of clients.keys()) c.end(`${frameFor(c, s)}event: end\ndata: {}\n\n`);
        } catch {
          for (const c of clients.keys()) c.end();
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

type Body = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly drained: boolean };

/**
 * Read a request body of at most `max` bytes. A larger one is read on and dropped up to `drainMax`
 * (`drained`: the connection is clean for the answer); past that, or when Content-Length already
 * says more than `drainMax`, it stops reading (`drained` false: answer with Connection: close).
 */
function readBody(req: IncomingMessage, max: number, drainMax: number): Promise<Body> {
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  if (Number.isFinite(declared) && declared > drainMax) return Promise.resolve({ ok: false, drained: false });
  return new Promise((resolve, reject) => {
    let n = 0;
    let done = false;
    const chunks: Buffer[] = [];
    const finish = (b: Body | Error): void => {
      if (done) return;
      done = true;
      req.off('data', onData);
      if (b instanceof Error) reject(b);
      else resolve(b);
    };
    const onData = (c: Buffer): void => {
      n += c.length;
      if (n <= max) chunks.push(c);
      else if (n > drainMax) {
        req.pause();
        finish({ ok: false, drained: false });
      }
    };
    req.on('data', onData);
    req.on('end', () =>
      finish(n > max ? { ok: false, drained: true } : { ok: true, text: Buffer.concat(chunks).toString('utf8') }),
    );
    req.on('error', (e) => finish(e));
    req.on('close', () => finish(new Error('the request was closed before its body was read')));
  });
}
