/**
 * The exit summary's session start is the store's session start, the one /api/status shows as
 * `ledger.session.since` (user trial 2, finding 10: they differed by the daemon's start-up time).
 */
import { describe, expect, it } from 'vitest';
import { exitSummary } from '../../../src/cli/run-summary.ts';
import type { FlatReport } from '../../../src/execution/executor.ts';
import type { StoreSummary } from '../../../src/store/store-types.ts';

const figures = (o: Partial<StoreSummary>): StoreSummary => ({
  scope: 'session',
  epoch: 1,
  session: 1,
  since: null,
  ordersRecorded: 0,
  ordersPlaced: 0,
  ordersCancelled: 0,
  ordersRejected: 0,
  ordersOpen: 0,
  fills: 0,
  voidFills: 0,
  volume: 0,
  notional: 0,
  fees: 0,
  externalFills: 0,
  externalVolume: 0,
  externalNotional: 0,
  externalFees: 0,
  adjustments: 0,
  operations: 0,
  rewardsPaid: 0,
  rewardsEstimated: 0,
  ...o,
});
const flat: FlatReport = { flat: true, open: [], queries: 1, elapsedMs: 0, inFlight: 0 } as unknown as FlatReport;

describe('exit summary session start', () => {
  it("is the store's session start (as /api/status), not the later run start", () => {
    const sessionStart = Date.parse('2026-11-27T15:02:38.817Z');
    const s = exitSummary({
      session: figures({ since: sessionStart }),
      epochFigures: figures({ scope: 'epoch', session: null, since: 0 }),
      epoch: { id: 1, venue: 'paper', world: null, address: '', startedAt: 0 },
      pnl: { realized: 0, unrealized: 0, fees: 0, total: 0, unmarked: [], byToken: [] },
      realizedAtStart: 0,
      runStartMs: Date.parse('2026-11-27T15:02:38.981Z'),
      positionsAtExit: [],
      flat,
      reason: 'duration',
      stop: { kind: 'duration' },
    });
    expect(s.session.since).toBe('2026-11-27T15:02:38.817Z');
  });
});
