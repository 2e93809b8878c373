/**
 * The executor: turns desired quotes into requests against the Venue port, and keeps the order
 * tracker and the store in step with what the venue answers.
 *
 * Per market, one cycle at a time; the latest intent wins:
 *   submit(desired) ─► [a cycle is running?] ─► queue it (replacing, and so dropping, any older
 *   queued intent for that market: stale intents are never sent; the running cycle's places that
 *   the queued one no longer wants are dropped too, e.g. after a pull)
 *   cycle = diff(desired, live orders, tolerance)
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
 * ours at the venue.
 *
 * Post-only: a quote the venue refuses because it would cross (INVALID_POST_ONLY_ORDER: the book
 * moved between the strategy's look and the venue's) is not an error: the order is rejected, the
 * next intent re-prices it, and it is counted apart (`accountStats`), not handed to the rejection
 * listeners (the kill switch).
 *
 * Selling into a fill: an ask refused for lack of tokens (INVALID_ORDER_NOT_ENOUGH_BALANCE on a
 * SELL) usually means the ask it replaces was being lifted while the new one was sent, and the fill
 * has not reached us yet. Like a crossing, it is re-sized at the next intent and counted apart
 * (`sellBalanceRaces`), up to SELL_RACE_TOLERANCE times in a row for a token with no fill of that
 * token in between; after that the refusals count as rejections again (a real shortfall, which the
 * position audit corrects, must still be able to trip the kill switch).
 *
 * Orders and fills the bot did not make (another client on the same wallet, another member of a
 * fleet) follow `foreignOrders` (leave, cancel or adopt) and are recorded apart: see
 * src/execution/foreign-orders.ts.
 */
import type { Clock, TimerHandle } from '../core/clock.ts';
import {
  AuthError,
  ConfigError,
  MmkitError,
  OrderRejectedError,
  RateLimitError,
  ValidationError,
  isRetryable,
} from '../core/errors.ts';
import type { FillEvent, UserEvent } from '../core/events.ts';
import type { ConditionId, OrderId } from '../core/ids.ts';
import type { DesiredQuotes, ImmediateIntent, QuoteIntent } from '../core/intents.ts';
import type { OrderRejectCode } from '../core/order-rules.ts';
import { isApproved, spendApproval, type Approved } from '../risk/gate.ts';
import { MAX_BATCH_ORDERS } from '../core/rate-limits.ts';
import type {
  CancelOutcome,
  PlaceOutcome,
  PlaceRequest,
  PreparedOrder,
  Venue,
  VenueFill,
  VenueOrder,
} from '../core/venue.ts';
import { fillFromEvent, type FillChange, type FillRecord, type Store } from '../store/store.ts';
import { diffQuotes, type DiffTolerance } from './diff.ts';
import { ForeignOrders, type FillSource, type ForeignEvent } from './foreign-orders.ts';
import { OrderTracker, isOpen, type Transition } from './tracker.ts';
import { UnknownOutcomes } from './unknown-outcomes.ts';
import type {
  AccountStats,
  CycleReport,
  ExecutorOptions,
  ExecutorStats,
  FlatReport,
  RejectionInfo,
} from './executor-types.ts';

export type { FillSource, ForeignEvent, ForeignOrderPolicy } from './foreign-orders.ts';
// the executor's public types (./executor-types.ts holds only those), for importers of this module
export type * from './executor-types.ts';

/** The executor's view of a market's orders: the live ones, without those it is cancelling already. */
const EXCLUDE_CANCELLING = Object.freeze({ excludeCancelling: true });
/** The most orders one POST /orders may carry (the spec's batch limit, src/core/rate-limits.ts). */
export const MAX_PLACE_BATCH = MAX_BATCH_ORDERS;
/** The venue's refusal of a post-only order that would cross: "re-price next time", not an error. */
export const POST_ONLY_CROSSING: OrderRejectCode = 'INVALID_POST_ONLY_ORDER';
export const NOT_ENOUGH_BALANCE: OrderRejectCode = 'INVALID_ORDER_NOT_ENOUGH_BALANCE';
/** SELL balance refusals of one token tolerated in a row (no fill of it between) before they count. */
export const SELL_RACE_TOLERANCE = 3;

/** A cycle's report: its counts, and the error that ended it early. */
function cycleReport(
  market: ConditionId,
  intentAt: number,
  startedAt: number,
  finishedAt: number,
  n: {
    kept: number;
    cancelled: number;
    placed: number;
    skipped: number;
    rejected: number;
    postOnly: number;
    unknown: number;
  },
  error?: unknown,
): CycleReport {
  return {
    market,
    intentAt,
    startedAt,
    finishedAt,
    kept: n.kept,
    cancelled: n.cancelled,
    placed: n.placed,
    skipped: n.skipped,
    rejected: n.rejected,
    postOnlyRejected: n.postOnly,
    unknown: n.unknown,
    ...(error !== undefined ? { error } : {}),
  };
}

interface Slot {
  readonly market: ConditionId;
  /** Approved immediate orders (FOK/FAK) waiting for this market's next turn, oldest first. */
  orders: ImmediateIntent[];
  queued: DesiredQuotes | undefined;
  last: DesiredQuotes | undefined;
  running: Promise<void> | undefined;
  timer: TimerHandle | undefined;
  notBefore: number;
  failures: number;
}

type Listener<T> = (x: T) => void;

function chunks<T>(xs: readonly T[], n: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
}

/**
 * True when a thrown error proves the venue did NOT accept the request (so its orders are not
 * there): a 429, an auth failure, a validation error, a rejection. Anything else (timeouts, network
 * errors, 5xx, unexpected errors) may have landed.
 */
export function provesNotAccepted(err: unknown): boolean {
  return (
    err instanceof RateLimitError ||
    err instanceof AuthError ||
    err instanceof ValidationError ||
    err instanceof ConfigError ||
    err instanceof OrderRejectedError
  );
}

function errorCode(err: unknown): string {
  return err instanceof MmkitError ? err.code : 'ERROR';
}

/**
 * Drives a Venue from desired quotes. See the module comment for the rules.
 * @throws ConfigError from the constructor on a bad batch size or tolerance.
 */
export class Executor {
  readonly tracker: OrderTracker;
  readonly #venue: Venue;
  readonly #store: Store;
  readonly #clock: Clock;
  readonly #tolerance: DiffTolerance;
  readonly #tickPips: (market: ConditionId) => number | undefined;
  readonly #orderType: 'GTC' | 'GTD';
  readonly #postOnly: boolean;
  /** Orders and fills the bot did not make: the foreign-order policy, fleet members' orders, external fills. */
  readonly #foreign: ForeignOrders;
  readonly #expiration: ((nowMs: number) => number) | undefined;
  readonly #maxPlace: number;
  readonly #maxCancel: number;
  readonly #backoffBase: number;
  readonly #backoffCap: number;
  readonly #random: () => number;

  readonly #slots = new Map<ConditionId, Slot>();
  /** Orders whose placement outcome is unknown, resolved from the venue (their counters too). */
  readonly #outcomes: UnknownOutcomes;
  /** Place requests (cycles and resends) on their way: orders may land at the venue until they end. */
  #placing = 0;
  readonly #pauses = new Set<string>();
  #halted = false;
  #closed = false;
  #batch: Parameters<Store['updateOrders']>[0][number][] | undefined;
  readonly #sleeps = new Map<TimerHandle, () => void>();
  readonly #onRejection = new Set<Listener<RejectionInfo>>();
  readonly #onCycle = new Set<Listener<CycleReport>>();
  readonly #onError = new Set<Listener<{ where: string; error: unknown }>>();
  #stats = {
    submitted: 0,
    superseded: 0,
    cycles: 0,
    failedCycles: 0,
    ordersSent: 0,
    cancelsSent: 0,
    rejections: 0,
  };
  readonly #immediateStats = { submitted: 0, sent: 0, skipped: 0 };
  /** Post-only and SELL balance refusals (foreign orders and external fills: `ForeignOrders.counts`). */
  readonly #account = { postOnlyRejections: 0, sellBalanceRaces: 0 };
  /** SELL balance refusals in a row per token, since its last fill (see the module comment). */
  readonly #sellRaces = new Map<string, number>();
  readonly #unsubscribe: () => void;

  constructor(opts: ExecutorOptions) {
    this.#venue = opts.venue;
    this.#store = opts.store;
    this.#clock = opts.clock ?? opts.venue.clock;
    this.tracker = opts.tracker ?? new OrderTracker(this.#clock);
    this.#tolerance = opts.tolerance ?? { priceTicks: 0, sizeFraction: 0 };
    if (!(this.#tolerance.priceTicks >= 0) || !(this.#tolerance.sizeFraction >= 0))
      throw new ConfigError('execution.tolerance', 'priceTicks and sizeFraction must be non-negative numbers');
    this.#tickPips = opts.tickPips ?? (() => undefined);
    this.#orderType = opts.orderType ?? 'GTC';
    this.#postOnly = opts.postOnly ?? false;
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
      cancelIds: (ids) => this.#cancelIds(ids),
      sleep: (ms) => this.#sleep(ms),
      closed: () => this.#closed,
      audit: (kind, data) => this.#audit(kind, data),
      emitError: (where, error) => this.#emitError(where, error),
    });
    this.#expiration = opts.expiration;
    if (this.#orderType === 'GTD' && this.#expiration === undefined)
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
      send: (prepared) => this.#send(prepared),
      refused: (prepared, code, message) => this.#resendRefused(prepared, code, message),
      mayPlace: () => !this.#halted && !this.paused,
      closed: () => this.#closed,
      sleep: (ms) => this.#sleep(ms),
      audit: (kind, data) => this.#audit(kind, data),
      emitError: (where, error) => this.#emitError(where, error),
    });
    this.#backoffCap = opts.backoff?.capMs ?? 30_000;
    this.#random = opts.random ?? Math.random;
    this.#unsubscribe = this.tracker.onTransition((t) => this.#persist(t));
    this.tracker.setClassifier((id, seen) => this.#foreign.classify(id, seen));
  }

  // ---- listeners -------------------------------------------------------------------------------

  /** Each venue rejection of an order (code and message): the kill switch's "repeated rejections". */
  onRejection(fn: Listener<RejectionInfo>): () => void {
    this.#onRejection.add(fn);
    return () => this.#onRejection.delete(fn);
  }
  /** Each finished cycle. */
  onCycle(fn: Listener<CycleReport>): () => void {
    this.#onCycle.add(fn);
    return () => this.#onCycle.delete(fn);
  }
  /** Errors handled internally (a failed request, a store write that failed in a listener). */
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
   * (before that market's next quote cycle, never during one), recorded in the store before it is
   * sent like every order; its fills come through the user stream like any other. Not sent while
   * placing is paused or after cancelAll (counted as skipped). An ambiguous outcome is resolved by
   * id, as for quotes.
   * @throws Error when an order was not approved by the gate, or was executed already
   */
  execute(orders: readonly Approved<ImmediateIntent>[]): void {
    for (const o of orders)
      if (!spendApproval(o))
        throw new Error(
          `executor: an immediate order for ${o.market} was not approved by the risk gate (or was executed already)`,
        );
    for (const o of orders) {
      this.#immediateStats.submitted++;
      if (this.#halted) {
        this.#immediateStats.skipped++;
        continue;
      }
      const s = this.#slot(o.market);
      s.orders.push(o);
      this.#kick(s);
    }
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
   * is: `fillSource`), then applied to the tracker. An external fill is counted apart and reported
   * to `onForeign`; the caller must not hand it to the strategy as its own.
   * @throws Error when the store is closed.
   */
  recordFill(e: FillEvent): { readonly change: FillChange; readonly source: FillSource } {
    const source = this.fillSource(e.orderId, e.market);
    // another member's: in its ledger, not in ours
    if (source === 'member') return { change: 'duplicate', source };
    const rec = fillFromEvent(e);
    // (an external one: in a fleet, outside its markets, booked once the fleet's claim is won)
    const change =
      source === 'bot'
        ? this.#store.applyFill(rec)
        : this.#foreign.bookExternal({ ...rec, source }, (f) => this.#store.applyFill(f));
    this.tracker.onFill(e);
    this.#sellRaces.delete(e.tokenId);
    return { change, source };
  }

  /**
   * A fill from the venue's trade history (backfill after a restart or reconnect, or at shutdown):
   * stored once with its source, applied to the tracker.
   * @throws Error when the store is closed.
   */
  onVenueFill(f: VenueFill): FillChange {
    const source = this.fillSource(f.orderId, f.market);
    if (source === 'member') return 'duplicate';
    const change =
      source === 'bot'
        ? this.#store.applyFill(f)
        : this.#foreign.bookExternal({ ...f, source }, (x) => this.#store.applyFill(x));
    this.tracker.onFill(f);
    this.#sellRaces.delete(f.tokenId);
    return change;
  }

  /**
   * Whose order `orderId` is: 'bot' when the tracker has it as its own or the store recorded it (an
   * earlier run's, or one adopted), else 'member' in a fleet when it is another member's (seen as
   * such, or on a `market` of another member), else 'external'.
   */
  fillSource(orderId: OrderId, market?: ConditionId): FillSource {
    const o = this.tracker.origin(orderId);
    // the bot's own order of this run (nearly every fill) is answered here: no call on the hot path
    if (o === 'own') return 'bot';
    return this.#foreign.fillSource(orderId, o, market);
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
  async claimExternal(fill: Pick<FillRecord, 'tradeId' | 'orderId' | 'market'>): Promise<boolean> {
    if (this.fillSource(fill.orderId, fill.market) !== 'external') return true;
    return this.#foreign.claimExternal(fill);
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
    const a = this.#account;
    const f = this.#foreign.counts;
    return {
      postOnlyRejections: a.postOnlyRejections,
      sellBalanceRaces: a.sellBalanceRaces,
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
  async cancelAll(reason = 'cancel-all', opts: { settleMs?: number } = {}): Promise<CancelOutcome> {
    this.#halt();
    this.#audit('cancel_all', { reason });
    const canceled: OrderId[] = [];
    const notCanceled = new Map<OrderId, string>();
    const merge = (o: CancelOutcome): void => {
      canceled.push(...o.canceled);
      for (const [k, v] of o.notCanceled) notCanceled.set(k, v);
    };
    try {
      // in a fleet the venue's cancel-all would take the other members' orders too: by id
      if (this.#foreign.policy === 'leave' || this.#foreign.fleetMarket !== undefined) {
        const ours = this.tracker.liveOrders().map((o) => o.id);
        if (ours.length > 0) merge(await this.#cancelIds(ours));
      } else {
        const out = await this.#venue.cancelAll();
        this.#stats.cancelsSent++;
        this.#batched(() => this.tracker.onCancelOutcome(out));
        merge(out);
      }
    } catch (error) {
      this.#emitError('cancelAll', error);
    }
    // a cycle whose place request was already on its way may still land orders: wait for it (not
    // forever: verifyFlat keeps cancelling whatever shows up later), then cancel what it placed
    await this.#cyclesSettled(opts.settleMs ?? 1500);
    const rest = this.tracker.liveOrders().map((o) => o.id);
    if (rest.length > 0) {
      try {
        merge(await this.#cancelIds(rest));
      } catch (error) {
        this.#emitError('cancelAll', error);
      }
    }
    return { canceled, notCanceled };
  }

  /**
   * Query the venue's open orders until none of ours is left or `timeoutMs` passed; open orders of
   * ours found are cancelled again (by id) between queries (foreign ones too with `foreignOrders`
   * 'cancel'; with 'leave' they are left and not counted). For shutdown and the kill switch.
   */
  async verifyFlat(opts: { timeoutMs?: number; intervalMs?: number } = {}): Promise<FlatReport> {
    const timeoutMs = opts.timeoutMs ?? 5000;
    const intervalMs = opts.intervalMs ?? 200;
    const start = this.#clock.now();
    let queries = 0;
    let open: readonly VenueOrder[] = [];
    for (;;) {
      queries++;
      let ok = false;
      try {
        open = await this.#venue.openOrders();
        ok = true;
      } catch (error) {
        this.#emitError('verifyFlat', error);
      }
      if (ok && open.length > 0) {
        // the listing shows every order of the wallet: ours, and foreign ones (classified now when new)
        this.#batched(() => {
          for (const v of open) this.tracker.applyVenueOrder(v);
        });
        const ours = open.filter((v) => this.tracker.origin(v.id) !== 'foreign');
        if (ours.length < open.length) {
          this.#foreign.queueListedForCancel(open);
          open = ours;
        }
      }
      // an empty listing proves nothing while a place request is on its way (a slow POST /orders,
      // or the resend of an order whose outcome was unknown): its orders may land after it. Query
      // again once it has ended, and cancel whatever it placed.
      if (ok && open.length === 0 && this.#placing === 0) {
        const r = { flat: true, open: [], queries, elapsedMs: this.#clock.now() - start };
        this.#audit('verify_flat', { flat: true, queries, elapsedMs: r.elapsedMs });
        return r;
      }
      if (ok) {
        const ids = open.map((v) => v.id);
        this.#foreign.takeCancels(ids);
        try {
          if (ids.length > 0) await this.#cancelIds(ids);
        } catch (error) {
          this.#emitError('verifyFlat', error);
        }
      }
      const left = start + timeoutMs - this.#clock.now();
      if (left <= 0) {
        const r = { flat: false, open, queries, elapsedMs: this.#clock.now() - start, placesInFlight: this.#placing };
        this.#audit('verify_flat', {
          flat: false,
          queries,
          open: open.map((v) => v.id),
          placesInFlight: this.#placing,
          elapsedMs: r.elapsedMs,
        });
        return r;
      }
      await this.#sleep(Math.min(intervalMs, left));
    }
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

  /** Wait until no cycle runs, at most `ms` (true when none runs). */
  async #cyclesSettled(ms: number): Promise<boolean> {
    const running = (): Promise<void>[] =>
      [...this.#slots.values()].flatMap((s) => (s.running !== undefined ? [s.running] : []));
    let ps = running();
    if (ps.length === 0) return true;
    let timedOut = false;
    let handle: TimerHandle | undefined;
    const timer = new Promise<void>((resolve) => {
      handle = this.#clock.setTimeout(() => {
        timedOut = true;
        resolve();
      }, ms);
    });
    while (ps.length > 0 && !timedOut) {
      await Promise.race([Promise.allSettled(ps), timer]);
      ps = running();
    }
    if (handle !== undefined) this.#clock.clearTimeout(handle);
    return ps.length === 0;
  }

  /** Counters since start. */
  /** Immediate orders (FOK/FAK): handed to `execute`, sent, and not sent (paused, halted). */
  immediateStats(): { readonly submitted: number; readonly sent: number; readonly skipped: number } {
    return { ...this.#immediateStats };
  }

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
      if (s.orders.length > 0) {
        const orders = s.orders;
        s.orders = [];
        await this.#immediate(s.market, orders);
        continue;
      }
      const d = s.queued;
      if (d === undefined) break;
      s.queued = undefined;
      const report = await this.#cycle(d);
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

  /** Sends immediate orders (at most one place request per batch); never retried: a failure is reported. */
  async #immediate(market: ConditionId, orders: readonly ImmediateIntent[]): Promise<void> {
    for (const batch of chunks(orders, this.#maxPlace)) {
      if (this.paused || this.#halted) {
        this.#immediateStats.skipped += batch.length;
        continue;
      }
      const prepared = this.#venue.prepare(
        batch.map((o) => ({ market, tokenId: o.tokenId, side: o.side, price: o.price, size: o.size, type: o.type })),
      );
      // the ids are known: on disk before anything is sent
      this.#store.recordOrders(prepared);
      for (const p of prepared) this.tracker.addPending(p);
      this.#stats.ordersSent += prepared.length;
      this.#immediateStats.sent += prepared.length;
      let outcomes: readonly PlaceOutcome[];
      try {
        outcomes = await this.#send(prepared);
      } catch (error) {
        this.#batched(() => {
          if (provesNotAccepted(error)) for (const p of prepared) this.tracker.markRejected(p.id, errorCode(error));
          else for (const p of prepared) this.#outcomes.unknown(p.id);
        });
        this.#audit('immediate_error', {
          market,
          code: errorCode(error),
          message: error instanceof Error ? error.message : String(error),
        });
        this.#emitError(`immediate ${market}`, error);
        continue;
      }
      const r = this.#applyOutcomes(prepared, outcomes);
      this.#audit('immediate', { market, sent: prepared.length, rejected: r.rejected, unknown: r.unknown });
    }
  }

  async #cycle(d: DesiredQuotes): Promise<CycleReport> {
    const startedAt = this.#clock.now();
    const market = d.market;
    // the counts of the report (an object, not a closure over locals: one fewer function per cycle)
    const n = { kept: 0, cancelled: 0, placed: 0, skipped: 0, rejected: 0, postOnly: 0, unknown: 0 };
    try {
      // orders whose fate is unknown and not being resolved (e.g. resolution ran out): try again
      for (const u of this.tracker.unknownOrders()) if (u.market === market) this.#outcomes.resolveLater(u.id);
      const again = this.tracker.cancellingOrders(market);
      const live = this.tracker.liveOrdersCached(market, EXCLUDE_CANCELLING);
      const diff = diffQuotes(d, live, this.#tolerance, this.#tickPips(market) ?? 0);
      n.kept = diff.kept.length;
      const cancels = again.length === 0 ? diff.cancels : [...again, ...diff.cancels];
      if (cancels.length > 0) {
        await this.#cancelIds(cancels);
        n.cancelled = cancels.length;
      }
      // a newer intent queued while the cancels were out: what it no longer wants is not placed (the
      // latest set wins: a market pulled meanwhile gets nothing); what it still wants goes out now
      const places = cancels.length > 0 ? this.#stillWanted(market, diff.places) : diff.places;
      n.skipped = diff.places.length - places.length;
      if (places.length > 0) {
        const r = await this.#place(market, places);
        n.placed = r.placed;
        n.skipped += r.skipped;
        n.rejected = r.rejected;
        n.postOnly = r.postOnly;
        n.unknown = r.unknown;
      }
      const { kept, cancelled, placed, skipped, rejected, postOnly, unknown } = n;
      if (cancelled + placed + skipped > 0)
        this.#audit('cycle', {
          market,
          intentAt: d.at,
          kept,
          cancelled,
          placed,
          skipped,
          rejected,
          ...(postOnly > 0 ? { postOnlyRejected: postOnly } : {}),
          unknown,
        });
      return cycleReport(market, d.at, startedAt, this.#clock.now(), n);
    } catch (error) {
      this.#audit('cycle_error', {
        market,
        intentAt: d.at,
        code: errorCode(error),
        message: error instanceof Error ? error.message : String(error),
      });
      return cycleReport(market, d.at, startedAt, this.#clock.now(), n, error);
    }
  }

  /** Cancel ids in batches; not-canceled ids are resolved by querying them. @throws the venue's error. */
  async #cancelIds(ids: readonly OrderId[]): Promise<CancelOutcome> {
    const canceled: OrderId[] = [];
    const notCanceled = new Map<OrderId, string>();
    for (const batch of chunks(ids, this.#maxCancel)) {
      this.tracker.markCancelRequested(batch);
      const out = await this.#venue.cancel(batch);
      this.#stats.cancelsSent++;
      canceled.push(...out.canceled);
      for (const [k, v] of out.notCanceled) notCanceled.set(k, v);
      const check = this.#batched(() => this.tracker.onCancelOutcome(out));
      for (const id of check) {
        const t = this.tracker.get(id);
        if (t === undefined || !isOpen(t.status)) continue;
        let v: VenueOrder | undefined;
        try {
          v = await this.#venue.order(id);
        } catch (error) {
          this.#emitError('cancel/query', error);
          continue; // still cancelRequested: the next cycle cancels it again
        }
        if (v !== undefined) this.tracker.applyVenueOrder(v);
        else if (t.status === 'live' || t.status === 'partially_filled') this.tracker.concludeGone(id);
        // pending/unknown ones are left to their resolution (which will not resend them)
      }
    }
    return { canceled, notCanceled };
  }

  #request(market: ConditionId, q: QuoteIntent): PlaceRequest {
    const base: PlaceRequest = {
      market,
      tokenId: q.tokenId,
      side: q.side,
      price: q.price,
      size: q.size,
      type: this.#orderType,
    };
    return {
      ...base,
      ...(this.#postOnly ? { postOnly: true } : {}),
      ...(this.#orderType === 'GTD' && this.#expiration !== undefined
        ? { expiration: this.#expiration(this.#clock.now()) }
        : {}),
    };
  }

  /**
   * Of `quotes` (places of a running cycle), those the market's queued intent, when one came in since
   * the cycle began, still wants (the same token, side, price and size): the latest set wins, so a
   * newer one is never overtaken by places it no longer wants (e.g. a market pulled while a cycle's
   * cancels were out). Without a queued intent, all.
   */
  #stillWanted(market: ConditionId, quotes: readonly QuoteIntent[]): readonly QuoteIntent[] {
    const q = this.#slots.get(market)?.queued;
    if (q === undefined) return quotes;
    return quotes.filter((p) =>
      q.quotes.some((w) => w.tokenId === p.tokenId && w.side === p.side && w.price === p.price && w.size === p.size),
    );
  }

  async #place(
    market: ConditionId,
    quotes: readonly QuoteIntent[],
  ): Promise<{ placed: number; skipped: number; rejected: number; postOnly: number; unknown: number }> {
    let placed = 0;
    let rejected = 0;
    let postOnly = 0;
    let unknown = 0;
    const batches = chunks(quotes, this.#maxPlace);
    let superseded = 0;
    for (let i = 0; i < batches.length; i++) {
      if (this.paused || this.#halted) {
        let skipped = superseded;
        for (let j = i; j < batches.length; j++) skipped += batches[j]!.length;
        return { placed, skipped, rejected, postOnly, unknown };
      }
      // (after a batch was sent, a newer intent may have come in: see #stillWanted)
      const batch = i === 0 ? batches[i]! : this.#stillWanted(market, batches[i]!);
      superseded += batches[i]!.length - batch.length;
      if (batch.length === 0) continue;
      const prepared = this.#venue.prepare(batch.map((q) => this.#request(market, q)));
      // the ids are known: on disk before anything is sent
      this.#store.recordOrders(prepared);
      for (const p of prepared) this.tracker.addPending(p);
      let outcomes: readonly PlaceOutcome[];
      try {
        this.#stats.ordersSent += prepared.length;
        outcomes = await this.#send(prepared);
      } catch (error) {
        this.#batched(() => {
          if (provesNotAccepted(error)) {
            for (const p of prepared) this.tracker.markRejected(p.id, errorCode(error));
          } else {
            for (const p of prepared) this.#outcomes.unknown(p.id);
          }
        });
        throw error;
      }
      const r = this.#applyOutcomes(prepared, outcomes);
      placed += prepared.length;
      rejected += r.rejected;
      postOnly += r.postOnly;
      unknown += r.unknown;
    }
    return { placed, skipped: superseded, rejected, postOnly, unknown };
  }

  #applyOutcomes(
    prepared: readonly PreparedOrder[],
    outcomes: readonly PlaceOutcome[],
  ): { rejected: number; postOnly: number; unknown: number } {
    return this.#batched(() => this.#applyOutcomesNow(prepared, outcomes));
  }

  #applyOutcomesNow(
    prepared: readonly PreparedOrder[],
    outcomes: readonly PlaceOutcome[],
  ): { rejected: number; postOnly: number; unknown: number } {
    const byId = new Map<OrderId, PlaceOutcome>();
    for (const o of outcomes) byId.set(o.id, o);
    let rejected = 0;
    let postOnly = 0;
    let unknown = 0;
    for (const p of prepared) {
      const o = byId.get(p.id);
      if (o === undefined || (!o.ok && (o.code === 'UNKNOWN' || o.code === 'INVALID_ORDER_DUPLICATED'))) {
        // no answer for it, an ambiguous one, or "the venue already has this hash": find out by id
        this.#outcomes.unknown(p.id);
        unknown++;
      } else if (o.ok) {
        this.tracker.onPlaceOutcome(o);
      } else if (o.code === POST_ONLY_CROSSING) {
        // the book moved: the quote would have taken; re-priced at the next intent (not an error)
        this.tracker.onPlaceOutcome(o);
        postOnly++;
        this.#account.postOnlyRejections++;
      } else if (this.#sellRace(p, o.code)) {
        // selling into a fill that has not reached us: re-sized at the next intent (not an error)
        this.tracker.onPlaceOutcome(o);
      } else {
        this.tracker.onPlaceOutcome(o);
        rejected++;
        this.#rejection(p, o.code, o.message);
      }
    }
    return { rejected, postOnly, unknown };
  }

  /** True (and counted) when a refusal is a tolerated SELL balance race (see the module comment). */
  #sellRace(p: PreparedOrder, code: string): boolean {
    if (code !== NOT_ENOUGH_BALANCE || p.request.side !== 'SELL') return false;
    const token = p.request.tokenId;
    const n = (this.#sellRaces.get(token) ?? 0) + 1;
    this.#sellRaces.set(token, n);
    if (n > SELL_RACE_TOLERANCE) return false;
    this.#account.sellBalanceRaces++;
    this.#audit('sell_balance_race', { id: p.id, tokenId: token, inARow: n });
    return true;
  }

  /** A resend's definite refusal (the tracker told already): counted as a first send's refusal is. */
  #resendRefused(prepared: PreparedOrder, code: string, message: string): void {
    if (code === POST_ONLY_CROSSING) this.#account.postOnlyRejections++;
    else if (!this.#sellRace(prepared, code)) this.#rejection(prepared, code, message);
  }

  #rejection(p: PreparedOrder, code: string, message: string): void {
    this.#stats.rejections++;
    const info: RejectionInfo = {
      id: p.id,
      market: p.request.market,
      tokenId: p.request.tokenId,
      code,
      message,
      at: this.#clock.now(),
    };
    this.#audit('rejected', info);
    for (const fn of this.#onRejection) {
      try {
        fn(info);
      } catch (error) {
        this.#emitError('onRejection listener', error);
      }
    }
  }

  /** `venue.place`, counted while on its way (verifyFlat does not trust an empty listing meanwhile). */
  async #send(prepared: readonly PreparedOrder[]): Promise<readonly PlaceOutcome[]> {
    this.#placing++;
    try {
      return await this.#venue.place(prepared);
    } finally {
      this.#placing--;
    }
  }

  // ---- glue ------------------------------------------------------------------------------------

  /**
   * Persist a tracker transition (the prepared row itself was recorded before sending). Inside
   * `#batched`, transitions are collected and written in one transaction.
   */
  #persist(t: Transition): void {
    if (t.from === null) return;
    const o = t.order;
    if (o.foreign) return; // not the bot's: the store records its own orders only
    const patch = { status: o.status, sizeMatched: o.sizeMatched, rejectCode: o.rejectCode };
    // (two literals, not a spread of an optional part: this runs for every transition of every order)
    const u = o.adopted
      ? {
          id: o.id,
          patch,
          adopt: {
            id: o.id,
            market: o.market,
            tokenId: o.tokenId,
            side: o.side,
            price: o.price,
            originalSize: o.originalSize,
            sizeMatched: o.sizeMatched,
            status: o.status,
          },
        }
      : { id: o.id, patch };
    if (this.#batch !== undefined) {
      this.#batch.push(u);
      return;
    }
    try {
      this.#store.updateOrders([u]);
    } catch (error) {
      this.#emitError('store', error);
    }
  }

  /** Run `fn` with the store writes of its transitions collected into one transaction. */
  #batched<T>(fn: () => T): T {
    if (this.#batch !== undefined) return fn();
    const batch: Parameters<Store['updateOrders']>[0][number][] = [];
    this.#batch = batch;
    try {
      return fn();
    } finally {
      this.#batch = undefined;
      try {
        this.#store.updateOrders(batch);
      } catch (error) {
        this.#emitError('store', error);
      }
    }
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
