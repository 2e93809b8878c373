/**
 * The status snapshot's fleet section: absent for a lone daemon, what `setFleet` gives in a fleet;
 * a fleet market another member holds is shown `[held by <member>]`, not quoting.
 */
import { describe, expect, it } from 'vitest';
import { formatStatus } from '../../../src/cli/status.ts';
import { VirtualClock } from '../../../src/core/clock.ts';
import type { TokenId } from '../../../src/core/ids.ts';
import { Metrics } from '../../../src/ops/metrics.ts';
import { DaemonMonitor, type DaemonView, type FleetStatusSection } from '../../../src/ops/status.ts';
import { fleetStatusSection } from '../../../src/ops/status-fleet.ts';
import { STATUS_PAGE_HTML } from '../../../src/ops/status-page.ts';

function monitor() {
  const clock = new VirtualClock(1_700_000_000_000);
  return new DaemonMonitor({
    clock,
    metrics: new Metrics({ now: () => clock.now(), defaultMetrics: false }),
    feedStaleMs: 5000,
  });
}

describe('the fleet section of the status', () => {
  it('is absent for a lone daemon', () => {
    expect('fleet' in monitor().sample()).toBe(false);
  });

  it('is the fleet view of a member, read at each snapshot', () => {
    const m = monitor();
    let f: FleetStatusSection | undefined;
    m.setFleet(() => f);
    expect('fleet' in m.sample()).toBe(false); // not read yet
    f = {
      member: 'a',
      members: [{ member: 'a', markets: 2, openOrders: 4, pnl: '-0.5', heartbeat: true }],
      totalPnl: '-0.5',
      heartbeat: 'a',
      kill: null,
    };
    expect(m.sample().fleet).toEqual(f);
  });

  it('marks a market another member holds as held by it, not quoting; its own as quoting', () => {
    const [mine, theirs] = ['0x' + '1'.repeat(64), '0x' + '2'.repeat(64)];
    const m = monitor();
    const view: DaemonView = {
      book: () => ({ bestBid: 4500, bestAsk: 4700, stale: false }),
      // the engine does not know the fleet: both look quotable to it
      whyNotQuotable: () => undefined,
      isRetired: () => false,
      liveOrders: () => [],
      positions: () => [],
      pnl: () => ({ realized: 0, unrealized: 0, fees: 0, total: 0, unmarked: [] }),
      collateral: () => ({ available: 1, reserved: 0 }),
      heartbeat: () => ({ ok: true, consecutiveFailures: 0, lastLatencyMs: 1, lastAttemptAt: 0, failed: 0 }),
      killSwitch: () => ({ tripped: false }),
      totals: () => ({ ordersPlaced: 0, ordersCancelled: 0, ordersRejected: 0, fills: 0, volume: 0, notional: 0 }),
      pauseReasons: () => [],
    };
    const tokens = (t: string) => [{ tokenId: t as TokenId, outcome: 'Yes' }];
    m.attach(view, {
      markets: [
        { market: mine, question: 'Mine?', tokens: tokens('11') },
        { market: theirs, question: 'Theirs?', tokens: tokens('22') },
      ],
      strategy: { name: 'bands', params: {} },
      address: '0xabc',
      venueUrl: 'http://127.0.0.1:1',
    });
    const rec = (member: string, markets: string[]) => ({ member, markets, openOrders: 0, pnl: { total: '0' } });
    const section = fleetStatusSection('b', {
      members: ['b', 'c'],
      records: [rec('b', [mine]), rec('c', [theirs])],
      total: { total: '0' },
      heartbeat: { holder: 'b' },
      kill: null,
    });
    expect(section.holders).toEqual({ [mine]: 'b', [theirs]: 'c' });
    m.setFleet(() => section);
    const s = m.sample();
    expect(s.markets.map((x) => [x.quotable, x.why, x.heldBy])).toEqual([
      [true, null, undefined],
      [false, 'held by c', 'c'],
    ]);
    const text = formatStatus(s, 'http://127.0.0.1:1');
    expect(text).toContain(`Mine?  [quoting]  ${mine}`);
    expect(text).toContain(`Theirs?  [held by c]  ${theirs}`);
  });

  it('has a Fleet card on the page, hidden until a fleet section comes', () => {
    expect(STATUS_PAGE_HTML).toMatch(/<section class="wide" id="fleet-card" hidden>/);
    expect(STATUS_PAGE_HTML).toContain("$('fleet-card').hidden = !F;");
  });
});
