/**
 * `mmkit run` with MMKIT_REDIS_URL: the daemon's request budgets are the fleet's shared windows in
 * that Redis (src/fleet/shared-budgets.ts): it quotes, its requests are counted in Redis under its
 * account, the log says so without the URL's password, and it stops in order (exit 0) with the
 * connection closed.
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { exited, liquidMarkets, logLines, waitForQuotes, waitUntil } from './support/bot-harness.ts';
import { fleetHarness } from './support/fleet-harness.ts';

const { h, r } = fleetHarness();

describe('mmkit run in a fleet: shared budgets', () => {
  it('quotes with its POST /orders counted in Redis, and stops in order', async () => {
    const { ex, base } = await h.exchange(11);
    const { dir, address } = h.dataDir();
    let markets: string[] = [];
    await waitUntil(() => (markets = liquidMarkets(ex, 2)).length === 2, 60_000);
    const bot = h.startBot(base, dir, ['--duration', '600s', '--markets', markets.join(',')], {
      MMKIT_REDIS_URL: r.url,
      MMKIT_FLEET_MEMBER: 'e2e-a',
    });
    expect(await waitForQuotes(ex, address), bot.err().slice(-3000)).toBeGreaterThan(0);
    const c = new Redis(r.url);
    try {
      const prefix = `mmkit:{${address}}:w:`;
      expect(await c.exists(`${prefix}table`)).toBe(1);
      // the orders went through the shared windows: their slots are stamped (or still in flight) there
      const counted =
        (await c.zcard(`${prefix}done:POST /orders:burst`)) + (await c.zcard(`${prefix}live:POST /orders:burst`));
      expect(counted).toBeGreaterThan(0);
      const members = (await c.zrange(`${prefix}done:general`, 0, -1)).map((s) => s.split(':')[0]);
      expect(new Set(members)).toEqual(new Set(['e2e-a']));
    } finally {
      c.disconnect();
    }
    const line = logLines(bot.err()).find((l) => l.msg === 'fleet: request budgets shared through Redis');
    expect(line, bot.err().slice(-3000)).toMatchObject({ member: 'e2e-a', redis: `${r.url}` });
    bot.p.kill('SIGTERM');
    expect(await exited(bot.p), bot.err().slice(-3000)).toBe(0);
    expect(ex.exchange.openOrders(address)).toEqual([]);
  }, 180_000);
});
