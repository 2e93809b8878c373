/**
 * The bot's own SQLite store: orders (recorded BEFORE they are sent), fills exactly once, an
 * append-only audit log, and a ledger in epochs (one per venue + world + address: positions and PnL
 * of the current epoch, derived from its fills, adjustments and operation legs), and sessions.
 *
 * Why this shape:
 *  - One writer, one connection, better-sqlite3 (synchronous): every method is one short
 *    transaction that has COMMITTED when the method returns, so a caller that logs or counts after
 *    `recordFill` never reports a fill that is not on disk.
 *  - WAL journal. Fills commit with `synchronous=FULL` by default (the WAL is fsynced at each
 *    commit: a fill survives power loss); orders and audit with `NORMAL` (they survive a process
 *    crash such as kill -9, which is what restart safety needs, and keep the tick-to-order path free
 *    of an fsync). Both are configurable.
 *  - Fills keyed by (trade_id, order_id): a replayed event is an INSERT that changes nothing (ON
 *    CONFLICT of the key DO NOTHING; a row the table refuses otherwise throws, never skipped); a trade status that moves forward (MATCHED → MINED → CONFIRMED, or RETRYING → FAILED)
 *    updates the status only; FAILED makes the fill void, which removes it from positions.
 *  - Integers everywhere (STRICT tables refuse a float in a money column).
 *
 * This module opens the store and assembles it; the parts: ./store-types.ts (shapes),
 * ./statements.ts (prepared statements, rows), ./orders.ts and ./deferred-orders.ts (order writes,
 * direct and batched), ./deferred-audit.ts (audit writes, batched), ./fills.ts (fills exactly once)
 * and ./deferred-fills.ts (new fills of a batched scratch store, inserted together),
 * ./epochs.ts (epochs, sessions), ./ledger.ts (adjustments, operations, the merged ledger),
 * ./position-cache.ts and ./positions.ts (positions, PnL), ./rewards.ts (liquidity rewards: estimated
 * and paid per market and date, credits of cause 'reward'), ./summary.ts, ./checkpointer.ts (the WAL
 * checkpointer).
 */
import { closeSync, existsSync, openSync, statSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { LiveClock } from '../core/clock.ts';
import { ValidationError } from '../core/errors.ts';
import { startCheckpointer } from './checkpointer.ts';
import { DeferredAudit } from './deferred-audit.ts';
import { setAsideIndexes } from './scratch-indexes.ts';
import { DeferredFills } from './deferred-fills.ts';
import { deferredOrders, pendingOf } from './deferred-orders.ts';
import { checkTime, epochIdentity, sameEpoch, toEpoch, toSession, type EpochRow, type SessionRow } from './epochs.ts';
import { fillWrites } from './fills.ts';
import {
  checkAdjustment,
  checkOperation,
  legsJson,
  toAdjustment,
  toOperation,
  type AdjustmentRow,
  type OperationRow,
} from './ledger.ts';
import { migrate } from './migrations.ts';
import { storeOpenError } from './open-errors.ts';
import { orderWrites } from './orders.ts';
import { PositionCache, type PositionChange } from './position-cache.ts';
import { pnlOf } from './positions.ts';
import { checkRewardDate, rewardLedger } from './rewards.ts';
import { checkInt, prepareStatements, toFill, toOrder, type FillRow, type OrderRow } from './statements.ts';
import type { Durability, LedgerEpoch, Store, StoreOptions } from './store-types.ts';
import { storeSummary } from './summary.ts';

export type { PnlReport, Position } from './positions.ts';
export * from './store-types.ts';
export { fillFromEvent, tradeStatusAdvances } from './fills.ts';
export { BATCHED_PENDING_ORDERS, pendingOrderWrites } from './deferred-orders.ts';
export { BATCHED_PENDING_AUDIT } from './deferred-audit.ts';
export { BATCHED_PENDING_FILLS } from './deferred-fills.ts';

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
 * Creates a new store file owner-only (0600) before SQLite opens it: the trading history (orders,
 * fills, PnL) is private, and SQLite gives the file's -wal and -shm companions the same mode. An
 * existing file keeps its mode; an in-memory or URI name is left to SQLite.
 */
export function createPrivate(file: string): void {
  if (file === '' || file === ':memory:' || file.startsWith('file:')) return;
  try {
    closeSync(openSync(file, 'wx', 0o600));
  } catch {
    // an existing file (EEXIST); any other failure is SQLite's to report, in its words, as it opens it
  }
}

/**
 * Open (or create) the store at `file` (':memory:' works for tests), applying pending migrations.
 * A 'batched' store defers order writes (see StoreOptions.commit) without changing what any method
 * returns or throws, nor the rows in the end: a read of the orders table, a flush or a close first
 * writes what is deferred, and an input the fast path cannot vouch for runs the statements.
 * @throws ConfigError (key bot.storeFile) naming the file and the way forward when it is damaged, not a
 *   store, or read-only (./open-errors.ts); Error when it cannot be opened otherwise or holds a newer schema
 *   than this code knows.
 */
export function openStore(file: string, opts: StoreOptions = {}): Store {
  const clock = opts.clock ?? new LiveClock();
  const fillSync = opts.durability?.fills ?? 'full';
  const otherSync = opts.durability?.other ?? 'normal';
  const scratch = opts.scratch === true;
  if (scratch && (opts.commit !== 'batched' || fillSync !== 'off' || otherSync !== 'off'))
    throw new Error("openStore: a scratch store needs commit 'batched' and durability 'off'");
  createPrivate(file);
  let db: Database.Database;
  try {
    db = new Database(file);
  } catch (e) {
    throw storeOpenError(file, e);
  }
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
    // a damaged, foreign or read-only file: named, with the way forward (./open-errors.ts)
    throw storeOpenError(file, e);
  }
  const inMemory = file === ':memory:' || file === '';
  // the file opened (device, inode): fileProblem() tells when the path names it no more
  const opened = inMemory || file.startsWith('file:') ? undefined : (fileId(file) ?? undefined);
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
  const fw = fillWrites(db, st);
  const { applyFillOnce, applyFillTx } = fw;
  // a batched scratch store inserts its new fills together (./deferred-fills.ts): every read of the
  // fills table (fill reads, the ledger and positions, the summary), a flush and a close write them first
  const deferredFills = batched && scratch ? new DeferredFills(db, fw) : undefined;
  const writeFills = (): void => deferredFills?.write();
  // a batched store inserts its audit entries together (./deferred-audit.ts)
  const audits = batched ? new DeferredAudit(st) : undefined;
  // the ledger's current epoch (the latest; undefined: none, every row then has none) and the
  // session this store began
  let epoch: LedgerEpoch | undefined = (() => {
    const r = st.latestEpoch.get() as EpochRow | undefined;
    return r === undefined ? undefined : toEpoch(r);
  })();
  let mySession: number | undefined;
  // positions of the current epoch: kept, extended by each new entry, recomputed after a void
  const positions = new PositionCache(st, () => epoch?.id ?? null);
  const rewardBook = rewardLedger(
    db,
    () => epoch?.id ?? null,
    () => clock.now(),
  );
  const startEpoch = db.transaction((venue: string, world: string | null, address: string, now: number) => {
    const r = st.insertEpoch.get(venue, world, address, now) as EpochRow;
    if (mySession !== undefined) st.moveSession.run(r.id, mySession);
    return toEpoch(r);
  });

  const open = (): void => {
    if (closed) throw new Error(`store ${file} is closed`);
  };
  if (batched) db.exec('BEGIN');
  // a scratch store builds the orders table's secondary indexes at close (./scratch-indexes.ts);
  // dropped within the open transaction, so the file has them until its first commit
  const orderIndexes = scratch ? setAsideIndexes(db, 'orders') : undefined;

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
      if (fill.source !== undefined && fill.source !== 'bot' && fill.source !== 'external')
        throw new ValidationError(`fill source: expected bot or external, got ${String(fill.source)}`);
      setSync(fillSync);
      const e = epoch?.id ?? null;
      const change =
        deferredFills !== undefined
          ? deferredFills.apply(fill, clock.now(), e)
          : batched
            ? applyFillOnce(fill, clock.now(), e)
            : applyFillTx(fill, clock.now(), e);
      if (change === 'new') {
        if (fill.status !== 'FAILED') positions.appendFill(fill);
      } else if (change === 'void') positions.invalidate();
      return change;
    },
    fills(sinceMs = 0) {
      open();
      writeFills();
      return (st.fillsSince.all(sinceMs) as FillRow[]).map(toFill);
    },
    hasFill(tradeId, orderId) {
      open();
      writeFills();
      return st.fillStatus.get(tradeId, orderId) !== undefined;
    },
    hasFillInEpoch(tradeId, orderId) {
      open();
      writeFills();
      const r = st.fillEpoch.get(tradeId, orderId) as { epoch: number | null } | undefined;
      return r !== undefined && (epoch === undefined || r.epoch === epoch.id);
    },
    lastFillTime() {
      open();
      writeFills();
      const r = (epoch === undefined ? st.lastFill.get() : st.lastFillOf.get(epoch.id)) as { t: number | null };
      return r.t ?? undefined;
    },
    oldestUnsettledFillTime(sinceMs = 0) {
      open();
      writeFills();
      const r = (
        epoch === undefined ? st.oldestUnsettled.get(sinceMs) : st.oldestUnsettledOf.get(epoch.id, sinceMs)
      ) as { t: number | null };
      return r.t ?? undefined;
    },
    positions() {
      open();
      writeFills();
      return [...positions.get().values()].map((a) => a.snapshot());
    },
    positionDecimals() {
      open();
      writeFills();
      return [...positions.get().values()].map((a) => a.decimals());
    },
    pnl(marks) {
      open();
      writeFills();
      return pnlOf(positions.get(), marks);
    },
    ledgerEntries() {
      open();
      writeFills();
      return positions.entries();
    },
    openEpoch(id, now = clock.now()) {
      open();
      const ident = epochIdentity(id);
      checkTime('openEpoch now', now);
      const r = st.latestEpoch.get() as EpochRow | undefined;
      const latest = r === undefined ? undefined : toEpoch(r);
      if (latest !== undefined && sameEpoch(latest, ident)) {
        if (epoch?.id !== latest.id) positions.invalidate();
        // the same world or chain through another URL: the epoch goes on, named by the URL in use
        epoch =
          latest.venue === ident.venue ? latest : toEpoch(st.setEpochVenue.get(ident.venue, latest.id) as EpochRow);
        return { epoch, fresh: false };
      }
      setSync(fillSync);
      epoch = startEpoch(ident.venue, ident.world, ident.address, now);
      positions.reset();
      return latest === undefined ? { epoch, fresh: true } : { epoch, fresh: true, previous: latest };
    },
    currentEpoch() {
      open();
      return epoch;
    },
    epochs() {
      open();
      return (st.allEpochs.all() as EpochRow[]).map(toEpoch);
    },
    recordAdjustment(a) {
      open();
      const at = a.at ?? clock.now();
      checkAdjustment(a, at);
      setSync(fillSync);
      const stored = toAdjustment(
        st.insertAdjustment.get({
          epoch: epoch?.id ?? null,
          at,
          market: a.market,
          token: a.tokenId,
          size: a.size,
          price: a.price,
          price_micro: a.priceMicro ?? null,
          price_source: a.priceSource,
          cause: a.cause,
          note: a.note ?? null,
        }) as AdjustmentRow,
      );
      positions.append([
        {
          kind: 'adjustment',
          market: stored.market,
          tokenId: stored.tokenId,
          side: stored.size > 0 ? 'BUY' : 'SELL',
          price: stored.price,
          ...(stored.priceMicro !== null ? { priceMicro: stored.priceMicro } : {}),
          size: Math.abs(stored.size) as typeof stored.size,
          fee: 0 as typeof stored.size,
          at,
        },
      ]);
      return stored;
    },
    adjustments(o = {}) {
      open();
      const e = o.epoch ?? epoch?.id ?? null;
      if (e !== null) checkInt('epoch', e);
      const since = o.since ?? 0;
      checkInt('since', since);
      const rows = (e === null ? st.adjustmentsNoEpoch.all(since) : st.adjustmentsOf.all(e, since)) as AdjustmentRow[];
      return rows.map(toAdjustment);
    },
    recordOperation(op) {
      open();
      const at = op.at ?? clock.now();
      checkOperation(op, at);
      setSync(fillSync);
      const stored = toOperation(
        st.insertOperation.get({
          epoch: epoch?.id ?? null,
          at,
          kind: op.kind,
          market: op.market,
          amount: op.amount,
          collateral: op.collateral,
          tx: op.tx ?? null,
          tx_hash: op.txHash ?? null,
          legs: legsJson(op),
        }) as OperationRow,
      );
      positions.append(
        stored.legs.map(
          (l): PositionChange => ({
            kind: 'operation',
            market: stored.market,
            tokenId: l.tokenId,
            side: l.size > 0 ? 'BUY' : 'SELL',
            price: l.price,
            size: Math.abs(l.size) as typeof l.size,
            fee: 0 as typeof l.size,
            at,
          }),
        ),
      );
      return stored;
    },
    operations(o = {}) {
      open();
      const e = o.epoch ?? epoch?.id ?? null;
      if (e !== null) checkInt('epoch', e);
      return ((e === null ? st.operationsNoEpoch.all() : st.operationsOf.all(e)) as OperationRow[]).map(toOperation);
    },
    beginSession(now = clock.now()) {
      open();
      checkTime('beginSession now', now);
      setSync(otherSync);
      const r = st.insertSession.get(epoch?.id ?? null, now, process.pid) as SessionRow;
      mySession = r.id;
      return r.id;
    },
    endSession(id, now = clock.now()) {
      open();
      checkTime('endSession now', now);
      const r = st.getSession.get(id) as SessionRow | undefined;
      if (r === undefined || r.ended_at !== null) return false;
      if (now < r.started_at)
        throw new ValidationError(`endSession: ${now} is before the session's start (${r.started_at})`);
      setSync(otherSync);
      return st.endSession.run(now, id).changes > 0;
    },
    currentSession() {
      open();
      const r = (mySession !== undefined ? st.getSession.get(mySession) : st.latestSession.get()) as
        | SessionRow
        | undefined;
      return r === undefined ? undefined : toSession(r);
    },
    recordRewardEstimate(r) {
      open();
      setSync(otherSync);
      return rewardBook.recordEstimate(r);
    },
    recordRewardPaid(r) {
      open();
      setSync(fillSync);
      return rewardBook.recordPaid(r);
    },
    settleReward(r) {
      open();
      setSync(otherSync); // no money moves (a lost settle is done again by the next poll)
      return rewardBook.settle(r);
    },
    reward(market, date) {
      open();
      return rewardBook.reward(market, date);
    },
    rewards(o = {}) {
      open();
      return rewardBook.rewards(o);
    },
    rewardCredits(o = {}) {
      open();
      return rewardBook.credits(o);
    },
    rewardTotals(o = {}) {
      open();
      return rewardBook.totals(o);
    },
    // (the overloads of Store['dayOpen']: with a PnL it always answers a number)
    dayOpen: ((date: string, pnl?: number): number | undefined => {
      open();
      checkRewardDate(date, 'day open');
      if (pnl !== undefined && !Number.isSafeInteger(pnl))
        throw new ValidationError(`day open: a PnL of integer µ, got ${String(pnl)}`);
      const e = epoch?.id ?? 0;
      if (pnl !== undefined) {
        setSync(otherSync);
        st.insertDayOpen.run(e, date, pnl, clock.now());
      }
      return (st.dayOpen.get(e, date) as { pnl: number } | undefined)?.pnl;
    }) as Store['dayOpen'],
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
    summary(o = {}) {
      open();
      const scope = o.scope ?? 'epoch';
      if (scope !== 'epoch' && scope !== 'session')
        throw new ValidationError(`summary scope: expected session or epoch, got ${String(scope)}`);
      writePending();
      writeFills();
      const realized = o.realized === true;
      if (scope === 'epoch') return storeSummary(st, { scope, epoch, realized }, rewardBook.totals());
      const session = store.currentSession();
      if (session === undefined) throw new ValidationError('summary: no session in this store (beginSession first)');
      return storeSummary(
        st,
        { scope, epoch, session, realized },
        rewardBook.between(session.startedAt, session.endedAt ?? Number.MAX_SAFE_INTEGER),
      );
    },
    fileProblem() {
      if (opened === undefined) return undefined;
      const now = fileId(file);
      if (now === null) return undefined;
      if (now === undefined)
        return `the store file ${file} is gone (deleted or moved while the daemon runs): what it writes now is lost`;
      if (now.dev !== opened.dev || now.ino !== opened.ino)
        return `the store file ${file} is another file now (replaced while the daemon runs): what it writes now is lost`;
      return undefined;
    },
    flush() {
      open();
      if (!batched) return;
      writePending();
      writeFills();
      audits?.write();
      if (db.inTransaction) db.exec('COMMIT');
      db.exec('BEGIN');
    },
    close() {
      if (closed) return;
      closed = true;
      if (batched) writePending();
      writeFills();
      audits?.write();
      orderIndexes?.restore();
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

/**
 * A file's device and inode (bigint: exact); undefined when there is none at the path, null when it
 * cannot be told (another stat error: not taken for a missing file).
 */
function fileId(file: string): { dev: bigint; ino: bigint } | undefined | null {
  try {
    const st = statSync(file, { bigint: true });
    return { dev: st.dev, ino: st.ino };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? undefined : null;
  }
}

/**
 * Open the existing store at `file` and close it again, so that a damaged, foreign or read-only one
 * refuses a start (ConfigError naming it, ./open-errors.ts) before the caller binds a port or creates
 * anything else. No file: nothing to check (openStore creates it).
 */
export function checkStoreOpens(file: string): void {
  if (file === '' || file === ':memory:' || !existsSync(file)) return;
  openStore(file, { checkpoint: 'auto' }).close();
}
