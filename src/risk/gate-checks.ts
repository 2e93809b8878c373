/**
 * What the quote gate (gate.ts) and the immediate-order gate (gate-orders.ts) share: what they read
 * (`RiskView`), the codes and refusals they answer with, the whole-market checks (`checkMarket`: the
 * kill switch, halts, heartbeats, the market and its books), self-trade prevention (`selfTrade`) and
 * the formatting of their reasons. gate.ts re-exports the public part.
 */
import type { ConditionId, TokenId } from '../core/ids.ts';
import type { LiveOrderView, QuoteIntent } from '../core/intents.ts';
import { PRICE_SCALE, formatAmount, formatPrice, tickPips, type Micro, type Pips } from '../core/units.ts';
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

/** A token's top of book as the gate uses it. */
export interface Top {
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

export const remainingOf = (o: LiveOrderView): number => o.originalSize - o.sizeMatched;

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

export const NO_FOREIGN: readonly LiveOrderView[] = Object.freeze([]);

export interface MarketCheck {
  readonly info: MarketInfo;
  readonly limits: MarketLimits;
  readonly tick: number;
  readonly tops: ReadonlyMap<TokenId, Top>;
}

/** Whole-market checks; a refusal reason for every quote of the market, or what the rest needs. */
export function checkMarket(
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
 * Why a side is not one: the gate is where an untyped plugin's output (a .js plugin, a string from
 * a config) meets the types first, so the value is shown as given (trial 10 F15).
 */
export function badSide(side: unknown): string {
  return `unknown side ${show(side)}: expected 'BUY' or 'SELL' (upper case)`;
}

/**
 * Why a price is not a whole number of pips inside (0, 1), saying what was given: a string or a
 * decimal fraction is the unit mistake (a price of 0.21 is 2100 pips), not a range one (trial 10 F3).
 */
export function badPrice(p: unknown): string {
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
export function badSize(s: unknown): string | undefined {
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
export function px(p: number): string {
  return Number.isSafeInteger(p) ? formatPrice(p) : String(p / PRICE_SCALE);
}

/** Micro-units (shares or USDC) as a decimal for a reason ("100", "12.5"). */
export function sh(m: number): string {
  return Number.isSafeInteger(m) ? formatAmount(m) : String(m / 1e6);
}
