/**
 * A strategy's own risk price band over the operator's limits (src/risk/strategy-band.ts): a limit
 * left at its default takes the strategy's value; one the operator changed applies too, the tighter
 * of the two wins; the per-market overrides follow the same rule.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/errors.ts';
import { DEFAULT_RISK_LIMITS, resolveRiskLimits } from '../../../src/risk/limits.ts';
import { DEFAULT_BAND, withStrategyBand } from '../../../src/risk/strategy-band.ts';

const M = `0x${'ab'.repeat(32)}`;

describe('withStrategyBand', () => {
  it('without a band, the limits as they are', () => {
    expect(withStrategyBand(DEFAULT_RISK_LIMITS, undefined)).toBe(DEFAULT_RISK_LIMITS);
  });
  it('a limit at its default takes the strategy value, wider or narrower', () => {
    const l = withStrategyBand(DEFAULT_RISK_LIMITS, { min: 0.05, max: 0.995, maxMidDistance: 0.25 });
    expect(l.defaults).toEqual({
      ...DEFAULT_RISK_LIMITS.defaults,
      minPrice: 500,
      maxPrice: 9950,
      maxMidDistance: 2500,
    });
    expect(l.global).toEqual(DEFAULT_RISK_LIMITS.global);
    expect(l.killSwitch).toEqual(DEFAULT_RISK_LIMITS.killSwitch);
    // a field the band leaves out stays the operator's
    expect(withStrategyBand(DEFAULT_RISK_LIMITS, { maxMidDistance: 0.3 }).defaults).toEqual({
      ...DEFAULT_RISK_LIMITS.defaults,
      maxMidDistance: 3000,
    });
  });
  it("a limit the operator changed: the tighter of the operator's and the strategy's", () => {
    const op = resolveRiskLimits({ maxMidDistance: 0.2, minPrice: 0.03, maxPrice: 0.9 });
    // the strategy wider than the operator on every field: the operator's
    expect(withStrategyBand(op, { min: 0.02, max: 0.95, maxMidDistance: 0.3 }).defaults).toEqual(op.defaults);
    // the strategy tighter: the strategy's
    expect(withStrategyBand(op, { min: 0.1, max: 0.8, maxMidDistance: 0.15 }).defaults).toMatchObject({
      minPrice: 1000,
      maxPrice: 8000,
      maxMidDistance: 1500,
    });
    // an operator who tightened below the default is never loosened
    const tight = resolveRiskLimits({ maxMidDistance: 0.05 });
    expect(withStrategyBand(tight, { maxMidDistance: 0.3 }).defaults.maxMidDistance).toBe(500);
  });
  it('per-market overrides follow the same rule', () => {
    const op = resolveRiskLimits({ markets: { [M]: { maxMidDistance: 0.12, maxOrderSizeShares: 5 } } });
    const l = withStrategyBand(op, { maxMidDistance: 0.3 });
    expect(l.defaults.maxMidDistance).toBe(3000);
    expect(l.markets[M]).toMatchObject({ maxMidDistance: 1200, maxOrderSize: 5_000_000 });
    expect(Object.isFrozen(l.markets[M])).toBe(true);
  });
  it('a band and limits that leave no price between them: a ConfigError naming the key, limits unchanged', () => {
    const op = resolveRiskLimits({ minPrice: 0.6 });
    const before = JSON.stringify(op);
    expect(() => withStrategyBand(op, { max: 0.5 })).toThrow(ConfigError);
    expect(() => withStrategyBand(op, { max: 0.5 })).toThrow(/bot\.risk\.minPrice/);
    expect(JSON.stringify(op)).toBe(before);
  });
  it('knows the schema defaults', () => {
    expect(DEFAULT_BAND).toEqual({ minPrice: 100, maxPrice: 9900, maxMidDistance: 1000 });
  });
});
