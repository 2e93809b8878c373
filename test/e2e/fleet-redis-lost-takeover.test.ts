/**
 * Trial 22 F1, end to end: a fleet member dies (kill -9) with its quotes resting, and the fleet's
 * Redis loses its records at the same time (restarted empty). The market's lease, and the record of
 * its last holder, went with the rest: the member that takes the market next finds no previous
 * holder. Before the fix it cancelled nothing, and the dead member's orders rested for good (the
 * heartbeat holder kept the venue's dead-man switch fed). Now a member that sees the fleet's Redis
 * lost its records (the generation it remembered is gone) treats a market it takes as taken from an
 * unknown holder: what rests there and is not its own is cancelled, and named in its log.
 * Then `mmkit kill --data-dir` of the living member says its check counts this member's orders
 * (trial 22 F10). Two `mmkit run` daemons on one paper wallet, a real Redis and the real paper exchange.
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { fleetKeys } from '../../src/fleet/fleet-keys.ts';
import { type BotProcess, logLines, sleep, waitUntil } from './support/bot-harness.ts';
import { runMmkit } from './support/cli.ts';
import {
  fleetHarness,
  membersLog,
  plainMarkets,
  startMember,
  waitOneMarketEach,
  walletDirs,
} from './support/fleet-harness.ts';

const NAMES = ['fa', 'fb'] as const;
type Name = (typeof NAMES)[number];
const LOST_TAKEN = "market taken after the fleet's Redis lost its records";

const { h, r } = fleetHarness();

describe('fleet: a market taken after Redis lost its records', () => {
  it("a dead member's orders are cancelled by the member that takes its market, though no previous holder is recorded", async () => {
    const { ex, base } = await h.exchange(31);
    const markets = await plainMarkets(ex, 2);
    expect(markets).toHaveLength(2);
    const { address, dirs } = walletDirs(h, NAMES);
    const bots = {} as Record<Name, BotProcess>;
    for (const n of NAMES)
      bots[n] = startMember(h, base, r.url, n, dirs[n], markets, {
        MMKIT_POSITION_AUDIT_MS: '1500',
        MMKIT_AUTO_MERGE: 'off',
      });
    const logs = () => membersLog(bots);
    const lines = (n: Name, msg: string) => logLines(bots[n].err()).filter((l) => String(l.msg).startsWith(msg));
    const redis = new Redis(r.url);
    const keys = fleetKeys(address);
    const holderOf = async (m: string) => (await redis.get(keys.marketLease(m)))?.split(':')[0] ?? null;
    try {
      // one market each, both quoted
      const { ok, holders } = await waitOneMarketEach({ redis, keys, ex, address }, markets, NAMES);
      expect(ok, `${JSON.stringify(holders)}\n${logs()}`).toBe(true);
      const mA = markets[holders.indexOf('fa')]!;
      const mB = markets[holders.indexOf('fb')]!;
      // fb's audits read the fleet's ledgers: it remembers the fleet's generation
      await sleep(4000);
      expect(await redis.get(keys.generation)).not.toBeNull();

      // fa dies with its quotes resting, and the fleet's Redis loses everything at once
      bots.fa.p.kill('SIGKILL');
      await redis.flushall();
      const faOrders = new Set(
        ex.exchange
          .openOrders(address)
          .filter((o) => o.market === mA)
          .map((o) => o.id),
      );
      expect(faOrders.size, logs()).toBeGreaterThan(0);

      // fb takes mA with no previous holder recorded, and cancels what fa left there
      const taken = () => lines('fb', LOST_TAKEN).filter((l) => l['market'] === mA);
      expect(await waitUntil(() => taken().length > 0, 30_000), logs()).toBe(true);
      const line = taken()[0]!;
      const cancelled = line['orders'] as string[];
      expect(cancelled.length, logs()).toBeGreaterThan(0);
      for (const id of cancelled) expect(faOrders.has(id), `${id} is not one of fa's orders`).toBe(true);
      // none of fa's orders rests any more (each cancelled, or filled before)
      const left = () => ex.exchange.openOrders(address).filter((o) => faOrders.has(o.id));
      expect(await waitUntil(() => left().length === 0, 15_000), JSON.stringify(left())).toBe(true);
      // fb quotes mA now, and kept quoting its own market
      let holder: string | null = null;
      for (const until = Date.now() + 15_000; (holder = await holderOf(mA)) !== 'fb' && Date.now() < until; )
        await sleep(250);
      expect(holder).toBe('fb');
      const quoted = () => new Set(ex.exchange.openOrders(address).map((o) => o.market));
      expect(await waitUntil(() => quoted().has(mA) && quoted().has(mB), 30_000), logs()).toBe(true);
      // its own market's orders were its own: taken back without a cancel of them
      for (const l of lines('fb', LOST_TAKEN).filter((x) => x['market'] === mB)) expect(l['cancelled'], logs()).toBe(0);
      expect(bots.fb.p.exitCode, logs()).toBeNull();

      // `mmkit kill --data-dir` of a member says its flat check is the member's, not the account's (trial 22 F10)
      const k = await runMmkit(['kill', '--data-dir', dirs.fb, '--reason', 'test']);
      expect(k.code, k.err).toBe(0);
      expect(k.out).toContain(
        '(a fleet member): every order of this member cancelled, none of its orders open at the venue',
      );
      expect(k.out).not.toContain('zero open orders at the venue');
    } finally {
      redis.disconnect();
    }
  }, 300_000);
});
