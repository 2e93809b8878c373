/**
 * Quote diffing (pure): which live orders to keep, which to cancel, which quotes to place, so that a
 * market ends up with the desired quotes while noise (a tick of drift, a sliver of size) does not
 * churn orders. Fewer cancels and places means fewer requests against the budgets and keeps queue
 * priority.
 */
import type { ConditionId, OrderId } from '../core/ids.ts';
import type { DesiredQuotes, LiveOrderView, QuoteIntent } from '../core/intents.ts';

/** How far a live order may be from a desired quote and still stand for it. */
export interface DiffTolerance {
  /** Max |price difference| in ticks (0: the exact price). */
  readonly priceTicks: number;
  /** Max |remaining size − desired size| as a fraction of the desired size (0: the exact size). */
  readonly sizeFraction: number;
}

/** What to do in one market: cancel these orders, place these quotes; the rest is kept. */
export interface QuoteDiff {
  readonly cancels: OrderId[];
  readonly places: QuoteIntent[];
  /** Kept live orders, each with the index of the desired quote it stands for. */
  readonly kept: { readonly id: OrderId; readonly quote: number }[];
}

/**
 * Diff the desired quotes of one market against the live orders.
 *
 * A live order can stand for a quote when it has the same token and side, a price within
 * `priceTicks × tickPips` and a remaining size within ±`sizeFraction` of the quote's size. The
 * matching is a MAXIMUM one (fewest cancels and places), found deterministically:
 *  1. every quote, in desired order, takes a free order with exactly its price and remaining size
 *     (the earliest in `live`): exact orders keep their queue position;
 *  2. every quote still unmatched, in desired order, takes its best free order: closest price, then
 *     closest size, then earliest;
 *  3. augmenting paths (tried in that same preference order) rematch orders until no unmatched
 *     quote can get one. Greedy alone is not enough: a ladder that drifts by a tick would let one
 *     quote take the order its neighbour needed, and churn an order for nothing.
 * Consequences (property-tested): a fixed point (once the places went out, diffing the same quotes
 * again changes nothing); no placed quote could have used a cancelled order. Kept orders are each
 * matched to exactly one quote; every other live order of that market is cancelled (in `live`
 * order); every unmatched quote is placed (in desired order). Other markets' orders are ignored.
 * Cost: O(quotes × live × path) on a handful of orders per market, microseconds.
 *
 * The remaining size of a live order is `originalSize − sizeMatched`.
 * @throws RangeError when a tolerance or tick is negative or not finite.
 */
export function diffQuotes(
  desired: DesiredQuotes,
  live: readonly LiveOrderView[],
  tolerance: DiffTolerance,
  tickPips: number,
): QuoteDiff {
  const { priceTicks, sizeFraction } = tolerance;
  if (!(priceTicks >= 0) || !Number.isFinite(priceTicks))
    throw new RangeError(`priceTicks must be a non-negative number, got ${priceTicks}`);
  if (!(sizeFraction >= 0) || !Number.isFinite(sizeFraction))
    throw new RangeError(`sizeFraction must be a non-negative number, got ${sizeFraction}`);
  if (!(tickPips >= 0) || !Number.isFinite(tickPips))
    throw new RangeError(`tickPips must be a non-negative number, got ${tickPips}`);
  const market: ConditionId = desired.market;
  const maxPrice = Math.floor(priceTicks) * tickPips;
  const cands: LiveOrderView[] = [];
  for (const o of live) if (o.market === market) cands.push(o);
  const places: QuoteIntent[] = [];
  const kept: { id: OrderId; quote: number }[] = [];
  const quotes = desired.quotes;
  // each quote's acceptable live orders, best first: exact (price and remaining size), then the
  // closest price, then the closest size, then the earliest in `live`
  const adj: number[][] = [];
  for (const q of quotes) {
    const maxSize = Math.floor(q.size * sizeFraction);
    const list: { i: number; dp: number; ds: number }[] = [];
    for (let i = 0; i < cands.length; i++) {
      const o = cands[i]!;
      if (o.tokenId !== q.tokenId || o.side !== q.side) continue;
      const dp = Math.abs(o.price - q.price);
      if (dp > maxPrice) continue;
      const ds = Math.abs(o.originalSize - o.sizeMatched - q.size);
      if (ds > maxSize) continue;
      list.push({ i, dp, ds });
    }
    list.sort((a, b) => a.dp - b.dp || a.ds - b.ds || a.i - b.i);
    adj.push(list.map((x) => x.i));
  }
  const quoteOf = new Int32Array(cands.length).fill(-1); // live index -> quote index
  const orderOf = new Int32Array(quotes.length).fill(-1); // quote index -> live index
  const take = (qi: number, i: number): void => {
    quoteOf[i] = qi;
    orderOf[qi] = i;
  };
  // 1: exact matches, in desired order
  for (let qi = 0; qi < quotes.length; qi++) {
    const a = adj[qi]!;
    for (const i of a) {
      const o = cands[i]!;
      const q = quotes[qi]!;
      if (o.price !== q.price || o.originalSize - o.sizeMatched !== q.size) break; // exact ones sort first
      if (quoteOf[i]! < 0) {
        take(qi, i);
        break;
      }
    }
  }
  // 2: the rest take their best free order, in desired order
  for (let qi = 0; qi < quotes.length; qi++) {
    if (orderOf[qi]! >= 0) continue;
    for (const i of adj[qi]!) {
      if (quoteOf[i]! < 0) {
        take(qi, i);
        break;
      }
    }
  }
  // 3: augmenting paths for quotes still unmatched: a maximum matching (fewest cancels and places)
  const seen = new Uint8Array(cands.length);
  const augment = (qi: number): boolean => {
    for (const i of adj[qi]!) {
      if (seen[i] === 1) continue;
      seen[i] = 1;
      if (quoteOf[i]! < 0 || augment(quoteOf[i]!)) {
        take(qi, i);
        return true;
      }
    }
    return false;
  };
  for (let qi = 0; qi < quotes.length; qi++) {
    if (orderOf[qi]! >= 0 || adj[qi]!.length === 0) continue;
    seen.fill(0);
    augment(qi);
  }
  for (let qi = 0; qi < quotes.length; qi++) {
    const i = orderOf[qi]!;
    if (i < 0) places.push(quotes[qi]!);
    else kept.push({ id: cands[i]!.id, quote: qi });
  }

  const cancels: OrderId[] = [];
  for (let i = 0; i < cands.length; i++) if (quoteOf[i]! < 0) cancels.push(cands[i]!.id);
  return { cancels, places, kept };
}
