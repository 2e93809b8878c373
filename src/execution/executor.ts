/**
 * The executor: turns desired quotes into requests against the Venue port, and keeps the order
 * tracker and the store in step with what the venue answers.
 *
 * Per market, one cycle at a time; the latest intent wins:
 *   submit(desired) ─► [a cycle is running?] ─► queue it (replacing, and so dropping, any older
 *   queued intent for that market: stale intents are never sent; the running cycle's places that
 *   the queued one no longer wants are dropped too, e.g. after a pull)
 *   cycle (src/execution/order-sender.ts) = diff(desired, live orders, tolerance)
 *         ─► cancels first (venue.cancel, batched), awaited
 *         ─► places, ≤ 15 per venue.place call: prepare (sign locally: ids known)
 *            ─► store.recordOrders (BEFORE sending) ─► venue.place ─► tracker + store
 *
 * Ambiguity is never resolved by re-signing: an UNKNOWN outcome (or a transport failure that may
 * have landed) leaves the order `unknown`, resolved later by its id (src/execution/unknown-outcomes.ts).
 * Unknown orders count as live for the diff meanwhile, so a quote is never placed twice.
 *
 * Failures (a cancel or place request that throws) do not lose the intent: the market's latest
 * intent is retried after a jittered exponential backoff (at least the server's Retry-After), one
 * attempt per backoff period however many intents arrive: no retry storm.
 *
 * `pause(reason)` (risk, heartbeat failure) stops places but not cancels; when the last reason is
 * lifted the latest intent of every market is run again. `cancelAll()` halts for good (kill switch,
 * shutdown): no place is sent after it starts, and `verifyFlat()` confirms zero open orders of
 * ours at the venue (src/execution/flatten.ts).
 *
 * Immediate orders (FOK/FAK) go in their market's turn, after a quote change handed before them (its
 * cancels free what the gate let them use), before any later one (src/execution/immediate-orders.ts).
 * The venue's answers, and the refusals that are no errors: src/execution/place-outcomes.ts. Orders
 * and fills the bot did not make follow `foreignOrders`: src/execution/foreign-orders.ts.
 */
import type { Clock, TimerHandle } from '../core/clock.ts';
import { ConfigError, RateLimitError, isRetryable } from '../core/errors.ts';
import type { FillEvent, UserEvent } from '../core/events.ts';
import type { ConditionId, OrderId, TokenId } from '../core/ids.ts';
import type { DesiredQuotes, ImmediateIntent } from '../core/intents.ts';
import { isApproved, type Approved } from '../risk/gate.ts';
import { MAX_BATCH_ORDERS } from '../core/rate-limits.ts';
import type { CancelOutcome, Venue, VenueFill, VenueOrder } from '../core/venue.ts';
import type { FillChange, FillRecord, Store } from '../store/store.ts';
import { cancelAll, verifyFlat, type FlattenParts } from './flatten.ts';
import { ForeignOrders, type FillSource, type ForeignEvent } from './foreign-orders.ts';
import { ImmediateOrders } from './immediate-orders.ts';
import { PlaceOutcomes, provesNotAccepted } from './place-outcomes.ts';
import { OrderWrites } from './order-writes.ts';
import { OrderSender } from './order-sender.ts';
import { FillIntake } from './fill-intake.ts';
import { OrderTracker } from './tracker.ts';
import { UnknownOutcomes } from './unknown-outcomes.ts';
import type {
  AccountStats,
  CycleReport,
  ExecutorOptions,
  ExecutorStats,
  FlatReport,
  ImmediateStats,
  RejectionInfo,
} from './executor-types.ts';

export type { FillSource, ForeignEvent, ForeignOrderPolicy } from './foreign-orders.ts';
export { NOT_ENOUGH_BALANCE, POST_ONLY_CROSSING, SELL_RACE_TOLERANCE, provesNotAccepted } from './place-outcomes.ts';
// the executor's public types (./executor-types.ts holds only those), for importers of this module
export type * from './executor-types.ts';

/** The most orders one POST /orders may carry (the spec's batch limit, src/core/rate-limits.ts). */
export const MAX_PLACE_BATCH = MAX_BATCH_ORDERS;

interface Slot {
  readonly market: ConditionId;
  /** Approved immediate orders (FOK/FAK) waiting for this market's next turn, oldest first. */
  orders: ImmediateIntent[];
  /**
   * True when the quote set queued was handed before the immediate orders waiting (the same
   * output's quote change): it runs first, so its cancels free what the orders use (the gate counts
   * the orders on the state after it: src/risk/gate.ts OrderRoom). One cycle, then the orders.
   */
  quotesFirst: boolean;
  queued: DesiredQuotes | undefined;
  last: DesiredQuotes | undefined;
  running: Promise<void> | undefined;
  timer: TimerHandle | undefined;
  notBefore: number;
  failures: number;
}

type Listener<T> = (x: T) => void;

/**
 * Drives a Venue from desired quotes. See the module comment for the rules.
 * @throws ConfigError from the constructor on a bad batch size or tolerance.
 */
export class Executor {
  readonly tracker: OrderTracker;
  readonly #venue: Venue;
  readonly #store: Store;
  readonly #clock: Clock;
  /** Orders and fills the bot did not make: the foreign-order policy, fleet members' orders, external fills. */
  readonly #foreign: ForeignOrders;
  readonly #maxPlace: number;
  readonly #maxCancel: number;
  readonly #backoffBase: number;
  readonly #backoffCap: number;
  readonly #random: () => number;

  readonly #slots = new Map<ConditionId, Slot>();
  /** Orders whose placement outcome is unknown, resolved from the venue (their counters too). */
  readonly #outcomes: UnknownOutcomes;
  readonly #pauses = new Set<string>();
  #halted = false;
  #closed = false;
  /** The store rows of the tracker's transitions (batched into one transaction by `#batched`). */
  readonly #writes: OrderWrites;
  readonly #sleeps = new Map<TimerHandle, () => void>();
  readonly #onCycle = new Set<Listener<CycleReport>>();
  readonly #onError = new Set<Listener<{ where: string; error: unknown }>>();
  readonly #stats = {
    submitted: 0,
    superseded: 0,
    cycles: 0,
    failedCycles: 0,
    ordersSent: 0,
    cancelsSent: 0,
    rejections: 0,
  };
  /** The venue's answers to places: rejections and their listeners, post-only and SELL balance refusals. */
  readonly #placeOutcomes: PlaceOutcomes;
  /** A fill's way in: whose it is, stored once, then the tracker (src/execution/fill-intake.ts). */
  readonly #fills: FillIntake;
  /** A cycle's cancels and places, and every place request (src/execution/order-sender.ts). */
  readonly #sender: OrderSender;
  /** Immediate orders (FOK/FAK), sent in their market's turn. */
  readonly #immediates: ImmediateOrders;
  /** What cancelAll and verifyFlat use of the executor. */
  readonly #flatten: FlattenParts;
  readonly #unsubscribe: () => void;

  constructor(opts: ExecutorOptions) {
    this.#venue = opts.venue;
    this.#store = opts.store;
    this.#clock = opts.clock ?? opts.venue.clock;
    this.tracker = opts.tracker ?? new OrderTracker(this.#clock);
    const tolerance = opts.tolerance ?? { priceTicks: 0, sizeFraction: 0 };
    if (!(tolerance.priceTicks >= 0) || !(tolerance.sizeFraction >= 0))
      throw new ConfigError('execution.tolerance', 'priceTicks and sizeFraction must be non-negative numbers');
    const orderType = opts.orderType ?? 'GTC';
    this.#backoffBase = opts.backoff?.baseMs ?? 250;
    // (its constructor checks the policy: @throws ConfigError)
    this.#foreign = new ForeignOrders({
      tracker: this.tracker,
      store: this.#store,
      clock: this.#clock,
      policy: opts.foreignOrders,
      fleetMarket: opts.fleetMarket,
      externalClaims: opts.externalClaims,
      retryBaseMs: this.#backoffBase,
      cancelIds: (ids) => this.#sender.cancelIds(ids),
      sleep: (ms) => this.#sleep(ms),
      closed: () => this.#closed,
      audit: (kind, data) => this.#audit(kind, data),
      emitError: (where, error) => this.#emitError(where, error),
    });
    if (orderType === 'GTD' && opts.expiration === undefined)
      throw new ConfigError('execution.expiration', 'GTD quotes need an expiration');
    this.#maxPlace = opts.maxPlaceBatch ?? MAX_PLACE_BATCH;
    if (!Number.isSafeInteger(this.#maxPlace) || this.#maxPlace < 1 || this.#maxPlace > MAX_PLACE_BATCH)
      throw new ConfigError('execution.maxPlaceBatch', `must be an integer in 1..${MAX_PLACE_BATCH}`);
    this.#maxCancel = opts.maxCancelBatch ?? 1000;
    if (!Number.isSafeInteger(this.#maxCancel) || this.#maxCancel < 1)
      throw new ConfigError('execution.maxCancelBatch', 'must be a positive integer');
    this.#outcomes = new UnknownOutcomes({
      tracker: this.tracker,
      venue: this.#venue,
      resolve: opts.resolve,
      send: (prepared) => this.#sender.send(prepared),
      refused: (prepared, code, message) => this.#placeOutcomes.resendRefused(prepared, code, message),
      mayPlace: () => !this.#halted && !this.paused,
      closed: () => this.#closed,
      sleep: (ms) => this.#sleep(ms),
      audit: (kind, data) => this.#audit(kind, data),
      emitError: (where, error) => this.#emitError(where, error),
    });
    this.#placeOutcomes = new PlaceOutcomes({
      tracker: this.tracker,
      unknownOutcomes: this.#outcomes,
      clock: this.#clock,
      stats: this.#stats,
      audit: (kind, data) => this.#audit(kind, data),
      emitError: (where, error) => this.#emitError(where, error),
    });
    this.#fills = new FillIntake({
      tracker: this.tracker,
      store: this.#store,
      foreign: this.#foreign,
      placeOutcomes: this.#placeOutcomes,
    });
    this.#sender = new OrderSender({
      venue: this.#venue,
      store: this.#store,
      tracker: this.tracker,
      clock: this.#clock,
      tolerance,
      tickPips: opts.tickPips ?? (() => undefined),
      orderType,
      postOnly: opts.postOnly ?? false,
      expiration: opts.expiration,
      maxPlace: this.#maxPlace,
      maxCancel: this.#maxCancel,
      stats: this.#stats,
      unknownOutcomes: this.#outcomes,
      placeOutcomes: this.#placeOutcomes,
      queued: (market) => this.#slots.get(market)?.queued,
      mayPlace: () => !this.paused && !this.#halted,
      batched: (fn) => this.#batched(fn),
      audit: (kind, data) => this.#audit(kind, data),
      emitError: (where, error) => this.#emitError(where, error),
    });
    this.#immediates = new ImmediateOrders({
      venue: this.#venue,
      store: this.#store,
      tracker: this.tracker,
      unknownOutcomes: this.#outcomes,
      maxPlace: this.#maxPlace,
      stats: this.#stats,
      halted: () => this.#halted,
      mayPlace: () => !this.paused && !this.#halted,
      enqueue: (o) => this.#enqueueImmediate(o),
      send: (prepared) => this.#sender.send(prepared),
      batched: (fn) => this.#batched(fn),
      applyOutcomes: (prepared, outcomes) => this.#sender.applyOutcomes(prepared, outcomes),
      audit: (kind, data) => this.#audit(kind, data),
      emitError: (where, error) => this.#emitError(where, error),
    });
    this.#flatten = {
      tracker: this.tracker,
      venue: this.#venue,
      foreign: this.#foreign,
      clock: this.#clock,
      stats: this.#stats,
      halt: () => this.#halt(),
      cancelIds: (ids) => this.#sender.cancelIds(ids),
      runningCycles: () => [...this.#slots.values()].flatMap((s) => (s.running !== undefined ? [s.running] : [])),
      placing: () => this.#sender.placing,
      batched: (fn) => this.#batched(fn),
      sleep: (ms) => this.#sleep(ms),
      audit: (kind, data) => this.#audit(kind, data),
      emitError: (where, error) => this.#emitError(where, error),
    };
    this.#backoffCap = opts.backoff?.capMs ?? 30_000;
    this.#random = opts.random ?? Math.random;
    this.#writes = new OrderWrites(this.#store, (where, error) => this.#emitError(where, error));
    this.#unsubscribe = this.tracker.onTransition((t) => this.#writes.persist(t));
    this.tracker.setClassifier((id, seen) => this.#foreign.classify(id, seen));
  }

  // ---- listeners -------------------------------------------------------------------------------

  /** Each venue rejection of an order (code and message): the kill switch's "repeated rejections". */
  onRejection(fn: Listener<RejectionInfo>): () => void {
    return this.#placeOutcomes.onRejection(fn);
  }
  /** Each SELL refused for lack of tokens (the token): see PlaceOutcomes.onSellShortfall. */
  onSellShortfall(fn: Listener<TokenId>): () => void {
    return this.#placeOutcomes.onSellShortfall(fn);
  }
  /** Each finished cycle. */
  onCycle(fn: Listener<CycleReport>): () => void {
    this.#onCycle.add(fn);
    return () => this.#onCycle.delete(fn);
  }
  /**
   * Errors handled internally. `where` says what failed: `store` a write of the bot's orders (the
   * prepared rows before sending: those orders are not sent; an order's transition) or a read of
   * them; `audit` an audit row; `cycle <market>` / `immediate <market>` a failed execution cycle (it
   * is retried with backoff); `cancel/query`, `cancelAll`, `verifyFlat`, ... a failed request; and
   * `... listener` a listener that threw.
   */
  onError(fn: Listener<{ where: string; error: unknown }>): () => void {
    this.#onError.add(fn);
    return () => this.#onError.delete(fn);
  }
  /** Each foreign order first seen (and what is done with it) and each external fill recorded. */
  onForeign(fn: Listener<ForeignEvent>): () => void {
    return this.#foreign.onForeign(fn);
  }

  // ---- intents ---------------------------------------------------------------------------------

  /**
   * The complete set of quotes wanted in one market now (risk-approved). Runs a cycle at once when
   * none runs for that market; else replaces the queued intent (the older one is dropped, never
   * sent). Ignored after cancelAll (halted). Synchronous: the first request of the cycle is handed
   * to the venue before this returns when there is nothing to cancel.
   */
  submit(desired: Approved<DesiredQuotes>): void {
    // the type says the risk gate made it; this says no cast did (src/risk/gate.ts: Approved)
    if (!isApproved(desired))
      throw new Error(`executor: quotes for ${desired.market} were not approved by the risk gate`);
    this.#stats.submitted++;
    if (this.#halted) return;
    const s = this.#slot(desired.market);
    if (s.queued !== undefined) this.#stats.superseded++;
    s.queued = desired;
    s.last = desired;
    this.#kick(s);
  }

  /**
   * Immediate orders (FOK/FAK) the risk gate approved: each is sent once, in its market's turn
   * (after a quote change of that market submitted before it, before any later one, never during a
   * cycle), recorded in the store before it is
   * sent like every order; its fills come through the user stream like any other. Not sent while
   * placing is paused or after cancelAll (counted as skipped). An ambiguous outcome is resolved by
   * id, as for quotes.
   * @throws Error when an order was not approved by the gate, or was executed already
   */
  execute(orders: readonly Approved<ImmediateIntent>[]): void {
    this.#immediates.execute(orders);
  }

  /**
   * Cancel these orders of ours now, by the executor's cancel path (marked as the bot's own cancels,
   * outcomes applied), e.g. the asks a merge takes down. @throws the venue's error.
   */
  cancel(ids: readonly OrderId[]): Promise<CancelOutcome> {
    return this.#sender.cancelIds(ids);
  }

  /** Stop new places for `reason` (cancels still go out). Several reasons may hold at once. */
  pause(reason: string): void {
    if (this.#pauses.has(reason)) return;
    this.#pauses.add(reason);
    this.#audit('pause', { reason, reasons: [...this.#pauses] });
  }

  /**
   * Lift one pause reason. When none is left, the latest intent of every market runs again (the
   * places that were held back go out now, diffed against the current live orders).
   */
  resume(reason: string): void {
    if (!this.#pauses.delete(reason)) return;
    this.#audit('resume', { reason, reasons: [...this.#pauses] });
    if (this.#pauses.size > 0 || this.#halted) return;
    for (const s of this.#slots.values()) {
      if (s.last !== undefined && s.queued === undefined) {
        s.queued = s.last;
        this.#kick(s);
      }
    }
  }

  /**
   * Forgets a market's latest quote set (the one a resume would run again): after a change the
   * strategy has not seen yet (a merge took tokens its asks offered), its next set comes afresh.
   */
  forget(market: ConditionId): void {
    const s = this.#slots.get(market);
    if (s === undefined) return;
    s.last = undefined;
    s.queued = undefined;
  }

  /** True while any pause reason holds. */
  get paused(): boolean {
    return this.#pauses.size > 0;
  }
  /** True after cancelAll: nothing is placed any more. */
  get halted(): boolean {
    return this.#halted;
  }

  /** True when orders rest or may rest (or a cycle is in flight): the heartbeat must run. */
  hasOpenOrders(): boolean {
    if (this.tracker.openCount() > 0) return true;
    for (const s of this.#slots.values()) if (s.running !== undefined) return true;
    return false;
  }

  // ---- user events -----------------------------------------------------------------------------

  /**
   * Feed an event of the user stream. A fill is written to the store (committed) BEFORE this
   * returns, then applied to the tracker; the result says whether it was new (log/count it then).
   * Order updates drive the tracker (unknown ids are classified: own ones adopted, foreign ones
   * handled by the policy) and the store.
   * @throws Error when the store is closed (a fill must not be dropped silently).
   */
  onUserEvent(e: UserEvent): FillChange | undefined {
    switch (e.type) {
      case 'fill':
        return this.recordFill(e).change;
      case 'order_update':
        this.tracker.onOrderUpdate(e);
        return undefined;
      case 'disconnected':
      case 'resynced':
      case 'stream_error':
        return undefined;
    }
  }

  /**
   * A fill of the user stream: written to the store (committed) with its source (whose order it
   * is: `fillSource`), then applied to the tracker (src/execution/fill-intake.ts). An external fill
   * is counted apart and reported to `onForeign`; the caller must not hand it to the strategy as its own.
   * @throws Error when the store is closed.
   */
  recordFill(e: FillEvent): { readonly change: FillChange; readonly source: FillSource } {
    return this.#fills.record(e);
  }

  /**
   * A fill from the venue's trade history (backfill after a restart or reconnect, or at shutdown):
   * stored once with its source, applied to the tracker.
   * @throws Error when the store is closed.
   */
  onVenueFill(f: VenueFill): FillChange {
    return this.#fills.venueFill(f);
  }

  /**
   * Whose order `orderId` is: 'bot' when the tracker has it as its own or the store recorded it (an
   * earlier run's, or one adopted), else 'member' in a fleet when it is another member's (seen as
   * such, or on a `market` of another member), else 'external'.
   */
  fillSource(orderId: OrderId, market?: ConditionId): FillSource {
    return this.#fills.fillSource(orderId, market);
  }

  /** Whether `id` was seen as another fleet member's order. */
  isMemberOrder(id: OrderId): boolean {
    return this.#foreign.isMemberOrder(id);
  }

  /**
   * Whether this member books `fill` when it is an external one (in a fleet, outside its markets:
   * when it claimed it; src/execution/foreign-orders.ts `bookExternal`). True for any other fill
   * (the bot's, another member's: the usual rules apply) and outside a fleet.
   * @throws when the fleet cannot be asked
   */
  claimExternal(fill: Pick<FillRecord, 'tradeId' | 'orderId' | 'market'>): Promise<boolean> {
    return this.#fills.claimExternal(fill);
  }

  /** True when another fleet member claimed this external fill (it is in that member's ledger, not ours). */
  othersFill(tradeId: string, orderId: string): boolean {
    return this.#foreign.othersFill(tradeId, orderId);
  }

  /**
   * Marks orders as another fleet member's (e.g. the previous holder's, cancelled when this member
   * takes a market over): their late fills are that member's, not external ones of this member.
   */
  markMemberOrders(ids: readonly OrderId[]): void {
    this.#foreign.markMemberOrders(ids);
  }

  /** Counters of post-only refusals, foreign orders and external fills since start. */
  accountStats(): AccountStats {
    const a = this.#placeOutcomes.counts;
    const f = this.#foreign.counts;
    return {
      postOnlyRejections: a.postOnlyRejections,
      sellBalanceRaces: a.sellBalanceRaces,
      fokNotFilled: a.fokNotFilled,
      externalFills: f.externalFills,
      foreignOrders: { left: f.left, cancelled: f.cancelled, adopted: f.adopted },
    };
  }

  /**
   * Orders found at the venue (restart policy 'adopt', foreign orders left alone, an open-orders
   * listing): the tracker takes them over: the bot's own ones (the store knows them) so the diff
   * keeps or cancels them like its own, foreign ones by the policy.
   */
  adopt(orders: readonly VenueOrder[]): void {
    this.#batched(() => {
      for (const v of orders) this.tracker.applyVenueOrder(v);
    });
  }

  // ---- shutdown and kill switch ----------------------------------------------------------------

  /**
   * Cancel every open order of ours and halt: queued intents are dropped, no place is sent from
   * now on (a cycle in flight stops before its next batch), unknown orders are not re-sent. With
   * `foreignOrders` 'leave', ours are cancelled by id (the venue's cancel-all would take foreign
   * orders too); otherwise with the venue's cancel-all. Orders a cycle placed while this ran are
   * cancelled by id afterwards (cycles in flight are waited for at most `settleMs`, default 1500).
   * Never throws: failures are reported through onError, and `verifyFlat()` is the check (and
   * retries the cancels).
   */
  cancelAll(reason = 'cancel-all', opts: { settleMs?: number } = {}): Promise<CancelOutcome> {
    return cancelAll(this.#flatten, reason, opts);
  }

  /**
   * Query the venue's open orders until none of ours is left or `timeoutMs` passed; open orders of
   * ours found are cancelled again (by id) between queries (foreign ones too with `foreignOrders`
   * 'cancel'; with 'leave' they are left and not counted). For shutdown and the kill switch.
   */
  verifyFlat(opts: { timeoutMs?: number; intervalMs?: number } = {}): Promise<FlatReport> {
    return verifyFlat(this.#flatten, opts);
  }

  /**
   * Resolves when no cycle and no unknown-outcome resolution is in flight. Intents waiting for a
   * backoff timer are not waited for.
   */
  async idle(): Promise<void> {
    for (;;) {
      const ps: Promise<void>[] = [];
      for (const s of this.#slots.values()) if (s.running !== undefined) ps.push(s.running);
      for (const p of this.#outcomes.inFlight()) ps.push(p);
      const foreignCancelling = this.#foreign.cancelling;
      if (foreignCancelling !== undefined) ps.push(foreignCancelling);
      if (ps.length === 0) return;
      await Promise.allSettled(ps);
    }
  }

  /**
   * Halt, stop timers and pending resolutions, wait for requests in flight, detach from the tracker.
   * Does not cancel orders (call cancelAll and verifyFlat first). Idempotent.
   */
  async close(): Promise<void> {
    this.#halt();
    this.#closed = true;
    for (const [h, wake] of this.#sleeps) {
      this.#clock.clearTimeout(h);
      wake();
    }
    this.#sleeps.clear();
    await this.idle();
    this.#unsubscribe();
  }

  #halt(): void {
    this.#halted = true;
    for (const s of this.#slots.values()) {
      s.queued = undefined;
      if (s.timer !== undefined) this.#clock.clearTimeout(s.timer);
      s.timer = undefined;
    }
  }

  /** Immediate orders (FOK/FAK): handed to `execute`, sent, and not sent (paused, halted). */
  immediateStats(): ImmediateStats {
    return this.#immediates.stats();
  }

  /** Counters since start. */
  stats(): ExecutorStats {
    return {
      ...this.#stats,
      ...this.#outcomes.counts,
      paused: this.paused,
      pauseReasons: [...this.#pauses],
      halted: this.#halted,
    };
  }

  // ---- cycles ----------------------------------------------------------------------------------

  #slot(market: ConditionId): Slot {
    let s = this.#slots.get(market);
    if (s === undefined) {
      s = {
        market,
        orders: [],
        quotesFirst: false,
        queued: undefined,
        last: undefined,
        running: undefined,
        timer: undefined,
        notBefore: 0,
        failures: 0,
      };
      this.#slots.set(market, s);
    }
    return s;
  }

  #kick(s: Slot): void {
    if (s.running !== undefined || s.timer !== undefined || this.#halted) return;
    if (s.queued === undefined && s.orders.length === 0) return;
    const wait = s.notBefore - this.#clock.now();
    if (wait > 0) {
      s.timer = this.#clock.setTimeout(() => {
        s.timer = undefined;
        this.#kick(s);
      }, wait);
      return;
    }
    s.running = this.#drain(s)
      .catch((error: unknown) => this.#emitError(`cycle ${s.market}`, error))
      .finally(() => {
        s.running = undefined;
        this.#kick(s);
      });
  }

  async #drain(s: Slot): Promise<void> {
    while ((s.queued !== undefined || s.orders.length > 0) && !this.#halted) {
      if (s.orders.length > 0 && !(s.quotesFirst && s.queued !== undefined)) {
        const orders = s.orders;
        s.orders = [];
        await this.#immediate(s.market, orders);
        continue;
      }
      const d = s.queued;
      if (d === undefined) break;
      s.queued = undefined;
      s.quotesFirst = false;
      const report = await this.#sender.cycle(d);
      this.#stats.cycles++;
      if (report.error === undefined) {
        s.failures = 0;
        this.#emitCycle(report);
        continue;
      }
      this.#stats.failedCycles++;
      s.failures++;
      const err = report.error;
      let delay = Math.min(this.#backoffCap, this.#backoffBase * 2 ** Math.min(s.failures - 1, 30));
      delay = Math.round(delay * (0.5 + 0.5 * this.#random()));
      if (err instanceof RateLimitError) delay = Math.max(delay, Math.min(this.#backoffCap, err.retryAfterMs));
      s.notBefore = this.#clock.now() + delay;
      const retry = isRetryable(err) || !provesNotAccepted(err);
      // the failed intent is retried unless a newer one already replaced it
      if (retry && s.queued === undefined && !this.#halted) s.queued = d;
      this.#emitCycle({ ...report, ...(retry ? { retryInMs: delay } : {}) });
      this.#emitError(`cycle ${s.market}`, err);
      return;
    }
  }

  /** Queues an immediate order in its market's turn (src/execution/immediate-orders.ts). */
  #enqueueImmediate(o: ImmediateIntent): void {
    const s = this.#slot(o.market);
    if (s.orders.length === 0) s.quotesFirst = s.queued !== undefined;
    s.orders.push(o);
    this.#kick(s);
  }

  /** Sends immediate orders in their market's turn (src/execution/immediate-orders.ts). */
  #immediate(market: ConditionId, orders: readonly ImmediateIntent[]): Promise<void> {
    return this.#immediates.send(market, orders);
  }

  // ---- glue ------------------------------------------------------------------------------------

  /** Run `fn` with the store writes of its transitions collected into one transaction. */
  #batched<T>(fn: () => T): T {
    return this.#writes.batched(fn);
  }

  #audit(kind: string, data: unknown): void {
    try {
      this.#store.audit(kind, data);
    } catch (error) {
      this.#emitError('audit', error);
    }
  }

  #emitCycle(r: CycleReport): void {
    for (const fn of this.#onCycle) {
      try {
        fn(r);
      } catch (error) {
        this.#emitError('onCycle listener', error);
      }
    }
  }

  #emitError(where: string, error: unknown): void {
    for (const fn of this.#onError) {
      try {
        fn({ where, error });
      } catch {
        /* a failing error listener must not break execution */
      }
    }
  }

  /** Sleep on the clock; close() ends every sleep at once. */
  #sleep(ms: number): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return new Promise((resolve) => {
      const h = this.#clock.setTimeout(
        () => {
          this.#sleeps.delete(h);
          resolve();
        },
        Math.max(0, ms),
      );
      this.#sleeps.set(h, resolve);
    });
  }
}
