import { describe, expect, it } from 'vitest';
import { ROUND_TRIP_WINDOW, RoundTrips, roundTripOp, roundTripsText } from '../../../src/ops/round-trips.ts';

describe('roundTripOp', () => {
  it('places: POST /order and /orders of the CLOB; cancels: its DELETEs of orders', () => {
    expect(roundTripOp('clob', 'POST', '/order')).toBe('place');
    expect(roundTripOp('clob', 'POST', '/orders')).toBe('place');
    for (const p of ['/order', '/orders', '/cancel-all', '/cancel-market-orders'])
      expect(roundTripOp('clob', 'DELETE', p)).toBe('cancel');
    expect(roundTripOp('clob', 'GET', '/orders')).toBeUndefined();
    expect(roundTripOp('clob', 'POST', '/heartbeats')).toBeUndefined();
    expect(roundTripOp('clob', 'GET', '/order?id=1')).toBeUndefined();
    expect(roundTripOp('gamma', 'POST', '/orders')).toBeUndefined();
  });
});

describe('RoundTrips', () => {
  it('none yet: null figures, and the text says so', () => {
    const r = new RoundTrips();
    expect(r.status()).toEqual({ place: null, cancel: null });
    expect(roundTripsText(r.status())).toBe('none yet');
  });

  it('median, 90th percentile (nearest rank) and slowest of each kind apart', () => {
    const r = new RoundTrips();
    for (let i = 1; i <= 10; i++) r.add('place', i);
    r.add('cancel', 2.345);
    expect(r.status()).toEqual({
      place: { count: 10, window: 10, p50Ms: 5, p90Ms: 9, maxMs: 10 },
      cancel: { count: 1, window: 1, p50Ms: 2.35, p90Ms: 2.35, maxMs: 2.35 },
    });
    expect(roundTripsText(r.status())).toBe(
      'place 5 ms median (p90 9, max 10; 10 answers); cancel 2.35 ms median (p90 2.35, max 2.35; 1 answer)',
    );
  });

  it('a negative or non-finite time is not counted', () => {
    const r = new RoundTrips();
    r.add('place', -1);
    r.add('place', Number.NaN);
    r.add('place', Number.POSITIVE_INFINITY);
    expect(r.status().place).toBeNull();
  });

  it('the figures are of the last window of answers; the count is of all', () => {
    const r = new RoundTrips();
    for (let i = 0; i < ROUND_TRIP_WINDOW; i++) r.add('place', 1000);
    for (let i = 0; i < ROUND_TRIP_WINDOW; i++) r.add('place', 1);
    const f = r.status().place!;
    expect(f).toEqual({ count: 2 * ROUND_TRIP_WINDOW, window: ROUND_TRIP_WINDOW, p50Ms: 1, p90Ms: 1, maxMs: 1 });
    expect(roundTripsText(r.status())).toContain(`${2 * ROUND_TRIP_WINDOW} answers, the last ${ROUND_TRIP_WINDOW})`);
  });
});
