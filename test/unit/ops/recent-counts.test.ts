/** RecentCounts: counts by key over a sliding window, fed with running totals (the status's "last 5 min"). */
import { describe, expect, it } from 'vitest';
import { byCount, RecentCounts } from '../../../src/ops/recent-counts.ts';

describe('RecentCounts', () => {
  it('counts what the totals grew by in the window, and forgets what is older', () => {
    const r = new RecentCounts({ windowMs: 60_000, bucketMs: 10_000 });
    expect(r.windowMs).toBe(60_000);
    r.observe(new Map([['OFF_TICK', 5]]), 1_000);
    r.observe(
      new Map([
        ['OFF_TICK', 8],
        ['PRICE_BAND', 1],
      ]),
      15_000,
    );
    expect(r.counts(15_000)).toEqual({ OFF_TICK: 8, PRICE_BAND: 1 });
    // unchanged totals add nothing
    r.observe(
      new Map([
        ['OFF_TICK', 8],
        ['PRICE_BAND', 1],
      ]),
      20_000,
    );
    expect(r.counts(20_000)).toEqual({ OFF_TICK: 8, PRICE_BAND: 1 });
    // the first bucket (0-10 s) leaves the window at 60 s, the second (10-20 s) at 70 s
    expect(r.counts(60_000)).toEqual({ OFF_TICK: 3, PRICE_BAND: 1 });
    expect(r.counts(70_000)).toEqual({});
    // a bucket reused after a lap starts empty (0-10 s's, now 60-70 s's); 10-20 s's is still in at 61 s
    r.observe(new Map([['OFF_TICK', 10]]), 61_000);
    expect(r.counts(61_000)).toEqual({ OFF_TICK: 5, PRICE_BAND: 1 });
    expect(r.counts(75_000)).toEqual({ OFF_TICK: 2 });
  });

  it('lists counts largest first, zeros left out', () => {
    expect(
      Object.entries(
        byCount(
          new Map([
            ['B', 1],
            ['A', 3],
            ['C', 0],
            ['D', 3],
          ]),
        ),
      ),
    ).toEqual([
      ['A', 3],
      ['D', 3],
      ['B', 1],
    ]);
  });
});
