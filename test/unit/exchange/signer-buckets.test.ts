import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/errors.ts';
import type { SignerRequest } from '../../../src/core/signer-limits.ts';
import { SignerLimiter } from '../../../src/exchange/limits/signer-buckets.ts';

const T0 = 1_700_000_000_000;
const A = '0x00000000000000000000000000000000000000aa';
const B = '0x00000000000000000000000000000000000000bb';
const orders = (n: number): SignerRequest => ({ bucket: 'order', cost: n, postCharged: false });
const cancels = (n: number): SignerRequest => ({ bucket: 'cancel', cost: n, postCharged: false });
const CANCEL_ALL: SignerRequest = { bucket: 'cancel', cost: 1, postCharged: true };

describe('SignerLimiter (enforce)', () => {
  it('admits a batch whole or not at all: 4 batches of 15 fill the standard burst, the 5th is refused and takes nothing', () => {
    const l = new SignerLimiter({ mode: 'enforce' });
    for (let i = 0; i < 4; i++) {
      const d = l.evaluate(A, orders(15), T0);
      expect(d).toMatchObject({ ok: true, warning: false, tier: 'standard', remaining: 60 - 15 * (i + 1) });
    }
    const refused = l.evaluate(A, orders(15), T0);
    expect(refused).toMatchObject({ ok: false, overBurst: false, remaining: 0, retryAfterMs: 375 });
    expect(refused.resetAt).toBe(T0 + 375); // 15 tokens at 40 / s
    // nothing was taken: 374 ms later a single order fits, the batch still does not
    expect(l.evaluate(A, orders(15), T0 + 374).ok).toBe(false);
    expect(l.evaluate(A, orders(14), T0 + 374)).toMatchObject({ ok: true, remaining: 0 });
  });

  it('a batch above the burst can never be admitted: refused without a retry time', () => {
    const l = new SignerLimiter({ mode: 'enforce' });
    const d = l.evaluate(A, cancels(121), T0);
    expect(d).toMatchObject({ ok: false, overBurst: true, burst: 120, retryAfterMs: undefined, remaining: 120 });
    // at Gold the same cancel fits, once the bucket (which kept its 120 tokens) refilled one more
    l.setTier(A, 'gold', T0);
    expect(l.evaluate(A, cancels(121), T0)).toMatchObject({
      ok: false,
      overBurst: false,
      tier: 'gold',
      retryAfterMs: 2,
    });
    expect(l.evaluate(A, cancels(121), T0 + 2)).toMatchObject({ ok: true, tier: 'gold', burst: 1200 });
  });

  it('keeps the order and cancel buckets apart, and each signer apart', () => {
    const l = new SignerLimiter({ mode: 'enforce' });
    expect(l.evaluate(A, orders(60), T0).ok).toBe(true);
    expect(l.evaluate(A, orders(1), T0).ok).toBe(false);
    expect(l.evaluate(A, cancels(120), T0)).toMatchObject({ ok: true, remaining: 0 });
    expect(l.evaluate(B, orders(60), T0)).toMatchObject({ ok: true, remaining: 0 });
    expect(l.evaluate(A.toUpperCase().replace('0X', '0x'), orders(1), T0).ok).toBe(false); // same signer, any case
  });

  it('cancel-all: one token first, then one per cancelled order; negative on standard, floored on platinum', () => {
    const l = new SignerLimiter({ mode: 'enforce' });
    expect(l.evaluate(A, CANCEL_ALL, T0)).toMatchObject({ ok: true, remaining: 119 });
    expect(l.settle(A, 'cancel', 200, T0)).toBe(-81);
    // later cancels wait until the bucket holds enough again: 82 tokens at 80 / s
    expect(l.evaluate(A, cancels(1), T0 + 1024)).toMatchObject({ ok: false, retryAfterMs: 1 });
    expect(l.evaluate(A, cancels(1), T0 + 1025)).toMatchObject({ ok: true, remaining: 0 });
    // the first token is checked like any cost: an empty bucket refuses the cancel-all itself
    expect(l.evaluate(A, CANCEL_ALL, T0 + 1025).ok).toBe(false);

    const p = new SignerLimiter({ mode: 'enforce', tier: 'platinum' });
    expect(p.evaluate(A, CANCEL_ALL, T0).ok).toBe(true);
    expect(p.settle(A, 'cancel', 5000, T0)).toBe(0);
    expect(p.evaluate(A, cancels(9), T0 + 10)).toMatchObject({ ok: true, remaining: 0 });
  });

  it('warn mode processes what enforcement would refuse, flags it and charges nothing for it', () => {
    const l = new SignerLimiter({ mode: 'warn' });
    expect(l.evaluate(A, orders(60), T0)).toMatchObject({ ok: true, warning: false, remaining: 0 });
    expect(l.evaluate(A, orders(15), T0)).toMatchObject({ ok: true, warning: true, remaining: 0 });
    expect(l.evaluate(A, orders(61), T0)).toMatchObject({ ok: true, warning: true, overBurst: true });
    // nothing was charged for the flagged ones: 25 ms later one order fits without a warning
    expect(l.evaluate(A, orders(1), T0 + 25)).toMatchObject({ ok: true, warning: false, remaining: 0 });
  });

  it('tiers per address (default standard), the scale, a sweep of idle signers', () => {
    const l = new SignerLimiter({ mode: 'enforce', scale: 10, tiers: { [B]: 'silver' } });
    expect(l.tierOf(A)).toBe('standard');
    expect(l.tierOf(B.toUpperCase().replace('0X', '0x'))).toBe('silver');
    expect(l.evaluate(A, orders(600), T0)).toMatchObject({ ok: true, burst: 600 });
    expect(l.evaluate(B, orders(3000), T0)).toMatchObject({ ok: true, burst: 3000 });
    expect(l.size()).toBe(2);
    expect(l.sweep(T0 + 100)).toBe(0); // still refilling
    expect(l.sweep(T0 + 10_000)).toBe(2);
    expect(l.size()).toBe(0);
    expect(l.tierOf(B)).toBe('silver'); // the override outlives the sweep
    // back to the default: the override is dropped
    l.setTier(B, 'standard', T0);
    expect(l.tierOf(B)).toBe('standard');
    expect(() => l.setTier(A, 'titanium')).toThrow(ConfigError);
    expect(() => new SignerLimiter({ mode: 'loud' as never })).toThrow(ConfigError);
  });
});
