/**
 * --db: accounts, API keys, orders, trades, positions and the world survive a restart exactly.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/clock.ts';
import type { Micro, Pips } from '../../src/core/units.ts';
import type { PaperExchange } from '../../src/exchange/exchange.ts';
import { startExchange, type RunningExchange } from '../../src/exchange/server.ts';
import { listMarkets, Trader } from './support/trader.ts';
import { yes, no } from './support/setup.ts';

const dir = mkdtempSync(join(tmpdir(), 'mmkit-db-'));
const open: RunningExchange[] = [];
afterAll(async () => Promise.all(open.map((r) => r.close())));

async function start(dbFile: string, opts: { agents?: 'default' | 'none'; clock?: VirtualClock; seed?: number } = {}) {
  const r = await startExchange({
    port: 0,
    seed: opts.seed ?? 5,
    dbFile,
    ...(opts.clock ? { clock: opts.clock } : {}),
    world: { agents: opts.agents ?? 'none', lifecycle: false, priceFeed: false },
    http: { rateLimits: { enabled: true, scale: 10, queueMs: 500 } },
  });
  open.push(r);
  return r;
}

/** Everything a user could observe about the exchange's state, in a comparable form. */
function snapshot(ex: PaperExchange) {
  const accounts = new Set<string>();
  for (const k of ex.keys.all()) accounts.add(k.address);
  for (const t of ex.allTrades()) {
    accounts.add(t.trade.takerAccount);
    for (const m of t.trade.makers) accounts.add(m.account);
  }
  const bal = [...accounts].sort().map((a) => {
    const b = ex.engine.balance(a);
    return { a, c: b.collateral, r: b.collateralReserved, t: [...b.tokens.entries()].sort() };
  });
  return {
    markets: ex.listMarkets().map((m) => [m.meta.conditionId, m.state.status, m.state.tick, m.volume]),
    keys: ex.keys
      .all()
      .map((k) => [k.apiKey, k.secret, k.passphrase, k.address, k.nonce])
      .sort(),
    balances: bal,
    open: [...accounts].sort().map((a) => ex.engine.openOrders(a).map((o) => [o.id, o.sizeMatched, o.price, o.side])),
    orders: [...accounts].sort().map((a) => ex.engine.ordersOf(a).map((o) => [o.id, o.status, o.sizeMatched])),
    trades: ex
      .allTrades()
      .map((t) => [t.trade.id, t.trade.takerOrderId, t.trade.size, t.trade.price, t.trade.matchTime]),
    books: ex.listMarkets().map((m) => ex.engine.book(m.meta.tokens[0])),
    totals: ex.engine.totals(),
    world: {
      events: [...ex.world.events.keys()],
      comments: ex.world.comments.length,
      articles: [...ex.world.articles.keys()],
    },
  };
}

describe('persistence with --db', () => {
  it('a restart loses nothing: keys still authenticate, orders, trades and balances are identical', async () => {
    const db = join(dir, 'a.db');
    const r1 = await start(db);
    const markets = await listMarkets(r1.urls.clob_url);
    const m = markets.find((x) => !x.neg_risk && x.minimum_tick_size === 0.01)!;
    const a = new Trader(r1.urls.clob_url);
    const b = new Trader(r1.urls.clob_url);
    await a.createKey();
    await b.createKey();
    const resting = await b.place(yes(m), 'BUY', '0.40', '20');
    await a.place(no(m), 'BUY', '0.60', '5'); // mint 5
    const gtc = await a.place(no(m), 'SELL', '0.70', '5');
    expect(gtc.body.status).toBe('live');
    await b.place(yes(m), 'BUY', '0.30', '10');
    await b.l2('DELETE', '/order', { orderID: (await b.place(yes(m), 'BUY', '0.20', '10')).id });
    const before = snapshot(r1.exchange);
    const tradesA = (await a.l2('GET', '/data/trades')).body.data;
    await r1.close();

    const r2 = await start(db, { seed: 999 /* ignored: the database keeps its seed */ });
    expect(snapshot(r2.exchange)).toEqual(before);
    // the same credentials work against the restarted exchange
    const a2 = new Trader(r2.urls.clob_url, a.wallet.privateKey);
    a2.creds = a.creds;
    const b2 = new Trader(r2.urls.clob_url, b.wallet.privateKey);
    b2.creds = b.creds;
    expect((await a2.l2('GET', '/data/trades')).body.data).toEqual(tradesA);
    expect((await b2.l2('GET', `/data/order/${resting.id}`)).body).toMatchObject({ status: 'LIVE', size_matched: '5' });
    // derive returns the same key after the restart
    const derived = await a2.raw('GET', '/auth/derive-api-key', { headers: a2.l1(0) });
    expect(derived.body).toEqual(a.creds);
    // trading continues on the restored book: A's SELL NO 0.70 is hit
    const hit = await b2.place(no(m), 'BUY', '0.70', '5');
    expect(hit.body.status).toBe('matched');
    await r2.close();
    // and that trade is there after a second restart
    const r3 = await start(db);
    expect(r3.exchange.allTrades().length).toBe(before.trades.length + 1);
  });

  it('with flow agents trading, the state after a restart equals the state at shutdown', async () => {
    const db = join(dir, 'b.db');
    const r1 = await start(db, { agents: 'default' });
    await new Promise((res) => setTimeout(res, 1500));
    await r1.close();
    const before = snapshot(r1.exchange);
    // restart on a virtual clock so no agent acts before we look
    const r2 = await start(db, { agents: 'none', clock: new VirtualClock(Date.now()) });
    expect(snapshot(r2.exchange)).toEqual(before);
  });

  it('a duplicate order stays a duplicate across restarts', async () => {
    const db = join(dir, 'c.db');
    const r1 = await start(db);
    const m = (await listMarkets(r1.urls.clob_url)).find((x) => !x.neg_risk && x.minimum_tick_size === 0.01)!;
    const t = new Trader(r1.urls.clob_url);
    await t.createKey();
    const { body } = t.order(yes(m), 'BUY', '0.10', '10');
    expect((await t.l2('POST', '/order', body)).body.status).toBe('live');
    await r1.close();
    const r2 = await start(db);
    const t2 = new Trader(r2.urls.clob_url, t.wallet.privateKey);
    t2.creds = t.creds;
    const r = await t2.l2('POST', '/order', body);
    expect(r.body.error.code).toBe('INVALID_ORDER_DUPLICATED');
  });

  it('an order journaled before the reservation rule replays under the rule it was admitted by (review 49b F3)', async () => {
    const db = join(dir, 'rule.db');
    const r1 = await start(db);
    const ex1 = r1.exchange;
    const m = ex1.listMarkets().find((x) => !x.meta.negRisk && x.meta.tick === '0.01')!;
    const [yesTok, noTok] = m.meta.tokens;
    // a seller rests 10 YES at 0.90; the buyer has 9.5 USDC: a 10% taker fee is 0.09 at most (the rule
    // now), 0.90 under the older one (rate × notional)
    ex1.exec({ k: 'fund', account: '0xseller', micro: 0 });
    ex1.setTokens('0xseller', yesTok!, 10_000_000);
    ex1.setCollateral('0xbuyer', 9_500_000);
    const order = (id: string, account: string, side: 'BUY' | 'SELL', reservation?: 2) => ({
      id,
      account,
      owner: account,
      tokenId: yesTok!,
      side,
      price: 9000,
      size: 10_000_000,
      type: 'GTC' as const,
      postOnly: false,
      expiresAt: 0,
      feeRateBps: 1000,
      ...(reservation !== undefined ? { reservation } : {}),
    });
    expect((ex1.exec({ k: 'place', order: order('ask', '0xseller', 'SELL', 2) }) as { ok: boolean }).ok).toBe(true);
    // journaled as an older exchange wrote it (no rule): refused then, as now
    const old = ex1.exec({ k: 'place', order: order('old-buy', '0xbuyer', 'BUY') }) as { ok: boolean; code?: string };
    expect(old).toMatchObject({ ok: false, code: 'INVALID_ORDER_NOT_ENOUGH_BALANCE' });
    const before = snapshot(ex1);
    expect(ex1.engine.balance('0xbuyer').collateral).toBe(9_500_000);
    await r1.close();
    const r2 = await start(db);
    // replayed under its own rule: still refused, nothing bought
    expect(r2.exchange.engine.balance('0xbuyer').collateral).toBe(9_500_000);
    expect(snapshot(r2.exchange)).toEqual(before);
    // the same order admitted now: the fee it can pay is 0.09, it fills
    const now = r2.exchange.exec({ k: 'place', order: order('new-buy', '0xbuyer', 'BUY', 2) }) as { ok: boolean };
    expect(now.ok).toBe(true);
    expect(r2.exchange.engine.balance('0xbuyer').tokens.get(yesTok!)?.available).toBe(10_000_000);
    expect(noTok).toBeDefined();
  });

  it('liquidity reward configs, payouts and their credits survive a restart', async () => {
    const db = join(dir, 'd.db');
    const EPOCH = 120_000;
    const clock = new VirtualClock(Math.floor(Date.now() / EPOCH) * EPOCH + 5_000);
    const opts = {
      port: 0,
      seed: 5,
      dbFile: db,
      exchange: { rewards: { epochMs: EPOCH, sampleMs: 10_000 } },
      world: { agents: 'none' as const, lifecycle: false, priceFeed: false },
      http: { authMaxSkewSec: 3600 },
    };
    const r1 = await startExchange({ ...opts, clock });
    open.push(r1);
    const ex = r1.exchange;
    const m = (await listMarkets(r1.urls.clob_url)).find((x) => !x.neg_risk && x.minimum_tick_size === 0.01)!;
    ex.setRewardConfig(m.condition_id, {
      maxSpread: 300 as Pips,
      minSize: 20_000_000 as Micro,
      dailyRate: 1_440_000_000 as Micro,
    });
    const t = new Trader(r1.urls.clob_url);
    t.protocol = ex.protocol;
    await t.createKey();
    expect((await t.place(yes(m), 'BUY', '0.49', '100')).body.status).toBe('live');
    expect((await t.place(no(m), 'BUY', '0.49', '100')).body.status).toBe('live');
    clock.advanceTo(ex.rewards.epochEnd + 1);
    expect(ex.rewards.history().map((r) => [r.maker, r.paid])).toEqual([[t.address, 2_000_000]]);
    await r1.close();
    const before = snapshot(ex);
    const r2 = await startExchange({ ...opts, clock: new VirtualClock(clock.now()) });
    open.push(r2);
    expect(snapshot(r2.exchange)).toEqual(before);
    expect(r2.exchange.rewards.history()).toEqual(ex.rewards.history());
    expect(r2.exchange.rewards.configOf(m.condition_id)).toEqual(ex.rewards.configOf(m.condition_id));
    expect(r2.exchange.rewards.rewarded()).toEqual(ex.rewards.rewarded());
  });
});
