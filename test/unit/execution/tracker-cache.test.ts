/**
 * OrderTracker.liveOrdersCached: the same list while nothing changed, a fresh one after any change (the
 * list of all markets: after any change it shows).
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.ts';
import type { ConditionId, OrderId, TokenId } from '../../../src/core/ids.ts';
import type { Micro, Pips } from '../../../src/core/units.ts';
import type { PreparedOrder } from '../../../src/core/venue.ts';
import { OrderTracker } from '../../../src/execution/tracker.ts';

const M = '0xm' as ConditionId;
const M2 = '0xm2' as ConditionId;
const Y = 'y' as TokenId;

function prep(id: string, market = M): PreparedOrder {
  return {
    id: id as OrderId,
    request: { market, tokenId: Y, side: 'BUY', price: 5000 as Pips, size: 10_000_000 as Micro, type: 'GTC' },
    wire: { id },
  };
}

describe('OrderTracker.liveOrdersCached', () => {
  it('equals liveOrders after every kind of change, and is the same array while nothing changed', () => {
    const clock = new VirtualClock(1000);
    const t = new OrderTracker(clock);
    const check = (): void => {
      expect(t.liveOrdersCached()).toEqual(t.liveOrders());
      expect(t.liveOrdersCached(M)).toEqual(t.liveOrders(M));
      expect(t.liveOrdersCached(M2)).toEqual(t.liveOrders(M2));
      // the executor's list: without the orders it is cancelling already
      const x = { excludeCancelling: true };
      expect(t.liveOrdersCached(M, x)).toEqual(t.liveOrders(M, x));
      expect(t.liveOrdersCached(undefined, x)).toEqual(t.liveOrders(undefined, x));
    };
    const first = t.liveOrdersCached(M);
    expect(t.liveOrdersCached(M)).toBe(first);
    t.addPending(prep('0xa'));
    check();
    const a = t.liveOrdersCached(M);
    expect(a).not.toBe(first);
    expect(t.liveOrdersCached(M)).toBe(a); // unchanged: the same list
    t.addPending(prep('0xb', M2));
    check();
    expect(t.liveOrdersCached(M)).toBe(a); // another market's change: this market's list is kept
    const allPending = t.liveOrdersCached();
    const mPending = t.liveOrdersCached(M);
    t.onPlaceOutcome({ id: '0xa' as OrderId, ok: true, status: 'live' });
    check();
    // pending -> live: a market's list is made anew (the strategies' filters compare it); the list of
    // all markets (the risk view's) shows nothing new (a view has no status) and is kept
    expect(t.liveOrdersCached(M)).not.toBe(mPending);
    expect(t.liveOrdersCached()).toBe(allPending);
    t.onFill({ tradeId: 't1', orderId: '0xa' as OrderId, size: 4_000_000, status: 'MATCHED' });
    check();
    expect(t.liveOrdersCached(M)[0]?.sizeMatched).toBe(4_000_000);
    const withA = t.liveOrdersCached(M, { excludeCancelling: true });
    expect(withA.map((o) => o.id)).toEqual(['0xa']);
    t.markCancelRequested(['0xa' as OrderId]);
    check();
    expect(t.liveOrdersCached(M, { excludeCancelling: true })).toEqual([]);
    expect(t.liveOrdersCached(M).map((o) => o.id)).toEqual(['0xa']); // still live until the venue answers
    t.onCancelOutcome({ canceled: ['0xa' as OrderId], notCanceled: new Map() });
    check();
    expect(t.liveOrdersCached(M)).toEqual([]);
    t.onOrderUpdate({
      type: 'order_update',
      kind: 'PLACEMENT',
      id: '0xc' as OrderId,
      market: M,
      tokenId: Y,
      side: 'BUY',
      price: 4000 as Pips,
      originalSize: 5_000_000 as Micro,
      sizeMatched: 0 as Micro,
      status: 'LIVE',
      source: 'stream',
      venueTime: 0,
      recvTime: 0,
    });
    check();
    expect(t.liveOrdersCached(M).map((o) => o.id)).toEqual(['0xc']);
  });
});

describe('OrderTracker.liveOrders (per-market index, views reused while unchanged)', () => {
  it('equals the plain computation (every open order in order, filtered, as a fresh view) after random changes', () => {
    const clock = new VirtualClock(1000);
    const t = new OrderTracker(clock);
    const markets = [M, M2, '0xm3' as ConditionId];
    let seed = 7;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const ids: OrderId[] = [];
    /** The plain version: the all-markets list (the open orders in order) filtered, each a fresh view of all(). */
    const plain = (market: ConditionId | undefined, x: boolean) => {
      const byId = new Map(t.all().map((o) => [o.id, o]));
      return t
        .liveOrders()
        .map((o) => byId.get(o.id)!)
        .filter((o) => (market === undefined || o.market === market) && !(x && o.cancelRequested))
        .map((o) => ({
          id: o.id,
          market: o.market,
          tokenId: o.tokenId,
          side: o.side,
          price: o.price,
          originalSize: o.originalSize,
          sizeMatched: o.sizeMatched,
          createdAt: o.createdAt,
        }));
    };
    for (let step = 0; step < 800; step++) {
      clock.advance(1 + rnd(50));
      const id = ids.length > 0 ? ids[rnd(ids.length)]! : undefined;
      switch (rnd(11)) {
        case 0:
        case 1: {
          const nid = `0x${step}` as OrderId;
          ids.push(nid);
          t.addPending(prep(nid, markets[rnd(3)]!));
          break;
        }
        case 2:
          if (id !== undefined) t.onPlaceOutcome({ id, ok: true, status: 'live' });
          break;
        case 3:
          if (id !== undefined) t.onFill({ tradeId: `t${step}`, orderId: id, size: 1_000_000, status: 'MATCHED' });
          break;
        case 4:
          if (id !== undefined) t.markCancelRequested([id]);
          break;
        case 5:
          if (id !== undefined) t.onCancelOutcome({ canceled: [id], notCanceled: new Map() });
          break;
        case 6:
          if (id !== undefined) t.markUnknown(id);
          break;
        case 7:
          if (id !== undefined) t.concludeGone(id);
          break;
        case 8: {
          // an order update: an id it knows or an adopted one; a size it knows or a larger one,
          // LIVE (which revives an inferred terminal state) or done
          const uid = id !== undefined && rnd(4) > 0 ? id : (`0xu${step}` as OrderId);
          if (uid !== id) ids.push(uid);
          const known = t.get(uid);
          t.onOrderUpdate({
            type: 'order_update',
            kind: 'UPDATE',
            id: uid,
            market: known?.market ?? markets[rnd(3)]!,
            tokenId: Y,
            side: 'BUY',
            price: 5000 as Pips,
            originalSize: 10_000_000 as Micro,
            sizeMatched: ((known?.sizeMatched ?? 0) + (rnd(2) === 0 ? 0 : 1_000_000)) as Micro,
            status: rnd(4) === 0 ? 'CANCELED' : 'LIVE',
            source: 'stream',
            venueTime: 0,
            recvTime: 0,
          });
          break;
        }
        case 9:
          if (id !== undefined) t.markRejected(id, 'X', rnd(2) === 0);
          break;
        case 10:
          // a repeated answer (changes nothing), then time for terminal orders to be forgotten
          if (id !== undefined) t.onPlaceOutcome({ id, ok: true, status: 'live' });
          if (rnd(20) === 0) clock.advance(700_000);
          break;
      }
      for (const m of [undefined, ...markets])
        for (const x of [false, true]) {
          expect(t.liveOrders(m, { excludeCancelling: x })).toEqual(plain(m, x));
          expect(t.liveOrdersCached(m, { excludeCancelling: x })).toEqual(plain(m, x));
        }
    }
  });
});
