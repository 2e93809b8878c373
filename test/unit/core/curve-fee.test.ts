/**
 * The CTF Exchange V2 taker fee (core/order-rules.ts `curveFee`): shares × rate × p × (1 − p),
 * floored to 0.00001 of collateral, computed exactly in doubles: equal to the same formula in
 * bigints over the whole range of sizes (whole lots up to the largest order), prices and rates.
 */
import { describe, expect, it } from 'vitest';
import { CURVE_FEE_STEP_MICRO, curveFee, MAX_FEE_RATE_BPS, orderReservation } from '../../../src/core/order-rules.ts';
import { takerFee } from '../../../src/core/fees.ts';
import { LOT_MICRO, MAX_ORDER_MICRO, PRICE_SCALE } from '../../../src/core/units.ts';

/** The reference: size × price × (10^4 − price) × bps / 10^16 micro, floored to the step, in bigints. */
function reference(size: number, price: number, bps: number): number {
  const raw = (BigInt(size) * BigInt(price) * BigInt(PRICE_SCALE - price) * BigInt(bps)) / 10n ** 12n;
  return Number(raw - (raw % BigInt(CURVE_FEE_STEP_MICRO)));
}

describe('curveFee', () => {
  it('is the public formula: 5 shares at 0.55, rate 0.07 → 0.08662 (0.086625 floored to 5 decimals)', () => {
    expect(curveFee(5_000_000, 5500, 700)).toBe(86_620);
    expect(curveFee(25_000_000, 1300, 500)).toBe(141_370); // 25 × 0.05 × 0.13 × 0.87 = 0.141375
    expect(curveFee(10_000_000, 5000, 0)).toBe(0);
  });

  it('equals the bigint reference on edges and on random inputs', () => {
    const sizes = [LOT_MICRO, 5_000_000, 123_450_000, MAX_ORDER_MICRO - LOT_MICRO, MAX_ORDER_MICRO];
    const prices = [1, 2, 10, 100, 4999, 5000, 5001, 9900, 9998, 9999];
    const rates = [1, 7, 100, 499, 700, MAX_FEE_RATE_BPS];
    for (const s of sizes)
      for (const p of prices) for (const r of rates) expect(curveFee(s, p, r)).toBe(reference(s, p, r));
    let x = 12345;
    const next = (n: number) => {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      return x % n;
    };
    for (let i = 0; i < 20_000; i++) {
      const s = (1 + next(MAX_ORDER_MICRO / LOT_MICRO)) * LOT_MICRO;
      const p = 1 + next(PRICE_SCALE - 1);
      const r = next(MAX_FEE_RATE_BPS + 1);
      expect(curveFee(s, p, r)).toBe(reference(s, p, r));
    }
  });

  it('is covered by a BUY reservation and never exceeds rate × the fill collateral', () => {
    for (const p of [100, 2500, 5000, 7500, 9900])
      for (const r of [100, 700, MAX_FEE_RATE_BPS]) {
        const size = 10_000_000;
        const cash = (size * p) / PRICE_SCALE;
        expect(curveFee(size, p, r)).toBeLessThanOrEqual(Math.floor((cash * r) / PRICE_SCALE));
        expect(cash + curveFee(size, p, r)).toBeLessThanOrEqual(orderReservation(true, size, p, r, 2));
      }
  });

  it("a BUY's reservation covers any fills at its price or better, each match's fee apart, under both protocols", () => {
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    for (let i = 0; i < 3000; i++) {
      const protocol = (1 + next(2)) as 1 | 2;
      const limit = 1 + next(PRICE_SCALE - 1);
      const rate = next(MAX_FEE_RATE_BPS + 1);
      const lots = 1 + next(5000);
      const size = lots * LOT_MICRO;
      const need = orderReservation(true, size, limit, rate, protocol);
      // split the size into up to 6 matches at prices at or below the limit (the last takes the rest)
      let left = lots;
      let paid = 0;
      for (let k = 0; left > 0; k++) {
        const part = k === 5 ? left : 1 + next(left);
        left -= part;
        const p = 1 + next(limit);
        const s = part * LOT_MICRO;
        paid += (s * p) / PRICE_SCALE + takerFee(protocol, s, p, rate);
      }
      expect(paid, `protocol ${protocol} limit ${limit} rate ${rate} lots ${lots}`).toBeLessThanOrEqual(need);
    }
  });
});
