/** The kill switch keeps the last PnL fed to it (a fleet member publishes it for the fleet's loss limit). */
import { describe, expect, it } from 'vitest';
import { KillSwitch } from '../../../src/risk/kill-switch.ts';
import { DEFAULT_RISK_LIMITS } from '../../../src/risk/limits.ts';
import type { Micro } from '../../../src/core/units.ts';

describe('KillSwitch.lastPnl', () => {
  it('is undefined before the first recordPnl, then the last finite realized + unrealized', () => {
    const k = new KillSwitch({ now: () => 0 });
    expect(k.lastPnl).toBeUndefined();
    k.recordPnl(-5, 2);
    expect(k.lastPnl).toBe(-3);
    k.recordPnl(Number.NaN, 1);
    expect(k.lastPnl).toBe(-3);
  });

  it('lastCompletePnl and completeDailyPnl: of complete readings only (a fleet member writes them; trial 22 F2)', () => {
    const k = new KillSwitch(
      { now: () => Date.UTC(2026, 10, 29, 12) },
      {
        limits: { ...DEFAULT_RISK_LIMITS.killSwitch, maxLoss: 0 as Micro, maxDailyLoss: 100_000_000 as Micro },
      },
    );
    // a first reading before the books marked a held position: its unrealized part missing
    k.recordPnl(-1_000_000, 0, 0, false);
    expect(k.lastPnl).toBe(-1_000_000);
    expect(k.lastCompletePnl).toBeUndefined();
    expect(k.completeDailyPnl).toBeUndefined();
    k.recordPnl(-1_000_000, -2_000_000, 0, true);
    expect(k.lastCompletePnl).toBe(-3_000_000);
    expect(k.completeDailyPnl).toMatchObject({ date: '2026-11-29', pnl: 0 });
    // an incomplete one later keeps the last complete figures
    k.recordPnl(-1_000_000, 0, 0, false);
    expect(k.lastCompletePnl).toBe(-3_000_000);
    expect(k.completeDailyPnl).toMatchObject({ pnl: 0 });
  });
});
