/**
 * Two fleet members assembled by `joinFleet` on a real Redis: they split the markets and the
 * heartbeat; Redis killed: both fail closed within 1 s (the holder still heartbeats), Redis back
 * (empty): every market is quotable again on exactly one member; a kill trip on one member reaches
 * the other within 2 s, a member joining later is told before it quotes, and leaving empties the
 * membership.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveClock } from '../../../src/core/clock.ts';
import { fleetKeys } from '../../../src/fleet/fleet-keys.ts';
import type { FleetKillRecord } from '../../../src/fleet/kill.ts';
import { readLiveMembers } from '../../../src/fleet/market-leases.ts';
import { type FleetMember, joinFleet } from '../../../src/fleet/member.ts';
import { connectFleetRedis } from '../../../src/fleet/redis.ts';
import { memberPnl, publishMemberStatus } from '../../../src/fleet/member-status.ts';
import { ConfigError } from '../../../src/core/errors.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';

const ACCOUNT = '0x00000000000000000000000000000000000000e5';
const MARKETS = ['0xb1', '0xb2', '0xb3', '0xb4'];
const clock = new LiveClock();
let r: TestRedis;
interface M {
  fm: FleetMember;
  events: string[];
  kills: Array<{ rec: FleetKillRecord; at: number }>;
}
const ms: M[] = [];

async function join(name: string, ledgerId?: string, account = ACCOUNT): Promise<M> {
  const events: string[] = [];
  const kills: M['kills'] = [];
  const fm = await joinFleet({
    redisUrl: r.url,
    account,
    member: name,
    ...(ledgerId !== undefined ? { ledgerId } : {}),
    clock,
    markets: MARKETS,
    onKill: (rec) => kills.push({ rec, at: Date.now() }),
    pauseTarget: { pause: (w) => events.push(`pause:${w}`), resume: (w) => events.push(`resume:${w}`) },
    onDown: () => events.push('down'),
    onUp: () => events.push('up'),
    onHeartbeatLease: (held) => events.push(held ? 'hb' : 'hb-lost'),
  });
  const m = { fm, events, kills };
  ms.push(m);
  return m;
}

async function until(cond: () => boolean, timeoutMs: number): Promise<number> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((res) => setTimeout(res, 10));
  }
  return Date.now() - t0;
}
const split = (members: M[]) =>
  MARKETS.every((x) => members.filter((m) => m.fm.quotable(x)).length === 1) &&
  members.every((m) => m.fm.status().markets.length <= Math.ceil(MARKETS.length / members.length));

beforeAll(async () => {
  r = await startRedis();
});
afterAll(async () => {
  for (const m of ms) await m.fm.leave();
  await r?.stop();
});

describe('a fleet member (joinFleet)', () => {
  it('two members split the markets and the heartbeat', async () => {
    const [a, b] = [await join('a'), await join('b')];
    await until(() => split([a, b]) && [a, b].filter((m) => m.fm.shouldBeat()).length === 1, 10_000);
    const holder = [a, b].find((m) => m.fm.shouldBeat())!;
    expect(holder.events).toContain('hb');
    for (const m of [a, b]) {
      expect(m.fm.canPlace()).toBe(true);
      expect(m.fm.status().markets.length).toBe(2);
      expect(m.fm.status().liveMembers).toEqual(['a', 'b']);
    }
  });

  it('Redis killed: both fail closed within 1 s and the holder still heartbeats; back: quoting resumes', async () => {
    const [a, b] = ms as [M, M];
    const holder = [a, b].find((m) => m.fm.shouldBeat())!;
    const t0 = Date.now();
    await r.kill();
    await until(() => a.events.includes('down') && b.events.includes('down'), 1000);
    expect(Date.now() - t0).toBeLessThan(1000);
    for (const m of [a, b]) {
      expect(m.events.filter((e) => e.startsWith('pause') || e === 'down')).toEqual(['pause:fleet', 'down']);
      expect(m.fm.canPlace()).toBe(false);
      for (const x of MARKETS) expect(m.fm.quotable(x)).toBe(false);
    }
    await new Promise((res) => setTimeout(res, 3000));
    expect(holder.fm.shouldBeat()).toBe(true);
    await r.restart();
    await until(() => a.events.includes('up') && b.events.includes('up'), 5000);
    await until(() => split([a, b]), 15_000);
    expect([a, b].filter((m) => m.fm.shouldBeat())).toHaveLength(1);
  });

  it('a kill trip on one member reaches the other within 2 s; a late joiner is told at once; leaving empties the fleet', async () => {
    const [a, b] = ms as [M, M];
    const t0 = Date.now();
    await a.fm.trip('loss limit');
    await until(() => a.kills.length === 1 && b.kills.length === 1, 2000);
    expect(b.kills[0]!.at - t0).toBeLessThan(2000);
    expect(b.kills[0]!.rec).toMatchObject({ reason: 'loss limit', by: 'a' });
    for (const m of [a, b]) {
      expect(m.fm.canPlace()).toBe(false);
      for (const x of MARKETS) expect(m.fm.quotable(x)).toBe(false);
    }
    const c = await join('c');
    expect(c.kills).toHaveLength(1);
    expect(c.fm.canPlace()).toBe(false);
    for (const m of [a, b, c]) await m.fm.leave();
    const admin = await connectFleetRedis(r.url);
    try {
      expect(await readLiveMembers(admin, fleetKeys(ACCOUNT))).toEqual([]);
    } finally {
      admin.disconnect();
    }
  });

  it("refuses a second daemon under a live member's name (another data dir's ledger id), before it takes anything; the same data dir restarted takes its place (trial 14 F1)", async () => {
    const account = '0x00000000000000000000000000000000000000e6';
    const first = await join('dup', 'ledger-1', account);
    await until(() => first.fm.status().markets.length === MARKETS.length, 10_000);
    // the daemon's status record (src/cli/run-fleet-status.ts publishes it every 2 s)
    const keys = fleetKeys(account);
    const rec = (ledger: string) => ({
      member: 'dup',
      markets: first.fm.status().markets,
      openOrders: 0,
      fills: 0,
      pnl: memberPnl({ realized: 0, unrealized: 0, fees: 0, rewards: 0 }),
      budgets: {},
      heartbeat: false,
      ledger,
      at: Date.now(),
    });
    await publishMemberStatus(first.fm.redis, keys, rec('ledger-1'), 6000);
    const admin = await connectFleetRedis(r.url);
    try {
      const before = await readLiveMembers(admin, keys);
      await expect(join('dup', 'ledger-2', account)).rejects.toThrow(/fleet\.member.*a live fleet member named dup/);
      await expect(join('dup', 'ledger-2', account)).rejects.toBeInstanceOf(ConfigError);
      // nothing taken: the membership and the first member's markets are as they were
      expect(await readLiveMembers(admin, keys)).toEqual(before);
      expect(first.fm.status().markets.length).toBe(MARKETS.length);
      // the same data dir (its ledger id), restarted while its old record lives: joins
      const again = await join('dup', 'ledger-1', account);
      expect(again.fm.status().ledger).toBe('ledger-1');
      await again.fm.leave();
    } finally {
      admin.disconnect();
      await first.fm.leave();
    }
  });
});
