/**
 * Injected time. Nothing in core, book, matching or strategy reads the wall clock: it asks a Clock.
 * LiveClock is the wall clock; VirtualClock is driven by tests and backtests and never goes backwards.
 */
export type TimerHandle = { readonly id: number };

export interface Clock {
  /** Milliseconds since the unix epoch. */
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
  setInterval(fn: () => void, ms: number): TimerHandle;
  clearInterval(handle: TimerHandle): void;
}

export class LiveClock implements Clock {
  private readonly timers = new Map<number, ReturnType<typeof globalThis.setTimeout>>();
  private seq = 0;
  now(): number {
    return Date.now();
  }
  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = ++this.seq;
    const t = globalThis.setTimeout(() => {
      this.timers.delete(id);
      fn();
    }, ms);
    t.unref?.();
    this.timers.set(id, t);
    return { id };
  }
  clearTimeout(handle: TimerHandle): void {
    const t = this.timers.get(handle.id);
    if (t !== undefined) globalThis.clearTimeout(t);
    this.timers.delete(handle.id);
  }
  setInterval(fn: () => void, ms: number): TimerHandle {
    const id = ++this.seq;
    const t = globalThis.setInterval(fn, ms);
    t.unref?.();
    this.timers.set(id, t);
    return { id };
  }
  clearInterval(handle: TimerHandle): void {
    const t = this.timers.get(handle.id);
    if (t !== undefined) globalThis.clearInterval(t);
    this.timers.delete(handle.id);
  }
}

interface VirtualTimer {
  id: number;
  at: number;
  every: number; // 0 for one-shot
  fn: () => void;
}

/** A clock that moves only when told to; timers fire in time order during advance(). */
export class VirtualClock implements Clock {
  private t: number;
  private seq = 0;
  private readonly timers = new Map<number, VirtualTimer>();

  constructor(startMs = 0) {
    this.t = startMs;
  }
  now(): number {
    return this.t;
  }
  /** Move time forward by `ms`, firing due timers in order. @throws RangeError if ms < 0. */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`VirtualClock cannot go backwards (advance ${ms})`);
    this.advanceTo(this.t + ms);
  }
  /** Move time to `target`, firing due timers in order. @throws RangeError if target < now. */
  advanceTo(target: number): void {
    if (target < this.t) throw new RangeError(`VirtualClock cannot go backwards (${target} < ${this.t})`);
    for (;;) {
      let next: VirtualTimer | undefined;
      for (const timer of this.timers.values()) {
        if (timer.at <= target && (next === undefined || timer.at < next.at || (timer.at === next.at && timer.id < next.id))) next = timer;
      }
      if (next === undefined) break;
      this.t = Math.max(this.t, next.at);
      if (next.every > 0) next.at += next.every;
      else this.timers.delete(next.id);
      next.fn();
    }
    this.t = target;
  }
  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = ++this.seq;
    this.timers.set(id, { id, at: this.t + Math.max(0, ms), every: 0, fn });
    return { id };
  }
  clearTimeout(handle: TimerHandle): void {
    this.timers.delete(handle.id);
  }
  setInterval(fn: () => void, ms: number): TimerHandle {
    const id = ++this.seq;
    const every = Math.max(1, ms);
    this.timers.set(id, { id, at: this.t + every, every, fn });
    return { id };
  }
  clearInterval(handle: TimerHandle): void {
    this.timers.delete(handle.id);
  }
  /** Number of pending timers (for tests). */
  pending(): number {
    return this.timers.size;
  }
}
