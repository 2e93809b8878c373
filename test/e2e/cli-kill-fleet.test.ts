/**
 * `mmkit kill --fleet` as a user runs it, against a real Redis: it trips every member of the fleet
 * (members here are `joinFleet` in the test process; a daemon exits when told, as they do), waits
 * until none is left alive, and says so; a member that does not stop makes it exit 1 and is named,
 * and so does a daemon process of this machine that has not exited once its member left;
 * `--rearm` clears the trip; without fleet.redisUrl it is a usage error, and with an unreachable
 * Redis exit 3 without printing the URL's password. Without a wallet on the machine it points to
 * `--account` (findings 2 F11; `fleet status` too).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveClock } from '../../src/core/clock.ts';
import { fleetKeys } from '../../src/fleet/fleet-keys.ts';
import { readFleetKill } from '../../src/fleet/kill.ts';
import { type FleetMember, joinFleet } from '../../src/fleet/member.ts';
import { memberPnl, publishMemberStatus } from '../../src/fleet/member-status.ts';
import { connectFleetRedis } from '../../src/fleet/redis.ts';
import { startRedis, type TestRedis } from '../support/redis.ts';
import { runMmkit } from './support/cli.ts';

const ACCOUNT = '0x00000000000000000000000000000000000000f6';
/** (a fleet of its own: the test before leaves a member that never stops in ACCOUNT's) */
const HUNG_ACCOUNT = '0x00000000000000000000000000000000000000f8';
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

async function member(name: string, obey: boolean, account = ACCOUNT): Promise<{ m: FleetMember; killedAt: number[] }> {
  const killedAt: number[] = [];
  const m: FleetMember = await joinFleet({
    redisUrl: r.url,
    account,
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

  it('waits for the daemon processes of this machine after their members left: exit 1 naming a hung one, 0 once it exited (trial 14 F7)', async () => {
    const redis = await connectFleetRedis(r.url);
    const keys = fleetKeys(HUNG_ACCOUNT);
    const daemon = (name: string, pid: number) =>
      publishMemberStatus(
        redis,
        keys,
        {
          member: name,
          markets: [],
          openOrders: 0,
          fills: 0,
          pnl: memberPnl({ realized: 0, unrealized: 0, fees: 0, rewards: 0 }),
          budgets: {},
          heartbeat: false,
          host: hostname(),
          pid,
          at: Date.now(),
        },
        60_000,
      );
    // a member that leaves when told, whose daemon process never exits (a shutdown that hangs)
    const hung = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      await member('hangs', true, HUNG_ACCOUNT);
      await daemon('hangs', hung.pid!);
      const res = await runMmkit(['kill', '--fleet', '--account', HUNG_ACCOUNT, '--timeout', '2s'], {
        env: { MMKIT_REDIS_URL: r.url },
      });
      expect(res.code, res.err).toBe(1);
      expect(res.out).toContain('every member has cancelled its orders and left the fleet, but 1 daemon process(es)');
      expect(res.out).toContain(`hangs (pid ${hung.pid})`);
    } finally {
      hung.kill('SIGKILL');
    }
    expect(
      (await runMmkit(['kill', '--fleet', '--account', HUNG_ACCOUNT, '--rearm'], { env: { MMKIT_REDIS_URL: r.url } }))
        .code,
    ).toBe(0);
    // one that exits 1.5 s after it left: waited for, exit 0
    const slow = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 1500)'], { stdio: 'ignore' });
    let exitedAt = 0;
    slow.on('exit', () => {
      exitedAt = Date.now();
    });
    await member('slow', true, HUNG_ACCOUNT);
    await daemon('slow', slow.pid!);
    const res = await runMmkit(['kill', '--fleet', '--account', HUNG_ACCOUNT, '--timeout', '20s', '--json'], {
      env: { MMKIT_REDIS_URL: r.url },
    });
    const doneAt = Date.now();
    expect(res.code, res.err).toBe(0);
    expect(exitedAt).toBeGreaterThan(0);
    expect(exitedAt).toBeLessThanOrEqual(doneAt);
    const out = JSON.parse(res.out) as { liveMembers: string[]; processesRunning: unknown[]; otherMachines: string[] };
    expect(out).toMatchObject({ liveMembers: [], processesRunning: [], otherMachines: [] });
    expect(
      (await runMmkit(['kill', '--fleet', '--account', HUNG_ACCOUNT, '--rearm'], { env: { MMKIT_REDIS_URL: r.url } }))
        .code,
    ).toBe(0);
    redis.disconnect();
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
