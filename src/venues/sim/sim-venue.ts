/**
 * The simulated venue of feed backtests: the engine's Venue port (src/core/venue.ts) over a
 * recorded market feed (./feed.ts), with queue-position (./queue.ts) and latency (./latency.ts)
 * models. The runner replays the feed in virtual time: for each item it advances the VirtualClock
 * to `item.t`, then calls `ingest(item)`. The venue only ever knows what was ingested so far: no
 * future frame (a resolution included) is visible before its turn (no look-ahead).
 *
 * TIME. A frame's `t` is its local receive time; the venue time inside it (`timestamp`) is when the
 * exchange made it, so `t − venueTime` is the feed latency of that frame (plus clock skew between
 * the recorder's host and the exchange). With `latency.feedMs: 'recorded'` (the default) the bot
 * sees each market event at its recorded receive time (`recvTime = t`): the feed latency is the
 * recorded one. With `feedMs: N` the bot sees it at `venueTime + N`, or at its receive time if that
 * is later (a replay cannot show an event before its turn in the feed): the events are then held
 * in a FIFO and delivered on the clock.
 *   Requests (place, cancel, cancelAll) are answered from clock timers: `nextTimerAt()` tells the
 * runner when the next one is due, so it can advance to it and let the answer's promise settle
 * before it moves on (else an answer due between two items is seen at the later item).
 *   The simulated matching runs on the receive timeline: a recorded event takes effect at its
 * receive time, and our order placed at local time t0 meets the book at t0 + entry latency. So the
 * book our order meets lags the real exchange's by the feed latency: when calibrating against live
 * fills, fold the typical feed latency into `entry` and `cancel` (hftbacktest's exchange-timeline
 * matching would need the feed beyond the present, which a pulled replay does not have).
 *
 * MARKET EVENTS. `marketEvents(tokens)` emits the decoded recorded events (src/api/streams/
 * market-decode.ts, one `decode` per message of a frame), synchronously inside `ingest`. Subscribing
 * gives the current book of each subscribed token that has one (a snapshot), then `resynced
 * {initial: true}`, as the live client does after its first connection. A recorded `disconnect`
 * becomes `disconnected`; after the recorded `connect`, every token that had a book waits for its
 * fresh snapshot (its level changes are dropped meanwhile, as the live client drops them), and
 * `resynced {initial: false}` follows the last one: the engine pulls and resumes exactly as live.
 * Frames that are not valid messages become `stream_error`s and are counted, never thrown.
 *   Our resting orders are shown in the book the bot sees (option `showOwnOrders`, default true),
 * as the live market channel shows them: each recorded level change, snapshot and best bid/ask is
 * adjusted by our resting size at that price (a BUY of YES at p is also the NO token's ask at
 * 1 − p), and every change of our resting size is a level change of both tokens. Strategies that
 * take "the book net of our own orders" (bands' excludeOwnOrders) then see the same book as live.
 * The matching never sees these: it uses the recorded sizes only.
 *
 * MATCHING. Each token's recorded book is mirrored (src/book/mirror.ts). YES and NO books mirror
 * each other on the venue (one book per market in YES terms), and both are recorded: our order on a
 * token matches THAT token's recorded book (a BUY of NO at q meets the NO asks, which are the YES
 * bids at 1 − q). Our orders never move the recorded market. At arrival (place time + entry
 * latency) an order is validated with the paper exchange's rules and codes, the one module both
 * apply (src/core/order-rules.ts: market ready, duplicate id, order type, post-only type, tick
 * and price range, minimum size, lot, fee rate, GTD expiration, balance reserved as the engine
 * reserves it, post-only would-cross, FOK fillable), then:
 *  - a crossing order takes the recorded opposite levels from the best, at each level's price, up to
 *    its recorded size less what we already took there: taken liquidity is tracked per level (and
 *    mirrored on the complement) until the level's recorded updates show it gone (a recorded
 *    decrease eats into what we took first, those orders being gone for us already; an increase is
 *    new liquidity), so the same liquidity is never taken twice (our resting orders on the other
 *    side, or their complement, are matched too, as the venue would: a self-trade). The taker pays the exchange's fee on each fill, as the paper exchange charges it under
 *    the venue's order protocol (SimVenueOptions.feeProtocol, default 2: the V2 curve
 *    size × rate × p × (1 − p) floored to 0.00001; 1: floor(size × min(p, 1 − p) × rate)), with the
 *    rate the market's feeRateBps (src/core/fees.ts; makers pay none there);
 *  - a resting order joins the back of its level: queue ahead = the recorded size at its price on
 *    its token at arrival. The queue advances by the queue model (./queue.ts): recorded trades at
 *    its price hitting its side (a `last_trade_price` on its token, or on the complement at 1 − p
 *    with the side flipped; a trade the venue prints on both tokens counts once) and, in the
 *    probabilistic model, cancellations. Level changes are held until their venue batch (the
 *    market's events with one venue timestamp) ends, because the venue sends a level's new size
 *    before the trade that caused it; then they are netted against the batch's trades. Batches
 *    that share a millisecond are told apart by their messages (one `price_change` per batch): a
 *    level a later message moves again first goes through the queue model for the earlier one. Volume beyond the queue ahead fills it (partial fills); a trade printed
 *    THROUGH its price fills it the same way with the whole trade's volume; the recorded best
 *    opposite price reaching its price fills it fully. All at its own price, as MAKER;
 *  - cancels take effect at cancel time + cancel latency: a fill before then stands (a cancel can
 *    arrive too late and is answered "not canceled" as the venue answers it).
 *  - `market_resolved` cancels our orders on the market and settles its positions at 1 (winning
 *    token) or 0 (`settlements()`); `tick_size_change` cancels our orders off the new tick.
 *
 * USER EVENTS are shaped as the live user channel gives them (src/api/streams/user-decode.ts):
 * PLACEMENT / UPDATE / CANCELLATION order updates and MATCHED fills keyed (trade id, order id), in
 * the paper exchange's order (a crossing order: PLACEMENT, the makers' UPDATEs, its own UPDATE, then
 * the fills; a dropped FAK remainder: CANCELLATION last).
 *
 * MODULES. This file is the venue: the class that owns the state, wires the parts and answers the
 * Venue port. The parts: ./recorded-events.ts (the recorded events applied to the books, our
 * queues and orders, and the recording's stream status: the hot path of a feed backtest), ./sim-types.ts (options,
 * counters, account, settlement shapes), ./sim-state.ts (markets, tokens, own levels and orders),
 * ./ingest.ts (feed items to market events), ./recorded-book.ts (liquidity we took),
 * ./own-orders.ts (our orders: signing, arrival at the matching point, fills, cancels, retention),
 * ./own-queue.ts (our places in the recorded queues and the fills trades give them),
 * ./taker.ts (what a crossing order takes), ./show-own.ts (our orders in the book the bot sees),
 * ./sim-timers.ts (request and feed latencies), ./sim-account.ts (collateral, shares, fees),
 * ./settlement.ts (resolution payouts), ./sim-events.ts (event shapes), ./sim-streams.ts
 * (subscribers), ./sim-ids.ts (deterministic ids); the order rules are src/core/order-rules.ts.
 *
 * COST. Per recorded event the venue does one map lookup and an O(1) book update; own orders are
 * indexed by token, side and price, so an event touches them only when it is at one of their
 * prices (or moves the best price through one). Nothing is allocated per event beyond the decoded
 * event (adjusting it for our resting orders is done in place).
 */
import { Observable } from 'rxjs';
import type { Clock } from '../../core/clock.ts';
import { ValidationError } from '../../core/errors.ts';
import { marketChanges } from '../../core/market-info.ts';
import { DEFAULT_FEE_PROTOCOL } from '../../core/fees.ts';
import type { MarketEvent, RtdsEvent, UserDataEvent, UserEvent } from '../../core/events.ts';
import type { ConditionId, OrderId, TokenId } from '../../core/ids.ts';
import type { Micro } from '../../core/units.ts';
import type {
  CancelOutcome,
  MarketInfo,
  PlaceOutcome,
  PlaceRequest,
  PreparedOrder,
  VenueFill,
  VenueOrder,
} from '../../core/venue.ts';
import { MAX_BATCH_ORDERS, MAX_CANCEL_IDS } from '../../core/rate-limits.ts';
import { feedRewardConfig, type DecodedFrameItem, type FeedItem } from './feed.ts';
import { latencySampler, rngStream, validateLatencySpec, type LatencySampler } from './latency.ts';
import { createQueueModel, type QueueModel } from './queue.ts';
import { BudgetMeter } from './sim-budget.ts';
import { FeedIngest } from './ingest.ts';
import { OwnOrders } from './own-orders.ts';
import { ShownOwn } from './show-own.ts';
import { MarketState, type TokenState } from './sim-state.ts';
import { SimLedger } from './sim-account.ts';
import { settleMarket } from './settlement.ts';
import { RecordedEvents } from './recorded-events.ts';
import { DelayedFeed, RequestTimers } from './sim-timers.ts';
import { snapshotOf } from './sim-events.ts';
import { deliverMarket, deliverUser, type MarketSub, type UserSub } from './sim-streams.ts';
import type { Settlement, SimAccount, SimVenue, SimVenueOptions, SimVenueStats } from './sim-types.ts';

export type {
  Settlement,
  SimAccount,
  SimLatencyOptions,
  SimVenue,
  SimVenueOptions,
  SimVenueStats,
} from './sim-types.ts';
export { withOwn } from './show-own.ts';

// ---- internal state --------------------------------------------------------------------------------

const DEFAULT_COLLATERAL = 10_000 * 1_000_000;
const VENUE_CLOSED = 'venue closed';

interface Counters
  extends Omit<
    SimVenueStats,
    'budget' | 'rejects' | 'messages' | 'events' | 'unknownTypes' | 'serverErrors' | 'feedLatencyMs'
  > {
  rejects: Record<string, number>;
}

/** Sweeps for finished orders and old fills (virtual ms): see SimVenueOptions.retainMs. */
const SWEEP_MS = 60_000;

/**
 * Creates a simulated venue (see the module comment).
 * @throws ValidationError on a bad latency or queue spec, a bad seed, or markets with duplicate tokens
 */
export function createSimVenue(opts: SimVenueOptions): SimVenue {
  return new SimVenueImpl(opts);
}

class SimVenueImpl implements SimVenue {
  readonly clock: Clock;
  readonly #model: QueueModel;
  readonly #entry: LatencySampler;
  readonly #cancelLat: LatencySampler;
  readonly #show: boolean;
  readonly #feed: FeedIngest;
  readonly #meter: BudgetMeter;

  readonly #markets = new Map<string, MarketState>();
  readonly #marketList: MarketState[] = [];
  readonly #tokens = new Map<string, TokenState>();

  readonly #acct: SimLedger;

  /** Our orders and fills: entry, matching, cancels, retention (./own-orders.ts). */
  readonly #ours: OwnOrders;
  readonly #settlements: Settlement[] = [];
  /** When our finished orders and old fills were last swept (see SimVenueOptions.retainMs). */
  #lastSweep = -Infinity;

  // streams
  readonly #marketSubs: MarketSub[] = [];
  readonly #userSubs: UserSub[] = [];
  readonly #shown: ShownOwn;
  /** The recorded market events applied to the books, our queues and orders (./recorded-events.ts). */
  readonly #events: RecordedEvents;

  // latencies: requests in flight, and (feedMs = N) the delayed feed
  readonly #timers: RequestTimers;
  readonly #delayed: DelayedFeed | null;
  #closed = false;

  readonly #c: Counters = {
    items: 0,
    frames: 0,
    statuses: 0,
    headers: 0,
    otherChannel: 0,
    decodeErrors: 0,
    feedEvents: 0,
    disconnects: 0,
    droppedWhilePending: 0,
    resyncs: 0,
    placeRequests: 0,
    cancelRequests: 0,
    cancelAllRequests: 0,
    ordersPlaced: 0,
    ordersRejected: 0,
    rejects: {},
    ordersCancelled: 0,
    cancelsTooLate: 0,
    venueCancels: 0,
    fills: 0,
    makerFills: 0,
    takerFills: 0,
    volume: 0,
    notional: 0,
    fees: 0,
  };

  constructor(o: SimVenueOptions) {
    this.clock = o.clock;
    if (!Number.isSafeInteger(o.seed)) throw new ValidationError(`seed: must be an integer, got ${String(o.seed)}`);
    this.#model = createQueueModel(o.queue);
    const lat = o.latency;
    if (lat === undefined || lat === null) throw new ValidationError('latency: required ({entry, cancel, response})');
    this.#entry = latencySampler(
      validateLatencySpec(lat.entry, 'latency.entry'),
      rngStream(o.seed, 1),
      'latency.entry',
    );
    this.#cancelLat = latencySampler(
      validateLatencySpec(lat.cancel, 'latency.cancel'),
      rngStream(o.seed, 2),
      'latency.cancel',
    );
    this.#timers = new RequestTimers(
      o.clock,
      latencySampler(validateLatencySpec(lat.response, 'latency.response'), rngStream(o.seed, 3), 'latency.response'),
    );
    const f = lat.feedMs ?? 'recorded';
    if (f !== 'recorded' && !(typeof f === 'number' && Number.isFinite(f) && f >= 0))
      throw new ValidationError(`latency.feedMs: 'recorded' or a finite number >= 0, got ${String(f)}`);
    this.#delayed = f === 'recorded' ? null : new DelayedFeed(o.clock, f, (e) => this.#deliver(e));
    this.#show = o.showOwnOrders ?? true;
    this.#shown = new ShownOwn(this.#show);
    this.#feed = new FeedIngest(this.#c, {
      event: (e) => this.#events.event(e),
      endFrame: () => this.#events.endFrame(),
      streamError: (reason, t) => this.#streamError(reason, t),
      disconnect: (reason, t) => this.#events.onDisconnect(reason, t),
      connect: (t) => this.#events.onConnect(t),
      market: (m) => this.#addMarket(m, false),
      marketInfo: (m, t) => this.#updateMarket(m, t),
    });
    this.#meter = new BudgetMeter(o.budgets ?? {});
    const keep = o.retainMs ?? 600_000;
    if (!(keep >= 0)) throw new ValidationError(`retainMs: a number >= 0 (or Infinity), got ${String(keep)}`);
    for (const m of o.markets) this.#addMarket(m, true);
    const c = o.account?.collateral ?? DEFAULT_COLLATERAL;
    if (!Number.isSafeInteger(c) || c < 0)
      throw new ValidationError(`account.collateral: a non-negative integer of micro, got ${String(c)}`);
    this.#acct = new SimLedger(c);
    for (const [tok, s] of Object.entries(o.account?.positions ?? {})) {
      if (!Number.isSafeInteger(s) || s < 0)
        throw new ValidationError(`account.positions.${tok}: a non-negative integer of micro-shares`);
      if (!this.#tokens.has(tok)) throw new ValidationError(`account.positions.${tok}: not a token of the markets`);
      this.#acct.shares.set(tok, { available: s, reserved: 0 });
    }
    this.#ours = new OwnOrders({
      clock: o.clock,
      seed: o.seed,
      tokens: this.#tokens,
      acct: this.#acct,
      model: this.#model,
      shown: this.#shown,
      retainMs: keep,
      counters: this.#c,
      emitUser: (e) => this.#emitUser(e),
      flushShown: () => this.#events.flushShown(),
      feeProtocol: o.feeProtocol ?? DEFAULT_FEE_PROTOCOL,
    });
    this.#events = new RecordedEvents({
      tokens: this.#tokens,
      markets: this.#markets,
      marketList: this.#marketList,
      model: this.#model,
      ours: this.#ours,
      show: this.#show,
      shown: this.#shown,
      counters: this.#c,
      now: () => this.clock.now(),
      emitMarket: (e) => this.#emitMarket(e),
      resolve: (m, winner) => {
        this.#resolve(m, winner);
      },
    });
  }

  #addMarket(info: MarketInfo, strict: boolean): void {
    if (this.#markets.has(info.market)) {
      if (strict) throw new ValidationError(`markets: duplicate market ${info.market}`);
      return;
    }
    const [a, b] = info.tokens;
    if (a.tokenId === b.tokenId || this.#tokens.has(a.tokenId) || this.#tokens.has(b.tokenId)) {
      if (strict) throw new ValidationError(`markets: market ${info.market} repeats a token id`);
      return;
    }
    const m = new MarketState(info);
    this.#markets.set(info.market, m);
    this.#marketList.push(m);
    this.#tokens.set(a.tokenId, m.tokens[0]);
    this.#tokens.set(b.tokenId, m.tokens[1]);
  }

  /**
   * A feed's market line: a known market's info is replaced (the tick stays the market channel's),
   * and a change the engine acts on (reward config, status, minimum size) becomes a `market_updated`
   * event at that time; a closed market refuses our orders from then on. An unknown market, or no
   * such change, changes nothing.
   */
  #updateMarket(fresh: MarketInfo, t: number): void {
    const m = this.#markets.get(fresh.market);
    const [a, b] = m?.info.tokens ?? [];
    if (m === undefined || fresh.tokens[0].tokenId !== a?.tokenId || fresh.tokens[1].tokenId !== b?.tokenId) return;
    let rewards: MarketInfo['rewards'];
    try {
      rewards = feedRewardConfig(fresh.rewards);
    } catch {
      return; // a malformed config is not a change (counted with the feed's oddities)
    }
    const info: MarketInfo = { ...fresh, tick: m.info.tick, rewards };
    const changed = marketChanges(m.info, info);
    m.info = info;
    if (changed.length === 0) return;
    this.#emitMarket({ type: 'market_updated', market: info.market, info, changed, venueTime: t, recvTime: t });
  }

  // ==== stats and account ==========================================================================

  get stats(): SimVenueStats {
    const d = this.#feed.decoder.stats;
    return {
      ...this.#c,
      rejects: { ...this.#c.rejects },
      messages: d.messages,
      events: d.events,
      unknownTypes: d.unknownTypes,
      serverErrors: d.serverErrors,
      budget: this.#meter.usage(),
      feedLatencyMs: this.#feed.latency,
    };
  }

  account(): SimAccount {
    return this.#acct.snapshot();
  }

  settlements(): readonly Settlement[] {
    return this.#settlements.slice();
  }

  nextTimerAt(): number | undefined {
    const best = this.#timers.nextAt();
    const d = this.#delayed?.nextAt();
    return d !== undefined && (best === undefined || d < best) ? d : best;
  }

  // ==== feed ingestion ==============================================================================

  ingest(item: FeedItem | DecodedFrameItem): void {
    if (this.#closed) return;
    this.#c.items++;
    if (item.t - this.#lastSweep >= SWEEP_MS) this.#sweep(item.t);
    this.#feed.ingest(item);
  }

  /** Sweeps our finished orders and old fills (./own-orders.ts); see SWEEP_MS. */
  #sweep(now: number): void {
    this.#lastSweep = now;
    this.#ours.sweep(now);
  }

  #streamError(reason: string, t: number): void {
    this.#emitMarket({ type: 'stream_error', stream: 'market', reason, venueTime: t, recvTime: t });
  }

  settle(market: ConditionId, winningTokenId: TokenId): Settlement {
    const m = this.#markets.get(market);
    if (m === undefined) throw new ValidationError(`settle: unknown market ${String(market).slice(0, 20)}`);
    return m.settlement ?? this.#resolve(m, winningTokenId);
  }

  #resolve(m: MarketState, winner: TokenId): Settlement {
    if (m.pending.length > 0) this.#events.finalize(m);
    const cancelled = this.#ours.cancelMarket(m);
    const st = settleMarket(m, winner, this.#acct, this.clock.now(), cancelled);
    this.#settlements.push(st);
    return st;
  }

  resync(tokenIds: readonly TokenId[]): void {
    if (this.#closed) return;
    const now = this.clock.now();
    for (const id of tokenIds) {
      const tok = this.#tokens.get(id);
      // at most once per token per instant: a book that stays crossed cannot loop the engine
      if (tok === undefined || tok.awaiting || !tok.book.snapshotted || tok.lastResyncAt === now) continue;
      tok.lastResyncAt = now;
      this.#c.resyncs++;
      this.#emitMarket(snapshotOf(tok, now, this.#show));
    }
  }

  // ---- emission -----------------------------------------------------------------------------------

  #emitMarket(e: MarketEvent): void {
    if (this.#delayed === null) this.#deliver(e);
    else this.#delayed.push(e);
  }

  /** Hands a market event to the subscribers now. */
  #deliver(e: MarketEvent): void {
    const subs = this.#marketSubs;
    for (let i = 0; i < subs.length; i++) deliverMarket(subs[i]!, e);
  }

  #emitUser(e: UserDataEvent): void {
    deliverUser(this.#userSubs, e);
  }

  // ==== the Venue port ===============================================================================

  async markets(): Promise<readonly MarketInfo[]> {
    const list = this.#marketList.map((m) => m.info);
    return [...list.filter((m) => m.active), ...list.filter((m) => !m.active)];
  }

  marketEvents(tokenIds: readonly TokenId[]): Observable<MarketEvent> {
    if (this.#closed) throw new ValidationError('venue closed');
    const tokens = new Set<string>(tokenIds);
    const markets = new Set<string>();
    for (const t of tokenIds) {
      const tok = this.#tokens.get(t);
      if (tok !== undefined) markets.add(tok.market.info.market);
    }
    return new Observable<MarketEvent>((sub) => {
      if (this.#closed) {
        sub.complete();
        return;
      }
      const s: MarketSub = { tokens, markets, sub, initialDone: false };
      this.#marketSubs.push(s);
      // as the live client: the books known now, then in sync
      const now = this.clock.now();
      for (const id of tokens) {
        const tok = this.#tokens.get(id);
        if (tok?.book.snapshotted && !tok.awaiting) sub.next(snapshotOf(tok, now, this.#show));
      }
      if (this.#events.up) {
        sub.next({ type: 'resynced', stream: 'market', initial: true, venueTime: now, recvTime: now });
        s.initialDone = true;
      }
      return () => {
        const i = this.#marketSubs.indexOf(s);
        if (i >= 0) this.#marketSubs.splice(i, 1);
      };
    });
  }

  /** The recorded real-time prices of these symbols (see ./sim-prices.ts). */
  priceEvents(symbols: readonly string[]): Observable<RtdsEvent> {
    if (this.#closed) throw new ValidationError('venue closed');
    return this.#feed.prices.priceEvents(symbols);
  }

  userEvents(markets: readonly ConditionId[]): Observable<UserEvent> {
    if (this.#closed) throw new ValidationError('venue closed');
    const set = new Set<string>(markets);
    return new Observable<UserEvent>((sub) => {
      if (this.#closed) {
        sub.complete();
        return;
      }
      const s: UserSub = { markets: set, sub };
      this.#userSubs.push(s);
      const now = this.clock.now();
      sub.next({ type: 'resynced', stream: 'user', initial: true, venueTime: now, recvTime: now });
      return () => {
        const i = this.#userSubs.indexOf(s);
        if (i >= 0) this.#userSubs.splice(i, 1);
      };
    });
  }

  /**
   * Signs the requests (./own-orders.ts).
   * @throws ValidationError when a token is not of a listed market (or not of `market`), a price is
   *   off the market's current tick or outside [tick, 1 − tick], or a size is below 0.01 share or
   *   above the largest order, as the live venue's prepare throws
   */
  prepare(requests: readonly PlaceRequest[]): readonly PreparedOrder[] {
    return this.#ours.prepare(requests);
  }

  async place(orders: readonly PreparedOrder[]): Promise<readonly PlaceOutcome[]> {
    const out: PlaceOutcome[] = [];
    for (let i = 0; i < orders.length; i += MAX_BATCH_ORDERS) {
      const chunk = orders.slice(i, i + MAX_BATCH_ORDERS);
      if (this.#closed) {
        for (const p of chunk) out.push({ id: p.id, ok: false, code: 'UNKNOWN', message: VENUE_CLOSED });
        continue;
      }
      this.#c.placeRequests++;
      this.#meter.record('POST /orders', this.clock.now());
      out.push(
        ...(await this.#timers.request(
          this.#entry(),
          () => chunk.map((p) => this.#ours.arrive(p)),
          () => chunk.map((p) => ({ id: p.id, ok: false, code: 'UNKNOWN', message: VENUE_CLOSED }) as PlaceOutcome),
        )),
      );
    }
    return out;
  }

  async cancel(ids: readonly OrderId[]): Promise<CancelOutcome> {
    const canceled: OrderId[] = [];
    const notCanceled = new Map<OrderId, string>();
    const unique = [...new Set(ids)];
    for (let i = 0; i < unique.length; i += MAX_CANCEL_IDS) {
      const chunk = unique.slice(i, i + MAX_CANCEL_IDS);
      if (this.#closed) {
        for (const id of chunk) notCanceled.set(id, VENUE_CLOSED);
        continue;
      }
      this.#c.cancelRequests++;
      this.#meter.record('DELETE /orders', this.clock.now());
      const r = await this.#timers.request(
        this.#cancelLat(),
        () => chunk.map((id) => [id, this.#ours.cancelOne(id)] as const),
        () => chunk.map((id) => [id, VENUE_CLOSED] as const),
      );
      for (const [id, reason] of r) {
        if (reason === null) canceled.push(id);
        else notCanceled.set(id, reason);
      }
    }
    return { canceled, notCanceled };
  }

  async cancelAll(): Promise<CancelOutcome> {
    if (this.#closed) return { canceled: [], notCanceled: new Map() };
    this.#c.cancelAllRequests++;
    this.#meter.record('DELETE /cancel-all', this.clock.now());
    const canceled = await this.#timers.request(
      this.#cancelLat(),
      () => this.#ours.cancelAll(),
      () => [] as OrderId[],
    );
    return { canceled, notCanceled: new Map() };
  }

  async openOrders(): Promise<readonly VenueOrder[]> {
    return this.#ours.open();
  }

  async order(id: OrderId): Promise<VenueOrder | undefined> {
    return this.#ours.order(id);
  }

  async fills(sinceMs: number): Promise<readonly VenueFill[]> {
    return this.#ours.fillsSince(sinceMs);
  }

  async heartbeat(): Promise<boolean> {
    return !this.#closed;
  }

  async balance(): Promise<{ available: Micro; reserved: Micro }> {
    return { available: this.#acct.collateral as Micro, reserved: this.#acct.reservedCollateral as Micro };
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    this.#timers.close();
    this.#delayed?.close();
    this.#ours.close();
    this.#timers.abortAll();
    for (const s of [...this.#marketSubs]) s.sub.complete();
    this.#feed.prices.close();
    for (const s of [...this.#userSubs]) s.sub.complete();
    this.#marketSubs.length = 0;
    this.#userSubs.length = 0;
    return Promise.resolve();
  }
}
