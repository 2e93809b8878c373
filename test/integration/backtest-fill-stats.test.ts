/**
 * The fill figures measured online by the runner (src/backtest/fill-stats.ts) against the figures
 * computed the old way, from the complete fill list (metrics.ts `fillStatsOf`), on real backtests
 * with enough fills (the shipped sample feed with tight bands: ~1,000 fills, markouts at every
 * horizon, time at the inventory limit; and a synthetic world), plus the bounded parts of the
 * result: the last `maxFillRows` rows, the downsampled fill points, and the store holding them all.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeMetrics, fillStatsOf } from '../../src/backtest/metrics.ts';
import { formatSummary } from '../../src/backtest/report.ts';
import { renderHtmlReport } from '../../src/backtest/report-html.ts';
import { runBacktest, type BacktestOptions, type BacktestResult } from '../../src/backtest/runner.ts';
import { openStore } from '../../src/store/store.ts';

const SAMPLE = new URL('../fixtures/sample-feed.ndjson.gz', import.meta.url).pathname;
const feedOpts: BacktestOptions = {
  feeds: [SAMPLE],
  strategy: 'bands',
  params: { margin: 0.005, marginStep: 0.005, amount: 20, maxPosition: 30 },
  risk: { maxRejections: 100_000 },
};

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mmkit-bt-fillstats-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The fill figures the old way: from the complete list of the result's fill rows. */
function oldWay(r: BacktestResult) {
  const tokens = r.markets.flatMap((m) => m.tokens.map((t) => t.tokenId));
  const own = r.inventoryLimit.markets ?? {};
  const tokenLimits = new Map(
    r.markets.flatMap((m) => {
      const l = own[m.market];
      return l === undefined ? [] : m.tokens.map((t): [string, number] => [t.tokenId, l.size]);
    }),
  );
  return fillStatsOf(r.fills, r.inventoryLimit.size, r.startMs, r.endMs, tokens, undefined, tokenLimits);
}

/** The result without what depends on how many fill rows and points it keeps. */
function rest(r: BacktestResult): string {
  const { fills: _f, fillPoints: _p, ...x } = r;
  return JSON.stringify(x);
}

describe.skipIf(!existsSync(SAMPLE))('backtest fill figures: online = from the full list (sample feed)', () => {
  let full: BacktestResult;
  let file: string;

  it('equal, exactly, on a run with ~1,000 fills, markouts and time at the inventory limit', async () => {
    file = join(dir, 'sample.db');
    full = await runBacktest({ ...feedOpts, storePath: file });
    expect(full.fillCount).toBeGreaterThan(500);
    expect(full.fills).toHaveLength(full.fillCount); // under the default maxFillRows: all rows kept
    const old = oldWay(full);
    expect(full.fillStats).toEqual(old);
    expect(JSON.stringify(full.fillStats)).toBe(JSON.stringify(old)); // to the last bit, key order too
    // the run exercises every figure
    for (const m of old.markouts) expect(m.fills).toBeGreaterThan(0);
    expect(old.makerFills).toBeGreaterThan(0);
    expect(old.inventory.some((x) => x.atLimitMs > 0)).toBe(true);
    // the metrics (and so the summary, the report, a sweep's row) read the online figures
    const m = computeMetrics(full);
    expect(m.fills).toBe(full.fills.length);
    expect(m.markouts).toEqual(old.markouts);
    expect(m.inventory.tokens).toEqual(old.inventory);
    // every chart point is a fill: all of them while under maxSamples
    expect(full.fillPoints.stride).toBe(1);
    expect(full.fillPoints.t).toEqual(full.fills.map((f) => f.t));
    // the store has every fill, once
    const store = openStore(file);
    try {
      expect(store.fills().length).toBe(full.fillCount);
    } finally {
      store.close();
    }
  }, 120_000);

  it('keeps only the last maxFillRows rows; the figures, the summary and the charts stay those of all the fills', async () => {
    const r = await runBacktest({ ...feedOpts, maxFillRows: 50 });
    expect(r.fillCount).toBe(full.fillCount);
    expect(r.fills).toEqual(full.fills.slice(-50));
    expect(rest(r)).toBe(rest(full)); // figures, samples, everything else
    expect(r.fillPoints).toEqual(full.fillPoints); // under maxSamples: every fill
    expect(computeMetrics(r)).toEqual(computeMetrics(full));
    expect(formatSummary(r, computeMetrics(r))).toBe(formatSummary(full, computeMetrics(full)));
    // the report: the same charts (drawn from the points, which hold every fill); the table says what it holds
    const charts = (html: string): string =>
      html.slice(html.indexOf('<h2>Charts</h2>'), html.indexOf('<h2>Last fills</h2>'));
    const html = renderHtmlReport(r, computeMetrics(r));
    expect(charts(html)).toBe(charts(renderHtmlReport(full, computeMetrics(full))));
    expect(html).toContain(`The last 50 of ${r.fillCount} fills`);
  }, 120_000);

  it('maxFillRows 0 keeps no row; fill points are downsampled like the samples', async () => {
    const r = await runBacktest({ ...feedOpts, maxFillRows: 0, maxSamples: 64 });
    expect(r.fills).toEqual([]);
    expect(r.fillStats).toEqual(full.fillStats);
    // points: one fill in `stride`, the 1st, (stride+1)th, ... of the run, fewer than maxSamples
    const p = r.fillPoints;
    expect(p.stride).toBeGreaterThan(1);
    expect(p.t.length).toBeLessThan(64);
    const every = full.fills.filter((_, i) => i % p.stride === 0);
    expect(p.t).toEqual(every.map((f) => f.t));
    expect(p.tokenId).toEqual(every.map((f) => f.tokenId));
    expect(p.side).toEqual(every.map((f) => f.side));
    expect(p.price).toEqual(every.map((f) => f.price));
    expect(p.size).toEqual(every.map((f) => f.size));
    const html = renderHtmlReport(r, computeMetrics(r));
    expect(html).toContain(`${r.fillCount} fills, 1 in ${p.stride} drawn`);
    expect(html).toContain(`No fill row kept (maxFillRows 0); all ${r.fillCount} fills are in the run's store.`);
  }, 120_000);
});

describe.skipIf(!existsSync(SAMPLE))('backtest: the inventory limit that binds (findings-3 F4)', () => {
  it('a tighter risk maxPositionShares is the limit: summary, --json inventoryLimit, metrics and report', async () => {
    // the strategy allows 30 shares, the risk gate 20: positions stop at 20, so 20 is the limit
    const r = await runBacktest({ ...feedOpts, risk: { maxRejections: 100_000, maxPositionShares: 20 } });
    expect(r.inventoryLimit).toEqual({ size: 20_000_000, source: 'risk.maxPositionShares' });
    const m = computeMetrics(r);
    expect(m.inventory.limit).toBe(20_000_000);
    expect(m.inventory.tokens.some((x) => x.maxAbs === 20_000_000 && x.atLimitMs > 0)).toBe(true);
    expect(m.inventory.maxFraction).toBeGreaterThan(0);
    expect(JSON.stringify(r.fillStats)).toBe(JSON.stringify(oldWay(r)));
    const line = formatSummary(r, m)
      .split('\n')
      .find((l) => l.includes('at inv. limit'));
    expect(line).toMatch(
      / [1-9][0-9.]* % of the time, for the token longest there \(limit 20 shares, risk\.maxPositionShares\)$/,
    );
    expect(renderHtmlReport(r, m)).toContain('(limit 20 shares, risk.maxPositionShares)');
    // a looser risk limit leaves the strategy's, as before
    const loose = await runBacktest({ ...feedOpts, risk: { maxRejections: 100_000, maxPositionShares: 50 } });
    expect(loose.inventoryLimit).toEqual({ size: 30_000_000, source: 'strategy.maxPosition' });
  }, 120_000);

  it('per market: a market whose own risk limit is tighter counts against it, the others against the default', async () => {
    const first = (await runBacktest({ ...feedOpts, maxFillRows: 0 })).markets[0]!;
    const r = await runBacktest({
      ...feedOpts,
      risk: { maxRejections: 100_000, markets: { [first.market]: { maxPositionShares: 10 } } },
    });
    expect(r.inventoryLimit).toEqual({
      size: 30_000_000,
      source: 'strategy.maxPosition',
      markets: { [first.market]: { size: 10_000_000, source: 'risk.markets' } },
    });
    const m = computeMetrics(r);
    expect(m.inventory.markets).toEqual({ [first.market]: { limit: 10_000_000, source: 'risk.markets' } });
    const mine = new Set(first.tokens.map((t) => t.tokenId));
    const own = m.inventory.tokens.filter((x) => mine.has(x.tokenId));
    expect(own.every((x) => x.maxAbs <= 10_000_000)).toBe(true);
    expect(own.some((x) => x.maxAbs === 10_000_000 && x.atLimitMs > 0)).toBe(true);
    expect(JSON.stringify(r.fillStats)).toBe(JSON.stringify(oldWay(r)));
    expect(formatSummary(r, m)).toMatch(
      /\(limit 30 shares, strategy\.maxPosition; 10 shares for "[^"]+" \(risk\.markets\)\)/,
    );
  }, 120_000);
});

describe('backtest: maxFillRows', () => {
  it('refuses a negative or fractional count, naming the option', async () => {
    for (const bad of [-1, 1.5, Infinity])
      await expect(runBacktest({ ...feedOpts, maxFillRows: bad })).rejects.toThrow(/maxFillRows/);
  });
});

describe('backtest fill figures: online = from the full list (synthetic world)', () => {
  it('equal, exactly', async () => {
    const r = await runBacktest({
      world: { seed: 3, durationMs: 10 * 60_000, warmupMs: 30_000, marketCount: 2 },
      strategy: 'bands',
      params: { margin: 0.01, marginStep: 0.01, amount: 10, maxPosition: 20 },
      seed: 7,
    });
    expect(r.fillCount).toBeGreaterThan(0);
    expect(r.fills).toHaveLength(r.fillCount);
    expect(JSON.stringify(r.fillStats)).toBe(JSON.stringify(oldWay(r)));
  }, 120_000);
});
