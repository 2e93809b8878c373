/**
 * The market channel over a real socket: snapshots, price changes on both tokens, trades, tick size
 * changes, the custom-feature events, dynamic subscriptions, keep-alive and bad input.
 */
import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LiveClock } from '../../src/core/clock.ts';
import { DEFAULT_EXCHANGE_OPTIONS, PaperExchange } from '../../src/exchange/exchange.ts';
import { FaultController } from '../../src/exchange/faults.ts';
import { initialMarkets } from '../../src/exchange/markets.ts';
import { seedWorld } from '../../src/exchange/world/index.ts';
import { attachStreams } from '../../src/exchange/ws/index.ts';
import { BookMirror } from '../../src/exchange/ws/market-map.ts';
import { renderBook } from '../../src/exchange/http/render.ts';
import { FlowDriver } from './support/flow-driver.ts';
import { getJson, no, sleep, startVenue, yes, type TestVenue } from './support/setup.ts';
import type { MarketInfo, Trader } from './support/trader.ts';
import { WsClient } from './support/ws-client.ts';

let v: TestVenue;
let a: Trader;
let b: Trader;
const open: WsClient[] = [];

const book = (token: string) => getJson(`${v.clob}/book?token_id=${token}`);
async function client(path = '/ws/market'): Promise<WsClient> {
  const c = await WsClient.open(`${v.running.urls.ws_url}${path}`);
  open.push(c);
  return c;
}
async function subscribed(assets: string[], extra: Record<string, unknown> = {}): Promise<WsClient> {
  const c = await client();
  c.send({ assets_ids: assets, type: 'market', ...extra });
  return c;
}
/** The hash rule of GET /book: SHA-1 of the summary serialised with hash "". */
function recomputeHash(ev: any): string {
  const { event_type: _t, ...rest } = ev;
  return createHash('sha1')
    .update(JSON.stringify({ ...rest, hash: '' }))
    .digest('hex');
}
/** A 0.01-tick, non-neg-risk market other than m1 (tests that change a market use their own). */
function otherMarket(i: number): MarketInfo {
  const list = v.markets.filter(
    (m) => !m.neg_risk && m.minimum_tick_size === 0.01 && m.condition_id !== v.m1.condition_id,
  );
  return list[i]!;
}

beforeAll(async () => {
  v = await startVenue({ http: { rateLimits: { enabled: false, scale: 1, queueMs: 0 } } });
  a = await v.trader();
  b = await v.trader();
});
afterEach(() => {
  while (open.length) open.pop()!.close();
});
afterAll(async () => v?.close());

describe('market channel: snapshots and changes', () => {
  it('sends a book snapshot per subscribed asset, equal to GET /book, with the same hash rule', async () => {
    const m = v.m1;
    expect((await a.place(yes(m), 'BUY', '0.40', '10')).body.success).toBe(true);
    expect((await a.place(yes(m), 'BUY', '0.38', '5')).body.success).toBe(true);
    const c = await subscribed([yes(m), no(m)]);
    const first = await c.until(() => c.frames[0], 30_000, 'snapshot');
    expect(Array.isArray(first)).toBe(true);
    const [by, bn] = first as any[];
    for (const [ev, tok] of [
      [by, yes(m)],
      [bn, no(m)],
    ] as const) {
      const rest = await book(tok);
      expect(ev).toMatchObject({ event_type: 'book', asset_id: tok, market: m.condition_id });
      expect(ev.bids).toEqual(rest.bids);
      expect(ev.asks).toEqual(rest.asks);
      expect(ev.timestamp).toMatch(/^\d{13}$/);
      expect(ev.hash).toBe(recomputeHash(ev));
    }
    // best last, like GET /book
    expect(by.bids).toEqual([
      { price: '0.38', size: '5' },
      { price: '0.4', size: '10' },
    ]);
    expect(bn.asks).toEqual([
      { price: '0.62', size: '5' },
      { price: '0.6', size: '10' },
    ]);
    // one asset: a single object, not an array
    const single = await subscribed([yes(m)]);
    const f = await single.until(() => single.frames[0], 30_000, 'snapshot');
    expect(Array.isArray(f)).toBe(false);
    expect((f as any).event_type).toBe('book');
  });

  it('streams price_change with exact sizes on both tokens for placements and cancels', async () => {
    const m = v.m1;
    const c = await subscribed([yes(m), no(m)]);
    await c.waitFor((e) => e.event_type === 'book' && e.asset_id === no(m));
    const from = c.events.length;
    const r = await b.place(no(m), 'BUY', '0.53', '7'); // = a YES ask at 0.47
    expect(r.body.status).toBe('live');
    const pc = await c.waitFor((e) => e.event_type === 'price_change', { from });
    expect(pc.market).toBe(m.condition_id);
    expect(pc.timestamp).toMatch(/^\d{13}$/);
    expect(pc.price_changes).toEqual([
      expect.objectContaining({
        asset_id: yes(m),
        price: '0.47',
        size: '7',
        side: 'SELL',
        best_bid: '0.4',
        best_ask: '0.47',
      }),
      expect.objectContaining({
        asset_id: no(m),
        price: '0.53',
        size: '7',
        side: 'BUY',
        best_bid: '0.53',
        best_ask: '0.6',
      }),
    ]);
    for (const e of pc.price_changes) expect(e.hash).toMatch(/^[0-9a-f]{40}$/);
    // a second order at the same level: the new total, not the increment
    const from2 = c.events.length;
    const r2 = await b.place(no(m), 'BUY', '0.53', '5.5');
    const pc2 = await c.waitFor((e) => e.event_type === 'price_change', { from: from2 });
    expect(pc2.price_changes.map((e: any) => e.size)).toEqual(['12.5', '12.5']);
    // cancel both: the level goes to "0", best ask back to empty ("0")
    const from3 = c.events.length;
    const del = await b.l2('DELETE', '/orders', [r.id, r2.id]);
    expect(del.body.canceled.length).toBe(2);
    const pc3 = await c.waitFor(
      (e) => e.event_type === 'price_change' && e.price_changes.some((x: any) => x.size === '0'),
      { from: from3 },
    );
    const y = pc3.price_changes.find((x: any) => x.asset_id === yes(m));
    expect(y).toMatchObject({ price: '0.47', size: '0', side: 'SELL', best_bid: '0.4', best_ask: '0' });
    const n = pc3.price_changes.find((x: any) => x.asset_id === no(m));
    expect(n).toMatchObject({ price: '0.53', size: '0', side: 'BUY', best_bid: '0', best_ask: '0.6' });
  });

  it('only the subscribed token appears when one token is subscribed (the NO mirror on its own)', async () => {
    const m = v.m1;
    const c = await subscribed([no(m)]);
    await c.waitFor((e) => e.event_type === 'book');
    const from = c.events.length;
    const r = await a.place(yes(m), 'BUY', '0.31', '5');
    const pc = await c.waitFor((e) => e.event_type === 'price_change', { from });
    expect(pc.price_changes).toEqual([
      expect.objectContaining({ asset_id: no(m), price: '0.69', size: '5', side: 'SELL' }),
    ]);
    await a.l2('DELETE', '/order', { orderID: r.id });
  });

  it('on a trade: price_change, last_trade_price per token, then a fresh book after the price_change', async () => {
    const m = v.m1;
    const c = await subscribed([yes(m), no(m)]);
    await c.waitFor((e) => e.event_type === 'book' && e.asset_id === no(m));
    const from = c.events.length;
    // b buys NO at 0.60 against a's YES bid at 0.40: a mint
    const r = await b.place(no(m), 'BUY', '0.60', '6');
    expect(r.body.status).toBe('matched');
    await c.waitFor((e) => e.event_type === 'book' && e.asset_id === no(m), { from });
    await c.quiet(50);
    const evs = c.events.slice(from);
    const kinds = evs.map((e) => `${e.event_type}:${e.asset_id === yes(m) ? 'Y' : e.asset_id === no(m) ? 'N' : '-'}`);
    expect(kinds).toEqual(['price_change:-', 'last_trade_price:Y', 'last_trade_price:N', 'book:Y', 'book:N']);
    const [pc, lty, ltn, bky, bkn] = evs;
    expect(pc.price_changes).toEqual([
      expect.objectContaining({ asset_id: yes(m), price: '0.4', size: '4', side: 'BUY' }),
      expect.objectContaining({ asset_id: no(m), price: '0.6', size: '4', side: 'SELL' }),
    ]);
    expect(lty).toMatchObject({ market: m.condition_id, price: '0.4', side: 'SELL', size: '6', fee_rate_bps: '0' });
    expect(ltn).toMatchObject({ market: m.condition_id, price: '0.6', side: 'BUY', size: '6', fee_rate_bps: '0' });
    expect(lty.timestamp).toMatch(/^\d{13}$/);
    // the snapshot after the trade is GET /book; its hash is the price_change's hash (same batch)
    expect(bky.bids).toEqual((await book(yes(m))).bids);
    expect(bkn.asks).toEqual((await book(no(m))).asks);
    expect(bky.hash).toBe(pc.price_changes[0].hash);
    expect(bkn.hash).toBe(pc.price_changes[1].hash);
    expect(bky.hash).toBe(recomputeHash(bky));
  });

  it('tick_size_change per subscribed token via the admin route', async () => {
    const m = otherMarket(0);
    const c = await subscribed([yes(m), no(m)]);
    await c.waitFor((e) => e.event_type === 'book' && e.asset_id === no(m));
    const r = await v.admin(`/markets/${m.condition_id}/tick-size`, { tick_size: '0.001' });
    expect(r.status).toBe(200);
    const ty = await c.waitFor((e) => e.event_type === 'tick_size_change' && e.asset_id === yes(m));
    const tn = await c.waitFor((e) => e.event_type === 'tick_size_change' && e.asset_id === no(m));
    for (const t of [ty, tn])
      expect(t).toMatchObject({ market: m.condition_id, old_tick_size: '0.01', new_tick_size: '0.001' });
    expect(ty.timestamp).toMatch(/^\d{13}$/);
  });
});

describe('market channel: custom features', () => {
  it('best_bid_ask only with custom_feature_enabled, when the top changes', async () => {
    const m = otherMarket(1);
    const plain = await subscribed([yes(m)]);
    const custom = await subscribed([yes(m), no(m)], { custom_feature_enabled: true });
    await custom.waitFor((e) => e.event_type === 'book' && e.asset_id === no(m));
    await plain.waitFor((e) => e.event_type === 'book');
    const r = await a.place(yes(m), 'BUY', '0.20', '5');
    const bby = await custom.waitFor((e) => e.event_type === 'best_bid_ask' && e.asset_id === yes(m));
    expect(bby).toMatchObject({ market: m.condition_id, best_bid: '0.2', best_ask: '0', spread: '0' });
    const bbn = await custom.waitFor((e) => e.event_type === 'best_bid_ask' && e.asset_id === no(m));
    expect(bbn).toMatchObject({ best_bid: '0', best_ask: '0.8' });
    const r2 = await b.place(no(m), 'BUY', '0.70', '5'); // YES ask 0.30
    const bb2 = await custom.waitFor(
      (e) => e.event_type === 'best_bid_ask' && e.asset_id === yes(m) && e.best_ask === '0.3',
    );
    expect(bb2).toMatchObject({ best_bid: '0.2', spread: '0.1' });
    // not the top: no best_bid_ask
    const from = custom.events.length;
    const r3 = await a.place(yes(m), 'BUY', '0.10', '5');
    await custom.waitFor((e) => e.event_type === 'price_change', { from });
    await custom.quiet(50);
    expect(custom.events.slice(from).some((e) => e.event_type === 'best_bid_ask')).toBe(false);
    await plain.quiet(50);
    expect(plain.events.some((e) => e.event_type === 'best_bid_ask')).toBe(false);
    await a.l2('DELETE', '/orders', [r.id, r3.id]);
    await b.l2('DELETE', '/order', { orderID: r2.id });
  });

  it('new_market to every custom client; market_resolved to the subscribers', async () => {
    const custom = await subscribed([], { custom_feature_enabled: true });
    const plain = await subscribed([]);
    await sleep(50);
    const meta = initialMarkets(4242, Date.now())[0]!;
    v.running.exchange.addMarket(meta);
    const nm = await custom.waitFor((e) => e.event_type === 'new_market');
    expect(nm).toMatchObject({
      id: meta.conditionId,
      market: meta.conditionId,
      question: meta.question,
      slug: meta.slug,
      description: meta.description,
      assets_ids: meta.tokens,
      outcomes: ['Yes', 'No'],
    });
    expect(nm.event_message).toEqual(expect.objectContaining({ title: expect.any(String), slug: expect.any(String) }));
    expect(nm.timestamp).toMatch(/^\d{13}$/);

    // subscribe to the new market, resolve it
    custom.send({ assets_ids: meta.tokens, operation: 'subscribe' });
    await custom.waitFor((e) => e.event_type === 'book' && e.asset_id === meta.tokens[1]);
    const r = await v.admin(`/markets/${meta.conditionId}/resolve`, { winning_token: meta.tokens[0] });
    expect(r.status).toBe(200);
    const mr = await custom.waitFor((e) => e.event_type === 'market_resolved');
    expect(mr).toMatchObject({
      market: meta.conditionId,
      assets_ids: meta.tokens,
      winning_asset_id: meta.tokens[0],
      winning_outcome: 'Yes',
    });
    await plain.quiet(50);
    expect(plain.events.some((e) => e.event_type === 'new_market' || e.event_type === 'market_resolved')).toBe(false);
  });
});

describe('market channel: subscriptions', () => {
  it('subscribes and unsubscribes dynamically; a resubscribe gives a fresh snapshot', async () => {
    const m = otherMarket(2);
    const c = await subscribed([]);
    c.send({ assets_ids: [yes(m)], operation: 'subscribe' });
    await c.waitFor((e) => e.event_type === 'book' && e.asset_id === yes(m));
    let from = c.events.length;
    const r1 = await a.place(yes(m), 'BUY', '0.11', '5');
    await c.waitFor((e) => e.event_type === 'price_change', { from });
    c.send({ assets_ids: [yes(m)], operation: 'unsubscribe' });
    await sleep(50);
    from = c.events.length;
    const r2 = await a.place(yes(m), 'BUY', '0.12', '5');
    await sleep(150);
    expect(c.events.slice(from)).toEqual([]);
    c.send({ assets_ids: [yes(m)], operation: 'subscribe' });
    const snap = await c.waitFor((e) => e.event_type === 'book', { from });
    expect(snap.bids).toEqual((await book(yes(m))).bids);
    await a.l2('DELETE', '/orders', [r1.id, r2.id]);
  });

  it('accepts type MARKET and the public clients extras; ignores unknown and malformed asset ids', async () => {
    const m = otherMarket(2);
    const c = await client();
    // unknown and malformed ids get nothing, no error either, as on the public service (README, findings-3 F9)
    c.send({
      assets_ids: ['123456789', 'abc', yes(m)],
      type: 'MARKET',
      markets: [],
      operation: 'subscribe',
      initial_dump: true,
      custom_feature_enabled: false,
    });
    const f = await c.until(() => c.frames[0], 30_000, 'snapshot');
    expect((f as any).asset_id).toBe(yes(m)); // only the known asset: one object
    expect(c.events.some((e) => e.event_type === 'error')).toBe(false);
    // initial_dump false: no snapshot
    const d = await client();
    d.send({ assets_ids: [yes(m)], type: 'market', initial_dump: false });
    await sleep(150);
    expect(d.frames).toEqual([]);
  });

  it('also serves /ws/market/ and /ws (channel picked by type)', async () => {
    const m = v.m1;
    for (const path of ['/ws/market/', '/ws', '/ws/']) {
      const c = await client(path);
      c.send({ assets_ids: [yes(m)], type: 'market' });
      const ev = await c.waitFor((e) => e.event_type === 'book');
      expect(ev.asset_id).toBe(yes(m));
    }
  });
});

describe('market channel: keep-alive and bad input', () => {
  it('answers PING with PONG (and ping with pong)', async () => {
    const c = await client();
    c.send('PING');
    await c.waitText('PONG');
    c.send('ping');
    await c.waitText('pong');
  });

  it('answers garbage with an error frame, keeps the socket, and another client is unaffected', async () => {
    const m = v.m1;
    const other = await subscribed([yes(m)]);
    await other.waitFor((e) => e.event_type === 'book');
    const bad = await client();
    const garbage = [
      'not json',
      '[1,2,3]',
      '{"assets_ids": "x", "type": "market"}',
      '{"assets_ids": [1,2]}',
      '{"type": "market"}',
      '{"assets_ids": [], "operation": "explode"}',
      '{"assets_ids": [], "custom_feature_enabled": "yes"}',
      'null',
      '{"type":"user","markets":[]}',
    ];
    for (const g of garbage) bad.send(g);
    await bad.until(
      () => bad.events.filter((e) => e.event_type === 'error').length === garbage.length,
      3000,
      'error frames',
    );
    for (const e of bad.events) {
      expect(e).toMatchObject({ event_type: 'error', error: { code: 'BAD_REQUEST', message: expect.any(String) } });
    }
    expect(bad.closed).toBeUndefined();
    bad.send('PING');
    await bad.waitText('PONG');
    // the other client still streams
    const from = other.events.length;
    const r = await a.place(yes(m), 'BUY', '0.33', '5');
    await other.waitFor((e) => e.event_type === 'price_change', { from });
    expect(other.events.some((e) => e.event_type === 'error')).toBe(false);
    await a.l2('DELETE', '/order', { orderID: r.id });
  });

  it('closes 1003 on a binary frame and 1009 on an oversized one', async () => {
    const c = await client();
    c.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    expect((await c.waitClose()).code).toBe(1003);
    const d = await client();
    d.send('x'.repeat(65 * 1024));
    expect((await d.waitClose()).code).toBe(1009);
    // the server lives on
    const e = await client();
    e.send('PING');
    await e.waitText('PONG');
  });

  it('refuses unknown paths with 404', async () => {
    await expect(WsClient.open(`${v.running.urls.ws_url}/ws/nope`)).rejects.toThrow(/404/);
    await expect(WsClient.open(`${v.running.urls.ws_url}/clob/book`)).rejects.toThrow(/404/);
  });
});

describe('market channel: nested batches', () => {
  it('stays exact when a listener places orders while being notified (the nested batch arrives first)', async () => {
    const ex = new PaperExchange({ ...DEFAULT_EXCHANGE_OPTIONS, clock: new LiveClock() });
    seedWorld(ex, 9);
    const meta = ex.listMarkets().find((m) => m.meta.tick === '0.01')!.meta;
    const driver = new FlowDriver(ex, meta.tokens, { seed: 3 });
    // registered before the streams: when an order comes to rest it joins its level from inside
    // the notification, so the streams see the joined level (nested batch) before the outer batch
    // that reports the level without it
    let depth = 0;
    let seq = 0;
    ex.subscribe((events) => {
      if (depth > 0) return;
      depth++;
      try {
        for (const e of events) {
          if (e.type !== 'order_placed' || e.order.status !== 'LIVE' || e.order.sizeMatched > 0) continue;
          const o = e.order;
          ex.placeInternal({
            id: `join-${++seq}`,
            account: driver.accounts[0]!,
            tokenId: o.tokenId,
            side: o.side,
            price: o.price,
            size: 5_000_000,
            type: 'GTC',
            postOnly: true,
          });
        }
      } finally {
        depth--;
      }
    });
    const server = createServer((_req, res) => res.writeHead(404).end());
    const streams = attachStreams(server, ex, new FaultController(() => Date.now()), { maxPayload: 65536 });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const c = await WsClient.open(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws/market`);
      open.push(c);
      c.send({ assets_ids: [...meta.tokens], type: 'market' });
      await c.until(() => c.events.filter((e) => e.event_type === 'book').length >= 2, 30_000, 'snapshots');
      for (let round = 0; round < 20; round++) {
        for (let i = 0; i < 100; i++) driver.step();
        await sleep(20);
        await c.quiet(30);
        const mirror = new BookMirror();
        for (const e of c.events) mirror.apply(e);
        for (const tok of meta.tokens) {
          const w = renderBook(ex, ex.engine.book(tok), 0);
          expect(mirror.levels(tok)!.bids).toEqual(new Map(w.bids.map((l) => [l.price, l.size])));
          expect(mirror.levels(tok)!.asks).toEqual(new Map(w.asks.map((l) => [l.price, l.size])));
        }
      }
      expect(seq).toBeGreaterThan(20);
      expect(streams.stats().listenerErrors).toBe(0);
    } finally {
      await streams.close();
      server.close();
    }
  });
});
