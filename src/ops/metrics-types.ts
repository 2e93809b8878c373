/**
 * The metrics' types and constants (moved out of ./metrics.ts, which re-exports them): order
 * outcomes, the options, the samples the daemon hands over, the histograms' buckets.
 */

/**
 * What became of orders handed to the venue:
 *  - `placed`     an order was sent (counted once per order per POST, re-sends included);
 *  - `live` / `matched` / `delayed` / `unmatched`   the venue accepted it with that status;
 *  - `rejected`   the venue refused it (an error code in the answer);
 *  - `unknown`    no clear answer (a timeout, a dropped connection): resolved later by id;
 *  - `failed`     the whole request failed before the venue took it (a 429, an auth error);
 *  - `cancelled`  the venue confirmed a cancel.
 */
export type OrderOutcome =
  | 'placed'
  | 'live'
  | 'matched'
  | 'delayed'
  | 'unmatched'
  | 'rejected'
  | 'unknown'
  | 'failed'
  | 'cancelled';

export const ORDER_OUTCOMES: readonly OrderOutcome[] = [
  'placed',
  'live',
  'matched',
  'delayed',
  'unmatched',
  'rejected',
  'unknown',
  'failed',
  'cancelled',
];

/** Options of `new Metrics`. */
export interface MetricsOptions {
  /** Clock time, unix ms (for the age of the last market data). */
  now: () => number;
  /** Also collect prom-client's default process and event-loop metrics (default true). */
  defaultMetrics?: boolean;
  /** Resolution of the event-loop delay monitor, ms (default 10). */
  eventLoopMonitoringPrecision?: number;
  /** Constant labels of the `mmkit_info` metric. */
  info?: Record<string, string>;
}

/** One position as the metrics show it. */
export interface PositionSample {
  readonly market: string;
  readonly tokenId: string;
  readonly outcome: string;
  /** micro-shares, signed. */
  readonly size: number;
  /** pips (0 when flat). */
  readonly avgPrice: number;
  /** The average price at the venue's 6 decimals (the store's exact figure); when given, exported instead of `avgPrice`. */
  readonly avgPriceDecimal?: string;
}

/** The PnL figures, micro-collateral. `total` = realized + unrealized - fees + rewards (paid and estimated). */
export interface PnlSample {
  readonly realized: number;
  readonly unrealized: number;
  readonly fees: number;
  readonly total: number;
  /** Liquidity rewards: paid by the venue, and the bot's estimate of what is not paid yet (default 0). */
  readonly rewards?: { readonly paid: number; readonly estimated: number };
  /** The UTC day's PnL the daily loss limit judges (risk.maxDailyLoss on and the day opened; absent: no series). */
  readonly day?: number;
}

/** One rewarded market's figures, micro (share 0..1 of the last sample). */
export interface RewardSample {
  readonly market: string;
  readonly paid: number;
  readonly estimated: number;
  /** Our share of the last sample (0..1) and the daily reward it would earn, micro; absent: not sampled. */
  readonly lastShare?: number;
  readonly lastDaily?: number;
}

/**
 * What the risk gate refused and cut, by code, and the strategy's errors, since the start: the
 * kernel's counters (TraderCounters: gateCountsOf) and the engine's (EngineStats.errors.strategy).
 */
export interface IntentCounts {
  readonly refused: ReadonlyMap<string, number>;
  readonly trimmed: ReadonlyMap<string, number>;
  readonly strategyErrors: number;
}

/** Buckets of the tick-to-order histogram, seconds: 100 us to 2.5 s. */
export const TICK_TO_ORDER_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
];
/** Buckets of the order round trip histogram, seconds: loopback (a paper exchange) to a far venue. */
export const ROUND_TRIP_BUCKETS = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5];
/** Buckets of the stream lag histogram (venue time to receive time), seconds. */
export const STREAM_LAG_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
