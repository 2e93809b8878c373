/**
 * `mmkit run --shadow`: the daemon on a venue's LIVE books with SIMULATED fills. The strategy, the
 * risk gate and the execution are the one wiring of the bot (src/kernel/create-trader.ts), as in
 * `mmkit run`; only the venue differs: the shadow venue (src/venues/shadow/shadow-venue.ts) reads
 * the venue's public market streams and fills our orders in the backtester's simulated venue (same
 * queue and latency models as `mmkit backtest --feed`), sending nothing to the venue, signing
 * nothing.
 *
 * What differs from a live run, on purpose:
 *  - Files: everything lives in `<dataDir>/shadow/` (src/cli/shadow-dir.ts): its own lock (the data
 *    dir's live lock, `<dataDir>/daemon.lock`, is never taken: a live daemon may trade the same data
 *    dir meanwhile; two shadow runs of one data dir may not), its daemon.json and control.token
 *    (`mmkit status --shadow`, `mmkit kill --shadow`), its store `mmkit.db` (`bot.storeFile` is the
 *    live store's and is not used).
 *  - No wallet, no API key: only public streams and public REST (markets, fee rates, books for the
 *    market choice) are read. `bot.keystoreFile` and the secrets are ignored.
 *  - No reconciliation with the venue's account: no position audit, no restart backfill from the
 *    venue, no split / merge / redeem, no rewards paid (the estimate is still sampled).
 *  - The ledger: every shadow run starts a fresh simulated account (`shadow.collateral`), so it has
 *    a ledger epoch of its own (venue `shadow:<venue>`, address `shadow@<start time, unix ms>`): its fills
 *    never mix with a live run's, nor with another shadow run's.
 *  - SHADOW is said everywhere: the log, the status page and /api/status (`mode: "shadow"`),
 *    /metrics (`mmkit_info{mode="shadow"}`), `mmkit status` and the summary (`mode: "shadow"`).
 */
import { ensureDataDir } from './data-dir-create.ts';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { ClobClient } from '../api/clob.ts';
import { createTransport } from '../api/http/transport.ts';
import { LiveClock } from '../core/clock.ts';
import { fillLogFields } from '../core/events.ts';
import { ConfigError, NotFoundError } from '../core/errors.ts';
import type { TokenId } from '../core/ids.ts';
import { formatAmount, type Micro } from '../core/units.ts';
import type { MarketInfo } from '../core/venue.ts';
import { backfillFills } from '../engine/restart.ts';
import { REWARD_SAMPLE_MS } from '../engine/reward-tracker.ts';
import { DEFAULT_FILL_MEMORY, createTrader } from '../kernel/create-trader.ts';
import { removeControlToken, removeDaemonFile } from '../ops/daemon-file.ts';
import type { DaemonLock } from '../ops/daemon-lock.ts';
import { MMKIT_VERSION, startOps } from '../ops/daemon-ops.ts';
import { componentLogger, componentLoggers, DAEMON_COMPONENT, prettyOnly, terminalView } from '../ops/logger.ts';
import { resolveRiskLimits } from '../risk/limits.ts';
import { openStore } from '../store/store.ts';
import { loadStrategy } from '../strategy/loader.ts';
import { resolveParams } from '../strategy/params.ts';
import { toMarketInfo } from '../venues/live/live-mappers.ts';
import { createShadowVenue, SHADOW_ADDRESS } from '../venues/shadow/shadow-venue.ts';
import type { SimVenueStats } from '../venues/sim/sim-venue.ts';
import type { RunConfig } from './run.ts';
import { pickMarkets } from './run-markets.ts';
import { requireMarketsToTrade, takeDaemonDir, warnInProcessFlags } from './run-checks.ts';
import { startLossLimit } from './run-status-line.ts';
import { ledgerAtExit, midMarks, statusPositions, tokenOutcomes, type RunSummary } from './run-summary.ts';
import { describeStop, whenStopped } from './run-stop.ts';
import { runExitSummary } from './run-shutdown.ts';
import { shadowDataDir } from './shadow-dir.ts';
import type { StopSignals } from './stop-signals.ts';
import { urlsFromBase, type VenueUrls } from './venue.ts';

/** The simulated venue of a shadow run (`shadow.*`). */
export interface ShadowConfig {
  readonly queue: 'risk-averse' | 'probabilistic';
  /** One-way latency of orders, cancels and their answers, ms (as `mmkit backtest --latency-ms`). */
  readonly latencyMs: number;
  /** Starting collateral of the simulated account, micro. */
  readonly collateral: number;
  readonly seed: number;
}

/** What a shadow run reports at exit: a run's summary, marked shadow, with the simulated venue's counters. */
export interface ShadowRunSummary extends RunSummary {
  readonly mode: 'shadow';
  /** Orders sent to the venue: always 0 (the figures above are the simulated venue's). */
  readonly sentToVenue: 0;
  readonly simulated: {
    readonly queue: 'risk-averse' | 'probabilistic';
    readonly latencyMs: number;
    readonly seed: number;
    /** Live market frames the simulated venue ingested, and the market channel's connects / disconnects. */
    readonly frames: number;
    readonly connects: number;
    readonly disconnects: number;
    /** The simulated venue's own counts (orders accepted, rejected, fills as maker / taker). */
    readonly ordersPlaced: number;
    readonly ordersRejected: number;
    readonly makerFills: number;
    readonly takerFills: number;
    /** The simulated account at exit: collateral (decimal USDC). */
    readonly collateral: string;
  };
}

/** How long the start waits for the market channel before it goes on (the books then fill as frames come). */
const CONNECT_WAIT_MS = 15_000;

/**
 * Runs a shadow daemon until a signal, the duration or the kill switch (see the module comment).
 * @throws CliError (exit 2) when another shadow run holds `<dataDir>/shadow`; ConfigError on bad
 *   configuration (no venue to shadow, no market); the API's errors when the venue cannot be read
 */
export async function runShadow(
  cfg: RunConfig,
  shadow: ShadowConfig,
  log: Logger,
  signal?: AbortSignal,
  stops?: StopSignals,
): Promise<ShadowRunSummary> {
  // the daemon's own lines (and the kernel's) carry {component: 'daemon'}; `log` makes the components' loggers
  const dlog = componentLogger(log, DAEMON_COMPONENT);
  const dir = shadowDataDir(cfg.dataDir);
  // owner-only, as a live daemon's data dir (an existing directory keeps its mode; a path that cannot
  // be a directory is refused first: src/cli/data-dir-create.ts)
  ensureDataDir(dir);
  // the shadow lock, then the stop signals, as a live daemon's (src/cli/run-checks.ts)
  const { lock, sigs } = await takeDaemonDir(dir, dlog, stops, (m) => `a shadow run holds ${dir}: ${m}`);
  try {
    return await runShadowLocked(cfg, shadow, dir, log, lock, sigs, signal);
  } finally {
    if (stops === undefined) sigs.dispose();
    removeDaemonFile(dir);
    removeControlToken(dir);
    lock.release();
  }
}

/**
 * The venue's URLs: `bot.exchangeUrl` (with `venue.*Url` over it), or `venue.clobUrl` + `venue.wsUrl`.
 * @throws ConfigError when neither names a venue (a shadow run needs one: it starts no exchange)
 */
export function shadowUrls(cfg: Pick<RunConfig, 'exchangeUrl' | 'urls'>): VenueUrls {
  const given = cfg.urls ?? {};
  if (cfg.exchangeUrl) return { ...urlsFromBase(cfg.exchangeUrl), ...given };
  if (given.clob && given.ws) return { gamma: '', data: '', content: '', ...given, clob: given.clob, ws: given.ws };
  throw new ConfigError(
    'bot.exchangeUrl',
    'shadow mode needs a venue to shadow: --exchange-url of a running paper exchange, or venue.clobUrl and venue.wsUrl (e.g. --config config/polymarket.json)',
  );
}

async function runShadowLocked(
  cfg: RunConfig,
  sh: ShadowConfig,
  dir: string,
  log: Logger,
  lock: DaemonLock,
  stops: StopSignals,
  signal?: AbortSignal,
): Promise<ShadowRunSummary> {
  // the daemon's own lines (and the kernel's) carry {component: 'daemon'}; `log` makes the components' loggers
  const dlog = componentLogger(log, DAEMON_COMPONENT);
  const clock = new LiveClock();
  const def = await loadStrategy(cfg.strategy);
  const params = resolveParams(def.params, cfg.params);
  const limits = resolveRiskLimits(cfg.risk);
  if (!Number.isSafeInteger(sh.collateral) || sh.collateral < 0)
    throw new ConfigError('shadow.collateral', `must be a non-negative amount, got ${String(sh.collateral)}`);
  if (!Number.isFinite(sh.latencyMs) || sh.latencyMs < 0)
    throw new ConfigError('shadow.latencyMs', `must be a number >= 0, got ${String(sh.latencyMs)}`);
  const urls = shadowUrls(cfg);
  const ops = await startOps({
    clock,
    log,
    ...(cfg.ops ? { http: cfg.ops } : {}),
    dataDir: dir,
    version: MMKIT_VERSION,
    mode: 'shadow',
  });
  if (ops.url !== undefined) lock.setStatusUrl(ops.url);
  const venueBase = urls.clob.replace(/\/clob$/, '');
  dlog.warn(
    { venue: venueBase, queue: sh.queue, latencyMs: sh.latencyMs },
    'SHADOW mode: live books, simulated fills; no order is sent to the venue',
  );
  // (a shadow run has no in-process exchange: its flags have no effect)
  warnInProcessFlags(dlog, cfg.inProcessFlags);
  // public REST only (no signer, no key): the markets, their fee rates, books for the choice
  const transport = createTransport({
    urls: { clob: urls.clob, ...(urls.gamma ? { gamma: urls.gamma } : {}) },
    clock,
    budgets: ops.budgets(cfg.budgets ?? {}),
    ...(cfg.timeoutMs !== undefined ? { timeoutMs: cfg.timeoutMs } : {}),
  });
  let closeTransport = true;
  try {
    const clob = new ClobClient(transport);
    const world = (await clob.world())?.worldId ?? null;
    const listed: MarketInfo[] = [];
    for await (const m of clob.marketsAll()) {
      const info = toMarketInfo(m, 0);
      if (info !== undefined) listed.push(info);
    }
    const all = [...listed.filter((m) => m.active), ...listed.filter((m) => !m.active)];
    const picked = await pickMarkets({ clob }, all, cfg, clock.now(), def, params as Record<string, unknown>, log);
    requireMarketsToTrade(picked, cfg, def.name, all.length);
    // the taker fee the simulated venue charges: the market's rate, as the live venue signs it
    const markets: MarketInfo[] = [];
    for (const m of picked) {
      try {
        markets.push({ ...m, feeRateBps: await clob.feeRate(m.tokens[0].tokenId) });
      } catch (err) {
        dlog.warn(
          { market: m.market, err: (err as Error).message },
          'fee rate lookup failed: taker fees simulated at 0',
        );
        markets.push(m);
      }
    }
    terminalView(log)?.setMarkets(markets);
    const startedAt = clock.now();
    const one = { kind: 'constant' as const, ms: sh.latencyMs };
    const shadowVenue = createShadowVenue({
      urls: { ws: urls.ws, ...(urls.rtds ? { rtds: urls.rtds } : {}) },
      clock,
      markets,
      queue: sh.queue,
      latency: { entry: one, cancel: one, response: one },
      seed: sh.seed,
      collateral: sh.collateral as Micro,
      venueName: `${urls.clob.replace(/\/+$/, '')}#${cfg.chainId}`,
      world,
      account: `${SHADOW_ADDRESS}@${startedAt}`,
      ...(cfg.marketSilenceMs !== undefined ? { silenceMs: cfg.marketSilenceMs } : {}),
      logger: log.child({ component: 'venue' }),
      // the engine's re-read of its markets (venue.marketRefreshMs): public REST, as at start
      readMarket: async (id) => {
        try {
          const m = toMarketInfo(await clob.market(id), 0);
          const was = markets.find((x) => x.market === id);
          return m === undefined ? undefined : { ...m, feeRateBps: was?.feeRateBps ?? 0 };
        } catch (e) {
          if (e instanceof NotFoundError) return undefined;
          throw e;
        }
      },
    });
    const venue = ops.instrument(shadowVenue);
    try {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const up = await Promise.race([
        shadowVenue.connected().then(() => true),
        new Promise<false>((r) => (timer = setTimeout(() => r(false), CONNECT_WAIT_MS))),
      ]).finally(() => clearTimeout(timer));
      if (!up)
        dlog.warn(
          { waitedMs: CONNECT_WAIT_MS },
          'the market channel is not connected yet: quoting starts with the first books',
        );
      return await trade(
        cfg,
        sh,
        dir,
        log,
        ops,
        clock,
        shadowVenue,
        venue,
        markets,
        def,
        params,
        limits,
        stops,
        signal,
        {
          transport,
          startedAt,
          venueBase,
        },
      ).then((r) => {
        closeTransport = false;
        return r;
      });
    } finally {
      await shadowVenue.close();
    }
  } finally {
    if (closeTransport) {
      await transport.close();
      await ops.close();
    }
  }
}

type Ops = Awaited<ReturnType<typeof startOps>>;
type ShadowVenueT = ReturnType<typeof createShadowVenue>;

/** The kernel on the shadow venue, its run and its orderly stop; the summary. */
async function trade(
  cfg: RunConfig,
  sh: ShadowConfig,
  dir: string,
  log: Logger,
  ops: Ops,
  clock: LiveClock,
  shadowVenue: ShadowVenueT,
  venue: ShadowVenueT,
  markets: readonly MarketInfo[],
  def: Awaited<ReturnType<typeof loadStrategy>>,
  params: Readonly<Record<string, unknown>>,
  limits: ReturnType<typeof resolveRiskLimits>,
  stops: StopSignals,
  signal: AbortSignal | undefined,
  x: { transport: { close(): Promise<void> | void }; startedAt: number; venueBase: string },
): Promise<ShadowRunSummary> {
  // the daemon's own lines (and the kernel's) carry {component: 'daemon'}; `log` makes the components' loggers
  const dlog = componentLogger(log, DAEMON_COMPONENT);
  // each traded token's outcome, named on fill and status lines
  const outcomes = tokenOutcomes(markets);
  const store = openStore(join(dir, 'mmkit.db'));
  const identity = await venue.identity();
  const epoch = store.openEpoch(identity, clock.now());
  dlog.info(
    { epoch: epoch.epoch.id, venue: epoch.epoch.venue, world: epoch.epoch.world, address: epoch.epoch.address },
    'a new shadow ledger epoch (a fresh simulated account)',
  );
  const session = store.beginSession(clock.now());
  const realizedAtStart = store.pnl(new Map()).realized;
  dlog.info(
    {
      shadow: true,
      strategy: def.name,
      markets: markets.map((m) => ({ market: m.market, question: m.question })),
    },
    'starting (SHADOW)',
  );
  const marketLog = componentLoggers(log);
  let fills = 0;
  let lossLimit: ReturnType<typeof startLossLimit> | undefined;
  const trader = createTrader({
    venue,
    clock,
    store,
    strategy: def,
    params,
    markets,
    limits,
    log: dlog,
    marketLog,
    strategyLog: log.child({ component: 'strategy', strategy: def.name }),
    tolerance: cfg.tolerance,
    restartPolicy: 'cancel',
    foreignOrders: 'leave',
    // no reconciliation with the venue's account: nothing to say of it (a fresh simulated account)
    logReconcile: false,
    postOnly: cfg.postOnly ?? true,
    fillMemory: cfg.fillMemory ?? DEFAULT_FILL_MEMORY,
    rewards: { sampleMs: cfg.rewards?.sampleMs ?? REWARD_SAMPLE_MS },
    marketsPollMs: cfg.marketRefreshMs ?? 60_000,
    // no positionAudit (no account at the venue: the simulated venue is the ledger) and no
    // collateral housekeeping (no relayer)
    hooks: {
      onQuoteSet: (d) => ops.quoteSet(d),
      onFill: (f, change) => {
        if (change !== 'new') return;
        fills++;
        lossLimit?.afterFill();
        ops.fill(f);
        marketLog('executor', f.market).info(
          { ...fillLogFields(f, outcomes.get(f.tokenId)), shadow: true },
          'fill (SHADOW: simulated)',
        );
      },
    },
  });
  const { engine, executor, tracker, heartbeat, kill } = trader;
  ops.attach({
    engine,
    store,
    tracker,
    executor,
    heartbeat,
    kill,
    markets,
    strategy: { name: def.name, params: params as Record<string, unknown> },
    address: identity.address,
    venueUrl: x.venueBase,
    rewards: trader.rewards,
    counters: trader.counters,
  });
  const stopped = whenStopped(stops, signal, kill, cfg.durationMs);
  ops.lifecycle('reconciling');
  const runStartMs = clock.now();
  // the loss limits as `mmkit run` checks them (src/cli/run-status-line.ts): every second, after every
  // fill, and a UTC day opened only on a reading after the start with every followed position marked
  const losses = startLossLimit({ trader, store, markets, log: dlog, now: () => clock.now() });
  lossLimit = losses;
  await trader.start({ beforeQuoting: async () => void (await losses.started()) });
  ops.lifecycle('running');
  trader.startHeartbeat();
  const marksNow = (): Map<TokenId, number> => midMarks(markets, engine);
  const status = setInterval(() => {
    const pnl = store.pnl(marksNow());
    dlog.info(
      {
        shadow: true,
        open: tracker.liveOrders().length,
        fills,
        positions: statusPositions(store.positions(), outcomes),
        realized: formatAmount(pnl.realized),
        unrealized: formatAmount(pnl.unrealized),
        ...prettyOnly(log, { markets: markets.length, fees: formatAmount(pnl.fees) }),
      },
      'status (SHADOW)',
    );
  }, cfg.statusIntervalMs);
  status.unref();
  const stop = await stopped;
  const reason = describeStop(stop);

  dlog.info({ reason }, 'stopping: cancelling all (simulated) orders');
  ops.lifecycle('stopping');
  clearInterval(status);
  losses.stop();
  await trader.stop();
  await trader.cancelAll('shutdown');
  const flat = await trader.verifyFlat(5000);
  ops.flattened(flat, reason);
  // fills the simulated venue made while the engine was stopping (its user events had no subscriber):
  // each stored once, as the daemon backfills the venue's trade history
  const { fresh } = await backfillFills(venue, runStartMs, (f) => executor.onVenueFill(f) === 'new');
  for (const f of fresh) {
    if (executor.fillSource(f.orderId) === 'bot') fills++;
    marketLog('executor', f.market).info(
      { ...fillLogFields(f, outcomes.get(f.tokenId)), shadow: true, backfilled: true },
      'fill (SHADOW: simulated)',
    );
  }
  await trader.close();
  const marks = marksNow();
  const exit = ledgerAtExit(store, {
    session,
    now: clock.now(),
    marks,
    epoch: epoch.epoch,
    realizedAtStart,
    runStartMs,
  });
  for (const p of exit.positionsAtExit) dlog.info({ ...p, shadow: true }, 'position at exit (SHADOW)');
  store.close();
  const stats: SimVenueStats = shadowVenue.stats;
  const frames = shadowVenue.frames();
  const account = shadowVenue.account();
  await venue.close();
  await x.transport.close();
  await ops.close();
  const summary = runExitSummary(exit, { flat, reason, stop }, trader, markets);
  return {
    mode: 'shadow',
    sentToVenue: 0,
    simulated: {
      queue: sh.queue,
      latencyMs: sh.latencyMs,
      seed: sh.seed,
      frames: frames.frames.m,
      connects: frames.connects.m,
      disconnects: frames.disconnects.m,
      ordersPlaced: stats.ordersPlaced,
      ordersRejected: stats.ordersRejected,
      makerFills: stats.makerFills,
      takerFills: stats.takerFills,
      collateral: formatAmount(account.collateral),
    },
    ...summary,
    // the figures to compare with the backtest of its recording, as a run's summary has them (trial 21 F11)
    trading: ops.monitor.tradeStats(summary.ordersPlaced),
  };
}
