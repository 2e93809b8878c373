/**
 * Counts by code and the strategy's first error as every human-readable output shows them
 * (review-2 F6): one order (most first, ties by code), one text form (`OFF_TICK x30`).
 */
import { describe, expect, it } from 'vitest';
import { codeCountsText, countsTotal, firstErrorText, sortedCounts } from '../../../src/core/code-counts.ts';

describe('code counts', () => {
  it('sorts most first, ties by code, zeros left out; from a record or a map', () => {
    const c = { PRICE_BAND: 2, OFF_TICK: 30, NO_INVENTORY: 2, POSITION: 0 };
    expect(Object.entries(sortedCounts(c))).toEqual([
      ['OFF_TICK', 30],
      ['NO_INVENTORY', 2],
      ['PRICE_BAND', 2],
    ]);
    expect(sortedCounts(new Map(Object.entries(c)))).toEqual(sortedCounts(c));
    expect(sortedCounts(undefined)).toEqual({});
  });

  it('prints one text form: "OFF_TICK x30, NO_INVENTORY x2"', () => {
    expect(codeCountsText({ PRICE_BAND: 2, OFF_TICK: 30, NO_INVENTORY: 2 })).toBe(
      'OFF_TICK x30, NO_INVENTORY x2, PRICE_BAND x2',
    );
    expect(codeCountsText({})).toBe('');
    expect(codeCountsText(undefined)).toBe('');
    expect(countsTotal({ OFF_TICK: 30, PRICE_BAND: 2 })).toBe(32);
    expect(countsTotal(new Map([['A', 1]]))).toBe(1);
  });

  it("names the strategy's first error with where it was thrown when known", () => {
    expect(firstErrorText({ message: 'boom', at: '/x/bad.ts:15:44' })).toBe('boom at /x/bad.ts:15:44');
    expect(firstErrorText({ message: 'boom', at: null })).toBe('boom');
    expect(firstErrorText({ message: 'invalid output: x' })).toBe('invalid output: x');
    expect(firstErrorText(null)).toBe('');
    expect(firstErrorText(undefined)).toBe('');
  });
});
