import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.ts';
import type { ConditionId, OrderId, TokenId } from '../../../src/core/ids.ts';
import type { Micro, Pips } from '../../../src/core/units.ts';
import { reconcileOnStart } from '../../../src/engine/restart.ts';
import { restartStore } from '../../../src/store/restart.ts';
import { openStore, type FillRecord, type Store } from '../../../src/store/store.ts';
import { FakeVenue } from '../engine/fixtures.ts';

const M = '0xmarket' as ConditionId;
const YES = '111' as TokenId;

function fill(tradeId: string, status: FillRecord['status'], matchTime: number, orderId = '0xo'): FillRecord {
  return {
    tradeId,
    orderId: orderId as OrderId,
    market: M,
    tokenId: YES,
    side: 'BUY',
    price: 5000 as Pips,
    size: 10_000_000 as Micro,
    fee: 0 as Micro,
    role: 'MAKER',
    status,
    matchTime,
  };
}

let dir: string;
let file: string;
let store: Store;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mmkit-unsettled-'));
  file = join(dir, 'mmkit.db');
  store = openStore(file, { clock: new VirtualClock(1_000_000), checkpoint: 'auto' });
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('Store.oldestUnsettledFillTime', () => {
  it('is undefined for an empty store', () => {
    expect(store.oldestUnsettledFillTime()).toBeUndefined();
  });

  it('returns the match time of the oldest MATCHED / MINED / RETRYING fill, ignoring CONFIRMED and FAILED ones', () => {
    store.recordFill(fill('confirmed', 'CONFIRMED', 1000));
    store.recordFill(fill('failed', 'FAILED', 2000));
    store.recordFill(fill('matched', 'MATCHED', 3000));
    store.recordFill(fill('mined', 'MINED', 4000));
    store.recordFill(fill('retrying', 'RETRYING', 5000));
    store.recordFill(fill('late', 'CONFIRMED', 6000));
    expect(store.oldestUnsettledFillTime()).toBe(3000);
    // the same answer from the file, after a reopen
    store.close();
    store = openStore(file, { clock: new VirtualClock(1_000_000), checkpoint: 'auto' });
    expect(store.oldestUnsettledFillTime()).toBe(3000);
    // statuses settle: the next unsettled one
    store.applyFill(fill('matched', 'CONFIRMED', 3000));
    expect(store.oldestUnsettledFillTime()).toBe(4000);
    expect(store.applyFill(fill('mined', 'FAILED', 4000))).toBe('void');
    expect(store.oldestUnsettledFillTime()).toBe(5000);
    store.applyFill(fill('retrying', 'FAILED', 5000));
    expect(store.oldestUnsettledFillTime()).toBeUndefined();
    expect(store.lastFillTime()).toBe(6000);
  });

  it('considers only fills matched at or after sinceMs', () => {
    store.recordFill(fill('a', 'MATCHED', 1000));
    store.recordFill(fill('b', 'CONFIRMED', 2000));
    store.recordFill(fill('c', 'MINED', 3000));
    expect(store.oldestUnsettledFillTime(0)).toBe(1000);
    expect(store.oldestUnsettledFillTime(1000)).toBe(1000);
    expect(store.oldestUnsettledFillTime(1001)).toBe(3000);
    expect(store.oldestUnsettledFillTime(3001)).toBeUndefined();
  });

  it('walks the match-time index (no full scan of the fills table)', () => {
    store.close();
    const db = new Database(file, { readonly: true });
    const plan = db
      .prepare(
        `EXPLAIN QUERY PLAN SELECT MIN(match_time) AS t FROM fills WHERE match_time >= ? AND status NOT IN ('CONFIRMED', 'FAILED')`,
      )
      .all(0) as { detail: string }[];
    db.close();
    expect(plan.map((p) => p.detail).join('\n')).toMatch(/USING INDEX fills_time/);
    store = openStore(file, { clock: new VirtualClock(1_000_000), checkpoint: 'auto' });
  });

  it("is the same in a 'batched' store (reads see what is not committed yet)", () => {
    const b = openStore(':memory:', { clock: new VirtualClock(0), commit: 'batched' });
    b.recordFill(fill('x', 'CONFIRMED', 100));
    b.recordFill(fill('y', 'MATCHED', 200));
    expect(b.oldestUnsettledFillTime()).toBe(200);
    b.close();
  });
});

describe('restart backfill through the real store', () => {
  it('a fill matched before the last-fill window that turned FAILED while down is voided and reversed in positions', async () => {
    const DAY = 24 * 60 * 60 * 1000;
    const t0 = 100 * DAY;
    store.recordFill(fill('old', 'MATCHED', t0, '0xa'));
    store.recordFill(fill('last', 'CONFIRMED', t0 + 20 * 60_000, '0xb'));
    expect(store.positions().find((p) => p.tokenId === YES)?.size).toBe(20_000_000);
    const venue = new FakeVenue();
    venue.venueFills = [fill('old', 'FAILED', t0, '0xa'), fill('last', 'CONFIRMED', t0 + 20 * 60_000, '0xb')];
    const r = await reconcileOnStart(venue, restartStore(store), { marginMs: 60_000 });
    expect(r.sinceMs).toBe(t0 - 60_000);
    expect(store.fills().find((f) => f.tradeId === 'old')?.status).toBe('FAILED');
    expect(store.positions().find((p) => p.tokenId === YES)?.size).toBe(10_000_000);
    expect(store.oldestUnsettledFillTime()).toBeUndefined();
    // nothing unsettled any more: the next start backfills from the last fill only
    expect((await reconcileOnStart(venue, restartStore(store), { marginMs: 60_000 })).sinceMs).toBe(t0 + 19 * 60_000);
  });
});

describe('a fresh ledger epoch (another venue, world or account)', () => {
  const A = { venue: 'http://127.0.0.1:1', world: 'w1', address: '0xabc' };
  const B = { venue: 'http://127.0.0.1:2', world: 'w2', address: '0xabc' };

  it("knows no last fill and no unsettled fill of the earlier epoch's venue", () => {
    store.openEpoch(A, 500);
    store.recordFill(fill('a1', 'CONFIRMED', 1000, '0xa'));
    store.recordFill(fill('a2', 'MATCHED', 2000, '0xb'));
    expect(store.lastFillTime()).toBe(2000);
    expect(store.oldestUnsettledFillTime()).toBe(2000);
    store.openEpoch(B, 3000);
    expect(store.lastFillTime()).toBeUndefined();
    expect(store.oldestUnsettledFillTime()).toBeUndefined();
    store.recordFill(fill('b1', 'MINED', 1500, '0xc'));
    expect(store.lastFillTime()).toBe(1500);
    expect(store.oldestUnsettledFillTime()).toBe(1500);
    // reopened on the same identity: the same epoch, its own fills
    store.close();
    store = openStore(file, { clock: new VirtualClock(1_000_000), checkpoint: 'auto' });
    store.openEpoch(B, 4000);
    expect(store.lastFillTime()).toBe(1500);
  });

  it("backfills as a first run does, not from the other venue's last fill: every trade of the account there is booked once", async () => {
    store.openEpoch(A, 500);
    store.recordFill(fill('a1', 'CONFIRMED', 900_000, '0xa'));
    // the new venue's account traded before the old venue's last fill, and after it
    store.openEpoch(B, 1_000_000);
    const venue = new FakeVenue();
    venue.venueFills = [fill('b-early', 'CONFIRMED', 300_000, '0xe1'), fill('b-late', 'CONFIRMED', 950_000, '0xe2')];
    const r = await reconcileOnStart(venue, restartStore(store), { marginMs: 60_000 });
    expect(r.sinceMs).toBe(0);
    expect(
      store
        .fills()
        .map((f) => f.tradeId)
        .sort(),
    ).toEqual(['a1', 'b-early', 'b-late']);
    // the new epoch's positions are the new venue's trades alone
    expect(store.positions().find((p) => p.tokenId === YES)?.size).toBe(20_000_000);
  });
});
