/**
 * The pure parts of sweeps (src/backtest/sweep.ts): the grid's points, the ranking, the table.
 * (Sweeps running in worker threads are covered by test/e2e/cli-backtest.test.ts.)
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  formatSweepTable,
  gridPoints,
  rankNote,
  rankRows,
  conditionsLines,
  sweepConditions,
  sweepTasks,
  troubleNotes,
  type SweepRow,
} from '../../../src/backtest/sweep.ts';
import { usd } from '../../../src/backtest/report.ts';

const row = (index: number, pnl: number, o: Partial<SweepRow> = {}): SweepRow => ({
  index,
  point: { margin: index },
  pnl,
  realized: pnl,
  unrealized: 0,
  fees: 0,
  sharpe: null,
  maxDrawdown: 0,
  fills: 0,
  ordersPlaced: 0,
  fillRatio: null,
  markout10s: null,
  atLimit: 0,
  stopReason: 'end of feed',
  strategyErrors: 0,
  ...o,
});

describe('sweep grid and ranking', () => {
  it('the grid is the cartesian product, the last key varying fastest', () => {
    expect(gridPoints({ a: [1, 2], b: ['x', 'y', 'z'] })).toEqual([
      { a: 1, b: 'x' },
      { a: 1, b: 'y' },
      { a: 1, b: 'z' },
      { a: 2, b: 'x' },
      { a: 2, b: 'y' },
      { a: 2, b: 'z' },
    ]);
    expect(gridPoints({ t: [true] })).toEqual([{ t: true }]);
    expect(() => gridPoints({})).toThrow(/no parameter/);
    expect(() => gridPoints({ a: [] })).toThrow(/sweep\.grid\.a.*non-empty/);
    expect(() => gridPoints({ a: [{}] as never })).toThrow(/sweep\.grid\.a/);
  });

  it('ranks best first by the key, ties in grid order, failed points last', () => {
    const rows = [row(0, 5), row(1, 9), row(2, 9), row(3, 0, { error: 'boom' }), row(4, -1)];
    expect(rankRows(rows, 'pnl').map((r) => r.index)).toEqual([1, 2, 0, 4, 3]);
    const sharpe = [row(0, 0, { sharpe: 1 }), row(1, 0, { sharpe: null }), row(2, 0, { sharpe: 3 })];
    expect(rankRows(sharpe, 'sharpe').map((r) => r.index)).toEqual([2, 0, 1]);
    const dd = [row(0, 0, { maxDrawdown: 5 }), row(1, 0, { maxDrawdown: 1 })];
    expect(rankRows(dd, 'drawdown').map((r) => r.index)).toEqual([1, 0]);
    const fills = [row(0, 0, { fills: 1 }), row(1, 0, { fills: 7 })];
    expect(rankRows(fills, 'fills').map((r) => r.index)).toEqual([1, 0]);
  });

  it('says on stderr when Sharpe is n/a: on every point the rows are in grid order (findings-3 F5)', () => {
    const of = (rankBy: 'sharpe' | 'pnl', rows: SweepRow[]) =>
      rankNote({ strategy: 'bands', grid: { margin: [0, 1, 2] }, rankBy, points: rows.length, rows });
    const none = [row(0, 5), row(1, 9), row(2, 0, { error: 'boom' })];
    expect(rankRows(none, 'sharpe').map((r) => r.index)).toEqual([0, 1, 2]);
    expect(of('sharpe', none)).toBe(
      'Sharpe is n/a on every point (it needs 10 hourly PnL changes, a run of 10 hours or more): the rows are in ' +
        'grid order, not ranked; rank by another key (--rank pnl|drawdown|...) or run longer',
    );
    const some = [row(0, 5, { sharpe: 1 }), row(1, 9), row(2, 0)];
    expect(of('sharpe', some)).toBe(
      'Sharpe is n/a on 2 of 3 points (it needs 10 hourly PnL changes, a run of 10 hours or more): those are ranked ' +
        'last, in grid order',
    );
    expect(of('sharpe', [row(0, 5, { sharpe: 1 })])).toBeUndefined();
    expect(of('pnl', none)).toBeUndefined();
  });

  it('prints the ranked table', () => {
    const t = formatSweepTable({
      strategy: 'bands',
      grid: { margin: [0, 1] },
      rankBy: 'pnl',
      points: 2,
      rows: [
        row(1, 2_500_000, { sharpe: 1.5, fills: 3, ordersPlaced: 6, fillRatio: 0.5 }),
        row(0, 0, { error: 'bad' }),
      ],
    });
    const lines = t.trim().split('\n');
    expect(lines[0]).toBe('sweep of bands: 2 points, ranked by pnl (money in USDC)');
    expect(lines[1]).toMatch(
      /^#\s+margin\s+PnL\s+realized\s+fees\s+Sharpe\s+maxDD\s+fills\s+orders\s+fill%\s+mk\+10s\s+atLim%$/,
    );
    expect(lines[2]).toMatch(/^1\s+1\s+\+2\.50\s+\+2\.50\s+0\s+1\.50\s+0\.00\s+3\s+6\s+50\.0\s+n\/a\s+0\.0$/);
    expect(lines[3]).toBe('2  0  error: bad');
  });

  it('a point whose strategy threw or placed no order ranks after every clean one, with its errors shown (findings-4 F18)', () => {
    const rows = [
      row(0, 14_350_000, { fills: 115, ordersPlaced: 1001 }),
      row(1, 0, {
        strategyErrors: 1801,
        firstStrategyError: { message: 'boom in onEvent', at: '/tmp/bad.ts:15:44' },
        failed: 'the strategy threw 1801 time(s) and placed no order (first: boom in onEvent at /tmp/bad.ts:15:44)',
      }),
      row(2, 0, {
        quotesRefused: { OFF_TICK: 21_600 },
        failed: 'the strategy placed no order: the risk gate refused everything it asked for (quotes: OFF_TICK x21600)',
      }),
      row(3, -2_000_000, { ordersPlaced: 40, quotesRefused: { PRICE_LIMIT: 5 } }), // refusals alone: clean
      row(4, 9_000_000, { strategyErrors: 3, ordersPlaced: 50 }), // threw sometimes: not clean
      row(5, 0, { error: 'bad' }),
    ];
    const ranked = rankRows(rows, 'pnl');
    expect(ranked.map((r) => r.index)).toEqual([0, 3, 4, 1, 2, 5]);
    const s = {
      strategy: 'bad',
      grid: { margin: [0, 1, 2, 3, 4, 5] },
      rankBy: 'pnl' as const,
      points: 6,
      rows: ranked,
    };
    expect(troubleNotes(s)).toEqual([
      'point margin=4: the strategy erred 3 time(s) (threw or returned an invalid output); ranked after the clean points',
      'point margin=1: FAILED: the strategy threw 1801 time(s) and placed no order (first: boom in onEvent at ' +
        '/tmp/bad.ts:15:44); ranked after the clean points',
      'point margin=2: FAILED: the strategy placed no order: the risk gate refused everything it asked for (quotes: ' +
        'OFF_TICK x21600); ranked after the clean points',
    ]);
    const lines = formatSweepTable(s).trim().split('\n');
    expect(lines[1]).toMatch(/\s+atLim%\s+errors\s+refused$/);
    expect(lines[2]).toMatch(/\s0\s+0$/);
    expect(lines[3]).toMatch(/\s0\s+5$/);
    expect(lines[4]).toMatch(/\s3\s+0$/);
    expect(lines[5]).toMatch(/\s1801\s+0$/);
    expect(lines[6]).toMatch(/\s0\s+21600$/);
    // every point clean: no note, no such columns
    const clean = { ...s, rows: [rows[0]!, rows[3]!] };
    expect(troubleNotes(clean)).toEqual([]);
    expect(formatSweepTable(clean)).not.toContain('errors');
  });

  it('rewards: ranks by rewards or PnL + rewards, and the table shows them only when a point earned them', () => {
    const rows = [
      row(0, 3_000_000),
      row(1, 1_000_000, { rewards: 2_500_000 }),
      row(2, 2_000_000, { rewards: 500_000 }),
    ];
    expect(rankRows(rows, 'pnl').map((r) => r.index)).toEqual([0, 2, 1]);
    expect(rankRows(rows, 'rewards').map((r) => r.index)).toEqual([1, 2, 0]);
    expect(rankRows(rows, 'total').map((r) => r.index)).toEqual([1, 0, 2]);
    const t = formatSweepTable({ strategy: 'rewards', grid: { margin: [0, 1, 2] }, rankBy: 'total', points: 3, rows });
    const lines = t.trim().split('\n');
    expect(lines[1]).toMatch(/^#\s+margin\s+PnL\s+rewards\s+PnL\+rw\s+realized\s+fees\s/);
    expect(lines[3]).toMatch(/^2\s+1\s+\+1\.00\s+\+2\.50\s+\+3\.50\s+\+1\.00\s+0\s/);
    expect(lines[2]).toMatch(/^1\s+0\s+\+3\.00\s+\+0\.00\s+\+3\.00\s+\+3\.00\s/);
  });

  it('gives money as the backtest summary does: PnL to the cent, signed, rounded on integers; fees exact', () => {
    const t = formatSweepTable({
      strategy: 'bands',
      grid: { margin: [0] },
      rankBy: 'pnl',
      points: 1,
      rows: [row(0, 825_000, { fees: 6_720 })],
    });
    const line = t.trim().split('\n')[2]!;
    // 825000 micro is 0.825: the summary's +0.83 (a float's toFixed gave 0.82)
    expect(usd(825_000, true)).toBe('+0.83');
    expect(line).toMatch(/^1\s+0\s+\+0\.83\s+\+0\.83\s+0\.00672\s/);
  });

  it('marks a point the kill switch stopped (KILL, stopped column) and gives it a note (trial: kill switch)', () => {
    const rows = [
      row(0, 1_000_000),
      row(1, -3_000_000, { stopReason: 'kill switch: LOSS_LIMIT (pnl -3.00 below -2.00)' }),
    ];
    const s = { strategy: 'bands', grid: { margin: [0, 1] }, rankBy: 'pnl' as const, points: 2, rows };
    const lines = formatSweepTable(s).trim().split('\n');
    expect(lines[1]).toMatch(/\s+atLim%\s+stopped$/);
    expect(lines[2]).toMatch(/\s-$/);
    expect(lines[3]).toMatch(/\sKILL$/);
    expect(troubleNotes(s)).toEqual([
      'point margin=1: STOPPED by the kill switch: LOSS_LIMIT (pnl -3.00 below -2.00); its figures cover the run up to the stop',
    ]);
    // no column when no point was stopped so
    expect(formatSweepTable({ ...s, rows: [row(0, 1)] })).not.toContain('stopped');
  });

  it('records what every point ran under: fixed params, seed, queue, latency, fee protocol, post-only, risk limits, feed', () => {
    const c = sweepConditions(
      {
        feeds: ['a.ndjson.gz'],
        strategy: 'bands',
        params: { amount: 5 },
        seed: 7,
        latencyMs: 20,
        postOnly: true,
        risk: { maxPositionShares: 50 },
      },
      [row(0, 1, { feeProtocol: 2 })],
    );
    expect(c).toMatchObject({
      source: { feeds: [resolve('a.ndjson.gz')] },
      params: { amount: 5 },
      seed: 7,
      queue: 'risk-averse',
      latencyMs: 20,
      feeProtocol: 2,
      postOnly: true,
      risk: { maxPositionShares: 50, maxOrderSizeShares: 100, maxLoss: 100 },
    });
    const lines = formatSweepTable({
      strategy: 'bands',
      grid: { margin: [0] },
      rankBy: 'pnl',
      points: 1,
      conditions: c,
      rows: [row(0, 1)],
    }).split('\n');
    expect(lines[1]).toBe(
      `feed ${resolve('a.ndjson.gz')}, queue risk-averse, seed 7, latency 20 ms, fee protocol 2, post-only on, risk limits maxPositionShares 50`,
    );
    expect(lines[2]).toBe('fixed params: {"amount":5}');
  });

  it('gives the fixed params as the strategy reads them: `--param excludeOwnOrders=false` is the boolean (trial 23 F9)', async () => {
    const { fixedParams, tasks } = await sweepTasks({
      base: { feeds: ['a.ndjson.gz'], strategy: 'bands', params: { excludeOwnOrders: 'false', maxPosition: '50' } },
      grid: { margin: [0.01, 0.02] },
    });
    expect(fixedParams).toEqual({ excludeOwnOrders: false, maxPosition: 50 });
    expect(tasks).toHaveLength(2);
    const c = sweepConditions({ feeds: ['a.ndjson.gz'], strategy: 'bands' }, [row(0, 1)], fixedParams);
    expect(conditionsLines(c)[1]).toBe('fixed params: {"excludeOwnOrders":false,"maxPosition":50}');
  });
});
