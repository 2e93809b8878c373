/**
 * `quoteAt` (strategies/bands.ts) was rewritten to allocate less (it runs on every memo miss of a
 * backtest). Its output must not change: this property test compares it, on random configs, tops,
 * live orders, positions and ticks, with `referenceQuoteAt`, a frozen verbatim copy of the function
 * before the rewrite (bands-quote-reference.ts). Same quotes, same order, same object contents and
 * key order (JSON compared too), and the quotes of one call must survive the next call untouched
 * (the rewrite reuses scratch buffers; the memo keeps the returned arrays).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { ConditionId, OrderId, TokenId } from '../../../src/core/ids.ts';
import type { LiveOrderView, QuoteIntent } from '../../../src/core/intents.ts';
import type { Micro, Pips, Side } from '../../../src/core/units.ts';
import type { MarketTop } from '../../../src/strategy/quoting.ts';
import type { Band } from '../../../src/strategy/band-ladder.ts';
import { quoteAt, type BandsConfig, type MarketPlan } from '../../../strategies/bands.ts';
import { fakeState, M1, NO1, SH, YES1 } from '../strategy/fixtures.ts';
import { referenceQuoteAt } from './bands-quote-reference.ts';

const LOT = 10_000; // micro-shares in a 0.01-share lot
const OTHER = '9999' as TokenId; // a token of the market that is neither YES nor NO of the plan

// ---- generators ------------------------------------------------------------------------------------

/** One band valid under bandsConfig's checks (checkBand): ordered margins and amounts, avgMargin > 0, maxMargin < 1, avgAmount >= one lot. */
const bandArb: fc.Arbitrary<Band> = fc
  .record({
    avg: fc.integer({ min: 1, max: 2_500 }),
    below: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 1_500 }), fc.constant(10_000)), // 10_000: minMargin 0
    above: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 1_500 })),
    avgLots: fc.integer({ min: 1, max: 5_000 }), // 0.01 .. 50 shares
    tolLo: fc.oneof(fc.constant(0), fc.constant(0.5), fc.double({ min: 0, max: 1, noNaN: true })),
    tolHi: fc.oneof(fc.constant(0), fc.constant(0.5), fc.double({ min: 0, max: 2, noNaN: true })),
  })
  .map(({ avg, below, above, avgLots, tolLo, tolHi }) => {
    const avgAmount = avgLots * LOT;
    return {
      minMargin: Math.max(0, avg - below),
      avgMargin: avg,
      maxMargin: Math.min(9_999, avg + above),
      minAmount: Math.floor(avgAmount * (1 - tolLo)),
      avgAmount,
      maxAmount: Math.ceil(avgAmount * (1 + tolHi)),
    };
  });

const cfgArb: fc.Arbitrary<BandsConfig> = fc.record({
  tokens: fc.constantFrom('yes' as const, 'both' as const),
  bands: fc.array(bandArb, { minLength: 1, maxLength: 3 }),
  maxPosition: fc.oneof(
    fc.integer({ min: 1, max: 30_000 }).map((l) => l * LOT),
    fc.constant(100 * SH),
  ),
  inventorySkew: fc.oneof(fc.constant(0), fc.constant(2), fc.double({ min: 0, max: 100, noNaN: true })),
  excludeOwnOrders: fc.boolean(),
  minSpread: fc.oneof(
    { weight: 3, arbitrary: fc.constant(0) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 3_000 }) },
  ),
  postOnly: fc.constantFrom('move' as const, 'drop' as const),
  maxOrderAgeMs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 60_000 })),
});

const planArb: fc.Arbitrary<MarketPlan> = fc.record({
  market: fc.constant(M1),
  yes: fc.constant(YES1),
  no: fc.constant(NO1),
  tick: fc.constantFrom(100, 10), // 0.01 and 0.001 in pips
  minSize: fc.oneof(
    fc.constantFrom(0, 5 * SH, 1 * SH, 15 * SH),
    fc.integer({ min: 0, max: 2_000 }).map((l) => l * LOT),
  ),
});

/** A top as marketTop makes it (bid/ask net of our orders, the touch, a mid), plus the cases quoteAt returns [] for, and odd ones (crossed, off tick). */
const topArb: fc.Arbitrary<MarketTop | null> = fc.oneof(
  { weight: 1, arbitrary: fc.constant(null) },
  {
    weight: 12,
    arbitrary: fc
      .record({
        touchBid: fc.oneof(
          { weight: 8, arbitrary: fc.integer({ min: 1, max: 999 }).map((x) => x * 10) },
          { weight: 4, arbitrary: fc.integer({ min: 1, max: 99 }).map((x) => x * 100) },
          { weight: 3, arbitrary: fc.integer({ min: 1, max: 9_999 }) },
          { weight: 1, arbitrary: fc.constant(null) },
        ),
        spread: fc.oneof(
          { weight: 8, arbitrary: fc.integer({ min: 1, max: 30 }).map((x) => x * 10) },
          { weight: 4, arbitrary: fc.integer({ min: 1, max: 10 }).map((x) => x * 200) },
          { weight: 3, arbitrary: fc.integer({ min: -50, max: 2_000 }) },
          { weight: 1, arbitrary: fc.constant(null) },
        ),
        bidBack: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 500 })),
        askBack: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 500 })),
        noMid: fc.integer({ min: 0, max: 30 }),
      })
      .map(({ touchBid, spread, bidBack, askBack, noMid }): MarketTop => {
        const touchAsk =
          touchBid === null || spread === null ? (spread === null ? null : 5_000) : Math.min(10_000, touchBid + spread);
        const bid = touchBid === null ? null : Math.max(0, touchBid - bidBack);
        const ask = touchAsk === null ? null : Math.min(10_000, touchAsk + askBack);
        const mid = noMid === 0 || bid === null || ask === null ? null : (bid + ask) / 2;
        return { bid, ask, mid, touchBid, touchAsk };
      }),
  },
);

interface OrderSpec {
  token: 0 | 1 | 2; // YES, NO, another token of the market
  side: Side;
  offset: number; // YES-price distance from the mid, pips (signed)
  near: number | null; // instead of offset: at this band's avgMargin (index mod the number of bands) on the order's side, plus jitter
  jitter: number;
  onTick: boolean;
  lots: number;
  matched: number; // fraction of the size matched (1: fully)
  age: number | null; // ms; null: unknown (adopted)
  dupId: boolean; // reuse the previous order's id
}

const orderArb: fc.Arbitrary<OrderSpec> = fc.record({
  token: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(0 as const, 1 as const) },
    { weight: 1, arbitrary: fc.constant(2 as const) },
  ),
  side: fc.constantFrom('BUY' as const, 'SELL' as const),
  offset: fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: -3_000, max: 3_000 }) },
    { weight: 2, arbitrary: fc.integer({ min: -5, max: 5 }).map((k) => k * 100) }, // a few ticks (0.01) from the mid, or at it
    { weight: 1, arbitrary: fc.constant(0) },
  ),
  near: fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 2 })),
  jitter: fc.oneof(fc.constant(0), fc.integer({ min: -300, max: 300 })),
  onTick: fc.oneof({ weight: 5, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
  lots: fc.oneof(fc.integer({ min: 1, max: 6_000 }), fc.constantFrom(500, 1_000, 1_500)),
  matched: fc.oneof(
    { weight: 4, arbitrary: fc.constant(0) },
    { weight: 2, arbitrary: fc.double({ min: 0, max: 1, noNaN: true }) },
    { weight: 1, arbitrary: fc.constant(1) },
  ),
  age: fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 120_000 })),
  dupId: fc.oneof({ weight: 15, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
});

/** Snaps a pip price to the tick (or deliberately off it) inside (0, 10000). */
function pricePips(yesPrice: number, tick: number, onTick: boolean): number {
  let p = onTick
    ? Math.round(yesPrice / tick) * tick
    : Math.round(yesPrice) + (Math.round(yesPrice) % tick === 0 ? 1 : 0);
  p = Math.max(1, Math.min(9_999, p));
  return p;
}

const caseArb = fc.record({
  plan: planArb,
  cfg: cfgArb,
  top: topArb,
  orders: fc.array(orderArb, { maxLength: 10 }),
  yesPos: fc.oneof(
    fc.constant(0),
    fc.integer({ min: -1_000, max: 30_000 }).map((l) => l * LOT),
  ),
  noPos: fc.oneof(
    fc.constant(0),
    fc.integer({ min: -1_000, max: 30_000 }).map((l) => l * LOT),
  ),
});

type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

const NOW = 1_000_000;

function build(c: Case): {
  plan: MarketPlan;
  cfg: BandsConfig;
  top: MarketTop | null;
  state: ReturnType<typeof fakeState>;
} {
  const center = c.top?.mid ?? 5_000;
  const orders: LiveOrderView[] = [];
  let n = 0;
  for (const o of c.orders) {
    const bid = (o.token === 0) === (o.side === 'BUY');
    const offset =
      o.near === null ? o.offset : (bid ? -1 : 1) * (c.cfg.bands[o.near % c.cfg.bands.length]!.avgMargin + o.jitter);
    const yesPrice = pricePips(center + offset, c.plan.tick, o.onTick);
    const tokenId = o.token === 0 ? YES1 : o.token === 1 ? NO1 : OTHER;
    const price = o.token === 1 ? 10_000 - yesPrice : yesPrice;
    const originalSize = o.lots * LOT;
    const sizeMatched = o.matched === 1 ? originalSize : Math.floor((originalSize * o.matched) / LOT) * LOT;
    const prev = orders[orders.length - 1];
    const id = o.dupId && prev !== undefined ? prev.id : (`0x${(++n).toString(16).padStart(64, '0')}` as OrderId);
    const lv: LiveOrderView = {
      id,
      market: M1 as ConditionId,
      tokenId,
      side: o.side,
      price: price as Pips,
      originalSize: originalSize as Micro,
      sizeMatched: sizeMatched as Micro,
    };
    orders.push(o.age === null ? lv : { ...lv, createdAt: NOW - o.age });
  }
  const state = fakeState({ orders, positions: { [YES1]: c.yesPos, [NO1]: c.noPos }, now: NOW });
  return { plan: c.plan, cfg: c.cfg, top: c.top, state };
}

// ---- the property ------------------------------------------------------------------------------------

describe('bands quoteAt: equals the frozen reference', () => {
  it('same quotes (order, contents, key order) for random configs, tops, orders, positions and ticks', () => {
    let prev: { out: QuoteIntent[]; json: string } | undefined;
    const stats = { cases: 0, nonEmpty: 0, keptLive: 0, aged: 0 };
    fc.assert(
      fc.property(caseArb, (c) => {
        const { plan, cfg, top, state } = build(c);
        const want = referenceQuoteAt(plan, cfg, state, top);
        const got = quoteAt(plan, cfg, state, top);
        expect(got).toStrictEqual(want);
        const json = JSON.stringify(got);
        expect(json).toBe(JSON.stringify(want)); // key order too
        // the previous call's output is untouched by this call (no shared scratch in the result)
        if (prev !== undefined) expect(JSON.stringify(prev.out)).toBe(prev.json);
        expect(got).not.toBe(prev?.out);
        prev = { out: got, json };
        stats.cases++;
        if (got.length > 0) stats.nonEmpty++;
        const live = state.orders;
        if (
          got.some((q) =>
            live.some(
              (o) =>
                o.tokenId === q.tokenId &&
                o.side === q.side &&
                o.price === q.price &&
                o.originalSize - o.sizeMatched === q.size,
            ),
          )
        )
          stats.keptLive++;
        if (
          cfg.maxOrderAgeMs > 0 &&
          live.some((o) => o.createdAt !== undefined && NOW - o.createdAt >= cfg.maxOrderAgeMs)
        )
          stats.aged++;
      }),
      { numRuns: 3_000 },
    );
    // the generators must reach the interesting paths, or the equality proves little
    expect(stats.nonEmpty).toBeGreaterThan(stats.cases * 0.5);
    expect(stats.keptLive).toBeGreaterThan(stats.cases * 0.07);
    expect(stats.aged).toBeGreaterThan(stats.cases * 0.05);
  });

  it('realistic two-band cases near the mid (both tokens, tick 0.001, orders at the band targets)', () => {
    const near = fc.record({
      offsetTicks: fc.integer({ min: -60, max: 60 }),
      token: fc.constantFrom(0 as const, 1 as const),
      side: fc.constantFrom('BUY' as const, 'SELL' as const),
      lots: fc.constantFrom(500, 1_000, 1_500, 250, 2_000),
      matchedLots: fc.constantFrom(0, 0, 0, 100, 500),
    });
    fc.assert(
      fc.property(
        fc.record({
          mid2: fc.integer({ min: 200, max: 1_800 }), // mid in half-ticks of 0.001... x 5 pips
          spreadTicks: fc.integer({ min: 1, max: 8 }),
          orders: fc.array(near, { minLength: 0, maxLength: 8 }),
          yesPos: fc.integer({ min: 0, max: 200 }).map((s) => s * SH),
          noPos: fc.integer({ min: 0, max: 200 }).map((s) => s * SH),
          minMargin0: fc.boolean(),
          postOnly: fc.constantFrom('move' as const, 'drop' as const),
        }),
        (c) => {
          const tick = 10;
          const mid = c.mid2 * 5;
          const touchBid = Math.floor(mid / tick) * tick - Math.floor(c.spreadTicks / 2) * tick;
          const touchAsk = touchBid + c.spreadTicks * tick;
          const top: MarketTop = { bid: touchBid, ask: touchAsk, mid: (touchBid + touchAsk) / 2, touchBid, touchAsk };
          const cfg: BandsConfig = {
            tokens: 'both',
            bands: [
              {
                minMargin: c.minMargin0 ? 0 : 100,
                avgMargin: 200,
                maxMargin: 300,
                minAmount: 5 * SH,
                avgAmount: 10 * SH,
                maxAmount: 15 * SH,
              },
              {
                minMargin: 300,
                avgMargin: 400,
                maxMargin: 500,
                minAmount: 7.5 * SH,
                avgAmount: 15 * SH,
                maxAmount: 22.5 * SH,
              },
            ],
            maxPosition: 100 * SH,
            inventorySkew: 2,
            excludeOwnOrders: true,
            minSpread: 0,
            postOnly: c.postOnly,
            maxOrderAgeMs: 0,
          };
          const plan: MarketPlan = { market: M1, yes: YES1, no: NO1, tick, minSize: 5 * SH };
          const orders = c.orders.map((o, i): LiveOrderView => {
            const yp = Math.max(
              tick,
              Math.min(10_000 - tick, Math.round(top.mid! / tick) * tick + o.offsetTicks * tick),
            );
            return {
              id: `0x${(i + 1).toString(16).padStart(64, '0')}` as OrderId,
              market: M1,
              tokenId: o.token === 0 ? YES1 : NO1,
              side: o.side,
              price: (o.token === 0 ? yp : 10_000 - yp) as Pips,
              originalSize: (o.lots * LOT) as Micro,
              sizeMatched: (o.matchedLots * LOT) as Micro,
            };
          });
          const state = fakeState({ orders, positions: { [YES1]: c.yesPos, [NO1]: c.noPos }, now: NOW });
          const want = referenceQuoteAt(plan, cfg, state, top);
          const got = quoteAt(plan, cfg, state, top);
          expect(got).toStrictEqual(want);
          expect(JSON.stringify(got)).toBe(JSON.stringify(want));
        },
      ),
      { numRuns: 2_000 },
    );
  });
  it('orders at and around the center with minMargin 0 (the self-cross guard; duplicate prices and ids)', () => {
    const atCenter = fc.record({
      ticksOff: fc.integer({ min: -3, max: 3 }),
      token: fc.constantFrom(0 as const, 1 as const),
      side: fc.constantFrom('BUY' as const, 'SELL' as const),
      lots: fc.constantFrom(100, 500, 1_000, 2_000),
      id: fc.integer({ min: 1, max: 6 }), // few ids: equal prices tie-break on them, and some repeat
    });
    let guarded = 0;
    fc.assert(
      fc.property(
        fc.record({
          tick: fc.constantFrom(100, 10),
          midTicks: fc.integer({ min: 5, max: 95 }),
          orders: fc.array(atCenter, { minLength: 1, maxLength: 8 }),
          yesPos: fc.constantFrom(0, 20 * SH, 200 * SH),
          noPos: fc.constantFrom(0, 20 * SH),
          tokens: fc.constantFrom('yes' as const, 'both' as const),
          nb: fc.integer({ min: 1, max: 3 }),
          maxAmount: fc.constantFrom(5 * SH, 10 * SH, 30 * SH),
        }),
        (c) => {
          const mid = c.midTicks * 100; // on both ticks
          const top: MarketTop = { bid: mid - 200, ask: mid + 200, mid, touchBid: mid - 100, touchAsk: mid + 100 };
          const band = (i: number): Band => ({
            minMargin: 0,
            avgMargin: 100 * (i + 1),
            maxMargin: 100 * (i + 1) + 50,
            minAmount: 5 * SH,
            avgAmount: 5 * SH,
            maxAmount: c.maxAmount,
          });
          const cfg: BandsConfig = {
            tokens: c.tokens,
            bands: Array.from({ length: c.nb }, (_, i) => band(i)),
            maxPosition: 100 * SH,
            inventorySkew: 0,
            excludeOwnOrders: true,
            minSpread: 0,
            postOnly: 'move',
            maxOrderAgeMs: 0,
          };
          const plan: MarketPlan = { market: M1, yes: YES1, no: NO1, tick: c.tick, minSize: 1 * SH };
          const orders = c.orders.map((o): LiveOrderView => {
            const yp = mid + o.ticksOff * c.tick;
            return {
              id: `0x${o.id.toString(16).padStart(64, '0')}` as OrderId,
              market: M1,
              tokenId: o.token === 0 ? YES1 : NO1,
              side: o.side,
              price: (o.token === 0 ? yp : 10_000 - yp) as Pips,
              originalSize: (o.lots * LOT) as Micro,
              sizeMatched: 0 as Micro,
            };
          });
          const state = fakeState({ orders, positions: { [YES1]: c.yesPos, [NO1]: c.noPos }, now: NOW });
          const want = referenceQuoteAt(plan, cfg, state, top);
          const got = quoteAt(plan, cfg, state, top);
          expect(got).toStrictEqual(want);
          expect(JSON.stringify(got)).toBe(JSON.stringify(want));
          // a case the guard decides: a YES ask (or NO bid) resting exactly at the center, and a bid there too
          const yp = (o: LiveOrderView) => (o.tokenId === YES1 ? o.price : 10_000 - o.price);
          const isBid = (o: LiveOrderView) => (o.tokenId === YES1) === (o.side === 'BUY');
          if (orders.some((o) => isBid(o) && yp(o) === mid) && orders.some((o) => !isBid(o) && yp(o) === mid))
            guarded++;
        },
      ),
      { numRuns: 2_000 },
    );
    expect(guarded).toBeGreaterThan(50);
  });
});
