/**
 * The members' status records on a real Redis: two members joined by `joinFleet` publish theirs
 * (src/cli/run-fleet-status.ts startRunFleetStatus); `readFleetStatus` (what `mmkit fleet status` prints)
 * lists both alive with the markets each holds (together every market, once), their PnL and the
 * exact total, the heartbeat holder and the kill flag; a member that stops publishing without
 * leaving drops its record within its ttl; a stopped publisher deletes its record at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveClock } from '../../../src/core/clock.ts';
import { readFleetStatus } from '../../../src/cli/fleet-status.ts';
import { startRunFleetStatus } from '../../../src/cli/run-fleet-status.ts';
import { fleetKeys } from '../../../src/fleet/fleet-keys.ts';
import { tripFleetKill } from '../../../src/fleet/kill.ts';
import { type FleetMember, joinFleet } from '../../../src/fleet/member.ts';
import { memberStatusKey } from '../../../src/fleet/member-status.ts';
import { connectFleetRedis } from '../../../src/fleet/redis.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';

const ACCOUNT = '0x00000000000000000000000000000000000000f7';
const MARKETS = ['0xc1', '0xc2', '0xc3', '0xc4'];
const clock = new LiveClock();
let r: TestRedis;
const members: FleetMember[] = [];

async function join(name: string): Promise<FleetMember> {
  const fm = await joinFleet({
    redisUrl: r.url,
    account: ACCOUNT,
    member: name,
    clock,
    markets: MARKETS,
    onKill: () => {},
  });
  members.push(fm);
  return fm;
}

async function until(cond: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
  const t0 = Date.now();
  while (!(await cond())) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((res) => setTimeout(res, 25));
  }
}

beforeAll(async () => {
  r = await startRedis();
});
afterAll(async () => {
  for (const m of members) await m.leave();
  await r?.stop();
});

describe('fleet member status records', () => {
  it('are published, read back with the exact total, and go away with their member', async () => {
    const a = await join('alpha');
    const b = await join('beta');
    const stopA = await startRunFleetStatus(a, {
      clock,
      everyMs: 100,
      figures: () => ({
        openOrders: 4,
        fills: 2,
        pnl: { realized: 1_500_000, unrealized: -250_000, fees: 10_001, rewards: 3 },
      }),
      budgets: { names: () => ['post_order'], ruleState: () => ({ used: 7, limit: 60 }) as never },
    });
    const stopB = await startRunFleetStatus(b, {
      clock,
      everyMs: 100,
      figures: () => ({
        openOrders: 0,
        fills: 0,
        pnl: { realized: -1_000_000, unrealized: 100_000, fees: 0, rewards: 0 },
      }),
    });
    const redis = await connectFleetRedis(r.url);
    try {
      // the markets split between the two members, and both records there
      await until(async () => {
        const s = await readFleetStatus(redis, ACCOUNT);
        const held = s.records.flatMap((x) => x.markets).sort();
        return s.records.length === 2 && held.join() === MARKETS.join();
      }, 15_000);
      const s = await readFleetStatus(redis, ACCOUNT);
      expect(s.members).toEqual(['alpha', 'beta']);
      const alpha = s.records.find((x) => x.member === 'alpha')!;
      expect(alpha).toMatchObject({
        openOrders: 4,
        fills: 2,
        pnl: { realized: '1.5', unrealized: '-0.25', fees: '0.010001', rewards: '0.000003', total: '1.240002' },
        budgets: { post_order: { used: 7, limit: 60 } },
      });
      // exact decimal total: 1.240002 + (-0.9)
      expect(s.total).toEqual({
        realized: '0.5',
        unrealized: '-0.15',
        fees: '0.010001',
        rewards: '0.000003',
        total: '0.340002',
      });
      expect(s.budgets).toEqual({ post_order: { used: 7, limit: 60 } });
      expect(['alpha', 'beta']).toContain(s.heartbeat?.holder);
      expect(s.records.filter((x) => x.heartbeat).map((x) => x.member)).toEqual([s.heartbeat?.holder]);
      expect(s.kill).toBeNull();

      await tripFleetKill(redis, fleetKeys(ACCOUNT), { reason: 'test', by: 'cli:t', at: 1 });
      expect((await readFleetStatus(redis, ACCOUNT)).kill).toMatchObject({ reason: 'test', by: 'cli:t' });

      // a stopped publisher deletes its record at once
      await stopB();
      expect(await redis.get(memberStatusKey(fleetKeys(ACCOUNT), 'beta'))).toBeNull();
      // a silent one (no delete: a kill -9) drops out within its ttl (3 periods)
      await stopA();
      const keys = fleetKeys(ACCOUNT);
      await redis.set(
        memberStatusKey(keys, 'alpha'),
        (await redis.get(memberStatusKey(keys, 'alpha'))) ?? '{}',
        'PX',
        300,
      );
      const t0 = Date.now();
      await until(async () => (await redis.get(memberStatusKey(keys, 'alpha'))) === null, 2000);
      expect(Date.now() - t0).toBeLessThan(1000);
    } finally {
      redis.disconnect();
    }
  }, 60_000);
});
