/** The kill switch keeps the last PnL fed to it (a fleet member publishes it for the fleet's loss limit). */
import { describe, expect, it } from 'vitest';
import { KillSwitch } from '../../../src/risk/kill-switch.ts';

describe('KillSwitch.lastPnl', () => {
  it('is undefined before the first recordPnl, then the last finite realized + unrealized', () => {
    const k = new KillSwitch({ now: () => 0 });
    expect(k.lastPnl).toBeUndefined();
    k.recordPnl(-5, 2);
    expect(k.lastPnl).toBe(-3);
    k.recordPnl(Number.NaN, 1);
    expect(k.lastPnl).toBe(-3);
  });
});
