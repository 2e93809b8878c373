/**
 * Pricing math and online estimators for strategies: small pure classes and functions. Time is
 * always an argument (unix ms), never read; state lives in the instance and changes only through
 * `observe`. Floats are fine here: these are models (probabilities, volatilities), converted to
 * ticks once, by the quoting helpers, with an explicit rounding direction.
 */

/**
 * Time-weighted EWMA of the variance RATE (per second) of a level observed at irregular times
 * (a logit mid, a log price). Each increment r over dt seconds contributes r^2 / dt, weighted by
 * a = 1 - 2^(-dt / halfLife): a long gap weighs more than a short one, so the estimate is a
 * time-decayed average of realized variance per second whatever the sampling. It starts from a
 * prior (`initialRate`) and never "waits for enough data" (hummingbot #5771: strategies stuck
 * "calculating volatility"); the prior's weight halves every `halfLifeMs` of observed time.
 * Observations at or before the last one's time are not counted (their move is counted in the next
 * increment, from the older anchor).
 */
export class EwmaVariance {
  readonly halfLifeMs: number;
  #rate: number;
  #lastT: number | undefined;
  #lastX = 0;
  #samples = 0;

  /** @throws RangeError when halfLifeMs is not positive or initialRate is negative */
  constructor(halfLifeMs: number, initialRate: number) {
    if (!(halfLifeMs > 0) || !Number.isFinite(halfLifeMs))
      throw new RangeError(`halfLifeMs must be positive, got ${halfLifeMs}`);
    if (!(initialRate >= 0) || !Number.isFinite(initialRate))
      throw new RangeError(`initialRate must be >= 0, got ${initialRate}`);
    this.halfLifeMs = halfLifeMs;
    this.#rate = initialRate;
  }

  /** Adds the observation `x` at time `t` (unix ms). Non-finite values are ignored. */
  observe(t: number, x: number): void {
    if (!Number.isFinite(t) || !Number.isFinite(x)) return;
    if (this.#lastT === undefined) {
      this.#lastT = t;
      this.#lastX = x;
      return;
    }
    const dt = t - this.#lastT;
    if (dt <= 0) return;
    const r = x - this.#lastX;
    const a = 1 - 2 ** (-dt / this.halfLifeMs);
    this.#rate += a * ((r * r) / (dt / 1000) - this.#rate);
    this.#lastT = t;
    this.#lastX = x;
    this.#samples++;
  }

  /** Forgets the anchor (a discontinuity): the next observation only anchors. The estimate stays. */
  reset(): void {
    this.#lastT = undefined;
  }

  /** Variance per second. */
  get rate(): number {
    return this.#rate;
  }
  /** Volatility per square-root second: sqrt(rate). */
  get vol(): number {
    return Math.sqrt(this.#rate);
  }
  /** Increments counted so far. */
  get samples(): number {
    return this.#samples;
  }
  /** Time of the last counted observation (or the anchor), undefined before any. */
  get lastTime(): number | undefined {
    return this.#lastT;
  }
}

/**
 * The order-arrival decay kappa of Avellaneda-Stoikov's intensity lambda(d) = A e^(-kappa d): the
 * rate at which fills get rarer with the distance d of a quote from the mid. Under that model the
 * distance from the mid at which trades print is exponential with rate kappa, so the maximum
 * likelihood estimate is 1 / mean distance; the mean is an EWMA over trades (weight halves every
 * `halfLifeTrades` trades), starting from the prior 1 / `initialKappa`. Distances below
 * `minDistance` count as `minDistance` (a trade at the mid would make kappa infinite).
 */
export class EwmaArrivalDecay {
  readonly halfLifeTrades: number;
  readonly minDistance: number;
  #mean: number;
  #samples = 0;

  /** @throws RangeError on non-positive arguments */
  constructor(halfLifeTrades: number, initialKappa: number, minDistance: number) {
    if (!(halfLifeTrades > 0) || !(initialKappa > 0) || !(minDistance > 0))
      throw new RangeError('halfLifeTrades, initialKappa and minDistance must be positive');
    this.halfLifeTrades = halfLifeTrades;
    this.minDistance = minDistance;
    this.#mean = Math.max(1 / initialKappa, minDistance);
  }

  /** Adds one trade at `distance` from the mid (same units as kappa's inverse). Negative or non-finite: ignored. */
  observe(distance: number): void {
    if (!(distance >= 0) || !Number.isFinite(distance)) return;
    const a = 1 - 2 ** (-1 / this.halfLifeTrades);
    this.#mean += a * (Math.max(distance, this.minDistance) - this.#mean);
    this.#samples++;
  }

  /** The current estimate: 1 / mean distance. */
  get kappa(): number {
    return 1 / this.#mean;
  }
  get meanDistance(): number {
    return this.#mean;
  }
  get samples(): number {
    return this.#samples;
  }
}

/**
 * The standard normal CDF, to about 1e-15 (W. J. Cody's rational approximations as given by
 * G. West, "Better approximations to cumulative normal functions", 2005, after Hart 5666).
 */
export function normCdf(x: number): number {
  if (Number.isNaN(x)) return NaN;
  const z = Math.abs(x);
  let c: number;
  if (z > 37) c = 0;
  else {
    const e = Math.exp((-z * z) / 2);
    if (z < 7.07106781186547) {
      let n = 3.52624965998911e-2 * z + 0.700383064443688;
      n = n * z + 6.37396220353165;
      n = n * z + 33.912866078383;
      n = n * z + 112.079291497871;
      n = n * z + 221.213596169931;
      n = n * z + 220.206867912376;
      let d = 8.83883476483184e-2 * z + 1.75566716318264;
      d = d * z + 16.064177579207;
      d = d * z + 86.7807322029461;
      d = d * z + 296.564248779674;
      d = d * z + 637.333633378831;
      d = d * z + 793.826512519948;
      d = d * z + 440.413735824752;
      c = (e * n) / d;
    } else {
      let b = z + 0.65;
      b = z + 4 / b;
      b = z + 3 / b;
      b = z + 2 / b;
      b = z + 1 / b;
      c = e / b / 2.506628274631;
    }
  }
  return x > 0 ? 1 - c : c;
}

/**
 * The value of a cash-or-nothing digital call paying 1 when S_T >= K, under a driftless (zero-rate,
 * risk-neutral) geometric Brownian motion: P = N(d2), d2 = (ln(S/K) - sigma^2 tau / 2) / (sigma sqrt(tau)).
 * `sigma` is per square-root second, `tauSec` in seconds. At or after expiry (or with sigma 0) it
 * is the payoff: 1 when S >= K, else 0.
 */
export function digitalAbove(spot: number, strike: number, sigma: number, tauSec: number): number {
  if (!(spot > 0) || !(strike > 0)) return NaN;
  if (!(tauSec > 0) || !(sigma > 0)) return spot >= strike ? 1 : 0;
  const sd = sigma * Math.sqrt(tauSec);
  return normCdf((Math.log(spot / strike) - (sd * sd) / 2) / sd);
}

/** Seconds per (365-day) year: annualised volatility / sqrt(SECONDS_PER_YEAR) = per-second volatility. */
export const SECONDS_PER_YEAR = 365 * 86_400;
