/**
 * Is the fleet's Redis reachable? (issue 21, fail closed; research §3.5.) A member PINGs every
 * `pingMs` (250) and counts Redis up while its last successful reply is younger than `staleMs`
 * (750) and the connection is `ready`; a closed connection counts as down at once. With the
 * fail-fast client (./redis.ts: 500 ms command timeout, no offline queue) every member sees a dead
 * or hung Redis as down within about staleMs + 50 ms (under 1 s), and sees it up again within `pingMs` of its return.
 *
 * What "down" means is the caller's (./fail-closed.ts: pull the quotes; ./heartbeat-lease.ts: the
 * holder keeps heartbeating; nobody claims anything). Time and timers come from the injected Clock.
 */
import type { Redis } from 'ioredis';
import type { Clock, TimerHandle } from '../core/clock.ts';

/** How often staleness is checked, ms. */
const CHECK_MS = 50;

export interface RedisHealthOptions {
  readonly redis: Redis;
  readonly clock: Clock;
  /** PING period, ms (default 250). */
  readonly pingMs?: number;
  /** Down when the last good reply is older than this, ms (default 750). */
  readonly staleMs?: number;
}

/** The state a member reads. */
export interface RedisHealthState {
  readonly up: boolean;
  /** Clock time of the last successful PING (0: none yet). */
  readonly lastOkAt: number;
  /** Clock time of the last change between up and down (0: none yet). */
  readonly since: number;
}

/** Watches one connection (see the module comment). `start()` once, `stop()` at shutdown. */
export class RedisHealth {
  readonly #redis: Redis;
  readonly #clock: Clock;
  readonly #pingMs: number;
  readonly #staleMs: number;
  readonly #listeners = new Set<(up: boolean) => void>();
  #timer: TimerHandle | undefined;
  #check: TimerHandle | undefined;
  #inflight = false;
  #lastOkAt = 0;
  #up = false;
  #since = 0;
  readonly #onClose = () => this.#evaluate(true);

  /** @throws RangeError on a non-positive period, or staleMs not above pingMs */
  constructor(o: RedisHealthOptions) {
    this.#redis = o.redis;
    this.#clock = o.clock;
    this.#pingMs = o.pingMs ?? 250;
    this.#staleMs = o.staleMs ?? 750;
    if (!(this.#pingMs > 0) || !(this.#staleMs > this.#pingMs))
      throw new RangeError('redis health: pingMs must be positive and staleMs above it');
  }

  /** Starts pinging; resolves after the first PING answered or failed. Idempotent. */
  async start(): Promise<void> {
    if (this.#timer !== undefined) return;
    this.#redis.on('close', this.#onClose);
    this.#timer = this.#clock.setInterval(() => this.#tick(), this.#pingMs);
    // staleness is checked more often than PINGs go out, so "down" is seen ~staleMs after the last reply
    this.#check = this.#clock.setInterval(() => this.#evaluate(false), CHECK_MS);
    await this.#ping();
  }

  stop(): void {
    if (this.#timer !== undefined) this.#clock.clearInterval(this.#timer);
    if (this.#check !== undefined) this.#clock.clearInterval(this.#check);
    this.#timer = undefined;
    this.#check = undefined;
    this.#redis.off('close', this.#onClose);
  }

  isUp(): boolean {
    return this.#up;
  }

  state(): RedisHealthState {
    return { up: this.#up, lastOkAt: this.#lastOkAt, since: this.#since };
  }

  /** Called with the new state on every change (a throwing listener is ignored); returns the unsubscribe. */
  onChange(fn: (up: boolean) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  #tick(): void {
    if (!this.#inflight) void this.#ping();
  }

  async #ping(): Promise<void> {
    this.#inflight = true;
    try {
      await this.#redis.ping();
      this.#lastOkAt = this.#clock.now();
    } catch {
      /* counted by staleness */
    } finally {
      this.#inflight = false;
    }
    this.#evaluate(false);
  }

  #evaluate(closed: boolean): void {
    const now = this.#clock.now();
    const up = !closed && this.#redis.status === 'ready' && this.#lastOkAt > 0 && now - this.#lastOkAt < this.#staleMs;
    if (up === this.#up) return;
    this.#up = up;
    this.#since = now;
    for (const fn of this.#listeners) {
      try {
        fn(up);
      } catch {
        /* a listener must not stop the watch */
      }
    }
  }
}
