/**
 * The online fill figures (src/backtest/fill-stats.ts) against their definition (metrics.ts
 * `fillStatsOf` on the complete list), on random fill sequences; and the bounded buffers.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FillPointSampler, FillRowRing, FillStatsAccumulator } from '../../../src/backtest/fill-stats.ts';
import { fillStatsOf, MARKOUT_HORIZONS_MS } from '../../../src/backtest/metrics.ts';
import type { FillRow } from '../../../src/backtest/runner.ts';
import { T0 } from './fixtures.ts';

const TOKENS = ['yes', 'no'];

const fillArb = fc.record({
  dt: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 5000 }), fc.double({ min: 0.001, max: 3000, noNaN: true })),
  tokenId: fc.constantFrom('yes', 'no', 'other'),
  side: fc.constantFrom('BUY' as const, 'SELL' as const),
  price: fc.integer({ min: 1, max: 9999 }),
  size: fc.integer({ min: 1, max: 50_000_000 }),
  fee: fc.integer({ min: 0, max: 100_000 }),
  maker: fc.boolean(),
  // mids at the horizons: pips, may be x.5, or unknown
  mids: fc.array(
    fc.option(
      fc.integer({ min: 2, max: 19_998 }).map((x) => x / 2),
      { nil: null },
    ),
    { minLength: 3, maxLength: 3 },
  ),
});

describe('fill figures online', () => {
  it('equal the figures of the complete list, to the last bit', () => {
    fc.assert(
      fc.property(
        fc.array(fillArb, { maxLength: 60 }),
        fc.integer({ min: 0, max: 60_000_000 }),
        fc.integer({ min: 0, max: 20_000 }),
        (gen, limit, tail) => {
          let t = T0;
          const rows: FillRow[] = gen.map((g, i) => {
            t += g.dt;
            return {
              t,
              tradeId: `t${i}`,
              orderId: `o${i}`,
              market: 'm',
              tokenId: g.tokenId,
              side: g.side,
              price: g.price,
              size: g.size,
              fee: g.fee,
              role: g.maker ? 'MAKER' : 'TAKER',
              mid: null,
              markouts: [...g.mids],
            };
          });
          const endMs = t + tail;
          const acc = new FillStatsAccumulator({ horizonsMs: MARKOUT_HORIZONS_MS, limit, startMs: T0, tokens: TOKENS });
          // fills as they come; each horizon's mids in the order of the fills (as the runner's timers fire)
          for (const f of rows) acc.add(f);
          MARKOUT_HORIZONS_MS.forEach((_, i) => {
            for (const f of rows) acc.markout(f, i, f.markouts[i]!);
          });
          expect(JSON.stringify(acc.result(endMs))).toBe(JSON.stringify(fillStatsOf(rows, limit, T0, endMs, TOKENS)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a void fill comes out of the counts, sums and markouts', () => {
    const mk = (i: number, o: Partial<FillRow> = {}): FillRow => ({
      t: T0 + i * 1000,
      tradeId: `t${i}`,
      orderId: `o${i}`,
      market: 'm',
      tokenId: 'yes',
      side: 'BUY',
      price: 5000,
      size: 10_000_000,
      fee: 7,
      role: 'MAKER',
      mid: null,
      markouts: [5100, null, 4900],
      ...o,
    });
    const a = mk(1);
    const b = mk(2, { side: 'SELL', role: 'TAKER', price: 6000, markouts: [5900, 5800, null] });
    const acc = new FillStatsAccumulator({ horizonsMs: MARKOUT_HORIZONS_MS, limit: 0, startMs: T0, tokens: TOKENS });
    for (const f of [a, b]) {
      acc.add(f);
      f.markouts.forEach((m, i) => acc.markout(f, i, m));
    }
    acc.remove(b, b.markouts);
    expect(acc.result(T0 + 5000)).toEqual(fillStatsOf([a], 0, T0, T0 + 5000, TOKENS));
  });
});

describe('bounded buffers', () => {
  it('FillRowRing keeps the last `cap` rows in order, with their markouts, and can take one back', () => {
    const row = (i: number): FillRow => ({
      t: T0 + i + 0.25,
      tradeId: `t${i}`,
      orderId: `o${i}`,
      market: 'm',
      tokenId: i % 2 ? 'no' : 'yes',
      side: i % 3 ? 'BUY' : 'SELL',
      price: 100 + i,
      size: 1_000_000 * i,
      fee: i,
      role: i % 2 ? 'MAKER' : 'TAKER',
      mid: i % 4 ? 100.5 + i : null,
      markouts: [null, null, null],
    });
    const r = new FillRowRing(3, 3);
    expect(r.toArray()).toEqual([]);
    const nos = [1, 2, 3, 4, 5, 6, 7].map((i) => r.push(row(i)));
    expect(nos).toEqual([0, 1, 2, 3, 4, 5, 6]);
    r.setMarkout(5, 0, 5000.5); // row 6 (still kept)
    r.setMarkout(1, 0, 42); // row 2: gone, ignored
    expect(r.toArray()).toEqual([row(5), { ...row(6), markouts: [5000.5, null, null] }, row(7)]);
    expect(JSON.stringify(r.toArray()[0])).toBe(JSON.stringify(row(5))); // same keys, same order
    expect(r.remove('t6', 'o6')).toEqual({ no: 5, row: { ...row(6), markouts: [5000.5, null, null] } });
    expect(r.remove('t6', 'o6')).toBeUndefined();
    expect(r.remove('t1', 'o1')).toBeUndefined();
    r.setMarkout(5, 1, 1); // a void row's markout: ignored
    expect(r.toArray()).toEqual([row(5), row(7)]);
    r.push(row(8));
    expect(r.toArray()).toEqual([row(7), row(8)]);
    r.push(row(9));
    expect(r.toArray()).toEqual([row(7), row(8), row(9)]);
    const none = new FillRowRing(0, 3);
    expect(none.push(row(1))).toBe(0);
    none.setMarkout(0, 0, 1);
    expect(none.toArray()).toEqual([]);
  });

  it('FillPointSampler keeps every fill under the bound, then one in `stride` (the 1st, (stride+1)th, ...)', () => {
    for (const n of [0, 1, 7, 8, 9, 100, 1000]) {
      const s = new FillPointSampler(8);
      for (let i = 0; i < n; i++)
        s.add({ t: i, tokenId: 'yes', side: i % 2 ? 'SELL' : 'BUY', price: i, size: i, fee: 0, role: 'MAKER' });
      const p = s.result();
      expect(p.t.length).toBeLessThan(8);
      expect(p.t).toEqual(Array.from({ length: n }, (_, i) => i).filter((i) => i % p.stride === 0));
      expect(p.side).toEqual(p.t.map((i) => (i % 2 ? 'SELL' : 'BUY')));
      if (n < 8) expect(p.stride).toBe(1);
    }
  });
});
