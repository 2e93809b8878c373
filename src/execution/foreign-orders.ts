/**
 * Orders and fills the bot did not make (another client on the same wallet): the rules of the
 * executor (src/execution/executor.ts), which hands this module what it needs of its parts.
 *
 * An order id neither the tracker nor the store knows is FOREIGN and follows `foreignOrders`:
 * 'leave' (tracked apart: never diffed, never cancelled, read by the gate's self-trade check),
 * 'cancel' (cancelled by id), or 'adopt' (taken over as the bot's own, and said so). A fill of an
 * order that is not the bot's is recorded with source 'external', counted apart, and reported to
 * `onForeign`, never as the bot's own.
 *
 * In a fleet (issue 21), an order on a market of another member that this bot did not place is that
 * member's: never foreign (not counted, logged, cancelled nor adopted), tracked apart like a foreign
 * one, and its fills are ignored (they are in that member's ledger).
 *
 * A fill of an order no member placed, on a market outside the fleet's markets, is seen by every
 * member and held by none: it is booked (as external) only by the member that claims it in the
 * fleet's Redis (`externalClaims`, src/fleet/member-orders.ts `claimExternalFill`), once
 * fleet-wide. The claim takes a round trip: the fill is booked when it is won, its later status
 * updates with it; a fill another member claimed is that member's (`othersFill`).
 *
 * Kept apart from the executor so that its hot path (submit, cycles, a fill of its own order) does
 * not go through here: only ids the tracker does not have as its own do.
 */
import type { Clock } from '../core/clock.ts';
import { ConfigError } from '../core/errors.ts';
import type { ConditionId, OrderId } from '../core/ids.ts';
import type { LiveOrderView } from '../core/intents.ts';
import type { FillChange, FillRecord, Store } from '../store/store.ts';
import { isOpen, type OrderOrigin, type OrderTracker } from './tracker.ts';

/**
 * What happens to an order on the wallet that this bot did not place (`bot.foreignOrders`): left
 * alone, cancelled, or adopted (taken over as the bot's own).
 */
export type ForeignOrderPolicy = 'leave' | 'cancel' | 'adopt';

/**
 * Who placed a filled order: this bot ('bot', in any run), another member of its fleet ('member':
 * not this bot's, not foreign either; see `ExecutorOptions.fleetMarket`), or someone else on the
 * wallet ('external').
 */
export type FillSource = 'bot' | 'member' | 'external';

/** Something on the wallet the bot did not do (see `Executor.onForeign`). */
export type ForeignEvent =
  | {
      readonly kind: 'order';
      /** What is done with it ('cancel': a cancel is being sent). */
      readonly policy: ForeignOrderPolicy;
      readonly order: LiveOrderView;
      readonly at: number;
    }
  | {
      readonly kind: 'fill';
      /** The fill as recorded (source 'external'). */
      readonly fill: FillRecord;
      readonly change: FillChange;
      readonly at: number;
    };

/** Counters of foreign orders (by what was done with them) and external fills since start. */
export interface ForeignCounts {
  /** Fills of orders the bot did not place, recorded with source 'external' (each (trade, order) once). */
  readonly externalFills: number;
  readonly left: number;
  readonly cancelled: number;
  readonly adopted: number;
}

/** The executor's parts the foreign-order rules use, and its settings of them. */
export interface ForeignOrdersOptions {
  /** The executor's tracker: the origin of an id, the state of an order to cancel. */
  readonly tracker: Pick<OrderTracker, 'origin' | 'get'>;
  /** The executor's store: whether it recorded an order (the bot's, in any run). */
  readonly store: Pick<Store, 'order'>;
  readonly clock: Pick<Clock, 'now'>;
  /** `bot.foreignOrders` (default 'leave'). */
  readonly policy?: ForeignOrderPolicy;
  /** `ExecutorOptions.fleetMarket`: true on a market of another member of the fleet (undefined: a lone daemon). */
  readonly fleetMarket?: ((market: ConditionId) => boolean) | undefined;
  /** In a fleet: the claims of external fills outside the fleet's markets (undefined: every one is booked here). */
  readonly externalClaims?: ExternalFillClaims | undefined;
  /** Wait before the n-th retry of failed foreign cancels and external fill claims: `retryBaseMs * 2 ** n`. */
  readonly retryBaseMs: number;
  /** Cancels orders by id, keeping tracker and store in step. @throws the venue's error. */
  cancelIds(ids: readonly OrderId[]): Promise<unknown>;
  /** Sleeps on the executor's clock (ended at once by its close). */
  sleep(ms: number): Promise<void>;
  /** True once the executor is closed: no cancel is started or retried any more. */
  closed(): boolean;
  audit(kind: string, data: unknown): void;
  emitError(where: string, error: unknown): void;
}

/**
 * A fleet's claims of external fills (`ExecutorOptions.externalClaims`): a fill of an order no member
 * placed, on a market no member holds, is booked by one member only.
 */
export interface ExternalFillClaims {
  /** True when an external fill on `market` is booked only by the member that claims it (outside the fleet's markets). */
  needed(market: ConditionId): boolean;
  /**
   * True when this member books the fill (it claimed it, now or before).
   * @throws when the fleet cannot be asked (nothing is booked: asked again later)
   */
  claim(tradeId: string, orderId: string): Promise<boolean>;
}

/** How many other fleet members' order ids an executor remembers (the oldest are forgotten first). */
const MEMBER_ORDERS_MAX = 100_000;

/** Attempts of a claim of an external fill (then given up: the next delivery of the fill asks again). */
const CLAIM_ATTEMPTS = 5;

/** A claim of an external fill: this member's, another member's, or in flight (the fills to book if won). */
type ClaimState = 'mine' | 'theirs' | { readonly pending: FillRecord[] };

/**
 * The executor's foreign-order and external-fill rules (see the module comment).
 * @throws ConfigError from the constructor on an unknown policy.
 */
export class ForeignOrders {
  /** `bot.foreignOrders`. */
  readonly policy: ForeignOrderPolicy;
  /** True on a market of another member of the fleet; undefined: a lone daemon. */
  readonly fleetMarket: ((market: ConditionId) => boolean) | undefined;
  readonly #o: ForeignOrdersOptions;
  /** Orders of other members of the fleet seen on the wallet (never foreign). */
  readonly #memberOrders = new Set<OrderId>();
  readonly #onForeign = new Set<(x: ForeignEvent) => void>();
  /** Foreign orders to cancel (policy 'cancel'), and the run cancelling them. */
  readonly #foreignCancels = new Set<OrderId>();
  #foreignCancelling: Promise<void> | undefined;
  readonly #counts = { externalFills: 0, left: 0, cancelled: 0, adopted: 0 };
  /** Claims of external fills by `trade|order` (bounded like the members' orders). */
  readonly #claims = new Map<string, ClaimState>();

  constructor(opts: ForeignOrdersOptions) {
    this.#o = opts;
    this.policy = opts.policy ?? 'leave';
    this.fleetMarket = opts.fleetMarket;
    if (!['leave', 'cancel', 'adopt'].includes(this.policy))
      throw new ConfigError('bot.foreignOrders', `must be leave, cancel or adopt, got ${String(this.policy)}`);
  }

  /** Counters since start (a live view: read it, do not keep it). */
  get counts(): ForeignCounts {
    return this.#counts;
  }

  /** The run cancelling foreign orders (policy 'cancel'), while one is in flight. */
  get cancelling(): Promise<void> | undefined {
    return this.#foreignCancelling;
  }

  /** Each foreign order first seen (and what is done with it) and each external fill recorded. */
  onForeign(fn: (x: ForeignEvent) => void): () => void {
    this.#onForeign.add(fn);
    return () => this.#onForeign.delete(fn);
  }

  /**
   * Whose order `orderId` is when the tracker does not have it as its own (`origin`: the tracker's
   * origin of it, 'foreign' or undefined): 'bot' when the store recorded it (an earlier run's, or
   * one adopted), else 'member' in a fleet when it is another member's (seen as such, or on a
   * `market` of another member), else 'external'. (The executor answers 'own' ones itself: the hot
   * path of its fills does not come here.)
   */
  fillSource(orderId: OrderId, origin: OrderOrigin | undefined, market?: ConditionId): FillSource {
    if (origin === undefined && this.#storeKnows(orderId)) return 'bot';
    if (this.#memberOrders.has(orderId)) return 'member';
    if (origin === undefined && market !== undefined && this.fleetMarket?.(market) === true) return 'member';
    return 'external';
  }

  /** Whether `id` was seen as another fleet member's order. */
  isMemberOrder(id: OrderId): boolean {
    return this.#memberOrders.has(id);
  }

  /**
   * Marks orders as another fleet member's (e.g. the previous holder's, cancelled when this member
   * takes a market over): their late fills are that member's, not external ones of this member.
   */
  markMemberOrders(ids: readonly OrderId[]): void {
    for (const id of ids) this.#addMemberOrder(id);
  }

  #addMemberOrder(id: OrderId): void {
    this.#memberOrders.add(id);
    // bounded: the oldest go first (a fill of one that old is the rarest of cases)
    if (this.#memberOrders.size > MEMBER_ORDERS_MAX) {
      let n = MEMBER_ORDERS_MAX / 10;
      for (const x of this.#memberOrders) {
        if (n-- <= 0) break;
        this.#memberOrders.delete(x);
      }
    }
  }

  /** True when the store recorded `id` (the bot's, in any run); a store that cannot be read says yes (safe: ours are cancelled). */
  #storeKnows(id: OrderId): boolean {
    try {
      return this.#o.store.order(id) !== undefined;
    } catch (error) {
      this.#o.emitError('store', error);
      return true;
    }
  }

  /** The tracker's classifier: an id it never saw is own when the store knows it, else foreign (adopted by policy 'adopt'). */
  classify(id: OrderId, seen: LiveOrderView): OrderOrigin {
    if (this.#storeKnows(id)) return 'own';
    // another member's (fleet): kept apart like a foreign one, but never the policy's; also one marked
    // so at a takeover (the previous holder's, cancelled by this member: their updates arrive once the
    // market is this member's; trial 22 F10: each was reported as a foreign order "left")
    if (this.#memberOrders.has(id)) return 'foreign';
    if (this.fleetMarket?.(seen.market) === true) {
      this.#addMemberOrder(id);
      return 'foreign';
    }
    const policy = this.policy;
    const a = this.#counts;
    if (policy === 'adopt') a.adopted++;
    else if (policy === 'cancel') a.cancelled++;
    else a.left++;
    this.#o.audit('foreign_order', {
      id,
      market: seen.market,
      tokenId: seen.tokenId,
      side: seen.side,
      price: seen.price,
      originalSize: seen.originalSize,
      sizeMatched: seen.sizeMatched,
      policy,
    });
    this.#emitForeign({ kind: 'order', policy, order: seen, at: this.#o.clock.now() });
    if (policy === 'adopt') return 'own';
    if (policy === 'cancel') {
      this.#foreignCancels.add(id);
      // after the tracker has made its entry (the classifier runs inside the tracker's call)
      queueMicrotask(() => this.#startForeignCancels());
    }
    return 'foreign';
  }

  /**
   * An open-orders listing's foreign orders (the tracker has classified them already): with policy
   * 'cancel', those that are not another member's are queued for cancelling (see `takeCancels`).
   */
  queueListedForCancel(open: readonly { readonly id: OrderId }[]): void {
    if (this.policy === 'cancel')
      for (const v of open)
        if (this.#o.tracker.origin(v.id) === 'foreign' && !this.#memberOrders.has(v.id)) this.#foreignCancels.add(v.id);
  }

  /** Appends the foreign orders queued for cancelling to `ids` (those not in it yet) and empties the queue. */
  takeCancels(ids: OrderId[]): void {
    for (const id of this.#foreignCancels) if (!ids.includes(id)) ids.push(id);
    this.#foreignCancels.clear();
  }

  #startForeignCancels(): void {
    if (this.#foreignCancelling !== undefined || this.#o.closed() || this.#foreignCancels.size === 0) return;
    this.#foreignCancelling = this.#cancelForeign().finally(() => {
      this.#foreignCancelling = undefined;
    });
  }

  /** Cancels the foreign orders queued by policy 'cancel' (by id; failed cancels are tried again, 3 attempts). */
  async #cancelForeign(): Promise<void> {
    for (let attempt = 0; attempt < 3 && this.#foreignCancels.size > 0 && !this.#o.closed(); attempt++) {
      const ids = [...this.#foreignCancels].filter((id) => {
        const t = this.#o.tracker.get(id);
        return t !== undefined && isOpen(t.status);
      });
      this.#foreignCancels.clear();
      if (ids.length === 0) return;
      this.#o.audit('foreign_cancel', { ids });
      try {
        await this.#o.cancelIds(ids);
      } catch (error) {
        this.#o.emitError('foreign cancel', error);
        for (const id of ids) this.#foreignCancels.add(id);
        await this.#o.sleep(this.#o.retryBaseMs * 2 ** attempt);
      }
    }
  }

  /**
   * Books an external fill (`book` writes it to the store) and reports it (`externalFill`), unless the
   * fleet claims such fills (`externalClaims`): then it is booked only once this member won its
   * claim (at once when it did already; a claim is sent otherwise, and the fill and its later status
   * updates are booked when it is won). Returns the store's change, 'duplicate' when nothing was
   * booked now.
   */
  bookExternal(fill: FillRecord, book: (f: FillRecord) => FillChange): FillChange {
    const c = this.#o.externalClaims;
    if (c === undefined || !c.needed(fill.market)) return this.#book(fill, book);
    const key = `${fill.tradeId}|${fill.orderId}`;
    const s = this.#claims.get(key);
    if (s === 'mine') return this.#book(fill, book);
    if (s === 'theirs') return 'duplicate';
    if (s !== undefined) {
      s.pending.push(fill);
      return 'duplicate';
    }
    const pending = [fill];
    this.#setClaim(key, { pending });
    void this.#claim(c, fill, key, book);
    return 'duplicate';
  }

  /**
   * Whether this member books `fill` when it is external (see `bookExternal`): asks the fleet when
   * it has not yet (the start's backfill, which books it itself). True outside a fleet's claims.
   * @throws when the fleet cannot be asked
   */
  async claimExternal(fill: Pick<FillRecord, 'tradeId' | 'orderId' | 'market'>): Promise<boolean> {
    const c = this.#o.externalClaims;
    if (c === undefined || !c.needed(fill.market)) return true;
    const key = `${fill.tradeId}|${fill.orderId}`;
    const s = this.#claims.get(key);
    if (s === 'mine' || s === 'theirs') return s === 'mine';
    const won = await c.claim(fill.tradeId, fill.orderId);
    // (a claim in flight meanwhile gets the same answer: the fleet's record does not change)
    if (typeof this.#claims.get(key) !== 'object') this.#setClaim(key, won ? 'mine' : 'theirs');
    return won;
  }

  /** True when another member of the fleet claimed this external fill (it is in that member's ledger). */
  othersFill(tradeId: string, orderId: string): boolean {
    return this.#claims.get(`${tradeId}|${orderId}`) === 'theirs';
  }

  #book(fill: FillRecord, book: (f: FillRecord) => FillChange): FillChange {
    const change = book(fill);
    this.externalFill(fill, change);
    return change;
  }

  #setClaim(key: string, s: ClaimState): void {
    this.#claims.delete(key);
    this.#claims.set(key, s);
    if (this.#claims.size > MEMBER_ORDERS_MAX) {
      let n = MEMBER_ORDERS_MAX / 10;
      for (const [k, v] of this.#claims) {
        if (n <= 0) break;
        if (typeof v === 'object') continue; // (in flight: kept)
        this.#claims.delete(k);
        n--;
      }
    }
  }

  /** Claims an external fill in the fleet (retried on failure), then books what waited for it if won. */
  async #claim(
    c: ExternalFillClaims,
    fill: FillRecord,
    key: string,
    book: (f: FillRecord) => FillChange,
  ): Promise<void> {
    let won: boolean | undefined;
    for (let attempt = 0; won === undefined; attempt++) {
      try {
        won = await c.claim(fill.tradeId, fill.orderId);
      } catch (error) {
        if (attempt + 1 >= CLAIM_ATTEMPTS || this.#o.closed()) {
          // given up: the next delivery of the fill (an audit, a backfill) asks again
          this.#claims.delete(key);
          this.#o.emitError('external fill claim', error);
          return;
        }
        await this.#o.sleep(this.#o.retryBaseMs * 2 ** attempt);
      }
    }
    const s = this.#claims.get(key);
    const pending = typeof s === 'object' ? s.pending : [];
    this.#setClaim(key, won ? 'mine' : 'theirs');
    if (!won) return;
    for (const f of pending) {
      try {
        this.#book(f, book);
      } catch (error) {
        this.#o.emitError('external fill', error);
      }
    }
  }

  /** An external fill recorded (`change`: new or a duplicate): counted when new, reported to `onForeign`. */
  externalFill(fill: FillRecord, change: FillChange): void {
    if (change === 'new') {
      this.#counts.externalFills++;
      this.#o.audit('external_fill', { tradeId: fill.tradeId, orderId: fill.orderId, market: fill.market });
    }
    this.#emitForeign({ kind: 'fill', fill, change, at: this.#o.clock.now() });
  }

  #emitForeign(x: ForeignEvent): void {
    for (const fn of this.#onForeign) {
      try {
        fn(x);
      } catch (error) {
        this.#o.emitError('onForeign listener', error);
      }
    }
  }
}
