import { describe, expect, it } from 'vitest';
import { VENUE_REJECT_CODES } from '../../../src/core/errors.ts';
import {
  bookRuleError,
  isMarketOrderType,
  MAX_FEE_RATE_BPS,
  legacyOrderReservation,
  orderReservation,
  orderShapeError,
  priceOnTick,
  REJECT_MESSAGES,
  type OrderShape,
} from '../../../src/core/order-rules.ts';
import { MAX_BATCH_ORDERS, MAX_CANCEL_IDS } from '../../../src/core/rate-limits.ts';
import { LOT_MICRO, MAX_ORDER_MICRO } from '../../../src/core/units.ts';

const NOW = 1_700_000_000_000;
const TICK = 100; // 0.01
const MIN = 5_000_000; // 5 shares
const FEE = 0;

const ok: OrderShape = {
  type: 'GTC',
  postOnly: false,
  price: 4_500,
  size: 10_000_000,
  feeRateBps: 0,
  side: 'BUY',
  expiresAt: Number.NaN,
};
const check = (o: Partial<OrderShape>, fee = FEE) => orderShapeError({ ...ok, ...o }, TICK, MIN, fee, NOW);

describe('order rules: shape', () => {
  it('accepts a plain order of every type', () => {
    for (const type of ['GTC', 'FOK', 'FAK']) expect(check({ type })).toBeNull();
    expect(check({ type: 'GTD', expiresAt: NOW + 1 })).toBeNull();
    expect(check({ postOnly: true, type: 'GTD', expiresAt: NOW + 1 })).toBeNull();
  });

  it('refuses an unknown order type', () => {
    expect(check({ type: 'IOC' })).toBe('INVALID_ORDER_ERROR');
    expect(check({ type: '' })).toBe('INVALID_ORDER_ERROR');
  });

  it('refuses post-only on FOK and FAK only', () => {
    expect(check({ type: 'FOK', postOnly: true })).toBe('INVALID_POST_ONLY_ORDER_TYPE');
    expect(check({ type: 'FAK', postOnly: true })).toBe('INVALID_POST_ONLY_ORDER_TYPE');
    expect(check({ type: 'GTC', postOnly: true })).toBeNull();
  });

  it('refuses a price off the tick, fractional or outside [tick, 1 - tick]', () => {
    expect(check({ price: 4_550 })).toBe('INVALID_ORDER_MIN_TICK_SIZE');
    expect(check({ price: 4_500.5 })).toBe('INVALID_ORDER_MIN_TICK_SIZE');
    expect(check({ price: 0 })).toBe('INVALID_ORDER_MIN_TICK_SIZE');
    expect(check({ price: 10_000 })).toBe('INVALID_ORDER_MIN_TICK_SIZE');
    expect(check({ price: Number.NaN })).toBe('INVALID_ORDER_MIN_TICK_SIZE');
    expect(check({ price: 100 })).toBeNull();
    expect(check({ price: 9_900 })).toBeNull();
  });

  it('refuses a size under the minimum before the lot and bounds', () => {
    expect(check({ size: MIN - LOT_MICRO })).toBe('INVALID_ORDER_MIN_SIZE');
    // under the minimum AND off the lot: the minimum is checked first
    expect(check({ size: MIN - 1 })).toBe('INVALID_ORDER_MIN_SIZE');
    expect(check({ size: MIN + 1 })).toBe('INVALID_ORDER_ERROR');
    expect(check({ size: MAX_ORDER_MICRO + LOT_MICRO })).toBe('INVALID_ORDER_ERROR');
    expect(check({ size: MAX_ORDER_MICRO })).toBeNull();
    expect(check({ size: 0 })).toBe('INVALID_ORDER_MIN_SIZE');
    expect(orderShapeError({ ...ok, size: 0 }, TICK, 0, FEE, NOW)).toBe('INVALID_ORDER_ERROR');
  });

  it('refuses a fee rate under the market rate or above the cap', () => {
    expect(check({ feeRateBps: 0 }, 100)).toBe('INVALID_ORDER_ERROR');
    expect(check({ feeRateBps: 100 }, 100)).toBeNull();
    expect(check({ feeRateBps: MAX_FEE_RATE_BPS })).toBeNull();
    expect(check({ feeRateBps: MAX_FEE_RATE_BPS + 1 })).toBe('INVALID_ORDER_ERROR');
    expect(check({ feeRateBps: 1.5 })).toBe('INVALID_ORDER_ERROR');
  });

  it('refuses an unknown side', () => {
    expect(check({ side: 'buy' })).toBe('INVALID_ORDER_ERROR');
  });

  it('refuses a GTD order whose expiry is not after now (NaN: none)', () => {
    expect(check({ type: 'GTD', expiresAt: NOW })).toBe('INVALID_ORDER_EXPIRATION');
    expect(check({ type: 'GTD', expiresAt: Number.NaN })).toBe('INVALID_ORDER_EXPIRATION');
    expect(check({ type: 'GTC', expiresAt: 0 })).toBeNull();
  });

  it('checks in the venue order: the first rule broken decides', () => {
    // bad type beats everything else
    expect(check({ type: 'X', price: 1, size: 1, side: 'Z' })).toBe('INVALID_ORDER_ERROR');
    // post-only type beats tick
    expect(check({ type: 'FOK', postOnly: true, price: 1 })).toBe('INVALID_POST_ONLY_ORDER_TYPE');
    // tick beats size
    expect(check({ price: 1, size: 1 })).toBe('INVALID_ORDER_MIN_TICK_SIZE');
    // side beats expiry
    expect(check({ type: 'GTD', side: 'X', expiresAt: 0 })).toBe('INVALID_ORDER_ERROR');
  });
});

describe('order rules: reservation, book, helpers', () => {
  it('reserves notional rounded up plus the most fee its fills can pay for a BUY, the size for a SELL', () => {
    expect(orderReservation(false, 10_000_000, 4_500, 100, 2)).toBe(10_000_000);
    // 10 shares at 0.45 = 4.5 USDC
    expect(orderReservation(true, 10_000_000, 4_500, 0, 2)).toBe(4_500_000);
    // V1 at 1%: 10 × 0.01 × min(0.45, 0.55) = 0.045; V2: 10 × 0.01 × 0.45 × 0.55 = 0.02475
    expect(orderReservation(true, 10_000_000, 4_500, 100, 1)).toBe(4_545_000);
    expect(orderReservation(true, 10_000_000, 4_500, 100, 2)).toBe(4_524_750);
    // above 0.5 too, the fee at its own price: a fill lower pays more fee but less notional (review 49b F2;
    // trial 24 F8: `rate × notional` asked 0.9 of fee, ten times what V2 charges here)
    expect(orderReservation(true, 10_000_000, 9_000, 1000, 1)).toBe(9_000_000 + 100_000);
    expect(orderReservation(true, 10_000_000, 9_000, 1000, 2)).toBe(9_000_000 + 90_000);
    // at 0.80 (7 %): 24.65 × 0.07 × 0.8 × 0.2 = 0.27608
    expect(orderReservation(true, 24_650_000, 8_000, 700, 2)).toBe(19_720_000 + 276_080);
    // a post-only order never takes: no fee
    expect(orderReservation(true, 10_000_000, 9_000, 1000, 2, true)).toBe(9_000_000);
    // 0.01 share at 0.0001 rounds up to 1 micro
    expect(orderReservation(true, LOT_MICRO, 1, 0, 2)).toBe(1);
    // the rule of orders journaled before it: notional + rate × notional
    expect(legacyOrderReservation(true, 10_000_000, 9_000, 1000)).toBe(9_900_000);
    expect(legacyOrderReservation(false, 10_000_000, 9_000, 1000)).toBe(10_000_000);
  });

  it('refuses a crossing post-only order and an unfillable FOK', () => {
    expect(bookRuleError({ type: 'GTC', postOnly: true, size: 10 }, true, 0)).toBe('INVALID_POST_ONLY_ORDER');
    expect(bookRuleError({ type: 'GTC', postOnly: true, size: 10 }, false, 0)).toBeNull();
    expect(bookRuleError({ type: 'GTC', postOnly: false, size: 10 }, true, 0)).toBeNull();
    expect(bookRuleError({ type: 'FOK', postOnly: false, size: 10 }, true, 9)).toBe('FOK_ORDER_NOT_FILLED_ERROR');
    expect(bookRuleError({ type: 'FOK', postOnly: false, size: 10 }, true, 10)).toBeNull();
    expect(bookRuleError({ type: 'FAK', postOnly: false, size: 10 }, true, 0)).toBeNull();
  });

  it('knows the market order types and the tick grid', () => {
    expect(['GTC', 'GTD', 'FOK', 'FAK'].map(isMarketOrderType)).toEqual([false, false, true, true]);
    expect(priceOnTick(10, 10)).toBe(true);
    expect(priceOnTick(9_990, 10)).toBe(true);
    expect(priceOnTick(9_995, 10)).toBe(false);
  });

  it('has a message for every matching-point code, all of them venue codes', () => {
    for (const code of Object.keys(REJECT_MESSAGES)) expect(VENUE_REJECT_CODES).toContain(code);
    expect(Object.keys(REJECT_MESSAGES)).toHaveLength(VENUE_REJECT_CODES.length - 2);
  });

  it('defines the per-request limits once', () => {
    expect(MAX_BATCH_ORDERS).toBe(15);
    expect(MAX_CANCEL_IDS).toBe(3000);
  });
});
