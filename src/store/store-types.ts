/**
 * The shapes of the bot's store (./store.ts): stored orders and their patches, fill records and
 * their changes, audit entries, the summary, the options and the Store interface. Types and one
 * constant only.
 */
import type { Clock } from '../core/clock.ts';
import type { TradeStatus } from '../core/events.ts';
import type { ConditionId, OrderId, TokenId } from '../core/ids.ts';
import type { Micro, Pips, Side } from '../core/units.ts';
import type { PreparedOrder } from '../core/venue.ts';
import type { PnlReport, Position } from './positions.ts';

/** An order's status as the store keeps it (the tracker's states). */
export type StoredOrderStatus =
  | 'pending'
  | 'live'
  | 'partially_filled'
  | 'filled'
  | 'cancelled'
  | 'rejected'
  | 'unknown';
/** The statuses an order may still rest with (or may, when its fate is not known yet). */
export const OPEN_ORDER_STATUSES: readonly StoredOrderStatus[] = ['pending', 'live', 'partially_filled', 'unknown'];

/** One row of `orders`. */
export interface StoredOrder {
  readonly id: OrderId;
  readonly market: ConditionId;
  readonly tokenId: TokenId;
  readonly side: Side;
  readonly price: Pips;
  readonly size: Micro;
  readonly type: string;
  readonly status: StoredOrderStatus;
  readonly sizeMatched: Micro;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly rejectCode: string | null;
}

/** What may change on an order after it was recorded. `sizeMatched` never decreases. */
export interface OrderPatch {
  readonly status?: StoredOrderStatus;
  readonly sizeMatched?: number;
  readonly rejectCode?: string | null;
}

/** An order found at the venue (or in the user stream) that this store never recorded. */
export interface AdoptedOrder {
  readonly id: OrderId;
  readonly market: ConditionId;
  readonly tokenId: TokenId;
  readonly side: Side;
  readonly price: Pips;
  readonly originalSize: Micro;
  readonly sizeMatched: Micro;
  readonly status: StoredOrderStatus;
  readonly type?: string;
}

/** One fill of one own order in one trade. `VenueFill` of the Venue port has this shape. */
export interface FillRecord {
  readonly tradeId: string;
  readonly orderId: OrderId;
  readonly market: ConditionId;
  readonly tokenId: TokenId;
  readonly side: Side;
  readonly price: Pips;
  readonly size: Micro;
  /** Fee paid, micro-collateral (0 for a maker). */
  readonly fee: Micro;
  readonly role: 'TAKER' | 'MAKER';
  readonly status: TradeStatus;
  /** Unix ms. */
  readonly matchTime: number;
  /**
   * Whose order filled: 'bot' (default: an order this bot placed, in any run) or 'external' (an
   * order someone else placed on the same wallet: counted apart, never the strategy's).
   */
  readonly source?: 'bot' | 'external';
}

/** A stored fill: the record plus bookkeeping. `status === 'FAILED'` means void. */
export interface StoredFill extends FillRecord {
  readonly recordedAt: number;
  readonly updatedAt: number;
}

/**
 * What `applyFill` did: `new` (first time this (trade, order) pair is seen), `status` (a later
 * trade status was recorded), `void` (the fill became FAILED: reversed in positions), `duplicate`
 * (a replay or an out-of-order older status: nothing changed).
 */
export type FillChange = 'new' | 'status' | 'void' | 'duplicate';

/** One audit record. */
export interface AuditEntry {
  readonly seq: number;
  readonly time: number;
  readonly kind: string;
  readonly data: unknown;
}

/** Totals for the end-of-run summary. Sizes in micro-shares, money in micro-collateral. */
export interface StoreSummary {
  /** Orders recorded (signed and about to be sent, or adopted). */
  readonly ordersRecorded: number;
  /** Orders the venue accepted (live, partially filled, filled or cancelled now). */
  readonly ordersPlaced: number;
  readonly ordersCancelled: number;
  readonly ordersRejected: number;
  /** Orders that may still rest (pending, live, partially filled, unknown). */
  readonly ordersOpen: number;
  /** Non-void fills. */
  readonly fills: number;
  /** FAILED fills (void). */
  readonly voidFills: number;
  /** Shares traded (non-void fills), micro-shares. */
  readonly volume: number;
  /** Collateral traded (non-void fills), micro-collateral, rounded down. */
  readonly notional: number;
  readonly fees: number;
}

/**
 * SQLite `synchronous` level of a kind of write. 'off' (no fsync at all, not even at checkpoints)
 * is for backtests' throw-away stores only: a power loss may corrupt the file.
 */
export type Durability = 'normal' | 'full' | 'off';

/** Options of `openStore`. */
export interface StoreOptions {
  /** Time source for created_at / updated_at / audit time (default: the wall clock). */
  clock?: Clock;
  /** Durability of fill commits (default 'full': fsynced) and other commits (default 'normal'). */
  durability?: { fills?: Durability; other?: Durability };
  /**
   * Who checkpoints the WAL into the database file. 'worker' (default for files): a second
   * connection on a worker thread, every `checkpointMs` (default 1000), so the writer's commits
   * never pay for a checkpoint (SQLite's automatic one runs INSIDE a commit: milliseconds at p99.9
   * on the order path). 'auto': SQLite's own, in the writer. ':memory:' needs none.
   */
  checkpoint?: 'worker' | 'auto';
  checkpointMs?: number;
  /**
   * 'each' (default): every method is its own transaction, committed when it returns (the daemon:
   * a fill is on disk before anything reports it). 'batched': for BACKTESTS only: one transaction
   * stays open and `flush()` (or `close()`) commits everything written since the last flush; each
   * method still runs atomically (a savepoint inside it) and reads see the uncommitted rows, so the
   * rows, their order and exactly-once semantics are the same; only the commit points move. A crash
   * loses what was written since the last flush, which a backtest (re-runnable, deterministic) can
   * afford and the live daemon cannot: `mmkit run` never passes this option.
   * A batched store also DEFERS order writes: every change of one order between two write points
   * is merged in memory into one row write (one INSERT with the order's final state, or one UPDATE),
   * written before any read of the orders, at `flush()` / `close()`, and when `pendingOrders`
   * orders are waiting (memory stays bounded whatever the flush interval). Return values, errors
   * and rows (all columns, rowid order) are the same as without (see `openStore`).
   */
  commit?: 'each' | 'batched';
  /** A 'batched' store's bound of deferred orders (default BATCHED_PENDING_ORDERS; tests use small ones). */
  pendingOrders?: number;
  /**
   * A throw-away store that only this connection uses, for BACKTESTS only (their store is re-made
   * by running them again): the rollback journal in memory instead of the WAL (each page is written
   * once, to the database file, at a commit: no WAL copy, no checkpoint), an exclusive lock held
   * until close (no lock calls per transaction; no other connection can read the file meanwhile),
   * temporary tables in memory and a page cache large enough for a long run. Rows, rowids and
   * every method's result are the same; a crash or power loss may leave the file corrupt. Requires
   * `commit: 'batched'` and durability 'off' for both kinds of write; `mmkit run` never passes it.
   */
  scratch?: boolean;
}

/** The store. Every method runs synchronously and has committed when it returns. */
export interface Store {
  readonly file: string;
  /**
   * Record a signed order BEFORE it is sent (its id is known), status 'pending'. Recording the same
   * id again (a resend of the same prepared order) changes nothing. Returns true when new.
   * @throws Error when the store is closed.
   */
  recordOrder(prepared: PreparedOrder): boolean;
  /** Several prepared orders in one transaction (a batch about to be sent). Returns how many were new. */
  recordOrders(prepared: readonly PreparedOrder[]): number;
  /** Record an order this store never saw (found at the venue); an existing row is left alone. */
  adoptOrder(o: AdoptedOrder): boolean;
  /** Update an order's status / matched size / reject code. Returns false for an unknown id. */
  updateOrder(id: OrderId, patch: OrderPatch): boolean;
  /**
   * Several updates (and adoptions of orders never recorded) in ONE transaction: the answers of a
   * whole batch cost one commit. Returns how many rows changed.
   */
  updateOrders(
    updates: readonly { readonly id: OrderId; readonly patch: OrderPatch; readonly adopt?: AdoptedOrder }[],
  ): number;
  order(id: OrderId): StoredOrder | undefined;
  /** Orders that may still rest at the venue: pending, live, partially filled or unknown. */
  openOrders(market?: ConditionId): StoredOrder[];
  /** Record a fill; true only the first time its (trade id, order id) is seen. */
  recordFill(fill: FillRecord): boolean;
  /** Record a fill and say what changed (see FillChange). */
  applyFill(fill: FillRecord): FillChange;
  /** Fills (void ones included, status FAILED) with match time ≥ sinceMs, in time order. */
  fills(sinceMs?: number): StoredFill[];
  /** Match time (unix ms) of the newest stored fill, or undefined when there is none (restart backfill). */
  lastFillTime(): number | undefined;
  /**
   * Match time (unix ms) of the oldest stored fill whose trade status is not final (MATCHED, MINED
   * or RETRYING: not CONFIRMED, not FAILED) matched at or after `sinceMs` (default 0), or undefined
   * when there is none. The restart backfill reaches back to it: the venue filters trades by match
   * time, so a status that changed while the daemon was down is only seen again that way. Cost: a
   * walk of the `fills_time` index from `sinceMs` up to the first unsettled fill (pass a bound so
   * that a long settled history is not read).
   */
  oldestUnsettledFillTime(sinceMs?: number): number | undefined;
  /** Positions per token, derived from the non-void fills in match-time order. */
  positions(): Position[];
  /** Realized + unrealized PnL at the marks (pips per token). */
  pnl(marks: ReadonlyMap<TokenId, number>): PnlReport;
  /** Append a decision to the audit log (kind: a short stable word; data: JSON-serialisable). */
  audit(kind: string, data: unknown): void;
  /** Read the audit log in order. */
  auditLog(opts?: { sinceSeq?: number; kind?: string; limit?: number }): AuditEntry[];
  summary(): StoreSummary;
  /** Commits what a 'batched' store wrote since the last flush (a no-op for 'each': already committed). */
  flush(): void;
  /** Checkpoint the WAL and close (a 'batched' store commits first). Idempotent. */
  close(): void;
}
