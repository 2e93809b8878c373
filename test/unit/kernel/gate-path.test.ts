/** The fields of a gate refusal's log line: amounts in decimals, a non-whole size or price too (F12). */
import { describe, expect, it } from 'vitest';
import { quoteFields } from '../../../src/kernel/gate-path.ts';

const q = { tokenId: 'T', side: 'BUY', price: 2000, size: 10_000_000 };

describe('quoteFields', () => {
  it('prints price and size in decimals', () => {
    expect(quoteFields(q, 'OFF_TICK', 'why')).toEqual({
      code: 'OFF_TICK',
      reason: 'why',
      token: 'T',
      side: 'BUY',
      price: '0.2',
      size: '10',
    });
  });

  it('a size or price off the whole micro-share or pip is in decimal units too, not raw micro or pips', () => {
    const f = quoteFields({ ...q, price: 2000.5, size: 10_000_000.5 }, 'INVALID_SIZE', 'why');
    expect(f.size).toBe('10.0000005');
    expect(f.price).toBe('0.20005');
    expect(quoteFields({ ...q, size: Number.NaN }, 'INVALID_SIZE', 'why').size).toBe('NaN');
    expect(quoteFields({ ...q, size: '12' as unknown as number }, 'INVALID_SIZE', 'why').size).toBe('12');
  });
});
