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
 *
 * This module opens the store and assembles it; the parts: ./store-types.ts (shapes),
 * ./statements.ts (prepared statements, rows), ./orders.ts and ./deferred-orders.ts (order writes,
 * direct and batched), ./deferred-audit.ts (audit writes, batched), ./fills.ts (fills exactly once), ./position-cache.ts and ./positions.ts
 * (positions, PnL), ./summary.ts, ./checkpointer.ts (the WAL checkpoint worker).
 */
import type { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { LiveClock } from '../core/clock.ts';
import { startCheckpointer } from './checkpointer.ts';
import { DeferredAudit } from './deferred-audit.ts';
import { deferredOrders, pendingOf } from './deferred-orders.ts';
import { fillWrites } from './fills.ts';
import { migrate } from './migrations.ts';
import { orderWrites } from './orders.ts';
import { PositionCache } from './position-cache.ts';
import { pnlOf } from './positions.ts';
import { checkInt, prepareStatements, toFill, toOrder, type FillRow, type OrderRow } from './statements.ts';
import type { Durability, Store, StoreOptions } from './store-types.ts';
import { storeSummary } from './summary.ts';

export type { PnlReport, Position } from './positions.ts';
export * from './store-types.ts';
export { fillFromEvent, tradeStatusAdvances } from './fills.ts';
export { BATCHED_PENDING_ORDERS, pendingOrderWrites } from './deferred-orders.ts';
export { BATCHED_PENDING_AUDIT } from './deferred-audit.ts';

/** A bigint as its decimal digits (JSON has none). */
const bigintAsString = (_k: string, v: unknown): unknown => (typeof v === 'bigint' ? v.toString() : v);

/**
 * The JSON of an audit entry, bigints as strings. Without a replacer first (it is called for every
 * key and value: most of the cost), which gives the same text when there is no bigint and throws a
 * TypeError when there is one: then with it.
 */
function auditJson(data: unknown): string {
  try {
    return JSON.stringify(data ?? null);
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
    return JSON.stringify(data ?? null, bigintAsString);
  }
}

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
  const scratch = opts.scratch === true;
  if (scratch && (opts.commit !== 'batched' || fillSync !== 'off' || otherSync !== 'off'))
    throw new Error("openStore: a scratch store needs commit 'batched' and durability 'off'");
  const db = new Database(file);
  let closed = false;
  try {
    if (scratch) {
      // see StoreOptions.scratch: one connection, journal in memory, pages cached (64 MB at most)
      db.pragma('locking_mode = EXCLUSIVE');
      db.pragma('journal_mode = MEMORY');
      db.pragma('temp_store = MEMORY');
      db.pragma('cache_size = -65536');
    } else {
      db.pragma('journal_mode = WAL');
      db.pragma('busy_timeout = 5000');
      // bound the WAL file after checkpoints (checkpoint starvation must not grow it forever)
      db.pragma('journal_size_limit = 67108864');
    }
    migrate(db, file);
  } catch (e) {
    db.close();
    throw e;
  }
  const inMemory = file === ':memory:' || file === '';
  let checkpointer: Worker | undefined;
  if (!inMemory && !scratch && (opts.checkpoint ?? 'worker') === 'worker') {
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

  const st = prepareStatements(db);
  const ow = orderWrites(db, st);
  const { recordMany, updateOne, adoptOne, updateMany } = ow;
  // the deferred counterparts of the order writes ('batched' only)
  const {
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
  } = deferredOrders(db, st, ow, opts.pendingOrders, scratch);
  const { applyFillOnce, applyFillTx } = fillWrites(db, st);
  // a batched store inserts its audit entries together (./deferred-audit.ts)
  const audits = batched ? new DeferredAudit(st) : undefined;
  // positions are recomputed from the fills only after a fill changed them
  const positions = new PositionCache(st);

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
      if (change === 'new' || change === 'void') positions.invalidate();
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
      return [...positions.get().values()].map((a) => a.snapshot());
    },
    pnl(marks) {
      open();
      return pnlOf(positions.get(), marks);
    },
    audit(kind, data) {
      open();
      setSync(otherSync);
      const time = clock.now();
      const json = auditJson(data);
      // deferred when the row is one the STRICT table takes as it is (else the INSERT itself, now)
      if (audits !== undefined && Number.isSafeInteger(time) && typeof kind === 'string') audits.add(time, kind, json);
      else {
        audits?.write();
        st.insertAudit.run(time, kind, json);
      }
    },
    auditLog(o = {}) {
      open();
      audits?.write();
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
      return storeSummary(st);
    },
    flush() {
      open();
      if (!batched) return;
      writePending();
      audits?.write();
      if (db.inTransaction) db.exec('COMMIT');
      db.exec('BEGIN');
    },
    close() {
      if (closed) return;
      closed = true;
      if (batched) writePending();
      audits?.write();
      if (batched && db.inTransaction) db.exec('COMMIT');
      if (checkpointer !== undefined) {
        checkpointer.postMessage('stop');
        void checkpointer.terminate().catch(() => undefined);
        checkpointer = undefined;
      }
      try {
        if (!inMemory && !scratch) db.pragma('wal_checkpoint(TRUNCATE)');
      } finally {
        db.close();
      }
    },
  };
  if (batched) pendingOf.set(store, pending);
  return store;
}
