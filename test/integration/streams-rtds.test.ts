/**
 * The real-time data stream over a real socket: crypto prices with and without symbol filters
 * (snapshot first), comments with entity filters, keep-alive and refused messages.
 * Prices are published directly on the exchange, so the test does not depend on the world's feed.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CryptoSymbol } from '../../src/exchange/world/model.ts';
import { sleep, startVenue, type TestVenue } from './support/setup.ts';
import { WsClient } from './support/ws-client.ts';

let v: TestVenue;
const open: WsClient[] = [];

async function client(path = '/rtds'): Promise<WsClient> {
  const c = await WsClient.open(`${v.running.urls.ws_url}${path}`);
  open.push(c);
  return c;
}
/** Sends a message and waits until the server has handled it (a PING round trip). */
async function sendSync(c: WsClient, msg: unknown): Promise<void> {
  c.send(msg);
  const n = c.texts.length;
  c.send('PING');
  await c.waitText('PONG', n);
}
const price = (symbol: CryptoSymbol, value: number, at = Date.now()) =>
  v.running.exchange.publish({ type: 'crypto_price', symbol, value, at });
let commentSeq = 0;
function comment(parentEntityId: string, body = 'hello', parentEntityType: 'Event' | 'Market' = 'Event') {
  const c = {
    id: `c-test-${++commentSeq}`,
    body,
    parentEntityType,
    parentEntityId,
    userAddress: '0x00000000000000000000000000000000000000aa',
    createdAt: new Date().toISOString(),
  };
  v.running.exchange.exec({ k: 'comment', comment: c });
  return c;
}

beforeAll(async () => {
  v = await startVenue();
});
afterEach(() => {
  while (open.length) open.pop()!.close();
});
afterAll(async () => v?.close());

describe('rtds: crypto_prices', () => {
  it('with a symbol filter: a snapshot of recent prices, then only those symbols', async () => {
    const t0 = Date.now() - 2000;
    price('btcusdt', 64000.25, t0);
    price('btcusdt', 64010.5, t0 + 1000);
    price('ethusdt', 3100.1, t0 + 1000);
    const c = await client();
    await sendSync(c, {
      action: 'subscribe',
      subscriptions: [{ topic: 'crypto_prices', type: 'update', filters: 'btcusdt' }],
    });
    const snap = await c.waitFor((e) => e.type === 'subscribe');
    expect(snap).toMatchObject({ topic: 'crypto_prices', payload: { symbol: 'btcusdt' } });
    expect(snap.payload.data).toEqual([
      { timestamp: t0, value: 64000.25 },
      { timestamp: t0 + 1000, value: 64010.5 },
    ]);
    expect(typeof snap.timestamp).toBe('number');
    const from = c.events.length;
    price('ethusdt', 3101);
    price('btcusdt', 65000.5);
    price('solusdt', 150);
    const up = await c.waitFor((e) => e.type === 'update', { from });
    expect(up).toMatchObject({
      topic: 'crypto_prices',
      type: 'update',
      payload: { symbol: 'btcusdt', value: 65000.5 },
    });
    expect(typeof up.payload.timestamp).toBe('number');
    expect(typeof up.connection_id).toBe('string');
    await sleep(100);
    expect(c.events.slice(from).map((e) => e.payload.symbol)).toEqual(['btcusdt']);
  });

  it('takes a JSON array filter, several symbols, and no filter for all symbols', async () => {
    const arr = await client();
    await sendSync(arr, {
      action: 'subscribe',
      subscriptions: [{ topic: 'crypto_prices', type: 'update', filters: ['ethusdt', 'SOLUSDT'] }],
    });
    const str = await client();
    await sendSync(str, {
      action: 'subscribe',
      subscriptions: [{ topic: 'crypto_prices', type: 'update', filters: '["xrpusdt"]' }],
    });
    const allc = await client();
    await sendSync(allc, { action: 'subscribe', subscriptions: [{ topic: 'crypto_prices', type: 'update' }] });
    const base = [arr, str, allc].map((c) => c.events.length);
    for (const s of ['btcusdt', 'ethusdt', 'solusdt', 'xrpusdt', 'dogeusdt'] as const) price(s, 1.5);
    await allc.until(() => allc.events.length - base[2]! >= 5, 30_000, 'all symbols');
    await sleep(50);
    const syms = (c: WsClient, i: number) =>
      c.events
        .slice(base[i])
        .filter((e) => e.type === 'update')
        .map((e) => e.payload.symbol);
    expect(syms(arr, 0)).toEqual(['ethusdt', 'solusdt']);
    expect(syms(str, 1)).toEqual(['xrpusdt']);
    expect(syms(allc, 2)).toEqual(['btcusdt', 'ethusdt', 'solusdt', 'xrpusdt', 'dogeusdt']);
  });

  it('unsubscribes by symbol or the whole topic', async () => {
    const c = await client();
    await sendSync(c, {
      action: 'subscribe',
      subscriptions: [{ topic: 'crypto_prices', type: 'update', filters: 'btcusdt,ethusdt' }],
    });
    await sendSync(c, {
      action: 'unsubscribe',
      subscriptions: [{ topic: 'crypto_prices', type: 'update', filters: 'btcusdt' }],
    });
    let from = c.events.length;
    price('btcusdt', 1);
    price('ethusdt', 2);
    await c.waitFor((e) => e.type === 'update', { from });
    await sleep(50);
    expect(c.events.slice(from).map((e) => e.payload.symbol)).toEqual(['ethusdt']);
    await sendSync(c, { action: 'unsubscribe', subscriptions: [{ topic: 'crypto_prices' }] });
    from = c.events.length;
    price('ethusdt', 3);
    await sleep(100);
    expect(c.events.slice(from)).toEqual([]);
  });
});

describe('rtds: crypto_prices_chainlink (trial 24 F4)', () => {
  it('the same series under the Chainlink names: {"symbol": "btc/usd"} gets its snapshot, then only its updates', async () => {
    const t0 = Date.now() - 1000;
    price('btcusdt', 70000.5, t0);
    const c = await client();
    await sendSync(c, {
      action: 'subscribe',
      subscriptions: [{ topic: 'crypto_prices_chainlink', type: '*', filters: '{"symbol":"btc/usd"}' }],
    });
    const snap = await c.waitFor((e) => e.type === 'subscribe');
    expect(snap).toMatchObject({ topic: 'crypto_prices_chainlink', payload: { symbol: 'btc/usd' } });
    expect(snap.payload.data).toContainEqual({ timestamp: t0, value: 70000.5 });
    const from = c.events.length;
    price('ethusdt', 3200);
    price('btcusdt', 70100.25);
    const up = await c.waitFor((e) => e.type === 'update', { from });
    expect(up).toMatchObject({
      topic: 'crypto_prices_chainlink',
      type: 'update',
      payload: { symbol: 'btc/usd', value: 70100.25 },
    });
    await sleep(100);
    expect(c.events.slice(from).filter((e) => e.type === 'update')).toHaveLength(1);
    // a symbol not in the Chainlink form is refused, naming the form
    await sendSync(c, {
      action: 'subscribe',
      subscriptions: [{ topic: 'crypto_prices_chainlink', type: '*', filters: { symbol: 'btcusdt' } }],
    });
    const err = await c.waitFor((e) => e.event_type === 'error');
    expect(err.error.message).toContain('"<base>/usd"');
    // an object without its symbol (a typo) is refused, not a subscription to every symbol (review 49b F8)
    const n = c.events.length;
    await sendSync(c, {
      action: 'subscribe',
      subscriptions: [{ topic: 'crypto_prices_chainlink', type: '*', filters: { symbols: 'btc/usd' } }],
    });
    const typo = await c.waitFor((e) => e.event_type === 'error', { from: n });
    expect(typo.error.message).toContain('an object needs a "symbol"');
  });
});

describe('rtds: comments', () => {
  it('streams a published comment in camelCase; entity filters select', async () => {
    const any = await client();
    await sendSync(any, { action: 'subscribe', subscriptions: [{ topic: 'comments', type: 'comment_created' }] });
    const filtered = await client();
    await sendSync(filtered, {
      action: 'subscribe',
      subscriptions: [
        { topic: 'comments', type: 'comment_created', filters: '{"parentEntityID": 100, "parentEntityType": "Event"}' },
      ],
    });
    const objFilter = await client();
    await sendSync(objFilter, {
      action: 'subscribe',
      subscriptions: [{ topic: 'comments', type: '*', filters: { parentEntityID: '200' } }],
    });
    const c1 = comment('100', 'first!');
    const c2 = comment('200', 'second');
    const e1 = await any.waitFor((e) => e.topic === 'comments' && e.payload.id === c1.id);
    expect(e1).toMatchObject({
      type: 'comment_created',
      payload: {
        id: c1.id,
        body: 'first!',
        parentEntityType: 'Event',
        parentEntityID: '100',
        userAddress: c1.userAddress,
        createdAt: c1.createdAt,
      },
    });
    expect(typeof e1.timestamp).toBe('number');
    await any.waitFor((e) => e.topic === 'comments' && e.payload.id === c2.id);
    await filtered.waitFor((e) => e.payload?.id === c1.id);
    await objFilter.waitFor((e) => e.payload?.id === c2.id);
    await sleep(50);
    expect(filtered.events.filter((e) => e.topic === 'comments').map((e) => e.payload.id)).toEqual([c1.id]);
    expect(objFilter.events.filter((e) => e.topic === 'comments').map((e) => e.payload.id)).toEqual([c2.id]);
  });
});

describe('rtds: keep-alive and bad input', () => {
  it('answers PING with PONG, and ping with pong plus a WebSocket ping frame', async () => {
    const c = await client();
    c.send('PING');
    await c.waitText('PONG');
    c.send('ping');
    await c.waitText('pong');
    await c.until(() => c.pings > 0, 30_000, 'a ping frame');
    // also at /rtds/ and at the bare ws_url
    for (const p of ['/rtds/', '/']) {
      const d = await client(p);
      d.send('PING');
      await d.waitText('PONG');
    }
  });

  it('refuses unknown topics and malformed messages with an error frame, staying open', async () => {
    const c = await client();
    const bad: unknown[] = [
      { action: 'subscribe', subscriptions: [{ topic: 'activity', type: 'orders_matched' }] },
      { action: 'subscribe', subscriptions: [{ topic: 'crypto_prices', type: 'update', filters: 42 }] },
      { action: 'subscribe', subscriptions: [] },
      { action: 'explode', subscriptions: [{ topic: 'comments' }] },
      { action: 'subscribe', subscriptions: [{ topic: 'comments', filters: '{not json' }] },
      'garbage',
    ];
    for (const m of bad) c.send(m);
    await c.until(() => c.events.filter((e) => e.event_type === 'error').length === bad.length, 30_000, 'error frames');
    expect(c.events[0].error.message).toMatch(/unknown topic/);
    for (const e of c.events) expect(e.error.code).toBe('BAD_REQUEST');
    expect(c.closed).toBeUndefined();
    const n = c.texts.length;
    c.send('PING');
    await c.waitText('PONG', n);
  });
});

describe('rtds: the world price feed', () => {
  it('streams the simulated feed to a filtered subscriber, snapshot first', async () => {
    const w = await startVenue({ world: { priceFeed: true, priceFeedMs: 100 } });
    try {
      const c = await WsClient.open(`${w.running.urls.ws_url}/rtds`);
      open.push(c);
      await sleep(350); // some history
      c.send({
        action: 'subscribe',
        subscriptions: [{ topic: 'crypto_prices', type: 'update', filters: 'ethusdt,solusdt' }],
      });
      const snap = await c.waitFor((e) => e.type === 'subscribe');
      expect(['ethusdt', 'solusdt']).toContain(snap.payload.symbol);
      expect(snap.payload.data.length).toBeGreaterThan(0);
      await c.until(() => c.events.filter((e) => e.type === 'update').length >= 6, 30_000, 'feed updates');
      const ups = c.events.filter((e) => e.type === 'update');
      expect(new Set(ups.map((e) => e.payload.symbol))).toEqual(new Set(['ethusdt', 'solusdt']));
      for (const u of ups) expect(u.payload.value).toBeGreaterThan(0);
    } finally {
      await w.close();
    }
  });
});
