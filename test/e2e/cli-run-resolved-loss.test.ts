/**
 * A followed market that resolves against a position is a loss the loss limit sees at once, while the
 * daemon runs (trial 25 F1: the position was left "without a mark" once its book was gone, the PnL kept
 * its profit, and bot.risk.maxLoss never tripped until a restart).
 *
 * The wallet holds 200 NO of one market when the daemon starts (booked by the start's audit at the
 * venue's price); the daemon quotes it, redeeming nothing (bot.autoRedeem off, a real venue's default); the
 * operator resolves it YES: the NO shares are worth nothing, the kill switch trips on the loss limit (exit 4) within seconds, well before any position audit (10 min).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Admin, BotHarness, exited, liquidMarkets, logLines, waitForQuotes, waitUntil } from './support/bot-harness.ts';

const TOKEN = 'e2e-resolved-loss-admin';
const h = new BotHarness();
afterAll(() => h.close());

describe('mmkit run: a followed market resolves against the position', () => {
  it('the loss limit sees the loss at once and stops the daemon (exit 4)', async () => {
    const { ex, base } = await h.exchange(21, { adminToken: TOKEN });
    const admin = new Admin(base, TOKEN);
    let markets: string[] = [];
    await waitUntil(() => (markets = liquidMarkets(ex, 1, { tick: '0.01' })).length === 1, 60_000);
    const market = markets[0]!;
    const [yes, no] = ex.exchange.market(market)!.meta.tokens;
    const { dir, address } = h.dataDir();
    ex.exchange.setTokens(address, no!, 200_000_000);
    const bot = h.startBot(base, dir, ['--duration', '600s', '--markets', market], {
      MMKIT_RISK_MAX_LOSS: '5',
      MMKIT_POSITION_AUDIT_MS: '600000',
      MMKIT_AUTO_MERGE: 'off',
      // held until redeemed, as on a real venue (autoRedeem auto is off there): a redemption would realize the loss
      MMKIT_AUTO_REDEEM: 'off',
      MMKIT_LOG_FORMAT: 'json',
    });
    expect(await waitForQuotes(ex, address), bot.err().slice(-3000)).toBeGreaterThan(0);
    expect(bot.p.exitCode).toBeNull();
    await admin.resolve(market, yes!);
    const t0 = Date.now();
    const code = await Promise.race([exited(bot.p), new Promise((r) => setTimeout(() => r('running'), 60_000))]);
    expect(code, bot.err().slice(-3000)).toBe(4);
    expect(Date.now() - t0).toBeLessThan(60_000);
    expect(bot.out() + bot.err()).toMatch(/lossLimit: PnL -[0-9.]+ below -5 /);
    // the exit summary marks it as the loss limit did: at 0, not "without a mark" (verification of trial 25 F1)
    const atExit = logLines(bot.err()).find((l) => l.msg === 'position at exit' && l['tokenId'] === no);
    expect(atExit, bot.err().slice(-3000)).toMatchObject({ mark: '0' });
    expect(bot.out()).not.toContain('without a mark');
  }, 240_000);
});
