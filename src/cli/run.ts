/**
 * `mmkit run`: the market-making daemon. Wires the parts the design draws:
 *
 *   venue (paper exchange in-process by default, or --exchange-url) ─► engine loop (book mirrors,
 *   own orders, positions) ─► strategy ─► risk gate ─► executor (diff, cancels first, batches ≤ 15,
 *   budgets) ─► store (SQLite: orders before sending, fills exactly once)
 *
 * plus the heartbeat keeper (dead-man switch), the kill switch, the restart reconciliation, a
 * status line every few seconds, and an orderly shutdown (cancel all, verify zero open orders at the
 * venue, flush the store, print a summary).
 */
import { mkdirSync, readFileSync, writeFileSync, existsSync, chmodSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Wallet } from 'ethers';
import type { Logger } from 'pino';
import { LiveClock } from '../core/clock.ts';
import { ConfigError } from '../core/errors.ts';
import type { ConditionId, TokenId } from '../core/ids.ts';
import type { FillEvent } from '../core/events.ts';
import { formatAmount, formatPrice, tickPips } from '../core/units.ts';
import { loadWallet } from '../api/auth.ts';
import { createLiveVenue, type LiveVenue } from '../engine/live-venue.ts';
import { createEngine, type Engine } from '../engine/loop.ts';
import { reconcileOnStart } from '../engine/restart.ts';
import type { MarketInfo } from '../engine/venue.ts';
import { Executor } from '../execution/executor.ts';
import { HeartbeatKeeper } from '../execution/heartbeat.ts';
import { OrderTracker } from '../execution/tracker.ts';
import { gate, type RiskView } from '../risk/gate.ts';
import { KillSwitch } from '../risk/kill-switch.ts';
import { resolveRiskLimits } from '../risk/limits.ts';
import { openStore, type Store } from '../store/store.ts';
import { restartStore } from '../store/restart.ts';
import { loadStrategy } from '../strategy/loader.ts';
import { resolveParams } from '../strategy/params.ts';
import type { StrategyState } from '../strategy/api.ts';
import { startExchange, type RunningExchange } from '../exchange/server.ts';

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
  restartPolicy: 'cancel' | 'adopt';
  keystoreFile: string;
  /** Seed of the in-process paper exchange's world. */
  seed: number;
}

export interface RunSummary {
  ordersPlaced: number;
  ordersCancelled: number;
  ordersRejected: number;
  fills: number;
  volume: string;
  notional: string;
  realizedPnl: string;
  unrealizedPnl: string;
  openOrdersAtExit: number;
  reason: string;
}

function urlsOf(base: string): { clob: string; gamma: string; data: string; content: string; ws: string } {
  const u = new URL(base);
  const root = `${u.protocol}//${u.host}`;
  const ws = `${u.protocol === 'https:' ? 'wss' : 'ws'}://${u.host}`;
  return { clob: `${root}/clob`, gamma: `${root}/gamma`, data: `${root}/data`, content: `${root}/content`, ws };
}

/**
 * The wallet: MMKIT_PRIVATE_KEY or a keystore when configured; otherwise, on paper, a key kept in
 * the data directory (mode 0600) so a restart trades as the same account and can reconcile.
 */
async function walletFor(cfg: RunConfig, paper: boolean, log: Logger): Promise<Wallet> {
  if (process.env.MMKIT_PRIVATE_KEY || cfg.keystoreFile) {
    const w = await loadWallet({ ...(cfg.keystoreFile ? { keystoreFile: cfg.keystoreFile } : {}) });
    return w as Wallet;
  }
  if (!paper) throw new ConfigError('MMKIT_PRIVATE_KEY', 'a wallet is needed: set MMKIT_PRIVATE_KEY or bot.keystoreFile');
  const file = join(cfg.dataDir, 'paper-wallet.key');
  if (existsSync(file)) return new Wallet(readFileSync(file, 'utf8').trim());
  const w = Wallet.createRandom();
  writeFileSync(file, w.privateKey + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
  log.info({ address: w.address }, 'created a paper wallet');
  return new Wallet(w.privateKey);
}

/** Liquid, long-lived markets first: the ones with the most resting depth near the mid. */
async function pickMarkets(venue: LiveVenue, all: readonly MarketInfo[], cfg: RunConfig, now: number): Promise<MarketInfo[]> {
  if (cfg.markets.length > 0) {
    const want = new Set(cfg.markets.map((m) => m.toLowerCase()));
    const found = all.filter((m) => want.has(m.market.toLowerCase()));
    if (found.length !== want.size) throw new ConfigError('bot.markets', `unknown or inactive market(s): ${[...want].filter((w) => !found.some((f) => f.market.toLowerCase() === w)).join(', ')}`);
    return found;
  }
  const candidates = all.filter((m) => m.active && Date.parse(m.endDate) - now > 3_600_000).slice(0, 30);
  const scored: Array<[MarketInfo, number]> = [];
  for (const m of candidates) {
    try {
      const b = await venue.clob.book(m.tokens[0].tokenId);
      scored.push([m, b.bids.length + b.asks.length]);
    } catch {
      /* skip markets whose book cannot be read */
    }
  }
  scored.sort((a, b) => b[1] - a[1]);
  return scored.slice(0, cfg.marketCount).map(([m]) => m);
}

/**
 * Run the daemon until a signal, the duration, or the kill switch. Resolves with the summary after
 * an orderly shutdown.
 * @throws ConfigError on bad configuration; errors of the start-up reconciliation
 */
export async function runBot(cfg: RunConfig, log: Logger, signal?: AbortSignal): Promise<RunSummary> {
  const clock = new LiveClock();
  mkdirSync(cfg.dataDir, { recursive: true });
  const def = await loadStrategy(cfg.strategy);
  const params = resolveParams(def.params, cfg.params);
  const limits = resolveRiskLimits(cfg.risk);

  let exchange: RunningExchange | undefined;
  let urls: ReturnType<typeof urlsOf>;
  if (cfg.exchangeUrl) urls = urlsOf(cfg.exchangeUrl);
  else {
    exchange = await startExchange({ port: 0, seed: cfg.seed, logger: log.child({ component: 'exchange' }, { level: 'warn' }) });
    urls = urlsOf(exchange.urls.clob_url);
    log.info({ url: urls.clob.replace(/\/clob$/, '') }, 'paper exchange started in-process');
  }
  const wallet = await walletFor(cfg, true, log);
  const venue = await createLiveVenue({ urls, wallet, chainId: cfg.chainId, clock, logger: log.child({ component: 'venue' }) });
  const store: Store = openStore(join(cfg.dataDir, 'mmkit.db'));
  const all = await venue.markets();
  const markets = await pickMarkets(venue, all, cfg, clock.now());
  if (markets.length === 0) throw new ConfigError('bot.markets', 'no market to trade');
  log.info({ address: venue.address, strategy: def.name, markets: markets.map((m) => ({ market: m.market, question: m.question })) }, 'starting');

  const tracker = new OrderTracker(clock);
  const executor = new Executor({
    venue,
    store,
    tracker,
    clock,
    tolerance: cfg.tolerance,
    tickPips: (m) => {
      const t = engine?.state.market(m)?.tick;
      return t === undefined ? undefined : tickPips(t);
    },
  });
  const kill = new KillSwitch(clock, { limits: limits.killSwitch });
  const heartbeat = new HeartbeatKeeper({ beat: () => venue.heartbeat(), clock, active: () => executor.hasOpenOrders(), target: executor });
  heartbeat.onStatus((s) => {
    if (s.lastAttemptAt > 0) kill.recordHeartbeat(s.consecutiveFailures === 0);
    if (s.consecutiveFailures > 0) log.warn({ failures: s.consecutiveFailures, error: s.error }, 'heartbeat failed: new orders paused');
  });
  executor.onRejection((r) => {
    log.warn({ order: r.id, code: r.code }, 'order rejected');
    kill.recordRejection(r.code);
  });

  const marketMap = new Map<ConditionId, MarketInfo>(markets.map((m) => [m.market, m]));
  const riskView = (state: StrategyState): RiskView => ({
    limits,
    killSwitch: kill,
    // fail closed once a heartbeat has failed, until one succeeds (before the first: nothing rests)
    heartbeatOk: heartbeat.status().consecutiveFailures === 0,
    market: (id) => marketMap.get(id),
    book: (t) => state.book(t),
    position: (t) => state.position(t).size,
    openOrders: () => tracker.liveOrders(),
    availableCollateral: state.availableCollateral,
  });
  const strategy = def.create({ clock, log: log.child({ component: 'strategy', strategy: def.name }), markets: marketMap }, params as never);

  let fills = 0;
  const onFill = (f: FillEvent): void => {
    // the executor commits the fill to the store (exactly once) before it returns
    const change = executor.onUserEvent(f);
    if (change === 'new') {
      fills++;
      log.info({ trade: f.tradeId, order: f.orderId, side: f.side, price: formatPrice(f.price), size: formatAmount(f.size), role: f.role, status: f.status }, 'fill');
    }
  };
  // eslint-disable-next-line prefer-const
  let engine: Engine | undefined;
  engine = createEngine({
    venue,
    strategy,
    markets,
    clock,
    timers: { tickMs: 1000 },
    gate: (desired, state) => {
      const r = gate(desired, riskView(state));
      for (const x of r.refusals) log.debug({ market: desired.market, code: x.code, reason: x.reason }, 'quote refused');
      return r.approved;
    },
    execute: (d) => executor.submit(d),
    onFill,
    orders: { openOrders: (m) => tracker.liveOrders(m) },
    reconcile: async () => {
      const r = await reconcileOnStart(venue, restartStore(store), { policy: cfg.restartPolicy, logger: log.child({ component: 'restart' }) });
      if (r.adopted.length) executor.adopt(r.adopted);
      for (const f of r.fills) executor.onVenueFill(f);
      log.info({ found: r.found.length, canceled: r.canceled.length, adopted: r.adopted.length, backfilled: r.newFills }, 'reconciled with the venue');
      return { adopted: r.adopted, fills: r.fills };
    },
    logger: log.child({ component: 'engine' }),
  });
  // positions survive restarts: the state starts from every fill already in the store
  for (const f of store.fills()) engine.state.seedFill(f);
  executor.onCycle((c) => log.debug({ cycle: c }, 'execution cycle'));
  // own order updates drive the tracker too (fills come through onFill)
  const orderUpdates = engine.events$.subscribe((e) => {
    if (e.type === 'order_update') executor.onUserEvent(e);
  });

  // ---- run ---------------------------------------------------------------------------------------
  let reason = 'signal';
  const stopped = new Promise<string>((res) => {
    const onSig = (s: string) => res(s);
    process.once('SIGINT', () => onSig('SIGINT'));
    process.once('SIGTERM', () => onSig('SIGTERM'));
    signal?.addEventListener('abort', () => res('abort'));
    kill.onTrip((t) => res(`kill switch: ${t.trigger}: ${t.message}`));
    if (cfg.durationMs > 0) setTimeout(() => res('duration'), cfg.durationMs).unref();
  });
  await engine.start();
  heartbeat.start();
  const status = setInterval(() => {
    const marks = new Map<TokenId, number>();
    for (const m of markets)
      for (const t of m.tokens) {
        const b = engine!.state.book(t.tokenId);
        if (b?.mid != null) marks.set(t.tokenId, Math.round(b.mid));
      }
    const pnl = store.pnl(marks);
    kill.recordPnl(pnl.realized, pnl.unrealized);
    log.info(
      {
        open: tracker.liveOrders().length,
        fills,
        positions: store.positions().filter((p) => p.size !== 0).map((p) => ({ token: String(p.tokenId).slice(0, 10), size: formatAmount(p.size) })),
        realized: formatAmount(pnl.realized),
        unrealized: formatAmount(pnl.unrealized),
      },
      'status',
    );
  }, cfg.statusIntervalMs);
  status.unref();
  reason = await stopped;

  // ---- orderly shutdown --------------------------------------------------------------------------
  log.info({ reason }, 'stopping: cancelling all orders');
  clearInterval(status);
  await engine.stop();
  orderUpdates.unsubscribe();
  await executor.cancelAll('shutdown');
  const flat = await executor.verifyFlat({ timeoutMs: 5000 });
  heartbeat.stop();
  await executor.close();
  const summary = store.summary();
  const marks = new Map<TokenId, number>();
  for (const m of markets)
    for (const t of m.tokens) {
      const b = engine.state.book(t.tokenId);
      if (b?.mid != null) marks.set(t.tokenId, Math.round(b.mid));
    }
  const pnl = store.pnl(marks);
  for (const p of store.positions().filter((x) => x.size !== 0))
    log.info({ token: p.tokenId, size: formatAmount(p.size), avgPrice: p.avgPrice, mark: marks.get(p.tokenId) ?? null }, 'position at exit');
  store.close();
  await venue.close();
  await exchange?.close();
  return {
    ordersPlaced: summary.ordersPlaced,
    ordersCancelled: summary.ordersCancelled,
    ordersRejected: summary.ordersRejected,
    fills: summary.fills,
    volume: formatAmount(summary.volume),
    notional: formatAmount(summary.notional),
    realizedPnl: formatAmount(pnl.realized),
    unrealizedPnl: formatAmount(pnl.unrealized),
    openOrdersAtExit: flat.open.length,
    reason,
  };
}

export const resolveDataDir = (d: string): string => resolve(d);
