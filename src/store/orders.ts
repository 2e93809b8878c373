/**
 * The order writes of the store as statements: orders recorded (pending) before they are sent,
 * patched as the venue reports them (status, size matched, reject code), and adopted when the
 * venue knows an order the store does not. Each call is one transaction.
 */
import type Database from 'better-sqlite3';
import { ValidationError } from '../core/errors.ts';
import type { OrderId } from '../core/ids.ts';
import type { PreparedOrder } from '../core/venue.ts';
import { checkInt, isConstraintError, type Statements } from './statements.ts';
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

/** Why a recorded order is refused when its id is recorded for another order. */
export const DIFFERENT_ORDER = 'a different order is recorded with this id';

/**
 * The error of an order the store did not record, so that it is not sent (src/execution/order-writes.ts):
 * a row the table refuses (a NOT NULL, CHECK or type constraint) or an id recorded for another order.
 */
export function notRecorded(p: PreparedOrder, why: string, cause?: unknown): ValidationError {
  return new ValidationError(`recordOrders: order ${String(p.id)} not recorded, so not to be sent: ${why}`, {
    ...(cause !== undefined ? { cause } : {}),
    details: { id: p.id },
  });
}

/**
 * The `recordOrder` statement's parameters: the columns of an order's row fixed when it is
 * recorded (the `sameOrder` statement's, which ignores `now`) and the time.
 */
export function recordedRow(p: PreparedOrder, now: number) {
  const r = p.request;
  return {
    id: p.id,
    market: r.market,
    token: r.tokenId,
    side: r.side,
    price: r.price,
    size: r.size,
    // a request without a type is a GTC order on the wire (src/api/clob): never NULL, which the
    // table refuses (the order would not be recorded, so not sent)
    type: r.type ?? 'GTC',
    now,
  };
}

/**
 * The order writes over a store's statements. @throws RangeError (from the calls) on a non-integer
 * amount; ValidationError (notRecorded) from the record calls when an order's row is not written
 */
export function orderWrites(db: Database.Database, st: Statements): OrderWrites {
  const recordManyRaw = (ps: readonly PreparedOrder[], now: number): number => {
    // every check before any write: the first error is the same as the deferred writes' (./deferred-orders.ts)
    for (const p of ps) {
      checkInt('price', p.request.price);
      checkInt('size', p.request.size);
    }
    let n = 0;
    for (const p of ps) {
      const row = recordedRow(p, now);
      let changes: number;
      try {
        changes = st.recordOrder.run(row).changes;
      } catch (error) {
        throw isConstraintError(error) ? notRecorded(p, error.message, error) : error;
      }
      // 0: a row with this id was there (ON CONFLICT (id) DO NOTHING); a resend of the same order only
      if (changes === 0 && st.sameOrder.get(row) === undefined) throw notRecorded(p, DIFFERENT_ORDER);
      n += changes;
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
    try {
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
    } catch (error) {
      if (!isConstraintError(error)) throw error;
      throw new ValidationError(`adoptOrder: order ${String(o.id)} found at the venue not recorded: ${error.message}`, {
        cause: error,
        details: { id: o.id },
      });
    }
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
