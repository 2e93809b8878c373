/**
 * A frozen market feed stops the quoting no later than /healthz calls it stale (findings-6 F1).
 * Before, /healthz reported `feed_stale` at `ops.feedStaleMs` (15 s) while the books went stale
 * and the quotes were pulled only at `venue.marketSilenceMs` (30 s): for 15 s the bot traded, and
 * placed new orders, on a book its own health check called stale.
 *
 * With the defaults (nothing set), the exchange freezes the market stream: the daemon's market
 * connection is replaced for silence (books stale, quotes pulled) no later than /healthz first
 * turns unhealthy, and nothing is placed after that while the feed stays frozen.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  Admin,
  BotHarness,
  exited,
  liquidMarkets,
  logLines,
  sleep,
  waitForQuotes,
  waitUntil,
} from './support/bot-harness.ts';

const TOKEN = 'e2e-frozen-feed-admin';
const h = new BotHarness();
afterAll(() => h.close());

describe('mmkit run: a frozen market feed (default thresholds)', () => {
  it('quotes are pulled no later than /healthz reports the feed stale, and none placed after', async () => {
    const { ex, base } = await h.exchange(23, { adminToken: TOKEN });
    const admin = new Admin(base, TOKEN);
    let markets: string[] = [];
    await waitUntil(() => (markets = liquidMarkets(ex, 1)).length === 1, 60_000);
    const { dir, address } = h.dataDir();
    const bot = h.startBot(base, dir, ['--duration', '900s', '--markets', markets[0]!]);
    expect(await waitForQuotes(ex, address, 90_000), bot.err().slice(-3000)).toBeGreaterThan(0);
    const statusUrl = (): string | undefined => {
      try {
        return (JSON.parse(readFileSync(join(dir, 'daemon.json'), 'utf8')) as { statusUrl?: string }).statusUrl;
      } catch {
        return undefined; // not there yet, or half-written
      }
    };
    expect(await waitUntil(() => statusUrl() !== undefined, 60_000)).toBe(true);
    const healthz = async (): Promise<{ status: number; body: string }> => {
      const r = await fetch(`${statusUrl()}/healthz`);
      return { status: r.status, body: await r.text() };
    };
    // healthy before the fault (the first data came, the books are whole)
    let last = await healthz();
    for (const end = Date.now() + 60_000; last.status !== 200 && Date.now() < end; last = await healthz())
      await sleep(200);
    expect(last.status, last.body).toBe(200);

    const from = logLines(bot.err()).length;
    const faultId = await admin.addFault({ stream: 'market', freeze: true });
    // the first moment /healthz says the feed is not fit to quote on (as this test sees it: load
    // only makes that later)
    for (const end = Date.now() + 90_000; last.status === 200 && Date.now() < end; last = await healthz())
      await sleep(200);
    const unhealthyAt = Date.now();
    expect(last.status, last.body).toBe(503);
    expect(last.body).toMatch(/feed_stale|market_stream_down/);

    // the market connection was replaced for silence (its books stale, quotes pulled) by then
    const silenced = () =>
      logLines(bot.err())
        .slice(from)
        .find(
          (l) => l.msg === 'stream disconnected' && l['stream'] === 'market' && /silence/.test(String(l['reason'])),
        );
    expect(await waitUntil(() => silenced() !== undefined, 60_000), bot.err().slice(-3000)).toBe(true);
    const down = silenced()!;
    expect(String(down['reason'])).toMatch(/no data for 15000 ms/);
    expect(down.time, `silence detected at ${down.time}, /healthz unhealthy at ${unhealthyAt}`).toBeLessThanOrEqual(
      unhealthyAt + 1000,
    );
    const pulled = () =>
      logLines(bot.err())
        .slice(from)
        .some((l) => l.msg === 'pulling quotes' && /stale/.test(String(l['why'])));
    expect(await waitUntil(pulled, 30_000), bot.err().slice(-3000)).toBe(true);
    // nothing placed on the stale feed: the venue's orders of the bot since /healthz said so (with
    // a margin for orders already on the wire)
    expect(await waitUntil(() => ex.exchange.openOrders(address).length === 0, 30_000)).toBe(true);
    const late = ex.exchange.engine
      .ordersOf(address)
      .filter((o) => o.createdAt > unhealthyAt + 2000)
      .map((o) => `${o.id.slice(0, 12)} at ${o.createdAt}`);
    expect(late).toEqual([]);

    await admin.removeFault(faultId);
    bot.p.kill('SIGTERM');
    expect(await exited(bot.p), bot.err().slice(-3000)).toBe(0);
  }, 300_000);
});
