/**
 * Issue 21, end to end: three `mmkit run` daemons trading ONE paper wallet as a fleet (the same
 * private key, each its own data dir and fleet.member, the same six markets), a real Redis and the
 * real paper exchange, every time taken from the exchange (its event stream's timestamps and the
 * arrival time of each request), never from when this test happens to look:
 *  1. the markets are split: each member holds two market leases, and over the whole run no market
 *     ever had orders of two members resting at once (every order the exchange saw, attributed to
 *     its member through the members' own ledgers);
 *  2. `kill -9` of the member holding the heartbeat lease: the venue's dead-man switch never fires
 *     (no HEARTBEAT cancel at the exchange, no gap of 10 s between two heartbeats it received), the
 *     survivors' orders stay, and each of the dead member's markets has orders again within 10 s;
 *  3. a risk trip on ONE member (the venue rejects an order of fb, whose maxRejections is 1): the
 *     account has zero open orders within 2 s of the trip (the moment the exchange's book of the
 *     account emptied, against the daemon's log time of the rejection that tripped it), the fleet's
 *     kill record names fb, and every surviving member exits 4 (the risk-stop code).
 * `mmkit kill --fleet` on a running daemon is test/e2e/cli-run-fleet.test.ts.
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { ExchangeEvent } from '../../src/exchange/exchange.ts';
import { fleetKeys } from '../../src/fleet/fleet-keys.ts';
import {
  type BotProcess,
  exited,
  liquidMarkets,
  logLines,
  recordRequests,
  sleep,
  waitUntil,
  watchFlat,
} from './support/bot-harness.ts';
import { fleetHarness, memberLedger, membersLog, startMember, walletDirs } from './support/fleet-harness.ts';

const NAMES = ['fa', 'fb', 'fc'] as const;
type Name = (typeof NAMES)[number];
const HEARTBEAT_TIMEOUT_MS = 10_000; // the paper exchange's dead-man window (exchange-types.ts)

const { h, r } = fleetHarness();

/** One of the account's orders as the exchange saw it: resting from placedAt to endAt (exchange ms). */
interface SeenOrder {
  id: string;
  market: string;
  placedAt: number;
  endAt?: number;
}

/** The order ids a member's own ledger holds (its data dir's SQLite store, opened read-only). */
const ledgerIds = (dir: string): Set<string> => memberLedger(dir).orders;

/** Pairs of orders of two different members that rested on one market at the same time. */
function overlaps(orders: readonly SeenOrder[], owner: (id: string) => string): string[] {
  const out: string[] = [];
  const byMarket = new Map<string, SeenOrder[]>();
  for (const o of orders) byMarket.set(o.market, [...(byMarket.get(o.market) ?? []), o]);
  for (const [m, os] of byMarket)
    for (let i = 0; i < os.length; i++)
      for (let j = i + 1; j < os.length; j++) {
        const a = os[i]!;
        const b = os[j]!;
        if (owner(a.id) === owner(b.id)) continue;
        if (a.placedAt < (b.endAt ?? Infinity) && b.placedAt < (a.endAt ?? Infinity))
          out.push(
            `${m}: ${owner(a.id)} ${a.id} [${a.placedAt},${a.endAt}) / ${owner(b.id)} ${b.id} [${b.placedAt},${b.endAt})`,
          );
      }
  return out;
}

describe('a fleet of three daemons on one wallet', () => {
  it('splits the markets, survives kill -9 of the heartbeat holder, and stops as one when one member trips its kill switch', async () => {
    const { ex, base } = await h.exchange(21);
    let markets: string[] = [];
    await waitUntil(() => (markets = liquidMarkets(ex, 6)).length === 6, 60_000);
    expect(markets).toHaveLength(6);

    // one wallet, three data dirs
    const { address, dirs } = walletDirs(h, NAMES);

    // the exchange's own record of the account's orders and of the heartbeats it received
    const seen = new Map<string, SeenOrder>();
    const venueCancels: Array<{ id: string; at: number }> = [];
    ex.exchange.subscribe((events: readonly ExchangeEvent[]) => {
      for (const e of events) {
        if (e.type !== 'order_placed' && e.type !== 'order_updated' && e.type !== 'order_canceled') continue;
        const o = e.order;
        if (o.account !== address) continue;
        if (e.type === 'order_placed' && !seen.has(o.id))
          seen.set(o.id, { id: o.id, market: o.market, placedAt: e.at });
        const s = seen.get(o.id);
        if (s !== undefined && s.endAt === undefined && o.status !== 'LIVE') s.endAt = e.at;
        if (e.type === 'order_canceled' && e.reason === 'HEARTBEAT') venueCancels.push({ id: o.id, at: e.at });
      }
    });
    const requests = recordRequests(ex);
    const heartbeatsAt = () =>
      requests.filter((q) => q.method === 'POST' && q.path.includes('heartbeats')).map((q) => q.at);
    const flat = watchFlat(ex, address);

    // fa first, so that it holds the heartbeat lease (the member killed in 2); fb alone trips its kill
    // switch on the first order the venue rejects (the risk trip of 3), the others never on rejections
    const bots = {} as Record<Name, BotProcess>;
    const start = (n: Name) =>
      (bots[n] = startMember(h, base, r.url, n, dirs[n], markets, {
        MMKIT_RISK_MAX_REJECTIONS: n === 'fb' ? '1' : '0',
      }));
    start('fa');
    const beatsFirst = () => logLines(bots.fa.err()).some((l) => l.msg.startsWith('heartbeat lease taken'));
    expect(await waitUntil(beatsFirst, 90_000), bots.fa.err().slice(-3000)).toBe(true);
    start('fb');
    start('fc');
    const logs = () => membersLog(bots, 1500);

    const redis = new Redis(r.url);
    const keys = fleetKeys(address);
    const holderOf = async (key: string) => (await redis.get(key))?.split(':')[0] ?? null;
    const leaseHolders = async () => Promise.all(markets.map((m) => holderOf(keys.marketLease(m))));
    const quotedMarkets = () => new Set(ex.exchange.openOrders(address).map((o) => o.market));
    try {
      // ---- 1. the split: every market leased, two each, and quoted ---------------------------------------
      const split = async () => {
        const hs = await leaseHolders();
        return NAMES.every((n) => hs.filter((x) => x === n).length === 2) && quotedMarkets().size === 6;
      };
      let ok = false;
      const end = Date.now() + 120_000;
      while (!(ok = await split()) && Date.now() < end) await sleep(250);
      expect(ok, `${JSON.stringify(await leaseHolders())} quoted ${quotedMarkets().size}\n${logs()}`).toBe(true);
      await sleep(4000); // steady state for a few lease rounds
      const holders = await leaseHolders();
      const marketsOf = (n: Name) => markets.filter((_, i) => holders[i] === n);
      const openByMarket = new Map(
        markets.map((m) => [
          m,
          ex.exchange
            .openOrders(address)
            .filter((o) => o.market === m)
            .map((o) => o.id),
        ]),
      );

      // ---- 2. kill -9 of the heartbeat holder -------------------------------------------------------------
      const hbHolder = (await holderOf(keys.heartbeatLease)) as Name | null;
      expect(hbHolder, logs()).not.toBeNull();
      expect(NAMES).toContain(hbHolder);
      const dead = hbHolder!;
      expect(dead, 'the first member keeps the heartbeat lease').toBe('fa');
      const survivors = NAMES.filter((n) => n !== dead);
      const deadMarkets = marketsOf(dead);
      const survivorOrders = ex.exchange
        .openOrders(address)
        .filter((o) => !deadMarkets.includes(o.market))
        .map((o) => o.id);
      expect(survivorOrders.length).toBeGreaterThan(0);
      const killedAt = Date.now();
      bots[dead].p.kill('SIGKILL');
      await exited(bots[dead].p);
      // its markets quoted again by a survivor: a new order on each, placed after the kill (exchange time)
      const requotedAt = (m: string) =>
        Math.min(...[...seen.values()].filter((o) => o.market === m && o.placedAt > killedAt).map((o) => o.placedAt));
      expect(await waitUntil(() => deadMarkets.every((m) => Number.isFinite(requotedAt(m))), 30_000), logs()).toBe(
        true,
      );
      for (const m of deadMarkets) expect(requotedAt(m) - killedAt, m).toBeLessThanOrEqual(10_000);
      const takers = await Promise.all(deadMarkets.map((m) => holderOf(keys.marketLease(m))));
      for (const t of takers) expect(survivors).toContain(t);
      // past the dead-man window since the last heartbeat the dead member could have sent
      await waitUntil(() => Date.now() > killedAt + HEARTBEAT_TIMEOUT_MS + 2000, 20_000, 200);
      expect(venueCancels, 'the venue dead-man switch fired').toEqual([]);
      const beats = heartbeatsAt().filter((t) => t <= Date.now());
      expect(beats.length).toBeGreaterThan(0);
      const lastBefore = Math.max(...beats.filter((t) => t <= killedAt));
      const firstAfter = Math.min(...beats.filter((t) => t > killedAt));
      expect(firstAfter - lastBefore, 'heartbeat gap across the kill').toBeLessThan(HEARTBEAT_TIMEOUT_MS);
      for (const n of survivors) expect(bots[n].p.exitCode, logs()).toBeNull();

      // ---- 3. a risk trip on one member stops the fleet ---------------------------------------------------
      // the wallet's allowance to the exchange goes to 0: the venue rejects the next BUY, and fb (the only
      // member with maxRejections 1) trips its kill switch, then the fleet's
      expect(survivors).toContain('fb');
      ex.exchange.allowances.set(address, undefined, '0');
      const rejected = () => logLines(bots.fb.err()).find((l) => l.msg === 'order rejected');
      expect(await waitUntil(() => rejected() !== undefined, 60_000), logs()).toBe(true);
      const trippedAt = rejected()!.time; // the kill switch trips on this rejection, synchronously
      for (const n of survivors) {
        const code = await Promise.race([exited(bots[n].p), sleep(60_000).then(() => 'timeout' as const)]);
        expect(code, `${n}\n${logs()}`).toBe(4);
      }
      const rec = JSON.parse((await redis.get(keys.kill)) ?? 'null') as { by: string; reason: string } | null;
      expect(rec, 'the fleet kill record').toMatchObject({ by: 'fb' });
      expect(rec!.reason).toMatch(/^rejections: /);
      expect(bots.fc.err()).toContain('fleet kill switch tripped');
      const flatAt = flat.flatSince(trippedAt);
      expect(flatAt, logs()).toBeGreaterThan(0);
      expect(flatAt - trippedAt).toBeLessThanOrEqual(2000);
      expect(ex.exchange.openOrders(address)).toEqual([]);
      // heartbeats never stopped for 10 s while the fleet traded
      const hb = heartbeatsAt().filter((t) => t <= trippedAt);
      for (let i = 1; i < hb.length; i++) expect(hb[i]! - hb[i - 1]!).toBeLessThan(HEARTBEAT_TIMEOUT_MS);
      expect(venueCancels).toEqual([]);

      // ---- 1 (cont.): every order the exchange saw, attributed through the members' ledgers ---------------
      const ledgers = new Map(survivors.map((n) => [n, ledgerIds(dirs[n])] as const));
      // (the dead member's ledger may miss its last writes: what no survivor placed was the dead one's)
      const owner = (id: string): string => survivors.find((n) => ledgers.get(n)!.has(id)) ?? dead;
      expect(seen.size).toBeGreaterThan(0);
      expect(overlaps([...seen.values()], owner)).toEqual([]);
      // the orders resting at the split belonged to each market's lease holder
      for (const [i, m] of markets.entries())
        for (const id of openByMarket.get(m)!) expect(owner(id), `${m} ${id}`).toBe(holders[i]);
      // after the kill, the dead member's markets were quoted by their takers only
      for (const [i, m] of deadMarkets.entries())
        for (const o of seen.values()) if (o.market === m && o.placedAt > killedAt) expect(owner(o.id)).toBe(takers[i]);
    } finally {
      flat.stop();
      redis.disconnect();
    }
  }, 300_000);
});
