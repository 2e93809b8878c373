/**
 * The daemon monitor: what the daemon tells the outside about itself. The daemon (src/cli/run.ts)
 * feeds it events (stream data and status, quote sets, order outcomes, fills) and, once a second,
 * a sample of its state through a read-only `DaemonView`; the monitor turns these into
 *
 *  - the Prometheus metrics (./metrics.ts),
 *  - the health report (./health.ts) that /healthz answers,
 *  - the status snapshot that /api/status and the status page show: markets with book top and
 *    own quotes, inventory, a PnL series over the whole run, recent fills, health, uptime, and what
 *    the risk gate refused or cut by code and the strategy's errors, since the start and over the
 *    last 5 minutes (./recent-counts.ts): a bot whose every quote is refused is healthy (connected,
 *    working), so this is where its author sees it. Its shape and the pure builders of its sections
 *    are in ./status-snapshot.ts; the monitor keeps what is taken in and the series, and assembles.
 *
 * Money and prices stay integers inside; the snapshot carries decimal strings (the wire form).
 * Time comes from the injected clock; `hrtime` (a monotonic ms source, e.g. performance.now) only
 * measures the sub-millisecond part of tick-to-order.
 */
import type { Clock } from '../core/clock.ts';
import type { FillEvent, MmkitEvent, StreamName } from '../core/events.ts';
import type { DesiredQuotes } from '../core/intents.ts';
import type { VenueFill } from '../core/venue.ts';
import { formatAmount, formatPrice } from '../core/units.ts';
import {
  assessHealth,
  type BookHealthInput,
  type HealthReport,
  type Lifecycle,
  type StreamHealthInput,
} from './health.ts';
import type { Metrics, OrderOutcome } from './metrics.ts';
import { byCount, RecentCounts } from './recent-counts.ts';
import type { FleetStatusSection } from './status-fleet.ts';
import { NO_REWARDS, pnlRewardsStatus, rewardSamples } from './status-rewards.ts';
import { RoundTrips, roundTripOp, type RoundTripStatus } from './round-trips.ts';
import { midOfTop, SessionTradeStats, type SessionTradeStatus } from './session-trade-stats.ts';
import { followedMarks } from '../risk/marks.ts';

const NO_MARKS: ReadonlyMap<string, number> = new Map();

export type { FleetStatusSection } from './status-fleet.ts';
export { avgPriceText, rejectionsNotCountedOf } from './status-snapshot.ts';
export type { BookTop, MonitoredMarket, PositionLike } from './status-snapshot.ts';
export type { MarketRewardStatus, RewardsStatus, RewardsView } from './status-rewards.ts';

export type { DaemonIntents, DaemonView, MonitorContext, MonitorOptions, PnlLike } from './status-view.ts';
import { type DaemonView, type MonitorContext, type MonitorOptions, NO_INTENTS } from './status-view.ts';

export type {
  GateStatus,
  StrategyErrorsStatus,
  RejectionsNotCountedStatus,
  PnlPoint,
  FillStatus,
  QuoteStatus,
  TokenStatus,
  MarketStatus,
  LedgerStatus,
  StatusSnapshot,
} from './status-snapshot.ts';
import {
  inventoryStatus,
  marketStatuses,
  type FillStatus,
  type LedgerStatus,
  type MonitoredMarket,
  type PnlPoint,
  type StatusSnapshot,
} from './status-snapshot.ts';

interface StreamState {
  connected: boolean;
  lastDataAt: number;
  reason: string | undefined;
}

interface Pending {
  readonly intentAt: number;
  readonly recvTime: number;
  readonly clockAt: number;
  readonly hr: number;
}

const MARKET_DATA = new Set<MmkitEvent['type']>([
  'book_snapshot',
  'level_change',
  'last_trade',
  'tick_size_change',
  'best_bid_ask',
  'new_market',
  'market_resolved',
]);
const TRIGGERS = new Set<MmkitEvent['type']>([
  'book_snapshot',
  'level_change',
  'last_trade',
  'tick_size_change',
  'best_bid_ask',
]);

/** See the module comment. */
export class DaemonMonitor {
  readonly metrics: Metrics;
  readonly #o: MonitorOptions;
  readonly #clock: Clock;
  readonly #hr: () => number;
  readonly #startedAt: number;
  #ctx: MonitorContext = { markets: [], strategy: { name: '', params: {} }, address: '', venueUrl: '' };
  readonly #tokenInfo = new Map<string, { market: MonitoredMarket; outcome: string }>();
  readonly #streams: Record<'market' | 'user', StreamState> = {
    market: { connected: false, lastDataAt: 0, reason: 'connecting' },
    user: { connected: false, lastDataAt: 0, reason: 'connecting' },
  };
  #lifecycle: Lifecycle = 'starting';
  #runningSince = 0;
  #trigger: { recvTime: number; clockAt: number; hr: number } | undefined;
  readonly #pending = new Map<string, Pending>();
  readonly #recent: FillStatus[] = [];
  readonly #recentCap: number;
  #series: PnlPoint[] = [];
  readonly #seriesCap: number;
  #seriesStride = 1;
  #seriesTick = 0;
  #view: DaemonView | undefined;
  #last: StatusSnapshot | undefined;
  #heartbeatFailed = 0;
  readonly #roundTrips = new RoundTrips();
  /** Markouts, fill ratio and drawdown of the session (as a backtest measures them). */
  readonly #trade: SessionTradeStats;
  #totals: { at: number; value: ReturnType<DaemonView['totals']>; ledger: LedgerStatus | null } | undefined;
  #fleet: (() => FleetStatusSection | undefined) | undefined;
  /** The last 5 minutes of refusals, trims and strategy errors (fed from the totals at each sample). */
  readonly #recentRefused = new RecentCounts();
  readonly #recentTrimmed = new RecentCounts();
  readonly #recentErrors = new RecentCounts();

  constructor(o: MonitorOptions) {
    this.#o = o;
    this.metrics = o.metrics;
    this.#clock = o.clock;
    this.#hr = o.hrtime ?? (() => performance.now());
    this.#startedAt = o.clock.now();
    this.#seriesCap = Math.max(4, o.seriesCapacity ?? 720);
    this.#recentCap = Math.max(1, o.recentFills ?? 50);
    this.#trade = new SessionTradeStats({
      clock: o.clock,
      mid: (t) => midOfTop(this.#view?.book(t)),
      openOrderIds: () => (this.#view?.liveOrders() ?? []).map((x) => x.id),
    });
  }

  /** Stops the markout timers (at shutdown: the markouts still pending are left out, as at a backtest's end). */
  close(): void {
    this.#trade.close();
  }

  /** A fill of the bot's own order backfilled at shutdown (the user channel never delivered it): counted in the fill ratio. */
  backfilledFill(orderId: string): void {
    this.#trade.filledOrder(orderId);
  }

  /**
   * An own fill booked from the venue's trade history while the daemon runs (the position audit's:
   * the user stream had not delivered it): counted in the fills (metrics, recent fills, the store's
   * totals) and the fill ratio as a fill of the stream is, not in the markouts (its time is past).
   */
  onAuditFill(f: VenueFill): void {
    this.#counted(f, f.matchTime, 'reconcile');
    this.#trade.filledOrder(f.orderId);
  }

  /** The session's markouts, fill ratio (of `placed` orders: default, the store's totals last read) and max drawdown. */
  tradeStats(placed = this.#totals?.value.ordersPlaced ?? 0): SessionTradeStatus {
    return this.#trade.status(placed);
  }

  // ---- lifecycle ---------------------------------------------------------------------------------

  get lifecycle(): Lifecycle {
    return this.#lifecycle;
  }

  setLifecycle(l: Lifecycle): void {
    if (l === 'running' && this.#lifecycle !== 'running') this.#runningSince = this.#clock.now();
    this.#lifecycle = l;
  }

  /** The daemon's state, read on every sample, and what it trades (once the engine exists). */
  /** A fleet member: the fleet section of the status (read at each snapshot; keep it cheap). */
  setFleet(fn: () => FleetStatusSection | undefined): void {
    this.#fleet = fn;
  }

  attach(view: DaemonView, ctx: MonitorContext): void {
    this.#view = view;
    this.#ctx = ctx;
    this.metrics.watchIntents(() => view.intents?.());
    this.#tokenInfo.clear();
    for (const m of ctx.markets)
      for (const t of m.tokens) this.#tokenInfo.set(t.tokenId, { market: m, outcome: t.outcome });
    // the names of the others, for the positions held there ("held, not followed": trial 13 F14)
    for (const m of ctx.listed ?? [])
      for (const t of m.tokens)
        if (!this.#tokenInfo.has(t.tokenId)) this.#tokenInfo.set(t.tokenId, { market: m, outcome: t.outcome });
  }

  // ---- events ------------------------------------------------------------------------------------

  /**
   * A market event as the venue delivered it, BEFORE the engine processes it: a data event may
   * cause quotes, and the tick-to-order clock starts at its receive time.
   */
  onMarketFrame(e: MmkitEvent): void {
    if (TRIGGERS.has(e.type)) this.#trigger = { recvTime: e.recvTime, clockAt: this.#clock.now(), hr: this.#hr() };
  }

  /** Every event AFTER the engine processed it (the engine's events$): streams, lag, health. */
  onEvent(e: MmkitEvent): void {
    this.#trigger = undefined;
    switch (e.type) {
      case 'disconnected':
      case 'resynced':
      case 'stream_error': {
        if (e.stream === 'rtds') break;
        const s = this.#streams[e.stream];
        if (e.type === 'disconnected') {
          s.connected = false;
          s.reason = e.reason;
        } else if (e.type === 'resynced') {
          s.connected = true;
          s.reason = undefined;
        }
        this.metrics.streamStatus(e.stream, e.type, e.type === 'resynced' && e.initial);
        break;
      }
      case 'order_update':
      case 'fill':
        this.#data('user', e.recvTime, e.venueTime);
        break;
      default:
        if (MARKET_DATA.has(e.type) && (e.type !== 'level_change' || e.endOfBatch))
          this.#data('market', e.recvTime, e.venueTime);
        else if (MARKET_DATA.has(e.type)) this.#streams.market.lastDataAt = e.recvTime;
    }
  }

  #data(stream: StreamName & ('market' | 'user'), recvTime: number, venueTime: number): void {
    this.#streams[stream].lastDataAt = recvTime;
    this.metrics.streamData(stream, recvTime, venueTime);
  }

  /** A risk-approved quote set handed to execution (wrap the engine's `execute` with this). */
  onQuoteSet(d: DesiredQuotes): void {
    this.metrics.quoteSet(d.market, d.quotes.length);
    const t = this.#trigger;
    if (t !== undefined && d.quotes.length > 0) this.#pending.set(d.market, { intentAt: d.at, ...t });
    else this.#pending.delete(d.market);
  }

  /** The executor hands a place request for `market` to the venue: the tick-to-order clock stops. */
  onPlaceRequest(market: string): void {
    const p = this.#pending.get(market);
    if (p === undefined) return;
    this.#pending.delete(market);
    const queued = Math.max(0, p.clockAt - p.recvTime); // from the frame's receipt to the engine
    this.metrics.tickToOrderMs(queued + (this.#hr() - p.hr));
  }

  /** An execution cycle finished: a reaction that sent no place is not measured. */
  onCycleEnd(market: string, intentAt: number): void {
    const p = this.#pending.get(market);
    if (p !== undefined && p.intentAt === intentAt) this.#pending.delete(market);
  }

  /** Order outcomes (counted in the metrics). */
  onOrders(outcome: OrderOutcome, n = 1): void {
    this.metrics.order(outcome, n);
  }

  /** Post-only quotes the venue refused as crossing (counted in the metrics). */
  onPostOnlyRejected(n = 1): void {
    this.metrics.postOnlyRejected(n);
  }

  /** A request of the order path failed (its error code). */
  onRequestError(code: string): void {
    this.metrics.httpErrors.inc({ code });
  }

  /**
   * An HTTP answer of the venue (the transport's `onAnswer`): an order or cancel request's round trip
   * is kept (status, exit summary) and observed (/metrics); other requests are not.
   */
  onAnswer(e: { readonly api: string; readonly method: string; readonly path: string; readonly ms: number }): void {
    const op = roundTripOp(e.api, e.method, e.path);
    if (op === undefined) return;
    this.#roundTrips.add(op, e.ms);
    this.metrics.orderRoundTripMs(op, e.ms);
  }

  /** The order and cancel round trips measured so far. */
  roundTrips(): RoundTripStatus {
    return this.#roundTrips.status();
  }

  /** A 429 answered a request to this endpoint. */
  onRateLimited(endpoint: string): void {
    this.metrics.rateLimited.inc({ endpoint });
  }

  /** A NEW own fill (after the store recorded it). */
  onFill(f: FillEvent): void {
    this.#counted(f, f.venueTime || f.recvTime, f.source);
    this.#trade.fill(f);
  }

  /** A fill counted in the fills: metrics, recent fills, the store's totals read afresh. */
  #counted(f: Omit<VenueFill, 'tradeId' | 'orderId' | 'fee' | 'matchTime'>, time: number, source: string): void {
    this.#totals = undefined; // the next sample reads the store's counts afresh
    this.metrics.fill({ market: f.market, side: f.side, role: f.role, size: f.size, price: f.price, source });
    const info = this.#tokenInfo.get(f.tokenId);
    this.#recent.unshift({
      time: new Date(time).toISOString(),
      market: f.market,
      question: info?.market.question ?? '',
      outcome: info?.outcome ?? '',
      side: f.side,
      role: f.role,
      price: formatPrice(f.price),
      size: formatAmount(f.size),
      status: f.status,
    });
    if (this.#recent.length > this.#recentCap) this.#recent.length = this.#recentCap;
  }

  /** A heartbeat attempt finished. */
  onHeartbeat(s: { ok: boolean; lastLatencyMs: number; failed: number }): void {
    const newFailures = Math.max(0, s.failed - this.#heartbeatFailed);
    this.#heartbeatFailed = Math.max(this.#heartbeatFailed, s.failed);
    this.metrics.heartbeat({ ok: s.ok, lastLatencyMs: s.lastLatencyMs, newFailures });
  }

  // ---- sampling ----------------------------------------------------------------------------------

  /** The mark of each token with a two-sided book: the mid, rounded to a pip. */
  marks(): Map<string, number> {
    const v = this.#view;
    if (v === undefined) return new Map();
    const venue = v.venueMarks?.() ?? NO_MARKS;
    const { marks, followed } = followedMarks(
      this.#ctx.markets,
      (m) => v.winner?.(m),
      (t) => {
        const b = v.book(t);
        return b !== undefined && b.bestBid !== null && b.bestAsk !== null
          ? Math.round((b.bestBid + b.bestAsk) / 2)
          : undefined;
      },
      venue,
    );
    // a position held on a market not followed: the venue's mark (its current price), when it gives one
    for (const [t, mark] of venue) if (!followed.has(t)) marks.set(t, mark);
    return marks;
  }

  /** Health now. */
  health(): HealthReport {
    const now = this.#clock.now();
    const v = this.#view;
    const books: BookHealthInput[] = [];
    if (v !== undefined)
      for (const m of this.#ctx.markets) {
        const retired = v.isRetired(m.market);
        for (const t of m.tokens)
          books.push({
            market: m.market,
            tokenId: t.tokenId,
            outcome: t.outcome,
            stale: v.book(t.tokenId)?.stale ?? true,
            retired,
          });
      }
    const hb = v?.heartbeat();
    const ks = v?.killSwitch();
    const failing = v?.intents?.().strategyFailing;
    return assessHealth(
      {
        lifecycle: this.#lifecycle,
        runningSince: this.#runningSince,
        market: this.#streamInput('market'),
        // a shadow run has no user channel (its fills are simulated): none, not up (trial 15 F3)
        ...(this.#o.mode === 'shadow' ? {} : { user: this.#streamInput('user') }),
        books,
        heartbeat: {
          consecutiveFailures: hb?.consecutiveFailures ?? 0,
          ...(hb?.error !== undefined ? { error: hb.error } : {}),
        },
        killSwitch: {
          tripped: ks?.tripped ?? false,
          ...(ks?.trigger !== undefined ? { trigger: ks.trigger } : {}),
          ...(ks?.message !== undefined ? { message: ks.message } : {}),
        },
        feedStaleMs: this.#o.feedStaleMs,
        ...(failing !== undefined ? { strategyFailing: failing } : {}),
        ...(v?.pauseReasons().includes('fleet') === true ? { fleetUnreachable: true } : {}),
      },
      now,
    );
  }

  #streamInput(s: 'market' | 'user'): StreamHealthInput {
    const x = this.#streams[s];
    return {
      connected: x.connected,
      lastDataAt: x.lastDataAt,
      ...(x.reason !== undefined ? { reason: x.reason } : {}),
    };
  }

  /**
   * Sample the daemon now: update the metrics, append a PnL point, and build the snapshot (also
   * kept as `last()`). Call once a second. `fresh`: re-read the store's totals now.
   */
  sample(opts: { fresh?: boolean } = {}): StatusSnapshot {
    const now = this.#clock.now();
    const v = this.#view;
    const health = this.health();
    const marks = this.marks();
    const positions = v?.positions() ?? [];
    const pnl = v?.pnl(marks) ?? { realized: 0, unrealized: 0, fees: 0, total: 0, unmarked: [] };
    const rw = v?.rewards?.() ?? NO_REWARDS;
    const rewardsTotal = rw.paid + rw.estimated;
    const total = pnl.total + rewardsTotal;
    this.#trade.pnl(total);
    const collateral = v?.collateral() ?? { available: 0, reserved: 0 };
    const live = v?.liveOrders() ?? [];
    const ks = v?.killSwitch() ?? { tripped: false };
    if (
      v !== undefined &&
      (opts.fresh === true || this.#totals === undefined || now - this.#totals.at >= (this.#o.totalsEveryMs ?? 10_000))
    )
      this.#totals = { at: now, value: v.totals(), ledger: v.ledger?.() ?? null };
    const totals = this.#totals?.value ?? {
      ordersPlaced: 0,
      ordersCancelled: 0,
      ordersRejected: 0,
      fills: 0,
      volume: 0,
      notional: 0,
    };
    const pauses = v?.pauseReasons() ?? [];
    const intents = v?.intents?.() ?? NO_INTENTS;
    this.#recentRefused.observe(intents.refused, now);
    this.#recentTrimmed.observe(intents.trimmed, now);
    this.#recentErrors.observe(new Map([['strategy', intents.strategyErrors]]), now);
    const firstError = intents.firstStrategyError;
    // the bot's own fills of this session (positions also hold external fills, adjustments and
    // earlier sessions'): from the totals, fresh after each fill (the monitor asks for them then)
    const fillCount = totals.fills;
    const volume = totals.volume;
    if (v !== undefined) this.onHeartbeat(v.heartbeat());

    // metrics
    const m = this.metrics;
    m.positions(
      positions.map((p) => ({
        market: p.market,
        tokenId: p.tokenId,
        outcome: this.#tokenInfo.get(p.tokenId)?.outcome ?? '',
        size: p.size,
        avgPrice: p.avgPrice,
        ...(p.avgPriceDecimal !== undefined ? { avgPriceDecimal: p.avgPriceDecimal } : {}),
      })),
    );
    m.pnl({
      realized: pnl.realized,
      unrealized: pnl.unrealized,
      fees: pnl.fees,
      total,
      rewards: { paid: rw.paid, estimated: rw.estimated },
      ...(ks.day !== undefined ? { day: ks.day.pnl } : {}),
    });
    m.rewardsNow(rewardSamples(rw));
    m.collateralNow(collateral.available, collateral.reserved);
    m.openOrders.set(live.length);
    m.health(health, ks.tripped, now - this.#startedAt);

    // the PnL series: every `stride`-th sample; when full, every other point goes and the stride doubles
    const point: PnlPoint = {
      t: now,
      realized: formatAmount(pnl.realized),
      unrealized: formatAmount(pnl.unrealized),
      rewards: formatAmount(rewardsTotal),
      total: formatAmount(total),
    };
    if (this.#seriesTick++ % this.#seriesStride === 0) {
      this.#series.push(point);
      if (this.#series.length > this.#seriesCap) {
        this.#series = this.#series.filter((_, i) => i % 2 === 0);
        this.#seriesStride *= 2;
      }
    }
    const series = this.#series[this.#series.length - 1] === point ? this.#series : [...this.#series, point];

    const fleet = this.#fleet?.();
    const markets = marketStatuses({
      markets: this.#ctx.markets,
      view: v,
      live,
      positions,
      rewards: rw,
      fleet,
      tokenInfo: this.#tokenInfo,
    });
    const snap: StatusSnapshot = {
      schema: 1,
      version: this.#o.version ?? '0.0.0',
      mode: this.#o.mode ?? 'live',
      pid: process.pid,
      now,
      time: new Date(now).toISOString(),
      startedAt: new Date(this.#startedAt).toISOString(),
      uptimeSec: Math.floor((now - this.#startedAt) / 1000),
      lifecycle: this.#lifecycle,
      strategy: { name: this.#ctx.strategy.name, params: this.#ctx.strategy.params },
      account: { address: this.#ctx.address },
      venue: {
        url: this.#ctx.venueUrl,
        ...(this.#ctx.venuePaper !== undefined ? { paper: this.#ctx.venuePaper } : {}),
      },
      health,
      markets,
      inventory: inventoryStatus(collateral, positions, marks, this.#tokenInfo),
      pnl: {
        realized: point.realized,
        unrealized: point.unrealized,
        trading: formatAmount(pnl.realized + pnl.unrealized),
        fees: formatAmount(pnl.fees),
        rewards: pnlRewardsStatus(rw, point.rewards),
        total: point.total,
        unmarked: pnl.unmarked.length,
        day: ks.day !== undefined ? { date: ks.day.date, pnl: formatAmount(ks.day.pnl) } : null,
        series,
      },
      orders: {
        open: live.length,
        placed: totals.ordersPlaced,
        cancelled: totals.ordersCancelled,
        rejected: totals.ordersRejected,
        notCounted: v?.rejectionsNotCounted?.() ?? { sellBalanceRaces: 0, postOnlyCrossings: 0 },
        roundTrips: this.#roundTrips.status(),
      },
      trading: this.#trade.status(totals.ordersPlaced),
      fills: {
        count: fillCount,
        volume: formatAmount(volume),
        notional: formatAmount(totals.notional),
        recent: [...this.#recent],
      },
      ledger: this.#totals?.ledger ?? null,
      killSwitch: { tripped: ks.tripped, trigger: ks.trigger ?? null, message: ks.message ?? null },
      execution: { paused: pauses.length > 0, pauseReasons: [...pauses] },
      gate: {
        windowSec: this.#recentRefused.windowMs / 1000,
        refused: byCount(intents.refused),
        refusedRecent: this.#recentRefused.counts(now),
        trimmed: byCount(intents.trimmed),
        trimmedRecent: this.#recentTrimmed.counts(now),
      },
      strategyErrors: {
        count: intents.strategyErrors,
        recent: this.#recentErrors.counts(now)['strategy'] ?? 0,
        first: firstError === undefined ? null : { message: firstError.message, at: firstError.at ?? null },
      },
      streams: { market: this.#streamInput('market'), user: this.#streamInput('user') },
      ...(fleet !== undefined ? { fleet } : {}),
    };
    this.#last = snap;
    return snap;
  }

  /** The last sample (taking one when there is none yet). */
  last(): StatusSnapshot {
    return this.#last ?? this.sample();
  }

  /** A fresh snapshot with the health re-judged now (lifecycle changes show at once). */
  current(): StatusSnapshot {
    const last = this.last();
    const now = this.#clock.now();
    if (last.lifecycle === this.#lifecycle && now - last.now < 250) return last;
    return {
      ...last,
      now,
      time: new Date(now).toISOString(),
      uptimeSec: Math.floor((now - this.#startedAt) / 1000),
      lifecycle: this.#lifecycle,
      health: this.health(),
    };
  }
}
