/**
 * The user channel over a real socket: authentication, only the user's own orders and trades, the
 * trade status progression on a virtual clock, maker fills (complementary mints included), market
 * filters and keep-alive.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/clock.ts';
import { no, sleep, startVenue, yes, type TestVenue } from './support/setup.ts';
import type { Trader } from './support/trader.ts';
import { WsClient } from './support/ws-client.ts';

let v: TestVenue;
let clock: VirtualClock;
let a: Trader;
let b: Trader;
const open: WsClient[] = [];

async function client(path = '/ws/user'): Promise<WsClient> {
  const c = await WsClient.open(`${v.running.urls.ws_url}${path}`);
  open.push(c);
  return c;
}
/** An authenticated user client; resolves once the server has registered it (PING round trip). */
async function userClient(t: Trader, markets: string[] = []): Promise<WsClient> {
  const c = await client();
  c.send({ auth: { ...t.creds! }, markets, type: 'user' });
  const n = c.texts.length;
  c.send('PING');
  await c.waitText('PONG', n);
  return c;
}
const raw = (c: WsClient) => JSON.stringify(c.frames);

beforeAll(async () => {
  clock = new VirtualClock(Date.now());
  v = await startVenue({ clock, http: { rateLimits: { enabled: false, scale: 1, queueMs: 0 } } });
  a = await v.trader();
  b = await v.trader();
});
afterEach(async () => {
  while (open.length) open.pop()!.close();
  // each test starts from an empty book
  await a.l2('DELETE', '/cancel-all');
  await b.l2('DELETE', '/cancel-all');
});
afterAll(async () => v?.close());

describe('user channel: authentication', () => {
  it('closes with 1008 after an error frame on a wrong secret, an unknown key, or no auth', async () => {
    const attempts = [
      { auth: { ...a.creds!, secret: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=' }, markets: [], type: 'user' },
      { auth: { ...a.creds!, passphrase: 'nope' }, markets: [], type: 'user' },
      {
        auth: {
          apiKey: '00000000-0000-4000-8000-000000000000',
          secret: a.creds!.secret,
          passphrase: a.creds!.passphrase,
        },
        markets: [],
        type: 'user',
      },
      { markets: [], type: 'user' },
      { auth: 'x', type: 'user' },
    ];
    for (const msg of attempts) {
      const c = await client();
      c.send(msg);
      const closed = await c.waitClose();
      expect(closed.code).toBe(1008);
      const err = c.events.find((e) => e.event_type === 'error');
      expect(err?.error?.code).toBe('UNAUTHORIZED');
      // the error never echoes the credentials
      expect(raw(c)).not.toContain(a.creds!.secret);
      expect(raw(c)).not.toContain(a.creds!.passphrase);
    }
  });

  it('answers PING before and after auth; malformed later messages get an error frame', async () => {
    const c = await client();
    c.send('PING');
    await c.waitText('PONG');
    c.send({ auth: { ...a.creds! }, markets: [], type: 'USER' });
    c.send('{"markets": "all"}');
    await c.waitFor((e) => e.event_type === 'error');
    expect(c.events[0].error.code).toBe('BAD_REQUEST');
    c.send('PING');
    await c.waitText('PONG', 1);
    expect(c.closed).toBeUndefined();
  });
});

describe('user channel: orders and trades', () => {
  it('sends a user only their own order events', async () => {
    const ca = await userClient(a);
    const cb = await userClient(b);
    const m = v.m1;
    const r = await a.place(yes(m), 'BUY', '0.30', '10');
    expect(r.body.status).toBe('live');
    const placed = await ca.waitFor((e) => e.event_type === 'order' && e.type === 'PLACEMENT');
    expect(placed).toMatchObject({
      id: r.id,
      owner: a.creds!.apiKey,
      market: m.condition_id,
      asset_id: yes(m),
      side: 'BUY',
      price: '0.3',
      original_size: '10',
      size_matched: '0',
      associate_trades: [],
      outcome: 'Yes',
      order_type: 'GTC',
      status: 'LIVE',
      maker_address: a.address,
      expiration: '0',
    });
    expect(placed.timestamp).toMatch(/^\d{10}$/);
    await a.l2('DELETE', '/order', { orderID: r.id });
    const canceled = await ca.waitFor((e) => e.event_type === 'order' && e.type === 'CANCELLATION');
    expect(canceled).toMatchObject({ id: r.id, status: 'CANCELED' });
    await sleep(100);
    expect(cb.frames.filter((f) => f !== 'PONG')).toEqual([]);
  });

  it('streams a trade to taker and maker: MATCHED at once, then MINED and CONFIRMED on the clock', async () => {
    const m = v.m1;
    const ca = await userClient(a);
    const cb = await userClient(b);
    const rest = await a.place(yes(m), 'BUY', '0.40', '10');
    expect(rest.body.status).toBe('live');
    // b buys NO at 0.60: a complementary match (mint) against a's YES bid
    const take = await b.place(no(m), 'BUY', '0.60', '6');
    expect(take.body.status).toBe('matched');

    const tb = await cb.waitFor((e) => e.event_type === 'trade' && e.status === 'MATCHED');
    expect(tb).toMatchObject({
      type: 'TRADE',
      taker_order_id: take.id,
      market: m.condition_id,
      asset_id: no(m),
      side: 'BUY',
      size: '6',
      price: '0.6',
      trader_side: 'TAKER',
      owner: b.creds!.apiKey,
      trade_owner: b.creds!.apiKey,
      maker_address: b.address,
      outcome: 'No',
    });
    expect(tb.transaction_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(tb.maker_orders).toEqual([
      expect.objectContaining({
        order_id: rest.id,
        maker_address: a.address,
        matched_amount: '6',
        price: '0.4',
        asset_id: yes(m),
        side: 'BUY',
        outcome: 'Yes',
      }),
    ]);
    const ta = await ca.waitFor((e) => e.event_type === 'trade' && e.status === 'MATCHED');
    expect(ta).toMatchObject({ id: tb.id, trader_side: 'MAKER', trade_owner: a.creds!.apiKey });
    expect(ta.maker_orders[0]).toMatchObject({ order_id: rest.id, owner: a.creds!.apiKey });
    const upd = await ca.waitFor((e) => e.event_type === 'order' && e.type === 'UPDATE' && e.id === rest.id);
    expect(upd).toMatchObject({ size_matched: '6', status: 'LIVE', associate_trades: [tb.id] });
    // the taker's own order events too
    await cb.waitFor((e) => e.event_type === 'order' && e.id === take.id && e.status === 'MATCHED');

    // nobody sees another user's API key
    expect(raw(ca)).not.toContain(b.creds!.apiKey);
    expect(raw(cb)).not.toContain(a.creds!.apiKey);

    // status progression on the virtual clock
    await sleep(50);
    expect(ca.events.some((e) => e.event_type === 'trade' && e.status === 'MINED')).toBe(false);
    clock.advance(v.running.exchange.opts.minedMs);
    const mb = await cb.waitFor((e) => e.event_type === 'trade' && e.status === 'MINED');
    const ma = await ca.waitFor((e) => e.event_type === 'trade' && e.status === 'MINED');
    expect(mb).toMatchObject({ id: tb.id, trader_side: 'TAKER' });
    expect(ma).toMatchObject({ id: tb.id, trader_side: 'MAKER' });
    expect(ca.events.some((e) => e.event_type === 'trade' && e.status === 'CONFIRMED')).toBe(false);
    clock.advance(v.running.exchange.opts.confirmedMs - v.running.exchange.opts.minedMs);
    await cb.waitFor((e) => e.event_type === 'trade' && e.status === 'CONFIRMED' && e.id === tb.id);
    await ca.waitFor((e) => e.event_type === 'trade' && e.status === 'CONFIRMED' && e.id === tb.id);
    const statuses = ca.events.filter((e) => e.event_type === 'trade' && e.id === tb.id).map((e) => e.status);
    expect(statuses).toEqual(['MATCHED', 'MINED', 'CONFIRMED']);
    // REST agrees with the stream
    const rt = (await b.l2('GET', '/data/trades')).body.data.find((t: any) => t.id === tb.id);
    expect(rt).toMatchObject({ id: tb.id, status: 'CONFIRMED', price: tb.price, size: tb.size, trader_side: 'TAKER' });
    await a.l2('DELETE', '/order', { orderID: rest.id });
  });

  it('a maker on the same token sees the trade with trader_side MAKER', async () => {
    const m = v.m1;
    const ca = await userClient(a);
    const cb = await userClient(b);
    // b holds NO tokens from the previous trade: b sells NO at 0.65, a buys NO at 0.65
    const ask = await b.place(no(m), 'SELL', '0.65', '5');
    expect(ask.body.status).toBe('live');
    const bid = await a.place(no(m), 'BUY', '0.65', '5');
    expect(bid.body.status).toBe('matched');
    const tm = await cb.waitFor((e) => e.event_type === 'trade');
    expect(tm).toMatchObject({ trader_side: 'MAKER', asset_id: no(m), side: 'BUY', taker_order_id: bid.id });
    expect(tm.maker_orders).toEqual([
      expect.objectContaining({ order_id: ask.id, side: 'SELL', asset_id: no(m), matched_amount: '5', price: '0.65' }),
    ]);
    const tt = await ca.waitFor((e) => e.event_type === 'trade');
    expect(tt).toMatchObject({ trader_side: 'TAKER', id: tm.id });
    clock.advance(10_000); // let the status timers run out
  });

  it('filters by market; subscribes and unsubscribes markets dynamically', async () => {
    const m = v.m1;
    const other = v.markets.find(
      (x) => !x.neg_risk && x.minimum_tick_size === 0.01 && x.condition_id !== m.condition_id,
    )!;
    const c = await userClient(a, [other.condition_id]);
    const r1 = await a.place(yes(m), 'BUY', '0.21', '5');
    await sleep(100);
    expect(c.events.filter((e) => e.event_type === 'order')).toEqual([]);
    c.send({ markets: [m.condition_id], operation: 'subscribe' });
    const n = c.texts.length;
    c.send('PING');
    await c.waitText('PONG', n);
    const r2 = await a.place(yes(m), 'BUY', '0.22', '5');
    const ev = await c.waitFor((e) => e.event_type === 'order' && e.type === 'PLACEMENT');
    expect(ev.id).toBe(r2.id);
    c.send({ markets: [m.condition_id], operation: 'unsubscribe' });
    const n2 = c.texts.length;
    c.send('PING');
    await c.waitText('PONG', n2);
    const from = c.events.length;
    await a.l2('DELETE', '/orders', [r1.id, r2.id]);
    await sleep(100);
    expect(c.events.slice(from)).toEqual([]);
  });

  it('also works on /ws with type "user"', async () => {
    const c = await client('/ws');
    c.send({ auth: { ...a.creds! }, markets: [], type: 'user' });
    const n = c.texts.length;
    c.send('PING');
    await c.waitText('PONG', n);
    const r = await a.place(yes(v.m1), 'BUY', '0.23', '5');
    await c.waitFor((e) => e.event_type === 'order' && e.id === r.id);
    await a.l2('DELETE', '/order', { orderID: r.id });
  });
});
