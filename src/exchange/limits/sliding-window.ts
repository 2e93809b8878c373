/**
 * Exact sliding-window log rate limiter (spec section 8: "windows slide").
 *
 * Per key it keeps the timestamps (unix ms) of the requests admitted in the last `windowMs`, in a
 * ring buffer (Float64Array). A request at `now` is admitted when fewer than `limit` requests were
 * admitted in the half-open window (now - windowMs, now]: a slot frees exactly `windowMs` after the
 * request that took it. The buffer starts small and grows by doubling up to `limit`, so a
 * 36,000 / 10 min window costs memory only for keys that actually use it. Each call is O(1)
 * amortized (every timestamp is pushed once and evicted once; `cost` > 1 costs O(cost)).
 *
 * Pure: no wall clock; every call takes `now`. Timestamps must be non-decreasing per key; an
 * earlier `now` (clock skew) is recorded as the latest timestamp already held, keeping order.
 */
import { ValidationError } from '../../core/errors.ts';

/** Result of a successful acquisition: `remaining` slots left after it. */
export interface AcquireOk {
  ok: true;
  remaining: number;
}
/** Result of a refused acquisition; nothing was consumed. */
export interface AcquireRefused {
  ok: false;
  /** Unix ms at which enough slots will be free for the same cost (Infinity when cost > limit). */
  retryAt: number;
  remaining: 0;
}
export type AcquireResult = AcquireOk | AcquireRefused;

/** State of one key, without consuming. */
export interface PeekResult {
  /** Slots free at `now`. */
  remaining: number;
  /** Requests counted in the window at `now`. */
  used: number;
  /** Unix ms at which `cost` slots are free (`now` if already; Infinity when cost > limit). */
  retryAt: number;
  /** Unix ms at which the oldest counted request leaves the window (`now` when none is counted). */
  resetAt: number;
}

const INITIAL_CAPACITY = 16;

class Ring {
  buf: Float64Array;
  head = 0; // index of the oldest entry
  size = 0;
  constructor(capacity: number) {
    this.buf = new Float64Array(capacity);
  }
  /** The i-th oldest entry (0 = oldest); i < size. */
  at(i: number): number {
    return this.buf[(this.head + i) % this.buf.length]!;
  }
  newest(): number {
    return this.at(this.size - 1);
  }
  /** Drop entries with ts + windowMs <= now. */
  evict(now: number, windowMs: number): void {
    const cap = this.buf.length;
    while (this.size > 0 && this.buf[this.head]! + windowMs <= now) {
      this.head = this.head + 1 === cap ? 0 : this.head + 1;
      this.size--;
    }
    if (this.size === 0) this.head = 0;
  }
  grow(need: number, max: number): void {
    const cap = this.buf.length;
    if (need <= cap) return;
    let next = cap * 2;
    while (next < need) next *= 2;
    next = Math.min(next, max);
    const nb = new Float64Array(next);
    for (let i = 0; i < this.size; i++) nb[i] = this.at(i);
    this.buf = nb;
    this.head = 0;
  }
  push(ts: number, count: number): void {
    const cap = this.buf.length;
    let idx = (this.head + this.size) % cap;
    for (let k = 0; k < count; k++) {
      this.buf[idx] = ts;
      idx = idx + 1 === cap ? 0 : idx + 1;
    }
    this.size += count;
  }
}

/** Options of a SlidingWindowLimiter. */
export interface SlidingWindowOptions {
  /** Requests admitted per window; a positive integer. */
  limit: number;
  /** Window length in ms; positive. */
  windowMs: number;
}

/** Exact sliding-window log limiter keyed by an arbitrary string (identity, IP, API key). */
export class SlidingWindowLimiter {
  readonly limit: number;
  readonly windowMs: number;
  readonly #keys = new Map<string, Ring>();

  /** @throws ValidationError when limit is not a positive integer or windowMs not positive. */
  constructor({ limit, windowMs }: SlidingWindowOptions) {
    if (!Number.isSafeInteger(limit) || limit < 1)
      throw new ValidationError(`limit: not a positive integer: ${String(limit)}`);
    if (!(windowMs > 0) || !Number.isFinite(windowMs))
      throw new ValidationError(`windowMs: not a positive number: ${String(windowMs)}`);
    this.limit = limit;
    this.windowMs = windowMs;
  }

  /** Number of keys holding state (until `sweep` drops idle ones). */
  get keyCount(): number {
    return this.#keys.size;
  }

  /**
   * Admit `cost` requests for `key` at `now` if they fit, all or nothing.
   * @throws ValidationError when cost is not a positive integer.
   */
  tryAcquire(key: string, now: number, cost = 1): AcquireResult {
    if (!Number.isSafeInteger(cost) || cost < 1)
      throw new ValidationError(`cost: not a positive integer: ${String(cost)}`);
    let ring = this.#keys.get(key);
    if (ring !== undefined) ring.evict(now, this.windowMs);
    const used = ring?.size ?? 0;
    if (used + cost > this.limit) {
      return { ok: false, retryAt: ring === undefined ? Infinity : this.#retryAt(ring, now, cost), remaining: 0 };
    }
    if (ring === undefined) {
      ring = new Ring(Math.min(this.limit, Math.max(INITIAL_CAPACITY, cost)));
      this.#keys.set(key, ring);
    }
    ring.grow(used + cost, this.limit);
    const ts = ring.size > 0 ? Math.max(now, ring.newest()) : now;
    ring.push(ts, cost);
    return { ok: true, remaining: this.limit - ring.size };
  }

  /** The state of `key` at `now` for a request of `cost`, consuming nothing. */
  peek(key: string, now: number, cost = 1): PeekResult {
    const ring = this.#keys.get(key);
    if (ring === undefined || (ring.evict(now, this.windowMs), ring.size === 0)) {
      return { remaining: this.limit, used: 0, retryAt: cost > this.limit ? Infinity : now, resetAt: now };
    }
    const used = ring.size;
    return {
      remaining: this.limit - used,
      used,
      retryAt: used + cost <= this.limit ? now : this.#retryAt(ring, now, cost),
      resetAt: ring.at(0) + this.windowMs,
    };
  }

  /** Whether `key` holds state (until `sweep` drops it when idle). */
  has(key: string): boolean {
    return this.#keys.has(key);
  }

  /** Forget all of `key`'s history. */
  reset(key: string): void {
    this.#keys.delete(key);
  }

  /** Drop keys with nothing left in their window at `now`. Returns how many were dropped. */
  sweep(now: number): number {
    let dropped = 0;
    for (const [key, ring] of this.#keys) {
      if (ring.size === 0 || ring.newest() + this.windowMs <= now) {
        this.#keys.delete(key);
        dropped++;
      }
    }
    return dropped;
  }

  /** When `cost` slots will be free: the (used + cost - limit)-th oldest entry leaves the window. */
  #retryAt(ring: Ring, now: number, cost: number): number {
    if (cost > this.limit) return Infinity;
    const mustLeave = ring.size + cost - this.limit;
    if (mustLeave <= 0) return now;
    return ring.at(mustLeave - 1) + this.windowMs;
  }
}
