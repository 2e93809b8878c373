/**
 * Streams of the paper exchange on the HTTP server's port, attached through its `upgrade` event:
 *
 *  - `/ws/market` (market channel, see market.ts) and `/ws/user` (user channel, see user.ts);
 *  - `/ws` (the spec's `{ws_url}/ws/`): the first message's `type` ("market" | "user") picks the
 *    channel;
 *  - `/rtds` (real-time data stream, see ../rtds/index.ts); `/` serves RTDS too, for clients given
 *    the bare ws_url as their RTDS host.
 * A trailing slash is accepted on each; any other path is refused with a 404 before the handshake.
 *
 * Shared behaviour (all paths): the text `PING` is answered `PONG` (and `ping` with `pong`; on RTDS
 * also with a WebSocket ping frame, which is what the public RTDS client waits for before its next
 * ping); a JSON `{"type":"ping"}` is ignored. A malformed frame gets the error frame
 * `{"event_type":"error","error":{"code":"BAD_REQUEST","message":...}}` and the socket stays open;
 * a binary frame is answered with that frame and close 1003; an oversized one (over maxPayload)
 * closes with 1009. A socket whose unsent bytes exceed `maxBufferedBytes` is terminated. Faults
 * (src/exchange/faults.ts): a frozen stream sends no data (PONG still answered), latency delays data
 * frames in order, drop terminates sockets now or after `dropAfterMs` from their opening.
 * Listener errors never reach the exchange: they are counted in `stats().listenerErrors`.
 *
 * Abuse limits (each refusal or closure is a `ws_refused` line in the security log):
 *  - connection caps: at most `maxConnections` sockets in all and `maxConnectionsPerIp` per client
 *    address (handshakes under way included); over a cap the upgrade is refused before the
 *    handshake with 503 (all) or 429 (per address) and the error envelope
 *    `{"success":false,"error":{"code":"TOO_MANY_CONNECTIONS","message":...}}`;
 *  - authentication deadline: a `/ws/user` socket that has not authenticated, or a `/ws` socket
 *    that has not picked its channel (or picked "user" and not authenticated), within
 *    `authTimeoutMs` gets an UNAUTHORIZED error frame and close 1008;
 *  - server pings: every `pingIntervalMs` each socket gets a WebSocket ping frame; a socket that
 *    has sent nothing, pong included, for `idleTimeoutMs` is terminated;
 *  - message budget per connection (budget.ts): client frames, and snapshots re-sent on request,
 *    are bounded; a refused frame is not handled and gets a RATE_LIMITED error frame, a flood is
 *    closed 1008. Data the exchange pushes is never limited.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { PaperExchange } from '../exchange.ts';
import type { FaultController, StreamName } from '../faults.ts';
import type { SecurityLog } from '../security-log.ts';
import { RtdsChannel } from '../rtds/index.ts';
import { DEFAULT_BUDGET, type BudgetOptions } from './budget.ts';
import { newCounters, StreamConn, type ConnEnv, type Gate, type StreamCounters } from './conn.ts';
import { MarketChannel } from './market.ts';
import { channelOf, isJsonPing, parseObject, pingReply } from './protocol.ts';
import { UserChannel } from './user.ts';

export interface StreamsOptions {
  /** Largest accepted client frame, bytes (larger: close 1009). */
  maxPayload: number;
  /** Unsent bytes per socket above which the socket is terminated (slow reader). Default 8 MiB. */
  maxBufferedBytes?: number;
  /** The security log (refused or closed sockets). */
  security?: SecurityLog;
  /** Open sockets, all paths together, above which an upgrade is refused 503. Default 1000. */
  maxConnections?: number;
  /** Open sockets per client address above which an upgrade is refused 429. Default 100. */
  maxConnectionsPerIp?: number;
  /**
   * How long a /ws/user socket (or a /ws socket before it picks its channel) may stay
   * unauthenticated, ms; 0: no deadline. Default 10 000.
   */
  authTimeoutMs?: number;
  /** Interval of the server's WebSocket ping frames, ms; 0: no pings and no idle timeout. Default 30 000. */
  pingIntervalMs?: number;
  /**
   * A socket that has sent nothing (pong included) for this long is terminated, ms; more than
   * `pingIntervalMs`. Default twice `pingIntervalMs`.
   */
  idleTimeoutMs?: number;
  /** The per-connection message budget (DEFAULT_BUDGET for what is not given). */
  budget?: Partial<BudgetOptions>;
}

/** The abuse limits of the streams as configured (defaults applied). */
export interface StreamLimits {
  maxConnections: number;
  maxConnectionsPerIp: number;
  authTimeoutMs: number;
  pingIntervalMs: number;
  idleTimeoutMs: number;
  budget: BudgetOptions;
}

export const DEFAULT_MAX_CONNECTIONS = 1000;
export const DEFAULT_MAX_CONNECTIONS_PER_IP = 100;
export const DEFAULT_AUTH_TIMEOUT_MS = 10_000;
export const DEFAULT_PING_INTERVAL_MS = 30_000;

/**
 * The limits of `opts` with their defaults.
 * @throws RangeError (message `streams: <key> ...`) on a non-integer or negative value, a cap or
 *   burst of 0, or an idle timeout not above the ping interval
 */
export function streamLimits(opts: Omit<StreamsOptions, 'maxPayload'>): StreamLimits {
  const pingIntervalMs = opts.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS;
  const l: StreamLimits = {
    maxConnections: opts.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    maxConnectionsPerIp: opts.maxConnectionsPerIp ?? DEFAULT_MAX_CONNECTIONS_PER_IP,
    authTimeoutMs: opts.authTimeoutMs ?? DEFAULT_AUTH_TIMEOUT_MS,
    pingIntervalMs,
    idleTimeoutMs: opts.idleTimeoutMs ?? 2 * pingIntervalMs,
    budget: { ...DEFAULT_BUDGET, ...(opts.budget ?? {}) },
  };
  const nat: Array<[string, number]> = [
    ['maxConnections', l.maxConnections],
    ['maxConnectionsPerIp', l.maxConnectionsPerIp],
    ['authTimeoutMs', l.authTimeoutMs],
    ['pingIntervalMs', l.pingIntervalMs],
    ['idleTimeoutMs', l.idleTimeoutMs],
    ...Object.entries(l.budget).map(([k, v]) => [`budget.${k}`, v] as [string, number]),
  ];
  // caps and bursts of 0 would refuse everything: at least 1
  const positive = new Set(['maxConnections', 'maxConnectionsPerIp', 'budget.messageBurst', 'budget.maxStrikes']);
  for (const [k, v] of nat) {
    const min = positive.has(k) ? 1 : 0;
    if (!Number.isInteger(v) || v < min) throw new RangeError(`streams: ${k} must be an integer >= ${min} (got ${v})`);
  }
  if (l.pingIntervalMs > 0 && l.idleTimeoutMs <= l.pingIntervalMs)
    throw new RangeError(
      `streams: idleTimeoutMs (${l.idleTimeoutMs}) must be more than pingIntervalMs (${l.pingIntervalMs}): a client answers a ping only when it comes`,
    );
  return l;
}

/** The client address of a request, IPv4-mapped IPv6 addresses as plain IPv4. */
export function clientAddress(req: IncomingMessage): string {
  const a = req.socket.remoteAddress ?? 'unknown';
  return a.startsWith('::ffff:') && a.includes('.') ? a.slice(7) : a;
}

/** Connected sockets per stream, plus the counters of StreamCounters. */
export interface StreamStats extends StreamCounters {
  market: number;
  user: number;
  rtds: number;
  /** Sockets on /ws that have not picked a channel yet. */
  pending: number;
  /** MINED / CONFIRMED follow-ups of the user channel waiting to fire. */
  tradeTimers: number;
  /** Exceptions caught in the fan-out (should stay 0). */
  listenerErrors: number;
}

export interface Streams {
  /** Terminates every socket, cancels timers and detaches from the server and the exchange. */
  close(): Promise<void>;
  /** Connected sockets per stream and fan-out counters. */
  stats(): StreamStats;
  /** The abuse limits in force (defaults applied). */
  readonly limits: StreamLimits;
}

export const DEFAULT_MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

type Route = StreamName | 'generic';

/** The stream served at a request path, or undefined (404). */
export function routeOf(pathname: string): Route | undefined {
  const p = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
  switch (p) {
    case '/ws/market':
      return 'market';
    case '/ws/user':
      return 'user';
    case '/ws':
      return 'generic';
    case '/rtds':
    case '/':
      return 'rtds';
    default:
      return undefined;
  }
}

interface Channel {
  add(conn: StreamConn): void;
  remove(conn: StreamConn): void;
  handle(conn: StreamConn, msg: Record<string, unknown>): void;
}

/**
 * Serves the market and user channels and RTDS on `server` (call before it listens).
 * @param ex the exchange whose events are streamed
 * @param faults fault rules applied to the streams (freeze, latency, drop)
 */
export function attachStreams(
  server: Server,
  ex: PaperExchange,
  faults: FaultController,
  opts: StreamsOptions,
): Streams {
  const limits = streamLimits(opts);
  const security = opts.security;
  const counters = newCounters();
  let listenerErrors = 0;
  const env: ConnEnv = {
    clock: ex.clock,
    faults,
    counters,
    maxBufferedBytes: opts.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES,
    budget: limits.budget,
    security,
  };
  const gateOf = (s: StreamName) => (): Gate => ({ frozen: faults.isFrozen(s), latencyMs: faults.streamLatency(s) });
  const market = new MarketChannel(ex, gateOf('market'));
  const user = new UserChannel(ex, gateOf('user'), security);
  const rtds = new RtdsChannel(ex, gateOf('rtds'));
  const channels: Record<StreamName, Channel> = { market, user, rtds };
  const all = new Set<StreamConn>();
  const servers: Record<Route, WebSocketServer> = {
    market: new WebSocketServer({ noServer: true, maxPayload: opts.maxPayload, perMessageDeflate: false }),
    user: new WebSocketServer({ noServer: true, maxPayload: opts.maxPayload, perMessageDeflate: false }),
    rtds: new WebSocketServer({ noServer: true, maxPayload: opts.maxPayload, perMessageDeflate: false }),
    generic: new WebSocketServer({ noServer: true, maxPayload: opts.maxPayload, perMessageDeflate: false }),
  };
  let closed = false;
  /** Upgraded (or upgrading) TCP sockets: in all and per client address. */
  let open = 0;
  const openPerIp = new Map<string, number>();

  const refuse = (socket: Duplex, status: string, body?: { code: string; message: string }) => {
    socket.on('error', () => {});
    socket.once('finish', () => socket.destroy());
    const text = body === undefined ? '' : JSON.stringify({ success: false, error: body });
    const type = body === undefined ? '' : 'Content-Type: application/json\r\n';
    socket.end(
      `HTTP/1.1 ${status}\r\nConnection: close\r\n${type}Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
    );
  };

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    let path = '';
    try {
      path = new URL(req.url ?? '/', 'http://localhost').pathname;
    } catch {
      /* a malformed URL is not found */
    }
    const route = routeOf(path);
    if (closed) return refuse(socket, '503 Service Unavailable');
    if (route === undefined) return refuse(socket, '404 Not Found');
    if (socket.destroyed) return; // gone before the upgrade: nothing to count or answer
    const ip = clientAddress(req);
    const mine = openPerIp.get(ip) ?? 0;
    const overAll = open >= limits.maxConnections;
    if (overAll || mine >= limits.maxConnectionsPerIp) {
      counters.refusedConnections++;
      const reason = overAll
        ? `connection cap: at most ${limits.maxConnections} sockets in all`
        : `connection cap per address: at most ${limits.maxConnectionsPerIp} sockets from one address`;
      security?.record({ kind: 'ws_refused', route: path, ip, reason });
      return refuse(socket, overAll ? '503 Service Unavailable' : '429 Too Many Requests', {
        code: 'TOO_MANY_CONNECTIONS',
        message: `${reason}: close one or retry later`,
      });
    }
    // counted until the TCP socket closes: the handshake, the WebSocket's life, or a failed handshake
    open++;
    openPerIp.set(ip, mine + 1);
    socket.once('close', () => {
      open--;
      const n = (openPerIp.get(ip) ?? 1) - 1;
      if (n <= 0) openPerIp.delete(ip);
      else openPerIp.set(ip, n);
    });
    servers[route].handleUpgrade(req, socket, head, (ws) => onConnection(route, ws, { route: path, ip }));
  };

  const onConnection = (route: Route, ws: WebSocket, origin: { route: string; ip: string }) => {
    if (closed) return void ws.terminate();
    let channel: StreamName | undefined = route === 'generic' ? undefined : route;
    const conn = new StreamConn(ws, env, channel, origin);
    all.add(conn);
    if (channel !== undefined) channels[channel].add(conn);
    // the user channel (and /ws before it picks one) must authenticate in time
    let authTimer: ReturnType<typeof setTimeout> | undefined;
    if ((route === 'user' || route === 'generic') && limits.authTimeoutMs > 0) {
      authTimer = setTimeout(() => {
        authTimer = undefined;
        if (!conn.isOpen) return;
        if (channel === 'market' || (channel === 'user' && user.isAuthenticated(conn))) return;
        counters.authTimeouts++;
        const what = channel === undefined ? 'pick a channel' : 'authenticate';
        security?.record({
          kind: 'ws_refused',
          route: origin.route,
          ip: origin.ip,
          reason: `auth timeout: did not ${what} within ${limits.authTimeoutMs} ms`,
        });
        conn.error(
          'UNAUTHORIZED',
          `authentication timeout: the first message must ${channel === undefined ? 'name its channel and ' : ''}authenticate within ${limits.authTimeoutMs} ms`,
        );
        conn.close(1008, 'authentication timeout');
      }, limits.authTimeoutMs);
      authTimer.unref();
    }
    conn.onGone = () => {
      if (authTimer !== undefined) clearTimeout(authTimer);
      authTimer = undefined;
      all.delete(conn);
      if (channel !== undefined) channels[channel].remove(conn);
    };
    // oversized frames (ws closes 1009), invalid UTF-8 (1007), resets: never crash the server
    ws.on('error', () => {
      counters.badFrames++;
    });
    ws.on('pong', () => {
      conn.lastSeen = Date.now();
    });
    ws.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
      const now = Date.now();
      conn.lastSeen = now;
      if (!conn.isOpen) return;
      const over = conn.budget.message(now);
      if (over !== undefined) return conn.refused(over, 'message budget exceeded: frame not handled');
      if (isBinary) {
        conn.error('BAD_REQUEST', 'binary frames are not supported: send JSON text');
        conn.close(1003, 'binary frames are not supported');
        return;
      }
      const text = Buffer.isBuffer(data)
        ? data.toString('utf8')
        : Array.isArray(data)
          ? Buffer.concat(data).toString('utf8')
          : Buffer.from(data).toString('utf8');
      const pong = pingReply(text);
      if (pong !== undefined) {
        conn.control(pong);
        if (channel === 'rtds' && conn.isOpen) ws.ping();
        return;
      }
      const parsed = parseObject(text);
      if (!parsed.ok) return conn.error('BAD_REQUEST', `${parsed.message}: send a JSON object (or the text PING)`);
      const msg = parsed.value;
      if (isJsonPing(msg)) return;
      if (channel === undefined) {
        const ch = channelOf(msg);
        if (!ch.ok) return conn.error('BAD_REQUEST', ch.message);
        if (ch.value === undefined)
          return conn.error('BAD_REQUEST', 'the first message on /ws names its channel: "type": "market" or "user"');
        channel = ch.value;
        conn.stream = channel;
        channels[channel].add(conn);
        conn.applyDrop();
        if (!conn.isOpen) return;
      }
      try {
        channels[channel].handle(conn, msg);
      } catch {
        listenerErrors++;
        conn.error('INTERNAL', 'internal error while handling the message');
      }
    });
    conn.applyDrop();
  };

  // server pings; sockets silent for the idle timeout are cut
  let pinger: ReturnType<typeof setInterval> | undefined;
  if (limits.pingIntervalMs > 0) {
    pinger = setInterval(() => {
      const now = Date.now();
      for (const c of [...all]) {
        if (!c.isOpen) continue;
        if (now - c.lastSeen >= limits.idleTimeoutMs) {
          counters.idleTerminated++;
          security?.record({
            kind: 'ws_refused',
            route: c.origin.route,
            ip: c.origin.ip,
            reason: `idle timeout: no frame nor pong for ${limits.idleTimeoutMs} ms`,
          });
          c.terminate();
        } else c.ws.ping();
      }
    }, limits.pingIntervalMs);
    pinger.unref();
  }

  server.on('upgrade', onUpgrade);
  const offEvents = ex.subscribe((events) => {
    for (const ch of [market, user, rtds]) {
      try {
        ch.onEvents(events);
      } catch {
        listenerErrors++;
      }
    }
  });
  const offFaults = faults.onChange(() => {
    for (const c of [...all]) c.applyDrop();
  });

  let closing: Promise<void> | undefined;
  return {
    close() {
      closing ??= (async () => {
        closed = true;
        if (pinger !== undefined) clearInterval(pinger);
        server.off('upgrade', onUpgrade);
        offEvents();
        offFaults();
        user.close();
        for (const c of [...all]) c.terminate();
        await Promise.all(Object.values(servers).map((s) => new Promise<void>((r) => s.close(() => r()))));
      })();
      return closing;
    },
    stats() {
      return {
        market: market.size,
        user: user.size,
        rtds: rtds.size,
        pending: all.size - market.size - user.size - rtds.size,
        tradeTimers: user.pendingTimers,
        listenerErrors,
        ...counters,
      };
    },
    limits,
  };
}
