/**
 * withOwn (the simulated venue adds our resting sizes to the recorded levels it hands the engine):
 * equal to the plain definition (add where a level exists, else insert, best first) for any
 * levels and own sizes, sorted or not.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withOwn } from '../../../../src/venues/sim/sim-venue.ts';
import type { PriceLevel } from '../../../../src/core/events.ts';
import type { Micro, Pips } from '../../../../src/core/units.ts';

/** The definition: the recorded levels plus ours, one level per price, best first. */
function reference(levels: readonly PriceLevel[], own: ReadonlyMap<number, number>, descending: boolean): PriceLevel[] {
  const out = levels.map((l) => [l[0], (l[1] + (own.get(l[0]) ?? 0)) as Micro] as PriceLevel);
  const seen = new Set<number>(levels.map((l) => l[0]));
  for (const [p, s] of own) if (!seen.has(p)) out.push([p as Pips, s as Micro]);
  return out.sort(descending ? (a, b) => b[0] - a[0] : (a, b) => a[0] - b[0]);
}

const price = fc.integer({ min: 1, max: 60 }).map((x) => x * 10);
const levelsArb = fc.uniqueArray(fc.tuple(price, fc.integer({ min: 1, max: 1e9 })), {
  selector: (l) => l[0],
  maxLength: 14,
});
const ownArb = fc.uniqueArray(
  fc.tuple(fc.oneof(price, fc.integer({ min: 1, max: 600 })), fc.integer({ min: 1, max: 1e8 })),
  { selector: (l) => l[0], maxLength: 4 },
);

describe('withOwn', () => {
  it('equals the definition for best-first levels (the decoder gives them so) and for unsorted ones', () => {
    fc.assert(
      fc.property(
        levelsArb,
        ownArb,
        fc.boolean(),
        fc.constantFrom('best-first', 'as generated'),
        (lv, ownList, descending, order) => {
          let levels = lv.map(([p, s]) => [p, s] as unknown as PriceLevel);
          if (order === 'best-first') levels = levels.sort(descending ? (a, b) => b[0] - a[0] : (a, b) => a[0] - b[0]);
          const own = new Map(ownList);
          const got = withOwn(
            levels.map((l) => [l[0], l[1]] as PriceLevel),
            own,
            descending,
          );
          // every price of ours is a recorded level: sizes added in place, the recorded order kept;
          // else the definition (best first)
          const inPlace = ownList.every(([p]) => levels.some((l) => l[0] === p));
          expect(got).toEqual(
            inPlace
              ? levels.map((l) => [l[0], (l[1] + (own.get(l[0]) ?? 0)) as Micro])
              : reference(levels, own, descending),
          );
        },
      ),
      { numRuns: 3000 },
    );
  });
});
