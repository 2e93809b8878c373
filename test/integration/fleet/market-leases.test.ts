/**
 * Market leases on a real Redis, three members, seven markets, the default timings (ttl 5 s,
 * rounds every ttl/3, members dead after 3 s): every market is held by exactly one member and no
 * member holds more than its fair share; no market is ever quotable on two members at once (the
 * self-fence included); when a member dies (kill -9 = it stops renewing) its markets are taken by
 * the others within ttl + a round, each taker told whose orders to cancel first; a member joining
 * gets its share from the others.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveClock } from '../../../src/core/clock.ts';
import { fleetKeys } from '../../../src/fleet/fleet-keys.ts';
import { RedisLeases } from '../../../src/fleet/lease.ts';
import { MarketLeases, type PreviousHolder } from '../../../src/fleet/market-leases.ts';
import { fairShare } from '../../../src/fleet/market-share.ts';
import { connectFleetRedis } from '../../../src/fleet/redis.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';

const keys = fleetKeys('0x00000000000000000000000000000000000000d4');
const clock = new LiveClock();
const MARKETS = ['0xa1', '0xa2', '0xa3', '0xa4', '0xa5', '0xa6', '0xa7'];
let r: TestRedis;
const conns: Redis[] = [];
interface M {
  name: string;
  ml: MarketLeases;
  gained: Array<{ market: string; previous: PreviousHolder | null; recorded: boolean; at: number }>;
  lost: string[];
}
const ms: M[] = [];
const gone = new Set<M>();
const alive = () => ms.filter((m) => !gone.has(m));

async function member(name: string): Promise<M> {
  const c = await connectFleetRedis(r.url);
  conns.push(c);
  const m: M = { name, gained: [], lost: [], ml: undefined as unknown as MarketLeases };
  m.ml = new MarketLeases({
    leases: new RedisLeases(c),
    keys,
    member: name,
    clock,
    markets: MARKETS,
    onGained: async (market, previous, recorded) => {
      // the wiring cancels the previous holder's orders on the market here, then quotes
      m.gained.push({ market, previous, recorded, at: Date.now() });
    },
    onLost: (market) => {
      m.lost.push(market);
    },
  });
  ms.push(m);
  return m;
}

beforeAll(async () => {
  r = await startRedis();
});
afterAll(async () => {
  for (const m of ms) m.ml.halt();
  for (const c of conns) c.disconnect();
  await r?.stop();
});

async function until(cond: () => boolean, timeoutMs: number): Promise<number> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((res) => setTimeout(res, 20));
  }
  return Date.now() - t0;
}

/** Counts, while it waits, any market quotable on two members at once. */
function exclusivity(): { overlaps: number; check(): void } {
  const o = {
    overlaps: 0,
    check() {
      for (const x of MARKETS) if (ms.filter((m) => m.ml.holds(x)).length > 1) o.overlaps++;
    },
  };
  return o;
}

const covered = (members: M[]) =>
  MARKETS.every((x) => members.filter((m) => m.ml.holds(x)).length === 1) &&
  members.every((m) => m.ml.held().length <= fairShare(MARKETS.length, members.length));

describe('market leases', () => {
  it('split the markets among three members, each market once, none above its fair share', async () => {
    const [a, b, c] = await Promise.all([member('a'), member('b'), member('c')]);
    await Promise.all([a!.ml.start(), b!.ml.start(), c!.ml.start()]);
    const ex = exclusivity();
    // the first to start may have taken everything; the others' joining makes it give extras up
    await until(() => {
      ex.check();
      return covered(ms);
    }, 15_000);
    expect(ex.overlaps).toBe(0);
    for (const m of ms) expect(m.ml.liveMembers()).toEqual(['a', 'b', 'c']);
    // what Redis says agrees with what each member believes
    const leases = new RedisLeases(conns[0]!);
    for (const x of MARKETS) {
      const h = await leases.holder(keys.marketLease(x));
      expect(ms.find((m) => m.ml.holds(x))?.name).toBe(h?.member);
    }
    // a market's first claim in this Redis has no last holder recorded; one given up and taken again has
    const first = new Map<string, boolean>();
    for (const e of ms.flatMap((m) => m.gained).sort((x, y) => x.at - y.at))
      if (!first.has(e.market)) first.set(e.market, e.recorded);
    expect([...first.values()].every((x) => x === false)).toBe(true);
    const again = ms.flatMap((m) => m.gained).filter((e) => e.previous !== null);
    for (const e of again) expect(e.recorded).toBe(true);
    // stable: a few more rounds change nothing
    const before = ms.map((m) => m.ml.held().join());
    await new Promise((res) => setTimeout(res, 4000));
    expect(ms.map((m) => m.ml.held().join())).toEqual(before);
  });

  it("a dead member's markets are taken by the others within the lease period plus a round", async () => {
    const dead = ms.find((m) => m.ml.held().length > 0)!;
    const orphaned = dead.ml.held();
    const survivors = ms.filter((m) => m !== dead);
    const ex = exclusivity();
    dead.ml.halt();
    gone.add(dead);
    const t0 = Date.now();
    const took = await until(() => {
      ex.check();
      return orphaned.every((x) => survivors.some((m) => m.ml.holds(x)));
    }, 15_000);
    // its leases expire within ttl of its last renew; the takers' rounds come every ttl/3
    expect(took).toBeLessThan(5000 + 1667 + 1000);
    expect(ex.overlaps).toBe(0);
    await until(() => covered(survivors), 10_000);
    for (const x of orphaned) {
      const g = survivors.flatMap((m) => m.gained).find((e) => e.market === x && e.at >= t0)!;
      expect(g.previous?.member).toBe(dead.name);
      expect(g.recorded).toBe(true);
    }
    for (const m of survivors) expect(m.ml.liveMembers()).not.toContain(dead.name);
  });

  it('a member joining gets its share; those above it give markets up, pulling their quotes first', async () => {
    const survivors = alive();
    const d = await member('d');
    const ex = exclusivity();
    await d.ml.start();
    const all = [...survivors, d];
    await until(() => {
      ex.check();
      return covered(all);
    }, 15_000);
    expect(ex.overlaps).toBe(0);
    expect(d.ml.held().length).toBeGreaterThan(0);
    // every market d took from a live member, that member gave up (onLost: quotes pulled) first
    const givenUp = survivors.flatMap((m) => m.lost);
    const fromLive = d.gained.filter((g) => survivors.some((m) => m.name === g.previous?.member));
    expect(fromLive.length).toBeGreaterThan(0);
    for (const g of fromLive) expect(givenUp).toContain(g.market);
  });

  it('a clean stop pulls and releases everything: the others take it over at their next round', async () => {
    const leaving = ms.find((m) => m.name === 'd')!;
    const had = leaving.ml.held();
    const rest = alive().filter((m) => m !== leaving);
    await leaving.ml.stop();
    gone.add(leaving);
    for (const x of had) expect(leaving.lost).toContain(x);
    expect(leaving.ml.held()).toEqual([]);
    const took = await until(() => covered(rest), 10_000);
    expect(took).toBeLessThan(1667 + 1000);
  });
});
