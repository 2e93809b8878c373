/**
 * A frozen copy of `diffQuotes` (src/execution/diff.ts) as it was before its allocation-lean
 * rewrite, kept VERBATIM (only `export` and the name changed) as the reference the equivalence
 * property test (diff-equivalence.slow.test.ts) compares the live function with. Do not "fix" or
 * optimise this copy: it is the definition of the expected output. If the diff rules change on
 * purpose, change both and say so in the commit.
 */
import type { ConditionId, OrderId } from '../../../src/core/ids.ts';
import type { DesiredQuotes, LiveOrderView, QuoteIntent } from '../../../src/core/intents.ts';
import type { DiffTolerance, QuoteDiff } from '../../../src/execution/diff.ts';
import { LOT_MICRO } from '../../../src/core/units.ts';

export function diffQuotesReference(
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
      const ds = q.size - (o.originalSize - o.sizeMatched);
      if (ds < 0 ? -ds >= LOT_MICRO : ds > maxSize) continue; // never above the desired (approved) size, but for under a lot
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
