/**
 * One reward sample of one market, from the matching engine's resting orders (core/rewards.ts has
 * the methodology). The book is walked from the touch, never whole:
 *
 *  1. the best qualifying bid and ask (the first order of at least the min size from each touch)
 *     give the size-cutoff-adjusted midpoint; a side without one: nothing scores;
 *  2. when they are 2v or more apart, no order is inside the band (each of them sits at v or more
 *     from the midpoint, and every other qualifying order further): nothing scores;
 *  3. otherwise the orders of at least the min size strictly inside v of the midpoint on each side,
 *     walking out from the touch and stopping at the band's edge, are scored (`scoreSample`).
 *
 * Each order scores for its account: the maker (funder) address its collateral comes from, the
 * address rewards are paid to.
 */
import { scoreSample, type RewardConfig, type Sample, type ScoredOrder } from '../../core/rewards.ts';
import type { Micro, Pips } from '../../core/units.ts';

/** What the sampler reads of a book: the matching engine's `forEachResting`. */
export interface RestingBook {
  forEachResting(
    conditionId: string,
    side: 'bid' | 'ask',
    fn: (account: string, yesPrice: number, remaining: number) => boolean | undefined,
  ): void;
}

/** The best price (YES pips) of an order of at least `minSize` on one side, or null. */
export function bestQualifying(
  book: RestingBook,
  conditionId: string,
  side: 'bid' | 'ask',
  minSize: number,
): number | null {
  let best: number | null = null;
  book.forEachResting(conditionId, side, (_a, p, rem) => {
    if (rem < minSize) return true;
    best = p;
    return false;
  });
  return best;
}

/** Twice the adjusted midpoint of a market's book now (pips), or null when a side has no qualifying order. */
export function bookMid2(book: RestingBook, conditionId: string, minSize: number): number | null {
  const bid = bestQualifying(book, conditionId, 'bid', minSize);
  if (bid === null) return null;
  const ask = bestQualifying(book, conditionId, 'ask', minSize);
  return ask === null ? null : bid + ask;
}

/** The orders that may score in a market now (at least the min size, strictly inside the band), in YES terms. */
export function bandOrders(book: RestingBook, conditionId: string, cfg: RewardConfig): ScoredOrder[] {
  const mid2 = bookMid2(book, conditionId, cfg.minSize);
  const v2 = 2 * cfg.maxSpread;
  if (mid2 === null) return [];
  const out: ScoredOrder[] = [];
  for (const side of ['bid', 'ask'] as const) {
    const bid = side === 'bid';
    book.forEachResting(conditionId, side, (maker, p, rem) => {
      if (Math.abs(2 * p - mid2) >= v2) {
        // beyond the band: the rest of this side is further out, unless the order sits on the far
        // side of the midpoint (a small order beyond a wide qualifying touch): walk on past it
        return bid ? 2 * p > mid2 : 2 * p < mid2;
      }
      if (rem >= cfg.minSize) out.push({ maker, bid, price: p as Pips, size: rem as Micro });
      return true;
    });
  }
  return out;
}

/** One sample of a market's book (every maker's Q_min now). */
export function sampleMarket(book: RestingBook, conditionId: string, cfg: RewardConfig): Sample {
  return scoreSample(cfg, bandOrders(book, conditionId, cfg));
}
