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
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { PaperExchange } from '../exchange.ts';
import type { FaultController, StreamName } from '../faults.ts';
import type { SecurityLog } from '../security-log.ts';
import { RtdsChannel } from '../rtds/index.ts';
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
  const counters = newCounters();
  let listenerErrors = 0;
  const env: ConnEnv = {
    clock: ex.clock,
    faults,
    counters,
    maxBufferedBytes: opts.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES,
  };
  const gateOf = (s: StreamName) => (): Gate => ({ frozen: faults.isFrozen(s), latencyMs: faults.streamLatency(s) });
  const market = new MarketChannel(ex, gateOf('market'));
  const user = new UserChannel(ex, gateOf('user'));
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

  const refuse = (socket: Duplex, status: string) => {
    socket.on('error', () => {});
    socket.once('finish', () => socket.destroy());
    socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
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
    servers[route].handleUpgrade(req, socket, head, (ws) => onConnection(route, ws));
  };

  const onConnection = (route: Route, ws: WebSocket) => {
    if (closed) return void ws.terminate();
    let channel: StreamName | undefined = route === 'generic' ? undefined : route;
    const conn = new StreamConn(ws, env, channel);
    all.add(conn);
    if (channel !== undefined) channels[channel].add(conn);
    conn.onGone = () => {
      all.delete(conn);
      if (channel !== undefined) channels[channel].remove(conn);
    };
    // oversized frames (ws closes 1009), invalid UTF-8 (1007), resets: never crash the server
    ws.on('error', () => {
      counters.badFrames++;
    });
    ws.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
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
  };
}
