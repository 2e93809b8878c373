/**
 * What a signed order may do on the book, from its signed amounts (issue 16, defect 3): the limit
 * price (pips) and the size (micro-shares) the matching engine is given. Pure.
 *
 * The rule: a fill never takes more than the order's signed makerAmount, nor gives less than its
 * signed takerAmount, in proportion to the size filled. The engine settles every fill exactly, at a
 * price on the tick grid no worse than the order's limit (its own price when it rests, the resting
 * order's when it takes), for whole 0.01-share lots. So it is enough that the limit is never better
 * for the order than what it signed:
 *  - the implied price collateral / shares is rounded in the order's own favour, never to the
 *    nearest: a BUY's down, a SELL's up ({@link impliedPrice});
 *  - limit orders (GTC, GTD, post-only) must sign a price on the market's tick: that pip price is
 *    given as is, and the engine refuses it off the tick (INVALID_ORDER_MIN_TICK_SIZE), as the
 *    venue does. The public client signs limit amounts exactly (shares × price, both on their
 *    grids), which land on the tick; an order signing a little less per share than a tick price
 *    (a BUY of 100 for 74.995) is refused, never rounded up to it;
 *  - market orders (FOK, FAK) sign amounts off the grid by design (a BUY spends makerAmount for at
 *    least takerAmount shares): their limit is the tick price at or below the implied price (BUY)
 *    or at or above it (SELL);
 *  - the size is the shares amount floored to the lot.
 * Then, for `f` micro-shares filled at `p` pips (p <= collateral / shares for a BUY, p >= for a
 * SELL), the collateral f × p / 10^4 is at most (BUY) or at least (SELL) collateral × f / shares,
 * for every fill and every sum of fills; the reservation (size × limit, plus the largest taker fee
 * the order signed for) is at most the signed collateral plus that fee. Taker fees (a V1 order's
 * signed feeRateBps; for a V2 order, which signs none, the market's rate at match time) come on
 * top of a BUY's collateral and off a SELL's, as before, and as the public service's V2 exchange
 * charges them.
 */
import { isMarketOrderType } from '../core/order-rules.ts';
import { impliedPrice, PRICE_SCALE, type Side } from '../core/units.ts';

/** The book terms of a signed order: its limit price (pips, token scale) and size (micro-shares, whole lots). */
export interface BookTerms {
  price: number;
  size: number;
}

/**
 * The limit price and size the book uses for a signed order of `orderType` with these amounts, in a
 * market whose tick is `tickPips`. Never a price better for the order than its amounts; a price that
 * breaks the tick or range rules is left for the engine to refuse (INVALID_ORDER_MIN_TICK_SIZE), a
 * size of 0 for the caller (INVALID_ORDER_MIN_SIZE).
 */
export function bookTerms(
  side: Side,
  makerAmount: bigint,
  takerAmount: bigint,
  orderType: string,
  tickPips: number,
): BookTerms {
  const ip = impliedPrice(side, makerAmount, takerAmount);
  let price = ip.price;
  if (isMarketOrderType(orderType) && price > 0 && price <= PRICE_SCALE)
    price = side === 'BUY' ? gridDown(price, tickPips) : gridUp(price, tickPips);
  return { price, size: ip.shares };
}

/** The tick price at or below `pips`. */
export function gridDown(pips: number, tickPips: number): number {
  return pips - (pips % tickPips);
}

/** The tick price at or above `pips`. */
export function gridUp(pips: number, tickPips: number): number {
  const r = pips % tickPips;
  return r === 0 ? pips : pips - r + tickPips;
}
