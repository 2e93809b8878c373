/**
 * The done-when for post-only quoting, through `mmkit run` and the paper exchange: in a
 * paper run with at least 50 fills of the bot (the flow agents at four times their usual activity,
 * and a counterparty lifting the bot's asks and hitting its bids), every quote reached the
 * exchange with the post-only flag, and every fill of the bot in its store is MAKER, except fills
 * of its own FOK/FAK orders (the shipped bands strategy sends none). The bot quotes close to the
 * touch and re-quotes on small moves, so that the book often moves between its look and the
 * exchange's: without the flag, some of those quotes would have taken.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningExchange } from '../../src/exchange/server.ts';
import { Trader } from '../integration/support/trader.ts';
import {
  BotHarness,
  botFills,
  exited,
  hitBotBid,
  liquidMarkets,
  sleep,
  waitForQuotes,
  waitUntil,
} from './support/bot-harness.ts';

const h = new BotHarness();
afterAll(() => h.close());

/** Every order `address` sent to the exchange: its type and post-only flag (from the exchange's side). */
function recordPlaces(ex: RunningExchange, address: string): Map<string, { type: string; postOnly: boolean }> {
  const seen = new Map<string, { type: string; postOnly: boolean }>();
  const px = ex.exchange;
  const place = px.place.bind(px);
  px.place = (key, req) => {
    const out = place(key, req);
    if (key.address.toLowerCase() === address) seen.set(out.orderID, { type: req.orderType, postOnly: req.postOnly });
    return out;
  };
  return seen;
}

/** The counterparty lifts one of the bot's asks (a FAK buy at its price, sweeping what is ahead). */
async function liftBotAsk(ex: RunningExchange, t: Trader, address: string): Promise<boolean> {
  const ask = ex.exchange.openOrders(address).find((o) => o.side === 'SELL');
  if (ask === undefined) return false;
  const m = ex.exchange.marketOfToken(ask.tokenId)!;
  const ahead = ex.exchange.engine
    .book(ask.tokenId)
    .asks.filter((l) => l.price <= ask.price)
    .reduce((s, l) => s + l.size, 0);
  const r = await t.place(
    ask.tokenId,
    'BUY',
    (ask.price / 10000).toFixed(4),
    (Math.max(5_000_000, ahead) / 1e6).toFixed(2),
    {
      type: 'FAK',
      tick: '0.0001',
      negRisk: m.entry.meta.negRisk,
    },
  );
  if (r.status !== 200) throw new Error(`counterparty order refused: ${JSON.stringify(r.body)}`);
  return true;
}

describe('mmkit run: post-only quoting', () => {
  it('at least 50 fills of the bot, every one MAKER (its quotes all sent post-only)', async () => {
    const { ex, base } = await h.exchange(11, { rate: 4 });
    const { dir, address } = h.dataDir();
    const sent = recordPlaces(ex, address);
    const t = new Trader(ex.urls.clob_url);
    await t.createKey();
    let markets: string[] = [];
    await waitUntil(() => (markets = liquidMarkets(ex, 3)).length === 3, 60_000);
    expect(markets).toHaveLength(3);
    // quotes near the touch (moved behind it by the strategy's own rule), re-quoted on small moves
    const bot = h.startBot(base, dir, [
      '--duration',
      '600s',
      '--markets',
      markets.join(','),
      '--param',
      'margin=0.005',
      '--param',
      'marginStep=0.005',
      '--param',
      'marginTolerance=0.002',
      '--param',
      'amount=5',
      '--param',
      'amountStep=0',
    ]);
    expect(await waitForQuotes(ex, address), bot.err().slice(-3000)).toBeGreaterThan(0);
    // trade with the bot until it has 50 fills (the agents fill it too)
    const end = Date.now() + 150_000;
    while (botFills(ex, address).length < 50 && Date.now() < end && bot.p.exitCode === null) {
      if (!(await liftBotAsk(ex, t, address))) await hitBotBid(ex, t, address);
      await sleep(150);
    }
    const atExchange = botFills(ex, address).length;
    expect(atExchange, bot.err().slice(-3000)).toBeGreaterThanOrEqual(50);
    bot.p.kill('SIGTERM');
    const code = await exited(bot.p);
    expect(code, bot.err().slice(-3000)).toBe(0);

    // every quote the bot sent carried the post-only flag; immediate orders never do
    const quotes = [...sent.values()].filter((o) => o.type === 'GTC' || o.type === 'GTD');
    expect(quotes.length).toBeGreaterThan(0);
    expect(quotes.filter((o) => !o.postOnly)).toEqual([]);
    expect([...sent.values()].filter((o) => (o.type === 'FOK' || o.type === 'FAK') && o.postOnly)).toEqual([]);

    // the store: the bot's fills (not another client's: source 'bot')
    const db = new Database(join(dir, 'mmkit.db'), { readonly: true });
    const rows = db
      .prepare(
        `SELECT f.trade_id, f.order_id, f.role, o.type FROM fills f JOIN orders o ON o.id = f.order_id
         WHERE f.status != 'FAILED' AND f.source = 'bot'`,
      )
      .all() as Array<{ trade_id: string; order_id: string; role: string; type: string }>;
    const all = (db.prepare('SELECT COUNT(*) AS n FROM fills').get() as { n: number }).n;
    db.close();
    expect(all).toBe(new Set(botFills(ex, address)).size); // every fill of the wallet stored, each once
    expect(rows.length).toBeGreaterThanOrEqual(50);
    const takers = rows.filter((r) => r.role !== 'MAKER' && r.type !== 'FOK' && r.type !== 'FAK');
    expect(takers, 'fills of quotes that took liquidity').toEqual([]);
  }, 300_000);
});
