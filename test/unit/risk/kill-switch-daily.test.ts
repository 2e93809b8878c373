/**
 * The daily loss limit (risk.maxDailyLoss, trial 19 F2): the UTC day's PnL is the PnL now less its
 * value at the day's open (the first complete reading of the day, kept by `dayOpen`); below
 * -maxDailyLoss the switch trips `lossLimit`, saying the day, its open and now to the micro. A reading
 * with a held position unmarked does not open the day; a new UTC day opens again; a `dayOpen` that
 * cannot keep the open trips `storeFailure`.
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.ts';
import { KillSwitch, utcDate } from '../../../src/risk/kill-switch.ts';
import type { Micro } from '../../../src/core/units.ts';
import { DEFAULT_RISK_LIMITS, type KillSwitchLimits, resolveRiskLimits } from '../../../src/risk/limits.ts';

const DAY = 86_400_000;
const NOON = Date.UTC(2026, 10, 29, 12);
const limits = (maxDailyLoss: number, maxLoss = 0): KillSwitchLimits => ({
  ...DEFAULT_RISK_LIMITS.killSwitch,
  maxLoss: maxLoss as Micro,
  maxDailyLoss: maxDailyLoss as Micro,
});

describe('the daily loss limit', () => {
  it('resolves from risk.maxDailyLoss in collateral, off by default', () => {
    expect(DEFAULT_RISK_LIMITS.killSwitch.maxDailyLoss).toBe(0);
    expect(resolveRiskLimits({ maxDailyLoss: 25.5 }).killSwitch.maxDailyLoss).toBe(25_500_000);
    expect(() => resolveRiskLimits({ maxDailyLoss: -1 })).toThrow(/maxDailyLoss/);
  });

  it('judges the PnL since the day opened, not since the epoch began', () => {
    const clock = new VirtualClock(NOON);
    const k = new KillSwitch(clock, { limits: limits(10_000_000) });
    // the epoch is 50 USDC down already when the day opens: the epoch's figure does not trip it
    expect(k.recordPnl(-50_000_000, 0)).toBe(false);
    expect(k.dailyPnl).toEqual({ date: '2026-11-29', open: -50_000_000, pnl: 0 });
    expect(k.recordPnl(-55_000_000, -4_999_999)).toBe(false);
    expect(k.dailyPnl?.pnl).toBe(-9_999_999);
    expect(k.recordPnl(-55_000_000, -5_000_001, 1_000_000)).toBe(true);
    expect(k.reason).toMatchObject({ trigger: 'lossLimit' });
    expect(k.reason?.message).toBe(
      'PnL of the day -10.000001 below -10 (UTC 2026-11-29: -50 at its open, -60.000001 now); a start before 00:00 UTC stops again',
    );
  });

  it('a new UTC day opens again at its first reading', () => {
    const clock = new VirtualClock(NOON);
    const k = new KillSwitch(clock, { limits: limits(10_000_000) });
    k.recordPnl(0, 0);
    k.recordPnl(-9_000_000, 0);
    clock.advance(DAY);
    // yesterday's 9 USDC loss is yesterday's: the new day opens at -9 and may lose 10 more
    expect(k.recordPnl(-18_000_000, 0)).toBe(false);
    expect(k.dailyPnl).toEqual({ date: '2026-11-30', open: -18_000_000, pnl: 0 });
    expect(k.recordPnl(-28_000_001, 0)).toBe(true);
  });

  it('a reading with a position unmarked opens no day; an open day still judges it', () => {
    const clock = new VirtualClock(NOON);
    const k = new KillSwitch(clock, { limits: limits(10_000_000) });
    expect(k.recordPnl(-100_000_000, 0, 0, false)).toBe(false);
    expect(k.dailyPnl).toBeUndefined();
    k.recordPnl(-20_000_000, 0);
    expect(k.dailyPnl?.open).toBe(-20_000_000);
    expect(k.recordPnl(-31_000_000, 0, 0, false)).toBe(true);
  });

  it('asks dayOpen once per day: an open kept by an earlier process wins (a restart the same day)', () => {
    const clock = new VirtualClock(NOON);
    const asked: Array<[string, number | undefined]> = [];
    const opens = new Map([['2026-11-29', 0]]); // the store's: the day opened at 0 before the restart
    const dayOpen = (date: string, pnl?: number): number | undefined => {
      asked.push([date, pnl]);
      if (pnl !== undefined && !opens.has(date)) opens.set(date, pnl);
      return opens.get(date);
    };
    const k = new KillSwitch(clock, { limits: limits(10_000_000), dayOpen });
    expect(k.recordPnl(-9_000_000, 0)).toBe(false);
    expect(k.recordPnl(-9_500_000, 0)).toBe(false);
    expect(k.recordPnl(-9_900_000, 0)).toBe(false);
    expect(asked).toEqual([['2026-11-29', -9_000_000]]);
    // the next day: asked once more, opened at its first reading
    clock.advance(DAY);
    expect(k.recordPnl(-12_000_000, 0)).toBe(false);
    expect(k.recordPnl(-12_000_000, 0)).toBe(false);
    expect(asked).toEqual([
      ['2026-11-29', -9_000_000],
      ['2026-11-30', -12_000_000],
    ]);
    expect(k.dailyPnl).toEqual({ date: '2026-11-30', open: -12_000_000, pnl: 0 });
  });

  it('an incomplete reading after a restart the same day is judged against the day kept (read, not opened)', () => {
    const clock = new VirtualClock(NOON);
    const asked: Array<[string, number | undefined]> = [];
    const opens = new Map([['2026-11-29', 0]]);
    const dayOpen = (date: string, pnl?: number): number | undefined => {
      asked.push([date, pnl]);
      return opens.get(date);
    };
    const k = new KillSwitch(clock, { limits: limits(10_000_000), dayOpen });
    expect(k.recordPnl(-12_000_000, 0, 0, false)).toBe(true);
    expect(asked).toEqual([['2026-11-29', undefined]]);
    expect(k.reason?.message).toMatch(/^PnL of the day -12 below -10 \(UTC 2026-11-29: 0 at its open/);
    // a day nobody opened yet: an incomplete reading opens nothing and is not judged
    const k2 = new KillSwitch(new VirtualClock(NOON + DAY), { limits: limits(10_000_000), dayOpen });
    expect(k2.recordPnl(-50_000_000, 0, 0, false)).toBe(false);
    expect(k2.dailyPnl).toBeUndefined();
    expect(opens.has('2026-11-30')).toBe(false);
  });

  it('a day open that cannot be kept trips storeFailure', () => {
    const k = new KillSwitch(new VirtualClock(NOON), {
      limits: limits(10_000_000),
      dayOpen: () => {
        throw new Error('disk I/O error');
      },
    });
    expect(k.recordPnl(0, 0)).toBe(true);
    expect(k.reason).toMatchObject({ trigger: 'storeFailure' });
    expect(k.reason?.message).toMatch(/day's open PnL could not be kept: disk I\/O error/);
  });

  it('off (0): no day is opened, nothing is asked, the epoch limit alone applies', () => {
    let asked = 0;
    const k = new KillSwitch(new VirtualClock(NOON), {
      limits: limits(0, 5_000_000),
      dayOpen: () => {
        asked++;
        return 0;
      },
    });
    expect(k.recordPnl(-4_000_000, 0)).toBe(false);
    expect(k.dailyPnl).toBeUndefined();
    expect(asked).toBe(0);
    expect(k.recordPnl(-5_000_001, 0)).toBe(true);
    expect(k.reason?.message).toMatch(/^PnL -5\.000001 below -5 /);
  });

  it('utcDate is the UTC calendar date', () => {
    expect(utcDate(Date.UTC(2026, 0, 1, 0, 0, 0))).toBe('2026-01-01');
    expect(utcDate(Date.UTC(2026, 0, 1) - 1)).toBe('2025-12-31');
  });
});
