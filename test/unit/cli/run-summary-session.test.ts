/**
 * The exit summary's session start is the store's session start, the one /api/status shows as
 * `ledger.session.since` (user trial 2, finding 10: they differed by the daemon's start-up time).
 */
import { describe, expect, it } from 'vitest';
import { describeCounts, describeStrategyErrors, exitSummary, intentFigures } from '../../../src/cli/run-summary.ts';
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
    // no intent figures given: none
    expect(s).toMatchObject({ strategyErrors: 0, firstStrategyError: null, riskRefusals: {}, riskTrims: {} });
  });
});

describe("exit summary: the strategy's errors and the gate's refusals (user trial 4, F9)", () => {
  it('carries the engine error count, the first error and the refusals and trims by code', () => {
    const intents = intentFigures(
      {
        stats: () => ({
          errors: { state: 0, strategy: 6, gate: 0, execute: 0, onFill: 0, source: 0, balance: 0, listing: 0 },
          firstStrategyError: { message: 'boom in onEvent', at: '/x/bad.ts:15:44' },
        }),
      },
      // (an immediate order refused OFF_TICK adds to the quotes' OFF_TICK)
      {
        quotesRefused: { PRICE_BAND: 2, OFF_TICK: 29 },
        quotesTrimmed: { LOT: 1 },
        ordersRefusedByCode: { OFF_TICK: 1 },
      },
    );
    expect(intents).toEqual({
      strategyErrors: 6,
      firstStrategyError: { message: 'boom in onEvent', at: '/x/bad.ts:15:44' },
      riskRefusals: { OFF_TICK: 30, PRICE_BAND: 2 },
      riskTrims: { LOT: 1 },
    });
    // largest first, as printed
    expect(Object.keys(intents.riskRefusals)).toEqual(['OFF_TICK', 'PRICE_BAND']);
    const s = exitSummary({
      session: figures({}),
      epochFigures: figures({ scope: 'epoch', session: null, since: 0 }),
      epoch: { id: 1, venue: 'paper', world: null, address: '', startedAt: 0 },
      pnl: { realized: 0, unrealized: 0, fees: 0, total: 0, unmarked: [], byToken: [] },
      realizedAtStart: 0,
      runStartMs: 0,
      positionsAtExit: [],
      flat,
      reason: 'duration',
      stop: { kind: 'duration' },
      intents,
    });
    expect(s).toMatchObject(intents);
    expect(describeCounts(s.riskRefusals)).toBe('OFF_TICK 30, PRICE_BAND 2');
    expect(describeCounts({})).toBe('none');
    expect(describeStrategyErrors(s.strategyErrors, s.firstStrategyError)).toBe(
      '6 (first: boom in onEvent at /x/bad.ts:15:44)',
    );
    expect(describeStrategyErrors(0, null)).toBe('0');
    expect(describeStrategyErrors(2, { message: 'x', at: null })).toBe('2 (first: x)');
  });
});
