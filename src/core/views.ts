/**
 * The read-only views that strategies and the risk gate read: one token's book mirror and one
 * token's position. The engine's state implements them (src/engine/state.ts); strategies see them
 * through `StrategyState` (src/strategy/api.ts), the gate through its `RiskView` (src/risk/gate.ts).
 */
import type { Micro, Pips } from './units.ts';
import type { TokenId } from './ids.ts';

/** A read-only view of one token's book mirror. */
export interface BookView {
  readonly tokenId: TokenId;
  readonly bestBid: Pips | null;
  readonly bestAsk: Pips | null;
  /** (bestBid + bestAsk) / 2 in pips, possibly a half pip; null unless both sides exist. */
  readonly mid: number | null;
  /** True while the mirror is not known to equal the venue (disconnected, crossed, not yet snapshotted). */
  readonly stale: boolean;
  /** Best-first levels, at most `depth` of them. */
  levels(side: 'bids' | 'asks', depth?: number): ReadonlyArray<readonly [Pips, Micro]>;
}

export interface PositionView {
  /** Net shares held (micro). */
  readonly size: Micro;
  /** Average cost in pips (may be fractional), null when flat. */
  readonly avgPrice: number | null;
  /** Realized PnL, micro-collateral (signed). */
  readonly realized: number;
}
