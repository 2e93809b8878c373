/**
 * How the engine's strategy calls are counted and, when asked (`EngineOptions.measureStrategy`:
 * `mmkit strategy check`), timed: a histogram of handler times for the p99 at O(1) per call.
 */

/** The strategy's handler times and what it asked the gate for (`EngineOptions.measureStrategy`). */
export interface StrategyTiming {
  /** Quotes (one per quote of each quote set gated) and immediate orders handed to the risk gate. */
  readonly asked: number;
  /** `onEvent` calls timed. */
  readonly calls: number;
  /** The slowest call, ms (wall time). */
  readonly slowestMs: number;
  /** The 99th percentile of the calls' times, ms (its histogram bucket's upper bound, at most the slowest). */
  readonly p99Ms: number;
}

/** How often the engine called the strategy (`Engine.strategyCalls`). */
export interface StrategyCalls {
  /** Calls of the strategy's `onEvent` (each event it evaluated), erring or not. */
  readonly evaluations: number;
  /** Of those, the ones that threw or returned an invalid output (EngineStats.errors.strategy). */
  readonly failed: number;
  /** Present when measured (EngineOptions.measureStrategy). */
  readonly measured?: StrategyTiming;
}

/**
 * A histogram of handler times for a percentile at O(1) per call: 10 us buckets to 1 ms, 100 us
 * buckets to 10 ms, 1 ms to 100 ms, 10 ms to 1.2 s, slower calls in the last one (the slowest is
 * kept exact apart): a bucket is within 10 % of its times from 0.1 ms on. The p99 is the upper bound
 * of its bucket; the slowest when it falls in the last (unbounded) one or there are 100 calls or fewer.
 */
export class CallTimes {
  readonly #counts = new Uint32Array(400);
  calls = 0;
  slowestMs = 0;
  asked = 0;

  add(ms: number): void {
    this.calls++;
    if (ms > this.slowestMs) this.slowestMs = ms;
    this.#counts[CallTimes.#bucket(ms)]!++;
  }

  static #bucket(ms: number): number {
    if (ms < 1) return Math.floor(ms * 100);
    if (ms < 10) return 100 + Math.floor((ms - 1) * 10);
    if (ms < 100) return 190 + Math.floor(ms - 10);
    return Math.min(399, 280 + Math.floor((ms - 100) / 10));
  }

  static #upper(i: number): number {
    if (i < 100) return (i + 1) / 100;
    if (i < 190) return 1 + (i - 99) / 10;
    if (i < 280) return 10 + (i - 189);
    return 100 + (i - 279) * 10;
  }

  timing(): StrategyTiming {
    const rank = Math.ceil(this.calls * 0.99);
    let seen = 0;
    let p99 = 0;
    for (let i = 0; i < this.#counts.length && rank > 0; i++) {
      seen += this.#counts[i]!;
      if (seen >= rank) {
        p99 = CallTimes.#upper(i);
        break;
      }
    }
    // 100 calls or fewer: the p99 is the slowest (ceil(0.99 n) = n); in the last bucket (1.2 s or
    // more, unbounded), only the slowest bounds it (trial 10 F23: 1300 ms said of a 15 s call)
    // (to the µs: a performance.now() difference carries float noise, 0.7790119999999661; trial 23 F9)
    const slowest = Math.round(this.slowestMs * 1000) / 1000;
    if (rank >= this.calls || p99 > CallTimes.#upper(398)) p99 = slowest;
    return { asked: this.asked, calls: this.calls, slowestMs: slowest, p99Ms: Math.min(p99, slowest) };
  }
}
