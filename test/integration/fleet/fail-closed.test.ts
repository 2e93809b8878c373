/**
 * Fail closed on a real Redis: three members watch one Redis; when it is killed (or hung: SIGSTOP)
 * every member sees it down within 1 s and its guard pauses placing and pulls the quotes; when it
 * comes back (restarted empty, or resumed) every member resumes.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveClock } from '../../../src/core/clock.ts';
import { FleetGuard } from '../../../src/fleet/fail-closed.ts';
import { RedisHealth } from '../../../src/fleet/redis-health.ts';
import { connectFleetRedis } from '../../../src/fleet/redis.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';

let r: TestRedis;
const clock = new LiveClock();
interface Member {
  c: Redis;
  health: RedisHealth;
  guard: FleetGuard;
  log: string[];
}
const members: Member[] = [];

beforeAll(async () => {
  r = await startRedis();
  for (let i = 0; i < 3; i++) {
    const c = await connectFleetRedis(r.url);
    const health = new RedisHealth({ redis: c, clock });
    await health.start();
    const log: string[] = [];
    const guard = new FleetGuard({
      health,
      target: { pause: (why) => log.push(`pause:${why}`), resume: (why) => log.push(`resume:${why}`) },
      onDown: () => log.push('pull'),
      onUp: () => log.push('up'),
    });
    guard.start();
    members.push({ c, health, guard, log });
  }
});
afterAll(async () => {
  for (const m of members) {
    m.guard.stop();
    m.health.stop();
    m.c.disconnect();
  }
  await r?.stop();
});

async function until(cond: () => boolean, timeoutMs: number): Promise<number> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((res) => setTimeout(res, 10));
  }
  return Date.now() - t0;
}

describe('a fleet member fails closed when Redis goes away', () => {
  it('starts up, placing allowed, nothing paused', () => {
    for (const m of members) {
      expect(m.health.isUp()).toBe(true);
      expect(m.guard.canPlace()).toBe(true);
      expect(m.log).toEqual([]);
    }
  });

  it('Redis killed: every member is down within 1 s, pauses and pulls; back: every member resumes', async () => {
    const t0 = Date.now();
    await r.kill();
    await until(() => members.every((m) => !m.health.isUp()), 1000);
    expect(Date.now() - t0).toBeLessThan(1000);
    for (const m of members) {
      expect(m.guard.canPlace()).toBe(false);
      expect(m.guard.quotable('0xabc')).toBe(false);
      expect(m.log).toEqual(['pause:fleet', 'pull']);
    }
    await r.restart();
    await until(() => members.every((m) => m.health.isUp()), 5000);
    for (const m of members) {
      expect(m.log).toEqual(['pause:fleet', 'pull', 'resume:fleet', 'up']);
      expect(m.guard.canPlace()).toBe(true);
      expect(m.guard.outages).toBe(1);
    }
  });

  it('Redis hung (SIGSTOP): down within 1 s; resumed: up again', async () => {
    for (const m of members) m.log.length = 0;
    const t0 = Date.now();
    r.pause();
    try {
      await until(() => members.every((m) => !m.health.isUp()), 1000);
      expect(Date.now() - t0).toBeLessThan(1000);
      for (const m of members) expect(m.log).toEqual(['pause:fleet', 'pull']);
    } finally {
      r.resume();
    }
    await until(() => members.every((m) => m.health.isUp()), 5000);
    for (const m of members) expect(m.log).toEqual(['pause:fleet', 'pull', 'resume:fleet', 'up']);
  });
});
