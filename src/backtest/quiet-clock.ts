/**
 * A view of the backtest's VirtualClock for what runs BESIDE the bot: the synthetic world (its
 * exchange's housekeeping, agents, lifecycle, price feed) and the runner's own measurements
 * (samples, markouts). The same time and the same timers (created on the virtual clock, so they
 * fire in the same order as if created on it directly), but the callbacks that fire are counted
 * apart, in `fired`.
 *
 * Why: the runner lets the bot's promises settle (setImmediate turns) after a step only when
 * something of the bot's may be pending, and a timer that fired is one such sign (it may have
 * resolved a latency or a sleep). A quiet timer is known to resolve none of the bot's promises: what
 * it does (an agent's order, a sample) happens synchronously, and anything of ours it causes (an
 * intent, a venue call) is counted where it happens. So the runner discounts quiet timers, and a
 * world whose agents fire thousands of timers per virtual minute is not stopped to settle after
 * each of them.
 */
import type { Clock, TimerHandle, VirtualClock } from '../core/clock.ts';

/** See the module comment. */
export class QuietClock implements Clock {
  #fired = 0;
  constructor(readonly inner: VirtualClock) {}

  /** Callbacks of this clock's timers run so far. */
  get fired(): number {
    return this.#fired;
  }
  now(): number {
    return this.inner.now();
  }
  setTimeout(fn: () => void, ms: number): TimerHandle {
    return this.inner.setTimeout(() => {
      this.#fired++;
      fn();
    }, ms);
  }
  clearTimeout(handle: TimerHandle): void {
    this.inner.clearTimeout(handle);
  }
  setInterval(fn: () => void, ms: number): TimerHandle {
    return this.inner.setInterval(() => {
      this.#fired++;
      fn();
    }, ms);
  }
  clearInterval(handle: TimerHandle): void {
    this.inner.clearInterval(handle);
  }
}
