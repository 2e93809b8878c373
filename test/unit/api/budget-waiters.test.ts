/** The budget gates' waiter queue (src/api/http/budget-waiters.ts). */
import { describe, expect, it, vi } from 'vitest';
import { abortReason, type QueuedWaiter, queueWaiter } from '../../../src/api/http/budget-waiters.ts';

const waiter = (signal?: AbortSignal) => ({
  reject: vi.fn<(e: unknown) => void>(),
  signal,
  onAbort: undefined,
});

describe('queueWaiter', () => {
  it('queues in FIFO order and pumps after each', () => {
    const q: QueuedWaiter[] = [];
    const pump = vi.fn();
    const a = waiter();
    const b = waiter();
    queueWaiter(() => q, a, pump);
    queueWaiter(() => q, b, pump);
    expect(q).toEqual([a, b]);
    expect(pump).toHaveBeenCalledTimes(2);
  });

  it('an abort while waiting takes the waiter out, rejects it with the reason and pumps', () => {
    const q: QueuedWaiter[] = [];
    const pump = vi.fn();
    const ac = new AbortController();
    const a = waiter(ac.signal);
    const b = waiter();
    queueWaiter(() => q, a, pump);
    queueWaiter(() => q, b, pump);
    ac.abort(new Error('gone'));
    expect(q).toEqual([b]);
    expect(a.reject).toHaveBeenCalledWith(new Error('gone'));
    expect(pump).toHaveBeenCalledTimes(3);
  });

  it('an abort after the waiter left the queue (or the queue was swapped) does nothing', () => {
    let q: QueuedWaiter[] = [];
    const pump = vi.fn();
    const ac = new AbortController();
    const a = waiter(ac.signal);
    queueWaiter(() => q, a, pump);
    const old = q;
    q = [];
    ac.abort();
    expect(old).toEqual([a]);
    expect(a.reject).not.toHaveBeenCalled();
    expect(pump).toHaveBeenCalledTimes(1);
  });
});

describe('abortReason', () => {
  it("is the signal's reason, or an AbortError", () => {
    const ac = new AbortController();
    ac.abort('why');
    expect(abortReason(ac.signal)).toBe('why');
    expect((abortReason({ reason: undefined } as AbortSignal) as DOMException).name).toBe('AbortError');
  });
});
