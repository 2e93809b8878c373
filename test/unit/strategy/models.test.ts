/**
 * Pricing math and online estimators (src/strategy/models.ts): exact EWMA updates on fixed inputs,
 * convergence on synthetic series, the normal CDF against known values, the digital option.
 */
import { describe, expect, it } from 'vitest';
import { probAbove } from '../../../src/exchange/world/crypto.ts';
import {
  digitalAbove,
  EwmaArrivalDecay,
  EwmaVariance,
  normCdf,
  SECONDS_PER_YEAR,
} from '../../../src/strategy/models.ts';

describe('EwmaVariance', () => {
  it('updates by a = 1 - 2^(-dt / halfLife) toward r^2 / dt (per second)', () => {
    const v = new EwmaVariance(1000, 0);
    v.observe(0, 0); // anchors only
    expect([v.rate, v.samples]).toEqual([0, 0]);
    // dt = 1 s = one half-life: a = 1/2; r = 0.1: r^2/dt = 0.01 -> rate = 0.005
    v.observe(1000, 0.1);
    expect(v.rate).toBeCloseTo(0.005, 15);
    // no move over 1 s: rate halves
    v.observe(2000, 0.1);
    expect(v.rate).toBeCloseTo(0.0025, 15);
    // 3 s (three half-lives): a = 7/8; r = 0.3: r^2/dt = 0.03 -> 0.0025 + 7/8 (0.03 - 0.0025) = 0.0265625
    v.observe(5000, 0.4);
    expect(v.rate).toBeCloseTo(0.0265625, 15);
    expect(v.vol).toBeCloseTo(Math.sqrt(0.0265625), 15);
    expect(v.samples).toBe(3);
    expect(v.lastTime).toBe(5000);
  });
  it('starts from the prior and ignores observations at or before the last time, and non-finite ones', () => {
    const v = new EwmaVariance(1000, 0.04);
    v.observe(0, 1);
    v.observe(0, 5); // same time: not counted; the anchor stays at 1
    v.observe(-10, 5);
    v.observe(500, NaN);
    expect([v.rate, v.samples]).toEqual([0.04, 0]);
    // the next increment is measured from the anchor 1: r = 0.2 over 1 s
    v.observe(1000, 1.2);
    expect(v.rate).toBeCloseTo(0.5 * 0.04 + 0.5 * 0.04, 15);
  });
  it('reset forgets the anchor, not the estimate', () => {
    const v = new EwmaVariance(1000, 0.01);
    v.observe(0, 0);
    v.reset();
    v.observe(1000, 10); // a jump across the discontinuity is not counted
    expect(v.rate).toBe(0.01);
  });
  it('converges to the variance rate of a synthetic walk, whatever the sampling', () => {
    // steps of +-sigma sqrt(dt): r^2 / dt = sigma^2 exactly, for dt of 0.5 s and 2 s alternately
    const sigma2 = 4e-6;
    const v = new EwmaVariance(60_000, 1e-3);
    let t = 0;
    let x = 0;
    v.observe(t, x);
    for (let i = 0; i < 2000; i++) {
      const dt = i % 2 === 0 ? 500 : 2000;
      t += dt;
      x += (i % 3 === 0 ? -1 : 1) * Math.sqrt(sigma2 * (dt / 1000));
      v.observe(t, x);
    }
    expect(v.rate / sigma2).toBeCloseTo(1, 6);
  });
  it('refuses a non-positive half-life or a negative prior', () => {
    expect(() => new EwmaVariance(0, 1)).toThrow(RangeError);
    expect(() => new EwmaVariance(1000, -1)).toThrow(RangeError);
  });
});

describe('EwmaArrivalDecay (kappa)', () => {
  it('kappa = 1 / EWMA of trade distances, starting from the prior', () => {
    const k = new EwmaArrivalDecay(1, 10, 0.001); // a = 1/2 per trade; mean starts at 1/10
    expect(k.kappa).toBeCloseTo(10, 12);
    k.observe(0.3); // mean 0.1 + (0.3 - 0.1)/2 = 0.2
    expect(k.kappa).toBeCloseTo(5, 12);
    k.observe(0); // counted as the minimum distance: 0.2 + (0.001 - 0.2)/2 = 0.1005
    expect(k.meanDistance).toBeCloseTo(0.1005, 12);
    k.observe(-1);
    k.observe(NaN);
    expect(k.samples).toBe(2);
  });
  it('recovers the rate of exponential distances', () => {
    // quantiles of Exp(kappa = 25): d = -ln(1 - u) / 25 on a uniform grid of u, visited in a
    // scrambled order (617 is coprime to 1000), so the EWMA's recency weighting sees no trend
    const k = new EwmaArrivalDecay(2000, 1, 1e-6);
    for (let rep = 0; rep < 20; rep++)
      for (let i = 0; i < 1000; i++) k.observe(-Math.log(1 - (((i * 617) % 1000) + 0.5) / 1000) / 25);
    expect(k.kappa).toBeCloseTo(25, 0);
  });
  it('refuses non-positive settings', () => {
    expect(() => new EwmaArrivalDecay(0, 1, 1)).toThrow(RangeError);
    expect(() => new EwmaArrivalDecay(1, 0, 1)).toThrow(RangeError);
  });
});

describe('normCdf and the digital option', () => {
  it('matches known values to 1e-14', () => {
    const known: Array<[number, number]> = [
      [0, 0.5],
      [1, 0.8413447460685429],
      [-1, 0.15865525393145707],
      [-2, 0.022750131948179195],
      [0.5, 0.6914624612740131],
      [3, 0.9986501019683699],
      [-8, 6.22096057427178e-16],
    ];
    for (const [x, p] of known) expect(Math.abs(normCdf(x) - p)).toBeLessThan(1e-14);
    expect(normCdf(40)).toBe(1);
    expect(normCdf(-40)).toBe(0);
    expect(Number.isNaN(normCdf(NaN))).toBe(true);
  });
  it('digitalAbove = N(d2), d2 = (ln(S/K) - sigma^2 tau / 2) / (sigma sqrt(tau))', () => {
    // at the money, sigma 0.001/sqrt(s), 100 s: sd = 0.01, d2 = -0.005: N(-0.005) = 0.4980053
    expect(digitalAbove(100, 100, 0.001, 100)).toBeCloseTo(0.498005297, 9);
    // BTC 95,300 vs 95,000, 60% a year, 15 minutes: sd = 0.0032053, d2 = 0.98205: 0.836963
    const s = 0.6 / Math.sqrt(SECONDS_PER_YEAR);
    expect(digitalAbove(95_300, 95_000, s, 900)).toBeCloseTo(0.836963426, 9);
    // the paper world's driftless model differs only by the -sigma^2 tau / 2 term
    expect(Math.abs(digitalAbove(95_300, 95_000, s, 900) - probAbove(95_300, 95_000, s, 900_000))).toBeLessThan(1e-3);
  });
  it('is the payoff at or after expiry, NaN without prices', () => {
    expect(digitalAbove(100, 100, 0.01, 0)).toBe(1);
    expect(digitalAbove(99.99, 100, 0.01, -5)).toBe(0);
    expect(digitalAbove(101, 100, 0, 60)).toBe(1);
    expect(Number.isNaN(digitalAbove(0, 100, 0.01, 60))).toBe(true);
  });
});
