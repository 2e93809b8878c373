/**
 * A scratch store's orders table without its secondary indexes (src/store/scratch-indexes.ts):
 * every query the store runs on it returns the same rows, in the same order, as with them, and
 * `restore` makes the same indexes again; a UNIQUE index (it decides what an INSERT does) stays.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../../src/store/migrations.ts';
import { setAsideIndexes } from '../../../src/store/scratch-indexes.ts';
import { prepareStatements } from '../../../src/store/statements.ts';

const STATUSES = ['pending', 'live', 'partially_filled', 'filled', 'cancelled', 'rejected', 'unknown'];

/** A store's schema with orders in every status, two markets, equal creation times (ties by rowid). */
function filled(): Database.Database {
  const db = new Database(':memory:');
  migrate(db, ':memory:');
  const ins = db.prepare(
    `INSERT INTO orders (id, market, token, side, price, size, type, status, size_matched, created_at, updated_at, reject_code)
     VALUES (?, ?, 't', 'BUY', 100, 10, 'GTC', ?, 0, ?, ?, NULL)`,
  );
  for (let i = 0; i < 300; i++) {
    // ids out of creation order, so the primary key's order is not the answer's
    const id = `0x${((i * 7919) % 1000).toString(16).padStart(4, '0')}`;
    ins.run(id, i % 3 === 0 ? 'm1' : 'm2', STATUSES[(i * 5) % STATUSES.length], Math.floor(i / 4), i);
  }
  return db;
}

const schema = (db: Database.Database) =>
  db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name").all();

/** The answers of every statement of the store that reads the orders table. */
function answers(db: Database.Database): unknown[] {
  const st = prepareStatements(db);
  return [
    st.openOrders.all(),
    st.openOrdersOf.all('m1'),
    st.openOrdersOf.all('m2'),
    st.orderCounts.all(),
    st.orderCountsSince.all(10, 50),
    st.getOrder.get('0x0000'),
    st.getOrder.get('0x1eef'),
  ];
}

describe('setAsideIndexes', () => {
  it('drops the orders indexes; the store reads the same rows without them; restore makes them again', () => {
    const plain = filled();
    const db = filled();
    const before = schema(db);
    const aside = setAsideIndexes(db, 'orders');
    expect(aside.names).toEqual(['orders_status', 'orders_market']);
    expect(schema(db)).not.toEqual(before);
    expect(answers(db)).toEqual(answers(plain));
    aside.restore();
    aside.restore(); // once only
    expect(schema(db)).toEqual(before);
    expect(answers(db)).toEqual(answers(plain));
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  });

  it('keeps a UNIQUE index and the primary key', () => {
    const db = filled();
    db.exec('CREATE UNIQUE INDEX orders_u ON orders (created_at, updated_at)');
    const aside = setAsideIndexes(db, 'orders');
    expect(aside.names).not.toContain('orders_u');
    const left = db.prepare(
      "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'orders' ORDER BY name",
    );
    expect(left.pluck().all()).toEqual(['orders_u', 'sqlite_autoindex_orders_1']);
    aside.restore();
  });
});
