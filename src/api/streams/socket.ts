/**
 * A reconnecting WebSocket as an RxJS Observable of connection signals, with the hygiene every
 * venue stream needs (see /work/shared/reference/failure-modes-and-reliability.md, A):
 *
 *  - on open, the subscription frames first (a heartbeat before the subscription gets some servers
 *    to close the socket), then the text `PING` at once and every `pingIntervalMs`;
 *  - the first `PONG` after the subscription means the server has handled it (`ready`): servers
 *    answer in order, so what happens after it is on the stream, what happened before is not;
 *  - liveness is judged by DATA: once the stream has received data (on any connection), a
 *    connection with no data frame for `silenceMs` is terminated, whatever PONGs it answers
 *    (the known failure: a socket that stays open and answers PONG but sends nothing for hours),
 *    unless the channel says silence is expected now (`silenceExpected`: the market channel when
 *    every market it follows has resolved), then it looks again a period later;
 *  - any loss (close, error, connect timeout, silence, `reconnect()`) terminates the socket and
 *    reconnects after a capped exponential backoff with jitter; the attempt counter resets after a
 *    connection that stayed up `healthyAfterMs`;
 *  - a frame is JSON text holding one message or an array of them; each message is delivered on
 *    its own. PONG and blank keep-alive frames are not data. A frame that is not JSON is counted
 *    and signalled (`bad_frame`), never thrown.
 *
 * Timers run on the injected Clock, so tests drive them with a VirtualClock and a fake socket
 * (`createSocket`). Frames sent are never logged (the user channel's carries credentials).
 */
import { Observable, share } from 'rxjs';
import WebSocket from 'ws';
import { LiveClock, type Clock, type TimerHandle } from '../../core/clock.ts';
import type { StreamName } from '../../core/events.ts';

/** Minimal structured logger (pino's Logger fits). */
export interface StreamLogger {
  warn(obj: Record<string, unknown>, msg: string): void;
  info?(obj: Record<string, unknown>, msg: string): void;
  debug?(obj: Record<string, unknown>, msg: string): void;
}

/** Capped exponential backoff with jitter. */
export interface BackoffPolicy {
  /** Delay before the first retry, ms. */
  initialMs: number;
  /** Cap, ms. */
  maxMs: number;
  /** Growth per failed attempt. */
  factor: number;
  /** Fraction of the delay taken off at random, in [0, 1]: 0.5 gives a delay in [d/2, d]. */
  jitter: number;
}

export const DEFAULT_BACKOFF: Readonly<BackoffPolicy> = { initialMs: 500, maxMs: 30_000, factor: 2, jitter: 0.5 };

/**
 * The delay before retry number `attempt` (0 = first retry after a healthy connection):
 * min(maxMs, initialMs * factor^attempt), minus up to `jitter` of it at random.
 * @param random a number in [0, 1)
 */
export function backoffDelay(attempt: number, policy: BackoffPolicy, random: number): number {
  const base = Math.min(policy.maxMs, policy.initialMs * policy.factor ** Math.max(0, attempt));
  const j = Math.min(1, Math.max(0, policy.jitter));
  return Math.max(0, Math.round(base * (1 - j * Math.min(1, Math.max(0, random)))));
}

/** Callbacks a socket implementation reports to. */
export interface WsHandlers {
  onOpen(): void;
  onText(text: string): void;
  onBinary(): void;
  onClose(code: number, reason: string): void;
  onError(err: Error): void;
}

/** The socket the core drives: the `ws` adapter in production, a fake in tests. */
export interface WsLike {
  send(text: string): void;
  /** Cut the connection at once. */
  terminate(): void;
  /** Close politely (code 1000), terminating if that takes too long. */
  close(): void;
}

export type WsFactory = (url: string, handlers: WsHandlers) => WsLike;

/** Most bytes accepted in one frame from the venue (a large book snapshot array fits easily). */
export const MAX_INBOUND_FRAME = 64 * 1024 * 1024;

/** The production socket: `ws`, no compression, text frames. */
export const wsFactory: WsFactory = (url, h) => {
  const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: MAX_INBOUND_FRAME, handshakeTimeout: 15_000 });
  ws.on('open', () => h.onOpen());
  ws.on('message', (data: WebSocket.RawData, isBinary: boolean) => {
    if (isBinary) return h.onBinary();
    const text = Buffer.isBuffer(data)
      ? data.toString('utf8')
      : Array.isArray(data)
        ? Buffer.concat(data).toString('utf8')
        : Buffer.from(data).toString('utf8');
    h.onText(text);
  });
  ws.on('close', (code: number, reason: Buffer) => h.onClose(code, reason.toString('utf8')));
  ws.on('error', (err: Error) => h.onError(err));
  return {
    send(text) {
      if (ws.readyState === WebSocket.OPEN) ws.send(text);
    },
    terminate() {
      ws.terminate();
    },
    close() {
      if (ws.readyState === WebSocket.CONNECTING) return ws.terminate();
      ws.close(1000, 'client closing');
      const t = setTimeout(() => ws.terminate(), 1000);
      t.unref();
    },
  };
};

/** What a reconnecting socket tells its channel. */
export type SocketSignal =
  /** Connected; the subscription frames have been sent. */
  | { readonly kind: 'open'; readonly reconnect: boolean; readonly at: number }
  /** The server has handled the subscription (first PONG after it), or `readyTimeoutMs` passed without one. */
  | { readonly kind: 'ready'; readonly reconnect: boolean; readonly at: number; readonly confirmed: boolean }
  /** One message (one element of an array frame). */
  | { readonly kind: 'message'; readonly msg: unknown; readonly recvTime: number }
  /** A frame that is not JSON (or binary). */
  | { readonly kind: 'bad_frame'; readonly reason: string; readonly recvTime: number }
  /** The connection is gone (or never came up); the next attempt is in `retryInMs`. */
  | {
      readonly kind: 'down';
      readonly reason: string;
      readonly at: number;
      readonly retryInMs: number;
      readonly wasOpen: boolean;
    };

export interface SocketOptions {
  url: string;
  stream: StreamName;
  /** The frames that subscribe, as they stand now: called on every (re)connect. */
  openFrames: () => readonly string[];
  /**
   * Tried on a frame's text before JSON.parse (the market channel's frame scanner): the number of
   * messages it handled itself, their events delivered, or 0 to let the frame take the usual path
   * (parse, then one `message` signal per message).
   */
  scanFrame?: (text: string, recvTime: number) => number;
  /** Interval of the text PING, ms (10 s market/user, 5 s RTDS). */
  pingIntervalMs?: number;
  /** Data silence after which the connection is replaced, ms (default 30 s; 0 disables). */
  silenceMs?: number;
  /**
   * Asked when the silence deadline has passed: true when silence is expected now (nothing followed
   * can send data: every market followed resolved), so the connection stays and the deadline is
   * looked at again `silenceMs` later. Default: never expected.
   */
  silenceExpected?: () => boolean;
  /** How long to wait for the PONG that confirms the subscription, ms (default 5 s). */
  readyTimeoutMs?: number;
  /** Connect (TCP + handshake) deadline, ms (default 10 s). */
  connectTimeoutMs?: number;
  /** A connection that lasted this long resets the backoff, ms (default 3 s). */
  healthyAfterMs?: number;
  backoff?: Partial<BackoffPolicy>;
  clock?: Clock;
  /** Random source in [0, 1) for the jitter. */
  random?: () => number;
  logger?: StreamLogger;
  createSocket?: WsFactory;
}

/** Counters of a reconnecting socket. */
export interface SocketStats {
  /** Connection attempts started. */
  attempts: number;
  /** Connections that opened. */
  opens: number;
  /** Losses (closes, errors, timeouts, silence, forced). */
  downs: number;
  /** Connections replaced because no data came for `silenceMs`. */
  silenceReconnects: number;
  /** Text frames received (PONG included). */
  frames: number;
  /** Messages delivered (elements of array frames counted one by one). */
  messages: number;
  /** Frames that were not JSON, or binary. */
  badFrames: number;
  pingsSent: number;
  pongs: number;
  /** Receive time of the last data frame (unix ms), 0 before any. */
  lastDataAt: number;
}

/** A reconnecting socket: its signals, and what a channel may do with it. */
export interface ReconnectingSocket {
  /**
   * The connection's signals. Subscribing starts connecting; the last unsubscribe, or `close()`,
   * stops (the Observable completes on `close()`). Shared: one connection whatever the subscribers.
   */
  readonly signals$: Observable<SocketSignal>;
  /** Sends a text frame now if connected; false when not (the next `openFrames()` must cover it). */
  send(text: string): boolean;
  /** Replaces the connection (terminate, then reconnect with backoff). No effect when not connected. */
  reconnect(reason: string): void;
  /** Stops for good: closes the socket, clears timers, completes `signals$`. Idempotent. */
  close(): void;
  /** True while a connection is open. */
  readonly connected: boolean;
  readonly stats: Readonly<SocketStats>;
}

/** Parses a frame's text: the messages it holds, or why it is refused. Blank text holds none. */
export function parseFrame(text: string): { ok: true; messages: unknown[] } | { ok: false; reason: string } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    if (text.trim().length === 0) return { ok: true, messages: [] };
    return { ok: false, reason: 'malformed JSON' };
  }
  return { ok: true, messages: Array.isArray(v) ? v : [v] };
}

/** True for the keep-alive answers PONG / pong. */
export function isPong(text: string): boolean {
  if (text.length > 8) return false;
  const t = text.trim();
  return t === 'PONG' || t === 'pong';
}

const enum State {
  Idle,
  Connecting,
  Open,
  Waiting,
  Closed,
}

/**
 * Creates a reconnecting socket (see the module comment). Nothing happens until `signals$` is
 * subscribed.
 */
export function reconnectingSocket(o: SocketOptions): ReconnectingSocket {
  return new SocketCore(o).handle;
}

class SocketCore {
  readonly handle: ReconnectingSocket;
  readonly stats: SocketStats = {
    attempts: 0,
    opens: 0,
    downs: 0,
    silenceReconnects: 0,
    frames: 0,
    messages: 0,
    badFrames: 0,
    pingsSent: 0,
    pongs: 0,
    lastDataAt: 0,
  };
  private readonly clock: Clock;
  private readonly backoff: BackoffPolicy;
  private readonly random: () => number;
  private readonly create: WsFactory;
  private readonly pingMs: number;
  private readonly silenceMs: number;
  private readonly readyMs: number;
  private readonly connectMs: number;
  private readonly healthyMs: number;
  private state = State.Idle;
  private ws: WsLike | undefined;
  private gen = 0;
  private attempt = 0;
  private opened = 0; // connections opened so far
  private openedAt = 0;
  private everData = false;
  private awaitingReady = false;
  private emit: ((s: SocketSignal) => void) | undefined;
  private complete: (() => void) | undefined;
  private connectTimer: TimerHandle | undefined;
  private pingTimer: TimerHandle | undefined;
  private silenceTimer: TimerHandle | undefined;
  private readyTimer: TimerHandle | undefined;
  private retryTimer: TimerHandle | undefined;
  private badLogged = 0;

  constructor(private readonly o: SocketOptions) {
    this.clock = o.clock ?? new LiveClock();
    this.backoff = { ...DEFAULT_BACKOFF, ...(o.backoff ?? {}) };
    this.random = o.random ?? Math.random;
    this.create = o.createSocket ?? wsFactory;
    this.pingMs = o.pingIntervalMs ?? 10_000;
    this.silenceMs = o.silenceMs ?? 30_000;
    this.readyMs = o.readyTimeoutMs ?? 5_000;
    this.connectMs = o.connectTimeoutMs ?? 10_000;
    this.healthyMs = o.healthyAfterMs ?? 3_000;
    const signals$ = new Observable<SocketSignal>((sub) => {
      if (this.state === State.Closed) {
        sub.complete();
        return undefined;
      }
      this.emit = (s) => sub.next(s);
      this.complete = () => sub.complete();
      this.connect();
      return () => this.stop(false);
    }).pipe(share());
    const self = this;
    this.handle = {
      signals$,
      send: (text) => this.send(text),
      reconnect: (reason) => this.down(reason),
      close: () => this.stop(true),
      get connected() {
        return self.state === State.Open;
      },
      stats: this.stats,
    };
  }

  private log(level: 'info' | 'debug', obj: Record<string, unknown>, msg: string): void {
    const l = this.o.logger;
    if (l === undefined) return;
    const fn = level === 'info' ? l.info : l.debug;
    fn?.call(l, { stream: this.o.stream, ...obj }, msg);
  }

  private send(text: string): boolean {
    if (this.state !== State.Open || this.ws === undefined) return false;
    this.ws.send(text);
    return true;
  }

  private connect(): void {
    if (this.state === State.Closed) return;
    this.state = State.Connecting;
    const gen = ++this.gen;
    this.stats.attempts++;
    const live = () => gen === this.gen;
    const handlers: WsHandlers = {
      onOpen: () => live() && this.onOpen(),
      onText: (t) => live() && this.onText(t),
      onBinary: () => live() && this.bad('binary frame', this.clock.now()),
      onClose: (code, reason) => live() && this.down(`closed ${code}${reason ? ` ${reason.slice(0, 80)}` : ''}`),
      onError: (err) => live() && this.down(`error: ${err.message.slice(0, 120)}`),
    };
    this.connectTimer = this.clock.setTimeout(() => {
      this.connectTimer = undefined;
      if (live() && this.state === State.Connecting) this.down(`connect timeout ${this.connectMs} ms`);
    }, this.connectMs);
    try {
      this.ws = this.create(this.o.url, handlers);
    } catch (err) {
      this.down(`connect failed: ${(err as Error).message?.slice(0, 120) ?? String(err)}`);
    }
  }

  private onOpen(): void {
    if (this.state !== State.Connecting) return;
    this.clearTimer('connectTimer');
    this.state = State.Open;
    this.stats.opens++;
    const reconnect = this.opened > 0;
    this.opened++;
    this.openedAt = this.clock.now();
    this.log('info', { reconnect, attempt: this.attempt }, 'stream connected');
    for (const f of this.o.openFrames()) this.ws!.send(f);
    this.emit?.({ kind: 'open', reconnect, at: this.openedAt });
    if (this.state !== State.Open) return; // the channel replaced it
    // PING right after the subscription: its PONG confirms the server handled the subscription
    this.awaitingReady = true;
    this.ping();
    this.readyTimer = this.clock.setTimeout(() => {
      this.readyTimer = undefined;
      if (this.awaitingReady) this.ready(false);
    }, this.readyMs);
    this.pingTimer = this.clock.setInterval(() => this.ping(), this.pingMs);
    this.armSilence();
  }

  private ready(confirmed: boolean): void {
    this.awaitingReady = false;
    this.clearTimer('readyTimer');
    this.emit?.({ kind: 'ready', reconnect: this.opened > 1, at: this.clock.now(), confirmed });
  }

  private ping(): void {
    if (this.state !== State.Open) return;
    this.ws!.send('PING');
    this.stats.pingsSent++;
  }

  /**
   * Keeps one timer that fires when the silence deadline may have passed, re-armed from the last
   * data (or `delayMs` from now: silence was expected when it last fired).
   */
  private armSilence(delayMs?: number): void {
    if (this.silenceMs <= 0 || !this.everData || this.silenceTimer !== undefined || this.state !== State.Open) return;
    const since = Math.max(this.openedAt, this.stats.lastDataAt);
    const due = delayMs ?? Math.max(0, since + this.silenceMs - this.clock.now());
    this.silenceTimer = this.clock.setTimeout(() => {
      this.silenceTimer = undefined;
      if (this.state !== State.Open) return;
      const last = Math.max(this.openedAt, this.stats.lastDataAt);
      if (this.clock.now() - last < this.silenceMs) this.armSilence();
      else if (this.o.silenceExpected?.() === true) this.armSilence(this.silenceMs);
      else {
        this.stats.silenceReconnects++;
        this.down(`silence: no data for ${this.silenceMs} ms`);
      }
    }, due);
  }

  private onText(text: string): void {
    const recvTime = this.clock.now();
    this.stats.frames++;
    if (isPong(text)) {
      this.stats.pongs++;
      if (this.awaitingReady) this.ready(true);
      return;
    }
    const scanned = this.emit !== undefined && this.o.scanFrame !== undefined ? this.o.scanFrame(text, recvTime) : 0;
    if (scanned > 0) {
      this.stats.messages += scanned;
      this.stats.lastDataAt = recvTime;
      if (!this.everData) {
        this.everData = true;
        this.armSilence();
      }
      return;
    }
    const f = parseFrame(text);
    if (!f.ok) return this.bad(f.reason, recvTime);
    if (f.messages.length === 0) return; // blank keep-alive
    this.stats.lastDataAt = recvTime;
    if (!this.everData) {
      this.everData = true;
      this.armSilence();
    }
    const emit = this.emit;
    if (emit === undefined) return;
    for (const msg of f.messages) {
      this.stats.messages++;
      emit({ kind: 'message', msg, recvTime });
      if (this.state !== State.Open) return;
    }
  }

  private bad(reason: string, recvTime: number): void {
    this.stats.badFrames++;
    if (this.o.logger && (this.badLogged < 10 || this.stats.badFrames % 1000 === 0)) {
      this.badLogged++;
      this.o.logger.warn(
        { stream: this.o.stream, reason, badFrames: this.stats.badFrames },
        'bad frame from the stream (skipped)',
      );
    }
    this.emit?.({ kind: 'bad_frame', reason, recvTime });
  }

  private clearTimer(k: 'connectTimer' | 'pingTimer' | 'silenceTimer' | 'readyTimer' | 'retryTimer'): void {
    const t = this[k];
    if (t === undefined) return;
    if (k === 'pingTimer') this.clock.clearInterval(t);
    else this.clock.clearTimeout(t);
    this[k] = undefined;
  }

  private clearConnTimers(): void {
    this.clearTimer('connectTimer');
    this.clearTimer('pingTimer');
    this.clearTimer('silenceTimer');
    this.clearTimer('readyTimer');
    this.awaitingReady = false;
  }

  /** The connection is lost (or replaced): terminate it and schedule the next attempt. */
  private down(reason: string): void {
    if (this.state !== State.Connecting && this.state !== State.Open) return;
    const wasOpen = this.state === State.Open;
    const now = this.clock.now();
    this.gen++; // late callbacks of the old socket are ignored
    this.clearConnTimers();
    const ws = this.ws;
    this.ws = undefined;
    try {
      ws?.terminate();
    } catch {
      /* already gone */
    }
    this.stats.downs++;
    if (wasOpen && now - this.openedAt >= this.healthyMs) this.attempt = 0;
    const retryInMs = backoffDelay(this.attempt, this.backoff, this.random());
    this.attempt++;
    this.state = State.Waiting;
    this.log('info', { reason, retryInMs, wasOpen }, 'stream disconnected');
    this.retryTimer = this.clock.setTimeout(() => {
      this.retryTimer = undefined;
      if (this.state === State.Waiting) this.connect();
    }, retryInMs);
    this.emit?.({ kind: 'down', reason, at: now, retryInMs, wasOpen });
  }

  /** Stops: `final` (close()) forbids restarting and completes the signals. */
  private stop(final: boolean): void {
    if (this.state === State.Closed) return;
    this.gen++;
    this.clearConnTimers();
    this.clearTimer('retryTimer');
    const ws = this.ws;
    this.ws = undefined;
    try {
      ws?.close();
    } catch {
      /* already gone */
    }
    const complete = this.complete;
    this.emit = undefined;
    this.complete = undefined;
    if (final) {
      this.state = State.Closed;
      complete?.();
    } else {
      this.state = State.Idle;
      this.opened = 0;
      this.attempt = 0;
    }
  }
}
