/** The pure parts of the fleet's shared risk limits: the keeper's ask, a stored grant, the loss test. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lossLimitBroken } from '../../../src/fleet/fleet-loss.ts';
import { parseGrant, planAsk } from '../../../src/fleet/risk-reserve.ts';

describe('planAsk', () => {
  it('is usage + cap / (2 x live), at least 1, never above the cap; 0 when the cap is 0', () => {
    expect(planAsk({ notional: 0, orders: 0 }, { notional: 1000, orders: 10 }, 2)).toEqual({
      notional: 250,
      orders: 3,
    });
    expect(planAsk({ notional: 900, orders: 9 }, { notional: 1000, orders: 10 }, 1)).toEqual({
      notional: 1000,
      orders: 10,
    });
    expect(planAsk({ notional: 5, orders: 5 }, { notional: 0, orders: 0 }, 3)).toEqual({ notional: 0, orders: 0 });
    expect(planAsk({ notional: 0, orders: 0 }, { notional: 1, orders: 1 }, 0)).toEqual({ notional: 1, orders: 1 });
  });
  it('asks at least its usage (capped) and leaves a headroom below the cap', () => {
    fc.assert(
      fc.property(fc.nat(10 ** 12), fc.nat(10 ** 12), fc.integer({ min: 0, max: 50 }), (u, cap, live) => {
        const a = planAsk({ notional: u, orders: 0 }, { notional: cap, orders: 0 }, live).notional;
        expect(a).toBeLessThanOrEqual(cap);
        if (cap > 0) expect(a).toBeGreaterThan(Math.min(u, cap - 1));
        expect(Number.isSafeInteger(a)).toBe(true);
      }),
    );
  });
});

describe('planAsk pressed (the gate lacked global room)', () => {
  it('grows by the headroom from what is held, up to a fair share; beyond it only through usage', () => {
    const caps = { notional: 1000, orders: 10 };
    // two members: headroom 250 / 3, fair share 500 / 5
    expect(planAsk({ notional: 0, orders: 0 }, caps, 2, { held: { notional: 250, orders: 3 } })).toEqual({
      notional: 500,
      orders: 5,
    });
    expect(planAsk({ notional: 0, orders: 0 }, caps, 2, { held: { notional: 500, orders: 5 } })).toEqual({
      notional: 500,
      orders: 5,
    });
    expect(planAsk({ notional: 600, orders: 6 }, caps, 2, { held: { notional: 700, orders: 7 } })).toEqual({
      notional: 850,
      orders: 9,
    });
  });
});

describe('parseGrant', () => {
  it('reads "<notional>:<orders>:<at>" and nothing else', () => {
    expect(parseGrant('m', '10:2:1700000000000')).toEqual({
      member: 'm',
      notional: 10,
      orders: 2,
      refreshedAt: 1700000000000,
    });
    for (const bad of ['', '1:2', '-1:2:3', '1.5:2:3', 'a:b:c', '1:2:3:4']) expect(parseGrant('m', bad)).toBeNull();
  });
});

describe('lossLimitBroken', () => {
  it('only strictly below -maxLoss, and never when maxLoss is 0', () => {
    expect(lossLimitBroken(-100, 100)).toBe(false);
    expect(lossLimitBroken(-101, 100)).toBe(true);
    expect(lossLimitBroken(-1e15, 0)).toBe(false);
  });
});
