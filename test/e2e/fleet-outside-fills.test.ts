/**
 * A fill no member of the fleet made, on a market outside the fleet's markets, end to end: two
 * `mmkit run` members on ONE paper wallet, a real Redis and the real paper exchange. The operator
 * buys shares by hand on the same wallet (its own API key) on a market the fleet does not quote.
 * Every member sees the trade, and nobody holds that market: before the fleet claimed such fills
 * (src/fleet/member-orders.ts `claimExternalFill`), every member booked it as its own external fill,
 * so the members' ledgers summed N times the venue's holding, and no position audit booked the
 * difference back (only the holder of a market books one). Now exactly one member books it, and the
 * ledgers add up to the venue. And it is booked while the fleet runs (review-2 F1): the user
 * channel's audit of a fleet member also asks for the trades outside the fleet's markets (it used to
 * follow the fleet's markets only, so such a fill was booked only when a backfill window held it).
 */
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { parseAmount } from '../../src/core/units.ts';
import { fleetKeys } from '../../src/fleet/fleet-keys.ts';
import { Trader } from '../integration/support/trader.ts';
import { type BotProcess, exited, liquidMarkets, sleep, waitUntil } from './support/bot-harness.ts';
import { runMmkit } from './support/cli.ts';
import { fleetHarness, membersLog, startMember } from './support/fleet-harness.ts';

const { h, r } = fleetHarness();

/** The fills of `token` in a member's ledger: `trade|order` -> source. */
function fillsOf(dir: string, token: string): Map<string, string> {
  const db = new Database(join(dir, 'mmkit.db'), { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare('SELECT trade_id, order_id, source FROM fills WHERE token = ?').all(token) as Array<
      Record<string, string>
    >;
    return new Map(rows.map((x) => [`${x['trade_id']}|${x['order_id']}`, x['source']!]));
  } finally {
    db.close();
  }
}

/** `mmkit positions --json` of a data dir: the size of `token` (micro-shares; 0 when none). */
async function sizeOf(source: 'store' | 'venue', dir: string, base: string, token: string): Promise<number> {
  const res = await runMmkit(['positions', '--source', source, '--json', '--data-dir', dir, '--exchange-url', base]);
  expect(res.code, res.err).toBe(0);
  const j = JSON.parse(res.out) as { positions: { tokenId: string; size: string }[] };
  const p = j.positions.find((x) => x.tokenId === token);
  return p === undefined ? 0 : parseAmount(p.size);
}

describe('a fill outside the fleet', () => {
  it("the operator's fill on a market the fleet does not quote is booked by exactly one member", async () => {
    const { ex, base } = await h.exchange(25);
    let liquid: string[] = [];
    await waitUntil(() => (liquid = liquidMarkets(ex, 8).slice(0, 3)).length === 3, 60_000);
    expect(liquid).toHaveLength(3);
    const markets = liquid.slice(0, 2);
    const outside = ex.exchange
      .listMarkets()
      .find((m) => !markets.includes(m.meta.conditionId) && ex.exchange.engine.book(m.meta.tokens[0]).asks.length > 0)!;
    expect(outside).toBeDefined();
    const token = outside.meta.tokens[0];
    const first = h.dataDir();
    const address = first.address;
    const dirs = { fa: first.dir, fb: h.dataDir().dir };
    copyFileSync(join(first.dir, 'paper-wallet.key'), join(dirs.fb, 'paper-wallet.key'));
    const key = readFileSync(join(first.dir, 'paper-wallet.key'), 'utf8').trim();
    const bots: Record<string, BotProcess> = {};
    for (const n of ['fa', 'fb'] as const)
      bots[n] = startMember(h, base, r.url, n, dirs[n], markets, {
        MMKIT_AUTO_MERGE: 'off',
        // the user channel's audit (the account's trades) every 2 s: both members see the operator's trade
        MMKIT_USER_AUDIT_MS: '2000',
      });
    const logs = () => membersLog(bots);
    const redis = new Redis(r.url);
    const keys = fleetKeys(address);
    try {
      const holders = async () =>
        Promise.all(markets.map(async (m) => (await redis.get(keys.marketLease(m)))?.split(':')[0]));
      const split = async () => {
        const hs = await holders();
        return hs.includes('fa') && hs.includes('fb');
      };
      const end = Date.now() + 120_000;
      while (!(await split()) && Date.now() < end) await sleep(250);
      expect(await split(), logs()).toBe(true);

      // the operator, on the same wallet with its own API key, buys on a market outside the fleet's
      const operator = new Trader(ex.urls.clob_url, key);
      expect((await operator.createKey(7)).status).toBe(200);
      const ask = ex.exchange.engine.book(token).asks[0]!;
      const placed = await operator.place(token, 'BUY', (ask.price / 10_000).toFixed(4), '5', {
        type: 'FAK',
        tick: '0.0001',
        negRisk: outside.meta.negRisk,
      });
      expect(placed.status, JSON.stringify(placed.body)).toBe(200);
      const venueSize = await sizeOf('venue', dirs.fa, base, token);
      expect(venueSize).toBeGreaterThan(0);
      // booked by exactly one member WHILE both run: a few audits of the user channel (every 2 s) on
      // both members (neither backfills until it stops)
      const booked = () => {
        const a = fillsOf(dirs.fa, token);
        const b = fillsOf(dirs.fb, token);
        return [...new Set([...a.keys(), ...b.keys()])].map((f) => ({ f, a: a.get(f), b: b.get(f) }));
      };
      const until = Date.now() + 30_000;
      while (booked().length === 0 && Date.now() < until) await sleep(500);
      await sleep(6000); // more audits on both members: still booked once
      const running = booked();
      expect(running.length, `booked by no member while running\n${logs()}`).toBeGreaterThan(0);
      for (const x of running) {
        expect(
          [x.a, x.b].filter((v) => v !== undefined),
          `${x.f}\n${logs()}`,
        ).toEqual(['external']);
      }
      expect(bots.fa!.p.exitCode, logs()).toBeNull();
      expect(bots.fb!.p.exitCode, logs()).toBeNull();
      const whileRunning =
        (await sizeOf('store', dirs.fa, base, token)) + (await sizeOf('store', dirs.fb, base, token));
      expect(whileRunning, logs()).toBe(venueSize);

      for (const n of ['fa', 'fb'] as const) bots[n]!.p.kill('SIGTERM');
      for (const n of ['fa', 'fb'] as const) expect(await exited(bots[n]!.p), logs()).toBe(0);

      const a = fillsOf(dirs.fa, token);
      const b = fillsOf(dirs.fb, token);
      const all = new Set([...a.keys(), ...b.keys()]);
      expect(all.size, logs()).toBeGreaterThan(0);
      for (const f of all) {
        // booked once fleet-wide, as a fill from outside
        expect([a.has(f), b.has(f)].filter(Boolean), `${f}\n${logs()}`).toHaveLength(1);
        expect(a.get(f) ?? b.get(f)).toBe('external');
      }
      // the members' ledgers add up to the venue's holding
      const stores = (await sizeOf('store', dirs.fa, base, token)) + (await sizeOf('store', dirs.fb, base, token));
      expect(stores, logs()).toBe(venueSize);
    } finally {
      redis.disconnect();
    }
  }, 300_000);
});
