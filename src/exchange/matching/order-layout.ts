/**
 * The record layout of an order in the matching engine's order table (src/exchange/matching/order-table.ts).
 *
 * Every order ever accepted is a handle (0, 1, 2, ... in acceptance order, so also its time
 * priority) into a record table: a 64-byte Int32 row (price, flags, sizes in lots, links,
 * account/market/owner indices) and a 16-byte Float64 row (times), in fixed pages that are never
 * copied. Typed arrays are invisible to the garbage collector and keep an order on one or two
 * cache lines. A resting order's reservation is not stored: it is what its rest needs.
 *
 * For the matching engine only (src/exchange/matching/engine.ts and its modules).
 */
import type { OrderStatus, OrderType } from './types.ts';

/** "No order" in the linked lists. */
export const NIL = -1;

// order flags
export const F_YES = 1;
export const F_BUY = 2;
export const F_BID = 4; // a YES bid: BUY YES or SELL NO

// order types and statuses, stored as small integers
export const T_GTC = 0;
export const T_GTD = 1;
export const T_FOK = 2;
export const T_FAK = 3;
export const TYPE_NAMES: readonly OrderType[] = ['GTC', 'GTD', 'FOK', 'FAK'];
export const S_LIVE = 0;
export const S_MATCHED = 1;
export const S_CANCELED = 2;
export const STATUS_NAMES: readonly OrderStatus[] = ['LIVE', 'MATCHED', 'CANCELED'];

// The Int32 row of an order: IS fields.
export const I_PRICE = 0; // pips, token scale
export const I_META = 1; // flags | type << 3 | status << 5
export const I_FEE = 2; // feeRateBps
export const I_SIZE = 3; // original size, in lots (LOT_MICRO): at most MAX_ORDER_MICRO / LOT_MICRO = 5e7
export const I_MATCHED = 4; // in lots
export const I_PREV = 5; // level FIFO links
export const I_NEXT = 6;
export const I_APREV = 7; // account live-list links
export const I_ANEXT = 8;
export const I_ALLNEXT = 9; // account all-orders list link
export const I_TRADE = 10; // sequence number of the first trade it took part in (0: none)
export const I_TMORE = 11; // its later trades: the newest link of a chain in the trade-link pool (NIL: none)
export const I_ACCT = 12; // account index
export const I_MKT = 13; // market index
export const I_OWNER = 14; // owner index
// field 15: spare
export const IS_BITS = 4;
export const IS = 1 << IS_BITS;
// The Float64 row: DS fields.
export const D_EXPIRES = 0;
export const D_CREATED = 1;
export const DS = 2;

export const META_STATUS_SHIFT = 5;
export const META_STATUS_MASK = 3 << META_STATUS_SHIFT;

export function typeCode(t: string): number {
  switch (t) {
    case 'GTC':
      return T_GTC;
    case 'GTD':
      return T_GTD;
    case 'FOK':
      return T_FOK;
    case 'FAK':
      return T_FAK;
    default:
      return -1;
  }
}

/** Status of an order from its meta word. */
export function statusOf(meta: number): number {
  return (meta & META_STATUS_MASK) >> META_STATUS_SHIFT;
}

/** Orders (and trade ids) per page (pages are allocated as needed and never copied). */
export const PAGE_BITS = 15;
export const PAGE_SIZE = 1 << PAGE_BITS;
export const PAGE_MASK = PAGE_SIZE - 1;
