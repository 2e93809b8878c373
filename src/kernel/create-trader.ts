/**
 * The kernel: `createTrader` is the ONE wiring of the bot. `mmkit run` (and `mmkit strategy check`,
 * which runs the daemon), feed and synthetic backtests and sweeps all build their bot here, and add
 * only what is theirs around it (the daemon its status server, logs and shutdown backfill; the
 * backtest its virtual-time driver and measurements). Live, shadow, paper and backtest differ only
 * in the venue adapter, the clock and the store handed in (nautilus' kernel; barter's
 * `SystemBuilder`, which its backtests call as live does).
 *
 *   venue events ─► engine (state: books, own orders, positions) ─► strategy
 *        ─► risk gate (only `Approved<...>` passes: quotes and immediate FOK/FAK orders alike)
 *        ─► executor (diff, cancels first, batches, budgets) ─► venue
 *   fills ─► executor ─► store (exactly once, before anything reports them) ─► hooks
 *   (a fill of an order the bot did not place: recorded as 'external', counted apart, reported to
 *   `onExternalFill`, never handed to the strategy nor to `onFill`)
 *
 * Owned here: the order tracker, the executor, the kill switch, the heartbeat keeper, the risk view
 * (the market's CURRENT info: the tick after a tick-size change, the minimum size), the gate, the
 * path from fills to the store, the restart reconciliation and the seeding of positions from the
 * store.
 *
 * Speed-ups that only a backtest needs are `tuning` options of this one wiring (the gate memo,
 * coalescing identical intents, the tracker's cached live-order lists, bounded fill and order-id
 * memories); they change no result (tests run the sample feed with them on and off).
 */
import type { Clock, TimerHandle } from '../core/clock.ts';
import { fillLogFields, type FillEvent } from '../core/events.ts';
import type { ConditionId, OrderId, TokenId } from '../core/ids.ts';
import { sameQuotes, type DesiredQuotes, type ImmediateIntent, type QuoteIntent } from '../core/intents.ts';
import { formatAmount, formatPrice, type Micro, tickPips, type Pips } from '../core/units.ts';
import type { MarketInfo, Venue } from '../core/venue.ts';
import { RateLimitedLog } from '../core/rate-limited-log.ts';
import { createEngine, type Engine, type EngineLogger } from '../engine/loop.ts';
import { reconcileOnStart } from '../engine/restart.ts';
import { CollateralKeeper } from '../execution/collateral-keeper.ts';
import {
  PositionAuditor,
  type ActivityKind,
  type AdjustmentCause,
  type AuditReport,
  type OthersToken,
  type PositionAdjustment,
} from '../engine/position-audit.ts';
import type { DiffTolerance } from '../execution/diff.ts';
import { Executor, POST_ONLY_CROSSING, type FlatReport, type ForeignOrderPolicy } from '../execution/executor.ts';
import { RewardTracker } from '../engine/reward-tracker.ts';
import { HeartbeatKeeper } from '../execution/heartbeat.ts';
import { OrderTracker } from '../execution/tracker.ts';
import { gate, gateOrder, type Approved, type GateResult, type RiskView } from '../risk/gate.ts';
import { GateMemo } from '../risk/gate-memo.ts';
import { KillSwitch } from '../risk/kill-switch.ts';
import type { RiskLimits } from '../risk/limits.ts';
import { withStrategyBand } from '../risk/strategy-band.ts';
import { restartStore } from '../store/restart.ts';
import type { FillChange, FillRecord, Store } from '../store/store.ts';
import type { StrategyDefinition } from '../strategy/api.ts';

/** A logger of the kernel's parts (pino's Logger fits). */
export interface TraderLogger extends EngineLogger {
  debug(obj: object, msg?: string): void;
}

/**
 * Backtest speed-ups: exact (no result changes), off by default. A daemon runs without them; a
 * backtest turns them on.
 */
export interface TraderTuning {
  /** Reuse the gate's answer while nothing it reads changed (src/risk/gate-memo.ts). */
  readonly memoiseGate?: boolean;
  /**
   * Do not hand the executor a quote set identical to the last one of its market while no order of
   * that market changed state and its tick is the same: the executor's diff would find nothing to do.
   * With `memoiseGate` too (and no `onQuoteSet` hook), a memoised answer that is that very set is
   * handed on as approved before (its time the earlier one's: it is not executed), not stamped anew.
   */
  readonly coalesceIntents?: boolean;
  /** The risk view and the engine read the tracker's cached live-order lists (rebuilt on change). */
  readonly cachedLiveOrders?: boolean;
  /** Fill keys the engine's state keeps for deduplication (default: all). */
  readonly fillKeys?: number;
  /** Finished order ids the engine's state remembers (default 50,000). */
  readonly terminalCapacity?: number;
}

/** What a caller observes of the trader (the daemon's ops, a backtest's measurements). */
export interface TraderHooks {
  /** Each fill of the bot's own orders after the store has it (`change`: what the store did: 'new', 'dup', 'void'...). */
  onFill?(fill: FillEvent, change: FillChange | undefined): void;
  /**
   * Each fill of an order the bot did not place (another client on the same wallet), after the
   * store recorded it with source 'external': from the user stream and from backfills.
   */
  onExternalFill?(fill: FillRecord, change: FillChange): void;
  /** Each approved quote set, before it reaches the executor (coalesced ones included). */
  onQuoteSet?(desired: Approved<DesiredQuotes>): void;
  /** Each gate decision on quotes: what was asked and the gate's answer (turns the gate memo off). */
  onGate?(desired: DesiredQuotes, result: GateResult): void;
  /** Each immediate order the gate decided on. */
  onGateOrder?(order: ImmediateIntent, approved: boolean, code: string | null): void;
}

/** Options of `createTrader`. */
export interface TraderOptions {
  readonly venue: Venue;
  readonly clock: Clock;
  /** The store: orders before they are sent, fills exactly once. */
  readonly store: Store;
  readonly strategy: StrategyDefinition;
  /** The strategy's params, validated (resolveParams). */
  readonly params: Readonly<Record<string, unknown>>;
  /** The markets to trade. */
  readonly markets: readonly MarketInfo[];
  /** The operator's limits (bot.risk); the strategy's own riskPriceBand is applied over them (src/risk/strategy-band.ts). */
  readonly limits: RiskLimits;
  readonly log: TraderLogger;
  /** A logger per component and market (the daemon's `{component, market}` lines); default `log`. */
  readonly marketLog?: (component: string, market: string) => Pick<TraderLogger, 'debug' | 'info' | 'warn'>;
  /** The strategy's logger (default `log`). */
  readonly strategyLog?: TraderLogger;
  /** Executor diff tolerance (default: exact price, 10 % of size). */
  readonly tolerance?: DiffTolerance;
  /**
   * Post quotes as post-only (the venue refuses one that would take: re-priced at the next intent,
   * not counted as a rejection by the kill switch). Immediate orders (FOK/FAK) never are. Default
   * false (`mmkit run` passes `bot.postOnly`, true by default).
   */
  readonly postOnly?: boolean;
  /** Random source of the executor's backoff jitter (default Math.random; a backtest seeds one). */
  readonly random?: () => number;
  /** The strategy's timer period, ms (default 1000). */
  readonly tickMs?: number;
  /** How often the venue's collateral balance is read, ms (default 5,000). */
  readonly balanceMs?: number;
  /** The bot's own open orders (the store knows them) found at start: cancel them (default) or adopt them. */
  readonly restartPolicy?: 'cancel' | 'adopt';
  /**
   * Orders on the wallet the bot did not place, at start and while running: left alone (default),
   * cancelled, or adopted (`bot.foreignOrders`).
   */
  readonly foreignOrders?: ForeignOrderPolicy;
  /** Log the reconciliation's findings (default true). */
  readonly logReconcile?: boolean;
  /** Start positions from every fill already in the store (default true: positions survive restarts). */
  readonly seedFromStore?: boolean;
  /**
   * Reconcile the store's positions with the venue's holdings (src/engine/position-audit.ts): at
   * start (after the restart backfill, before anything is quoted), after every reconnect of the user
   * channel and every `everyMs`. Undefined: never (backtests: the simulated venue is the ledger).
   */
  readonly positionAudit?: PositionAuditConfig;
  /**
   * Collateral housekeeping (src/execution/collateral-keeper.ts): merge complementary holdings of
   * at least `mergeMinSize` micro-shares (0: never) and redeem resolved markets, every `everyMs`
   * and when a followed market resolves. Undefined: never.
   */
  readonly collateral?: { readonly mergeMinSize: number; readonly redeem: boolean; readonly everyMs: number };
  readonly tuning?: TraderTuning;
  readonly hooks?: TraderHooks;
  /**
   * The liquidity reward estimate (src/engine/reward-tracker.ts): sampled every `sampleMs` (default
   * 60 s, as the venue does) for the markets with a reward config. `bookIncludesOwn` (default true,
   * as a live book shows our orders): false for a recorded book that does not.
   */
  readonly rewards?: { readonly sampleMs?: number; readonly bookIncludesOwn?: boolean };
  /**
   * A fleet member's view of the fleet (issue 21; src/fleet/member.ts fits): only the heartbeat
   * lease holder sends the venue's heartbeats (and does so while any member's orders may rest), and
   * a market is quoted only while `quotable(market)` (Redis reachable, the fleet not killed, the
   * market's lease held). Undefined: a lone daemon, everything as before.
   */
  readonly fleet?: TraderFleet;
}

/** What the kernel reads of the fleet (TraderOptions.fleet). */
export interface TraderFleet {
  /** Whether this member sends the venue's heartbeats now (it holds the heartbeat lease). */
  shouldBeat(): boolean;
  /** Whether this member may quote the market now. */
  quotable(market: ConditionId): boolean;
  /** Whether orders may go out at all (Redis reachable, the fleet not killed). */
  canPlace(): boolean;
  /**
   * The account-wide caps this member may use now (its grant of the fleet's risk.maxNotionalGlobal,
   * µ, and risk.maxOpenOrdersGlobal: src/fleet/risk-reserve.ts), enforced by the gate in place of
   * the configured global limits. Return the same object while it does not change (the gate memo
   * keys on the limits' identity). Undefined: the configured limits.
   */
  globalCaps?(): { readonly notional: number; readonly orders: number };
  /**
   * Called when the gate cut or refused a quote for lack of global room (NOTIONAL_GLOBAL,
   * OPEN_ORDERS_GLOBAL): the member's keeper asks the fleet for more. When set, the gate memo is
   * not used (it does not report what it cut).
   */
  globalPressure?(): void;
  /** Fleet reconciliation (members share one wallet, each with its own ledger). Undefined: none. */
  readonly ledger?: TraderFleetLedger;
}

/**
 * Fleet reconciliation (issue 21; src/cli/run-fleet.ts wires src/fleet/fleet-ledger.ts): the
 * position audit compares the venue with the sum of the members' ledgers and books a difference
 * only on a market this member holds (`quotable`); orders and fills of the other members are not
 * foreign (src/execution/executor.ts `fleetMarket`).
 */
export interface TraderFleetLedger {
  /** True when `market` is another member's now (one of the fleet's markets this member does not hold). */
  othersMarket(market: ConditionId): boolean;
  /** The other members' published ledgers, summed by token. @throws when Redis cannot be read */
  others(): Promise<ReadonlyMap<string, OthersToken>>;
  /** This member's ledger changed (an own fill, an adjustment): publish it soon. */
  changed(): void;
}

/** One token of this member's ledger as the fleet sees it (Trader.ledgerFigures). Sizes micro-shares. */
export interface LedgerFigures {
  readonly market: string;
  readonly size: number;
  /** Signed size of the unsettled fills (BUY +, SELL −). */
  readonly unsettled: number;
  /** Fills of the token recorded since start. */
  readonly fills: number;
}

/** The position audit's settings (TraderOptions.positionAudit). */
export interface PositionAuditConfig {
  /** Period of the audits while running, ms (0: at start and on reconnects only). */
  readonly everyMs: number;
  /** The cause of the start audit's differences: a new ledger epoch's opening holdings. */
  readonly opening?: AdjustmentCause;
  /** Start of the current ledger epoch (unix ms): its unsettled fills are read from then on. */
  readonly epochStart?: number;
  /** The venue's account activity by token (the data API's), to name causes. */
  activity?(sinceMs: number): Promise<ReadonlyMap<string, ActivityKind>>;
  /** A token's mid when the engine does not mirror its book (e.g. the venue's midpoint). */
  mid?(tokenId: string): Promise<number | undefined>;
  /** Each adjustment recorded (the daemon logs and counts it). */
  onAdjust?(a: PositionAdjustment): void;
}

/** Counters of the kernel's intent path. */
export interface TraderCounters {
  /** Approved quote sets handed towards the executor (pulls included). */
  intents: number;
  /** Of those, not submitted: identical to the last one (tuning.coalesceIntents). */
  coalesced: number;
  /** Submitted to the executor. */
  submits: number;
  /** Immediate orders approved and refused by the gate. */
  ordersApproved: number;
  ordersRefused: number;
}

/** The wired bot. Nothing runs until `start()`. */
export interface Trader {
  readonly engine: Engine;
  readonly executor: Executor;
  readonly tracker: OrderTracker;
  readonly kill: KillSwitch;
  readonly heartbeat: HeartbeatKeeper;
  readonly store: Store;
  /** What the gate reads (current tick and market info, books, positions, live orders, collateral). */
  readonly riskView: RiskView;
  readonly counters: Readonly<TraderCounters>;
  /** The position audit (undefined without TraderOptions.positionAudit). */
  readonly auditor: PositionAuditor | undefined;
  /** Runs one position audit now (confirming differences seen before, as while trading). */
  auditPositions(): Promise<AuditReport | undefined>;
  /** This member's ledger by token (what a fleet member publishes: src/fleet/fleet-ledger.ts). */
  ledgerFigures(): Record<string, LedgerFigures>;
  /** The collateral housekeeping (undefined without TraderOptions.collateral). */
  readonly keeper: CollateralKeeper | undefined;
  /** The liquidity reward estimate of the bot's quotes (samples once started; nothing when no market is rewarded). */
  readonly rewards: RewardTracker;
  /** Subscribes the streams and reconciles with the venue; quoting starts once it succeeded. @throws what the reconciliation throws */
  start(): Promise<void>;
  /** Starts the heartbeat keeper (dead-man switch) once the engine is ready. Idempotent. */
  startHeartbeat(): void;
  /** Stops the engine (no more events, no more intents). Idempotent. */
  stop(): Promise<void>;
  /** Cancels every order and halts placing for good. */
  cancelAll(reason: string): ReturnType<Executor['cancelAll']>;
  /** Checks the venue shows no open order of ours. */
  verifyFlat(timeoutMs?: number): Promise<FlatReport>;
  /** Stops the heartbeat and closes the executor (after cancelAll and verifyFlat). */
  close(): Promise<void>;
  /**
   * Pulls one market's quotes now (an empty approved set: its orders are cancelled), without
   * halting: the next intent the gate approves quotes again (a fleet member that lost the market's
   * lease, or lost Redis, pulls this way).
   */
  pullMarket(market: ConditionId): void;
}

const NO_TUNING: TraderTuning = {};

/** The log message of post-only quotes the venue refused in one cycle (fields: `rejected`, `code`). */
export const POST_ONLY_REFUSED_MSG = 'post-only quotes refused: they would have crossed (re-priced at the next intent)';

/**
 * Wires the bot (see the module comment).
 * @throws ConfigError from the executor on a bad tolerance; when the strategy's riskPriceBand and the
 *   operator's price limits leave no price to quote
 */
export function createTrader(o: TraderOptions): Trader {
  const { venue, clock, store, log } = o;
  // the strategy's own price band over the operator's limits (src/risk/strategy-band.ts)
  const limits = withStrategyBand(o.limits, o.strategy.riskPriceBand);
  const tuning = o.tuning ?? NO_TUNING;
  const hooks = o.hooks ?? {};
  const marketLog = o.marketLog ?? (() => log);
  const cached = tuning.cachedLiveOrders === true;
  const counters: TraderCounters = { intents: 0, coalesced: 0, submits: 0, ordersApproved: 0, ordersRefused: 0 };

  const tracker = new OrderTracker(clock);
  // the engine is made below; the executor and the risk view read its state through this
  let engine: Engine | undefined;
  const currentTick = (m: ConditionId): Pips | undefined => {
    const t = engine?.state.market(m)?.tick;
    return t === undefined ? undefined : tickPips(t);
  };
  const executor = new Executor({
    venue,
    store,
    tracker,
    clock,
    tolerance: o.tolerance ?? { priceTicks: 0, sizeFraction: 0.1 },
    tickPips: currentTick,
    ...(o.postOnly ? { postOnly: true } : {}),
    foreignOrders: o.foreignOrders ?? 'leave',
    ...(o.random ? { random: o.random } : {}),
    ...(o.fleet?.ledger !== undefined ? { fleetMarket: o.fleet.ledger.othersMarket } : {}),
  });
  const kill = new KillSwitch(clock, { limits: limits.killSwitch });
  const fleet = o.fleet;
  const heartbeat = new HeartbeatKeeper({
    // in a fleet only the heartbeat lease holder beats; the others' beats count as sent
    beat: () => (fleet === undefined || fleet.shouldBeat() ? venue.heartbeat() : Promise.resolve(true)),
    clock,
    // the venue's dead-man switch cancels every order of the account once armed: while orders the
    // bot leaves alone (bot.foreignOrders) rest, its heartbeats keep them as they are too; in a
    // fleet the holder beats for every member's orders, so it beats all the time
    active:
      fleet === undefined
        ? () => executor.hasOpenOrders() || tracker.foreignOrders().length > 0
        : () => fleet.shouldBeat(),
    target: executor,
  });
  heartbeat.onStatus((s) => {
    if (s.lastAttemptAt > 0) kill.recordHeartbeat(s.consecutiveFailures === 0);
    if (s.consecutiveFailures > 0)
      log.warn({ failures: s.consecutiveFailures, error: s.error }, 'heartbeat failed: new orders paused');
  });
  executor.onRejection((r) => {
    marketLog('executor', r.market).warn({ order: r.id, code: r.code, message: r.message }, 'order rejected');
    kill.recordRejection(r.code);
  });
  // post-only quotes the venue refused as crossing: re-priced at the next intent; one line per cycle
  executor.onCycle((c) => {
    if (c.postOnlyRejected > 0)
      marketLog('executor', c.market).info(
        { rejected: c.postOnlyRejected, code: POST_ONLY_CROSSING },
        POST_ONLY_REFUSED_MSG,
      );
  });
  // orders and fills on the wallet that the bot did not make
  executor.onForeign((x) => {
    if (x.kind === 'order') {
      const v = x.order;
      marketLog('executor', v.market).warn(
        {
          order: v.id,
          side: v.side,
          price: formatPrice(v.price),
          size: formatAmount(v.originalSize),
          policy: x.policy,
        },
        x.policy === 'leave'
          ? 'an order the bot did not place rests on the wallet: left alone (bot.foreignOrders)'
          : x.policy === 'cancel'
            ? 'an order the bot did not place rests on the wallet: cancelling it (bot.foreignOrders)'
            : 'an order the bot did not place rests on the wallet: adopted as its own (bot.foreignOrders)',
      );
      return;
    }
    if (x.change === 'new') {
      const f = x.fill;
      marketLog('executor', f.market).info(
        fillLogFields(f),
        "external fill (an order the bot did not place): recorded, not the strategy's",
      );
    }
    hooks.onExternalFill?.(x.fill, x.change);
  });

  const isGlobalRoom = (x: { readonly code: string }) =>
    x.code === 'NOTIONAL_GLOBAL' || x.code === 'OPEN_ORDERS_GLOBAL';
  // ---- the risk view: one object, every field read from the current state --------------------------
  // a fleet member's global caps are its grant (one limits object per grant: the memo keys on it)
  let grantSeen: ReturnType<NonNullable<TraderFleet['globalCaps']>> | undefined;
  let grantLimits: RiskLimits = limits;
  const fleetLimits = (): RiskLimits => {
    if (fleet?.globalCaps === undefined) return limits;
    const g = fleet.globalCaps();
    if (g !== grantSeen) {
      grantSeen = g;
      grantLimits = Object.freeze({
        ...limits,
        global: Object.freeze({ maxNotional: g.notional as Micro, maxOpenOrders: g.orders }),
      });
    }
    return grantLimits;
  };
  const live = () => (cached ? tracker.liveOrdersCached() : tracker.liveOrders());
  const riskView: RiskView = {
    // (a getter, not a spread: a spread would read the fleet's caps once, here)
    get limits() {
      return fleetLimits();
    },
    killSwitch: kill,
    ...(fleet !== undefined
      ? {
          marketHalted: (m: ConditionId) =>
            fleet.quotable(m)
              ? null
              : fleet.canPlace()
                ? 'fleet: another member holds this market'
                : 'fleet: Redis unreachable or the fleet killed',
        }
      : {}),
    // fail closed once a heartbeat has failed, until one succeeds (before the first: nothing rests)
    get heartbeatOk() {
      return heartbeat.status().consecutiveFailures === 0;
    },
    // the market as the venue announced it last: after a tick_size_change the new tick, so quotes
    // between the old ticks are valid (and the same in a backtest as live)
    // (the view is read only once the engine below exists)
    market: (id) => engine!.state.market(id),
    tick: currentTick,
    book: (t) => engine!.state.book(t),
    position: (t) => engine!.state.position(t).size,
    openOrders: live,
    foreignOrders: (m) => tracker.foreignOrders(m),
    get availableCollateral() {
      return engine!.state.availableCollateral;
    },
  };

  // ---- the gate ------------------------------------------------------------------------------------
  const pressure = fleet?.globalPressure?.bind(fleet);
  const memo = tuning.memoiseGate === true && pressure === undefined ? new GateMemo() : undefined;
  // with coalescing too (and no hook that sees each set): a memoised answer that `execute` below
  // will coalesce (the same quotes as the set last submitted for its market, nothing of the market
  // having changed since: its very test) is handed on as approved then (with its earlier time),
  // not stamped anew; `execute` then coalesces that very approval without testing it again
  // (`repeated`: set here, taken by the execute that follows; any order transition or submit in
  // between clears it, and the tick changes only with an event, never inside the engine's hand-over)
  const coalesce = tuning.coalesceIntents === true;
  let repeated: Approved<DesiredQuotes> | undefined;
  const repeatsLast =
    coalesce && hooks.onQuoteSet === undefined
      ? (earlier: Approved<DesiredQuotes>): boolean => {
          const last = lastIntent.get(earlier.market);
          const same =
            last !== undefined &&
            last.seq === (marketSeq.get(earlier.market) ?? 0) &&
            last.tick === currentTick(earlier.market) &&
            sameQuotes(last.quotes, earlier.quotes);
          if (same) repeated = earlier;
          return same;
        }
      : undefined;
  // refusals and trims at info with their reason, the first 10 of a kind (message and code) then
  // every 1000th (with `occurrences`); the others at debug, so that every one is logged once
  const gateLog = new RateLimitedLog({ others: 'debug' });
  const gateQuotes = (desired: DesiredQuotes): Approved<DesiredQuotes> => {
    repeated = undefined;
    if (memo !== undefined && hooks.onGate === undefined) return memo.approve(desired, riskView, repeatsLast);
    const r = gate(desired, riskView);
    if (r.refusals.length > 0 || r.trims.length > 0) {
      const l = marketLog('risk', desired.market);
      for (const x of r.refusals)
        gateLog.log(l, 'info', `refused.${x.code}`, quoteFields(x.quote, x.code, x.reason), 'quote refused');
      for (const x of r.trims)
        gateLog.log(
          l,
          'info',
          `trimmed.${x.code}`,
          { ...quoteFields(x.quote, x.code, x.reason), approvedSize: formatAmount(x.size) },
          'quote trimmed',
        );
    }
    hooks.onGate?.(desired, r);
    if (pressure !== undefined && (r.refusals.some(isGlobalRoom) || r.trims.some(isGlobalRoom))) pressure();
    return r.approved;
  };
  const gateOrders = (orders: readonly ImmediateIntent[]): readonly Approved<ImmediateIntent>[] => {
    const out: Approved<ImmediateIntent>[] = [];
    for (const x of orders) {
      const r = gateOrder(x, riskView);
      if (r.approved !== null) {
        counters.ordersApproved++;
        out.push(r.approved);
        hooks.onGateOrder?.(x, true, null);
      } else {
        counters.ordersRefused++;
        gateLog.log(
          marketLog('risk', x.market),
          'info',
          `order.${r.refusal.code}`,
          { ...quoteFields(x, r.refusal.code, r.refusal.reason), type: x.type },
          'immediate order refused',
        );
        hooks.onGateOrder?.(x, false, r.refusal.code);
      }
    }
    return out;
  };

  // ---- execution: quote sets (coalesced when tuned) and immediate orders ----------------------------
  const lastIntent = new Map<ConditionId, { quotes: readonly QuoteIntent[]; tick: number | undefined; seq: number }>();
  const marketSeq = new Map<string, number>();
  if (coalesce)
    tracker.onTransition((t) => {
      repeated = undefined;
      marketSeq.set(t.order.market, (marketSeq.get(t.order.market) ?? 0) + 1);
    });
  const execute = (d: Approved<DesiredQuotes>): void => {
    counters.intents++;
    hooks.onQuoteSet?.(d);
    if (coalesce) {
      if (d === repeated) {
        // the gate's memo just found it to repeat the last set submitted (repeatsLast above)
        repeated = undefined;
        counters.coalesced++;
        return;
      }
      repeated = undefined;
      const seq = marketSeq.get(d.market) ?? 0;
      const tick = currentTick(d.market);
      const last = lastIntent.get(d.market);
      if (last !== undefined && last.seq === seq && last.tick === tick && sameQuotes(last.quotes, d.quotes)) {
        counters.coalesced++;
        return;
      }
      lastIntent.set(d.market, { quotes: d.quotes, tick, seq });
    }
    counters.submits++;
    executor.submit(d);
  };
  const executeOrders = (orders: readonly Approved<ImmediateIntent>[]): void => {
    for (const x of orders)
      marketLog('executor', x.market).info(
        { type: x.type, side: x.side, token: x.tokenId, price: formatPrice(x.price), size: formatAmount(x.size) },
        'immediate order',
      );
    executor.execute(orders);
  };

  // ---- fills: to the store exactly once, before anything reports them -------------------------------
  const onFill = (e: FillEvent): 'external' | undefined => {
    // the store keeps integer unix ms (a simulated venue may stamp fills with feed-time microseconds)
    const f = Number.isInteger(e.venueTime) ? e : { ...e, venueTime: Math.floor(e.venueTime) };
    let change: FillChange | undefined;
    try {
      const r = executor.recordFill(f);
      // not the bot's: reported to onExternalFill (through onForeign), not to the strategy nor onFill
      if (r.source === 'external') return 'external';
      change = r.change;
      if (change !== 'duplicate') fleetLedger?.changed();
    } catch (err) {
      // a fill that cannot be stored (disk full, I/O error): positions are no longer known for sure,
      // so stop trading. The stream counts the fill as delivered; the shutdown backfill (or the next
      // start's) takes it from the venue's history.
      kill.trip('manual', `a fill could not be stored: ${err instanceof Error ? err.message : String(err)}`);
      throw err;
    }
    hooks.onFill?.(f, change);
    return undefined;
  };

  // ---- the position audit: the venue's holdings are the truth -----------------------------------
  const audit = o.positionAudit;
  const fleetLedger = fleet?.ledger;
  // (read from the oldest unsettled fill on: a fleet member reads them every 2 s to publish them)
  const unsettledFills = () => {
    const from = store.oldestUnsettledFillTime(audit?.epochStart ?? 0);
    if (from === undefined) return [];
    return store.fills(from).filter((f) => f.status === 'MATCHED' || f.status === 'MINED' || f.status === 'RETRYING');
  };
  const tokenFills = new Map<string, number>();
  let fillsByToken: { unsubscribe(): void } | undefined;
  const auditor =
    audit === undefined || venue.holdings === undefined
      ? undefined
      : new PositionAuditor({
          venue,
          now: () => clock.now(),
          ledger: {
            positions: () => store.positions(),
            unsettledFills,
            fillCount: (t) => tokenFills.get(t) ?? 0,
            recordAdjustment: (a) => {
              store.recordAdjustment({ ...a, at: clock.now() });
              fleetLedger?.changed();
            },
          },
          ...(fleetLedger !== undefined && fleet !== undefined
            ? {
                fleet: {
                  others: () => fleetLedger.others(),
                  // booked by the member holding the token's market now: once fleet-wide
                  books: (_t: string, m: string) => fleet.quotable(m as ConditionId),
                },
              }
            : {}),
          markets: {
            pair: (t) => {
              const m = engine?.state.marketOf(t as TokenId);
              const info = m === undefined ? undefined : engine?.state.market(m);
              if (info === undefined) return undefined;
              const other = info.tokens[0].tokenId === t ? info.tokens[1].tokenId : info.tokens[0].tokenId;
              return { market: info.market, other };
            },
            winner: (m) => engine?.state.winner(m as ConditionId),
          },
          mid: async (t) => {
            const b = engine?.state.book(t as TokenId);
            if (b?.mid != null) return Math.round(b.mid);
            return audit.mid?.(t);
          },
          ...(audit.activity ? { activity: (since: number) => audit.activity!(since) } : {}),
          apply: (a) => engine?.state.adjustPosition(a.tokenId, a.size, a.price),
        });
  const runAudit = async (): Promise<AuditReport | undefined> => {
    if (auditor === undefined) return undefined;
    try {
      const r = await auditor.audit({ confirm: true });
      for (const a of r.adjusted) audit?.onAdjust?.(a);
      for (const a of r.unbooked)
        marketLog('audit', a.market).info(
          { token: a.tokenId, size: formatAmount(a.size), cause: a.cause, note: a.note },
          'position difference on a market this member does not hold: left to its holder (fleet)',
        );
      keep();
      return r;
    } catch (err) {
      log.warn(
        { err: err instanceof Error ? err.message : String(err) },
        'position audit failed (retried next period)',
      );
      return undefined;
    }
  };

  // ---- collateral housekeeping: merge complementary holdings, redeem resolved markets ----------------
  const keeper =
    o.collateral === undefined
      ? undefined
      : new CollateralKeeper({
          venue,
          // a fleet member keeps the markets it holds now (one member per market: no two merge or
          // redeem one market's holdings), and merges no more than its own ledger holds
          markets: () => (fleet === undefined ? o.markets : o.markets.filter((m) => fleet.quotable(m.market))),
          ...(fleet !== undefined ? { own: (t: TokenId) => engine?.state.position(t).size ?? 0 } : {}),
          winner: (m) => engine?.state.winner(m),
          mid: (t) => {
            const b = engine?.state.book(t);
            return b?.mid == null ? undefined : b.mid;
          },
          mergeMinSize: o.collateral.mergeMinSize,
          redeem: o.collateral.redeem,
          release: async (market, cancelAsks) => {
            executor.pause('merge');
            try {
              // what is already on its way lands first (bounded: a cycle backing off is not waited for)
              let bound: TimerHandle | undefined;
              await Promise.race([
                executor.idle(),
                new Promise<void>((r) => {
                  bound = clock.setTimeout(r, 5_000);
                }),
              ]);
              if (bound !== undefined) clock.clearTimeout(bound);
              const sells = !cancelAsks
                ? []
                : tracker
                    .liveOrders(market)
                    .filter((x) => x.side === 'SELL')
                    .map((x) => x.id);
              if (sells.length > 0) {
                const r = await venue.cancel(sells);
                log.info({ market, canceled: r.canceled.length }, 'asks taken down for a merge');
              }
            } catch (err) {
              executor.resume('merge');
              throw err;
            }
            return () => {
              // the quotes computed before the merge offered tokens that are gone: the next come afresh
              executor.forget(market);
              executor.resume('merge');
            };
          },
          record: (op, legs) => {
            store.recordOperation({
              kind: op.kind,
              market: op.market,
              amount: op.amount,
              collateral: op.collateral,
              legs,
              tx: op.tx,
              at: clock.now(),
            });
            for (const l of legs) engine?.state.adjustPosition(l.tokenId, l.size, l.price);
          },
          log,
        });
  const keep = (): void => {
    if (keeper?.enabled === true && engine?.ready === true) void keeper.run();
  };

  const def = o.strategy;
  const strategyLog = o.strategyLog ?? log;
  engine = createEngine({
    venue,
    // ctx.markets is the engine's view of the markets, which follows tick-size changes
    strategy: (state) => def.create({ clock, log: strategyLog, markets: state.markets }, o.params as never),
    markets: o.markets,
    clock,
    timers: { tickMs: o.tickMs ?? 1000, ...(o.balanceMs !== undefined ? { balanceMs: o.balanceMs } : {}) },
    gate: gateQuotes,
    execute,
    gateOrders,
    executeOrders,
    onFill,
    // another member's fill (fleet): not ours at all, the state does not count it
    ...(fleetLedger !== undefined
      ? { ignoreFill: (e: FillEvent) => executor.fillSource(e.orderId, e.market) === 'member' }
      : {}),
    orders: {
      openOrders: cached ? (m) => tracker.liveOrdersCached(m) : (m) => tracker.liveOrders(m),
    },
    ...(tuning.terminalCapacity !== undefined ? { terminalCapacity: tuning.terminalCapacity } : {}),
    reconcile: async () => {
      const r = await reconcileOnStart(
        venue,
        // an order is the bot's when the store recorded it (in any run), whatever its status there
        { ...restartStore(store), knowsOrder: (id) => store.order(id as OrderId) !== undefined },
        {
          policy: o.restartPolicy ?? 'cancel',
          foreign: o.foreignOrders ?? 'leave',
          ...(fleetLedger !== undefined
            ? { othersOrder: (_id: string, m: string) => fleetLedger.othersMarket(m as ConditionId) }
            : {}),
          ...(o.logReconcile === false ? {} : { logger: log }),
        },
      );
      // kept: the bot's adopted ones, and the foreign ones left alone (tracked apart: self-trade check)
      if (r.adopted.length + r.left.length > 0) executor.adopt([...r.adopted, ...r.left]);
      // (another member's fills are in its ledger, not in ours)
      const fills =
        fleetLedger === undefined
          ? r.fills
          : r.fills.filter((f) => executor.fillSource(f.orderId, f.market) !== 'member');
      for (const f of fills) executor.onVenueFill(f);
      // the venue's holdings are the truth: before anything is quoted, the ledger follows them
      if (auditor !== undefined) {
        const a = await auditor.audit({ confirm: false, ...(audit?.opening ? { opening: audit.opening } : {}) });
        for (const x of a.adjusted) audit?.onAdjust?.(x);
      }
      if (o.logReconcile !== false)
        log.info(
          {
            found: r.found.length,
            foreign: r.foreign.length,
            canceled: r.canceled.length,
            adopted: r.adopted.length,
            left: r.left.length,
            backfilled: r.newFills,
            external: r.externalFills.size,
          },
          'reconciled with the venue',
        );
      return { adopted: r.adopted, fills };
    },
    logger: log,
  });
  const eng = engine;
  const rewards = new RewardTracker({
    clock,
    markets: o.markets,
    book: (t) => eng.state.book(t),
    openOrders: (m) => tracker.liveOrders(m),
    bookIncludesOwn: o.rewards?.bookIncludesOwn ?? true,
    ...(o.rewards?.sampleMs !== undefined ? { sampleMs: o.rewards.sampleMs } : {}),
  });
  if (tuning.fillKeys !== undefined) eng.state.boundFills(tuning.fillKeys);
  fillsByToken = eng.events$.subscribe((e) => {
    if (e.type === 'fill') tokenFills.set(e.tokenId, (tokenFills.get(e.tokenId) ?? 0) + 1);
    // a reconnect of the user channel may have missed anything: audit (differences confirmed next time)
    else if (e.type === 'resynced' && e.stream === 'user' && !e.initial && auditor !== undefined) void runAudit();
    // a followed market resolved: its tokens can be redeemed (after the venue settles it)
    else if (e.type === 'market_resolved') keep();
  });
  // positions survive restarts: the state starts from every fill already in the store
  // (the current ledger epoch's: its fills, operation legs and adjustments, in the order they apply)
  if (o.seedFromStore !== false) for (const f of store.ledgerEntries()) eng.state.seedFill(f);
  // own order updates drive the tracker too (fills come through onFill)
  const orderUpdates = eng.events$.subscribe((e) => {
    if (e.type === 'order_update') executor.onUserEvent(e);
  });

  let heartbeatStarted = false;
  let auditTimer: TimerHandle | undefined;
  if (auditor !== undefined && audit !== undefined && audit.everyMs > 0)
    auditTimer = clock.setInterval(() => {
      if (eng.ready) void runAudit();
    }, audit.everyMs);
  let keeperTimer: TimerHandle | undefined;
  if (keeper !== undefined && o.collateral !== undefined && o.collateral.everyMs > 0)
    keeperTimer = clock.setInterval(keep, o.collateral.everyMs);
  return {
    engine: eng,
    executor,
    tracker,
    kill,
    heartbeat,
    store,
    riskView,
    counters,
    start: async () => {
      await eng.start();
      rewards.start();
      keep(); // what the venue holds now may be merged or redeemed at once
    },
    startHeartbeat() {
      if (heartbeatStarted) return;
      heartbeatStarted = true;
      heartbeat.start();
    },
    auditor,
    keeper,
    rewards,
    auditPositions: () => (auditor === undefined ? Promise.resolve(undefined) : runAudit()),
    ledgerFigures() {
      const out: Record<string, LedgerFigures> = {};
      const at = (t: string, market: string) => {
        let x = out[t];
        if (x === undefined) out[t] = x = { market, size: 0, unsettled: 0, fills: tokenFills.get(t) ?? 0 };
        return x as { market: string; size: number; unsettled: number; fills: number };
      };
      for (const p of store.positions()) at(p.tokenId, p.market).size += p.size;
      for (const f of unsettledFills()) at(f.tokenId, f.market).unsettled += f.side === 'BUY' ? f.size : -f.size;
      return out;
    },
    async stop() {
      if (auditTimer !== undefined) clock.clearInterval(auditTimer);
      if (keeperTimer !== undefined) clock.clearInterval(keeperTimer);
      rewards.stop();
      fillsByToken?.unsubscribe();
      await eng.stop();
      orderUpdates.unsubscribe();
    },
    cancelAll: (reason) => executor.cancelAll(reason),
    verifyFlat: (timeoutMs = 5000) => executor.verifyFlat({ timeoutMs }),
    async close() {
      heartbeat.stop();
      await executor.close();
    },
    pullMarket(market) {
      executor.submit(gate({ market, quotes: [], at: clock.now() }, riskView).approved);
    },
  };
}

/** The fields of a refused or trimmed quote (or immediate order) in a log line, amounts in decimals. */
function quoteFields(
  q: { readonly tokenId: string; readonly side: string; readonly price: number; readonly size: number },
  code: string,
  reason: string,
): Record<string, string> {
  return {
    code,
    reason,
    token: q.tokenId,
    side: q.side,
    price: Number.isSafeInteger(q.price) ? formatPrice(q.price) : String(q.price),
    size: Number.isSafeInteger(q.size) ? formatAmount(q.size) : String(q.size),
  };
}
