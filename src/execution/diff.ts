/**
 * Quote diffing (pure): which live orders to keep, which to cancel, which quotes to place, so that a
 * market ends up with the desired quotes while noise (a tick of drift, a sliver of size) does not
 * churn orders. Fewer cancels and places means fewer requests against the budgets and keeps queue
 * priority.
 */
import type { ConditionId, OrderId } from '../core/ids.ts';
import type { DesiredQuotes, LiveOrderView, QuoteIntent } from '../core/intents.ts';
import { LOT_MICRO } from '../core/units.ts';

/** How far a live order may be from a desired quote and still stand for it. */
export interface DiffTolerance {
  /** Max |price difference| in ticks (0: the exact price). */
  readonly priceTicks: number;
  /**
   * How far BELOW the desired size a live order's remaining size may be, as a fraction of the desired
   * size (0: the exact size). Never above: the desired size is what the risk gate approved, and a
   * kept order larger than it would rest beyond the limits the gate enforced (notional, position,
   * a fleet member's grant). But for less than a 0.01-share lot: a partly filled order's remaining
   * size need not be whole lots, and the gate approves quotes cut down to lots (review 48 F3: every
   * such partial fill replaced the order and lost its queue place).
   */
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
 * `priceTicks × tickPips` and a remaining size between (1 − `sizeFraction`) × and 1 × the quote's size (never above it: the
 * quote's size is what the gate approved; but for less than a lot, see DiffTolerance). The
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
  // (written lean: it runs on every cycle of the executor; plain arrays and indexed loops, and the
  // search of step 3 is set up only when a quote needs it. test/unit/execution/diff-reference.ts
  // keeps the straightforward version this one is property-tested against)
  const market: ConditionId = desired.market;
  const maxPrice = Math.floor(priceTicks) * tickPips;
  const cands: LiveOrderView[] = [];
  for (let i = 0; i < live.length; i++) if (live[i]!.market === market) cands.push(live[i]!);
  const quotes = desired.quotes;
  const nq = quotes.length;
  const nc = cands.length;
  // each quote's acceptable live orders, best first: exact (price and remaining size), then the
  // closest price, then the closest size, then the earliest in `live`
  const adj: (readonly number[])[] = [];
  for (let qi = 0; qi < nq; qi++) {
    const q = quotes[qi]!;
    const maxSize = Math.floor(q.size * sizeFraction);
    let list: number[] | undefined;
    for (let i = 0; i < nc; i++) {
      const o = cands[i]!;
      if (o.tokenId !== q.tokenId || o.side !== q.side) continue;
      if (Math.abs(o.price - q.price) > maxPrice) continue;
      const short = q.size - (o.originalSize - o.sizeMatched);
      if (short < 0 ? -short >= LOT_MICRO : short > maxSize) continue;
      if (list === undefined) list = [i];
      else list.push(i);
    }
    if (list !== undefined && list.length > 1) sortCandidates(list, cands, q);
    adj.push(list ?? NONE);
  }
  const quoteOf: number[] = []; // live index -> quote index
  for (let i = 0; i < nc; i++) quoteOf.push(-1);
  const orderOf: number[] = []; // quote index -> live index
  for (let qi = 0; qi < nq; qi++) orderOf.push(-1);
  // 1: exact matches, in desired order
  for (let qi = 0; qi < nq; qi++) {
    const a = adj[qi]!;
    const q = quotes[qi]!;
    for (let k = 0; k < a.length; k++) {
      const i = a[k]!;
      const o = cands[i]!;
      if (o.price !== q.price || o.originalSize - o.sizeMatched !== q.size) break; // exact ones sort first
      if (quoteOf[i]! < 0) {
        quoteOf[i] = qi;
        orderOf[qi] = i;
        break;
      }
    }
  }
  // 2: the rest take their best free order, in desired order
  let unmatched = false;
  for (let qi = 0; qi < nq; qi++) {
    if (orderOf[qi]! >= 0) continue;
    const a = adj[qi]!;
    for (let k = 0; k < a.length; k++) {
      const i = a[k]!;
      if (quoteOf[i]! < 0) {
        quoteOf[i] = qi;
        orderOf[qi] = i;
        break;
      }
    }
    if (orderOf[qi]! < 0 && a.length > 0) unmatched = true;
  }
  // 3: augmenting paths for quotes still unmatched: a maximum matching (fewest cancels and places)
  if (unmatched) augmentAll(adj, quoteOf, orderOf);
  const places: QuoteIntent[] = [];
  const kept: { id: OrderId; quote: number }[] = [];
  for (let qi = 0; qi < nq; qi++) {
    const i = orderOf[qi]!;
    if (i < 0) places.push(quotes[qi]!);
    else kept.push({ id: cands[i]!.id, quote: qi });
  }

  const cancels: OrderId[] = [];
  for (let i = 0; i < nc; i++) if (quoteOf[i]! < 0) cancels.push(cands[i]!.id);
  return { cancels, places, kept };
}

/** The empty candidate list (shared). */
const NONE: readonly number[] = Object.freeze([]);

/** Sorts a quote's candidate orders best first: closest price, then closest remaining size, then earliest. */
function sortCandidates(list: number[], cands: readonly LiveOrderView[], q: QuoteIntent): void {
  const dp = (i: number): number => Math.abs(cands[i]!.price - q.price);
  const ds = (i: number): number => Math.abs(cands[i]!.originalSize - cands[i]!.sizeMatched - q.size);
  list.sort((a, b) => dp(a) - dp(b) || ds(a) - ds(b) || a - b);
}

/** Step 3 of diffQuotes: an augmenting path for every quote still unmatched, in desired order. */
function augmentAll(adj: readonly (readonly number[])[], quoteOf: number[], orderOf: number[]): void {
  const seen: boolean[] = [];
  const augment = (qi: number): boolean => {
    const a = adj[qi]!;
    for (let k = 0; k < a.length; k++) {
      const i = a[k]!;
      if (seen[i] === true) continue;
      seen[i] = true;
      if (quoteOf[i]! < 0 || augment(quoteOf[i]!)) {
        quoteOf[i] = qi;
        orderOf[qi] = i;
        return true;
      }
    }
    return false;
  };
  for (let qi = 0; qi < adj.length; qi++) {
    if (orderOf[qi]! >= 0 || adj[qi]!.length === 0) continue;
    seen.length = 0;
    augment(qi);
  }
}
