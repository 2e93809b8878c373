import { describe, expect, it } from 'vitest';
import { bookTerms, gridDown, gridUp } from '../../../src/exchange/order-admission.ts';
import { Rng } from '../../../src/core/random.ts';
import {
  LOT_MICRO,
  PRICE_SCALE,
  ROUNDING,
  TICK_SIZES,
  limitOrderAmounts,
  marketOrderAmounts,
  tickPips,
  type Side,
} from '../../../src/core/units.ts';

const USDC = 1_000_000n;

describe('bookTerms (issue 16, defect 3)', () => {
  it('a BUY signed under a tick price is never rounded up to it (limit: left off the tick, refused by the engine)', () => {
    // 100 shares for 74.995: 0.74995 per share; the nearest pip (0.75) would charge 75.000000
    expect(bookTerms('BUY', 74_995_000n, 100n * USDC, 'GTC', 100)).toEqual({ price: 7499, size: 100_000_000 });
    expect(bookTerms('BUY', 74_995_000n, 100n * USDC, 'GTD', 100).price % 100).not.toBe(0);
  });

  it('a SELL asking over a tick price is never rounded down to it', () => {
    // 100 shares for at least 75.004: 0.75004 per share; the nearest pip (0.75) would pay 75.000000
    expect(bookTerms('SELL', 100n * USDC, 75_004_000n, 'GTC', 100)).toEqual({ price: 7501, size: 100_000_000 });
  });

  it('signing a little more than a tick price (BUY) or a little less (SELL) rests at that price', () => {
    expect(bookTerms('BUY', 75_000_090n, 100n * USDC, 'GTC', 100)).toEqual({ price: 7500, size: 100_000_000 });
    expect(bookTerms('SELL', 100n * USDC, 74_999_990n, 'GTC', 100)).toEqual({ price: 7500, size: 100_000_000 });
  });

  it('market orders take the tick price at or below (BUY) / at or above (SELL) their implied price', () => {
    expect(bookTerms('BUY', 74_995_000n, 100n * USDC, 'FAK', 100)).toEqual({ price: 7400, size: 100_000_000 });
    expect(bookTerms('BUY', 74_995_000n, 100n * USDC, 'FOK', 10)).toEqual({ price: 7490, size: 100_000_000 });
    expect(bookTerms('SELL', 100n * USDC, 74_004_000n, 'FAK', 100)).toEqual({ price: 7500, size: 100_000_000 });
    expect(bookTerms('SELL', 100n * USDC, 74_004_000n, 'FOK', 1)).toEqual({ price: 7401, size: 100_000_000 });
    // the public client's market BUY of $100 at 0.56: 178.5714 shares (0.56000009 per share)
    expect(bookTerms('BUY', 100n * USDC, 178_571_400n, 'FOK', 100)).toEqual({ price: 5600, size: 178_570_000 });
    // out of range stays out of range (the engine refuses it)
    expect(bookTerms('BUY', 1n, 100n * USDC, 'FAK', 100).price).toBe(0);
    expect(bookTerms('SELL', 100n * USDC, 0n, 'FAK', 100).price).toBe(0);
    expect(bookTerms('BUY', 200n * USDC, 100n * USDC, 'FAK', 100).price).toBeGreaterThanOrEqual(PRICE_SCALE);
  });

  it('the size is the shares amount floored to the lot', () => {
    expect(bookTerms('BUY', 1n, 9_999n, 'GTC', 100).size).toBe(0);
    expect(bookTerms('SELL', 12_345_678n, 6_000_000n, 'GTC', 100).size).toBe(12_340_000);
  });

  it("keeps every order of the public client's rounding at the price it was signed for", () => {
    const rng = new Rng(163);
    for (const tick of TICK_SIZES) {
      const tp = tickPips(tick);
      for (let i = 0; i < 400; i++) {
        const pips = tp * rng.int(1, PRICE_SCALE / tp - 1);
        const price = (pips / PRICE_SCALE).toFixed(ROUNDING[tick].price);
        const size = (rng.int(1, 5_000_000) / 100).toFixed(2);
        for (const side of ['BUY', 'SELL'] as const) {
          const l = limitOrderAmounts(side, tick, price, size);
          expect(bookTerms(side, l.makerAmount, l.takerAmount, 'GTC', tp).price).toBe(pips);
          const m = marketOrderAmounts(side, tick, price, size);
          if ((side === 'BUY' ? m.takerAmount : m.makerAmount) < BigInt(LOT_MICRO)) continue;
          expect(bookTerms(side, m.makerAmount, m.takerAmount, 'FAK', tp).price).toBe(pips);
        }
      }
    }
  });

  it('no fill at or better than the terms takes more than signed, or gives less, pro rata', () => {
    const rng = new Rng(2024);
    for (let i = 0; i < 3000; i++) {
      const side: Side = rng.int(0, 1) === 0 ? 'BUY' : 'SELL';
      const tp = [1000, 100, 10, 1][rng.int(0, 3)]!;
      const shares = BigInt(rng.int(LOT_MICRO, 1_000_000_000));
      const collateral = BigInt(rng.int(1, Number(shares)));
      const [maker, taker] = side === 'BUY' ? [collateral, shares] : [shares, collateral];
      const type = ['GTC', 'FAK'][rng.int(0, 1)]!;
      const t = bookTerms(side, maker, taker, type, tp);
      if (t.price < tp || t.price > PRICE_SCALE - tp || t.size === 0) continue;
      if (type === 'GTC' && t.price % tp !== 0) continue; // refused by the engine
      // a fill of f lots at the limit or better (here: the limit itself, the worst case)
      const f = BigInt(LOT_MICRO * rng.int(1, t.size / LOT_MICRO));
      const paid = (f * BigInt(t.price)) / BigInt(PRICE_SCALE); // exact: f is whole lots
      if (side === 'BUY') expect(paid * shares).toBeLessThanOrEqual(collateral * f);
      else expect(paid * shares).toBeGreaterThanOrEqual(collateral * f);
      expect(BigInt(t.size)).toBeLessThanOrEqual(shares);
      if (side === 'BUY')
        expect((BigInt(t.size) * BigInt(t.price)) / BigInt(PRICE_SCALE)).toBeLessThanOrEqual(collateral);
    }
  });
});

describe('grid rounding', () => {
  it('rounds to the tick down and up, exact prices unchanged', () => {
    expect(gridDown(7499, 100)).toBe(7400);
    expect(gridUp(7401, 100)).toBe(7500);
    expect(gridDown(7500, 100)).toBe(7500);
    expect(gridUp(7500, 100)).toBe(7500);
    expect(gridUp(1, 1000)).toBe(1000);
    expect(gridDown(999, 1000)).toBe(0);
  });
});
