/**
 * `mmkit store archive`: moves what a long-running store no longer needs into an archive file, so
 * that a daemon left for weeks keeps a store of bounded size (trial 17 F8: ~170 MB a day on a busy
 * paper world, nearly all of it finished orders and the audit log of decisions).
 *
 * What moves: orders that are finished (filled, cancelled, rejected) and were last updated before
 * the cut-off, and audit rows written before it. What stays, whatever its age: open or unresolved
 * orders (pending, live, partially filled, unknown), every fill, the ledger (epochs, sessions,
 * adjustments, operations) and the rewards: positions, PnL and the restart reconciliation are
 * computed from them.
 *
 * Nothing is lost, even if the process dies half way: the rows are first copied into the archive
 * (a SQLite file; `INSERT OR IGNORE` on the rows' keys, so a second run after a crash copies nothing
 * twice) and that transaction commits; only then are the copies found there counted, and only the
 * rows found there are deleted from the store, in a second transaction. The audit log is
 * append-only (a trigger refuses deletes): the trigger is dropped and created again inside that
 * second transaction, so no other writer ever sees it missing. The archive records each run in its
 * `archive_runs` table (when, the cut-off, the counts, the store it came from).
 *
 * Freed pages are reused by the store's later writes; `vacuum` also gives them back to the file
 * system (it rewrites the whole file: it needs as much free disk as the store's size, and time).
 */
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { storeFileBytes } from './file-size.ts';
import { migrate } from './migrations.ts';
import { createPrivate } from './store.ts';

/** Order statuses that never change again (the orders an archive may take). */
const FINISHED = "('filled', 'cancelled', 'rejected')";

export interface ArchiveOptions {
  /** Rows older than this (unix ms) move: orders by their last update, audit rows by their time. */
  readonly before: number;
  /** The archive file (created 0600 when missing; a later run adds to it). */
  readonly archiveFile: string;
  /** Count what would move; change nothing (no archive file is created). */
  readonly dryRun?: boolean;
  /** Rewrite the store afterwards so its file shrinks (VACUUM). */
  readonly vacuum?: boolean;
  /** The run's time, unix ms (recorded in the archive). */
  readonly now?: number;
}

export interface ArchiveResult {
  /** Orders moved (or, dry, that would move). */
  readonly orders: number;
  /** Audit rows moved (or, dry, that would move). */
  readonly audit: number;
  /** Orders kept because they are not finished, although older than the cut-off. */
  readonly openKept: number;
  /** The store file's size before and after, bytes (after: the same unless vacuumed). */
  readonly bytesBefore: number;
  readonly bytesAfter: number;
  /** Free pages in the store after the run, bytes (reused by later writes; `vacuum` returns them). */
  readonly freeBytes: number;
}

/**
 * Moves the store's finished orders and audit rows older than `o.before` into `o.archiveFile` (see
 * the module comment). The caller makes sure no daemon writes the store meanwhile (the data dir's
 * lock).
 * @throws Error when the store file does not exist or holds a newer schema than this mmkit knows
 */
export function archiveStore(storeFile: string, o: ArchiveOptions): ArchiveResult {
  if (!existsSync(storeFile)) throw new Error(`${storeFile}: no such store`);
  const bytesBefore = storeFileBytes(storeFile);
  const db = new Database(storeFile, { fileMustExist: true });
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    migrate(db, storeFile);
    const count = (sql: string) => Number(db.prepare(sql).pluck().get(o.before));
    const orders = count(`SELECT COUNT(*) FROM orders WHERE status IN ${FINISHED} AND updated_at < ?`);
    const audit = count('SELECT COUNT(*) FROM audit WHERE time < ?');
    const openKept = count(`SELECT COUNT(*) FROM orders WHERE status NOT IN ${FINISHED} AND updated_at < ?`);
    if (o.dryRun === true || (orders === 0 && audit === 0)) {
      return { orders, audit, openKept, bytesBefore, bytesAfter: bytesBefore, freeBytes: freeBytes(db) };
    }
    createPrivate(o.archiveFile);
    db.prepare('ATTACH DATABASE ? AS arc').run(o.archiveFile);
    try {
      // the archive's tables: the store's columns, keyed as in the store (a re-run copies nothing twice)
      db.exec(`CREATE TABLE IF NOT EXISTS arc.orders AS SELECT * FROM main.orders WHERE 0;
        CREATE UNIQUE INDEX IF NOT EXISTS arc.orders_id ON orders (id);
        CREATE TABLE IF NOT EXISTS arc.audit AS SELECT * FROM main.audit WHERE 0;
        CREATE UNIQUE INDEX IF NOT EXISTS arc.audit_seq ON audit (seq);
        CREATE TABLE IF NOT EXISTS arc.archive_runs (
          at INTEGER NOT NULL, before INTEGER NOT NULL, orders INTEGER NOT NULL, audit INTEGER NOT NULL,
          store TEXT NOT NULL)`);
      // 1: copy, and commit the copy
      db.transaction(() => {
        db.prepare(
          `INSERT OR IGNORE INTO arc.orders SELECT * FROM main.orders WHERE status IN ${FINISHED} AND updated_at < ?`,
        ).run(o.before);
        db.prepare('INSERT OR IGNORE INTO arc.audit SELECT * FROM main.audit WHERE time < ?').run(o.before);
      })();
      // 2: delete from the store only what the archive holds (an order or audit row in both
      // places after a crash is copied by nobody twice and deleted by the next run)
      const trigger = db
        .prepare("SELECT sql FROM main.sqlite_master WHERE type = 'trigger' AND name = 'audit_no_delete'")
        .pluck()
        .get() as string | undefined;
      let moved = { orders: 0, audit: 0 };
      db.transaction(() => {
        const ords = db
          .prepare(
            `DELETE FROM main.orders WHERE status IN ${FINISHED} AND updated_at < ?
             AND id IN (SELECT id FROM arc.orders)`,
          )
          .run(o.before).changes;
        if (trigger !== undefined) db.exec('DROP TRIGGER main.audit_no_delete');
        const aud = db
          .prepare('DELETE FROM main.audit WHERE time < ? AND seq IN (SELECT seq FROM arc.audit)')
          .run(o.before).changes;
        if (trigger !== undefined) db.exec(trigger);
        moved = { orders: ords, audit: aud };
        db.prepare('INSERT INTO arc.archive_runs (at, before, orders, audit, store) VALUES (?, ?, ?, ?, ?)').run(
          o.now ?? Date.now(),
          o.before,
          ords,
          aud,
          storeFile,
        );
      })();
      db.exec('DETACH DATABASE arc');
      if (o.vacuum === true) {
        db.exec('VACUUM');
        db.pragma('wal_checkpoint(TRUNCATE)');
      }
      return {
        orders: moved.orders,
        audit: moved.audit,
        openKept,
        bytesBefore,
        bytesAfter: storeFileBytes(storeFile),
        freeBytes: freeBytes(db),
      };
    } catch (e) {
      try {
        db.exec('DETACH DATABASE arc');
      } catch {
        /* already detached */
      }
      throw e;
    }
  } finally {
    db.close();
  }
}

function freeBytes(db: Database.Database): number {
  return Number(db.pragma('freelist_count', { simple: true })) * Number(db.pragma('page_size', { simple: true }));
}

/** The store's size on disk: the file and its WAL. */
