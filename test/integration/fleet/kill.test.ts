/**
 * The fleet kill switch on a real Redis: a trip reaches every member well within 2 s through
 * pub/sub, within about 0.5 s through the poll when the message is missed, stays in force for a
 * member that starts later, keeps the first trip's record, and is re-armed only by clearing it.
 */
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LiveClock } from '../../../src/core/clock.ts';
import { ValidationError } from '../../../src/core/errors.ts';
import { fleetKeys } from '../../../src/fleet/fleet-keys.ts';
import {
  clearFleetKill,
  FleetKillWatch,
  type FleetKillRecord,
  readFleetKill,
  tripFleetKill,
} from '../../../src/fleet/kill.ts';
import { connectFleetRedis } from '../../../src/fleet/redis.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';

const keys = fleetKeys('0x00000000000000000000000000000000000000b2');
const clock = new LiveClock();
let r: TestRedis;
let admin: Redis;
const clients: Redis[] = [];
const watches: FleetKillWatch[] = [];

beforeAll(async () => {
  r = await startRedis();
  admin = await connectFleetRedis(r.url);
});
afterEach(async () => {
  for (const w of watches.splice(0)) w.stop();
  await clearFleetKill(admin, keys);
});
afterAll(async () => {
  for (const c of clients) c.disconnect();
  admin?.disconnect();
  await r?.stop();
});

async function member(
  pollMs?: number,
): Promise<{ w: FleetKillWatch; seen: Array<{ rec: FleetKillRecord; at: number }> }> {
  const c = await connectFleetRedis(r.url);
  clients.push(c);
  const seen: Array<{ rec: FleetKillRecord; at: number }> = [];
  const w = new FleetKillWatch({
    redis: c,
    keys,
    clock,
    onTrip: (rec) => seen.push({ rec, at: Date.now() }),
    ...(pollMs !== undefined ? { pollMs } : {}),
  });
  watches.push(w);
  await w.start();
  return { w, seen };
}

async function until(cond: () => boolean, timeoutMs: number): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((res) => setTimeout(res, 5));
  }
}

describe('the fleet kill switch', () => {
  it('reaches every member within 2 s (pub/sub alone: their polls are a minute apart), once each', async () => {
    const ms = await Promise.all([member(60_000), member(60_000), member(60_000)]);
    const t0 = Date.now();
    await tripFleetKill(admin, keys, { reason: 'mmkit kill --fleet', by: 'cli:test', at: t0 });
    await until(() => ms.every((m) => m.seen.length > 0), 2000);
    for (const m of ms) {
      expect(m.seen[0]!.at - t0).toBeLessThan(2000);
      expect(m.seen[0]!.rec).toEqual({ reason: 'mmkit kill --fleet', by: 'cli:test', at: t0 });
      expect(m.w.tripped()?.reason).toBe('mmkit kill --fleet');
    }
    await tripFleetKill(admin, keys, { reason: 'again', by: 'b', at: t0 + 1 });
    await new Promise((res) => setTimeout(res, 700));
    for (const m of ms) expect(m.seen).toHaveLength(1);
  });

  it('is seen by the poll within about 0.5 s when the message is missed', async () => {
    const m = await member();
    const t0 = Date.now();
    // the key without the PUBLISH: what a member whose subscription was down would face
    await admin.set(keys.kill, JSON.stringify({ reason: 'risk: loss limit', by: 'a', at: t0 }));
    await until(() => m.seen.length > 0, 2000);
    expect(m.seen[0]!.at - t0).toBeLessThan(1000);
    expect(m.seen[0]!.rec.reason).toBe('risk: loss limit');
  });

  it('stays in force: a member started after the trip sees it before start() resolves; the first record wins', async () => {
    const first = await tripFleetKill(admin, keys, { reason: 'first', by: 'a', at: 1 });
    const second = await tripFleetKill(admin, keys, { reason: 'second', by: 'b', at: 2 });
    expect(first.reason).toBe('first');
    expect(second.reason).toBe('first');
    const m = await member();
    expect(m.seen.map((x) => x.rec.reason)).toEqual(['first']);
    expect(await clearFleetKill(admin, keys)).toBe(true);
    expect(await readFleetKill(admin, keys)).toBeNull();
    const late = await member();
    expect(late.seen).toEqual([]);
  });

  it('an unreadable record still counts as a trip; an empty reason is refused with nothing written', async () => {
    await expect(tripFleetKill(admin, keys, { reason: ' ', by: 'a', at: 1 })).rejects.toThrow(ValidationError);
    expect(await readFleetKill(admin, keys)).toBeNull();
    await admin.set(keys.kill, 'garbage');
    const m = await member();
    expect(m.seen[0]?.rec.reason).toMatch(/unreadable/);
  });

  it('a member that was cut off from Redis sees a trip made meanwhile once it is back', async () => {
    const m = await member();
    await r.kill();
    await r.restart();
    // Redis came back empty; a trip is made after the restart, while the member may still reconnect
    await tripFleetKill(admin, keys, { reason: 'after restart', by: 'a', at: 3 }).catch(async () => {
      await until(() => admin.status === 'ready', 5000);
      await tripFleetKill(admin, keys, { reason: 'after restart', by: 'a', at: 3 });
    });
    await until(() => m.seen.length > 0, 3000);
    expect(m.seen[0]!.rec.reason).toBe('after restart');
  });
});
