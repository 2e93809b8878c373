/**
 * The bot's own SQLite store: orders (recorded BEFORE they are sent), fills exactly once, an
 * append-only audit log, and positions / PnL derived from the fills.
 *
 * Why this shape:
 *  - One writer, one connection, better-sqlite3 (synchronous): every method is one short
 *    transaction that has COMMITTED when the method returns, so a caller that logs or counts after
 *    `recordFill` never reports a fill that is not on disk.
 *  - WAL journal. Fills commit with `synchronous=FULL` by default (the WAL is fsynced at each
 *    commit: a fill survives power loss); orders and audit with `NORMAL` (they survive a process
 *    crash such as kill -9, which is what restart safety needs, and keep the tick-to-order path free
 *    of an fsync). Both are configurable.
 *  - Fills keyed by (trade_id, order_id): a replayed event is an INSERT OR IGNORE that changes
 *    nothing; a trade status that moves forward (MATCHED → MINED → CONFIRMED, or RETRYING → FAILED)
 *    updates the status only; FAILED makes the fill void, which removes it from positions.
 *  - Integers everywhere (STRICT tables refuse a float in a money column).
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { LiveClock, type Clock } from '../core/clock.ts';
import type { FillEvent, TradeStatus } from '../core/events.ts';
import type { ConditionId, OrderId, TokenId } from '../core/ids.ts';
import { PRICE_SCALE, type Micro, type Pips, type Side } from '../core/units.ts';
import type { PreparedOrder } from '../core/venue.ts';
import { migrate } from './migrations.ts';
import { accumulate, pnlOf, type PnlReport, type Position, type PositionAccumulator } from './positions.ts';

export type { PnlReport, Position } from './positions.ts';

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

/** Rank of a trade status: a status may only move to a higher rank; rank 3 is final. */
const TRADE_RANK: Readonly<Record<TradeStatus, number>> = {
  MATCHED: 0,
  RETRYING: 1,
  MINED: 2,
  CONFIRMED: 3,
  FAILED: 3,
};

/** True when a fill at `from` may move to `to` (forward only; CONFIRMED and FAILED are final). */
export function tradeStatusAdvances(from: TradeStatus, to: TradeStatus): boolean {
  return TRADE_RANK[from] < 3 && TRADE_RANK[to] > TRADE_RANK[from];
}

/**
 * A fill event of the user stream as a FillRecord. The event carries the fee RATE, so the fee is
 * computed the venue's way for a taker (floor(size × min(p, 1 − p) × bps), on the fill's average
 * price: exact for a single-level fill, an estimate for a sweep); makers pay none. The venue's trade
 * record (`Venue.fills`) carries the exact fee.
 */
export function fillFromEvent(e: FillEvent): FillRecord {
  const p = BigInt(e.price);
  const base = p < BigInt(PRICE_SCALE) - p ? p : BigInt(PRICE_SCALE) - p;
  const fee =
    e.role === 'TAKER' ? Number((BigInt(e.size) * base * BigInt(e.feeRateBps)) / BigInt(PRICE_SCALE * PRICE_SCALE)) : 0;
  return {
    tradeId: e.tradeId,
    orderId: e.orderId,
    market: e.market,
    tokenId: e.tokenId,
    side: e.side,
    price: e.price,
    size: e.size,
    fee: fee as Micro,
    role: e.role,
    status: e.status,
    matchTime: e.venueTime,
  };
}

interface OrderRow {
  id: string;
  market: string;
  token: string;
  side: string;
  price: number;
  size: number;
  type: string;
  status: string;
  size_matched: number;
  created_at: number;
  updated_at: number;
  reject_code: string | null;
}
interface FillRow {
  trade_id: string;
  order_id: string;
  market: string;
  token: string;
  side: string;
  price: number;
  size: number;
  fee: number;
  role: string;
  status: string;
  match_time: number;
  recorded_at: number;
  updated_at: number;
}

function toOrder(r: OrderRow): StoredOrder {
  return {
    id: r.id as OrderId,
    market: r.market as ConditionId,
    tokenId: r.token as TokenId,
    side: r.side as Side,
    price: r.price as Pips,
    size: r.size as Micro,
    type: r.type,
    status: r.status as StoredOrderStatus,
    sizeMatched: r.size_matched as Micro,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    rejectCode: r.reject_code,
  };
}
function toFill(r: FillRow): StoredFill {
  return {
    tradeId: r.trade_id,
    orderId: r.order_id as OrderId,
    market: r.market as ConditionId,
    tokenId: r.token as TokenId,
    side: r.side as Side,
    price: r.price as Pips,
    size: r.size as Micro,
    fee: r.fee as Micro,
    role: r.role as 'TAKER' | 'MAKER',
    status: r.status as TradeStatus,
    matchTime: r.match_time,
    recordedAt: r.recorded_at,
    updatedAt: r.updated_at,
  };
}

const CHECKPOINTER = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.lib);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 1000');
const timer = setInterval(() => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch (e) { parentPort.postMessage({ error: String((e && e.message) || e) }); }
}, workerData.intervalMs);
parentPort.on('message', (m) => {
  if (m !== 'stop') return;
  clearInterval(timer);
  try { db.close(); } catch {}
  parentPort.close();
});
`;

/** A worker thread checkpointing the WAL of `file` periodically; undefined when it cannot start. */
function startCheckpointer(file: string, intervalMs: number, onFail: () => void): Worker | undefined {
  try {
    const lib = createRequire(import.meta.url).resolve('better-sqlite3');
    const w = new Worker(CHECKPOINTER, { eval: true, workerData: { file, lib, intervalMs: Math.max(50, intervalMs) } });
    w.unref();
    let failed = false;
    const fail = (): void => {
      if (failed) return;
      failed = true;
      onFail();
    };
    w.on('error', fail);
    w.on('message', (m: unknown) => {
      if (typeof m === 'object' && m !== null && 'error' in m) fail();
    });
    return w;
  } catch {
    return undefined;
  }
}

function checkInt(what: string, v: number): void {
  if (!Number.isSafeInteger(v) || v < 0)
    throw new RangeError(`${what}: expected a non-negative safe integer, got ${String(v)}`);
}

/**
 * How many orders a 'batched' store keeps deferred at most: at this many, it writes them (so memory
 * stays bounded over a replay of any length, whatever the flush interval).
 */
export const BATCHED_PENDING_ORDERS = 2048;

/**
 * One deferred order write of a 'batched' store, keyed by order id: the changes of one order since
 * the last write point, merged as the `updateOrder` statement would apply them one after another.
 */
interface PendingOrder {
  /**
   * The columns fixed at insertion when the order is not in the table yet (the write is one INSERT
   * of its final state); undefined when it is (the write is one UPDATE with the merged patch).
   */
  readonly insert:
    | {
        readonly market: string;
        readonly token: string;
        readonly side: string;
        readonly price: number;
        readonly size: number;
        readonly type: string;
        readonly createdAt: number;
      }
    | undefined;
  /** The last status given (an INSERT's is never null; an UPDATE's null keeps the row's). */
  status: string | null;
  /** The largest size matched given (0: none), as MAX(size_matched, …) never decreases. */
  sizeMatched: number;
  /** 1 when a reject code was given (the last one, `rejectCode`, replaces the row's). */
  setCode: 0 | 1;
  rejectCode: string | null;
  /** The time of the last change. */
  updatedAt: number;
}

/** The statuses the orders table's CHECK accepts. */
const ORDER_STATUSES: ReadonlySet<unknown> = new Set<StoredOrderStatus>([
  'pending',
  'live',
  'partially_filled',
  'filled',
  'cancelled',
  'rejected',
  'unknown',
]);
/** A surrogate code unit: SQLite receives a lone one as U+FFFD, so two such JS ids could be one SQL id. */
const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * True when a row with these values is one the schema accepts, and its id compares in JS as in
 * SQLite; the integer columns are `checkInt`ed apart (that throws, as without deferral). Anything
 * else (a CHECK or NOT NULL violation, which INSERT OR IGNORE silently skips; a value SQLite
 * coerces) is not deferred but goes to the statements themselves, so its outcome is theirs exactly.
 */
function plainRow(
  id: unknown,
  market: unknown,
  token: unknown,
  side: unknown,
  type: unknown,
  status: unknown,
): boolean {
  return (
    typeof id === 'string' &&
    !SURROGATE.test(id) &&
    typeof market === 'string' &&
    typeof token === 'string' &&
    (side === 'BUY' || side === 'SELL') &&
    typeof type === 'string' &&
    ORDER_STATUSES.has(status)
  );
}
/** As plainRow, for a patch: a bad status fails the UPDATE's CHECK (on a known id only), so it is not deferred. */
function plainPatch(id: unknown, p: OrderPatch): boolean {
  return (
    typeof id === 'string' &&
    !SURROGATE.test(id) &&
    (p.status == null || ORDER_STATUSES.has(p.status)) &&
    (p.rejectCode == null || typeof p.rejectCode === 'string')
  );
}

/** The number of orders a 'batched' store is deferring (tests: the bound holds); 0 for others. */
export function pendingOrderWrites(store: Store): number {
  return pendingOf.get(store)?.size ?? 0;
}
const pendingOf = new WeakMap<Store, ReadonlyMap<string, PendingOrder>>();

/**
 * Open (or create) the store at `file` (':memory:' works for tests), applying pending migrations.
 * A 'batched' store defers order writes (see StoreOptions.commit) without changing what any method
 * returns or throws, nor the rows in the end: a read of the orders table, a flush or a close first
 * writes what is deferred, and an input the fast path cannot vouch for runs the statements.
 * @throws Error when the file cannot be opened or holds a newer schema than this code knows.
 */
export function openStore(file: string, opts: StoreOptions = {}): Store {
  const clock = opts.clock ?? new LiveClock();
  const fillSync = opts.durability?.fills ?? 'full';
  const otherSync = opts.durability?.other ?? 'normal';
  const db = new Database(file);
  let closed = false;
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    // bound the WAL file after checkpoints (checkpoint starvation must not grow it forever)
    db.pragma('journal_size_limit = 67108864');
    migrate(db, file);
  } catch (e) {
    db.close();
    throw e;
  }
  const inMemory = file === ':memory:' || file === '';
  let checkpointer: Worker | undefined;
  if (!inMemory && (opts.checkpoint ?? 'worker') === 'worker') {
    checkpointer = startCheckpointer(file, opts.checkpointMs ?? 1000, () => {
      // the worker failed: fall back to SQLite's automatic checkpoints in the writer
      checkpointer = undefined;
      if (!closed) db.pragma('wal_autocheckpoint = 1000');
    });
    if (checkpointer !== undefined) db.pragma('wal_autocheckpoint = 0');
  }
  const batched = opts.commit === 'batched';
  let sync: Durability | undefined;
  const setSync = (d: Durability): void => {
    // a batched store keeps one transaction open (the level applies to its commits): set once
    if (sync === d || (batched && sync !== undefined)) return;
    db.pragma(`synchronous = ${d === 'full' ? 'FULL' : d === 'off' ? 'OFF' : 'NORMAL'}`);
    sync = d;
  };
  setSync(otherSync);

  const st = {
    insertOrder: db.prepare(
      `INSERT OR IGNORE INTO orders (id, market, token, side, price, size, type, status, size_matched, created_at, updated_at, reject_code)
       VALUES (@id, @market, @token, @side, @price, @size, @type, @status, @size_matched, @now, @now, NULL)`,
    ),
    getOrder: db.prepare('SELECT * FROM orders WHERE id = ?'),
    openOrders: db.prepare(
      `SELECT * FROM orders WHERE status IN ('pending', 'live', 'partially_filled', 'unknown') ORDER BY created_at, rowid`,
    ),
    openOrdersOf: db.prepare(
      `SELECT * FROM orders WHERE market = ? AND status IN ('pending', 'live', 'partially_filled', 'unknown') ORDER BY created_at, rowid`,
    ),
    updateOrder: db.prepare(
      `UPDATE orders SET status = COALESCE(@status, status), size_matched = MAX(size_matched, COALESCE(@size_matched, 0)),
         reject_code = CASE WHEN @set_code THEN @reject_code ELSE reject_code END, updated_at = @now WHERE id = @id`,
    ),
    insertFill: db.prepare(
      `INSERT OR IGNORE INTO fills (trade_id, order_id, market, token, side, price, size, fee, role, status, match_time, recorded_at, updated_at)
       VALUES (@trade_id, @order_id, @market, @token, @side, @price, @size, @fee, @role, @status, @match_time, @now, @now)`,
    ),
    fillStatus: db.prepare('SELECT status FROM fills WHERE trade_id = ? AND order_id = ?'),
    setFillStatus: db.prepare('UPDATE fills SET status = ?, updated_at = ? WHERE trade_id = ? AND order_id = ?'),
    fillsSince: db.prepare('SELECT * FROM fills WHERE match_time >= ? ORDER BY match_time, rowid'),
    lastFill: db.prepare('SELECT MAX(match_time) AS t FROM fills'),
    // the final statuses are TRADE_RANK's rank 3
    oldestUnsettled: db.prepare(
      `SELECT MIN(match_time) AS t FROM fills WHERE match_time >= ? AND status NOT IN ('CONFIRMED', 'FAILED')`,
    ),
    liveFills: db.prepare(
      `SELECT market, token, side, price, size, fee FROM fills WHERE status != 'FAILED' ORDER BY match_time, rowid`,
    ),
    insertAudit: db.prepare('INSERT INTO audit (time, kind, json) VALUES (?, ?, ?)'),
    orderCounts: db.prepare('SELECT status, COUNT(*) AS n FROM orders GROUP BY status'),
    fillCounts: db.prepare(`SELECT status = 'FAILED' AS void, COUNT(*) AS n FROM fills GROUP BY void`),
  };

  const recordManyRaw = (ps: readonly PreparedOrder[], now: number): number => {
    let n = 0;
    for (const p of ps) {
      const r = p.request;
      checkInt('price', r.price);
      checkInt('size', r.size);
      n += st.insertOrder.run({
        id: p.id,
        market: r.market,
        token: r.tokenId,
        side: r.side,
        price: r.price,
        size: r.size,
        type: r.type,
        status: 'pending',
        size_matched: 0,
        now,
      }).changes;
    }
    return n;
  };
  const recordMany = db.transaction(recordManyRaw);

  const updateOne = (id: OrderId, patch: OrderPatch, now: number): number => {
    if (patch.sizeMatched !== undefined) checkInt('sizeMatched', patch.sizeMatched);
    return st.updateOrder.run({
      id,
      status: patch.status ?? null,
      size_matched: patch.sizeMatched ?? null,
      set_code: patch.rejectCode !== undefined ? 1 : 0,
      reject_code: patch.rejectCode ?? null,
      now,
    }).changes;
  };
  const adoptOne = (o: AdoptedOrder, now: number): number => {
    checkInt('price', o.price);
    checkInt('size', o.originalSize);
    checkInt('sizeMatched', o.sizeMatched);
    return st.insertOrder.run({
      id: o.id,
      market: o.market,
      token: o.tokenId,
      side: o.side,
      price: o.price,
      size: o.originalSize,
      type: o.type ?? 'GTC',
      status: o.status,
      size_matched: o.sizeMatched,
      now,
    }).changes;
  };
  const updateManyRaw = (
    us: readonly { id: OrderId; patch: OrderPatch; adopt?: AdoptedOrder }[],
    now: number,
  ): number => {
    let n = 0;
    for (const u of us) {
      if (u.adopt !== undefined) adoptOne(u.adopt, now);
      n += updateOne(u.id, u.patch, now);
    }
    return n;
  };
  const updateMany = db.transaction(updateManyRaw);

  // ---- deferred order writes ('batched' only) ---------------------------------------------------
  // A backtest writes each order as one INSERT and several UPDATEs (live, partially filled, done),
  // each a B-tree write to the table and its indexes, mostly within one flush interval. Deferred,
  // they are one write per order per interval: the pending map holds each order's row as it will
  // be, in order of first change (a Map keeps insertion order, so the INSERTs come out in the order
  // the orders were first recorded: the same rowids, the same `ORDER BY created_at, rowid`).
  // Exactness: the merges below are the statements' semantics (INSERT OR IGNORE; the UPDATE's
  // COALESCE / MAX / CASE); a call validates everything that can throw (checkInt) before it changes
  // the map, so a throwing call changes nothing; an input the schema would refuse or coerce goes
  // to the statements themselves (`direct`), after the pending writes.
  const pending = new Map<string, PendingOrder>();
  const orderExists = db.prepare('SELECT 1 FROM orders WHERE id = ?').pluck();
  const insertRow = db.prepare(
    `INSERT INTO orders (id, market, token, side, price, size, type, status, size_matched, created_at, updated_at, reject_code)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  // one savepoint inside the open transaction: all pending rows are written or none
  const writePendingTx = db.transaction(() => {
    for (const [id, p] of pending) {
      const i = p.insert;
      if (i !== undefined)
        insertRow.run(
          id,
          i.market,
          i.token,
          i.side,
          i.price,
          i.size,
          i.type,
          p.status,
          p.sizeMatched,
          i.createdAt,
          p.updatedAt,
          p.rejectCode,
        );
      else
        st.updateOrder.run({
          id,
          status: p.status,
          size_matched: p.sizeMatched,
          set_code: p.setCode,
          reject_code: p.rejectCode,
          now: p.updatedAt,
        });
    }
  });
  /** Write the deferred orders (before a read of the orders table, a commit, or past the bound). */
  const writePending = (): void => {
    if (pending.size === 0) return;
    writePendingTx();
    pending.clear();
  };
  /** An input not to defer: run the statements themselves, on a table holding every earlier write. */
  const direct = <T>(f: () => T): T => {
    writePending();
    return f();
  };
  /** In the table, or deferred (either way, INSERT OR IGNORE would ignore it and UPDATE match it). */
  const known = (id: string): boolean => pending.has(id) || orderExists.get(id) !== undefined;
  const pendingBound = Math.max(1, opts.pendingOrders ?? BATCHED_PENDING_ORDERS);
  const bound = (): void => {
    if (pending.size >= pendingBound) writePending();
  };
  // the deferred counterparts of insertOrder (INSERT OR IGNORE) and updateOrder; validated inputs
  const deferInsert = (
    id: string,
    insert: NonNullable<PendingOrder['insert']>,
    status: string,
    sizeMatched: number,
  ): number => {
    if (known(id)) return 0;
    pending.set(id, { insert, status, sizeMatched, setCode: 0, rejectCode: null, updatedAt: insert.createdAt });
    return 1;
  };
  const deferUpdate = (id: string, patch: OrderPatch, now: number): number => {
    let p = pending.get(id);
    if (p === undefined) {
      if (orderExists.get(id) === undefined) return 0; // UPDATE … WHERE id matches no row
      p = { insert: undefined, status: null, sizeMatched: 0, setCode: 0, rejectCode: null, updatedAt: now };
      pending.set(id, p);
    }
    if (patch.status != null) p.status = patch.status; // COALESCE(@status, status)
    if (patch.sizeMatched !== undefined && patch.sizeMatched > p.sizeMatched) p.sizeMatched = patch.sizeMatched; // MAX(size_matched, COALESCE(@size_matched, 0))
    if (patch.rejectCode !== undefined) {
      p.setCode = 1;
      p.rejectCode = patch.rejectCode ?? null;
    }
    p.updatedAt = now;
    return 1; // SQLite counts a matched row as changed, even when its values stay the same
  };
  const deferAdopt = (o: AdoptedOrder, now: number): number =>
    deferInsert(
      o.id,
      {
        market: o.market,
        token: o.tokenId,
        side: o.side,
        price: o.price,
        size: o.originalSize,
        type: o.type ?? 'GTC',
        createdAt: now,
      },
      o.status,
      o.sizeMatched,
    );
  /** adoptOne's checks, in its order; false: not to defer. */
  const adoptDeferrable = (o: AdoptedOrder): boolean => {
    checkInt('price', o.price);
    checkInt('size', o.originalSize);
    checkInt('sizeMatched', o.sizeMatched);
    return plainRow(o.id, o.market, o.tokenId, o.side, o.type ?? 'GTC', o.status);
  };
  /** updateOne's check; false: not to defer. */
  const patchDeferrable = (id: OrderId, patch: OrderPatch): boolean => {
    if (patch.sizeMatched !== undefined) checkInt('sizeMatched', patch.sizeMatched);
    return plainPatch(id, patch);
  };

  const recordDeferred = (ps: readonly PreparedOrder[], now: number): number => {
    // the checks in recordManyRaw's order: the same first error; an item not to defer sends the
    // whole call to the statements (which throw, or not, as they would have)
    for (const p of ps) {
      const r = p.request;
      checkInt('price', r.price);
      checkInt('size', r.size);
      if (!plainRow(p.id, r.market, r.tokenId, r.side, r.type, 'pending'))
        return direct(() => (ps.length === 1 ? recordManyRaw(ps, now) : recordMany(ps, now)));
    }
    let n = 0;
    for (const p of ps) {
      const r = p.request;
      n += deferInsert(
        p.id,
        {
          market: r.market,
          token: r.tokenId,
          side: r.side,
          price: r.price,
          size: r.size,
          type: r.type,
          createdAt: now,
        },
        'pending',
        0,
      );
    }
    bound();
    return n;
  };
  const updateDeferred = (
    us: readonly { id: OrderId; patch: OrderPatch; adopt?: AdoptedOrder }[],
    now: number,
  ): number => {
    for (const u of us) {
      if ((u.adopt !== undefined && !adoptDeferrable(u.adopt)) || !patchDeferrable(u.id, u.patch)) {
        return direct(() =>
          us.length === 1 && us[0]!.adopt === undefined ? updateManyRaw(us, now) : updateMany(us, now),
        );
      }
    }
    let n = 0;
    for (const u of us) {
      if (u.adopt !== undefined) deferAdopt(u.adopt, now);
      n += deferUpdate(u.id, u.patch, now);
    }
    bound();
    return n;
  };

  // at most one statement writes, whatever the path: atomic without a transaction of its own
  const applyFillOnce = (f: FillRecord, now: number): FillChange => {
    const ins = st.insertFill.run({
      trade_id: f.tradeId,
      order_id: f.orderId,
      market: f.market,
      token: f.tokenId,
      side: f.side,
      price: f.price,
      size: f.size,
      fee: f.fee,
      role: f.role,
      status: f.status,
      match_time: f.matchTime,
      now,
    });
    if (ins.changes > 0) return 'new';
    const row = st.fillStatus.get(f.tradeId, f.orderId) as { status: TradeStatus } | undefined;
    if (row === undefined || !tradeStatusAdvances(row.status, f.status)) return 'duplicate';
    st.setFillStatus.run(f.status, now, f.tradeId, f.orderId);
    return f.status === 'FAILED' ? 'void' : 'status';
  };
  const applyFillTx = db.transaction(applyFillOnce);

  // positions are recomputed from the fills only after a fill changed them
  let positionsCache: Map<TokenId, PositionAccumulator> | undefined;
  const acc = (): Map<TokenId, PositionAccumulator> => {
    if (positionsCache === undefined) {
      const rows = st.liveFills.all() as {
        market: string;
        token: string;
        side: string;
        price: number;
        size: number;
        fee: number;
      }[];
      positionsCache = accumulate(
        rows.map((r) => ({
          market: r.market as ConditionId,
          tokenId: r.token as TokenId,
          side: r.side as Side,
          price: r.price as Pips,
          size: r.size as Micro,
          fee: r.fee as Micro,
        })),
      );
    }
    return positionsCache;
  };

  const open = (): void => {
    if (closed) throw new Error(`store ${file} is closed`);
  };
  if (batched) db.exec('BEGIN');

  const store: Store = {
    file,
    recordOrder(prepared) {
      return store.recordOrders([prepared]) === 1;
    },
    recordOrders(prepared) {
      open();
      if (prepared.length === 0) return 0;
      setSync(otherSync);
      if (batched) return recordDeferred(prepared, clock.now());
      return recordMany(prepared, clock.now());
    },
    adoptOrder(o) {
      open();
      setSync(otherSync);
      if (batched) {
        const now = clock.now();
        if (!adoptDeferrable(o)) return direct(() => adoptOne(o, now)) > 0;
        const n = deferAdopt(o, now);
        bound();
        return n > 0;
      }
      return adoptOne(o, clock.now()) > 0;
    },
    updateOrder(id, patch) {
      open();
      setSync(otherSync);
      if (batched) {
        const now = clock.now();
        if (!patchDeferrable(id, patch)) return direct(() => updateOne(id, patch, now)) > 0;
        const n = deferUpdate(id, patch, now);
        bound();
        return n > 0;
      }
      return updateOne(id, patch, clock.now()) > 0;
    },
    updateOrders(updates) {
      open();
      if (updates.length === 0) return 0;
      setSync(otherSync);
      if (batched) return updateDeferred(updates, clock.now());
      return updateMany(updates, clock.now());
    },
    order(id) {
      open();
      writePending();
      const r = st.getOrder.get(id) as OrderRow | undefined;
      return r === undefined ? undefined : toOrder(r);
    },
    openOrders(market) {
      open();
      writePending();
      const rows = (market === undefined ? st.openOrders.all() : st.openOrdersOf.all(market)) as OrderRow[];
      return rows.map(toOrder);
    },
    recordFill(fill) {
      return store.applyFill(fill) === 'new';
    },
    applyFill(fill) {
      open();
      checkInt('price', fill.price);
      checkInt('size', fill.size);
      checkInt('fee', fill.fee);
      checkInt('matchTime', fill.matchTime);
      setSync(fillSync);
      const change = batched ? applyFillOnce(fill, clock.now()) : applyFillTx(fill, clock.now());
      if (change === 'new' || change === 'void') positionsCache = undefined;
      return change;
    },
    fills(sinceMs = 0) {
      open();
      return (st.fillsSince.all(sinceMs) as FillRow[]).map(toFill);
    },
    lastFillTime() {
      open();
      const r = st.lastFill.get() as { t: number | null };
      return r.t ?? undefined;
    },
    oldestUnsettledFillTime(sinceMs = 0) {
      open();
      const r = st.oldestUnsettled.get(sinceMs) as { t: number | null };
      return r.t ?? undefined;
    },
    positions() {
      open();
      return [...acc().values()].map((a) => a.snapshot());
    },
    pnl(marks) {
      open();
      return pnlOf(acc(), marks);
    },
    audit(kind, data) {
      open();
      setSync(otherSync);
      st.insertAudit.run(
        clock.now(),
        kind,
        JSON.stringify(data ?? null, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)),
      );
    },
    auditLog(o = {}) {
      open();
      const where: string[] = ['seq > ?'];
      const args: (string | number)[] = [o.sinceSeq ?? 0];
      if (o.kind !== undefined) {
        where.push('kind = ?');
        args.push(o.kind);
      }
      const limit = o.limit ?? -1;
      const rows = db
        .prepare(`SELECT seq, time, kind, json FROM audit WHERE ${where.join(' AND ')} ORDER BY seq LIMIT ?`)
        .all(...args, limit) as { seq: number; time: number; kind: string; json: string }[];
      return rows.map((r) => ({ seq: r.seq, time: r.time, kind: r.kind, data: JSON.parse(r.json) as unknown }));
    },
    summary() {
      open();
      writePending();
      const counts = new Map<string, number>();
      for (const r of st.orderCounts.all() as { status: string; n: number }[]) counts.set(r.status, r.n);
      const c = (s: StoredOrderStatus): number => counts.get(s) ?? 0;
      let recorded = 0;
      for (const n of counts.values()) recorded += n;
      let fills = 0;
      let voidFills = 0;
      for (const r of st.fillCounts.all() as { void: number; n: number }[]) {
        if (r.void) voidFills = r.n;
        else fills = r.n;
      }
      let volume = 0n;
      let notional = 0n;
      let fees = 0n;
      for (const r of st.liveFills.iterate() as IterableIterator<{ price: number; size: number; fee: number }>) {
        volume += BigInt(r.size);
        notional += BigInt(r.size) * BigInt(r.price);
        fees += BigInt(r.fee);
      }
      return {
        ordersRecorded: recorded,
        ordersPlaced: c('live') + c('partially_filled') + c('filled') + c('cancelled'),
        ordersCancelled: c('cancelled'),
        ordersRejected: c('rejected'),
        ordersOpen: c('pending') + c('live') + c('partially_filled') + c('unknown'),
        fills,
        voidFills,
        volume: Number(volume),
        notional: Number(notional / BigInt(PRICE_SCALE)),
        fees: Number(fees),
      };
    },
    flush() {
      open();
      if (!batched) return;
      writePending();
      if (db.inTransaction) db.exec('COMMIT');
      db.exec('BEGIN');
    },
    close() {
      if (closed) return;
      closed = true;
      if (batched) writePending();
      if (batched && db.inTransaction) db.exec('COMMIT');
      if (checkpointer !== undefined) {
        checkpointer.postMessage('stop');
        void checkpointer.terminate().catch(() => undefined);
        checkpointer = undefined;
      }
      try {
        if (!inMemory) db.pragma('wal_checkpoint(TRUNCATE)');
      } finally {
        db.close();
      }
    },
  };
  if (batched) pendingOf.set(store, pending);
  return store;
}
