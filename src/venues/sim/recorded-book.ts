/**
 * The recorded book as our orders meet it: the liquidity we took from each recorded level is
 * tracked per token and side (and mirrored on the complement token at 1 − p) until the level's
 * recorded updates show it gone, so the same recorded liquidity is never taken twice. Functions of
 * a token's state; no emission.
 */
import { PRICE_SCALE, type Side } from '../../core/units.ts';
import type { TokenState } from './sim-state.ts';

/** Best recorded price on a side of `t` with liquidity left for us (0: none). */
export function effBest(t: TokenState, bidSide: boolean): number {
  const book = t.book;
  const b = bidSide ? book.bestBid() : book.bestAsk();
  if (b === null) return 0;
  const cons = bidSide ? t.consumedBid : t.consumedAsk;
  if (cons.size === 0 || !cons.has(b)) return b;
  const side: Side = bidSide ? 'BUY' : 'SELL';
  if (bidSide) {
    for (let p = b; p > 0; p--) {
      const s = book.sizeAt(side, p);
      if (s > 0 && s - (cons.get(p) ?? 0) > 0) return p;
    }
  } else {
    for (let p = b; p < PRICE_SCALE; p++) {
      const s = book.sizeAt(side, p);
      if (s > 0 && s - (cons.get(p) ?? 0) > 0) return p;
    }
  }
  return 0;
}

/** Marks up to `amount` of `t`'s recorded liquidity on a side, best first up to `limit`, as taken by us (and its mirror on the complement). */
export function consume(t: TokenState, bidSide: boolean, limit: number, amount: number): void {
  const book = t.book;
  const side: Side = bidSide ? 'BUY' : 'SELL';
  const cons = bidSide ? t.consumedBid : t.consumedAsk;
  const b = bidSide ? book.bestBid() : book.bestAsk();
  if (b === null) return;
  for (let p = b; amount > 0 && (bidSide ? p >= limit && p > 0 : p <= limit && p < PRICE_SCALE); bidSide ? p-- : p++) {
    const s = book.sizeAt(side, p);
    if (s === 0) continue;
    const used = cons.get(p) ?? 0;
    const take = Math.min(amount, s - used);
    if (take <= 0) continue;
    markConsumed(t, bidSide, p, take);
    amount -= take;
  }
}

/** Marks `take` of the recorded level `p` of `t` (one side) as taken by us, and its mirror on the complement at 1 − p. */
export function markConsumed(t: TokenState, bidSide: boolean, p: number, take: number): void {
  const cons = bidSide ? t.consumedBid : t.consumedAsk;
  cons.set(p, (cons.get(p) ?? 0) + take);
  const mirror = bidSide ? t.complement.consumedAsk : t.complement.consumedBid;
  const q = PRICE_SCALE - p;
  mirror.set(q, (mirror.get(q) ?? 0) + take);
}

/** [bid side, price, recorded size] of the levels of `t` where we took liquidity. */
export function consumedSizes(t: TokenState, bid: boolean): Array<[boolean, number, number]> {
  const out: Array<[boolean, number, number]> = [];
  for (const p of (bid ? t.consumedBid : t.consumedAsk).keys())
    out.push([bid, p, t.book.sizeAt(bid ? 'BUY' : 'SELL', p)]);
  return out;
}

/**
 * A recorded level where we took liquidity went from `prev` to `next`: what we took stays taken,
 * a decrease eats into it first (those orders were already gone for us), an increase is new
 * liquidity; it is forgotten once the level shows none of it left.
 */
export function updateConsumed(t: TokenState, bid: boolean, p: number, prev: number, next: number): void {
  const cons = bid ? t.consumedBid : t.consumedAsk;
  const c = cons.get(p);
  if (c === undefined) return;
  const left = Math.min(next, Math.max(0, c - Math.max(0, prev - next)));
  if (left > 0) cons.set(p, left);
  else cons.delete(p);
}
