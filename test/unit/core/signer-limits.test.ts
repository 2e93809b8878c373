import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, ValidationError } from '../../../src/core/errors.ts';
import { MAX_BATCH_ORDERS } from '../../../src/core/rate-limits.ts';
import {
  CANCEL_CHUNK_IDS,
  parseSignerTier,
  SIGNER_ROUTE_COSTS,
  SIGNER_TIERS,
  signerRequestOf,
  signerTier,
  TIGHTEST_SIGNER_TIER,
  TokenBucket,
} from '../../../src/core/signer-limits.ts';

const T0 = 1_700_000_000_000;

describe('the per-signer tier table', () => {
  it('is the published table (golden vector: docs "CLOB Trading Rate Limits", volume tiers)', () => {
    const rows = SIGNER_TIERS.map((t) => [
      t.name,
      t.minVolumeUsd,
      t.order.rate,
      t.order.burst,
      t.cancel.rate,
      t.cancel.burst,
      t.negativeCancelBalance,
    ]);
    expect(rows).toEqual([
      ['standard', 0, 40, 60, 80, 120, true],
      ['copper', 30_000, 60, 90, 120, 180, true],
      ['bronze', 50_000, 80, 120, 160, 240, true],
      ['silver', 100_000, 200, 300, 400, 600, true],
      ['gold', 500_000, 400, 600, 800, 1200, true],
      ['platinum', 2_500_000, 450, 675, 900, 1350, false],
      ['diamond', 5_000_000, 525, 787, 1050, 1575, false],
      ['elite', 10_000_000, 600, 900, 1200, 1800, false],
    ]);
  });

  it('starts clients at the tightest tier, and every batch the bot sends fits every tier', () => {
    const tightest = signerTier(TIGHTEST_SIGNER_TIER);
    for (const t of SIGNER_TIERS) {
      expect(tightest.order.rate).toBeLessThanOrEqual(t.order.rate);
      expect(tightest.order.burst).toBeLessThanOrEqual(t.order.burst);
      expect(tightest.cancel.burst).toBeLessThanOrEqual(t.cancel.burst);
      // the executor's batch (15) and the adapter's cancel chunk (120) can always be admitted
      expect(MAX_BATCH_ORDERS).toBeLessThan(t.order.burst);
      expect(CANCEL_CHUNK_IDS).toBeLessThanOrEqual(t.cancel.burst);
    }
    expect(CANCEL_CHUNK_IDS).toBe(120);
  });

  it('parses tier names case-insensitively and refuses unknown ones', () => {
    expect(parseSignerTier(' Gold ')).toBe('gold');
    expect(parseSignerTier('ELITE')).toBe('elite');
    expect(parseSignerTier('titanium')).toBeUndefined();
    expect(parseSignerTier(undefined)).toBeUndefined();
    expect(() => signerTier('titanium')).toThrow(ConfigError);
    expect(() => signerTier('standard', 0)).toThrow(ConfigError);
  });

  it('scales rates and bursts (floored, at least 1)', () => {
    const t = signerTier('diamond', 0.5);
    expect(t.order).toEqual({ rate: 262, burst: 393 });
    expect(t.cancel).toEqual({ rate: 525, burst: 787 });
    expect(signerTier('standard', 0.001).order).toEqual({ rate: 1, burst: 1 });
    expect(signerTier('standard', 10).order).toEqual({ rate: 400, burst: 600 });
  });
});

describe('costs per route', () => {
  it('charges what the venue counts: a batch its entries, a cancel its ids, a cancel-all 1 then its cancelled orders', () => {
    const batch = Array.from({ length: 15 }, () => ({ order: {} }));
    expect(signerRequestOf('POST', '/order', {})).toEqual({ bucket: 'order', cost: 1, postCharged: false });
    expect(signerRequestOf('POST', '/orders', batch)).toEqual({ bucket: 'order', cost: 15, postCharged: false });
    expect(signerRequestOf('DELETE', '/order', { orderID: 'x' })).toEqual({
      bucket: 'cancel',
      cost: 1,
      postCharged: false,
    });
    expect(signerRequestOf('DELETE', '/orders', ['a', 'b', 'c'])).toEqual({
      bucket: 'cancel',
      cost: 3,
      postCharged: false,
    });
    expect(signerRequestOf('DELETE', '/cancel-all')).toEqual({ bucket: 'cancel', cost: 1, postCharged: true });
    expect(signerRequestOf('delete', '/cancel-market-orders/?x=1', {})).toEqual({
      bucket: 'cancel',
      cost: 1,
      postCharged: true,
    });
    // reads and other routes are not counted
    expect(signerRequestOf('GET', '/orders')).toBeUndefined();
    expect(signerRequestOf('GET', '/order')).toBeUndefined();
    expect(signerRequestOf('POST', '/v1/heartbeats')).toBeUndefined();
    expect(SIGNER_ROUTE_COSTS.map((r) => r[0])).toEqual([
      'POST /order',
      'POST /orders',
      'DELETE /order',
      'DELETE /orders',
      'DELETE /cancel-all',
      'DELETE /cancel-market-orders',
    ]);
  });
});

describe('TokenBucket', () => {
  it('starts full, takes all or nothing, and refills exactly rate tokens per second', () => {
    const b = new TokenBucket({ rate: 40, burst: 60 }, T0);
    expect(b.tokens(T0)).toBe(60);
    expect(b.take(61, T0)).toBe(false);
    expect(b.tokens(T0)).toBe(60); // a refused take consumes nothing
    expect(b.take(60, T0)).toBe(true);
    expect(b.take(1, T0)).toBe(false);
    expect(b.waitMs(1, T0)).toBe(25); // 1000 milli-tokens at 40 per ms
    expect(b.take(1, T0 + 24)).toBe(false);
    expect(b.take(1, T0 + 25)).toBe(true);
    expect(b.tokens(T0 + 25)).toBe(0);
    expect(b.tokens(T0 + 1025)).toBe(40);
    expect(b.tokens(T0 + 10_000)).toBe(60); // capped at the burst
    expect(b.waitMs(61, T0 + 10_000)).toBe(Infinity); // never
  });

  it('waitMs is exact: the take succeeds at now + wait, not a ms earlier (any rate, level, cost)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SIGNER_TIERS.flatMap((t) => [t.order, t.cancel])),
        fc.integer({ min: 0, max: 2000 }),
        fc.integer({ min: 1, max: 2000 }),
        fc.integer({ min: 1, max: 1800 }),
        (spec, drainedAt, drain, cost) => {
          const b = new TokenBucket(spec, T0);
          b.take(Math.min(drain, spec.burst), T0 + drainedAt);
          const now = T0 + drainedAt + 1;
          const w = b.waitMs(cost, now);
          if (cost > spec.burst) return w === Infinity;
          const probe = new TokenBucket(spec, T0);
          probe.take(Math.min(drain, spec.burst), T0 + drainedAt);
          if (w > 0 && probe.take(cost, now + w - 1)) return false;
          return b.take(cost, now + w);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('is exact over long runs: a saturating taker gets burst + floor(rate × t) tokens, whatever the steps', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SIGNER_TIERS.flatMap((t) => [t.order, t.cancel])),
        fc.array(fc.integer({ min: 1, max: 3_600_000 }), { minLength: 1, maxLength: 200 }),
        fc.integer({ min: 1, max: 15 }),
        (spec, steps, cost) => {
          const b = new TokenBucket(spec, T0);
          let now = T0;
          let taken = 0;
          while (b.take(cost, now)) taken += cost;
          for (const s of steps) {
            // a long gap refills to the cap: only the last partial refill counts
            now += s;
            while (b.take(cost, now)) taken += cost;
          }
          // rebuild the level from first principles: nothing may drift
          const level = b.milli(now);
          return level >= 0 && level < cost * 1000 && Number.isInteger(level) && taken % cost === 0;
        },
      ),
      { numRuns: 200 },
    );
    // hours of 1 ms steps at 525 / s (Diamond's order rate): every token accounted for
    const b = new TokenBucket({ rate: 525, burst: 787 }, T0);
    let taken = 0;
    const H = 3_600_000;
    for (let t = 0; t <= H; t++) while (b.take(1, T0 + t)) taken++;
    expect(taken).toBe(787 + (525 * H) / 1000);
    expect(b.milli(T0 + H)).toBe(0);
    // a fractional clock is floored, never rounded up
    const f = new TokenBucket({ rate: 40, burst: 60 }, T0);
    f.take(60, T0);
    expect(f.milli(T0 + 24.999)).toBe(960);
  });

  it('post-charges below zero only where allowed, else floors at zero', () => {
    const neg = new TokenBucket({ rate: 80, burst: 120 }, T0, true); // standard cancel bucket
    expect(neg.take(1, T0)).toBe(true);
    neg.charge(200, T0); // a cancel-all that cancelled 200 orders
    expect(neg.tokens(T0)).toBe(-81);
    expect(neg.waitMs(1, T0)).toBe(Math.ceil(82_000 / 80)); // 1025 ms until one token is held again
    expect(neg.take(1, T0 + 1024)).toBe(false);
    expect(neg.take(1, T0 + 1025)).toBe(true);
    const floor = new TokenBucket({ rate: 900, burst: 1350 }, T0, false); // platinum
    floor.take(1, T0);
    floor.charge(5000, T0);
    expect(floor.tokens(T0)).toBe(0);
    expect(floor.take(9, T0 + 10)).toBe(true);
  });

  it('resizes for a tier change: tokens kept up to the new burst; refunds and lowers', () => {
    const b = new TokenBucket({ rate: 200, burst: 300 }, T0);
    b.take(100, T0);
    b.resize({ rate: 40, burst: 60 }, T0);
    expect(b.tokens(T0)).toBe(60);
    b.take(60, T0);
    b.resize({ rate: 600, burst: 900 }, T0 + 100);
    expect(b.tokens(T0 + 100)).toBe(4);
    expect(b.tokens(T0 + 200)).toBe(64);
    b.refund(10_000, T0 + 200);
    expect(b.tokens(T0 + 200)).toBe(900);
    b.lowerTo(-3, T0 + 200);
    expect(b.tokens(T0 + 200)).toBe(-3);
    expect(() => new TokenBucket({ rate: 0, burst: 1 }, T0)).toThrow(ValidationError);
    expect(() => new TokenBucket({ rate: 1, burst: 1.5 }, T0)).toThrow(ValidationError);
  });
});
