/** The shape of the daemon's status snapshot (`/api/status`, `mmkit status`): what src/ops/status.ts's DaemonMonitor builds. */
import type { HealthReport, Lifecycle, StreamHealthInput } from './health.ts';
import type { FleetStatusSection } from './status-fleet.ts';
import type { MarketRewardStatus, RewardsStatus } from './status-rewards.ts';

/**
 * Rejections the kill switch does not count: asks refused for lack of tokens while selling into a
 * fill not seen yet (up to SELL_RACE_TOLERANCE in a row per token), post-only quotes refused as crossing.
 */
export interface RejectionsNotCountedStatus {
  readonly sellBalanceRaces: number;
  readonly postOnlyCrossings: number;
}

/**
 * What the risk gate refused (quotes and immediate orders: never sent) and cut (quotes approved
 * with a smaller size), by code, since the daemon started and over the last `windowSec` seconds.
 */
export interface GateStatus {
  readonly windowSec: number;
  readonly refused: Readonly<Record<string, number>>;
  readonly refusedRecent: Readonly<Record<string, number>>;
  readonly trimmed: Readonly<Record<string, number>>;
  readonly trimmedRecent: Readonly<Record<string, number>>;
}

/**
 * The errors the engine counted against the strategy (a handler that threw or returned an invalid output: its output dropped),
 * since the daemon started and over the gate's window, with the first one (message and `file:line:col`).
 */
export interface StrategyErrorsStatus {
  readonly count: number;
  readonly recent: number;
  readonly first: { readonly message: string; readonly at: string | null } | null;
}

/** One point of the PnL series: decimal strings, `t` unix ms. */
export interface PnlPoint {
  readonly t: number;
  readonly realized: string;
  readonly unrealized: string;
  /** Liquidity rewards, paid and estimated. */
  readonly rewards: string;
  readonly total: string;
}

/** A fill as the status shows it. */
export interface FillStatus {
  readonly time: string;
  readonly market: string;
  readonly question: string;
  readonly outcome: string;
  readonly side: string;
  readonly role: string;
  readonly price: string;
  readonly size: string;
  readonly status: string;
}

/** A quote (own resting order) as the status shows it. */
export interface QuoteStatus {
  readonly id: string;
  readonly tokenId: string;
  readonly outcome: string;
  readonly side: string;
  readonly price: string;
  readonly size: string;
  readonly matched: string;
}

export interface TokenStatus {
  readonly tokenId: string;
  readonly outcome: string;
  readonly bestBid: string | null;
  readonly bestAsk: string | null;
  readonly mid: string | null;
  readonly stale: boolean;
  readonly position: string;
  readonly avgPrice: string | null;
}

export interface MarketStatus {
  readonly market: string;
  readonly question: string;
  readonly quotable: boolean;
  readonly why: string | null;
  /** A fleet member: the other member that holds (quotes) this market; then `why` is `held by <it>`. */
  readonly heldBy?: string;
  readonly tokens: readonly TokenStatus[];
  readonly quotes: readonly QuoteStatus[];
  /** Null: the market has no reward config. */
  readonly rewards: MarketRewardStatus | null;
}

/** What /api/status answers (every money figure a decimal string). */
/** The ledger's figures on the status page, labelled by scope. */
export interface LedgerStatus {
  readonly session: {
    readonly since: string;
    readonly fills: number;
    readonly externalFills: number;
    readonly ordersPlaced: number;
  };
  readonly epoch: {
    readonly id: number;
    readonly venue: string;
    readonly world: string | null;
    readonly since: string;
    readonly fills: number;
    readonly externalFills: number;
    readonly adjustments: number;
    readonly operations: number;
  } | null;
}

export interface StatusSnapshot {
  readonly schema: 1;
  readonly version: string;
  /** 'shadow': simulated fills on live books, no order sent to the venue (`mmkit run --shadow`); absent from older daemons: live. */
  readonly mode?: 'live' | 'shadow';
  readonly pid: number;
  readonly now: number;
  readonly time: string;
  readonly startedAt: string;
  readonly uptimeSec: number;
  readonly lifecycle: Lifecycle;
  readonly strategy: { readonly name: string; readonly params: Record<string, unknown> };
  readonly account: { readonly address: string };
  /**
   * The venue: its base URL and whether it is a paper exchange (src/cli/venue-kind.ts; absent when the
   * daemon does not say, e.g. a shadow run, which sends nothing anywhere). `mode` says whether orders
   * are sent (`live`) or simulated (`shadow`); this says where a live run's orders go.
   */
  readonly venue: { readonly url: string; readonly paper?: boolean };
  readonly health: HealthReport;
  readonly markets: readonly MarketStatus[];
  readonly inventory: {
    readonly collateral: { readonly available: string; readonly reserved: string };
    readonly positions: ReadonlyArray<{
      readonly market: string;
      readonly question: string;
      readonly tokenId: string;
      readonly outcome: string;
      readonly size: string;
      readonly avgPrice: string | null;
      readonly mark: string | null;
    }>;
  };
  /**
   * PnL apart and together: trading (realized + unrealized, before fees), fees, liquidity rewards
   * (paid by the venue + the estimate of what it has not paid yet); total = trading - fees + rewards.
   */
  readonly pnl: {
    readonly realized: string;
    readonly unrealized: string;
    readonly trading: string;
    readonly fees: string;
    readonly rewards: RewardsStatus;
    readonly total: string;
    readonly unmarked: number;
    readonly series: readonly PnlPoint[];
  };
  readonly orders: {
    readonly open: number;
    readonly placed: number;
    readonly cancelled: number;
    readonly rejected: number;
    /** Of `rejected`, those the kill switch does not count, by cause (absent from an older daemon). */
    readonly notCounted?: RejectionsNotCountedStatus;
  };
  readonly fills: {
    /** The bot's own fills of this session. */
    readonly count: number;
    readonly volume: string;
    readonly notional: string;
    readonly recent: readonly FillStatus[];
  };
  /** This session's and the epoch's ledger figures (null without a ledger). */
  readonly ledger: LedgerStatus | null;
  readonly killSwitch: { readonly tripped: boolean; readonly trigger: string | null; readonly message: string | null };
  readonly execution: { readonly paused: boolean; readonly pauseReasons: readonly string[] };
  /** The risk gate's refusals and trims by code (absent from an older daemon). */
  readonly gate?: GateStatus;
  /** The strategy's errors (absent from an older daemon). */
  readonly strategyErrors?: StrategyErrorsStatus;
  readonly streams: { readonly market: StreamHealthInput; readonly user: StreamHealthInput };
  /** A fleet member's view of its fleet (issue 21); absent for a lone daemon. */
  readonly fleet?: FleetStatusSection;
}
