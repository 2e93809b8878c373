/**
 * Whose fills, end to end (findings-2 F5, F8): `mmkit run` daemons on ONE paper wallet as a fleet,
 * a real Redis and the real paper exchange; a counterparty on another wallet fills their bids.
 *  1. fa and fb hold one market each and both get fills;
 *  2. `kill -9` of fa: fb takes fa's market and gets a fill of its own order there;
 *  3. fa restarts on its data directory and takes its market back: its start backfill does not book
 *     fb's fill there (F5: it did, as an "external" fill);
 *  4. fa and fb stop; fc starts on a FRESH data directory of the same wallet (with another market, as
 *     in the finding): it backfills none of the account's past fills (F8: it booked the whole
 *     history as its own external fills).
 * After an orderly stop, every fill of the account is in exactly one member's ledger, that of the
 * member whose order it was, and no ledger holds an external fill (nobody outside the fleet traded
 * on the wallet); a member's warnings of fills its user channel had not delivered name only its own.
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { fleetKeys } from '../../src/fleet/fleet-keys.ts';
import { Trader } from '../integration/support/trader.ts';
import {
  type BotProcess,
  botFills,
  exited,
  hitBotBidWithin,
  liquidMarkets,
  logLines,
  sleep,
  waitUntil,
} from './support/bot-harness.ts';
import { fleetHarness, memberLedger as ledger, startMember, walletDirs } from './support/fleet-harness.ts';

const NAMES = ['fa', 'fb', 'fc'] as const;
type Name = (typeof NAMES)[number];

const { h, r } = fleetHarness();

describe('whose fills in a fleet', () => {
  it("a restarted member and a member on a fresh data dir book none of the others' fills", async () => {
    const { ex, base } = await h.exchange(25);
    let markets: string[] = [];
    let liquid: string[] = [];
    await waitUntil(() => (liquid = liquidMarkets(ex, 8).slice(0, 3)).length === 3, 60_000);
    expect(liquid).toHaveLength(3);
    markets = liquid.slice(0, 2);
    const third = liquid[2]!;
    const { address, dirs } = walletDirs(h, NAMES);
    const bots = {} as Partial<Record<Name, BotProcess>>;
    const runs: Record<Name, BotProcess[]> = { fa: [], fb: [], fc: [] };
    const start = (n: Name, ms: readonly string[] = markets) => {
      const b = startMember(h, base, r.url, n, dirs[n], ms, {
        MMKIT_AUTO_MERGE: 'off',
        // the user channel's audit (its trades since a margin before the stream started) soon after the start
        MMKIT_USER_AUDIT_MS: '2000',
      });
      bots[n] = b;
      runs[n].push(b);
      return b;
    };
    const logs = () => NAMES.flatMap((n) => runs[n].map((b, i) => `--- ${n}#${i}\n${b.err().slice(-2500)}`)).join('\n');
    const redis = new Redis(r.url);
    const keys = fleetKeys(address);
    const holderOf = async (m: string) => (await redis.get(keys.marketLease(m)))?.split(':')[0] ?? null;
    const holders = () => Promise.all(markets.map(holderOf));
    const quoted = () => new Set(ex.exchange.openOrders(address).map((o) => o.market));
    const waitFor = async (cond: () => Promise<boolean>, ms: number) => {
      const end = Date.now() + ms;
      while (!(await cond()) && Date.now() < end) await sleep(250);
      return cond();
    };
    const t = new Trader(ex.urls.clob_url);
    await t.createKey();
    try {
      // ---- 1. one market each, both filled ---------------------------------------------------------
      start('fa');
      start('fb');
      const split = async () => {
        const hs = await holders();
        return hs.includes('fa') && hs.includes('fb') && markets.every((m) => quoted().has(m));
      };
      expect(await waitFor(split, 120_000), logs()).toBe(true);
      const hs = await holders();
      const mA = markets[hs.indexOf('fa')]!;
      for (const m of markets) expect(await hitBotBidWithin(ex, t, address, m, 30_000), logs()).toBe(true);

      // ---- 2. kill -9 of fa: fb takes its market and gets a fill of its own order there --------------
      bots.fa!.p.kill('SIGKILL');
      await exited(bots.fa!.p);
      const fbBoth = async () => (await holders()).every((x) => x === 'fb') && quoted().has(mA);
      expect(await waitFor(fbBoth, 60_000), logs()).toBe(true);
      await sleep(500);
      expect(await hitBotBidWithin(ex, t, address, mA, 30_000), logs()).toBe(true);
      await sleep(2000); // fb records it (and the fleet's registry has it)

      // ---- 3. fa restarts on its data dir and takes a market back --------------------------------------
      const fa2 = start('fa');
      const faBack = async () => (await holders()).includes('fa') && markets.every((m) => quoted().has(m));
      expect(await waitFor(faBack, 60_000), logs()).toBe(true);
      await sleep(6000); // a few audits of the user channel on the market fa holds again
      const reconciled = (b: BotProcess) => logLines(b.err()).find((l) => l.msg === 'restart reconciliation done');
      expect(reconciled(fa2), logs()).toBeDefined();
      expect(reconciled(fa2)!['externalFills'], logs()).toBe(0);
      expect(
        logLines(fa2.err()).filter((l) => String(l.msg).startsWith('external fill')),
        logs(),
      ).toEqual([]);

      // an orderly stop of fa and fb
      for (const n of ['fa', 'fb'] as const) bots[n]!.p.kill('SIGTERM');
      for (const n of ['fa', 'fb'] as const) expect(await exited(bots[n]!.p), logs()).toBe(0);

      // ---- 4. fc on a fresh data dir (and another market, as in the finding): none of the account's
      // past fills is its. Started once fa and fb are out of the membership (their leave removes them; a
      // member on other markets is refused while members with the fleet's markets are live)
      expect(await waitFor(async () => (await redis.zcard(keys.members)) === 0, 10_000), logs()).toBe(true);
      const fc = start('fc', [third]);
      expect(await waitUntil(() => reconciled(fc) !== undefined, 60_000), logs()).toBe(true);
      expect(reconciled(fc)!['externalFills'], logs()).toBe(0);
      expect(reconciled(fc)!['newFills'], logs()).toBe(0);
      await sleep(3000);
      fc.p.kill('SIGTERM');
      expect(await exited(fc.p), logs()).toBe(0);

      // ---- every fill of the account is in its placer's ledger, once ----------------------------------
      const l = Object.fromEntries(NAMES.map((n) => [n, ledger(dirs[n])])) as Record<Name, ReturnType<typeof ledger>>;
      // the user channel's audit warnings of a member name only fills it books: the other members' are
      // counted apart (`otherMembers`), never as fills the channel did not deliver to it
      for (const n of NAMES)
        for (const b of runs[n])
          for (const line of logLines(b.err()).filter((x) => String(x.msg).endsWith('recovered by the audit')))
            for (const f of (line['recovered'] ?? []) as Array<{ order: string }>)
              expect(l[n].orders.has(f.order), `${n}: ${JSON.stringify(line)}\n${logs()}`).toBe(true);
      const owners = new Map<string, Name[]>();
      for (const n of NAMES)
        for (const f of l[n].fills) {
          // no external fill: each is of one of its own orders
          expect(l[n].orders.has(f.split('|')[1]!), `${n} booked ${f}, not its order\n${logs()}`).toBe(true);
          owners.set(f, [...(owners.get(f) ?? []), n]);
        }
      const twice = [...owners].filter(([, ns]) => ns.length > 1);
      expect(twice, logs()).toEqual([]);
      const venue = new Set(botFills(ex, address));
      expect(venue.size).toBeGreaterThanOrEqual(3);
      expect(new Set(owners.keys())).toEqual(venue);
    } finally {
      redis.disconnect();
    }
  }, 360_000);
});
