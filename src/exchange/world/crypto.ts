/**
 * Simulated crypto prices: per symbol a driftless geometric random walk with one step per second
 * and a realistic annualised volatility. The walk is a pure function of (seed, symbol, epoch, t):
 * step k uses the k-th draw of the symbol's own seeded stream, so any process that knows the
 * world's epoch (the time it was seeded) computes the same price for the same second, before or
 * after a restart. The walk advances lazily to the time asked for and remembers the last
 * `historySec` seconds, so a market can be settled on the price at its end time.
 *
 * Crypto markets are "digital" options on the walk: P(price at end >= strike).
 */
import type { Rng } from '../../core/random.ts';
import type { CryptoSymbol } from './model.ts';
import { normCdf } from './normal.ts';
import { rngFor } from './seeding.ts';

/** Static facts about a simulated coin. */
export interface CryptoParams {
  symbol: CryptoSymbol;
  /** "Bitcoin" */
  name: string;
  /** "BTC" */
  ticker: string;
  /** Typical price when the world starts (the seed moves it by a few percent). */
  start: number;
  /** Annualised volatility of log returns (0.55 = 55%). */
  annualVol: number;
  /** Decimals of published prices and strikes. */
  decimals: number;
}

export const CRYPTO_PARAMS: Readonly<Record<CryptoSymbol, CryptoParams>> = {
  btcusdt: { symbol: 'btcusdt', name: 'Bitcoin', ticker: 'BTC', start: 95_000, annualVol: 0.55, decimals: 2 },
  ethusdt: { symbol: 'ethusdt', name: 'Ethereum', ticker: 'ETH', start: 3_500, annualVol: 0.7, decimals: 2 },
  solusdt: { symbol: 'solusdt', name: 'Solana', ticker: 'SOL', start: 180, annualVol: 0.85, decimals: 3 },
  xrpusdt: { symbol: 'xrpusdt', name: 'XRP', ticker: 'XRP', start: 2.3, annualVol: 0.9, decimals: 4 },
  dogeusdt: { symbol: 'dogeusdt', name: 'Dogecoin', ticker: 'DOGE', start: 0.35, annualVol: 1.0, decimals: 5 },
};

export const SECONDS_PER_YEAR = 365 * 86_400;

/** Standard deviation of one second's log return for an annualised volatility. */
export function perSecondVol(annualVol: number): number {
  return annualVol / Math.sqrt(SECONDS_PER_YEAR);
}

/** Round a price to the symbol's published decimals. */
export function roundPrice(symbol: CryptoSymbol, value: number): number {
  const f = 10 ** CRYPTO_PARAMS[symbol].decimals;
  return Math.round(value * f) / f;
}

/**
 * P(S_end >= strike) when log S moves as a driftless Brownian motion with `sigmaPerSec`, `tauMs`
 * before the end. At or after the end it is the settled outcome (1 or 0).
 */
export function probAbove(price: number, strike: number, sigmaPerSec: number, tauMs: number): number {
  if (tauMs <= 0 || sigmaPerSec <= 0) return price >= strike ? 1 : 0;
  return normCdf(Math.log(price / strike) / (sigmaPerSec * Math.sqrt(tauMs / 1000)));
}

export interface CryptoWalkOptions {
  /** Overrides the seeded start price. */
  start?: number;
  /** Overrides the symbol's annualised volatility. */
  annualVol?: number;
  /** Seconds of history kept for settlement lookups. Default 7200. */
  historySec?: number;
}

/** One symbol's seeded per-second geometric random walk (see the module comment). */
export class CryptoWalk {
  readonly symbol: CryptoSymbol;
  readonly sigma: number;
  readonly startPrice: number;
  private readonly rng: Rng;
  private readonly hist: Float64Array;
  /** Current step (seconds since the epoch) and its log price. */
  private k = 0;
  private logp: number;

  constructor(
    symbol: CryptoSymbol,
    seed: number,
    readonly epochMs: number,
    opts: CryptoWalkOptions = {},
  ) {
    this.symbol = symbol;
    const p = CRYPTO_PARAMS[symbol];
    this.sigma = perSecondVol(opts.annualVol ?? p.annualVol);
    const startRng = rngFor(seed, `crypto-start:${symbol}`);
    this.startPrice = opts.start ?? roundPrice(symbol, p.start * Math.exp(0.03 * startRng.normal()));
    this.rng = rngFor(seed, `crypto-walk:${symbol}`);
    this.hist = new Float64Array(Math.max(2, opts.historySec ?? 7200));
    this.logp = Math.log(this.startPrice);
    this.hist[0] = this.startPrice;
  }

  /** Step index of time `t` (0 before the epoch). */
  stepOf(t: number): number {
    return t <= this.epochMs ? 0 : Math.floor((t - this.epochMs) / 1000);
  }

  /** The walk's price at time `t` (unrounded). Times older than the history give the oldest kept. */
  priceAt(t: number): number {
    const kt = this.stepOf(t);
    if (kt > this.k) this.advanceTo(kt);
    const n = this.hist.length;
    const oldest = Math.max(0, this.k - n + 1);
    const k = kt < oldest ? oldest : kt;
    return this.hist[k % n]!;
  }

  /** Move the walk forward to step `kt`, one seeded normal draw per second. */
  private advanceTo(kt: number): void {
    const n = this.hist.length;
    const s = this.sigma;
    let lp = this.logp;
    for (let k = this.k + 1; k <= kt; k++) {
      lp += s * this.rng.normal();
      this.hist[k % n] = Math.exp(lp);
    }
    this.logp = lp;
    this.k = kt;
  }
}
