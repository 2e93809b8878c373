/**
 * The account's risk limits shared by a fleet, on a real Redis: members asking for grants (one by
 * one or racing) never hold more than the caps together and get exactly what a reference model
 * grants; a bad ask changes nothing; a dead member's grant is reaped only after reapMs; the keeper
 * fits a grant to its usage; the summed PnL (a dead member's last value included) below -maxLoss
 * trips the fleet kill switch.
 */
import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LiveClock } from '../../../src/core/clock.ts';
import { ValidationError } from '../../../src/core/errors.ts';
import { formatFleetStatus, readFleetStatus } from '../../../src/cli/fleet-status.ts';
import { fleetKeys } from '../../../src/fleet/fleet-keys.ts';
import { FleetLossWatch, readFleetPnl, writeMemberDayPnl, writeMemberPnl } from '../../../src/fleet/fleet-loss.ts';
import { clearFleetKill, readFleetKill, tripFleetKill } from '../../../src/fleet/kill.ts';
import { connectFleetRedis } from '../../../src/fleet/redis.ts';
import { planAsk, type RiskAmounts, RiskGrants, RiskKeeper } from '../../../src/fleet/risk-reserve.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';

const ACCOUNT = '0x00000000000000000000000000000000000000c3';
const keys = fleetKeys(ACCOUNT);
const clock = new LiveClock();
const CAPS: RiskAmounts = { notional: 1_000_000_000, orders: 20 };
const MEMBERS = ['m-a', 'm-b', 'm-c'] as const;
let r: TestRedis;
let admin: Redis;
const conns: Redis[] = [];

beforeAll(async () => {
  r = await startRedis();
  admin = await connectFleetRedis(r.url);
  for (let i = 0; i < MEMBERS.length; i++) conns.push(await connectFleetRedis(r.url));
});
afterEach(async () => {
  await admin.del(keys.riskGrants, keys.riskShort, keys.pnl);
  await clearFleetKill(admin, keys);
});
afterAll(async () => {
  for (const c of conns) c.disconnect();
  admin?.disconnect();
  await r?.stop();
});

const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));

type Op =
  | { t: 'ask'; who: number; n: number; o: number }
  | { t: 'rel'; who: number }
  | { t: 'race'; asks: Array<{ who: number; n: number; o: number }> };

const askArb = fc.record({
  who: fc.integer({ min: 0, max: 2 }),
  n: fc.oneof(fc.integer({ min: 0, max: CAPS.notional + 10 }), fc.constantFrom(0, CAPS.notional)),
  o: fc.integer({ min: 0, max: CAPS.orders + 3 }),
});
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: askArb.map((a) => ({ t: 'ask' as const, ...a })) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 2 }).map((who) => ({ t: 'rel' as const, who })) },
  {
    weight: 3,
    arbitrary: fc
      .uniqueArray(askArb, { minLength: 2, maxLength: 3, selector: (a) => a.who })
      .map((asks) => ({ t: 'race' as const, asks })),
  },
);

async function stored(): Promise<Map<string, RiskAmounts>> {
  const out = new Map<string, RiskAmounts>();
  for (const g of await new RiskGrants(admin, keys, CAPS).read())
    out.set(g.member, { notional: g.notional, orders: g.orders });
  return out;
}

function total(m: Map<string, RiskAmounts>): RiskAmounts {
  let notional = 0;
  let orders = 0;
  for (const a of m.values()) {
    notional += a.notional;
    orders += a.orders;
  }
  return { notional, orders };
}

describe('risk grants', () => {
  it('one by one they equal the reference model; racing they never exceed the caps', async () => {
    const grants = conns.map((c) => new RiskGrants(c, keys, CAPS));
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 5, maxLength: 40 }), async (ops) => {
        await admin.del(keys.riskGrants);
        const model = new Map<string, RiskAmounts>();
        const grantOf = (who: number, n: number, o: number): RiskAmounts => {
          const others = total(new Map([...model].filter(([m]) => m !== MEMBERS[who])));
          return {
            notional: Math.max(0, Math.min(n, CAPS.notional - others.notional)),
            orders: Math.max(0, Math.min(o, CAPS.orders - others.orders)),
          };
        };
        for (const op of ops) {
          if (op.t === 'ask') {
            const want = grantOf(op.who, op.n, op.o);
            const { grant, reaped } = await grants[op.who]!.request(MEMBERS[op.who]!, { notional: op.n, orders: op.o });
            expect(reaped).toEqual([]);
            expect(grant).toEqual(want);
            model.set(MEMBERS[op.who]!, grant);
          } else if (op.t === 'rel') {
            await grants[op.who]!.release(MEMBERS[op.who]!);
            model.delete(MEMBERS[op.who]!);
          } else {
            const got = await Promise.all(
              op.asks.map((a) => grants[a.who]!.request(MEMBERS[a.who]!, { notional: a.n, orders: a.o })),
            );
            op.asks.forEach((a, i) => {
              const g = got[i]!.grant;
              expect(g.notional).toBeLessThanOrEqual(a.n);
              expect(g.orders).toBeLessThanOrEqual(a.o);
              model.set(MEMBERS[a.who]!, g);
            });
          }
          const s = await stored();
          expect(s).toEqual(model);
          const t = total(s);
          expect(t.notional).toBeLessThanOrEqual(CAPS.notional);
          expect(t.orders).toBeLessThanOrEqual(CAPS.orders);
        }
      }),
      { numRuns: 25 },
    );
  }, 60_000);

  it('refuses a bad ask or bad caps with nothing changed', async () => {
    const g = new RiskGrants(conns[0]!, keys, CAPS);
    await g.request('m-a', { notional: 5, orders: 1 });
    for (const bad of [
      { notional: -1, orders: 0 },
      { notional: 1.5, orders: 0 },
      { notional: 0, orders: Number.NaN },
      { notional: 2 ** 53, orders: 0 },
    ])
      await expect(g.request('m-a', bad)).rejects.toBeInstanceOf(ValidationError);
    await expect(g.request('bad name', { notional: 1, orders: 1 })).rejects.toBeInstanceOf(ValidationError);
    expect(() => new RiskGrants(conns[0]!, keys, { notional: -1, orders: 0 })).toThrow(ValidationError);
    expect(await stored()).toEqual(new Map([['m-a', { notional: 5, orders: 1 }]]));
  });

  it("reaps a dead member's grant only after reapMs", async () => {
    const a = new RiskGrants(conns[0]!, keys, CAPS, 600);
    const b = new RiskGrants(conns[1]!, keys, CAPS, 600);
    await a.request('m-a', CAPS);
    // a stops refreshing (dead); before reapMs, b gets nothing
    await sleep(200);
    const none = { notional: false, orders: false };
    expect(await b.request('m-b', CAPS)).toEqual({ grant: { notional: 0, orders: 0 }, reaped: [], othersShort: none });
    await sleep(600);
    expect(await b.request('m-b', CAPS)).toEqual({ grant: CAPS, reaped: ['m-a'], othersShort: none });
    expect([...(await stored()).keys()]).toEqual(['m-b']);
  });
});

describe('risk keeper', () => {
  it('asks for usage + headroom, shrinks when unused, and two keepers stay within the caps', async () => {
    const usage: RiskAmounts[] = [
      { notional: 0, orders: 0 },
      { notional: 0, orders: 0 },
    ];
    const keepers = [0, 1].map(
      (i) =>
        new RiskKeeper({
          grants: new RiskGrants(conns[i]!, keys, CAPS),
          member: MEMBERS[i]!,
          clock,
          usage: () => usage[i]!,
          liveMembers: () => 2,
          everyMs: 60_000,
        }),
    );
    expect(keepers[0]!.caps()).toEqual({ notional: 0, orders: 0 });
    await Promise.all(keepers.map((k) => k.start()));
    const head = planAsk({ notional: 0, orders: 0 }, CAPS, 2);
    expect(head).toEqual({ notional: 250_000_000, orders: 5 });
    expect(keepers[0]!.caps()).toEqual(head);
    // member 0 uses its grant up: it grows by the headroom each round, up to what member 1 leaves
    usage[0] = { notional: 250_000_000, orders: 5 };
    await keepers[0]!.round();
    expect(keepers[0]!.caps()).toEqual({ notional: 500_000_000, orders: 10 });
    usage[0] = { notional: 700_000_000, orders: 14 };
    await keepers[0]!.round();
    expect(keepers[0]!.caps()).toEqual({ notional: 750_000_000, orders: 15 });
    // member 1 cannot get past the caps
    usage[1] = { notional: 250_000_000, orders: 5 };
    await keepers[1]!.round();
    expect(keepers[1]!.caps()).toEqual({ notional: 250_000_000, orders: 5 });
    const t = total(await stored());
    expect(t.notional).toBeLessThanOrEqual(CAPS.notional);
    expect(t.orders).toBeLessThanOrEqual(CAPS.orders);
    // member 0's orders go away: it gives back all but the headroom, and member 1 can grow
    usage[0] = { notional: 0, orders: 0 };
    await keepers[0]!.round();
    expect(keepers[0]!.caps()).toEqual(head);
    await keepers[1]!.round();
    expect(keepers[1]!.caps()).toEqual({ notional: 500_000_000, orders: 10 });
    const same = keepers[1]!.caps();
    await keepers[1]!.round();
    expect(keepers[1]!.caps()).toBe(same); // unchanged grant: the same object (the gate memo's key)
    await Promise.all(keepers.map((k) => k.stop()));
    expect(keepers[0]!.caps()).toEqual({ notional: 0, orders: 0 });
    expect((await stored()).size).toBe(0);
  });

  it('a give-back asks from the usage after settleMs (orders approved under the larger grant counted)', async () => {
    let calls = 0;
    let u: RiskAmounts = { notional: 900_000_000, orders: 18 };
    const k = new RiskKeeper({
      grants: new RiskGrants(conns[0]!, keys, CAPS),
      member: 'm-s',
      clock,
      usage: () => {
        calls++;
        return u;
      },
      liveMembers: () => 1,
      everyMs: 60_000,
      settleMs: 100,
    });
    await k.start();
    expect(k.caps()).toEqual(CAPS);
    u = { notional: 0, orders: 0 };
    const round = k.round();
    await sleep(20);
    // enforced locally at once, before the ask
    expect(k.caps()).toEqual(planAsk(u, CAPS, 1));
    // an order the gate approved under the larger grant is tracked meanwhile
    u = { notional: 100_000_000, orders: 2 };
    await round;
    expect(calls).toBe(3);
    expect(k.caps()).toEqual(planAsk(u, CAPS, 1));
    expect((await stored()).get('m-s')).toEqual(planAsk(u, CAPS, 1));
    await k.stop();
  });

  it('pressed (the gate lacked global room), a member grows to its fair share without using it', async () => {
    const k = new RiskKeeper({
      grants: new RiskGrants(conns[0]!, keys, CAPS),
      member: 'm-p',
      clock,
      usage: () => ({ notional: 0, orders: 0 }),
      liveMembers: () => 2,
      everyMs: 60_000,
    });
    await k.start();
    expect(k.caps()).toEqual({ notional: 250_000_000, orders: 5 });
    k.press();
    await k.round();
    expect(k.caps()).toEqual({ notional: 500_000_000, orders: 10 });
    k.press();
    await k.round();
    expect(k.caps()).toEqual({ notional: 500_000_000, orders: 10 });
    // no longer pressed and unused: back to the headroom
    await k.round();
    expect(k.caps()).toEqual({ notional: 250_000_000, orders: 5 });
    await k.stop();
  });

  it('members above their fair share give back down to it when a member is short of room (a restart)', async () => {
    // b and c hold the whole open-orders cap (20) and use most of it; a (re)joins with nothing
    const usage: Record<'a' | 'b' | 'c', RiskAmounts> = {
      a: { notional: 0, orders: 0 },
      b: { notional: 500_000_000, orders: 10 },
      c: { notional: 300_000_000, orders: 6 },
    };
    const keeper = (m: 'a' | 'b' | 'c', i: number) =>
      new RiskKeeper({
        grants: new RiskGrants(conns[i]!, keys, CAPS),
        member: `m-${m}`,
        clock,
        usage: () => usage[m],
        liveMembers: () => 3,
        everyMs: 60_000,
        settleMs: 10,
      });
    const [a, b, c] = [keeper('a', 0), keeper('b', 1), keeper('c', 2)];
    const withinCaps = async () => {
      const t = total(await stored());
      expect(t.orders).toBeLessThanOrEqual(CAPS.orders);
      expect(t.notional).toBeLessThanOrEqual(CAPS.notional);
    };
    await b.start();
    await c.start();
    expect(b.caps().orders).toBe(14);
    expect(c.caps().orders).toBe(6);
    await a.start();
    expect(a.caps().orders).toBe(0);
    // a's gate lacks room: it asks for more and is cut below its fair share (ceil(20 / 3) = 7)
    a.press();
    await a.round();
    expect(a.caps().orders).toBe(0);
    expect(await admin.hget(keys.riskShort, 'm-a')).toMatch(/^\d+:[01]:1$/);
    // b learns it on its next ask, then gives back: its gate enforces the fair share (rounded down: 6)
    // at once, while the grant asked stays at its usage (the orders resting stay within the caps together)
    await b.round();
    await b.round();
    expect(b.caps().orders).toBe(6);
    expect((await stored()).get('m-b')?.orders).toBe(10);
    await withinCaps();
    // its gate cut its quotes to 6 orders: the stored grant follows the usage down
    usage.b = { notional: 300_000_000, orders: 6 };
    await b.round();
    expect((await stored()).get('m-b')?.orders).toBe(6);
    await c.round();
    await c.round();
    expect(c.caps().orders).toBeLessThanOrEqual(6);
    await withinCaps();
    // a gets room now, up to its fair share
    a.press();
    await a.round();
    expect(a.caps().orders).toBe(4);
    a.press();
    await a.round();
    expect(a.caps().orders).toBe(7);
    expect(a.caps().notional).toBe(333_333_334);
    await withinCaps();
    await Promise.all([a, b, c].map((k) => k.stop()));
    expect(await admin.hget(keys.riskShort, 'm-a')).toBeNull();
  });

  it('keeps the grant in force while Redis fails, and shrinks locally before asking', async () => {
    const c = await connectFleetRedis(r.url);
    const errors: unknown[] = [];
    let u: RiskAmounts = { notional: 600_000_000, orders: 10 };
    const k = new RiskKeeper({
      grants: new RiskGrants(c, keys, CAPS),
      member: 'm-x',
      clock,
      usage: () => u,
      liveMembers: () => 1,
      everyMs: 60_000,
      onError: (e) => errors.push(e),
    });
    await k.start();
    expect(k.caps()).toEqual(CAPS);
    c.disconnect();
    await k.round();
    expect(errors.length).toBe(1);
    expect(k.caps()).toEqual(CAPS); // a larger ask failed: the grant in force stays
    u = { notional: 0, orders: 0 };
    await k.round();
    // a smaller ask is adopted locally even though Redis did not answer (safe: less room)
    expect(k.caps()).toEqual(planAsk(u, CAPS, 1));
    await k.stop(false);
  });
});

/** The fleet has ledger `id` (a member's data directory): its PnL figure counts in the sum (src/fleet/fleet-loss.ts). */
const ledger = (id: string, member = id) => admin.hset(keys.ledgers, id, JSON.stringify({ member, at: 1, tokens: {} }));

describe('fleet loss limit', () => {
  beforeEach(async () => {
    for (const m of MEMBERS) await ledger(m);
  });
  afterEach(async () => {
    await admin.del(keys.ledgers);
  });

  it('sums every member (a dead one included) and trips the fleet kill below -maxLoss', async () => {
    // m-a lost 60 and died: its last value stays
    expect(await writeMemberPnl(conns[0]!, keys, 'm-a', -60_000_000)).toBe(-60_000_000);
    const tripped: string[] = [];
    let pnl = -30_000_000;
    const w = new FleetLossWatch({
      redis: conns[1]!,
      keys,
      member: 'm-b',
      clock,
      maxLoss: 100_000_000,
      pnl: () => pnl,
      onTrip: (rec) => tripped.push(rec.reason),
    });
    await w.round();
    expect(w.lastSum).toBe(-90_000_000);
    expect(await readFleetKill(admin, keys)).toBeNull();
    pnl = -40_000_000; // -100 exactly: not below
    await w.round();
    expect(await readFleetKill(admin, keys)).toBeNull();
    pnl = -40_000_001;
    await w.round();
    const rec = await readFleetKill(admin, keys);
    expect(rec?.reason).toBe("lossLimit: fleet PnL -100.000001 below -100 (the members' sum)");
    expect(rec?.by).toBe('m-b');
    expect(tripped).toHaveLength(1);
    await w.round();
    expect(tripped).toHaveLength(1);
    expect(await readFleetPnl(admin, keys)).toEqual({ 'm-a': -60_000_000, 'm-b': -40_000_001 });
  });

  it('check() runs a round after the one in flight, with the PnL as it is now (the check before quoting, the figure at exit)', async () => {
    let pnl: number | undefined;
    const w = new FleetLossWatch({ redis: conns[0]!, keys, member: 'm-a', clock, maxLoss: 1, pnl: () => pnl });
    // a round in flight that read the PnL before the member knew it (writes nothing)
    const inFlight = w.round();
    // rounds do not overlap: a round asked meanwhile is the one in flight
    expect(w.round()).toBe(inFlight);
    pnl = -2;
    await w.check();
    expect(w.lastSum).toBe(-2);
    expect((await readFleetKill(admin, keys))?.reason).toBe(
      "lossLimit: fleet PnL -0.000002 below -0.000001 (the members' sum)",
    );
    await inFlight;
  });

  it('writes nothing while the member does not know its PnL yet (a restart keeps its last value), but judges the sums', async () => {
    await ledger('m-a');
    await writeMemberPnl(conns[0]!, keys, 'm-a', -7);
    const w = new FleetLossWatch({ redis: conns[0]!, keys, member: 'm-a', clock, maxLoss: 7, pnl: () => undefined });
    await w.round();
    expect(w.lastSum).toBe(-7);
    expect(await readFleetPnl(admin, keys)).toEqual({ 'm-a': -7 });
    expect(await readFleetKill(admin, keys)).toBeNull();
    // past the limit: the check before quoting trips on the sums read, its own PnL still unknown (review 47 F1)
    await writeMemberPnl(conns[1]!, keys, 'm-a', -8);
    const tripped: string[] = [];
    const v = new FleetLossWatch({
      redis: conns[2]!,
      keys,
      member: 'm-b',
      clock,
      maxLoss: 7,
      pnl: () => undefined,
      onTrip: (rec) => tripped.push(rec.reason),
    });
    await v.check();
    expect(tripped).toEqual(["lossLimit: fleet PnL -0.000008 below -0.000007 (the members' sum)"]);
    await admin.del(keys.ledgers);
  });

  it("counts a data directory's PnL once across restarts under other names, and only ledgers the fleet has", async () => {
    // a daemon with the default name (<host>-<pid>) lost 60, then ran again as another pid: its store's
    // PnL is the same figure, under its data directory's ledger id (it was counted twice under two names)
    await ledger('L1', 'box-100');
    const run = (conn: number, member: string) =>
      new FleetLossWatch({
        redis: conns[conn]!,
        keys,
        member,
        ledger: 'L1',
        clock,
        maxLoss: 100_000_000,
        pnl: () => -60_000_000,
      });
    await run(0, 'box-100').round();
    const again = run(1, 'box-200');
    await again.round();
    expect(again.lastSum).toBe(-60_000_000);
    expect(await readFleetKill(admin, keys)).toBeNull();
    expect(await readFleetPnl(admin, keys)).toEqual({ 'box-100': -60_000_000 });
    // an older version's figure under a member name, and a figure of a ledger an operator removed: not counted
    await admin.hset(keys.pnl, 'box-100', '-60000000');
    await admin.hset(keys.pnl, 'L-gone', '-70000000');
    await again.round();
    expect(again.lastSum).toBe(-60_000_000);
    // the writer's own figure counts before its ledger is published
    expect(await writeMemberPnl(conns[2]!, keys, 'L-new', -5)).toBe(-60_000_005);
    expect(await readFleetPnl(admin, keys)).toEqual({ 'box-100': -60_000_000 });
  });

  it("sums the members' PnL of the same UTC day and trips the fleet kill below -maxDailyLoss", async () => {
    // m-a lost 6 today and 50 yesterday (its figure of yesterday does not count today)
    expect(await writeMemberDayPnl(conns[0]!, keys, 'm-a', '2026-11-28', -50_000_000)).toBe(-50_000_000);
    expect(await writeMemberDayPnl(conns[2]!, keys, 'm-c', '2026-11-29', -6_000_000)).toBe(-6_000_000);
    // a ledger the fleet no longer has (an operator removed it): its figure is not counted
    await admin.hset(keys.dayPnl, 'L-gone', '2026-11-29:-70000000');
    const tripped: string[] = [];
    let day: { date: string; pnl: number } | undefined;
    const w = new FleetLossWatch({
      redis: conns[1]!,
      keys,
      member: 'm-b',
      clock,
      maxLoss: 0,
      pnl: () => -1,
      maxDailyLoss: 10_000_000,
      dayPnl: () => day,
      onTrip: (rec) => tripped.push(rec.reason),
    });
    // the day not opened yet: nothing written (the sum of the clock's day read: the others' figures of today, none)
    await w.round();
    expect(w.lastDaySum).toEqual({ date: new Date(clock.now()).toISOString().slice(0, 10), pnl: 0 });
    expect(await admin.hget(keys.dayPnl, 'm-b')).toBeNull();
    day = { date: '2026-11-29', pnl: -4_000_000 }; // -10 exactly: not below
    await w.round();
    expect(w.lastDaySum).toEqual({ date: '2026-11-29', pnl: -10_000_000 });
    expect(await readFleetKill(admin, keys)).toBeNull();
    day = { date: '2026-11-29', pnl: -4_000_001 };
    await w.round();
    expect((await readFleetKill(admin, keys))?.reason).toBe(
      "lossLimit: fleet PnL of the day -10.000001 below -10 (UTC 2026-11-29, the members' sum)",
    );
    expect(tripped).toHaveLength(1);
    expect(await admin.hget(keys.dayPnl, 'm-b')).toBe('2026-11-29:-4000001');
    await expect(writeMemberDayPnl(conns[0]!, keys, 'm-a', '29/11/2026', 0)).rejects.toBeInstanceOf(ValidationError);
    await expect(writeMemberDayPnl(conns[0]!, keys, 'm-a', '2026-11-29', 0.5)).rejects.toBeInstanceOf(ValidationError);
    expect(await admin.hget(keys.dayPnl, 'm-a')).toBe('2026-11-28:-50000000');
    await admin.del(keys.dayPnl);
  });

  it('maxLoss 0 disables the trip; a bad PnL is refused with nothing written', async () => {
    const w = new FleetLossWatch({ redis: conns[0]!, keys, member: 'm-a', clock, maxLoss: 0, pnl: () => -1e12 });
    await w.round();
    expect(await readFleetKill(admin, keys)).toBeNull();
    await expect(writeMemberPnl(conns[0]!, keys, 'm-b', 0.5)).rejects.toBeInstanceOf(ValidationError);
    expect(await readFleetPnl(admin, keys)).toEqual({ 'm-a': -1e12 });
  });
});

describe('mmkit fleet status', () => {
  const NOW = Date.UTC(2026, 10, 29, 12);
  it('shows the grants and the PnL the loss limit sums', async () => {
    await ledger('m-a');
    await ledger('m-b');
    await new RiskGrants(conns[0]!, keys, CAPS).request('m-a', { notional: 12_500_000, orders: 3 });
    await writeMemberPnl(conns[0]!, keys, 'm-a', -1_500_000);
    await writeMemberPnl(conns[1]!, keys, 'm-b', 250_000);
    const s = await readFleetStatus(admin, ACCOUNT, NOW);
    expect(s.risk).toEqual({
      grants: [{ member: 'm-a', notional: '12.5', orders: 3 }],
      pnl: { 'm-a': '-1.5', 'm-b': '0.25' },
      pnlSum: '-1.25',
      maxLoss: null,
      day: { date: '2026-11-29', pnl: '0', maxDailyLoss: null },
      maxNotionalGlobal: null,
      maxOpenOrdersGlobal: null,
    });
    const text = formatFleetStatus(s);
    expect(text).toContain('risk grants: m-a 12.5 notional / 3 orders');
    // the limit in force and whose figures the sum holds, beside the live members' total (trial 14 F3, F10)
    expect(text).toContain(
      'loss limit on the summed pnl: -1.25; the last figure of every member, those no longer alive too: m-a -1.5, m-b 0.25',
    );
    expect(text).toMatch(/^total pnl of the members alive /m);
    await admin.hset(keys.riskLimits, 'maxLoss', '50000000');
    const limited = await readFleetStatus(admin, ACCOUNT, NOW);
    expect(limited.risk.maxLoss).toBe('50');
    expect(formatFleetStatus(limited)).toContain('loss limit on the summed pnl: -1.25 (trips below -50);');
    // the daily limit's sum (today's figures only) and the caps the grants are shares of (trial 22 F9)
    await writeMemberDayPnl(conns[0]!, keys, 'm-a', '2026-11-29', -3_000_000);
    await writeMemberDayPnl(conns[1]!, keys, 'm-b', '2026-11-28', -9_000_000);
    await admin.hset(keys.riskLimits, {
      maxDailyLoss: '5000000',
      maxNotionalGlobal: '1000000000',
      maxOpenOrdersGlobal: '20',
    });
    const daily = await readFleetStatus(admin, ACCOUNT, NOW);
    expect(daily.risk.day).toEqual({ date: '2026-11-29', pnl: '-3', maxDailyLoss: '5' });
    const t = formatFleetStatus(daily);
    expect(t).toContain('daily loss limit on the summed pnl of UTC 2026-11-29: -3 (trips below -5)');
    expect(t).toContain("risk grants: m-a 12.5 notional / 3 orders (of the account's 1000 notional / 20 orders)");
    // a trip says when it happened, in the text too (trial 22 F10: only the JSON had `at`)
    await tripFleetKill(admin, keys, { reason: 'final accounting', by: 'cli:vm', at: Date.UTC(2026, 10, 29, 23, 43) });
    expect(formatFleetStatus(await readFleetStatus(admin, ACCOUNT, NOW))).toContain(
      'kill switch: TRIPPED (final accounting, by cli:vm at 2026-11-29T23:43:00.000Z)',
    );
    // a record without a readable time (or one out of range) says none, and does not throw
    for (const at of [0, 9e15]) {
      await admin.del(keys.kill);
      await tripFleetKill(admin, keys, { reason: 'odd', by: 'x', at });
      expect(formatFleetStatus(await readFleetStatus(admin, ACCOUNT, NOW))).toContain(
        'kill switch: TRIPPED (odd, by x)',
      );
    }
    await admin.del(keys.kill);
    await admin.hdel(keys.riskLimits, 'maxLoss', 'maxDailyLoss', 'maxNotionalGlobal', 'maxOpenOrdersGlobal');
    await admin.del(keys.dayPnl);
    await admin.del(keys.ledgers);
  });
});
