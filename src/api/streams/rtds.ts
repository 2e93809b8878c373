/**
 * The real-time data stream (RTDS: `{price_feed_url}`) as an Observable of price ticks and
 * comments. Subscribes with `{"action": "subscribe", "subscriptions": [{topic, type, filters}]}` on
 * every (re)connect; PING every 5 s; liveness by data as on the other channels.
 *
 *  - `crypto_prices`: filters are symbols (`["btcusdt", "ethusdt"]`, sent as "btcusdt,ethusdt");
 *    a filtered subscription first gets a snapshot of recent points (`price_tick` with
 *    `snapshot: true`, oldest first), then updates about once a second.
 *  - `comments`: an optional filter `{parentEntityID, parentEntityType}`; `comment` events.
 *
 * After a reconnect: `disconnected`, then `resynced` once the server has confirmed the
 * resubscription (prices are a stream of points, not a book: there is nothing to rebuild).
 */
import { Observable, share } from 'rxjs';
import { z } from 'zod';
import { LiveClock, type Clock } from '../../core/clock.ts';
import type { CommentEvent, PriceTickEvent, RtdsEvent } from '../../core/events.ts';
import { zodReason, zTimestamp } from './decode.ts';
import { serverErrorReason } from './market-decode.ts';
import {
  reconnectingSocket,
  type BackoffPolicy,
  type SocketSignal,
  type SocketStats,
  type StreamLogger,
  type WsFactory,
} from './socket.ts';

/** One RTDS subscription. `filters`: symbols for crypto_prices; `{parentEntityID, parentEntityType}` for comments. */
export interface RtdsSubscription {
  topic: 'crypto_prices' | 'comments' | (string & {});
  /** Message type: "update" for prices, "comment_created" for comments; default "*" (all). */
  type?: string;
  filters?: readonly string[] | string | Record<string, string | number>;
}

export interface RtdsStreamOptions {
  /** The stream's URL, e.g. `{price_feed_url}`. */
  url: string;
  subscriptions: readonly RtdsSubscription[];
  /** Data silence after which the connection is replaced, ms (default 30 s; 0 disables). */
  silenceMs?: number;
  /** PING interval, ms (default 5 s). */
  pingIntervalMs?: number;
  backoff?: Partial<BackoffPolicy>;
  connectTimeoutMs?: number;
  healthyAfterMs?: number;
  clock?: Clock;
  random?: () => number;
  logger?: StreamLogger;
  createSocket?: WsFactory;
}

export interface RtdsStreamStats {
  socket: Readonly<SocketStats>;
  badFrames: number;
  serverErrors: number;
  /** Messages of topics or types this client does not decode (ignored). */
  ignored: number;
}

/** A live RTDS client. */
export interface RtdsStream {
  /** Price ticks and comments. Subscribing connects (shared); `close()` completes. */
  readonly events$: Observable<RtdsEvent>;
  /** Adds subscriptions (kept for reconnects). */
  subscribe(subs: readonly RtdsSubscription[]): void;
  /** Removes subscriptions (same topic, type and filters as subscribed). */
  unsubscribe(subs: readonly RtdsSubscription[]): void;
  stats(): RtdsStreamStats;
  /** Closes the socket and completes `events$`. Idempotent. */
  close(): void;
}

/** A subscription as the wire carries it. */
export function wireSubscription(s: RtdsSubscription): { topic: string; type: string; filters?: string } {
  const out: { topic: string; type: string; filters?: string } = { topic: s.topic, type: s.type ?? '*' };
  const f = s.filters;
  if (f === undefined) return out;
  if (typeof f === 'string') out.filters = f;
  else if (Array.isArray(f)) out.filters = f.join(',');
  else out.filters = JSON.stringify(f);
  return out;
}

const zPoint = z.object({ timestamp: zTimestamp, value: z.number() });
const priceUpdateSchema = z.object({
  topic: z.literal('crypto_prices'),
  type: z.string(),
  timestamp: zTimestamp,
  payload: z.object({ symbol: z.string().min(1), timestamp: zTimestamp, value: z.number() }),
});
const priceSnapshotSchema = z.object({
  topic: z.literal('crypto_prices'),
  type: z.string(),
  timestamp: zTimestamp,
  payload: z.object({ symbol: z.string().min(1), data: z.array(zPoint) }),
});
const commentSchema = z.object({
  topic: z.literal('comments'),
  type: z.string(),
  timestamp: zTimestamp,
  payload: z.object({
    id: z.union([z.string(), z.number()]).transform(String),
    body: z
      .string()
      .optional()
      .transform((v) => v ?? ''),
    parentEntityType: z
      .string()
      .optional()
      .transform((v) => v ?? ''),
    parentEntityID: z
      .union([z.string(), z.number()])
      .optional()
      .transform((v) => (v === undefined ? '' : String(v))),
    userAddress: z
      .string()
      .optional()
      .transform((v) => v ?? ''),
    createdAt: z
      .string()
      .optional()
      .transform((v) => v ?? ''),
  }),
});

/**
 * Decodes one RTDS message into events. Returns a refusal reason, 'ignored' for topics this client
 * does not decode, or undefined when fine.
 */
export function decodeRtdsMessage(
  msg: unknown,
  recvTime: number,
  out: (e: PriceTickEvent | CommentEvent) => void,
): string | 'ignored' | undefined {
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) return 'a message must be a JSON object';
  const m = msg as Record<string, unknown>;
  const topic = m['topic'];
  if (topic === 'crypto_prices') {
    const p = m['payload'];
    if (typeof p === 'object' && p !== null && Array.isArray((p as Record<string, unknown>)['data'])) {
      const r = priceSnapshotSchema.safeParse(msg);
      if (!r.success) return zodReason(r.error);
      for (const pt of r.data.payload.data) {
        const t = pt.timestamp >= 0 ? pt.timestamp : r.data.timestamp >= 0 ? r.data.timestamp : recvTime;
        out({
          type: 'price_tick',
          venueTime: t,
          recvTime,
          symbol: r.data.payload.symbol,
          value: pt.value,
          snapshot: true,
        });
      }
      return undefined;
    }
    const r = priceUpdateSchema.safeParse(msg);
    if (!r.success) return zodReason(r.error);
    const d = r.data;
    const t = d.payload.timestamp >= 0 ? d.payload.timestamp : d.timestamp >= 0 ? d.timestamp : recvTime;
    out({
      type: 'price_tick',
      venueTime: t,
      recvTime,
      symbol: d.payload.symbol,
      value: d.payload.value,
      snapshot: false,
    });
    return undefined;
  }
  if (topic === 'comments') {
    const r = commentSchema.safeParse(msg);
    if (!r.success) return zodReason(r.error);
    const d = r.data;
    const created = Date.parse(d.payload.createdAt);
    const t = d.timestamp >= 0 ? d.timestamp : Number.isFinite(created) ? created : recvTime;
    out({
      type: 'comment',
      venueTime: t,
      recvTime,
      kind: d.type,
      id: d.payload.id,
      body: d.payload.body,
      parentEntityType: d.payload.parentEntityType,
      parentEntityId: d.payload.parentEntityID,
      userAddress: d.payload.userAddress,
      createdAt: d.payload.createdAt,
    });
    return undefined;
  }
  if (m['event_type'] === 'error') return `venue error: ${serverErrorReason(msg)}`;
  return 'ignored';
}

const key = (s: RtdsSubscription) => JSON.stringify(wireSubscription(s));

/** Creates an RTDS client (see the module comment). Nothing connects until `events$` is subscribed. */
export function rtdsStream(o: RtdsStreamOptions): RtdsStream {
  const clock = o.clock ?? new LiveClock();
  const subs = new Map<string, RtdsSubscription>();
  for (const s of o.subscriptions) subs.set(key(s), s);
  const counters = { badFrames: 0, serverErrors: 0, ignored: 0 };

  const sock = reconnectingSocket({
    url: o.url,
    stream: 'rtds',
    openFrames: () =>
      subs.size === 0
        ? []
        : [JSON.stringify({ action: 'subscribe', subscriptions: [...subs.values()].map(wireSubscription) })],
    pingIntervalMs: o.pingIntervalMs ?? 5_000,
    silenceMs: o.silenceMs ?? 30_000,
    clock,
    ...(o.backoff ? { backoff: o.backoff } : {}),
    ...(o.connectTimeoutMs !== undefined ? { connectTimeoutMs: o.connectTimeoutMs } : {}),
    ...(o.healthyAfterMs !== undefined ? { healthyAfterMs: o.healthyAfterMs } : {}),
    ...(o.random ? { random: o.random } : {}),
    ...(o.logger ? { logger: o.logger } : {}),
    ...(o.createSocket ? { createSocket: o.createSocket } : {}),
  });

  let emit: ((e: RtdsEvent) => void) | undefined;
  let up = false;
  let initialDone = false;
  const streamError = (reason: string, at: number) =>
    emit?.({ type: 'stream_error', stream: 'rtds', reason, venueTime: at, recvTime: at });
  const out = (e: PriceTickEvent | CommentEvent) => emit?.(e);

  const onSignal = (s: SocketSignal) => {
    switch (s.kind) {
      case 'message': {
        const r = decodeRtdsMessage(s.msg, s.recvTime, out);
        if (r === undefined) return;
        if (r === 'ignored') {
          counters.ignored++;
          return;
        }
        if (r.startsWith('venue error: ')) {
          counters.serverErrors++;
          o.logger?.warn({ stream: 'rtds', reason: r }, 'error frame from the real-time data stream');
          return streamError(r, s.recvTime);
        }
        counters.badFrames++;
        if (o.logger && (counters.badFrames <= 10 || counters.badFrames % 1000 === 0))
          o.logger.warn({ stream: 'rtds', reason: r, badFrames: counters.badFrames }, 'bad RTDS message (skipped)');
        return streamError(`bad message: ${r}`, s.recvTime);
      }
      case 'bad_frame':
        counters.badFrames++;
        return streamError(`bad frame: ${s.reason}`, s.recvTime);
      case 'open':
        return;
      case 'ready':
        if (!up) {
          up = true;
          emit?.({ type: 'resynced', stream: 'rtds', initial: !initialDone, venueTime: s.at, recvTime: s.at });
          initialDone = true;
        }
        return;
      case 'down':
        if (up) {
          up = false;
          emit?.({ type: 'disconnected', stream: 'rtds', reason: s.reason, venueTime: s.at, recvTime: s.at });
        } else streamError(`connection attempt failed: ${s.reason}`, s.at);
        return;
    }
  };

  const events$ = new Observable<RtdsEvent>((sub) => {
    emit = (e) => sub.next(e);
    const inner = sock.signals$.subscribe({ next: onSignal, complete: () => sub.complete() });
    return () => {
      inner.unsubscribe();
      emit = undefined;
      up = false;
    };
  }).pipe(share());

  return {
    events$,
    subscribe(list) {
      const fresh = list.filter((s) => !subs.has(key(s)));
      if (fresh.length === 0) return;
      for (const s of fresh) subs.set(key(s), s);
      sock.send(JSON.stringify({ action: 'subscribe', subscriptions: fresh.map(wireSubscription) }));
    },
    unsubscribe(list) {
      const gone = list.filter((s) => subs.delete(key(s)));
      if (gone.length === 0) return;
      sock.send(JSON.stringify({ action: 'unsubscribe', subscriptions: gone.map(wireSubscription) }));
    },
    stats: () => ({ socket: sock.stats, ...counters }),
    close: () => sock.close(),
  };
}
