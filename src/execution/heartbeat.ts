/**
 * The dead-man switch keeper. The venue cancels all of the account's orders when no heartbeat
 * arrives for ~10 s (once heartbeats started); this keeps it fed every 5 s while orders rest, so
 * a frozen or dead daemon leaves nothing on the book, and a live one is not flattened.
 *
 * Fail closed: a failed heartbeat (false, or an error) pauses new orders at once (the executor's
 * pause reason 'heartbeat'), and only a successful heartbeat lifts it. While failing, it retries
 * every `retryMs` (default 1 s) whether or not orders rest, since the pause can only be lifted by a
 * success. Time and timers come from the injected Clock.
 *
 * Each attempt is bounded (`timeoutMs`, default 3 s, well inside the venue's ~10 s window): a beat
 * with no answer by then is aborted (its signal) and counts as a failure like a refusal. Before, a
 * hung venue held one beat for its HTTP retries (timeouts of 10 s each, 40 s and more), so nothing
 * was counted as failed and `maxHeartbeatFailures` could not trip (findings-6). The failure's
 * `error` is the venue's own (e.g. `401 UNAUTHORIZED: POLY_TIMESTAMP is 401 s away ...`), for the
 * WARN line and the kill switch's reason.
 */
import type { Clock, TimerHandle } from '../core/clock.ts';
import { isRetryable } from '../core/errors.ts';

/** What the keeper pauses and resumes (the Executor implements it). */
export interface PauseTarget {
  pause(reason: string): void;
  resume(reason: string): void;
}

/** Heartbeat status for logs and metrics. */
export interface HeartbeatStatus {
  /** True while the last heartbeat succeeded (false before the first one was sent). */
  readonly ok: boolean;
  /** Unix ms of the last success (0: none yet). */
  readonly lastOkAt: number;
  /** Unix ms of the last attempt (0: none yet). */
  readonly lastAttemptAt: number;
  /** Round trip of the last attempt, ms. */
  readonly lastLatencyMs: number;
  /** Failures since the last success. */
  readonly consecutiveFailures: number;
  readonly sent: number;
  readonly failed: number;
  /** The last failure's message, when the last attempt failed. */
  readonly error?: string;
  /**
   * True when the last attempt failed for the venue's availability: no answer within the bound, or
   * an error worth retrying (network, 5xx, 425/503, 429); not a refusal (a 4xx such as a 401).
   */
  readonly unavailable?: boolean;
}

/** Options of the keeper. */
export interface HeartbeatOptions {
  /**
   * Posts one heartbeat; false (or a throw, whose message is kept as `error`) means it failed. The
   * signal aborts when the attempt's `timeoutMs` passed. Usually `(signal) => venue.heartbeat(signal)`.
   */
  readonly beat: (signal: AbortSignal) => Promise<boolean>;
  readonly clock: Clock;
  /** True while orders rest or may rest (usually `() => executor.hasOpenOrders()`). */
  readonly active: () => boolean;
  /** Paused on failure, resumed on success (the Executor). */
  readonly target?: PauseTarget;
  /** Beat period while active, ms (default 5000). */
  readonly intervalMs?: number;
  /** Retry period after a failure, ms (default 1000). */
  readonly retryMs?: number;
  /** One attempt's bound, ms (default 3000): no answer by then and it failed (and its signal aborts). */
  readonly timeoutMs?: number;
  /** The pause reason used (default 'heartbeat'). */
  readonly reason?: string;
}

/**
 * Keeps the venue's dead-man switch fed while orders rest; pauses placing on failure (fail closed).
 * Lifecycle: `start()` once, `stop()` (idempotent) at shutdown AFTER orders were cancelled.
 */
export class HeartbeatKeeper {
  readonly #o: Required<Omit<HeartbeatOptions, 'target'>> & { target: PauseTarget | undefined };
  readonly #listeners = new Set<(s: HeartbeatStatus) => void>();
  #timer: TimerHandle | undefined;
  #inflight: Promise<void> | undefined;
  #running = false;
  #status: HeartbeatStatus = {
    ok: false,
    lastOkAt: 0,
    lastAttemptAt: 0,
    lastLatencyMs: 0,
    consecutiveFailures: 0,
    sent: 0,
    failed: 0,
  };
  #paused = false;

  /** @throws RangeError on a non-positive interval or timeout. */
  constructor(opts: HeartbeatOptions) {
    const intervalMs = opts.intervalMs ?? 5000;
    const retryMs = opts.retryMs ?? 1000;
    const timeoutMs = opts.timeoutMs ?? 3000;
    if (!(intervalMs > 0) || !(retryMs > 0) || !(timeoutMs > 0))
      throw new RangeError('heartbeat intervalMs, retryMs and timeoutMs must be positive');
    this.#o = {
      beat: opts.beat,
      clock: opts.clock,
      active: opts.active,
      target: opts.target,
      intervalMs,
      retryMs,
      timeoutMs,
      reason: opts.reason ?? 'heartbeat',
    };
  }

  /** Subscribe to every attempt's status; returns the unsubscribe function. */
  onStatus(fn: (s: HeartbeatStatus) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /** The current status. */
  status(): HeartbeatStatus {
    return this.#status;
  }

  /** Start: a beat now when active, then every interval. Idempotent. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#tick();
  }

  /**
   * Beat now if active (or failing) and no beat is in flight; resolves when that beat finished.
   * The engine may call it right after the first orders of a quiet period were placed.
   */
  async beatNow(): Promise<void> {
    if (this.#inflight !== undefined) return this.#inflight;
    if (!this.#o.active() && this.#status.consecutiveFailures === 0) return;
    const p = this.#attempt().finally(() => {
      this.#inflight = undefined;
    });
    this.#inflight = p;
    return p;
  }

  /** Stop beating (after the orders were cancelled: the venue's switch then has nothing to do). Idempotent. */
  async stop(): Promise<void> {
    this.#running = false;
    if (this.#timer !== undefined) this.#o.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#inflight !== undefined) await this.#inflight;
  }

  #tick(): void {
    this.#timer = undefined;
    if (!this.#running) return;
    if (!this.#o.active() && this.#status.consecutiveFailures === 0) {
      this.#schedule();
      return;
    }
    // the next beat is timed from this one's answer, so beats never overlap
    void this.beatNow().finally(() => this.#schedule());
  }

  #schedule(): void {
    if (!this.#running || this.#timer !== undefined) return;
    const ms = this.#status.consecutiveFailures > 0 ? this.#o.retryMs : this.#o.intervalMs;
    this.#timer = this.#o.clock.setTimeout(() => this.#tick(), ms);
  }

  async #attempt(): Promise<void> {
    const t0 = this.#o.clock.now();
    let ok = false;
    let error: string | undefined;
    let unavailable = false;
    const ac = new AbortController();
    const ms = this.#o.timeoutMs;
    let timer: TimerHandle | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = this.#o.clock.setTimeout(() => {
        const e = new Error(`heartbeat: no answer within ${ms} ms`);
        unavailable = true;
        ac.abort(e);
        reject(e);
      }, ms);
    });
    try {
      // a beat that ignores its signal still ends the attempt at the bound (its late answer is dropped)
      ok = await Promise.race([this.#o.beat(ac.signal), timedOut]);
      if (!ok) error = 'heartbeat refused';
    } catch (e) {
      error = e instanceof Error ? e.message : String(e);
      unavailable ||= isRetryable(e);
    } finally {
      if (timer !== undefined) this.#o.clock.clearTimeout(timer);
    }
    const now = this.#o.clock.now();
    const s = this.#status;
    this.#status = {
      ok,
      lastOkAt: ok ? now : s.lastOkAt,
      lastAttemptAt: now,
      lastLatencyMs: now - t0,
      consecutiveFailures: ok ? 0 : s.consecutiveFailures + 1,
      sent: s.sent + 1,
      failed: s.failed + (ok ? 0 : 1),
      ...(error !== undefined ? { error } : {}),
      ...(!ok && unavailable ? { unavailable: true } : {}),
    };
    if (!ok && !this.#paused) {
      this.#paused = true;
      this.#o.target?.pause(this.#o.reason);
    } else if (ok && this.#paused) {
      this.#paused = false;
      this.#o.target?.resume(this.#o.reason);
    }
    for (const fn of this.#listeners) {
      try {
        fn(this.#status);
      } catch {
        /* a listener must not stop the heartbeat */
      }
    }
  }
}
