/**
 * The taker fee, in one place: what the venue charges the taking side of a match, by the order
 * protocol the order was signed in. The paper exchange's matching engine charges it
 * (src/exchange/matching/place.ts), the simulated venue of backtests charges it, and the bot books
 * it (the user stream's fills, the restart backfill): one function, so the store's fees, PnL and
 * kill switch agree with what the venue took, to the micro.
 *
 *  - protocol 1 (CTF Exchange V1: the fee rate is signed in the order):
 *    `size × rate × min(p, 1 − p)`, floored to the micro-unit;
 *  - protocol 2 (CTF Exchange V2: the operator applies the market's fee schedule at match time):
 *    the fee curve `size × rate × p × (1 − p)`, floored to 0.00001 (10 micro).
 *
 * `p` is the match's price on the taker's own token. A taker order that meets several resting
 * orders pays the fee of each match apart (each one floored): {@link takerFeeOfMatches}. Makers pay
 * none. Exact integers: sizes on the 0.01-share lot take the fast path (every intermediate below
 * 2^53, as the matching engine needs); any other size the same formula in bigints.
 *
 * Pure: no I/O.
 */
import { LOT_MICRO, PRICE_SCALE, type Micro } from './units.ts';

/** The order protocol a fee is charged under: 1 (CTF Exchange V1) or 2 (V2). */
export type FeeProtocol = 1 | 2;

/**
 * The protocol assumed where nothing says: 2, the paper exchange's default (`exchange.protocol`,
 * README "CLOB V2 orders") and the public service's current one.
 */
export const DEFAULT_FEE_PROTOCOL: FeeProtocol = 2;

/** The V2 fee's granularity: the venue floors a fee to 5 decimals of collateral (10 micro). */
export const CURVE_FEE_STEP_MICRO = 10;

const SCALE = BigInt(PRICE_SCALE);

/**
 * The taker fee (micro collateral) of a CTF Exchange V2 fill: `size` micro-shares at `price` pips
 * (the fill's price on the taker's token), for a market whose fee rate is `feeRateBps`. The public
 * service's fee curve, `fee = C × rate × (p × (1 − p))^e` with C the shares (docs "Fees"; the public
 * V2 client's `adjustBuyAmountForFees`; `/clob-markets` gives `fd: {r: rate, e: 1}` here), floored
 * to 0.00001 (CURVE_FEE_STEP_MICRO). Exact: for whole lots every intermediate stays an integer below
 * 2^53; another size is computed in bigints. At most `rate × (1 − p)` of the fill's collateral, so
 * never more than a SELL's proceeds, and covered by a BUY's reservation (core/order-rules.ts
 * `orderReservation`).
 */
export function curveFee(size: number, price: number, feeRateBps: number): number {
  if (feeRateBps === 0) return 0;
  if (size % LOT_MICRO !== 0) {
    const raw = (BigInt(size) * BigInt(price) * (SCALE - BigInt(price)) * BigInt(feeRateBps)) / SCALE ** 3n;
    return Number(raw - (raw % BigInt(CURVE_FEE_STEP_MICRO)));
  }
  // the fill's collateral: exact, sizes are whole lots (size × price / 10^4 is an integer)
  const cash = (size * price) / PRICE_SCALE;
  // cash × (1 − p) in micro × 10^4: at most MAX_ORDER_MICRO × 2500 = 1.25e15 < 2^53
  const q = cash * (PRICE_SCALE - price);
  // q × bps / 10^8 without a product above 2^53: split q at 10^8
  const hi = Math.floor(q / 100_000_000);
  const lo = q - hi * 100_000_000;
  const raw = hi * feeRateBps + Math.floor((lo * feeRateBps) / 100_000_000);
  return raw - (raw % CURVE_FEE_STEP_MICRO);
}

/**
 * The taker fee (micro collateral) of a CTF Exchange V1 fill: `size × rate × min(p, 1 − p)`,
 * floored to the micro-unit (`price` in pips on the taker's token). Exact, as {@link curveFee}.
 */
export function v1Fee(size: number, price: number, feeRateBps: number): number {
  if (feeRateBps === 0) return 0;
  const base = price < PRICE_SCALE - price ? price : PRICE_SCALE - price;
  if (size % LOT_MICRO !== 0) return Number((BigInt(size) * BigInt(base) * BigInt(feeRateBps)) / (SCALE * SCALE));
  // size × base / 10^4: exact (whole lots), at most the fill's collateral
  return Math.floor((((size * base) / PRICE_SCALE) * feeRateBps) / PRICE_SCALE);
}

/**
 * The taker fee (micro collateral) of one match under `protocol`: {@link v1Fee} (1) or
 * {@link curveFee} (2). `size` micro-shares, `price` pips on the taker's token, `rateBps` the fee
 * rate (the order's signed rate in V1, the market's in V2).
 */
export function takerFee(protocol: FeeProtocol, size: number, price: number, rateBps: number): Micro {
  return (protocol === 2 ? curveFee(size, price, rateBps) : v1Fee(size, price, rateBps)) as Micro;
}

/**
 * The taker fee of a taker order's trade that met several resting orders: the sum of each match's
 * fee ({@link takerFee}, each floored apart), as the venue charges it.
 * @param matches [price pips on the taker's token, size micro-shares] per match
 */
export function takerFeeOfMatches(
  protocol: FeeProtocol,
  matches: Iterable<readonly [price: number, size: number]>,
  rateBps: number,
): Micro {
  let fee = 0;
  for (const [p, s] of matches) fee += takerFee(protocol, s, p, rateBps);
  return fee as Micro;
}
