/**
 * The waiter bookkeeping the request-budget gates share (the in-process BudgetGate of
 * src/api/http/budgets.ts and the fleet's RedisWindowGate): a FIFO queue of waiters, each taken out
 * and rejected with its signal's reason when aborted while waiting.
 */

/** What an aborted signal rejects with: its reason, or an AbortError. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** A waiter as the queue keeps it. */
export interface QueuedWaiter {
  reject: (e: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/**
 * Queues `w` at the end of the queue and pumps; an abort of its signal while it still waits takes
 * it out, rejects it with the signal's reason and pumps again (the others may pass now). `queue`
 * is read each time: the gate may swap in a fresh queue (close), after which an abort does nothing.
 */
export function queueWaiter<W extends QueuedWaiter>(queue: () => W[], w: W, pump: () => void): void {
  const { signal } = w;
  if (signal !== undefined) {
    w.onAbort = () => {
      const waiters = queue();
      const i = waiters.indexOf(w);
      if (i >= 0) {
        waiters.splice(i, 1);
        w.reject(abortReason(signal));
        pump();
      }
    };
    signal.addEventListener('abort', w.onAbort, { once: true });
  }
  queue().push(w);
  pump();
}
