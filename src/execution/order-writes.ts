/**
 * The store rows of the executor's orders (src/execution/executor.ts) as the tracker moves them:
 * each transition of an order of the bot's is written to the store (the prepared row itself was
 * recorded before sending); inside `batched`, the writes are collected and made in one transaction
 * (a place request's answers, a cancel's outcome: one commit, not one per order).
 *
 * Apart from the executor so that what reaches the store, and when, is read in one place; the
 * tracker stays free of the store (src/execution/tracker.ts).
 */
import type { Store } from '../store/store.ts';
import type { Transition } from './tracker.ts';

type OrderUpdate = Parameters<Store['updateOrders']>[0][number];

/**
 * Records prepared orders before anything is sent (their ids are known). An order that cannot be
 * recorded is not sent: the failure is reported as `store` (the kernel trips the kill switch:
 * src/kernel/executor-errors.ts) and thrown, so the caller's cycle fails with it.
 */
export function recordBeforeSending(
  store: Pick<Store, 'recordOrders'>,
  prepared: Parameters<Store['recordOrders']>[0],
  emitError: (where: string, error: unknown) => void,
): void {
  try {
    store.recordOrders(prepared);
  } catch (error) {
    emitError('store', error);
    throw error;
  }
}

/** Writes the executor's tracker transitions to the store (see the module comment). */
export class OrderWrites {
  readonly #store: Pick<Store, 'updateOrders'>;
  readonly #emitError: (where: string, error: unknown) => void;
  #batch: OrderUpdate[] | undefined;

  /** `emitError`: the executor's report of a failed write (a write never throws to its caller). */
  constructor(store: Pick<Store, 'updateOrders'>, emitError: (where: string, error: unknown) => void) {
    this.#store = store;
    this.#emitError = emitError;
  }

  /**
   * Persist a tracker transition (the prepared row itself was recorded before sending). Inside
   * `batched`, transitions are collected and written in one transaction.
   */
  persist(t: Transition): void {
    if (t.from === null) return;
    const o = t.order;
    if (o.foreign) return; // not the bot's: the store records its own orders only
    const patch = { status: o.status, sizeMatched: o.sizeMatched, rejectCode: o.rejectCode };
    // (two literals, not a spread of an optional part: this runs for every transition of every order)
    const u = o.adopted
      ? {
          id: o.id,
          patch,
          adopt: {
            id: o.id,
            market: o.market,
            tokenId: o.tokenId,
            side: o.side,
            price: o.price,
            originalSize: o.originalSize,
            sizeMatched: o.sizeMatched,
            status: o.status,
          },
        }
      : { id: o.id, patch };
    if (this.#batch !== undefined) {
      this.#batch.push(u);
      return;
    }
    try {
      this.#store.updateOrders([u]);
    } catch (error) {
      this.#emitError('store', error);
    }
  }

  /** Run `fn` with the store writes of its transitions collected into one transaction. */
  batched<T>(fn: () => T): T {
    if (this.#batch !== undefined) return fn();
    const batch: OrderUpdate[] = [];
    this.#batch = batch;
    try {
      return fn();
    } finally {
      this.#batch = undefined;
      try {
        this.#store.updateOrders(batch);
      } catch (error) {
        this.#emitError('store', error);
      }
    }
  }
}
