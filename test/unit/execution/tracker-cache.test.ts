/** OrderTracker.liveOrdersCached: the same list while nothing changed, a fresh one after any change. */
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
    t.onPlaceOutcome({ id: '0xa' as OrderId, ok: true, status: 'live' });
    check();
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
