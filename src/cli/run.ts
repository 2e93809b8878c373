/**
 * `mmkit run`: the market-making daemon. Wires the parts the design draws:
 *
 *   venue (paper exchange in-process by default, or --exchange-url) ─► engine loop (book mirrors,
 *   own orders, positions) ─► strategy ─► risk gate ─► executor (diff, cancels first, batches ≤ 15,
 *   budgets) ─► store (SQLite: orders before sending, fills exactly once)
 *
 * plus the heartbeat keeper (dead-man switch), the kill switch, the restart reconciliation, a
 * status line every few seconds (src/cli/run-status-line.ts), and an orderly shutdown (cancel all,
 * verify zero open orders at the venue, flush the store, print a summary: src/cli/run-shutdown.ts).
 */
import { type FillEvent, fillLogFields } from '../core/events.ts';
import { mkdirSync } from 'node:fs';
import { CliError, ExitCode, isUnreachable } from './exit-codes.ts';
import { ensureDataDir } from './data-dir-create.ts';
import { join, resolve } from 'node:path';
import type { Wallet } from 'ethers';
import type { Logger } from 'pino';
import { displayAddress } from '../ops/address-display.ts';
import { LiveClock } from '../core/clock.ts';
import { ConfigError } from '../core/errors.ts';
import { formatAmount, formatPrice } from '../core/units.ts';
import type { BudgetConfig } from '../api/http/budgets.ts';
import type { ApiCredentials } from '../api/http/transport.ts';
import { createLiveVenue } from '../venues/live/create-live-venue.ts';
import { DEFAULT_FILL_MEMORY, createTrader } from '../kernel/create-trader.ts';
import { resolveRiskLimits } from '../risk/limits.ts';
import { checkStoreOpens, openStore, type Store } from '../store/store.ts';
import { loadStrategy } from '../strategy/loader.ts';
import type { MarketFilters } from './market-filters.ts';
import { followHeldMarkets, pickMarkets, strayedMarkets } from './run-markets.ts';
import { resolveParams } from '../strategy/params.ts';
import { startExchange, type RunningExchange } from '../exchange/server.ts';
import type { RewardOptions } from '../exchange/rewards/ledger.ts';
import { DEFAULT_WORLD_PROFILE, type WorldProfileName } from '../exchange/world/profiles.ts';
import { registerSecret } from '../core/secrets.ts';
import { MMKIT_VERSION, startOps, type OpsHttpConfig } from '../ops/daemon-ops.ts';
import { componentLogger, componentLoggers, DAEMON_COMPONENT, terminalView } from '../ops/logger.ts';
import {
  checkFleetMemberSetup,
  type FleetRef,
  fleetLedgerId,
  fleetRewardClaims,
  fleetView,
  joinRunFleet,
  openRunFleetBudgets,
  type RunFleetConfig,
} from './run-fleet.ts';
import { startFleetStatusSection } from './run-fleet-status.ts';
import { bookRewards } from '../ops/reward-wiring.ts';
import { REWARD_SAMPLE_MS } from '../engine/reward-tracker.ts';
import { DEFAULT_STALL_WARN_MS } from '../engine/loop.ts';
import { removeDaemonVenue, urlsFromBase, writeDaemonVenue, type VenueUrls } from './venue.ts';
import { liveMarkersOf, venueKind } from './venue-kind.ts';
import { funderProblem } from '../ops/doctor/funder-check.ts';
import { IN_PROCESS_VENUE_PREFIX } from './data-dir-venue.ts';
import { resolveWallet } from './wallet.ts';
import type { DaemonLock } from '../ops/daemon-lock.ts';
import { removeControlToken, removeDaemonFile } from '../ops/daemon-file.ts';
import { requireMarketsToTrade, takeDaemonDir, warnInProcessFlags } from './run-checks.ts';
import { requireFleetMarkets } from './fleet-markets.ts';
import { preflight, type DoctorSettings } from './doctor.ts';
import { whenStopped } from './run-stop.ts';
import { probeStoreWritable } from './run-disk-probe.ts';
import { shutdownRun } from './run-shutdown.ts';
import { startLossLimit, startStatusLine } from './run-status-line.ts';
import { fillFromEvent } from '../store/fills.ts';
import { midMarks, tokenOutcomes, type RunSummary } from './run-summary.ts';

export type { LedgerFigures, RunSummary } from './run-summary.ts';
import type { StopSignals } from './stop-signals.ts';

export interface RunConfig {
  strategy: string;
  params: Record<string, unknown>;
  /** Condition ids; empty: pick `marketCount` liquid markets. */
  markets: string[];
  marketCount: number;
  /** Run for this long (ms); 0: until a signal. */
  durationMs: number;
  dataDir: string;
  /** Base URL of a running paper exchange (http://host:port); empty: start one in-process. */
  exchangeUrl: string;
  chainId: number;
  statusIntervalMs: number;
  tolerance: { priceTicks: number; sizeFraction: number };
  risk: Record<string, unknown>;
  /** The bot's own open orders found at start (bot.restartPolicy). */
  restartPolicy: 'cancel' | 'adopt';
  /** Orders on the wallet the bot did not place (bot.foreignOrders); default 'leave'. */
  foreignOrders?: 'leave' | 'cancel' | 'adopt';
  /** Quotes with the venue's post-only flag (bot.postOnly); default true. */
  postOnly?: boolean;
  /** Fills kept in memory for dedupe (bot.fillMemory); default 200,000; 0: all. */
  fillMemory?: number;
  keystoreFile: string;
  /** The `--config` file the daemon was started with (recorded in <dataDir>/venue.json for the recovery commands); absent: none. */
  configFile?: string;
  /** Seed of the in-process paper exchange's world. */
  seed: number;
  /** Time the strategy's handler (TraderOptions.measureStrategy): `mmkit strategy check`; default off. */
  measureStrategy?: boolean;
  /** CLOB protocol of the in-process paper exchange (exchange.protocol); default the exchange's. */
  paperProtocol?: 1 | 2;
  /** The in-process paper exchange's world profile (default: the exchange's, realistic). */
  worldProfile?: WorldProfileName;
  /** The in-process paper exchange's markets' taker fee rate, bps (exchange.feeRateBps; default 0). */
  paperFeeRateBps?: number;
  /** The in-process paper exchange's liquidity rewards (exchange.rewards.*: epoch, sampling, minimum payout). */
  paperRewards?: Partial<RewardOptions>;
  /** Flags given that apply only to the in-process paper exchange (warned of when there is none). */
  inProcessFlags?: readonly string[];
  /** Per-API URLs (venue.*Url) replacing those derived from exchangeUrl; `clob` + `ws` without exchangeUrl: no in-process exchange. */
  urls?: Partial<VenueUrls>;
  /** Request budgets (budgets.*); default the spec's limits. */
  budgets?: BudgetConfig;
  /** API credentials from the environment; default created or derived with the wallet. */
  apiCredentials?: ApiCredentials;
  /** L1 nonce of the created or derived API key (venue.apiNonce). */
  apiNonce?: number;
  /** Order signature type (venue.signatureType): EOA 0, POLY_PROXY 1, POLY_GNOSIS_SAFE 2. */
  signatureType?: 0 | 1 | 2;
  /** Order protocol (venue.protocol); absent: the venue's (GET /version). */
  protocol?: 1 | 2;
  /** Funder address (venue.funder). */
  funder?: string;
  /** Per-request timeout, ms (venue.timeoutMs). */
  timeoutMs?: number;
  /** Market channel silence after which the connection is replaced, ms (venue.marketSilenceMs). */
  marketSilenceMs?: number;
  /** User channel fill audit period, ms (venue.userAuditMs; 0: off). */
  userAuditMs?: number;
  /** Collateral housekeeping (bot.autoMerge, bot.mergeMinSize in micro-shares, bot.autoRedeem, bot.collateralCheckMs); auto: on with a paper venue. */
  collateral?: {
    autoMerge: 'auto' | 'on' | 'off';
    mergeMinSize: number;
    autoRedeem: 'auto' | 'on' | 'off';
    everyMs: number;
  };
  /** Position reconciliation period, ms (venue.positionAuditMs, default 60,000; 0: at start and on reconnects only). */
  positionAuditMs?: number;
  /** Re-read of the traded markets, ms (venue.marketRefreshMs, default 60,000; 0: never). */
  marketRefreshMs?: number;
  /** SQLite store file; default <dataDir>/mmkit.db. */
  storeFile?: string;
  /** Filters of the automatic market pick (bot.marketFilters). */
  marketFilters?: Partial<MarketFilters>;
  /** The status server (/metrics, /healthz, /api/status, the status page; ops.*); undefined: none. */
  ops?: OpsHttpConfig;
  /** Liquidity rewards (bot.rewards.*): the estimate's sampling period and the payouts' poll period, ms (default 60,000 each; pollMs 0: only at shutdown). */
  rewards?: { sampleMs: number; pollMs: number };
  /** The pre-flight checks before a live venue (doctor.*, src/cli/doctor.ts; paper or live: src/cli/venue-kind.ts); default on. */
  doctor?: DoctorSettings;
  /**
   * A fleet (fleet.*; src/cli/run-fleet.ts): undefined or an empty redisUrl: a lone daemon. With a
   * redisUrl the member joins (leases, kill switch) and the account's request budgets are shared
   * through that Redis (maxMembers and reserve: the emergency reserve, src/fleet/reserve-gate.ts).
   */
  fleet?: RunFleetConfig & { maxMembers?: number; reserve?: number };
}

const urlsOf = urlsFromBase;

/** How often the daemon checks that its store path still names the store file it opened (Store.fileProblem). */
const STORE_CHECK_MS = 5000;

/** An on/off/auto switch: auto means on with a paper venue, off on a real one. */
const onIn = (v: 'auto' | 'on' | 'off' | undefined, paper: boolean): boolean =>
  v === 'on' || ((v ?? 'auto') === 'auto' && paper);

/**
 * The wallet (src/cli/wallet.ts): the keystore or MMKIT_PRIVATE_KEY when configured; otherwise, on
 * paper (in-process or loopback venue), a key kept in the data directory (mode 0600) so a restart
 * trades as the same account and `mmkit orders` in another terminal sees its orders.
 */
async function walletFor(cfg: RunConfig, paper: boolean, log: Logger): Promise<Wallet> {
  const r = await resolveWallet({ keystoreFile: cfg.keystoreFile, dataDir: cfg.dataDir, allowPaper: paper });
  if (r.created) log.info({ address: r.wallet.address }, 'created a paper wallet');
  if (r.kind === 'keystore' && process.env['MMKIT_PRIVATE_KEY'])
    log.warn(
      { address: r.wallet.address, keystore: r.file },
      'MMKIT_PRIVATE_KEY is set too and ignored: the keystore is the wallet used (unset one of them)',
    );
  return r.wallet;
}

/**
 * Run the daemon until a signal, the duration, or the kill switch. Resolves with the summary after
 * an orderly shutdown.
 *
 * One daemon per data dir: first of all it takes `<dataDir>/daemon.lock` (src/ops/daemon-lock.ts),
 * before the in-process exchange, the store or anything that trades; at the end (also when the
 * start fails) it removes, as their owner, daemon.json, venue.json and the lock.
 * @param stops SIGINT/SIGTERM handlers installed by the caller already (default: installed here,
 *   removed at the end)
 * @throws CliError (exit 2) when another daemon holds the data dir, (exit 1) when the store's
 *   directory cannot be written (src/cli/run-disk-probe.ts); ConfigError on bad
 *   configuration; errors of the start-up reconciliation
 */
export async function runBot(
  cfg: RunConfig,
  log: Logger,
  signal?: AbortSignal,
  stops?: StopSignals,
): Promise<RunSummary> {
  // a fleet member on its own venue or its own wallet would be a fleet of one: refused before anything starts
  checkFleetMemberSetup(cfg);
  // owner-only (the trading history, the paper wallet's key): an existing directory keeps its mode; a
  // path that cannot be a directory (a file, under /proc) is refused first (src/cli/data-dir-create.ts)
  ensureDataDir(cfg.dataDir);
  // a store that cannot be written (a full disk, a read-only mount) refuses the start before anything
  // trades, the lock included (src/cli/run-disk-probe.ts)
  probeStoreWritable(cfg.dataDir, cfg.storeFile || join(cfg.dataDir, 'mmkit.db'));
  // the daemon's own lines carry {component: 'daemon'} (README "Logs": every line names its component)
  const dlog = componentLogger(log, DAEMON_COMPONENT);
  // the lock, then the stop signals (src/cli/run-checks.ts): another daemon here refuses the start
  const { lock, sigs } = await takeDaemonDir(cfg.dataDir, dlog, stops);
  // closed at the end whatever happened (the fleet's Redis connection)
  const cleanups: Array<() => Promise<void>> = [];
  try {
    return await runLocked(cfg, log, lock, sigs, cleanups, signal);
  } finally {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
    if (stops === undefined) sigs.dispose();
    removeDaemonVenue(cfg.dataDir);
    removeDaemonFile(cfg.dataDir);
    // (the lock is still ours: a token file here is this daemon's, or a dead one's)
    removeControlToken(cfg.dataDir);
    lock.release();
  }
}

async function runLocked(
  cfg: RunConfig,
  log: Logger,
  lock: DaemonLock,
  stops: StopSignals,
  cleanups: Array<() => Promise<void>>,
  signal?: AbortSignal,
): Promise<RunSummary> {
  const clock = new LiveClock();
  mkdirSync(cfg.dataDir, { recursive: true, mode: 0o700 });
  // `log` makes the components' child loggers; the daemon's own lines (and the kernel's) go through this one
  const dlog = componentLogger(log, DAEMON_COMPONENT);
  const def = await loadStrategy(cfg.strategy);
  const params = resolveParams(def.params, cfg.params);
  const limits = resolveRiskLimits(cfg.risk);
  requireFleetMarkets(cfg);
  // a damaged or read-only store refuses the start (exit 2, naming it) before the port is bound or a wallet created
  checkStoreOpens(cfg.storeFile || join(cfg.dataDir, 'mmkit.db'));
  // the status server first: a port conflict stops the start before anything trades; /healthz says 503 until running
  const ops = await startOps({
    clock,
    log,
    ...(cfg.ops ? { http: cfg.ops } : {}),
    dataDir: cfg.dataDir,
    version: MMKIT_VERSION,
    ...(cfg.fleet?.redisUrl ? { fleet: true } : {}),
  });
  if (ops.url !== undefined) lock.setStatusUrl(ops.url);

  let exchange: RunningExchange | undefined;
  let urls: VenueUrls;
  const given = cfg.urls ?? {};
  // how it was started, for the recovery commands after a crash (venue.ts DaemonVenueRecord)
  const started = { config: cfg.configFile ?? '', keystore: cfg.keystoreFile, fleet: Boolean(cfg.fleet?.redisUrl) };
  // flags only the in-process exchange takes have no effect on a venue given by URL: said once
  if (cfg.exchangeUrl || (given.clob && given.ws)) warnInProcessFlags(dlog, cfg.inProcessFlags);
  if (cfg.exchangeUrl) {
    urls = { ...urlsOf(cfg.exchangeUrl), ...given };
    // operator commands in another terminal (mmkit positions, status...) find the venue here
    writeDaemonVenue(cfg.dataDir, cfg.exchangeUrl, given, started);
  } else if (given.clob && given.ws) {
    urls = { gamma: '', data: '', content: '', ...given, clob: given.clob, ws: given.ws };
    writeDaemonVenue(cfg.dataDir, undefined, given, started);
  } else {
    exchange = await startExchange({
      port: 0,
      seed: cfg.seed,
      exchange: {
        ...(cfg.paperProtocol !== undefined ? { protocol: cfg.paperProtocol } : {}),
        ...(cfg.paperRewards !== undefined ? { rewards: cfg.paperRewards } : {}),
      },
      ...(cfg.worldProfile !== undefined || cfg.paperFeeRateBps !== undefined
        ? {
            world: {
              ...(cfg.worldProfile !== undefined ? { profile: cfg.worldProfile } : {}),
              ...(cfg.paperFeeRateBps !== undefined ? { feeRateBps: cfg.paperFeeRateBps } : {}),
            },
          }
        : {}),
      logger: log.child({ component: 'exchange' }, { level: 'warn' }),
    });
    urls = urlsOf(exchange.urls.clob_url);
    // which world: the profile decides what PnL to expect (README, World profiles)
    dlog.info(
      {
        url: urls.clob.replace(/\/clob$/, ''),
        worldProfile: cfg.worldProfile ?? DEFAULT_WORLD_PROFILE,
        feeRateBps: cfg.paperFeeRateBps ?? 0,
        seed: exchange.identity.seed,
        protocol: exchange.exchange.protocol,
      },
      'paper exchange started in-process',
    );
    // operator commands in another terminal (mmkit orders, positions...) find it here
    writeDaemonVenue(cfg.dataDir, urls.clob.replace(/\/clob$/, ''), {}, { ...started, inProcess: true });
  }
  // paper or live (src/cli/venue-kind.ts): a wallet or a live marker makes a loopback venue live
  const paper = venueKind({
    setting: cfg.doctor?.venueKind ?? 'auto',
    urls: Object.values(urls),
    inProcess: exchange !== undefined,
    wallet: cfg.keystoreFile !== '' || Boolean(process.env['MMKIT_PRIVATE_KEY']),
    liveMarkers: cfg.doctor !== undefined && liveMarkersOf(cfg.doctor),
  }).paper;
  const wallet = await walletFor(cfg, paper, dlog);
  // a funder missing or contradicting the signature type: refused as `config check` refuses it
  // (exit 2), before the pre-flight checks and before anything is signed
  const fp = funderProblem(
    (['eoa', 'poly-proxy', 'gnosis-safe'] as const)[cfg.signatureType ?? 0],
    cfg.funder ?? '',
    wallet.address,
  );
  if (fp !== undefined) throw new ConfigError(fp.key, fp.message);
  // secrets are scrubbed by value from every log line and error message from now on
  registerSecret(
    wallet.privateKey,
    cfg.apiCredentials?.apiKey,
    cfg.apiCredentials?.secret,
    cfg.apiCredentials?.passphrase,
  );
  // a real venue: `mmkit doctor`'s checks first; a failure refuses the start (exit 1, or 3 unreachable)
  if (!paper) await preflight(cfg, urls, wallet, componentLogger(log, 'doctor'));
  // a fleet: the account's request budgets are shared with the other members through Redis (loaded
  // only then: without fleet.redisUrl nothing of the fleet, ioredis included, is imported)
  const shared = await openRunFleetBudgets(cfg, {
    account: (cfg.funder || wallet.address).toLowerCase(),
    signer: wallet.address.toLowerCase(),
    clock,
    log,
  });
  if (shared !== undefined) cleanups.push(() => shared.close());
  // (a fleet member's: whether a fill is another member's, read by the user channel's audit warning)
  let othersFill: ((f: FillEvent) => boolean) | undefined;
  // (a fleet member's markets, set once picked: the user channel's audits also take the trades of the
  // markets outside them, booked by the member that claims them first; review-2 F1)
  let fleetMarketSet: ReadonlySet<string> | undefined;
  const liveVenue = await createLiveVenue({
    urls,
    wallet,
    chainId: cfg.chainId,
    clock,
    logger: log.child({ component: 'venue' }),
    // order and cancel round trips (status, exit summary, /metrics)
    onAnswer: ops.onAnswer,
    // 429s counted and budget use exported on /metrics
    budgets: ops.budgets(
      cfg.budgets ?? {},
      shared !== undefined
        ? { gate: shared.gate, ...(shared.signer !== undefined ? { signer: shared.signer } : {}) }
        : {},
    ),
    ...(cfg.apiCredentials ? { credentials: cfg.apiCredentials } : {}),
    ...(cfg.apiNonce !== undefined ? { nonce: cfg.apiNonce } : {}),
    ...(cfg.signatureType !== undefined ? { signatureType: cfg.signatureType } : {}),
    ...(cfg.protocol !== undefined ? { protocol: cfg.protocol } : {}),
    ...(cfg.funder ? { funder: cfg.funder } : {}),
    ...(cfg.timeoutMs !== undefined ? { timeoutMs: cfg.timeoutMs } : {}),
    ...(cfg.marketSilenceMs !== undefined ? { silenceMs: cfg.marketSilenceMs } : {}),
    ...(cfg.userAuditMs !== undefined ? { userAuditMs: cfg.userAuditMs } : {}),
    // (fills in the store: the previous session's, the restart backfill's; no miss of the channel)
    userRecordedFill: (f: FillEvent) => store.hasFill(f.tradeId, f.orderId),
    // a fleet member: the audit's warning counts the fills of other members apart (set once the trader
    // exists); the audits also take the trades outside the fleet's markets (set once they are picked)
    ...(cfg.fleet !== undefined && cfg.fleet.redisUrl !== ''
      ? {
          userOthersFill: (f: FillEvent) => othersFill?.(f) === true,
          userAuditAlso: (m: string) => fleetMarketSet !== undefined && !fleetMarketSet.has(m),
        }
      : {}),
  }).catch((err: unknown) => {
    // a venue that does not answer: named by its URL, as the other commands name it (trial 13 F5:
    // "POST /auth/api-key: connection failed" named the endpoint only)
    if (!isUnreachable(err)) throw err;
    throw new CliError(
      `venue unreachable at ${urls.clob}: ${(err as Error).message}`,
      ExitCode.UNREACHABLE,
      'UNREACHABLE',
      { cause: err },
    );
  });
  // observed: tick-to-order, orders by outcome (src/ops/instrument.ts); otherwise the same venue
  const venue = ops.instrument(liveVenue);
  const store: Store = openStore(cfg.storeFile || join(cfg.dataDir, 'mmkit.db'));
  // the ledger's epoch: a different venue, a fresh paper world or another account starts a new one
  // (positions and PnL are never carried across worlds); its opening holdings come from the venue.
  // An in-process exchange is marked (`inprocess:`): the operator commands must not ask it once it is gone
  const identity = venue.identity ? await venue.identity() : undefined;
  const id = identity ?? { venue: urls.clob.replace(/\/clob$/, ''), world: null, address: venue.address };
  const epoch = store.openEpoch(
    exchange !== undefined ? { ...id, venue: `${IN_PROCESS_VENUE_PREFIX}${id.venue}` } : id,
    clock.now(),
  );
  if (epoch.fresh)
    dlog.info(
      {
        epoch: epoch.epoch.id,
        venue: epoch.epoch.venue,
        world: epoch.epoch.world,
        ...(epoch.previous
          ? { previous: { epoch: epoch.previous.id, venue: epoch.previous.venue, world: epoch.previous.world } }
          : {}),
      },
      epoch.previous ? 'a new ledger epoch: the venue or its world changed' : 'a new ledger epoch',
    );
  // this run's figures (the summary, the status page) are counted from its session
  const session = store.beginSession(clock.now());
  const realizedAtStart = store.pnl(new Map()).realized;
  const all = await venue.markets();
  const markets = await pickMarkets(venue, all, cfg, clock.now(), def, params as Record<string, unknown>, log);
  // without bot.markets, also the markets where the ledger holds a position (a fleet member: the fleet's leases only)
  if (cfg.markets.length === 0 && !(cfg.fleet !== undefined && cfg.fleet.redisUrl !== ''))
    followHeldMarkets(markets, all, store.positions(), dlog);
  requireMarketsToTrade(markets, cfg, def.name, all.length);
  if (cfg.fleet !== undefined && cfg.fleet.redisUrl !== '') fleetMarketSet = new Set(markets.map((m) => m.market));
  terminalView(log)?.setMarkets(markets);
  // each traded token's outcome, named on fill and status lines
  const outcomes = tokenOutcomes(markets);
  dlog.info(
    {
      address: displayAddress(venue.address),
      strategy: def.name,
      markets: markets.map((m) => ({ market: m.market, question: m.question })),
    },
    'starting',
  );
  // positions of markets this run does not follow (a restart whose pick changed: trial 17 F2): said, and named
  const strayed = strayedMarkets(markets, all, store.positions(), dlog);
  if (strayed.length > 0) terminalView(log)?.setMarkets(strayed);

  // child loggers per component and market ({component, market} on every line), made once each
  const marketLog = componentLoggers(log);
  let fills = 0;
  let lossLimit: ReturnType<typeof startLossLimit> | undefined;
  // the bot samples as its venue does: with the in-process exchange, at its interval unless bot.rewards.sampleMs says otherwise
  let rewardSampleMs = cfg.rewards?.sampleMs ?? REWARD_SAMPLE_MS;
  if (exchange !== undefined && rewardSampleMs === REWARD_SAMPLE_MS && cfg.paperRewards?.sampleMs !== undefined)
    rewardSampleMs = Math.max(1, Math.round(cfg.paperRewards.sampleMs));
  // the one wiring of the bot (src/kernel): tracker, executor, kill switch, heartbeat, risk view and
  // gate, fills to the store, the restart reconciliation; this command adds its ops around it
  const inFleet = cfg.fleet !== undefined && cfg.fleet.redisUrl !== '';
  const fleetRef: FleetRef = {};
  const trader = createTrader({
    ...(inFleet
      ? {
          fleet: fleetView(
            fleetRef,
            markets.map((m) => m.market),
            clock,
          ),
        }
      : {}),
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
    ...(cfg.measureStrategy === true ? { measureStrategy: true } : {}),
    // a handler that blocks the loop is named in the log (it would read as a silent venue)
    stallWarnMs: DEFAULT_STALL_WARN_MS,
    tolerance: cfg.tolerance,
    restartPolicy: cfg.restartPolicy,
    foreignOrders: cfg.foreignOrders ?? 'leave',
    postOnly: cfg.postOnly ?? true,
    fillMemory: cfg.fillMemory ?? DEFAULT_FILL_MEMORY,
    rewards: { sampleMs: rewardSampleMs },
    marketsPollMs: cfg.marketRefreshMs ?? 60_000,
    collateral: {
      mergeMinSize: onIn(cfg.collateral?.autoMerge, paper) ? (cfg.collateral?.mergeMinSize ?? 10_000_000) : 0,
      redeem: onIn(cfg.collateral?.autoRedeem, paper),
      everyMs: cfg.collateral?.everyMs ?? 60_000,
    },
    // the store file deleted or replaced while running trips the kill switch (src/kernel/create-trader.ts)
    storeCheckMs: STORE_CHECK_MS,
    positionAudit: {
      everyMs: cfg.positionAuditMs ?? 60_000,
      epochStart: epoch.epoch.startedAt,
      ...(epoch.fresh ? { opening: epoch.previous ? ('venue_reset' as const) : ('unknown' as const) } : {}),
      activity: (since) => liveVenue.activityKinds(since),
      market: async (cid) => {
        const m = await liveVenue.clob.market(cid);
        const [a, b] = m.tokens;
        if (a === undefined || b === undefined) throw new Error(`market ${cid}: not two tokens`);
        const won = m.tokens.find((t) => t.winner)?.tokenId;
        return { tokens: [a.tokenId, b.tokenId], winner: won ?? (m.closed ? null : undefined) };
      },
      mid: async (t) => {
        try {
          return Math.round(await liveVenue.clob.midpoint(t));
        } catch {
          return undefined;
        }
      },
      onAdjust: (a) => {
        ops.positionAdjusted(a.cause);
        // a market not followed is named from the listing (trial 13 F14: its id only)
        const listedM = markets.some((m) => m.market === a.market) ? undefined : all.find((m) => m.market === a.market);
        marketLog('ledger', a.market).warn(
          {
            ...(listedM !== undefined
              ? {
                  question: listedM.question,
                  outcome: listedM.tokens.find((t) => t.tokenId === a.tokenId)?.outcome ?? '',
                }
              : {}),
            token: a.tokenId,
            size: formatAmount(a.size),
            price: formatPrice(a.price),
            priceSource: a.priceSource,
            cause: a.cause,
          },
          "position adjusted to the venue's holdings",
        );
      },
    },
    hooks: {
      onQuoteSet: (d) => ops.quoteSet(d),
      onFill: (f, change) => {
        if (change !== 'new') return;
        fills++;
        lossLimit?.afterFill();
        ops.fill(f);
        marketLog('executor', f.market).info(
          // the fee as the store booked it (a maker's 0), so the log alone adds up (trial 19 F7)
          { ...fillLogFields(f, outcomes.get(f.tokenId)), fee: formatAmount(fillFromEvent(f).fee), source: f.source },
          'fill',
        );
      },
      // an own fill the user stream had not delivered, booked by the position audit (logged by the kernel)
      onAuditFill: (f, source) => {
        if (source !== 'bot') return;
        fills++;
        ops.monitor.onAuditFill(f);
      },
      // fills of orders the bot did not place (logged by the kernel): counted apart on /metrics
      onExternalFill: (f, change) => {
        if (change === 'new') ops.metrics.externalFill(f.market);
      },
    },
  });
  const { engine, executor, tracker, heartbeat, kill } = trader;
  othersFill = (f) =>
    executor.fillSource(f.orderId, f.market) === 'member' || executor.othersFill(f.tradeId, f.orderId);
  // a fleet member: joined before quoting starts (until then it quotes nothing and does not heartbeat)
  const fleetMember = inFleet
    ? await joinRunFleet(cfg.fleet!, {
        ref: fleetRef,
        trader,
        venue,
        chain: liveVenue,
        address: venue.address,
        markets: markets.map((m) => m.market),
        clock,
        log,
        limits,
        ledgerId: fleetLedgerId(cfg.dataDir),
        dataDir: cfg.dataDir,
        // a store with no fill yet: the account's history is claimed before the ledger is published
        claimHistory: store.lastFillTime() === undefined,
      })
    : undefined;
  // a fleet member publishes its status record (`mmkit fleet status`) and labels its metrics
  const stopFleetStatus =
    fleetMember !== undefined
      ? await startFleetStatusSection(fleetMember, {
          ops,
          clock,
          ...(shared !== undefined ? { budgets: shared.shared } : {}),
          account: venue.address,
          figures: () => {
            const pnl = store.pnl(midMarks(markets, engine, trader.venueMarks()));
            return {
              openOrders: tracker.liveOrders().length,
              fills,
              pnl: {
                realized: pnl.realized,
                unrealized: pnl.unrealized,
                fees: pnl.fees,
                rewards: store.rewardTotals().total,
              },
            };
          },
        })
      : undefined;
  if (stopFleetStatus !== undefined) cleanups.push(stopFleetStatus);
  // liquidity rewards: the tracker's estimate per UTC date, and the venue's payouts, into the store
  const rewardBook = bookRewards(trader.rewards, store, liveVenue, clock, log, {
    sampleMs: rewardSampleMs,
    ...(cfg.rewards?.pollMs !== undefined ? { pollMs: cfg.rewards.pollMs } : {}),
    // the cross-check with the venue's REWARD activity needs its data API; a fleet member books only
    // its part of the account's payouts, so the account's activity is not its figure
    crossCheckSince: urls.data && fleetMember === undefined ? epoch.epoch.startedAt : undefined,
    ...(fleetMember !== undefined
      ? {
          fleet: await fleetRewardClaims(
            fleetMember,
            markets.map((m) => m.market),
            fleetLedgerId(cfg.dataDir),
          ),
        }
      : {}),
  });
  // a fleet member re-asserts the reward parts it booked at once on a reconnect to the fleet's Redis
  // (a Redis restarted empty lost them; each poll re-asserts them too, before it claims: review-1 F7)
  fleetMember?.redis.on('ready', () => {
    rewardBook
      .reassertParts()
      .catch((err: unknown) =>
        componentLogger(log, 'rewards').warn(
          { err: err instanceof Error ? err.message : String(err) },
          "could not re-assert the booked reward parts in the fleet's Redis (retried before the next poll's claims)",
        ),
      );
  });
  executor.onCycle((c) => marketLog('executor', c.market).debug({ cycle: c }, 'execution cycle'));
  ops.attach({
    engine,
    store,
    tracker,
    executor,
    heartbeat,
    kill,
    markets,
    // (names positions held in markets not followed)
    listed: all,
    strategy: { name: def.name, params: params as Record<string, unknown> },
    address: venue.address,
    venueUrl: urls.clob.replace(/\/clob$/, ''),
    venuePaper: paper,
    rewards: trader.rewards,
    venueRewardShares: () => rewardBook.venueShares()?.shares,
    venueMarks: () => trader.venueMarks(),
    counters: trader.counters,
  });

  // ---- run ---------------------------------------------------------------------------------------
  // (a signal received while starting resolves this at once: the daemon stops as soon as it is started)
  const stopped = whenStopped(stops, signal, kill, cfg.durationMs);
  ops.lifecycle('reconciling');
  const runStartMs = clock.now();
  // a stop asked while starting (trial 13 F6: 4 quotes were placed after a SIGTERM during the start):
  // the engine stops at once, so the reconciliation finishes but the engine is never ready and places
  // nothing; the orderly shutdown follows
  let starting = true;
  void stopped.then(() => {
    if (!starting) return;
    dlog.info('a stop was asked during the start: no order will be placed; stopping once the start is done');
    void trader.engine.stop();
  });
  // the loss limits (bot.risk.maxLoss, maxDailyLoss): checked now, before anything is quoted (a daemon
  // restarted past its limit trips before it trades), once the start has reconciled (only then may a
  // reading open the UTC day), every second and after every fill
  const losses = startLossLimit({ trader, store, markets, log: dlog, now: () => clock.now() });
  lossLimit = losses;
  // (before the strategy gets any event: a restart past a limit trips before it quotes)
  // (a fleet member: the account's limits too, with its reading: the members' sums, src/cli/run-fleet.ts)
  await trader.start({
    beforeQuoting: async () => {
      await losses.started();
      if (!trader.kill.tripped) await fleetRef.lossCheck?.();
    },
  });
  starting = false;
  if (trader.rewards.active && !trader.engine.stopped) rewardBook.start();
  ops.lifecycle('running');
  if (!trader.engine.stopped) trader.startHeartbeat();
  // the status line (src/cli/run-status-line.ts)
  const status = startStatusLine(
    { log, dlog, trader, store, markets, outcomes, fills: () => fills, now: () => clock.now() },
    cfg.statusIntervalMs,
  );
  const stop = await stopped;
  lossLimit.stop();

  // ---- orderly shutdown (src/cli/run-shutdown.ts) -------------------------------------------------
  const ledger = { session, epoch: epoch.epoch, realizedAtStart, runStartMs };
  const wired = { cfg, log, dlog, marketLog, clock, trader, venue, urls, exchange, store, ops, rewardBook, status };
  const fleet = { fleetMember, fleetRef, stopFleetStatus };
  // (the backfill's fills of the bot's own are counted as the user channel's)
  return shutdownRun({ ...wired, ...fleet, markets, listed: all, outcomes, ledger, onBotFill: () => fills++ }, stop);
}

export const resolveDataDir = (d: string): string => resolve(d);
