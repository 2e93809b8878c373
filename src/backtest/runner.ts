/**
 * The backtest runner: the daemon's own bot, built by the one wiring (src/kernel/create-trader.ts:
 * engine loop, risk gate, executor, order tracker, store, strategy, kill switch, heartbeat keeper),
 * driven in VIRTUAL time by a simulated venue:
 *
 *  - feed mode: recorded feeds (src/backtest/replay.ts, pulled in batches) into the simulated
 *    venue (src/venues/sim/sim-venue.ts), which matches our orders against the recorded book;
 *  - world mode: the paper exchange's world and matching engine with our orders inside it
 *    (src/backtest/synthetic.ts, src/venues/paper/exchange-venue.ts).
 *
 * Time. One VirtualClock. Feed mode: for each replayed item, the clock is advanced to the item's
 * receive time (firing due timers: latencies, the engine's tick, the heartbeat, retries, samples)
 * and the item is ingested; the venue emits market events and our fills synchronously and the
 * engine processes them synchronously. World mode: the clock jumps from one due timer to the next.
 *
 * Promises. The executor and the engine's start-up talk to the venue through promises. Between two
 * steps the runner lets them settle, DETERMINISTICALLY and only when something of the bot's may be
 * pending: a venue call was made or answered, an intent reached the executor, or a timer fired that
 * may have resolved one of the bot's promises (the bot's own timers: tick, heartbeat, retries,
 * sleeps; the venue's latencies) since the last settle. Timers that cannot (the synthetic world's
 * agents and exchange, the runner's samples and markouts) run on a QuietClock view of the clock
 * (./quiet-clock.ts) and are not counted: what they cause of ours (an intent, a venue call) is
 * counted where it happens. Settling is "run setImmediate until a full turn makes no progress, or
 * no timer is due now after one that made some" (a turn runs every promise chain as far as it can go
 * without time moving: the bot has no real timer nor I/O, so a turn after it could only fire a
 * timer due now): every promise chain that can complete without time moving completes before the
 * next step, so no result depends on when the file system answers. Nothing is awaited per event when nothing is
 * pending. `settleOnEveryTimer` settles after every timer instead (the same result, slower; a test
 * compares them).
 *
 * Intents. The kernel hands each approved quote set to the executor (`submit`). A set identical to
 * the last one submitted for its market, while no order of that market changed state since, is
 * coalesced (not submitted again; TraderTuning.coalesceIntents): the executor's diff would find
 * nothing to do. This is exact, and spares an async cycle per book update (`coalesceIntents: false`
 * turns it off; a test shows both give the same result).
 *
 * Output. A BacktestResult: plain JSON, no wall-clock values (run durations go to `onProgress` and
 * the terminal only), so the same inputs and seed give byte-identical JSON. Measured online:
 *  - the fill figures over ALL the fills (`fillStats`, src/backtest/fill-stats.ts: counts, volume,
 *    notional, fees, markouts, time at the inventory limit; exactly what metrics.ts defines): each
 *    fill is added as it happens, and the mid of its token at +1 s, +10 s and +60 s of virtual time
 *    when that comes (null when the run ends first), so only the fills of the last 60 s wait;
 *  - the most recent `maxFillRows` fill rows (default 10,000; `fillCount` says how many there were;
 *    the complete list is in the store: keep it with `storePath`), and fill points for the charts,
 *    downsampled like the samples;
 *  - samples every `sampleMs` of virtual time of each token's mid, our best bid and ask and
 *    position, and of the PnL (realized, unrealized marked to the mid, fees; a resolved market's
 *    positions are settled into realized at 1 and 0, as a redemption: ./measurement.ts). Samples
 *    are downsampled (every other point dropped, interval doubled) whenever `maxSamples` is reached;
 *  - liquidity rewards (`rewards`, only when a traded market has a reward config): the kernel's
 *    reward tracker samples our quotes against the book once a minute of virtual time (on the
 *    quiet measurement clock: nothing per event), and world mode adds the exchange's own payout
 *    (./rewards.ts).
 * So the result's size, like the rest of the run's memory, is bounded however long the run.
 *
 * What the backtest adds to the kernel's wiring, on purpose: a VirtualClock; the store (a temporary
 * SQLite file unless `storePath` is given) commits in batches (one transaction per ten minutes of
 * virtual time, `commit: 'batched'`), with synchronous=OFF, as a scratch file (`scratch`: the
 * rollback journal in memory instead of a WAL, an exclusive lock, a large page cache; durability
 * against a crash or power loss is moot for a backtest, which is re-made by running it again),
 * and its timestamps are whole milliseconds; the kernel's exact speed-ups (TraderTuning: the gate
 * memo, coalesced intents, cached live-order lists) are on; the engine's state keeps the last
 * ENGINE_FILL_KEYS (2,000) fill keys (a backtest's venue repeats a fill only as its later trade
 * statuses, within seconds) and the venue its finished orders and fills for 10 minutes of virtual
 * time (SimVenueOptions.retainMs), so memory stays flat however long the feed (the result's own
 * fill rows, points and samples are bounded too, see Output; the engine's state remembers the last
 * ENGINE_TERMINAL_IDS (2,000) finished order ids, where the daemon keeps 50,000); no status log
 * line; the run ends with the data (or the kill switch) instead of a signal, then shuts down as the
 * daemon does (engine stop, cancel-all, verify flat, close), virtual time moving from one due timer
 * to the next until it is done.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../core/clock.ts';
import { ConfigError, MmkitError } from '../core/errors.ts';
import type { MmkitEvent } from '../core/events.ts';
import { Rng } from '../core/random.ts';
import { AMOUNT_SCALE } from '../core/units.ts';
import { createTrader, type Trader } from '../kernel/create-trader.ts';
import { isOpen } from '../execution/tracker.ts';
import { resolveRiskLimits, type RiskLimits } from '../risk/limits.ts';
import { effectiveRiskLimits } from './report.ts';
import { openStore, type Store } from '../store/store.ts';
import type { StrategyDefinition } from '../strategy/api.ts';
import { loadStrategy } from '../strategy/loader.ts';
import { chooseMarkets, levelsBookView } from '../strategy/select.ts';
import { resolveParams } from '../strategy/params.ts';
import type { BacktestDriver, BacktestResult, InventoryLimit, MarketChooser } from './types.ts';
import { MARKOUT_HORIZONS_MS } from './metrics.ts';
import { QuietClock } from './quiet-clock.ts';
import { RunMeasurement } from './measurement.ts';
import { InstrumentedVenue } from './instrumented-venue.ts';
import { createFeedDriver } from './feed-driver.ts';
import { rewardsResult } from './rewards.ts';
import { REWARD_SAMPLE_MS } from '../engine/reward-tracker.ts';

export { createFeedDriver, type FeedDriverOptions } from './feed-driver.ts';

// ---- options and result ---------------------------------------------------------------------------

export { MARKOUT_HORIZONS_MS };
export type {
  BacktestDriver,
  BacktestResult,
  DrivenVenue,
  FillPoints,
  FillRow,
  FillStats,
  InventoryLimit,
  RewardMarketRow,
  RewardsResult,
  Samples,
  TokenSeries,
  WorldSpec,
} from './types.ts';

export type { BacktestOptions, BacktestProgress } from './options.ts';
import type { BacktestLogger, BacktestOptions } from './options.ts';

// ---- the driver interface ----------------------------------------------------------------------------

// ---- small helpers ---------------------------------------------------------------------------------

/**
 * Turns of the event loop at one virtual instant after which a run stops as stalled (a typed
 * error, not a hang): the bot keeps making work for "now", e.g. a strategy whose quotes flip on
 * every event its own orders cause, at zero latency. A busy instant settles in a few turns.
 */
export const STALL_TURNS = 100_000;

function stalled(at: number, turns: number): MmkitError {
  return new MmkitError(
    'INTERNAL',
    `backtest stalled at ${new Date(at).toISOString()}: ${turns} turns without virtual time moving on ` +
      '(the strategy likely changes its quotes on every event its own orders cause: give it a minimum ' +
      'requote interval, or run with --latency-ms above 0)',
    false,
  );
}

/**
 * Virtual time between two commits of the run's store (batched; see runWith). Each commit writes
 * the pages changed since the last one (index pages over and over): ten minutes wrote them a tenth
 * as often as one minute did, and the journal held in memory meanwhile stays a few hundred pages.
 */
const FLUSH_MS = 600_000;
/** Virtual time between two prunings of the orders remembered as filled (`filledOrders`). */
const PRUNE_MS = 60_000;
/**
 * Fill keys the engine's state keeps for deduplication (see EngineState.boundFills). A backtest's
 * venue repeats a fill only as its later trade statuses (the world's MINED and CONFIRMED, within
 * the exchange's `confirmedMs`, 5 s of virtual time), and fills are fetched back (`venue.fills`)
 * only by the start-up reconciliation: 2,000 fills is far more than any run makes in 5 s. (Each key
 * costs ~300 B of heap: 10,000 of them grew a long replay's heap by ~2 MB before they were full.)
 */
const ENGINE_FILL_KEYS = 2_000;
/**
 * Finished order ids the engine's state remembers (EngineOptions.terminalCapacity; the daemon keeps
 * 50,000): a late update of a finished order comes within the venue's answer latency in a
 * backtest, so a few thousand is ample, and the set no longer grows with a long replay's orders.
 */
const ENGINE_TERMINAL_IDS = 2_000;
const SILENT = { debug() {}, info() {}, warn() {}, error() {} };
const immediate = (): Promise<void> => new Promise((r) => setImmediate(r));

// ---- the run -------------------------------------------------------------------------------------

/**
 * Runs a backtest (see the module comment).
 * @throws ConfigError on bad options (unknown strategy, bad params or risk limits, no feed, no market)
 */
export async function runBacktest(opts: BacktestOptions): Promise<BacktestResult> {
  if ((opts.feeds === undefined) === (opts.world === undefined))
    throw new ConfigError('backtest', 'give either feeds or a world');
  const def = await loadStrategy(opts.strategy);
  const params = resolveParams(def.params, opts.params ?? {});
  const limits = resolveRiskLimits((opts.risk ?? {}) as Record<string, unknown>);
  const seed = opts.seed ?? 1;
  const latencyMs = opts.latencyMs ?? 0;
  if (!(latencyMs >= 0) || !Number.isFinite(latencyMs))
    throw new ConfigError('backtest.latencyMs', `must be a finite number >= 0, got ${latencyMs}`);
  const maxFillRows = opts.maxFillRows ?? 10_000;
  if (!Number.isSafeInteger(maxFillRows) || maxFillRows < 0)
    throw new ConfigError('backtest.maxFillRows', `must be an integer >= 0, got ${maxFillRows}`);
  const rewardSampleMs = opts.rewardSampleMs ?? REWARD_SAMPLE_MS;
  if (!Number.isSafeInteger(rewardSampleMs) || rewardSampleMs < 100)
    throw new ConfigError('backtest.rewardSampleMs', `must be an integer >= 100 (ms), got ${rewardSampleMs}`);
  const queue = opts.queue ?? 'risk-averse';
  if (opts.feeProtocol !== undefined && opts.feeProtocol !== 1 && opts.feeProtocol !== 2)
    throw new ConfigError('backtest.feeProtocol', `must be 1 or 2, got ${String(opts.feeProtocol)}`);
  // the logger of --log-level: its lines carry the virtual time once the driver's clock exists
  let virtualNow: (() => number) | undefined;
  const logger = opts.makeLogger?.(() => virtualNow?.() ?? Number.NaN) ?? opts.logger;
  const collateral = opts.collateral ?? 10_000 * AMOUNT_SCALE;
  // a strategy that chooses its markets (selectMarkets) does so when none are named: among the
  // feed's active markets from the books it starts with, or among the world's candidates after the
  // warm-up (src/strategy/select.ts, as `mmkit run` does); otherwise the default pick, unchanged
  const choose: MarketChooser | undefined =
    def.selectMarkets === undefined || (opts.markets !== undefined && opts.markets.length > 0)
      ? undefined
      : (candidates, count, now, levels) =>
          chooseMarkets(def, candidates, {
            now,
            count,
            params,
            book: async (t) => {
              const l = levels(t);
              return l === undefined ? undefined : levelsBookView(t, l.bids, l.asks);
            },
            log: logger ?? SILENT,
          });
  for (const [k, v] of [
    ['fromMs', opts.fromMs],
    ['toMs', opts.toMs],
  ] as const) {
    if (v === undefined) continue;
    if (opts.feeds === undefined)
      throw new ConfigError(`backtest.${k}`, 'a window applies to feed backtests only (a world starts at its warm-up)');
    if (!Number.isFinite(v) || v < 0) throw new ConfigError(`backtest.${k}`, `must be unix ms, got ${v}`);
  }
  if (opts.fromMs !== undefined && opts.toMs !== undefined && opts.toMs <= opts.fromMs)
    throw new ConfigError(
      'backtest.toMs',
      `the window ends (${new Date(opts.toMs).toISOString()}) before it starts (${new Date(opts.fromMs).toISOString()})`,
    );
  let driver: BacktestDriver;
  if (opts.feeds !== undefined) {
    driver = await createFeedDriver({
      files: opts.feeds,
      seed,
      queue,
      latencyMs,
      latency: opts.latency,
      collateral,
      markets: opts.markets,
      batchSize: opts.batchSize,
      feedCache: opts.feedCache,
      choose,
      feeProtocol: opts.feeProtocol,
      fromMs: opts.fromMs,
      toMs: opts.toMs,
    });
  } else {
    const { createWorldDriver } = await import('./synthetic.ts');
    driver = await createWorldDriver({
      world: opts.world!,
      seed,
      latencyMs,
      collateral,
      markets: opts.markets,
      ...(choose !== undefined ? { choose } : {}),
      ...(opts.feeProtocol !== undefined ? { feeProtocol: opts.feeProtocol } : {}),
    });
  }
  virtualNow = () => driver.clock.now();
  try {
    return await runWith(
      driver,
      { ...opts, seed, latencyMs, queue, ...(logger !== undefined ? { logger } : {}) },
      def,
      params,
      limits,
    );
  } finally {
    await driver.close();
  }
}

async function runWith(
  driver: BacktestDriver,
  opts: BacktestOptions & { seed: number; latencyMs: number; queue: 'risk-averse' | 'probabilistic' },
  def: StrategyDefinition,
  params: Readonly<Record<string, unknown>>,
  limits: RiskLimits,
): Promise<BacktestResult> {
  const clock = driver.clock;
  const log = opts.logger ?? SILENT;
  const markets = driver.markets;
  if (markets.length === 0) throw new ConfigError('backtest.markets', 'no market to trade');
  const startMs = clock.now();
  const venue = new InstrumentedVenue(driver.venue, clock);
  let tmpDir: string | undefined;
  let storeFile = opts.storePath;
  if (storeFile === undefined) {
    tmpDir = mkdtempSync(join(tmpdir(), 'mmkit-backtest-'));
    storeFile = join(tmpDir, 'backtest.db');
  }
  // the store keeps integer unix ms; feed receive times (and latencies) have microseconds
  const storeClock: Clock = {
    now: () => Math.floor(clock.now()),
    setTimeout: (f, ms) => clock.setTimeout(f, ms),
    clearTimeout: (h) => clock.clearTimeout(h),
    setInterval: (f, ms) => clock.setInterval(f, ms),
    clearInterval: (h) => clock.clearInterval(h),
  };
  // batched commits: one transaction per FLUSH_MS of virtual time (the sampler flushes), the same
  // rows in the end (see StoreOptions.commit), no fsync (synchronous=OFF) and a scratch file
  // (StoreOptions.scratch: journal in memory, exclusive lock, large cache): the store of a backtest
  // is re-made by running it again; the daemon commits, and syncs, every write
  const store: Store = openStore(storeFile, {
    clock: storeClock,
    durability: { fills: 'off', other: 'off' },
    checkpoint: 'auto',
    commit: 'batched',
    scratch: opts.scratchStore !== false,
  });
  let flushedAt = clock.now();
  let prunedAt = clock.now();
  const strategyName = def.name;
  const rng = new Rng(seed32(opts.seed, 0x5eed));

  const rewardSampleMs = opts.rewardSampleMs ?? REWARD_SAMPLE_MS;
  // the bot: the one wiring (src/kernel), with the backtest's exact speed-ups (see TraderTuning)
  let trader: Trader | undefined;
  // set once the reward timer can be started (below): a market line that gives a market a config starts it
  let onRewardConfig: (() => void) | undefined;

  // ---- measurement (./measurement.ts) ---------------------------------------------------------------
  const maxPos =
    typeof params['maxPosition'] === 'number'
      ? Math.round((params['maxPosition'] as number) * AMOUNT_SCALE)
      : undefined;
  // the limit that binds: the strategy's own, or the risk gate's when that is tighter (the gate caps
  // positions whatever the strategy asks), per market where the market has its own risk limits
  const binding = (risk: number, source: InventoryLimit['source']): InventoryLimit =>
    maxPos !== undefined && maxPos <= risk ? { size: maxPos, source: 'strategy.maxPosition' } : { size: risk, source };
  const defaultLimit = binding(limits.defaults.maxPosition, 'risk.maxPositionShares');
  const marketLimits: Record<string, InventoryLimit> = {};
  const tokenLimits = new Map<string, number>();
  for (const m of markets) {
    const own = limits.markets[m.market];
    if (own === undefined) continue;
    const b = binding(own.maxPosition, 'risk.markets');
    if (b.size === defaultLimit.size) continue;
    marketLimits[m.market] = b;
    for (const t of m.tokens) tokenLimits.set(t.tokenId, b.size);
  }
  const inventoryLimit: BacktestResult['inventoryLimit'] =
    tokenLimits.size > 0 ? { ...defaultLimit, markets: marketLimits } : defaultLimit;
  /** The clock of the runner's own measurements (samples, markouts): quiet, see `mark` below. */
  const measure = new QuietClock(clock);
  const sampleMs = Math.max(1, Math.round(opts.sampleMs ?? 1000));
  const meter = new RunMeasurement({
    clock,
    measure,
    store,
    markets,
    startMs,
    inventoryLimit: inventoryLimit.size,
    ...(tokenLimits.size > 0 ? { tokenLimits } : {}),
    maxFillRows: opts.maxFillRows ?? 10_000,
    maxSamples: Math.max(16, opts.maxSamples ?? 4000),
    sampleMs,
  });

  trader = createTrader({
    venue,
    clock,
    store,
    strategy: def,
    params,
    markets,
    limits,
    log,
    ...(opts.logger?.child !== undefined
      ? {
          strategyLog: opts.logger.child({ component: 'strategy', strategy: strategyName }),
          marketLog: marketLoggers(opts.logger.child.bind(opts.logger)),
        }
      : {}),
    tolerance: opts.tolerance ?? { priceTicks: 0, sizeFraction: 0.1 },
    ...(opts.postOnly === true ? { postOnly: true } : {}),
    random: () => rng.next(),
    // ctx.random(): its own stream of the seed, so the simulation's draws do not depend on the strategy's
    strategySeed: seed32(opts.seed, 0x57a7),
    tickMs: opts.tickMs ?? 1000,
    restartPolicy: 'cancel',
    // a simulated venue has no other client on the wallet: every order there is the bot's, and the
    // end of the run cancels them with the venue's cancel-all, as it always did
    foreignOrders: 'cancel',
    logReconcile: false,
    // a backtest's store starts empty unless --store names an old one: its fills are not this run's
    seedFromStore: false,
    // the reward estimate: sampled by the runner below (on the quiet measurement clock)
    rewards: { bookIncludesOwn: driver.bookIncludesOwn ?? true, sampleMs: rewardSampleMs },
    tuning: {
      // the strategy re-states the same quotes on most book events and every tick: the gate's answer
      // is reused while nothing it reads changed (exact: src/risk/gate-memo.ts)
      memoiseGate: opts.memoiseGate !== false,
      coalesceIntents: opts.coalesceIntents ?? true,
      cachedLiveOrders: true,
      // flat memory: the simulated venue never repeats nor fails a fill (see EngineState.boundFills)
      fillKeys: ENGINE_FILL_KEYS,
      terminalCapacity: ENGINE_TERMINAL_IDS,
    },
    hooks: {
      ...opts.hooks,
      onFill: (f, change) => {
        meter.fill(f, change);
        opts.hooks?.onFill?.(f, change);
      },
      onRewardConfig: (m) => {
        onRewardConfig?.();
        opts.hooks?.onRewardConfig?.(m);
      },
    },
  });
  const { engine: eng, executor, tracker, kill } = trader;
  const counters = trader.counters;
  meter.attach({
    book: (t) => eng.state.book(t),
    position: (t) => eng.state.position(t).size,
    liveOrders: () => tracker.liveOrdersCached(),
    isOpenOrder: (id) => {
      const o = tracker.get(id);
      return o !== undefined && isOpen(o.status);
    },
  });
  const sub = eng.events$.subscribe((e: MmkitEvent) => meter.event(e));

  // ---- sampling ----------------------------------------------------------------------------------
  const sampler = measure.setInterval(() => {
    if (clock.now() - flushedAt >= FLUSH_MS) {
      flushedAt = clock.now();
      store.flush();
    }
    if (clock.now() - prunedAt >= PRUNE_MS) {
      prunedAt = clock.now();
      meter.prune(clock.now());
    }
    // one PnL for both (nothing changes in between); the loss limit judges it net of fees, as the
    // daemon's does (src/cli/run-status-line.ts); a reading with a held position unmarked (its book
    // never priced) opens no UTC day, as live
    const p = meter.interval();
    kill.recordPnl(p.realized - p.fees, p.unrealized, p.fees, p.unmarked.length === 0);
  }, sampleMs);
  meter.start();
  // the liquidity reward estimate (markets with a reward config only: none, no timer): the kernel's
  // tracker samples our quotes against the book once a minute of virtual time, as the venue does
  let rewardTimer = trader.rewards.active
    ? measure.setInterval(() => trader!.rewards.sample(), rewardSampleMs)
    : undefined;
  onRewardConfig = () => {
    if (rewardTimer === undefined && trader!.rewards.active)
      rewardTimer = measure.setInterval(() => trader!.rewards.sample(), rewardSampleMs);
  };

  // ---- driving -----------------------------------------------------------------------------------
  let stopReason: string | undefined;
  kill.onTrip((t) => (stopReason ??= `kill switch: ${t.trigger}: ${t.message}`));
  const onAbort = (): void => {
    stopReason ??= 'aborted';
  };
  opts.signal?.addEventListener('abort', onAbort);
  if (opts.signal?.aborted) onAbort();

  // timers count when they may have resolved a promise of the bot's: not the world's nor the
  // runner's measurement timers (quiet: see ./quiet-clock.ts), unless told to settle after every one
  const quietFired = driver.quietFired;
  const ownFired =
    opts.settleOnEveryTimer === true
      ? (): number => clock.fired
      : quietFired === undefined
        ? (): number => clock.fired - measure.fired
        : (): number => clock.fired - measure.fired - quietFired();
  const mark = (): number => venue.started + venue.settled + ownFired() + counters.submits;
  let settledAt = -1;
  /** Lets every promise chain that can complete without time moving complete (see the module comment). */
  const settle = async (): Promise<void> => {
    for (let i = 0; ; i++) {
      if (i === STALL_TURNS) throw stalled(clock.now(), i);
      const before = mark();
      // timers due now (a zero latency, a retry at once) fire without time moving
      const due = clock.nextAt();
      if (due !== undefined && due <= clock.now()) clock.advanceTo(clock.now());
      await immediate();
      if (mark() === before) break;
      // progress: the turn ran every promise chain as far as it goes without time moving (the
      // bot's only other sources of work are the virtual clock's timers: no real timer, no I/O),
      // so without a timer due now another turn would find nothing to do
      const next = clock.nextAt();
      if (next === undefined || next > clock.now()) break;
    }
    settledAt = mark();
  };
  const progressEvery = opts.progressEveryMs ?? 60_000;
  let nextProgress = startMs + progressEvery;
  let items = 0;
  let frames = 0;
  let malformed = 0;
  /** What follows each step once nothing is pending: start the heartbeat when ready, progress, stop? */
  const after = (): boolean => {
    if (eng.ready) trader!.startHeartbeat();
    if (opts.onProgress !== undefined && clock.now() >= nextProgress) {
      nextProgress = clock.now() + progressEvery;
      opts.onProgress({
        startMs,
        nowMs: clock.now(),
        endMs: driver.endMs,
        items,
        events: meter.marketEvents + meter.userEvents,
        fills: meter.fillCount,
      });
    }
    return stopReason !== undefined;
  };
  /** After every change of time or ingest: settles when something may be pending (else no await at all). */
  const step = (): Promise<boolean> | boolean => (mark() !== settledAt ? settle().then(after) : after());
  const started = eng.start();
  started.catch(() => undefined);
  await settle();
  await driver.run(step, (n, f, bad) => {
    items = n;
    frames = f;
    malformed = bad;
  });
  await settle();
  stopReason ??=
    driver.mode !== 'feed'
      ? 'end of duration'
      : opts.toMs !== undefined && clock.now() >= opts.toMs
        ? 'end of the window (--to)'
        : 'end of feed';
  const endMs = clock.now();

  // ---- the end: freeze the measurements, then shut down like the daemon ----------------------------
  meter.lastSample(endMs);
  measure.clearInterval(sampler);
  onRewardConfig = undefined;
  if (rewardTimer !== undefined) measure.clearInterval(rewardTimer);
  const rewards = rewardsResult(markets, trader.rewards.snapshot(), driver.rewards?.());
  const frozen = meter.freeze();
  const finalPnl = frozen.pnl;

  driver.halt();
  /** Awaits `p` while moving virtual time from one due timer to the next (the venue may answer late). */
  const drive = async <T>(p: Promise<T>, maxMs = 60_000): Promise<T | undefined> => {
    let done = false;
    let value: T | undefined;
    let error: unknown;
    let failed = false;
    p.then(
      (v) => {
        done = true;
        value = v;
      },
      (e: unknown) => {
        done = true;
        failed = true;
        error = e;
      },
    );
    const limit = clock.now() + maxMs;
    await settle();
    while (!done && clock.now() < limit) {
      const next = clock.nextAt();
      clock.advanceTo(next === undefined ? clock.now() + 10 : Math.min(Math.max(next, clock.now()), limit));
      await settle();
    }
    if (failed) throw error;
    return value;
  };
  await drive(started.catch(() => undefined));
  await drive(trader.stop());
  sub.unsubscribe();
  await drive(trader.cancelAll('end of backtest'));
  const flat = await drive(trader.verifyFlat(5000));
  await drive(trader.close());
  const engineStats = eng.stats();
  const execStats = executor.stats();
  store.close();
  await drive(venue.close());
  opts.signal?.removeEventListener('abort', onAbort);
  if (tmpDir !== undefined) rmSync(tmpDir, { recursive: true, force: true });

  const positions = meter.positions(frozen);
  const fillParts = meter.fillResult(endMs);
  const { outputs, ...engineRest } = engineStats;
  const { paused: _p, pauseReasons: _r, halted: _h, ...execRest } = execStats;
  return {
    version: 1,
    mode: driver.mode,
    source: driver.source,
    strategy: { name: strategyName, params: { ...params } },
    seed: opts.seed,
    queue: driver.mode === 'feed' ? opts.queue : null,
    latencyMs: opts.latencyMs,
    feeProtocol: driver.feeProtocol,
    ...(opts.postOnly === true ? { postOnly: true } : {}),
    risk: effectiveRiskLimits(opts.risk),
    startMs,
    endMs,
    stopReason,
    markets: markets.map((m) => ({
      market: m.market,
      question: m.question,
      tick: m.tick,
      feeRateBps: m.feeRateBps,
      tokens: m.tokens.map((t) => ({ tokenId: t.tokenId, outcome: t.outcome })),
      resolvedTo: meter.resolvedTo(m.market),
    })),
    counts: {
      feedItems: items,
      frames,
      malformed,
      marketEvents: meter.marketEvents,
      userEvents: meter.userEvents,
      intents: counters.intents,
      intentsCoalesced: counters.coalesced,
      ...(counters.ordersRefused > 0 ? { ordersRefused: counters.ordersRefused } : {}),
      ...byCode('ordersRefusedByCode', counters.ordersRefusedByCode),
      ...byCode('quotesRefused', counters.quotesRefused),
      ...byCode('quotesTrimmed', counters.quotesTrimmed),
    },
    orders: {
      ...venue.counts,
      ordersFilled: meter.ordersFilled,
      rejectCodes: Object.fromEntries([...venue.rejectCodes].sort(([a], [b]) => (a < b ? -1 : 1))),
    },
    budgets: venue.budgets.usage(),
    inventoryLimit,
    fills: fillParts.fills,
    ...(driver.news !== undefined ? { news: driver.news() } : {}),
    ...((driver.gaps?.() ?? []).length > 0 ? { gaps: driver.gaps!().map((g) => ({ ...g })) } : {}),
    fillCount: fillParts.fillCount,
    fillStats: fillParts.fillStats,
    fillPoints: fillParts.fillPoints,
    samples: meter.samples,
    pnl: {
      realized: finalPnl.realized,
      unrealized: finalPnl.unrealized,
      fees: finalPnl.fees,
      total: finalPnl.total,
      unmarked: [...finalPnl.unmarked],
    },
    ...(rewards !== undefined ? { rewards } : {}),
    positions,
    engine: { ...engineRest, outputs },
    executor: execRest,
    venue: driver.venue.stats ?? null,
    openOrdersAtEnd: flat?.open.length ?? -1,
  };
}

/** `{ [key]: counts }` with the codes sorted (deterministic JSON), or nothing when there is none. */
function byCode<K extends string>(
  key: K,
  counts: Readonly<Record<string, number>>,
): { [k in K]?: Record<string, number> } {
  const codes = Object.keys(counts).sort();
  if (codes.length === 0) return {};
  const out: Record<string, number> = {};
  for (const c of codes) out[c] = counts[c]!;
  return { [key]: out } as { [k in K]?: Record<string, number> };
}

/** A 32-bit seed mixed from a seed and a purpose. */
export function seed32(seed: number, purpose: number): number {
  let h = (Math.imul(seed | 0, 0x9e3779b1) ^ Math.imul(purpose | 0, 0x85ebca6b)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d) >>> 0;
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * The run's logger per component and market (`{component, market}` on every line, as the daemon's
 * lines carry them: gate refusals, order rejections), each child made once.
 */
type ChildOf = NonNullable<BacktestLogger['child']>;
function marketLoggers(child: ChildOf): (component: string, market: string) => ReturnType<ChildOf> {
  const made = new Map<string, ReturnType<ChildOf>>();
  return (component, market) => {
    const k = `${component}|${market}`;
    let l = made.get(k);
    if (l === undefined) made.set(k, (l = child({ component, market })));
    return l;
  };
}
