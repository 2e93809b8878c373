/** What `runBacktest` takes (src/backtest/runner.ts): the options of a backtest and its progress reports. */
import type { FeeProtocol } from '../core/fees.ts';
import type { EngineLogger } from '../engine/loop.ts';
import type { TraderHooks } from '../kernel/create-trader.ts';
import type { SimLatencyOptions } from '../venues/sim/sim-venue.ts';
import type { WorldSpec } from './types.ts';

/** What to backtest. Exactly one of `feeds` and `world`. */
export interface BacktestOptions {
  /** Recorded feed files, merged by receive time. */
  readonly feeds?: readonly string[];
  /** A synthetic world instead of a feed. */
  readonly world?: WorldSpec;
  /** A shipped strategy's name or a plugin's path. */
  readonly strategy: string;
  /** Strategy parameters (validated against its schema; numbers may be strings). */
  readonly params?: Readonly<Record<string, unknown>>;
  /** Seed of every random choice of the simulation (queue model, latencies, retries' jitter). Default 1. */
  readonly seed?: number;
  /** Queue-position model of the simulated venue (feed mode). Default 'risk-averse'. */
  readonly queue?: 'risk-averse' | 'probabilistic';
  /** One-way latency of requests, ms of virtual time: an order or cancel reaches the venue after it, the answer comes back after it again. Default 0. */
  readonly latencyMs?: number;
  /** Feed mode: the simulated venue's full latency model (distributions, feed latency), instead of `latencyMs`. */
  readonly latency?: SimLatencyOptions;
  /**
   * The order protocol whose taker fee the venue charges (core/fees.ts): 1 or 2. Default: feed mode,
   * the one the feed's header says (2 when it says none: feeds recorded before it was written);
   * world mode, 1 (our orders are charged as the exchange's own flow, as synthetic backtests always were).
   */
  readonly feeProtocol?: FeeProtocol;
  /** Condition ids to trade (default: every active market of the feed; the world's most liquid). */
  readonly markets?: readonly string[];
  /** Risk limits (the config's `risk` section). Default: the defaults. */
  readonly risk?: Readonly<Record<string, unknown>>;
  /** Diff tolerance of the executor (default as the daemon's: 0 ticks, 10 % of size). */
  readonly tolerance?: { readonly priceTicks: number; readonly sizeFraction: number };
  /**
   * Send quotes post-only, as the daemon does by default (`bot.postOnly`): the simulated venue
   * applies the same rule (src/core/order-rules.ts) and refuses a quote that would cross. Default
   * false: a backtest's results stay those recorded before the daemon's default changed.
   */
  readonly postOnly?: boolean;
  /** Starting collateral, micro. Default 10,000 (in micro: 1e10). */
  readonly collateral?: number;
  /** SQLite file of the run's store (default: a temporary file, removed afterwards). */
  readonly storePath?: string;
  /**
   * Feed mode: the window of the feed to trade, unix ms of receive time (both ends included). The
   * records before `fromMs` only build the books and markets the bot starts with (it gets them as a
   * snapshot when it subscribes, as a live bot does); the run ends at `toMs`. Default: the whole feed.
   */
  readonly fromMs?: number;
  readonly toMs?: number;
  /** Sampling period of the charts' series, ms of virtual time. Default 1000. */
  readonly sampleMs?: number;
  /**
   * Period of the liquidity reward estimate's samples, ms of virtual time (default 60,000: the
   * venue samples once a minute). Shorter only for short test feeds.
   */
  readonly rewardSampleMs?: number;
  /** Most points per series before downsampling (the charts' series, and the fill points `fillPoints`). Default 4000. */
  readonly maxSamples?: number;
  /**
   * Fill rows kept in the result (`fills`): the most recent ones. Default 10,000; 0 keeps none. The
   * figures over ALL fills are measured online (`fillStats`), and the complete list is in the run's
   * store (the `fills` table of the SQLite file: keep it with `storePath`), so memory stays flat
   * however long the run (room for this many rows, ~60 B each, is taken at the start).
   */
  readonly maxFillRows?: number;
  /** The strategy's timer period, ms (as the daemon: 1000). */
  readonly tickMs?: number;
  /** Coalesce identical consecutive intents (see the module comment). Default true. */
  readonly coalesceIntents?: boolean;
  /** Reuse the risk gate's answer while nothing it reads changed (src/risk/gate-memo.ts; exact). Default true. */
  readonly memoiseGate?: boolean;
  /**
   * The run's store as a scratch file (StoreOptions.scratch: journal in memory, an exclusive lock
   * until the run ends, a large page cache; the same rows). Default true; false: the WAL, as the
   * daemon's store (other processes may read the file during the run).
   */
  readonly scratchStore?: boolean;
  /**
   * Settle after EVERY timer that fires, the world's and the runner's own measurement timers
   * included, instead of only when something of the bot's may be pending (see the module comment).
   * Slower, and the same result: for tests. Default false.
   */
  readonly settleOnEveryTimer?: boolean;
  /** Items per replay batch (feed mode). */
  readonly batchSize?: number;
  /**
   * Feed mode: a folder for decoded-event caches of the feeds (./feed-cache.ts): a run that reads a
   * feed to its end writes its cache there as it goes, and later runs read the events back without
   * gunzip or text scanning. The result is identical with and without. Default: none (no cache;
   * `mmkit backtest` passes one).
   */
  readonly feedCache?: string;
  /** Progress, every `progressEveryMs` of virtual time (default 60 s). */
  readonly onProgress?: (p: BacktestProgress) => void;
  readonly progressEveryMs?: number;
  /** Observers of the bot (src/kernel: TraderHooks), e.g. every gate decision (a hook on the gate turns its memo off). */
  readonly hooks?: TraderHooks;
  /** Engine and strategy logs (default: none). */
  readonly logger?: BacktestLogger;
  /**
   * Makes the engine, gate and strategy logger of the run from the run's virtual clock (`now`: its
   * time, unix ms; NaN before the clock exists, while a strategy's `selectMarkets` runs), so each
   * line carries virtual time (`mmkit backtest --log-level`). Wins over `logger`. A logger with
   * `child` gives the strategy a child of its own (`{component: 'strategy', strategy}`, as live).
   */
  readonly makeLogger?: (now: () => number) => BacktestLogger;
  /** Stops the run early (the result covers what ran). */
  readonly signal?: AbortSignal;
}

/** A logger of a backtest: the engine's levels, and optionally pino's `child`. */
export interface BacktestLogger extends EngineLogger {
  debug(obj: object, msg?: string): void;
  child?(bindings: Record<string, unknown>): EngineLogger & { debug(obj: object, msg?: string): void };
}

/** Progress of a running backtest (virtual time; wall-clock rates are the caller's to measure). */
export interface BacktestProgress {
  readonly startMs: number;
  readonly nowMs: number;
  /** Known in world mode; undefined for feeds. */
  readonly endMs: number | undefined;
  readonly items: number;
  readonly events: number;
  readonly fills: number;
}
