/**
 * Tick-to-order: from a market frame received to the order request handed to the socket, through
 * the production path: the raw WebSocket text pushed into the market stream (frame parse, hot
 * decoder, sync bookkeeping), the live venue's stream, the engine loop (state update: book mirror
 * with top-of-book verification and crossed check), a simple strategy (two quotes five ticks off
 * the mid, re-quoted when the mid moves), the engine's gate and execute, a minimal executor (cancel
 * the old quotes, then prepare = EIP-712 hash + secp256k1 signature, then place), the live venue's
 * POST /orders through the CLOB client, up to the transport, where the body is serialised and
 * L2-signed (HMAC) exactly as the HTTP transport does before writing: the clock stops there (the
 * socket write is stubbed by capturing the bytes).
 *
 * Feed: 10 markets (20 tokens), a Poisson stream of 2,000 frames/s: price_change frames on both
 * tokens of a market (80%), full book snapshots (10%), last trades (10%), books kept consistent so
 * the mirrors' verification passes. Samples: every frame that led to an order request, after a
 * 1.5 s warm-up.
 *
 * Also measured: what the HTTP transport adds between `request()` and handing the request to
 * undici (its budget queue), against a loopback server: not part of the figure above, reported
 * so it stays visible.
 *
 * Run: node --import tsx test/bench/tick-to-order.bench.ts
 * Prints:
 *   figure: tick_to_order_p50_us = <n> us
 *   figure: tick_to_order_p99_us = <n> us
 *   figure: transport_request_to_send_p50_us = <n> us   (the transport's queue, informational)
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Wallet } from 'ethers';
import type { z } from 'zod';
import { createTransport, requestBody } from '../../src/api/http/transport.ts';
import type { RequestSpec, Transport } from '../../src/api/http/types.ts';
import { OrderBuilder } from '../../src/api/orders.ts';
import { l2Headers } from '../../src/api/signing/hmac.ts';
import type { WsFactory, WsHandlers } from '../../src/api/streams/socket.ts';
import { LiveClock } from '../../src/core/clock.ts';
import type { ConditionId, OrderId, TokenId } from '../../src/core/ids.ts';
import type { DesiredQuotes } from '../../src/core/intents.ts';
import { formatAmount, formatPrice, PRICE_SCALE, type Micro, type Pips } from '../../src/core/units.ts';
import { liveVenueFromParts } from '../../src/venues/live/live-venue.ts';
import { createEngine } from '../../src/engine/loop.ts';
import type { MarketInfo } from '../../src/core/venue.ts';
import type { StrategyHandlers } from '../../src/strategy/api.ts';
import { passGates } from '../support/approve.ts';

// ---- deterministic data ----------------------------------------------------------------------------

let seed = 4242;
const rnd = (): number => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x80000000;
};
const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
const hex = (n: number) => Array.from({ length: n }, () => '0123456789abcdef'[int(0, 15)]).join('');
const digits = (n: number) => String(int(1, 9)) + Array.from({ length: n - 1 }, () => String(int(0, 9))).join('');

const N_MARKETS = 10;
const FEED_PER_SEC = 2_000;
const RUN_MS = 8_000;
const WARMUP_MS = 1_500;
const QUOTE_SIZE = 5_000_000 as Micro;

interface Book {
  cid: string;
  yes: string;
  no: string;
  bids: Map<number, number>; // YES bids, pips -> micro
  asks: Map<number, number>;
}
const books: Book[] = Array.from({ length: N_MARKETS }, () => {
  const b: Book = { cid: `0x${hex(64)}`, yes: digits(77), no: digits(77), bids: new Map(), asks: new Map() };
  for (let p = 4500; p <= 4900; p += 100) b.bids.set(p, int(1, 500) * 10_000);
  for (let p = 5100; p <= 5500; p += 100) b.asks.set(p, int(1, 500) * 10_000);
  return b;
});
const best = (m: Map<number, number>, max: boolean): number => {
  let r = 0;
  for (const p of m.keys()) if (r === 0 || (max ? p > r : p < r)) r = p;
  return r;
};
/** A token's levels and best prices: the NO book is the YES book's complement. */
function view(b: Book, token: 'yes' | 'no') {
  const c = (m: Map<number, number>) => [...m].map(([p, s]) => [PRICE_SCALE - p, s] as const);
  const bids = token === 'yes' ? [...b.bids] : c(b.asks);
  const asks = token === 'yes' ? [...b.asks] : c(b.bids);
  const bb = bids.reduce((x, [p]) => Math.max(x, p), 0);
  const ba = asks.reduce((x, [p]) => (x === 0 ? p : Math.min(x, p)), 0);
  return { bids, asks, bb, ba };
}
function bookFrame(b: Book, token: 'yes' | 'no'): Record<string, unknown> {
  const v = view(b, token);
  const lv = (l: readonly (readonly [number, number])[], asc: boolean) =>
    [...l]
      .sort((x, y) => (asc ? x[0] - y[0] : y[0] - x[0]))
      .map(([p, s]) => ({ price: formatPrice(p), size: formatAmount(s) }));
  return {
    event_type: 'book',
    market: b.cid,
    asset_id: token === 'yes' ? b.yes : b.no,
    timestamp: String(Date.now()),
    hash: hex(40),
    bids: lv(v.bids, true), // the wire: best last
    asks: lv(v.asks, false),
    min_order_size: '5',
    tick_size: '0.01',
    neg_risk: false,
    last_trade_price: formatPrice(best(b.bids, true) || 5000),
  };
}
/** The next frame: mutates the model like the venue's book would move. */
function nextFrame(): string {
  const b = books[int(0, N_MARKETS - 1)]!;
  const x = rnd();
  if (x < 0.8) {
    const bid = rnd() < 0.5;
    const side = bid ? b.bids : b.asks;
    const p = bid ? 4500 + 100 * int(0, 4) : 5100 + 100 * int(0, 4);
    const size = rnd() < 0.3 && side.size > 1 ? 0 : int(1, 500) * 10_000;
    if (size === 0) side.delete(p);
    else side.set(p, size);
    const y = view(b, 'yes');
    const n = view(b, 'no');
    const s = formatAmount(size);
    return JSON.stringify({
      event_type: 'price_change',
      market: b.cid,
      timestamp: String(Date.now()),
      price_changes: [
        {
          asset_id: b.yes,
          price: formatPrice(p),
          size: s,
          side: bid ? 'BUY' : 'SELL',
          hash: hex(40),
          best_bid: formatPrice(y.bb),
          best_ask: formatPrice(y.ba),
        },
        {
          asset_id: b.no,
          price: formatPrice(PRICE_SCALE - p),
          size: s,
          side: bid ? 'SELL' : 'BUY',
          hash: hex(40),
          best_bid: formatPrice(n.bb),
          best_ask: formatPrice(n.ba),
        },
      ],
    });
  }
  if (x < 0.9) return JSON.stringify(bookFrame(b, rnd() < 0.5 ? 'yes' : 'no'));
  return JSON.stringify({
    event_type: 'last_trade_price',
    asset_id: b.yes,
    market: b.cid,
    price: formatPrice(best(b.bids, true) || 5000),
    side: 'SELL',
    size: formatAmount(int(1, 50) * 10_000),
    fee_rate_bps: '0',
    timestamp: String(Date.now()),
  });
}

// ---- the stubbed edges: sockets and the HTTP write ---------------------------------------------

let market: WsHandlers | undefined;
const factory: WsFactory = (url, h) => {
  const isMarket = url.endsWith('/ws/market');
  if (isMarket) market = h;
  setImmediate(() => h.onOpen());
  return {
    send(text) {
      if (text === 'PING') setImmediate(() => h.onText('PONG'));
      else if (isMarket && text.startsWith('{') && text.includes('"type"')) {
        setImmediate(() => h.onText(JSON.stringify(books.flatMap((b) => [bookFrame(b, 'yes'), bookFrame(b, 'no')]))));
      }
    },
    terminate() {},
    close() {},
  };
};

const creds = { apiKey: 'bench-key', secret: randomBytes(32).toString('base64'), passphrase: 'bench-pass' };
const wallet = new Wallet(Wallet.createRandom().privateKey);
let frameT0 = 0;
let captured = -1;
let bytesOut = 0;
/**
 * The transport stub: serialises (`requestBody`, the HTTP transport's own: a caller's pre-serialised
 * body or JSON.stringify) and L2-signs (`l2Headers`) as the HTTP transport does, captures, answers.
 * The answer is validated when it "arrives" (a later microtask), as the HTTP transport validates a
 * response: not before the next request is handed over.
 */
const transport: Transport = {
  request<S extends z.ZodType>(spec: RequestSpec, schema: S): Promise<z.output<S>> {
    const body = requestBody(spec);
    const headers = l2Headers(
      { key: creds.apiKey, secret: creds.secret, passphrase: creds.passphrase },
      wallet.address,
      spec.method,
      spec.path,
      body,
      Math.floor(Date.now() / 1000),
    );
    bytesOut += (body?.length ?? 0) + headers.POLY_SIGNATURE.length;
    let answer: unknown;
    if (spec.method === 'POST' && spec.path === '/orders') {
      if (captured < 0) captured = performance.now() - frameT0; // the request is ready for the socket
      answer = (spec.body as unknown[]).map(() => ({ success: true, errorMsg: '', orderID: '', status: 'live' }));
    } else if (spec.method === 'DELETE') answer = { canceled: spec.body ?? [], not_canceled: {} };
    else answer = {};
    return Promise.resolve().then(() => schema.parse(answer) as z.output<S>);
  },
};

// ---- venue, engine, strategy, executor -------------------------------------------------------------

const clock = new LiveClock();
const venue = liveVenueFromParts({
  transport,
  creds,
  address: wallet.address,
  builder: new OrderBuilder({ wallet, chainId: 137 }),
  urls: { ws: 'ws://bench' },
  clock,
  silenceMs: 0,
  createSocket: factory,
  presign: { ticks: 2 },
});
const markets: MarketInfo[] = books.map((b) => ({
  market: b.cid as ConditionId,
  question: 'bench?',
  tokens: [
    { tokenId: b.yes as TokenId, outcome: 'Yes' },
    { tokenId: b.no as TokenId, outcome: 'No' },
  ],
  tick: '0.01',
  minOrderSize: 5_000_000 as Micro,
  negRisk: false,
  feeRateBps: 0,
  active: true,
  endDate: '',
}));
venue.learnMarkets(markets);

/** Two quotes five ticks off the YES mid (BUY YES, BUY NO), re-quoted when their prices change. */
const last = new Map<string, number>();
const strategy: StrategyHandlers = {
  onEvent(e, s) {
    if (e.type !== 'level_change' && e.type !== 'book_snapshot') return undefined;
    if (e.type === 'level_change' && !e.endOfBatch) return undefined;
    const info = markets.find((m) => m.market === e.market);
    if (info === undefined) return undefined;
    const yb = s.book(info.tokens[0].tokenId);
    if (yb === undefined || yb.mid === null || yb.stale) return undefined;
    const bid = Math.floor((yb.mid - 500) / 100) * 100;
    const noBid = Math.floor((PRICE_SCALE - yb.mid - 500) / 100) * 100;
    const key = bid * 100_000 + noBid;
    if (last.get(info.market) === key) return undefined;
    last.set(info.market, key);
    return {
      quotes: [
        {
          market: info.market,
          at: s.now,
          quotes: [
            { tokenId: info.tokens[0].tokenId, side: 'BUY', price: bid as Pips, size: QUOTE_SIZE },
            { tokenId: info.tokens[1].tokenId, side: 'BUY', price: noBid as Pips, size: QUOTE_SIZE },
          ],
        },
      ],
    };
  },
};

/** Cancel what is resting in the market, then place the new set (both requests leave at once). */
const resting = new Map<string, OrderId[]>();
let placeErrors = 0;
function execute(d: DesiredQuotes): void {
  const old = resting.get(d.market);
  if (old !== undefined && old.length > 0) void venue.cancel(old).catch(() => placeErrors++);
  if (d.quotes.length === 0) {
    resting.set(d.market, []);
    return;
  }
  const prepared = venue.prepare(d.quotes.map((q) => ({ market: d.market, ...q, type: 'GTC' as const })));
  resting.set(
    d.market,
    prepared.map((p) => p.id),
  );
  void venue.place(prepared).then(
    (outs) => outs.forEach((o) => void (o.ok || placeErrors++)),
    () => placeErrors++,
  );
}

const engine = createEngine({
  venue,
  markets,
  clock,
  strategy,
  execute,
  // the real gate, on a view that approves every quote of the bench (test/support/approve.ts)
  ...passGates,
  timers: { tickMs: 0, balanceMs: 0 },
});

// ---- run -------------------------------------------------------------------------------------------

function pct(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function feed(): Promise<{ samples: number[]; frames: number }> {
  await engine.start();
  for (let i = 0; i < 400 && engine.pulled().size > 0; i++) await new Promise((r) => setTimeout(r, 5));
  if (engine.pulled().size > 0)
    throw new Error(`markets still pulled after the initial sync: ${[...engine.pulled()].length}`);
  const samples: number[] = [];
  const start = performance.now();
  let due = start;
  let frames = 0;
  // The process sleeps between arrivals (as it would waiting on the socket): a timer wakes it and
  // every frame due by then is delivered, each timed from its own delivery.
  await new Promise<void>((done) => {
    const loop = () => {
      const now = performance.now();
      if (now - start > RUN_MS) return done();
      while (due <= performance.now()) {
        const text = nextFrame();
        captured = -1;
        frameT0 = performance.now();
        market!.onText(text);
        frames++;
        if (captured >= 0 && frameT0 - start > WARMUP_MS) samples.push(captured);
        due += -Math.log(1 - rnd()) * (1000 / FEED_PER_SEC); // Poisson arrivals
      }
      setTimeout(loop, Math.max(0, due - performance.now()));
    };
    loop();
  });
  return { samples, frames };
}

/** The HTTP transport's own latency from request() to the hand-off to undici (budget queue), loopback. */
async function transportQueue(): Promise<number[]> {
  const srv = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end('[]');
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  let t0 = 0;
  const d: number[] = [];
  const t = createTransport({
    urls: { clob: `http://127.0.0.1:${(srv.address() as AddressInfo).port}` },
    credentials: creds,
    address: wallet.address,
    onSend: (e) => void (e.attempt === 1 && d.push((performance.now() - t0) * 1000)),
    // every budget in the path (the windows, the per-signer order bucket) but none binding: the
    // figure is the queue's own cost, not a wait for tokens (300 posts back to back would drain the
    // standard tier's 40 orders / s)
    budgets: { scale: 1000 },
  });
  for (let i = 0; i < 300; i++) {
    t0 = performance.now();
    await t.request({ api: 'clob', method: 'POST', path: '/orders', auth: 'l2', idempotent: true, body: [{ x: i }] }, {
      parse: (v: unknown) => v,
      safeParse: (v: unknown) => ({ success: true, data: v }),
    } as unknown as z.ZodType);
  }
  await t.close();
  srv.close();
  return d.slice(50).sort((a, b) => a - b);
}

const { samples, frames } = await feed();
const s = engine.stats();
const st = engine.state.stats;
const vs = venue.stats();
await engine.stop();
await venue.close();
if (samples.length < 500) throw new Error(`too few samples: ${samples.length}`);
if (s.errors.state + s.errors.strategy + s.errors.execute > 0 || st.desyncs > 0 || placeErrors > 0) {
  throw new Error(
    `the run was not clean: ${JSON.stringify({ errors: s.errors, desyncs: st.desyncs, crossed: st.crossed, placeErrors })}`,
  );
}
const us = samples.map((x) => x * 1000).sort((a, b) => a - b);
const q = await transportQueue();
console.log(
  `# ${frames} frames at ~${FEED_PER_SEC}/s over ${RUN_MS / 1000} s on ${N_MARKETS} markets; ${samples.length} frames led to an order request (2 orders, after a cancel); ${(bytesOut / 1e6).toFixed(1)} MB serialised`,
);
console.log(
  `# pre-signed cache: ${vs.presignHits} hits, ${vs.presignMisses} misses (${vs.presigned} signed speculatively in idle time)`,
);
console.log(
  `# tick-to-order us: p50 ${pct(us, 0.5).toFixed(1)}, p90 ${pct(us, 0.9).toFixed(1)}, p99 ${pct(us, 0.99).toFixed(1)}, p99.9 ${pct(us, 0.999).toFixed(1)}, max ${us[us.length - 1]!.toFixed(1)}`,
);
console.log(`figure: tick_to_order_p50_us = ${Math.round(pct(us, 0.5))} us`);
console.log(`figure: tick_to_order_p99_us = ${Math.round(pct(us, 0.99))} us`);
console.log(
  `# the HTTP transport then takes request() -> undici: p50 ${pct(q, 0.5).toFixed(0)} us, p99 ${pct(q, 0.99).toFixed(0)} us (budget queue; not in the figures above)`,
);
console.log(`figure: transport_request_to_send_p50_us = ${Math.round(pct(q, 0.5))} us`);
