/**
 * The engine's state: everything a strategy may read, updated by the loop with each event BEFORE
 * the strategy sees it (src/engine/loop.ts). Pure and synchronous: no I/O, no clock reads (the loop
 * passes the time in), so the same state runs live and in backtests.
 *
 *  - Book mirrors per token (BookMirrors of src/book/mirror.ts): stale until the first snapshot,
 *    from a market `disconnected` until each token's fresh snapshot, on a detected desync, and
 *    when the book is crossed (best bid >= best ask: the mirror no longer equals any real book).
 *    A stale token is queued for a fresh snapshot (`takeResyncRequests`). A tick-size change starts
 *    a new book epoch (`bookEpoch`) and updates the market's tick (`market(cid).tick`).
 *  - Own orders from `order_update` events (or the executor's order tracker, which knows those in flight).
 *  - Positions from fills, keyed by (trade id, order id): each fill is counted once whatever status
 *    arrives first (MATCHED, MINED, CONFIRMED, RETRYING) and reversed on FAILED (a FAILED that
 *    arrives first is never counted). Average cost and realized PnL per token.
 *  - Collateral available to new orders (set from the venue's balance by the loop).
 *  - Quotability per market (`quotable`): every book of the market fresh, the user channel in
 *    sync (when required), the market not resolved. Markets whose quotability may have changed
 *    are collected in `dirtyMarkets` for the loop to act on.
 */
import { BookMirrors, type BookMirror } from '../book/mirror.ts';
import {
  assertNever,
  type FillEvent,
  type MmkitEvent,
  type OrderStatus,
  type OrderUpdateEvent,
  type TradeStatus,
} from '../core/events.ts';
import type { ConditionId, OrderId, TokenId } from '../core/ids.ts';
import type { LiveOrderView } from '../core/intents.ts';
import { PRICE_SCALE, tickFromPips, tickPips, type Micro, type Pips, type Side } from '../core/units.ts';
import type { BookView, PositionView, StrategyState } from '../strategy/api.ts';
import type { MarketInfo, VenueOrder } from '../core/venue.ts';
import { Fifo } from './fifo.ts';

/** An own order as the state keeps it. */
export interface OwnOrder extends LiveOrderView {
  readonly status: OrderStatus;
  /** Clock time of the last update, unix ms. */
  readonly updatedAt: number;
}

/** What the state needs of a fill (a FillEvent, a VenueFill, or a stored fill). */
export interface FillLike {
  readonly tradeId: string;
  readonly orderId: string;
  readonly tokenId: string;
  readonly side: Side;
  readonly price: number;
  readonly size: number;
  readonly status: TradeStatus;
}

/** Where own open orders come from when not from the events alone (e.g. the executor's tracker). */
export interface OrderViewSource {
  openOrders(market: ConditionId): readonly LiveOrderView[];
}

/** Options of the state. */
export interface EngineStateOptions {
  /** Require the user channel to be in sync for a market to be quotable (default true). */
  requireUserSync?: boolean;
  /** Own open orders from here instead of from the order events (the executor's tracker). */
  orders?: OrderViewSource;
  /** Check each price_change batch's best prices against the venue's (default true). */
  verifyTop?: boolean;
  /** Terminal order ids remembered so a late update cannot revive them (default 50,000). */
  terminalCapacity?: number;
}

/** Counters of the state. */
export interface EngineStateStats {
  events: number;
  /** Books found crossed (marked stale). */
  crossed: number;
  /** Books whose best prices disagreed with the venue's (marked stale). */
  desyncs: number;
  /** Fills counted into positions / reversed by FAILED / seen again (ignored). */
  fillsCounted: number;
  fillsReversed: number;
  fillDuplicates: number;
}

const TERMINAL: ReadonlySet<OrderStatus> = new Set<OrderStatus>(['MATCHED', 'CANCELED', 'UNMATCHED']);
const EMPTY_ORDERS: readonly LiveOrderView[] = Object.freeze([]);

/** A read-only view of one mirror (BookView of the strategy API). */
class MirrorView implements BookView {
  constructor(private readonly m: BookMirror) {}
  get tokenId(): TokenId {
    return this.m.tokenId as TokenId;
  }
  get bestBid(): Pips | null {
    return this.m.bestBid();
  }
  get bestAsk(): Pips | null {
    return this.m.bestAsk();
  }
  get mid(): number | null {
    const b = this.m.bestBid();
    const a = this.m.bestAsk();
    return b === null || a === null ? null : (b + a) / 2;
  }
  get stale(): boolean {
    return this.m.stale;
  }
  levels(side: 'bids' | 'asks', depth?: number): ReadonlyArray<readonly [Pips, Micro]> {
    // one side only (the same levels as levels().bids / .asks; half the scan) [backtest perf]
    return this.m.sideLevels(side === 'bids', depth ?? Infinity);
  }
}

interface FillRecord {
  readonly tokenId: string;
  readonly side: Side;
  readonly price: number;
  readonly size: number;
  failed: boolean;
  /** An adjustment (adjustPosition): not keyed, never reversed. */
  readonly adjustment?: true;
}

/** Average-cost position of one token, rebuilt from its fills on a reversal. */
class Position implements PositionView {
  size = 0 as Micro;
  avgPrice: number | null = null;
  realized = 0;
  readonly fills: FillRecord[] = [];
  base: { size: number; avgPrice: number | null; realized: number } = { size: 0, avgPrice: null, realized: 0 };

  apply(side: Side, price: number, qty: number): void {
    if (qty <= 0) return;
    const q = side === 'BUY' ? qty : -qty;
    const size = this.size as number;
    const avg = this.avgPrice ?? price;
    if (size === 0 || Math.sign(size) === Math.sign(q)) {
      const abs = Math.abs(size);
      this.avgPrice = (avg * abs + price * qty) / (abs + qty);
      this.size = (size + q) as Micro;
      return;
    }
    const closing = Math.min(Math.abs(size), qty);
    this.realized += ((price - avg) * closing * Math.sign(size)) / PRICE_SCALE;
    const next = size + q;
    this.size = next as Micro;
    if (next === 0) this.avgPrice = null;
    else if (Math.sign(next) !== Math.sign(size)) this.avgPrice = price; // flipped: the rest opened at this price
  }

  rebuild(): void {
    this.size = this.base.size as Micro;
    this.avgPrice = this.base.avgPrice;
    this.realized = this.base.realized;
    for (const f of this.fills) if (!f.failed) this.apply(f.side, f.price, f.size);
  }
}

const FLAT: PositionView = Object.freeze({ size: 0 as Micro, avgPrice: null, realized: 0 });

/** The engine's state (see the module comment). Implements the strategy API's StrategyState. */
export class EngineState implements StrategyState {
  /** Book mirrors, one per token. */
  readonly books: BookMirrors;
  /** Clock time of the event being processed, unix ms. */
  now = 0;
  /** Collateral available to new orders, micro. */
  availableCollateral = 0 as Micro;
  /** Collateral reserved by open orders, micro (as the venue last said). */
  reservedCollateral = 0 as Micro;
  maxOrderSize?: (market: ConditionId) => Micro; // the gate's (set by the kernel; StrategyState.maxOrderSize)
  /** Markets whose quotability may have changed since the loop last looked (the loop clears it). */
  readonly dirtyMarkets = new Set<ConditionId>();
  readonly stats: EngineStateStats = {
    events: 0,
    crossed: 0,
    desyncs: 0,
    fillsCounted: 0,
    fillsReversed: 0,
    fillDuplicates: 0,
  };

  readonly #markets = new Map<ConditionId, MarketInfo>();
  readonly #tokenMarket = new Map<string, ConditionId>();
  readonly #views = new Map<string, MirrorView>();
  readonly #epochs = new Map<string, number>();
  readonly #resolved = new Set<ConditionId>();
  /** Markets the venue lists closed or not accepting orders now (`market_updated`): not quoted while so. */
  readonly #closed = new Set<ConditionId>();
  readonly #winners = new Map<ConditionId, TokenId>();
  readonly #resync = new Set<string>();
  readonly #orders = new Map<string, OwnOrder>();
  readonly #ordersByMarket = new Map<string, Map<string, OwnOrder>>();
  readonly #orderLists = new Map<string, readonly LiveOrderView[]>();
  readonly #terminal = new Set<string>();
  /** `#terminal`'s ids in insertion order (ids are only added new and only deleted oldest first). */
  readonly #terminalOrder = new Fifo<string>();
  readonly #terminalCap: number;
  readonly #fills = new Map<string, FillRecord>();
  /** `#fills`' keys in insertion order while bounded (`boundFills`; keys are only added new and only forgotten oldest first). */
  #fillOrder: Fifo<string> | undefined;
  readonly #positions = new Map<string, Position>();
  readonly #requireUser: boolean;
  readonly #source: OrderViewSource | undefined;
  #marketSynced = false;
  #userSynced = false;

  /** @param markets the markets the engine trades (their tokens' books are mirrored). */
  constructor(markets: Iterable<MarketInfo>, o: EngineStateOptions = {}) {
    this.books = new BookMirrors({ verifyTop: o.verifyTop ?? true });
    this.#requireUser = o.requireUserSync ?? true;
    this.#source = o.orders;
    this.#terminalCap = o.terminalCapacity ?? 50_000;
    for (const m of markets) this.addMarket(m);
  }

  // ---- set-up ----------------------------------------------------------------------------------

  /** Adds (or replaces) a market: its tokens' mirrors are created stale. */
  addMarket(m: MarketInfo): void {
    this.#markets.set(m.market, m);
    for (const t of m.tokens) {
      this.#tokenMarket.set(t.tokenId, m.market);
      const mirror = this.books.ensure(t.tokenId);
      if (mirror.tickSize === 0) mirror.tickSize = tickPips(m.tick);
      if (!this.#views.has(t.tokenId)) this.#views.set(t.tokenId, new MirrorView(mirror));
      if (!this.#epochs.has(t.tokenId)) this.#epochs.set(t.tokenId, 0);
    }
    if (!m.active) this.#resolved.add(m.market);
    this.dirtyMarkets.add(m.market);
  }

  /** The markets, by condition id (MarketInfo.tick follows tick-size changes). Pass it as the strategy context's `markets`. */
  get markets(): ReadonlyMap<ConditionId, MarketInfo> {
    return this.#markets;
  }

  /** One market's info (its current tick), or undefined. */
  market(cid: ConditionId): MarketInfo | undefined {
    return this.#markets.get(cid);
  }

  /** The market of a token, or undefined when the engine does not trade it. */
  marketOf(tokenId: string): ConditionId | undefined {
    return this.#tokenMarket.get(tokenId);
  }

  /** Sets the venue's collateral figures (micro). */
  setCollateral(available: number, reserved: number): void {
    this.availableCollateral = available as Micro;
    this.reservedCollateral = reserved as Micro;
  }

  /**
   * Sets a token's position as of before the fills this state will see (e.g. held at start and
   * not covered by seeded fills). Fills already applied are re-applied on top.
   */
  setBasePosition(tokenId: string, p: { size: number; avgPrice: number | null; realized?: number }): void {
    const pos = this.#position(tokenId);
    pos.base = { size: p.size, avgPrice: p.avgPrice, realized: p.realized ?? 0 };
    pos.rebuild();
  }

  /**
   * Applies a fill that did not come as an event (the store's fills at start, fills backfilled by
   * the restart reconciliation). Same dedupe as events: seeding a fill the stream delivers later
   * counts it once. Returns true when it changed a position.
   */
  seedFill(f: FillLike): boolean {
    return this.#applyFill(f);
  }

  /**
   * Moves a token's position by `delta` micro-shares at `price` pips, as a fill without key or fee
   * would (a reconciliation adjustment, or a split / merge / redeem leg): the venue's holdings are
   * the truth, and risk and strategies read this state. A zero delta changes nothing.
   */
  adjustPosition(tokenId: string, delta: number, price: number): void {
    if (!Number.isSafeInteger(delta) || delta === 0) return;
    const r: FillRecord = {
      tokenId,
      side: delta > 0 ? 'BUY' : 'SELL',
      price,
      size: Math.abs(delta),
      failed: false,
      adjustment: true,
    };
    const p = this.#position(tokenId);
    p.fills.push(r);
    p.apply(r.side, r.price, r.size);
  }

  /** Adds own orders found at the venue (adopted at start). Terminal ones are ignored. */
  adoptOrders(orders: Iterable<VenueOrder>, now = this.now): void {
    for (const o of orders) {
      if (TERMINAL.has(o.status)) continue;
      this.#upsertOrder({
        id: o.id,
        market: o.market,
        tokenId: o.tokenId,
        side: o.side,
        price: o.price,
        originalSize: o.originalSize,
        sizeMatched: o.sizeMatched,
        status: o.status,
        updatedAt: now,
      });
    }
  }

  // ---- StrategyState -----------------------------------------------------------------------------

  /** A token's book view, or undefined when the token is not mirrored. */
  book(tokenId: TokenId): BookView | undefined {
    return this.#views.get(tokenId);
  }

  /** A token's position (flat when none). */
  position(tokenId: TokenId): PositionView {
    return this.#positions.get(tokenId) ?? FLAT;
  }

  /** Own open orders in a market (from the executor's tracker when one was given). */
  openOrders(market: ConditionId): readonly LiveOrderView[] {
    if (this.#source !== undefined) return this.#source.openOrders(market);
    let l = this.#orderLists.get(market);
    if (l === undefined) {
      const m = this.#ordersByMarket.get(market);
      l = m === undefined || m.size === 0 ? EMPTY_ORDERS : Object.freeze([...m.values()]);
      this.#orderLists.set(market, l);
    }
    return l;
  }

  // ---- engine queries ------------------------------------------------------------------------------

  /** Every own open order the events have shown (not the tracker's view). */
  ownOrders(): IterableIterator<OwnOrder> {
    return this.#orders.values();
  }

  /** One own order by id, while open. */
  ownOrder(id: OrderId): OwnOrder | undefined {
    return this.#orders.get(id);
  }

  /** The book epoch of a token: 0 at start, +1 on every tick-size change. */
  bookEpoch(tokenId: string): number {
    return this.#epochs.get(tokenId) ?? 0;
  }

  /** True once the market resolved (or was inactive from the start). */
  isResolved(cid: ConditionId): boolean {
    return this.#resolved.has(cid);
  }

  /** The winning token of a market seen resolving, null when resolved (or inactive) with no winner seen, undefined when not resolved. */
  winner(cid: ConditionId): TokenId | null | undefined {
    return this.#winners.get(cid) ?? (this.#resolved.has(cid) ? null : undefined);
  }

  /** True while the market channel is in sync (after a resynced, until a disconnected). */
  get marketSynced(): boolean {
    return this.#marketSynced;
  }

  /** True while the user channel is in sync. */
  get userSynced(): boolean {
    return this.#userSynced;
  }

  /**
   * Whether quoting in the market is allowed by the data: every book of the market fresh (not
   * stale, not crossed), the user channel in sync when required, the market not resolved.
   */
  quotable(cid: ConditionId): boolean {
    const m = this.#markets.get(cid);
    if (m === undefined || this.#resolved.has(cid) || this.#closed.has(cid)) return false;
    if (this.#requireUser && !this.#userSynced) return false;
    for (const t of m.tokens) {
      const b = this.books.get(t.tokenId);
      if (b === undefined || b.stale) return false;
    }
    return true;
  }

  /** Why a market is not quotable (for logs), or undefined when it is. */
  whyNotQuotable(cid: ConditionId): string | undefined {
    const m = this.#markets.get(cid);
    if (m === undefined) return 'unknown market';
    if (this.#resolved.has(cid)) return 'market resolved or inactive';
    if (this.#closed.has(cid)) return 'market closed (the venue accepts no orders)';
    if (this.#requireUser && !this.#userSynced) return 'user channel not in sync';
    for (const t of m.tokens) {
      const b = this.books.get(t.tokenId);
      if (b === undefined || !b.snapshotted) return `no book yet for ${t.outcome}`;
      if (b.stale) return `stale book for ${t.outcome}`;
    }
    return undefined;
  }

  /** Tokens that need a fresh snapshot (crossed or desynced books), cleared by the call; undefined when none. */
  takeResyncRequests(): TokenId[] | undefined {
    if (this.#resync.size === 0) return undefined;
    const out = [...this.#resync] as TokenId[];
    this.#resync.clear();
    return out;
  }

  // ---- applying events ---------------------------------------------------------------------------

  /**
   * Applies one event. Throws only on a malformed event (e.g. a price outside [1, 9999] in a
   * snapshot): the loop catches, counts and logs it, and the book concerned is marked stale.
   * @throws RangeError from the mirror on out-of-range levels
   */
  apply(e: MmkitEvent, now: number): void {
    this.now = now;
    this.stats.events++;
    switch (e.type) {
      case 'book_snapshot': {
        try {
          this.books.apply(e);
        } catch (err) {
          this.books.get(e.tokenId)?.markStale();
          this.#touchToken(e.tokenId);
          throw err;
        }
        this.#checkCrossed(e.tokenId);
        this.#touchToken(e.tokenId);
        return;
      }
      case 'level_change': {
        let r;
        try {
          r = this.books.apply(e);
        } catch (err) {
          const m = this.books.get(e.tokenId);
          if (m !== undefined && !m.stale) {
            m.markStale();
            this.#resync.add(e.tokenId);
            this.#touchToken(e.tokenId);
          }
          throw err;
        }
        if (r.desynced.length > 0) {
          for (const d of r.desynced) {
            this.stats.desyncs++;
            this.#resync.add(d.tokenId);
            this.#touchToken(d.tokenId);
          }
        }
        if (e.endOfBatch) this.#checkCrossed(e.tokenId);
        return;
      }
      case 'tick_size_change': {
        this.books.apply(e);
        this.#epochs.set(e.tokenId, (this.#epochs.get(e.tokenId) ?? 0) + 1);
        const cid = this.#tokenMarket.get(e.tokenId);
        const m = cid === undefined ? undefined : this.#markets.get(cid);
        if (m !== undefined && tickPips(m.tick) !== e.new) {
          try {
            this.#markets.set(m.market, { ...m, tick: tickFromPips(e.new) });
          } catch {
            /* not a venue tick: keep the old one (the event is the venue's, the check is ours) */
          }
        }
        if (cid !== undefined) this.dirtyMarkets.add(cid);
        return;
      }
      case 'last_trade':
        this.books.apply(e);
        return;
      case 'market_resolved':
        if (this.#markets.has(e.market)) {
          this.#resolved.add(e.market);
          this.#winners.set(e.market, e.winningTokenId);
          this.dirtyMarkets.add(e.market);
        }
        return;
      case 'market_updated': {
        const m = this.#markets.get(e.market);
        if (m === undefined) return;
        // the tick stays the market channel's (tick_size_change); the rest is the venue's listing now
        this.#markets.set(e.market, { ...e.info, tick: m.tick });
        if (e.info.active) this.#closed.delete(e.market);
        else this.#closed.add(e.market);
        this.dirtyMarkets.add(e.market);
        return;
      }
      case 'order_update':
        this.#orderUpdate(e);
        return;
      case 'fill':
        this.#applyFill(e, true);
        return;
      case 'disconnected':
        if (e.stream === 'market') {
          this.books.apply(e);
          this.#marketSynced = false;
          this.#resync.clear(); // the reconnect brings fresh snapshots of everything
          this.#touchAll();
        } else if (e.stream === 'user') {
          this.#userSynced = false;
          this.#touchAll();
        }
        return;
      case 'resynced':
        if (e.stream === 'market') {
          this.#marketSynced = true;
          this.#touchAll();
        } else if (e.stream === 'user') {
          this.#userSynced = true;
          this.#touchAll();
        }
        return;
      case 'best_bid_ask':
      case 'new_market':
      case 'stream_error':
      case 'price_tick':
      case 'comment':
      case 'timer':
        return;
      default:
        assertNever(e, 'event');
    }
  }

  #checkCrossed(tokenId: string): void {
    const m = this.books.get(tokenId);
    if (m === undefined || m.stale) return;
    const b = m.bestBid();
    const a = m.bestAsk();
    if (b !== null && a !== null && b >= a) {
      m.markStale();
      this.stats.crossed++;
      this.#resync.add(tokenId);
      this.#touchToken(tokenId);
    }
  }

  #touchToken(tokenId: string): void {
    const cid = this.#tokenMarket.get(tokenId);
    if (cid !== undefined) this.dirtyMarkets.add(cid);
  }

  #touchAll(): void {
    for (const cid of this.#markets.keys()) this.dirtyMarkets.add(cid);
  }

  // ---- own orders ----------------------------------------------------------------------------------

  #orderUpdate(e: OrderUpdateEvent): void {
    if (this.#terminal.has(e.id)) return;
    if (TERMINAL.has(e.status)) {
      this.#removeOrder(e.id);
      this.#terminal.add(e.id);
      this.#terminalOrder.push(e.id);
      if (this.#terminal.size > this.#terminalCap) {
        const oldest = this.#terminalOrder.shift();
        if (oldest !== undefined) this.#terminal.delete(oldest);
      }
      return;
    }
    const prev = this.#orders.get(e.id);
    const sizeMatched = prev !== undefined && prev.sizeMatched > e.sizeMatched ? prev.sizeMatched : e.sizeMatched;
    this.#upsertOrder({
      id: e.id,
      market: e.market,
      tokenId: e.tokenId,
      side: e.side,
      price: e.price,
      originalSize: e.originalSize,
      sizeMatched,
      status: e.status,
      updatedAt: this.now,
      createdAt: prev?.createdAt ?? this.now,
    });
  }

  #upsertOrder(o: OwnOrder): void {
    this.#orders.set(o.id, o);
    let m = this.#ordersByMarket.get(o.market);
    if (m === undefined) this.#ordersByMarket.set(o.market, (m = new Map()));
    m.set(o.id, o);
    this.#orderLists.delete(o.market);
  }

  #removeOrder(id: string): void {
    const o = this.#orders.get(id);
    if (o === undefined) return;
    this.#orders.delete(id);
    this.#ordersByMarket.get(o.market)?.delete(id);
    this.#orderLists.delete(o.market);
  }

  // ---- fills and positions -----------------------------------------------------------------------

  #position(tokenId: string): Position {
    let p = this.#positions.get(tokenId);
    if (p === undefined) this.#positions.set(tokenId, (p = new Position()));
    return p;
  }

  /** @param fromStream a fill event (not a seeded one): a repeat of a forgotten fill is asked of `seen`. */
  #applyFill(f: FillLike, fromStream = false): boolean {
    const key = `${f.tradeId}|${f.orderId}`;
    const rec = this.#fills.get(key);
    if (rec === undefined && fromStream && this.#forgotten > 0 && this.#seen?.(f.tradeId, f.orderId) === true) {
      this.stats.fillDuplicates++; // a repeat of a fill older than the memory (see boundFills)
      return false;
    }
    if (rec !== undefined) {
      if (f.status === 'FAILED' && !rec.failed) {
        rec.failed = true;
        this.stats.fillsReversed++;
        this.#position(rec.tokenId).rebuild();
        return true;
      }
      this.stats.fillDuplicates++;
      return false;
    }
    const r: FillRecord = {
      tokenId: f.tokenId,
      side: f.side,
      price: f.price,
      size: f.size,
      failed: f.status === 'FAILED',
    };
    this.#fills.set(key, r);
    this.#fillOrder?.push(key);
    if (this.#fills.size > this.#fillCap) this.#forgetOldestFill();
    if (r.failed) return false; // void from the start: never counted
    const p = this.#position(f.tokenId);
    p.fills.push(r);
    p.apply(r.side, r.price, r.size);
    this.stats.fillsCounted++;
    return true;
  }

  /** Fills seen so far (keys), for tests and metrics (at most the capacity of `boundFills`). */
  get fillCount(): number {
    return this.#fills.size;
  }

  // ---- bounded fill memory (a daemon's flat memory over days; backtests) ----

  #fillCap = Infinity;
  /** Fill keys forgotten so far (0: every fill is still in memory, `seen` is never asked). */
  #forgotten = 0;
  #seen: ((tradeId: string, orderId: string) => boolean) | undefined;

  /**
   * Keeps at most `capacity` fill keys (default: all, forever; ~200 bytes each). Beyond it the oldest
   * fill is forgotten: its key leaves the dedupe map, it is folded into its position's base (exact).
   * Once some were forgotten, a fill event not in memory is asked of `seen` (the daemon's store): a
   * repeat of a forgotten fill is still a duplicate. Lost: a FAILED reversal of a forgotten fill stays
   * in the running position (the store voids it; the next start rebuilds from it); without `seen`, a
   * repeat is counted again. Trades fail within minutes, far inside bot.fillMemory (days). A
   * backtest's venue never repeats nor fails a fill: it bounds the memory without `seen`.
   */
  boundFills(capacity: number, seen?: (tradeId: string, orderId: string) => boolean): void {
    if (!(capacity >= 1)) throw new RangeError(`boundFills: capacity must be >= 1, got ${capacity}`);
    this.#fillCap = capacity;
    this.#seen = seen;
    this.#fillOrder = new Fifo<string>();
    for (const k of this.#fills.keys()) this.#fillOrder.push(k);
    while (this.#fills.size > capacity) this.#forgetOldestFill();
  }

  #forgetOldestFill(): void {
    const key = this.#fillOrder?.shift();
    const rec = key === undefined ? undefined : this.#fills.get(key);
    if (rec === undefined) return;
    this.#fills.delete(key!);
    this.#forgotten++;
    const p = this.#positions.get(rec.tokenId);
    if (p === undefined) return;
    // adjustments before it are folded first (they are never keyed, so never forgotten otherwise)
    while (p.fills[0]?.adjustment === true) this.#fold(p, p.fills.shift()!);
    if (p.fills[0] !== rec) return; // void from the start: never in the position
    p.fills.shift();
    if (rec.failed) return; // reversed: not in the position either
    this.#fold(p, rec);
  }

  /** Folds one record into its position's base. */
  #fold(p: Position, rec: FillRecord): void {
    const b = new Position();
    b.size = p.base.size as Micro;
    b.avgPrice = p.base.avgPrice;
    b.realized = p.base.realized;
    b.apply(rec.side, rec.price, rec.size);
    p.base = { size: b.size, avgPrice: b.avgPrice, realized: b.realized };
  }
}

/** The key fills are deduplicated by: `${tradeId}|${orderId}`. */
export function fillKey(f: Pick<FillEvent, 'tradeId' | 'orderId'> | { tradeId: string; orderId: string }): string {
  return `${f.tradeId}|${f.orderId}`;
}
