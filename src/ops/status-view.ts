/**
 * What the daemon monitor (./status.ts) reads and is given: the read-only view of the daemon's state
 * it samples once a second (`DaemonView`), its options and the context of the run. Types only (and
 * the empty intent counters), kept apart from the monitor that assembles the status.
 */
import type { Clock } from '../core/clock.ts';
import type { LiveOrderView } from '../core/intents.ts';
import type { IntentCounts, Metrics } from './metrics.ts';
import type { RewardsView } from './status-rewards.ts';
import type {
  BookTop,
  LedgerStatus,
  MonitoredMarket,
  PositionLike,
  RejectionsNotCountedStatus,
} from './status-snapshot.ts';

/** PnL at the marks (PnlReport of src/store/positions.ts fits). Micro-collateral. */
export interface PnlLike {
  readonly realized: number;
  readonly unrealized: number;
  readonly fees: number;
  readonly total: number;
  readonly unmarked: readonly string[];
}

/** Read-only access to the daemon's state, sampled once a second. */
export interface DaemonView {
  book(tokenId: string): BookTop | undefined;
  /** Why the market is not quotable now (undefined: quotable). */
  whyNotQuotable(market: string): string | undefined;
  /** True when the market resolved or is inactive. */
  isRetired(market: string): boolean;
  /** The winning token of a market seen resolving; null: resolved (or inactive), no winner seen; undefined: not resolved. */
  winner?(market: string): string | null | undefined;
  /** Own open orders (the tracker's live orders). */
  liveOrders(): readonly LiveOrderView[];
  positions(): readonly PositionLike[];
  /** PnL at these marks (pips per token). */
  pnl(marks: ReadonlyMap<string, number>): PnlLike;
  /** The venue's marks of the tokens held (pips; Trader.venueMarks): they mark those of markets not followed. */
  venueMarks?(): ReadonlyMap<string, number>;
  collateral(): { available: number; reserved: number };
  heartbeat(): {
    ok: boolean;
    consecutiveFailures: number;
    lastLatencyMs: number;
    lastAttemptAt: number;
    failed: number;
    error?: string;
  };
  /** `day`: the UTC day's PnL the daily loss limit judges (risk.maxDailyLoss on, the day opened), µ. */
  killSwitch(): {
    tripped: boolean;
    trigger?: string;
    message?: string;
    at?: number;
    day?: { date: string; pnl: number };
  };
  /** Totals of the store (orders placed, cancelled, rejected; fills; volume and notional micro). May be slow: read every `totalsEveryMs`. */
  totals(): {
    ordersPlaced: number;
    ordersCancelled: number;
    ordersRejected: number;
    fills: number;
    volume: number;
    notional: number;
  };
  /**
   * The ledger's figures of this session (this run) and of the current epoch (this venue, world and
   * account): read with the totals. Optional (a view without a ledger shows none).
   */
  ledger?(): LedgerStatus;
  /**
   * Of the rejected orders, those the kill switch does not count (the executor's sell-balance races
   * and post-only crossings, src/execution/executor.ts). Optional (none: zeros).
   */
  rejectionsNotCounted?(): RejectionsNotCountedStatus;
  pauseReasons(): readonly string[];
  /**
   * What the risk gate refused and cut by code, and the strategy's errors, since the start (the
   * kernel's and the engine's counters), with the strategy's first error. Read at each sample and
   * at each scrape of /metrics. Optional (none: zeros).
   */
  intents?(): DaemonIntents;
  /** Liquidity rewards (the store's ledger and the tracker's estimate). Optional (none: no rewards shown). */
  rewards?(): RewardsView;
}

/** `DaemonView.intents`: the counters and the strategy's first error (EngineStats.firstStrategyError). */
export interface DaemonIntents extends IntentCounts {
  readonly firstStrategyError?: { readonly message: string; readonly at?: string };
  /** Present while the strategy is failing (EngineStats.strategyFailing: every quote pulled). */
  readonly strategyFailing?: { readonly consecutive: number; readonly lastError: string };
}

/** No intents counted (a view without them). */
export const NO_INTENTS: DaemonIntents = { refused: new Map(), trimmed: new Map(), strategyErrors: 0 };

/** Options of `new DaemonMonitor`. */
export interface MonitorOptions {
  readonly clock: Clock;
  readonly metrics: Metrics;
  /** Market data silence after which health says `feed_stale`, ms (0: off). */
  readonly feedStaleMs: number;
  /** Most PnL points kept (the series is thinned, never cut: it covers the whole run). Default 720. */
  readonly seriesCapacity?: number;
  /** Recent fills kept. Default 50. */
  readonly recentFills?: number;
  /** Monotonic ms (default performance.now). */
  readonly hrtime?: () => number;
  readonly version?: string;
  /** 'shadow': a shadow run (`mmkit run --shadow`: simulated fills, nothing sent); default 'live'. */
  readonly mode?: 'live' | 'shadow';
  /**
   * The store's totals (`DaemonView.totals`: a COUNT over every order ever recorded, O(orders))
   * are re-read at most this often, ms (default 10,000), so a long-lived store never costs the
   * event loop a scan a second.
   */
  readonly totalsEveryMs?: number;
}

/** What the daemon trades and as whom (known once the markets are picked). */
export interface MonitorContext {
  readonly markets: readonly MonitoredMarket[];
  /** Markets listed but not followed: only their names are used (positions held there). */
  readonly listed?: readonly MonitoredMarket[];
  readonly strategy: { readonly name: string; readonly params: Record<string, unknown> };
  /** The account's public address (shown; never a key). */
  readonly address: string;
  /** The venue's base URL (shown). */
  readonly venueUrl: string;
  /** Whether the venue is a paper exchange (src/cli/venue-kind.ts); absent: not said. */
  readonly venuePaper?: boolean;
}
