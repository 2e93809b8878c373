import fc from 'fast-check';
import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { BookMirror, BookMirrors, complementLevels, complementPrice, feedMirrors } from '../../../src/book/mirror.ts';
import type { LevelChangeEvent, MarketEvent, PriceLevel } from '../../../src/core/events.ts';
import type { ConditionId, TokenId } from '../../../src/core/ids.ts';
import type { Micro, Pips, Side } from '../../../src/core/units.ts';

const lv = (p: number, s: number): PriceLevel => [p as Pips, s as Micro];

/** The naive model: a Map per side. */
class Model {
  bids = new Map<number, number>();
  asks = new Map<number, number>();
  snapshot(b: PriceLevel[], a: PriceLevel[]) {
    this.bids = new Map(b.filter(([, s]) => s > 0).map(([p, s]) => [p, s]));
    this.asks = new Map(a.filter(([, s]) => s > 0).map(([p, s]) => [p, s]));
  }
  level(side: Side, p: number, s: number) {
    const m = side === 'BUY' ? this.bids : this.asks;
    if (s === 0) m.delete(p);
    else m.set(p, s);
  }
  levels() {
    return {
      bids: [...this.bids].sort((x, y) => y[0] - x[0]),
      asks: [...this.asks].sort((x, y) => x[0] - y[0]),
    };
  }
}

const priceArb = fc.oneof(
  fc.integer({ min: 1, max: 9999 }),
  fc.integer({ min: 4990, max: 5010 }),
  fc.constantFrom(1, 31, 32, 33, 63, 64, 65, 4992, 9983, 9984, 9999),
);
const sizeArb = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 2 ** 40 }));
const levelArb = fc.tuple(priceArb, sizeArb).map(([p, s]) => lv(p, s));
type Op =
  | { k: 'snap'; bids: PriceLevel[]; asks: PriceLevel[] }
  | { k: 'level'; side: Side; price: number; size: number };
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    arbitrary: fc.record({
      k: fc.constant('snap' as const),
      bids: fc.uniqueArray(levelArb, { selector: (l) => l[0], maxLength: 12 }),
      asks: fc.uniqueArray(levelArb, { selector: (l) => l[0], maxLength: 12 }),
    }),
    weight: 1,
  },
  {
    arbitrary: fc.record({
      k: fc.constant('level' as const),
      side: fc.constantFrom<Side>('BUY', 'SELL'),
      price: priceArb,
      size: sizeArb,
    }),
    weight: 12,
  },
);

describe('BookMirror', () => {
  it('equals a naive Map model after any sequence of snapshots and level updates (levels, best, depth, sizes)', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 200 }), (ops) => {
        const m = new BookMirror('t');
        const model = new Model();
        for (const op of ops) {
          if (op.k === 'snap') {
            m.applySnapshot(op.bids, op.asks);
            model.snapshot(op.bids, op.asks);
          } else {
            m.applyLevel(op.side, op.price, op.size);
            model.level(op.side, op.price, op.size);
          }
          const want = model.levels();
          expect(m.bestBid()).toBe(want.bids[0]?.[0] ?? null);
          expect(m.bestAsk()).toBe(want.asks[0]?.[0] ?? null);
          expect(m.depth('BUY')).toBe(want.bids.length);
          expect(m.depth('SELL')).toBe(want.asks.length);
          expect(m.sideLevels(true, 2)).toEqual(want.bids.slice(0, 2));
          expect(m.sideLevels(false, 2)).toEqual(want.asks.slice(0, 2));
        }
        const want = model.levels();
        expect(m.levels()).toEqual(want);
        expect(m.levels(3)).toEqual({ bids: want.bids.slice(0, 3), asks: want.asks.slice(0, 3) });
        for (const [p, s] of want.bids) expect(m.sizeAt('BUY', p)).toBe(s);
      }),
      { numRuns: 300 },
    );
  });

  it('a snapshot clears every level of the previous book, at any price (sizes checked over the whole range)', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 60 }), (ops) => {
        const m = new BookMirror('t');
        const model = new Model();
        for (const op of ops) {
          if (op.k === 'snap') {
            m.applySnapshot(op.bids, op.asks);
            model.snapshot(op.bids, op.asks);
          } else {
            m.applyLevel(op.side, op.price, op.size);
            model.level(op.side, op.price, op.size);
          }
        }
        const wrong: number[] = [];
        for (let p = 0; p <= 10_000; p++) {
          if (m.sizeAt('BUY', p) !== (model.bids.get(p) ?? 0) || m.sizeAt('SELL', p) !== (model.asks.get(p) ?? 0))
            wrong.push(p);
        }
        expect(wrong).toEqual([]);
      }),
      { numRuns: 60 },
    );
    // extremes of the range, then a snapshot elsewhere
    const m = new BookMirror('t');
    m.applySnapshot([lv(1, 5), lv(9999, 7)], [lv(1, 3), lv(9999, 4)]);
    m.applyLevel('BUY', 5000, 9);
    m.applySnapshot([lv(4000, 1)], [lv(6000, 2)]);
    for (const p of [1, 5000, 9999]) {
      expect(m.sizeAt('BUY', p)).toBe(0);
      expect(m.sizeAt('SELL', p)).toBe(0);
    }
    expect(m.levels()).toEqual({ bids: [lv(4000, 1)], asks: [lv(6000, 2)] });
  });

  it('is stale until a snapshot, and from markStale until the next one', () => {
    const m = new BookMirror('t');
    expect(m.stale).toBe(true);
    m.applySnapshot([lv(4900, 5)], [lv(5100, 7)], {
      hash: 'h',
      venueTime: 9,
      market: 'm',
      tickSize: 100,
      lastTradePrice: 5000,
    });
    expect([m.stale, m.snapshotted, m.hash, m.venueTime, m.market, m.tickSize, m.lastTradePrice]).toEqual([
      false,
      true,
      'h',
      9,
      'm',
      100,
      5000,
    ]);
    m.markStale();
    expect(m.stale).toBe(true);
    m.applySnapshot([], []);
    expect(m.stale).toBe(false);
    expect([m.bestBid(), m.bestAsk()]).toEqual([null, null]);
  });

  it('refuses prices outside [1, 9999] and non-integer or negative sizes', () => {
    const m = new BookMirror('t');
    expect(() => m.applyLevel('BUY', 0, 1)).toThrow(RangeError);
    expect(() => m.applyLevel('BUY', 10_000, 1)).toThrow(RangeError);
    expect(() => m.applyLevel('SELL', 50.5, 1)).toThrow(RangeError);
    expect(() => m.applyLevel('SELL', 5000, -1)).toThrow(RangeError);
    expect(() => m.applyLevel('SELL', 5000, 1.5)).toThrow(RangeError);
    expect(() => m.applySnapshot([lv(20_000, 1)], [])).toThrow(RangeError);
  });

  it('complement view: YES bids are NO asks at 1 - p and vice versa', () => {
    const yes = { bids: [lv(4900, 1), lv(4800, 2)], asks: [lv(5100, 3)] };
    expect(complementLevels(yes)).toEqual({ bids: [lv(4900, 3)], asks: [lv(5100, 1), lv(5200, 2)] });
    expect(complementPrice(3000 as Pips)).toBe(7000);
    expect(complementPrice(null)).toBe(null);
  });
});

const M = 'm' as ConditionId;
const T = 't' as TokenId;
const base = { venueTime: 1, recvTime: 2 };
const change = (
  side: Side,
  price: number,
  size: number,
  bestBid: number | null,
  bestAsk: number | null,
  endOfBatch = true,
): LevelChangeEvent => ({
  type: 'level_change',
  ...base,
  market: M,
  tokenId: T,
  side,
  price: price as Pips,
  size: size as Micro,
  bestBid: bestBid as Pips | null,
  bestAsk: bestAsk as Pips | null,
  hash: 'h',
  endOfBatch,
});
const snapshot = (bids: PriceLevel[], asks: PriceLevel[]): MarketEvent => ({
  type: 'book_snapshot',
  ...base,
  market: M,
  tokenId: T,
  bids,
  asks,
  hash: 'h0',
  tickSize: 100 as Pips,
  minOrderSize: null,
  lastTradePrice: null,
});

describe('feedMirrors', () => {
  it('applies each event before passing it on; disconnected marks stale; a fresh snapshot clears it', () => {
    const src = new Subject<MarketEvent>();
    const mirrors = new BookMirrors();
    const seen: Array<[string, boolean | undefined, number | null | undefined]> = [];
    feedMirrors(src, mirrors).subscribe((e) =>
      seen.push([e.type, mirrors.get('t')?.stale, mirrors.get('t')?.bestBid()]),
    );
    src.next(change('BUY', 4000, 1, 4000, null)); // before any snapshot: ignored
    src.next(snapshot([lv(4900, 5)], [lv(5100, 5)]));
    src.next(change('BUY', 5000, 3, 5000, 5100));
    src.next({ type: 'disconnected', stream: 'market', reason: 'x', ...base });
    src.next(snapshot([lv(4800, 5)], [lv(5100, 5)]));
    src.next({ type: 'resynced', stream: 'market', initial: false, ...base });
    expect(seen).toEqual([
      ['level_change', undefined, undefined],
      ['book_snapshot', false, 4900],
      ['level_change', false, 5000],
      ['disconnected', true, 5000],
      ['book_snapshot', false, 4800],
      ['resynced', false, 4800],
    ]);
  });

  it('detects a book that no longer matches the venue best prices after a batch: stale, stream_error, onDesync', () => {
    const src = new Subject<MarketEvent>();
    const mirrors = new BookMirrors();
    const out: MarketEvent[] = [];
    const asked: string[][] = [];
    feedMirrors(src, mirrors, { onDesync: (ids) => asked.push(ids) }).subscribe((e) => out.push(e));
    src.next(snapshot([lv(4900, 5)], [lv(5100, 5)]));
    // mid-batch the best fields describe the end of the batch: no check until endOfBatch
    src.next(change('BUY', 5000, 3, 4900, 5100, false));
    src.next(change('BUY', 5000, 0, 4900, 5100, true));
    expect(asked).toEqual([]);
    // a change was missed: the venue says the best bid is 4950
    src.next(change('SELL', 5200, 1, 4950, 5100, true));
    expect(asked).toEqual([['t']]);
    expect(mirrors.get('t')!.stale).toBe(true);
    expect(mirrors.desyncs).toBe(1);
    const err = out[out.length - 1]!;
    expect(err).toMatchObject({ type: 'stream_error', stream: 'market' });
    expect((err as any).reason).toContain('book desync on t');
    // while stale, no further checks; the fresh snapshot restores it
    src.next(change('SELL', 5300, 1, 1, 1, true));
    expect(asked.length).toBe(1);
    src.next(snapshot([lv(4950, 5)], [lv(5100, 5)]));
    expect(mirrors.get('t')!.stale).toBe(false);
  });
});
