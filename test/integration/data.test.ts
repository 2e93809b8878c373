/**
 * The Data API over real HTTP with plain fetch, after real trades between three wallets: price
 * history, user statistics, trades, positions marked to the mid, PnL, builder attribution, events
 * and markets with their figures, the success envelope and the error envelope.
 *
 * Trades on one 0.01 market (fees 0):
 *  1. A bids YES 0.40 × 10; B buys NO 0.60 × 10 (builder "bld-x") → a pair is minted.
 *  2. A offers YES 0.55 × 5 (builder "bld-m", a maker); C buys YES 0.55 × 5 (builder "bld-x").
 *  Then C quotes YES 0.50 × 5 / 0.60 × 5, so the YES mid is 0.55 and the NO mid 0.45.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaperExchange } from '../../src/exchange/exchange.ts';
import { no, startVenue, yes, type TestVenue } from './support/setup.ts';
import type { MarketInfo, Trader } from './support/trader.ts';

let v: TestVenue;
let ex: PaperExchange;
let data: string;
let a: Trader;
let b: Trader;
let c: Trader;
let m: MarketInfo;

async function get(path: string): Promise<{ status: number; body: any }> {
  const r = await fetch(`${data}${path}`);
  return { status: r.status, body: await r.json() };
}

async function placeWithBuilder(
  t: Trader,
  token: string,
  side: 'BUY' | 'SELL',
  price: string,
  size: string,
  builder: string,
) {
  const o = t.order(token, side, price, size);
  o.body.builder = builder;
  return t.l2('POST', '/order', o.body);
}

beforeAll(async () => {
  v = await startVenue({ http: { rateLimits: { enabled: true, scale: 20, queueMs: 500 } } });
  ex = v.running.exchange;
  data = v.running.urls.data_url;
  [a, b, c] = [await v.trader(), await v.trader(), await v.trader()];
  m = v.m1;
  ex.exec({
    k: 'event',
    event: {
      id: 'd-ev',
      slug: 'd-ev',
      title: 'Data event',
      description: '',
      tags: ['Tst'],
      category: 'misc',
      startDate: '2026-01-01T00:00:00.000Z',
      endDate: '2026-12-31T00:00:00.000Z',
      imageUrl: '',
      createdAt: '2026-01-01T00:00:00.000Z',
      negRisk: false,
      marketIds: [m.condition_id],
    },
  });
  expect((await a.place(yes(m), 'BUY', '0.40', '10')).body.status).toBe('live');
  expect((await placeWithBuilder(b, no(m), 'BUY', '0.60', '10', 'bld-x')).body.status).toBe('matched');
  const rs = await placeWithBuilder(a, yes(m), 'SELL', '0.55', '5', 'bld-m');
  expect(rs.body.status, JSON.stringify(rs.body)).toBe('live');
  expect((await placeWithBuilder(c, yes(m), 'BUY', '0.55', '5', 'bld-x')).body.status).toBe('matched');
  expect((await c.place(yes(m), 'BUY', '0.50', '5')).body.status).toBe('live');
  expect((await c.place(yes(m), 'SELL', '0.60', '5')).body.status).toBe('live');
});
afterAll(async () => v?.close());

describe('envelope and health', () => {
  it('wraps successes in {success, data} and errors in the error envelope', async () => {
    expect(await get('/health')).toEqual({ status: 200, body: { success: true, data: { status: 'ok' } } });
    const bad = await get('/users/0xnothex');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ success: false, error: { code: 'BAD_REQUEST', message: expect.any(String) } });
    const none = await get('/nope');
    expect(none.status).toBe(404);
    expect(none.body.success).toBe(false);
  });
});

describe('price history', () => {
  it('builds {history: [{t, p}]} from real trades, per token', async () => {
    const r = await get(`/prices?market=${yes(m)}&interval=1h&fidelity=1`);
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(true);
    const h = r.body.data.history as Array<{ t: number; p: number }>;
    expect(h.length).toBeGreaterThanOrEqual(1);
    expect(h.length).toBeLessThanOrEqual(2);
    expect(h[h.length - 1]!.p).toBe(0.55);
    for (const pt of h) {
      expect(pt.t % 60).toBe(0);
      expect([0.4, 0.55]).toContain(pt.p);
      expect(Math.abs(pt.t - Date.now() / 1000)).toBeLessThan(600);
    }
    const noSide = (await get(`/prices?token_id=${no(m)}&interval=1d`)).body.data.history;
    expect(noSide[noSide.length - 1].p).toBe(0.45);
    // the condition id means the YES token
    expect((await get(`/prices?market=${m.condition_id}`)).body.data.token_id).toBe(yes(m));
    // a window in the future is empty; a window that holds now is not
    const now = Math.floor(Date.now() / 1000);
    expect((await get(`/prices?market=${yes(m)}&startTs=${now + 3600}&endTs=${now + 7200}`)).body.data.history).toEqual(
      [],
    );
    expect(
      (await get(`/prices?market=${yes(m)}&startTs=${now - 3600}&endTs=${now + 60}&fidelity=60`)).body.data.history,
    ).toHaveLength(1);
    // an untraded market has no history
    const other = v.markets.find((x) => x.condition_id !== m.condition_id)!;
    expect((await get(`/prices?market=${yes(other)}`)).body.data.history).toEqual([]);
  });

  it('validates its parameters', async () => {
    expect((await get('/prices')).status).toBe(400);
    expect((await get(`/prices?market=${yes(m)}&interval=2y`)).status).toBe(400);
    expect((await get(`/prices?market=${yes(m)}&fidelity=0`)).status).toBe(400);
    expect((await get(`/prices?market=${yes(m)}&startTs=abc`)).status).toBe(400);
    const unknown = await get('/prices?market=123456');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
  });
});

describe('users', () => {
  it('statistics: trades, volume, markets, PnL, position value', async () => {
    const r = await get(`/users/${a.wallet.address}`);
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      address: a.address,
      trades: 2,
      fills: 2,
      volume: '6.75', // 10 × 0.40 bought + 5 × 0.55 sold
      buy_volume: '4',
      sell_volume: '2.75',
      markets_traded: 1,
      open_positions: 1,
      positions_value: '2.75', // 5 YES at the 0.55 mid
      positions_cost: '2',
      realized_pnl: '0.75', // 5 × (0.55 − 0.40)
      unrealized_pnl: '0.75',
      total_pnl: '1.5',
      fees: '0',
    });
    expect(typeof r.body.data.first_trade_at).toBe('string');
    const unknown = await get(`/users/0x${'2'.repeat(40)}`);
    expect(unknown.status).toBe(200);
    expect(unknown.body.data).toMatchObject({
      trades: 0,
      volume: '0',
      markets_traded: 0,
      realized_pnl: '0',
      first_trade_at: null,
    });
  });

  it("trades: the user's fills, newest first, paginated and filtered", async () => {
    const r = await get(`/users/${a.address}/trades`);
    expect(r.body.success).toBe(true);
    expect(r.body.data.map((t: any) => [t.side, t.price, t.size, t.role])).toEqual([
      ['SELL', '0.55', '5', 'MAKER'],
      ['BUY', '0.4', '10', 'MAKER'],
    ]);
    expect(r.body.data[0]).toMatchObject({
      asset: yes(m),
      condition_id: m.condition_id,
      outcome: 'Yes',
      notional: '2.75',
      builder: 'bld-m',
      transaction_hash: expect.stringMatching(/^0x/),
    });
    expect(r.body.data[1].builder).toBeNull();
    expect(r.body).toMatchObject({ count: 2, total: 2, limit: 10, offset: 0, next_cursor: 'LTE=' });
    const p1 = await get(`/users/${a.address}/trades?limit=1`);
    expect(p1.body.data).toHaveLength(1);
    const p2 = await get(`/users/${a.address}/trades?limit=1&next_cursor=${encodeURIComponent(p1.body.next_cursor)}`);
    expect(p2.body.data[0].side).toBe('BUY');
    expect(p2.body.next_cursor).toBe('LTE=');
    expect((await get(`/users/${a.address}/trades?side=buy`)).body.data).toHaveLength(1);
    expect((await get(`/users/${a.address}/trades?market=0xdead`)).body.data).toEqual([]);
    const bt = (await get(`/users/${b.address}/trades`)).body.data;
    expect(bt).toEqual([
      expect.objectContaining({
        role: 'TAKER',
        side: 'BUY',
        asset: no(m),
        outcome: 'No',
        price: '0.6',
        size: '10',
        notional: '6',
        builder: 'bld-x',
      }),
    ]);
    expect((await get(`/users/${a.address}/trades?side=HOLD`)).status).toBe(400);
  });

  it('positions: size, avg price, initial and current value at the mid, cash and realized PnL', async () => {
    const pa = (await get(`/users/${a.address}/positions`)).body.data;
    expect(pa).toEqual([
      expect.objectContaining({
        asset: yes(m),
        condition_id: m.condition_id,
        outcome: 'Yes',
        size: '5',
        avg_price: '0.4',
        initial_value: '2',
        current_value: '2.75',
        cash_pnl: '0.75',
        realized_pnl: '0.75',
        total_bought: '10',
        cur_price: '0.55',
        mark_source: 'mid',
      }),
    ]);
    const pb = (await get(`/users/${b.address}/positions`)).body.data;
    expect(pb).toEqual([
      expect.objectContaining({
        asset: no(m),
        outcome: 'No',
        size: '10',
        avg_price: '0.6',
        initial_value: '6',
        current_value: '4.5',
        cash_pnl: '-1.5',
        realized_pnl: '0',
        cur_price: '0.45',
      }),
    ]);
    // C's 5 YES are reserved by its resting SELL: still its position
    const pc = (await get(`/users/${c.address}/positions`)).body.data;
    expect(pc[0]).toMatchObject({ size: '5', avg_price: '0.55', current_value: '2.75', cash_pnl: '0' });
    expect((await get(`/users/${a.address}/positions?sizeThreshold=5`)).body.data).toHaveLength(1);
    expect((await get(`/users/${a.address}/positions?sizeThreshold=5.01`)).body.data).toHaveLength(0);
    expect((await get(`/users/${a.address}/positions?sizeThreshold=-1`)).status).toBe(400);
    expect((await get(`/users/0x${'3'.repeat(40)}/positions`)).body).toMatchObject({
      success: true,
      data: [],
      total: 0,
    });
  });

  it('pnl: totals and, on request, the realized series from trades', async () => {
    const r = await get(`/users/${a.address}/pnl?history=true`);
    expect(r.body.data).toMatchObject({
      realized_pnl: '0.75',
      unrealized_pnl: '0.75',
      total_pnl: '1.5',
      fees: '0',
      open_positions: 1,
      unmarked_positions: 0,
    });
    expect(r.body.data.history.map((h: any) => h.realized_pnl)).toEqual(['0', '0.75']);
    const rb = await get(`/users/${b.address}/pnl`);
    expect(rb.body.data).toMatchObject({ realized_pnl: '0', unrealized_pnl: '-1.5', total_pnl: '-1.5' });
    expect(rb.body.data.history).toBeUndefined();
  });
});

describe('builders', () => {
  it('statistics of orders carrying a builder key', async () => {
    const r = await get('/builders/bld-x');
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      builder: 'bld-x',
      orders: 2,
      users: 2,
      trades: 2,
      fills: 2,
      volume: '8.75',
      markets: 1,
    });
    // a builder whose (maker) order rested and was filled: that side's notional, 5 × 0.55
    expect((await get('/builders/bld-m')).body.data).toMatchObject({ orders: 1, users: 1, trades: 1, volume: '2.75' });
    const none = await get('/builders/nobody');
    expect(none.body.data).toMatchObject({ orders: 0, users: 0, trades: 0, volume: '0', last_trade_at: null });
  });

  it('attributed volume, total, per day and per market', async () => {
    const r = await get('/builders/bld-x/volume');
    const today = new Date().toISOString().slice(0, 10);
    expect(r.body.data).toMatchObject({
      builder: 'bld-x',
      volume: '8.75',
      trades: 2,
      by_market: [{ condition_id: m.condition_id, volume: '8.75', trades: 2, question: expect.any(String) }],
    });
    expect(r.body.data.by_day.reduce((s: number, d: any) => s + d.trades, 0)).toBe(2);
    expect(r.body.data.by_day.map((d: any) => d.date)).toContain(today);
    const future = Math.floor(Date.now() / 1000) + 3600;
    expect((await get(`/builders/bld-x/volume?startTs=${future}`)).body.data).toMatchObject({
      volume: '0',
      trades: 0,
      by_day: [],
      by_market: [],
    });
  });
});

describe('events and markets', () => {
  it('markets with volume, trade count, open interest and quotes; events with their markets', async () => {
    const r = await get(`/markets?condition_ids=${m.condition_id}`);
    expect(r.body.success).toBe(true);
    expect(r.body.data).toEqual([
      expect.objectContaining({
        condition_id: m.condition_id,
        event_id: 'd-ev',
        active: true,
        volume: '6.75',
        trade_count: 2,
        open_interest: '10',
        best_bid: '0.5',
        best_ask: '0.6',
        mid: '0.55',
        last_trade_price: '0.55',
      }),
    ]);
    const top = await get('/markets?order=volume&limit=1');
    expect(top.body.data[0].condition_id).toBe(m.condition_id);
    expect(top.body.total).toBe(v.markets.length);
    const evs = await get('/events?tag=tst');
    expect(evs.body.data).toEqual([expect.objectContaining({ id: 'd-ev', trade_count: 2, volume: '6.75' })]);
    expect(evs.body.data[0].markets[0].id).toBe(m.condition_id);
  });
});

describe("the public data API's own routes (?user=, bare arrays, numbers; trial 24 F2)", () => {
  it('positions, trades and value of a user, as the public service answers them', async () => {
    const pos = await get(`/positions?user=${a.address}`);
    expect(pos.status).toBe(200);
    expect(Array.isArray(pos.body)).toBe(true);
    // A bought 10 YES at 0.40 and sold 5 at 0.55: 5 held, marked at the YES mid 0.55
    expect(pos.body).toEqual([
      expect.objectContaining({
        proxyWallet: a.address,
        asset: yes(m),
        conditionId: m.condition_id,
        size: 5,
        avgPrice: 0.4,
        initialValue: 2,
        currentValue: 2.75,
        cashPnl: 0.75,
        realizedPnl: 0.75,
        curPrice: 0.55,
        outcome: 'Yes',
        outcomeIndex: 0,
        oppositeAsset: no(m),
        redeemable: false,
      }),
    ]);
    expect((await get(`/positions?user=${a.address}&market=${m.condition_id}`)).body).toHaveLength(1);
    expect((await get(`/positions?user=${a.address}&sizeThreshold=6`)).body).toEqual([]);
    // trades: takers only by default (the public default); A was the maker of both of its fills
    expect((await get(`/trades?user=${a.address}`)).body).toEqual([]);
    const all = (await get(`/trades?user=${a.address}&takerOnly=false`)).body;
    expect(all.map((t: any) => [t.side, t.size, t.price, t.asset])).toEqual([
      ['SELL', 5, 0.55, yes(m)],
      ['BUY', 10, 0.4, yes(m)],
    ]);
    expect(all[0]).toMatchObject({ proxyWallet: a.address, conditionId: m.condition_id, outcome: 'Yes' });
    expect(typeof all[0].timestamp).toBe('number');
    const bt = (await get(`/trades?user=${b.address}`)).body;
    expect(bt.map((t: any) => [t.side, t.size, t.price, t.asset])).toEqual([['BUY', 10, 0.6, no(m)]]);
    expect((await get(`/value?user=${a.address}`)).body).toEqual([{ user: a.address, value: 2.75 }]);
    // without a user, the market's trades, each by its taker (review 49b F6)
    const market = (await get(`/trades?market=${m.condition_id}`)).body;
    expect(market.map((t: any) => [t.proxyWallet, t.side, t.size, t.price])).toEqual([
      [c.address, 'BUY', 5, 0.55],
      [b.address, 'BUY', 10, 0.6],
    ]);
    // dust below one share is not listed by default (the public default sizeThreshold is 1)
    expect((await get(`/positions?user=${a.address}&sizeThreshold=0`)).body).toHaveLength(1);
    for (const p of ['/positions', '/value']) {
      const r = await get(p);
      expect(r.status, p).toBe(400);
      expect(r.body.error.message).toContain('user');
    }
  });
});
