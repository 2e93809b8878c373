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
    const venueTotal = () => [...venue.values()].reduce((x, y) => x + y, 0);
    try {
      for (const b of Object.values(books)) await b.poll();
      // a: its market and the one outside the fleet (heartbeat holder); b: its market; c: nothing
      expect([paid('a'), paid('b'), paid('c')]).toEqual([2078 + 102, 1520, 0]);
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

      // the venue lowers M2: the member polling gives back only what it booked of it
      venue.set(M2, 100);
      await books.b.poll();
      await books.c.poll();
      await b2.poll();
      expect(paid('b')).toBeGreaterThanOrEqual(0);
      expect(paid('c')).toBeGreaterThanOrEqual(0);
      // what is left above the venue's figure is with a member that no longer holds M2 (booked then)
      const m2 = (m: string) => stores[m]!.reward(M2, today)?.paid ?? 0;
      expect(m2('b') + m2('c')).toBeGreaterThanOrEqual(100);

      // a restarted member (same store, new book) books nothing again
      venue.set(M2, 2000);
      for (const b of [books.b, books.c, b2]) await b.poll();
      expect(total()).toBe(venueTotal());
      const restarted = book('b');
      await restarted.poll();
      expect(total()).toBe(venueTotal());
      expect(Number(await redis.hget(keys.rewardsPaid(today), M1))).toBe(3000);
      expect(await redis.pttl(keys.rewardsPaid(today))).toBeGreaterThan(0);
    } finally {
      for (const s of Object.values(stores)) s.close();
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
    const book = new RewardBook({ store, clock, sampleMs: 10_000, pollMs: 0, earnings, fleet });
    try {
      r.pause();
      await expect(book.poll()).rejects.toThrow();
      expect(store.rewardTotals().paid).toBe(0);
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
