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
 * store. Parts of the wiring sit in modules beside it, each given the trader's parts it uses:
 * ./gate-path.ts (the gate, its rate-limited log and the hand-over to the executor, coalesced when
 * tuned), ./position-audit-wiring.ts (the position audit and the ledger figures a fleet publishes),
 * ./collateral-wiring.ts (merges and redemptions); ./types.ts holds the types they share (re-exported
 * here). The order in which the parts are made and subscribed, and the start, stay here.
 *
 * Speed-ups that only a backtest needs are `tuning` options of this one wiring (the gate memo,
 * coalescing identical intents, the tracker's cached live-order lists, bounded fill and order-id
 * memories); they change no result (tests run the sample feed with them on and off).
 */
import { randomInt } from 'node:crypto';
import { type Clock, guardedClock, type TimerHandle } from '../core/clock.ts';
import { RateLimitedLog } from '../core/rate-limited-log.ts';
import type { FillEvent } from '../core/events.ts';
import type { ConditionId, TokenId } from '../core/ids.ts';
import { Rng } from '../core/random.ts';
import { formatAmount, formatPrice, type Micro, tickPips, type Pips } from '../core/units.ts';
import type { MarketInfo, Venue } from '../core/venue.ts';
import { createEngine, type Engine } from '../engine/loop.ts';
import type { CollateralKeeper } from '../execution/collateral-keeper.ts';
import type { AuditReport, PositionAuditor } from '../engine/position-audit.ts';
import type { DiffTolerance } from '../execution/diff.ts';
import { Executor, POST_ONLY_CROSSING, type FlatReport, type ForeignOrderPolicy } from '../execution/executor.ts';
import { RewardTracker } from '../engine/reward-tracker.ts';
import { HeartbeatKeeper } from '../execution/heartbeat.ts';
import { isOpen, OrderTracker } from '../execution/tracker.ts';
import { gate, type RiskView } from '../risk/gate.ts';
import { KillSwitch } from '../risk/kill-switch.ts';
import { limitsFor, type RiskLimits } from '../risk/limits.ts';
import { withStrategyBand } from '../risk/strategy-band.ts';
import type { FillChange, Store } from '../store/store.ts';
import type { StrategyDefinition } from '../strategy/api.ts';
import { createCollateralWiring, type CollateralConfig } from './collateral-wiring.ts';
import { executorErrorReporter } from './executor-errors.ts';
import { fillLines, tradeBooker } from './fill-lines.ts';
import { createGatePath, FLEET_HELD } from './gate-path.ts';
import { createStrategy } from './create-strategy.ts';
import { traderReconcile } from './reconcile.ts';
import { createPositionAuditWiring, type LedgerFigures, type PositionAuditConfig } from './position-audit-wiring.ts';
import type { TraderCounters, TraderFleet, TraderHooks, TraderLogger, TraderTuning } from './types.ts';

/** Fills a daemon keeps in memory for dedupe by default (bot.fillMemory): ~40 MB, days of trading. */
export const DEFAULT_FILL_MEMORY = 200_000;

// moved to the kernel's modules; importers name them here
export type { CollateralConfig } from './collateral-wiring.ts';
export type { LedgerFigures, PositionAuditConfig } from './position-audit-wiring.ts';
export type {
  TraderCounters,
  TraderFleet,
  TraderFleetLedger,
  TraderHooks,
  TraderLogger,
  TraderTuning,
} from './types.ts';

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
  /**
   * Seed of the strategy's `ctx.random()` (a backtest derives it from its `--seed`). Default: one
   * drawn from the OS at start and logged at info at the strategy's first draw (`strategy random
   * seed (ctx.random)`, field `strategySeed`), so a live run's draws are on record.
   */
  readonly strategySeed?: number;
  /** The strategy's timer period, ms (default 1000). */
  readonly tickMs?: number;
  /** How often the venue's collateral balance is read, ms (default 5,000). */
  readonly balanceMs?: number;
  /**
   * How often the traded markets are re-read at the venue, ms (default 0: never; `mmkit run` passes
   * `venue.marketRefreshMs`): a changed reward config, status (closed, reopened) or minimum size
   * becomes a `market_updated` event; a closed market is pulled, the reward estimate follows.
   */
  readonly marketsPollMs?: number;
  /**
   * Fills the engine's state keeps in memory to recognise a repeat or a FAILED reversal (default:
   * all, forever; `mmkit run` passes bot.fillMemory). Older ones are folded into their positions
   * (exact); a repeat of one is recognised by the store (see EngineState.boundFills).
   */
  readonly fillMemory?: number;
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
   * Every this many ms, whether the store's path still names the file it opened (Store.fileProblem): a
   * store deleted, moved or replaced while the bot runs trips the kill switch as a fill that could not
   * be stored does (what it writes would be lost). Undefined or 0: never (backtests' scratch stores).
   */
  readonly storeCheckMs?: number;
  /**
   * Collateral housekeeping (src/execution/collateral-keeper.ts): merge complementary holdings of
   * at least `mergeMinSize` micro-shares (0: never) and redeem resolved markets, every `everyMs`
   * and when a followed market resolves. Undefined: never.
   */
  readonly collateral?: CollateralConfig;
  readonly tuning?: TraderTuning;
  /**
   * Time the strategy's handler and count what it asks the gate for (EngineOptions.measureStrategy:
   * `mmkit strategy check`); default off (a backtest pays nothing for it).
   */
  readonly measureStrategy?: boolean;
  /** Warn when one strategy call holds the loop longer than this, ms (EngineOptions.stallWarnMs): `mmkit run`. */
  readonly stallWarnMs?: number;
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
  /**
   * The venue's marks (its current price: GET /positions `cur_price`) of the tokens the account held at
   * the last position audit, pips: they mark a position on a market the bot does not follow (the loss
   * limit, the status). Empty without an audit or when the venue reports none.
   */
  venueMarks(): ReadonlyMap<TokenId, Pips>;
  /** The collateral housekeeping (undefined without TraderOptions.collateral). */
  readonly keeper: CollateralKeeper | undefined;
  /** The liquidity reward estimate of the bot's quotes (samples once started; nothing when no market is rewarded). */
  readonly rewards: RewardTracker;
  /**
   * Subscribes the streams and reconciles with the venue; quoting starts once it succeeded and
   * `o.beforeQuoting` (awaited after the reconciliation, before the strategy gets any event: the
   * daemon's loss limits) resolved. @throws what the reconciliation throws
   */
  start(o?: { readonly beforeQuoting?: () => Promise<void> | void }): Promise<void>;
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
  // fills not delivered as the bot's own by the user channel, named as its are (./fill-lines.ts)
  const lines = fillLines(o.markets, marketLog);
  const cached = tuning.cachedLiveOrders === true;
  const counters: TraderCounters = {
    intents: 0,
    coalesced: 0,
    submits: 0,
    ordersApproved: 0,
    ordersRefused: 0,
    quotesRefused: {},
    quotesTrimmed: {},
    ordersRefusedByCode: {},
  };

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
    ...(o.fleet?.ledger?.externalClaims !== undefined ? { externalClaims: o.fleet.ledger.externalClaims } : {}),
  });
  // the UTC day's open PnL (risk.maxDailyLoss) is the store's: a restart the same day keeps it
  const kill = new KillSwitch(clock, { limits: limits.killSwitch, dayOpen: (date, pnl) => store.dayOpen(date, pnl) });
  const fleet = o.fleet;
  const heartbeat = new HeartbeatKeeper({
    // in a fleet only the heartbeat lease holder beats; the others' beats count as sent
    beat: (signal) => (fleet === undefined || fleet.shouldBeat() ? venue.heartbeat(signal) : Promise.resolve(true)),
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
    // the failure's cause (the venue's error) goes into the trip reason: a clock skew reads as the 401
    if (s.lastAttemptAt > 0) kill.recordHeartbeat(s.consecutiveFailures === 0, s.error, s.unavailable === true);
    if (s.consecutiveFailures > 0)
      log.warn({ failures: s.consecutiveFailures, error: s.error }, 'heartbeat failed: new orders paused');
  });
  executor.onRejection((r) => {
    // what was refused, as a fill line names it (trial 15 F2: only the id and code were said)
    lines.rejected(r, tracker.get(r.id));
    kill.recordRejection(r.code);
  });
  // failed cycles and requests: a WARN line; a write of the bot's orders that failed: storeFailure (./executor-errors.ts)
  executor.onError(executorErrorReporter({ kill, log, clock }));
  // post-only quotes the venue refused as crossing: re-priced at the next intent; one line per cycle
  executor.onCycle((c) => {
    if (c.postOnlyRejected > 0)
      marketLog('executor', c.market).info(
        { rejected: c.postOnlyRejected, code: POST_ONLY_CROSSING },
        POST_ONLY_REFUSED_MSG,
      );
  });
  // orders and fills on the wallet that the bot did not make; a foreign order's line per policy: the
  // first 10, then every 1000th, the others at debug (trial 13 F11: another daemon on the same wallet
  // re-quoting made ~2 WARN lines a second)
  const foreignLog = new RateLimitedLog({ others: 'debug' });
  executor.onForeign((x) => {
    if (x.kind === 'order') {
      const v = x.order;
      foreignLog.log(
        marketLog('executor', v.market),
        'warn',
        x.policy,
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
    if (x.change === 'new') lines.external(x.fill);
    hooks.onExternalFill?.(x.fill, x.change);
  });

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
        global: Object.freeze({
          maxNotional: g.notional as Micro,
          maxOpenOrders: g.orders,
          account: { maxNotional: limits.global.maxNotional, maxOpenOrders: limits.global.maxOpenOrders },
        }),
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
            fleet.quotable(m) ? null : fleet.canPlace() ? FLEET_HELD : 'fleet: Redis unreachable or the fleet killed',
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

  // ---- the gate and the execution of what it approved (./gate-path.ts) ------------------------------
  const { gateQuotes, gateOrders, execute, executeOrders } = createGatePath({
    riskView,
    executor,
    tracker,
    counters,
    hooks,
    tuning,
    fleet,
    marketLog,
    currentTick,
  });

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
      if (change !== 'duplicate') {
        fleetLedger?.changed();
        // (the other members then know this order's fills as this member's, whatever market it is on)
        fleetLedger?.ownFill?.(f.orderId);
      }
    } catch (err) {
      // a fill that cannot be stored (disk full, I/O error): positions are no longer known for sure,
      // so stop trading. The stream counts the fill as delivered; the shutdown backfill (or the next
      // start's) takes it from the venue's history.
      kill.trip('storeFailure', `a fill could not be stored: ${err instanceof Error ? err.message : String(err)}`);
      throw err;
    }
    hooks.onFill?.(f, change);
    return undefined;
  };

  // a ledger write of the housekeeping or the audit that failed: stop trading as on a failed fill write
  const storeFailed = (what: string, err: unknown): void =>
    void kill.trip('storeFailure', `${what}: ${err instanceof Error ? err.message : String(err)}`);

  // ---- collateral housekeeping (./collateral-wiring.ts) and the position audit: the venue's holdings
  // are the truth (./position-audit-wiring.ts)
  const { keeper, keep } = createCollateralWiring({
    venue,
    clock,
    store,
    log,
    executor,
    tracker,
    engine: () => engine,
    markets: o.markets,
    fleet,
    config: o.collateral,
    storeFailed,
  });
  // the account's trades the ledger lacks, booked as the fills they are before the audit would adjust
  // an `external_trade` difference (trial 13 F16: the audit's adjustment, then the shutdown's backfill
  // of the same trade, counted it twice); a fleet member's audit adjusts as before (its claims)
  const bookTrades = tradeBooker({
    venue,
    book: (f) => executor.onVenueFill(f) === 'new',
    isExternal: (f) => executor.fillSource(f.orderId, f.market) !== 'bot',
    seen: (f) => engine?.state.seedFill(f),
    lines,
    // (the daemon counts the bot's own in its session's fills: a fill missed by the user stream is one)
    booked: (f, external) => hooks.onAuditFill?.(f, external ? executor.fillSource(f.orderId, f.market) : 'bot'),
  });
  const audit =
    o.positionAudit === undefined || fleet !== undefined ? o.positionAudit : { ...o.positionAudit, bookTrades };
  const fleetLedger = fleet?.ledger;
  const audits = createPositionAuditWiring({
    venue,
    clock,
    store,
    config: audit,
    fleet,
    engine: () => engine,
    log,
    marketLog,
    afterAudit: keep,
    storeFailed,
  });
  const auditor = audits.auditor;
  const runAudit = audits.run;
  // a SELL refused for lack of tokens: the holdings counted may be above the venue's; audited now
  // (one at a time), so that a second refusal confirms the difference and the gate sizes the asks
  // to what is held, before the refusals trip the kill switch (trial 15 F1)
  let shortfallAudit: Promise<unknown> | undefined;
  executor.onSellShortfall(() => {
    if (auditor === undefined || shortfallAudit !== undefined || engine?.ready !== true) return;
    shortfallAudit = runAudit().finally(() => {
      shortfallAudit = undefined;
    });
  });
  let fillsByToken: { unsubscribe(): void } | undefined;

  const def = o.strategy;
  const strategyLog = o.strategyLog ?? log;
  // ctx.random(): seeded by the caller (a backtest, from its --seed), else by the OS; a seed of our
  // own is logged at the strategy's first draw (strategies that never draw log nothing)
  const strategySeed = o.strategySeed ?? randomInt(0, 2 ** 32 - 1);
  const strategyRng = new Rng(strategySeed);
  let seedToLog = o.strategySeed === undefined;
  const random = (): number => {
    if (seedToLog) {
      seedToLog = false;
      strategyLog.info({ strategySeed }, 'strategy random seed (ctx.random)');
    }
    return strategyRng.next();
  };
  // the gate's price limits, for a strategy that leaves out what the gate would refuse (ctx.priceLimits)
  const priceLimits = (market: ConditionId): { min: Pips; max: Pips } => {
    const l = limitsFor(limits, market);
    return { min: l.minPrice, max: l.maxPrice };
  };
  // what the trader's start awaits before quoting (Trader.start's `beforeQuoting`)
  let beforeQuoting: (() => Promise<void> | void) | undefined;
  engine = createEngine({
    venue,
    beforeReady: () => beforeQuoting?.(),
    // ctx.markets is the engine's view of the markets, which follows tick-size changes
    // (a throw in create() is named: ./create-strategy.ts)
    strategy: (state) => {
      // the gate's size limit, so a quote the gate cuts keeps its live order (trial 21 F6)
      state.maxOrderSize = (market) => limitsFor(limits, market).maxOrderSize;
      // its timers' callbacks guarded: an error there is the strategy's, counted like a throw of onEvent
      const ctxClock = guardedClock(clock, (err) =>
        engine !== undefined
          ? engine.strategyCallbackThrew(err)
          : log.error?.({ err: String(err) }, 'strategy timer callback threw (before the engine was made)'),
      );
      return createStrategy(
        def,
        { clock: ctxClock, log: strategyLog, markets: state.markets, random, priceLimits },
        o.params,
      );
    },
    markets: o.markets,
    clock,
    timers: {
      tickMs: o.tickMs ?? 1000,
      ...(o.balanceMs !== undefined ? { balanceMs: o.balanceMs } : {}),
      ...(o.marketsPollMs !== undefined ? { marketsPollMs: o.marketsPollMs } : {}),
    },
    gate: gateQuotes,
    execute,
    gateOrders: (orders, _state, replacing) => gateOrders(orders, replacing),
    executeOrders,
    onFill,
    // another member's fill (fleet): not ours at all, the state does not count it
    ...(fleetLedger !== undefined
      ? {
          ignoreFill: (e: FillEvent) =>
            executor.fillSource(e.orderId, e.market) === 'member' || executor.othersFill(e.tradeId, e.orderId),
        }
      : {}),
    orders: {
      openOrders: cached ? (m) => tracker.liveOrdersCached(m) : (m) => tracker.liveOrders(m),
    },
    ...(tuning.terminalCapacity !== undefined ? { terminalCapacity: tuning.terminalCapacity } : {}),
    ...(o.measureStrategy === true ? { measureStrategy: true } : {}),
    ...(o.stallWarnMs !== undefined ? { stallWarnMs: o.stallWarnMs } : {}),
    reconcile: traderReconcile({
      venue,
      store,
      executor,
      restartPolicy: o.restartPolicy ?? 'cancel',
      foreignOrders: o.foreignOrders ?? 'leave',
      logReconcile: o.logReconcile !== false,
      log,
      lines,
      fleetLedger,
      auditor,
      audit,
    }),
    logger: log,
  });
  const eng = engine;
  // the trader's start samples rewards (mmkit run); a backtest drives its own timer (src/backtest/runner.ts)
  let rewardsSampling = false;
  const rewards = new RewardTracker({
    clock,
    markets: o.markets,
    book: (t) => eng.state.book(t),
    openOrders: (m) => tracker.liveOrders(m),
    bookIncludesOwn: o.rewards?.bookIncludesOwn ?? true,
    ...(o.rewards?.sampleMs !== undefined ? { sampleMs: o.rewards.sampleMs } : {}),
  });
  if (tuning.fillKeys !== undefined) eng.state.boundFills(tuning.fillKeys);
  // a daemon's flat memory over days: the store holds every fill of the ledger epoch
  else if (o.fillMemory !== undefined && o.fillMemory > 0)
    eng.state.boundFills(o.fillMemory, (tradeId, orderId) => store.hasFillInEpoch(tradeId, orderId));
  fillsByToken = eng.events$.subscribe((e) => {
    if (e.type === 'fill') audits.countFill(e.tokenId);
    // a reconnect of the user channel may have missed anything: audit (differences confirmed next time)
    else if (e.type === 'resynced' && e.stream === 'user' && !e.initial && auditor !== undefined) void runAudit();
    // a followed market resolved: its tokens can be redeemed (after the venue settles it)
    else if (e.type === 'market_resolved') keep();
    // a reward config changed at the venue: estimate with the new one (sampling starts if it was off)
    // (only when the trader's start samples: a backtest drives its own sampling timer)
    else if (e.type === 'market_updated' && e.changed.includes('rewards')) {
      rewards.setMarket(e.info);
      if (rewardsSampling) rewards.start();
      hooks.onRewardConfig?.(e.market);
    }
  });
  // positions survive restarts: the state starts from every fill already in the store
  // (the current ledger epoch's: its fills, operation legs and adjustments, in the order they apply)
  if (o.seedFromStore !== false) for (const f of store.ledgerEntries()) eng.state.seedFill(f);
  // own order updates drive the tracker too (fills come through onFill)
  const orderUpdates = eng.events$.subscribe((e) => {
    if (e.type !== 'order_update') return;
    if (e.kind === 'CANCELLATION' && !executor.halted) {
      const t = tracker.get(e.id);
      if (t !== undefined && !t.cancelRequested && isOpen(t.status) && tracker.origin(e.id) === 'own')
        lines.cancelledOutside(e);
    }
    executor.onUserEvent(e);
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
  // the store file gone or replaced: stop trading, as on a failed fill write (its writes would be lost)
  let storeTimer: TimerHandle | undefined;
  if (o.storeCheckMs !== undefined && o.storeCheckMs > 0)
    storeTimer = clock.setInterval(() => {
      const problem = store.fileProblem();
      if (problem !== undefined) kill.trip('storeFailure', `the store cannot keep what the bot does: ${problem}`);
    }, o.storeCheckMs);
  return {
    engine: eng,
    executor,
    tracker,
    kill,
    heartbeat,
    store,
    riskView,
    counters,
    start: async (so) => {
      beforeQuoting = so?.beforeQuoting;
      await eng.start();
      // stopped while starting (a signal, the kill switch): the shutdown follows; nothing more starts
      if (eng.stopped) return;
      rewardsSampling = true;
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
    ledgerFigures: audits.ledgerFigures,
    venueMarks: () => audits.venueMarks,
    async stop() {
      if (auditTimer !== undefined) clock.clearInterval(auditTimer);
      if (keeperTimer !== undefined) clock.clearInterval(keeperTimer);
      if (storeTimer !== undefined) clock.clearInterval(storeTimer);
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
