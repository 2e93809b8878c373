import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { riskMark } from '../../../src/risk/marks.ts';

const book = (bestBid: number | null, bestAsk: number | null) => ({ bestBid, bestAsk });

describe("riskMark (the loss limit's marks)", () => {
  it('a two-sided book: the mid, rounded to a pip, long or short', () => {
    expect(riskMark(5, book(4000, 4201), 3000)).toBe(4101);
    expect(riskMark(-5, book(4000, 4200), 9000)).toBe(4100);
  });
  it('one side missing: the price the position could be closed at, never better than the last mid', () => {
    // long: bids only -> the best bid; asks only (bids vanished: a collapse) -> min(ask, last mid)
    expect(riskMark(5, book(3000, null), 5000)).toBe(3000);
    expect(riskMark(5, book(null, 800), 5000)).toBe(800);
    expect(riskMark(5, book(null, 6000), 5000)).toBe(5000);
    expect(riskMark(5, book(null, 800), undefined)).toBe(800);
    // short: asks only -> the best ask; bids only -> max(bid, last mid)
    expect(riskMark(-5, book(null, 7000), 5000)).toBe(7000);
    expect(riskMark(-5, book(6000, null), 5000)).toBe(6000);
    expect(riskMark(-5, book(4000, null), 5000)).toBe(5000);
  });
  it('an empty or unknown book keeps the last mid; never seen one: no mark', () => {
    expect(riskMark(5, book(null, null), 4500)).toBe(4500);
    expect(riskMark(-5, undefined, 4500)).toBe(4500);
    expect(riskMark(5, undefined, undefined)).toBeUndefined();
    expect(riskMark(-5, book(null, null), undefined)).toBeUndefined();
  });
  it('property: a long is never marked above, a short never below, what a one-sided book and the last mid allow', () => {
    const px = fc.option(fc.integer({ min: 1, max: 9999 }), { nil: null });
    fc.assert(
      fc.property(
        fc.integer({ min: -1000, max: 1000 }).filter((x) => x !== 0),
        px,
        px,
        fc.option(fc.integer({ min: 1, max: 9999 }), { nil: undefined }),
        (size, bid, ask, last) => {
          fc.pre(bid === null || ask === null || bid < ask);
          const m = riskMark(size, book(bid, ask), last);
          if (bid === null && ask === null) {
            expect(m).toBe(last);
            return;
          }
          expect(m !== undefined && Number.isInteger(m) && m >= 0 && m <= 10_000).toBe(true);
          if (m === undefined) return;
          if (bid !== null && ask !== null) return;
          if (size > 0) {
            if (bid !== null) expect(m).toBe(bid);
            if (ask !== null) expect(m).toBeLessThanOrEqual(ask);
            if (last !== undefined) expect(m).toBeLessThanOrEqual(Math.max(last, bid ?? 0));
          } else {
            if (ask !== null) expect(m).toBe(ask);
            if (bid !== null) expect(m).toBeGreaterThanOrEqual(bid);
            if (last !== undefined) expect(m).toBeGreaterThanOrEqual(Math.min(last, ask ?? 10_000));
          }
        },
      ),
    );
  });
});
