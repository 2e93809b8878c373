/**
 * mmkit's stream clients against the real paper exchange (loopback): the market stream feeding
 * book mirrors equals GET /book under live flow, and again after a DROPPED socket and after a
 * FROZEN one (PONG still answered) with flow going on during the outage; the user stream recovers
 * the fills made while it was away through reconciliation, each exactly once; RTDS prices and
 * comments; bad frames counted while the stream goes on.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Observable, Subscription } from 'rxjs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { marketStream, type MarketStream } from '../../src/api/streams/market.ts';
import { rtdsStream } from '../../src/api/streams/rtds.ts';
import { userStream, type ReconcileContext } from '../../src/api/streams/user.ts';
import { BookMirrors, feedMirrors } from '../../src/book/mirror.ts';
import type { FillEvent, MarketEvent, MmkitEvent, OrderUpdateEvent, PriceLevel } from '../../src/core/events.ts';
import { parseAmount, parsePrice, type Micro, type Pips } from '../../src/core/units.ts';
import { FlowDriver } from './support/flow-driver.ts';
import { getJson, no, sleep, startVenue, yes, type TestVenue } from './support/setup.ts';
import type { MarketInfo, Trader } from './support/trader.ts';

let v: TestVenue;
let markets: MarketInfo[];
const cleanups: Array<() => void> = [];

beforeAll(async () => {
  v = await startVenue({ http: { rateLimits: { enabled: false, scale: 1, queueMs: 0 } } });
  markets = v.markets.filter((m) => !m.neg_risk && m.minimum_tick_size === 0.01 && m.minimum_order_size <= 5);
  expect(markets.length).toBeGreaterThanOrEqual(4);
});
afterEach(() => {
  v.running.faults.clear();
  while (cleanups.length) cleanups.pop()!();
});
afterAll(async () => v?.close());

/** Records an Observable's events and waits for what a test expects. */
class Collector<E extends MmkitEvent> {
  readonly events: E[] = [];
  lastAt = 0;
  private readonly sub: Subscription;
  private waiters: Array<() => void> = [];
  constructor(src: Observable<E>) {
    this.sub = src.subscribe((e) => {
      this.events.push(e);
      this.lastAt = Date.now();
      const w = this.waiters;
      this.waiters = [];
      for (const f of w) f();
    });
    cleanups.push(() => this.sub.unsubscribe());
  }
  /** The first event at index >= from matching pred. */
  waitFor<T extends E = E>(
    pred: (e: E) => boolean,
    o: { from?: number; timeoutMs?: number; what?: string } = {},
  ): Promise<T> {
    const from = o.from ?? 0;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `timed out waiting for ${o.what ?? 'an event'}; got ${this.events
                .slice(from)
                .map((e) => e.type)
                .join(',')
                .slice(-400)}`,
            ),
          ),
        o.timeoutMs ?? 30_000,
      );
      const check = () => {
        const e = this.events.slice(from).find(pred);
        if (e !== undefined) {
          clearTimeout(timer);
          resolve(e as T);
        } else this.waiters.push(check);
      };
      check();
    });
  }
  /** Resolves once no event came for `ms`. */
  async quiet(ms = 150): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const idle = Date.now() - this.lastAt;
      if (idle >= ms) return;
      await sleep(ms - idle + 1);
    }
    throw new Error('never quiet');
  }
}

/** Polls `cond` every 50 ms until it holds or `timeoutMs` passes; returns whether it held. */
async function waitUntil(cond: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() >= end) return false;
    await sleep(50);
  }
  return true;
}

/** GET /book of a token as integer levels, best first. */
async function restBook(token: string): Promise<{ bids: PriceLevel[]; asks: PriceLevel[] }> {
  const b = await getJson(`${v.clob}/book?token_id=${token}`);
  const conv = (l: { price: string; size: string }): PriceLevel => [
    parsePrice(l.price) as Pips,
    parseAmount(l.size) as Micro,
  ];
  return {
    bids: b.bids.map(conv).sort((x: PriceLevel, y: PriceLevel) => y[0] - x[0]),
    asks: b.asks.map(conv).sort((x: PriceLevel, y: PriceLevel) => x[0] - y[0]),
  };
}

/** Steps the flow driver every 10 ms until stopped. */
function runFlow(driver: FlowDriver, opsPerTick = 4): () => void {
  let on = true;
  const tick = () => {
    if (!on) return;
    for (let i = 0; i < opsPerTick; i++) driver.step();
    setTimeout(tick, 10);
  };
  tick();
  const stop = () => {
    on = false;
  };
  cleanups.push(stop);
  return stop;
}

/** A market stream on both tokens of `m`, feeding mirrors (desyncs ask for fresh snapshots). */
function mirroredStream(m: MarketInfo, o: { silenceMs?: number; pingIntervalMs?: number } = {}) {
  const tokens = [yes(m), no(m)] as const;
  const stream: MarketStream = marketStream({ url: `${v.running.urls.ws_url}/ws/market`, assetIds: [...tokens], ...o });
  cleanups.push(() => stream.close());
  const mirrors = new BookMirrors();
  const c = new Collector<MarketEvent>(feedMirrors(stream.events$, mirrors, { onDesync: (ids) => stream.resync(ids) }));
  return { tokens, stream, mirrors, c };
}

async function expectMirrorsEqualRest(mirrors: BookMirrors, tokens: readonly string[], what: string): Promise<void> {
  for (const t of tokens) {
    const mirror = mirrors.get(t)!;
    expect(mirror.stale, `${what}: ${t === tokens[0] ? 'YES' : 'NO'} stale`).toBe(false);
    const rest = await restBook(t);
    expect(mirror.levels(), `${what}: ${t === tokens[0] ? 'YES' : 'NO'} book`).toEqual(rest);
  }
}

/** After a `disconnected` at index `from`, each token's first book event is its snapshot. */
function snapshotFirstAfter(events: MarketEvent[], from: number, tokens: readonly string[]): void {
  for (const t of tokens) {
    const first = events
      .slice(from)
      .find((e) => (e.type === 'book_snapshot' || e.type === 'level_change') && e.tokenId === t);
    expect(first?.type).toBe('book_snapshot');
  }
}

describe('market stream + mirrors vs GET /book', () => {
  it('(1) mirrors equal GET /book at quiet checkpoints of live flow; no desync', async () => {
    const m = markets[0]!;
    const driver = new FlowDriver(v.running.exchange, [yes(m), no(m)], { seed: 21, accounts: 4 });
    for (let i = 0; i < 200; i++) driver.step();
    const { tokens, stream, mirrors, c } = mirroredStream(m);
    await c.waitFor((e) => e.type === 'resynced', { what: 'initial resync' });
    expect(c.events[c.events.length - 1]).toMatchObject({ type: 'resynced', initial: true });
    await expectMirrorsEqualRest(mirrors, tokens, 'after the snapshot');
    for (let k = 0; k < 6; k++) {
      const stop = runFlow(driver);
      await sleep(400);
      stop();
      await c.quiet();
      await expectMirrorsEqualRest(mirrors, tokens, `checkpoint ${k}`);
    }
    const levelChanges = c.events.filter((e) => e.type === 'level_change').length;
    const trades = c.events.filter((e) => e.type === 'last_trade').length;
    expect(levelChanges).toBeGreaterThan(300);
    expect(trades).toBeGreaterThan(5);
    expect(mirrors.desyncs).toBe(0);
    expect(c.events.filter((e) => e.type === 'stream_error')).toEqual([]);
    expect(stream.stats().badFrames).toBe(0);
    driver.cancelAll();
  }, 30_000);

  it('(2) dropped socket: disconnected, reconnect, fresh snapshots, resynced; the mirror equals GET /book (flow went on)', async () => {
    const m = markets[1]!;
    const driver = new FlowDriver(v.running.exchange, [yes(m), no(m)], { seed: 22, accounts: 4 });
    for (let i = 0; i < 200; i++) driver.step();
    const { tokens, stream, mirrors, c } = mirroredStream(m);
    await c.waitFor((e) => e.type === 'resynced');
    const stop = runFlow(driver);
    await sleep(300);
    const from = c.events.length;
    v.running.faults.add({ stream: 'market', drop: true, untilMs: Date.now() + 300 });
    const disc = await c.waitFor((e) => e.type === 'disconnected', { from, what: 'disconnected' });
    expect(disc).toMatchObject({ stream: 'market' });
    const iDisc = c.events.indexOf(disc);
    expect(mirrors.get(tokens[0])!.stale).toBe(true);
    const opsAtDrop = driver.ops;
    const res = await c.waitFor((e) => e.type === 'resynced', { from: iDisc, timeoutMs: 30_000, what: 'resynced' });
    expect(res).toMatchObject({ stream: 'market', initial: false });
    expect(driver.ops - opsAtDrop).toBeGreaterThan(20); // the book moved during the outage
    snapshotFirstAfter(c.events, iDisc, tokens);
    // a little more flow on the new connection, then compare
    await sleep(300);
    stop();
    await c.quiet();
    await expectMirrorsEqualRest(mirrors, tokens, 'after the drop');
    expect(stream.stats().socket.opens).toBeGreaterThanOrEqual(2);
    expect(c.events.filter((e) => e.type === 'disconnected').length).toBe(1);
    driver.cancelAll();
  }, 30_000);

  it('(3) frozen socket (PONG still answered): silence detected, reconnects; once unfrozen it resyncs and equals GET /book', async () => {
    const m = markets[2]!;
    const driver = new FlowDriver(v.running.exchange, [yes(m), no(m)], { seed: 23, accounts: 4 });
    for (let i = 0; i < 200; i++) driver.step();
    const { tokens, stream, mirrors, c } = mirroredStream(m, { silenceMs: 1000, pingIntervalMs: 200 });
    await c.waitFor((e) => e.type === 'resynced');
    const stop = runFlow(driver);
    await sleep(300);
    const from = c.events.length;
    const pongs0 = stream.stats().socket.pongs;
    const rule = v.running.faults.add({ stream: 'market', freeze: true });
    const t0 = Date.now();
    const disc = await c.waitFor((e) => e.type === 'disconnected', { from, timeoutMs: 30_000, what: 'silence' });
    expect((disc as any).reason).toBe('silence: no data for 1000 ms');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    // PONGs kept coming during the freeze (~5 at 200 ms; fewer when timers run late under load):
    // they did not count as liveness
    expect(stream.stats().socket.pongs - pongs0).toBeGreaterThanOrEqual(2);
    expect(mirrors.get(tokens[0])!.stale).toBe(true);
    // still frozen: reconnections get no snapshot and are replaced again (waited for, not slept for:
    // under load each silence deadline and reconnect takes longer)
    await waitUntil(() => stream.stats().socket.attempts >= 3, 30_000);
    expect(c.events.slice(from).some((e) => e.type === 'resynced')).toBe(false);
    expect(stream.stats().socket.attempts).toBeGreaterThanOrEqual(3);
    v.running.faults.remove(rule.id!);
    const iDisc = c.events.indexOf(disc);
    const res = await c.waitFor((e) => e.type === 'resynced', {
      from: iDisc,
      timeoutMs: 30_000,
      what: 'resynced after the freeze',
    });
    expect(res).toMatchObject({ initial: false });
    snapshotFirstAfter(c.events, iDisc, tokens);
    await sleep(300);
    stop();
    await c.quiet();
    await expectMirrorsEqualRest(mirrors, tokens, 'after the freeze');
    expect(stream.stats().socket.silenceReconnects).toBeGreaterThanOrEqual(1);
    driver.cancelAll();
  }, 30_000);

  it('(6) a venue error frame is a stream_error; the stream goes on', async () => {
    const m = markets[0]!;
    const { stream, c } = mirroredStream(m);
    await c.waitFor((e) => e.type === 'resynced');
    const from = c.events.length;
    stream.subscribe(['x'.repeat(150)]); // refused by the venue: an error frame
    const err = await c.waitFor((e) => e.type === 'stream_error', { from });
    expect((err as any).reason).toMatch(/^venue error: BAD_REQUEST: /);
    const a = await v.trader();
    const r = await a.place(yes(m), 'BUY', '0.11', '5');
    await c.waitFor((e) => e.type === 'level_change' && e.price === 1100, { from });
    await a.l2('DELETE', '/order', { orderID: r.id });
  });
});

describe('bad frames from a server', () => {
  it('(6) are counted and surfaced as stream_error, never thrown; the stream continues', async () => {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await once(wss, 'listening');
    cleanups.push(() => wss.close());
    const book = {
      event_type: 'book',
      market: '0xm',
      asset_id: 'A',
      timestamp: '1760000000000',
      hash: 'h',
      bids: [{ price: '0.4', size: '1' }],
      asks: [],
    };
    const pc = (price: string) => ({
      event_type: 'price_change',
      market: '0xm',
      timestamp: '1760000000001',
      price_changes: [{ asset_id: 'A', price, size: '2', side: 'BUY', hash: 'h', best_bid: price, best_ask: '0' }],
    });
    wss.on('connection', (ws) => {
      ws.on('message', (data) => {
        const text = data.toString();
        if (text === 'PING') return void ws.send('PONG');
        ws.send(JSON.stringify(book));
        ws.send('{"event_type": "price_change", ');
        ws.send(JSON.stringify([{ event_type: 'price_change', market: '0xm' }, pc('0.41')]));
        ws.send(Buffer.from([1, 2, 3]), { binary: true });
        ws.send(JSON.stringify({ event_type: 'book', market: '0xm', asset_id: 'A', bids: 'lots' }));
        ws.send(JSON.stringify(42));
        ws.send(JSON.stringify(pc('0.42')));
      });
    });
    const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/ws/market`;
    const warnings: string[] = [];
    const stream = marketStream({ url, assetIds: ['A'], logger: { warn: (_o, msg) => warnings.push(msg) } });
    cleanups.push(() => stream.close());
    const mirrors = new BookMirrors();
    const c = new Collector<MarketEvent>(feedMirrors(stream.events$, mirrors));
    await c.waitFor((e) => e.type === 'level_change' && e.price === 4200, { what: 'the last good frame' });
    expect(c.events.map((e) => e.type).filter((t) => t !== 'resynced')).toEqual([
      'book_snapshot',
      'stream_error',
      'stream_error',
      'level_change',
      'stream_error',
      'stream_error',
      'stream_error',
      'level_change',
    ]);
    expect(stream.stats().badFrames).toBe(5);
    expect(warnings.length).toBeGreaterThanOrEqual(5);
    expect(mirrors.get('A')!.levels().bids).toEqual([
      [4200, 2_000_000],
      [4100, 2_000_000],
      [4000, 1_000_000],
    ]);
    expect(stream.stats().socket.opens).toBe(1);
  });
});

/** Every page of an L2 cursor endpoint. */
async function pages(t: Trader, path: string): Promise<unknown[]> {
  const out: unknown[] = [];
  let cursor = 'MA==';
  for (let i = 0; i < 100 && cursor !== 'LTE='; i++) {
    const r = await t.l2('GET', path, undefined, `next_cursor=${encodeURIComponent(cursor)}`);
    if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
    out.push(...r.body.data);
    cursor = r.body.next_cursor;
  }
  return out;
}

describe('user stream', () => {
  it('(4) fills made while the socket was dropped are recovered by reconciliation, each exactly once', async () => {
    const m = markets[3]!;
    const a = await v.trader();
    const b = await v.trader();
    const reconciles: ReconcileContext[] = [];
    const stream = userStream({
      url: `${v.running.urls.ws_url}/ws/user`,
      creds: a.creds!,
      address: a.address,
      markets: [m.condition_id],
      async reconcile(ctx) {
        reconciles.push(ctx);
        const orders = await pages(a, '/data/orders');
        const open = new Set(orders.map((o) => (o as { id: string }).id));
        for (const id of ctx.openOrderIds) {
          if (open.has(id)) continue;
          const r = await a.l2('GET', `/data/order/${id}`);
          if (r.status === 200) orders.push(r.body);
        }
        return { orders, trades: await pages(a, '/data/trades') };
      },
    });
    cleanups.push(() => stream.close());
    const c = new Collector(stream.events$);
    await c.waitFor((e) => e.type === 'resynced');
    const o1 = await a.place(yes(m), 'BUY', '0.42', '5');
    const o2 = await a.place(yes(m), 'BUY', '0.41', '20');
    const o3 = await a.place(yes(m), 'BUY', '0.30', '5');
    for (const o of [o1, o2, o3]) {
      expect(o.body.status).toBe('live');
      await c.waitFor((e) => e.type === 'order_update' && e.id === o.id && e.kind === 'PLACEMENT');
    }

    const rule = v.running.faults.add({ stream: 'user', drop: true });
    const disc = await c.waitFor((e) => e.type === 'disconnected');
    const iDisc = c.events.indexOf(disc);
    // while away: o1 filled fully, o2 twice in part, o3 cancelled
    const t1 = await b.place(no(m), 'BUY', '0.58', '5');
    const t2 = await b.place(no(m), 'BUY', '0.59', '6');
    const t3 = await b.place(no(m), 'BUY', '0.59', '5');
    for (const t of [t1, t2, t3]) expect(t.body.status, JSON.stringify(t.body)).toBe('matched');
    expect((await a.l2('DELETE', '/order', { orderID: o3.id })).body.canceled).toEqual([o3.id]);
    await sleep(200);
    expect(c.events.slice(iDisc + 1).filter((e) => e.type === 'fill' || e.type === 'order_update')).toEqual([]);
    v.running.faults.remove(rule.id!);

    await c.waitFor((e) => e.type === 'resynced', { from: iDisc, timeoutMs: 30_000, what: 'resynced' });
    expect(reconciles.length).toBeGreaterThanOrEqual(1);
    expect(reconciles[0]!.openOrderIds).toEqual(expect.arrayContaining([o1.id, o2.id, o3.id]));
    await sleep(300);
    const after = c.events.slice(iDisc);
    const fills = after.filter((e): e is FillEvent => e.type === 'fill');
    // the trades as the venue records them
    const trades = (await pages(a, '/data/trades')) as Array<{ id: string; taker_order_id: string }>;
    const missed = trades.filter((t) => [t1.id, t2.id, t3.id].includes(t.taker_order_id));
    expect(missed.length).toBe(3);
    const pairs = new Set(fills.map((f) => `${f.tradeId}|${f.orderId}`));
    expect([...pairs].sort()).toEqual(
      [
        `${missed.find((t) => t.taker_order_id === t1.id)!.id}|${o1.id}`,
        `${missed.find((t) => t.taker_order_id === t2.id)!.id}|${o2.id}`,
        `${missed.find((t) => t.taker_order_id === t3.id)!.id}|${o2.id}`,
      ].sort(),
    );
    const triples = fills.map((f) => `${f.tradeId}|${f.orderId}|${f.status}`);
    expect(new Set(triples).size).toBe(triples.length);
    expect(
      fills.every((f) => f.source === 'reconcile' && f.role === 'MAKER' && f.tokenId === yes(m) && f.side === 'BUY'),
    ).toBe(true);
    const matched = new Map<string, number>();
    for (const f of fills)
      if (!matched.has(`${f.tradeId}|${f.orderId}`)) matched.set(`${f.tradeId}|${f.orderId}`, f.size);
    expect([...matched.values()].sort()).toEqual([5_000_000, 5_000_000, 6_000_000]);
    // the orders' states
    const lastOrder = (id: string) =>
      after.filter((e): e is OrderUpdateEvent => e.type === 'order_update' && e.id === id).pop();
    expect(lastOrder(o1.id)).toMatchObject({ status: 'MATCHED', sizeMatched: 5_000_000, source: 'reconcile' });
    expect(lastOrder(o2.id)).toMatchObject({ status: 'LIVE', sizeMatched: 11_000_000 });
    expect(lastOrder(o3.id)).toMatchObject({ kind: 'CANCELLATION', status: 'CANCELED' });
    // fills come before the resync
    const iRes = after.findIndex((e) => e.type === 'resynced');
    expect(after.findLastIndex((e) => e.type === 'fill')).toBeLessThan(iRes);

    // another loss: the same records reconciled again emit nothing new
    const n = c.events.filter((e) => e.type === 'fill' || e.type === 'order_update').length;
    const rule2 = v.running.faults.add({ stream: 'user', drop: true, untilMs: Date.now() + 200 });
    const disc2 = await c.waitFor((e) => e.type === 'disconnected', { from: c.events.length });
    await c.waitFor((e) => e.type === 'resynced', { from: c.events.indexOf(disc2), timeoutMs: 30_000 });
    v.running.faults.remove(rule2.id!);
    expect(c.events.filter((e) => e.type === 'fill' || e.type === 'order_update').length).toBe(n);
    expect(stream.stats().duplicates).toBeGreaterThan(0);
    await a.l2('DELETE', '/cancel-all');
  }, 30_000);
});

describe('rtds', () => {
  it('(5) crypto prices (snapshot, then updates) and comments; resyncs after a drop', async () => {
    const ex = v.running.exchange;
    const now = Date.now();
    ex.publish({ type: 'crypto_price', symbol: 'btcusdt', value: 64000.25, at: now - 2000 });
    ex.publish({ type: 'crypto_price', symbol: 'btcusdt', value: 64010.5, at: now - 1000 });
    const stream = rtdsStream({
      url: v.running.urls.price_feed_url,
      subscriptions: [
        { topic: 'crypto_prices', type: 'update', filters: ['btcusdt'] },
        { topic: 'comments', type: 'comment_created', filters: { parentEntityID: 'ev-77', parentEntityType: 'Event' } },
      ],
    });
    cleanups.push(() => stream.close());
    const c = new Collector(stream.events$);
    await c.waitFor((e) => e.type === 'resynced');
    const snap = c.events.filter((e) => e.type === 'price_tick');
    expect(snap.map((e) => [(e as any).value, (e as any).snapshot, e.venueTime])).toEqual([
      [64000.25, true, now - 2000],
      [64010.5, true, now - 1000],
    ]);
    ex.publish({ type: 'crypto_price', symbol: 'ethusdt', value: 3100, at: Date.now() });
    ex.publish({ type: 'crypto_price', symbol: 'btcusdt', value: 65000.5, at: Date.now() });
    const up = await c.waitFor((e) => e.type === 'price_tick' && !(e as any).snapshot);
    expect(up).toMatchObject({ symbol: 'btcusdt', value: 65000.5, snapshot: false });
    const comment = (parent: string, body: string) =>
      ex.exec({
        k: 'comment',
        comment: {
          id: `c-${body}`,
          body,
          parentEntityType: 'Event',
          parentEntityId: parent,
          userAddress: '0x00000000000000000000000000000000000000aa',
          createdAt: new Date().toISOString(),
        },
      });
    comment('other', 'not-for-us');
    comment('ev-77', 'hello');
    const cm = await c.waitFor((e) => e.type === 'comment');
    expect(cm).toMatchObject({
      kind: 'comment_created',
      id: 'c-hello',
      body: 'hello',
      parentEntityId: 'ev-77',
      parentEntityType: 'Event',
    });
    expect(c.events.filter((e) => e.type === 'price_tick' && (e as any).symbol !== 'btcusdt')).toEqual([]);

    const from = c.events.length;
    v.running.faults.add({ stream: 'rtds', drop: true, untilMs: Date.now() + 200 });
    await c.waitFor((e) => e.type === 'disconnected', { from });
    await c.waitFor((e) => e.type === 'resynced', { from, timeoutMs: 30_000 });
    ex.publish({ type: 'crypto_price', symbol: 'btcusdt', value: 66000, at: Date.now() });
    await c.waitFor((e) => e.type === 'price_tick' && (e as any).value === 66000, { from });
    expect(stream.stats().badFrames).toBe(0);
  }, 20_000);
});
