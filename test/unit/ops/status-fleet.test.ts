/** The status snapshot's fleet section: absent for a lone daemon, what `setFleet` gives in a fleet. */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.ts';
import { Metrics } from '../../../src/ops/metrics.ts';
import { DaemonMonitor, type FleetStatusSection } from '../../../src/ops/status.ts';
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

  it('has a Fleet card on the page, hidden until a fleet section comes', () => {
    expect(STATUS_PAGE_HTML).toMatch(/<section class="wide" id="fleet-card" hidden>/);
    expect(STATUS_PAGE_HTML).toContain("$('fleet-card').hidden = !F;");
  });
});
