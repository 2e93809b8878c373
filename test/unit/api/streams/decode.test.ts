import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bestPips,
  decimalToInt,
  feeBps,
  levelPips,
  sizeMicro,
  tickPipsOf,
  timestampMs,
} from '../../../../src/api/streams/decode.ts';
import { formatAmount, formatPrice, parseFixed } from '../../../../src/core/units.ts';

/** The reference: units.ts parseFixed (exact), -1 when it refuses or the value passes 2^53. */
function reference(s: string, decimals: number): number {
  try {
    const v = parseFixed(s, decimals, 'exact');
    return v > BigInt(Number.MAX_SAFE_INTEGER) ? -1 : Number(v);
  } catch {
    return -1;
  }
}

const decimalish = fc.oneof(
  fc.stringMatching(/^[0-9]{0,6}(\.[0-9]{0,9})?$/),
  fc.stringMatching(/^[0-9.]{0,12}$/),
  fc.stringMatching(/^\s?[0-9]{1,3}\.?[0-9]{0,7}\s?$/),
  fc.string({ maxLength: 12 }),
  fc.constantFrom(
    '',
    '.',
    '.5',
    '5.',
    '0',
    '00.10',
    '1e-3',
    '-1',
    '+1',
    '0x10',
    '１',
    '9007199254740993',
    '1'.repeat(81),
    ' 0.5',
    '0.5\n',
    '0.50000000',
    '0.123456789',
  ),
);

describe('decimalToInt', () => {
  it('reads exactly what parseFixed reads (exact mode), for any string', () => {
    fc.assert(
      fc.property(decimalish, fc.integer({ min: 0, max: 6 }), (s, d) => {
        expect(decimalToInt(s, d)).toBe(reference(s, d));
      }),
      { numRuns: 5000 },
    );
  });
  it('round-trips every formatted price and amount', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 2 ** 40 }), (p, a) => {
        expect(decimalToInt(formatPrice(p), 4)).toBe(p);
        expect(decimalToInt(formatAmount(a), 6)).toBe(a);
      }),
    );
  });
  it('examples', () => {
    expect(decimalToInt('0.56', 4)).toBe(5600);
    expect(decimalToInt('0.5600000', 4)).toBe(5600);
    expect(decimalToInt('0.56001', 4)).toBe(-1);
    expect(decimalToInt('21.04', 6)).toBe(21_040_000);
    expect(decimalToInt('9007199254.740991', 6)).toBe(Number.MAX_SAFE_INTEGER);
    expect(decimalToInt('9007199254.740992', 6)).toBe(-1);
  });
});

describe('unit helpers', () => {
  it('level prices are in [1, 9999] pips; best prices allow 0 (empty side)', () => {
    expect(levelPips('0.01')).toBe(100);
    expect(levelPips('0')).toBe(-1);
    expect(levelPips('1')).toBe(-1);
    expect(levelPips('0.9999')).toBe(9999);
    expect(bestPips('0')).toBe(0);
    expect(bestPips('1')).toBe(-1);
    expect(sizeMicro('0')).toBe(0);
    expect(sizeMicro('12.5')).toBe(12_500_000);
    expect(sizeMicro('1.0000001')).toBe(-1);
  });
  it('tick sizes: the venue ticks only, string or number', () => {
    expect(['0.1', '0.01', '0.001', '0.0001', 0.01, '0.05', 0, '1', 'x'].map(tickPipsOf)).toEqual([
      1000, 100, 10, 1, 100, -1, -1, -1, -1,
    ]);
  });
  it('timestamps: ms strings and numbers; seconds below 1e11 and microseconds from 1e14 are scaled; garbage is -1', () => {
    expect(timestampMs('1760000000123')).toBe(1_760_000_000_123);
    expect(timestampMs(1_760_000_000_123)).toBe(1_760_000_000_123);
    expect(timestampMs('1760000000')).toBe(1_760_000_000_000);
    // microseconds (never taken as ms: that would be the year 57,000)
    expect(timestampMs('1760000000123456')).toBe(1_760_000_000_123);
    expect(timestampMs(1_760_000_000_123_456)).toBe(1_760_000_000_123);
    expect(timestampMs('99999999999999')).toBe(99_999_999_999_999);
    expect(timestampMs('17600000001x')).toBe(-1);
    expect(timestampMs('')).toBe(-1);
    expect(timestampMs(-5)).toBe(-1);
    expect(timestampMs(null)).toBe(-1);
  });
  it('fee rates', () => {
    expect([feeBps('0'), feeBps(100), feeBps('12.5'), feeBps(-1), feeBps('abc'), feeBps(null)]).toEqual([
      0, 100, -1, -1, -1, -1,
    ]);
  });
});
