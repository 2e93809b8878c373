/**
 * The lease primitive on a real Redis (test/support/redis.ts): SET NX PX with a fence that grows on
 * every grant, compare-and-set renew and release (a lease that passed on is never extended nor
 * dropped by its former holder), one winner among racing members, and scripts that survive a
 * Redis that forgot them.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/core/errors.ts';
import { fleetKeys } from '../../../src/fleet/fleet-keys.ts';
import { LiveClock } from '../../../src/core/clock.ts';
import { RedisLeases } from '../../../src/fleet/lease.ts';
import { MarketLeases } from '../../../src/fleet/market-leases.ts';
import { connectFleetRedis } from '../../../src/fleet/redis.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';

const keys = fleetKeys('0x00000000000000000000000000000000000000a1');
let r: TestRedis;
const clients: Redis[] = [];
async function client(): Promise<RedisLeases> {
  const c = await connectFleetRedis(r.url);
  clients.push(c);
  return new RedisLeases(c);
}
beforeAll(async () => {
  r = await startRedis();
});
afterAll(async () => {
  for (const c of clients) c.disconnect();
  await r?.stop();
});
const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));

describe('leases on Redis', () => {
  it('grant one holder with a growing fence; compare-and-set renew and release', async () => {
    const a = await client();
    const b = await client();
    const k = keys.marketLease('m1');
    const ga = await a.acquire(k, 'a', 200);
    if (!ga.ok) throw new Error('not granted');
    expect(ga.value).toBe(`a:${ga.fence}`);
    const f1 = ga.fence;
    const gb = await b.acquire(k, 'b', 200);
    expect(gb.ok).toBe(false);
    if (!gb.ok) {
      expect(gb.holder).toBe(`a:${f1}`);
      expect(gb.ttlMs).toBeGreaterThan(0);
      expect(gb.ttlMs).toBeLessThanOrEqual(200);
    }
    expect(await a.renew(k, `a:${f1}`, 200)).toBe(true);
    // a stops renewing: the lease expires and b takes it with a larger fence
    await sleep(300);
    const gb2 = await b.acquire(k, 'b', 5000);
    if (!gb2.ok) throw new Error('not granted');
    expect(gb2.fence).toBeGreaterThan(f1);
    expect(gb2.value).toBe(`b:${gb2.fence}`);
    // a's late renew and release touch nothing of b's
    expect(await a.renew(k, `a:${f1}`, 5000)).toBe(false);
    expect(await a.release(k, `a:${f1}`)).toBe(false);
    expect(await a.holder(k)).toEqual({ member: 'b', fence: gb2.fence });
    expect(await b.release(k, gb2.value)).toBe(true);
    expect(await a.holder(k)).toBeNull();
    expect((await a.acquire(k, 'a', 1000)).ok && (await a.holder(k))!.fence).toBeGreaterThan(gb2.fence);
  });

  it('renews many leases in one round trip and says which are still held', async () => {
    const a = await client();
    const k1 = keys.marketLease('r1');
    const k2 = keys.marketLease('r2');
    const g1 = await a.acquire(k1, 'a', 5000);
    const g2 = await a.acquire(k2, 'a', 5000);
    if (!g1.ok || !g2.ok) throw new Error('not granted');
    await a.redis.set(k2, 'z:99');
    expect(
      await a.renewAll(
        [
          { key: k1, value: g1.value },
          { key: k2, value: g2.value },
        ],
        5000,
      ),
    ).toEqual([true, false]);
    expect(await a.renewAll([], 5000)).toEqual([]);
  });

  it('gives a lease to exactly one of many racing members', async () => {
    const members = await Promise.all(Array.from({ length: 8 }, () => client()));
    const k = keys.marketLease('race');
    const res = await Promise.all(members.map((m, i) => m.acquire(k, `m${i}`, 5000)));
    expect(res.filter((x) => x.ok)).toHaveLength(1);
  });

  it('refuses a bad member name or ttl without writing anything', async () => {
    const a = await client();
    const k = keys.marketLease('bad');
    await expect(a.acquire(k, 'has:colon', 1000)).rejects.toThrow(ValidationError);
    await expect(a.acquire(k, 'a', 0)).rejects.toThrow(ValidationError);
    await expect(a.acquire(k, 'a', 1.5)).rejects.toThrow(ValidationError);
    expect(await a.redis.exists(k, keys.fence(k))).toBe(0);
  });

  it('still works after Redis forgot its scripts (EVALSHA falls back to EVAL)', async () => {
    const a = await client();
    const k = keys.marketLease('flush');
    await a.acquire(k, 'a', 1000);
    await a.redis.script('FLUSH');
    const g = await a.acquire(keys.marketLease('flush2'), 'a', 1000);
    expect(g.ok).toBe(true);
  });
});

describe('fences across a Redis restarted empty', () => {
  // INCR alone restarts at 1 on an empty Redis: a stale holder (its lease granted before the
  // restart, still acting inside its self-fence) would carry a larger fence than the new holder
  it('a lease granted after the restart carries a larger fence than any granted before', async () => {
    const own = await startRedis();
    const conns: Redis[] = [];
    const leases = async () => {
      const c = await connectFleetRedis(own.url);
      conns.push(c);
      return new RedisLeases(c);
    };
    try {
      const k = keys.heartbeatLease;
      const a = await leases();
      let before = 0;
      for (let i = 0; i < 3; i++) {
        const g = await a.acquire(k, 'a', 60_000);
        if (g.ok) before = g.fence;
        await a.release(k, `a:${before}`);
      }
      const held = await a.acquire(k, 'a', 60_000); // the stale holder-to-be
      if (!held.ok) throw new Error('not granted');
      await own.restart();
      const b = await leases();
      const g = await b.acquire(k, 'b', 60_000);
      if (!g.ok) throw new Error('not granted');
      expect(g.fence).toBeGreaterThan(held.fence);
      expect(Number.isSafeInteger(g.fence)).toBe(true);
      expect(await b.holder(k)).toEqual({ member: 'b', fence: g.fence });
      // and the counter goes on from there
      await b.release(k, g.value);
      const g2 = await b.acquire(k, 'b', 60_000);
      expect(g2.ok && g2.fence > g.fence).toBe(true);

      // market leases take their fences the same way
      const m = 'mk1';
      const claim = async (name: string) => {
        const l = await leases();
        const ml = new MarketLeases({
          leases: l,
          keys,
          member: name,
          clock: new LiveClock(),
          markets: [m],
          ttlMs: 60_000,
          roundMs: 100,
          memberDeadMs: 5_000,
        });
        await ml.start();
        for (let i = 0; i < 50 && !ml.holds(m); i++) await ml.round();
        expect(ml.holds(m)).toBe(true);
        ml.halt();
        return (await l.holder(keys.marketLease(m)))!.fence;
      };
      const f1 = await claim('x');
      await own.restart();
      const f2 = await claim('y');
      expect(f2).toBeGreaterThan(f1);
    } finally {
      for (const c of conns) c.disconnect();
      await own.stop();
    }
  });
});
