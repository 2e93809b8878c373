/**
 * The store's day opens (migration 6; risk.maxDailyLoss): per ledger epoch and UTC date, the first PnL
 * given is kept and answered ever after, across a reopen; without a PnL only read; a new epoch opens
 * its own days; bad input is refused and writes nothing; a store of schema 5 migrates (migrations 6
 * and 7: day opens, operations' tx hash).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.ts';
import { ValidationError } from '../../../src/core/errors.ts';
import { MIGRATIONS, migrate } from '../../../src/store/migrations.ts';
import { openStore, type Store } from '../../../src/store/store.ts';

const PAPER = { venue: 'paper', world: 'w-1', address: '0x0000000000000000000000000000000000000001' };

let dir: string;
let file: string;
let clock: VirtualClock;
let store: Store;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mmkit-day-opens-'));
  file = join(dir, 'mmkit.db');
  clock = new VirtualClock(Date.UTC(2026, 10, 29, 12));
  store = openStore(file, { clock, checkpoint: 'auto' });
  store.openEpoch(PAPER);
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the day opens', () => {
  it('keeps the first PnL of a date, per date, across a reopen', () => {
    expect(store.dayOpen('2026-11-29', -1_500_000)).toBe(-1_500_000);
    expect(store.dayOpen('2026-11-29', -9_000_000)).toBe(-1_500_000);
    expect(store.dayOpen('2026-11-30', -9_000_000)).toBe(-9_000_000);
    store.close();
    store = openStore(file, { clock, checkpoint: 'auto' });
    expect(store.dayOpen('2026-11-29', 0)).toBe(-1_500_000);
    expect(store.dayOpen('2026-11-30', 0)).toBe(-9_000_000);
  });

  it('a new ledger epoch opens its own days', () => {
    store.dayOpen('2026-11-29', -1_500_000);
    store.openEpoch({ ...PAPER, world: 'w-2' });
    expect(store.dayOpen('2026-11-29', 0)).toBe(0);
  });

  it('without a PnL, only reads: undefined before the day opened, nothing written', () => {
    expect(store.dayOpen('2026-12-01')).toBeUndefined();
    expect(store.dayOpen('2026-12-01')).toBeUndefined();
    expect(store.dayOpen('2026-12-01', 5)).toBe(5);
    expect(store.dayOpen('2026-12-01')).toBe(5);
  });

  it('an old store (schema 5) migrates: its operations read a null tx hash, day opens work', () => {
    store.close();
    rmSync(file);
    const db = new Database(file);
    migrate(db, file, 5);
    db.prepare("INSERT INTO epochs (venue, world, address, started_at) VALUES ('paper', 'w-1', ?, 1)").run(
      PAPER.address,
    );
    db.prepare(
      `INSERT INTO operations (epoch, at, kind, market, amount, collateral, tx, legs) VALUES (1, 5, 'merge', '0xm', 1000000, 1000000, 'relayer-9', '[]')`,
    ).run();
    db.close();
    store = openStore(file, { clock, checkpoint: 'auto' });
    expect(store.operations().map((o) => [o.tx, o.txHash])).toEqual([['relayer-9', null]]);
    expect(store.dayOpen('2026-11-29', -3)).toBe(-3);
    expect(MIGRATIONS.length).toBe(7);
  });

  it('refuses a bad date or PnL and writes nothing', () => {
    expect(() => store.dayOpen('2026-02-30', 0)).toThrow(ValidationError);
    expect(() => store.dayOpen('2026-11-29', 1.5)).toThrow(/day open: a PnL of integer/);
    expect(() => store.dayOpen('29/11/2026', 0)).toThrow(/day open: expected YYYY-MM-DD/);
    expect(store.dayOpen('2026-11-29', 7)).toBe(7);
  });
});
