/**
 * The live feed of a shadow run: the venue's public market channel (and, when asked, its real-time
 * data stream, RTDS) read as the recorder reads them (src/backtest/recorder.ts), every text frame
 * handed on as a feed item (src/venues/sim/feed.ts) stamped with the clock's time, instead of being
 * written to a file. So the simulated venue of a shadow run ingests exactly what a recording made at
 * the same time holds, frame for frame, and a backtest of that recording replays the same bytes.
 *
 *  - Subscriptions: the recorder's own frames (both tokens of every market, `custom_feature_enabled`,
 *    at most 500 tokens per connection; `crypto_prices` for the symbols asked). Nothing is signed,
 *    no user channel is opened: public streams only.
 *  - Connections: each (re)connect is a `connect` status item; a lost connection a `disconnect`
 *    item with its reason (the simulated venue then waits for the fresh snapshots, as the engine
 *    does live). Keep-alive answers (`PONG`) and blank frames are dropped, as the recorder drops them.
 *  - Stream hygiene (PING, silence deadline, reconnect with capped backoff) is the reconnecting
 *    socket's (src/api/streams/socket.ts).
 */
import type { Clock } from '../../core/clock.ts';
import type { TokenId } from '../../core/ids.ts';
import {
  isPong,
  reconnectingSocket,
  wsFactory,
  type BackoffPolicy,
  type ReconnectingSocket,
  type SocketSignal,
  type StreamLogger,
  type WsFactory,
} from '../../api/streams/socket.ts';
import { captureFrames } from '../../api/streams/capture.ts';
import type { FeedChannel, FeedItem } from '../sim/feed.ts';

/** Most tokens on one market-channel connection (the venue's limit). */
export const SHADOW_TOKENS_PER_CONNECTION = 500;

/** Options of {@link startLiveFrames}. */
export interface LiveFramesOptions {
  /** The market channel's URL, e.g. `ws://127.0.0.1:8080/ws/market`. */
  readonly marketUrl: string;
  /** The tokens to subscribe (both of every market traded). */
  readonly tokens: readonly TokenId[];
  /** Where the items go, in receive order (a simulated venue's `ingest`). */
  readonly sink: (item: FeedItem) => void;
  /** Receive times and the sockets' timers (the run's clock). */
  readonly clock: Clock;
  /** Market channel: no data for this long replaces the connection, ms (default 30 s; 0 disables). */
  readonly silenceMs?: number;
  readonly backoff?: Partial<BackoffPolicy>;
  readonly logger?: StreamLogger;
  /** Socket implementation (tests); default `ws`. */
  readonly createSocket?: WsFactory;
}

/** A running live feed. */
export interface LiveFrames {
  /** Opens the RTDS connection for these symbols (once; later calls add nothing). */
  prices(rtdsUrl: string, symbols: readonly string[]): void;
  /** Resolves once every market-channel connection has opened at least once. */
  connected(): Promise<void>;
  /** Frames and statuses handed on so far, by channel. */
  stats(): {
    frames: { m: number; r: number };
    connects: { m: number; r: number };
    disconnects: { m: number; r: number };
  };
  /** Closes the sockets (no item is handed on after). Idempotent. */
  close(): void;
}

/**
 * Connects to the market channel (and later RTDS, see `prices`) and hands every frame on as a feed
 * item (see the module comment).
 * @throws RangeError when there is no token to subscribe
 */
export function startLiveFrames(o: LiveFramesOptions): LiveFrames {
  if (o.tokens.length === 0) throw new RangeError('startLiveFrames: no token to subscribe');
  const base = o.createSocket ?? wsFactory;
  const counts = { frames: { m: 0, r: 0 }, connects: { m: 0, r: 0 }, disconnects: { m: 0, r: 0 } };
  let closed = false;
  const sockets: ReconnectingSocket[] = [];
  const subs: Array<{ unsubscribe(): void }> = [];

  const frame = (ch: FeedChannel, text: string): void => {
    if (closed || isPong(text) || text.trim().length === 0) return;
    counts.frames[ch]++;
    o.sink({ kind: 'frame', t: o.clock.now(), ch, raw: text });
  };
  /** The socket factory, wrapped: every text frame of a live socket is handed on before it is parsed. */
  const capture = (ch: FeedChannel): WsFactory => captureFrames(base, (text) => frame(ch, text));
  const onSignal =
    (ch: FeedChannel, up: boolean[], i: number, opened?: () => void) =>
    (s: SocketSignal): void => {
      if (closed) return;
      if (s.kind === 'open') {
        counts.connects[ch]++;
        up[i] = true;
        o.sink({
          kind: 'status',
          t: o.clock.now(),
          ch,
          status: 'connect',
          reason: s.reconnect ? 'reconnect' : 'initial',
        });
        opened?.();
      } else if (s.kind === 'down' && s.wasOpen) {
        up[i] = false;
        counts.disconnects[ch]++;
        o.sink({ kind: 'status', t: o.clock.now(), ch, status: 'disconnect', reason: s.reason });
      }
    };
  const sockOpts = {
    clock: o.clock,
    ...(o.backoff ? { backoff: o.backoff } : {}),
    ...(o.logger ? { logger: o.logger } : {}),
  };

  const tokens = [...new Set(o.tokens)];
  const groups: TokenId[][] = [];
  for (let i = 0; i < tokens.length; i += SHADOW_TOKENS_PER_CONNECTION)
    groups.push(tokens.slice(i, i + SHADOW_TOKENS_PER_CONNECTION));
  const marketUp = groups.map(() => false);
  const everUp = groups.map(() => false);
  let resolveConnected: () => void = () => {};
  const connectedP = new Promise<void>((r) => (resolveConnected = r));
  groups.forEach((g, i) => {
    const s = reconnectingSocket({
      url: o.marketUrl,
      stream: 'market',
      openFrames: () => [JSON.stringify({ assets_ids: g, type: 'market', custom_feature_enabled: true })],
      pingIntervalMs: 10_000,
      silenceMs: o.silenceMs ?? 30_000,
      createSocket: capture('m'),
      ...sockOpts,
    });
    sockets.push(s);
    subs.push(
      s.signals$.subscribe({
        next: onSignal('m', marketUp, i, () => {
          everUp[i] = true;
          if (everUp.every(Boolean)) resolveConnected();
        }),
      }),
    );
  });

  let rtdsOpen = false;
  return {
    prices(rtdsUrl, symbols) {
      if (closed || rtdsOpen || symbols.length === 0) return;
      rtdsOpen = true;
      const sub = JSON.stringify({
        action: 'subscribe',
        subscriptions: [{ topic: 'crypto_prices', type: 'update', filters: symbols.join(',') }],
      });
      const s = reconnectingSocket({
        url: rtdsUrl,
        stream: 'rtds',
        openFrames: () => [sub],
        pingIntervalMs: 5_000,
        silenceMs: 30_000,
        createSocket: capture('r'),
        ...sockOpts,
      });
      sockets.push(s);
      subs.push(s.signals$.subscribe({ next: onSignal('r', [false], 0) }));
    },
    connected: () => connectedP,
    stats: () => ({
      frames: { ...counts.frames },
      connects: { ...counts.connects },
      disconnects: { ...counts.disconnects },
    }),
    close() {
      if (closed) return;
      closed = true;
      for (const s of subs) s.unsubscribe();
      for (const s of sockets) s.close();
    },
  };
}
