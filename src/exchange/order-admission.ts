/**
 * Order placement admission: what `PaperExchange.place` checks and decides between a signed order
 * (V1 or V2) and the command that puts it on the book, and what `placeInternal` decides for the
 * exchange's own orders. It lives apart from the exchange's command log (exchange.ts: exec, replay,
 * apply) so that the log stays only the log: admission reads the exchange through a small
 * interface ({@link AdmissionContext}) and returns either a refusal or the order to place; only a
 * placed order is journaled. Who signed and who funds is order-signers.ts.
 *
 * What a signed order may do on the book, from its signed amounts (issue 16, defect 3): the limit
 * price (pips) and the size (micro-shares) the matching engine is given ({@link bookTerms}, pure).
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
import { formatAmount, impliedPrice, MAX_ORDER_MICRO, PRICE_SCALE, type Side } from '../core/units.ts';
import type { SignedOrderStruct } from '../api/signing/order.ts';
import { ZERO_BYTES32, type SignedOrderStructV2 } from '../api/signing/order-v2.ts';
import type { ApiKeyRecord } from './accounts/keys.ts';
import type { MarketInfo } from './matching/engine.ts';
import type { NewOrder } from './matching/types.ts';
import { checkSignerV1, checkSignerV2, type SignerContext } from './order-signers.ts';
import {
  versionMismatchMessage,
  V2_TIMESTAMP_MAX_AHEAD_MS,
  type ClobProtocol,
  type InternalOrder,
  type MarketEntry,
  type PlaceOutcome,
  type PlaceRequest,
} from './exchange-types.ts';

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

/** A refusal of `PaperExchange.place`: an order that never reaches the book (or that the book refused). */
export type PlaceRefusal = Extract<PlaceOutcome, { ok: false }>;

/** What order admission reads of the exchange (PaperExchange builds it once). */
export interface AdmissionContext {
  /** What the signer checks read (order-signers.ts). */
  readonly signers: SignerContext;
  /** The CLOB protocol the exchange speaks (`GET /version`). */
  protocol(): ClobProtocol;
  /** The venue's GTD security threshold, seconds (`ExchangeOptions.gtdThresholdSec`). */
  gtdThresholdSec(): number;
  /** The exchange's clock, unix ms. */
  now(): number;
  /** The market a token trades in, as the exchange lists it (its neg-risk flag and fee), or undefined. */
  marketOfToken(tokenId: string): { entry: MarketEntry } | undefined;
  /** The matching engine's market of a token (its current tick and fee rate), or undefined. */
  engineMarketOfToken(tokenId: string): MarketInfo | undefined;
  /** The order id (EIP-712 digest) of a signed V1 order. */
  orderId(o: SignedOrderStruct, negRisk: boolean): string;
  /** The order id (EIP-712 digest, domain version 2) of a signed V2 order. */
  orderIdV2(o: SignedOrderStructV2, negRisk: boolean): string;
  /** The exchange contracts collateral is approved to, in the protocol spoken. */
  exchangeContracts(): { exchange: string; negRiskExchange: string };
  /** Whether `account`'s collateral allowance to `spender` is zero (accounts/allowances.ts). */
  allowanceIsZero(account: string, spender: string): boolean;
}

/** An admitted signed order: the order for the book, and its builder attribution (if any). */
export interface Admitted {
  ok: true;
  order: NewOrder;
  builder: string | undefined;
}

/** The refusal of the order `orderID`, with its venue code (HTTP 400 unless told). */
export function placeRefusal(
  orderID: string,
  code: PlaceRefusal['code'],
  message: string,
  httpStatus = 400,
): PlaceRefusal {
  return {
    ok: false,
    orderID,
    code,
    message,
    httpStatus,
  };
}

/**
 * Validate and verify one signed order (V1 or V2) for the caller `key`: the order to place, or its
 * refusal. Never throws for bad input: every refusal is a PlaceRefusal with a venue code.
 *
 * An order signed in the protocol the exchange does not speak is refused first (400
 * INVALID_ORDER_ERROR, `versionMismatchMessage`). Then who signed and who funds (V1:
 * `checkSignerV1`, V2: `checkSignerV2`), then the terms both protocols share: the signed
 * amounts bound every fill ({@link bookTerms}), expirations, and the fee. A V1 order pays its
 * signed `feeRateBps` (at least the market's); a V2 order signs no fee: it pays the market's rate
 * at match time, on the V2 curve (core/order-rules.ts `curveFee`).
 */
export function admitOrder(ctx: AdmissionContext, key: ApiKeyRecord, req: PlaceRequest): Admitted | PlaceRefusal {
  const o = req.order;
  const tokenId = o.tokenId.toString(10);
  const found = ctx.marketOfToken(tokenId);
  const negRisk = found?.entry.meta.negRisk ?? false;
  const orderID = req.protocol === 2 ? ctx.orderIdV2(req.order, negRisk) : ctx.orderId(req.order, negRisk);
  const reject = (code: PlaceRefusal['code'], message: string, httpStatus = 400): PlaceRefusal =>
    placeRefusal(orderID, code, message, httpStatus);
  const signedIn = req.protocol ?? 1;
  const speaks = ctx.protocol();
  if (signedIn !== speaks) return reject('INVALID_ORDER_ERROR', versionMismatchMessage(signedIn, speaks));
  if (req.owner !== key.apiKey)
    return reject('INVALID_ORDER_OWNER', 'the order owner has to be the owner of the API KEY');
  const refused =
    req.protocol === 2
      ? checkSignerV2(ctx.signers, key, req, found !== undefined)
      : checkSignerV1(ctx.signers, key, req, found !== undefined, orderID);
  if (refused !== null) return reject(refused.code, refused.message);
  const side = o.side === 0 ? 'BUY' : 'SELL';
  // a BUY spends collateral through its market's exchange contract: none allowed, none spent
  if (side === 'BUY') {
    const c = ctx.exchangeContracts();
    if (ctx.allowanceIsZero(String(o.maker), negRisk ? c.negRiskExchange : c.exchange))
      return reject(
        'INVALID_ORDER_NOT_ENOUGH_BALANCE',
        'not enough balance / allowance: the maker has not approved the exchange contract to spend its collateral',
      );
  }
  if (o.makerAmount > BigInt(MAX_ORDER_MICRO) * 2n || o.takerAmount > BigInt(MAX_ORDER_MICRO) * 2n)
    return reject('INVALID_ORDER_ERROR', 'order amounts too large');
  // the limit never better for the order than its signed amounts (bookTerms above)
  const market = ctx.engineMarketOfToken(tokenId);
  const tickPips = market?.tickPips ?? 1;
  const terms = bookTerms(side, o.makerAmount, o.takerAmount, req.orderType, tickPips);
  if (terms.size <= 0) return reject('INVALID_ORDER_MIN_SIZE', 'order is invalid. Size lower than the minimum');
  // said as such (the generic "could not insert order" reads as a transient failure a client retries)
  if (terms.size > MAX_ORDER_MICRO)
    return reject(
      'INVALID_ORDER_ERROR',
      `order is invalid. Size ${formatAmount(terms.size)} exceeds the maximum of ${formatAmount(MAX_ORDER_MICRO)} shares`,
    );
  const now = ctx.now();
  if (req.protocol === 2) {
    // the signed time (ms) may be old (orders are signed ahead), not in the future beyond the clock skew
    const ahead = req.maxTimestampAheadMs ?? V2_TIMESTAMP_MAX_AHEAD_MS;
    if (req.order.timestamp > BigInt(Math.floor(now + ahead)))
      return reject(
        'INVALID_ORDER_ERROR',
        `invalid timestamp: it is more than ${Math.round(ahead / 1000)} s ahead of the server's clock (unix milliseconds)`,
      );
  }
  // V1 signs the expiration; V2 carries it unsigned in the payload
  const expiration = req.protocol === 2 ? req.expiration : req.order.expiration;
  const gtdThresholdSec = ctx.gtdThresholdSec();
  let expiresAt = 0;
  if (req.orderType === 'GTD') {
    const exp = Number(expiration);
    if (!(exp > 0) || (exp - gtdThresholdSec) * 1000 <= now)
      return reject(
        'INVALID_ORDER_EXPIRATION',
        `invalid expiration: a GTD order needs expiration > now + ${gtdThresholdSec}s (unix seconds)`,
      );
    expiresAt = (exp - gtdThresholdSec) * 1000;
  } else if (expiration !== 0n && Number(expiration) * 1000 <= now)
    // any other type rests (or fills) now: an expiration already past makes an order the
    // exchange would never fill (and a V1 contract would refuse to settle)
    return reject('INVALID_ORDER_EXPIRATION', 'invalid expiration: the order expired already (unix seconds)');
  let feeRateBps: number;
  if (req.protocol === 2) {
    // no fee in a V2 order: the market's fee schedule applies at match time
    feeRateBps = market?.feeRateBps ?? found?.entry.meta.feeRateBps ?? 0;
  } else {
    if (req.order.feeRateBps > 10_000n) return reject('INVALID_ORDER_ERROR', 'invalid feeRateBps');
    feeRateBps = Number(req.order.feeRateBps);
  }
  const order: NewOrder = {
    id: orderID,
    account: o.maker.toLowerCase(),
    owner: key.apiKey,
    tokenId,
    side,
    price: terms.price,
    size: terms.size,
    type: req.orderType,
    postOnly: req.postOnly,
    expiresAt,
    feeRateBps,
    ...(req.protocol === 2 ? { feeModel: 'v2' as const } : {}),
    reservation: 2,
  };
  // a V2 order's builder code (signed) attributes it; a V1 order's comes in the body
  const builder = req.protocol === 2 && req.order.builder !== ZERO_BYTES32 ? req.order.builder : req.builder;
  return { ok: true, order, builder };
}

/**
 * The book order of an order from inside the exchange (flow agents, `placeInternal`): no signature,
 * no API key; the account owns it, and it pays `feeRateBps` (its market's) as the protocol the
 * exchange speaks charges a taker (V2: the fee curve; trial 19 F3: the world's takers paid V1's).
 */
export function internalOrder(o: InternalOrder, feeRateBps: number, protocol: 1 | 2 = 1): NewOrder {
  return {
    id: o.id,
    account: o.account,
    owner: o.account,
    tokenId: o.tokenId,
    side: o.side,
    price: o.price,
    size: o.size,
    type: o.type,
    postOnly: o.postOnly ?? false,
    expiresAt: o.expiresAt ?? 0,
    feeRateBps,
    ...(protocol === 2 ? { feeModel: 'v2' as const } : {}),
    reservation: 2,
  };
}
