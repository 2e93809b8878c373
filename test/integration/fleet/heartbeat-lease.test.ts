/**
 * The heartbeat lease on a real Redis, three members, the default timings (ttl 2.5 s, renew
 * 0.5 s, claims every 0.25 s): exactly one member heartbeats; when the holder dies (kill -9 = it
 * stops renewing) another takes over within ttl + a poll and heartbeats at once, well inside the
 * venue's 10 s dead-man window; a clean stop hands over at once; while Redis is down the holder
 * keeps heartbeating (the others do not), and when Redis returns empty the former holder takes the
 * lease back before anyone else.
 */
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LiveClock } from '../../../src/core/clock.ts';
import { fleetKeys } from '../../../src/fleet/fleet-keys.ts';
import { HeartbeatLease } from '../../../src/fleet/heartbeat-lease.ts';
import { RedisLeases } from '../../../src/fleet/lease.ts';
import { RedisHealth } from '../../../src/fleet/redis-health.ts';
import { connectFleetRedis } from '../../../src/fleet/redis.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';

const keys = fleetKeys('0x00000000000000000000000000000000000000c3');
const clock = new LiveClock();
let r: TestRedis;
const conns: Redis[] = [];
const healths: RedisHealth[] = [];
let live: Array<{ name: string; lease: HeartbeatLease; beats: number[] }> = [];

beforeAll(async () => {
  r = await startRedis();
});
afterEach(async () => {
  for (const m of live) m.lease.halt();
  for (const h of healths.splice(0)) h.stop();
  for (const c of conns.splice(0)) c.disconnect();
  live = [];
  if (r !== undefined) {
    await r.restart();
  }
});
afterAll(async () => {
  await r?.stop();
});

async function members(n: number, pollMs: number[] = []) {
  for (let i = 0; i < n; i++) {
    const c = await connectFleetRedis(r.url);
    conns.push(c);
    const health = new RedisHealth({ redis: c, clock });
    await health.start();
    healths.push(health);
    const beats: number[] = [];
    const name = `m${live.length}`;
    const lease = new HeartbeatLease({
      leases: new RedisLeases(c),
      key: keys.heartbeatLease,
      member: name,
      clock,
      health,
      onAcquired: () => beats.push(Date.now()),
      ...(pollMs[i] !== undefined ? { pollMs: pollMs[i] } : {}),
    });
    live.push({ name, lease, beats });
  }
  for (const m of live) m.lease.start();
  return live;
}

async function until(cond: () => boolean, timeoutMs: number): Promise<number> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((res) => setTimeout(res, 10));
  }
  return Date.now() - t0;
}
const beating = () => live.filter((m) => m.lease.shouldBeat());

describe('the heartbeat lease', () => {
  it('one member heartbeats; a dead holder is replaced within ttl + a poll, and never two at once', async () => {
    await members(3);
    await until(() => beating().length === 1, 2000);
    // steady state: exactly one, the same one
    const holder = beating()[0]!;
    for (let i = 0; i < 60; i++) {
      expect(beating()).toEqual([holder]);
      await new Promise((res) => setTimeout(res, 25));
    }
    // kill -9 of the holder: it stops renewing, and (as a dead process) sends nothing
    holder.lease.halt();
    const died = Date.now();
    const others = live.filter((m) => m !== holder);
    let overlap = 0;
    const taken = await until(() => {
      if (holder.lease.shouldBeat() && others.some((m) => m.lease.shouldBeat())) overlap++;
      return others.some((m) => m.lease.shouldBeat());
    }, 6000);
    // its lease expires within 2.5 s of its last renew (at most 0.5 s before it died), then a poll
    expect(taken).toBeLessThan(2500 + 250 + 750);
    const taker = others.find((m) => m.lease.shouldBeat())!;
    expect(taker.beats.at(-1)! - died).toBeLessThan(3500);
    expect(taker.lease.status().fence).toBeGreaterThan(holder.lease.status().fence);
    // the dead holder's self-fence ran out before the taker held the lease
    expect(overlap).toBe(0);
    expect(others.filter((m) => m.lease.shouldBeat())).toHaveLength(1);
  });

  it('a clean stop releases the lease: another member heartbeats within about one poll', async () => {
    await members(2);
    await until(() => beating().length === 1, 2000);
    const holder = beating()[0]!;
    await holder.lease.stop();
    expect(holder.lease.shouldBeat()).toBe(false);
    const taken = await until(() => beating().length === 1, 2000);
    expect(taken).toBeLessThan(1000);
  });

  it('Redis down: the holder keeps heartbeating, the others do not; Redis back empty: the former holder re-takes it', async () => {
    // the holder retries only every second, the others every 50 ms: it wins only because they
    // give it one lease period after Redis returns
    await members(1, [1000]);
    await until(() => beating().length === 1, 3000);
    const holder = live[0]!;
    expect(beating()).toEqual([holder]);
    await members(2, [50, 50]);
    await r.kill();
    // beyond its self-fence (0.8 × 2.5 s) and beyond the ttl: it rides the outage
    for (let i = 0; i < 30; i++) {
      expect(beating()).toEqual([holder]);
      await new Promise((res) => setTimeout(res, 100));
    }
    expect(holder.lease.status().riding).toBe(true);
    await r.restart();
    await until(() => healths.every((h) => h.isUp()), 5000);
    // the former holder holds the lease again (a new one: Redis forgot everything) and no one else beats
    await until(() => holder.lease.status().acquired === 2, 3000);
    expect(holder.lease.status().riding).toBe(false);
    for (let i = 0; i < 30; i++) {
      expect(beating()).toEqual([holder]);
      await new Promise((res) => setTimeout(res, 100));
    }
    const lease = await new RedisLeases(conns[0]!).holder(keys.heartbeatLease);
    expect(lease?.member).toBe(holder.name);
  });
});
