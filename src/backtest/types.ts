/**
 * The types the backtest's parts share: the result of a run (BacktestResult and what it holds,
 * among them the online fill figures), a synthetic world's spec and the driver interface a mode
 * (feed or world) gives the runner. Types only, so that the runner, the drivers (synthetic.ts), the
 * measurement (metrics.ts, fill-stats.ts) and the reports import them from here and not from each
 * other: no import cycle between them.
 */
import type { RewardOptions } from '../exchange/rewards/ledger.ts';
import type { WorldProfileName } from '../exchange/world/profiles.ts';
import type { VirtualClock } from '../core/clock.ts';
import type { FeeProtocol } from '../core/fees.ts';
import type { TokenId } from '../core/ids.ts';
import type { Side } from '../core/units.ts';
import type { MarketInfo, Venue } from '../core/venue.ts';
import type { EngineStats } from '../engine/loop.ts';
import type { ExecutorStats } from '../execution/executor.ts';
import type { BudgetUse } from '../venues/sim/sim-budget.ts';

// ---- a run's input: the synthetic world -----------------------------------------------------------

/** A synthetic world to run (see src/backtest/synthetic.ts). */
export interface WorldSpec {
  readonly seed: number;
  /** Virtual time simulated after the warm-up, ms. */
  readonly durationMs: number;
  /** Virtual time the world runs before the bot starts (books fill), ms. Default 60 s. */
  readonly warmupMs?: number;
  /** Markets the bot trades (the most liquid long-lived ones), when `markets` is not given. Default 3. */
  readonly marketCount?: number;
  /** Automatic pick: only markets whose question contains this text (case-insensitive). */
  readonly search?: string;
  /** The world's activity multiplier (agents). Default 1. */
  readonly rate?: number;
  /** Who trades in the world (src/exchange/world/profiles.ts). Default realistic. */
  readonly profile?: WorldProfileName;
  /** Virtual start time (unix ms). Default 2026-01-01T00:00:00Z. */
  readonly startMs?: number;
  /**
   * The exchange's liquidity reward options (src/exchange/rewards/ledger.ts: `epochMs`, default a
   * day, epochs aligned to multiples of it since the unix epoch; `sampleMs`, default 60 s;
   * `minPayout`, micro, default 1 USDC). Default: the exchange's defaults.
   */
  readonly rewards?: Partial<RewardOptions>;
  /**
   * The taker fee rate of the world's markets, bps, 0 to 1000 (as the paper exchange's
   * `exchange.feeRateBps`). Default 0: no fee.
   */
  readonly feeRateBps?: number;
}

// ---- the measurement ---------------------------------------------------------------------------------

/** One markout horizon's figure. */
export interface Markout {
  readonly horizonMs: number;
  /** Fills with a known mid at the horizon. */
  readonly fills: number;
  /** Size-weighted markout, price units; null when no fill has one. */
  readonly avg: number | null;
}

/** An inventory limit, micro-shares, and where it comes from (`risk.markets`: the market's own risk limits). */
export interface InventoryLimit {
  readonly size: number;
  readonly source: 'strategy.maxPosition' | 'risk.maxPositionShares' | 'risk.markets';
}

/** Time one token spent at the inventory limit. */
export interface InventoryTime {
  readonly tokenId: string;
  readonly atLimitMs: number;
  readonly fraction: number;
  /** Largest |position| reached, micro-shares. */
  readonly maxAbs: number;
}

/** The fill-based figures of a run (see the module comment). Plain JSON. */
export interface FillStats {
  /** Fills of the run (up to its end; fills of the final cancel-all's race are in the store only). */
  readonly fills: number;
  readonly makerFills: number;
  /** Shares traded, micro. */
  readonly volume: number;
  /** Collateral traded (Σ size × price), micro, rounded down. */
  readonly notional: number;
  /** Fees, micro-collateral. */
  readonly fees: number;
  /** Size-weighted markouts per horizon (MARKOUT_HORIZONS_MS), as metrics.ts defines them. */
  readonly markouts: readonly Markout[];
  /** Time at the inventory limit per token (the markets' tokens, in order, then any other filled one). */
  readonly inventory: readonly InventoryTime[];
}

/** What the figures need of one fill. */
export interface StatFill {
  /** Virtual time the fill was processed, unix ms. */
  readonly t: number;
  readonly tokenId: string;
  readonly side: Side;
  /** Pips. */
  readonly price: number;
  /** Micro-shares. */
  readonly size: number;
  /** Micro-collateral. */
  readonly fee: number;
  readonly role: 'TAKER' | 'MAKER';
}

/**
 * Fills for the report's charts, bounded: every fill while there are fewer than `max`, then one in
 * `stride` (every other point dropped and the stride doubled whenever `max` is reached, as the
 * runner downsamples its samples). Columns, aligned.
 */
export interface FillPoints {
  /** One fill in `stride` is kept (1: all of them); the kept ones are the 1st, (stride+1)th, ... */
  readonly stride: number;
  /** Virtual time, unix ms. */
  readonly t: number[];
  readonly tokenId: string[];
  readonly side: Side[];
  /** Pips. */
  readonly price: number[];
  /** Micro-shares. */
  readonly size: number[];
}

// ---- the result --------------------------------------------------------------------------------------

/** One own fill, with the markout mids (StatFill: t, tokenId, side, price, size, fee — the store's fee for this fill —, role). */
export interface FillRow extends StatFill {
  readonly tradeId: string;
  readonly orderId: string;
  readonly market: string;
  /** The token's mid when the fill was processed (pips, may be x.5), null without a two-sided book. */
  readonly mid: number | null;
  /** The token's mid at +1 s, +10 s, +60 s (MARKOUT_HORIZONS_MS); null when unknown or after the end. */
  readonly markouts: (number | null)[];
}

/** A news jump of a traded market (world mode). */
export interface NewsJumpRow {
  readonly market: string;
  readonly at: number;
  /** The market's hidden fair value (0..1) just before and at the jump. */
  readonly before: number;
  readonly after: number;
}

/** Per-token series of the charts (aligned with `samples.t`). */
export interface TokenSeries {
  readonly tokenId: string;
  readonly market: string;
  readonly outcome: string;
  /** Mid, pips (null: no two-sided book). */
  readonly mid: (number | null)[];
  /** Our best resting bid / ask on this token, pips (null: none). */
  readonly bid: (number | null)[];
  readonly ask: (number | null)[];
  /** Position, micro-shares. */
  readonly pos: number[];
}

/** The sampled series. */
export interface Samples {
  /** Current spacing of the points, ms (the base period times 2^downsamplings). */
  readonly intervalMs: number;
  readonly t: number[];
  readonly pnl: {
    readonly realized: number[];
    readonly unrealized: number[];
    readonly fees: number[];
    readonly total: number[];
  };
  readonly tokens: TokenSeries[];
}

/** One traded market's liquidity rewards in a run (micro-collateral). */
export interface RewardMarketRow {
  readonly market: string;
  /**
   * What the run earned on this market: feed mode, the estimate (the bot's quotes scored every
   * minute against the recorded book's competition, each sample's share of the pool accrued
   * exactly, floored to the micro); world mode, the exchange's own figures for our account (the
   * earnings of the epochs closed during the run plus the running epoch's standing at its end,
   * before the minimum payout).
   */
  readonly accrued: number;
  /** Samples of the bot's reward estimate (one a minute), and those in which its quotes scored. */
  readonly samples: number;
  readonly scoredSamples: number;
  /** World mode: the bot's own estimate over the run (to compare with what the exchange paid). */
  readonly estimated?: number;
  /** World mode: what the exchange credited at the ends of the epochs closed during the run (nothing below its minimum payout). */
  readonly paid?: number;
}

/** The liquidity rewards of a run (present when a traded market has a reward config). */
export interface RewardsResult {
  /** 'estimate': scored against a recorded book (feed mode); 'exchange': the paper exchange's payout (world mode). */
  readonly source: 'estimate' | 'exchange';
  /** Σ accrued, micro-collateral. Apart from the trading PnL (`pnl`), which it does not include. */
  readonly total: number;
  /** The traded markets with a reward config, in the order of `markets`. */
  readonly byMarket: readonly RewardMarketRow[];
}

/**
 * Risk limits in config units (the `risk` section, defaults applied): limit name → value, and under
 * `markets` (present when some market has limits of its own) condition id → every per-market limit.
 */
export interface EffectiveRiskLimits {
  readonly [limit: string]: number | Readonly<Record<string, Readonly<Record<string, number>>>>;
}

/** What a backtest produced. Plain JSON; deterministic for the same inputs and seed. */
export interface BacktestResult {
  readonly version: 1;
  readonly mode: 'feed' | 'world';
  readonly source: {
    readonly feeds?: readonly string[];
    readonly world?: Required<Omit<WorldSpec, 'markets' | 'search' | 'rewards' | 'feeRateBps'>> & {
      readonly search?: string;
      readonly rewards?: Partial<RewardOptions>;
      /** Present when the world's markets charge takers a fee. */
      readonly feeRateBps?: number;
    };
  };
  readonly strategy: { readonly name: string; readonly params: Readonly<Record<string, unknown>> };
  readonly seed: number;
  readonly queue: 'risk-averse' | 'probabilistic' | null;
  readonly latencyMs: number;
  /**
   * The order protocol whose taker fee the venue charged: 1 (`size × rate × min(p, 1 − p)`) or 2 (the
   * V2 curve `size × rate × p × (1 − p)`), core/fees.ts. Feed mode: the feed header's (2 when it says
   * none) or `BacktestOptions.feeProtocol`; world mode: 1 unless `feeProtocol` says 2.
   */
  readonly feeProtocol: FeeProtocol;
  /** Present (true) when quotes were sent post-only (BacktestOptions.postOnly). */
  readonly postOnly?: true;
  /**
   * The risk limits the run used, in config units (./report.ts `effectiveRiskLimits`: every limit of
   * the `risk` section with its default applied, and `markets` when some market has its own); absent
   * in a result written before it was said.
   */
  readonly risk?: EffectiveRiskLimits;
  readonly startMs: number;
  readonly endMs: number;
  readonly stopReason: string;
  readonly markets: readonly {
    readonly market: string;
    readonly question: string;
    readonly tick: string;
    readonly feeRateBps: number;
    readonly tokens: readonly { readonly tokenId: string; readonly outcome: string }[];
    readonly resolvedTo: string | null;
  }[];
  readonly counts: {
    readonly feedItems: number;
    readonly frames: number;
    readonly malformed: number;
    readonly marketEvents: number;
    readonly userEvents: number;
    readonly intents: number;
    readonly intentsCoalesced: number;
    /** Immediate orders (FOK/FAK) the risk gate refused; absent when none was. */
    readonly ordersRefused?: number;
    /** Those by the gate's refusal code (e.g. ORDER_SIZE), codes sorted; absent when none was refused. */
    readonly ordersRefusedByCode?: Readonly<Record<string, number>>;
    /**
     * Quotes the risk gate refused, by code (e.g. OFF_TICK), one per quote each time the strategy
     * asked for it; absent when none was. A strategy whose every quote is refused places no order.
     */
    readonly quotesRefused?: Readonly<Record<string, number>>;
    /** Quotes the risk gate approved with a smaller size, by code (e.g. POSITION); absent when none was. */
    readonly quotesTrimmed?: Readonly<Record<string, number>>;
  };
  readonly orders: {
    readonly placeRequests: number;
    readonly ordersSent: number;
    readonly ordersAccepted: number;
    readonly ordersRejected: number;
    readonly ordersUnknown: number;
    readonly cancelRequests: number;
    readonly idsCancelled: number;
    readonly cancelAllRequests: number;
    /** Orders placed that got at least one fill. */
    readonly ordersFilled: number;
    readonly rejectCodes: Readonly<Record<string, number>>;
  };
  /** Requests counted against the rate rules of the trading endpoints (spec section 8). */
  readonly budgets: readonly BudgetUse[];
  /**
   * Inventory limit used by the "time at limit" metric, micro-shares, and where it comes from: the
   * limit that binds, the smaller of the strategy's `maxPosition` (when it has one) and the risk
   * gate's `maxPositionShares` (the strategy's on a tie).
   */
  readonly inventoryLimit: InventoryLimit & {
    /**
     * Traded markets with their own risk limits (`risk.markets`) whose binding limit differs from
     * `size`, by condition id; absent when there is none.
     */
    readonly markets?: Readonly<Record<string, InventoryLimit>>;
  };
  /**
   * The most recent fill rows (at most `maxFillRows`, default 10,000), oldest first; all of them
   * when `fills.length === fillCount`. The complete list is in the run's store (`storePath`: the
   * `fills` table).
   */
  readonly fills: readonly FillRow[];
  /**
   * World mode: the news jumps of the traded markets during the run, in time order (the world's
   * announced jumps of their hidden fair value; src/exchange/world/news.ts). Absent for feeds.
   */
  readonly news?: readonly NewsJumpRow[];
  /**
   * Stretches of the feeds with no data: an hour or more (`FEED_GAP_MS`) from the market channel's
   * disconnect (the recorder's stop at the end of a file, or a lost connection) to the next record,
   * clipped to the run's window. Periods wholly inside one count in no per-period figure (Sharpe).
   * Absent when none (trial 23 F2: 68 empty hours between two files made a Sharpe of 11.27).
   */
  readonly gaps?: readonly { readonly fromMs: number; readonly toMs: number }[];
  /** Fills of the run (up to `endMs`), kept or not in `fills`. */
  readonly fillCount: number;
  /** The fill-based figures over ALL the fills of the run, measured online (src/backtest/fill-stats.ts; metrics.ts reads them). */
  readonly fillStats: FillStats;
  /** Fills for the report's charts, downsampled like the samples (at most `maxSamples` points). */
  readonly fillPoints: FillPoints;
  readonly samples: Samples;
  /**
   * Final PnL, micro-collateral: realized (a resolved market's positions settled into it at 1 / 0,
   * as a redemption), unrealized at the last mids, fees.
   */
  readonly pnl: {
    readonly realized: number;
    readonly unrealized: number;
    readonly fees: number;
    readonly total: number;
    readonly unmarked: readonly string[];
  };
  /**
   * Liquidity rewards earned, apart from the trading PnL (`pnl.total` + `rewards.total` is the sum).
   * Absent when no traded market has a reward config (so results of such runs are as before).
   */
  readonly rewards?: RewardsResult;
  readonly positions: readonly {
    readonly tokenId: string;
    readonly size: number;
    readonly avgPrice: number;
    readonly realized: number;
    readonly fees: number;
    readonly bought: number;
    readonly sold: number;
    readonly mark: number | null;
  }[];
  readonly engine: Omit<EngineStats, 'outputs'> & { readonly outputs: number };
  readonly executor: Omit<ExecutorStats, 'paused' | 'pauseReasons' | 'halted'>;
  /** The simulated venue's own counters (deterministic). */
  readonly venue: unknown;
  /** Open orders left at the venue after the final cancel-all (should be 0). */
  readonly openOrdersAtEnd: number;
}

// ---- the driver interface ----------------------------------------------------------------------------

/** A token's book as a market choice reads it: levels best first, [price pips, size micro]. */
export interface BookLevels {
  readonly bids: ReadonlyArray<readonly [number, number]>;
  readonly asks: ReadonlyArray<readonly [number, number]>;
}

/**
 * Chooses the markets to trade out of the candidates (best first, at most `count`), reading their
 * books at `now` (a strategy's `selectMarkets`; the runner builds it). Given to a driver only when
 * no markets were named.
 */
export type MarketChooser = (
  candidates: readonly MarketInfo[],
  count: number,
  now: number,
  book: (tokenId: TokenId) => BookLevels | undefined,
) => Promise<MarketInfo[]>;

/** A simulated venue as the runner drives it. */
export interface DrivenVenue extends Venue {
  /** The venue's deterministic counters, for the result. */
  readonly stats?: unknown;
  resync?(tokenIds: readonly TokenId[]): void;
}

/** What a mode (feed or world) gives the runner. */
export interface BacktestDriver {
  readonly mode: 'feed' | 'world';
  readonly clock: VirtualClock;
  readonly venue: DrivenVenue;
  /** The markets to trade (already filtered). */
  readonly markets: readonly MarketInfo[];
  readonly source: BacktestResult['source'];
  /** The order protocol whose taker fee the venue charges (BacktestResult.feeProtocol). */
  readonly feeProtocol: FeeProtocol;
  /** Known end of the data in world mode. */
  readonly endMs: number | undefined;
  /**
   * Timer callbacks run so far that involve none of the bot's promises (the world's, on a
   * QuietClock: see ./quiet-clock.ts); the runner does not settle for them. Default: none.
   */
  readonly quietFired?: () => number;
  /**
   * Runs the data through the venue. Call `step()` after every change of time or ingest (it settles
   * pending work when needed, and says whether to stop).
   */
  run(
    step: () => Promise<boolean> | boolean,
    count: (items: number, frames: number, malformed: number) => void,
  ): Promise<void>;
  /** Stops the data source's own activity (the world's agents) before the final cancel-all. */
  halt(): void;
  /** World mode: the news jumps of the traded markets during the run (after the warm-up). */
  readonly news?: () => readonly NewsJumpRow[];
  /** Feed mode: the gaps of the data seen so far (BacktestResult.gaps). */
  readonly gaps?: () => readonly { readonly fromMs: number; readonly toMs: number }[];
  /**
   * Whether the book the bot sees shows its own resting orders (the reward estimate then takes
   * them out of the competition). Default true.
   */
  readonly bookIncludesOwn?: boolean;
  /**
   * World mode: what the exchange pays our account in rewards per market (closed epochs' credits
   * and the running epoch's standing), read at the end of the run. Absent: the estimate is the figure.
   */
  readonly rewards?: () => ReadonlyMap<string, { readonly accrued: number; readonly paid: number }>;
  /** Frees resources (temporary files, the exchange). */
  close(): Promise<void>;
}
