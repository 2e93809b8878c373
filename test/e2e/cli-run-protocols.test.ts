/**
 * `mmkit run` trades against a CLOB V2 exchange (the default, the public service's protocol since
 * 2026-04-28) and against a V1 one (`--protocol 1`), unchanged: it asks the venue (`GET /version`)
 * and signs what it speaks. Each run: the bot quotes, a counterparty hits its bid, the fill reaches
 * the store, every order it sent was signed in the exchange's protocol, and it stops clean.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { Trader } from '../integration/support/trader.ts';
import {
  BotHarness,
  botFills,
  exited,
  hitBotBidWithin,
  liquidMarkets,
  logLines,
  waitForQuotes,
  waitUntil,
} from './support/bot-harness.ts';

const h = new BotHarness();
afterAll(() => h.close());

describe('mmkit run: the protocol the venue speaks', () => {
  it.each([2, 1] as const)(
    'against a V%s exchange: quotes, a fill in the store, a clean stop',
    async (protocol) => {
      const { ex, base } = await h.exchange(21 + protocol, { protocol });
      const { dir, address } = h.dataDir();
      const t = new Trader(ex.urls.clob_url);
      t.protocol = protocol;
      await t.createKey();
      let markets: string[] = [];
      await waitUntil(() => (markets = liquidMarkets(ex, 2, { tick: '0.01' })).length === 2, 60_000);
      const bot = h.startBot(base, dir, ['--duration', '40s', '--markets', markets.join(',')]);
      expect(await waitForQuotes(ex, address), bot.err().slice(-3000)).toBeGreaterThan(0);
      expect(
        logLines(bot.err()).some((l) => l.msg === `signing CLOB V${protocol} orders` && l['asked'] === true),
        bot.err().slice(-3000),
      ).toBe(true);
      expect(await hitBotBidWithin(ex, t, address, undefined, 30_000), bot.err().slice(-3000)).toBe(true);
      const fills = botFills(ex, address);
      expect(fills.length).toBeGreaterThan(0);

      expect(await exited(bot.p), bot.err().slice(-3000)).toBe(0);
      expect(ex.exchange.openOrders(address)).toEqual([]);
      // every order the bot sent was signed in the exchange's protocol, and none was refused (but for races)
      const sent = ex.exchange.engine.ordersOf(address);
      expect(sent.length).toBeGreaterThan(0);
      expect(new Set(sent.map((o) => ex.exchange.signedProtocol(o.id)))).toEqual(new Set([protocol]));
      const db = new Database(join(dir, 'mmkit.db'), { readonly: true });
      const stored = db.prepare("SELECT trade_id, order_id FROM fills WHERE status != 'FAILED'").all() as Array<{
        trade_id: string;
        order_id: string;
      }>;
      const refused = db
        .prepare(
          // a crossing post-only quote (re-priced) and an ask sent while the ask it replaces is being
          // lifted (refused for balance, re-sized: the executor's sell race) are races of a moving
          // book, not errors
          `SELECT reject_code FROM orders WHERE status = 'rejected' AND reject_code != 'INVALID_POST_ONLY_ORDER'
             AND NOT (side = 'SELL' AND reject_code = 'INVALID_ORDER_NOT_ENOUGH_BALANCE')`,
        )
        .all();
      db.close();
      for (const f of fills) expect(stored.map((s) => `${s.trade_id}|${s.order_id}`)).toContain(f);
      expect(refused).toEqual([]);
    },
    180_000,
  );
});
