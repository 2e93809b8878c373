/** EngineState.boundFills: a bounded fill-key memory (backtests) with exact positions. */
import { describe, expect, it } from 'vitest';
import type { Micro, Pips } from '../../../src/core/units.ts';
import { EngineState } from '../../../src/engine/state.ts';
import { fill, market, NO, YES } from './fixtures.ts';

function state(cap?: number): EngineState {
  const s = new EngineState([market()]);
  if (cap !== undefined) s.boundFills(cap);
  return s;
}

describe('EngineState.boundFills', () => {
  it('keeps at most `capacity` keys, and positions exactly as without the bound (buys, sells, flips, reversals)', () => {
    const bounded = state(3);
    const all = state();
    let seed = 12345;
    const rnd = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    for (let i = 0; i < 200; i++) {
      const e = fill(`t${i}`, `o${i}`, 'MATCHED', {
        tokenId: rnd(3) === 0 ? NO : YES,
        side: rnd(2) === 0 ? 'BUY' : 'SELL',
        price: (100 * (1 + rnd(98))) as Pips,
        size: (1_000_000 * (1 + rnd(20))) as Micro,
      });
      bounded.apply(e, i);
      all.apply(e, i);
      // a reversal of a recent fill (inside the bound) is exact too
      if (i % 17 === 16) {
        const f = fill(`t${i - 1}`, `o${i - 1}`, 'FAILED');
        bounded.apply(f, i);
        all.apply(f, i);
      }
      expect(bounded.fillCount).toBeLessThanOrEqual(3);
      for (const t of [YES, NO]) {
        const { size, avgPrice, realized } = all.position(t);
        expect(bounded.position(t)).toMatchObject({ size, avgPrice, realized });
      }
    }
    expect(all.fillCount).toBe(200);
    expect(bounded.stats).toEqual(all.stats);
  });

  it('forgets the oldest keys: a repeat of a forgotten fill is counted again (why only a backtest, whose venue never repeats a fill, bounds it)', () => {
    const s = state(2);
    s.apply(fill('t1', 'o1', 'MATCHED'), 1);
    s.apply(fill('t2', 'o2', 'MATCHED'), 2);
    s.apply(fill('t2', 'o2', 'MATCHED'), 3); // remembered: a duplicate
    expect(s.stats).toMatchObject({ fillsCounted: 2, fillDuplicates: 1 });
    s.apply(fill('t3', 'o3', 'MATCHED'), 4); // t1 forgotten
    s.apply(fill('t1', 'o1', 'MATCHED'), 5);
    expect(s.stats).toMatchObject({ fillsCounted: 4, fillDuplicates: 1 });
    expect(() => s.boundFills(0)).toThrow(RangeError);
  });

  it("with `seen` (the daemon's store), a repeat of a forgotten fill is still a duplicate; seeded fills never ask it", () => {
    const stored = new Set<string>();
    const asked: string[] = [];
    const s = new EngineState([market()]);
    s.boundFills(2, (t, o) => {
      asked.push(`${t}|${o}`);
      return stored.has(`${t}|${o}`);
    });
    const feed = (t: string, at: number) => {
      s.apply(fill(t, `o-${t}`, 'MATCHED'), at);
      stored.add(`${t}|o-${t}`); // the loop stores each fill event after the state applied it
    };
    feed('t1', 1);
    feed('t2', 2);
    expect(asked).toEqual([]); // nothing forgotten yet: the store is not asked
    feed('t3', 3); // t1 forgotten (folded into the position)
    const before = s.position(YES).size;
    s.apply(fill('t1', 'o-t1', 'MATCHED'), 4); // the user channel repeats it days later
    expect(s.position(YES).size).toBe(before);
    expect(s.stats).toMatchObject({ fillsCounted: 3, fillDuplicates: 1 });
    feed('t4', 5); // a new fill: asked, not stored, counted
    expect(s.stats).toMatchObject({ fillsCounted: 4, fillDuplicates: 1 });
    expect(asked).toEqual(['t1|o-t1', 't4|o-t4']);
    // a fill seeded (the store's at start, a backfill already stored) is not asked: counted when new
    stored.add('t9|o-t9');
    expect(s.seedFill(fill('t9', 'o-t9', 'MATCHED'))).toBe(true);
    expect(asked).toHaveLength(2);
  });
});

describe('EngineState.boundFills: which key is forgotten', () => {
  it('always the oldest, over thousands of evictions, and with a bound set after fills were seen', () => {
    const s = new EngineState([market()]);
    for (let i = 0; i < 5; i++) s.apply(fill(`t${i}`, `o${i}`, 'MATCHED'), i);
    s.boundFills(2); // t0..t2 forgotten, t3 and t4 kept
    s.apply(fill('t4', 'o4', 'MATCHED'), 5);
    expect(s.stats).toMatchObject({ fillsCounted: 5, fillDuplicates: 1 });
    s.apply(fill('t2', 'o2', 'MATCHED'), 6); // forgotten: counted again (and t3 is forgotten now)
    expect(s.stats).toMatchObject({ fillsCounted: 6, fillDuplicates: 1 });
    // from here on each new key evicts the oldest: the one before it must stay (a duplicate)
    s.apply(fill('u0', 'o', 'MATCHED'), 7);
    let counted = 7;
    let dups = 1;
    for (let i = 1; i < 5_000; i++) {
      s.apply(fill(`u${i}`, 'o', 'MATCHED'), i);
      s.apply(fill(`u${i - 1}`, 'o', 'MATCHED'), i);
      counted++;
      dups++;
      expect(s.stats).toMatchObject({ fillsCounted: counted, fillDuplicates: dups });
      expect(s.fillCount).toBe(2);
    }
    s.apply(fill('u4997', 'o', 'MATCHED'), 5_000); // forgotten
    expect(s.stats).toMatchObject({ fillsCounted: counted + 1, fillDuplicates: dups });
  });
});
