/**
 * The store as the engine's restart reconciliation wants it (src/engine/restart.ts, RestartStore):
 * open orders, fills recorded once, the newest fill's time, the oldest unsettled fill's time,
 * venue states of orders missed while down, and ids the venue never received. A thin adapter so
 * the engine does not learn the store's row shapes.
 */
import type { VenueFill, VenueOrder } from '../core/venue.ts';
import type { OrderId } from '../core/ids.ts';
import type { Store, StoredOrderStatus } from './store.ts';

/** The venue's order status as the store's. */
export function storedStatusOf(v: Pick<VenueOrder, 'status' | 'sizeMatched' | 'originalSize'>): StoredOrderStatus {
  switch (v.status) {
    case 'LIVE':
    case 'DELAYED':
      return v.sizeMatched <= 0 ? 'live' : v.sizeMatched >= v.originalSize ? 'filled' : 'partially_filled';
    case 'MATCHED':
      return 'filled';
    case 'CANCELED':
    case 'UNMATCHED':
      return 'cancelled';
  }
}

/** What src/engine/restart.ts's `reconcileOnStart` needs of a store (structurally its RestartStore). */
export interface RestartStoreAdapter {
  openOrders(): { readonly id: string }[];
  recordFill(fill: VenueFill): boolean;
  lastFillTime(): number | undefined;
  oldestUnsettledFillTime(sinceMs: number): number | undefined;
  updateOrder(order: VenueOrder): void;
  markOrderMissing(id: string): void;
}

/**
 * Adapt a Store for `reconcileOnStart(venue, restartStore(store))`. Orders the venue lists that
 * the store never saw are adopted into it by `updateOrder`.
 * @throws Error (from the store) when it is closed.
 */
export function restartStore(store: Store): RestartStoreAdapter {
  return {
    openOrders: () => store.openOrders(),
    recordFill: (f) => store.recordFill(f),
    lastFillTime: () => store.lastFillTime(),
    oldestUnsettledFillTime: (sinceMs) => store.oldestUnsettledFillTime(sinceMs),
    updateOrder(v) {
      const status = storedStatusOf(v);
      if (!store.updateOrder(v.id, { status, sizeMatched: v.sizeMatched })) {
        store.adoptOrder({
          id: v.id,
          market: v.market,
          tokenId: v.tokenId,
          side: v.side,
          price: v.price,
          originalSize: v.originalSize,
          sizeMatched: v.sizeMatched,
          status,
        });
      }
    },
    markOrderMissing(id) {
      store.updateOrder(id as OrderId, { status: 'rejected', rejectCode: 'NEVER_ARRIVED' });
    },
  };
}
