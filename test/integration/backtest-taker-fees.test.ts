/**
 * Taker fees in a backtest (trial 8 F8): on a recorded feed whose markets charge a taker fee, the
 * simulated venue charges the fee of the order protocol the feed's header says its venue spoke,
 * else of the paper exchange's default protocol (2: the V2 curve `size × rate × p × (1 − p)`,
 * floored to 0.00001, each level apart), and the store books exactly what it charged: the run's
 * `pnl.fees` equals the venue's own counter, and every taker fill's fee is on the protocol's curve
 * (V2: a multiple of 10 micro, below the V1 figure `size × rate × min(p, 1 − p)`). A feed recorded
 * from a V1 paper exchange (the real recorder against the real exchange on loopback) says protocol 1
 * in its header, and its backtest charges the V1 fee; `feeProtocol` (`--fee-protocol`) overrides the
 * header's either way, and the result says which protocol was charged (`feeProtocol`).
 * A plugin strategy takes with FAK orders (buys at the ask, then sells at the bid).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveMarkets, startRecorder, venueProtocol, venueUrls } from '../../src/backtest/recorder.ts';
import { runBacktest, type BacktestResult } from '../../src/backtest/runner.ts';
import { curveFee, takerFee, v1Fee, type FeeProtocol } from '../../src/core/fees.ts';
import { initialMarkets } from '../../src/exchange/markets.ts';
import { openStore } from '../../src/store/store.ts';
import { parseLine, type FeedHeader } from '../../src/venues/sim/feed.ts';
import { writeFeed } from '../support/feed-gen.ts';
import { startVenue } from './support/setup.ts';

const API = pathToFileURL(fileURLToPath(new URL('../../src/strategy/index.ts', import.meta.url))).href;
const FEE_BPS = 1000;
const dir = mkdtempSync(join(tmpdir(), 'mmkit-bt-taker-fees-'));
let feed: string;
let feedV1: string;
let strategy: string;
let everyTick: string;

/** The taker plugin: every `every` timer ticks, buys 5 at the ask, then sells 5 at the bid (FAK). */
const takerSource = (every: number): string => `import { defineStrategy } from ${JSON.stringify(API)};
export default defineStrategy({
  name: 'taker',
  description: 'every ${every} ticks: buy 5 at the ask, then sell 5 at the bid (FAK)',
  params: {},
  create(ctx) {
    let n = 0;
    return {
      onEvent(event, state) {
        if (event.type !== 'timer' || event.name !== 'tick') return undefined;
        n++;
        if (n % ${every} !== 0) return undefined;
        const orders = [];
        for (const m of ctx.markets.values()) {
          const yes = m.tokens[0].tokenId;
          const b = state.book(yes);
          if (b === undefined || b.stale || b.bestBid === null || b.bestAsk === null) continue;
          const size = Math.max(m.minOrderSize, 5_000_000);
          const held = state.position(yes)?.size ?? 0;
          if ((n / ${every}) % 2 === 1 || held < size)
            orders.push({ market: m.market, tokenId: yes, side: 'BUY', price: b.bestAsk, size, type: 'FAK' });
          else orders.push({ market: m.market, tokenId: yes, side: 'SELL', price: b.bestBid, size, type: 'FAK' });
        }
        return orders.length ? { orders } : undefined;
      },
    };
  },
});
`;

beforeAll(async () => {
  feed = join(dir, 'fee-feed.ndjson.gz');
  await writeFeed(feed, { seed: 11, markets: 2, messages: 4000, meanGapMs: 60, feeRateBps: FEE_BPS });
  feedV1 = join(dir, 'fee-feed-v1.ndjson.gz');
  await writeFeed(feedV1, { seed: 11, markets: 2, messages: 4000, meanGapMs: 60, feeRateBps: FEE_BPS, protocol: 1 });
  strategy = join(dir, 'taker.ts');
  writeFileSync(strategy, takerSource(10));
  everyTick = join(dir, 'taker-every-tick.ts');
  writeFileSync(everyTick, takerSource(1));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('backtest: taker fees on a fee-charging feed', () => {
  it('the store books the V2 fee the simulated venue charged', async () => {
    const file = join(dir, 'run.db');
    const r = await runBacktest({ feeds: [feed], strategy, seed: 1, storePath: file, risk: { maxRejections: 1000 } });
    // the feed's header says no protocol (as feeds recorded before it did): 2
    expect(r.feeProtocol).toBe(2);
    expect(r.pnl.fees).toBeGreaterThan(0);
    // what the venue charged = what the store booked
    expect((r.venue as { fees: number }).fees).toBe(r.pnl.fees);
    const store = openStore(file);
    try {
      const takers = store.fills().filter((f) => f.role === 'TAKER' && f.status !== 'FAILED');
      expect(takers.length).toBeGreaterThan(20);
      let onCurve = 0;
      let v1 = 0;
      let booked = 0;
      for (const f of takers) {
        booked += f.fee;
        v1 += v1Fee(f.size, f.price, FEE_BPS);
        // each level's fee is floored to 0.00001: so is their sum
        expect(f.fee % 10).toBe(0);
        expect(f.fee).toBeLessThanOrEqual(v1Fee(f.size, f.price, FEE_BPS));
        if (f.fee === curveFee(f.size, f.price, FEE_BPS)) onCurve++;
      }
      expect(booked).toBe(r.pnl.fees);
      // a fill at one level is exactly on the curve (a sweep is the sum of its levels')
      expect(onCurve).toBeGreaterThan(takers.length / 2);
      // the V1 formula would have overstated the fees
      expect(v1).toBeGreaterThan(booked);
    } finally {
      store.close();
    }
  }, 120_000);

  it("a header's protocol 1 is charged the V1 fee; feeProtocol overrides the header's", async () => {
    const v1 = await checkedRun([feedV1], strategy, 'v1.db', undefined, 1);
    // the same feed, the same orders: V1 charges more than the V2 curve
    const v2 = await checkedRun([feedV1], strategy, 'v1-as-v2.db', 2, 2);
    expect(v2.takers).toBe(v1.takers);
    expect(v1.r.pnl.fees).toBeGreaterThan(v2.r.pnl.fees);
    // a feed that says none (2) charged as V1 when asked: the V1 run's fees exactly
    const asV1 = await checkedRun([feed], strategy, 'v2-as-v1.db', 1, 1);
    expect(asV1.r.pnl.fees).toBe(v1.r.pnl.fees);
  }, 180_000);

  it('a synthetic world with taker fees (world.feeRateBps, --world-fee-rate-bps) charges them; without, none', async () => {
    const world = { seed: 4, durationMs: 5 * 60_000, warmupMs: 30_000, marketCount: 2 };
    const file = join(dir, 'world-fees.db');
    const r = await runBacktest({
      world: { ...world, feeRateBps: 200 },
      strategy,
      seed: 1,
      storePath: file,
      risk: { maxRejections: 1000 },
    });
    expect(r.source.world?.feeRateBps).toBe(200);
    expect(r.pnl.fees).toBeGreaterThan(0);
    const store = openStore(file);
    try {
      const takers = store.fills().filter((f) => f.role === 'TAKER' && f.status !== 'FAILED');
      expect(takers.length).toBeGreaterThan(0);
      // each taker fill's fee at most the rate's (a fill of several matches floors each apart)
      for (const f of takers) expect(f.fee).toBeLessThanOrEqual(takerFee(r.feeProtocol, f.size, f.price, 200));
      expect(takers.reduce((a, f) => a + f.fee, 0)).toBe(r.pnl.fees);
    } finally {
      store.close();
    }
    const free = await runBacktest({ world, strategy, seed: 1, risk: { maxRejections: 1000 }, maxFillRows: 0 });
    expect(free.source.world?.feeRateBps).toBeUndefined();
    expect(free.pnl.fees).toBe(0);
    expect(free.fillCount).toBeGreaterThan(0);
    await expect(runBacktest({ world: { ...world, feeRateBps: 5000 }, strategy })).rejects.toThrow(
      /backtest\.world\.feeRateBps/,
    );
  }, 120_000);

  it('feeds of different protocols: refused unless a protocol is named', async () => {
    const v2 = join(dir, 'fee-feed-v2-said.ndjson.gz');
    await writeFeed(v2, { seed: 12, markets: 1, messages: 50, feeRateBps: FEE_BPS, protocol: 2 });
    await expect(runBacktest({ feeds: [feedV1, v2], strategy })).rejects.toThrow(/different order protocols/);
    const r = await runBacktest({ feeds: [feedV1, v2], strategy, feeProtocol: 1, maxFillRows: 0 });
    expect(r.feeProtocol).toBe(1);
    await expect(runBacktest({ feeds: [feedV1], strategy, feeProtocol: 3 as FeeProtocol })).rejects.toThrow(
      /feeProtocol.*must be 1 or 2/,
    );
  }, 120_000);

  it('a feed recorded from a V1 paper exchange says protocol 1 and its backtest charges the V1 fee', async () => {
    const v = await startVenue({ exchange: { protocol: 1 } });
    const out = join(dir, 'recorded-v1.ndjson.gz');
    try {
      const market = { ...initialMarkets(9191, Date.now())[0]!, feeRateBps: FEE_BPS, minSizeMicro: 1_000_000 };
      v.running.exchange.addMarket(market);
      const [yes, no] = market.tokens;
      // a book to take from, on two levels each side: YES bids 0.40/0.39, YES asks 0.55/0.56 (BUY NO)
      const maker = await v.trader();
      for (const [tok, price] of [
        [yes, '0.40'],
        [yes, '0.39'],
        [no, '0.45'],
        [no, '0.44'],
      ] as const) {
        const r = await maker.place(tok, 'BUY', price, '200', { feeRateBps: FEE_BPS });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
      }
      const urls = venueUrls(v.clob.replace(/\/clob$/, ''));
      const protocol = await venueProtocol(urls.clob);
      expect(protocol).toBe(1);
      const markets = await resolveMarkets(urls, { markets: [market.conditionId] });
      expect(markets[0]!.feeRateBps).toBe(FEE_BPS);
      const rec = startRecorder({ out, markets, marketUrl: urls.market, source: urls.clob, protocol });
      await rec.connected();
      await new Promise((r) => setTimeout(r, 6_000));
      await rec.stop();
    } finally {
      await v.close();
    }
    const first = gunzipSync(readFileSync(out)).toString('utf8').split('\n')[0]!;
    const item = parseLine(first);
    expect(item?.kind).toBe('header');
    expect((item as { header: FeedHeader }).header.protocol).toBe(1);
    const { r, takers } = await checkedRun([out], everyTick, 'recorded-v1.db', undefined, 1);
    expect(r.feeProtocol).toBe(1);
    expect(takers).toBeGreaterThanOrEqual(3);
    // and asked for V2: the curve's fee, less
    const asV2 = await checkedRun([out], everyTick, 'recorded-v1-as-v2.db', 2, 2);
    expect(asV2.r.pnl.fees).toBeLessThan(r.pnl.fees);
  }, 120_000);
});

/**
 * Runs the taker on `feeds` (with `feeProtocol` when given) and checks every taker fill's fee is
 * `want`'s (a fill of one level exactly; a sweep of levels at most that, each level floored apart),
 * that the store booked what the venue charged, and that the result says `want`.
 */
async function checkedRun(
  feeds: string[],
  strat: string,
  db: string,
  feeProtocol: FeeProtocol | undefined,
  want: FeeProtocol,
): Promise<{ r: BacktestResult; takers: number }> {
  const file = join(dir, db);
  const r = await runBacktest({
    feeds,
    strategy: strat,
    seed: 1,
    storePath: file,
    risk: { maxRejections: 1000 },
    ...(feeProtocol !== undefined ? { feeProtocol } : {}),
  });
  expect(r.feeProtocol).toBe(want);
  expect(r.pnl.fees).toBeGreaterThan(0);
  expect((r.venue as { fees: number }).fees).toBe(r.pnl.fees);
  const store = openStore(file);
  try {
    const takers = store.fills().filter((f) => f.role === 'TAKER' && f.status !== 'FAILED');
    let exact = 0;
    let booked = 0;
    for (const f of takers) {
      booked += f.fee;
      const one = takerFee(want, f.size, f.price, FEE_BPS);
      expect(f.fee).toBeLessThanOrEqual(one);
      if (f.fee === one) exact++;
      // the other protocol's figure differs (FEE_BPS leaves remainders)
      expect(f.fee).not.toBe(takerFee(want === 1 ? 2 : 1, f.size, f.price, FEE_BPS));
    }
    expect(booked).toBe(r.pnl.fees);
    expect(exact).toBeGreaterThan(takers.length / 2);
    return { r, takers: takers.length };
  } finally {
    store.close();
  }
}
