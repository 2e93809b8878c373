/**
 * The exit summary's session start is the store's session start, the one /api/status shows as
 * `ledger.session.since` (user trial 2, finding 10: they differed by the daemon's start-up time).
 */
import { describe, expect, it } from 'vitest';
import {
  describeCounts,
  describeStrategyErrors,
  epochVenueText,
  exitSummary,
  intentFigures,
  strategyFailedEveryTime,
  strategyFailureLine,
} from '../../../src/cli/run-summary.ts';
import { exitSummaryText } from '../../../src/cli/run-exit-text.ts';
import { timeArg } from '../../../src/cli/backtest-args.ts';
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
      sessionEndMs: Date.parse('2026-11-27T15:05:00.250Z'),
      positionsAtExit: [],
      flat,
      reason: 'duration',
      stop: { kind: 'duration' },
    });
    expect(s.session.since).toBe('2026-11-27T15:02:38.817Z');
    // and its stop: the store's session end (trial 12 F5)
    expect(s.session.until).toBe('2026-11-27T15:05:00.250Z');
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
      // (an engine without strategyCalls counts no evaluation)
      strategyEvaluations: 0,
      riskRefusals: { OFF_TICK: 30, PRICE_BAND: 2 },
      // (of those, the immediate orders apart)
      immediateRefusals: { OFF_TICK: 1 },
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
      sessionEndMs: 0,
      positionsAtExit: [],
      flat,
      reason: 'duration',
      stop: { kind: 'duration' },
      intents,
    });
    expect(s).toMatchObject(intents);
    expect(describeCounts(s.riskRefusals)).toBe('OFF_TICK x30, PRICE_BAND x2');
    expect(describeCounts({})).toBe('none');
    expect(describeStrategyErrors(s.strategyErrors, s.firstStrategyError)).toBe(
      '6 (first: boom in onEvent at /x/bad.ts:15:44)',
    );
    expect(describeStrategyErrors(0, null)).toBe('0');
    expect(describeStrategyErrors(2, { message: 'x', at: null })).toBe('2 (first: x)');
  });
});

describe('exit summary: a strategy that erred on every evaluation (user trial 4, F9)', () => {
  const errors = { state: 0, gate: 0, execute: 0, onFill: 0, source: 0, balance: 0, listing: 0 };
  const counters = { quotesRefused: {}, quotesTrimmed: {}, ordersRefusedByCode: {} };
  const first = { message: 'boom in onEvent', at: '/x/bad.ts:15:44' };

  it('is FAILED when every evaluation erred, not when some did not', () => {
    const every = intentFigures(
      {
        stats: () => ({ errors: { ...errors, strategy: 42 }, firstStrategyError: first }),
        strategyCalls: () => ({ evaluations: 42 }),
      },
      counters,
    );
    expect(every.strategyEvaluations).toBe(42);
    expect(strategyFailedEveryTime(every)).toBe(true);
    expect(strategyFailureLine(every)).toBe(
      'FAILED: the strategy errored on every evaluation (42), first: boom in onEvent at /x/bad.ts:15:44',
    );
    const some = intentFigures(
      {
        stats: () => ({ errors: { ...errors, strategy: 41 }, firstStrategyError: first }),
        strategyCalls: () => ({ evaluations: 42 }),
      },
      counters,
    );
    expect(strategyFailedEveryTime(some)).toBe(false);
    expect(strategyFailureLine(some)).toBeUndefined();
    // no error, no evaluation (a run stopped before its books were whole): no failure
    expect(strategyFailedEveryTime({ strategyErrors: 0, strategyEvaluations: 0 })).toBe(false);
    expect(strategyFailureLine({ strategyErrors: 3, strategyEvaluations: 3, firstStrategyError: null })).toBe(
      'FAILED: the strategy errored on every evaluation (3)',
    );
    // it erred on some evaluations only, and placed no order in the session: failed too (trial 10 F14)
    expect(strategyFailureLine({ ...some, ordersPlaced: 0 })).toBe(
      'FAILED: the strategy threw 41 time(s) and placed no order, first: boom in onEvent at /x/bad.ts:15:44',
    );
    expect(strategyFailureLine({ ...some, ordersPlaced: 3 })).toBeUndefined();
    expect(
      strategyFailureLine({ strategyErrors: 0, strategyEvaluations: 9, firstStrategyError: null, ordersPlaced: 0 }),
    ).toBeUndefined();
  });

  it('carries the handler times only when the engine measured them', () => {
    const timing = { asked: 31, calls: 10, slowestMs: 401, p99Ms: 12 };
    const measured = intentFigures(
      {
        stats: () => ({ errors: { ...errors, strategy: 0 } }),
        strategyCalls: () => ({ evaluations: 10, measured: timing }),
      },
      counters,
    );
    expect(measured.strategyTiming).toEqual(timing);
    const plain = intentFigures(
      { stats: () => ({ errors: { ...errors, strategy: 0 } }), strategyCalls: () => ({ evaluations: 10 }) },
      counters,
    );
    expect(plain).not.toHaveProperty('strategyTiming');
  });
});

describe("exit summary: the epoch's venue as /api/status shows it (review-2 F9)", () => {
  it('has no chain and no credentials or query token of a configured URL', () => {
    const at = (venue: string) =>
      exitSummary({
        session: figures({}),
        epochFigures: figures({ scope: 'epoch', session: null, since: 0 }),
        epoch: { id: 1, venue, world: null, address: '', startedAt: 0 },
        pnl: { realized: 0, unrealized: 0, fees: 0, total: 0, unmarked: [], byToken: [] },
        realizedAtStart: 0,
        runStartMs: 0,
        sessionEndMs: 0,
        positionsAtExit: [],
        flat,
        reason: 'duration',
        stop: { kind: 'duration' },
      }).epoch.venue;
    expect(at('inprocess:http://127.0.0.1:53211/clob#137')).toBe('inprocess:http://127.0.0.1:53211/clob');
    expect(at('https://user:secret@gw.example.com/clob?token=abc#137')).toBe('https://gw.example.com/clob');
    expect(at('shadow:https://u:p@clob.example.com/?k=1#137')).toBe('shadow:https://clob.example.com');
    // a venue that is no URL (a test store's) as it is, without its chain
    expect(at('paper')).toBe('paper');
    expect(epochVenueText('paper#137')).toBe('paper');
  });
});

describe('exit summary text (trial 12 F5, F9)', () => {
  it("gives the session's start and stop as --from/--to take them, its fees beside its realized PnL, and where the total is", () => {
    const s = exitSummary({
      session: figures({ since: Date.parse('2026-11-29T01:39:15.127Z'), fills: 15, fees: 59_490, realized: -526_429 }),
      epochFigures: figures({ scope: 'epoch', session: null, since: 0, fills: 15, fees: 59_490, operations: 1 }),
      epoch: { id: 1, venue: 'paper', world: null, address: '', startedAt: 0 },
      pnl: { realized: -1_005_715, unrealized: -116_795, fees: 59_490, total: -1_182_000, unmarked: [], byToken: [] },
      realizedAtStart: 0,
      runStartMs: Date.parse('2026-11-29T01:39:15.200Z'),
      sessionEndMs: Date.parse('2026-11-29T01:42:35.246Z'),
      positionsAtExit: [],
      flat,
      reason: 'duration',
      stop: { kind: 'duration' },
    });
    const text = exitSummaryText(s);
    expect(text).toContain('this session (since 2026-11-29T01:39:15.127Z until 2026-11-29T01:42:35.246Z):\n');
    expect(text).toMatch(
      /\n {2}realized PnL {6}-0\.526429 USDC \(of its fills, before fees\)\n {2}fees {14}0\.05949 USDC\n/,
    );
    expect(text).toContain('the total PnL of the ledger epoch below');
    expect(text).toContain('  total PnL         -1.182 USDC');
    // the day's PnL only with the daily loss limit on
    expect(text).not.toContain('  today ');
    expect(exitSummaryText({ ...s, dayPnl: { date: '2026-11-29', pnl: '-0.4' } })).toContain(
      "\n  today             -0.4 USDC (UTC 2026-11-29: the daily loss limit's PnL, net of fees)\n",
    );
    // the stop is a time --to takes
    expect(timeArg('--to')(s.session.until)).toBe(Date.parse('2026-11-29T01:42:35.246Z'));
    // a shadow run's banner first
    expect(exitSummaryText(s, 'SHADOW').startsWith('SHADOW\nmmkit run stopped (duration)\n')).toBe(true);
  });
});
