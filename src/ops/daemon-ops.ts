/**
 * Everything operational the daemon (src/cli/run.ts) carries, behind one small facade so the
 * daemon's wiring stays readable:
 *
 *   const ops = await startOps({ clock, log, http: cfg.ops, version });   // status server listening
 *   transport budgets = ops.budgets(config)        // 429s counted, budget use on /metrics
 *   venue = ops.instrument(venue)                  // tick-to-order, orders by outcome
 *   ops.attach({ engine, store, tracker, executor, heartbeat, kill, markets, ... })
 *   execute: (d) => { ops.quoteSet(d); executor.submit(d) }     onFill: ops.fill(f)
 *   ops.lifecycle('reconciling' | 'running' | 'stopping')
 *   ops.flattened(report, reason)                  // answers `mmkit kill`, stops sampling
 *   await ops.close()                              // last: the status server stops
 *
 * It owns the metrics registry, the monitor (health, status snapshot, PnL series), the HTTP
 * status server and the record `<dataDir>/daemon.json` ({statusUrl, pid}) through which
 * `mmkit status` and `mmkit kill` in another terminal find a daemon listening on a random port, and
 * the control token: a fresh secret each start, asked of POST /api/kill, written owner-only (0600)
 * to `<dataDir>/control.token` for `mmkit kill`, removed at close, scrubbed from every log line.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { BudgetConfig, BudgetGate } from '../api/http/budgets.ts';
import type { SignerGate } from '../api/http/signer-budget.ts';
import type { Clock, TimerHandle } from '../core/clock.ts';
import { displayAddress } from './address-display.ts';
import { epochVenueShown, publicUrl } from './venue-display.ts';
import { ConfigError } from '../core/errors.ts';
import type { FillEvent } from '../core/events.ts';
import type { TokenId } from '../core/ids.ts';
import type { DesiredQuotes } from '../core/intents.ts';
import type { Engine } from '../engine/loop.ts';
import type { RewardTracker } from '../engine/reward-tracker.ts';
import type { MarketInfo, Venue } from '../core/venue.ts';
import type { Executor } from '../execution/executor.ts';
import type { HeartbeatKeeper } from '../execution/heartbeat.ts';
import type { OrderTracker } from '../execution/tracker.ts';
import type { TraderCounters } from '../kernel/types.ts';
import type { KillSwitch } from '../risk/kill-switch.ts';
import type { Store } from '../store/store.ts';
import type { Lifecycle } from './health.ts';
import { instrumentVenue, ObservedBudgets } from './instrument.ts';
import { gateCountsOf, Metrics } from './metrics.ts';
import { DaemonMonitor, rejectionsNotCountedOf, type DaemonView, type PositionLike } from './status.ts';
import { STATUS_PAGE_HTML } from './status-page.ts';
import { startStatusServer, type KillResult, type StatusServer } from './status-server.ts';
import { PACKAGE_ROOT_URL } from '../core/package-root.ts';
import {
  CONTROL_TOKEN_FILE,
  DAEMON_FILE,
  newControlToken,
  readDaemonFile,
  removeControlToken,
  removeDaemonFile,
  writeControlToken,
} from './daemon-file.ts';
import { registerSecret } from '../core/secrets.ts';

export { CONTROL_TOKEN_FILE, DAEMON_FILE, readDaemonFile };

/** The `ops.*` configuration. */
export interface OpsHttpConfig {
  /** 0 picks a free port. */
  readonly httpPort: number;
  readonly httpHost: string;
  /**
   * Host names the status server answers besides loopback and its bound address (`ops.allowedHosts`):
   * `name` with any port, `name:port` that port only (src/ops/allowed-hosts.ts).
   */
  readonly allowedHosts?: readonly string[];
  /** Market data silence after which /healthz says feed_stale, ms (0: off). Default 15,000. */
  readonly feedStaleMs?: number;
}

/** Options of `startOps`. */
export interface OpsOptions {
  readonly clock: Clock;
  readonly log: Logger;
  /** The status server's address; undefined: no server (metrics and health still kept). */
  readonly http?: OpsHttpConfig;
  /** Where daemon.json (the status URL for other terminals) and control.token (owner-only) are written. */
  readonly dataDir?: string;
  readonly version?: string;
  /**
   * 'shadow' (`mmkit run --shadow`): simulated fills on live books, nothing sent to the venue; said
   * on /api/status (`mode`), the status page and /metrics (`mmkit_info{mode="shadow"}`). Default 'live'.
   */
  readonly mode?: 'live' | 'shadow';
  /** A fleet member's ops: a kill's answer says its flat check counts this member's orders only. */
  readonly fleet?: boolean;
  /** Sampling period of status and metrics, ms (default 1000). */
  readonly sampleMs?: number;
}

/** The parts of the running daemon the ops read (read-only) or subscribe to. */
export interface DaemonParts {
  readonly engine: Engine;
  readonly store: Store;
  readonly tracker: OrderTracker;
  readonly executor: Executor;
  readonly heartbeat: HeartbeatKeeper;
  readonly kill: KillSwitch;
  readonly markets: readonly MarketInfo[];
  /**
   * The venue's listing at start (optional): names the positions held in markets the daemon does
   * not follow in the status (trial 13 F14: shown by ids only).
   */
  readonly listed?: readonly MarketInfo[];
  readonly strategy: { readonly name: string; readonly params: Record<string, unknown> };
  readonly address: string;
  readonly venueUrl: string;
  /** Whether the venue is a paper exchange (shown on /api/status as `venue.paper`); absent: not said. */
  readonly venuePaper?: boolean;
  /** The kernel's intent-path counters (createTrader's `counters`): the gate's refusals and trims by code; absent: none. */
  readonly counters?: Pick<TraderCounters, 'quotesRefused' | 'quotesTrimmed' | 'ordersRefusedByCode'>;
  /** The kernel's reward tracker (the estimate of each rewarded market's last sample); absent: none. */
  readonly rewards?: Pick<RewardTracker, 'snapshot'>;
  /** The venue's share of each rewarded market's running epoch (0..1, lower-case ids), as last read; absent: none. */
  readonly venueRewardShares?: () => ReadonlyMap<string, number> | undefined;
  /** The venue's marks of the tokens held (Trader.venueMarks): a position on a market not followed is marked at it. */
  readonly venueMarks?: () => ReadonlyMap<string, number>;
}

const NONE: ReadonlyMap<string, number> = new Map();

// (moved to ./venue-display.ts, a light module the CLI's exit summary imports; re-exported here)
export { epochVenueShown, publicUrl };

/**
 * The store's positions, each with its average price at the venue's 6 decimals, exact from the
 * store's integers (what `mmkit positions` prints): /api/status shows the same figure.
 */
export function positionsWithDecimals(store: Pick<Store, 'positions' | 'positionDecimals'>): PositionLike[] {
  const avg = new Map(store.positionDecimals().map((d) => [d.tokenId, d.avgPrice]));
  return store.positions().map((x) => {
    const d = avg.get(x.tokenId);
    return d !== undefined ? { ...x, avgPriceDecimal: d } : x;
  });
}

/** The daemon's operational side (see the module comment). */
export class DaemonOps {
  readonly metrics: Metrics;
  readonly monitor: DaemonMonitor;
  readonly #o: OpsOptions;
  #server: StatusServer | undefined;
  #budgets: ObservedBudgets | undefined;
  #sampler: TimerHandle | undefined;
  #kill: KillSwitch | undefined;
  #flat: KillResult | undefined;
  readonly #waiters: Array<(r: KillResult) => void> = [];
  readonly #unsubscribe: Array<() => void> = [];
  #closed: Promise<void> | undefined;
  /** The secret of the status server's control routes (never logged: registered for scrubbing). */
  readonly #token = newControlToken();
  #tokenWritten = false;
  /** The status server's lines (its URL, the files for `mmkit status` and `mmkit kill`, the samples). */
  readonly #log: Logger;

  constructor(o: OpsOptions) {
    this.#o = o;
    this.#log = o.log.child({ component: 'status-server' });
    this.metrics = new Metrics({
      now: () => o.clock.now(),
      info: { version: o.version ?? '0.0.0', ...(o.mode === 'shadow' ? { mode: 'shadow' } : {}) },
    });
    this.monitor = new DaemonMonitor({
      clock: o.clock,
      metrics: this.metrics,
      feedStaleMs: o.http?.feedStaleMs ?? 15_000,
      ...(o.version !== undefined ? { version: o.version } : {}),
      ...(o.mode !== undefined ? { mode: o.mode } : {}),
    });
  }

  /** The status server's base URL (undefined without a server). */
  get url(): string | undefined {
    return this.#server?.url;
  }

  /**
   * Start the status server (when configured) and the sampler. The server answers from now on:
   * /healthz says 503 `starting` until the daemon is running.
   * @throws ConfigError (ops.httpPort) when the address cannot be bound.
   */
  async start(): Promise<void> {
    const h = this.#o.http;
    if (h !== undefined) {
      registerSecret(this.#token);
      try {
        this.#server = await startStatusServer({
          host: h.httpHost,
          port: h.httpPort,
          page: STATUS_PAGE_HTML,
          controlToken: this.#token,
          ...(h.allowedHosts !== undefined ? { allowedHosts: h.allowedHosts } : {}),
          status: () => this.monitor.current(),
          health: () => this.monitor.health(),
          metrics: () => this.metrics.render(),
          metricsContentType: this.metrics.contentType,
          kill: (reason) => this.kill(reason),
          clock: this.#o.clock,
          logger: this.#log,
        });
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        throw new ConfigError(
          'ops.httpPort',
          `cannot listen on ${h.httpHost}:${h.httpPort}${code === 'EADDRINUSE' ? ' (in use: another mmkit daemon? pick another port with --http-port, or 0 for a free one)' : code ? ` (${code})` : ''}`,
        );
      }
      this.#log.info(
        { url: this.#server.url, metrics: `${this.#server.url}/metrics`, health: `${this.#server.url}/healthz` },
        `status page on ${this.#server.url}`,
      );
      if (this.#o.dataDir !== undefined) {
        // the control token first (owner-only): a reader that finds daemon.json finds the token too
        try {
          writeControlToken(this.#o.dataDir, this.#token);
          this.#tokenWritten = true;
        } catch (e) {
          this.#log.warn(
            { err: (e as Error).message },
            `could not write ${CONTROL_TOKEN_FILE}: \`mmkit kill\` needs --token (the status page's button still works)`,
          );
        }
        try {
          // written whole, then renamed: a reader (`mmkit status`, `mmkit kill`) never sees half a file
          const f = join(this.#o.dataDir, DAEMON_FILE);
          writeFileSync(
            `${f}.${process.pid}.tmp`,
            JSON.stringify({ statusUrl: this.#server.url, pid: process.pid }) + '\n',
          );
          renameSync(`${f}.${process.pid}.tmp`, f);
        } catch (e) {
          this.#log.warn({ err: (e as Error).message }, `could not write ${DAEMON_FILE}`);
        }
      }
    }
    this.#sampler = this.#o.clock.setInterval(() => this.#sample(), this.#o.sampleMs ?? 1000);
  }

  #sample(fresh = false): void {
    try {
      this.monitor.sample({ fresh });
    } catch (e) {
      this.#log.warn({ err: (e as Error).message }, 'status sample failed');
    }
  }

  /**
   * The transport's request budgets, with 429s counted and their use on /metrics; `opts.gate`: a
   * fleet's shared windows (src/fleet/shared-budgets.ts) in place of the local ones.
   */
  budgets(config: BudgetConfig = {}, opts: { gate?: BudgetGate; signer?: SignerGate } = {}): ObservedBudgets {
    const b = new ObservedBudgets(config, this.#o.clock, (endpoint) => this.monitor.onRateLimited(endpoint), opts);
    this.#budgets = b;
    this.metrics.watchBudgets(() => b.stats());
    return b;
  }

  /**
   * The transport's `onAnswer`: order and cancel round trips kept for the status and the exit
   * summary, and observed on /metrics (pass it to createLiveVenue).
   */
  readonly onAnswer = (e: { api: string; method: string; path: string; status: number; ms: number }): void =>
    this.monitor.onAnswer(e);

  /** The venue, observed: market frames (tick-to-order starts), place requests (it stops), outcomes. */
  instrument<V extends Venue>(venue: V): V {
    return instrumentVenue(venue, this.monitor);
  }

  /** Hook the running daemon's parts (once the engine exists). */
  attach(p: DaemonParts): void {
    this.#kill = p.kill;
    this.metrics.strategy(p.strategy.name);
    this.metrics.watchStoreFile(p.store.file);
    const state = p.engine.state;
    const view: DaemonView = {
      book: (t) => state.book(t as TokenId),
      whyNotQuotable: (m) =>
        p.engine.pulled().has(m as never) || !state.quotable(m as never)
          ? (state.whyNotQuotable(m as never) ?? (p.engine.ready ? 'pulled' : 'not quoting yet'))
          : // (its quotes pulled while the strategy errs on it: not quoting, trial 23 F3)
            p.engine.stats().strategyFailing?.markets.includes(m as never) === true
            ? 'strategy failing'
            : undefined,
      isRetired: (m) => state.isResolved(m as never),
      winner: (m) => state.winner(m as never),
      liveOrders: () => p.tracker.liveOrders(),
      positions: () => positionsWithDecimals(p.store),
      pnl: (marks) => p.store.pnl(marks as ReadonlyMap<TokenId, number>),
      venueMarks: () => p.venueMarks?.() ?? NONE,
      collateral: () => ({ available: state.availableCollateral, reserved: state.reservedCollateral }),
      heartbeat: () => p.heartbeat.status(),
      killSwitch: () => {
        const r = p.kill.reason;
        const day = p.kill.dailyPnl;
        return {
          ...(r === null ? { tripped: false } : { tripped: true, trigger: r.trigger, message: r.message, at: r.at }),
          ...(day !== undefined ? { day: { date: day.date, pnl: Math.round(day.pnl) } } : {}),
        };
      },
      // this session's figures when the daemon began one (src/cli/run.ts), else the epoch's
      totals: () => p.store.summary(p.store.currentSession() !== undefined ? { scope: 'session' } : {}),
      ledger: () => {
        const sess = p.store.currentSession();
        const e = p.store.currentEpoch();
        const s = sess !== undefined ? p.store.summary({ scope: 'session' }) : undefined;
        const ep = e !== undefined ? p.store.summary({ scope: 'epoch' }) : undefined;
        return {
          session: {
            since: new Date(sess?.startedAt ?? 0).toISOString(),
            fills: s?.fills ?? 0,
            externalFills: s?.externalFills ?? 0,
            ordersPlaced: s?.ordersPlaced ?? 0,
          },
          epoch:
            e === undefined || ep === undefined
              ? null
              : {
                  id: e.id,
                  venue: epochVenueShown(e.venue),
                  world: e.world,
                  since: new Date(e.startedAt).toISOString(),
                  fills: ep.fills,
                  externalFills: ep.externalFills,
                  adjustments: ep.adjustments,
                  operations: ep.operations,
                },
        };
      },
      rejectionsNotCounted: () => rejectionsNotCountedOf(p.executor.accountStats()),
      pauseReasons: () => p.executor.stats().pauseReasons,
      intents: () => {
        const e = p.engine.stats();
        return {
          ...(p.counters !== undefined ? gateCountsOf(p.counters) : { refused: NONE, trimmed: NONE }),
          strategyErrors: e.errors.strategy,
          ...(e.firstStrategyError !== undefined ? { firstStrategyError: e.firstStrategyError } : {}),
          ...(e.strategyFailing !== undefined ? { strategyFailing: e.strategyFailing } : {}),
        };
      },
      rewards: () => {
        const t = p.store.rewardTotals();
        return {
          paid: t.paid,
          estimated: t.estimated,
          byMarket: t.byMarket,
          live: p.rewards?.snapshot() ?? [],
          ...(() => {
            const v = p.venueRewardShares?.();
            return v !== undefined ? { venueShares: v } : {};
          })(),
        };
      },
    };
    this.monitor.attach(view, {
      markets: p.markets,
      ...(p.listed !== undefined ? { listed: p.listed } : {}),
      strategy: p.strategy,
      address: displayAddress(p.address),
      venueUrl: publicUrl(p.venueUrl),
      ...(p.venuePaper !== undefined ? { venuePaper: p.venuePaper } : {}),
    });
    const sub = p.engine.events$.subscribe((e) => this.monitor.onEvent(e));
    this.#unsubscribe.push(() => sub.unsubscribe());
    this.#unsubscribe.push(p.executor.onCycle((c) => this.monitor.onCycleEnd(c.market, c.intentAt)));
    this.#unsubscribe.push(p.heartbeat.onStatus((s) => this.monitor.onHeartbeat(s)));
  }

  /** A risk-approved quote set about to be handed to execution. */
  quoteSet(d: DesiredQuotes): void {
    this.monitor.onQuoteSet(d);
  }

  /** A new own fill (already in the store). */
  fill(f: FillEvent): void {
    this.monitor.onFill(f);
  }

  /** A position adjusted to the venue's holdings (already in the store). */
  positionAdjusted(cause: string): void {
    this.metrics.positionAdjustments.inc({ cause });
  }

  lifecycle(l: Lifecycle): void {
    this.monitor.setLifecycle(l);
    this.#server?.push();
  }

  /**
   * Trip the kill switch (trigger 'cli') and resolve once the daemon reported the result of its
   * flat check (`flattened`). Used by POST /api/kill.
   */
  kill(reason: string): Promise<KillResult> {
    if (this.#flat !== undefined) return Promise.resolve(this.#flat);
    if (this.#kill === undefined)
      return Promise.reject(new Error('the daemon is still starting: no kill switch yet (send SIGTERM to stop it)'));
    const p = new Promise<KillResult>((resolve) => this.#waiters.push(resolve));
    this.#kill.trip('cli', reason);
    return p;
  }

  /**
   * The shutdown's flat check is done: answer the kill requests waiting, take a last sample and
   * stop sampling (the store closes next). Idempotent.
   */
  flattened(r: { flat: boolean; open: readonly unknown[] }, reason: string): void {
    if (this.#flat !== undefined) return;
    this.#sample(true);
    if (this.#sampler !== undefined) this.#o.clock.clearInterval(this.#sampler);
    this.#sampler = undefined;
    // not flat with nothing listed: the venue could not be checked (-1, as when the daemon stopped before verifying)
    this.#flat = {
      flat: r.flat,
      openOrders: r.flat ? 0 : r.open.length > 0 ? r.open.length : -1,
      reason,
      ...this.#shadow(),
      ...(this.#o.fleet === true ? { fleet: true as const } : {}),
    };
    for (const w of this.#waiters.splice(0)) w(this.#flat);
    this.#server?.push();
  }

  /** `mode: 'shadow'` in a kill's answer of a shadow daemon (its orders were simulated). */
  #shadow(): { mode?: 'shadow' } {
    return this.#o.mode === 'shadow' ? { mode: 'shadow' } : {};
  }

  /** Stop everything (last, after the venue closed). Idempotent. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.monitor.setLifecycle('stopped');
      this.monitor.close();
      if (this.#sampler !== undefined) this.#o.clock.clearInterval(this.#sampler);
      this.#sampler = undefined;
      for (const u of this.#unsubscribe.splice(0)) u();
      if (this.#flat === undefined) {
        const r: KillResult = {
          flat: false,
          openOrders: -1,
          reason: 'the daemon stopped before verifying',
          ...this.#shadow(),
        };
        for (const w of this.#waiters.splice(0)) w(r);
      }
      await this.#server?.close();
      const dir = this.#o.dataDir;
      if (dir !== undefined && this.#server !== undefined) removeDaemonFile(dir);
      if (dir !== undefined && this.#tokenWritten) removeControlToken(dir, this.#token);
      await this.#budgets?.stop();
    })();
    return this.#closed;
  }
}

/**
 * Create the daemon's ops and start its status server.
 * @throws ConfigError (ops.httpPort) when the address cannot be bound.
 */
export async function startOps(o: OpsOptions): Promise<DaemonOps> {
  const ops = new DaemonOps(o);
  await ops.start();
  return ops;
}

/** mmkit's version (package.json), shown on /api/status and as a label of `mmkit_info`. */
export const MMKIT_VERSION: string = (() => {
  try {
    return (
      (JSON.parse(readFileSync(new URL('package.json', PACKAGE_ROOT_URL), 'utf8')) as { version?: string }).version ??
      '0.0.0'
    );
  } catch {
    return '0.0.0';
  }
})();
