/**
 * `mmkit run --log-format pretty` against a running paper exchange: the terminal view a person
 * reads on stderr: one status line per period (markets, open orders, fills this session, PnL) and
 * each fill with its side, size, outcome, price and the market's question; no JSON line, no
 * colour (stderr is a pipe here), no token id cut short (nor in the summary on stdout).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Trader } from '../integration/support/trader.ts';
import { BotHarness, exited, makeBotFill, waitForQuotes, waitUntil } from './support/bot-harness.ts';

const h = new BotHarness();
afterAll(() => h.close());

const STATUS =
  /^\d\d:\d\d:\d\d INFO {2}status {2}\d+ markets? · \d+ open orders? · (\d+) fills? this session · \d+ positions? · PnL [+-]\d+\.\d\d USDC \(trading [+-]\d+\.\d\d, fees [+-]\d+\.\d\d(?:, rewards [+-]\d+\.\d\d)?\)$/m;
const FILL =
  /^\d\d:\d\d:\d\d INFO {2}fill {4}(BUY |SELL) (\d+(?:\.\d+)?) (Yes|No) @ (0\.\d+) · (.+?) {2}\(maker[^)]*\)$/m;

describe('mmkit run --log-format pretty', () => {
  it('prints the status line and a fill line a person can read', async () => {
    const { ex, base } = await h.exchange(5);
    const { dir, address } = h.dataDir();
    const bot = h.startBot(base, dir, ['--duration', '90s', '--log-format', 'pretty'], {
      MMKIT_STATUS_INTERVAL_MS: '1000',
    });
    expect(await waitForQuotes(ex, address), bot.err().slice(-2000)).toBeGreaterThan(0);
    const t = new Trader(ex.urls.clob_url);
    await t.createKey();
    expect(await makeBotFill(ex, t, address), bot.err().slice(-2000)).toBe(true);
    // a status line counting the fill (the view's line, once a period)
    await waitUntil(
      () => [...bot.err().matchAll(new RegExp(STATUS.source, 'gm'))].some((m) => Number(m[1]) > 0),
      30_000,
      100,
    );
    bot.p.kill('SIGTERM');
    expect(await exited(bot.p), bot.err().slice(-3000)).toBe(0);
    const err = bot.err();
    expect(err).toMatch(STATUS);
    const fill = FILL.exec(err);
    expect(fill, err.slice(-3000)).not.toBeNull();
    // the fill names its market by the question the daemon started with
    const question = fill![5]!.replace(/…$/, '');
    const starting = err.split('\n').find((l) => l.includes('INFO  starting: '));
    expect(starting).toContain(question);
    expect(question).not.toMatch(/^0x[0-9a-f]+$/);
    // the view only: no JSON line, no colour on a pipe, no status dump over several lines
    expect(err.split('\n').filter((l) => l.startsWith('{'))).toEqual([]);
    expect(err).not.toContain('\u001b[');
    expect(err).not.toMatch(/^\s+positions:/m);
    // the summary on stdout names the positions held by outcome and question, never a cut id
    const held = /^ {2}positions held {4}(.*)$/m.exec(bot.out())?.[1];
    expect(held, bot.out()).toBeDefined();
    if (held !== 'none') expect(held).toMatch(/^[\d.]+ (Yes|No) · \S/);
    expect(held).not.toMatch(/\d{8,}…/);
  }, 180_000);
});
