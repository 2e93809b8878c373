/**
 * The daemon's reward book on a real store: the tracker's samples accrue exactly per market and
 * UTC date (midnight splits them; a restart continues the date's estimate); polls of the venue's
 * earnings of today and yesterday record each change of the paid figure as one credit of cause
 * 'reward', the same figure twice changes nothing, another maker's rows are ignored, a failed poll
 * is counted and writes nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.ts';
import type { ConditionId } from '../../../src/core/ids.ts';
import { type RewardConfig, RewardAccrual, SHARE_SCALE, type BookScore } from '../../../src/core/rewards.ts';
import type { Micro, Pips } from '../../../src/core/units.ts';
import type { RewardEstimate } from '../../../src/engine/reward-tracker.ts';
import { type EarningRow, RewardBook, utcDate } from '../../../src/ops/reward-book.ts';
import { openStore, type Store } from '../../../src/store/store.ts';

const A = '0xaaa' as ConditionId;
const B = '0xbbb' as ConditionId;
const ME = '0x00000000000000000000000000000000000000aa';
const CFG: RewardConfig = { maxSpread: 300 as Pips, minSize: 20_000_000 as Micro, dailyRate: 123_456_789 as Micro };

function sample(market: ConditionId, at: number, share: bigint, cfg = CFG): RewardEstimate {
  const last: BookScore = {
    mid2: 10_000,
    own: { qOne: 1n, qTwo: 1n },
    others: { qOne: 0n, qTwo: 0n },
    ownQMin3: 1n,
    othersQMin3: 0n,
    share,
  };
  return {
    market,
    config: cfg,
    samples: 1,
    scoredSamples: share > 0n ? 1 : 0,
    accrued: 0 as Micro,
    lastShare: Number(share) / 1e18,
    lastDaily: 0 as Micro,
    lastAt: at,
    last,
  };
}

let clock: VirtualClock;
let store: Store;
beforeEach(() => {
  clock = new VirtualClock(Date.UTC(2026, 10, 27, 23, 58, 0));
  store = openStore(':memory:', { clock });
  store.openEpoch({ venue: 'paper', world: 'w', address: ME });
});
afterEach(() => store.close());

describe('estimates', () => {
  it('accrue exactly per market and UTC date (the tracker’s own accrual, floored once)', () => {
    const book = new RewardBook({ store, clock, sampleMs: 10_000, earnings: async () => [] });
    const exact = new RewardAccrual();
    const shares = [SHARE_SCALE / 3n, SHARE_SCALE / 7n, 0n, (SHARE_SCALE * 5n) / 9n, SHARE_SCALE];
    let t = clock.now();
    for (const s of shares) {
      book.onSample(sample(A, t, s));
      exact.add(CFG.dailyRate, 10_000, s);
      t += 10_000;
    }
    expect(store.reward(A, '2026-11-27')).toMatchObject({
      estimated: exact.micro,
      samples: 5,
      scoredSamples: 4,
      status: 'estimated',
    });
    expect(exact.micro).toBeGreaterThan(0);
  });

  it('midnight splits the accrual between the two dates', () => {
    const book = new RewardBook({ store, clock, sampleMs: 60_000, earnings: async () => [] });
    const day = Date.UTC(2026, 10, 28);
    book.onSample(sample(A, day - 30_000, SHARE_SCALE));
    book.onSample(sample(A, day + 30_000, SHARE_SCALE));
    book.onSample(sample(B, day + 30_000, SHARE_SCALE / 2n));
    const perSample = Math.floor((CFG.dailyRate * 60_000) / 86_400_000);
    expect(store.reward(A, '2026-11-27')?.estimated).toBe(perSample);
    expect(store.reward(A, '2026-11-28')?.estimated).toBe(perSample);
    expect(store.reward(B, '2026-11-28')?.estimated).toBe(Math.floor(perSample / 2));
  });

  it("a restart continues the date's stored estimate and counts", () => {
    const at = clock.now();
    new RewardBook({ store, clock, sampleMs: 60_000, earnings: async () => [] }).onSample(sample(A, at, SHARE_SCALE));
    const again = new RewardBook({ store, clock, sampleMs: 60_000, earnings: async () => [] });
    again.onSample(sample(A, at + 60_000, SHARE_SCALE));
    const perSample = Math.floor((CFG.dailyRate * 60_000) / 86_400_000);
    expect(store.reward(A, '2026-11-27')).toMatchObject({ estimated: 2 * perSample, samples: 2, scoredSamples: 2 });
  });

  it('a tracker sample before any score (no lastAt) writes nothing', () => {
    const book = new RewardBook({ store, clock, sampleMs: 60_000, earnings: async () => [] });
    book.onSample({ ...sample(A, 0, 0n), lastAt: null, last: null });
    expect(store.rewards()).toEqual([]);
  });
});

describe('payouts', () => {
  it("polls today and yesterday; each change is one credit of cause 'reward', exact to the micro", async () => {
    const answers = new Map<string, EarningRow[]>([
      [
        '2026-11-27',
        [
          { date: '2026-11-27', market: A, earnings: 1_000_001, maker: ME },
          { date: '2026-11-27', market: A, earnings: 2, maker: ME }, // a second asset of the same market
          { date: '2026-11-27', market: B, earnings: 5, maker: '0xsomeoneelse' },
        ],
      ],
      ['2026-11-26', [{ date: '2026-11-26', market: B, earnings: 3_000_000 }]],
    ]);
    const asked: string[] = [];
    const credits: number[] = [];
    const book = new RewardBook({
      store,
      clock,
      sampleMs: 60_000,
      address: ME,
      earnings: async (d) => {
        asked.push(d);
        return answers.get(d) ?? [];
      },
      onCredit: (c) => credits.push(c.amount),
    });
    const r = await book.poll();
    expect(asked).toEqual(['2026-11-26', '2026-11-27']);
    expect(r.credits.map((c) => [c.market, c.date, c.amount, c.cause])).toEqual([
      [B, '2026-11-26', 3_000_000, 'reward'],
      [A, '2026-11-27', 1_000_003, 'reward'],
    ]);
    expect(credits).toEqual([3_000_000, 1_000_003]);
    // the same answers again: nothing new
    expect((await book.poll()).credits).toEqual([]);
    // a later epoch of the same date pays more: the difference
    answers.set('2026-11-27', [{ date: '2026-11-27', market: A, earnings: 1_500_000, maker: ME }]);
    expect((await book.poll()).credits.map((c) => c.amount)).toEqual([499_997]);
    expect(store.rewardTotals()).toMatchObject({ paid: 4_500_000, estimated: 0 });
  });

  it('a failed poll is counted, logged and writes nothing; the next one records', async () => {
    let fail = true;
    const warned: string[] = [];
    const book = new RewardBook({
      store,
      clock,
      sampleMs: 60_000,
      earnings: async (d) => {
        if (fail) throw new Error('503 trading disabled');
        return [{ date: d, market: A, earnings: 7 }];
      },
      log: { info: () => {}, warn: (o) => warned.push(String(o['err'])) },
    });
    await expect(book.poll()).rejects.toThrow(/503/);
    expect(book.pollFailures).toBe(1);
    expect(warned).toEqual(['503 trading disabled']);
    expect(store.rewards()).toEqual([]);
    fail = false;
    await book.poll();
    expect(store.rewardTotals().paid).toBe(14); // 7 yesterday, 7 today
  });

  it('polls at start, on the clock, and once more at stop', async () => {
    let n = 0;
    const book = new RewardBook({
      store,
      clock,
      sampleMs: 60_000,
      pollMs: 30_000,
      earnings: async () => {
        n++;
        return [];
      },
    });
    book.start();
    book.start();
    await new Promise((r) => setImmediate(r));
    expect(n).toBe(2); // at once: yesterday and today
    clock.advance(30_000);
    await new Promise((r) => setImmediate(r));
    expect(n).toBe(4);
    await book.stop();
    expect(n).toBe(6);
    clock.advance(120_000);
    await new Promise((r) => setImmediate(r));
    expect(n).toBe(6);
  });

  it("re-reads the last week's dates still only estimated (paid while the daemon was down), not older ones", async () => {
    for (const d of ['2026-11-18', '2026-11-21', '2026-11-24'])
      store.recordRewardEstimate({ market: A, date: d, estimated: 5, samples: 1, scoredSamples: 1 });
    store.recordRewardEstimate({ market: B, date: '2026-11-23', estimated: 5, samples: 1, scoredSamples: 1 });
    store.recordRewardPaid({ market: B, date: '2026-11-23', paid: 9 });
    const asked: string[] = [];
    const book = new RewardBook({
      store,
      clock,
      sampleMs: 60_000,
      earnings: async (d) => {
        asked.push(d);
        return d === '2026-11-21' ? [{ date: d, market: A, earnings: 4_000_000 }] : [];
      },
    });
    const r = await book.poll();
    expect(asked).toEqual(['2026-11-21', '2026-11-24', '2026-11-26', '2026-11-27']);
    expect(r.credits.map((c) => [c.date, c.amount])).toEqual([['2026-11-21', 4_000_000]]);
    expect(store.reward(A, '2026-11-21')?.status).toBe('paid');
  });

  it('a failure that repeats is logged once', async () => {
    const warned: string[] = [];
    const book = new RewardBook({
      store,
      clock,
      sampleMs: 60_000,
      earnings: async () => {
        throw new Error('404 not found');
      },
      log: { info: () => {}, warn: (_o, m) => warned.push(m) },
    });
    for (let i = 0; i < 3; i++) await expect(book.poll()).rejects.toThrow();
    expect(warned).toHaveLength(1);
    expect(book.pollFailures).toBe(3);
  });

  it("cross-check: a difference with the venue's REWARD activity seen twice is logged and audited once, never booked", async () => {
    let earnings: EarningRow[] = [];
    let venue: { market: string; amount: number }[] = [];
    const warned: Record<string, unknown>[] = [];
    const book = new RewardBook({
      store,
      clock,
      sampleMs: 60_000,
      since: 0,
      earnings: async (d) => earnings.filter((e) => e.date === d),
      venueCredits: async () => venue,
      log: { info: () => {}, warn: (o) => warned.push(o) },
    });
    // agreeing: nothing
    earnings = [{ date: '2026-11-27', market: A, earnings: 1_000_000 }];
    venue = [{ market: A, amount: 1_000_000 }];
    expect((await book.poll()).mismatches).toEqual([]);
    // a payout lands between the two reads: seen once, not reported
    venue = [...venue, { market: A, amount: 500_000 }];
    expect((await book.poll()).mismatches).toEqual([]);
    // the earnings catch up: agreeing again
    earnings = [{ date: '2026-11-27', market: A, earnings: 1_500_000 }];
    expect((await book.poll()).mismatches).toEqual([]);
    // a credit the earnings never report: reported at the second look, logged and audited once
    venue = [...venue, { market: B, amount: 7 }];
    expect((await book.poll()).mismatches).toEqual([]);
    expect((await book.poll()).mismatches).toEqual([{ market: B, booked: 0, credited: 7 }]);
    expect((await book.poll()).mismatches).toEqual([{ market: B, booked: 0, credited: 7 }]);
    expect(warned).toEqual([{ market: B, booked: '0', credited: '0.000007' }]);
    expect(store.auditLog({ kind: 'reward_mismatch' }).map((e) => e.data)).toEqual([
      { market: B, booked: '0', credited: '0.000007' },
    ]);
    expect(store.rewardTotals().paid).toBe(1_500_000);
  });

  it('stop waits for a poll in flight, then polls afresh (the last payout is read after it landed)', async () => {
    let paid = 0;
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    let calls = 0;
    const book = new RewardBook({
      store,
      clock,
      sampleMs: 60_000,
      earnings: async (d) => {
        const k = ++calls;
        const v = k <= 2 ? 0 : paid; // the first poll (two dates) reads before the payout
        if (k === 1) await gate;
        return d === '2026-11-27' ? [{ date: d, market: A, earnings: v }] : [];
      },
    });
    const inFlight = book.poll();
    const stopped = book.stop();
    paid = 2_000_000; // the payout lands while the first poll waits
    release();
    await inFlight;
    expect((await stopped)?.credits.map((c) => c.amount)).toEqual([2_000_000]);
    expect(store.rewardTotals().paid).toBe(2_000_000);
  });

  it('utcDate', () => {
    expect(utcDate(Date.UTC(2026, 0, 1) - 1)).toBe('2025-12-31');
  });
});

describe("the venue's shares of the running epochs (trial 16 F4)", () => {
  it('are read after each poll (percent to 0..1, ids in lower case); a failed read keeps the last ones, said once', async () => {
    let answer: () => Promise<ReadonlyMap<string, number>> = async () => new Map([['0xAAA', 30.4]]);
    const warned: string[] = [];
    const book = new RewardBook({
      store,
      clock,
      sampleMs: 10_000,
      earnings: async () => [],
      percentages: () => answer(),
      log: { info() {}, warn: (_o, m) => void warned.push(m) },
    });
    expect(book.venueShares()).toBeUndefined();
    await book.poll();
    expect(book.venueShares()).toEqual({ shares: new Map([['0xaaa', 0.304]]), at: clock.now() });
    answer = async () => {
      throw new Error('HTTP 404');
    };
    clock.advance(60_000);
    await book.poll();
    await book.poll();
    expect(book.venueShares()?.shares.get('0xaaa')).toBe(0.304);
    expect(warned).toEqual(["could not read the venue's reward shares (the estimate is shown alone)"]);
    // a failed share read does not fail the poll
    expect(book.pollFailures).toBe(0);
  });
});
