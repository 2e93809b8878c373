/**
 * The store's positions of the current epoch, derived by ./positions.ts from its ledger (live
 * fills, operation legs, adjustments: ./ledger.ts) and kept between reads. An entry recorded after
 * every entry applied so far (its time is later, or the same with a rank not lower: a fill, then
 * legs, then adjustments) is applied to the kept positions at once, with the same result as a
 * recomputation (the accumulators apply the same sequence); anything else (a fill voided, an entry
 * that sorts earlier, another epoch) recomputes on the next read.
 */
import type { TokenId } from '../core/ids.ts';
import { ledgerRows, mergeLedger, RANK } from './ledger.ts';
import { PositionAccumulator, type PositionFill } from './positions.ts';
import type { Statements } from './statements.ts';
import type { LedgerEntry } from './store-types.ts';

/** One position-moving change, as the cache applies it (a LedgerEntry is one). */
export type PositionChange = Pick<
  LedgerEntry,
  'kind' | 'market' | 'tokenId' | 'side' | 'price' | 'priceMicro' | 'size' | 'fee' | 'at'
>;

/** Positions per token of one epoch; recomputed only when an append cannot keep them exact. */
export class PositionCache {
  #cache: Map<TokenId, PositionAccumulator> | undefined;
  /** The time and rank of the last entry applied (−∞ when none). */
  #lastAt = Number.NEGATIVE_INFINITY;
  #lastRank = 0;
  /** `epoch()`: the current epoch (null: none; every row then has none). */
  constructor(
    private readonly st: Statements,
    private readonly epoch: () => number | null,
  ) {}

  /** Recompute on the next read (a fill voided, another epoch current). */
  invalidate(): void {
    this.#cache = undefined;
  }

  /** A new epoch began: nothing in it yet. */
  reset(): void {
    this.#cache = new Map();
    this.#lastAt = Number.NEGATIVE_INFINITY;
    this.#lastRank = 0;
  }

  /**
   * New entries of the current epoch were recorded (an operation's legs: all at once). Applied now
   * when they sort after every entry applied; else the next read recomputes.
   */
  append(changes: readonly PositionChange[]): void {
    const c = this.#cache;
    if (c === undefined || changes.length === 0) return;
    const first = changes[0]!;
    const rank = RANK[first.kind];
    if (first.at < this.#lastAt || (first.at === this.#lastAt && rank < this.#lastRank)) {
      this.#cache = undefined;
      return;
    }
    for (const e of changes) apply(c, e);
    this.#lastAt = first.at;
    this.#lastRank = rank;
  }

  /** A new live fill of the current epoch (`append` for one fill, without allocating). */
  appendFill(f: PositionFill & { readonly matchTime: number }): void {
    const c = this.#cache;
    if (c === undefined) return;
    if (f.matchTime < this.#lastAt || (f.matchTime === this.#lastAt && this.#lastRank > RANK.fill)) {
      this.#cache = undefined;
      return;
    }
    let a = c.get(f.tokenId);
    if (a === undefined) c.set(f.tokenId, (a = new PositionAccumulator(f.market, f.tokenId)));
    a.add(f);
    this.#lastAt = f.matchTime;
    this.#lastRank = RANK.fill;
  }

  /** The accumulated positions now. */
  get(): Map<TokenId, PositionAccumulator> {
    if (this.#cache === undefined) {
      const entries = this.entries();
      const c = new Map<TokenId, PositionAccumulator>();
      for (const e of entries) apply(c, e);
      const last = entries[entries.length - 1];
      this.#lastAt = last === undefined ? Number.NEGATIVE_INFINITY : last.at;
      this.#lastRank = last === undefined ? 0 : RANK[last.kind];
      this.#cache = c;
    }
    return this.#cache;
  }

  /** The current epoch's entries in order (read from the tables). */
  entries(): LedgerEntry[] {
    const r = ledgerRows(this.st, this.epoch());
    return mergeLedger(r.fills, r.operations, r.adjustments);
  }
}

function apply(c: Map<TokenId, PositionAccumulator>, e: PositionChange): void {
  let a = c.get(e.tokenId);
  if (a === undefined) c.set(e.tokenId, (a = new PositionAccumulator(e.market, e.tokenId)));
  if (e.kind === 'fill') a.add(e);
  else a.move(e.side, e.size, e.price, e.priceMicro);
}
