/**
 * bot.marketFilters (src/cli/market-filters.ts): the candidates of an automatic pick and of
 * `mmkit record --top`, with the window length of up/down markets read from their questions.
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MARKET_FILTERS,
  filterCandidates,
  passesMarketFilters,
  windowMinutes,
} from '../../../src/cli/market-filters.ts';

const NOW = Date.parse('2026-11-27T08:00:00Z');
const H = 3_600_000;
const m = (question: string, endInH: number, over: { negRisk?: boolean; active?: boolean } = {}) => ({
  question,
  endDate: new Date(NOW + endInH * H).toISOString(),
  negRisk: false,
  ...over,
});

describe('windowMinutes', () => {
  it('reads the window an up/down question names', () => {
    expect(windowMinutes('Bitcoin Up or Down - Nov 27, 08:05-08:10 UTC')).toBe(5);
    expect(windowMinutes('Ethereum Up or Down - Nov 27, 08:00-08:15 UTC')).toBe(15);
    expect(windowMinutes('Solana Up or Down - Nov 27, 23:45-00:00 UTC')).toBe(15);
    expect(windowMinutes('Bitcoin Up or Down - November 27, 8:00AM-8:15AM ET')).toBe(15);
    expect(windowMinutes('Bitcoin Up or Down - November 27, 11:45PM-12:00AM ET')).toBe(15);
    expect(windowMinutes('XRP Up or Down - November 27, 8AM ET')).toBe(60);
    expect(windowMinutes('Bitcoin Up or Down on November 27?')).toBe(1440);
  });
  it('finds none where the question names none', () => {
    expect(windowMinutes('Will the price of Bitcoin be above $96,000 on November 27?')).toBeUndefined();
    expect(windowMinutes('Will the final score be 2-1?')).toBeUndefined();
    expect(windowMinutes('Will 2026 be the hottest year on record?')).toBeUndefined();
    expect(windowMinutes('Will the Fed cut rates 2025-2026?')).toBeUndefined();
  });
});

describe('passesMarketFilters and filterCandidates', () => {
  const all = [
    m('Bitcoin Up or Down - Nov 27, 08:05-08:10 UTC', 0.2),
    m('Bitcoin Up or Down - Nov 27, 10:00-10:15 UTC', 2.25),
    m('XRP Up or Down - November 27, 11AM ET', 4),
    m('Bitcoin Up or Down on November 27?', 16),
    m('Will the price of Bitcoin be above $96,000 on November 27?', 16),
    m('Will Avery Collins win the 2028 US Presidential Election?', 20_000, { negRisk: true }),
    m('Will Starship reach orbit by June 30, 2026?', 4000, { active: false }),
    { question: 'no end date', endDate: null, negRisk: false },
  ];
  const q = (xs: readonly { question: string }[]) => xs.map((x) => x.question.slice(0, 24));

  it('the defaults: active, ending in more than an hour; windows of any length', () => {
    expect(q(filterCandidates(all, undefined, NOW))).toEqual(q([all[1]!, all[2]!, all[3]!, all[4]!, all[5]!]));
    expect(q(filterCandidates(all, DEFAULT_MARKET_FILTERS, NOW))).toEqual(q(filterCandidates(all, {}, NOW)));
  });
  it('minWindowMinutes leaves out shorter windows and keeps markets that name none', () => {
    expect(q(filterCandidates(all, { minWindowMinutes: 60 }, NOW))).toEqual(q([all[2]!, all[3]!, all[4]!, all[5]!]));
    expect(q(filterCandidates(all, { minWindowMinutes: 61 }, NOW))).toEqual(q([all[3]!, all[4]!, all[5]!]));
    expect(q(filterCandidates(all, { minWindowMinutes: 1441 }, NOW))).toEqual(q([all[4]!, all[5]!]));
  });
  it('minHoursToEnd, negRisk and search', () => {
    expect(q(filterCandidates(all, { minHoursToEnd: 24 }, NOW))).toEqual(q([all[5]!]));
    expect(q(filterCandidates(all, { negRisk: 'only' }, NOW))).toEqual(q([all[5]!]));
    expect(q(filterCandidates(all, { negRisk: 'exclude' }, NOW))).toEqual(q([all[1]!, all[2]!, all[3]!, all[4]!]));
    expect(q(filterCandidates(all, { search: 'PRICE OF' }, NOW))).toEqual(q([all[4]!]));
  });
  it('a market without a known end is never a candidate', () => {
    expect(passesMarketFilters(all[7]!, { ...DEFAULT_MARKET_FILTERS, minHoursToEnd: 0 }, NOW)).toBe(false);
    expect(passesMarketFilters({ ...all[4]!, endDate: '' }, DEFAULT_MARKET_FILTERS, NOW)).toBe(false);
  });
});
