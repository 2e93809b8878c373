/**
 * The account limits a fleet runs with (src/fleet/fleet-limits.ts) over a real Redis: a member
 * alone records its limits; with another member live, the same values are accepted and different
 * ones refused (nothing written); once the others are dead, new values are recorded.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fleetKeys } from '../../../src/fleet/fleet-keys.ts';
import { checkFleetLimits } from '../../../src/fleet/fleet-limits.ts';
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
});
