/**
 * The pre-trade risk gate: intents in, approved or refused out, each refusal with a reason. It sits
 * between the strategy and execution; execution acts only on what the gate approved (DESIGN
 * practice 2: barter's RiskApproved/RiskRefused, nautilus' RiskEngine).
 *
 * `gate(desired, view)` is pure: a function of the desired set and a read-only view of the state.
 * The desired set REPLACES the market's quotes, so limits are checked on the state after the
 * replacement: this market's live orders are counted as gone (execution cancels what is not
 * approved), other markets' live orders as staying. Quotes are considered in the order given
 * (strategies list their most important quotes first) and greedily:
 *
 *  1. whole-market refusals: the kill switch tripped, a halt (reconciliation pending, ...), failing
 *     heartbeats, an unknown or inactive market, and the book: missing, stale, crossed or one-sided
 *     (no mid) — never a quote on a guessed price. A refused market gets an empty approved set, so
 *     execution pulls its quotes; an empty desired set always passes (pulling is always allowed).
 *  2. per-quote refusals: a token of another market, an invalid or off-tick price, outside
 *     [minPrice, maxPrice], further than maxMidDistance from the token's mid, crossing or touching
 *     a FOREIGN order resting on our own wallet (self-trade prevention: an order someone else
 *     placed on this wallet, `foreignOrders`; also across the YES/NO complement), crossing the book
 *     (net of our own orders, which are being replaced), crossing another approved quote (also
 *     across the YES/NO complement), too many open orders (per market, global).
 *  3. trims: sizes are cut to the 0.01 lot, to maxOrderSize, to the position room (maxPosition per
 *     token for buys; the shares held for sells: no shorting), to the collateral available (plus
 *     what this market's live buys reserve), to the notional left per market and globally. A quote
 *     cut below the market's minimum size is refused with the code of the limit that cut it.
 *
 * Units: prices in pips, sizes in micro-shares, collateral in micro. Notional = size x price,
 * rounded up, on the order's own token.
 */
import type { TokenId } from '../core/ids.ts';
import type { DesiredQuotes, LiveOrderView, QuoteIntent } from '../core/intents.ts';
import { LOT_MICRO, PRICE_SCALE, isValidPrice, notional, type Micro } from '../core/units.ts';
import { approveQuotes, type Approved } from './approval.ts';
import {
  NO_FOREIGN,
  badPrice,
  badSide,
  badSize,
  checkMarket,
  px,
  remainingOf,
  selfTrade,
  sh,
  type Refusal,
  type RiskCode,
  type RiskView,
  type Top,
} from './gate-checks.ts';
import type { MarketLimits, RiskLimits } from './limits.ts';

// the gate's public API lives in three sibling modules (the approval brand, the shared checks, the
// immediate-order gate); importers keep importing it from here
export { isApproved, pullQuotes, restamped, spendApproval, type Approved } from './approval.ts';
export { selfTrade, type Refusal, type RiskCode, type RiskView } from './gate-checks.ts';
export { gateOrder, gateOrders, orderRoom, type OrderGateResult, type OrderRoom } from './gate-orders.ts';

/** An approved quote whose size the gate cut, and which limit cut it. */
export interface Trim {
  readonly quote: QuoteIntent;
  /** The approved size, micro-shares (smaller than quote.size). */
  readonly size: Micro;
  readonly code: RiskCode;
  readonly reason: string;
}

/** What `gate` returns: the set execution may act on, and every refusal and cut with its reason. */
export interface GateResult {
  /** The set to hand to execution: same market and time, refused quotes removed, sizes cut. */
  readonly approved: Approved<DesiredQuotes>;
  readonly refusals: readonly Refusal[];
  /** Approved quotes whose size was cut (the approved size is in `approved` too). */
  readonly trims: readonly Trim[];
}

const lotDown = (m: number): number => Math.floor(m / LOT_MICRO) * LOT_MICRO;

/**
 * What open orders use of the global limits, as the gate counts it: the resting ones (remaining
 * size > 0) and their notional (remaining x price, rounded up), µ-collateral. A fleet member's
 * risk keeper sizes its grant with it (src/fleet/risk-reserve.ts).
 */
export function globalUsage(orders: readonly LiveOrderView[]): { notional: number; orders: number } {
  let n = 0;
  let count = 0;
  for (const o of orders) {
    const rem = remainingOf(o);
    if (rem <= 0) continue;
    count++;
    n += notional(rem, o.price, 'up');
  }
  return { notional: n, orders: count };
}

/** Shares buyable with `room` micro-collateral at `price` (exact while room x 10^4 < 2^53). */
function sharesFor(room: number, price: number): number {
  if (room <= 0) return 0;
  const scaled = room * PRICE_SCALE;
  return scaled >= Number.MAX_SAFE_INTEGER ? Number.MAX_SAFE_INTEGER : Math.floor(scaled / price);
}

/**
 * True when a BUY (or SELL) at `price` on `token` would trade against someone else's resting order:
 * a level at or through the price with size beyond our own orders there.
 */
function crossesOthers(
  side: 'BUY' | 'SELL',
  price: number,
  top: Top,
  token: TokenId,
  marketOrders: readonly LiveOrderView[],
): boolean {
  if (side === 'BUY' ? price < top.ask : price > top.bid) return false;
  // our orders resting on the opposite side of this token's book, by price on this token's scale
  const mine = new Map<number, number>();
  for (const o of marketOrders) {
    const same = o.tokenId === token;
    // an opposite-side order here: same token, other side; or the other token, same side, at 1 - p
    const opposite = same ? o.side !== side : o.side === side;
    if (!opposite) continue;
    const p = same ? o.price : PRICE_SCALE - o.price;
    mine.set(p, (mine.get(p) ?? 0) + remainingOf(o));
  }
  const bookSide = (side === 'BUY') !== top.complement ? 'asks' : 'bids';
  for (const [lp, size] of top.book.levels(bookSide, mine.size + 1)) {
    const p = top.complement ? PRICE_SCALE - lp : lp;
    if (side === 'BUY' ? p > price : p < price) return false;
    if (size - (mine.get(p) ?? 0) > 0) return true;
  }
  return false;
}

/**
 * Checks one market's desired quotes against the limits and the state (see the module comment).
 * Pure. The approved set keeps the market and time of `desired`; refused quotes are removed, sizes
 * may be cut; every removal or cut is reported with a code and a reason.
 */
function resultOf(
  desired: DesiredQuotes,
  quotes: readonly QuoteIntent[],
  refusals: Refusal[],
  trims: Trim[],
): GateResult {
  return { approved: approveQuotes(desired.market, quotes, desired.at), refusals, trims };
}

function tokenOf(q: QuoteIntent): TokenId {
  return q.tokenId;
}

export function gate(desired: DesiredQuotes, view: RiskView): GateResult {
  const refusals: Refusal[] = [];
  const trims: Trim[] = [];
  if (desired.quotes.length === 0) return resultOf(desired, [], refusals, trims);

  const mc = checkMarket(desired.market, desired.quotes.map(tokenOf), view);
  if ('code' in mc) {
    for (const q of desired.quotes) refusals.push({ quote: q, code: mc.code, reason: mc.reason });
    return resultOf(desired, [], refusals, trims);
  }
  const { info, limits, tick, tops } = mc;
  const yes = info.tokens[0].tokenId;
  const minSize = Math.max(info.minOrderSize, LOT_MICRO);
  const foreign = view.foreignOrders?.(desired.market) ?? NO_FOREIGN;

  // the state after the replacement: this market's live orders go, the others stay
  const marketOrders: LiveOrderView[] = [];
  let otherCount = 0;
  let otherNotional = 0;
  let reservedHere = 0;
  for (const o of view.openOrders()) {
    const rem = remainingOf(o);
    if (rem <= 0) continue;
    if (o.market === desired.market) {
      marketOrders.push(o);
      if (o.side === 'BUY') reservedHere += notional(rem, o.price, 'up');
    } else {
      otherCount++;
      otherNotional += notional(rem, o.price, 'up');
    }
  }
  let collateral = view.availableCollateral + reservedHere;
  let count = 0;
  let marketNotional = 0;
  const buys = new Map<TokenId, number>();
  const sells = new Map<TokenId, number>();
  let maxYesBid = -Infinity;
  let minYesAsk = Infinity;
  const approved: QuoteIntent[] = [];

  for (const q of desired.quotes) {
    const top = tops.get(q.tokenId);
    if (top === undefined) {
      refusals.push({
        quote: q,
        code: 'WRONG_TOKEN',
        reason: `token ${q.tokenId} is not a token of market ${desired.market}`,
      });
      continue;
    }
    if (q.side !== 'BUY' && q.side !== 'SELL') {
      refusals.push({ quote: q, code: 'INVALID_SIDE', reason: badSide(q.side) });
      continue;
    }
    if (!Number.isInteger(q.price) || q.price <= 0 || q.price >= PRICE_SCALE) {
      refusals.push({ quote: q, code: 'INVALID_PRICE', reason: badPrice(q.price) });
      continue;
    }
    if (!isValidPrice(q.price, tick)) {
      refusals.push({
        quote: q,
        code: 'OFF_TICK',
        reason: `price ${px(q.price)} is not on the tick (${px(tick)}) inside [tick, 1 - tick]`,
      });
      continue;
    }
    if (q.price < limits.minPrice || q.price > limits.maxPrice) {
      refusals.push({
        quote: q,
        code: 'PRICE_LIMIT',
        reason: `price ${px(q.price)} outside the limits [${px(limits.minPrice)}, ${px(limits.maxPrice)}]`,
      });
      continue;
    }
    if (Math.abs(q.price - top.mid) > limits.maxMidDistance) {
      refusals.push({
        quote: q,
        code: 'PRICE_BAND',
        reason: `price ${px(q.price)} is ${px(Math.abs(q.price - top.mid))} from the mid ${px(top.mid)} (band ${px(limits.maxMidDistance)})`,
      });
      continue;
    }
    const mine = foreign.length === 0 ? undefined : selfTrade(q.side, q.price, q.tokenId, foreign);
    if (mine !== undefined) {
      refusals.push({
        quote: q,
        code: 'SELF_TRADE',
        reason: `a ${q.side} at ${px(q.price)} would trade with an order resting on our own wallet that the bot did not place (${mine.side} at ${px(mine.price)} on ${mine.tokenId === q.tokenId ? 'this token' : 'the complementary token'})`,
      });
      continue;
    }
    if (crossesOthers(q.side, q.price, top, q.tokenId, marketOrders)) {
      refusals.push({
        quote: q,
        code: 'WOULD_CROSS',
        reason: `a ${q.side} at ${px(q.price)} would cross the book (bid ${px(top.bid)}, ask ${px(top.ask)})`,
      });
      continue;
    }
    const yesBid = (q.tokenId === yes) === (q.side === 'BUY');
    const yp = q.tokenId === yes ? q.price : PRICE_SCALE - q.price;
    if (yesBid ? yp >= minYesAsk : yp <= maxYesBid) {
      refusals.push({
        quote: q,
        code: 'SELF_CROSS',
        reason: `would cross another approved quote of this market (YES-equivalent ${yesBid ? 'bid' : 'ask'} at ${px(yp)})`,
      });
      continue;
    }
    if (!Number.isSafeInteger(q.size) || q.size <= 0) {
      refusals.push({
        quote: q,
        code: 'INVALID_SIZE',
        reason: badSize(q.size) ?? `size ${sh(q.size)} is not a positive multiple of 0.000001 share`,
      });
      continue;
    }

    // each limit may cut the size; the last one that cut it is reported
    let size: number = q.size;
    let cut = CUT_NONE;
    let r = lotDown(Math.max(0, q.size));
    if (r < size) (size = r), (cut = CUT_LOT);
    r = lotDown(Math.max(0, limits.maxOrderSize));
    if (r < size) (size = r), (cut = CUT_ORDER_SIZE);
    const pos = Math.max(0, view.position(q.tokenId));
    // the collateral when this quote is checked (a cut's reason quotes it)
    const collateralHere = collateral;
    if (q.side === 'BUY') {
      r = lotDown(Math.max(0, limits.maxPosition - pos - (buys.get(q.tokenId) ?? 0)));
      if (r < size) (size = r), (cut = CUT_POSITION);
      r = lotDown(Math.max(0, sharesFor(collateral, q.price)));
      if (r < size) (size = r), (cut = CUT_COLLATERAL);
    } else {
      r = lotDown(Math.max(0, pos - (sells.get(q.tokenId) ?? 0)));
      if (r < size) (size = r), (cut = CUT_NO_INVENTORY);
    }
    r = lotDown(Math.max(0, sharesFor(limits.maxNotional - marketNotional, q.price)));
    if (r < size) (size = r), (cut = CUT_NOTIONAL_MARKET);
    r = lotDown(Math.max(0, sharesFor(view.limits.global.maxNotional - otherNotional - marketNotional, q.price)));
    if (r < size) (size = r), (cut = CUT_NOTIONAL_GLOBAL);
    if (size < minSize) {
      if (cut === CUT_NONE)
        refusals.push({
          quote: q,
          code: 'MIN_SIZE',
          reason: `size ${sh(q.size)} is below the market's minimum ${sh(minSize)}`,
        });
      else
        refusals.push({
          quote: q,
          code: CUT_CODES[cut]!,
          reason: `${cutReason(cut, pos, collateralHere, limits, view.limits)}: what is left (${sh(size)}) is below the minimum size ${sh(minSize)}`,
        });
      continue;
    }
    if (count + 1 > limits.maxOpenOrders) {
      refusals.push({
        quote: q,
        code: 'OPEN_ORDERS_MARKET',
        reason: `more than ${limits.maxOpenOrders} open orders in this market`,
      });
      continue;
    }
    if (otherCount + count + 1 > view.limits.global.maxOpenOrders) {
      refusals.push({
        quote: q,
        code: 'OPEN_ORDERS_GLOBAL',
        reason: globalOrdersReason(view.limits.global),
      });
      continue;
    }

    // approved
    const n = notional(size, q.price, 'up');
    count++;
    marketNotional += n;
    if (q.side === 'BUY') {
      buys.set(q.tokenId, (buys.get(q.tokenId) ?? 0) + size);
      collateral -= n;
    } else sells.set(q.tokenId, (sells.get(q.tokenId) ?? 0) + size);
    if (yesBid) maxYesBid = Math.max(maxYesBid, yp);
    else minYesAsk = Math.min(minYesAsk, yp);
    if (size === q.size) approved.push(q);
    else {
      approved.push({ ...q, size: size as Micro });
      trims.push({
        quote: q,
        size: size as Micro,
        code: cut === CUT_NONE ? 'LOT' : CUT_CODES[cut]!,
        reason: cut === CUT_NONE ? 'cut' : cutReason(cut, pos, collateralHere, limits, view.limits),
      });
    }
  }
  return resultOf(desired, approved, refusals, trims);
}

// which limit cut a quote's size: an index into CUT_CODES (CUT_NONE: none)
const CUT_NONE = -1;
const CUT_LOT = 0;
const CUT_ORDER_SIZE = 1;
const CUT_POSITION = 2;
const CUT_COLLATERAL = 3;
const CUT_NO_INVENTORY = 4;
const CUT_NOTIONAL_MARKET = 5;
const CUT_NOTIONAL_GLOBAL = 6;
const CUT_CODES: readonly RiskCode[] = [
  'LOT',
  'ORDER_SIZE',
  'POSITION',
  'COLLATERAL',
  'NO_INVENTORY',
  'NOTIONAL_MARKET',
  'NOTIONAL_GLOBAL',
];

/** The reason of an OPEN_ORDERS_GLOBAL refusal: the account's cap, or a fleet member's grant of it. */
function globalOrdersReason(g: RiskLimits['global']): string {
  return g.account !== undefined
    ? `fleet grant: ${g.maxOpenOrders} of ${g.account.maxOpenOrders} open orders (the account's cap is shared by the fleet's members)`
    : `more than ${g.maxOpenOrders} open orders in all`;
}

/** The reason of a cut (built only when reported). */
function cutReason(cut: number, pos: number, collateral: number, limits: MarketLimits, all: RiskLimits): string {
  switch (cut) {
    case CUT_LOT:
      return 'size rounded down to the 0.01-share lot';
    case CUT_ORDER_SIZE:
      return `cut to maxOrderSize ${sh(limits.maxOrderSize)}`;
    case CUT_POSITION:
      return `position ${sh(pos)} + resting buys would exceed maxPosition ${sh(limits.maxPosition)}`;
    case CUT_COLLATERAL:
      return `collateral available ${sh(collateral)} USDC`;
    case CUT_NO_INVENTORY:
      return `sells beyond the ${sh(pos)} shares held (no shorting)`;
    case CUT_NOTIONAL_MARKET:
      return `market notional would exceed ${sh(limits.maxNotional)} USDC`;
    case CUT_NOTIONAL_GLOBAL:
      return all.global.account !== undefined
        ? `fleet grant: global notional would exceed ${sh(all.global.maxNotional)} of ${sh(all.global.account.maxNotional)} USDC`
        : `global notional would exceed ${sh(all.global.maxNotional)} USDC`;
    default:
      return 'cut';
  }
}
