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
import { type FeeProtocol, takerFee } from './fees.ts';
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
 * What an order reserves at placement: a BUY its notional rounded up plus the largest taker fee any
 * of its fills can pay under `protocol` (micro collateral), a SELL its size (micro-shares). The order
 * is refused (INVALID_ORDER_NOT_ENOUGH_BALANCE) when the account has less available.
 *
 * The fee bound is exact, not `rate × notional`: a BUY fills at its price or better (lower), at most
 * its size, and both fee curves (V1 `rate × min(p, 1 − p)`, V2 `rate × p × (1 − p)`) rise up to 0.5, so
 * no set of fills pays more than the fee of its whole size at min(price, 0.5) (each match's fee
 * floored apart sums to no more than one floored fee of the sum). A post-only order never takes: no
 * fee. (Trial 24 F8: `rate × notional` asked 20.68 of a V2 market buy whose fills cost 19.93, so the
 * public V2 client's fee-aware "spend my balance" market buy was refused.)
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
  const half = PRICE_SCALE / 2;
  return n + takerFee(protocol, size, price < half ? price : half, feeRateBps);
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
