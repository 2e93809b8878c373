/**
 * The pieces of a batched store's deferred writes that the call-sequence model
 * (store-batched.slow.test.ts) reaches only by chance: the id filter never forgets an id, a scratch
 * store opened on a file that already holds rows knows them, and the deferred audit entries stay
 * bounded, and so do the deferred fills (written in order, with their epoch and source).
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
import { DeferredFills } from '../../../src/store/deferred-fills.ts';
import { fillWrites } from '../../../src/store/fills.ts';
import { IdFilter } from '../../../src/store/id-filter.ts';
import { migrate } from '../../../src/store/migrations.ts';
import { prepareStatements } from '../../../src/store/statements.ts';
import {
  BATCHED_PENDING_AUDIT,
  BATCHED_PENDING_FILLS,
  openStore,
  type FillRecord,
  type StoreOptions,
} from '../../../src/store/store.ts';

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
  it(`keeps at most ${BATCHED_PENDING_FILLS - 1} fills waiting`, () => {
    const db = new Database(':memory:');
    try {
      migrate(db, ':memory:');
      db.exec('BEGIN');
      const fills = new DeferredFills(db, fillWrites(db, prepareStatements(db)));
      for (let i = 0; i < 3 * BATCHED_PENDING_FILLS; i++) {
        expect(fills.apply(fill(`t${i}`, '0xa'), 1000 + i, null)).toBe('new');
        expect(fills.size).toBeLessThan(BATCHED_PENDING_FILLS);
      }
      fills.write();
      expect(fills.size).toBe(0);
      const ids = db.prepare('SELECT trade_id FROM fills ORDER BY rowid').pluck().all();
      expect(ids).toEqual(ids.map((_, i) => `t${i}`));
    } finally {
      db.close();
    }
  });
  it(`writes the deferred fills ${BATCHED_PENDING_FILLS} at a time: all present, in order, with their epoch and source`, () => {
    const file = join(dir, 'f.db');
    const clock = new VirtualClock(1_000_000);
    const s = openStore(file, { ...SCRATCH, clock });
    const n = 2 * BATCHED_PENDING_FILLS + 5;
    let epoch: number;
    try {
      epoch = s.openEpoch({ venue: 'sim', world: null, address: '0x1' }).epoch.id;
      for (let i = 0; i < n; i++) {
        clock.advance(1);
        const f = fill(`t${i}`, `0x${i.toString(16)}`);
        expect(s.applyFill(i % 2 === 0 ? f : { ...f, source: 'external' })).toBe('new');
      }
      // a read sees every fill, the deferred ones included
      expect(s.fills().length).toBe(n);
      expect(s.applyFill(fill('t3', '0x3', 'CONFIRMED'))).toBe('status');
    } finally {
      s.close();
    }
    const db = new Database(file, { readonly: true });
    try {
      const rows = db
        .prepare('SELECT trade_id, source, epoch, recorded_at, status FROM fills ORDER BY rowid')
        .all() as { trade_id: string; source: string; epoch: number; recorded_at: number; status: string }[];
      expect(rows.length).toBe(n);
      rows.forEach((r, i) => {
        expect(r.trade_id).toBe(`t${i}`);
        expect(r.source).toBe(i % 2 === 0 ? 'bot' : 'external');
        expect(r.epoch).toBe(epoch);
        expect(r.recorded_at).toBe(1_000_000 + i + 1);
        expect(r.status).toBe(i === 3 ? 'CONFIRMED' : 'MATCHED');
      });
    } finally {
      db.close();
    }
  });

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
