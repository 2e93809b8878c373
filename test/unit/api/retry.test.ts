import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  AuthError,
  NetworkError,
  NotFoundError,
  OrderRejectedError,
  RateLimitError,
  TimeoutError,
  ValidationError,
} from '../../../src/core/errors.ts';
import { createRetryPolicy, retryAfterFromHeaders } from '../../../src/api/http/retry.ts';
import { SharedBudgetUnavailableError } from '../../../src/fleet/window-gate.ts';

const NOW = 1_700_000_000_000;

describe('backoff', () => {
  it('is full jitter, exponential and capped', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.double({ min: 0, max: 0.999999, noNaN: true }), (attempt, r) => {
        const p = createRetryPolicy({ baseMs: 250, capMs: 30_000, random: () => r });
        const d = p.backoff(attempt);
        const bound = Math.min(30_000, 250 * 2 ** (attempt - 1));
        expect(d).toBeGreaterThanOrEqual(0);
        expect(d).toBeLessThanOrEqual(bound);
        expect(d).toBe(Math.floor(r * bound));
      }),
    );
    const max = createRetryPolicy({ random: () => 0.999999 });
    expect(max.backoff(1)).toBe(249);
    expect(max.backoff(3)).toBe(999);
    expect(max.backoff(20)).toBe(29_999);
    expect(createRetryPolicy({ random: () => 0 }).backoff(10)).toBe(0);
  });
  it('refuses bad settings', () => {
    expect(() => createRetryPolicy({ maxAttempts: 0 })).toThrow(RangeError);
    expect(() => createRetryPolicy({ baseMs: 100, capMs: 10 })).toThrow(RangeError);
  });
});

describe('decide', () => {
  const p = createRetryPolicy({ maxAttempts: 4, baseMs: 100, capMs: 10_000, random: () => 0.5 });

  it('429: waits the server reset, then a jittered backoff on top, idempotent or not', () => {
    const e = new RateLimitError('429', 1500);
    for (const idem of [true, false]) {
      const d = p.decide(e, 1, idem);
      expect(d).toEqual({ retry: true, delayMs: 1500 + 50, reason: 'rate-limited' });
    }
    expect(p.decide(e, 3, false).delayMs).toBe(1500 + 200);
    // the reset is honoured however small the backoff
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9000 }), fc.integer({ min: 1, max: 3 }), (ra, attempt) => {
        const d = p.decide(new RateLimitError('x', ra), attempt, false);
        expect(d.retry).toBe(true);
        expect(d.delayMs).toBeGreaterThanOrEqual(ra);
        expect(d.delayMs).toBeLessThanOrEqual(ra + 100 * 2 ** (attempt - 1));
      }),
    );
  });

  it('425/503: waits Retry-After (or a backoff) and retries, even a non-idempotent request', () => {
    const withRa = new NetworkError('425', 'SERVICE_UNAVAILABLE', { details: { retryAfterMs: 1000 } });
    expect(p.decide(withRa, 1, false)).toEqual({ retry: true, delayMs: 1050, reason: 'unavailable' });
    const noRa = new NetworkError('503', 'SERVICE_UNAVAILABLE');
    expect(p.decide(noRa, 1, false)).toEqual({ retry: true, delayMs: 100, reason: 'unavailable' });
  });

  it("a fleet member's shared budgets unavailable (its Redis away, nothing sent): not retried", () => {
    const e = new SharedBudgetUnavailableError("fleet request budgets: the fleet's Redis is unreachable");
    expect(e.code).toBe('FLEET_BUDGET_UNAVAILABLE');
    for (const idempotent of [true, false])
      expect(p.decide(e, 1, idempotent)).toEqual({ retry: false, delayMs: 0, reason: 'fleet-offline' });
  });

  it('timeouts and connection errors: only idempotent requests are retried', () => {
    for (const e of [new TimeoutError('t', 500), new NetworkError('reset'), new NetworkError('500')]) {
      expect(p.decide(e, 1, true)).toEqual({ retry: true, delayMs: 100, reason: 'network' });
      expect(p.decide(e, 1, false)).toEqual({ retry: false, delayMs: 0, reason: 'not-idempotent' });
    }
  });

  it('never retries fatal errors, and stops after maxAttempts', () => {
    for (const e of [
      new AuthError('a'),
      new ValidationError('v'),
      new NotFoundError('n'),
      new OrderRejectedError('INVALID_ORDER_MIN_SIZE', 'm'),
      new Error('bug'),
    ]) {
      expect(p.decide(e, 1, true)).toEqual({ retry: false, delayMs: 0, reason: 'fatal' });
    }
    expect(p.decide(new TimeoutError('t', 1), 4, true)).toEqual({
      retry: false,
      delayMs: 0,
      reason: 'attempts-exhausted',
    });
    expect(p.decide(new RateLimitError('r', 1), 4, true).retry).toBe(false);
  });
});

describe('retryAfterFromHeaders', () => {
  it('takes the later of Retry-After and X-RateLimit-Reset', () => {
    expect(retryAfterFromHeaders({ 'retry-after': '2' }, NOW)).toBe(2000);
    expect(retryAfterFromHeaders({ 'x-ratelimit-reset': String((NOW + 3500) / 1000) }, NOW)).toBe(3500);
    expect(
      retryAfterFromHeaders({ 'retry-after': '1', 'x-ratelimit-reset': String(Math.ceil((NOW + 2500) / 1000)) }, NOW),
    ).toBe(3000);
    expect(retryAfterFromHeaders({ 'retry-after': '5', 'x-ratelimit-reset': String(NOW / 1000 + 1) }, NOW)).toBe(5000);
  });
  it('reads unix ms, relative seconds and HTTP dates; ignores junk', () => {
    expect(retryAfterFromHeaders({ 'x-ratelimit-reset': String(NOW + 750) }, NOW)).toBe(750);
    expect(retryAfterFromHeaders({ 'x-ratelimit-reset': '3' }, NOW)).toBe(3000);
    expect(retryAfterFromHeaders({ 'retry-after': new Date(NOW + 4000).toUTCString() }, NOW)).toBe(4000);
    expect(retryAfterFromHeaders({ 'x-ratelimit-reset': String(NOW / 1000 - 10) }, NOW)).toBe(0);
    expect(retryAfterFromHeaders({ 'retry-after': 'soon' }, NOW)).toBeUndefined();
    expect(retryAfterFromHeaders({}, NOW)).toBeUndefined();
  });
});
