/**
 * The daemon's Prometheus metrics (prom-client), every name prefixed `mmkit_`, on its own registry
 * (never prom-client's global one, so tests and several daemons in one process do not collide).
 *
 * Recording methods take the core's integer units (prices in pips, sizes in micro-shares, money in
 * micro-collateral) and convert once, here, at the edge: Prometheus samples are float64, so a
 * metric is the decimal value (0.45, 12.5 shares, -3.2 USDC). Values that are cheaper to read than
 * to push (request budgets, the age of the last market data) are read at scrape time through
 * `collect` callbacks. Nothing here reads the wall clock: `now` is injected.
 *
 * The event-loop lag comes from prom-client's default metrics (monitorEventLoopDelay), prefixed
 * too: `mmkit_nodejs_eventloop_lag_seconds`, `..._p50_seconds`, `..._p99_seconds`, and the process
 * metrics (`mmkit_process_cpu_seconds_total`, `mmkit_process_resident_memory_bytes`, ...).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { BudgetStats } from '../api/http/budgets.ts';
import type { StreamName } from '../core/events.ts';
import { AMOUNT_SCALE, PRICE_SCALE, notional } from '../core/units.ts';
import { storeFileBytes } from '../store/file-size.ts';
import type { HealthReport } from './health.ts';

/** Every metric name starts with this. */
export const METRIC_PREFIX = 'mmkit_';

export type {
  IntentCounts,
  MetricsOptions,
  OrderOutcome,
  PnlSample,
  PositionSample,
  RewardSample,
} from './metrics-types.ts';
export { ORDER_OUTCOMES, ROUND_TRIP_BUCKETS, STREAM_LAG_BUCKETS, TICK_TO_ORDER_BUCKETS } from './metrics-types.ts';
import type {
  IntentCounts,
  MetricsOptions,
  OrderOutcome,
  PnlSample,
  PositionSample,
  RewardSample,
} from './metrics-types.ts';
import { ORDER_OUTCOMES, ROUND_TRIP_BUCKETS, STREAM_LAG_BUCKETS, TICK_TO_ORDER_BUCKETS } from './metrics-types.ts';

const usdc = (micro: number): number => micro / AMOUNT_SCALE;
const shares = (micro: number): number => micro / AMOUNT_SCALE;
const price = (pips: number): number => pips / PRICE_SCALE;

export { gateCountsOf } from './gate-counts.ts';

/** The registry and every mmkit metric (see the module comment and the README's list). */
export class Metrics {
  readonly registry: Registry;
  readonly #now: () => number;
  readonly #lastData = new Map<StreamName, number>();
  #budgets: (() => BudgetStats | undefined) | undefined;
  #intents: (() => IntentCounts | undefined) | undefined;
  #storeFile: string | undefined;
  #member: string | undefined;
  readonly #infoLabels: Record<string, string>;
  /** Per market, micro-shares and micro-collateral filled: integers, exact (exported as decimals at scrape). */
  readonly #volumeMicro = new Map<string, number>();
  readonly #notionalMicro = new Map<string, number>();

  readonly info: Gauge<string>;
  readonly quotes: Counter<'market'>;
  readonly quoteSets: Counter<'market' | 'kind'>;
  readonly orders: Counter<'outcome'>;
  readonly postOnlyRejections: Counter;
  readonly riskRefusals: Counter<'code'>;
  readonly riskTrims: Counter<'code'>;
  readonly strategyErrors: Counter;
  readonly fills: Counter<'market' | 'side' | 'role'>;
  readonly externalFills: Counter<'market'>;
  readonly fillsRecovered: Counter<'market'>;
  readonly volume: Counter<'market'>;
  readonly notional: Counter<'market'>;
  readonly position: Gauge<'market' | 'token' | 'outcome'>;
  readonly positionAvgPrice: Gauge<'market' | 'token' | 'outcome'>;
  readonly pnlRealized: Gauge;
  readonly pnlUnrealized: Gauge;
  readonly pnlFees: Gauge;
  readonly pnlTotal: Gauge;
  readonly pnlTrading: Gauge;
  readonly pnlDay: Gauge;
  readonly pnlRewards: Gauge<'state'>;
  readonly rewards: Gauge<'market' | 'state'>;
  readonly rewardShare: Gauge<'market'>;
  readonly rewardDaily: Gauge<'market'>;
  readonly collateral: Gauge<'state'>;
  readonly openOrders: Gauge;
  readonly storeSize: Gauge;
  readonly budgetUsed: Gauge<'rule'>;
  readonly budgetLimit: Gauge<'rule'>;
  readonly budgetUtilization: Gauge<'rule'>;
  readonly budgetWaiting: Gauge<'rule'>;
  readonly budgetPaused: Gauge<'rule'>;
  readonly endpointQueued: Gauge<'endpoint'>;
  readonly rateLimited: Counter<'endpoint'>;
  readonly httpErrors: Counter<'code'>;
  readonly streamLag: Histogram<'stream'>;
  readonly streamUp: Gauge<'stream'>;
  readonly streamDisconnects: Counter<'stream'>;
  readonly streamReconnects: Counter<'stream'>;
  readonly streamErrors: Counter<'stream'>;
  readonly streamDataAge: Gauge<'stream'>;
  readonly tickToOrder: Histogram;
  /** Order and cancel requests' round trips to the venue (src/ops/round-trips.ts). */
  readonly orderRoundTrip: Histogram<'op'>;
  readonly heartbeatOk: Gauge;
  readonly heartbeatFailures: Counter;
  /** Position reconciliation: adjustments of the ledger to the venue's holdings, by cause. */
  readonly positionAdjustments: Counter<'cause'>;
  readonly heartbeatLatency: Gauge;
  readonly killSwitch: Gauge;
  readonly healthy: Gauge;
  readonly healthReason: Gauge<'code'>;
  readonly uptime: Gauge;

  constructor(o: MetricsOptions) {
    this.#now = o.now;
    const r = new Registry();
    this.registry = r;
    const registers = [r];
    const n = (s: string) => `${METRIC_PREFIX}${s}`;
    const self = this;
    this.#infoLabels = { ...(o.info ?? {}) };
    this.info = new Gauge({
      name: n('info'),
      help: 'Constant 1, labelled with the version and the strategy (its name, once the daemon runs one).',
      labelNames: [...new Set([...Object.keys(this.#infoLabels), 'strategy'])],
      registers,
    });
    this.info.set(this.#infoLabels, 1);
    this.quotes = new Counter({
      name: n('quotes_submitted_total'),
      help: 'Quotes (side, price, size) in risk-approved quote sets handed to execution.',
      labelNames: ['market'],
      registers,
    });
    this.quoteSets = new Counter({
      name: n('quote_sets_total'),
      help: 'Quote sets handed to execution: kind=quote (non-empty) or pull (empty: cancel the market).',
      labelNames: ['market', 'kind'],
      registers,
    });
    this.orders = new Counter({
      name: n('orders_total'),
      help: 'Orders by outcome: placed (sent), live, matched, delayed, unmatched (accepted with that status), rejected, unknown, failed (request failed), cancelled.',
      labelNames: ['outcome'],
      registers,
    });
    for (const x of ORDER_OUTCOMES) this.orders.inc({ outcome: x }, 0);
    this.postOnlyRejections = new Counter({
      name: n('post_only_rejections_total'),
      help: 'Post-only quotes the venue refused because they would have crossed (INVALID_POST_ONLY_ORDER): re-priced at the next intent, not counted by the kill switch. Also counted in orders_total{outcome="rejected"}.',
      registers,
    });
    // the kernel counts these (an increment per refusal, nothing per approved intent): read at scrape
    const byCode = (pick: (c: IntentCounts) => ReadonlyMap<string, number>) =>
      function (this: Counter<'code'>): void {
        const c = self.#intents?.();
        if (c === undefined) return;
        this.reset();
        for (const [code, v] of pick(c)) this.inc({ code }, v);
      };
    this.riskRefusals = new Counter({
      name: n('risk_refusals_total'),
      help: "Quotes and immediate orders the risk gate refused (never sent), by the refusal's code (OFF_TICK, PRICE_BAND, STALE_BOOK, ...).",
      labelNames: ['code'],
      registers,
      collect: byCode((c) => c.refused),
    });
    this.riskTrims = new Counter({
      name: n('risk_trims_total'),
      help: 'Quotes the risk gate approved with a smaller size (LOT, POSITION, COLLATERAL, ...), by the code of the limit that cut them.',
      labelNames: ['code'],
      registers,
      collect: byCode((c) => c.trimmed),
    });
    this.strategyErrors = new Counter({
      name: n('strategy_errors_total'),
      help: 'Errors the engine counted against the strategy (a handler that threw or returned an invalid output: its output dropped).',
      registers,
      collect() {
        const c = self.#intents?.();
        if (c === undefined) return;
        this.reset();
        this.inc(c.strategyErrors);
      },
    });
    this.externalFills = new Counter({
      name: n('external_fills_total'),
      help: 'Fills of orders the bot did not place (another client on the same wallet), recorded with source external (each (trade, order) pair once). Not in fills_total.',
      labelNames: ['market'],
      registers,
    });
    this.fills = new Counter({
      name: n('fills_total'),
      help: 'Own fills (each (trade, order) pair once).',
      labelNames: ['market', 'side', 'role'],
      registers,
    });
    this.fillsRecovered = new Counter({
      name: n('fills_recovered_total'),
      help: 'Own fills the user channel did not deliver, found over REST (a reconciliation after a reconnect, or the periodic audit). Also counted in fills_total.',
      labelNames: ['market'],
      registers,
    });
    // summed as integers (micro), exported exactly at scrape: float increments would drift (105.65000000000002)
    const exact = (totals: Map<string, number>) =>
      function (this: Counter<'market'>): void {
        this.reset();
        for (const [market, micro] of totals) this.inc({ market }, micro / AMOUNT_SCALE);
      };
    this.volume = new Counter({
      name: n('fill_volume_shares_total'),
      help: 'Shares filled.',
      labelNames: ['market'],
      registers,
      collect: exact(this.#volumeMicro),
    });
    this.notional = new Counter({
      name: n('fill_notional_usdc_total'),
      help: 'Collateral traded in fills (size x price, rounded down to the micro-unit), USDC.',
      labelNames: ['market'],
      registers,
      collect: exact(this.#notionalMicro),
    });
    this.position = new Gauge({
      name: n('position_shares'),
      help: 'Position per token, shares (negative: short).',
      labelNames: ['market', 'token', 'outcome'],
      registers,
    });
    this.positionAvgPrice = new Gauge({
      name: n('position_avg_price'),
      help: 'Average entry price of the open position per token (0 when flat).',
      labelNames: ['market', 'token', 'outcome'],
      registers,
    });
    this.pnlRealized = new Gauge({ name: n('pnl_realized_usdc'), help: 'Realized PnL before fees, USDC.', registers });
    this.pnlUnrealized = new Gauge({
      name: n('pnl_unrealized_usdc'),
      help: 'Unrealized PnL of open positions at the book mids, USDC.',
      registers,
    });
    this.pnlFees = new Gauge({ name: n('pnl_fees_usdc'), help: 'Fees paid, USDC.', registers });
    this.pnlTotal = new Gauge({
      name: n('pnl_total_usdc'),
      help: 'Trading (realized + unrealized) - fees + liquidity rewards (paid and estimated), USDC.',
      registers,
    });
    this.pnlTrading = new Gauge({
      name: n('pnl_trading_usdc'),
      help: 'Trading PnL before fees (realized + unrealized), USDC.',
      registers,
    });
    this.pnlDay = new Gauge({
      name: n('pnl_day_usdc'),
      help: "The UTC day's PnL net of fees the daily loss limit judges (now less at the day's open), USDC (0 without risk.maxDailyLoss or before the day opened).",
      registers,
    });
    this.pnlRewards = new Gauge({
      name: n('pnl_rewards_usdc'),
      help: "Liquidity rewards of the ledger epoch, USDC: state=paid (credited by the venue) or estimated (the bot's estimate of the dates not paid yet).",
      labelNames: ['state'],
      registers,
    });
    this.rewards = new Gauge({
      name: n('rewards_usdc'),
      help: "Liquidity rewards per market of the ledger epoch, USDC: state=paid (credited by the venue, from its earnings per UTC date) or estimated (the bot's estimate from its own quotes' score, for the dates the venue has not paid yet).",
      labelNames: ['market', 'state'],
      registers,
    });
    this.rewardShare = new Gauge({
      name: n('reward_share'),
      help: "Our quotes' share (0..1) of a rewarded market's last reward sample, against the book's competition.",
      labelNames: ['market'],
      registers,
    });
    this.rewardDaily = new Gauge({
      name: n('reward_daily_estimate_usdc'),
      help: 'The reward per day our quotes of the last sample would earn if they held all day, USDC.',
      labelNames: ['market'],
      registers,
    });
    this.collateral = new Gauge({
      name: n('collateral_usdc'),
      help: 'Collateral at the venue: state=available or reserved (by open orders), USDC.',
      labelNames: ['state'],
      registers,
    });
    this.openOrders = new Gauge({
      name: n('open_orders'),
      help: 'Own orders resting or possibly resting (live, partly filled, unknown).',
      registers,
    });
    this.storeSize = new Gauge({
      name: n('store_size_bytes'),
      help: "The SQLite store's size on disk: its file and its write-ahead log (`mmkit store archive` keeps it bounded).",
      registers,
      collect() {
        const f = self.#storeFile;
        if (f === undefined) return;
        this.set(storeFileBytes(f));
      },
    });

    const budgets = () => this.#budgets?.();
    this.budgetUsed = new Gauge({
      name: n('budget_used'),
      help: 'Request budget slots counted now per rate-limit rule (stamped in the window + in flight).',
      labelNames: ['rule'],
      registers,
      collect() {
        self.#collectBudgets(budgets());
      },
    });
    this.budgetLimit = new Gauge({
      name: n('budget_limit'),
      help: 'Request budget per rule: requests allowed per window (possibly learned from a 429).',
      labelNames: ['rule'],
      registers,
    });
    this.budgetUtilization = new Gauge({
      name: n('budget_utilization_ratio'),
      help: 'budget_used / budget_limit per rule (1: the next request waits).',
      labelNames: ['rule'],
      registers,
    });
    this.budgetWaiting = new Gauge({
      name: n('budget_waiting'),
      help: 'Requests waiting at the budget gate per rule.',
      labelNames: ['rule'],
      registers,
    });
    this.budgetPaused = new Gauge({
      name: n('budget_paused'),
      help: '1 while a rule is paused after a 429 until its reset.',
      labelNames: ['rule'],
      registers,
    });
    this.endpointQueued = new Gauge({
      name: n('budget_endpoint_queued'),
      help: 'Requests queued per endpoint (method and path, ids folded) before the budget gate.',
      labelNames: ['endpoint'],
      registers,
    });
    this.rateLimited = new Counter({
      name: n('http_rate_limited_total'),
      help: 'HTTP 429 answers from the venue, per endpoint.',
      labelNames: ['endpoint'],
      registers,
    });
    this.httpErrors = new Counter({
      name: n('venue_request_errors_total'),
      help: 'Venue requests of the order path that failed, per error code (NETWORK, SERVICE_UNAVAILABLE, TIMEOUT, RATE_LIMITED, FLEET_BUDGET_UNAVAILABLE, ...).',
      labelNames: ['code'],
      registers,
    });
    this.streamLag = new Histogram({
      name: n('stream_lag_seconds'),
      help: 'Receive time minus venue time of stream data events, seconds.',
      labelNames: ['stream'],
      buckets: STREAM_LAG_BUCKETS,
      registers,
    });
    this.streamUp = new Gauge({
      name: n('stream_up'),
      help: '1 while the stream is in sync (after resynced), 0 after disconnected.',
      labelNames: ['stream'],
      registers,
    });
    this.streamDisconnects = new Counter({
      name: n('stream_disconnects_total'),
      help: 'Stream disconnections (socket closed, silence, errors).',
      labelNames: ['stream'],
      registers,
    });
    this.streamReconnects = new Counter({
      name: n('stream_reconnects_total'),
      help: 'Stream resyncs after a disconnection (not the first sync).',
      labelNames: ['stream'],
      registers,
    });
    this.streamErrors = new Counter({
      name: n('stream_errors_total'),
      help: 'Frames or records a stream refused, and errors the venue sent.',
      labelNames: ['stream'],
      registers,
    });
    this.streamDataAge = new Gauge({
      name: n('stream_last_data_age_seconds'),
      help: 'Seconds since the last data event of the stream.',
      labelNames: ['stream'],
      registers,
      collect() {
        const now = self.#now();
        for (const [s, at] of self.#lastData) this.set({ stream: s }, Math.max(0, now - at) / 1000);
      },
    });
    this.tickToOrder = new Histogram({
      name: n('tick_to_order_seconds'),
      help: 'From a market frame received (its recvTime) to the order request handed to the venue, for quotes that frame caused, seconds.',
      buckets: TICK_TO_ORDER_BUCKETS,
      registers,
    });
    this.orderRoundTrip = new Histogram({
      name: n('order_round_trip_seconds'),
      help: "Order requests' round trips to the venue, op=place (POST /order, /orders) or cancel (DELETE /order, /orders, /cancel-all, /cancel-market-orders): from the request leaving (its budget admitted it) to its answer read, seconds. A backtest's --latency-ms is about half of it.",
      labelNames: ['op'],
      buckets: ROUND_TRIP_BUCKETS,
      registers,
    });
    this.heartbeatOk = new Gauge({
      name: n('heartbeat_ok'),
      help: '1 while the last heartbeat to the venue dead-man switch succeeded (0 before the first).',
      registers,
    });
    this.heartbeatFailures = new Counter({
      name: n('heartbeat_failures_total'),
      help: 'Failed heartbeats.',
      registers,
    });
    this.positionAdjustments = new Counter({
      name: n('position_adjustments_total'),
      help: "Adjustments of the store's positions to the venue's holdings, by cause (external_trade, split, merge, redeem, convert, venue_reset, reward, unknown).",
      labelNames: ['cause'],
      registers,
    });
    this.heartbeatLatency = new Gauge({
      name: n('heartbeat_latency_seconds'),
      help: 'Round trip of the last heartbeat, seconds.',
      registers,
    });
    this.killSwitch = new Gauge({ name: n('kill_switch_tripped'), help: '1 once the kill switch tripped.', registers });
    this.healthy = new Gauge({ name: n('healthy'), help: '1 while /healthz answers 200.', registers });
    this.healthReason = new Gauge({
      name: n('health_reason'),
      help: '1 for each reason /healthz is unhealthy now (code label).',
      labelNames: ['code'],
      registers,
    });
    this.uptime = new Gauge({ name: n('uptime_seconds'), help: 'Seconds since the daemon started.', registers });
    this.killSwitch.set(0);
    this.heartbeatOk.set(0);
    if (o.defaultMetrics ?? true) {
      collectDefaultMetrics({
        register: r,
        prefix: METRIC_PREFIX,
        eventLoopMonitoringPrecision: o.eventLoopMonitoringPrecision ?? 10,
      });
      // prom-client's totals of its per-type gauges are gauges named `..._total`, which `promtool check
      // metrics` refuses (trial 17 F7); the per-type gauges (`mmkit_nodejs_active_handles{type}`, ...) stay
      for (const g of ['active_handles', 'active_requests', 'active_resources'])
        r.removeSingleMetric(`${METRIC_PREFIX}nodejs_${g}_total`);
    }
  }

  /**
   * A fleet member (issue 21): every sample carries `member="<name>"` from now on (prom-client's
   * default labels, added at scrape time). Never called for a lone daemon: its metrics are unchanged.
   */
  setMember(name: string): void {
    this.#member = name;
    this.registry.setDefaultLabels({ member: name });
  }

  /** The fleet member name on every sample, or undefined (a lone daemon). */
  get member(): string | undefined {
    return this.#member;
  }

  /** Read the request budgets at scrape time (Budgets.stats of the venue's transport). */
  watchBudgets(fn: () => BudgetStats | undefined): void {
    this.#budgets = fn;
  }

  /** The store file whose size `store_size_bytes` reads at scrape time. */
  watchStoreFile(file: string): void {
    this.#storeFile = file === '' || file === ':memory:' ? undefined : file;
  }

  /** Read the gate's refusals and trims and the strategy's errors at scrape time (the kernel's counters). */
  watchIntents(fn: () => IntentCounts | undefined): void {
    this.#intents = fn;
  }

  #collectBudgets(s: BudgetStats | undefined): void {
    this.budgetUsed.reset();
    this.budgetLimit.reset();
    this.budgetUtilization.reset();
    this.budgetWaiting.reset();
    this.budgetPaused.reset();
    this.endpointQueued.reset();
    if (s === undefined) return;
    const now = this.#now();
    for (const r of s.rules) {
      const l = { rule: r.name };
      this.budgetUsed.set(l, r.used);
      this.budgetLimit.set(l, r.limit);
      this.budgetUtilization.set(l, r.limit > 0 ? r.used / r.limit : 0);
      this.budgetWaiting.set(l, r.waiting + r.queued);
      this.budgetPaused.set(l, r.pausedUntil > now ? 1 : 0);
    }
    for (const e of s.endpoints) this.endpointQueued.set({ endpoint: e.key }, e.queued);
    // the venue's per-signer token buckets, as rules `signer:order` and `signer:cancel`: used = the
    // tokens spent or held in flight (burst - available), limit = the burst
    if (s.signer !== undefined)
      for (const b of [s.signer.order, s.signer.cancel]) {
        const l = { rule: `signer:${b.bucket}` };
        const used = b.burst - b.available;
        this.budgetUsed.set(l, used);
        this.budgetLimit.set(l, b.burst);
        this.budgetUtilization.set(l, b.burst > 0 ? used / b.burst : 0);
        this.budgetWaiting.set(l, b.waiting);
        this.budgetPaused.set(l, b.pausedUntil > now ? 1 : 0);
      }
  }

  /** A quote set handed to execution. */
  quoteSet(market: string, quotes: number): void {
    this.quoteSets.inc({ market, kind: quotes > 0 ? 'quote' : 'pull' });
    if (quotes > 0) this.quotes.inc({ market }, quotes);
  }

  /** `n` orders had this outcome. */
  order(outcome: OrderOutcome, n = 1): void {
    if (n > 0) this.orders.inc({ outcome }, n);
  }

  /** `n` post-only quotes refused by the venue as crossing. */
  postOnlyRejected(n = 1): void {
    if (n > 0) this.postOnlyRejections.inc(n);
  }

  /** A new fill of an order the bot did not place. */
  externalFill(market: string): void {
    this.externalFills.inc({ market });
  }

  /** A new own fill (size micro-shares, price pips). */
  fill(f: { market: string; side: string; role: string; size: number; price: number; source?: string }): void {
    this.fills.inc({ market: f.market, side: f.side, role: f.role });
    if (f.source === 'reconcile') this.fillsRecovered.inc({ market: f.market });
    this.#volumeMicro.set(f.market, (this.#volumeMicro.get(f.market) ?? 0) + f.size);
    this.#notionalMicro.set(f.market, (this.#notionalMicro.get(f.market) ?? 0) + notional(f.size, f.price));
  }

  /** The strategy the daemon runs: its name becomes the `strategy` label of `mmkit_info` (never its params). */
  strategy(name: string): void {
    this.info.reset();
    this.info.set({ ...this.#infoLabels, strategy: name }, 1);
  }

  /** Positions now (replaces the previous set). */
  positions(ps: readonly PositionSample[]): void {
    this.position.reset();
    this.positionAvgPrice.reset();
    for (const p of ps) {
      const l = { market: p.market, token: p.tokenId, outcome: p.outcome };
      this.position.set(l, shares(p.size));
      this.positionAvgPrice.set(l, p.avgPriceDecimal !== undefined ? Number(p.avgPriceDecimal) : price(p.avgPrice));
    }
  }

  pnl(p: PnlSample): void {
    this.pnlRealized.set(usdc(p.realized));
    this.pnlUnrealized.set(usdc(p.unrealized));
    this.pnlFees.set(usdc(p.fees));
    this.pnlTotal.set(usdc(p.total));
    this.pnlTrading.set(usdc(p.realized + p.unrealized));
    this.pnlDay.set(usdc(p.day ?? 0));
    this.pnlRewards.set({ state: 'paid' }, usdc(p.rewards?.paid ?? 0));
    this.pnlRewards.set({ state: 'estimated' }, usdc(p.rewards?.estimated ?? 0));
  }

  /** Each rewarded market's rewards (replaces the previous set). */
  rewardsNow(rs: readonly RewardSample[]): void {
    this.rewards.reset();
    this.rewardShare.reset();
    this.rewardDaily.reset();
    for (const r of rs) {
      this.rewards.set({ market: r.market, state: 'paid' }, usdc(r.paid));
      this.rewards.set({ market: r.market, state: 'estimated' }, usdc(r.estimated));
      if (r.lastShare !== undefined) this.rewardShare.set({ market: r.market }, r.lastShare);
      if (r.lastDaily !== undefined) this.rewardDaily.set({ market: r.market }, usdc(r.lastDaily));
    }
  }

  /** Collateral available and reserved, micro. */
  collateralNow(available: number, reserved: number): void {
    this.collateral.set({ state: 'available' }, usdc(available));
    this.collateral.set({ state: 'reserved' }, usdc(reserved));
  }

  /** A stream data event: its lag (recv - venue time, ms) and when it arrived. */
  streamData(stream: StreamName, recvTime: number, venueTime: number): void {
    this.#lastData.set(stream, recvTime);
    if (venueTime > 0 && venueTime <= recvTime) this.streamLag.observe({ stream }, (recvTime - venueTime) / 1000);
    else if (venueTime > recvTime) this.streamLag.observe({ stream }, 0);
  }

  streamStatus(stream: StreamName, kind: 'disconnected' | 'resynced' | 'stream_error', initial = false): void {
    if (kind === 'disconnected') {
      this.streamDisconnects.inc({ stream });
      this.streamUp.set({ stream }, 0);
    } else if (kind === 'resynced') {
      if (!initial) this.streamReconnects.inc({ stream });
      this.streamUp.set({ stream }, 1);
    } else this.streamErrors.inc({ stream });
  }

  /** A tick-to-order sample, ms. */
  tickToOrderMs(ms: number): void {
    if (Number.isFinite(ms) && ms >= 0) this.tickToOrder.observe(ms / 1000);
  }

  /** An order or cancel request's round trip, ms. */
  orderRoundTripMs(op: 'place' | 'cancel', ms: number): void {
    if (Number.isFinite(ms) && ms >= 0) this.orderRoundTrip.observe({ op }, ms / 1000);
  }

  /** The heartbeat's state now, and the failures since the last call. */
  heartbeat(s: { ok: boolean; lastLatencyMs: number; newFailures: number }): void {
    this.heartbeatOk.set(s.ok ? 1 : 0);
    this.heartbeatLatency.set(s.lastLatencyMs / 1000);
    if (s.newFailures > 0) this.heartbeatFailures.inc(s.newFailures);
  }

  health(h: HealthReport, killSwitchTripped: boolean, uptimeMs: number): void {
    this.healthy.set(h.healthy ? 1 : 0);
    this.healthReason.reset();
    for (const r of h.reasons) this.healthReason.set({ code: r.code }, 1);
    this.killSwitch.set(killSwitchTripped ? 1 : 0);
    this.uptime.set(uptimeMs / 1000);
  }

  /** The exposition text (Prometheus format 0.0.4). */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
