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
import type { ConditionId, TokenId } from '../core/ids.ts';
import type { DesiredQuotes, ImmediateIntent, LiveOrderView, QuoteIntent } from '../core/intents.ts';
import {
  LOT_MICRO,
  PRICE_SCALE,
  formatAmount,
  formatPrice,
  isValidPrice,
  marketBuyTerms,
  notional,
  tickFromPips,
  tickPips,
  type Micro,
  type Pips,
} from '../core/units.ts';
import type { MarketInfo } from '../core/venue.ts';
import type { BookView } from '../core/views.ts';
import type { KillSwitchState } from './kill-switch.ts';
import { limitsFor, type MarketLimits, type RiskLimits } from './limits.ts';

/** Stable codes of refusals and trims (for logs and metrics). */
export type RiskCode =
  | 'KILL_SWITCH'
  | 'HALTED'
  | 'HEARTBEAT'
  | 'UNKNOWN_MARKET'
  | 'MARKET_INACTIVE'
  | 'NO_BOOK'
  | 'STALE_BOOK'
  | 'CROSSED_BOOK'
  | 'NO_MID'
  | 'WRONG_TOKEN'
  | 'INVALID_SIDE'
  | 'INVALID_PRICE'
  | 'OFF_TICK'
  | 'PRICE_LIMIT'
  | 'PRICE_BAND'
  | 'SELF_TRADE'
  | 'WOULD_CROSS'
  | 'SELF_CROSS'
  | 'INVALID_SIZE'
  | 'MIN_SIZE'
  | 'LOT'
  | 'ORDER_SIZE'
  | 'POSITION'
  | 'NO_INVENTORY'
  | 'COLLATERAL'
  | 'NOTIONAL_MARKET'
  | 'NOTIONAL_GLOBAL'
  | 'OPEN_ORDERS_MARKET'
  | 'OPEN_ORDERS_GLOBAL';

/** What the gate reads. Built by the engine from its state; everything current. */
export interface RiskView {
  readonly limits: RiskLimits;
  /** The kill switch (a `KillSwitch` fits); tripped refuses everything. */
  readonly killSwitch?: KillSwitchState;
  /** A reason not to quote at all right now (e.g. "reconciling"); null/undefined when none. */
  readonly halted?: string | null;
  /**
   * A reason not to quote this market right now (a fleet member that does not hold the market's
   * lease); null/undefined when none. Optional: without it every market may be quoted.
   */
  marketHalted?(market: ConditionId): string | null | undefined;
  /** False while heartbeats fail (execution fails closed until one succeeds); default true. */
  readonly heartbeatOk?: boolean;
  market(id: ConditionId): MarketInfo | undefined;
  /** The current tick of a market in pips when it changed since MarketInfo (tick_size_change). */
  tick?(id: ConditionId): Pips | undefined;
  book(tokenId: TokenId): BookView | undefined;
  /** Net shares held, micro. */
  position(tokenId: TokenId): Micro;
  /** Every live (resting or pending) order, all markets. */
  openOrders(): readonly LiveOrderView[];
  /**
   * Orders resting on our own wallet that the bot did not place (another client's: the tracker's
   * foreign orders), of one market: a quote that would match one is refused (SELF_TRADE).
   * Optional: without it there are none.
   */
  foreignOrders?(market: ConditionId): readonly LiveOrderView[];
  /** Collateral free for new orders (not reserved by live orders), micro. */
  readonly availableCollateral: Micro;
}

/** A quote (or immediate order) the gate refused, with a stable code and a readable reason. */
export interface Refusal<Q = QuoteIntent> {
  readonly quote: Q;
  readonly code: RiskCode;
  readonly reason: string;
}

/** An approved quote whose size the gate cut, and which limit cut it. */
export interface Trim {
  readonly quote: QuoteIntent;
  /** The approved size, micro-shares (smaller than quote.size). */
  readonly size: Micro;
  readonly code: RiskCode;
  readonly reason: string;
}

declare const APPROVED: unique symbol;
/**
 * What the gate approved. Execution accepts nothing else (`Executor.submit` and `Executor.execute`
 * take `Approved<...>` and check at run time that the gate made it), so an unchecked intent cannot
 * reach the venue: barter's `RiskApproved<T>`. Only this module makes one: `gate`, `gateOrder`,
 * `pullQuotes` (pulling is always allowed) and `restamped` (an approval seen again at a later time).
 */
export type Approved<T> = T & { readonly [APPROVED]: true };

/**
 * An approved quote set. Only this module constructs one (the class is not exported), so
 * `instanceof` tells an approval from a look-alike (a cast, a spread copy). A class instead of a
 * registry of approved objects: the gate approves ~100,000 sets per backtest, and a WeakSet entry
 * per set cost more than the rest of the approval (and weighs on every garbage collection).
 */
class ApprovedQuotes implements DesiredQuotes {
  constructor(
    readonly market: ConditionId,
    readonly quotes: readonly QuoteIntent[],
    readonly at: number,
  ) {}
}

/** The immediate orders approved and not yet spent (an immediate order is spent when executed). */
const orderApprovals = new WeakSet<object>();

function approveQuotes(market: ConditionId, quotes: readonly QuoteIntent[], at: number): Approved<DesiredQuotes> {
  return new ApprovedQuotes(market, quotes, at) as unknown as Approved<DesiredQuotes>;
}

function approveOrder(x: ImmediateIntent): Approved<ImmediateIntent> {
  orderApprovals.add(x);
  return x as Approved<ImmediateIntent>;
}

/** True when `x` is an approval made by this module (and, for an immediate order, not yet spent). */
export function isApproved(x: object): boolean {
  return x instanceof ApprovedQuotes || orderApprovals.has(x);
}

/**
 * Spends an immediate order's approval: true once for an approved order, false afterwards (an
 * approved FOK/FAK is executed at most once).
 */
export function spendApproval(x: object): boolean {
  return orderApprovals.delete(x);
}

/** An empty set for `market`: execution cancels its quotes. Pulling is always allowed. */
export function pullQuotes(market: ConditionId, at: number): Approved<DesiredQuotes> {
  return approveQuotes(market, [], at);
}

/**
 * The same approved quotes handed out again at a later time (a memo of the gate: src/risk/gate-memo.ts).
 * @throws Error when `prev` is not an approval of this module
 */
export function restamped(prev: Approved<DesiredQuotes>, at: number): Approved<DesiredQuotes> {
  if (!(prev instanceof ApprovedQuotes)) throw new Error('restamped: not an approval of the risk gate');
  return prev.at === at ? prev : approveQuotes(prev.market, prev.quotes, at);
}

/** What `gate` returns: the set execution may act on, and every refusal and cut with its reason. */
export interface GateResult {
  /** The set to hand to execution: same market and time, refused quotes removed, sizes cut. */
  readonly approved: Approved<DesiredQuotes>;
  readonly refusals: readonly Refusal[];
  /** Approved quotes whose size was cut (the approved size is in `approved` too). */
  readonly trims: readonly Trim[];
}

/** A token's top of book as the gate uses it. */
interface Top {
  readonly bid: number;
  readonly ask: number;
  readonly mid: number;
  readonly book: BookView;
  /** The view is the other token's book seen through the complement. */
  readonly complement: boolean;
}

type TopOrError = Top | { readonly code: RiskCode; readonly reason: string };

function topFor(token: TokenId, other: TokenId, view: RiskView): TopOrError {
  const own = view.book(token);
  const b = own ?? view.book(other);
  if (b === undefined) return { code: 'NO_BOOK', reason: `no book for token ${token}` };
  if (b.stale) return { code: 'STALE_BOOK', reason: `the book of ${b.tokenId} is stale` };
  if (b.bestBid === null || b.bestAsk === null)
    return { code: 'NO_MID', reason: `the book of ${b.tokenId} is one-sided: no mid` };
  if (b.bestBid >= b.bestAsk)
    return {
      code: 'CROSSED_BOOK',
      reason: `the book of ${b.tokenId} is crossed (${px(b.bestBid)} >= ${px(b.bestAsk)})`,
    };
  if (own !== undefined)
    return { bid: b.bestBid, ask: b.bestAsk, mid: (b.bestBid + b.bestAsk) / 2, book: b, complement: false };
  const bid = PRICE_SCALE - b.bestAsk;
  const ask = PRICE_SCALE - b.bestBid;
  return { bid, ask, mid: (bid + ask) / 2, book: b, complement: true };
}

const lotDown = (m: number): number => Math.floor(m / LOT_MICRO) * LOT_MICRO;
const remainingOf = (o: LiveOrderView): number => o.originalSize - o.sizeMatched;

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
 * The first foreign order (resting on our own wallet) that a `side` order at `price` on `token`
 * would match: on the same token the other side at or through the price; on the complementary
 * token the same side at or through 1 - price (a BUY YES at p and a BUY NO at q match when
 * p + q >= 1; two SELLs when p + q <= 1). Undefined when none.
 */
export function selfTrade(
  side: 'BUY' | 'SELL',
  price: number,
  token: TokenId,
  foreign: readonly LiveOrderView[],
): LiveOrderView | undefined {
  for (let i = 0; i < foreign.length; i++) {
    const f = foreign[i]!;
    if (remainingOf(f) <= 0) continue;
    const same = f.tokenId === token;
    // the foreign order on this token's scale: its side and price as a counterparty here
    const fSide = same ? f.side : f.side === 'BUY' ? 'SELL' : 'BUY';
    const fPrice = same ? f.price : PRICE_SCALE - f.price;
    if (fSide === side) continue;
    if (side === 'BUY' ? fPrice <= price : fPrice >= price) return f;
  }
  return undefined;
}

const NO_FOREIGN: readonly LiveOrderView[] = Object.freeze([]);

interface MarketCheck {
  readonly info: MarketInfo;
  readonly limits: MarketLimits;
  readonly tick: number;
  readonly tops: ReadonlyMap<TokenId, Top>;
}

/** Whole-market checks; a refusal reason for every quote of the market, or what the rest needs. */
function checkMarket(
  market: ConditionId,
  tokens: Iterable<TokenId>,
  view: RiskView,
): MarketCheck | { code: RiskCode; reason: string } {
  const ks = view.killSwitch;
  if (ks?.tripped)
    return {
      code: 'KILL_SWITCH',
      reason: `kill switch tripped${ks.reason ? ` (${ks.reason.trigger}: ${ks.reason.message})` : ''}`,
    };
  if (view.halted) return { code: 'HALTED', reason: `halted: ${view.halted}` };
  const mh = view.marketHalted?.(market);
  if (mh) return { code: 'HALTED', reason: `halted: ${mh}` };
  if (view.heartbeatOk === false)
    return { code: 'HEARTBEAT', reason: 'heartbeats are failing: no new orders until one succeeds' };
  const info = view.market(market);
  if (info === undefined) return { code: 'UNKNOWN_MARKET', reason: `unknown market ${market}` };
  if (!info.active) return { code: 'MARKET_INACTIVE', reason: `market ${market} is not active` };
  const [a, b] = [info.tokens[0].tokenId, info.tokens[1].tokenId];
  const tops = new Map<TokenId, Top>();
  for (const t of tokens) {
    if (t !== a && t !== b) continue; // refused per quote
    if (tops.has(t)) continue;
    const r = topFor(t, t === a ? b : a, view);
    if ('code' in r) return r;
    tops.set(t, r);
  }
  return { info, limits: limitsFor(view.limits, market), tick: view.tick?.(market) ?? tickPips(info.tick), tops };
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

/** The gate's answer for one immediate order. */
export type OrderGateResult =
  | { readonly approved: Approved<ImmediateIntent>; readonly refusal: null }
  | { readonly approved: null; readonly refusal: Refusal<ImmediateIntent> };

/**
 * What an output's other parts take from an immediate order's room (`gateOrders`). The approved
 * quote sets of the same output REPLACE their markets' live orders, and execution runs a market's
 * quote change handed before an immediate order ahead of it (src/execution/executor.ts), so the
 * shares and collateral the order may use are counted on the state after the replacement: the live
 * sells of a replaced market are gone and the set's approved sells reserve their size instead (the
 * venue refuses a SELL of shares a resting sell of ours holds: INVALID_ORDER_NOT_ENOUGH_BALANCE).
 * The orders approved before it in the same output have spent their shares and collateral.
 */
export interface OrderRoom {
  /** The output's approved quote sets, each replacing its market's live orders. */
  readonly replacing: readonly DesiredQuotes[];
  /** Shares sold and bought by the orders approved before, by token; collateral they spent. */
  readonly sold: Map<TokenId, number>;
  readonly bought: Map<TokenId, number>;
  spent: number;
}

/** An empty room (no quote set replaced, no order before). */
export function orderRoom(replacing: readonly DesiredQuotes[] = []): OrderRoom {
  return { replacing, sold: new Map(), bought: new Map(), spent: 0 };
}

/** The shares of `token` that our resting sells will hold when the order goes (see OrderRoom). */
function reservedShares(token: TokenId, market: ConditionId, view: RiskView, room: OrderRoom): number {
  let n = 0;
  const set = room.replacing.find((d) => d.market === market);
  if (set !== undefined) {
    for (const q of set.quotes) if (q.tokenId === token && q.side === 'SELL') n += q.size;
    return n;
  }
  for (const o of view.openOrders()) if (o.tokenId === token && o.side === 'SELL') n += Math.max(0, remainingOf(o));
  return n;
}

/** The collateral free when the order goes: a replaced market's live buys release theirs, its set's buys take theirs. */
function freeCollateral(market: ConditionId, view: RiskView, room: OrderRoom): number {
  let free = view.availableCollateral - room.spent;
  const set = room.replacing.find((d) => d.market === market);
  if (set === undefined) return free;
  for (const o of view.openOrders()) {
    const rem = remainingOf(o);
    if (o.market === market && o.side === 'BUY' && rem > 0) free += notional(rem, o.price, 'up');
  }
  for (const q of set.quotes) if (q.side === 'BUY') free -= notional(q.size, q.price, 'up');
  return free;
}

/**
 * Checks the immediate orders (FOK/FAK) of one output, in order, each as `gateOrder` does, on the
 * room the output leaves them (OrderRoom: its quote sets replace their markets' live orders, the
 * orders approved before spend shares and collateral). Pure.
 */
export function gateOrders(
  orders: readonly ImmediateIntent[],
  view: RiskView,
  replacing: readonly DesiredQuotes[] = [],
): OrderGateResult[] {
  const room = orderRoom(replacing);
  return orders.map((o) => gateOrder(o, view, room));
}

/**
 * Checks a rare immediate order (FOK/FAK): the whole-market checks, the tick and price limits, the
 * price band (its worst price must be within maxMidDistance of the mid), no foreign order of our
 * own wallet within its worst price (SELF_TRADE), maxOrderSize, the position
 * limit (BUY) or the shares held and not reserved by our resting sells (SELL) and the collateral,
 * on `room` (what the same output's quote sets and earlier orders leave: OrderRoom; approving the
 * order spends its share of it). No trimming: an immediate order is approved whole or refused, a
 * BUY at the size its whole-cent amount buys (core/units.ts `marketBuyTerms`: the size asked, or a
 * little more at a price of 3-4 decimals), and under the market's minimum size it is refused
 * (MIN_SIZE), as the venue would. Pure but for `room`.
 */
export function gateOrder(order: ImmediateIntent, view: RiskView, room: OrderRoom = orderRoom()): OrderGateResult {
  const refuse = (code: RiskCode, reason: string): OrderGateResult => ({
    approved: null,
    refusal: { quote: order, code, reason },
  });
  const mc = checkMarket(order.market, [order.tokenId], view);
  if ('code' in mc) return refuse(mc.code, mc.reason);
  const top = mc.tops.get(order.tokenId);
  if (top === undefined)
    return refuse('WRONG_TOKEN', `token ${order.tokenId} is not a token of market ${order.market}`);
  if (order.side !== 'BUY' && order.side !== 'SELL') return refuse('INVALID_SIDE', badSide(order.side));
  if (!Number.isInteger(order.price) || order.price <= 0 || order.price >= PRICE_SCALE)
    return refuse('INVALID_PRICE', badPrice(order.price));
  if (!isValidPrice(order.price, mc.tick))
    return refuse('OFF_TICK', `price ${px(order.price)} is not on the tick (${px(mc.tick)})`);
  if (order.price < mc.limits.minPrice || order.price > mc.limits.maxPrice)
    return refuse(
      'PRICE_LIMIT',
      `price ${px(order.price)} outside the limits [${px(mc.limits.minPrice)}, ${px(mc.limits.maxPrice)}]`,
    );
  if (Math.abs(order.price - top.mid) > mc.limits.maxMidDistance)
    return refuse(
      'PRICE_BAND',
      `worst price ${px(order.price)} is too far from the mid ${px(top.mid)} (band ${px(mc.limits.maxMidDistance)})`,
    );
  const foreign = view.foreignOrders?.(order.market) ?? NO_FOREIGN;
  const mine = foreign.length === 0 ? undefined : selfTrade(order.side, order.price, order.tokenId, foreign);
  if (mine !== undefined)
    return refuse(
      'SELF_TRADE',
      `a ${order.side} up to ${px(order.price)} could trade with an order resting on our own wallet that the bot did not place (${mine.side} at ${px(mine.price)})`,
    );
  if (!Number.isSafeInteger(order.size) || order.size <= 0 || order.size % LOT_MICRO !== 0)
    return refuse(
      'INVALID_SIZE',
      badSize(order.size) ?? `size ${sh(order.size)} is not a positive number of 0.01-share lots`,
    );
  // a market BUY is signed for whole cents of collateral: it buys `size`, which may be a little more
  // than asked at a price of 3-4 decimals (core/units.ts marketBuyTerms); the venues sign and fill it
  const size =
    order.side === 'BUY' ? marketBuyTerms(order.size, order.price, tickFromPips(mc.tick)).shares : order.size;
  const bought = size === order.size ? '' : ` (${sh(size)} as signed: a market BUY spends whole cents)`;
  const minSize = Math.max(mc.info.minOrderSize, LOT_MICRO);
  if (size < minSize) return refuse('MIN_SIZE', `size ${sh(order.size)} is below the market's minimum ${sh(minSize)}`);
  if (size > mc.limits.maxOrderSize)
    return refuse('ORDER_SIZE', `size ${sh(order.size)}${bought} above maxOrderSize ${sh(mc.limits.maxOrderSize)}`);
  const pos = Math.max(0, view.position(order.tokenId));
  const token = order.tokenId;
  if (order.side === 'BUY') {
    const before = room.bought.get(token) ?? 0;
    if (pos + before + size > mc.limits.maxPosition)
      return refuse(
        'POSITION',
        `position ${sh(pos)}${before > 0 ? ` + ${sh(before)} bought by the orders before it` : ''} + ${sh(size)}${bought} would exceed maxPosition ${sh(mc.limits.maxPosition)}`,
      );
    const n = notional(size, order.price, 'up');
    const free = freeCollateral(order.market, view, room);
    if (n > free) return refuse('COLLATERAL', `needs more than the ${sh(Math.max(0, free))} USDC collateral available`);
    room.bought.set(token, before + size);
    room.spent += n;
  } else {
    const before = room.sold.get(token) ?? 0;
    const reserved = reservedShares(token, order.market, view, room);
    if (order.size > pos - reserved - before) {
      const taken = [
        reserved > 0 ? `${sh(reserved)} held by your resting sells (pull or shrink them first)` : '',
        before > 0 ? `${sh(before)} sold by the orders before it` : '',
      ].filter((x) => x !== '');
      return refuse(
        'NO_INVENTORY',
        `sells ${sh(order.size)} with ${sh(pos)} shares held${taken.length > 0 ? `, ${taken.join(' and ')}` : ''}`,
      );
    }
    room.sold.set(token, before + order.size);
  }
  // a copy: the approval is spent when executed, whatever the strategy does with its object
  return {
    approved: approveOrder(size === order.size ? { ...order } : { ...order, size: size as Micro }),
    refusal: null,
  };
}

/**
 * Why a side is not one: the gate is where an untyped plugin's output (a .js plugin, a string from
 * a config) meets the types first, so the value is shown as given (trial 10 F15).
 */
function badSide(side: unknown): string {
  return `unknown side ${show(side)}: expected 'BUY' or 'SELL' (upper case)`;
}

/**
 * Why a price is not a whole number of pips inside (0, 1), saying what was given: a string or a
 * decimal fraction is the unit mistake (a price of 0.21 is 2100 pips), not a range one (trial 10 F3).
 */
function badPrice(p: unknown): string {
  if (typeof p !== 'number')
    return `price ${show(p)} is a ${typeof p}, not a number: prices are integer pips (0.21 is 2100)`;
  if (Number.isNaN(p)) return 'price NaN is not a number of pips';
  if (!Number.isInteger(p))
    return p > 0 && p < 1
      ? `price ${p} is not a whole number of pips: prices are integer pips (${p} is ${Math.round(p * PRICE_SCALE)})`
      : `price ${p} pips is not a whole number of pips`;
  return `price ${px(p)} is not inside (0, 1)`;
}

/** Why a size is not a number of micro-shares, when it is a type or unit mistake; undefined otherwise. */
function badSize(s: unknown): string | undefined {
  if (typeof s !== 'number')
    return `size ${show(s)} is a ${typeof s}, not a number: sizes are integer micro-shares (5 shares is 5000000)`;
  if (Number.isNaN(s)) return 'size NaN is not a number of micro-shares';
  return undefined; // a fraction of a micro-share: said in shares by the caller ("10.0000005 is not a multiple")
}

/** A value as given, short (`"0.21"`, `'buy'`, `null`). */
function show(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v.slice(0, 40)) : String(v).slice(0, 40);
}

/** A price in pips as a decimal for a reason ("0.45"; a half-pip mid as "0.45005"). */
function px(p: number): string {
  return Number.isSafeInteger(p) ? formatPrice(p) : String(p / PRICE_SCALE);
}

/** Micro-units (shares or USDC) as a decimal for a reason ("100", "12.5"). */
function sh(m: number): string {
  return Number.isSafeInteger(m) ? formatAmount(m) : String(m / 1e6);
}
