/**
 * Our crossing orders at the matching point: the liquidity a taking order meets (the recorded
 * levels from the best, less what we already took there, and our own resting orders at that price
 * on the token's other side or the complement's same side at 1 − p: a self-trade), and the totals
 * of its fills (size, collateral, taker fee, average price). Settling and reporting them is the
 * venue's.
 */
import { takerFee, type FeeProtocol } from '../../core/fees.ts';
import { PRICE_SCALE, type Side } from '../../core/units.ts';
import { floorLot } from './queue.ts';
import { markConsumed } from './recorded-book.ts';
import type { SimOrder, TokenState } from './sim-state.ts';

/** What a taking order took: the size, its fills at each price [price, size], and our own makers hit [order, size]. */
export interface BookTake {
  readonly taken: number;
  readonly fills: Array<[number, number]>;
  readonly makers: Array<[SimOrder, number]>;
}

/**
 * Walks `t`'s opposite side for a BUY (`isBuy`) or SELL up to `limit`, `want` micro-shares. With
 * `take` the recorded liquidity taken is marked consumed and the fills are listed; without, it only
 * counts what could be taken (a FOK's check).
 */
export function takeFromBook(t: TokenState, isBuy: boolean, limit: number, want: number, take: boolean): BookTake {
  const book = t.book;
  const oppSide: Side = isBuy ? 'SELL' : 'BUY';
  const cons = isBuy ? t.consumedAsk : t.consumedBid;
  const ownHere = isBuy ? t.asks : t.bids; // our orders on t's opposite side
  const ownComp = isBuy ? t.complement.bids : t.complement.asks; // the complement's, mirrored
  const hasOwn = ownHere.size !== 0 || ownComp.size !== 0;
  const rb = isBuy ? book.bestAsk() : book.bestBid();
  const ob = isBuy ? t.shownBestAsk : t.shownBestBid;
  const fills: Array<[number, number]> = []; // recorded: [price, size]
  const makers: Array<[SimOrder, number]> = [];
  let start = rb ?? 0;
  if (ob !== 0 && (start === 0 || (isBuy ? ob < start : ob > start))) start = ob;
  if (start === 0) return { taken: 0, fills, makers };
  let rem = want;
  let taken = 0;
  for (let p = start; rem > 0 && (isBuy ? p <= limit && p < PRICE_SCALE : p >= limit && p > 0); isBuy ? p++ : p--) {
    const s = book.sizeAt(oppSide, p);
    if (s > 0) {
      const avail = floorLot(s - (cons.get(p) ?? 0));
      const n = Math.min(rem, avail);
      if (n > 0) {
        rem -= n;
        taken += n;
        if (take) {
          fills.push([p, n]);
          markConsumed(t, !isBuy, p, n);
        }
      }
    }
    if (hasOwn && rem > 0) {
      for (const l of [ownHere.get(p), ownComp.get(PRICE_SCALE - p)]) {
        if (l === undefined) continue;
        for (const mk of l.orders) {
          if (rem === 0) break;
          const n = Math.min(rem, mk.remaining);
          rem -= n;
          taken += n;
          if (take) {
            fills.push([p, n]);
            makers.push([mk, n]);
          }
        }
      }
    }
  }
  return { taken, fills, makers };
}

/** The totals of a taking order's fills (micro): shares, collateral (fees excluded), taker fee, and its price. */
export interface TakerTotals {
  readonly size: number;
  /** Collateral paid (BUY) or received (SELL), fees excluded. */
  readonly amount: number;
  /** The exchange's taker fee: floor(size × min(p, 1 − p) × bps) per fill. */
  readonly fee: number;
  /** The taker's price: the nearest pip of the size-weighted average (exact integers). */
  readonly avg: number;
}

/**
 * Totals of non-empty fills [price, size] at fee rate `bps`; the fee of each fill as the venue
 * charges it under `protocol` (core/fees.ts `takerFee`), each floored apart.
 */
export function takerTotals(fills: ReadonlyArray<[number, number]>, bps: number, protocol: FeeProtocol): TakerTotals {
  let size = 0;
  let value = 0; // sum of size x price (pips) for the average
  let fee = 0;
  let amount = 0;
  for (const [p, s] of fills) {
    const f = takerFee(protocol, s, p, bps);
    const a = (s * p) / PRICE_SCALE;
    fee += f;
    amount += a;
    size += s;
    value += s * p;
  }
  let avg = fills[0]![0];
  if (fills.some(([p]) => p !== avg)) {
    const q = Math.floor(value / size);
    const r = value - q * size;
    avg = 2 * r >= size ? q + 1 : q;
  }
  return { size, amount, fee, avg };
}
