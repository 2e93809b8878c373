/**
 * The shipped strategies' market choice (`selectMarkets`): crypto-fair-value takes the crypto price
 * markets it can price, deterministically; avellaneda, amm and template take two-sided books in
 * their mid range (src/strategy/select.ts `selectTwoSidedMarkets`). Pure: books from levels.
 */
import { describe, expect, it } from 'vitest';
import type { ConditionId, TokenId } from '../../../src/core/ids.ts';
import type { MarketInfo } from '../../../src/core/venue.ts';
import type { BookView } from '../../../src/strategy/api.ts';
import { resolveParams } from '../../../src/strategy/params.ts';
import { levelsBookView, selectTwoSidedMarkets } from '../../../src/strategy/select.ts';
import amm, { AMM_PARAMS, selectAmmMarkets } from '../../../strategies/amm.ts';
import avellaneda, { AVELLANEDA_PARAMS, selectAvellanedaMarkets } from '../../../strategies/avellaneda.ts';
import cryptoFairValue, {
  CRYPTO_FAIR_VALUE_PARAMS,
  cryptoKind,
  selectCryptoMarkets,
} from '../../../strategies/crypto-fair-value.ts';
import template from '../../../strategies/template.ts';
import { marketInfo, SH } from '../strategy/fixtures.ts';

const NOW = Date.parse('2026-11-27T08:00:00Z');
const HOUR = 3_600_000;
const cid = (i: number) => `0x${i.toString(16).padStart(64, '0')}` as ConditionId;
const yes = (i: number) => `${i}1` as TokenId;
const mk = (i: number, question: string, endMs: number, over: Partial<MarketInfo> = {}): MarketInfo =>
  marketInfo(cid(i), yes(i), `${i}2` as TokenId, { question, endDate: new Date(endMs).toISOString(), ...over });
/** Books by market number: [best bid, best ask] in price units (null: that side empty), one level each. */
const booksOf =
  (tops: Record<number, readonly [number | null, number | null]>) =>
  async (t: TokenId): Promise<BookView | undefined> => {
    const top = tops[Number(t.slice(0, -1))];
    if (top === undefined) return undefined;
    const side = (p: number | null) => (p === null ? [] : [[Math.round(p * 10_000), 10 * SH] as const]);
    return levelsBookView(t, side(top[0]), side(top[1]));
  };
const log = { debug() {}, info() {}, warn() {} };

describe('crypto-fair-value selectMarkets', () => {
  const params = resolveParams(CRYPTO_FAIR_VALUE_PARAMS, {});
  const end = NOW + 16 * HOUR;
  const markets = [
    mk(1, 'Will Google release Gemini 4 by June 30?', end),
    mk(2, 'Will Arctic sea ice reach a record low in September 2026?', end),
    mk(3, 'Will the price of Bitcoin be above $96,000 on November 27?', end),
    mk(4, 'Will the price of Ethereum be above $3,650 on November 27?', end),
    mk(5, 'Will the price of Bitcoin be above $100,000 on November 27?', end), // mid 0.03: no room
    mk(6, 'Bitcoin Up or Down on November 27?', end), // the daily window began at midnight: no strike
    mk(7, 'Ethereum Up or Down - Nov 27, 08:15-08:30 UTC', NOW + HOUR / 2), // opens in 15 min
    mk(8, 'Will the President sign a crypto market-structure bill in 2026?', end),
    mk(9, 'Will the price of Solana be above $200 on November 27?', NOW + 60_000), // ends too soon
    mk(10, 'Will the price of Bitcoin be above $98,000 on November 27?', end), // no book yet
    mk(11, 'Will the price of Bitcoin be below $90,000 on November 27?', end, { active: false }),
  ];
  const tops = {
    1: [0.49, 0.51],
    2: [0.49, 0.51],
    3: [0.62, 0.65],
    4: [0.43, 0.45],
    5: [0.02, 0.04],
    6: [0.48, 0.51],
    7: [0.47, 0.5],
    8: [0.49, 0.51],
    9: [0.49, 0.51],
    10: [null, null],
    11: [0.49, 0.51],
  } as const;
  const ctx = { now: NOW, params, book: booksOf(tops) };

  it('takes the crypto price markets it can price, best first: known strike, mid nearest 0.50; windows to open; books not yet two-sided last', async () => {
    expect(await selectCryptoMarkets(markets, ctx)).toEqual([cid(4), cid(3), cid(7), cid(10)]);
  });
  it('without two-sided books yet (a venue just started): the strikes nearest their ladder centre first', async () => {
    const ladder = [
      [21, 'Bitcoin', '$90,000'],
      [22, 'Bitcoin', '$92,000'],
      [23, 'Bitcoin', '$94,000'],
      [24, 'Bitcoin', '$96,000'],
      [25, 'Bitcoin', '$98,000'],
      [26, 'Ethereum', '$3,500'],
      [27, 'Ethereum', '$3,600'],
      [28, 'Ethereum', '$3,700'],
    ] as const;
    const ms = ladder.map(([i, coin, k]) => mk(i, `Will the price of ${coin} be above ${k} on November 27?`, end));
    const empty = booksOf(Object.fromEntries(ladder.map(([i]) => [i, [null, null] as const])));
    // |ln(K / centre)|: 0, 0, 0.0211, 0.0215, 0.0274, 0.0282, 0.0417, 0.0435
    expect(await selectCryptoMarkets(ms, { ...ctx, book: empty })).toEqual([23, 27, 24, 22, 28, 26, 25, 21].map(cid));
  });
  it('is deterministic: the same markets in any order give the same answer', async () => {
    const a = await selectCryptoMarkets(markets, ctx);
    expect(await selectCryptoMarkets([...markets].reverse(), ctx)).toEqual(a);
    expect(await selectCryptoMarkets(markets, ctx)).toEqual(a);
  });
  it('keeps to the symbol param when set', async () => {
    const p = resolveParams(CRYPTO_FAIR_VALUE_PARAMS, { symbol: 'ethusdt' });
    expect(await selectCryptoMarkets(markets, { ...ctx, params: p })).toEqual([cid(4), cid(7)]);
  });
  it('without strikeFromFeed, a window to open is not priceable', async () => {
    const p = resolveParams(CRYPTO_FAIR_VALUE_PARAMS, { strikeFromFeed: false });
    expect(await selectCryptoMarkets(markets, { ...ctx, params: p })).toEqual([cid(4), cid(3), cid(10)]);
  });
  it('is the definition hook', async () => {
    expect(await cryptoFairValue.selectMarkets!(markets, { ...ctx, count: 2, log })).toEqual(
      await selectCryptoMarkets(markets, ctx),
    );
  });
  it('cryptoKind tells threshold and up/down questions from the rest', () => {
    expect(cryptoKind('Will the price of Bitcoin be above $96,000 on November 27?')).toBe('threshold');
    expect(cryptoKind('Will the price of Ethereum be below $3,000 on Dec 1?')).toBe('threshold');
    expect(cryptoKind('Solana Up or Down - Nov 27, 08:00-08:15 UTC')).toBe('updown');
    expect(cryptoKind('Will the President sign a crypto market-structure bill in 2026?')).toBeUndefined();
    expect(cryptoKind('Will Bitcoin ETF inflows top $1B this week?')).toBeUndefined();
  });
});

describe('selectTwoSidedMarkets', () => {
  const end = NOW + 100 * HOUR;
  const markets = [1, 2, 3, 4, 5, 6, 7].map((i) => mk(i, `market ${i}`, i === 6 ? NOW + HOUR / 2 : end));
  const tops = {
    1: [0.3, 0.4], // spread 0.10
    2: [0.5, 0.52], // spread 0.02
    3: [0.05, 0.07], // mid out of range
    4: [0.6, 0.62], // spread 0.02, same as 2: by condition id
    5: [null, 0.5], // one-sided: after the two-sided
    6: [0.5, 0.51], // ends too soon
    7: [0.2, 0.5], // too wide
  } as const;
  const pick = { minMid: 0.1, maxMid: 0.9, maxSpread: 0.1, minMsToEnd: HOUR };

  it('takes two-sided books in range, tightest first, then those not two-sided yet; at most count', async () => {
    const ctx = { now: NOW, count: 9, book: booksOf(tops) };
    expect(await selectTwoSidedMarkets(markets, ctx, pick)).toEqual([cid(2), cid(4), cid(1), cid(5)]);
    expect(await selectTwoSidedMarkets(markets, { ...ctx, count: 2 }, pick)).toEqual([cid(2), cid(4)]);
    expect(await selectTwoSidedMarkets([...markets].reverse(), ctx, pick)).toEqual([cid(2), cid(4), cid(1), cid(5)]);
  });
  it('skips a market whose book cannot be read, or that is inactive', async () => {
    const book = async (t: TokenId) => {
      if (t === yes(2)) throw new Error('unreadable');
      return booksOf(tops)(t);
    };
    const ms = markets.map((m) => (m.market === cid(4) ? { ...m, active: false } : m));
    expect(await selectTwoSidedMarkets(ms, { now: NOW, count: 9, book }, pick)).toEqual([cid(1), cid(5)]);
  });
});

describe('avellaneda, amm and template selectMarkets', () => {
  const markets = [
    mk(1, 'a', NOW + 100 * HOUR),
    mk(2, 'b', NOW + 100 * HOUR),
    mk(3, 'c', NOW + 100 * HOUR),
    mk(4, 'd', NOW + 2 * HOUR),
    mk(5, 'e', NOW + HOUR / 2),
  ];
  const tops = {
    1: [0.12, 0.14], // below avellaneda's range
    2: [0.5, 0.53],
    3: [0.9, 0.93], // the edge: nobody's
    4: [0.4, 0.41], // ends in 2 h: not a pool's
    5: [0.5, 0.51], // ends in 30 min: nobody's (horizon 1 h)
  } as const;
  const ctx = { now: NOW, count: 5, book: booksOf(tops), log };

  it('avellaneda: mid in [0.15, 0.85], ending after the horizon when useEndDate', async () => {
    const params = resolveParams(AVELLANEDA_PARAMS, {});
    expect(await selectAvellanedaMarkets(markets, { ...ctx, params })).toEqual([cid(4), cid(2)]);
    const rolling = resolveParams(AVELLANEDA_PARAMS, { useEndDate: false });
    expect(await selectAvellanedaMarkets(markets, { ...ctx, params: rolling })).toEqual([cid(4), cid(5), cid(2)]);
    expect(await avellaneda.selectMarkets!(markets, { ...ctx, params })).toEqual([cid(4), cid(2)]);
  });
  it('amm: the whole ladder inside [pMin, pMax], a day or more to the end', async () => {
    const params = resolveParams(AMM_PARAMS, {});
    // [0.05 + 0.05, 0.95 - 0.05]
    expect(await selectAmmMarkets(markets, { ...ctx, params })).toEqual([cid(1), cid(2)]);
    const narrow = resolveParams(AMM_PARAMS, { pMin: 0.3, pMax: 0.7, depth: 0.05 });
    expect(await selectAmmMarkets(markets, { ...ctx, params: narrow })).toEqual([cid(2)]);
    const wide = resolveParams(AMM_PARAMS, { pMin: 0.01, pMax: 0.99, depth: 0.01 });
    expect(await selectAmmMarkets(markets, { ...ctx, params: wide })).toEqual([cid(1), cid(2), cid(3)]);
    // a depth wider than the range: the range itself
    const deep = resolveParams(AMM_PARAMS, { pMin: 0.3, pMax: 0.7, depth: 0.5 });
    expect(await selectAmmMarkets(markets, { ...ctx, params: deep })).toEqual([cid(2)]);
    expect(await amm.selectMarkets!(markets, { ...ctx, params })).toEqual([cid(1), cid(2)]);
  });
  it('template: mid in [0.10, 0.90], at most 10 cents wide, more than an hour to the end', async () => {
    const params = resolveParams(template.params, {});
    expect(await template.selectMarkets!(markets, { ...ctx, params })).toEqual([cid(4), cid(1), cid(2)]);
  });
});

describe('crypto-fair-value riskPriceBand', () => {
  it('declares a band wider than the default maxMidDistance, valid for the loader', async () => {
    const { riskPriceBandProblems } = await import('../../../src/strategy/price-band.ts');
    expect(cryptoFairValue.riskPriceBand).toEqual({ maxMidDistance: 0.25 });
    expect(riskPriceBandProblems(cryptoFairValue.riskPriceBand)).toEqual([]);
  });
});
