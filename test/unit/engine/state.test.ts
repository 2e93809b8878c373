import { describe, expect, it } from 'vitest';
import type { TokenId } from '../../../src/core/ids.ts';
import type { LiveOrderView } from '../../../src/core/intents.ts';
import { EngineState } from '../../../src/engine/state.ts';
import {
  CID,
  CID2,
  disconnected,
  fill,
  level,
  market,
  NO,
  NO2,
  order,
  resolved,
  resynced,
  snap,
  tickChange,
  YES,
  YES2,
} from './fixtures.ts';

function fresh(o: ConstructorParameters<typeof EngineState>[1] = {}) {
  const s = new EngineState([market(), market(CID2, YES2, NO2)], o);
  s.apply(resynced('user', true), 1);
  return s;
}

function bothBooks(s: EngineState, t = 2) {
  s.apply(snap(YES, [[4000, 10e6]], [[6000, 10e6]]), t);
  s.apply(snap(NO, [[4000, 10e6]], [[6000, 10e6]]), t);
}

describe('EngineState: books', () => {
  it('books are stale until their snapshot; the view reads the mirror (best, mid, levels)', () => {
    const s = fresh();
    expect(s.book(YES)!.stale).toBe(true);
    expect(s.quotable(CID)).toBe(false);
    expect(s.whyNotQuotable(CID)).toMatch(/no book yet/);
    s.apply(
      snap(
        YES,
        [
          [4000, 10e6],
          [3900, 5e6],
        ],
        [[6000, 10e6]],
      ),
      5,
    );
    expect(s.quotable(CID)).toBe(false); // NO still missing
    s.apply(snap(NO, [[4000, 10e6]], [[6000, 10e6]]), 6);
    expect(s.quotable(CID)).toBe(true);
    const b = s.book(YES)!;
    expect([b.bestBid, b.bestAsk, b.mid, b.stale]).toEqual([4000, 6000, 5000, false]);
    expect(b.levels('bids')).toEqual([
      [4000, 10e6],
      [3900, 5e6],
    ]);
    expect(b.levels('bids', 1)).toEqual([[4000, 10e6]]);
    expect(s.now).toBe(6);
    expect(s.book('999' as TokenId)).toBeUndefined();
  });

  it('level changes are applied before anyone reads; a half-pip mid', () => {
    const s = fresh();
    bothBooks(s);
    s.apply(level(YES, 'BUY', 4100, 1e6, { bid: 4100, ask: 6000 }), 3);
    expect(s.book(YES)!.bestBid).toBe(4100);
    s.apply(level(YES, 'SELL', 5901, 1e6, { bid: 4100, ask: 5901 }), 3);
    expect(s.book(YES)!.mid).toBe(5000.5);
  });

  it('disconnected marks every book stale (market dirty); fresh snapshots after the resync make it quotable again', () => {
    const s = fresh();
    bothBooks(s);
    s.dirtyMarkets.clear();
    s.apply(disconnected('market'), 10);
    expect(s.book(YES)!.stale && s.book(NO)!.stale).toBe(true);
    expect(s.quotable(CID)).toBe(false);
    expect([...s.dirtyMarkets].sort()).toEqual([CID, CID2].sort());
    expect(s.marketSynced).toBe(false);
    // level changes while stale do not un-stale
    s.apply(level(YES, 'BUY', 4100, 1e6, { bid: 4100, ask: 6000 }), 11);
    expect(s.quotable(CID)).toBe(false);
    bothBooks(s, 12);
    s.apply(resynced('market'), 12);
    expect(s.quotable(CID)).toBe(true);
    expect(s.marketSynced).toBe(true);
  });

  it('a crossed book is stale and asks for a fresh snapshot; the snapshot clears it', () => {
    const s = fresh();
    bothBooks(s);
    s.apply(level(YES, 'BUY', 6000, 1e6, { bid: 6000, ask: 6000 }), 3);
    expect(s.book(YES)!.stale).toBe(true);
    expect(s.stats.crossed).toBe(1);
    expect(s.takeResyncRequests()).toEqual([YES]);
    expect(s.takeResyncRequests()).toBeUndefined();
    expect(s.quotable(CID)).toBe(false);
    s.apply(snap(YES, [[4000, 1e6]], [[6000, 1e6]]), 4);
    expect(s.quotable(CID)).toBe(true);
    // a crossed snapshot too
    s.apply(snap(NO, [[6100, 1e6]], [[6000, 1e6]]), 5);
    expect(s.book(NO)!.stale).toBe(true);
    expect(s.takeResyncRequests()).toEqual([NO]);
  });

  it('mid-batch level changes are not judged; only the end of the batch is', () => {
    const s = fresh();
    bothBooks(s);
    s.apply(level(YES, 'BUY', 6000, 1e6, { bid: 5900, ask: 6000 }, false), 3); // transiently crossed inside the batch
    expect(s.book(YES)!.stale).toBe(false);
    s.apply(level(YES, 'BUY', 6000, 0, { bid: 4000, ask: 6000 }, false), 3);
    s.apply(level(YES, 'BUY', 5900, 1e6, { bid: 5900, ask: 6000 }, true), 3);
    expect(s.book(YES)!.stale).toBe(false);
  });

  it('a mirror that disagrees with the venue best prices is stale and resynced', () => {
    const s = fresh();
    bothBooks(s);
    s.apply(level(YES, 'BUY', 4100, 1e6, { bid: 4200, ask: 6000 }), 3);
    expect(s.book(YES)!.stale).toBe(true);
    expect(s.stats.desyncs).toBe(1);
    expect(s.takeResyncRequests()).toEqual([YES]);
  });

  it('a malformed snapshot throws, and its book is stale', () => {
    const s = fresh();
    bothBooks(s);
    expect(() => s.apply(snap(YES, [[0, 1e6]], []), 3)).toThrow(RangeError);
    expect(s.book(YES)!.stale).toBe(true);
    expect(s.quotable(CID)).toBe(false);
  });

  it('tick-size change: a new book epoch and the market info follows the new tick; the book stays usable', () => {
    const s = fresh();
    bothBooks(s);
    expect(s.bookEpoch(YES)).toBe(0);
    s.apply(tickChange(YES, 100, 10), 3);
    expect(s.bookEpoch(YES)).toBe(1);
    expect(s.market(CID)!.tick).toBe('0.001');
    expect(s.markets.get(CID)!.tick).toBe('0.001');
    expect(s.books.get(YES)!.tickSize).toBe(10);
    expect(s.quotable(CID)).toBe(true);
  });

  it('a resolved market is never quotable again; an inactive one never was', () => {
    const s = new EngineState([market(), market(CID2, YES2, NO2, { active: false })]);
    s.apply(resynced('user', true), 1);
    bothBooks(s);
    s.apply(snap(YES2, [[4000, 1]], [[6000, 1]], CID2), 2);
    s.apply(snap(NO2, [[4000, 1]], [[6000, 1]], CID2), 2);
    expect(s.quotable(CID)).toBe(true);
    expect(s.quotable(CID2)).toBe(false);
    s.apply(resolved(CID), 3);
    expect(s.isResolved(CID)).toBe(true);
    expect(s.quotable(CID)).toBe(false);
    bothBooks(s, 4);
    expect(s.quotable(CID)).toBe(false);
  });

  it('the user channel must be in sync (unless not required)', () => {
    const s = new EngineState([market()]);
    bothBooks(s);
    expect(s.quotable(CID)).toBe(false);
    expect(s.whyNotQuotable(CID)).toMatch(/user/);
    s.apply(resynced('user', true), 3);
    expect(s.quotable(CID)).toBe(true);
    s.apply(disconnected('user'), 4);
    expect(s.quotable(CID)).toBe(false);
    const t = new EngineState([market()], { requireUserSync: false });
    bothBooks(t);
    expect(t.quotable(CID)).toBe(true);
  });
});

describe('EngineState: own orders', () => {
  it('order events keep the open orders per market; terminal statuses remove them for good', () => {
    const s = fresh();
    s.apply(order('o1', 'LIVE'), 1);
    s.apply(order('o2', 'LIVE', { side: 'SELL', price: 6000 as never }), 1);
    expect(s.openOrders(CID).map((o) => o.id)).toEqual(['o1', 'o2']);
    expect(s.openOrders(CID2)).toEqual([]);
    const first = s.openOrders(CID);
    expect(s.openOrders(CID)).toBe(first); // cached until a change
    s.apply(order('o1', 'LIVE', { kind: 'UPDATE', sizeMatched: 4e6 as never }), 2);
    expect(s.ownOrder('o1' as never)!.sizeMatched).toBe(4e6);
    // a stale update with less matched cannot go backwards
    s.apply(order('o1', 'LIVE', { kind: 'UPDATE', sizeMatched: 1e6 as never }), 3);
    expect(s.ownOrder('o1' as never)!.sizeMatched).toBe(4e6);
    s.apply(order('o1', 'MATCHED', { kind: 'UPDATE', sizeMatched: 10e6 as never }), 4);
    s.apply(order('o2', 'CANCELED'), 4);
    expect(s.openOrders(CID)).toEqual([]);
    // a late LIVE (reordered) does not revive a terminal order
    s.apply(order('o2', 'LIVE'), 5);
    expect(s.openOrders(CID)).toEqual([]);
  });

  it('adopted orders join the open orders; with an order source (the executor tracker) openOrders asks it', () => {
    const s = fresh();
    s.adoptOrders([
      {
        id: 'a1' as never,
        market: CID,
        tokenId: YES,
        side: 'BUY',
        price: 4000 as never,
        originalSize: 5e6 as never,
        sizeMatched: 0 as never,
        status: 'LIVE',
      },
    ]);
    expect(s.openOrders(CID).map((o) => o.id)).toEqual(['a1']);
    const tracked: LiveOrderView[] = [
      {
        id: 't1' as never,
        market: CID,
        tokenId: YES,
        side: 'BUY',
        price: 1 as never,
        originalSize: 1 as never,
        sizeMatched: 0 as never,
      },
    ];
    const t = new EngineState([market()], { orders: { openOrders: (m) => (m === CID ? tracked : []) } });
    expect(t.openOrders(CID)).toBe(tracked);
  });
});

describe('EngineState: fills and positions', () => {
  it('each (trade, order) fill counts once whatever status arrives first', () => {
    const s = fresh();
    s.apply(fill('t1', 'o1', 'MINED'), 1); // a later status first (after a reconnect, say)
    s.apply(fill('t1', 'o1', 'MATCHED'), 2);
    s.apply(fill('t1', 'o1', 'CONFIRMED'), 3);
    expect(s.position(YES)).toMatchObject({ size: 10e6, avgPrice: 4000, realized: 0 });
    expect(s.stats).toMatchObject({ fillsCounted: 1, fillDuplicates: 2 });
    // a second order in the same trade is another fill
    s.apply(fill('t1', 'o2', 'MATCHED', { price: 4200 as never }), 4);
    expect(s.position(YES).size).toBe(20e6);
    expect(s.position(YES).avgPrice).toBe(4100);
    expect(s.position(NO)).toMatchObject({ size: 0, avgPrice: null, realized: 0 });
  });

  it('FAILED reverses a counted fill exactly; a FAILED first is never counted', () => {
    const s = fresh();
    s.apply(fill('t1', 'o1', 'MATCHED', { price: 4000 as never, size: 10e6 as never }), 1);
    s.apply(fill('t2', 'o2', 'MATCHED', { side: 'SELL', price: 5000 as never, size: 4e6 as never }), 2);
    expect(s.position(YES)).toMatchObject({ size: 6e6, avgPrice: 4000 });
    expect(s.position(YES).realized).toBeCloseTo((1000 * 4e6) / 10_000); // 0.10 × 4 shares = 0.4 collateral
    s.apply(fill('t1', 'o1', 'RETRYING'), 3);
    s.apply(fill('t1', 'o1', 'FAILED'), 4);
    // as if t1 never happened: only the sell, a short of 4 at 5000
    expect(s.position(YES)).toMatchObject({ size: -4e6, avgPrice: 5000, realized: 0 });
    expect(s.stats.fillsReversed).toBe(1);
    s.apply(fill('t1', 'o1', 'FAILED'), 5); // again: nothing
    s.apply(fill('t1', 'o1', 'CONFIRMED'), 5); // cannot come back
    expect(s.position(YES).size).toBe(-4e6);
    // failed first
    s.apply(fill('t3', 'o3', 'FAILED'), 6);
    s.apply(fill('t3', 'o3', 'MATCHED'), 7);
    expect(s.position(YES).size).toBe(-4e6);
  });

  it('seeded fills (store, backfill) and stream fills of the same pair count once; a base position sits under them', () => {
    const s = fresh();
    s.setBasePosition(NO, { size: 3e6, avgPrice: 7000 });
    s.seedFill({ tradeId: 'a', orderId: 'x', tokenId: NO, side: 'BUY', price: 6000, size: 3e6, status: 'CONFIRMED' });
    s.apply(fill('a', 'x', 'CONFIRMED', { tokenId: NO, price: 6000 as never, size: 3e6 as never }), 1);
    expect(s.position(NO)).toMatchObject({ size: 6e6, avgPrice: 6500 });
    s.apply(fill('b', 'y', 'MATCHED', { tokenId: NO, side: 'SELL', price: 7000 as never, size: 6e6 as never }), 2);
    expect(s.position(NO)).toMatchObject({ size: 0, avgPrice: null });
    expect(s.position(NO).realized).toBeCloseTo((500 * 6e6) / 10_000);
    expect(s.fillCount).toBe(2);
  });
});
