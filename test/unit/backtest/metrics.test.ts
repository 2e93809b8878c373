/**
 * The backtest figures (src/backtest/metrics.ts) on a hand-built result: every number below is
 * computed by hand from the fills and samples given.
 */
import { describe, expect, it } from 'vitest';
import { computeMetrics, inventoryTimeOf, markoutsOf, maxDrawdownOf, sharpeOf } from '../../../src/backtest/metrics.ts';
import { sampleResult } from './fixtures.ts';

const T0 = 1_767_225_600_000;

describe('backtest metrics', () => {
  it('fills, volume, notional, fees, PnL', () => {
    const m = computeMetrics(sampleResult());
    expect(m.fills).toBe(4);
    expect(m.makerFills).toBe(3);
    expect(m.takerFills).toBe(1);
    expect(m.volume).toBe(65_000_000); // 10 + 30 + 20 + 5 shares
    // 10 × 0.50 + 30 × 0.60 + 20 × 0.40 + 5 × 0.50 = 5 + 18 + 8 + 2.5 = 33.5 USDC
    expect(m.notional).toBe(33_500_000);
    expect(m.fees).toBe(12_345);
    expect(m.realized).toBe(3_000_000);
    expect(m.unrealized).toBe(-1_000_000);
    expect(m.pnl).toBe(1_987_655);
    expect(m.durationMs).toBe(5000);
  });

  it('markouts: size-weighted, signed for the side, in price units; unknown later mids are left out', () => {
    const m = markoutsOf(sampleResult().fills, [1000, 10_000, 60_000]);
    // +1 s: (10×(+0.02) + 30×(+0.02) + 20×(+0.01) + 5×0) / 65 = (0.2 + 0.6 + 0.2) / 65 = 1/65
    expect(m[0]).toEqual({ horizonMs: 1000, fills: 4, avg: Math.round((1 / 65) * 1e6) / 1e6 });
    // +10 s: (10×(-0.01) + 30×(-0.01)) / 40 = -0.01
    expect(m[1]).toEqual({ horizonMs: 10_000, fills: 2, avg: -0.01 });
    // +60 s: only the first fill: +0.05
    expect(m[2]).toEqual({ horizonMs: 60_000, fills: 1, avg: 0.05 });
    expect(markoutsOf([], [1000])).toEqual([{ horizonMs: 1000, fills: 0, avg: null }]);
  });

  it('Sharpe of the hourly PnL changes for a run under ten days, with the count of changes', () => {
    const H = 3_600_000;
    // 10 h of samples every 30 min; the PnL at each hour's end: 0, 10, 4, 12, 6, 14, 8, 16, 10, 18,
    // 12 (the half hours between do not count) → changes 10, then -6, 8 four times, then -6: mean
    // 1.2; deviations 8.8, then -7.2, 6.8 four times, then -7.2; sum of squares 77.44 + 4 × 46.24 +
    // 5 × 51.84 = 521.6; sd = sqrt(521.6 / 9); 8766 hours a year
    const hourly = [0, 10, 4, 12, 6, 14, 8, 16, 10, 18, 12];
    const t: number[] = [];
    const v: number[] = [];
    for (let k = 0; k < hourly.length; k++) {
      t.push(T0 + k * H);
      v.push(hourly[k]!);
      if (k + 1 < hourly.length) t.push(T0 + k * H + H / 2), v.push(1000 * (k + 1)); // noise within the hour
    }
    const s = sharpeOf(t, v, T0, T0 + 10 * H);
    expect(s).toEqual({
      value: Math.round((1.2 / Math.sqrt(521.6 / 9)) * Math.sqrt(8766) * 1e6) / 1e6,
      period: 'hour',
      periodMs: H,
      periods: 10,
      periodsPerYear: 8766,
    });
    // the run ends a little before its tenth hour (under 1 %): that hour counts, with the last sample
    expect(sharpeOf(t, v, T0, T0 + 10 * H - 20_000).value).toBe(s.value);
    // a partial last hour does not count, and 9 changes are too few for a figure (trial 21 F8: a
    // 2-hour run printed 752.06 from two changes)
    expect(sharpeOf(t, v, T0, T0 + 9.5 * H)).toMatchObject({ periods: 9, value: null });
  });

  it('Sharpe of daily changes from ten days on; n/a under ten changes or without variation', () => {
    const D = 86_400_000;
    const daily = [0, 5, 3, 9, 7, 13, 11, 17, 15, 21, 19];
    const s = sharpeOf(
      daily.map((_, k) => T0 + k * D),
      daily,
      T0,
      T0 + 10 * D,
    );
    // changes 5, then 6, -2 four times... : 5, -2, 6, -2, 6, -2, 6, -2, 6, -2: mean 1.9; deviations
    // 3.1, then -3.9 five times and 4.1 four times → ss 9.61 + 76.05 + 67.24 = 152.9, sd sqrt(152.9 / 9)
    expect(s).toEqual({
      value: Math.round((1.9 / Math.sqrt(152.9 / 9)) * Math.sqrt(365.25) * 1e6) / 1e6,
      period: 'day',
      periodMs: D,
      periods: 10,
      periodsPerYear: 365.25,
    });
    // nine days: hourly changes (216 of them), not nine daily ones
    expect(sharpeOf([T0], [0], T0, T0 + 9 * D)).toMatchObject({ period: 'hour', periods: 216 });
    // 30 minutes of 1-second samples: no whole hour, no figure (never an annualised 1-second ratio)
    const t = Array.from({ length: 1801 }, (_, i) => T0 + i * 1000);
    const v = t.map((_, i) => i * 7 + (i % 3));
    expect(sharpeOf(t, v, T0, T0 + 1_800_000)).toMatchObject({ value: null, period: 'hour', periods: 0 });
    expect(sharpeOf([T0, T0 + 3_600_000], [0, 1], T0, T0 + 3_600_000)).toMatchObject({ value: null, periods: 1 });
    const flat = Array.from({ length: 11 }, (_, k) => T0 + k * 3_600_000);
    expect(sharpeOf(flat, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], T0, T0 + 10 * 3_600_000)).toMatchObject({
      periods: 10,
      value: null, // no variation
    });
  });

  it('Sharpe leaves out the periods wholly inside a gap of the feeds (trial 23 F2)', () => {
    const H = 3_600_000;
    // 10 hours of data, 50 empty hours, then 2 more hours of data: the PnL at each hour's end
    const data = [0, 10, 4, 12, 6, 14, 8, 16, 10, 18, 12];
    const t: number[] = [];
    const v: number[] = [];
    data.forEach((x, k) => (t.push(T0 + k * H), v.push(x)));
    t.push(T0 + 61 * H, T0 + 62 * H);
    v.push(20, 15);
    const gaps = [{ fromMs: T0 + 10 * H + 60_000, toMs: T0 + 60 * H + 60_000 }];
    const s = sharpeOf(t, v, T0, T0 + 62 * H, gaps);
    // the hours 12..60 lie wholly in the gap; 1..11 and 61..62 have data: 13 changes, the 11th hour's 0
    // (its data ends at 10:00 + 1 min) and the one across the gap (20 - 12) among them
    const changes = [10, -6, 8, -6, 8, -6, 8, -6, 8, -6, 0, 8, -5];
    const mean = changes.reduce((a, b) => a + b, 0) / changes.length;
    const sd = Math.sqrt(changes.reduce((a, c) => a + (c - mean) ** 2, 0) / (changes.length - 1));
    expect(s.periods).toBe(13);
    expect(s.value).toBe(Math.round((mean / sd) * Math.sqrt(8766) * 1e6) / 1e6);
    // without the gaps: 62 changes, most of them 0, and another figure
    const all = sharpeOf(t, v, T0, T0 + 62 * H);
    expect(all.periods).toBe(62);
    expect(all.value).not.toBe(s.value);
    // a gap covering everything but a few hours: too few changes, n/a
    expect(sharpeOf(t, v, T0, T0 + 62 * H, [{ fromMs: T0 + 2 * H, toMs: T0 + 61 * H }]).value).toBeNull();
  });

  it('max drawdown: the largest fall from a running peak, with when it peaked and bottomed', () => {
    expect(maxDrawdownOf([0, 10, 4, 12, 6, 14], [0, 1, 2, 3, 4, 5])).toEqual({ value: 6, peakAt: 1, troughAt: 2 });
    expect(maxDrawdownOf([5, 3, 8, 1, 9], [0, 1, 2, 3, 4])).toEqual({ value: 7, peakAt: 2, troughAt: 3 });
    expect(maxDrawdownOf([1, 2, 3], [0, 1, 2]).value).toBe(0);
  });

  it('time at the inventory limit, exact from the fills', () => {
    // yes: +10 at 1 s, -30 at 2 s (→ -20: at the limit from 2 s), +5 at 4 s (→ -15: off at 4 s): 2 s of 5
    // no: +20 at 3 s (at the limit from 3 s to the end): 2 s of 5
    const inv = inventoryTimeOf(sampleResult().fills, 20_000_000, T0, T0 + 5000, ['yes', 'no']);
    expect(inv).toEqual([
      { tokenId: 'yes', atLimitMs: 2000, fraction: 0.4, maxAbs: 20_000_000 },
      { tokenId: 'no', atLimitMs: 2000, fraction: 0.4, maxAbs: 20_000_000 },
    ]);
    expect(inventoryTimeOf([], 1, T0, T0 + 10, ['yes'])).toEqual([
      { tokenId: 'yes', atLimitMs: 0, fraction: 0, maxAbs: 0 },
    ]);
  });

  it('fill ratio per quote, orders, budgets with their utilisation', () => {
    const m = computeMetrics(sampleResult());
    expect(m.orders).toEqual({ placed: 8, sent: 10, rejected: 2, cancelRequests: 4, idsCancelled: 6, filled: 3 });
    expect(m.fillRatio).toBe(0.375); // 3 of 8 orders placed got a fill
    expect(m.fillsPerOrder).toBe(0.5); // 4 fills / 8 orders
    expect(m.budgets.map((b) => [b.rule, b.utilisation])).toEqual([
      ['general', 0.000467],
      ['POST /orders:burst', 0.25],
    ]);
    expect(m.inventory.maxFraction).toBe(0.4);
    expect(m.sharpe).toEqual({ value: null, period: 'hour', periodMs: 3_600_000, periods: 0, periodsPerYear: 8766 });
    expect(m.maxDrawdown.value).toBe(6);
  });
});
