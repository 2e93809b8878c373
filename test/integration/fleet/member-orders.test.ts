/**
 * The fleet's registry of its members' filled orders on a real Redis (src/fleet/member-orders.ts;
 * findings-2 F5, F8): a member's ids are written in batches and read by the others (sync, lookup),
 * ids stay queued while Redis is hung, and the account's history is booked by one ledger only (the
 * first one of a fleet; none of a fleet that published ledgers before the record existed), also
 * when members started together publish their ledgers at once (review-1 F1: claimed before publishing), and a
 * fill from outside on a market outside the fleet's by the ledger that claims it first. The
 * registry's times are Redis's: members whose clocks differ still see each other's ids.
 */
import { describe, expect, it } from 'vitest';
import { startFleetLedger } from '../../../src/fleet/ledger-start.ts';
import { LiveClock, VirtualClock } from '../../../src/core/clock.ts';
import { LedgerPublisher } from '../../../src/fleet/fleet-ledger.ts';
import { fleetKeys } from '../../../src/fleet/fleet-keys.ts';
import {
  claimExternalFill,
  claimHistory,
  MEMBER_ORDERS_RETENTION_MS,
  MemberOrders,
} from '../../../src/fleet/member-orders.ts';
import { connectFleetRedis } from '../../../src/fleet/redis.ts';
import { useTestRedis } from '../../support/redis-suite.ts';

const clock = new LiveClock();
const r = useTestRedis();

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

  it('members started together on an account with history: exactly one ledger books it, whatever the interleaving (review-1 F1)', async () => {
    const redis = await connectFleetRedis(r.url);
    const publishers: LedgerPublisher[] = [];
    /** A real ledger publisher whose first publish waits until `n` members reached theirs (then all go). */
    const together = (n: number) => {
      let arrived = 0;
      let go!: () => void;
      const all = new Promise<void>((res) => {
        go = res;
      });
      return (keys: ReturnType<typeof fleetKeys>, ledgerId: string) => {
        const real = new LedgerPublisher({ redis, keys, member: ledgerId, ledgerId, clock, collect: () => ({}) });
        publishers.push(real);
        return {
          start: async () => {
            if (++arrived === n) go();
            await all;
            await real.start();
          },
        };
      };
    };
    const member = (keys: ReturnType<typeof fleetKeys>) => ({ redis, keys });
    try {
      // both reach their first publish before either publishes (each would see the other's ledger)
      const k1 = fleetKeys('0x00000000000000000000000000000000000000e1');
      const p1 = together(2);
      const both = await Promise.all(
        ['A', 'B'].map((id) =>
          startFleetLedger(member(k1), { ledgerId: id, claimHistory: true, publisher: p1(k1, id) }),
        ),
      );
      expect(both.filter((x) => x === true)).toHaveLength(1);
      expect(await redis.hlen(k1.ledgers)).toBe(2);
      // a member started later on a fresh data directory: not its
      const later = await startFleetLedger(member(k1), {
        ledgerId: 'C',
        claimHistory: true,
        publisher: together(1)(k1, 'C'),
      });
      expect(later).toBe(false);

      // one after the other, and at once without a wait: the first claimer books it, once
      const k2 = fleetKeys('0x00000000000000000000000000000000000000e2');
      const p2 = together(1);
      expect(await startFleetLedger(member(k2), { ledgerId: 'A', claimHistory: true, publisher: p2(k2, 'A') })).toBe(
        true,
      );
      expect(await startFleetLedger(member(k2), { ledgerId: 'B', claimHistory: true, publisher: p2(k2, 'B') })).toBe(
        false,
      );
      const k3 = fleetKeys('0x00000000000000000000000000000000000000e3');
      const p3 = together(1);
      const atOnce = await Promise.all(
        ['A', 'B', 'C'].map((id) =>
          startFleetLedger(member(k3), { ledgerId: id, claimHistory: true, publisher: p3(k3, id) }),
        ),
      );
      expect(atOnce.filter((x) => x === true)).toHaveLength(1);

      // a member whose store has fills does not ask
      const k4 = fleetKeys('0x00000000000000000000000000000000000000e4');
      expect(
        await startFleetLedger(member(k4), { ledgerId: 'A', claimHistory: false, publisher: together(1)(k4, 'A') }),
      ).toBeUndefined();
      expect(await redis.exists(k4.history)).toBe(0);
      expect(await redis.hlen(k4.ledgers)).toBe(1);
    } finally {
      for (const p of publishers) await p.stop();
      redis.disconnect();
    }
  });
});
