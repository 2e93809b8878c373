import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bookSchema,
  fastBook,
  fastLastTrade,
  fastPriceChange,
  lastTradeSchema,
  MarketDecoder,
  priceChangeSchema,
} from '../../../../src/api/streams/market-decode.ts';
import type { MarketDataEvent } from '../../../../src/core/events.ts';

const T = '71321045679252212594626385532706912750332728571942532289631379312455583992563';
const N = '52114319501245915516055106046884209969926127482827954674443846427813813222426';
const M = '0x5f65177b394277fd294cd75650044e32ba009a95022d88a0c1d565897d72f8f1';

// captured from the paper exchange (same shapes as the public venue)
const BOOK = {
  event_type: 'book',
  market: M,
  asset_id: T,
  timestamp: '1760000000123',
  hash: 'a1b2c3',
  bids: [
    { price: '0.48', size: '30' },
    { price: '0.49', size: '20.5' },
  ],
  asks: [
    { price: '0.52', size: '25' },
    { price: '0.51', size: '10' },
  ],
  min_order_size: '5',
  tick_size: '0.01',
  neg_risk: false,
  last_trade_price: '0.5',
};
const PRICE_CHANGE = {
  event_type: 'price_change',
  market: M,
  timestamp: '1760000000456',
  price_changes: [
    { asset_id: T, price: '0.5', size: '200', side: 'BUY', hash: 'h1', best_bid: '0.5', best_ask: '0.51' },
    { asset_id: N, price: '0.5', size: '200', side: 'SELL', hash: 'h2', best_bid: '0.49', best_ask: '0.5' },
  ],
};
const LAST_TRADE = {
  event_type: 'last_trade_price',
  asset_id: T,
  market: M,
  price: '0.51',
  side: 'BUY',
  size: '7.25',
  fee_rate_bps: '0',
  timestamp: '1760000000789',
  transaction_hash: '0xabc',
};

function decodeAll(msgs: unknown[], fast = true) {
  const d = new MarketDecoder({ fast });
  const events: MarketDataEvent[] = [];
  const outcomes = msgs.map((m) => d.decode(m, 42, (e) => events.push(e)));
  return { events, outcomes, stats: d.stats };
}

describe('market messages to events', () => {
  it('book: integer levels best first, metadata, venue and receive times', () => {
    const { events } = decodeAll([BOOK]);
    expect(events).toEqual([
      {
        type: 'book_snapshot',
        venueTime: 1_760_000_000_123,
        recvTime: 42,
        market: M,
        tokenId: T,
        bids: [
          [4900, 20_500_000],
          [4800, 30_000_000],
        ],
        asks: [
          [5100, 10_000_000],
          [5200, 25_000_000],
        ],
        hash: 'a1b2c3',
        tickSize: 100,
        minOrderSize: 5_000_000,
        lastTradePrice: 5000,
      },
    ]);
  });
  it('book: levels in any order are sorted; bad optional metadata degrades to null', () => {
    const { events } = decodeAll([
      {
        ...BOOK,
        bids: [BOOK.bids[1], { price: '0.3', size: '1' }, BOOK.bids[0]],
        tick_size: 'weird',
        last_trade_price: '',
        min_order_size: undefined,
      },
    ]);
    const e = events[0] as any;
    expect(e.bids.map((l: number[]) => l[0])).toEqual([4900, 4800, 3000]);
    expect([e.tickSize, e.lastTradePrice, e.minOrderSize]).toEqual([null, null, null]);
  });
  it('price_change: one level_change per entry, both tokens, the last one ends the batch', () => {
    const { events } = decodeAll([PRICE_CHANGE]);
    expect(events).toEqual([
      {
        type: 'level_change',
        venueTime: 1_760_000_000_456,
        recvTime: 42,
        market: M,
        tokenId: T,
        side: 'BUY',
        price: 5000,
        size: 200_000_000,
        bestBid: 5000,
        bestAsk: 5100,
        hash: 'h1',
        endOfBatch: false,
      },
      {
        type: 'level_change',
        venueTime: 1_760_000_000_456,
        recvTime: 42,
        market: M,
        tokenId: N,
        side: 'SELL',
        price: 5000,
        size: 200_000_000,
        bestBid: 4900,
        bestAsk: 5000,
        hash: 'h2',
        endOfBatch: true,
      },
    ]);
  });
  it('price_change: size "0" removes; best "0" is an empty side (null)', () => {
    const { events } = decodeAll([
      { ...PRICE_CHANGE, price_changes: [{ ...PRICE_CHANGE.price_changes[0], size: '0', best_bid: '0' }] },
    ]);
    expect(events[0]).toMatchObject({ size: 0, bestBid: null, bestAsk: 5100, endOfBatch: true });
  });
  it('last_trade_price, tick_size_change, best_bid_ask, new_market, market_resolved', () => {
    const { events, outcomes } = decodeAll([
      LAST_TRADE,
      {
        event_type: 'tick_size_change',
        asset_id: T,
        market: M,
        old_tick_size: '0.01',
        new_tick_size: '0.001',
        timestamp: '1760000000000',
      },
      {
        event_type: 'best_bid_ask',
        asset_id: T,
        market: M,
        best_bid: '0.5',
        best_ask: '0',
        spread: '0',
        timestamp: '1760000000000',
      },
      {
        event_type: 'new_market',
        id: M,
        market: M,
        question: 'Q?',
        slug: 'q',
        assets_ids: [T, N],
        outcomes: ['Yes', 'No'],
        event_message: { id: '1' },
        timestamp: '1760000000000',
      },
      {
        event_type: 'market_resolved',
        market: M,
        winning_asset_id: N,
        winning_outcome: 'No',
        assets_ids: [T, N],
        timestamp: '1760000000000',
      },
    ]);
    expect(outcomes.every((o) => o.kind === 'ok')).toBe(true);
    expect(events.map((e) => e.type)).toEqual([
      'last_trade',
      'tick_size_change',
      'best_bid_ask',
      'new_market',
      'market_resolved',
    ]);
    expect(events[0]).toMatchObject({
      price: 5100,
      size: 7_250_000,
      side: 'BUY',
      feeRateBps: 0,
      venueTime: 1_760_000_000_789,
    });
    expect(events[1]).toMatchObject({ old: 100, new: 10 });
    expect(events[2]).toMatchObject({ bestBid: 5000, bestAsk: null, spread: 0 });
    expect(events[3]).toMatchObject({
      market: M,
      question: 'Q?',
      slug: 'q',
      tokenIds: [T, N],
      outcomes: ['Yes', 'No'],
    });
    expect(events[4]).toMatchObject({ market: M, winningTokenId: N, winningOutcome: 'No' });
  });
  it('tolerates unknown fields; a missing timestamp means the receive time', () => {
    const { events } = decodeAll([{ ...LAST_TRADE, something_new: { x: 1 }, timestamp: undefined }]);
    expect(events[0]).toMatchObject({ venueTime: 42, recvTime: 42 });
  });
  it('refuses garbage and malformed known kinds (counted), ignores unknown kinds, reports venue errors', () => {
    const { events, outcomes, stats } = decodeAll([
      'text',
      42,
      null,
      [BOOK],
      {},
      { event_type: 5 },
      { ...BOOK, bids: [{ price: '1.5', size: '1' }] },
      { ...BOOK, asset_id: '' },
      { ...PRICE_CHANGE, price_changes: [{ ...PRICE_CHANGE.price_changes[0], side: 'buy' }] },
      { ...PRICE_CHANGE, price_changes: [{ ...PRICE_CHANGE.price_changes[0], size: '-1' }] },
      { ...LAST_TRADE, price: 0.5 },
      { ...LAST_TRADE, timestamp: 'yesterday' },
      { event_type: 'tick_size_change', asset_id: T, market: M, old_tick_size: '0.01', new_tick_size: '0.02' },
      { event_type: 'something_new', x: 1 },
      { event_type: 'error', error: { code: 'BAD_REQUEST', message: 'nope' } },
      PRICE_CHANGE,
    ]);
    expect(outcomes.map((o) => o.kind)).toEqual([
      'bad',
      'bad',
      'bad',
      'bad',
      'bad',
      'bad',
      'bad',
      'bad',
      'bad',
      'bad',
      'bad',
      'bad',
      'bad',
      'ignored',
      'server_error',
      'ok',
    ]);
    expect(outcomes[14]).toEqual({ kind: 'server_error', reason: 'BAD_REQUEST: nope' });
    expect(stats).toEqual({ messages: 16, events: 2, bad: 13, unknownTypes: 1, serverErrors: 1 });
    expect(events.length).toBe(2);
  });
  it('the zod-only path gives the same events', () => {
    const msgs = [BOOK, PRICE_CHANGE, LAST_TRADE, { ...BOOK, bids: [] }, { event_type: 'book' }];
    const a = decodeAll(msgs, true);
    const b = decodeAll(msgs, false);
    expect(b.events).toEqual(a.events);
    expect(b.outcomes.map((o) => o.kind)).toEqual(a.outcomes.map((o) => o.kind));
  });
});

// ---- the hand-written decoders accept and refuse exactly what the schemas do ---------------------

const tricky = fc.oneof(
  fc.constantFrom(
    '0',
    '1',
    '0.5',
    '0.50',
    '0.9999',
    '0.00001',
    '1.5',
    '',
    ' 0.5',
    '.5',
    '5.',
    '-0.5',
    '1e-2',
    '0.12345',
    '12',
    '0.0001',
    'BUY',
    'SELL',
    'buy',
    '1760000000',
    '0.01',
    '0.001',
  ),
  fc.string({ maxLength: 6 }),
  fc.integer({ min: -5, max: 2_000_000_000_000 }),
  fc.double({ noNaN: true }),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.constant([]),
  fc.constant({}),
);
/** Mostly a valid value, sometimes a tricky one. */
const mostly = <T>(valid: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: valid, weight: 15 }, { arbitrary: tricky as fc.Arbitrary<unknown>, weight: 1 });
const price = mostly(fc.integer({ min: 1, max: 9999 }).map((p) => String(p / 10_000)));
const size = mostly(fc.integer({ min: 0, max: 10_000_000 }).map((s) => String(s / 100)));
const best = mostly(fc.integer({ min: 0, max: 9999 }).map((p) => String(p / 10_000)));
const id = mostly(fc.constantFrom(T, N, M, 'x'));
const side = mostly(fc.constantFrom('BUY', 'SELL'));
const ts = mostly(fc.constantFrom('1760000000123', 1_760_000_000_123, undefined));
const hash = mostly(fc.constant('h'));

/** A record with every key (mostly valid values), one key dropped now and then, an odd extra key sometimes. */
function rec(shape: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Record<string, unknown>> {
  const keys = Object.keys(shape);
  return fc
    .tuple(
      fc.record(shape),
      fc.oneof({ arbitrary: fc.constant(null), weight: 8 }, { arbitrary: fc.constantFrom(...keys), weight: 1 }),
      fc.option(tricky, { freq: 2 }),
    )
    .map(([r, drop, extra]) => {
      const out: Record<string, unknown> = { ...r };
      if (drop !== null) delete out[drop];
      if (extra !== null) out['extra_field'] = extra;
      return out;
    });
}
const levels = mostly(fc.array(rec({ price, size }), { maxLength: 4 }));
const bookArb = rec({
  event_type: mostly(fc.constant('book')),
  asset_id: id,
  market: id,
  timestamp: ts,
  hash,
  bids: levels,
  asks: levels,
  tick_size: fc.oneof(fc.constantFrom('0.01', 0.001), tricky),
  min_order_size: size,
  last_trade_price: price,
});
const entry = rec({ asset_id: id, price, size, side, hash, best_bid: best, best_ask: best });
const priceChangeArb = rec({
  event_type: mostly(fc.constant('price_change')),
  market: id,
  timestamp: ts,
  price_changes: mostly(fc.array(entry, { maxLength: 4 })),
});
const lastTradeArb = rec({
  event_type: mostly(fc.constant('last_trade_price')),
  asset_id: id,
  market: id,
  price,
  side,
  size,
  fee_rate_bps: mostly(fc.constantFrom('0', 100, '12', undefined)),
  timestamp: ts,
});

function sameAsSchema(
  fast: (m: Record<string, unknown>) => unknown,
  schema: { safeParse(v: unknown): { success: boolean; data?: unknown } },
  arb: fc.Arbitrary<Record<string, unknown>>,
) {
  let accepted = 0;
  fc.assert(
    fc.property(arb, (m) => {
      const f = fast(m);
      const z = schema.safeParse(m);
      expect(f !== undefined).toBe(z.success);
      if (z.success) {
        accepted++;
        expect(f).toEqual(z.data);
      }
    }),
    { numRuns: 4000 },
  );
  return accepted;
}

describe('hand-written decoders = schemas', () => {
  it('book', () => {
    expect(sameAsSchema(fastBook, bookSchema, bookArb)).toBeGreaterThan(400);
  });
  it('price_change', () => {
    expect(sameAsSchema(fastPriceChange, priceChangeSchema, priceChangeArb)).toBeGreaterThan(400);
  });
  it('last_trade_price', () => {
    expect(sameAsSchema(fastLastTrade, lastTradeSchema, lastTradeArb)).toBeGreaterThan(400);
  });
  it('on the captured valid frames', () => {
    expect(fastBook(BOOK)).toEqual(bookSchema.parse(BOOK));
    expect(fastPriceChange(PRICE_CHANGE)).toEqual(priceChangeSchema.parse(PRICE_CHANGE));
    expect(fastLastTrade(LAST_TRADE)).toEqual(lastTradeSchema.parse(LAST_TRADE));
  });
});
