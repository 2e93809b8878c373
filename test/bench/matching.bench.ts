/**
 * Matching engine throughput. A plain script: `node --import tsx test/bench/matching.bench.ts`
 * (or `npm run bench -- matching`). BENCH_OPS overrides the number of timed operations.
 *
 * Builds 4 markets (ticks 0.01 and 0.001) and 24 funded accounts, warms up, then runs a realistic
 * mix: ~60% resting limit orders near the mid (5% of them GTD), ~15% crossing orders (GTC or FAK,
 * YES and NO, buys and sells, so transfers, mints and merges all happen), ~25% cancels of recent
 * resting orders. Events are recorded and drained after every operation, as the server does.
 *
 * Inputs are generated before timing, in chunks of 500 operations (only the runs of the chunks are
 * timed): few inputs wait at any time, as with a server's requests, so they do not burden the
 * collector more than requests would. A chunk is compact (typed arrays plus the order id strings)
 * and the NewOrder object is built inside the timed loop, as the server builds it from a request.
 * 2.5M timed operations: ~2.5 s at 1M ops/s.
 *
 * Prints `figure: matching_ops_per_sec = <n> ops/s` and `figure: matching_ns_per_op = <n> ns`.
 */
import { LOT_MICRO, PRICE_SCALE } from '../../src/core/units.ts';
import { MatchingEngine } from '../../src/exchange/matching/engine.ts';
import type { MarketDef, OrderType } from '../../src/exchange/matching/types.ts';

const TIMED_OPS = Number(process.env.BENCH_OPS ?? 2_500_000);
const WARMUP_OPS = 300_000;
const CHUNK = 500;
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
  markets.push({
    conditionId: `0x${(i + 1).toString(16).padStart(64, '0')}`,
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

/** Pre-generated operations in compact form. */
interface Ops {
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
  id: string[]; // the new order's id, or the id to cancel
}
const TYPES: readonly OrderType[] = ['GTC', 'GTD', 'FOK', 'FAK'];

// mid per market (YES pips), a mean-reverting random walk on the market's tick
const mids = markets.map(() => 5000);
let seq = 0;
const T0 = 1_700_000_000_000;
/** Recent resting-type orders (id, account), candidates for cancels. */
const restingIds: string[] = [];
const restingAcct: number[] = [];
const HEX = '0123456789abcdef';
const idCodes: number[] = new Array<number>(66).fill(48);
idCodes[1] = 120; // 'x'

/** A fresh order id: 0x + 64 hex digits, built as one flat string (as parsed from a request). */
function orderId(): string {
  let v = ++seq;
  for (let i = 65; i >= 2; i--) {
    idCodes[i] = HEX.charCodeAt(v & 15);
    v = Math.floor(v / 16);
  }
  return String.fromCharCode.apply(null, idCodes);
}

/** Time (ms) at operation i: 256 operations per millisecond. */
const timeAt = (i: number): number => T0 + Math.floor(i / 256);

function newOps(cap: number): Ops {
  return {
    n: 0,
    kind: new Uint8Array(cap),
    market: new Uint8Array(cap),
    account: new Uint8Array(cap),
    yes: new Uint8Array(cap),
    buy: new Uint8Array(cap),
    type: new Uint8Array(cap),
    price: new Int32Array(cap),
    size: new Float64Array(cap),
    expiresAt: new Float64Array(cap),
    id: new Array<string>(cap).fill(''),
  };
}

/** Fills `c` with the next `n` operations (the first one is operation number startOp). */
function generate(c: Ops, n: number, startOp: number): Ops {
  c.n = n;
  for (let i = 0; i < n; i++) {
    const r = rnd();
    const mi = randInt(0, N_MARKETS - 1);
    const tick = markets[mi]!.tickPips;
    c.market[i] = mi;
    if (r < 0.25 && restingIds.length > 0) {
      // cancel one of the ~500 most recent resting orders
      const k = restingIds.length - 1 - Math.min(restingIds.length - 1, randInt(0, 500));
      c.kind[i] = 1;
      c.id[i] = restingIds[k]!;
      c.account[i] = restingAcct[k]!;
      restingIds[k] = restingIds[restingIds.length - 1]!;
      restingAcct[k] = restingAcct[restingAcct.length - 1]!;
      restingIds.pop();
      restingAcct.pop();
      continue;
    }
    if (rnd() < 0.02) {
      const mid = mids[mi]!;
      const drift = mid > 6000 ? -1 : mid < 4000 ? 1 : rnd() < 0.5 ? -1 : 1;
      mids[mi] = mid + drift * tick;
    }
    const mid = mids[mi]!;
    const account = randInt(0, N_ACCOUNTS - 1);
    const yes = rnd() < 0.5;
    const yesBid = rnd() < 0.5; // a YES bid: BUY YES or SELL NO
    const crossing = r >= 0.85; // ~15% of all operations
    let yesPrice: number;
    if (crossing) yesPrice = yesBid ? mid + randInt(1, 6) * tick : mid - randInt(1, 6) * tick;
    else yesPrice = yesBid ? mid - randInt(1, 25) * tick : mid + randInt(1, 25) * tick;
    yesPrice = Math.min(PRICE_SCALE - tick, Math.max(tick, yesPrice));
    let type = 0; // GTC
    let expiresAt = 0;
    if (crossing)
      type = rnd() < 0.5 ? 3 : 0; // FAK or GTC
    else if (rnd() < 0.05) {
      type = 1; // GTD, expiring 50 ms to 2 s later
      expiresAt = timeAt(startOp + i) + randInt(50, 2000);
    }
    const id = orderId();
    if (type !== 3) {
      restingIds.push(id);
      restingAcct.push(account);
      if (restingIds.length > 1000) {
        // cancels pick among the ~500 most recent: the generator keeps no more than it needs
        restingIds.splice(0, 200);
        restingAcct.splice(0, 200);
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
    c.id[i] = id;
  }
  return c;
}

const chunk = newOps(CHUNK);

let accepted = 0;
let rejected = 0;
let cancelOk = 0;
let cancelMiss = 0;
let trades = 0;
let eventsSeen = 0;

function run(c: Ops, startOp: number): void {
  for (let i = 0; i < c.n; i++) {
    const now = timeAt(startOp + i);
    const acct = accounts[c.account[i]!]!;
    // the harness lets go of each input once used, as a server lets go of a request
    const id = c.id[i]!;
    c.id[i] = '';
    if (c.kind[i] === 0) {
      const m = markets[c.market[i]!]!;
      const r = engine.place(
        {
          id,
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
        now,
      );
      if (!r.ok) rejected++;
      else {
        accepted++;
        if (r.trade !== null) trades++;
      }
    } else {
      const r = engine.cancel(acct, id, now);
      if (r.ok) cancelOk++;
      else cancelMiss++;
    }
    eventsSeen += engine.drainEvents().length;
  }
}

// warm-up (not timed), then the timed runs, each on a chunk generated beforehand
for (let done = 0; done < WARMUP_OPS; done += CHUNK) run(generate(chunk, CHUNK, done), done);
accepted = rejected = cancelOk = cancelMiss = trades = eventsSeen = 0;

let ns = 0;
let cpuUs = 0;
for (let done = 0; done < TIMED_OPS; done += CHUNK) {
  const n = Math.min(CHUNK, TIMED_OPS - done);
  const ops = generate(chunk, n, WARMUP_OPS + done);
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  run(ops, WARMUP_OPS + done);
  ns += Number(process.hrtime.bigint() - t0);
  const cpu = process.cpuUsage(cpu0);
  cpuUs += cpu.user + cpu.system;
}

const secs = ns / 1e9;
console.log(
  `# ${TIMED_OPS} ops in ${secs.toFixed(2)} s: ${accepted} placed (${rejected} rejected, ${trades} with a trade), cancels ${cancelOk} ok / ${cancelMiss} no longer live, ${eventsSeen} events`,
);
console.log(
  `# process CPU time while timed (all threads, GC helpers included): ${Math.round((cpuUs * 1000) / TIMED_OPS)} ns/op`,
);
for (const m of markets) {
  const b = engine.book(m.yesToken);
  console.log(
    `# market …${m.conditionId.slice(-2)}: ${b.bids.length} bid levels, ${b.asks.length} ask levels, best ${JSON.stringify(engine.bestBidAsk(m.yesToken))}`,
  );
}
console.log(`figure: matching_ops_per_sec = ${Math.round(TIMED_OPS / secs)} ops/s`);
console.log(`figure: matching_ns_per_op = ${Math.round(ns / TIMED_OPS)} ns`);
