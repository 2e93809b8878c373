/**
 * The average price of a position has the venue's 6 decimals, exact from the store's integers,
 * everywhere it is shown: /api/status (the markets' tokens and the inventory), the exit summary
 * and its log lines, as `mmkit positions` prints it (user trial 2, finding 9).
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.ts';
import type { ConditionId, TokenId } from '../../../src/core/ids.ts';
import type { Micro, Pips } from '../../../src/core/units.ts';
import { positionsAtExit } from '../../../src/cli/run-summary.ts';
import { positionsWithDecimals } from '../../../src/ops/daemon-ops.ts';
import { Metrics } from '../../../src/ops/metrics.ts';
import { DaemonMonitor, type DaemonView } from '../../../src/ops/status.ts';
import { PositionAccumulator } from '../../../src/store/positions.ts';

const M = ('0x' + '1'.repeat(64)) as ConditionId;
const T = '1111' as TokenId;

/** Bought 4 at 0.3876, 1 at 0.388, sold 1.333333 at 0.40: average 0.38768 (0.3877 in pips). */
function position(): PositionAccumulator {
  const a = new PositionAccumulator(M, T);
  const fill = (side: 'BUY' | 'SELL', price: number, size: number) =>
    a.add({ market: M, tokenId: T, side, price: price as Pips, size: size as Micro, fee: 0 as Micro });
  fill('BUY', 3876, 4_000_000);
  fill('BUY', 3880, 1_000_000);
  fill('SELL', 4000, 1_333_333);
  return a;
}
const store = () => {
  const a = position();
  return { positions: () => [a.snapshot()], positionDecimals: () => [a.decimals()] };
};

describe('average price precision', () => {
  it('the exit summary shows the 6 decimals of the store, not the rounded pips', () => {
    const s = store();
    expect(s.positions()[0]!.avgPrice).toBe(3877);
    const held = positionsAtExit(s.positions(), new Map([[T, 3900]]), s.positionDecimals());
    expect(held).toEqual([{ market: M, tokenId: T, size: '3.666667', avgPrice: '0.38768', mark: '0.39' }]);
  });

  it('/api/status shows the same figure in the market tokens and the inventory, /metrics too', async () => {
    const clock = new VirtualClock(1_700_000_000_000);
    const metrics = new Metrics({ now: () => clock.now(), defaultMetrics: false });
    const monitor = new DaemonMonitor({
      clock,
      metrics,
      feedStaleMs: 5000,
    });
    const s = store();
    const view: DaemonView = {
      book: () => ({ bestBid: 3800, bestAsk: 4000, stale: false }),
      whyNotQuotable: () => undefined,
      isRetired: () => false,
      liveOrders: () => [],
      positions: () => positionsWithDecimals(s),
      pnl: () => ({ realized: 0, unrealized: 0, fees: 0, total: 0, unmarked: [] }),
      collateral: () => ({ available: 0, reserved: 0 }),
      heartbeat: () => ({ ok: true, consecutiveFailures: 0, lastLatencyMs: 1, lastAttemptAt: clock.now(), failed: 0 }),
      killSwitch: () => ({ tripped: false }),
      totals: () => ({ ordersPlaced: 0, ordersCancelled: 0, ordersRejected: 0, fills: 0, volume: 0, notional: 0 }),
      rejectionsNotCounted: () => ({ sellBalanceRaces: 0, postOnlyCrossings: 0 }),
      pauseReasons: () => [],
    };
    monitor.attach(view, {
      markets: [{ market: M, question: 'Q?', tokens: [{ tokenId: T, outcome: 'Yes' }] }],
      strategy: { name: 'bands', params: {} },
      address: '0xabc',
      venueUrl: 'http://127.0.0.1:1',
    });
    const snap = monitor.sample();
    expect(snap.markets[0]!.tokens[0]!.avgPrice).toBe('0.38768');
    expect(snap.inventory.positions[0]!.avgPrice).toBe('0.38768');
    // and /metrics the same figure
    expect(await metrics.render()).toMatch(/^mmkit_position_avg_price\{[^}]*\} 0\.38768$/m);
  });
});
