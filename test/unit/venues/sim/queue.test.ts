import { describe, expect, it } from 'vitest';
import {
  createQueueModel,
  floorLot,
  powerProbBehind,
  probDepth,
  riskAverseDepth,
  tradeAtLevel,
  tradeVolumeAtLevel,
} from '../../../../src/venues/sim/queue.ts';
import { latencyMean, latencySampler, rngStream, validateLatencySpec } from '../../../../src/venues/sim/latency.ts';
import { Rng } from '../../../../src/core/random.ts';

const SH = 1_000_000;

describe('queue models (pure)', () => {
  it('a trade takes from the front; what goes beyond the queue ahead fills us, in whole lots', () => {
    // behind 100 shares, 30 share order: trades of 30, 50, 40
    let ahead = 100 * SH;
    let rem = 30 * SH;
    let r = tradeAtLevel(ahead, 0, 30 * SH, rem);
    expect(r).toEqual({ ahead: 70 * SH, fill: 0 });
    ahead = r.ahead;
    r = tradeAtLevel(ahead, 0, 50 * SH, rem);
    expect(r).toEqual({ ahead: 20 * SH, fill: 0 });
    ahead = r.ahead;
    r = tradeAtLevel(ahead, 0, 40 * SH, rem);
    expect(r).toEqual({ ahead: 0, fill: 20 * SH }); // 40 - 20 ahead
    rem -= r.fill;
    r = tradeAtLevel(r.ahead, 0, 15 * SH, rem);
    expect(r).toEqual({ ahead: 0, fill: 10 * SH }); // capped at what is left
  });

  it('our own earlier orders at the price are ahead too; a fill never has a part lot', () => {
    expect(tradeAtLevel(10 * SH, 5 * SH, 20 * SH, 100 * SH)).toEqual({ ahead: 0, fill: 5 * SH });
    expect(tradeAtLevel(0, 0, 12_345_678, 100 * SH)).toEqual({ ahead: 0, fill: 12_340_000 });
    expect(floorLot(9_999)).toBe(0);
    expect(floorLot(-5)).toBe(0);
  });

  it('risk-averse: a size decrease only caps the queue ahead; an increase does nothing', () => {
    expect(riskAverseDepth(100 * SH, 150 * SH, 110 * SH)).toBe(100 * SH); // a cancel of 40: not ahead of us for sure
    expect(riskAverseDepth(100 * SH, 150 * SH, 60 * SH)).toBe(60 * SH); // the level holds only 60
    expect(riskAverseDepth(100 * SH, 100 * SH, 300 * SH)).toBe(100 * SH);
    const m = createQueueModel('risk-averse');
    expect(m.depth(100 * SH, 150 * SH, 110 * SH, 0)).toBe(100 * SH);
  });

  it('probabilistic: p = f(back) / (f(back) + f(front)), f(x) = x^n', () => {
    expect(powerProbBehind(100, 50, 2)).toBeCloseTo(2500 / 12500, 12); // 0.2
    expect(powerProbBehind(100, 50, 1)).toBeCloseTo(50 / 150, 12);
    expect(powerProbBehind(0, 50, 2)).toBe(1); // at the front: every cancel is behind us
    expect(powerProbBehind(100, 0, 2)).toBe(0); // nobody behind: every cancel is ahead
    expect(powerProbBehind(1e18, 1e17, 3)).toBeCloseTo(1 / 1001, 9); // no overflow trouble
  });

  it('probabilistic: a cancellation advances us by its expected share ahead', () => {
    // front 100, back 50 (level 150), a cancel of 40: p = 0.2 behind, so 0.8 * 40 = 32 ahead
    expect(probDepth(100 * SH, 150 * SH, 110 * SH, 0, 2)).toBe(68 * SH);
    // n = 1: p = 1/3: 40 * 2/3 = 26.666667 ahead -> 73.333333 (rounded to a micro)
    expect(probDepth(100 * SH, 150 * SH, 110 * SH, 0, 1)).toBe(73_333_333);
    // a cancel larger than the back: the excess must have been ahead of us
    // front 100, back 10, cancel 50, n = 2: p = 100/10100; est = 100 - (1-p)50 + min(10 - 50p, 0)
    const p = 100 / 10100;
    expect(probDepth(100 * SH, 110 * SH, 60 * SH, 0, 2)).toBe(
      Math.round((100 - (1 - p) * 50 + Math.min(10 - 50 * p, 0)) * SH),
    );
    // an increase, or a decrease all explained by trades: no advance beyond the cap
    expect(probDepth(100 * SH, 150 * SH, 200 * SH, 0, 2)).toBe(100 * SH);
    expect(probDepth(70 * SH, 150 * SH, 120 * SH, 30 * SH, 2)).toBe(70 * SH);
    // trades of 30 and a cancel of 40 in one batch: only the 40 is a cancellation, behind = 150-30-70 = 50
    const p2 = (50 * SH) ** 2 / ((50 * SH) ** 2 + (70 * SH) ** 2);
    expect(probDepth(70 * SH, 150 * SH, 80 * SH, 30 * SH, 2)).toBe(Math.round(70 * SH - (1 - p2) * 40 * SH));
    const m = createQueueModel({ kind: 'probabilistic', power: 2 });
    expect(m.depth(100 * SH, 150 * SH, 110 * SH, 0)).toBe(68 * SH);
    expect(createQueueModel('probabilistic').power).toBe(2);
  });

  it('a trade at our price counts only what our level lost in the batch', () => {
    expect(tradeVolumeAtLevel(300 * SH, 100 * SH)).toBe(100 * SH); // a sweep that ended at our level
    expect(tradeVolumeAtLevel(30 * SH, 30 * SH)).toBe(30 * SH);
    expect(tradeVolumeAtLevel(30 * SH, 0)).toBe(30 * SH); // the trade came first
  });

  it('refuses unknown models and bad powers', () => {
    expect(() => createQueueModel('fifo' as never)).toThrow(/queue/);
    expect(() => createQueueModel({ kind: 'probabilistic', power: 0 })).toThrow(/power/);
    expect(() => createQueueModel({ kind: 'probabilistic', power: Number.NaN })).toThrow(/power/);
  });
});

describe('latency models (pure, seeded)', () => {
  it('constant draws nothing and is exact', () => {
    const rng = new Rng(1);
    const s = latencySampler({ kind: 'constant', ms: 12.5 }, rng);
    expect([s(), s(), s()]).toEqual([12.5, 12.5, 12.5]);
    expect(rng.next()).toBe(new Rng(1).next()); // the stream did not move
  });

  it('normal and lognormal: reproducible from the seed, non-negative, with the asked mean', () => {
    for (const kind of ['normal', 'lognormal'] as const) {
      const a = latencySampler({ kind, meanMs: 20, sdMs: 5 }, rngStream(42, 1));
      const b = latencySampler({ kind, meanMs: 20, sdMs: 5 }, rngStream(42, 1));
      const xs = Array.from({ length: 20_000 }, () => a());
      expect(Array.from({ length: 20_000 }, () => b())).toEqual(xs);
      expect(xs.every((x) => x >= 0 && Number.isFinite(x) && Math.round(x * 1000) / 1000 === x)).toBe(true);
      const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
      const sd = Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / xs.length);
      expect(mean).toBeGreaterThan(19.8);
      expect(mean).toBeLessThan(20.2);
      expect(sd).toBeGreaterThan(4.8);
      expect(sd).toBeLessThan(5.2);
    }
    // a normal far below zero is truncated at 0
    const t = latencySampler({ kind: 'normal', meanMs: 0, sdMs: 10 }, rngStream(1, 1));
    expect(Array.from({ length: 100 }, () => t()).some((x) => x === 0)).toBe(true);
  });

  it('different streams of one seed differ; the same stream repeats', () => {
    expect(rngStream(5, 1).next()).toBe(rngStream(5, 1).next());
    expect(rngStream(5, 1).next()).not.toBe(rngStream(5, 2).next());
    expect(rngStream(5, 1).next()).not.toBe(rngStream(6, 1).next());
  });

  it('validates specs', () => {
    expect(() => validateLatencySpec({ kind: 'constant', ms: -1 })).toThrow(/ms/);
    expect(() => validateLatencySpec({ kind: 'normal', meanMs: 1, sdMs: Number.NaN })).toThrow(/sdMs/);
    expect(() => validateLatencySpec({ kind: 'lognormal', meanMs: 0, sdMs: 1 })).toThrow(/log-normal/);
    expect(() => validateLatencySpec({ kind: 'uniform' } as never)).toThrow(/kind/);
    expect(latencyMean({ kind: 'lognormal', meanMs: 7, sdMs: 1 })).toBe(7);
  });
});
