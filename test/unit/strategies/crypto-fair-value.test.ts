/**
 * `crypto-fair-value` (strategies/crypto-fair-value.ts), driven with synthetic `price_tick` events:
 * the market terms from metadata (the paper world's question formats), the digital-option fair
 * value and exact quotes around it (hand-computed below), staleness (no live tick for staleMs, a
 * dropped price stream, snapshot history only) pulling the quotes, the up/down strike taken from
 * the feed, expiry, edges near 0 and 1, inventory skew and complement routing.
 * Prices in pips (0.01 = 100), sizes in micro-shares (SH = one share).
 */
import { describe, expect, it } from 'vitest';
import type { MmkitEvent, PriceTickEvent } from '../../../src/core/events.ts';
import type { QuoteIntent } from '../../../src/core/intents.ts';
import { loadStrategy } from '../../../src/strategy/loader.ts';
import { SECONDS_PER_YEAR } from '../../../src/strategy/models.ts';
import { resolveParams } from '../../../src/strategy/params.ts';
import { MarketRegistry } from '../../../src/strategy/quoting.ts';
import cfv, {
  CRYPTO_FAIR_VALUE_PARAMS,
  cryptoConfig,
  cryptoTerms,
  fairProbability,
  inferSymbol,
  quoteCrypto,
  ReferenceFeed,
} from '../../../strategies/crypto-fair-value.ts';
import {
  bookView,
  ctxFor,
  fakeState,
  M1,
  M2,
  marketInfo,
  NO1,
  NO2,
  SH,
  snapshotEvent,
  timerEvent,
  YES1,
  YES2,
} from '../strategy/fixtures.ts';

const SIGMA = 0.6 / Math.sqrt(SECONDS_PER_YEAR); // the default prior: 60% a year = 1.0684e-4 per sqrt(s)
const END = Date.parse('2030-01-05T00:00:00Z');
const ABOVE_Q = 'Will the price of Bitcoin be above $95,000 on Jan 5?';
const above = (o: Parameters<typeof marketInfo>[3] = {}) =>
  marketInfo(M1, YES1, NO1, { question: ABOVE_Q, endDate: '2030-01-05T00:00:00Z', tick: '0.001', ...o });
const cfgOf = (o: Record<string, unknown> = {}) => cryptoConfig(resolveParams(CRYPTO_FAIR_VALUE_PARAMS, o));
const simple = (qs: readonly QuoteIntent[]) =>
  qs.map((q) => `${q.tokenId === YES1 ? 'Y' : 'N'} ${q.side} ${q.price} ${q.size / SH}`);
const tick = (value: number, at: number, snapshot = false, symbol = 'btcusdt'): PriceTickEvent => ({
  type: 'price_tick',
  symbol,
  value,
  snapshot,
  venueTime: at,
  recvTime: at,
});
/** A loose book that neither the bid nor the ask crosses. */
const looseBook = (bid = 4000, ask = 9900) => bookView(YES1, [[bid, 100 * SH]], [[ask, 100 * SH]]);

describe('crypto-fair-value: market terms', () => {
  it('infers the feed symbol from the question', () => {
    expect(inferSymbol(ABOVE_Q)).toBe('btcusdt');
    expect(inferSymbol('Ethereum Up or Down - Jan 5, 10:00-10:15 UTC')).toBe('ethusdt');
    expect(inferSymbol('Will SOL be above $180?')).toBe('solusdt');
    expect(inferSymbol('XRP Up or Down on Jan 5?')).toBe('xrpusdt');
    expect(inferSymbol('Dogecoin Up or Down - Hourly')).toBe('dogeusdt');
    expect(inferSymbol('Will it rain in Paris?')).toBeUndefined();
  });
  it('"above $K" markets: strike from the question, expiry from endDate', () => {
    expect(cryptoTerms(above(), cfgOf())).toEqual({
      symbol: 'btcusdt',
      strike: 95_000,
      direction: 'above',
      expiryMs: END,
      windowStartMs: undefined,
    });
    expect(cryptoTerms(above({ question: 'Will ETH close below $3,450.50 on Jan 5?' }), cfgOf())).toMatchObject({
      symbol: 'ethusdt',
      strike: 3450.5,
      direction: 'below',
    });
  });
  it('up/down windows: the window start from the question; the strike from "Price to beat" when the metadata has a description', () => {
    const w = marketInfo(M1, YES1, NO1, {
      question: 'Bitcoin Up or Down - Jan 5, 23:45-00:00 UTC',
      endDate: '2030-01-05T00:00:00Z',
    });
    expect(cryptoTerms(w, cfgOf())).toEqual({
      symbol: 'btcusdt',
      strike: undefined,
      direction: 'above',
      expiryMs: END,
      windowStartMs: END - 15 * 60_000,
    });
    const withDesc = {
      ...w,
      description: 'This market will resolve to "Up" ... Price to beat: $95,123.45. The resolution source is ...',
    };
    expect(cryptoTerms(withDesc, cfgOf())?.strike).toBe(95_123.45);
    const daily = marketInfo(M1, YES1, NO1, {
      question: 'Bitcoin Up or Down on Jan 5?',
      endDate: '2030-01-05T00:00:00Z',
    });
    expect(cryptoTerms(daily, cfgOf())?.windowStartMs).toBe(END - 86_400_000);
  });
  it('params override the metadata; no symbol or no expiry: no terms', () => {
    expect(
      cryptoTerms(above(), cfgOf({ symbol: 'ETHUSDT', strike: 3500, expiry: '2030-02-01T00:00:00Z' })),
    ).toMatchObject({ symbol: 'ethusdt', strike: 3500, expiryMs: Date.parse('2030-02-01T00:00:00Z') });
    expect(cryptoTerms(above({ question: 'Will it rain?' }), cfgOf())).toBeUndefined();
    expect(cryptoTerms(above({ endDate: '' }), cfgOf())).toBeUndefined();
  });
});

describe('crypto-fair-value: the fair value and exact quotes', () => {
  const ref = () => new MarketRegistry([above()]).get(M1)!;
  it('P = N(d2) for "above", 1 - N(d2) for "below"', () => {
    // S 95,300, K 95,000, 15 min: sd = 1.0684e-4 x 30 = 0.0032053; d2 = (0.0031529 - 0.0000051) / 0.0032053 = 0.98205
    expect(fairProbability(95_300, 95_000, SIGMA, 900, 'above')).toBeCloseTo(0.836963426, 9);
    expect(fairProbability(95_300, 95_000, SIGMA, 900, 'below')).toBeCloseTo(0.163036574, 9);
  });
  it("quotes spread/2 either side of the fair value (tick 0.001; 'both': the ask is a NO bid)", () => {
    // fair 0.8369634: bid 0.8169634 -> down to 0.816; ask 0.8569634 -> up to 0.857 (NO bid 0.143)
    const s = fakeState({ books: [looseBook()] });
    expect(simple(quoteCrypto(ref(), cfgOf(), 0.836963426, s))).toEqual(['Y BUY 8160 10', 'N BUY 1430 10']);
  });
  it('skews against inventory: 50 YES of maxPosition 100 -> 1 tick lower; the ask sells YES held', () => {
    // centre 0.8369634 - 2 x 0.5 x 0.001 = 0.8359634: bid 0.8159634 -> 0.815, ask 0.8559634 -> 0.856
    const s = fakeState({ books: [looseBook()], positions: { [YES1]: 50 * SH } });
    expect(simple(quoteCrypto(ref(), cfgOf(), 0.836963426, s))).toEqual(['Y BUY 8150 10', 'Y SELL 8560 10']);
  });
  it('quotes into an empty or one-sided book (the price comes from the feed), never across it', () => {
    expect(simple(quoteCrypto(ref(), cfgOf(), 0.836963426, fakeState({ books: [bookView(YES1, [], [])] })))).toEqual([
      'Y BUY 8160 10',
      'N BUY 1430 10',
    ]);
    // the best ask is 0.81: our bid moves behind it to 0.809
    expect(
      simple(quoteCrypto(ref(), cfgOf(), 0.836963426, fakeState({ books: [bookView(YES1, [], [[8100, SH]])] }))),
    ).toEqual(['Y BUY 8090 10', 'N BUY 1430 10']);
  });
  it('near 1: the ask beyond 0.99 is dropped, not clamped below the fair value', () => {
    // fair 0.9999: bid 0.9799 -> 0.979; ask 1.0199: out of range
    const s = fakeState({ books: [looseBook(4000, 9990)] });
    expect(simple(quoteCrypto(ref(), cfgOf(), 0.9999, s))).toEqual(['Y BUY 9790 10']);
  });
  it('no fair value, a stale or a crossed book: no quotes', () => {
    expect(quoteCrypto(ref(), cfgOf(), undefined, fakeState({ books: [looseBook()] }))).toEqual([]);
    expect(quoteCrypto(ref(), cfgOf(), NaN, fakeState({ books: [looseBook()] }))).toEqual([]);
    expect(
      quoteCrypto(ref(), cfgOf(), 0.5, fakeState({ books: [bookView(YES1, [[4000, SH]], [[9900, SH]], true)] })),
    ).toEqual([]);
    expect(
      quoteCrypto(ref(), cfgOf(), 0.5, fakeState({ books: [bookView(YES1, [[6000, SH]], [[5000, SH]])] })),
    ).toEqual([]);
    expect(quoteCrypto(ref(), cfgOf(), 0.5, fakeState())).toEqual([]);
  });
});

describe('crypto-fair-value: the reference feed', () => {
  it('live ticks make it fresh, snapshot history does not; older ticks do not move the price', () => {
    const f = new ReferenceFeed(1000, 1e-8);
    f.observe(tick(95_000, 1_000, true));
    expect([f.price, f.lastLiveAt]).toEqual([95_000, undefined]);
    f.observe(tick(95_100, 2_000));
    expect([f.price, f.lastLiveAt]).toEqual([95_100, 2_000]);
    f.observe({ ...tick(94_000, 1_500), recvTime: 2_500 }); // late: refreshes, does not move the price
    expect([f.price, f.lastLiveAt]).toEqual([95_100, 2_500]);
    f.markStale();
    expect(f.lastLiveAt).toBeUndefined();
    f.observe(tick(-1, 3_000));
    f.observe(tick(NaN, 3_000));
    expect(f.price).toBe(95_100);
  });
  it('estimates the volatility of log returns per second (EWMA over feed time)', () => {
    const f = new ReferenceFeed(1000, 0); // half-life 1 s: each 1 s step weighs 1/2
    f.observe(tick(100, 0));
    f.observe(tick(100 * Math.exp(0.01), 1_000)); // r = 0.01 over 1 s: rate = 0.5 x 1e-4
    expect(f.vol.rate).toBeCloseTo(0.5e-4, 15);
  });
  it('finds the price at a window start: the first tick at or after it, within the window', () => {
    const f = new ReferenceFeed(1000, 1e-8);
    for (const [v, t] of [
      [94_900, 9_500],
      [95_000, 10_300],
      [95_100, 11_300],
    ] as const)
      f.observe(tick(v, t, true));
    expect(f.priceAtStart(10_000, 2_000)).toBe(95_000);
    expect(f.priceAtStart(10_000, 200)).toBeUndefined(); // 300 ms after the start: too late
    expect(f.priceAtStart(9_000, 2_000)).toBeUndefined(); // history does not reach back before the start
  });
});

describe('crypto-fair-value: the handler (synthetic price ticks)', () => {
  const NOW = END - 900_000; // 15 minutes before expiry
  const setup = (o: Record<string, unknown> = {}, markets = [above()]) => {
    const h = cfv.create(ctxFor(markets), resolveParams(cfv.params, o));
    const s = fakeState({ books: [looseBook(), bookView(YES2, [[100, SH]], [[9900, SH]])], now: NOW });
    return { h, s };
  };
  const quotesOf = (o: ReturnType<ReturnType<typeof setup>['h']['onEvent']>, market = M1) => {
    const d = o?.quotes?.find((x) => x.market === market);
    return d === undefined ? undefined : simple(d.quotes);
  };
  const at = (s: ReturnType<typeof fakeState>, now: number) => Object.assign(s, { now });

  it('loads by name; quotes nothing before the first live tick', async () => {
    expect((await loadStrategy('crypto-fair-value')).name).toBe('crypto-fair-value');
    const { h, s } = setup();
    expect(quotesOf(h.onEvent(snapshotEvent(M1, YES1), s))).toEqual([]);
    expect(h.onEvent(tick(95_300, NOW - 5_000, true), s)).toBeUndefined(); // history: not fresh
    expect(quotesOf(h.onEvent(timerEvent(), s))).toEqual([]);
  });
  it('quotes on a live tick; pulls after staleMs without one (on the next timer); resumes on the next tick', () => {
    const { h, s } = setup();
    // S 95,300 (the first live tick: the volatility is still the prior), 900 s to expiry: fair 0.8369634
    expect(quotesOf(h.onEvent(tick(95_300, NOW), s))).toEqual(['Y BUY 8160 10', 'N BUY 1430 10']);
    // 3 s later, still fresh (the fair value drifted up with the shorter time to expiry: 0.8373)
    expect(quotesOf(h.onEvent(timerEvent(), at(s, NOW + 3_000)))).toEqual(['Y BUY 8170 10', 'N BUY 1420 10']);
    expect(quotesOf(h.onEvent(timerEvent(), at(s, NOW + 3_001)))).toEqual([]); // 3 s without a tick: stale
    expect(quotesOf(h.onEvent(snapshotEvent(M1, YES1), s))).toEqual([]);
    expect(quotesOf(h.onEvent(tick(95_300, NOW + 3_001), s))).not.toEqual([]);
    expect(h.onEvent(tick(1, NOW + 3_001, false, 'ethusdt'), s)).toBeUndefined(); // a symbol we do not trade
  });
  it('a dropped price stream pulls every market at once', () => {
    const { h, s } = setup();
    h.onEvent(tick(95_300, NOW), s);
    const out = h.onEvent(
      { type: 'disconnected', stream: 'rtds', reason: 'closed 1006', venueTime: NOW, recvTime: NOW },
      s,
    );
    expect(quotesOf(out)).toEqual([]);
    expect(quotesOf(h.onEvent(timerEvent(), s))).toEqual([]);
  });
  it('stops quoting stopBeforeExpiry seconds before the end', () => {
    const { h, s } = setup();
    at(s, END - 30_000);
    expect(quotesOf(h.onEvent(tick(95_300, END - 30_000), s))).toEqual([]);
    at(s, END - 31_000);
    expect(quotesOf(h.onEvent(tick(95_300, END - 31_000), s))).not.toEqual([]);
  });
  it('up/down window: the strike is the first feed price at the window start', () => {
    // window 23:45-00:00, now 23:55 (300 s left); history around 23:45:00: 94,900 (-0.5 s), 95,000 (+0.3 s)
    const w = marketInfo(M1, YES1, NO1, {
      question: 'Bitcoin Up or Down - Jan 5, 23:45-00:00 UTC',
      endDate: '2030-01-05T00:00:00Z',
    });
    const start = END - 900_000;
    // a one-day volatility half-life keeps the estimate within 0.2% of the 60% prior over these ticks
    const { h, s } = setup({ volHalfLife: 86_400 }, [w]);
    at(s, END - 300_000);
    h.onEvent(tick(94_900, start - 500, true), s);
    h.onEvent(tick(95_000, start + 300, true), s);
    // S 95,300, K 95,000, 300 s: sd = 1.0684e-4 x sqrt(300) = 0.0018506, d2 = (0.0031529 - 0.0000017) / 0.0018506
    // = 1.7028: fair 0.955699; bid 0.935699 -> 0.93; ask 0.975699 -> 0.98 (tick 0.01; NO bid 0.02)
    expect(quotesOf(h.onEvent(tick(95_300, END - 300_000), s))).toEqual(['Y BUY 9300 10', 'N BUY 200 10']);
  });
  it('up/down window without a price at its start: no strike, no quotes', () => {
    const w = marketInfo(M1, YES1, NO1, {
      question: 'Bitcoin Up or Down - Jan 5, 23:45-00:00 UTC',
      endDate: '2030-01-05T00:00:00Z',
    });
    const { h, s } = setup({}, [w]);
    at(s, END - 300_000);
    h.onEvent(tick(95_000, END - 899_000 + 2_500, true), s); // history starts after the window start
    expect(quotesOf(h.onEvent(tick(95_300, END - 300_000), s))).toEqual([]);
    // the strike param fixes it
    const p = setup({ strike: 95_000 }, [w]);
    at(p.s, END - 300_000);
    expect(quotesOf(p.h.onEvent(tick(95_300, END - 300_000), p.s))?.length).toBe(2);
  });
  it('a market without a symbol is never quoted; other markets are; the handlers list the symbols they need', () => {
    const { h, s } = setup({}, [above(), marketInfo(M2, YES2, NO2, { question: 'Will it rain?' })]);
    expect(h.priceSymbols).toEqual(['btcusdt']);
    const out = h.onEvent(timerEvent(), s);
    expect(out?.quotes?.map((d) => d.market)).toEqual([M1, M2]);
    expect(quotesOf(h.onEvent(tick(95_300, NOW), s), M1)?.length).toBe(2);
    expect(quotesOf(h.onEvent(timerEvent(), s), M2)).toEqual([]);
  });
  it('a resolved market is pulled', () => {
    const { h, s } = setup();
    h.onEvent(tick(95_300, NOW), s);
    const e: MmkitEvent = {
      type: 'market_resolved',
      market: M1,
      winningTokenId: YES1,
      winningOutcome: 'Yes',
      venueTime: NOW,
      recvTime: NOW,
    };
    expect(quotesOf(h.onEvent(e, s))).toEqual([]);
    expect(quotesOf(h.onEvent(tick(95_300, NOW + 1), s))).toEqual([]);
  });
});
