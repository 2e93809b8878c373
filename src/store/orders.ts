/**
 * The order writes of the store as statements: orders recorded (pending) before they are sent,
 * patched as the venue reports them (status, size matched, reject code), and adopted when the
 * venue knows an order the store does not. Each call is one transaction.
 */
import type Database from 'better-sqlite3';
import type { OrderId } from '../core/ids.ts';
import type { PreparedOrder } from '../core/venue.ts';
import { checkInt, type Statements } from './statements.ts';
import type { AdoptedOrder, OrderPatch } from './store-types.ts';

/** An order patch, with the order to adopt first when the store may not know it. */
export type OrderUpdate = { id: OrderId; patch: OrderPatch; adopt?: AdoptedOrder };

/** The order writes of one store (the `Raw` ones run inside the caller's transaction). */
export interface OrderWrites {
  recordManyRaw(ps: readonly PreparedOrder[], now: number): number;
  recordMany(ps: readonly PreparedOrder[], now: number): number;
  updateOne(id: OrderId, patch: OrderPatch, now: number): number;
  adoptOne(o: AdoptedOrder, now: number): number;
  updateManyRaw(us: readonly OrderUpdate[], now: number): number;
  updateMany(us: readonly OrderUpdate[], now: number): number;
}

/** The order writes over a store's statements. @throws RangeError (from the calls) on a non-integer amount */
export function orderWrites(db: Database.Database, st: Statements): OrderWrites {
  const recordManyRaw = (ps: readonly PreparedOrder[], now: number): number => {
    let n = 0;
    for (const p of ps) {
      const r = p.request;
      checkInt('price', r.price);
      checkInt('size', r.size);
      n += st.insertOrder.run({
        id: p.id,
        market: r.market,
        token: r.tokenId,
        side: r.side,
        price: r.price,
        size: r.size,
        // a request without a type is a GTC order on the wire (src/api/clob): never NULL, which the
        // table refuses and INSERT OR IGNORE would skip without a word (an order sent, not on disk)
        type: r.type ?? 'GTC',
        status: 'pending',
        size_matched: 0,
        now,
      }).changes;
    }
    return n;
  };
  const recordMany = db.transaction(recordManyRaw);

  const updateOne = (id: OrderId, patch: OrderPatch, now: number): number => {
    if (patch.sizeMatched !== undefined) checkInt('sizeMatched', patch.sizeMatched);
    return st.updateOrder.run({
      id,
      status: patch.status ?? null,
      size_matched: patch.sizeMatched ?? null,
      set_code: patch.rejectCode !== undefined ? 1 : 0,
      reject_code: patch.rejectCode ?? null,
      now,
    }).changes;
  };
  const adoptOne = (o: AdoptedOrder, now: number): number => {
    checkInt('price', o.price);
    checkInt('size', o.originalSize);
    checkInt('sizeMatched', o.sizeMatched);
    return st.insertOrder.run({
      id: o.id,
      market: o.market,
      token: o.tokenId,
      side: o.side,
      price: o.price,
      size: o.originalSize,
      type: o.type ?? 'GTC',
      status: o.status,
      size_matched: o.sizeMatched,
      now,
    }).changes;
  };
  const updateManyRaw = (
    us: readonly { id: OrderId; patch: OrderPatch; adopt?: AdoptedOrder }[],
    now: number,
  ): number => {
    let n = 0;
    for (const u of us) {
      if (u.adopt !== undefined) adoptOne(u.adopt, now);
      n += updateOne(u.id, u.patch, now);
    }
    return n;
  };
  const updateMany = db.transaction(updateManyRaw);

  return { recordManyRaw, recordMany, updateOne, adoptOne, updateManyRaw, updateMany };
}
