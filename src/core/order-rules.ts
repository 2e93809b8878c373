/**
 * The venue's order rules, in one place: the checks an order must pass at the matching point, in
 * the venue's order, with the venue's rejection codes and messages. The paper exchange's matching
 * engine (src/exchange/matching/engine.ts) and the simulated venue (src/venues/sim/sim-venue.ts)
 * both apply them, so an order the backtest accepts is one the exchange accepts, and a refusal has
 * the same code on both.
 *
 * The checks, in order (each caller runs its own state checks around them):
 *  1. market ready (MARKET_NOT_READY) and duplicate id (INVALID_ORDER_DUPLICATED): the caller's;
 *  2. {@link orderShapeError}: order type, post-only type, tick and price range, minimum size, lot
 *     and largest order, fee rate, side, GTD expiration;
 *  3. balance, against {@link orderReservation} (INVALID_ORDER_NOT_ENOUGH_BALANCE): the caller's;
 *  4. {@link bookRuleError}: post-only would cross, FOK not fully fillable.
 *
 * Pure: no I/O, no clock (time is an argument).
 */
import type { VenueRejectCode } from './errors.ts';
import type { FeeProtocol } from './fees.ts';
import { LOT_MICRO, MAX_ORDER_MICRO, notional, PRICE_SCALE } from './units.ts';

/** The V2 fee curve moved to ./fees.ts (one taker-fee module); kept here for its importers. */
export { CURVE_FEE_STEP_MICRO, curveFee } from './fees.ts';

/** Highest feeRateBps an order may carry (10%). */
export const MAX_FEE_RATE_BPS = 1000;

/** The rejection codes an order can get at the matching point (the venue's wire codes). */
export type OrderRejectCode = Exclude<VenueRejectCode, 'INVALID_SIGNATURE' | 'INVALID_ORDER_OWNER'>;

/** The venue's message text for each rejection code (old CLOB "insert error messages" table). */
export const REJECT_MESSAGES: Readonly<Record<OrderRejectCode, string>> = {
  MARKET_NOT_READY: 'the market is not yet ready to process new orders',
  INVALID_ORDER_DUPLICATED: "order is invalid. Duplicated. Same order has already been placed, can't be placed again",
  INVALID_POST_ONLY_ORDER_TYPE: 'invalid post-only order: only GTC and GTD order types are allowed',
  INVALID_ORDER_MIN_TICK_SIZE: 'order is invalid. Price breaks minimum tick size rules',
  INVALID_ORDER_MIN_SIZE: 'order is invalid. Size lower than the minimum',
  INVALID_ORDER_ERROR: 'could not insert order',
  INVALID_ORDER_EXPIRATION: 'invalid expiration',
  INVALID_ORDER_NOT_ENOUGH_BALANCE: 'not enough balance / allowance',
  INVALID_POST_ONLY_ORDER: 'invalid post-only order: order crosses book',
  FOK_ORDER_NOT_FILLED_ERROR: "order couldn't be fully filled, FOK orders are fully filled/killed",
};

/**
 * The `not_canceled` reason of every cancel route for an id that is not a live order of the caller
 * (unknown, another user's, already cancelled or matched): the public service's one text, which bots
 * match (../shared/venue-conventions.md). The paper exchange and the simulated venue both answer it.
 */
export const NOT_CANCELED_REASON = "order can't be found - already canceled or matched";

/** What the shape rules read of an order (the engine's NewOrder has these fields). */
export interface OrderShape {
  /** 'GTC' | 'GTD' | 'FOK' | 'FAK'; anything else is refused. */
  readonly type: string;
  readonly postOnly: boolean;
  /** Pips, on the token's own scale. */
  readonly price: number;
  /** Micro-shares. */
  readonly size: number;
  readonly feeRateBps: number;
  /** 'BUY' | 'SELL'; anything else is refused. */
  readonly side: string;
  /** GTD only: unix ms at which the order leaves the book (NaN: none given). */
  readonly expiresAt: number;
}

/** True for the market order types (FOK, FAK): they take what they can and never rest. */
export function isMarketOrderType(type: string): boolean {
  return type === 'FOK' || type === 'FAK';
}

/** True when `price` (pips) is an integer on the `tick` (pips) and inside [tick, 1 − tick]. */
export function priceOnTick(price: number, tick: number): boolean {
  return Number.isInteger(price) && price % tick === 0 && price >= tick && price <= PRICE_SCALE - tick;
}

/**
 * The first shape rule `o` breaks in a market with this tick (pips), minimum order size (micro) and
 * fee rate (bps) at time `now` (unix ms), or null when it breaks none: unknown order type
 * (INVALID_ORDER_ERROR), post-only on a market order type (INVALID_POST_ONLY_ORDER_TYPE), price off
 * the tick or outside [tick, 1 − tick] (INVALID_ORDER_MIN_TICK_SIZE), size under the market's
 * minimum (INVALID_ORDER_MIN_SIZE), size not a positive whole lot up to the largest order, fee rate
 * under the market's or above MAX_FEE_RATE_BPS, unknown side (INVALID_ORDER_ERROR), a GTD order
 * whose expiry is not after now (INVALID_ORDER_EXPIRATION).
 */
export function orderShapeError(
  o: OrderShape,
  tick: number,
  minSize: number,
  marketFeeRateBps: number,
  now: number,
): OrderRejectCode | null {
  const type = o.type;
  if (type !== 'GTC' && type !== 'GTD' && type !== 'FOK' && type !== 'FAK') return 'INVALID_ORDER_ERROR';
  if (o.postOnly && isMarketOrderType(type)) return 'INVALID_POST_ONLY_ORDER_TYPE';
  if (!priceOnTick(o.price, tick)) return 'INVALID_ORDER_MIN_TICK_SIZE';
  const size = o.size;
  if (size < minSize) return 'INVALID_ORDER_MIN_SIZE';
  if (!Number.isInteger(size) || size <= 0 || size % LOT_MICRO !== 0 || size > MAX_ORDER_MICRO)
    return 'INVALID_ORDER_ERROR';
  const bps = o.feeRateBps;
  if (!Number.isInteger(bps) || bps < marketFeeRateBps || bps > MAX_FEE_RATE_BPS) return 'INVALID_ORDER_ERROR';
  if (o.side !== 'BUY' && o.side !== 'SELL') return 'INVALID_ORDER_ERROR';
  if (type === 'GTD' && !(o.expiresAt > now)) return 'INVALID_ORDER_EXPIRATION';
  return null;
}

/**
 * What an order reserves at placement: a BUY its notional rounded up plus the most taker fee its
 * fills can make it pay beyond that (micro collateral), a SELL its size (micro-shares). The order is
 * refused (INVALID_ORDER_NOT_ENOUGH_BALANCE) when the account has less available.
 *
 * The bound: a BUY fills at its price or better (lower), at most its size, and what a share costs
 * with its fee, `q + rate × g(q)` (V1 `g = min(q, 1 − q)`, V2 `g = q × (1 − q)`), rises with the fill
 * price `q` (its slope is at least 1 − rate > 0, rates being at most 10 %): no set of fills costs
 * more than its whole size at its own price with that price's fee, the fee floored to the micro
 * (each match's fill is a whole number of micro and each fee is floored apart, so their sum is a
 * whole number no larger). A post-only order never takes: no fee. Trial 24 F8 and review 49b F2:
 * `rate × notional` asked 20.68 of a V2 market buy whose fills cost 19.93, so the public V2 client's
 * fee-aware "spend my balance" market buy was refused.
 */
export function orderReservation(
  isBuy: boolean,
  size: number,
  price: number,
  feeRateBps: number,
  protocol: FeeProtocol,
  postOnly = false,
): number {
  if (!isBuy) return size;
  const n = notional(size, price, 'up');
  if (postOnly || feeRateBps === 0) return n;
  const p = BigInt(price);
  const scale = BigInt(PRICE_SCALE);
  // size × rate × g(price), micro: V2 size·p·(S−p)·bps / S³, V1 size·min(p, S−p)·bps / S² (as S³ below)
  const g = protocol === 2 ? p * (scale - p) : (price < PRICE_SCALE - price ? p : scale - p) * scale;
  return n + Number((BigInt(size) * g * BigInt(feeRateBps)) / scale ** 3n);
}

/**
 * The reservation of an order journaled before the rule above (2026-11-30): notional plus
 * `rate × notional`. A journal replays its orders under the rule they were admitted by (review 49b
 * F3: a BUY refused then would fill on a restart), so `NewOrder.reservation` says which.
 */
export function legacyOrderReservation(isBuy: boolean, size: number, price: number, feeRateBps: number): number {
  if (!isBuy) return size;
  const n = notional(size, price, 'up');
  return n + Math.floor((n * feeRateBps) / PRICE_SCALE);
}

/**
 * The rule against the book the order meets, or null: a post-only order that would cross
 * (INVALID_POST_ONLY_ORDER), a FOK order that cannot fill whole (FOK_ORDER_NOT_FILLED_ERROR).
 * `fillable`: the size the book could fill at the order's price or better (read for FOK only).
 */
export function bookRuleError(
  o: Pick<OrderShape, 'type' | 'postOnly' | 'size'>,
  crosses: boolean,
  fillable: number,
): OrderRejectCode | null {
  if (o.postOnly && crosses) return 'INVALID_POST_ONLY_ORDER';
  if (o.type === 'FOK' && fillable < o.size) return 'FOK_ORDER_NOT_FILLED_ERROR';
  return null;
}
