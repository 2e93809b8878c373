/**
 * The orders table's secondary indexes in a scratch store (StoreOptions.scratch): built once at
 * close instead of kept up to date at every write. A backtest writes each of its orders once or
 * a few times and reads the table by those indexes rarely if ever; each write to an indexed table
 * is also a B-tree write to each index, and one sort at the end is much cheaper than all of them.
 * Every read returns the same rows without them (each query that could use one orders its rows
 * itself: ORDER BY or GROUP BY), only by a scan; the closed file has the same indexes, made by
 * their own `CREATE INDEX` statements. A scratch store may be left corrupt by a crash anyway
 * (StoreOptions.scratch); one left without these indexes is whole, only slower to read.
 */
import type Database from 'better-sqlite3';

/** The indexes set aside; `restore` makes them again (once; later calls do nothing). */
export interface SetAsideIndexes {
  /** The names of the indexes set aside, in the order they are made again. */
  readonly names: readonly string[];
  restore(): void;
}

/**
 * Drops the secondary indexes of `table` (those made by CREATE INDEX: not the primary key's nor a
 * UNIQUE constraint's, which decide what an INSERT does) and returns how to make them again.
 */
export function setAsideIndexes(db: Database.Database, table: string): SetAsideIndexes {
  const all = db
    .prepare(
      "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY rowid",
    )
    .all(table) as { name: string; sql: string }[];
  // a UNIQUE index decides what an INSERT does: it stays
  const rows = all.filter((r) => !/^\s*CREATE\s+UNIQUE\b/i.test(r.sql));
  const quote = (name: string): string => `"${name.replaceAll('"', '""')}"`;
  for (const r of rows) db.exec(`DROP INDEX ${quote(r.name)}`);
  let pending = rows;
  return {
    names: rows.map((r) => r.name),
    restore() {
      for (const r of pending) db.exec(r.sql);
      pending = [];
    },
  };
}
