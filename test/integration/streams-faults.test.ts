/**
 * Stream faults and hygiene: a frozen stream stays open and answers PONG but sends no data; latency
 * delays frames in order; drop closes sockets (now, and new ones after dropAfterMs); a slow reader
 * is cut off instead of growing the server's memory.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LiveClock } from '../../src/core/clock.ts';
import { DEFAULT_EXCHANGE_OPTIONS, PaperExchange } from '../../src/exchange/exchange.ts';
import { FaultController } from '../../src/exchange/faults.ts';
import { seedWorld } from '../../src/exchange/world/index.ts';
import { attachStreams } from '../../src/exchange/ws/index.ts';
import { getJson, no, sleep, startVenue, yes, type TestVenue } from './support/setup.ts';
import type { Trader } from './support/trader.ts';
import { WsClient } from './support/ws-client.ts';

let v: TestVenue;
let a: Trader;
let b: Trader;
const open: WsClient[] = [];

async function client(path: string): Promise<WsClient> {
  const c = await WsClient.open(`${v.running.urls.ws_url}${path}`);
  open.push(c);
  return c;
}
async function market(assets: string[]): Promise<WsClient> {
  const c = await client('/ws/market');
  c.send({ assets_ids: assets, type: 'market' });
  await c.until(() => c.events.filter((e) => e.event_type === 'book').length >= assets.length, 30_000, 'snapshots');
  return c;
}

beforeAll(async () => {
  v = await startVenue({ http: { rateLimits: { enabled: false, scale: 1, queueMs: 0 } } });
  a = await v.trader();
  b = await v.trader();
});
afterEach(async () => {
  v.running.faults.clear();
  while (open.length) open.pop()!.close();
  await a.l2('DELETE', '/cancel-all');
  await b.l2('DELETE', '/cancel-all');
});
afterAll(async () => v?.close());

describe('freeze', () => {
  it('a frozen market stream stays open, answers PONG, sends nothing; unfrozen it flows again', async () => {
    const m = v.m1;
    const c = await market([yes(m), no(m)]);
    const rule = v.running.faults.add({ stream: 'market', freeze: true });
    const from = c.events.length;
    const rest = await a.place(yes(m), 'BUY', '0.45', '10');
    const take = await b.place(no(m), 'BUY', '0.55', '5'); // a trade
    expect(take.body.status).toBe('matched');
    // five PING/PONG rounds ~200 ms apart (a count, not a time window: each PONG is waited for), so
    // the frozen stream is watched for at least a second
    let pongs = 0;
    for (let i = 0; i < 5; i++) {
      const n = c.texts.length;
      c.send('PING');
      await c.waitText('PONG', n);
      pongs++;
      await sleep(200);
    }
    expect(pongs).toBe(5);
    expect(c.events.slice(from)).toEqual([]);
    expect(c.closed).toBeUndefined();

    // unfreeze: data flows again; a resubscribe gives a fresh snapshot equal to GET /book
    v.running.faults.remove(rule.id!);
    const r2 = await a.place(yes(m), 'BUY', '0.41', '5');
    await c.waitFor((e) => e.event_type === 'price_change', { from });
    const from2 = c.events.length;
    c.send({ assets_ids: [yes(m)], operation: 'subscribe' });
    const snap = await c.waitFor((e) => e.event_type === 'book', { from: from2 });
    const rest2 = await getJson(`${v.clob}/book?token_id=${yes(m)}`);
    expect(snap.bids).toEqual(rest2.bids);
    expect(snap.asks).toEqual(rest2.asks);
    expect(rest.body.status).toBe('live');
    expect(r2.body.status).toBe('live');
  });

  it('a freeze set through the admin route silences the user stream only', async () => {
    const r = await fetch(`${v.clob.replace(/\/clob$/, '')}/admin/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-admin-token': 'test-admin-token' },
      body: JSON.stringify({ stream: 'user', freeze: true }),
    });
    expect(r.status).toBe(200);
    const u = await client('/ws/user');
    u.send({ auth: { ...a.creds! }, markets: [], type: 'user' });
    u.send('PING');
    await u.waitText('PONG');
    const mk = await market([yes(v.m1)]);
    const from = mk.events.length;
    await a.place(yes(v.m1), 'BUY', '0.33', '5');
    await mk.waitFor((e) => e.event_type === 'price_change', { from });
    await sleep(200);
    expect(u.events).toEqual([]);
  });
});

describe('latency', () => {
  it('delays data frames by latencyMs and keeps their order', async () => {
    const m = v.m1;
    const c = await market([yes(m)]);
    // (2 s: far above what a loaded machine adds to a PONG's round trip, so "not delayed" is clear)
    v.running.faults.add({ stream: 'market', latencyMs: 2000 });
    const from = c.events.length;
    const t0 = Date.now();
    const r1 = await a.place(yes(m), 'BUY', '0.31', '5');
    const r2 = await a.place(yes(m), 'BUY', '0.32', '5');
    const r3 = await a.place(yes(m), 'BUY', '0.33', '5');
    await c.until(() => c.events.length - from >= 3, 30_000, 'three frames');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1980);
    expect(c.events.slice(from).map((e) => e.price_changes[0].price)).toEqual(['0.31', '0.32', '0.33']);
    // PONG is not delayed
    const t1 = Date.now();
    c.send('PING');
    await c.waitText('PONG');
    expect(Date.now() - t1).toBeLessThan(1500);
    expect([r1, r2, r3].every((r) => r.body.status === 'live')).toBe(true);
  });
});

describe('drop', () => {
  it('closes the connected sockets of the stream at once, and new ones too', async () => {
    const r1 = await client('/rtds');
    const r2 = await client('/rtds');
    const mk = await client('/ws/market');
    v.running.faults.add({ stream: 'rtds', drop: true });
    await r1.waitClose();
    await r2.waitClose();
    const r3 = await WsClient.open(`${v.running.urls.ws_url}/rtds`).catch(() => undefined);
    if (r3) {
      open.push(r3);
      await r3.waitClose();
    }
    // another stream is untouched
    await sleep(50);
    expect(mk.closed).toBeUndefined();
    mk.send('PING');
    await mk.waitText('PONG');
  });

  it('with dropAfterMs, a connection lives that long from its opening', async () => {
    v.running.faults.add({ stream: 'market', drop: true, dropAfterMs: 400 });
    const t0 = Date.now();
    const c = await client('/ws/market');
    await c.waitClose(30_000);
    const lived = Date.now() - t0;
    expect(lived).toBeGreaterThanOrEqual(350);
    expect(lived).toBeLessThan(10_000); // (the opening itself takes a while on a loaded machine)
  });
});

describe('slow reader', () => {
  it('terminates a socket whose unsent data passes the cap; others keep streaming', async () => {
    const ex = new PaperExchange({ ...DEFAULT_EXCHANGE_OPTIONS, clock: new LiveClock() });
    seedWorld(ex, 3);
    const server = createServer((_req, res) => res.writeHead(404).end());
    const faults = new FaultController(() => Date.now());
    const streams = attachStreams(server, ex, faults, { maxPayload: 64 * 1024, maxBufferedBytes: 256 * 1024 });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws/market`;
    try {
      const meta = ex.listMarkets()[0]!.meta;
      const slow = await WsClient.open(url);
      const fast = await WsClient.open(url);
      for (const c of [slow, fast]) c.send({ assets_ids: [...meta.tokens], type: 'market' });
      await fast.until(() => fast.events.length >= 2, 30_000, 'snapshots');
      await slow.until(() => slow.events.length >= 2, 30_000, 'snapshots');
      expect(streams.stats().market).toBe(2);
      // the slow client stops reading
      (slow.ws as any)._socket.pause();
      ex.fund('0x00000000000000000000000000000000000000b1', 1_000_000_000_000);
      let i = 0;
      const deadline = Date.now() + 15_000;
      while (streams.stats().slowTerminated === 0 && Date.now() < deadline) {
        for (let k = 0; k < 500; k++, i++) {
          ex.placeInternal({
            id: `slow-${i}`,
            account: '0x00000000000000000000000000000000000000b1',
            tokenId: meta.tokens[0],
            side: 'BUY',
            price: 100 * (1 + (i % 50)),
            size: 5_000_000,
            type: 'GTC',
          });
        }
        await sleep(5);
      }
      expect(streams.stats().slowTerminated).toBe(1);
      await sleep(50);
      expect(streams.stats().market).toBe(1);
      // the fast one keeps streaming
      const from = fast.events.length;
      ex.placeInternal({
        id: 'slow-after',
        account: '0x00000000000000000000000000000000000000b1',
        tokenId: meta.tokens[0],
        side: 'BUY',
        price: 9000,
        size: 5_000_000,
        type: 'GTC',
      });
      await fast.waitFor(
        (e) => e.event_type === 'price_change' && e.price_changes.some((x: any) => x.price === '0.9'),
        { from, timeoutMs: 30_000 },
      );
      expect(streams.stats().listenerErrors).toBe(0);
      fast.close();
      slow.close();
    } finally {
      await streams.close();
      server.close();
    }
  }, 30_000);
});
