/**
 * `gate` against `referenceGate` (gate-reference.ts: a verbatim copy of the gate before its
 * allocation-free rewrite) on random views and desired sets: the same approved set (market, time,
 * quotes, the very quote objects where unchanged), the same refusals (quote, code, reason, in
 * order) and the same trims. The generators aim at every path: whole-market refusals, every
 * per-quote refusal and every cut; a coverage check makes sure they keep doing so.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ConditionId, TokenId } from '../../../src/core/ids.ts';
import type { DesiredQuotes, LiveOrderView, QuoteIntent } from '../../../src/core/intents.ts';
import type { Micro, Pips, Side, TickSize } from '../../../src/core/units.ts';
import type { MarketInfo } from '../../../src/core/venue.ts';
import { gate, type GateResult, type RiskCode, type RiskView } from '../../../src/risk/gate.ts';
import type { KillSwitchState } from '../../../src/risk/kill-switch.ts';
import type { MarketLimits, RiskLimits } from '../../../src/risk/limits.ts';
import type { BookView } from '../../../src/strategy/api.ts';
import { bookView, complementView, M1, M2, marketInfo, NO1, NO2, order, SH, YES1, YES2 } from '../strategy/fixtures.ts';
import { referenceGate } from './gate-reference.ts';

const M3 = ('0x' + '33'.repeat(32)) as ConditionId; // inactive
const M4 = ('0x' + '44'.repeat(32)) as ConditionId; // unknown
const YES3 = '3001' as TokenId;
const NO3 = '3002' as TokenId;

// ---- generators ----------------------------------------------------------------------------------

/** One of the values, the first (the permissive one, mostly) more often. */
const mostly = <T>(usual: T, ...rare: T[]): fc.Arbitrary<T> =>
  fc.oneof(
    { weight: rare.length * 4, arbitrary: fc.constant(usual) },
    { weight: rare.length, arbitrary: fc.constantFrom(...rare) },
  );

const marketLimitsArb: fc.Arbitrary<MarketLimits> = fc.record({
  maxPosition: mostly(250 * SH, 0, 10 * SH, 20 * SH, 50 * SH, 37_123_456),
  maxOrderSize: mostly(100 * SH, 3 * SH, 10 * SH, 12_345_678, 5_000),
  maxNotional: mostly(250 * SH, 0, 5 * SH, 15 * SH, 100 * SH, 7_777_777),
  maxOpenOrders: mostly(20, 0, 1, 2, 3),
  maxMidDistance: mostly(1000, 1, 150, 300, 2001, 10_000),
  minPrice: mostly(100, 1, 600, 4000),
  maxPrice: mostly(9900, 9999, 6000, 500),
}) as fc.Arbitrary<MarketLimits>;

const riskLimitsArb: fc.Arbitrary<RiskLimits> = fc
  .record({
    defaults: marketLimitsArb,
    override: fc.option(fc.tuple(fc.constantFrom(M1, M2, 'constructor'), marketLimitsArb), { nil: undefined }),
    globalNotional: mostly(2000 * SH, 0, 10 * SH, 30 * SH, 1000 * SH),
    globalOpen: mostly(200, 0, 2, 4, 6),
  })
  .map(({ defaults, override, globalNotional, globalOpen }) => ({
    defaults,
    markets: override === undefined ? {} : { [override[0]]: override[1] },
    global: { maxNotional: globalNotional as Micro, maxOpenOrders: globalOpen },
    killSwitch: { maxLoss: 0 as Micro, maxRejections: 0, rejectionWindowMs: 1, maxHeartbeatFailures: 0 },
  }));

const killArb: fc.Arbitrary<KillSwitchState | undefined> = fc.oneof(
  { weight: 15, arbitrary: fc.constant(undefined) },
  { weight: 15, arbitrary: fc.constant({ tripped: false, reason: null }) },
  { weight: 1, arbitrary: fc.constant({ tripped: true, reason: null }) },
  {
    weight: 1,
    arbitrary: fc.constant({ tripped: true, reason: { trigger: 'lossLimit' as const, message: 'PnL -120', at: 5 } }),
  },
);

type Level = readonly [number, number];
const levelSize = fc.oneof(
  fc.integer({ min: 1, max: 60 }).map((s) => s * SH),
  fc.integer({ min: 1, max: 80 * SH }),
);

/** A book around a bid (pips), ask above it (usually); both sides with 0-10 levels on a grid. */
const sideLevels = (grid: number, dir: number) =>
  fc
    .array(fc.tuple(fc.integer({ min: 0, max: 12 }), levelSize), { maxLength: 10 })
    .map((ls) => ls.map(([k, s]) => [k * grid * dir, s] as const));

interface BookSpec {
  kind: 'none' | 'sane' | 'random' | 'complement';
  stale: boolean;
  bid: number;
  spread: number;
  grid: number;
  bids: Level[];
  asks: Level[];
  oneSided: 'no' | 'bids' | 'asks';
}
const bookSpecArb: fc.Arbitrary<BookSpec> = fc.record({
  kind: fc.oneof(
    { weight: 12, arbitrary: fc.constant('sane' as const) },
    { weight: 4, arbitrary: fc.constant('complement' as const) },
    { weight: 1, arbitrary: fc.constantFrom('none' as const, 'random' as const) },
  ),
  stale: fc.oneof({ weight: 40, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  bid: fc.integer({ min: 1, max: 98 }).map((x) => x * 100),
  spread: mostly(100, -100, 0, 1, 10, 200, 200, 300, 700),
  grid: fc.constantFrom(1, 10, 100, 100),
  bids: sideLevels(100, -1) as fc.Arbitrary<Level[]>,
  asks: sideLevels(100, 1) as fc.Arbitrary<Level[]>,
  oneSided: fc.oneof(
    { weight: 60, arbitrary: fc.constant('no' as const) },
    { weight: 1, arbitrary: fc.constantFrom('bids' as const, 'asks' as const) },
  ),
});

function makeBook(token: TokenId, s: BookSpec, other: BookView | undefined): BookView | undefined {
  if (s.kind === 'none') return undefined;
  if (s.kind === 'complement') {
    if (other === undefined) return undefined;
    const c = complementView(token, other);
    return s.stale ? { ...c, stale: true } : c;
  }
  const ask = s.bid + s.spread;
  const scale = s.kind === 'random' ? s.grid / 100 : 1;
  let bids = [[s.bid, 10 * SH] as Level, ...s.bids.map(([d, z]) => [s.bid + d * scale, z] as Level)].filter(
    (l) => l[0] > 0 && l[0] < 10_000,
  );
  let asks = [[ask, 10 * SH] as Level, ...s.asks.map(([d, z]) => [ask + d * scale, z] as Level)].filter(
    (l) => l[0] > 0 && l[0] < 10_000,
  );
  if (s.kind === 'random') {
    // levels anywhere: crossed, locked, through each other
    bids = s.bids.map(([d, z]) => [Math.min(9999, Math.max(1, 5000 + d * 3 * scale)), z] as Level);
    asks = s.asks.map(([d, z]) => [Math.min(9999, Math.max(1, 4800 + d * 3 * scale)), z] as Level);
  }
  if (s.oneSided === 'bids') asks = [];
  if (s.oneSided === 'asks') bids = [];
  // duplicate prices would make a malformed book: keep the first of each
  const dedupe = (ls: Level[]) => ls.filter((l, i) => ls.findIndex((x) => x[0] === l[0]) === i);
  return bookView(token, dedupe(bids), dedupe(asks), s.stale);
}

const tickArb = fc.constantFrom<TickSize>('0.01', '0.01', '0.01', '0.001', '0.1', '0.0001');

interface OrderSpec {
  market: 0 | 1 | 2;
  token: 0 | 1;
  side: Side;
  price: number;
  size: number;
  matched: number;
  /** At this level of the YES book (-1: at `price`), so that the book's top may be ours. */
  at: number;
  /** With the level's whole size (the level is all ours). */
  whole: boolean;
}
const orderSpecArb: fc.Arbitrary<OrderSpec> = fc.record({
  market: fc.constantFrom<0 | 1 | 2>(0, 0, 0, 1, 2),
  token: fc.constantFrom<0 | 1>(0, 1),
  side: fc.constantFrom<Side>('BUY', 'SELL'),
  price: fc.oneof(
    fc.integer({ min: 1, max: 99 }).map((x) => x * 100),
    fc.integer({ min: 1, max: 9999 }),
  ),
  size: fc.oneof(
    fc.integer({ min: 1, max: 40 }).map((x) => x * SH),
    fc.integer({ min: 1, max: 40 * SH }),
  ),
  matched: fc.oneof(
    { weight: 6, arbitrary: fc.constant(0) },
    { weight: 2, arbitrary: fc.integer({ min: 0, max: 20 * SH }) },
    { weight: 1, arbitrary: fc.constant(-1) },
  ),
  at: fc.oneof({ weight: 1, arbitrary: fc.constant(-1) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 3 }) }),
  whole: fc.boolean(),
});

interface QuoteSpec {
  token: 0 | 1 | 2 | 3;
  side: string;
  price: number;
  size: number;
}
const quoteSpecArb: fc.Arbitrary<QuoteSpec> = fc.record({
  token: fc.constantFrom<0 | 1 | 2 | 3>(0, 0, 0, 1, 1, 1, 2, 3),
  side: fc.oneof(
    { weight: 30, arbitrary: fc.constantFrom('BUY', 'SELL') },
    { weight: 1, arbitrary: fc.constantFrom('HOLD', 'buy') },
  ),
  price: fc.oneof(
    { weight: 12, arbitrary: fc.integer({ min: 1, max: 99 }).map((x) => x * 100) },
    { weight: 4, arbitrary: fc.integer({ min: -2, max: 10_002 }) },
    { weight: 1, arbitrary: fc.constantFrom(0, 10_000, 4800.5, Number.NaN, Infinity, -100, 50, 9950) },
  ),
  size: fc.oneof(
    { weight: 12, arbitrary: fc.integer({ min: 1, max: 120 }).map((x) => x * SH) },
    { weight: 6, arbitrary: fc.integer({ min: 1, max: 150 * SH }) },
    { weight: 1, arbitrary: fc.constantFrom(0, -5 * SH, 10.5, Number.NaN, Infinity, 2 ** 53, 4_999_999, 5 * SH) },
  ),
});

interface Scenario {
  limits: RiskLimits;
  killSwitch: KillSwitchState | undefined;
  halted: string | null | undefined;
  heartbeatOk: boolean | undefined;
  target: 0 | 1 | 2 | 3;
  tick: TickSize;
  minOrderSize: number;
  viewTick: number | undefined | 'none';
  yesBook: BookSpec;
  noBook: BookSpec;
  noFirst: boolean;
  positions: [number, number, number];
  orders: OrderSpec[];
  collateral: number;
  quotes: QuoteSpec[];
  selfCross: boolean;
  /** Sane quotes (right tokens and sides, on the grid, just outside the top, whole shares): many sets pass untouched. */
  tame: boolean;
}
const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  limits: riskLimitsArb,
  killSwitch: killArb,
  halted: fc.oneof(
    { weight: 40, arbitrary: fc.constantFrom(undefined, null) },
    { weight: 1, arbitrary: fc.constantFrom('reconciling', '') },
  ),
  heartbeatOk: fc.oneof(
    { weight: 40, arbitrary: fc.constantFrom(undefined, true) },
    { weight: 1, arbitrary: fc.constant(false) },
  ),
  target: fc.oneof(
    { weight: 40, arbitrary: fc.constant(0 as const) },
    { weight: 1, arbitrary: fc.constantFrom<0 | 1 | 2 | 3>(1, 2, 3) },
  ),
  tick: tickArb,
  minOrderSize: fc.constantFrom(5 * SH, 5 * SH, SH, 0, 15 * SH),
  viewTick: fc.oneof(
    { weight: 12, arbitrary: fc.constant('none' as const) },
    { weight: 2, arbitrary: fc.constantFrom(undefined, 1, 10, 100, 1000) },
    { weight: 1, arbitrary: fc.constantFrom(0, -0, 2.5, Number.NaN, 2 ** 32 + 100, 50, 100.0000001) },
  ),
  yesBook: bookSpecArb,
  noBook: bookSpecArb,
  noFirst: fc.boolean(),
  positions: fc.tuple(
    fc.oneof(
      fc.integer({ min: 0, max: 100 }).map((x) => x * SH),
      fc.integer({ min: -10 * SH, max: 300 * SH }),
    ),
    fc.oneof(
      fc.integer({ min: 0, max: 100 }).map((x) => x * SH),
      fc.integer({ min: -10 * SH, max: 300 * SH }),
    ),
    fc.integer({ min: 0, max: 100 * SH }),
  ),
  orders: fc.array(orderSpecArb, { maxLength: 10 }),
  collateral: fc.oneof(
    fc.integer({ min: 0, max: 400 }).map((x) => x * SH),
    fc.integer({ min: 1, max: 40 }).map((x) => x * SH),
    fc.integer({ min: -SH, max: 500 * SH }),
  ),
  quotes: fc.array(quoteSpecArb, { minLength: 1, maxLength: 8 }),
  selfCross: fc.boolean(),
  tame: fc.boolean(),
});

interface Built {
  desired: DesiredQuotes;
  view: RiskView;
}

function build(s: Scenario): Built {
  const m1 = marketInfo(M1, YES1, NO1, { tick: s.tick, minOrderSize: s.minOrderSize as Micro });
  const markets = new Map<string, MarketInfo>([
    [M1, m1],
    [M2, marketInfo(M2, YES2, NO2)],
    [M3, marketInfo(M3, YES3, NO3, { active: false })],
  ]);
  const books = new Map<TokenId, BookView>();
  // the second book may be the complement of the first (either way round)
  if (s.noFirst) {
    const no = makeBook(NO1, { ...s.noBook, kind: s.noBook.kind === 'complement' ? 'sane' : s.noBook.kind }, undefined);
    const yes = makeBook(YES1, s.yesBook, no);
    if (no !== undefined) books.set(NO1, no);
    if (yes !== undefined) books.set(YES1, yes);
  } else {
    const yes = makeBook(
      YES1,
      { ...s.yesBook, kind: s.yesBook.kind === 'complement' ? 'sane' : s.yesBook.kind },
      undefined,
    );
    const no = makeBook(NO1, s.noBook, yes);
    if (yes !== undefined) books.set(YES1, yes);
    if (no !== undefined) books.set(NO1, no);
  }
  books.set(YES2, bookView(YES2, [[4900, 10 * SH]], [[5100, 10 * SH]]));
  const positions = new Map<TokenId, number>([
    [YES1, s.positions[0]],
    [NO1, s.positions[1]],
    [YES2, s.positions[2]],
  ]);
  const mids = [YES1, NO1].map((t) => books.get(t)?.mid ?? 5000);
  const orders: LiveOrderView[] = s.orders.map((o) => {
    const market = [M1, M2, M3][o.market]!;
    const token =
      o.market === 0 ? [YES1, NO1][o.token]! : o.market === 1 ? [YES2, NO2][o.token]! : [YES3, NO3][o.token]!;
    let price = o.price;
    let size = o.size;
    const yb = books.get(YES1);
    if (o.at >= 0 && o.market === 0 && yb !== undefined) {
      // resting at a level of the YES book: a YES order on its side, a NO order as its complement
      const lv = yb.levels((o.side === 'SELL') === (token === YES1) ? 'asks' : 'bids', 4)[o.at];
      if (lv !== undefined) {
        price = token === YES1 ? lv[0] : 10_000 - lv[0];
        if (o.whole) size = lv[1];
      }
    }
    return order(market, token, o.side, price, size, o.matched === -1 ? size : o.matched);
  });
  const view: RiskView = {
    limits: s.limits,
    killSwitch: s.killSwitch,
    halted: s.halted,
    heartbeatOk: s.heartbeatOk,
    market: (id) => markets.get(id),
    tick: s.viewTick === 'none' ? undefined : () => s.viewTick as Pips | undefined,
    book: (t) => books.get(t),
    position: (t) => (positions.get(t) ?? 0) as Micro,
    openOrders: () => orders,
    availableCollateral: s.collateral as Micro,
  };
  const market = [M1, M2, M3, M4][s.target]!;
  const tokens = [YES1, NO1, YES2, '9999' as TokenId];
  const topOf = (t: TokenId, o: TokenId): { bid: number; ask: number } | undefined => {
    const own = books.get(t);
    const b = own ?? books.get(o);
    if (b === undefined || b.bestBid === null || b.bestAsk === null) return undefined;
    return own !== undefined
      ? { bid: b.bestBid, ask: b.bestAsk }
      : { bid: 10_000 - b.bestAsk, ask: 10_000 - b.bestBid };
  };
  const quotes: QuoteIntent[] = s.quotes.map((q, i) => {
    if (s.tame) {
      const token = q.token % 2 === 0 ? YES1 : NO1;
      const side: Side = q.side === 'SELL' ? 'SELL' : 'BUY';
      const top = topOf(token, token === YES1 ? NO1 : YES1) ?? { bid: 4900, ask: 5100 };
      const k = Math.abs(q.price % 4);
      const price =
        side === 'BUY' ? Math.floor(top.bid / 100) * 100 - k * 100 : Math.ceil(top.ask / 100) * 100 + k * 100;
      return { tokenId: token, side, price: price as Pips, size: ((5 + (Math.abs(q.size) % 30)) * SH) as Micro };
    }
    let price = q.price;
    // most grid prices near the token's mid, so that many quotes pass the band and reach the cuts
    if (q.token < 2 && Number.isInteger(price) && price % 100 === 0 && price > 0 && price < 10_000 && i % 3 !== 2) {
      price = Math.round(mids[q.token]! / 100) * 100 + ((price / 100) % 9) * 100 - 400;
    }
    return { tokenId: tokens[q.token]!, side: q.side as Side, price: price as Pips, size: q.size as Micro };
  });
  // a pair crossing each other (directly or through the complement)
  if (s.selfCross && quotes.length >= 2) {
    const a = quotes[0]!;
    if (a.tokenId === YES1 || a.tokenId === NO1) {
      const same = quotes.length % 2 === 0;
      quotes[1] = {
        ...quotes[1]!,
        tokenId: same ? a.tokenId : a.tokenId === YES1 ? NO1 : YES1,
        side: (same ? (a.side === 'BUY' ? 'SELL' : 'BUY') : a.side) as Side,
        price: (same ? a.price : 10_000 - a.price) as Pips,
      };
    }
  }
  return { desired: { market, quotes, at: 1234 }, view };
}

// ---- the comparison ------------------------------------------------------------------------------

function plain(r: GateResult) {
  return {
    approved: { market: r.approved.market, quotes: [...r.approved.quotes], at: r.approved.at },
    refusals: r.refusals.map((x) => ({ ...x })),
    trims: r.trims.map((x) => ({ ...x })),
  };
}

function expectSame(d: DesiredQuotes, v: RiskView): GateResult {
  const expected = referenceGate(d, v);
  const actual = gate(d, v);
  expect(plain(actual)).toStrictEqual(plain(expected));
  // the same objects: unchanged quotes are the desired ones, refusals and trims name the desired quote
  const originals = new Set(d.quotes);
  actual.approved.quotes.forEach((q, i) => {
    const e = expected.approved.quotes[i]!;
    expect(originals.has(q)).toBe(originals.has(e));
    if (originals.has(e)) expect(q).toBe(e);
  });
  actual.refusals.forEach((x, i) => expect(x.quote).toBe(expected.refusals[i]!.quote));
  actual.trims.forEach((x, i) => expect(x.quote).toBe(expected.trims[i]!.quote));
  return expected;
}

describe('gate = referenceGate', () => {
  it('on random views and desired sets (every path)', () => {
    const seen = new Map<string, number>();
    let approvedSome = 0;
    let untouched = 0;
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const { desired, view } = build(s);
        const r = expectSame(desired, view);
        for (const x of r.refusals) seen.set(x.code, (seen.get(x.code) ?? 0) + 1);
        for (const x of r.trims) seen.set(`trim:${x.code}`, (seen.get(`trim:${x.code}`) ?? 0) + 1);
        if (r.approved.quotes.length > 0) approvedSome++;
        if (r.refusals.length === 0 && r.trims.length === 0) untouched++;
      }),
      { numRuns: 4000 },
    );
    // the generators reach every refusal and cut (else this test proves less than it claims)
    const all: RiskCode[] = [
      'KILL_SWITCH',
      'HALTED',
      'HEARTBEAT',
      'UNKNOWN_MARKET',
      'MARKET_INACTIVE',
      'NO_BOOK',
      'STALE_BOOK',
      'CROSSED_BOOK',
      'NO_MID',
      'WRONG_TOKEN',
      'INVALID_PRICE',
      'OFF_TICK',
      'PRICE_LIMIT',
      'PRICE_BAND',
      'WOULD_CROSS',
      'SELF_CROSS',
      'INVALID_SIZE',
      'MIN_SIZE',
      'ORDER_SIZE',
      'POSITION',
      'NO_INVENTORY',
      'COLLATERAL',
      'NOTIONAL_MARKET',
      'NOTIONAL_GLOBAL',
      'OPEN_ORDERS_MARKET',
      'OPEN_ORDERS_GLOBAL',
    ];
    const missing = all.filter((c) => !seen.has(c));
    const cuts = [
      'LOT',
      'ORDER_SIZE',
      'POSITION',
      'COLLATERAL',
      'NO_INVENTORY',
      'NOTIONAL_MARKET',
      'NOTIONAL_GLOBAL',
    ].filter((c) => !seen.has(`trim:${c}`));
    if (process.env['GATE_EQ_STATS']) console.log(Object.fromEntries([...seen].sort()), { approvedSome, untouched });
    expect({ missing, cuts }).toEqual({ missing: [], cuts: [] });
    expect(approvedSome).toBeGreaterThan(600);
    expect(untouched).toBeGreaterThan(50);
  });

  it('on clean bands-like sets (bid and ask on both tokens, nothing refused or cut)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 10, max: 85 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 3 }),
        fc.array(orderSpecArb, { maxLength: 20 }),
        fc.constantFrom(false, true),
        (bidTicks, spreadTicks, depth, os, noBook) => {
          const bid = bidTicks * 100;
          const ask = bid + spreadTicks * 100;
          const yes = bookView(
            YES1,
            [
              [bid, 50 * SH],
              [bid - 100, 50 * SH],
            ],
            [
              [ask, 50 * SH],
              [ask + 100, 50 * SH],
            ],
          );
          const books = new Map<TokenId, BookView>([[YES1, yes]]);
          if (noBook) books.set(NO1, complementView(NO1, yes));
          const orders = os.map((o) =>
            order(
              o.market === 0 ? M1 : M2,
              o.market === 0 ? [YES1, NO1][o.token]! : YES2,
              o.side,
              o.price,
              o.size,
              o.matched === -1 ? o.size : o.matched,
            ),
          );
          const markets = new Map<string, MarketInfo>([[M1, marketInfo(M1, YES1, NO1)]]);
          const view: RiskView = {
            limits: {
              defaults: {
                maxPosition: (1000 * SH) as Micro,
                maxOrderSize: (100 * SH) as Micro,
                maxNotional: (1000 * SH) as Micro,
                maxOpenOrders: 20,
                maxMidDistance: 1000 as Pips,
                minPrice: 100 as Pips,
                maxPrice: 9900 as Pips,
              },
              markets: {},
              global: { maxNotional: (100_000 * SH) as Micro, maxOpenOrders: 200 },
              killSwitch: { maxLoss: 0 as Micro, maxRejections: 0, rejectionWindowMs: 1, maxHeartbeatFailures: 0 },
            },
            market: (id) => markets.get(id),
            book: (t) => books.get(t),
            position: () => (100 * SH) as Micro,
            openOrders: () => orders,
            availableCollateral: (10_000 * SH) as Micro,
          };
          const qs: QuoteIntent[] = [
            { tokenId: YES1, side: 'BUY', price: (bid - 100 * (depth - 1)) as Pips, size: (10 * SH) as Micro },
            { tokenId: YES1, side: 'SELL', price: (ask + 100 * (depth - 1)) as Pips, size: (10 * SH) as Micro },
            { tokenId: NO1, side: 'BUY', price: (10_000 - ask - 100 * depth) as Pips, size: (10 * SH) as Micro },
            { tokenId: NO1, side: 'SELL', price: (10_000 - bid + 100 * depth) as Pips, size: (10 * SH) as Micro },
          ];
          const d: DesiredQuotes = { market: M1, quotes: qs, at: 7 };
          const r = expectSame(d, view);
          const g = gate(d, view);
          if (r.refusals.length === 0 && r.trims.length === 0) expect(g.approved.quotes).toEqual(qs);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('an empty desired set passes whatever the view', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const { desired, view } = build(s);
        expectSame({ ...desired, quotes: [] }, view);
      }),
      { numRuns: 200 },
    );
  });
});
