/** The fleet ledger's pure parts: sums and parsing of published records (src/fleet/fleet-ledger.ts). */
import { describe, expect, it } from 'vitest';
import { parseLedger, sumLedgers } from '../../../src/fleet/fleet-ledger.ts';

describe('sumLedgers', () => {
  it('adds sizes, unsettled sizes and fill counts per token, from records and maps', () => {
    const s = sumLedgers([
      { t1: { market: 'm1', size: 5, unsettled: 1, fills: 2 } },
      new Map([
        ['t1', { market: 'm1', size: -2, unsettled: -1, fills: 3 }],
        ['t2', { market: 'm2', size: 4, unsettled: 0, fills: 1 }],
      ]),
    ]);
    expect(Object.fromEntries(s)).toEqual({
      t1: { market: 'm1', size: 3, unsettled: 0, fills: 5 },
      t2: { market: 'm2', size: 4, unsettled: 0, fills: 1 },
    });
    expect(sumLedgers([]).size).toBe(0);
  });
});

describe('parseLedger', () => {
  it('round-trips a record and refuses anything else', () => {
    const rec = { member: 'a', at: 1, tokens: { t1: { market: 'm1', size: -5, unsettled: 0, fills: 1 } } };
    expect(parseLedger(JSON.stringify(rec))).toEqual(rec);
    expect(parseLedger('nope')).toBeUndefined();
    expect(parseLedger('null')).toBeUndefined();
    expect(parseLedger(JSON.stringify({ ...rec, at: 'x' }))).toBeUndefined();
    expect(
      parseLedger(JSON.stringify({ ...rec, tokens: { t1: { market: 'm1', size: 1.5, unsettled: 0, fills: 1 } } })),
    ).toBeUndefined();
  });
});
