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
 *     [minPrice, maxPrice], further than maxMidDistance from the token's mid, crossing the book
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
import { LOT_MICRO, PRICE_SCALE, isValidPrice, notional, tickPips, type Micro, type Pips } from '../core/units.ts';
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
  | 'INVALID_PRICE'
  | 'OFF_TICK'
  | 'PRICE_LIMIT'
  | 'PRICE_BAND'
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

/** What `gate` returns: the set execution may act on, and every refusal and cut with its reason. */
export interface GateResult {
  /** The set to hand to execution: same market and time, refused quotes removed, sizes cut. */
  readonly approved: DesiredQuotes;
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

/** A refusal of the whole market (or of a token's book): the same for every quote of the market. */
interface Failure {
  readonly code: RiskCode;
  readonly reason: string;
}

type TopOrError = Top | Failure;

// The top `readTop` read (scratch, so that the gate's hot path allocates no Top): valid only until
// the next call, the caller copies it at once.
let rtBid = 0;
let rtAsk = 0;
let rtComplement = false;
let rtBook: BookView | undefined;

/**
 * Reads the top of `token` into the scratch above: its own book, else `other`'s book seen through
 * the complement. A Failure (allocated: rare) when there is no usable top; null when read.
 */
function readTop(token: TokenId, other: TokenId, view: RiskView): Failure | null {
  const own = view.book(token);
  const b = own ?? view.book(other);
  if (b === undefined) return { code: 'NO_BOOK', reason: `no book for token ${token}` };
  if (b.stale) return { code: 'STALE_BOOK', reason: `the book of ${b.tokenId} is stale` };
  const bestBid = b.bestBid;
  const bestAsk = b.bestAsk;
  if (bestBid === null || bestAsk === null)
    return { code: 'NO_MID', reason: `the book of ${b.tokenId} is one-sided: no mid` };
  if (bestBid >= bestAsk)
    return { code: 'CROSSED_BOOK', reason: `the book of ${b.tokenId} is crossed (${bestBid} >= ${bestAsk})` };
  rtBook = b;
  if (own !== undefined) {
    rtBid = bestBid;
    rtAsk = bestAsk;
    rtComplement = false;
  } else {
    rtBid = PRICE_SCALE - bestAsk;
    rtAsk = PRICE_SCALE - bestBid;
    rtComplement = true;
  }
  return null;
}

function topFor(token: TokenId, other: TokenId, view: RiskView): TopOrError {
  const f = readTop(token, other, view);
  if (f !== null) return f;
  return { bid: rtBid, ask: rtAsk, mid: (rtBid + rtAsk) / 2, book: rtBook!, complement: rtComplement };
}

const lotDown = (m: number): number => Math.floor(m / LOT_MICRO) * LOT_MICRO;
const remainingOf = (o: LiveOrderView): number => o.originalSize - o.sizeMatched;

/** Shares buyable with `room` micro-collateral at `price` (exact while room x 10^4 < 2^53). */
function sharesFor(room: number, price: number): number {
  if (room <= 0) return 0;
  const scaled = room * PRICE_SCALE;
  return scaled >= Number.MAX_SAFE_INTEGER ? Number.MAX_SAFE_INTEGER : Math.floor(scaled / price);
}

/**
 * True when a BUY (or SELL) at `price` on `token` would trade against someone else's resting order:
 * a level at or through the price with size beyond our own orders there. Our own orders are the
 * live ones of `market` (with size remaining) among `orders` (all markets). Allocates nothing
 * unless the price reaches the top (bid, ask: the token's top, `complement` when read from the
 * other token's `book`).
 */
function crossesOthers(
  side: 'BUY' | 'SELL',
  price: number,
  bid: number,
  ask: number,
  book: BookView,
  complement: boolean,
  token: TokenId,
  orders: readonly LiveOrderView[],
  market: ConditionId,
): boolean {
  if (side === 'BUY' ? price < ask : price > bid) return false;
  // our orders resting on the opposite side of this token's book, by price on this token's scale
  const mine = new Map<number, number>();
  for (let i = 0; i < orders.length; i++) {
    const o = orders[i]!;
    if (o.market !== market || remainingOf(o) <= 0) continue;
    const same = o.tokenId === token;
    // an opposite-side order here: same token, other side; or the other token, same side, at 1 - p
    const opposite = same ? o.side !== side : o.side === side;
    if (!opposite) continue;
    const p = same ? o.price : PRICE_SCALE - o.price;
    mine.set(p, (mine.get(p) ?? 0) + remainingOf(o));
  }
  const bookSide = (side === 'BUY') !== complement ? 'asks' : 'bids';
  for (const [lp, size] of book.levels(bookSide, mine.size + 1)) {
    const p = complement ? PRICE_SCALE - lp : lp;
    if (side === 'BUY' ? p > price : p < price) return false;
    if (size - (mine.get(p) ?? 0) > 0) return true;
  }
  return false;
}

/** The refusals that need no market: the kill switch, a halt, failing heartbeats. */
function haltFailure(view: RiskView): Failure | null {
  const ks = view.killSwitch;
  if (ks?.tripped)
    return {
      code: 'KILL_SWITCH',
      reason: `kill switch tripped${ks.reason ? ` (${ks.reason.trigger}: ${ks.reason.message})` : ''}`,
    };
  if (view.halted) return { code: 'HALTED', reason: `halted: ${view.halted}` };
  if (view.heartbeatOk === false)
    return { code: 'HEARTBEAT', reason: 'heartbeats are failing: no new orders until one succeeds' };
  return null;
}

/** An unknown or inactive market. */
function infoFailure(market: ConditionId, info: MarketInfo | undefined): Failure | null {
  if (info === undefined) return { code: 'UNKNOWN_MARKET', reason: `unknown market ${market}` };
  if (!info.active) return { code: 'MARKET_INACTIVE', reason: `market ${market} is not active` };
  return null;
}

interface MarketCheck {
  readonly info: MarketInfo;
  readonly limits: MarketLimits;
  readonly tick: number;
  readonly tops: ReadonlyMap<TokenId, Top>;
}

/** Whole-market checks (of gateOrder); a refusal reason for every quote of the market, or what the rest needs. */
function checkMarket(market: ConditionId, tokens: Iterable<TokenId>, view: RiskView): MarketCheck | Failure {
  const halt = haltFailure(view);
  if (halt !== null) return halt;
  const info = view.market(market);
  const bad = infoFailure(market, info);
  if (bad !== null || info === undefined) return bad!;
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

/** Shared by every result that has none (frozen: callers only read results). */
const NONE: readonly never[] = Object.freeze([]);

/**
 * Checks one market's desired quotes against the limits and the state (see the module comment).
 * Pure. The approved set keeps the market and time of `desired`; refused quotes are removed, sizes
 * may be cut; every removal or cut is reported with a code and a reason. When nothing is refused
 * or cut, `approved` is `desired` itself, and `refusals` and `trims` are a shared frozen empty
 * array (results are read-only).
 */
// No closure is made per call or per quote below (refuse, cap): besides the allocation, tsx's esbuild
// keepNames wraps every named closure in a `__name` call (Object.defineProperty), which cost half
// of the gate's time on the backtest's hot path. The reasons of cuts are built only when reported.
// The common case (both tokens' tops fine, a handful of quotes, nothing refused or cut) allocates
// only the result: the market's two tokens are two slots (A = YES, B = NO) instead of maps, the
// refusals, trims and approved list are made on the first quote that needs them, and our own orders
// (to net out of the book) are looked up only for a quote that reaches the top.
export function gate(desired: DesiredQuotes, view: RiskView): GateResult {
  const quotes = desired.quotes;
  const n = quotes.length;
  if (n === 0) return { approved: desired, refusals: NONE, trims: NONE };
  const market = desired.market;

  // 1. whole-market refusals, then the top of every token quoted, in the order first quoted
  let fail = haltFailure(view);
  let info: MarketInfo | undefined;
  if (fail === null) {
    info = view.market(market);
    fail = infoFailure(market, info);
  }
  let a = '' as TokenId;
  let b = '' as TokenId;
  let haveA = false;
  let haveB = false;
  let aBid = 0;
  let aAsk = 0;
  let aComp = false;
  let aBook: BookView | undefined;
  let bBid = 0;
  let bAsk = 0;
  let bComp = false;
  let bBook: BookView | undefined;
  if (fail === null) {
    a = info!.tokens[0].tokenId;
    b = info!.tokens[1].tokenId;
    for (let i = 0; i < n; i++) {
      const t = quotes[i]!.tokenId;
      if (t === a) {
        if (haveA) continue;
        fail = readTop(a, b, view);
        if (fail !== null) break;
        haveA = true;
        aBid = rtBid;
        aAsk = rtAsk;
        aComp = rtComplement;
        aBook = rtBook;
      } else if (t === b) {
        if (haveB) continue;
        fail = readTop(b, a, view);
        if (fail !== null) break;
        haveB = true;
        bBid = rtBid;
        bAsk = rtAsk;
        bComp = rtComplement;
        bBook = rtBook;
      } // else refused per quote
    }
  }
  if (fail !== null) {
    const refused: Refusal[] = [];
    for (let i = 0; i < n; i++) refused.push({ quote: quotes[i]!, code: fail.code, reason: fail.reason });
    return { approved: { market, quotes: NONE, at: desired.at }, refusals: refused, trims: NONE };
  }
  const all = view.limits;
  const limits = limitsFor(all, market);
  const tickAny = view.tick?.(market) ?? tickPips(info!.tick);
  // the tick as an int32 when it is one (tickPips makes a double): `price % tick` is then an integer
  // remainder instead of a floating one (the same value: both are integers)
  const tick = (tickAny | 0) === tickAny ? tickAny | 0 : tickAny;
  const globalNotional = all.global.maxNotional;
  const globalOpen = all.global.maxOpenOrders;
  const aMid = (aBid + aAsk) / 2;
  const bMid = (bBid + bAsk) / 2;
  const minSize = Math.max(info!.minOrderSize, LOT_MICRO);

  // the state after the replacement: this market's live orders go, the others stay
  const orders = view.openOrders();
  let otherCount = 0;
  let otherNotional = 0;
  let reservedHere = 0;
  for (let i = 0; i < orders.length; i++) {
    const o = orders[i]!;
    const rem = remainingOf(o);
    if (rem <= 0) continue;
    if (o.market === market) {
      if (o.side === 'BUY') reservedHere += notional(rem, o.price, 'up');
    } else {
      otherCount++;
      otherNotional += notional(rem, o.price, 'up');
    }
  }
  let collateral = view.availableCollateral + reservedHere;
  // approved so far: `count` of them; while `approved` is null they are exactly quotes[0, count)
  let count = 0;
  let marketNotional = 0;
  let buysA = 0;
  let buysB = 0;
  let sellsA = 0;
  let sellsB = 0;
  let maxYesBid = -Infinity;
  let minYesAsk = Infinity;
  let approved: QuoteIntent[] | null = null;
  let refusals: Refusal[] | null = null;
  let trims: Trim[] | null = null;

  for (let i = 0; i < n; i++) {
    const q = quotes[i]!;
    const token = q.tokenId;
    // the token's slot (A: YES, B: NO)
    let isA: boolean;
    if (token === a) isA = true;
    else if (token === b) isA = false;
    else {
      (refusals ??= []).push({
        quote: q,
        code: 'WRONG_TOKEN',
        reason: `token ${q.tokenId} is not a token of market ${market}`,
      });
      continue;
    }
    if (q.side !== 'BUY' && q.side !== 'SELL') {
      (refusals ??= []).push({ quote: q, code: 'INVALID_PRICE', reason: `unknown side ${String(q.side)}` });
      continue;
    }
    if (!Number.isInteger(q.price) || q.price <= 0 || q.price >= PRICE_SCALE) {
      (refusals ??= []).push({ quote: q, code: 'INVALID_PRICE', reason: `price ${q.price} pips is not inside (0, 1)` });
      continue;
    }
    // isValidPrice(q.price, tick), the price being an integer already
    if (q.price % tick !== 0 || q.price < tick || q.price > PRICE_SCALE - tick) {
      (refusals ??= []).push({
        quote: q,
        code: 'OFF_TICK',
        reason: `price ${q.price} pips is not on the tick (${tick} pips) inside [tick, 1 - tick]`,
      });
      continue;
    }
    if (q.price < limits.minPrice || q.price > limits.maxPrice) {
      (refusals ??= []).push({
        quote: q,
        code: 'PRICE_LIMIT',
        reason: `price ${q.price} pips outside the limits [${limits.minPrice}, ${limits.maxPrice}]`,
      });
      continue;
    }
    const mid = isA ? aMid : bMid;
    if (Math.abs(q.price - mid) > limits.maxMidDistance) {
      (refusals ??= []).push({
        quote: q,
        code: 'PRICE_BAND',
        reason: `price ${q.price} pips is ${Math.abs(q.price - mid)} pips from the mid ${mid} (band ${limits.maxMidDistance})`,
      });
      continue;
    }
    const bid = isA ? aBid : bBid;
    const ask = isA ? aAsk : bAsk;
    if (crossesOthers(q.side, q.price, bid, ask, (isA ? aBook : bBook)!, isA ? aComp : bComp, token, orders, market)) {
      (refusals ??= []).push({
        quote: q,
        code: 'WOULD_CROSS',
        reason: `a ${q.side} at ${q.price} pips would cross the book (bid ${bid}, ask ${ask})`,
      });
      continue;
    }
    const yesBid = (token === a) === (q.side === 'BUY');
    const yp = token === a ? q.price : PRICE_SCALE - q.price;
    if (yesBid ? yp >= minYesAsk : yp <= maxYesBid) {
      (refusals ??= []).push({
        quote: q,
        code: 'SELF_CROSS',
        reason: `would cross another approved quote of this market (YES-equivalent ${yesBid ? 'bid' : 'ask'} at ${yp} pips)`,
      });
      continue;
    }
    if (!Number.isSafeInteger(q.size) || q.size <= 0) {
      (refusals ??= []).push({
        quote: q,
        code: 'INVALID_SIZE',
        reason: `size ${q.size} is not a positive integer of micro-shares`,
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
    const pos = Math.max(0, view.position(token));
    // the collateral when this quote is checked (a cut's reason quotes it)
    const collateralHere = collateral;
    if (q.side === 'BUY') {
      r = lotDown(Math.max(0, limits.maxPosition - pos - (isA ? buysA : buysB)));
      if (r < size) (size = r), (cut = CUT_POSITION);
      r = lotDown(Math.max(0, sharesFor(collateral, q.price)));
      if (r < size) (size = r), (cut = CUT_COLLATERAL);
    } else {
      r = lotDown(Math.max(0, pos - (isA ? sellsA : sellsB)));
      if (r < size) (size = r), (cut = CUT_NO_INVENTORY);
    }
    r = lotDown(Math.max(0, sharesFor(limits.maxNotional - marketNotional, q.price)));
    if (r < size) (size = r), (cut = CUT_NOTIONAL_MARKET);
    r = lotDown(Math.max(0, sharesFor(globalNotional - otherNotional - marketNotional, q.price)));
    if (r < size) (size = r), (cut = CUT_NOTIONAL_GLOBAL);
    if (size < minSize) {
      if (cut === CUT_NONE)
        (refusals ??= []).push({
          quote: q,
          code: 'MIN_SIZE',
          reason: `size ${q.size} is below the market's minimum ${minSize}`,
        });
      else
        (refusals ??= []).push({
          quote: q,
          code: CUT_CODES[cut]!,
          reason: `${cutReason(cut, pos, collateralHere, limits, all)}: what is left (${size}) is below the minimum size ${minSize}`,
        });
      continue;
    }
    if (count + 1 > limits.maxOpenOrders) {
      (refusals ??= []).push({
        quote: q,
        code: 'OPEN_ORDERS_MARKET',
        reason: `more than ${limits.maxOpenOrders} open orders in this market`,
      });
      continue;
    }
    if (otherCount + count + 1 > globalOpen) {
      (refusals ??= []).push({
        quote: q,
        code: 'OPEN_ORDERS_GLOBAL',
        reason: `more than ${globalOpen} open orders in all`,
      });
      continue;
    }

    // approved
    const nt = notional(size, q.price, 'up');
    if (q.side === 'BUY') {
      if (isA) buysA += size;
      else buysB += size;
      collateral -= nt;
    } else if (isA) sellsA += size;
    else sellsB += size;
    marketNotional += nt;
    if (yesBid) maxYesBid = Math.max(maxYesBid, yp);
    else minYesAsk = Math.min(minYesAsk, yp);
    if (approved === null) {
      // still exactly the quotes so far, unless one was refused before or this one is cut
      if (count === i && size === q.size) {
        count++;
        continue;
      }
      approved = quotes.slice(0, count);
    }
    count++;
    if (size === q.size) approved.push(q);
    else {
      approved.push({ ...q, size: size as Micro });
      (trims ??= []).push({
        quote: q,
        size: size as Micro,
        code: cut === CUT_NONE ? 'LOT' : CUT_CODES[cut]!,
        reason: cut === CUT_NONE ? 'cut' : cutReason(cut, pos, collateralHere, limits, all),
      });
    }
  }
  let out: DesiredQuotes;
  if (approved !== null) out = { market, quotes: approved, at: desired.at };
  else if (count === n)
    out = desired; // nothing refused nor cut
  else out = { market, quotes: quotes.slice(0, count), at: desired.at }; // only quotes after the approved ones were refused
  return { approved: out, refusals: refusals ?? NONE, trims: trims ?? NONE };
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

/** The reason of a cut (built only when reported). */
function cutReason(cut: number, pos: number, collateral: number, limits: MarketLimits, all: RiskLimits): string {
  switch (cut) {
    case CUT_LOT:
      return 'size rounded down to the 0.01-share lot';
    case CUT_ORDER_SIZE:
      return `cut to maxOrderSize ${limits.maxOrderSize}`;
    case CUT_POSITION:
      return `position ${pos} + resting buys would exceed maxPosition ${limits.maxPosition}`;
    case CUT_COLLATERAL:
      return `collateral available ${collateral}`;
    case CUT_NO_INVENTORY:
      return `sells beyond the ${pos} shares held (no shorting)`;
    case CUT_NOTIONAL_MARKET:
      return `market notional would exceed ${limits.maxNotional}`;
    case CUT_NOTIONAL_GLOBAL:
      return `global notional would exceed ${all.global.maxNotional}`;
    default:
      return 'cut';
  }
}

/** The gate's answer for one immediate order. */
export type OrderGateResult =
  | { readonly approved: ImmediateIntent; readonly refusal: null }
  | { readonly approved: null; readonly refusal: Refusal<ImmediateIntent> };

/**
 * Checks a rare immediate order (FOK/FAK): the whole-market checks, the tick and price limits, the
 * price band (its worst price must be within maxMidDistance of the mid), maxOrderSize, the position
 * limit (BUY) or the shares held (SELL) and the collateral. No trimming: an immediate order is
 * approved whole or refused. Pure.
 */
export function gateOrder(order: ImmediateIntent, view: RiskView): OrderGateResult {
  const refuse = (code: RiskCode, reason: string): OrderGateResult => ({
    approved: null,
    refusal: { quote: order, code, reason },
  });
  const mc = checkMarket(order.market, [order.tokenId], view);
  if ('code' in mc) return refuse(mc.code, mc.reason);
  const top = mc.tops.get(order.tokenId);
  if (top === undefined)
    return refuse('WRONG_TOKEN', `token ${order.tokenId} is not a token of market ${order.market}`);
  if (!isValidPrice(order.price, mc.tick))
    return refuse('OFF_TICK', `price ${order.price} pips is not on the tick (${mc.tick} pips)`);
  if (order.price < mc.limits.minPrice || order.price > mc.limits.maxPrice)
    return refuse('PRICE_LIMIT', `price ${order.price} pips outside the limits`);
  if (Math.abs(order.price - top.mid) > mc.limits.maxMidDistance)
    return refuse('PRICE_BAND', `worst price ${order.price} pips is too far from the mid ${top.mid}`);
  if (!Number.isSafeInteger(order.size) || order.size <= 0 || order.size % LOT_MICRO !== 0)
    return refuse('INVALID_SIZE', `size ${order.size} is not a positive number of 0.01-share lots`);
  if (order.size > mc.limits.maxOrderSize)
    return refuse('ORDER_SIZE', `size ${order.size} above maxOrderSize ${mc.limits.maxOrderSize}`);
  const pos = Math.max(0, view.position(order.tokenId));
  if (order.side === 'BUY') {
    if (pos + order.size > mc.limits.maxPosition)
      return refuse('POSITION', `position ${pos} + ${order.size} would exceed maxPosition ${mc.limits.maxPosition}`);
    if (notional(order.size, order.price, 'up') > view.availableCollateral)
      return refuse('COLLATERAL', `needs more than the ${view.availableCollateral} collateral available`);
  } else if (order.size > pos) return refuse('NO_INVENTORY', `sells ${order.size} with ${pos} shares held`);
  return { approved: order, refusal: null };
}
