/**
 * priceLevel (src/core/events.ts): a level made as an array of two doubles is the plain
 * `[price, size]` tuple in every observable way (values, length, JSON, equality).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { priceLevel } from '../../../src/core/events.ts';

describe('priceLevel', () => {
  it('is the tuple [price, size]', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000 }), fc.oneof(fc.nat(), fc.maxSafeNat()), (p, s) => {
        const l = priceLevel(p, s);
        expect(Array.isArray(l)).toBe(true);
        expect(l).toEqual([p, s]);
        expect(l.length).toBe(2);
        expect(JSON.stringify(l)).toBe(JSON.stringify([p, s]));
        const [a, b] = l;
        expect(Object.is(a, p) && Object.is(b, s)).toBe(true);
      }),
    );
  });
});
