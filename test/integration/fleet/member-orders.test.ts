/**
 * The fleet's registry of its members' filled orders on a real Redis (src/fleet/member-orders.ts;
 * findings-2 F5, F8): a member's ids are written in batches and read by the others (sync, lookup),
 * ids stay queued while Redis is hung, and the account's history is booked by one ledger only (the
 * first one of a fleet; none of a fleet that published ledgers before the record existed), and a
 * fill from outside on a market outside the fleet's by the ledger that claims it first. The
 * registry's times are Redis's: members whose clocks differ still see each other's ids.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveClock, VirtualClock } from '../../../src/core/clock.ts';
import { fleetKeys } from '../../../src/fleet/fleet-keys.ts';
import {
  claimExternalFill,
  claimHistory,
  MEMBER_ORDERS_RETENTION_MS,
  MemberOrders,
} from '../../../src/fleet/member-orders.ts';
import { connectFleetRedis } from '../../../src/fleet/redis.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';

const clock = new LiveClock();
let r: TestRedis;
beforeAll(async () => {
  r = await startRedis();
});
afterAll(async () => {
  await r?.stop();
});

describe('member orders', () => {
  it("one member's filled orders are known to the others (sync and lookup); kept queued while Redis hangs", async () => {
    const keys = fleetKeys('0x00000000000000000000000000000000000000f5');
    const redis = await connectFleetRedis(r.url);
    const seenByB: string[] = [];
    const a = new MemberOrders({ redis, keys, clock, onMemberOrders: () => {}, flushMs: 50, syncMs: 50 });
    const b = new MemberOrders({
      redis,
      keys,
      clock,
      onMemberOrders: (ids) => seenByB.push(...ids),
      flushMs: 50,
      syncMs: 50,
    });
    const errors: Error[] = [];
    const c = new MemberOrders({ redis, keys, clock, onMemberOrders: () => {}, onError: (e) => errors.push(e) });
    try {
      await a.start();
      await b.start();
      a.add('0xa1');
      a.add('0xa2');
      await a.flush();
      await b.sync();
      expect(new Set(seenByB)).toEqual(new Set(['0xa1', '0xa2']));
      expect(await b.lookup(['0xa1', '0xzz', '0xa2', '0xa1'])).toEqual(new Set(['0xa1', '0xa2']));
      // Redis hung: the write fails, the ids stay queued and are written once it answers
      r.pause();
      c.add('0xc1');
      await c.flush();
      expect(errors.length).toBeGreaterThan(0);
      await expect(b.lookup(['0xc1'])).rejects.toThrow();
      r.resume();
      await c.flush();
      expect(await b.lookup(['0xc1'])).toEqual(new Set(['0xc1']));
    } finally {
      r.resume();
      await a.stop();
      await b.stop();
      await c.stop();
      redis.disconnect();
    }
  });

  it("the registry is stamped and trimmed by Redis's clock: the members' clocks may differ (review-1 F10)", async () => {
    const keys = fleetKeys('0x00000000000000000000000000000000000000fb');
    const redis = await connectFleetRedis(r.url);
    // the members' clocks (they never move here: every write and read is called by hand): one 60 s
    // behind (more than a read's overlap), one ahead by more than the retention
    const now = Date.now();
    const seenByB: string[] = [];
    const slow = new MemberOrders({ redis, keys, clock: new VirtualClock(now - 60_000), onMemberOrders: () => {} });
    const b = new MemberOrders({
      redis,
      keys,
      clock: new VirtualClock(now),
      onMemberOrders: (ids) => seenByB.push(...ids),
    });
    const fast = new MemberOrders({
      redis,
      keys,
      clock: new VirtualClock(now + MEMBER_ORDERS_RETENTION_MS + 86_400_000),
      onMemberOrders: () => {},
    });
    try {
      await slow.start();
      await b.start();
      await fast.start();
      // b has read an id of its own: its next read starts at that id's stamp (less the overlap)
      b.add('0xb1');
      await b.flush();
      await b.sync();
      expect(seenByB).toContain('0xb1');
      // the slow member's id still reaches b
      slow.add('0xs1');
      await slow.flush();
      await b.sync();
      expect(seenByB).toContain('0xs1');
      // the member ahead trims only what is older than the retention on Redis's clock
      await redis.zadd(keys.memberOrders, 1, '0xancient');
      fast.add('0xf1');
      await fast.flush();
      expect(await b.lookup(['0xb1', '0xs1', '0xf1', '0xancient'])).toEqual(new Set(['0xb1', '0xs1', '0xf1']));
      const [sec] = await redis.time();
      for (const id of ['0xb1', '0xs1', '0xf1']) {
        const stamp = Number(await redis.zscore(keys.memberOrders, id));
        expect(Math.abs(stamp - Number(sec) * 1000), id).toBeLessThan(10_000);
      }
    } finally {
      await slow.stop();
      await b.stop();
      await fast.stop();
      redis.disconnect();
    }
  });

  it("the account's history is booked by the first ledger only, and by none of an older fleet", async () => {
    const redis = await connectFleetRedis(r.url);
    try {
      const k1 = fleetKeys('0x00000000000000000000000000000000000000f8');
      // its own published ledger does not count as another's
      await redis.hset(k1.ledgers, 'L1', '{}');
      expect(await claimHistory(redis, k1, 'L1')).toBe(true);
      expect(await claimHistory(redis, k1, 'L2')).toBe(false);
      // the same data directory again (its store emptied): still its to book
      expect(await claimHistory(redis, k1, 'L1')).toBe(true);
      // a fleet whose members published ledgers before the record existed: nobody books it again
      const k2 = fleetKeys('0x00000000000000000000000000000000000000f9');
      await redis.hset(k2.ledgers, 'old', '{}');
      expect(await claimHistory(redis, k2, 'new')).toBe(false);
      expect(await claimHistory(redis, k2, 'old')).toBe(false);
    } finally {
      redis.disconnect();
    }
  });

  it('a fill from outside the fleet is booked by the first ledger to claim it, whoever asks again, at once', async () => {
    const redis = await connectFleetRedis(r.url);
    try {
      const k = fleetKeys('0x00000000000000000000000000000000000000fa');
      // two members claim the same fill at once: exactly one wins
      const [a, b] = await Promise.all([
        claimExternalFill(redis, k, 'La', '0xtrade1', '0xorder1'),
        claimExternalFill(redis, k, 'Lb', '0xtrade1', '0xorder1'),
      ]);
      expect([a, b].filter(Boolean)).toHaveLength(1);
      const winner = a ? 'La' : 'Lb';
      // the winner again (a restart's backfill) still books it; the other never
      expect(await claimExternalFill(redis, k, winner, '0xtrade1', '0xorder1')).toBe(true);
      expect(await claimExternalFill(redis, k, a ? 'Lb' : 'La', '0xtrade1', '0xorder1')).toBe(false);
      // another fill (another trade of the same order) is claimed on its own
      expect(await claimExternalFill(redis, k, 'Lb', '0xtrade2', '0xorder1')).toBe(true);
      // kept as long as the registry of the members' orders
      const ttl = await redis.pttl(k.externalFill('0xtrade1', '0xorder1'));
      expect(ttl).toBeGreaterThan(MEMBER_ORDERS_RETENTION_MS - 60_000);
    } finally {
      redis.disconnect();
    }
  });
});
