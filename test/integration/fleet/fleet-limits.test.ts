/**
 * The account limits a fleet runs with (src/fleet/fleet-limits.ts) over a real Redis: a member
 * alone records its limits; with another member live, the same values are accepted and different
 * ones refused (nothing written); once the others are dead, new values are recorded. The markets
 * are checked the same way. After the record is lost (a Redis restarted empty), a live member's
 * keeper records it again and a joiner waits for that before it is checked (findings 2 F15).
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fleetKeys } from '../../../src/fleet/fleet-keys.ts';
import { LiveClock } from '../../../src/core/clock.ts';
import { checkFleetLimits, FleetLimitsKeeper } from '../../../src/fleet/fleet-limits.ts';
import { connectFleetRedis } from '../../../src/fleet/redis.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';

let r: TestRedis;
let redis: Redis;
beforeAll(async () => {
  r = await startRedis();
  redis = await connectFleetRedis(r.url);
});
afterAll(async () => {
  redis?.disconnect();
  await r?.stop();
});

const keys = fleetKeys('0x00000000000000000000000000000000000000f1');
const L = { maxNotionalGlobal: 2_000_000_000, maxOpenOrdersGlobal: 200, maxLoss: 100_000_000 };

async function seen(member: string, agoMs: number): Promise<void> {
  const [s, us] = await redis.time();
  await redis.zadd(keys.members, Number(s) * 1000 + Math.floor(Number(us) / 1000) - agoMs, member);
}

describe('checkFleetLimits', () => {
  it('records alone, accepts the same, refuses others while a member is live, records anew once it is dead', async () => {
    await seen('a', 0);
    expect(await checkFleetLimits(redis, keys, 'a', L)).toEqual([]);
    expect(await redis.hgetall(keys.riskLimits)).toEqual({
      maxNotionalGlobal: '2000000000',
      maxOpenOrdersGlobal: '200',
      maxLoss: '100000000',
      markets: '',
      maxDailyLoss: '0',
    });
    await seen('b', 0);
    expect(await checkFleetLimits(redis, keys, 'b', L)).toEqual([]);
    const other = { ...L, maxOpenOrdersGlobal: 300, maxLoss: 50_000_000 };
    expect(await checkFleetLimits(redis, keys, 'b', other)).toEqual([
      { key: 'maxOpenOrdersGlobal', fleet: '200', mine: 300 },
      { key: 'maxLoss', fleet: '100000000', mine: 50_000_000 },
    ]);
    expect((await redis.hgetall(keys.riskLimits)).maxOpenOrdersGlobal).toBe('200'); // nothing written
    // 'a' dead (unseen for 5 s): 'b' is alone and records its values
    await seen('a', 5_000);
    expect(await checkFleetLimits(redis, keys, 'b', other)).toEqual([]);
    expect((await redis.hgetall(keys.riskLimits)).maxOpenOrdersGlobal).toBe('300');
  });

  it("the daily loss limit is the fleet's too; a record of a version without it reads as off", async () => {
    const k = fleetKeys('0x00000000000000000000000000000000000000f7');
    const at = async (member: string) => {
      const [s, us] = await redis.time();
      await redis.zadd(k.members, Number(s) * 1000 + Math.floor(Number(us) / 1000), member);
    };
    await at('a');
    expect(await checkFleetLimits(redis, k, 'a', { ...L, maxDailyLoss: 25_000_000 })).toEqual([]);
    await at('b');
    expect(await checkFleetLimits(redis, k, 'b', L)).toEqual([{ key: 'maxDailyLoss', fleet: '25000000', mine: 0 }]);
    expect(await checkFleetLimits(redis, k, 'b', { ...L, maxDailyLoss: 25_000_000 })).toEqual([]);
    // a member alone records its limits whole: no field of an earlier record stays
    await redis.hset(k.riskLimits, 'stale', 'x');
    await redis.zrem(k.members, 'b');
    expect(await checkFleetLimits(redis, k, 'a', { ...L, maxDailyLoss: 25_000_000 })).toEqual([]);
    expect((await redis.hgetall(k.riskLimits)).stale).toBeUndefined();
    await at('b');
    // a record written by an older mmkit (no maxDailyLoss field): the same as off
    await redis.hdel(k.riskLimits, 'maxDailyLoss');
    expect(await checkFleetLimits(redis, k, 'b', L)).toEqual([]);
    expect(await checkFleetLimits(redis, k, 'b', { ...L, maxDailyLoss: 1 })).toEqual([
      { key: 'maxDailyLoss', fleet: '0', mine: 1 },
    ]);
  });
});

describe('the fleet limits after Redis lost them (F15)', () => {
  const k2 = fleetKeys('0x00000000000000000000000000000000000000f2');
  const M = ['0xBB', '0xaa'];
  const mine = { ...L, markets: M };
  const live = async (member: string, keys = k2) => {
    const [s, us] = await redis.time();
    await redis.zadd(keys.members, Number(s) * 1000 + Math.floor(Number(us) / 1000), member);
  };

  it("a live member's keeper records them again once lost, and a newcomer with other caps is refused", async () => {
    await live('a');
    expect(await checkFleetLimits(redis, k2, 'a', mine)).toEqual([]);
    expect(await redis.hget(k2.riskLimits, 'markets')).toBe('0xaa,0xbb');
    let rewritten = 0;
    const keeper = new FleetLimitsKeeper({
      redis,
      keys: k2,
      member: 'a',
      limits: mine,
      clock: new LiveClock(),
      everyMs: 200,
      onRewritten: () => rewritten++,
    });
    keeper.start();
    try {
      await redis.flushall(); // what a Redis restarted without persistence holds
      await new Promise((res) => setTimeout(res, 500));
      expect(rewritten).toBeGreaterThan(0);
      expect(await redis.hget(k2.riskLimits, 'maxOpenOrdersGlobal')).toBe('200');
      // the keeper keeps the member in the membership too
      expect(await redis.zscore(k2.members, 'a')).not.toBeNull();
      await live('c');
      expect(await checkFleetLimits(redis, k2, 'c', { ...mine, maxOpenOrdersGlobal: 300 })).toEqual([
        { key: 'maxOpenOrdersGlobal', fleet: '200', mine: 300 },
      ]);
      expect(await redis.hget(k2.riskLimits, 'maxOpenOrdersGlobal')).toBe('200');
    } finally {
      keeper.stop();
    }
  });

  it('a joiner that finds live members but no record waits for theirs, then is checked', async () => {
    await redis.flushall();
    await live('a');
    const keeper = new FleetLimitsKeeper({ redis, keys: k2, member: 'a', limits: mine, clock: new LiveClock() });
    // the live member re-records 600 ms after the joiner came
    const later = setTimeout(() => void keeper.round(), 600);
    await live('c');
    const t0 = Date.now();
    const bad = await checkFleetLimits(redis, k2, 'c', { ...mine, maxLoss: 1 });
    clearTimeout(later);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(500);
    expect(bad).toEqual([{ key: 'maxLoss', fleet: '100000000', mine: 1 }]);
    expect(await redis.hget(k2.riskLimits, 'maxLoss')).toBe('100000000');
  });

  it('members joining together on a fresh fleet: the first records after the wait, the second is checked', async () => {
    await redis.flushall();
    await live('a');
    await live('b');
    const [ra, rb] = await Promise.all([
      checkFleetLimits(redis, k2, 'a', mine, { waitMs: 300 }),
      checkFleetLimits(redis, k2, 'b', { ...mine, markets: ['0xaa'] }, { waitMs: 300 }),
    ]);
    const all = [...ra, ...rb];
    expect(all).toHaveLength(1);
    expect(all[0]?.key).toBe('markets');
  });

  it('refuses another market list while a member is live (any order and case is the same list)', async () => {
    await redis.flushall();
    await live('a');
    expect(await checkFleetLimits(redis, k2, 'a', mine)).toEqual([]);
    await live('b');
    expect(await checkFleetLimits(redis, k2, 'b', { ...mine, markets: ['0xAA', '0xbb'] })).toEqual([]);
    expect(await checkFleetLimits(redis, k2, 'b', { ...mine, markets: ['0xaa', '0xcc'] })).toEqual([
      { key: 'markets', fleet: '0xaa,0xbb', mine: '0xaa,0xcc' },
    ]);
  });
});
