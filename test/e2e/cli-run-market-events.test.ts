import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningExchange } from '../../src/exchange/server.ts';
import { Trader } from '../integration/support/trader.ts';
import {
  Admin,
  BotHarness,
  hitBotBidWithin,
  liquidMarkets,
  logLines,
  sleep,
  waitUntil,
  type BotProcess,
  exited,
} from './support/bot-harness.ts';
import { runMmkit } from './support/cli.ts';

const TOKEN = 'e2e-market-events-admin';
const h = new BotHarness();
let ex: RunningExchange;
let admin: Admin;
let address: string;
let dir: string;
let bot: BotProcess;
let markets: string[];

beforeAll(async () => {
  const x = await h.exchange(8, { adminToken: TOKEN });
  ex = x.ex;
  admin = new Admin(x.base, TOKEN);
  await sleep(1000); // let the flow agents build the books
  // (slower under load: wait until three markets qualify)
  await waitUntil(() => (markets = liquidMarkets(ex, 3, { tick: '0.01' })).length === 3, 60_000);
  expect(markets.length).toBe(3);
  const d = h.dataDir();
  address = d.address;
  dir = d.dir;
  // the second test waits for the end of --duration: long enough for both tests' steps on a loaded
  // machine (on a quiet one they take ~25 s; the rest is waited out)
  // markets re-read every second (venue.marketRefreshMs): a close or a reward change is seen at once
  bot = h.startBot(x.base, d.dir, ['--duration', '150s', '--markets', markets.join(','), '--log-level', 'debug'], {
    MMKIT_MARKET_REFRESH_MS: '1000',
  });
  expect(await waitUntil(() => quoted().size === markets.length, 60_000), bot.err().slice(-3000)).toBe(true);
}, 120_000);
afterAll(() => h.close());

/** The markets the bot has orders resting on. */
const quoted = (): Set<string> => new Set(ex.exchange.openOrders(address).map((o) => o.market));
/** The bot's orders (any status) at the venue on a market, created at or after `since`. */
const ordersSince = (market: string, since: number) =>
  ex.exchange.engine.ordersOf(address).filter((o) => o.market === market && o.createdAt >= since);
/** Orders the venue rejected, as the daemon logged them. */
const rejections = () => logLines(bot.err()).filter((l) => l.msg === 'order rejected');
/** Quotes the daemon's risk gate refused as off-tick (debug log). */
const offTickRefusals = (since: number) =>
  logLines(bot.err()).filter((l) => l.msg === 'quote refused' && l['code'] === 'OFF_TICK' && l.time >= since);

describe('mmkit run: market events', () => {
  it('a tick-size change (finer, then coarser): the bot re-quotes on the new tick, nothing refused', async () => {
    const m = markets[0]!;
    const t = new Trader(ex.urls.clob_url);
    await t.createKey();
    for (const [tick, pips] of [
      ['0.001', 10],
      ['0.01', 100],
    ] as const) {
      const at = Date.now();
      await admin.setTickSize(m, tick);
      // the venue cancels resting orders off a coarser tick: wait until the bot quotes the market again
      expect(
        await waitUntil(() => quoted().has(m), 30_000),
        `the bot stopped quoting ${m} on tick ${tick}\n${bot.err().slice(-3000)}`,
      ).toBe(true);
      // make it re-quote on the new tick: fill one of its bids there; it refills the band with a new order
      await sleep(500);
      const filledAt = Date.now();
      expect(
        await hitBotBidWithin(ex, t, address, m, 30_000),
        `the bot had no bid on ${m} on tick ${tick} for 30 s\n${bot.err().slice(-3000)}`,
      ).toBe(true);
      const requoted = () => ordersSince(m, filledAt).length > 0 && quoted().has(m);
      expect(
        await waitUntil(requoted, 30_000),
        `no new quote on ${m} after a fill on tick ${tick}\n${bot.err().slice(-3000)}`,
      ).toBe(true);
      await sleep(2000); // a little more flow on the new tick
      // every order the bot sent since the change is on the new tick ...
      const off = ordersSince(m, at)
        .filter((o) => o.price % pips !== 0)
        .map((o) => o.price);
      expect(off, `orders off the ${tick} tick`).toEqual([]);
      // ... and nothing was refused: not by the venue, not as off-tick by the daemon's own gate
      expect(rejections().map((l) => `${String(l['code'])} ${String(l['order'])}`)).toEqual([]);
      expect(offTickRefusals(at).map((l) => l['reason'])).toEqual([]);
    }
  }, 240_000);

  it('a market resolving: its quotes pulled for good, the others still quoted; a market closed: pulled, a reward change followed', async () => {
    const [, gone, other] = markets as [string, string, string];
    const t = new Trader(ex.urls.clob_url);
    await t.createKey();
    // (a look can fall in a cancel-first replacement, when a market has no order for a moment)
    expect(await waitUntil(() => quoted().has(gone) && quoted().has(other), 30_000), bot.err().slice(-3000)).toBe(true);
    const from = logLines(bot.err()).length;
    await admin.resolve(gone, ex.exchange.market(gone)!.meta.tokens[0]);
    // the venue cancelled its quotes there; the daemon saw the resolution and pulled the market
    const pulled = () =>
      logLines(bot.err())
        .slice(from)
        .some((l) => l.msg === 'pulling quotes' && l['market'] === gone && /resolved/.test(String(l['why'])));
    expect(await waitUntil(pulled, 30_000), bot.err().slice(-3000)).toBe(true);
    // from the moment the daemon saw the resolution (an order sent before it learnt of it, after the
    // venue resolved, is the race of any quoter with the venue's own event)
    const pulledAt = logLines(bot.err())
      .slice(from)
      .find((l) => l.msg === 'pulling quotes' && l['market'] === gone)!.time;
    expect(quoted().has(gone)).toBe(false);
    // it keeps quoting the others: a fill on another market is refilled with a new order
    await sleep(500);
    const filledAt = Date.now();
    expect(
      await hitBotBidWithin(ex, t, address, other, 30_000),
      `the bot had no bid on ${other} for 30 s\n${bot.err().slice(-3000)}`,
    ).toBe(true);
    expect(
      await waitUntil(() => ordersSince(other, filledAt).length > 0 && quoted().has(other), 30_000),
      bot.err().slice(-3000),
    ).toBe(true);
    // several strategy timers later, nothing was ever sent for the resolved market, nor refused
    await sleep(3000);
    expect(ordersSince(gone, pulledAt).map((o) => o.id)).toEqual([]);
    expect(quoted().has(gone)).toBe(false);
    for (const m of markets)
      if (m !== gone) expect(await waitUntil(() => quoted().has(m), 30_000), `the bot stopped quoting ${m}`).toBe(true);

    // the operator closes a market (no resolution) and rewards another: the daemon's re-read of its
    // markets pulls the closed one (why: market closed, in the log and in `mmkit status`) and logs
    // the reward config it now quotes and estimates with (trial 16 F3/F7)
    const closed = markets[0]!;
    const from2 = logLines(bot.err()).length;
    await admin.call('POST', `/markets/${closed}/close`, {});
    await admin.call('POST', '/rewards', {
      condition_id: other,
      rewards: { max_spread: 3.5, min_size: '50', daily_rate: '65' },
    });
    const since2 = () => logLines(bot.err()).slice(from2);
    expect(
      await waitUntil(
        () =>
          since2().some(
            (l) => l.msg === 'pulling quotes' && l['market'] === closed && /market closed/.test(String(l['why'])),
          ),
        30_000,
      ),
      bot.err().slice(-3000),
    ).toBe(true);
    expect(
      await waitUntil(
        () =>
          since2().some(
            (l) =>
              l.msg === 'market updated at the venue: rewards' &&
              l['market'] === other &&
              l['rewards'] === 'pool 65/day, band 3.5c, min 50',
          ),
        30_000,
      ),
      bot.err().slice(-3000),
    ).toBe(true);
    // `mmkit status` says why (its snapshot is taken every second: asked until it has the pull)
    let shown: { quotable: boolean; why: string | null } | undefined;
    for (let i = 0; i < 20; i++) {
      const st = await runMmkit(['status', '--data-dir', dir, '--json']);
      expect(st.code, st.err).toBe(0);
      shown = (JSON.parse(st.out).markets as Array<{ market: string; quotable: boolean; why: string | null }>).find(
        (x) => x.market === closed,
      );
      if (shown?.quotable === false) break;
      await sleep(500);
    }
    expect(shown).toMatchObject({ quotable: false, why: 'market closed (the venue accepts no orders)' });
    expect(await waitUntil(() => !quoted().has(closed), 10_000)).toBe(true);
    expect(quoted().has(other)).toBe(true);
    // (a quote on the resolving market sent before the daemon saw the resolution is refused
    // MARKET_NOT_READY: a race of any quoter with the venue's own event, not a refusal of a good order)
    const raced = (l: Record<string, unknown>) =>
      l['code'] === 'MARKET_NOT_READY' && (l['market'] === gone || l['market'] === markets[0]);
    expect(
      rejections()
        .filter((l) => !raced(l))
        .map((l) => `${String(l['code'])} ${String(l['order'])}`),
    ).toEqual([]);

    // the end of --duration: a clean stop, exit 0, nothing left at the venue
    const code = await exited(bot.p);
    expect(code, bot.err().slice(-3000)).toBe(0);
    expect(bot.out()).toContain('mmkit run stopped (duration)');
    expect(bot.out()).toContain('open orders left  0');
    expect(ex.exchange.openOrders(address)).toEqual([]);
    // the store agrees: no order was even signed for the resolved market after it resolved, and no
    // order of the run was refused (but for post-only crossings)
    const db = new Database(join(dir, 'mmkit.db'), { readonly: true });
    const late = db.prepare('SELECT id FROM orders WHERE market = ? AND created_at >= ?').all(gone, pulledAt);
    // Two races of any quoter, not refusals of the bot's orders: a post-only quote that arrives after
    // the book moved through its price is refused as crossing (and re-priced); an ask re-placed in
    // the moment a flow agent lifts part of the one it replaces is sized on shares the bot no longer
    // holds (the fill is on its way) and is refused for balance (re-sized on the next intent).
    const refused = db
      .prepare(
        `SELECT id, side, reject_code FROM orders WHERE status = 'rejected'
           AND reject_code != 'INVALID_POST_ONLY_ORDER'
           AND NOT (side = 'SELL' AND reject_code = 'INVALID_ORDER_NOT_ENOUGH_BALANCE')
           AND NOT (market IN (?, ?) AND reject_code = 'MARKET_NOT_READY')`,
      )
      .all(gone, closed);
    db.close();
    expect(late).toEqual([]);
    const about = (refused as Array<{ id: string }>).flatMap((r) =>
      logLines(bot.err()).filter((l) => JSON.stringify(l).includes(r.id.slice(0, 18))),
    );
    expect(refused, JSON.stringify(about, null, 1).slice(0, 8000)).toEqual([]);
  }, 240_000);
});
