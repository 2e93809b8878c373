/**
 * One side of a market's YES book for the matching engine: per market and side, dense arrays
 * indexed by YES price (0..10000): head and tail of an intrusive doubly linked FIFO of handles
 * (O(1) append, O(1) cancel, no compaction), the level's aggregate size, and a two-level occupancy
 * bitmap that finds the next non-empty level in a few word operations; a cached best bid / best
 * ask index.
 *
 * For the matching engine only (src/exchange/matching/engine.ts).
 */
import { PRICE_SCALE } from '../../core/units.ts';
import { NIL } from './order-layout.ts';

export const N_LEVELS = PRICE_SCALE + 1;
/** Sentinel best-ask index of an empty ask side (above every price). */
export const NO_ASK = N_LEVELS;
/** Sentinel best-bid index of an empty bid side (below every price). */
export const NO_BID = -1;

export const N_WORDS = (N_LEVELS + 31) >>> 5;
export const N_SUMMARY = (N_WORDS + 31) >>> 5;

/** Index of the lowest set bit of a non-zero 32-bit value. */
export function ctz(x: number): number {
  return 31 - Math.clz32(x & -x);
}
/** Index of the highest set bit of a non-zero 32-bit value. */
export function msb(x: number): number {
  return 31 - Math.clz32(x);
}

/**
 * One side of a market's YES book: per YES price, a FIFO of order handles and its total size, plus
 * a two-level occupancy bitmap so the next non-empty level is found in a few word operations
 * (no linear scan over the 10,001 prices when a book thins out).
 */
export class HalfBook {
  readonly head = new Int32Array(N_LEVELS).fill(NIL);
  readonly tail = new Int32Array(N_LEVELS).fill(NIL);
  /** Aggregate remaining size per YES price. */
  readonly total = new Float64Array(N_LEVELS);
  /** Operation stamp per level: the level is already in this operation's touched list. */
  readonly stamp = new Float64Array(N_LEVELS);
  /** Bit p set when level p has orders; summary bit w set when word w is non-zero. */
  readonly words = new Int32Array(N_WORDS);
  readonly summary = new Int32Array(N_SUMMARY);
  best: number;
  constructor(readonly isBid: boolean) {
    this.best = isBid ? NO_BID : NO_ASK;
  }

  mark(p: number): void {
    const w = p >>> 5;
    this.words[w] = this.words[w]! | (1 << (p & 31));
    this.summary[w >>> 5] = this.summary[w >>> 5]! | (1 << (w & 31));
  }

  unmark(p: number): void {
    const w = p >>> 5;
    const v = this.words[w]! & ~(1 << (p & 31));
    this.words[w] = v;
    if (v === 0) this.summary[w >>> 5] = this.summary[w >>> 5]! & ~(1 << (w & 31));
  }

  /** Lowest non-empty level >= p, or NO_ASK. */
  nextUp(p: number): number {
    if (p >= N_LEVELS) return NO_ASK;
    if (p < 0) p = 0;
    let w = p >>> 5;
    const bits = this.words[w]! & (-1 << (p & 31));
    if (bits !== 0) return (w << 5) + ctz(bits);
    w++;
    if (w >= N_WORDS) return NO_ASK;
    let sw = w >>> 5;
    let sbits = this.summary[sw]! & (-1 << (w & 31));
    while (sbits === 0) {
      if (++sw >= N_SUMMARY) return NO_ASK;
      sbits = this.summary[sw]!;
    }
    w = (sw << 5) + ctz(sbits);
    return (w << 5) + ctz(this.words[w]!);
  }

  /** Highest non-empty level <= p, or NO_BID. */
  nextDown(p: number): number {
    if (p < 0) return NO_BID;
    if (p >= N_LEVELS) p = N_LEVELS - 1;
    let w = p >>> 5;
    const bits = this.words[w]! & (-1 >>> (31 - (p & 31)));
    if (bits !== 0) return (w << 5) + msb(bits);
    if (w === 0) return NO_BID;
    w--;
    let sw = w >>> 5;
    let sbits = this.summary[sw]! & (-1 >>> (31 - (w & 31)));
    while (sbits === 0) {
      if (--sw < 0) return NO_BID;
      sbits = this.summary[sw]!;
    }
    w = (sw << 5) + msb(sbits);
    return (w << 5) + msb(this.words[w]!);
  }

  /** Moves `best` to the best non-empty level (after the best level emptied). */
  rescan(): void {
    this.best = this.isBid ? this.nextDown(this.best) : this.nextUp(this.best);
  }
}
