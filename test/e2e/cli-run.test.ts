import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { Trader } from '../integration/support/trader.ts';
import { BotHarness, botFills, makeBotFill, waitForQuotes, exited } from './support/bot-harness.ts';

const h = new BotHarness();
afterAll(() => h.close());

describe('mmkit run', () => {
  it('quotes, records a fill once, and stops with zero open orders', async () => {
    const { ex, base } = await h.exchange(3);
    const { dir, address } = h.dataDir();
    // the run ends at --duration: long enough for its start and a fill on a loaded machine
    const bot = h.startBot(base, dir, ['--duration', '60s']);
    expect(await waitForQuotes(ex, address), bot.err().slice(-2000)).toBeGreaterThan(0);
    const t = new Trader(ex.urls.clob_url);
    await t.createKey();
    expect(await makeBotFill(ex, t, address), bot.err().slice(-2000)).toBe(true);
    expect(bot.p.exitCode, 'the run ended before its fill').toBe(null);
    const code = await exited(bot.p);
    expect(code, bot.err().slice(-3000)).toBe(0);
    expect(bot.out()).toContain('open orders left  0');
    expect(ex.exchange.openOrders(address)).toEqual([]);
    // every fill of the bot at the exchange is in SQLite exactly once
    const venueFills = botFills(ex, address);
    expect(venueFills.length).toBeGreaterThan(0);
    const db = new Database(join(dir, 'mmkit.db'), { readonly: true });
    const rows = db.prepare('SELECT trade_id, order_id FROM fills').all() as Array<{
      trade_id: string;
      order_id: string;
    }>;
    db.close();
    expect(rows.map((r) => `${r.trade_id}|${r.order_id}`).sort()).toEqual([...new Set(venueFills)].sort());
  }, 150_000);

  it('exits 3 with the reason when the venue is unreachable (never a silent exit 0)', async () => {
    const { dir } = h.dataDir();
    // port 1 on loopback: connection refused
    const bot = h.startBot('http://127.0.0.1:1', dir, ['--duration', '5s']);
    const code = await exited(bot.p);
    expect(code, bot.err().slice(-2000)).toBe(3);
    expect(bot.err()).toContain('ECONNREFUSED');
  }, 90_000);
});
