/**
 * The fleet's liquidity rewards on a real Redis and real stores (findings-2 F3; src/fleet/reward-claims.ts):
 * three members' reward books read the same account's payouts (the venue's earnings for the shared
 * maker address); each books only the markets it holds (the heartbeat holder those outside the
 * fleet's), and only the part the fleet has not booked yet. The members' paid figures add up to the
 * venue's through a change of holder, concurrent polls, a venue lowering a figure and a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.ts';
import type { ConditionId } from '../../../src/core/ids.ts';
import { fleetKeys } from '../../../src/fleet/fleet-keys.ts';
import { connectFleetRedis } from '../../../src/fleet/redis.ts';
import { rewardClaims } from '../../../src/fleet/reward-claims.ts';
import { type EarningRow, RewardBook, utcDate } from '../../../src/ops/reward-book.ts';
import { openStore, type Store } from '../../../src/store/store.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';

const ME = '0x00000000000000000000000000000000000000f3';
const keys = fleetKeys(ME);
const M1 = '0x01' as ConditionId;
const M2 = '0x02' as ConditionId;
const OUT = '0x03' as ConditionId; // rewarded, but not one of the fleet's markets
let r: TestRedis;
beforeAll(async () => {
  r = await startRedis();
});
afterAll(async () => {
  await r?.stop();
});

describe('fleet reward claims', () => {
  it("books the account's payouts once fleet-wide: the members' sum is the venue's", async () => {
    const redis = await connectFleetRedis(r.url);
    const clock = new VirtualClock(Date.UTC(2026, 10, 27, 12, 0, 0));
    const today = utcDate(clock.now());
    // the venue's answer for the shared maker address (what every member reads)
    const venue = new Map<string, number>([
      [M1, 2078],
      [M2, 1520],
      [OUT, 102],
    ]);
    const earnings = async (date: string): Promise<EarningRow[]> =>
      date === today ? [...venue].map(([market, e]) => ({ date, market, earnings: e, maker: ME })) : [];
    const holder = new Map<string, string>([
      [M1, 'a'],
      [M2, 'b'],
    ]);
    let beater = 'a';
    const stores: Record<string, Store> = {};
    const book = (m: string) => {
      stores[m] ??= openStore(':memory:', { clock });
      stores[m].openEpoch({ venue: 'paper', world: 'w', address: ME });
      const fleet = rewardClaims(redis, keys, {
        ledgerId: m,
        holds: (x) => holder.get(x) === m,
        beats: () => beater === m,
        fleetMarkets: [M1, M2],
      });
      return new RewardBook({ store: stores[m], clock, sampleMs: 10_000, pollMs: 0, earnings, address: ME, fleet });
    };
    const books = { a: book('a'), b: book('b'), c: book('c') };
    const paid = (m: string) => stores[m]!.rewardTotals().paid as number;
    const total = () => paid('a') + paid('b') + paid('c');
    // no member estimated anything here: each one's total rewards is what it booked
    const totals = () => ['a', 'b', 'c'].map((m) => stores[m]!.rewardTotals().total as number);
    const venueTotal = () => [...venue.values()].reduce((x, y) => x + y, 0);
    try {
      for (const b of Object.values(books)) await b.poll();
      // a: its market and the one outside the fleet (heartbeat holder); b: its market; c: nothing
      expect([paid('a'), paid('b'), paid('c')]).toEqual([2078 + 102, 1520, 0]);
      expect(totals()).toEqual([2078 + 102, 1520, 0]);
      expect(total()).toBe(venueTotal());
      // polled again: nothing more
      for (const b of Object.values(books)) await b.poll();
      expect(total()).toBe(venueTotal());

      // a dies; c takes M1 and the heartbeat; the venue pays more on M1 and OUT: c books the increase only
      holder.set(M1, 'c');
      beater = 'c';
      venue.set(M1, 3000);
      venue.set(OUT, 150);
      await Promise.all([books.b.poll(), books.c.poll(), books.c.poll()]);
      expect([paid('a'), paid('b'), paid('c')]).toEqual([2180, 1520, 922 + 48]);
      expect(total()).toBe(venueTotal());

      // a lease in transition: both think they hold M2 and poll at once; the venue pays more there
      holder.set(M2, 'b');
      venue.set(M2, 2000);
      const both = rewardClaims(redis, keys, {
        ledgerId: 'c',
        holds: () => true,
        beats: () => false,
        fleetMarkets: [M1, M2],
      });
      const b2 = new RewardBook({ store: stores.c!, clock, sampleMs: 10_000, pollMs: 0, earnings, fleet: both });
      await Promise.all([books.b.poll(), b2.poll()]);
      expect(total()).toBe(venueTotal());
      // one of the two booked the 480 more, the other nothing (whichever claimed first)
      const m2 = (m: string) => stores[m]!.reward(M2, today)?.paid ?? 0;
      const bGot = m2('b') - 1520;
      expect([0, 480]).toContain(bGot);
      expect(m2('c')).toBe(480 - bGot);

      // the venue lowers M2 to 100: each member polling gives back at most what it booked of it
      venue.set(M2, 100);
      await books.b.poll();
      await books.c.poll();
      await b2.poll();
      // b gives back 1900 of its 2000 (it had the 480), or all its 1520 and c then 380 of its 480
      expect([m2('b'), m2('c')]).toEqual(bGot === 480 ? [100, 0] : [0, 100]);
      expect(paid('b')).toBe(m2('b'));
      expect(paid('c')).toBe(922 + 48 + m2('c'));
      expect(totals()).toEqual([2180, paid('b'), paid('c')]);
      expect(total()).toBe(venueTotal());
      expect(Number(await redis.hget(keys.rewardsPaid(today), M2))).toBe(100);

      // a restarted member (same store, new book) books nothing again
      venue.set(M2, 2000);
      for (const b of [books.b, books.c, b2]) await b.poll();
      expect(total()).toBe(venueTotal());
      const restarted = book('b');
      await restarted.poll();
      expect(total()).toBe(venueTotal());
      expect(Number(await redis.hget(keys.rewardsPaid(today), M1))).toBe(3000);
      expect(Number(await redis.hget(keys.rewardsPaid(today), M2))).toBe(2000);
      expect(totals()).toEqual([paid('a'), paid('b'), paid('c')]);
      expect(await redis.pttl(keys.rewardsPaid(today))).toBeGreaterThan(0);
    } finally {
      for (const s of Object.values(stores)) s.close();
      redis.disconnect();
    }
  });

  it("a member's estimate stops counting once the fleet booked the payout: the members' total is the venue's (review-1 F9)", async () => {
    const acct = '0x00000000000000000000000000000000000000f4';
    const k = fleetKeys(acct);
    const redis = await connectFleetRedis(r.url);
    const clock = new VirtualClock(Date.UTC(2026, 10, 29, 12, 0, 0));
    const today = utcDate(clock.now());
    const venue = new Map<string, number>([
      [M1, 3000],
      [M2, 1000],
    ]);
    const earnings = async (date: string): Promise<EarningRow[]> =>
      date === today ? [...venue].map(([market, e]) => ({ date, market, earnings: e, maker: acct })) : [];
    const holder = new Map<string, string>([
      [M1, 'b'],
      [M2, 'b'],
    ]);
    const stores: Record<string, Store> = {};
    const book = (m: string) => {
      stores[m] = openStore(':memory:', { clock });
      stores[m].openEpoch({ venue: 'paper', world: 'w', address: acct });
      const fleet = rewardClaims(redis, k, {
        ledgerId: m,
        holds: (x) => holder.get(x) === m,
        beats: () => false,
        fleetMarkets: [M1, M2],
      });
      return new RewardBook({ store: stores[m], clock, sampleMs: 10_000, pollMs: 0, earnings, address: acct, fleet });
    };
    const a = book('a');
    const b = book('b');
    const totals = (m: string) => {
      const t = stores[m]!.rewardTotals();
      return { paid: t.paid as number, estimated: t.estimated as number, total: t.total as number };
    };
    try {
      // a quoted both markets earlier today: its tracker's estimates
      for (const [market, estimated] of [
        [M1, 2500],
        [M2, 700],
      ] as const)
        stores.a!.recordRewardEstimate({ market, date: today, estimated, samples: 10, scoredSamples: 10 });
      // before the fleet booked anything, a's estimates count
      await a.poll();
      expect(totals('a')).toEqual({ paid: 0, estimated: 3200, total: 3200 });

      // b holds both and books the payouts: a's estimates stop counting (a booked none of them)
      await b.poll();
      await a.poll();
      expect(totals('b')).toEqual({ paid: 4000, estimated: 0, total: 4000 });
      expect(totals('a')).toEqual({ paid: 0, estimated: 0, total: 0 });
      expect(stores.a!.reward(M1, today)).toMatchObject({ status: 'paid', paid: 0, estimated: 2500 });
      expect(totals('a').total + totals('b').total).toBe(4000);

      // a takes M1 and the venue pays 500 more there: a books its part, and only that counts
      holder.set(M1, 'a');
      venue.set(M1, 3500);
      stores.a!.recordRewardEstimate({ market: M1, date: today, estimated: 2900, samples: 20, scoredSamples: 20 });
      await a.poll();
      await b.poll();
      expect(totals('a')).toEqual({ paid: 500, estimated: 0, total: 500 });
      expect(totals('b')).toEqual({ paid: 4000, estimated: 0, total: 4000 });
      expect(totals('a').total + totals('b').total).toBe(4500);

      // a member that holds the market when the fleet already booked all of it settles at 0 too
      const c = book('c');
      stores.c!.recordRewardEstimate({ market: M2, date: today, estimated: 650, samples: 5, scoredSamples: 5 });
      holder.set(M2, 'c');
      await c.poll();
      expect(totals('c')).toEqual({ paid: 0, estimated: 0, total: 0 });
      expect(totals('a').total + totals('b').total + totals('c').total).toBe(4500);
    } finally {
      for (const st of Object.values(stores)) st.close();
      redis.disconnect();
    }
  });

  it('a Redis restarted empty: the members re-assert what they booked, and nothing is granted twice (review-1 F7)', async () => {
    const acct = '0x00000000000000000000000000000000000000f7';
    const k = fleetKeys(acct);
    const redis = await connectFleetRedis(r.url);
    const clock = new VirtualClock(Date.UTC(2026, 10, 30, 12, 0, 0));
    const today = utcDate(clock.now());
    const venue = new Map<string, number>([
      [M1, 60],
      [M2, 30],
    ]);
    const earnings = async (date: string): Promise<EarningRow[]> =>
      date === today ? [...venue].map(([market, e]) => ({ date, market, earnings: e, maker: acct })) : [];
    const holder = new Map<string, string>([
      [M1, 'a'],
      [M2, 'b'],
    ]);
    const stores: Record<string, Store> = {};
    const claims: Record<string, ReturnType<typeof rewardClaims>> = {};
    const warned: string[] = [];
    const log = { info: () => {}, warn: (_: Record<string, unknown>, msg: string) => warned.push(msg) };
    const book = (m: string) => {
      stores[m] = openStore(':memory:', { clock });
      stores[m].openEpoch({ venue: 'paper', world: 'w', address: acct });
      claims[m] = rewardClaims(redis, k, {
        ledgerId: m,
        holds: (x) => holder.get(x) === m,
        beats: () => false,
        fleetMarkets: [M1, M2],
        reassertHoldMs: 400,
      });
      return new RewardBook({
        store: stores[m],
        clock,
        sampleMs: 10_000,
        pollMs: 0,
        earnings,
        address: acct,
        fleet: claims[m],
        log,
      });
    };
    const a = book('a');
    const b = book('b');
    const paid = (m: string) => stores[m]!.rewardTotals().paid as number;
    const fleetTotal = () => paid('a') + paid('b');
    const record = async () => redis.hgetall(k.rewardsPaid(today));
    try {
      // a books M1's 60; then b holds M1 and books the 40 more the venue pays; b books M2's 30
      await a.poll();
      holder.set(M1, 'b');
      venue.set(M1, 100);
      await b.poll();
      expect([paid('a'), paid('b')]).toEqual([60, 70]);
      expect(fleetTotal()).toBe(130);

      // Redis restarted empty: the record is gone
      await r.restart();
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && (await redis.ping().catch(() => '')) !== 'PONG')
        await new Promise((res) => setTimeout(res, 50));
      expect(await redis.exists(k.rewardsPaid(today))).toBe(0);
      // a booked part of a date whose record is gone: proof of the loss, nothing granted (nor written)
      expect(await claims.a!.claim(today, M1, 100, 60)).toBe(0);
      expect(await redis.exists(k.rewardsPaid(today))).toBe(0);

      // a holds M1 again and polls first: it re-asserts its 60, and the hold keeps it from being
      // granted b's 40 again before b re-asserted (it was granted 40 without the re-assert and hold)
      holder.set(M1, 'a');
      await a.poll();
      expect(paid('a')).toBe(60);
      expect(await redis.exists(k.rewardsHold)).toBe(1);
      expect(warned).toContain(
        "reward parts this member booked were missing from the fleet's Redis (restarted empty?): recorded them again",
      );
      await b.poll();
      expect(await record()).toEqual({
        [M1]: '100',
        [`${M1}|a`]: '60',
        [`${M1}|b`]: '40',
        [M2]: '30',
        [`${M2}|b`]: '30',
      });

      // the hold over, the members poll again: nothing booked twice
      await new Promise((res) => setTimeout(res, 500));
      expect(await redis.exists(k.rewardsHold)).toBe(0);
      await a.poll();
      await b.poll();
      expect([paid('a'), paid('b')]).toEqual([60, 70]);
      expect(fleetTotal()).toBe(130);
      // and a payout the venue makes after it is booked as usual
      venue.set(M1, 110);
      await a.poll();
      expect([paid('a'), paid('b')]).toEqual([70, 70]);
      expect(Number((await record())[M1])).toBe(110);
    } finally {
      for (const st of Object.values(stores)) st.close();
      redis.disconnect();
    }
  });

  it('Redis hung: the poll fails and books nothing; the next poll books it (a lost answer too)', async () => {
    const redis = await connectFleetRedis(r.url);
    const clock = new VirtualClock(Date.UTC(2026, 10, 28, 12, 0, 0));
    const today = utcDate(clock.now());
    const store = openStore(':memory:', { clock });
    store.openEpoch({ venue: 'paper', world: 'w', address: ME });
    const fleet = rewardClaims(redis, keys, {
      ledgerId: 'x',
      holds: () => true,
      beats: () => true,
      fleetMarkets: [M1],
    });
    const earnings = async (date: string): Promise<EarningRow[]> =>
      date === today ? [{ date, market: M1, earnings: 500, maker: ME }] : [];
    const warned: { obj: Record<string, unknown>; msg: string }[] = [];
    const log = { info: () => {}, warn: (obj: Record<string, unknown>, msg: string) => warned.push({ obj, msg }) };
    const book = new RewardBook({ store, clock, sampleMs: 10_000, pollMs: 0, earnings, fleet, log });
    try {
      r.pause();
      await expect(book.poll()).rejects.toThrow();
      expect(store.rewardTotals().paid).toBe(0);
      // said as the fleet's Redis failing, not as the venue's endpoint (review-1 F15)
      expect(warned).toHaveLength(1);
      expect(warned[0]!.msg).toBe("could not claim the reward payout in the fleet's Redis (retried at the next poll)");
      expect(warned[0]!.obj).toMatchObject({ market: M1, date: today });
      expect(book.pollFailures).toBe(1);
      r.resume();
      await book.poll();
      expect(store.rewardTotals().paid).toBe(500);
    } finally {
      r.resume();
      store.close();
      redis.disconnect();
    }
  });
});
