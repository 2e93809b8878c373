/**
 * The daemon's JSON log (`--log-format json`, the Docker image's default) as a log shipper reads it
 * (and its warning about flags of the in-process exchange given with --exchange-url; the modes of a
 * data dir it creates: 0700, its store 0600):
 *  - every line names its `component` (README "Logs"), the daemon's own lines (starting, status,
 *    stopping, position at exit, summary, ...) included;
 *  - a fill names the whole token id and its outcome, so a YES buy is told from a NO buy;
 *  - the status line's positions carry the whole token id (joinable with /api/status, /metrics and
 *    the store), its outcome and market, not a 10-digit prefix.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Trader } from '../integration/support/trader.ts';
import {
  BotHarness,
  botMarkets,
  exited,
  hitBotBidWithin,
  logLines,
  waitForQuotes,
  waitUntil,
} from './support/bot-harness.ts';

const h = new BotHarness();
afterAll(() => h.close());

describe('mmkit run --log-format json', () => {
  it('every line has a component; fills and status positions name the whole token and its outcome', async () => {
    const { ex, base } = await h.exchange(11);
    const { dir, address } = h.dataDir();
    const bot = h.startBot(base, dir, ['--duration', '600s', '--log-format', 'json'], {
      MMKIT_STATUS_INTERVAL_MS: '500',
      MMKIT_USER_AUDIT_MS: '0',
    });
    expect(await waitForQuotes(ex, address), bot.err().slice(-2000)).toBeGreaterThan(0);
    const t = new Trader(ex.urls.clob_url);
    await t.createKey();
    // a counterparty fills a bid of the bot: a fill line, then a position on the status line
    const fillLine = () => logLines(bot.err()).find((l) => l.msg === 'fill');
    const held = () =>
      logLines(bot.err()).find((l) => l.msg === 'status' && Array.isArray(l['positions']) && l['positions'].length > 0);
    const end = Date.now() + 60_000;
    while ((fillLine() === undefined || held() === undefined) && Date.now() < end) {
      await hitBotBidWithin(ex, t, address, undefined, 5_000);
      await waitUntil(() => fillLine() !== undefined && held() !== undefined, 3_000);
    }
    expect(fillLine(), bot.err().slice(-3000)).toBeDefined();
    expect(held(), bot.err().slice(-3000)).toBeDefined();
    bot.p.kill('SIGTERM');
    expect(await exited(bot.p), bot.err().slice(-3000)).toBe(0);

    const lines = logLines(bot.err());
    const markets = botMarkets(bot.err()) ?? [];
    const tokens = new Map<string, { outcome: string; market: string }>();
    for (const m of markets)
      for (const x of marketTokens(ex, m)) tokens.set(x.tokenId, { outcome: x.outcome, market: m });

    // every line names its component
    const without = lines.filter((l) => typeof l['component'] !== 'string' || l['component'] === '');
    expect(without.map((l) => l.msg)).toEqual([]);
    for (const msg of ['starting', 'status', 'stopping: cancelling all orders', 'SIGTERM: stopping', 'summary'])
      expect(
        lines.find((l) => l.msg === msg),
        msg,
      ).toMatchObject({ component: 'daemon' });
    expect(lines.find((l) => l.msg === 'restart reconciliation done')).toMatchObject({ component: 'daemon' });
    expect(lines.find((l) => l.msg.startsWith('status page on'))).toMatchObject({ component: 'status-server' });

    // the fill: the whole token id and its outcome
    const f = fillLine()!;
    expect(typeof f['token']).toBe('string');
    expect(tokens.get(f['token'] as string), JSON.stringify(f)).toBeDefined();
    expect(f['outcome']).toBe(tokens.get(f['token'] as string)!.outcome);

    // the status line's positions: whole token id, outcome, market
    const p = (held()!['positions'] as Array<Record<string, unknown>>)[0]!;
    const known = tokens.get(p['token'] as string);
    expect(known, JSON.stringify(p)).toBeDefined();
    expect(p).toMatchObject({ outcome: known!.outcome, market: known!.market });
    expect(typeof p['size']).toBe('string');
  }, 240_000);

  it('warns that --world-profile, --rewards-* and exchange.feeRateBps (set in the environment) have no effect with --exchange-url; a new data dir is private', async () => {
    const { base } = await h.exchange(12);
    // a data dir the daemon creates (with its paper wallet and store)
    const dir = join(h.dataDir().dir, 'new');
    const bot = h.startBot(
      base,
      dir,
      ['--duration', '2s', '--log-format', 'json', '--world-profile', 'toxic', '--rewards-epoch', '2m'],
      { MMKIT_EXCHANGE_FEE_RATE_BPS: '200', MMKIT_RISK_MAX_POSITON_SHARES: '5' },
    );
    expect(await exited(bot.p), bot.err().slice(-3000)).toBe(0);
    const warned = logLines(bot.err()).filter((l) => Array.isArray(l['flags']));
    expect(warned, bot.err().slice(-3000)).toHaveLength(1);
    // the key set by the environment is named too (trial 12 F8: only flags were)
    expect(warned[0]).toMatchObject({
      level: 40,
      component: 'daemon',
      flags: ['--world-profile', '--rewards-epoch', 'exchange.feeRateBps'],
    });
    expect(warned[0]!.msg).toContain('no effect');
    // a misspelt variable is named, with the one meant (trial 13 F1)
    expect(logLines(bot.err()).find((l) => l['variable'] === 'MMKIT_RISK_MAX_POSITON_SHARES')).toMatchObject({
      level: 40,
      nearest: 'MMKIT_RISK_MAX_POSITION_SHARES',
    });
    // the trading history is private: the data dir 0700, the store (and its WAL) 0600, as the wallet key
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const f of ['mmkit.db', 'mmkit.db-wal', 'paper-wallet.key'])
      if (existsSync(join(dir, f)) || f === 'mmkit.db') expect(statSync(join(dir, f)).mode & 0o777, f).toBe(0o600);
  }, 240_000);
});

/** The tokens of one market at the exchange, with their outcomes (listing order). */
function marketTokens(
  ex: Awaited<ReturnType<BotHarness['exchange']>>['ex'],
  market: string,
): Array<{ tokenId: string; outcome: string }> {
  const m = ex.exchange.market(market);
  return m === undefined ? [] : m.meta.tokens.map((tokenId, i) => ({ tokenId, outcome: m.meta.outcomes[i]! }));
}
