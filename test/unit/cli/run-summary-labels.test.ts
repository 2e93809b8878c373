import { describe, expect, it } from 'vitest';
import { summaryLabels } from '../../../src/cli/run-summary.ts';
import type { MarketInfo } from '../../../src/core/venue.ts';

const market = (n: number, question: string): MarketInfo =>
  ({
    market: `0x${String(n).padStart(64, '0')}`,
    question,
    tokens: [
      { tokenId: `${n}1`, outcome: 'Yes' },
      { tokenId: `${n}2`, outcome: 'No' },
    ],
    tick: '0.01',
    minOrderSize: 5_000_000,
    negRisk: false,
    feeRateBps: 0,
    active: true,
    endDate: '2028-11-07T00:00:00Z',
  }) as unknown as MarketInfo;

describe('summaryLabels (how the exit summary names the positions held)', () => {
  const quoted = market(1, 'Will Apple announce a smart home hub?');
  const earlier = market(2, 'Will the Fed raise rates by 25+ bps in December?');
  const unrelated = market(3, 'Will it snow in Lisbon?');
  it('names a position of a market no longer quoted from the listing, by outcome and question', () => {
    const l = summaryLabels([quoted], { listed: [quoted, earlier, unrelated], held: [{ market: earlier.market }] });
    expect(l.tokenLabels['21']).toBe('Yes · Will the Fed raise rates by 25+ bps in…');
    expect(l.tokenLabels['22']).toMatch(/^No · Will the Fed/);
    expect(l.tokenLabels['11']).toMatch(/^Yes · Will Apple/);
    // only the markets held or quoted: the rest of the listing is not carried
    expect(l.tokenLabels['31']).toBeUndefined();
    // the quoted markets' tokens stay what they were
    expect(Object.keys(l.marketTokens)).toEqual([quoted.market]);
  });
  it('a market the listing does not have: no label (the id is shown)', () => {
    const l = summaryLabels([quoted], { listed: [quoted], held: [{ market: earlier.market }] });
    expect(l.tokenLabels['21']).toBeUndefined();
    expect(summaryLabels([quoted])).toEqual(summaryLabels([quoted], {}));
  });
});
