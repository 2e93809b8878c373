/**
 * Matching engine throughput. A plain script: `node --import tsx test/bench/matching.bench.ts`
 * (or `npm run bench -- matching`).
 *
 * Builds 4 markets and 24 funded accounts, warms up, then runs a realistic mix for ~2.5 s of timed
 * work: ~60% resting limit orders near the mid (a few GTD), ~15% crossing orders (GTC or FAK, on both
 * tokens, so transfers, mints and merges all happen), ~25% cancels of earlier resting orders. Events
 * are recorded and drained after every operation, as the server does. Inputs are generated in
 * chunks outside the timed sections.
 *
 * Prints `figure: matching_ops_per_sec = <n> ops/s` and `figure: matching_ns_per_op = <n> ns`.
 */
import { LOT_MICRO, PRICE_SCALE } from '../../src/core/units.ts';
import { MatchingEngine } from '../../src/exchange/matching/engine.ts';
import type { MarketDef, OrderType } from '../../src/exchange/matching/types.ts';

const TIMED_MS = Number(process.env.BENCH_MS ?? 2500);
const CHUNK = 250_000;
const N_MARKETS = 4;
const N_ACCOUNTS = 24;

/** mulberry32: a small deterministic PRNG (the bench is reproducible). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rnd = prng(42);
const randInt = (lo: number, hi: number): number => lo + Math.floor(rnd() * (hi - lo + 1));

const markets: MarketDef[] = [];
for (let i = 0; i < N_MARKETS; i++) {
  const hex = (i + 1).toString(16).padStart(64, '0');
  markets.push({
    conditionId: `0x${hex}`,
    yesToken: `${1000000000000000 + 2 * i}`,
    noToken: `${1000000000000000 + 2 * i + 1}`,
    tickPips: i % 2 === 0 ? 100 : 10,
    minSizeMicro: 5_000_000,
    negRisk: false,
    feeRateBps: 0,
  });
}
const accounts: string[] = [];
for (let i = 0; i < N_ACCOUNTS; i++) accounts.push(`0x${(i + 1).toString(16).padStart(40, '0')}`);

const engine = new MatchingEngine({ recordEvents: true });
for (const m of markets) engine.addMarket(m);
for (const a of accounts) {
  engine.credit(a, 50_000_000_000_000); // 50M collateral each
  for (const m of markets) {
    engine.setTokens(a, m.yesToken, 50_000_000_000_000);
    engine.setTokens(a, m.noToken, 50_000_000_000_000);
  }
}
engine.drainEvents();

// mid per market (YES pips), a mean-reverting random walk on the market's tick
const mids = markets.map(() => 5000);

/**
 * A chunk of pre-generated operations, kept compact (typed arrays plus the id strings, which the
 * engine keeps anyway) so that the inputs themselves put no pressure on the garbage collector while
 * timed. The NewOrder object is built in the timed loop, as the server builds it from the request.
 */
interface Chunk {
  n: number;
  kind: Uint8Array; // 0 place, 1 cancel
  market: Uint8Array;
  account: Uint8Array;
  yes: Uint8Array;
  buy: Uint8Array;
  type: Uint8Array; // index into TYPES
  price: Int32Array;
  size: Float64Array;
  expiresAt: Float64Array;
  id: string[]; // the new order id, or the id to cancel
}
const TYPES: readonly OrderType[] = ['GTC', 'GTD', 'FOK', 'FAK'];

let seq = 0;
let now = 1_700_000_000_000;
/** Ids of earlier resting-type orders with their account, candidates for cancels. */
const restingIds: string[] = [];
const restingAcct: number[] = [];

function orderId(): string {
  seq++;
  // a flat string, as the server gets it from a parsed request
  return Buffer.from(`0x${seq.toString(16).padStart(64, '0')}`, 'latin1').toString('latin1');
}

function genChunk(n: number): Chunk {
  const c: Chunk = {
    n,
    kind: new Uint8Array(n),
    market: new Uint8Array(n),
    account: new Uint8Array(n),
    yes: new Uint8Array(n),
    buy: new Uint8Array(n),
    type: new Uint8Array(n),
    price: new Int32Array(n),
    size: new Float64Array(n),
    expiresAt: new Float64Array(n),
    id: [],
  };
  for (let i = 0; i < n; i++) {
    const r = rnd();
    const mi = randInt(0, N_MARKETS - 1);
    const m = markets[mi]!;
    const tick = m.tickPips;
    c.market[i] = mi;
    if (r < 0.25 && restingIds.length > 0) {
      // cancel one of the ~500 most recent resting orders
      const k = restingIds.length - 1 - Math.min(restingIds.length - 1, randInt(0, 500));
      c.kind[i] = 1;
      c.id.push(restingIds[k]!);
      c.account[i] = restingAcct[k]!;
      restingIds[k] = restingIds[restingIds.length - 1]!;
      restingAcct[k] = restingAcct[restingAcct.length - 1]!;
      restingIds.pop();
      restingAcct.pop();
      continue;
    }
    // walk the mid now and then
    if (rnd() < 0.02) {
      const mid = mids[mi]!;
      const drift = mid > 6000 ? -1 : mid < 4000 ? 1 : rnd() < 0.5 ? -1 : 1;
      mids[mi] = mid + drift * tick;
    }
    const mid = mids[mi]!;
    const account = randInt(0, N_ACCOUNTS - 1);
    const yes = rnd() < 0.5;
    const yesBid = rnd() < 0.5; // a YES bid: BUY YES or SELL NO
    const crossing = r >= 0.85; // ~15% of all ops
    let yesPrice: number;
    if (crossing) yesPrice = yesBid ? mid + randInt(1, 6) * tick : mid - randInt(1, 6) * tick;
    else yesPrice = yesBid ? mid - randInt(1, 25) * tick : mid + randInt(1, 25) * tick;
    yesPrice = Math.min(PRICE_SCALE - tick, Math.max(tick, yesPrice));
    let type = 0;
    let expiresAt = 0;
    if (crossing) type = rnd() < 0.5 ? 3 : 0;
    else if (rnd() < 0.05) {
      type = 1;
      expiresAt = now + randInt(50, 2000);
    }
    const id = orderId();
    if (type !== 3) {
      restingIds.push(id);
      restingAcct.push(account);
      if (restingIds.length > 5000) {
        restingIds.splice(0, 1000);
        restingAcct.splice(0, 1000);
      }
    }
    c.kind[i] = 0;
    c.account[i] = account;
    c.yes[i] = yes ? 1 : 0;
    c.buy[i] = yesBid === yes ? 1 : 0;
    c.type[i] = type;
    c.price[i] = yes ? yesPrice : PRICE_SCALE - yesPrice;
    c.size[i] = randInt(5, 200) * 100 * LOT_MICRO; // 5..200 shares
    c.expiresAt[i] = expiresAt;
    c.id.push(id);
  }
  return c;
}

let accepted = 0;
let rejected = 0;
let cancelOk = 0;
let cancelMiss = 0;
let eventsSeen = 0;
let nowMs = now;

export const kindNs = [0, 0, 0, 0, 0];
export const kindN = [0, 0, 0, 0, 0];
let tradesN = 0; let makersN = 0;
function run(c: Chunk): void {
  for (let i = 0; i < c.n; i++) {
    let k = c.kind[i] === 1 ? 3 : c.type[i] === 3 ? 2 : c.type[i] === 1 ? 1 : 0;
    const t0 = process.hrtime.bigint();
    if ((i & 255) === 0) nowMs++;
    const acct = accounts[c.account[i]!]!;
    if (c.kind[i] === 0) {
      const m = markets[c.market[i]!]!;
      const r = engine.place(
        {
          id: c.id[i]!,
          account: acct,
          owner: 'bench-key',
          tokenId: c.yes[i] === 1 ? m.yesToken : m.noToken,
          side: c.buy[i] === 1 ? 'BUY' : 'SELL',
          price: c.price[i]!,
          size: c.size[i]!,
          type: TYPES[c.type[i]!]!,
          postOnly: false,
          expiresAt: c.expiresAt[i]!,
          feeRateBps: 0,
        },
        nowMs,
      );
      if (r.ok && r.trade !== null) { tradesN++; makersN += r.trade.makers.length; if (k === 0) k = 4; }
      if (r.ok) accepted++;
      else rejected++;
    } else {
      const r = engine.cancel(acct, c.id[i]!, nowMs);
      if (r.ok) cancelOk++;
      else cancelMiss++;
    }
    eventsSeen += engine.drainEvents().length;
    kindNs[k] += Number(process.hrtime.bigint() - t0);
    kindN[k]++;
  }
}

// warm-up (not timed)
for (let i = 0; i < 3; i++) run(genChunk(100_000));
now = nowMs;
accepted = rejected = cancelOk = cancelMiss = eventsSeen = 0;

import { PerformanceObserver } from 'node:perf_hooks';
let gcMs = 0;
let gcCount = 0;
let timing = false;
const obs = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    if (timing) {
      gcMs += e.duration;
      gcCount++;
    }
  }
});
obs.observe({ entryTypes: ['gc'] });
let timedNs = 0n;
let timedOps = 0;
while (Number(timedNs / 1_000_000n) < TIMED_MS) {
  now = nowMs;
  const chunk = genChunk(CHUNK);
  timing = true;
  const t0 = process.hrtime.bigint();
  run(chunk);
  timedNs += process.hrtime.bigint() - t0;
  await new Promise((r) => setImmediate(r));
  timing = false;
  timedOps += chunk.n;
}

const secs = Number(timedNs) / 1e9;
console.log('# makers per trade', makersN / tradesN); console.log('# per kind GTC/GTD/FAK/cancel/GTCcrossing ns:', kindNs.map((x, i) => Math.round(x / kindN[i]!)), 'counts', kindN);
console.log(`# gc during timed: ${gcCount} pauses, ${gcMs.toFixed(0)} ms`);
const opsPerSec = Math.round(timedOps / secs);
const nsPerOp = Math.round(Number(timedNs) / timedOps);
console.log(
  `# ${timedOps} ops in ${secs.toFixed(2)} s: placed ${accepted} (rejected ${rejected}), cancels ${cancelOk} ok / ${cancelMiss} not live, ${eventsSeen} events`,
);
for (const m of markets) {
  const b = engine.book(m.yesToken);
  console.log(`# ${m.conditionId.slice(-4)} bid levels ${b.bids.length}, ask levels ${b.asks.length}, best ${JSON.stringify(engine.bestBidAsk(m.yesToken))} top ${JSON.stringify(b.bids[0])}`);
}
console.log(`figure: matching_ops_per_sec = ${opsPerSec} ops/s`);
console.log(`figure: matching_ns_per_op = ${nsPerOp} ns`);
