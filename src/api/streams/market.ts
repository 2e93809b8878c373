/**
 * The market channel (`{ws_url}/ws/market`) as an Observable of market events in integer units.
 *
 * Subscribes with `{"assets_ids": [...], "type": "market", "custom_feature_enabled": ...}` on every
 * (re)connect and changes the set live with `{"assets_ids": [...], "operation": "subscribe" |
 * "unsubscribe"}`. Sequence guarantees:
 *
 *  - first connection: the snapshots, then `resynced {initial: true}` once the server has handled
 *    the subscription;
 *  - on loss: `disconnected {reason}` at once (books built on the stream are stale from here);
 *    further failed attempts are `stream_error`s; after the reconnect, a fresh `book_snapshot` for
 *    every token that had one, then `resynced`. Until its fresh snapshot arrives, a token's
 *    `level_change`s are dropped (the snapshot supersedes them). If the snapshots do not all come
 *    within `resyncTimeoutMs`, the connection is replaced again;
 *  - `resync(tokens)` asks for fresh snapshots of some tokens on the live connection (what the
 *    mirror feed calls when a book no longer matches the venue's best prices);
 *  - bad frames and the venue's error frames are `stream_error`s (counted, logged), never thrown;
 *  - a market that resolved sends nothing more: once every token followed is of a market the
 *    stream saw resolve (`market_resolved`), data silence is expected and does not replace the
 *    connection (it did every `silenceMs` for as long as the bot ran: findings-5 P4).
 */
import { Observable, share } from 'rxjs';
import { LiveClock, type Clock, type TimerHandle } from '../../core/clock.ts';
import type { MarketDataEvent, MarketEvent } from '../../core/events.ts';
import { FrameScanner } from './frame-scan.ts';
import { MarketDecoder, type MarketDecoderStats } from './market-decode.ts';
import {
  reconnectingSocket,
  type BackoffPolicy,
  type ReconnectingSocket,
  type SocketSignal,
  type SocketStats,
  type StreamLogger,
  type WsFactory,
} from './socket.ts';

/** Most tokens one market-channel connection follows (the venue's documented limit). */
export const MAX_MARKET_ASSETS = 500;

export interface MarketStreamOptions {
  /** The channel's URL, e.g. `${ws_url}/ws/market`. */
  url: string;
  /** Token ids to follow from the start. */
  assetIds?: readonly string[];
  /** Ask for best_bid_ask, new_market and market_resolved (default true). */
  customFeatures?: boolean;
  /** Data silence after which the connection is replaced, ms (default 30 s; 0 disables). */
  silenceMs?: number;
  /** PING interval, ms (default 10 s). */
  pingIntervalMs?: number;
  /** Deadline for the fresh snapshots after a reconnect or `resync()`, ms (default: silenceMs, or 30 s). */
  resyncTimeoutMs?: number;
  backoff?: Partial<BackoffPolicy>;
  connectTimeoutMs?: number;
  healthyAfterMs?: number;
  clock?: Clock;
  random?: () => number;
  logger?: StreamLogger;
  /** Socket implementation (tests). */
  createSocket?: WsFactory;
  /**
   * Hand-written decoders for the hot kinds and the frame scanner (./frame-scan.ts: canonical frames
   * to events without JSON.parse; anything else takes the decoder) (default true); false: JSON.parse
   * and zod for everything.
   */
  fastDecode?: boolean;
}

/** Counters of a market stream. */
export interface MarketStreamStats {
  socket: Readonly<SocketStats>;
  decoder: Readonly<MarketDecoderStats>;
  /** Bad frames in all: not JSON, or refused by the schema. */
  badFrames: number;
  /** level_change events dropped because their token's fresh snapshot was pending. */
  droppedWhilePending: number;
  /** `resynced` events emitted (initial included). */
  resyncs: number;
  /** Snapshots asked for by `resync()`. */
  resyncRequests: number;
  /** Frames the frame scanner turned into events (the rest took JSON.parse and the decoder). */
  framesScanned: number;
}

/** A live market-channel client. Not an Observable itself: subscribe to `events$`. */
export interface MarketStream {
  /**
   * Market events. Subscribing starts the connection (shared by every subscriber); the last
   * unsubscribe stops it; `close()` completes it.
   */
  readonly events$: Observable<MarketEvent>;
  /**
   * Follows more tokens (snapshots follow for the known ones).
   * @throws RangeError when the connection would follow more than MAX_MARKET_ASSETS tokens
   */
  subscribe(tokenIds: readonly string[]): void;
  /** Stops following tokens. */
  unsubscribe(tokenIds: readonly string[]): void;
  /** Asks for fresh snapshots of these tokens (default: all); their level changes are dropped until then. */
  resync(tokenIds?: readonly string[]): void;
  /** The tokens followed. */
  assets(): string[];
  stats(): MarketStreamStats;
  /** Closes the socket and completes `events$`. Idempotent. */
  close(): void;
}

/**
 * Creates a market-channel client (see the module comment). Nothing connects until `events$` is
 * subscribed.
 * @throws RangeError when `assetIds` holds more than MAX_MARKET_ASSETS tokens
 */
export function marketStream(o: MarketStreamOptions): MarketStream {
  const assets = new Set<string>(o.assetIds ?? []);
  if (assets.size > MAX_MARKET_ASSETS)
    throw new RangeError(`a market stream follows at most ${MAX_MARKET_ASSETS} tokens (${assets.size} given)`);
  const custom = o.customFeatures ?? true;
  const clock = o.clock ?? new LiveClock();
  const silenceMs = o.silenceMs ?? 30_000;
  const resyncMs = o.resyncTimeoutMs ?? (silenceMs > 0 ? silenceMs : 30_000);
  const decoder = new MarketDecoder({ fast: o.fastDecode ?? true });
  const scanner = (o.fastDecode ?? true) ? new FrameScanner() : undefined;
  const counters = { badFrames: 0, droppedWhilePending: 0, resyncs: 0, resyncRequests: 0 };

  const sock: ReconnectingSocket = reconnectingSocket({
    url: o.url,
    stream: 'market',
    openFrames: () => [JSON.stringify({ assets_ids: [...assets], type: 'market', custom_feature_enabled: custom })],
    ...(scanner !== undefined
      ? { scanFrame: (text: string, recvTime: number) => scanFrame(scanner, text, recvTime) }
      : {}),
    pingIntervalMs: o.pingIntervalMs ?? 10_000,
    silenceMs,
    silenceExpected: () => allResolved(),
    clock,
    ...(o.backoff ? { backoff: o.backoff } : {}),
    ...(o.connectTimeoutMs !== undefined ? { connectTimeoutMs: o.connectTimeoutMs } : {}),
    ...(o.healthyAfterMs !== undefined ? { healthyAfterMs: o.healthyAfterMs } : {}),
    ...(o.random ? { random: o.random } : {}),
    ...(o.logger ? { logger: o.logger } : {}),
    ...(o.createSocket ? { createSocket: o.createSocket } : {}),
  });

  // sync state (one connection at a time)
  const snapshotted = new Set<string>(); // tokens that have had a snapshot (on any connection)
  const pending = new Set<string>(); // tokens whose fresh snapshot is awaited on this connection
  let up = false; // synced: false before the first resync and after each loss
  let initialDone = false;
  let resyncTimer: TimerHandle | undefined;
  let emit: ((e: MarketEvent) => void) | undefined;
  const unknownLogged = new Set<string>();
  const marketOf = new Map<string, string>(); // token -> its market (condition id), from the snapshots
  const resolved = new Set<string>(); // markets seen resolving (market_resolved)
  /** Whether every token followed is of a market seen resolving: nothing followed sends data any more. */
  const allResolved = (): boolean => {
    if (resolved.size === 0 || assets.size === 0) return false;
    for (const a of assets) {
      const m = marketOf.get(a);
      if (m === undefined || !resolved.has(m)) return false;
    }
    return true;
  };

  const clearResyncTimer = () => {
    if (resyncTimer !== undefined) clock.clearTimeout(resyncTimer);
    resyncTimer = undefined;
  };
  const armResyncTimer = () => {
    if (resyncTimer !== undefined) return;
    resyncTimer = clock.setTimeout(() => {
      resyncTimer = undefined;
      if (pending.size > 0) sock.reconnect(`no fresh snapshot within ${resyncMs} ms for ${pending.size} token(s)`);
    }, resyncMs);
  };
  const status = (e: MarketEvent) => emit?.(e);
  const resynced = (at: number) => {
    up = true;
    counters.resyncs++;
    clearResyncTimer();
    status({ type: 'resynced', stream: 'market', initial: !initialDone, venueTime: at, recvTime: at });
    initialDone = true;
  };
  const streamError = (reason: string, at: number) =>
    status({ type: 'stream_error', stream: 'market', reason, venueTime: at, recvTime: at });

  const out = (e: MarketDataEvent) => {
    if (e.type === 'book_snapshot') marketOf.set(e.tokenId, e.market);
    else if (e.type === 'market_resolved') resolved.add(e.market);
    if (pending.size > 0) {
      if (e.type === 'book_snapshot') {
        snapshotted.add(e.tokenId);
        emit?.(e);
        if (pending.delete(e.tokenId) && pending.size === 0) {
          clearResyncTimer();
          if (!up) resynced(e.recvTime);
        }
        return;
      }
      if (e.type === 'level_change' && pending.has(e.tokenId)) {
        counters.droppedWhilePending++;
        return;
      }
    } else if (e.type === 'book_snapshot') snapshotted.add(e.tokenId);
    emit?.(e);
  };

  /** A canonical frame straight to events (counted by the decoder's stats): its message count, or 0. */
  const scanFrame = (sc: FrameScanner, text: string, recvTime: number): number => {
    const before = decoder.stats.messages;
    return sc.scan(text, recvTime, decoder.stats, out) ? decoder.stats.messages - before : 0;
  };

  const onSignal = (s: SocketSignal) => {
    switch (s.kind) {
      case 'message': {
        const r = decoder.decode(s.msg, s.recvTime, out);
        if (r.kind === 'ok') return;
        if (r.kind === 'bad') {
          counters.badFrames++;
          if (o.logger && (counters.badFrames <= 10 || counters.badFrames % 1000 === 0))
            o.logger.warn(
              { stream: 'market', reason: r.reason, badFrames: counters.badFrames },
              'bad market message (skipped)',
            );
          streamError(`bad message: ${r.reason}`, s.recvTime);
        } else if (r.kind === 'server_error') {
          o.logger?.warn({ stream: 'market', reason: r.reason }, 'error frame from the market channel');
          streamError(`venue error: ${r.reason}`, s.recvTime);
        } else if (!unknownLogged.has(r.eventType) && unknownLogged.size < 100) {
          unknownLogged.add(r.eventType);
          o.logger?.info?.({ stream: 'market', eventType: r.eventType }, 'unknown market event type (ignored)');
        }
        return;
      }
      case 'bad_frame':
        counters.badFrames++;
        streamError(`bad frame: ${s.reason}`, s.recvTime);
        return;
      case 'open': {
        pending.clear();
        for (const a of snapshotted) if (assets.has(a)) pending.add(a);
        if (pending.size > 0) armResyncTimer();
        return;
      }
      case 'ready':
        if (!up && pending.size === 0) resynced(s.at);
        return;
      case 'down':
        clearResyncTimer();
        pending.clear();
        if (up) {
          up = false;
          status({ type: 'disconnected', stream: 'market', reason: s.reason, venueTime: s.at, recvTime: s.at });
        } else streamError(`connection attempt failed: ${s.reason}`, s.at);
        return;
    }
  };

  const events$ = new Observable<MarketEvent>((sub) => {
    emit = (e) => sub.next(e);
    const inner = sock.signals$.subscribe({ next: onSignal, complete: () => sub.complete() });
    return () => {
      inner.unsubscribe();
      emit = undefined;
      clearResyncTimer();
      pending.clear();
      up = false;
    };
  }).pipe(share());

  const frame = (ids: readonly string[], op: 'subscribe' | 'unsubscribe') =>
    JSON.stringify({ assets_ids: ids, operation: op, custom_feature_enabled: custom });

  return {
    events$,
    subscribe(ids) {
      const fresh = ids.filter((a) => !assets.has(a));
      if (assets.size + new Set(fresh).size > MAX_MARKET_ASSETS)
        throw new RangeError(`a market stream follows at most ${MAX_MARKET_ASSETS} tokens`);
      if (fresh.length === 0) return;
      for (const a of fresh) assets.add(a);
      sock.send(frame([...new Set(fresh)], 'subscribe'));
    },
    unsubscribe(ids) {
      const gone = ids.filter((a) => assets.has(a));
      if (gone.length === 0) return;
      for (const a of gone) {
        assets.delete(a);
        snapshotted.delete(a);
        marketOf.delete(a);
        if (pending.delete(a) && pending.size === 0) {
          clearResyncTimer();
          if (!up && sock.connected) resynced(clock.now());
        }
      }
      sock.send(frame(gone, 'unsubscribe'));
    },
    resync(ids) {
      const list = [...new Set(ids ?? assets)].filter((a) => assets.has(a));
      if (list.length === 0 || !sock.connected) return;
      counters.resyncRequests++;
      // wait only for tokens the venue has shown a book of (an unknown token never gets one)
      for (const a of list) if (snapshotted.has(a)) pending.add(a);
      if (pending.size > 0) armResyncTimer();
      sock.send(frame(list, 'subscribe'));
    },
    assets: () => [...assets],
    stats: () => ({ socket: sock.stats, decoder: decoder.stats, ...counters, framesScanned: scanner?.scanned ?? 0 }),
    close() {
      clearResyncTimer();
      sock.close();
    },
  };
}
