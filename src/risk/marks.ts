/**
 * Marks for the loss limit (the kill switch's `recordPnl`): what a held position is worth now, in
 * pips. With a two-sided book it is the mid, as everywhere else. Without one the position is not
 * left out (it used to count for nothing, which is exactly when a market collapses: its bids
 * vanish): it is valued at the price it could be closed at, never better than the last mid seen.
 *
 *  - long (size > 0): the best bid; with no bid, the lower of the best ask and the last mid (nobody
 *    pays more than that);
 *  - short (size < 0): the best ask (the cost to buy back); with no ask, the higher of the best bid
 *    and the last mid;
 *  - an empty book (unknown rather than worthless: a resync, a quiet market) keeps the last mid;
 *    never seen one: no mark (undefined: the position is reported unmarked, as before; a book
 *    that never showed a price says nothing about a loss).
 *
 * Pure: the daemon keeps the last mids and calls this per held token.
 */
import { PRICE_SCALE } from '../core/units.ts';

export interface MarkBook {
  readonly bestBid: number | null;
  readonly bestAsk: number | null;
}

/** The mark of a position of `size` (sign only matters) on this book (undefined: no book), in pips; undefined when nothing is known. */
export function riskMark(size: number, book: MarkBook | undefined, lastMid: number | undefined): number | undefined {
  const bid = book?.bestBid ?? null;
  const ask = book?.bestAsk ?? null;
  if (bid !== null && ask !== null) return Math.round((bid + ask) / 2);
  if (size >= 0) {
    if (bid !== null) return bid;
    if (ask !== null) return lastMid === undefined ? ask : Math.min(ask, lastMid);
    return lastMid;
  }
  if (ask !== null) return ask;
  if (bid !== null) return lastMid === undefined ? bid : Math.max(bid, lastMid);
  return lastMid;
}

/**
 * The mark of a token of a resolved market, pips: 1 for the winning token, 0 for the other (what it
 * redeems for); undefined when the market has not resolved or its winner is not known (`winner`
 * null). A market resolving against a position is the largest loss a daemon can take at once: its
 * book is gone, and without this mark the loss limits did not see the loss while the daemon ran
 * (trial 25 F1).
 */
export function resolutionMark(tokenId: string, winner: string | null | undefined): number | undefined {
  if (winner === undefined || winner === null) return undefined;
  return tokenId === winner ? PRICE_SCALE : 0;
}

/**
 * The marks of the followed markets' tokens, pips, and the set of those tokens: a resolved market's
 * at {@link resolutionMark} (with no winner seen, the venue's mark), an open one's at `mid` (its
 * book's mid, rounded; undefined: none). One rule for the loss limits and the status (review 49b F7).
 */
export function followedMarks<T extends string>(
  markets: readonly { readonly market: string; readonly tokens: readonly { readonly tokenId: T }[] }[],
  winner: (market: string) => string | null | undefined,
  mid: (tokenId: T) => number | undefined,
  venueMarks: ReadonlyMap<string, number>,
): { marks: Map<T, number>; followed: Set<T> } {
  const marks = new Map<T, number>();
  const followed = new Set<T>();
  for (const m of markets) {
    const w = winner(m.market);
    for (const t of m.tokens) {
      followed.add(t.tokenId);
      const mk = w !== undefined ? (resolutionMark(t.tokenId, w) ?? venueMarks.get(t.tokenId)) : mid(t.tokenId);
      if (mk !== undefined) marks.set(t.tokenId, mk);
    }
  }
  return { marks, followed };
}
