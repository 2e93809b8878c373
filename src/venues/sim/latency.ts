/**
 * Latency models of the simulated venue: how long an order, a cancel or a response takes on the
 * wire, in milliseconds of the (virtual) clock. Pure apart from the injected seeded Rng: the same
 * seed draws the same latencies, run after run.
 *
 *  - `constant`: always `ms`.
 *  - `normal`: mean `meanMs`, standard deviation `sdMs`, truncated at 0 (a negative draw is 0).
 *  - `lognormal`: a log-normal whose own mean and standard deviation are `meanMs` and `sdMs`
 *    (not those of its logarithm): σ² = ln(1 + sd²/mean²), μ = ln(mean) − σ²/2. Network latency is
 *    skewed to the right like this: mostly near the mean, sometimes much slower.
 *
 * Draws are rounded to the microsecond (3 decimals), the resolution of the feed's receive times.
 */
import { Rng } from '../../core/random.ts';
import { ValidationError } from '../../core/errors.ts';

/** One latency distribution, in milliseconds. */
export type LatencySpec =
  | { readonly kind: 'constant'; readonly ms: number }
  | { readonly kind: 'normal'; readonly meanMs: number; readonly sdMs: number }
  | { readonly kind: 'lognormal'; readonly meanMs: number; readonly sdMs: number };

/** Draws one latency, ms (>= 0, finite, rounded to 0.001). */
export type LatencySampler = () => number;

const finiteNonNeg = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x >= 0;

/**
 * Checks a latency spec; `what` names it in the error (e.g. "latency.entry").
 * @throws ValidationError on an unknown kind, or a negative, missing or non-finite parameter
 *   (a log-normal also needs meanMs > 0 unless sdMs is 0).
 */
export function validateLatencySpec(spec: LatencySpec, what = 'latency'): LatencySpec {
  if (typeof spec !== 'object' || spec === null) throw new ValidationError(`${what}: expected {kind, ...}`);
  switch (spec.kind) {
    case 'constant':
      if (!finiteNonNeg(spec.ms)) throw new ValidationError(`${what}.ms: must be a finite number >= 0`);
      return spec;
    case 'normal':
    case 'lognormal':
      if (!finiteNonNeg(spec.meanMs)) throw new ValidationError(`${what}.meanMs: must be a finite number >= 0`);
      if (!finiteNonNeg(spec.sdMs)) throw new ValidationError(`${what}.sdMs: must be a finite number >= 0`);
      if (spec.kind === 'lognormal' && spec.meanMs === 0 && spec.sdMs > 0)
        throw new ValidationError(`${what}: a log-normal with sdMs > 0 needs meanMs > 0`);
      return spec;
    default:
      throw new ValidationError(
        `${what}.kind: must be constant, normal or lognormal, got ${JSON.stringify((spec as { kind?: unknown }).kind)}`,
      );
  }
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/**
 * A sampler for `spec` drawing from `rng` (one or no draw per call: `constant` draws nothing, so it
 * does not move the stream).
 * @throws ValidationError on an invalid spec (see validateLatencySpec)
 */
export function latencySampler(spec: LatencySpec, rng: Rng, what = 'latency'): LatencySampler {
  validateLatencySpec(spec, what);
  switch (spec.kind) {
    case 'constant': {
      const v = round3(spec.ms);
      return () => v;
    }
    case 'normal': {
      const { meanMs, sdMs } = spec;
      if (sdMs === 0) return () => round3(meanMs);
      return () => round3(Math.max(0, meanMs + sdMs * rng.normal()));
    }
    case 'lognormal': {
      const { meanMs, sdMs } = spec;
      if (sdMs === 0) return () => round3(meanMs);
      const s2 = Math.log(1 + (sdMs * sdMs) / (meanMs * meanMs));
      const sigma = Math.sqrt(s2);
      const mu = Math.log(meanMs) - s2 / 2;
      return () => round3(Math.exp(mu + sigma * rng.normal()));
    }
  }
}

/** The mean of a spec, ms (what a report shows next to the draws). */
export function latencyMean(spec: LatencySpec): number {
  return spec.kind === 'constant' ? spec.ms : spec.meanMs;
}

/**
 * An independent Rng stream per purpose, derived from one seed, so adding a draw of one kind does
 * not shift the draws of another (entry, cancel and response latencies each have their own).
 */
export function rngStream(seed: number, stream: number): Rng {
  // splitmix-style mixing of (seed, stream) into a 32-bit seed
  let h = (Math.imul(seed | 0, 0x9e3779b1) ^ Math.imul(stream + 1, 0x85ebca6b)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d) >>> 0;
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b) >>> 0;
  h = (h ^ (h >>> 16)) >>> 0;
  return new Rng(h);
}
