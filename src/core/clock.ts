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

/**
 * `clock` with every timer callback guarded: one that throws, or returns a promise that rejects, is
 * handed to `onError` (which must not throw) instead of the timer machinery. A strategy's
 * `ctx.clock` is one: the engine counts such an error like a throw of its handler (trial 23 F1: a
 * throwing callback crashed the daemon with its quotes resting).
 */
export function guardedClock(clock: Clock, onError: (err: unknown) => void): Clock {
  const guard = (fn: () => void) => (): void => {
    try {
      const r: unknown = fn();
      if (typeof (r as { then?: unknown } | null)?.then === 'function')
        (r as Promise<unknown>).then(undefined, onError);
    } catch (err) {
      onError(err);
    }
  };
  return {
    now: () => clock.now(),
    setTimeout: (fn, ms) => clock.setTimeout(guard(fn), ms),
    clearTimeout: (h) => clock.clearTimeout(h),
    setInterval: (fn, ms) => clock.setInterval(guard(fn), ms),
    clearInterval: (h) => clock.clearInterval(h),
  };
}

interface VirtualTimer {
  id: number;
  at: number;
  every: number; // 0 for one-shot
  fn: () => void;
  /** False once cleared or fired (one-shot): the heap drops it lazily. */
  live: boolean;
}

/** Heap order: earlier `at` first, then the older timer (smaller id). */
function before(a: VirtualTimer, b: VirtualTimer): boolean {
  return a.at < b.at || (a.at === b.at && a.id < b.id);
}

/**
 * A clock that moves only when told to; timers fire in time order during advance() (ties: the
 * timer created first). Timers live in a binary heap, so advancing costs O(log n) per timer fired,
 * not a scan of every pending timer (backtests keep many timers: latencies, retries, the world).
 */
export class VirtualClock implements Clock {
  private t: number;
  private seq = 0;
  private readonly timers = new Map<number, VirtualTimer>();
  private readonly heap: VirtualTimer[] = [];
  private firedCount = 0;

  constructor(startMs = 0) {
    this.t = startMs;
  }
  now(): number {
    return this.t;
  }
  /** Timer callbacks run so far (a backtest driver reads it to know whether anything happened). */
  get fired(): number {
    return this.firedCount;
  }
  /** Move time forward by `ms`, firing due timers in order. @throws RangeError if ms < 0. */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`VirtualClock cannot go backwards (advance ${ms})`);
    this.advanceTo(this.t + ms);
  }
  /** Move time to `target`, firing due timers in order. @throws RangeError if target < now. */
  advanceTo(target: number): void {
    if (target < this.t) throw new RangeError(`VirtualClock cannot go backwards (${target} < ${this.t})`);
    const heap = this.heap;
    for (;;) {
      const next = heap[0];
      if (next === undefined) break;
      if (!next.live) {
        this.pop();
        continue;
      }
      if (next.at > target) break;
      this.t = Math.max(this.t, next.at);
      if (next.every > 0) {
        next.at += next.every;
        this.siftDown(0);
      } else {
        this.pop();
        next.live = false;
        this.timers.delete(next.id);
      }
      this.firedCount++;
      next.fn();
    }
    this.t = target;
  }
  /** When the next live timer is due (unix ms), or undefined when none is pending. */
  nextAt(): number | undefined {
    const heap = this.heap;
    while (heap.length > 0 && !heap[0]!.live) this.pop();
    return heap[0]?.at;
  }
  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = ++this.seq;
    this.add({ id, at: this.t + Math.max(0, ms), every: 0, fn, live: true });
    return { id };
  }
  clearTimeout(handle: TimerHandle): void {
    this.remove(handle.id);
  }
  setInterval(fn: () => void, ms: number): TimerHandle {
    const id = ++this.seq;
    const every = Math.max(1, ms);
    this.add({ id, at: this.t + every, every, fn, live: true });
    return { id };
  }
  clearInterval(handle: TimerHandle): void {
    this.remove(handle.id);
  }
  /** Number of pending timers (for tests). */
  pending(): number {
    return this.timers.size;
  }

  private add(timer: VirtualTimer): void {
    this.timers.set(timer.id, timer);
    const heap = this.heap;
    heap.push(timer);
    this.siftUp(heap.length - 1);
    // cleared timers are dropped lazily; compact when they dominate the heap
    if (heap.length > 64 && heap.length > 4 * this.timers.size) this.compact();
  }
  private remove(id: number): void {
    const timer = this.timers.get(id);
    if (timer === undefined) return;
    timer.live = false;
    this.timers.delete(id);
  }
  private compact(): void {
    const live = this.heap.filter((x) => x.live);
    this.heap.length = 0;
    for (const x of live) this.heap.push(x);
    for (let i = (this.heap.length >> 1) - 1; i >= 0; i--) this.siftDown(i);
  }
  private pop(): void {
    const heap = this.heap;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      this.siftDown(0);
    }
  }
  private siftUp(i: number): void {
    const heap = this.heap;
    const x = heap[i]!;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const y = heap[p]!;
      if (!before(x, y)) break;
      heap[i] = y;
      i = p;
    }
    heap[i] = x;
  }
  private siftDown(i: number): void {
    const heap = this.heap;
    const n = heap.length;
    const x = heap[i]!;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && before(heap[r]!, heap[l]!) ? r : l;
      if (!before(heap[c]!, x)) break;
      heap[i] = heap[c]!;
      i = c;
    }
    heap[i] = x;
  }
}
