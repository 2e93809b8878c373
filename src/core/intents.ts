/**
 * Intents as data: what a strategy wants, before risk and execution decide what is sent.
 * Integer units only (prices in pips on the token's own scale, sizes in micro-shares).
 */
import type { ConditionId, OrderId, TokenId } from './ids.ts';
import type { Micro, Pips, Side } from './units.ts';

/** One resting quote a strategy wants on the book. */
export interface QuoteIntent {
  readonly tokenId: TokenId;
  readonly side: Side;
  readonly price: Pips;
  readonly size: Micro;
}

/**
 * The complete set of resting quotes wanted in one market right now. It REPLACES the previous set
 * for that market (an empty list means: no quotes there). The latest set wins; older ones are
 * dropped, never sent.
 */
export interface DesiredQuotes {
  readonly market: ConditionId;
  readonly quotes: readonly QuoteIntent[];
  /** Clock time the strategy produced it (unix ms). */
  readonly at: number;
}

/** A rare immediate order (FOK/FAK): `size` in micro-shares, `price` the worst acceptable. */
export interface ImmediateIntent {
  readonly market: ConditionId;
  readonly tokenId: TokenId;
  readonly side: Side;
  readonly price: Pips;
  readonly size: Micro;
  readonly type: 'FOK' | 'FAK';
}

/** What a strategy handler returns for one event: nothing, new quotes for some markets, orders. */
export interface StrategyOutput {
  readonly quotes?: readonly DesiredQuotes[];
  readonly orders?: readonly ImmediateIntent[];
}

/** A live order as execution and risk see it. */
export interface LiveOrderView {
  readonly id: OrderId;
  readonly market: ConditionId;
  readonly tokenId: TokenId;
  readonly side: Side;
  readonly price: Pips;
  readonly originalSize: Micro;
  readonly sizeMatched: Micro;
  /**
   * When the order was created (signed or first seen), unix ms from the injected clock; undefined
   * when unknown (e.g. adopted from the venue). Strategies use it for a maximum order age.
   */
  readonly createdAt?: number;
}

/** The same quotes (token, side, price and size, in order); a strategy may build a new array each time. */
export function sameQuotes(a: readonly QuoteIntent[], b: readonly QuoteIntent[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.tokenId !== y.tokenId || x.side !== y.side || x.price !== y.price || x.size !== y.size) return false;
  }
  return true;
}
