/**
 * A VERBATIM copy of `gate` (with its private helpers) from src/risk/gate.ts as it was before the
 * allocation-free rewrite, renamed `referenceGate`: the oracle of gate-equivalence.test.ts. Do not
 * "fix" or optimise it; it is the definition of the expected results.
 */
import type { ConditionId, TokenId } from '../../../src/core/ids.ts';
import type { DesiredQuotes, LiveOrderView, QuoteIntent } from '../../../src/core/intents.ts';
import { LOT_MICRO, PRICE_SCALE, isValidPrice, notional, tickPips, type Micro } from '../../../src/core/units.ts';
import type { MarketInfo } from '../../../src/core/venue.ts';
import type { BookView } from '../../../src/strategy/api.ts';
import { limitsFor, type MarketLimits, type RiskLimits } from '../../../src/risk/limits.ts';
import type { GateResult, Refusal, RiskCode, RiskView, Trim } from '../../../src/risk/gate.ts';

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
    return { code: 'CROSSED_BOOK', reason: `the book of ${b.tokenId} is crossed (${b.bestBid} >= ${b.bestAsk})` };
  if (own !== undefined)
    return { bid: b.bestBid, ask: b.bestAsk, mid: (b.bestBid + b.bestAsk) / 2, book: b, complement: false };
  const bid = PRICE_SCALE - b.bestAsk;
  const ask = PRICE_SCALE - b.bestBid;
  return { bid, ask, mid: (bid + ask) / 2, book: b, complement: true };
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
// No closure is made per call or per quote below (refuse, cap): besides the allocation, tsx's esbuild
// keepNames wraps every named closure in a `__name` call (Object.defineProperty), which cost half
// of the gate's time on the backtest's hot path. The reasons of cuts are built only when reported.
function resultOf(
  desired: DesiredQuotes,
  quotes: readonly QuoteIntent[],
  refusals: Refusal[],
  trims: Trim[],
): GateResult {
  return { approved: { market: desired.market, quotes, at: desired.at }, refusals, trims };
}

function tokenOf(q: QuoteIntent): TokenId {
  return q.tokenId;
}

export function referenceGate(desired: DesiredQuotes, view: RiskView): GateResult {
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
      refusals.push({ quote: q, code: 'INVALID_PRICE', reason: `unknown side ${String(q.side)}` });
      continue;
    }
    if (!Number.isInteger(q.price) || q.price <= 0 || q.price >= PRICE_SCALE) {
      refusals.push({ quote: q, code: 'INVALID_PRICE', reason: `price ${q.price} pips is not inside (0, 1)` });
      continue;
    }
    if (!isValidPrice(q.price, tick)) {
      refusals.push({
        quote: q,
        code: 'OFF_TICK',
        reason: `price ${q.price} pips is not on the tick (${tick} pips) inside [tick, 1 - tick]`,
      });
      continue;
    }
    if (q.price < limits.minPrice || q.price > limits.maxPrice) {
      refusals.push({
        quote: q,
        code: 'PRICE_LIMIT',
        reason: `price ${q.price} pips outside the limits [${limits.minPrice}, ${limits.maxPrice}]`,
      });
      continue;
    }
    if (Math.abs(q.price - top.mid) > limits.maxMidDistance) {
      refusals.push({
        quote: q,
        code: 'PRICE_BAND',
        reason: `price ${q.price} pips is ${Math.abs(q.price - top.mid)} pips from the mid ${top.mid} (band ${limits.maxMidDistance})`,
      });
      continue;
    }
    if (crossesOthers(q.side, q.price, top, q.tokenId, marketOrders)) {
      refusals.push({
        quote: q,
        code: 'WOULD_CROSS',
        reason: `a ${q.side} at ${q.price} pips would cross the book (bid ${top.bid}, ask ${top.ask})`,
      });
      continue;
    }
    const yesBid = (q.tokenId === yes) === (q.side === 'BUY');
    const yp = q.tokenId === yes ? q.price : PRICE_SCALE - q.price;
    if (yesBid ? yp >= minYesAsk : yp <= maxYesBid) {
      refusals.push({
        quote: q,
        code: 'SELF_CROSS',
        reason: `would cross another approved quote of this market (YES-equivalent ${yesBid ? 'bid' : 'ask'} at ${yp} pips)`,
      });
      continue;
    }
    if (!Number.isSafeInteger(q.size) || q.size <= 0) {
      refusals.push({
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
          reason: `size ${q.size} is below the market's minimum ${minSize}`,
        });
      else
        refusals.push({
          quote: q,
          code: CUT_CODES[cut]!,
          reason: `${cutReason(cut, pos, collateralHere, limits, view.limits)}: what is left (${size}) is below the minimum size ${minSize}`,
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
        reason: `more than ${view.limits.global.maxOpenOrders} open orders in all`,
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
