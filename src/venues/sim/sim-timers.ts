/**
 * The simulated venue's latencies on the injected clock: requests that reach the matching point
 * after an entry or cancel latency and answer after a response latency (RequestTimers), and the
 * market events held back when the bot sees them at venue time + a fixed feed latency (DelayedFeed).
 * Both report their next due time, so a replay can advance to it.
 */
import type { Clock, TimerHandle } from '../../core/clock.ts';
import type { MarketEvent } from '../../core/events.ts';
import type { LatencySampler } from './latency.ts';
import type { Mutable } from './sim-state.ts';

/** The pending request timers of a venue (due times by handle id) and the aborts that answer them on close. */
export class RequestTimers {
  readonly #timers = new Map<number, number>();
  readonly #aborts = new Set<() => void>();
  #closed = false;
  constructor(
    private readonly clock: Clock,
    private readonly response: LatencySampler,
  ) {}

  /**
   * One request on the wire: `atVenue` runs at now + `latency` (the matching point), its result
   * comes back after a response latency; `onClose` answers if the venue closes meanwhile.
   */
  request<T>(latency: number, atVenue: () => T, onClose: () => T): Promise<T> {
    return new Promise<T>((resolve) => {
      let done = false;
      const abort = () => {
        if (done) return;
        done = true;
        resolve(onClose());
      };
      this.#aborts.add(abort);
      this.later(latency, () => {
        const result = atVenue();
        this.later(this.response(), () => {
          this.#aborts.delete(abort);
          if (done) return;
          done = true;
          resolve(result);
        });
      });
    });
  }

  /** Runs `fn` in `ms` of clock time, unless closed by then. */
  later(ms: number, fn: () => void): void {
    const at = this.clock.now() + ms;
    const h = this.clock.setTimeout(() => {
      this.#timers.delete(h.id);
      if (!this.#closed) fn();
    }, ms);
    this.#timers.set(h.id, at);
  }

  /** The earliest due time of a pending timer, or undefined. */
  nextAt(): number | undefined {
    let best: number | undefined;
    for (const at of this.#timers.values()) if (best === undefined || at < best) best = at;
    return best;
  }

  /** Clears the pending timers (their requests are then answered by `abortAll`). */
  close(): void {
    this.#closed = true;
    for (const id of this.#timers.keys()) this.clock.clearTimeout({ id });
    this.#timers.clear();
  }

  /** Answers every request in flight with its `onClose`. */
  abortAll(): void {
    const aborts = [...this.#aborts];
    this.#aborts.clear();
    for (const a of aborts) a();
  }
}

/**
 * feedMs = N: the bot sees a recorded event at venueTime + N (never before its receive time), in
 * feed order; statuses and stream errors at once. Held events are delivered from one clock timer.
 */
export class DelayedFeed {
  readonly #delayed: MarketEvent[] = [];
  #head = 0;
  #lastDue = -Infinity;
  #timer: { handle: TimerHandle; at: number } | undefined;
  constructor(
    private readonly clock: Clock,
    private readonly feedMs: number,
    private readonly deliver: (e: MarketEvent) => void,
  ) {}

  /** Delivers `e` now if it is due and nothing is held, else holds it (its recvTime set to when it is seen). */
  push(e: MarketEvent): void {
    const now = this.clock.now();
    let due =
      e.type === 'disconnected' || e.type === 'resynced' || e.type === 'stream_error'
        ? now
        : Math.max(now, e.venueTime + this.feedMs);
    if (due < this.#lastDue) due = this.#lastDue;
    this.#lastDue = due;
    if (due <= now && this.#head === this.#delayed.length) {
      this.deliver(e);
      return;
    }
    (e as Mutable<MarketEvent>).recvTime = due;
    this.#delayed.push(e);
    this.#arm();
  }

  /** When the next held event is due, or undefined. */
  nextAt(): number | undefined {
    return this.#timer?.at;
  }

  /** Clears the timer (held events are never delivered). */
  close(): void {
    if (this.#timer !== undefined) this.clock.clearTimeout(this.#timer.handle);
    this.#timer = undefined;
  }

  #arm(): void {
    if (this.#timer !== undefined || this.#head === this.#delayed.length) return;
    const at = this.#delayed[this.#head]!.recvTime;
    const handle = this.clock.setTimeout(() => {
      this.#timer = undefined;
      const now = this.clock.now();
      const q = this.#delayed;
      while (this.#head < q.length && q[this.#head]!.recvTime <= now) this.deliver(q[this.#head++]!);
      if (this.#head === q.length) {
        q.length = 0;
        this.#head = 0;
      } else if (this.#head > 4096) {
        q.splice(0, this.#head);
        this.#head = 0;
      }
      this.#arm();
    }, at - this.clock.now());
    this.#timer = { handle, at };
  }
}
