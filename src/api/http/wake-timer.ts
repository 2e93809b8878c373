/**
 * One timer that fires at the earliest time asked for: a budget's waiters are woken when the next
 * slot of its windows frees. Arming a later time than the one pending keeps the earlier one;
 * arming an earlier one replaces it. Shared by the account budgets (budgets.ts) and the per-signer
 * buckets (signer-budget.ts).
 */
import type { Clock, TimerHandle } from '../../core/clock.ts';

export class WakeTimer {
  #timer: TimerHandle | undefined;
  #at = Infinity;
  constructor(
    private readonly clock: Clock,
    private readonly wake: () => void,
  ) {}

  /** Wake at `at` (unix ms) unless an earlier wake is pending; Infinity clears it. */
  arm(at: number): void {
    if (at === Infinity) return this.clear();
    if (this.#timer !== undefined && this.#at <= at) return;
    this.clear();
    this.#at = at;
    this.#timer = this.clock.setTimeout(
      () => {
        this.#timer = undefined;
        this.#at = Infinity;
        this.wake();
      },
      Math.max(0, at - this.clock.now()),
    );
  }

  clear(): void {
    if (this.#timer !== undefined) this.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#at = Infinity;
  }
}
