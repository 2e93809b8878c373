/**
 * The pieces of a batched store's deferred writes that the call-sequence model
 * (store-batched.slow.test.ts) reaches only by chance: the id filter never forgets an id, a scratch
 * store opened on a file that already holds rows knows them, and the deferred audit entries stay
 * bounded.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.ts';
import type { ConditionId, OrderId, TokenId } from '../../../src/core/ids.ts';
import type { Micro, Pips } from '../../../src/core/units.ts';
import type { PreparedOrder } from '../../../src/core/venue.ts';
import { DeferredAudit } from '../../../src/store/deferred-audit.ts';
import { IdFilter } from '../../../src/store/id-filter.ts';
import { migrate } from '../../../src/store/migrations.ts';
import { prepareStatements } from '../../../src/store/statements.ts';
import { BATCHED_PENDING_AUDIT, openStore, type FillRecord, type StoreOptions } from '../../../src/store/store.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mmkit-store-deferred-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const SCRATCH: StoreOptions = {
  checkpoint: 'auto',
  durability: { fills: 'off', other: 'off' },
  commit: 'batched',
  scratch: true,
};

function prepared(id: string): PreparedOrder {
  return {
    id: id as OrderId,
    request: {
      market: '0xm' as ConditionId,
      tokenId: '111' as TokenId,
      side: 'BUY',
      price: 5000 as Pips,
      size: 10_000_000 as Micro,
      type: 'GTC',
    },
    wire: {},
  };
}

function fill(tradeId: string, orderId: string, status: FillRecord['status'] = 'MATCHED'): FillRecord {
  return {
    tradeId,
    orderId: orderId as OrderId,
    market: '0xm' as ConditionId,
    tokenId: '111' as TokenId,
    side: 'BUY',
    price: 4000 as Pips,
    size: 1_000_000 as Micro,
    fee: 0 as Micro,
    role: 'MAKER',
    status,
    matchTime: 1000,
  };
}

describe('IdFilter', () => {
  it('answers true for every id added, and false for most others', () => {
    const f = new IdFilter();
    const hex = (i: number): string => `0x${(i * 2_654_435_761).toString(16).padStart(64, '0')}`;
    for (let i = 0; i < 20_000; i++) f.add(hex(i));
    for (let i = 0; i < 20_000; i++) expect(f.mayHave(hex(i))).toBe(true);
    let wrong = 0;
    for (let i = 20_000; i < 40_000; i++) if (f.mayHave(hex(i))) wrong++;
    expect(wrong).toBeLessThan(400); // ~0.1 % expected with 20,000 ids
  });
});

describe('a scratch store on a file that already holds rows', () => {
  it('knows its orders (and its fills): a repeat is not recorded again', () => {
    const file = join(dir, 's.db');
    const clock = new VirtualClock(1_000_000);
    const a = openStore(file, { ...SCRATCH, clock });
    expect(a.recordOrder(prepared('0xa'))).toBe(true);
    expect(a.applyFill(fill('t1', '0xa'))).toBe('new');
    a.close();
    const b = openStore(file, { ...SCRATCH, clock });
    try {
      expect(b.recordOrder(prepared('0xa'))).toBe(false);
      expect(b.updateOrder('0xa' as OrderId, { status: 'live' })).toBe(true);
      expect(b.applyFill(fill('t1', '0xa'))).toBe('duplicate');
      expect(b.applyFill(fill('t1', '0xa', 'CONFIRMED'))).toBe('status');
      expect(b.applyFill(fill('t2', '0xa'))).toBe('new');
      expect(b.fills().map((x) => [x.tradeId, x.status])).toEqual([
        ['t1', 'CONFIRMED'],
        ['t2', 'MATCHED'],
      ]);
    } finally {
      b.close();
    }
  });
});

describe('bounds of the deferred writes', () => {
  it(`keeps at most ${BATCHED_PENDING_AUDIT - 1} audit entries waiting`, () => {
    const db = new Database(':memory:');
    try {
      migrate(db, ':memory:');
      db.exec('BEGIN');
      const st = prepareStatements(db);
      const audits = new DeferredAudit(st);
      for (let i = 0; i < 3 * BATCHED_PENDING_AUDIT; i++) {
        audits.add(1000 + i, 'cycle', '{}');
        expect(audits.size).toBeLessThan(BATCHED_PENDING_AUDIT);
      }
      audits.write();
      expect(audits.size).toBe(0);
      const n = (t: string): number => (db.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n;
      expect(n('audit')).toBe(3 * BATCHED_PENDING_AUDIT);
      // in the order given
      const seqs = db.prepare('SELECT time FROM audit ORDER BY seq').pluck().all() as number[];
      expect(seqs).toEqual(seqs.map((_, i) => 1000 + i));
    } finally {
      db.close();
    }
  });
});
