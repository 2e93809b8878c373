import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CRYPTO_PARAMS,
  CryptoWalk,
  perSecondVol,
  probAbove,
  SECONDS_PER_YEAR,
} from '../../../../src/exchange/world/crypto.ts';
import { CRYPTO_SYMBOLS } from '../../../../src/exchange/world/model.ts';
import { normCdf, normInv } from '../../../../src/exchange/world/normal.ts';

const EPOCH = Date.UTC(2025, 0, 6, 12);

describe('crypto random walk', () => {
  it('starts near realistic prices', () => {
    const expected = { btcusdt: 95_000, ethusdt: 3_500, solusdt: 180, xrpusdt: 2.3, dogeusdt: 0.35 };
    for (const s of CRYPTO_SYMBOLS) {
      const w = new CryptoWalk(s, 1, EPOCH);
      expect(w.priceAt(EPOCH)).toBe(w.startPrice);
      expect(w.startPrice / expected[s]).toBeGreaterThan(0.85);
      expect(w.startPrice / expected[s]).toBeLessThan(1.15);
    }
  });

  it('has the configured volatility over many steps', () => {
    const n = 200_000;
    for (const s of ['btcusdt', 'solusdt'] as const) {
      const w = new CryptoWalk(s, 42, EPOCH, { historySec: n + 1 });
      let sum = 0;
      let sum2 = 0;
      let prev = Math.log(w.priceAt(EPOCH));
      for (let k = 1; k <= n; k++) {
        const lp = Math.log(w.priceAt(EPOCH + k * 1000));
        const r = lp - prev;
        prev = lp;
        sum += r;
        sum2 += r * r;
      }
      const sd = Math.sqrt(sum2 / n - (sum / n) ** 2);
      expect(sd / perSecondVol(CRYPTO_PARAMS[s].annualVol)).toBeGreaterThan(0.97);
      expect(sd / perSecondVol(CRYPTO_PARAMS[s].annualVol)).toBeLessThan(1.03);
      // annualised
      expect(sd * Math.sqrt(SECONDS_PER_YEAR)).toBeCloseTo(CRYPTO_PARAMS[s].annualVol, 1);
    }
    expect(CRYPTO_PARAMS.solusdt.annualVol).toBeGreaterThan(CRYPTO_PARAMS.btcusdt.annualVol);
  });

  it('is a pure function of (seed, symbol, epoch, time): order of queries does not matter', () => {
    const a = new CryptoWalk('ethusdt', 9, EPOCH);
    const b = new CryptoWalk('ethusdt', 9, EPOCH);
    const t = EPOCH + 3_600_000 + 500;
    const direct = b.priceAt(t);
    for (let k = 0; k <= 3600; k += 7) a.priceAt(EPOCH + k * 1000);
    expect(a.priceAt(t)).toBe(direct);
    // past prices within the history are remembered
    expect(a.priceAt(EPOCH + 1800_000)).toBe(new CryptoWalk('ethusdt', 9, EPOCH).priceAt(EPOCH + 1800_000));
    expect(new CryptoWalk('ethusdt', 10, EPOCH).priceAt(t)).not.toBe(direct);
  });
});

describe('probabilities', () => {
  it('normCdf and normInv are inverse and accurate', () => {
    expect(normCdf(0)).toBeCloseTo(0.5, 7);
    expect(normCdf(1.959964)).toBeCloseTo(0.975, 6);
    expect(normInv(0.975)).toBeCloseTo(1.959964, 5);
    fc.assert(
      fc.property(fc.double({ min: 1e-6, max: 1 - 1e-6, noNaN: true }), (p) => {
        expect(normCdf(normInv(p))).toBeCloseTo(p, 6);
      }),
    );
  });

  it('probAbove is a probability, monotone in the price, and settles at the end', () => {
    const sigma = perSecondVol(0.55);
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 1e6, noNaN: true }),
        fc.double({ min: 1, max: 1e6, noNaN: true }),
        fc.integer({ min: -60_000, max: 30 * 86_400_000 }),
        (price, strike, tau) => {
          const p = probAbove(price, strike, sigma, tau);
          expect(p).toBeGreaterThanOrEqual(0);
          expect(p).toBeLessThanOrEqual(1);
          expect(probAbove(price * 1.01, strike, sigma, tau)).toBeGreaterThanOrEqual(p);
          if (tau <= 0) expect(p).toBe(price >= strike ? 1 : 0);
        },
      ),
    );
    expect(probAbove(100, 100, sigma, 300_000)).toBeCloseTo(0.5, 6);
    // a 0.2% move with 5 minutes to go on a 55% vol coin is a strong signal
    expect(probAbove(100.2, 100, sigma, 300_000)).toBeGreaterThan(0.85);
  });
});
