/**
 * The store's positions, derived from its live (not void) fills by ./positions.ts and kept until a
 * fill changes them.
 */
import type { ConditionId, TokenId } from '../core/ids.ts';
import type { Micro, Pips, Side } from '../core/units.ts';
import { accumulate, type PositionAccumulator } from './positions.ts';
import type { Statements } from './statements.ts';

/** Positions per token, recomputed from the fills only after a fill changed them. */
export class PositionCache {
  #cache: Map<TokenId, PositionAccumulator> | undefined;
  constructor(private readonly st: Statements) {}

  /** A new or voided fill: recompute on the next read. */
  invalidate(): void {
    this.#cache = undefined;
  }

  /** The accumulated positions now. */
  get(): Map<TokenId, PositionAccumulator> {
    if (this.#cache === undefined) {
      const rows = this.st.liveFills.all() as {
        market: string;
        token: string;
        side: string;
        price: number;
        size: number;
        fee: number;
      }[];
      this.#cache = accumulate(
        rows.map((r) => ({
          market: r.market as ConditionId,
          tokenId: r.token as TokenId,
          side: r.side as Side,
          price: r.price as Pips,
          size: r.size as Micro,
          fee: r.fee as Micro,
        })),
      );
    }
    return this.#cache;
  }
}
