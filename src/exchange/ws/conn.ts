/**
 * One client socket of a stream, with the hygiene every stream shares: data frames pass the fault
 * gate (frozen: dropped; latency: delayed, order kept), a slow reader is cut off before its
 * buffers grow without bound, drop faults terminate it, control frames (PONG, errors) go out at
 * once and are never frozen. Snapshots sent in reply to a request go through the connection's
 * message budget (budget.ts): refusals get a RATE_LIMITED error frame, a flood is closed 1008.
 */
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';
import type { Clock, TimerHandle } from '../../core/clock.ts';
import type { FaultController, StreamName } from '../faults.ts';
import type { SecurityLog } from '../security-log.ts';
import { ConnBudget, type BudgetOptions, type Refusal } from './budget.ts';
import { errorFrame } from './protocol.ts';

/** The fault state of a stream at one moment (computed once per fan-out, shared by its sockets). */
export interface Gate {
  frozen: boolean;
  latencyMs: number;
}

/** Counters every connection adds to (exposed by `Streams.stats()`). */
export interface StreamCounters {
  /** Data frames written to sockets. */
  framesSent: number;
  /** Data frames not sent because the stream was frozen. */
  framesFrozen: number;
  /** Sockets terminated because they read too slowly (buffered bytes over the cap). */
  slowTerminated: number;
  /** Sockets terminated by a drop fault. */
  dropped: number;
  /** Error frames sent: client frames refused (malformed, wrong shape, binary) and failed auth. */
  badFrames: number;
  /** Upgrades refused by the connection caps (total or per client address). */
  refusedConnections: number;
  /** Sockets closed because they did not authenticate (or pick a channel on /ws) in time. */
  authTimeouts: number;
  /** Sockets terminated because they answered no ping and sent nothing for the idle timeout. */
  idleTerminated: number;
  /** Client frames and replies refused by the message budget. */
  budgetRefusals: number;
  /** Sockets closed (1008) for exhausting the message budget again and again. */
  budgetClosed: number;
}

export function newCounters(): StreamCounters {
  return {
    framesSent: 0,
    framesFrozen: 0,
    slowTerminated: 0,
    dropped: 0,
    badFrames: 0,
    refusedConnections: 0,
    authTimeouts: 0,
    idleTerminated: 0,
    budgetRefusals: 0,
    budgetClosed: 0,
  };
}

export interface ConnEnv {
  clock: Clock;
  faults: FaultController;
  counters: StreamCounters;
  /** Buffered bytes (socket + latency queue) above which a socket is terminated. */
  maxBufferedBytes: number;
  /** Limits of each connection's message budget. */
  budget: BudgetOptions;
  security: SecurityLog | undefined;
}

/** Where a connection comes from, for the security log. */
export interface ConnOrigin {
  /** The request path (`/ws/market`). */
  route: string;
  /** The client address. */
  ip: string;
}

/** A snapshot a request asks for: `key` names what it shows (`book:<token>`), `render` makes its JSON. */
export interface SnapshotItem {
  key: string;
  render: () => string;
}

/** Text frames as buffers: encode once, write to many sockets. */
export function frame(text: string): Buffer {
  return Buffer.from(text, 'utf8');
}

/**
 * A connected client socket of one stream. Channels send data through `data` (fault gate, latency
 * queue, slow-reader cap) and answers through `control` / `error`; `onGone` fires once on close.
 */
export class StreamConn {
  /** Random id of the connection (RTDS `connection_id`). */
  readonly id = randomBytes(12).toString('base64url');
  /** When the connection opened (exchange clock, unix ms): drop faults count from it. */
  readonly openedAt: number;
  /** The stream whose faults apply; undefined on /ws until the first message picks a channel. */
  stream: StreamName | undefined;
  /** Wall time (ms) of the last frame or pong from the client: the idle timeout counts from it. */
  lastSeen = Date.now();
  readonly budget: ConnBudget;
  /** Keys of the snapshots this connection has had (the first of each is not charged). */
  private readonly snapshotted = new Set<string>();
  private queue: Array<{ data: Buffer; due: number }> = [];
  private queueBytes = 0;
  private queueTimer: ReturnType<typeof setTimeout> | undefined;
  private dropTimer: TimerHandle | undefined;
  private gone = false;
  private corked = false;
  /** Called once when the socket closes (any reason). */
  onGone: (() => void) | undefined;

  constructor(
    readonly ws: WebSocket,
    private readonly env: ConnEnv,
    stream: StreamName | undefined,
    readonly origin: ConnOrigin = { route: '', ip: '' },
  ) {
    this.openedAt = env.clock.now();
    this.stream = stream;
    this.budget = new ConnBudget(env.budget, this.lastSeen);
    ws.on('close', () => this.cleanup());
  }

  get isOpen(): boolean {
    return !this.gone && this.ws.readyState === 1;
  }

  /**
   * Sends a data frame through the gate: nothing while the stream is frozen; after `latencyMs` when
   * delayed (frames keep their order, also when the delay changes).
   */
  data(buf: Buffer, gate: Gate): void {
    if (!this.isOpen) return;
    if (gate.frozen) {
      this.env.counters.framesFrozen++;
      return;
    }
    if (gate.latencyMs > 0 || this.queue.length > 0) {
      const last = this.queue[this.queue.length - 1];
      const due = Math.max(Date.now() + gate.latencyMs, last?.due ?? 0);
      this.queue.push({ data: buf, due });
      this.queueBytes += buf.length;
      if (this.queueBytes + (this.corked ? 0 : this.ws.bufferedAmount) > this.env.maxBufferedBytes) return this.slow();
      this.armQueue();
      return;
    }
    this.write(buf);
  }

  /** A control frame (PONG, error): sent at once, whatever the faults. */
  control(text: string): void {
    if (!this.isOpen) return;
    this.ws.send(text);
  }

  /** Sends the error frame `{"event_type":"error","error":{code,message}}`. */
  error(code: string, message: string): void {
    this.env.counters.badFrames++;
    this.control(errorFrame(code, message));
  }

  /**
   * Renders the snapshots a request asks for, within the message budget: the first snapshot of a
   * key on this connection is free; repeated ones go out (and are charged) while the reply budget
   * is not empty, else they are withheld and the request gets one RATE_LIMITED error frame.
   * Withheld snapshots are not rendered. Returns the JSON texts to send, in order.
   */
  snapshots(items: readonly SnapshotItem[]): string[] {
    let repeated = 0;
    for (const it of items) if (this.snapshotted.has(it.key)) repeated++;
    let allowRepeated = true;
    if (repeated > 0) {
      const r = this.budget.reply(Date.now());
      if (r !== undefined) {
        allowRepeated = false;
        this.refused(
          r,
          `snapshot budget exceeded: ${repeated} repeated snapshot(s) withheld (the subscription stands)`,
        );
        if (!this.isOpen) return [];
      }
    }
    const out: string[] = [];
    let charged = 0;
    for (const it of items) {
      const seen = this.snapshotted.has(it.key);
      if (seen && !allowRepeated) continue;
      const text = it.render();
      out.push(text);
      if (seen) charged += Buffer.byteLength(text, 'utf8');
      else this.snapshotted.add(it.key);
    }
    if (charged > 0) this.budget.charge(charged, Date.now());
    return out;
  }

  /**
   * Acts on a budget refusal: the RATE_LIMITED error frame, a security log line on the first
   * refusal after a calm spell, and close 1008 once the strikes reach the maximum.
   */
  refused(r: Refusal, message: string): void {
    this.env.counters.budgetRefusals++;
    const retry = Number.isFinite(r.retryInMs) ? `; retry in ${r.retryInMs} ms` : '';
    if (r.first || r.close)
      this.env.security?.record({
        kind: 'ws_refused',
        route: this.origin.route,
        ip: this.origin.ip,
        reason: r.close ? 'message budget: closed after repeated refusals' : 'message budget exceeded',
        detail: message,
      });
    this.error('RATE_LIMITED', `${message}${retry}`);
    if (r.close) {
      this.env.counters.budgetClosed++;
      this.close(1008, 'message budget exceeded');
    }
  }

  /** Closes with a status code (1008 policy, 1003 unsupported data, ...) after pending writes. */
  close(code: number, reason: string): void {
    if (this.gone) return;
    this.gone = true;
    this.clearTimers();
    this.ws.close(code, reason.slice(0, 120));
  }

  /** Cuts the connection at once, as a network failure would. */
  terminate(): void {
    this.gone = true;
    this.clearTimers();
    this.ws.terminate();
  }

  /** Applies the stream's drop faults: terminate now, or schedule it (rescheduled on every change). */
  applyDrop(): void {
    if (this.gone || this.stream === undefined) return;
    if (this.dropTimer !== undefined) {
      this.env.clock.clearTimeout(this.dropTimer);
      this.dropTimer = undefined;
    }
    const d = this.env.faults.dropDecision(this.stream, this.openedAt);
    if (d.now) {
      this.env.counters.dropped++;
      this.terminate();
    } else if (d.inMs !== undefined) {
      this.dropTimer = this.env.clock.setTimeout(() => {
        this.dropTimer = undefined;
        this.applyDrop();
      }, d.inMs);
    }
  }

  private write(buf: Buffer): void {
    // Cork the socket until the current tick ends: the frames of every exchange batch fanned out in
    // this tick leave in one writev instead of one syscall each (the dominant cost of fan-out). The
    // slow-reader cap is checked once uncorked, on what the kernel did not take.
    if (!this.corked) {
      const sock = (this.ws as unknown as { _socket?: Socket })._socket;
      if (sock !== undefined && typeof sock.cork === 'function') {
        sock.cork();
        this.corked = true;
        process.nextTick(() => {
          this.corked = false;
          if (sock.destroyed) return;
          sock.uncork();
          if (!this.gone && this.ws.bufferedAmount > this.env.maxBufferedBytes) this.slow();
        });
      }
    }
    this.ws.send(buf, { binary: false });
    this.env.counters.framesSent++;
    if (!this.corked && this.ws.bufferedAmount > this.env.maxBufferedBytes) this.slow();
  }

  private slow(): void {
    this.env.counters.slowTerminated++;
    this.terminate();
  }

  private armQueue(): void {
    if (this.queueTimer !== undefined) return;
    const head = this.queue[0];
    if (head === undefined) return;
    this.queueTimer = setTimeout(
      () => {
        this.queueTimer = undefined;
        const now = Date.now();
        while (this.queue.length > 0 && this.queue[0]!.due <= now && this.isOpen) {
          const item = this.queue.shift()!;
          this.queueBytes -= item.data.length;
          this.write(item.data);
        }
        if (this.isOpen) this.armQueue();
      },
      Math.max(0, head.due - Date.now()),
    );
  }

  private clearTimers(): void {
    if (this.queueTimer !== undefined) clearTimeout(this.queueTimer);
    this.queueTimer = undefined;
    this.queue = [];
    this.queueBytes = 0;
    if (this.dropTimer !== undefined) this.env.clock.clearTimeout(this.dropTimer);
    this.dropTimer = undefined;
  }

  private cleanup(): void {
    this.gone = true;
    this.clearTimers();
    const f = this.onGone;
    this.onGone = undefined;
    f?.();
  }
}
