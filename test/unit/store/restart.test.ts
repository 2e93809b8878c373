import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.ts';
import type { ConditionId, OrderId, TokenId } from '../../../src/core/ids.ts';
import type { Micro, Pips } from '../../../src/core/units.ts';
import type { RestartStore } from '../../../src/engine/restart.ts';
import type { VenueFill, VenueOrder } from '../../../src/core/venue.ts';
import { restartStore, storedStatusOf } from '../../../src/store/restart.ts';
import { openStore } from '../../../src/store/store.ts';

const M = '0xm' as ConditionId;
const Y = 'y' as TokenId;
const vo = (id: string, status: VenueOrder['status'], sizeMatched = 0): VenueOrder => ({
  id: id as OrderId,
  market: M,
  tokenId: Y,
  side: 'BUY',
  price: 4000 as Pips,
  originalSize: 10_000_000 as Micro,
  sizeMatched: sizeMatched as Micro,
  status,
});

describe('restartStore', () => {
  it('is the RestartStore the engine reconciliation asks for', () => {
    const store = openStore(':memory:', { clock: new VirtualClock(0) });
    const r: RestartStore = restartStore(store);
    expect(typeof r.recordFill).toBe('function');
    store.close();
  });

  it('maps venue states, adopts unknown orders, marks missing ones, records fills once', () => {
    const store = openStore(':memory:', { clock: new VirtualClock(0) });
    const r = restartStore(store);
    store.recordOrders([
      {
        id: '0xa' as OrderId,
        request: { market: M, tokenId: Y, side: 'BUY', price: 4000 as Pips, size: 10_000_000 as Micro, type: 'GTC' },
        wire: {},
      },
    ]);
    store.recordOrders([
      {
        id: '0xb' as OrderId,
        request: { market: M, tokenId: Y, side: 'BUY', price: 4000 as Pips, size: 10_000_000 as Micro, type: 'GTC' },
        wire: {},
      },
    ]);
    expect(r.openOrders().map((o) => o.id)).toEqual(['0xa', '0xb']);
    r.updateOrder(vo('0xa', 'MATCHED', 10_000_000));
    r.markOrderMissing('0xb');
    r.updateOrder(vo('0xc', 'LIVE', 2_000_000));
    expect(store.order('0xa' as OrderId)).toMatchObject({ status: 'filled', sizeMatched: 10_000_000 });
    expect(store.order('0xb' as OrderId)).toMatchObject({ status: 'rejected', rejectCode: 'NEVER_ARRIVED' });
    expect(store.order('0xc' as OrderId)).toMatchObject({ status: 'partially_filled', sizeMatched: 2_000_000 });
    expect(r.lastFillTime()).toBeUndefined();
    const f: VenueFill = {
      tradeId: 't',
      orderId: '0xa' as OrderId,
      market: M,
      tokenId: Y,
      side: 'BUY',
      price: 4000 as Pips,
      size: 10_000_000 as Micro,
      role: 'MAKER',
      fee: 0 as Micro,
      status: 'CONFIRMED',
      matchTime: 12_000,
    };
    expect(r.recordFill(f)).toBe(true);
    expect(r.recordFill(f)).toBe(false);
    expect(r.lastFillTime()).toBe(12_000);
    store.close();
  });

  it('storedStatusOf', () => {
    expect(storedStatusOf(vo('x', 'LIVE'))).toBe('live');
    expect(storedStatusOf(vo('x', 'LIVE', 1))).toBe('partially_filled');
    expect(storedStatusOf(vo('x', 'CANCELED', 1))).toBe('cancelled');
    expect(storedStatusOf(vo('x', 'UNMATCHED'))).toBe('cancelled');
    expect(storedStatusOf(vo('x', 'MATCHED', 10_000_000))).toBe('filled');
  });
});
