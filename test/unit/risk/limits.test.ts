import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/errors.ts';
import { DEFAULT_RISK_LIMITS, limitsFor, resolveRiskLimits } from '../../../src/risk/limits.ts';

const SH = 1_000_000;

describe('resolveRiskLimits', () => {
  it('has documented defaults, in integer units', () => {
    expect(DEFAULT_RISK_LIMITS.defaults).toEqual({
      maxPosition: 250 * SH,
      maxOrderSize: 100 * SH,
      maxNotional: 250 * SH,
      maxOpenOrders: 20,
      maxMidDistance: 1000,
      minPrice: 100,
      maxPrice: 9900,
    });
    expect(DEFAULT_RISK_LIMITS.global).toEqual({ maxNotional: 2000 * SH, maxOpenOrders: 200 });
    expect(DEFAULT_RISK_LIMITS.killSwitch).toEqual({
      maxLoss: 100 * SH,
      maxDailyLoss: 0,
      maxRejections: 10,
      rejectionWindowMs: 60_000,
      maxHeartbeatFailures: 3,
    });
    expect(Object.isFrozen(DEFAULT_RISK_LIMITS)).toBe(true);
  });
  it('applies overrides (numbers may be strings) and per-market overrides on top', () => {
    const l = resolveRiskLimits({
      maxPositionShares: '50',
      maxMidDistance: 0.05,
      maxOpenOrdersGlobal: 7,
      maxLoss: '12.5',
      markets: { m1: { maxOrderSizeShares: 5 } },
    });
    expect(l.defaults.maxPosition).toBe(50 * SH);
    expect(l.defaults.maxMidDistance).toBe(500);
    expect(l.global.maxOpenOrders).toBe(7);
    expect(l.killSwitch.maxLoss).toBe(12.5 * SH);
    expect(limitsFor(l, 'm1')).toEqual({ ...l.defaults, maxOrderSize: 5 * SH });
    expect(limitsFor(l, 'other')).toBe(l.defaults);
  });
  it.each([
    [{ maxPositon: 1 }, 'risk.maxPositon', /unknown key/],
    [{ maxPositionShares: -1 }, 'risk.maxPositionShares', />= 0/],
    [{ maxOrderSizeShares: 'lots' }, 'risk.maxOrderSizeShares', /expected a number/],
    [{ maxOpenOrdersPerMarket: 1.5 }, 'risk.maxOpenOrdersPerMarket', /integer/],
    [{ maxPrice: 1 }, 'risk.maxPrice', /<= 0.9999/],
    [{ minPrice: 0.6, maxPrice: 0.4 }, 'risk.minPrice', /must not exceed maxPrice/],
    [{ rejectionWindowMs: 0 }, 'risk.rejectionWindowMs', />= 1/],
    [{ markets: [] }, 'risk.markets', /expected an object/],
    [{ markets: { m1: 3 } }, 'risk.markets.m1', /expected an object/],
    [{ markets: { m1: { maxNotionalGlobal: 3 } } }, 'risk.markets.m1.maxNotionalGlobal', /unknown key/],
    [{ markets: { m1: { maxMidDistance: 0 } } }, 'risk.markets.m1.maxMidDistance', />= 0.0001/],
  ])('refuses %j naming %s', (o, key, msg) => {
    try {
      resolveRiskLimits(o as never);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).key).toBe(key);
      expect((e as Error).message).toMatch(msg);
    }
  });
});
