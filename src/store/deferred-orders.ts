/**
 * Deferred order writes of a 'batched' store (StoreOptions.commit): each order's changes within a
 * flush interval are merged into one INSERT or UPDATE with the statements' own semantics, so what
 * any method returns or throws, and the rows in the end, are those of the statements run one by
 * one. Inputs the merge cannot vouch for go to the statements themselves.
 */
import type Database from 'better-sqlite3';
import type { OrderId } from '../core/ids.ts';
import type { PreparedOrder } from '../core/venue.ts';
import { DIFFERENT_ORDER, notRecorded, recordedRow, type OrderUpdate, type OrderWrites } from './orders.ts';
import { IdFilter } from './id-filter.ts';
import { checkInt, type Statements } from './statements.ts';
import type { AdoptedOrder, OrderPatch, Store, StoredOrderStatus } from './store-types.ts';

/**
 * How many orders a 'batched' store keeps deferred at most: at this many, it writes them (so memory
 * stays bounded over a replay of any length, whatever the flush interval).
 */
export const BATCHED_PENDING_ORDERS = 2048;

/**
 * One deferred order write of a 'batched' store, keyed by order id: the changes of one order since
 * the last write point, merged as the `updateOrder` statement would apply them one after another.
 */
export interface PendingOrder {
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
/** A string as SQLite stores it (a lone surrogate becomes U+FFFD): a deferred row compares as the table's would. */
function asStored(s: string): string {
  return Buffer.from(s, 'utf8').toString('utf8');
}
/** A surrogate code unit: SQLite receives a lone one as U+FFFD, so two such JS ids could be one SQL id. */
const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * True when a row with these values is one the schema accepts, and its id compares in JS as in
 * SQLite; the integer columns are `checkInt`ed apart (that throws, as without deferral). Anything
 * else (a CHECK or NOT NULL violation, which the statements refuse or skip; a value SQLite
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
/** The deferred writes of each 'batched' store (for pendingOrderWrites). */
export const pendingOf = new WeakMap<Store, ReadonlyMap<string, PendingOrder>>();

/** The deferred order writes of one 'batched' store. */
export interface DeferredOrders {
  /** Deferred writes by order id, in order of first change. */
  readonly pending: Map<string, PendingOrder>;
  /** Writes the deferred orders (before a read of the orders table, a commit, or past the bound). */
  writePending(): void;
  /** An input not to defer: runs `f` (the statements) on a table holding every earlier write. */
  direct<T>(f: () => T): T;
  /** Writes the deferred orders when they reach the bound. */
  bound(): void;
  deferAdopt(o: AdoptedOrder, now: number): number;
  deferUpdate(id: string, patch: OrderPatch, now: number): number;
  /** The statements' checks (they throw as the statements would); false: not to defer. */
  adoptDeferrable(o: AdoptedOrder): boolean;
  patchDeferrable(id: OrderId, patch: OrderPatch): boolean;
  recordDeferred(ps: readonly PreparedOrder[], now: number): number;
  updateDeferred(us: readonly OrderUpdate[], now: number): number;
}

/**
 * The deferred order writes over a store's statements (see the module comment). `exclusive`: this
 * connection is the table's only writer (an exclusive lock), so the ids it wrote are all the ids
 * there are: a filter of them spares the look-up of an id that was never written.
 */
export function deferredOrders(
  db: Database.Database,
  st: Statements,
  w: OrderWrites,
  pendingOrders: number | undefined,
  exclusive = false,
): DeferredOrders {
  const { recordManyRaw, recordMany, updateManyRaw, updateMany } = w;
  // A backtest writes each order as one INSERT and several UPDATEs (live, partially filled, done),
  // each a B-tree write to the table and its indexes, mostly within one flush interval. Deferred,
  // they are one write per order per interval: the pending map holds each order's row as it will
  // be, in order of first change (a Map keeps insertion order, so the INSERTs come out in the order
  // the orders were first recorded: the same rowids, the same `ORDER BY created_at, rowid`).
  // Exactness: the merges below are the statements' semantics (ON CONFLICT (id) DO NOTHING; the UPDATE's
  // COALESCE / MAX / CASE); a call validates everything that can throw (checkInt) before it changes
  // the map, so a throwing call changes nothing; an input the schema would refuse or coerce goes
  // to the statements themselves (`direct`), after the pending writes.
  const pending = new Map<string, PendingOrder>();
  const orderExists = db.prepare('SELECT 1 FROM orders WHERE id = ?').pluck();
  // every id in the table (those there at the start, and each deferred INSERT's), while `ids` is
  // set: an id it has never seen is not in the table (exact), and the look-up is spared; the
  // statements run directly (`direct`) write ids it is not told of, so it is dropped then
  let ids: IdFilter | undefined;
  if (exclusive) {
    ids = new IdFilter();
    for (const id of db.prepare('SELECT id FROM orders').pluck().iterate()) ids.add(String(id));
  }
  /** True when the table may hold `id` (false: it does not). */
  const inTable = (id: string): boolean => (ids === undefined || ids.mayHave(id)) && orderExists.get(id) !== undefined;
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
    ids = undefined;
    return f();
  };
  /** In the table, or deferred (either way, an INSERT of it would do nothing and UPDATE match it). */
  const known = (id: string): boolean => pending.has(id) || inTable(id);
  const pendingBound = Math.max(1, pendingOrders ?? BATCHED_PENDING_ORDERS);
  const bound = (): void => {
    if (pending.size >= pendingBound) writePending();
  };
  // the deferred counterparts of insertOrder and recordOrder (both ON CONFLICT (id) DO
  // NOTHING) and updateOrder; validated inputs
  const deferInsert = (
    id: string,
    insert: NonNullable<PendingOrder['insert']>,
    status: string,
    sizeMatched: number,
  ): number => {
    if (known(id)) return 0;
    pending.set(id, { insert, status, sizeMatched, setCode: 0, rejectCode: null, updatedAt: insert.createdAt });
    ids?.add(id);
    return 1;
  };
  const deferUpdate = (id: string, patch: OrderPatch, now: number): number => {
    let p = pending.get(id);
    if (p === undefined) {
      if (!inTable(id)) return 0; // UPDATE … WHERE id matches no row
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
    const before = pending.size;
    for (const p of ps) {
      const r = p.request;
      const k = deferInsert(
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
      // a known id (the statement's ON CONFLICT (id) DO NOTHING) is a resend of the same order, or
      // refused as the statements refuse it: this call's deferred inserts are taken back (as the
      // statements' transaction rolls back), and nothing more is looked up for a new id
      if (k === 0 && !sameDeferred(p)) {
        dropSince(before);
        throw notRecorded(p, DIFFERENT_ORDER);
      }
      n += k;
    }
    bound();
    return n;
  };
  /** True when the known order `p.id` (deferred or in the table) is `p`'s (the `sameOrder` statement's test). */
  const sameDeferred = (p: PreparedOrder): boolean => {
    const i = pending.get(p.id)?.insert;
    if (i === undefined) return st.sameOrder.get(recordedRow(p, 0)) !== undefined;
    const r = p.request;
    return (
      asStored(i.market) === asStored(r.market) &&
      asStored(i.token) === asStored(r.tokenId) &&
      i.side === r.side &&
      i.price === r.price &&
      i.size === r.size &&
      asStored(i.type) === asStored(r.type ?? 'GTC')
    );
  };
  /** Takes back the deferred writes made after the first `before` (entries are only ever appended). */
  const dropSince = (before: number): void => {
    let i = 0;
    for (const id of pending.keys()) if (i++ >= before) pending.delete(id);
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

  return {
    pending,
    writePending,
    direct,
    bound,
    deferAdopt,
    deferUpdate,
    adoptDeferrable,
    patchDeferrable,
    recordDeferred,
    updateDeferred,
  };
}
