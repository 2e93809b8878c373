import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { Trader } from '../integration/support/trader.ts';
import {
  Admin,
  BotHarness,
  botFills,
  hitBotBid,
  liquidMarkets,
  logLines,
  recordRequests,
  sleep,
  waitForQuotes,
  waitUntil,
  exited,
} from './support/bot-harness.ts';

const TOKEN = 'e2e-429-admin';
const STORM_MS = 4000;
const h = new BotHarness();
afterAll(() => h.close());

describe('mmkit run: a 429 storm on POST /orders and DELETE /orders', () => {
  it('causes no retry storm, loses no intent and no order', async () => {
    const { ex, base } = await h.exchange(7, { adminToken: TOKEN });
    const admin = new Admin(base, TOKEN);
    const seen = recordRequests(ex);
    const { dir, address } = h.dataDir();
    const t = new Trader(ex.urls.clob_url);
    await t.createKey();
    await sleep(1000); // let the flow agents build the books
    // (slower under load: wait until three markets qualify)
    let markets: string[] = [];
    await waitUntil(() => (markets = liquidMarkets(ex, 3)).length === 3, 60_000);
    expect(markets).toHaveLength(3);
    // a narrow tolerance: the bot re-quotes (cancel, then place) whenever the mid moves a little
    // (a long --duration: the test stops it; on a loaded machine its steps take minutes)
    const bot = h.startBot(base, dir, [
      '--duration',
      '600s',
      '--markets',
      markets.join(','),
      '--param',
      'marginTolerance=0.002',
    ]);
    expect(await waitForQuotes(ex, address), bot.err().slice(-3000)).toBeGreaterThan(0);
    const quotingAll = () => new Set(ex.exchange.openOrders(address).map((o) => o.market)).size === markets.length;
    expect(await waitUntil(quotingAll, 60_000), bot.err().slice(-3000)).toBe(true);
    // the bot holds nothing yet: it only bids (unless the flow agents already filled a bid of it,
    // which a slow start allows: then an ask for that inventory is legitimate)
    if (botFills(ex, address).length === 0)
      expect(ex.exchange.openOrders(address).filter((o) => o.side === 'SELL')).toEqual([]);
    const fillsBefore = botFills(ex, address).length;

    // ---- the storm ---------------------------------------------------------------------------
    const stormAt = Date.now();
    const rules = [
      await admin.addFault({ route: 'POST /clob/orders', status: 429 }),
      await admin.addFault({ route: 'DELETE /clob/orders', status: 429 }),
    ];
    // the counterparty fills the bot's bids (its own orders go to POST /order, unaffected) again and
    // again during the storm: every fill changes the bot's intent on that market (the storm lasts
    // until at least one fill, up to 30 s: a loaded machine can miss every bid in 4 s)
    const stormFilled = () => botFills(ex, address).length > fillsBefore;
    for (let k = 0; Date.now() - stormAt < STORM_MS - 500 || (!stormFilled() && Date.now() - stormAt < 30_000); k++) {
      await hitBotBid(ex, t, address, markets[k % markets.length]);
      await sleep(400);
    }
    expect(botFills(ex, address).length, 'the counterparty could not fill a bid of the bot').toBeGreaterThan(
      fillsBefore,
    );
    const stormFills = botFills(ex, address)
      .slice(fillsBefore)
      .map((f) => ex.exchange.engine.getOrder(f.split('|')[1]!)!);
    const filledToken = stormFills[stormFills.length - 1]!.tokenId;
    await sleep(Math.max(0, stormAt + STORM_MS - Date.now()));
    for (const id of rules) await admin.removeFault(id);
    const stormEnd = Date.now();

    // no retry storm: counted at the exchange, during the storm
    const during = seen.filter(
      (r) =>
        r.at >= stormAt &&
        r.at <= stormEnd &&
        ((r.method === 'POST' && r.path === '/clob/orders') || (r.method === 'DELETE' && r.path === '/clob/orders')),
    );
    const seconds = Math.ceil((stormEnd - stormAt) / 1000);
    // the daemon did try (the storm was felt), and backed off
    expect(during.length, bot.err().slice(-3000)).toBeGreaterThan(0);
    expect(during.length).toBeLessThanOrEqual(2 * markets.length * seconds);

    // ---- after the storm: the latest intent reaches the venue -----------------------------------
    // the ask for the inventory bought during the storm (bands sells YES it holds) ...
    const askAfterStorm = () =>
      ex.exchange
        .openOrders(address)
        .some((o) => o.side === 'SELL' && o.tokenId === filledToken && o.createdAt >= stormAt);
    expect(await waitUntil(askAfterStorm, 60_000), bot.err().slice(-3000)).toBe(true);
    // ... and bids on every market again
    const bidsEverywhere = () =>
      new Set(
        ex.exchange
          .openOrders(address)
          .filter((o) => o.side === 'BUY')
          .map((o) => o.market),
      ).size === markets.length;
    expect(await waitUntil(bidsEverywhere, 60_000), bot.err().slice(-3000)).toBe(true);

    // ---- the run ends cleanly ----------------------------------------------------------------
    bot.p.kill('SIGTERM');
    const code = await exited(bot.p);
    expect(code, bot.err().slice(-3000)).toBe(0);
    expect(bot.out()).toContain('open orders left  0');
    expect(ex.exchange.openOrders(address)).toEqual([]);

    // the daemon logged the storm's 429s (read now that its whole log is in: a 429 answered just
    // before the storm ended can be logged after it, later still on a loaded machine)
    const limited = logLines(bot.err()).filter(
      (l) => l.msg === 'rate limited (429): pausing the budget' && l.time >= stormAt && l.time <= stormEnd + 10_000,
    );
    expect(limited.length).toBeGreaterThan(0);
    // the daemon's 429s are the exchange's refusals counted above: nothing else was refused
    expect(limited.length).toBeLessThanOrEqual(during.length);

    // ---- no order lost -------------------------------------------------------------------------
    const db = new Database(join(dir, 'mmkit.db'), { readonly: true });
    const stored = db.prepare('SELECT id, status, reject_code, size_matched FROM orders').all() as Array<{
      id: string;
      status: string;
      reject_code: string | null;
      size_matched: number;
    }>;
    db.close();
    const byId = new Map(stored.map((r) => [r.id, r]));
    // every order the venue saw was recorded before it was sent
    const venueOrders = ex.exchange.engine.ordersOf(address);
    for (const o of venueOrders) expect(byId.has(o.id), `order ${o.id} at the venue is not in the store`).toBe(true);
    // every stored order: known to the venue with the same outcome, or never accepted and recorded so
    const problems: string[] = [];
    for (const r of stored) {
      const v = ex.exchange.engine.getOrder(r.id);
      if (v === undefined) {
        if (r.status !== 'rejected') problems.push(`${r.id.slice(0, 12)}: not at the venue, stored as ${r.status}`);
      } else if (v.status === 'MATCHED') {
        if (r.status !== 'filled') problems.push(`${r.id.slice(0, 12)}: filled at the venue, stored as ${r.status}`);
      } else if (v.status === 'CANCELED') {
        if (r.status !== 'cancelled' && r.status !== 'filled')
          problems.push(`${r.id.slice(0, 12)}: cancelled at the venue, stored as ${r.status}`);
        if (r.size_matched !== v.sizeMatched)
          problems.push(`${r.id.slice(0, 12)}: matched ${v.sizeMatched} at the venue, ${r.size_matched} stored`);
      } else problems.push(`${r.id.slice(0, 12)}: still ${v.status} at the venue`);
    }
    expect(problems).toEqual([]);
    // the fill of the storm is in the store exactly once
    const db2 = new Database(join(dir, 'mmkit.db'), { readonly: true });
    const fills = (
      db2.prepare('SELECT trade_id, order_id FROM fills').all() as Array<{ trade_id: string; order_id: string }>
    ).map((r) => `${r.trade_id}|${r.order_id}`);
    db2.close();
    expect(fills.sort()).toEqual([...new Set(botFills(ex, address))].sort());
  }, 240_000);
});
