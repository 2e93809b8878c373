/**
 * The fleet's heartbeat chain on a real Redis (src/fleet/heartbeat-chain.ts, through joinFleet):
 * the heartbeat lease holder records the venue's ids, fenced by its lease; a member taking the
 * lease over reads the last id to go on from it; a former holder's late write (a smaller fence) is
 * refused, as is a write by a member that does not hold the lease.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveClock } from '../../../src/core/clock.ts';
import { ValidationError } from '../../../src/core/errors.ts';
import { fleetKeys } from '../../../src/fleet/fleet-keys.ts';
import { HeartbeatChain } from '../../../src/fleet/heartbeat-chain.ts';
import { type FleetMember, joinFleet } from '../../../src/fleet/member.ts';
import { connectFleetRedis } from '../../../src/fleet/redis.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';

const ACCOUNT = '0x00000000000000000000000000000000000000c7';
const keys = fleetKeys(ACCOUNT);
let r: TestRedis;
const members: FleetMember[] = [];

beforeAll(async () => {
  r = await startRedis();
});
afterAll(async () => {
  for (const m of members) await m.leave().catch(() => undefined);
  await r?.stop();
});

async function join(name: string): Promise<FleetMember> {
  const fm = await joinFleet({
    redisUrl: r.url,
    account: ACCOUNT,
    member: name,
    clock: new LiveClock(),
    markets: ['0xc1'],
    onKill: () => undefined,
  });
  members.push(fm);
  return fm;
}

async function until(cond: () => boolean, timeoutMs: number): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((res) => setTimeout(res, 10));
  }
}

describe('the heartbeat chain', () => {
  it('a taker goes on from the holder’s last id; late and non-holder writes are refused', async () => {
    const a = await join('a');
    await until(() => a.status().heartbeat.holder, 3_000);
    const b = await join('b');
    expect(await a.lastHeartbeatId()).toBeNull();
    expect(await a.recordHeartbeat('hb-1')).toBe(true);
    expect(await a.recordHeartbeat('hb-2')).toBe(true);
    expect(await b.recordHeartbeat('hb-b')).toBe(false); // not the holder
    expect(await b.lastHeartbeatId()).toBe('hb-2');
    const oldFence = a.status().heartbeat.fence;

    await a.leave(); // releases the lease: b takes it over
    await until(() => b.status().heartbeat.holder, 3_000);
    expect(b.status().heartbeat.fence).toBeGreaterThan(oldFence);
    expect(await b.lastHeartbeatId()).toBe('hb-2');
    expect(await b.recordHeartbeat('hb-3')).toBe(true);

    // a former holder still beating (inside its self-fence, or riding an outage) writes late
    const c = await connectFleetRedis(r.url);
    try {
      const chain = new HeartbeatChain(c, keys.heartbeatState);
      expect(await chain.record('hb-stale', oldFence)).toBe(false);
      expect(await chain.last()).toEqual({ id: 'hb-3', fence: b.status().heartbeat.fence });
      await expect(chain.record('', 5)).rejects.toBeInstanceOf(ValidationError);
      await expect(chain.record('x', 0)).rejects.toBeInstanceOf(ValidationError);
      expect((await chain.last())?.id).toBe('hb-3');
    } finally {
      c.disconnect();
    }
  }, 20_000);

  it('the record expires (an old chain is over: a taker starts a new one)', async () => {
    const c = await connectFleetRedis(r.url);
    try {
      const chain = new HeartbeatChain(c, `${keys.prefix}hb:test-expiry`, { ttlMs: 100 });
      expect(await chain.record('x', 7)).toBe(true);
      expect(await chain.last()).toEqual({ id: 'x', fence: 7 });
      await new Promise((res) => setTimeout(res, 250));
      expect(await chain.last()).toBeNull();
    } finally {
      c.disconnect();
    }
  });
});
