/**
 * The executor's public types: its options, what a cycle did, a rejection, the result of
 * verifyFlat and its counters. Apart from src/execution/executor.ts (which re-exports them) so that
 * a reader of the shapes, and a module that only needs them, does not have to go through the class.
 */
import type { Clock } from '../core/clock.ts';
import type { ConditionId, OrderId, TokenId } from '../core/ids.ts';
import type { Venue, VenueOrder } from '../core/venue.ts';
import type { Store } from '../store/store.ts';
import type { DiffTolerance } from './diff.ts';
import type { ExternalFillClaims, ForeignOrderPolicy } from './foreign-orders.ts';
import type { OrderTracker } from './tracker.ts';

/** Counters of what the venue did that is not the strategy's own trading (see `Executor.accountStats`). */
export interface AccountStats {
  /** Quotes the venue refused as crossing post-only orders (re-priced at the next intent). */
  readonly postOnlyRejections: number;
  /** Asks refused for lack of tokens while selling into a fill (re-sized at the next intent). */
  readonly sellBalanceRaces: number;
  /** FOK orders the book could not fill whole (killed: a market outcome, not a kill-switch rejection). */
  readonly fokNotFilled: number;
  /** Fills of orders the bot did not place, recorded with source 'external' (each (trade, order) once). */
  readonly externalFills: number;
  /** Orders seen on the wallet that the bot did not place, by what was done with them. */
  readonly foreignOrders: { readonly left: number; readonly cancelled: number; readonly adopted: number };
}

/** Options of the executor. */
export interface ExecutorOptions {
  readonly venue: Venue;
  readonly store: Store;
  /** The tracker to drive (default: a new one on the venue's clock). Share it with risk. */
  readonly tracker?: OrderTracker;
  /** Time source for backoff and resolution delays (default: the venue's clock). */
  readonly clock?: Clock;
  /** Diff tolerance (default: exact price and size). */
  readonly tolerance?: DiffTolerance;
  /** The market's current tick in pips (tick-size changes happen); undefined → price tolerance 0. */
  readonly tickPips?: (market: ConditionId) => number | undefined;
  /** Order type of quotes (default 'GTC'). */
  readonly orderType?: 'GTC' | 'GTD';
  /** Post quotes as post-only (default false). Immediate orders (FOK/FAK) never are. */
  readonly postOnly?: boolean;
  /** Orders on the wallet this bot did not place (default 'leave'; see src/execution/foreign-orders.ts). */
  readonly foreignOrders?: ForeignOrderPolicy;
  /**
   * A fleet member (issue 21): true when `market` belongs to another member of the fleet (one of
   * the fleet's markets this member does not hold now). An order there that this bot did not place
   * is that member's: never foreign (not counted, logged, cancelled nor adopted), tracked apart like
   * a foreign one, and its fills are ignored (not stored: they are in that member's ledger).
   * Undefined: a lone daemon.
   */
  readonly fleetMarket?: (market: ConditionId) => boolean;
  /**
   * A fleet member: a fill of an order no member placed on a market outside the fleet's is booked by
   * the member that claims it only (src/execution/foreign-orders.ts). Undefined: every one is booked.
   */
  readonly externalClaims?: ExternalFillClaims;
  /** GTD quotes: expiration (unix seconds) for an order placed now. */
  readonly expiration?: (nowMs: number) => number;
  /** Orders per venue.place call, 1..15 (default 15). */
  readonly maxPlaceBatch?: number;
  /** Ids per venue.cancel call (default 1000). */
  readonly maxCancelBatch?: number;
  /** Unknown-outcome resolution: first query after `delayMs` (default 500), doubling, `attempts` queries (default 6). */
  readonly resolve?: { readonly delayMs?: number; readonly attempts?: number };
  /** Backoff after a failed cycle: base and cap, ms (defaults 250 and 30,000). */
  readonly backoff?: { readonly baseMs?: number; readonly capMs?: number };
  /** Random source in [0, 1) for backoff jitter (default Math.random). */
  readonly random?: () => number;
}

/** A venue rejection of one of our orders (the kill switch counts these). */
export interface RejectionInfo {
  readonly id: OrderId;
  readonly market: ConditionId;
  readonly tokenId: TokenId;
  readonly code: string;
  readonly message: string;
  readonly at: number;
}

/** What one cycle did (for logs and metrics). */
export interface CycleReport {
  readonly market: ConditionId;
  /** Clock time the intent was produced. */
  readonly intentAt: number;
  readonly startedAt: number;
  readonly finishedAt: number;
  readonly kept: number;
  readonly cancelled: number;
  /**
   * Quotes sent (in orders), and quotes not sent: placing was paused or halted, or a newer intent
   * that came in during the cycle no longer wanted them.
   */
  readonly placed: number;
  readonly skipped: number;
  /** Rejected by the venue (post-only crossings not included). */
  readonly rejected: number;
  /** Refused by the venue as crossing post-only quotes (re-priced at the next intent). */
  readonly postOnlyRejected: number;
  readonly unknown: number;
  /** The error that ended the cycle early (the intent is retried after a backoff when retryable). */
  readonly error?: unknown;
  /** When the error ended the cycle: ms until the retry (undefined: not retried). */
  readonly retryInMs?: number;
}

/** Result of verifyFlat. */
export interface FlatReport {
  readonly flat: boolean;
  /** Open orders seen at the last successful query (empty when flat). */
  readonly open: readonly VenueOrder[];
  readonly queries: number;
  readonly elapsedMs: number;
  /** Place requests still on their way when the check gave up (their orders may land later). */
  readonly placesInFlight?: number;
}

/** Immediate orders (FOK/FAK) since start: handed to `execute`, sent, and not sent (paused, halted). */
export interface ImmediateStats {
  readonly submitted: number;
  readonly sent: number;
  readonly skipped: number;
}

/** Counters since start. */
export interface ExecutorStats {
  readonly submitted: number;
  /** Intents replaced by a newer one before they ran (never sent). */
  readonly superseded: number;
  readonly cycles: number;
  readonly failedCycles: number;
  readonly ordersSent: number;
  readonly cancelsSent: number;
  readonly rejections: number;
  readonly unknownOutcomes: number;
  readonly resends: number;
  readonly concludedNeverArrived: number;
  readonly paused: boolean;
  readonly pauseReasons: readonly string[];
  readonly halted: boolean;
}
