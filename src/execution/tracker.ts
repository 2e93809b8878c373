/**
 * The order tracker: one small state machine per own order, driven by the answers to our requests
 * (place, cancel, query by id) AND by the user stream (order updates, fills), in whatever order they
 * arrive. It is the source of "what rests where" for the quote diff and for risk.
 *
 *   pending ──► live ──► partially_filled ──► filled
 *      │  │       └──────────┴──► cancelled
 *      │  └─► rejected
 *      └──► unknown ──(query by id / resend the SAME signed order)──► any of the above
 *
 * Rules that make it safe under replays and reordering:
 *  - Status only moves forward (pending/unknown < live < partially_filled < terminal); a stale
 *    event (a PLACEMENT after an UPDATE, a LIVE after the CANCELLATION) changes nothing.
 *  - `sizeMatched` never decreases; fills are counted once per trade id (a trade first seen FAILED
 *    is not counted; FAILED reversal of positions is the store's job).
 *  - Terminal states (filled, cancelled, rejected) are final when the venue said so. A terminal
 *    state WE concluded (`inferred`: "the venue does not know this id") yields to later venue
 *    evidence (an order update for that id), because evidence beats inference.
 *  - An order the tracker never saw is classified once, by the classifier its driver set
 *    (`setClassifier`; the executor asks its store and applies `bot.foreignOrders`): OWN (placed by
 *    an earlier run, or a foreign order adopted by policy) is adopted, so the diff can cancel it;
 *    FOREIGN (placed by someone else on this wallet) is tracked apart: never in `liveOrders` (the
 *    diff, the strategy and risk limits never see it as ours), only in `foreignOrders` (the gate's
 *    self-trade check). Without a classifier every such order is own (the tracker alone knows no
 *    better).
 */
import type { Clock } from '../core/clock.ts';
import type { OrderUpdateEvent, TradeStatus } from '../core/events.ts';
import type { ConditionId, OrderId, TokenId } from '../core/ids.ts';
import type { LiveOrderView } from '../core/intents.ts';
import type { Micro, Pips, Side } from '../core/units.ts';
import type { CancelOutcome, PlaceOutcome, PreparedOrder, VenueOrder } from '../core/venue.ts';
import { fromVenueStatus, isOpen, isTerminal, RANK, type TrackedStatus } from './order-status.ts';

/** The tracker's states (the store's `orders.status`). */

const NO_OPTS: { excludeCancelling?: boolean } = Object.freeze({});
const NO_VIEWS: readonly LiveOrderView[] = Object.freeze([]);
// the statuses and their order (./order-status.ts), re-exported for the tracker's importers
export { fromVenueStatus, isOpen, isTerminal, type TrackedStatus } from './order-status.ts';

/** One tracked order (read-only view). */
export interface TrackedOrder {
  readonly id: OrderId;
  readonly market: ConditionId;
  readonly tokenId: TokenId;
  readonly side: Side;
  readonly price: Pips;
  readonly originalSize: Micro;
  readonly sizeMatched: Micro;
  readonly status: TrackedStatus;
  /** Venue reject code, or our conclusion ('NEVER_ARRIVED', 'NOT_FOUND'), when rejected/cancelled by inference. */
  readonly rejectCode: string | null;
  /** The signed order, kept while its fate may need a resend (not for adopted orders). */
  readonly prepared: PreparedOrder | undefined;
  /** True once the SAME prepared order was resent (at most once). */
  readonly resent: boolean;
  /** A cancel was requested; the order must never be kept by the diff or resent. */
  readonly cancelRequested: boolean;
  /** The current terminal state is our conclusion, not the venue's word. */
  readonly inferred: boolean;
  /** Seen first in the stream or at the venue, not placed by this process. */
  readonly adopted: boolean;
  /** Placed by someone else on this wallet (not by this bot, in any run): never the strategy's. */
  readonly foreign: boolean;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** What an order the tracker never saw is: the bot's own (adopted) or someone else's (foreign). */
export type OrderOrigin = 'own' | 'foreign';

/** Decides the origin of an order id the tracker never saw, once per id (`seen`: what the venue showed of it). */
export type OrderClassifier = (id: OrderId, seen: LiveOrderView) => OrderOrigin;

/** A change of one order: status and/or matched size. `from` is null when the order is new. */
export interface Transition {
  readonly from: TrackedStatus | null;
  readonly to: TrackedStatus;
  readonly order: TrackedOrder;
  /** What caused it: 'prepared', 'place', 'cancel', 'query', 'order_update', 'fill', 'inferred'. */
  readonly cause: string;
}

export type TransitionListener = (t: Transition) => void;

/** Options of the tracker. */
export interface TrackerOptions {
  /** Terminal orders are forgotten this long after their last change (default 10 min). */
  retainTerminalMs?: number;
}

interface Entry {
  id: OrderId;
  market: ConditionId;
  tokenId: TokenId;
  side: Side;
  price: Pips;
  originalSize: Micro;
  /** Largest matched size the venue reported in an order update or query. */
  reportedMatched: number;
  /** Per trade id: the size it counts for (0 when first seen FAILED); undefined until its first fill (most orders have none). */
  fills: Map<string, number> | undefined;
  sizeMatched: Micro;
  status: TrackedStatus;
  rejectCode: string | null;
  prepared: PreparedOrder | undefined;
  /** A FAK (kept when `prepared` is dropped at a terminal status: its answer may come after it). */
  fak: boolean;
  resent: boolean;
  cancelRequested: boolean;
  inferred: boolean;
  adopted: boolean;
  foreign: boolean;
  createdAt: number;
  updatedAt: number;
  /** The last LiveOrderView made of it (remade when `sizeMatched` changed: nothing else of a view can). */
  live: LiveOrderView | undefined;
}

/** The LiveOrderView of an entry: the one made before while it still shows the entry. */
function liveView(e: Entry): LiveOrderView {
  const v = e.live;
  if (v !== undefined && v.sizeMatched === e.sizeMatched) return v;
  return (e.live = {
    id: e.id,
    market: e.market,
    tokenId: e.tokenId,
    side: e.side,
    price: e.price,
    originalSize: e.originalSize,
    sizeMatched: e.sizeMatched,
    createdAt: e.createdAt,
  });
}

function view(e: Entry): TrackedOrder {
  return {
    id: e.id,
    market: e.market,
    tokenId: e.tokenId,
    side: e.side,
    price: e.price,
    originalSize: e.originalSize,
    sizeMatched: e.sizeMatched,
    status: e.status,
    rejectCode: e.rejectCode,
    prepared: e.prepared,
    resent: e.resent,
    cancelRequested: e.cancelRequested,
    inferred: e.inferred,
    adopted: e.adopted,
    foreign: e.foreign,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
  };
}

/**
 * Tracks own orders. Synchronous and idempotent: feeding the same answer or event twice changes
 * nothing the second time. Transitions are reported to listeners (the executor persists them).
 */
export class OrderTracker {
  readonly #clock: Clock;
  readonly #retainMs: number;
  readonly #orders = new Map<OrderId, Entry>();
  /** The open entries only (the diff runs on these at every cycle: not on the retained terminal ones). */
  readonly #open = new Map<OrderId, Entry>();
  /** `#open` by market, each in `#open`'s order (kept by the same set and delete calls). */
  readonly #openIn = new Map<string, Map<OrderId, Entry>>();
  readonly #listeners = new Set<TransitionListener>();
  #lastPrune = 0;
  /**
   * The terminal entries as they became terminal or changed since, with their `updatedAt` then,
   * oldest first (from `#expiryHead`): `#prune` forgets an entry when its last item here expires,
   * and reads nothing younger. An entry changed again has a newer item; its older ones are skipped.
   */
  #expiry: Array<[Entry, number]> = [];
  #expiryHead = 0;
  /** False once a time went backwards (a wall clock set back): the next prune looks at every order. */
  #expiryOrdered = true;
  /**
   * The lists of `liveOrdersCached` by market ('' for all markets), and without the orders being
   * cancelled: a market's and the all-markets lists are dropped by every change an open order's
   * view of that market can show.
   */
  readonly #liveCache = new Map<string, readonly LiveOrderView[]>();
  readonly #liveCacheX = new Map<string, readonly LiveOrderView[]>();
  /** Open foreign orders (apart from `#open`: never the diff's, the strategy's nor the limits'). */
  readonly #foreignOpen = new Map<OrderId, Entry>();
  /** Bumped by every change of a foreign order a view can show; the lists of `foreignOrders` by market. */
  #foreignVersion = 0;
  readonly #foreignCache = new Map<string, { version: number; list: readonly LiveOrderView[] }>();
  #classify: OrderClassifier | undefined;

  constructor(clock: Clock, opts: TrackerOptions = {}) {
    this.#clock = clock;
    this.#retainMs = opts.retainTerminalMs ?? 600_000;
  }

  /** Subscribe to transitions; returns the unsubscribe function. */
  onTransition(fn: TransitionListener): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /**
   * Sets what decides the origin of an order id never seen (see the module comment); the executor
   * sets it. Ids already tracked keep theirs.
   */
  setClassifier(fn: OrderClassifier | undefined): void {
    this.#classify = fn;
  }

  /** Whether an id is tracked as own or foreign; undefined when not tracked (never seen, or forgotten). Allocates nothing. */
  origin(id: OrderId): OrderOrigin | undefined {
    const e = this.#orders.get(id);
    return e === undefined ? undefined : e.foreign ? 'foreign' : 'own';
  }

  /** A signed order about to be sent: tracked as pending. Idempotent (a resend is not new). */
  addPending(p: PreparedOrder): void {
    if (this.#orders.has(p.id)) return;
    const now = this.#clock.now();
    const r = p.request;
    const e: Entry = {
      id: p.id,
      market: r.market,
      tokenId: r.tokenId,
      side: r.side,
      price: r.price,
      originalSize: r.size,
      reportedMatched: 0,
      fills: undefined,
      sizeMatched: 0 as Micro,
      status: 'pending',
      rejectCode: null,
      prepared: p,
      fak: r.type === 'FAK',
      resent: false,
      cancelRequested: false,
      inferred: false,
      adopted: false,
      foreign: false,
      createdAt: now,
      updatedAt: now,
      live: undefined,
    };
    this.#orders.set(p.id, e);
    this.#emit(null, e, 'prepared');
  }

  /** The answer of POST /orders for one order. Returns the new status (undefined for an untracked id). */
  onPlaceOutcome(o: PlaceOutcome): TrackedStatus | undefined {
    const e = this.#orders.get(o.id);
    if (e === undefined) return undefined;
    if (o.ok) {
      switch (o.status) {
        case 'live':
        case 'delayed':
          this.#advance(e, 'live', 'place', 'venue');
          break;
        case 'matched':
          // matched at once, nothing rests: fully for GTC/GTD/FOK; a FAK's rest was dropped (its
          // matched size comes from the stream): filled when its fills make its size, else cancelled
          // (the rest killed: the venue's CANCELED) until they do, whichever of the answer and the
          // stream comes first (trial 13 F13: one partial FAK was stored filled, another cancelled)
          if (!e.fak) {
            this.#raiseMatched(e, e.originalSize);
            this.#advance(e, 'filled', 'place', 'venue');
          } else this.#advance(e, e.sizeMatched >= e.originalSize ? 'filled' : 'cancelled', 'place', 'venue');
          break;
        case 'unmatched':
          this.#advance(e, 'cancelled', 'place', 'venue');
          break;
      }
    } else if (o.code === 'UNKNOWN') {
      this.markUnknown(o.id);
    } else {
      this.#reject(e, o.code, 'place', 'venue');
    }
    return e.status;
  }

  /** The request's fate is not known (timeout, dropped connection): pending → unknown. */
  markUnknown(id: OrderId): void {
    const e = this.#orders.get(id);
    if (e !== undefined) this.#advance(e, 'unknown', 'place', 'venue');
  }

  /** Definitive non-acceptance of a pending/unknown order with a code (venue or transport). */
  markRejected(id: OrderId, code: string, inferred = false): void {
    const e = this.#orders.get(id);
    if (e === undefined) return;
    this.#reject(e, code, inferred ? 'inferred' : 'place', inferred ? 'inferred' : 'venue');
  }

  /** The SAME prepared order is being resent (at most once). */
  markResent(id: OrderId): void {
    const e = this.#orders.get(id);
    if (e !== undefined) e.resent = true;
  }

  /** A cancel was sent for these ids: they are never kept by the diff nor resent from now on. */
  markCancelRequested(ids: readonly OrderId[]): void {
    for (const id of ids) {
      const e = this.#orders.get(id);
      if (e !== undefined) {
        e.cancelRequested = true;
        this.#bumpOf(e, false);
      }
    }
  }

  #setOpen(e: Entry): void {
    if (e.foreign) {
      this.#foreignOpen.set(e.id, e);
      return;
    }
    this.#open.set(e.id, e);
    let m = this.#openIn.get(e.market);
    if (m === undefined) this.#openIn.set(e.market, (m = new Map()));
    m.set(e.id, e);
  }

  #deleteOpen(e: Entry): void {
    if (e.foreign) {
      this.#foreignOpen.delete(e.id);
      return;
    }
    this.#open.delete(e.id);
    this.#openIn.get(e.market)?.delete(e.id);
  }

  /**
   * A change of the entry (own or foreign) that its market's lists are made anew for. `shown`: one a
   * list of open orders shows (the entry joined or left them, or its matched size changed; a view
   * has no status, nor whether a cancel was requested).
   */
  #bumpOf(e: Entry, shown = true): void {
    if (e.foreign) this.#foreignVersion++;
    else this.#bump(e.market, shown);
  }

  /**
   * Drops the cached lists of `market` and the all-markets lists. A market's list changes identity
   * with any change of its orders (the strategies' filters of unchanged input compare it, and what
   * they output is counted); the all-markets list of every order (the risk view's: the gate reads
   * its contents only) is kept when the change does not show in it.
   */
  #bump(market: string, shown = true): void {
    this.#liveCache.delete(market);
    if (shown) this.#liveCache.delete('');
    this.#liveCacheX.delete(market);
    this.#liveCacheX.delete('');
  }

  /**
   * The answer of DELETE /orders (or cancel-all). Canceled ids become cancelled; returns the ids the
   * venue did not cancel (they must be resolved by querying them: matched meanwhile, or unknown).
   */
  onCancelOutcome(o: CancelOutcome): OrderId[] {
    for (const id of o.canceled) {
      const e = this.#orders.get(id);
      if (e !== undefined) this.#advance(e, 'cancelled', 'cancel', 'venue');
    }
    return [...o.notCanceled.keys()];
  }

  /** The venue's record of an order (query by id, open-orders listing): adopt (own or foreign) or advance. */
  applyVenueOrder(v: VenueOrder): void {
    let e = this.#orders.get(v.id);
    if (e === undefined) e = this.#adopt(v);
    const before = e.sizeMatched;
    this.#raiseMatched(e, v.sizeMatched);
    if (
      !this.#advance(e, fromVenueStatus(v.status, e.sizeMatched, e.originalSize), 'query', 'venue') &&
      e.sizeMatched !== before
    )
      this.#touch(e, e.status, 'query');
  }

  /**
   * Our conclusion that the venue does not have this order (a query by id found nothing): pending or
   * unknown → rejected (`NEVER_ARRIVED`); live or partially filled → cancelled (`NOT_FOUND`). Marked
   * inferred, so later venue evidence for the id still wins.
   */
  concludeGone(id: OrderId): void {
    const e = this.#orders.get(id);
    if (e === undefined || isTerminal(e.status)) return;
    if (e.status === 'pending' || e.status === 'unknown')
      this.#advance(e, 'rejected', 'inferred', 'inferred', 'NEVER_ARRIVED');
    else this.#advance(e, 'cancelled', 'inferred', 'inferred', 'NOT_FOUND');
  }

  /** An order update of the user stream (stream or reconcile). Unknown ids are adopted (own or foreign). */
  onOrderUpdate(u: OrderUpdateEvent): void {
    let e = this.#orders.get(u.id);
    if (e === undefined) e = this.#adopt(u);
    const before = e.sizeMatched;
    this.#raiseMatched(e, u.sizeMatched);
    if (
      !this.#advance(e, fromVenueStatus(u.status, e.sizeMatched, e.originalSize), 'order_update', 'venue') &&
      e.sizeMatched !== before
    )
      this.#touch(e, e.status, 'order_update');
  }

  /**
   * A fill of one own order in one trade, at one trade status. Counted once per trade id (later
   * statuses of the same trade change nothing here); a trade first seen as FAILED is not counted.
   * The matched size never decreases (as the venue's does not). Fills for ids the tracker does not
   * know are ignored (the store still records them); a foreign order's fills raise its matched size.
   */
  onFill(f: {
    readonly tradeId: string;
    readonly orderId: OrderId;
    readonly size: number;
    readonly status: TradeStatus;
  }): void {
    const e = this.#orders.get(f.orderId);
    if (e === undefined || e.fills?.has(f.tradeId) === true) return;
    (e.fills ??= new Map()).set(f.tradeId, f.status === 'FAILED' ? 0 : f.size);
    const before = e.sizeMatched;
    this.#recomputeMatched(e);
    if (e.sizeMatched === before) return;
    const full = e.sizeMatched >= e.originalSize;
    // a fill is venue evidence the order exists: pending/unknown/live move up with it
    if (!this.#advance(e, full ? 'filled' : 'partially_filled', 'fill', 'venue')) this.#touch(e, e.status, 'fill');
  }

  /** One order, or undefined. */
  get(id: OrderId): TrackedOrder | undefined {
    this.#prune();
    const e = this.#orders.get(id);
    return e === undefined ? undefined : view(e);
  }

  /**
   * Orders that rest or may rest (pending, live, partially filled, unknown), as the diff and risk
   * see them, optionally of one market. With `excludeCancelling`, orders with a cancel requested are
   * left out (the diff must not keep them; the executor cancels them again).
   */
  liveOrders(market?: ConditionId, opts: { excludeCancelling?: boolean } = {}): LiveOrderView[] {
    this.#prune();
    const out: LiveOrderView[] = [];
    const open = market === undefined ? this.#open : this.#openIn.get(market);
    if (open === undefined) return out;
    const x = opts.excludeCancelling === true;
    for (const e of open.values()) {
      if (!isOpen(e.status) || (x && e.cancelRequested)) continue;
      out.push(liveView(e));
    }
    return out;
  }

  /**
   * `liveOrders(market)` memoised until the next change of any order of the market (status,
   * matched size, cancel requested, a new or adopted order): the same array (and views) while
   * nothing changed, so a hot caller (the risk gate and the strategy on every book event of a
   * backtest) allocates nothing. The list of all markets' orders (`market` undefined, with the
   * orders being cancelled) is kept until a change it shows (an order opened, adopted or closed,
   * a matched size): not a move between open states nor a cancel requested. Read-only: callers
   * must not mutate it.
   */
  liveOrdersCached(market?: ConditionId, opts: { excludeCancelling?: boolean } = NO_OPTS): readonly LiveOrderView[] {
    const key = market ?? '';
    // a market's list is rebuilt only when an order of that market changed (a cancel request
    // included: the list without the orders being cancelled, the executor's, is dropped alike)
    const cache = opts.excludeCancelling === true ? this.#liveCacheX : this.#liveCache;
    const c = cache.get(key);
    if (c !== undefined) return c;
    const list = this.liveOrders(market, opts);
    cache.set(key, list);
    return list;
  }

  /**
   * Foreign orders (placed by someone else on this wallet) that rest or may rest, with something
   * left to match, optionally of one market: what the gate's self-trade check reads. The same
   * array while no foreign order changed (a shared empty one when there are none). Read-only.
   */
  foreignOrders(market?: ConditionId): readonly LiveOrderView[] {
    if (this.#foreignOpen.size === 0) return NO_VIEWS;
    const key = market ?? '';
    const c = this.#foreignCache.get(key);
    if (c !== undefined && c.version === this.#foreignVersion) return c.list;
    const out: LiveOrderView[] = [];
    for (const e of this.#foreignOpen.values())
      if (isOpen(e.status) && e.sizeMatched < e.originalSize && (market === undefined || e.market === market))
        out.push(liveView(e));
    const list = out.length === 0 ? NO_VIEWS : out;
    this.#foreignCache.set(key, { version: this.#foreignVersion, list });
    return list;
  }

  /** Open foreign orders with a cancel requested or not (policy 'cancel' cancels them). */
  openForeign(): TrackedOrder[] {
    const out: TrackedOrder[] = [];
    for (const e of this.#foreignOpen.values()) if (isOpen(e.status)) out.push(view(e));
    return out;
  }

  /** Open orders with a cancel requested (the executor repeats the cancel). */
  cancellingOrders(market?: ConditionId): OrderId[] {
    const out: OrderId[] = [];
    for (const e of this.#open.values())
      if (isOpen(e.status) && e.cancelRequested && (market === undefined || e.market === market)) out.push(e.id);
    return out;
  }

  /** Orders whose outcome is unknown. */
  unknownOrders(): TrackedOrder[] {
    // a loop, not spread/filter/map: the executor asks on every cycle, and there are nearly never any
    const out: TrackedOrder[] = [];
    for (const e of this.#open.values()) if (e.status === 'unknown') out.push(view(e));
    return out;
  }

  /** Number of open own orders (any market; foreign ones are not counted). */
  openCount(): number {
    return this.#open.size;
  }

  /** Every tracked order (terminal ones until they are pruned). */
  all(): TrackedOrder[] {
    return [...this.#orders.values()].map(view);
  }

  // ---- internals -------------------------------------------------------------------------------

  #adopt(v: LiveOrderView): Entry {
    const now = this.#clock.now();
    const foreign = this.#classify?.(v.id, v) === 'foreign';
    const e: Entry = {
      id: v.id,
      market: v.market,
      tokenId: v.tokenId,
      side: v.side,
      price: v.price,
      originalSize: v.originalSize,
      reportedMatched: 0,
      fills: undefined,
      sizeMatched: 0 as Micro,
      status: 'unknown',
      rejectCode: null,
      prepared: undefined,
      fak: false,
      resent: false,
      cancelRequested: false,
      inferred: false,
      adopted: true,
      foreign,
      createdAt: now,
      updatedAt: now,
      live: undefined,
    };
    this.#orders.set(e.id, e);
    this.#setOpen(e);
    this.#bumpOf(e);
    // no transition yet: the caller advances it to the venue's state right away
    return e;
  }

  #recomputeMatched(e: Entry): void {
    let sum = 0;
    if (e.fills !== undefined) for (const size of e.fills.values()) sum += size;
    const m = Math.max(e.reportedMatched, sum, e.sizeMatched);
    const before = e.sizeMatched;
    e.sizeMatched = (e.originalSize > 0 ? Math.min(m, e.originalSize) : m) as Micro;
    this.#bumpOf(e, e.sizeMatched !== before);
  }

  /** Raise the venue-reported matched size (monotonic); the caller advances/emits. */
  #raiseMatched(e: Entry, reported: number): void {
    if (reported > e.reportedMatched) e.reportedMatched = reported;
    this.#recomputeMatched(e);
  }

  #reject(e: Entry, code: string, cause: string, evidence: 'venue' | 'inferred'): void {
    if (e.status !== 'pending' && e.status !== 'unknown' && !(isTerminal(e.status) && e.inferred)) return; // a live order is not "rejected"
    this.#advance(e, 'rejected', cause, evidence, code);
  }

  /**
   * Move to `to` when that is forward (pending → unknown counts as forward), or when the current
   * terminal state was only inferred and venue evidence arrives. The matched size is folded in (a
   * live order with a matched size is partially filled). Emits and returns true when the status
   * changed; `code` becomes the reject code then.
   */
  #advance(
    e: Entry,
    to: TrackedStatus,
    cause: string,
    evidence: 'venue' | 'inferred',
    code: string | null = null,
  ): boolean {
    if (to === 'live' || to === 'partially_filled') {
      if (e.sizeMatched >= e.originalSize && e.originalSize > 0) to = 'filled';
      else if (e.sizeMatched > 0) to = 'partially_filled';
    }
    const from = e.status;
    if (from === to) {
      if (e.inferred && evidence === 'venue') e.inferred = false;
      return false;
    }
    const revive = isTerminal(from) && e.inferred && evidence === 'venue';
    // an order cancelled (or a FAK whose rest was killed) whose fills then make its whole size was
    // filled before the cancel took: filled
    const filledAfterAll =
      from === 'cancelled' && to === 'filled' && e.originalSize > 0 && e.sizeMatched >= e.originalSize;
    if (!revive && !filledAfterAll) {
      if (isTerminal(from)) return false;
      const forward = RANK[to] > RANK[from] || (from === 'pending' && to === 'unknown');
      if (!forward) return false;
    }
    e.status = to;
    e.inferred = evidence === 'inferred';
    e.rejectCode = code;
    if (isTerminal(to) && !e.inferred) e.prepared = undefined;
    this.#touch(e, from, cause);
    return true;
  }

  #touch(e: Entry, from: TrackedStatus | null, cause: string): void {
    e.updatedAt = this.#clock.now();
    this.#emit(from, e, cause);
  }

  #emit(from: TrackedStatus | null, e: Entry, cause: string): void {
    // shown when it joins or leaves the open orders (a change of its matched size bumped already)
    this.#bumpOf(e, (e.foreign ? this.#foreignOpen : this.#open).has(e.id) !== isOpen(e.status));
    if (isOpen(e.status)) this.#setOpen(e);
    else {
      this.#deleteOpen(e);
      const q = this.#expiry;
      if (q.length > this.#expiryHead && e.updatedAt < q[q.length - 1]![1]) this.#expiryOrdered = false;
      q.push([e, e.updatedAt]);
    }
    const t: Transition = { from, to: e.status, order: view(e), cause };
    for (const fn of this.#listeners) fn(t);
  }

  /** Forgets the terminal orders unchanged for `retainMs` (at most once a second). */
  #prune(): void {
    const now = this.#clock.now();
    if (now - this.#lastPrune < 1000) return;
    this.#lastPrune = now;
    const retain = this.#retainMs;
    if (!this.#expiryOrdered) {
      // times went backwards: every order, and the expiry queue made again in order
      for (const [id, e] of this.#orders)
        if (isTerminal(e.status) && now - e.updatedAt > retain) this.#orders.delete(id);
      this.#expiry = [...this.#orders.values()]
        .filter((e) => isTerminal(e.status))
        .sort((a, b) => a.updatedAt - b.updatedAt)
        .map((e): [Entry, number] => [e, e.updatedAt]);
      this.#expiryHead = 0;
      this.#expiryOrdered = true;
      return;
    }
    // the items in time order: the expired ones first
    const q = this.#expiry;
    let h = this.#expiryHead;
    while (h < q.length && now - q[h]![1] > retain) {
      const [e, at] = q[h++]!;
      if (e.updatedAt === at && isTerminal(e.status) && this.#orders.get(e.id) === e) this.#orders.delete(e.id);
    }
    if (h > 1024 && h * 2 > q.length) {
      q.splice(0, h);
      h = 0;
    }
    this.#expiryHead = h;
  }
}
