/**
 * The engine's contract (moved out of ./loop.ts, which re-exports it): its options, counters and
 * the running engine's interface.
 */
import type { Observable } from 'rxjs';
import type { Clock } from '../core/clock.ts';
import type { FillEvent, MmkitEvent } from '../core/events.ts';
import type { ConditionId, TokenId } from '../core/ids.ts';
import type { DesiredQuotes, ImmediateIntent } from '../core/intents.ts';
import type { Venue, VenueOrder, MarketInfo } from '../core/venue.ts';
import type { Approved } from '../risk/gate.ts';
import type { StrategyHandlers, StrategyState } from '../strategy/api.ts';
import type { EngineState, FillLike, OrderViewSource } from './state.ts';
import type { StrategyCalls } from './strategy-calls.ts';

/** A structured logger (pino's Logger fits). */
export interface EngineLogger {
  debug?(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error?(obj: object, msg?: string): void;
}

/** What a start reconciliation may hand the engine (see ./restart.ts, ReconcileReport). */
export interface StartReconciliation {
  /** Open orders found at the venue and kept: they join the state's own orders. */
  readonly adopted?: readonly VenueOrder[];
  /** Fills backfilled from the venue: they join the state's positions (deduplicated). */
  readonly fills?: readonly FillLike[];
}

/** Options of `createEngine`. */
export interface EngineOptions {
  venue: Venue;
  /**
   * The strategy instance (`definition.create(ctx, params)`), or a factory given the engine's state
   * (so that `ctx.markets` can be `state.markets`, which follows tick-size changes).
   */
  strategy: StrategyHandlers | ((state: EngineState) => StrategyHandlers);
  /** The markets to trade: both tokens of each are mirrored and must be fresh to quote. */
  markets: readonly MarketInfo[];
  clock: Clock;
  /**
   * Timer events for the strategy every `tickMs` (0: none); venue balance refresh every
   * `balanceMs` (default 5 s; 0: never); a re-read of the traded markets every `marketsPollMs`
   * (default 0: never; `venue.market(id)` each, else the venue's listing): a market whose reward
   * config, status or minimum size changed becomes a `market_updated` event (the state follows it,
   * the strategy re-quotes); one no longer active (closed, not accepting orders) is pulled until the
   * venue lists it active again, `market_resolved` or not.
   */
  timers?: { tickMs: number; balanceMs?: number; marketsPollMs?: number };
  /**
   * The risk gate for quotes (required: nothing reaches execution unchecked): what may be executed
   * (an empty list pulls), approved by src/risk/gate.ts.
   */
  gate: (desired: DesiredQuotes, state: StrategyState) => Approved<DesiredQuotes>;
  /** Hands approved quotes to execution (the executor's submit; latest per market wins there). */
  execute?: (desired: Approved<DesiredQuotes>) => void;
  /**
   * The risk gate for immediate orders (required): the approved ones; refused ones are left out.
   * `replacing`: the quote sets of the same output the gate approved (handed to execution before the
   * orders, they replace their markets' live orders first: src/risk/gate-orders.ts OrderRoom).
   */
  gateOrders: (
    orders: readonly ImmediateIntent[],
    state: StrategyState,
    replacing: readonly Approved<DesiredQuotes>[],
  ) => readonly Approved<ImmediateIntent>[];
  /** Hands approved immediate orders to execution (the executor's execute). Without it they are dropped (and counted). */
  executeOrders?: (orders: readonly Approved<ImmediateIntent>[]) => void;
  /**
   * Every fill event, after the state counted it, before the strategy sees it (persist here).
   * Returns 'external' for a fill of an order the bot did not place: the strategy does not see it.
   */
  onFill?: (fill: FillEvent) => 'external' | void;
  /**
   * A fill to drop before anything sees it (not the state, `onFill`, the strategy nor `events$`):
   * a fleet member's view of another member's fill (issue 21: it is in that member's ledger).
   */
  ignoreFill?: (fill: FillEvent) => boolean;
  /** Real-time price symbols to subscribe (besides the strategy handlers' `priceSymbols`). */
  priceSymbols?: readonly string[];
  /** The restart reconciliation; start() awaits it before any quoting. */
  reconcile?: () => Promise<StartReconciliation | void>;
  /**
   * Awaited by start() after the reconciliation and the balance read, before quoting is allowed (the
   * strategy gets no event before it resolves): the daemon checks its loss limits here, so a restart
   * past one trips before the strategy acts. The streams run meanwhile (books come in).
   */
  beforeReady?: () => Promise<void> | void;
  /** Own open orders from the executor's tracker instead of the order events. */
  orders?: OrderViewSource;
  /** Asks the venue for fresh snapshots (default: the venue's `resync` when it has one). */
  resync?: (tokenIds: readonly TokenId[]) => void;
  /** Pull quotes while the user channel is out of sync (default true). */
  requireUserSync?: boolean;
  /** Finished order ids the state remembers so a late update cannot revive them (EngineStateOptions.terminalCapacity, default 50,000). */
  terminalCapacity?: number;
  logger?: EngineLogger;
  /**
   * Measure the strategy's handler (wall time of each `onEvent` call) and count the quotes and
   * immediate orders it hands the gate (`strategyCalls().measured`). Off by default (a backtest pays
   * nothing for it); `mmkit strategy check` turns it on (RunConfig.measureStrategy ->
   * TraderOptions.measureStrategy).
   */
  measureStrategy?: boolean;
  /**
   * Warn when one `onEvent` call holds the loop longer than this (ms): a handler that blocks reads,
   * from the outside, as a silent venue (streams time out, books go stale, quotes are pulled), so
   * the log names it. `mmkit run` sets it (DEFAULT_STALL_WARN_MS); absent: not timed (backtests).
   */
  stallWarnMs?: number;
}

/** Counters of the engine. */
export interface EngineStats {
  /** Events processed. */
  events: number;
  /**
   * Strategy outputs and quote sets executed / dropped (a pulled market; an output naming a market
   * this engine does not trade is invalid: a strategy error, not a drop).
   */
  outputs: number;
  executed: number;
  dropped: number;
  /** Pulls (a market went unquotable) and resumes. */
  pulls: number;
  resumes: number;
  /** Errors caught, per place (`strategy`: a handler threw or returned an invalid output, ./output-check.ts). */
  errors: {
    state: number;
    strategy: number;
    gate: number;
    execute: number;
    onFill: number;
    source: number;
    balance: number;
    listing: number;
  };
  /**
   * The first error a strategy handler threw: its message and where it was thrown (the top frame
   * of its stack, `file:line:column`, when known), or the first invalid output (`invalid output:
   * <why>`, no location). Absent while the strategy has not erred.
   */
  firstStrategyError?: { readonly message: string; readonly at?: string };
  /**
   * Present while the strategy is failing on some market: it erred on STRATEGY_FAILING_AFTER of its
   * evaluations with no output for it between (./loop.ts), so its quotes were pulled; since when (unix
   * ms, the earliest), the most evaluations in a row that erred, the last error, the markets. Gone
   * once it gave an output for each.
   */
  strategyFailing?: {
    readonly since: number;
    readonly consecutive: number;
    readonly lastError: string;
    /** The markets whose quotes are pulled. */
    readonly markets: readonly ConditionId[];
  };
}

/** The running engine. */
export interface Engine {
  /** Subscribes the streams, runs the reconciliation, then lets the strategy quote. @throws what the reconciliation throws. */
  start(): Promise<void>;
  /** Unsubscribes and stops the timers. Idempotent. */
  stop(): Promise<void>;
  readonly state: EngineState;
  /** Every event, after the state and the strategy have processed it. */
  readonly events$: Observable<MmkitEvent>;
  /** Every quote set handed to `execute` (gated strategy output and pulls). */
  readonly desired$: Observable<Approved<DesiredQuotes>>;
  /** True once the reconciliation has succeeded (quoting allowed) and until stop. */
  readonly ready: boolean;
  /** True once `stop()` was called (a stop during the start leaves the engine never ready). */
  readonly stopped: boolean;
  /** The markets pulled right now (no quoting). */
  pulled(): ReadonlySet<ConditionId>;
  stats(): EngineStats;
  /** How often the strategy was called, and its times when measured (kept out of `stats()`: a backtest's result). */
  strategyCalls(): StrategyCalls;
  /**
   * An error of the strategy outside `onEvent`, in a callback of its `ctx.clock` (guardedClock):
   * counted, logged and judged as a throw at a timer event (every market's count). Never throws.
   */
  strategyCallbackThrew(err: unknown): void;
}
