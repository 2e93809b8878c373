/**
 * The store's summary: orders by outcome and fills with their volume, notional and fees, counted
 * from the tables (exact: sums in bigint).
 */
import { PRICE_SCALE } from '../core/units.ts';
import type { Statements } from './statements.ts';
import type { StoreSummary, StoredOrderStatus } from './store-types.ts';

/** Counts of the store's orders and fills (deferred order writes must be written first). */
export function storeSummary(st: Statements): StoreSummary {
  const counts = new Map<string, number>();
  for (const r of st.orderCounts.all() as { status: string; n: number }[]) counts.set(r.status, r.n);
  const c = (s: StoredOrderStatus): number => counts.get(s) ?? 0;
  let recorded = 0;
  for (const n of counts.values()) recorded += n;
  let fills = 0;
  let voidFills = 0;
  for (const r of st.fillCounts.all() as { void: number; n: number }[]) {
    if (r.void) voidFills = r.n;
    else fills = r.n;
  }
  let volume = 0n;
  let notional = 0n;
  let fees = 0n;
  for (const r of st.liveFills.iterate() as IterableIterator<{ price: number; size: number; fee: number }>) {
    volume += BigInt(r.size);
    notional += BigInt(r.size) * BigInt(r.price);
    fees += BigInt(r.fee);
  }
  return {
    ordersRecorded: recorded,
    ordersPlaced: c('live') + c('partially_filled') + c('filled') + c('cancelled'),
    ordersCancelled: c('cancelled'),
    ordersRejected: c('rejected'),
    ordersOpen: c('pending') + c('live') + c('partially_filled') + c('unknown'),
    fills,
    voidFills,
    volume: Number(volume),
    notional: Number(notional / BigInt(PRICE_SCALE)),
    fees: Number(fees),
  };
}
