/**
 * A fleet member's shutdown backfill registers its own fills (review-1 F2): `mmkit run` as a fleet
 * member (a real Redis, the real paper exchange), its user channel frozen (sockets open, no data)
 * while a counterparty fills its bids, then stopped with SIGTERM. The fills the channel never
 * delivered are found by the shutdown backfill; their order ids must be in the fleet's registry of
 * the members' filled orders (`<prefix>orders`, src/fleet/member-orders.ts), or a member that takes
 * the market over and audits the account's recent trades would book them as external fills (one
 * fill in two ledgers).
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { fleetKeys } from '../../src/fleet/fleet-keys.ts';
import { Trader } from '../integration/support/trader.ts';
import {
  Admin,
  botFills,
  exited,
  hitBotBid,
  liquidMarkets,
  logLines,
  sleep,
  waitForQuotes,
  waitUntil,
} from './support/bot-harness.ts';
import { fleetHarness } from './support/fleet-harness.ts';

const TOKEN = 'e2e-fleet-shutdown-backfill-admin';
const { h, r } = fleetHarness();

describe('a fleet member stopping', () => {
  it("registers the fills its shutdown backfill found as the fleet's members' filled orders", async () => {
    const { ex, base } = await h.exchange(12, { adminToken: TOKEN });
    const admin = new Admin(base, TOKEN);
    const { dir, address } = h.dataDir();
    let markets: string[] = [];
    await waitUntil(() => (markets = liquidMarkets(ex, 2)).length === 2, 60_000);
    // the audit of the user channel off: only the shutdown backfill finds the fills it did not deliver
    const bot = h.startBot(base, dir, ['--duration', '600s', '--markets', markets.join(',')], {
      MMKIT_REDIS_URL: r.url,
      MMKIT_FLEET_MEMBER: 'fa',
      MMKIT_USER_AUDIT_MS: '0',
    });
    expect(await waitForQuotes(ex, address), bot.err().slice(-3000)).toBeGreaterThan(0);
    const t = new Trader(ex.urls.clob_url);
    await t.createKey();
    await admin.addFault({ stream: 'user', freeze: true });
    const frozenAt = botFills(ex, address).length;
    const end = Date.now() + 30_000;
    while (botFills(ex, address).length === frozenAt && Date.now() < end) {
      await hitBotBid(ex, t, address);
      await sleep(250);
    }
    const unseen = botFills(ex, address).slice(frozenAt);
    expect(unseen.length, 'the counterparty could not fill a bid of the bot').toBeGreaterThan(0);

    bot.p.kill('SIGTERM');
    expect(await exited(bot.p), bot.err().slice(-3000)).toBe(0);
    // they came from the shutdown backfill (the frozen channel delivered none of them)
    const backfilled = new Set(
      logLines(bot.err())
        .filter((l) => l.msg === 'fill' && l['backfilled'] === true)
        .map((l) => `${String(l['trade'])}|${String(l['order'])}`),
    );
    for (const f of unseen) expect(backfilled.has(f), `${f} was not backfilled\n${bot.err().slice(-3000)}`).toBe(true);

    // every order of theirs is in the fleet's registry
    const redis = new Redis(r.url);
    try {
      const orders = [...new Set(unseen.map((f) => f.split('|')[1]!))];
      const scores = await redis.zmscore(fleetKeys(address).memberOrders, ...orders);
      const missing = orders.filter((_, i) => scores[i] === null);
      expect(missing, bot.err().slice(-3000)).toEqual([]);
    } finally {
      redis.disconnect();
    }
  }, 240_000);
});
