/**
 * The lossless JSON of distributed sweeps (src/backtest/lossless-json.ts): every number survives
 * (NaN, ±Infinity, -0, which JSON.stringify turns into null and 0), and no data is mistaken for a tag.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromLosslessJson, toLosslessJson } from '../../../src/backtest/lossless-json.ts';

describe('lossless JSON', () => {
  it('keeps NaN, ±Infinity and -0 where JSON.stringify loses them', () => {
    const row = { sharpe: NaN, a: Infinity, b: -Infinity, c: -0, d: [NaN, -0, 0, 1.5], e: null, s: 'NaN' };
    expect(JSON.parse(JSON.stringify(row))).not.toEqual(row);
    const back = fromLosslessJson(toLosslessJson(row)) as typeof row;
    expect(back).toEqual(row);
    expect(Object.is(back.c, -0)).toBe(true);
    expect(Object.is(back.d[2], 0)).toBe(true);
    expect(Number.isNaN(back.sharpe)).toBe(true);
  });

  it('data that looks like a tag stays data', () => {
    const v = { $: 'NaN', point: { $: '-0', v: 1 }, list: [{ $: '{}', v: {} }] };
    expect(fromLosslessJson(toLosslessJson(v))).toEqual(v);
    const proto = JSON.parse('{"__proto__":{"x":1}}');
    expect(Object.keys(fromLosslessJson(toLosslessJson(proto)) as object)).toEqual(['__proto__']);
  });

  it('round-trips any plain data exactly (property)', () => {
    const num = fc.oneof(fc.double(), fc.constantFrom(NaN, Infinity, -Infinity, -0, 0), fc.integer());
    const data = fc.letrec((tie) => ({
      v: fc.oneof({ depthSize: 'small' }, num, fc.string(), fc.boolean(), fc.constant(null), tie('arr'), tie('obj')),
      arr: fc.array(tie('v'), { maxLength: 4 }),
      obj: fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('$', 'v', '__proto__')), tie('v'), { maxKeys: 4 }),
    })).v;
    fc.assert(
      fc.property(data, (v) => {
        // Object.is on every leaf: toEqual would take -0 for 0
        const same = (a: unknown, b: unknown): boolean => {
          if (typeof a !== 'object' || a === null) return Object.is(a, b);
          if (typeof b !== 'object' || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
          const ka = Object.keys(a);
          const kb = Object.keys(b);
          return (
            ka.length === kb.length &&
            ka.every(
              (k) => Object.hasOwn(b, k) && same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
            )
          );
        };
        expect(same(fromLosslessJson(toLosslessJson(v)), v)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('refuses what is not plain data, and unknown tags', () => {
    expect(() => toLosslessJson({ f: () => 1 })).toThrow(/plain data/);
    expect(() => toLosslessJson(10n)).toThrow(/plain data/);
    expect(() => fromLosslessJson('{"$":"Nope"}')).toThrow(/unknown tag/);
    expect(() => fromLosslessJson('{"$":"NaN","x":1}')).toThrow(/unknown tag/);
  });
});
