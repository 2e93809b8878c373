/**
 * Which finished orders the simulated venue drops at a sweep (SimVenueOptions.retainMs): those a
 * sweep first saw finished at least `retainMs` before this one, as a scan of every order kept would
 * find them, without the scan. Each order is handed over once, when it finishes; a sweep stamps
 * the ones finished since the last sweep with its own time (the time the scan would have first
 * seen them finished) and drops the batches stamped long enough ago, oldest first.
 */

/** The orders finished since the last sweep, and those stamped at earlier sweeps, oldest first. */
export class FinishedOrders<O> {
  readonly #retainMs: number;
  #fresh: O[] = [];
  readonly #stamped: { at: number; orders: O[] }[] = [];

  /** `retainMs`: Infinity keeps every order (nothing is recorded). */
  constructor(retainMs: number) {
    this.#retainMs = retainMs;
  }

  /** An order has just finished (it never rests again): hand it over once. */
  finished(o: O): void {
    if (this.#retainMs !== Infinity) this.#fresh.push(o);
  }

  /**
   * The sweep at `now`: `drop` is called for each order a sweep first saw finished at or before
   * `now - retainMs`; the orders finished since the last sweep are stamped `now`.
   */
  sweep(now: number, drop: (o: O) => void): void {
    if (this.#retainMs === Infinity) return;
    const before = now - this.#retainMs;
    const s = this.#stamped;
    // a handful of batches (retainMs over the sweep interval): shift is cheap
    while (s.length > 0 && s[0]!.at <= before) for (const o of s.shift()!.orders) drop(o);
    if (this.#fresh.length > 0) {
      s.push({ at: now, orders: this.#fresh });
      this.#fresh = [];
    }
  }
}
