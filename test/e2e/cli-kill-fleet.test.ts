/**
 * `mmkit kill --fleet` as a user runs it, against a real Redis: it trips every member of the fleet
 * (members here are `joinFleet` in the test process; a daemon exits when told, as they do), waits
 * until none is left alive, and says so; a member that does not stop makes it exit 1 and is named;
 * `--rearm` clears the trip; without fleet.redisUrl it is a usage error, and with an unreachable
 * Redis exit 3 without printing the URL's password. Without a wallet on the machine it points to
 * `--account` (findings 2 F11; `fleet status` too).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveClock } from '../../src/core/clock.ts';
import { fleetKeys } from '../../src/fleet/fleet-keys.ts';
import { readFleetKill } from '../../src/fleet/kill.ts';
import { type FleetMember, joinFleet } from '../../src/fleet/member.ts';
import { connectFleetRedis } from '../../src/fleet/redis.ts';
import { startRedis, type TestRedis } from '../support/redis.ts';
import { runMmkit } from './support/cli.ts';

const ACCOUNT = '0x00000000000000000000000000000000000000f6';
const clock = new LiveClock();
let r: TestRedis;
const members: FleetMember[] = [];
beforeAll(async () => {
  r = await startRedis();
});
afterAll(async () => {
  for (const m of members) await m.leave();
  await r?.stop();
});

async function member(name: string, obey: boolean): Promise<{ m: FleetMember; killedAt: number[] }> {
  const killedAt: number[] = [];
  const m: FleetMember = await joinFleet({
    redisUrl: r.url,
    account: ACCOUNT,
    member: name,
    clock,
    markets: ['0xc1'],
    onKill: () => {
      killedAt.push(Date.now());
      if (obey) void m.leave();
    },
  });
  members.push(m);
  return { m, killedAt };
}

describe('mmkit kill --fleet', () => {
  it('trips every member within 2 s and waits until none is left alive', async () => {
    const a = await member('a', true);
    const b = await member('b', true);
    const t0 = Date.now();
    const res = await runMmkit(
      ['kill', '--fleet', '--account', ACCOUNT, '--reason', 'e2e', '--timeout', '10s', '--json'],
      { env: { MMKIT_REDIS_URL: r.url } },
    );
    expect(res.code, res.err).toBe(0);
    const out = JSON.parse(res.out) as { tripped: { reason: string; by: string; at: number }; liveMembers: string[] };
    expect(out.tripped.reason).toBe('e2e');
    expect(out.tripped.by).toMatch(/^cli:/);
    expect(out.liveMembers).toEqual([]);
    for (const x of [a, b]) {
      expect(x.killedAt).toHaveLength(1);
      expect(x.killedAt[0]! - out.tripped.at).toBeLessThan(2000);
      expect(x.killedAt[0]!).toBeGreaterThanOrEqual(t0);
    }
  });

  it('names a member that does not stop (exit 1); --rearm clears the trip', async () => {
    await member('stubborn', false);
    const res = await runMmkit(['kill', '--fleet', '--account', ACCOUNT, '--timeout', '1s'], {
      env: { MMKIT_REDIS_URL: r.url },
    });
    expect(res.code, res.err).toBe(1);
    expect(res.out).toMatch(/1 member\(s\) still alive .*stubborn/);
    const re = await runMmkit(['kill', '--fleet', '--account', ACCOUNT, '--rearm'], {
      env: { MMKIT_REDIS_URL: r.url },
    });
    expect(re.code, re.err).toBe(0);
    expect(re.out).toMatch(/re-armed/);
    const c = await connectFleetRedis(r.url);
    try {
      expect(await readFleetKill(c, fleetKeys(ACCOUNT))).toBeNull();
    } finally {
      c.disconnect();
    }
  });

  it('says the members cancelled and left (their processes exit moments later), not "no member left running"', async () => {
    const res = await runMmkit(
      ['kill', '--fleet', '--account', '0x00000000000000000000000000000000000000f7', '--reason', 'e2e'],
      { env: { MMKIT_REDIS_URL: r.url } },
    );
    expect(res.code, res.err).toBe(0);
    expect(res.out).toContain('every member has cancelled its orders and left the fleet');
    expect(res.out).not.toContain('no member left running');
  });

  it('on a machine without the wallet, kill --fleet and fleet status point to --account (exit 2)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mmkit-nowallet-'));
    for (const args of [
      ['kill', '--fleet', '--data-dir', dir],
      ['fleet', 'status', '--data-dir', dir],
    ]) {
      const res = await runMmkit(args, { env: { MMKIT_REDIS_URL: r.url } });
      expect(res.code, res.err).toBe(2);
      expect(res.err).toContain('no paper wallet');
      expect(res.err).toContain("give the fleet's address with --account 0x");
    }
  });

  it('is a usage error without fleet.redisUrl, and exit 3 (password not printed) when Redis is unreachable', async () => {
    const none = await runMmkit(['kill', '--fleet', '--account', ACCOUNT]);
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/fleet\.redisUrl/);
    const dead = await runMmkit(['kill', '--fleet', '--account', ACCOUNT], {
      env: { MMKIT_REDIS_URL: 'redis://:s3cretpw@127.0.0.1:1' },
    });
    expect(dead.code).toBe(3);
    expect(dead.err + dead.out).not.toContain('s3cretpw');
    const bad = await runMmkit(['kill', '--fleet', '--account', '0x12'], { env: { MMKIT_REDIS_URL: r.url } });
    expect(bad.code).toBe(2);
    const stray = await runMmkit(['kill', '--rearm']);
    expect(stray.code).toBe(2);
  });
});
