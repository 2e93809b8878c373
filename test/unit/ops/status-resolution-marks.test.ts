/**
 * The daemon monitor's marks (/api/status, /metrics, `mmkit status`): a followed market that resolved is
 * marked at what its tokens redeem for, 1 for the winner and 0 for the other, though its book is gone
 * (trial 25 F1: the position was reported "without a mark", its loss out of the PnL shown); with no
 * winner seen, at the venue's mark.
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.ts';
import { Metrics } from '../../../src/ops/metrics.ts';
import { DaemonMonitor, type DaemonView } from '../../../src/ops/status.ts';

const M = `0x${'1'.repeat(64)}`;
const YES = '1111';
const NO = '2222';

function monitorWith(winner: string | null | undefined, venueMarks: Map<string, number>): DaemonMonitor {
  const clock = new VirtualClock(1_700_000_000_000);
  const metrics = new Metrics({ now: () => clock.now(), defaultMetrics: false });
  const monitor = new DaemonMonitor({ clock, metrics, feedStaleMs: 5000 });
  const view: DaemonView = {
    // the books of a resolved market are gone; an open one quotes 0.40/0.42
    book: () => (winner === undefined ? { bestBid: 4000, bestAsk: 4200, stale: false } : undefined),
    whyNotQuotable: () => (winner === undefined ? undefined : 'market resolved or inactive'),
    isRetired: () => winner !== undefined,
    winner: () => winner,
    liveOrders: () => [],
    positions: () => [],
    pnl: () => ({ realized: 0, unrealized: 0, fees: 0, total: 0, unmarked: [] }),
    venueMarks: () => venueMarks,
    collateral: () => ({ available: 0, reserved: 0 }),
    heartbeat: () => ({ ok: true, consecutiveFailures: 0, lastLatencyMs: 1, lastAttemptAt: clock.now(), failed: 0 }),
    killSwitch: () => ({ tripped: false }),
    totals: () => ({ ordersPlaced: 0, ordersCancelled: 0, ordersRejected: 0, fills: 0, volume: 0, notional: 0 }),
    pauseReasons: () => [],
  };
  monitor.attach(view, {
    markets: [
      {
        market: M,
        question: 'Q?',
        tokens: [
          { tokenId: YES, outcome: 'Yes' },
          { tokenId: NO, outcome: 'No' },
        ],
      },
    ],
    strategy: { name: 'bands', params: {} },
    address: '0xabc',
    venueUrl: 'http://127.0.0.1:1',
  });
  return monitor;
}

describe('daemon monitor: marks of a resolved market', () => {
  it('open: the mids; resolved: 1 for the winner, 0 for the other; no winner seen: the venue marks', () => {
    expect([...monitorWith(undefined, new Map()).marks()]).toEqual([
      [YES, 4100],
      [NO, 4100],
    ]);
    expect(Object.fromEntries(monitorWith(NO, new Map()).marks())).toEqual({ [YES]: 0, [NO]: 10_000 });
    expect(Object.fromEntries(monitorWith(null, new Map([[YES, 9_990]])).marks())).toEqual({ [YES]: 9_990 });
  });
});
