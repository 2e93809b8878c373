/**
 * The daemon's session markouts, fill ratio and max drawdown (trial 11 F4), measured as a backtest
 * measures them: a markout is the mid at the horizon minus the fill price for a BUY (the price minus
 * the mid for a SELL), size-weighted, in price units; a stale or one-sided book at the horizon is
 * left out; pending markouts are left out at close.
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.ts';
import type { FillEvent } from '../../../src/core/events.ts';
import {
  FILLED_MEMORY_MS,
  midOfTop,
  SessionTradeStats,
  sessionTradeLines,
} from '../../../src/ops/session-trade-stats.ts';

const fill = (o: { orderId?: string; side: 'BUY' | 'SELL'; price: number; size: number }): FillEvent =>
  ({
    type: 'fill',
    tradeId: `t${o.orderId ?? 'o1'}`,
    orderId: 'o1',
    status: 'MATCHED',
    role: 'MAKER',
    market: '0xm',
    tokenId: 'Y',
    feeRateBps: 0,
    takerOrderId: 'x',
    source: 'ws',
    venueTime: 0,
    recvTime: 0,
    ...o,
  }) as unknown as FillEvent;

describe('SessionTradeStats', () => {
  it('markouts at +1 s, +10 s, +60 s from the mids then; a stale book left out; fill ratio; drawdown', () => {
    const clock = new VirtualClock(1_000_000);
    const mids = new Map<string, number | null>([['Y', 5000]]);
    const s = new SessionTradeStats({ clock, mid: (t) => mids.get(t) ?? null });
    // a BUY of 10 at 0.49 and two SELLs of one order, 30 and 10 at 0.52 (pips: 1e4 = 1 USDC)
    s.fill(fill({ orderId: 'a', side: 'BUY', price: 4900, size: 10_000_000 }));
    s.fill(fill({ orderId: 'b', side: 'SELL', price: 5200, size: 30_000_000 }));
    s.fill(fill({ orderId: 'b', side: 'SELL', price: 5200, size: 10_000_000 })); // b's second fill
    clock.advanceTo(1_001_000); // +1 s: mid 0.50
    mids.set('Y', 5100);
    clock.advanceTo(1_010_000); // +10 s: mid 0.51
    mids.set('Y', null);
    clock.advanceTo(1_060_000); // +60 s: stale: left out
    const st = s.status(4);
    // +1 s: BUY (0.50 - 0.49) x10, SELLs (0.52 - 0.50) x40 -> (0.1 + 0.8) / 50 = 0.018
    // +10 s: (0.51 - 0.49) x10 + (0.52 - 0.51) x40 -> (0.2 + 0.4) / 50 = 0.012
    expect(st.markouts).toEqual([
      { horizonMs: 1000, fills: 3, avg: 0.018 },
      { horizonMs: 10_000, fills: 3, avg: 0.012 },
      { horizonMs: 60_000, fills: 0, avg: null },
    ]);
    expect(st.ordersFilled).toBe(2);
    expect(st.fillRatio).toBe(0.5);
    expect(s.status(0).fillRatio).toBeNull();
    // drawdown: the largest fall from a running peak of the samples (micro-USDC)
    for (const p of [0, 2_000_000, 1_500_000, 3_000_000, 700_000, 2_000_000]) s.pnl(p);
    expect(st.maxDrawdown).toBe('0');
    expect(s.status(4).maxDrawdown).toBe('2.3');
    expect(sessionTradeLines(s.status(4))).toEqual({
      markouts: '+1s +0.0180   +10s +0.0120   +60s n/a   (price units, size-weighted, over 3/3/0 fills)',
      fillRatio: '50.0 % of orders placed got a fill (2)',
      maxDrawdown: '2.3 USDC (on the status samples, every second)',
    });
  });

  it('close leaves the pending markouts out and takes no more fills', () => {
    const clock = new VirtualClock(0);
    const s = new SessionTradeStats({ clock, mid: () => 5000 });
    s.fill(fill({ side: 'BUY', price: 4900, size: 1_000_000 }));
    clock.advanceTo(1000);
    s.close();
    clock.advanceTo(100_000);
    s.fill(fill({ orderId: 'z', side: 'BUY', price: 4900, size: 1_000_000 }));
    expect(s.status(1).markouts.map((m) => m.fills)).toEqual([1, 0, 0]);
    expect(s.status(1).ordersFilled).toBe(1);
  });

  it('an order filled by a fill backfilled at shutdown counts in the fill ratio, without a markout (trial 13 F8)', () => {
    const clock = new VirtualClock(0);
    const s = new SessionTradeStats({ clock, mid: () => 5000 });
    s.fill(fill({ orderId: 'a', side: 'BUY', price: 4900, size: 1_000_000 }));
    s.close();
    s.filledOrder('b');
    s.filledOrder('a'); // an order counted once
    expect(s.status(4)).toMatchObject({ ordersFilled: 2, fillRatio: 0.5 });
    expect(s.status(4).markouts.map((m) => m.fills)).toEqual([0, 0, 0]);
  });

  it('remembers the recent and the open orders only, each counted once (mem18: the set grew with the session)', () => {
    const clock = new VirtualClock(0);
    const open = new Set<string>(['keep']);
    const s = new SessionTradeStats({ clock, mid: () => 5000, openOrderIds: () => open });
    s.fill(fill({ orderId: 'keep', side: 'BUY', price: 4900, size: 1_000_000 }));
    // 5,000 orders, one fill each, a second apart (83 minutes): only the last ten minutes' are kept
    for (let i = 0; i < 5000; i++) {
      clock.advanceTo(1000 * (i + 1));
      s.fill(fill({ orderId: `o${i}`, side: 'BUY', price: 4900, size: 1_000_000 }));
    }
    expect(s.status(5001).ordersFilled).toBe(5001);
    expect(s.rememberedOrders).toBeLessThanOrEqual(1 + (FILLED_MEMORY_MS + 60_000) / 1000 + 1);
    // the open order is kept however old its last fill: its next fill is not counted again
    s.fill(fill({ orderId: 'keep', side: 'SELL', price: 5100, size: 1_000_000 }));
    // a recent order's second fill is not counted again either
    s.fill(fill({ orderId: 'o4999', side: 'SELL', price: 5100, size: 1_000_000 }));
    expect(s.status(5001).ordersFilled).toBe(5001);
  });

  it('midOfTop: the mid of a fresh two-sided top (x.5 pips when the spread is odd), else null', () => {
    expect(midOfTop({ bestBid: 4900, bestAsk: 5101, stale: false })).toBe(5000.5);
    expect(midOfTop({ bestBid: 4900, bestAsk: 5100, stale: true })).toBeNull();
    expect(midOfTop({ bestBid: null, bestAsk: 5100, stale: false })).toBeNull();
    expect(midOfTop(undefined)).toBeNull();
  });
});
