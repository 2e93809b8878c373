/**
 * `mmkit store archive` (src/store/archive.ts) on a real SQLite store: finished orders and audit
 * rows older than the cut-off move to the archive file; open orders, fills, the ledger and the
 * positions stay as they were; the audit log stays append-only; nothing is lost or copied twice
 * when a run died between its copy and its delete; a dry run changes nothing.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.ts';
import type { ConditionId, OrderId, TokenId } from '../../../src/core/ids.ts';
import type { Micro, Pips } from '../../../src/core/units.ts';
import type { PreparedOrder } from '../../../src/core/venue.ts';
import { archiveStore } from '../../../src/store/archive.ts';
import { openStore } from '../../../src/store/store.ts';

const M = '0xmarket' as ConditionId;
const YES = '111' as TokenId;
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 9, 1);

const prepared = (id: string): PreparedOrder => ({
  id: id as OrderId,
  request: { market: M, tokenId: YES, side: 'BUY', price: 5000 as Pips, size: 10_000_000 as Micro, type: 'GTC' },
  wire: {},
});

let dir: string;
let file: string;
let arc: string;

/** Old (day 0): a filled order with its fill, a cancelled one, a live one; audit rows. New (day 40): a cancelled order, an audit row. */
function build(): void {
  const clock = new VirtualClock(T0);
  const s = openStore(file, { clock });
  s.openEpoch({ venue: 'paper', world: 'w', address: '0xabc' });
  for (const id of ['0xf', '0xc', '0xl']) s.recordOrder(prepared(id));
  s.updateOrder('0xf' as OrderId, { status: 'filled', sizeMatched: 10_000_000 });
  s.updateOrder('0xc' as OrderId, { status: 'cancelled' });
  s.updateOrder('0xl' as OrderId, { status: 'live' });
  s.recordFill({
    tradeId: 't1',
    orderId: '0xf' as OrderId,
    market: M,
    tokenId: YES,
    side: 'BUY',
    price: 5000 as Pips,
    size: 10_000_000 as Micro,
    fee: 0 as Micro,
    role: 'MAKER',
    status: 'CONFIRMED',
    matchTime: T0,
  });
  s.audit('cycle', { n: 1 });
  s.audit('cycle', { n: 2 });
  clock.advance(40 * DAY);
  s.recordOrder(prepared('0xnew'));
  s.updateOrder('0xnew' as OrderId, { status: 'cancelled' });
  s.audit('cycle', { n: 3 });
  s.close();
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mmkit-archive-'));
  file = join(dir, 'mmkit.db');
  arc = join(dir, 'archive.db');
  build();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const rows = (f: string, sql: string) => {
  const db = new Database(f, { readonly: true });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
};
const ids = (f: string, table: string) =>
  rows(f, `SELECT id FROM ${table} ORDER BY id`).map((r) => (r as { id: string }).id);

describe('store archive', () => {
  it('moves finished orders and audit rows older than the cut-off; open orders, fills, ledger and positions stay', () => {
    const before = openStore(file);
    const positions = before.positions();
    const ledger = before.ledgerEntries();
    before.close();
    const r = archiveStore(file, { before: T0 + 30 * DAY, archiveFile: arc, now: T0 + 41 * DAY });
    expect(r).toMatchObject({ orders: 2, audit: 2, openKept: 1 });
    expect(ids(file, 'orders')).toEqual(['0xl', '0xnew']);
    expect(ids(arc, 'orders')).toEqual(['0xc', '0xf']);
    expect(rows(arc, 'SELECT json FROM audit ORDER BY seq')).toEqual([{ json: '{"n":1}' }, { json: '{"n":2}' }]);
    expect(rows(arc, 'SELECT at, before, orders, audit FROM archive_runs')).toEqual([
      { at: T0 + 41 * DAY, before: T0 + 30 * DAY, orders: 2, audit: 2 },
    ]);
    const after = openStore(file);
    try {
      expect(after.auditLog().map((a) => a.data)).toEqual([{ n: 3 }]);
      expect(after.fills().map((f) => f.tradeId)).toEqual(['t1']);
      expect(after.positions()).toEqual(positions);
      expect(after.ledgerEntries()).toEqual(ledger);
      expect(after.openOrders().map((o) => o.id)).toEqual(['0xl']);
    } finally {
      after.close();
    }
    // the audit log is append-only again
    const db = new Database(file);
    try {
      expect(() => db.prepare('DELETE FROM audit').run()).toThrow(/append-only/);
    } finally {
      db.close();
    }
    // a second run finds nothing more
    expect(archiveStore(file, { before: T0 + 30 * DAY, archiveFile: arc })).toMatchObject({ orders: 0, audit: 0 });
    expect(ids(arc, 'orders')).toEqual(['0xc', '0xf']);
  });

  it('a run that died after its copy: the next one deletes the copies and copies nothing twice', () => {
    // the first transaction of a run that died before its second: the rows are in both files
    archiveStore(file, { before: T0 + 30 * DAY, archiveFile: arc, dryRun: true });
    const db = new Database(file);
    db.prepare('ATTACH DATABASE ? AS arc').run(arc);
    db.exec(`CREATE TABLE arc.orders AS SELECT * FROM main.orders WHERE status IN ('filled', 'cancelled') AND updated_at < ${T0 + 30 * DAY};
      CREATE TABLE arc.audit AS SELECT * FROM main.audit WHERE time < ${T0 + 30 * DAY}`);
    db.close();
    expect(ids(arc, 'orders')).toEqual(['0xc', '0xf']);
    const r = archiveStore(file, { before: T0 + 30 * DAY, archiveFile: arc });
    expect(r).toMatchObject({ orders: 2, audit: 2 });
    expect(ids(arc, 'orders')).toEqual(['0xc', '0xf']);
    expect(rows(arc, 'SELECT COUNT(*) AS n FROM audit')).toEqual([{ n: 2 }]);
    expect(ids(file, 'orders')).toEqual(['0xl', '0xnew']);
  });

  it('a dry run counts and changes nothing; vacuum shrinks the file; a missing store is an error', () => {
    const r = archiveStore(file, { before: T0 + 30 * DAY, archiveFile: arc, dryRun: true });
    expect(r).toMatchObject({ orders: 2, audit: 2, openKept: 1 });
    expect(existsSync(arc)).toBe(false);
    expect(ids(file, 'orders')).toEqual(['0xc', '0xf', '0xl', '0xnew']);
    const v = archiveStore(file, { before: T0 + 50 * DAY, archiveFile: arc, vacuum: true });
    expect(v).toMatchObject({ orders: 3, audit: 3, freeBytes: 0 });
    expect(ids(file, 'orders')).toEqual(['0xl']);
    expect(() => archiveStore(join(dir, 'none.db'), { before: 1, archiveFile: arc })).toThrow(/no such store/);
  });
});
