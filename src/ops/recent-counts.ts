/**
 * Counts by key over a sliding window ("refused in the last 5 minutes: OFF_TICK x30"), for the status
 * (src/ops/status.ts). Fed with running totals (the kernel's counters since the start), sampled
 * about once a second: what grew since the last sample goes into the bucket of the sample's time.
 * A ring of fixed buckets (10 s each by default): O(keys) per sample, nothing per counted event, and
 * the window is exact to a bucket (the last 5 minutes are 290 to 300 s). Time is an input: no clock.
 */
import { sortedCounts } from '../core/code-counts.ts';

/** Options of `new RecentCounts`. */
export interface RecentCountsOptions {
  /** The window, ms (default 300,000: 5 minutes). */
  readonly windowMs?: number;
  /** A bucket's span, ms (default 10,000); the window is a whole number of them. */
  readonly bucketMs?: number;
}

/** See the module comment. */
export class RecentCounts {
  readonly windowMs: number;
  readonly #bucketMs: number;
  readonly #ring: Array<{ slot: number; counts: Map<string, number> }>;
  readonly #last = new Map<string, number>();

  constructor(o: RecentCountsOptions = {}) {
    this.#bucketMs = Math.max(1, Math.round(o.bucketMs ?? 10_000));
    const n = Math.max(1, Math.ceil((o.windowMs ?? 300_000) / this.#bucketMs));
    this.windowMs = n * this.#bucketMs;
    this.#ring = Array.from({ length: n }, () => ({ slot: -1, counts: new Map<string, number>() }));
  }

  /** The running totals now: what grew since the last call is counted at `now` (unix ms). */
  observe(totals: ReadonlyMap<string, number>, now: number): void {
    for (const [key, total] of totals) {
      const grew = total - (this.#last.get(key) ?? 0);
      this.#last.set(key, total);
      if (grew > 0) this.#add(key, grew, now);
    }
  }

  #add(key: string, n: number, now: number): void {
    const slot = Math.floor(now / this.#bucketMs);
    const b = this.#ring[slot % this.#ring.length]!;
    if (b.slot !== slot) {
      b.slot = slot;
      b.counts.clear();
    }
    b.counts.set(key, (b.counts.get(key) ?? 0) + n);
  }

  /** The counts of the window ending at `now`, by key (keys with none left out), largest first. */
  counts(now: number): Record<string, number> {
    const slot = Math.floor(now / this.#bucketMs);
    const sum = new Map<string, number>();
    for (const b of this.#ring)
      if (b.slot <= slot && b.slot > slot - this.#ring.length)
        for (const [k, v] of b.counts) sum.set(k, (sum.get(k) ?? 0) + v);
    return byCount(sum);
  }
}

/** A map of counts as a record, largest first (ties by key), zeros left out (../core/code-counts.ts). */
export function byCount(m: ReadonlyMap<string, number>): Record<string, number> {
  return sortedCounts(m);
}
