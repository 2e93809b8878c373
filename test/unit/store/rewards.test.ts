/**
 * The store's reward ledger (migration 4) on real SQLite files: estimated and paid per epoch,
 * market and UTC date; every change of the paid figure is one append-only credit of cause 'reward'
 * whose sum is the row's `paid`, exact to the micro; totals never count a date twice; bad input
 * changes nothing; the rows survive a reopen; a new epoch starts at zero.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.ts';
import { ValidationError } from '../../../src/core/errors.ts';
import type { ConditionId } from '../../../src/core/ids.ts';
import { MIGRATIONS, migrate } from '../../../src/store/migrations.ts';
import { openStore, type Store } from '../../../src/store/store.ts';

const A = '0xaaa' as ConditionId;
const B = '0xbbb' as ConditionId;
const PAPER = { venue: 'paper', world: 'w-1', address: '0x0000000000000000000000000000000000000001' };

let dir: string;
let file: string;
let clock: VirtualClock;
let store: Store;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mmkit-rewards-'));
  file = join(dir, 'mmkit.db');
  clock = new VirtualClock(Date.UTC(2026, 10, 27, 12));
  store = openStore(file, { clock, checkpoint: 'auto' });
  store.openEpoch(PAPER);
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the reward ledger', () => {
  it('an estimate creates the row (estimated), later estimates replace it, the totals count it', () => {
    store.recordRewardEstimate({ market: A, date: '2026-11-27', estimated: 1_234, samples: 3, scoredSamples: 2 });
    const r = store.recordRewardEstimate({
      market: A,
      date: '2026-11-27',
      estimated: 5_678,
      samples: 4,
      scoredSamples: 3,
    });
    expect(r).toMatchObject({
      market: A,
      date: '2026-11-27',
      estimated: 5_678,
      paid: 0,
      status: 'estimated',
      samples: 4,
      scoredSamples: 3,
      paidAt: null,
    });
    expect(store.rewardTotals()).toEqual({
      paid: 0,
      estimated: 5_678,
      total: 5_678,
      byMarket: [{ market: A, paid: 0, estimated: 5_678, total: 5_678 }],
    });
  });

  it("a payout is one credit of cause 'reward'; the row turns paid; the paid figure replaces the estimate in the totals", () => {
    store.recordRewardEstimate({ market: A, date: '2026-11-27', estimated: 2_000_000, samples: 10, scoredSamples: 10 });
    store.recordRewardEstimate({ market: B, date: '2026-11-27', estimated: 700_000, samples: 10, scoredSamples: 5 });
    clock.advance(1000);
    const c = store.recordRewardPaid({ market: A, date: '2026-11-27', paid: 1_987_654 });
    expect(c.credit).toMatchObject({
      market: A,
      date: '2026-11-27',
      amount: 1_987_654,
      cause: 'reward',
      source: 'earnings',
      at: clock.now(),
    });
    expect(c.reward).toMatchObject({ estimated: 2_000_000, paid: 1_987_654, status: 'paid', paidAt: clock.now() });
    expect(store.rewardTotals()).toMatchObject({ paid: 1_987_654, estimated: 700_000, total: 2_687_654 });
    // an estimate after the payout keeps the status and the paid figure
    const later = store.recordRewardEstimate({
      market: A,
      date: '2026-11-27',
      estimated: 2_100_000,
      samples: 11,
      scoredSamples: 11,
    });
    expect(later).toMatchObject({ status: 'paid', paid: 1_987_654, estimated: 2_100_000 });
    expect(store.rewardTotals().paid).toBe(1_987_654);
  });

  it('the same figure again changes nothing; a larger one (another epoch of the same date) credits the difference', () => {
    store.recordRewardPaid({ market: A, date: '2026-11-27', paid: 1_000_000 });
    expect(store.recordRewardPaid({ market: A, date: '2026-11-27', paid: 1_000_000 }).credit).toBeUndefined();
    expect(store.recordRewardPaid({ market: A, date: '2026-11-27', paid: 1_500_001 }).credit?.amount).toBe(500_001);
    expect(store.rewardCredits().map((c) => c.amount)).toEqual([1_000_000, 500_001]);
    expect(store.reward(A, '2026-11-27')?.paid).toBe(1_500_001);
  });

  it('nothing paid and no row: no row, no credit', () => {
    expect(store.recordRewardPaid({ market: A, date: '2026-11-27', paid: 0 })).toEqual({
      reward: undefined,
      credit: undefined,
    });
    expect(store.rewards()).toEqual([]);
  });

  it('bad input is a ValidationError and writes nothing', () => {
    const bad: Array<() => unknown> = [
      () => store.recordRewardPaid({ market: A, date: '2026-11-31', paid: 1 }),
      () => store.recordRewardPaid({ market: A, date: '27/11/2026', paid: 1 }),
      () => store.recordRewardPaid({ market: A, date: '2026-11-27', paid: -1 }),
      () => store.recordRewardPaid({ market: A, date: '2026-11-27', paid: 1.5 }),
      () => store.recordRewardPaid({ market: '' as ConditionId, date: '2026-11-27', paid: 1 }),
      () => store.recordRewardPaid({ market: A, date: '2026-11-27', paid: 1, source: 'guess' as 'earnings' }),
      () =>
        store.recordRewardEstimate({
          market: A,
          date: '2026-11-27',
          estimated: Number.NaN,
          samples: 1,
          scoredSamples: 0,
        }),
      () => store.recordRewardEstimate({ market: A, date: '2026-11-27', estimated: 1, samples: 1, scoredSamples: 2 }),
      () => store.rewards({ since: 'x' }),
    ];
    for (const f of bad) expect(f).toThrow(ValidationError);
    expect(store.rewards()).toEqual([]);
    expect(store.rewardCredits()).toEqual([]);
  });

  it('a settled row (a fleet member: the payout booked elsewhere) stops counting its estimate; no credit', () => {
    store.recordRewardEstimate({ market: A, date: '2026-11-27', estimated: 2_500, samples: 3, scoredSamples: 3 });
    store.recordRewardEstimate({ market: B, date: '2026-11-27', estimated: 400, samples: 3, scoredSamples: 3 });
    store.recordRewardPaid({ market: B, date: '2026-11-27', paid: 300 });
    clock.advance(1_000);
    const r = store.settleReward({ market: A, date: '2026-11-27' });
    expect(r).toMatchObject({ status: 'paid', paid: 0, estimated: 2_500, paidAt: clock.now() });
    // already paid, or no row: nothing
    expect(store.settleReward({ market: B, date: '2026-11-27' })).toBeUndefined();
    expect(store.settleReward({ market: A, date: '2026-11-26' })).toBeUndefined();
    expect(store.rewardTotals()).toMatchObject({ paid: 300, estimated: 0, total: 300 });
    expect(store.rewardCredits().map((c) => c.amount)).toEqual([300]);
    // a later estimate keeps the status; a later payout of its own is booked as usual
    store.recordRewardEstimate({ market: A, date: '2026-11-27', estimated: 2_600, samples: 4, scoredSamples: 4 });
    expect(store.rewardTotals().total).toBe(300);
    store.recordRewardPaid({ market: A, date: '2026-11-27', paid: 100 });
    expect(store.rewardTotals()).toMatchObject({ paid: 400, estimated: 0, total: 400 });
    expect(() => store.settleReward({ market: A, date: '27/11/2026' })).toThrow(ValidationError);
  });

  it('credits are append-only', () => {
    store.recordRewardPaid({ market: A, date: '2026-11-27', paid: 5 });
    store.close();
    const db = new Database(file);
    expect(() => db.prepare('UPDATE reward_credits SET amount = 6').run()).toThrow(/append-only/);
    expect(() => db.prepare('DELETE FROM reward_credits').run()).toThrow(/append-only/);
    db.close();
    store = openStore(file, { clock, checkpoint: 'auto' });
  });

  it('survives a reopen; a new epoch (another world) starts at zero and keeps the old rows apart', () => {
    store.recordRewardEstimate({ market: A, date: '2026-11-27', estimated: 10, samples: 1, scoredSamples: 1 });
    store.recordRewardPaid({ market: B, date: '2026-11-26', paid: 3_000_000 });
    store.close();
    store = openStore(file, { clock, checkpoint: 'auto' });
    expect(store.rewards().map((r) => [r.market, r.date, r.status])).toEqual([
      [B, '2026-11-26', 'paid'],
      [A, '2026-11-27', 'estimated'],
    ]);
    const first = store.currentEpoch()!.id;
    store.openEpoch({ ...PAPER, world: 'w-2' });
    expect(store.rewardTotals()).toEqual({ paid: 0, estimated: 0, total: 0, byMarket: [] });
    expect(store.rewardTotals({ epoch: first }).total).toBe(3_000_010);
    expect(store.rewards({ since: '2026-11-27', epoch: first }).map((r) => r.market)).toEqual([A]);
  });

  it('the summary: the epoch counts every credit and the pending estimates; the session those of its own time', () => {
    store.recordRewardPaid({ market: A, date: '2026-11-26', paid: 1_000_000 }); // before the session
    clock.advance(1000);
    store.beginSession();
    clock.advance(1000);
    store.recordRewardPaid({ market: A, date: '2026-11-27', paid: 250_000 });
    store.recordRewardEstimate({ market: B, date: '2026-11-27', estimated: 42, samples: 1, scoredSamples: 1 });
    expect(store.summary({ scope: 'epoch' })).toMatchObject({ rewardsPaid: 1_250_000, rewardsEstimated: 42 });
    expect(store.summary({ scope: 'session' })).toMatchObject({ rewardsPaid: 250_000, rewardsEstimated: 42 });
  });

  it('an old store (schema 3) migrates to the reward tables with its rows intact', () => {
    store.close();
    rmSync(file);
    const db = new Database(file);
    migrate(db, file, 3);
    db.prepare("INSERT INTO epochs (venue, world, address, started_at) VALUES ('paper', 'w-1', ?, 1)").run(
      PAPER.address,
    );
    db.close();
    store = openStore(file, { clock, checkpoint: 'auto' });
    expect(store.currentEpoch()?.venue).toBe('paper');
    expect(store.recordRewardPaid({ market: A, date: '2026-11-27', paid: 7 }).reward?.paid).toBe(7);
    expect(MIGRATIONS.length).toBeGreaterThanOrEqual(4);
  });

  it('property: whatever sequence of figures the venue reports, paid = the sum of the credits = the last figure, to the micro', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            m: fc.constantFrom(A, B),
            d: fc.constantFrom('2026-11-26', '2026-11-27'),
            paid: fc.nat(5_000_000_000),
          }),
          {
            maxLength: 30,
          },
        ),
        (steps) => {
          const s = openStore(':memory:', { clock });
          s.openEpoch(PAPER);
          const last = new Map<string, number>();
          for (const x of steps) {
            s.recordRewardPaid({ market: x.m, date: x.d, paid: x.paid });
            last.set(`${x.m}|${x.d}`, x.paid);
          }
          const credits = new Map<string, number>();
          for (const c of s.rewardCredits())
            credits.set(`${c.market}|${c.date}`, (credits.get(`${c.market}|${c.date}`) ?? 0) + c.amount);
          for (const [k, v] of last) {
            const [m, d] = k.split('|') as [string, string];
            expect(s.reward(m, d)?.paid ?? 0).toBe(v);
            expect(credits.get(k) ?? 0).toBe(v);
          }
          let total = 0;
          for (const v of last.values()) total += v;
          expect(s.rewardTotals().paid).toBe(total);
          s.close();
        },
      ),
      { numRuns: 100 },
    );
  });
});
