/**
 * A followed market that resolves mid-run sends nothing more on the market channel: that silence is
 * expected. Before, the daemon replaced its market connection every `venue.marketSilenceMs`
 * ("silence: no data for 30000 ms") for as long as it ran (findings-5 P4).
 *
 * A daemon follows one market (silence deadline 1.5 s), the operator resolves it: the daemon pulls
 * its quotes and keeps running; several deadlines later its market channel was never replaced for
 * silence.
 */
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

const TOKEN = 'e2e-resolved-silence-admin';
const h = new BotHarness();
afterAll(() => h.close());

describe('mmkit run: a followed market resolves', () => {
  it('its silence on the market channel is expected: the connection is not replaced for it', async () => {
    const { ex, base } = await h.exchange(21, { adminToken: TOKEN });
    const admin = new Admin(base, TOKEN);
    let markets: string[] = [];
    await waitUntil(() => (markets = liquidMarkets(ex, 1, { tick: '0.01' })).length === 1, 60_000);
    const market = markets[0]!;
    const { dir, address } = h.dataDir();
    const bot = h.startBot(base, dir, ['--duration', '600s', '--markets', market], {
      MMKIT_MARKET_SILENCE_MS: '1500',
    });
    expect(await waitForQuotes(ex, address), bot.err().slice(-3000)).toBeGreaterThan(0);
    const from = logLines(bot.err()).length;
    await admin.resolve(market, ex.exchange.market(market)!.meta.tokens[0]);
    const pulled = () =>
      logLines(bot.err())
        .slice(from)
        .some((l) => l.msg === 'pulling quotes' && /resolved/.test(String(l['why'])));
    expect(await waitUntil(pulled, 30_000), bot.err().slice(-3000)).toBe(true);
    // several silence deadlines
    await sleep(8_000);
    expect(bot.p.exitCode, bot.err().slice(-3000)).toBe(null);
    const silenced = logLines(bot.err())
      .slice(from)
      .filter((l) => l.msg === 'stream disconnected' && /silence/.test(String(l['reason'])));
    expect(silenced, JSON.stringify(silenced).slice(0, 1500)).toEqual([]);
    bot.p.kill('SIGTERM');
    expect(await exited(bot.p), bot.err().slice(-3000)).toBe(0);
  }, 180_000);
});
