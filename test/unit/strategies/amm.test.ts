/**
 * `amm` (strategies/amm.ts): the pool maths on fixed inputs (hand-computed below), the ladder, the
 * pool price implied by inventory (walking the ladder moves it level by level), anchoring and
 * re-anchoring, the bounds pMin / pMax, complement routing, post-only, the handler.
 * Prices in pips (0.01 = 100), sizes in micro-shares (SH = one share).
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/errors.ts';
import type { QuoteIntent } from '../../../src/core/intents.ts';
import { loadStrategy } from '../../../src/strategy/loader.ts';
import { resolveParams } from '../../../src/strategy/params.ts';
import { marketTop, MarketRegistry } from '../../../src/strategy/quoting.ts';
import amm, {
  AMM_PARAMS,
  ammConfig,
  ammLadder,
  nextAnchor,
  poolPrice,
  poolShares,
  quoteAmm,
} from '../../../strategies/amm.ts';
import {
  bookView,
  ctxFor,
  fakeState,
  M1,
  marketInfo,
  NO1,
  SH,
  snapshotEvent,
  timerEvent,
  YES1,
} from '../strategy/fixtures.ts';

/** pool 0.05-0.95, spread = step = 1 cent, depth 3 cents, L = 1000 */
const cfgOf = (o: Record<string, unknown> = {}) => ammConfig(resolveParams(AMM_PARAMS, { depth: 0.03, ...o }));
const ref = () => new MarketRegistry([marketInfo(M1, YES1, NO1)]).get(M1)!;
const simple = (qs: readonly QuoteIntent[]) =>
  qs.map((q) => `${q.tokenId === YES1 ? 'Y' : 'N'} ${q.side} ${q.price} ${q.size / SH}`);
const book = (bid: number, ask: number, stale = false) => bookView(YES1, [[bid, 100 * SH]], [[ask, 100 * SH]], stale);
const lvl = (bid: boolean, price: number, shares: number) => ({ bid, price, size: Math.round(shares * SH) });

describe('amm: the pool maths', () => {
  it('shares traded between two prices: L |1/sqrt(pb) - 1/sqrt(pa)|', () => {
    // 1000 x (1/sqrt(0.49) - 1/sqrt(0.50)) = 1000 x (1.4285714 - 1.4142136) = 14.357866
    expect(poolShares(1000, 0.5, 0.49)).toBeCloseTo(14.357866198, 8);
    // 1000 x (1/sqrt(0.50) - 1/sqrt(0.51)) = 1000 x (1.4142136 - 1.4002801) = 13.933478
    expect(poolShares(1000, 0.5, 0.51)).toBeCloseTo(13.933478345, 8);
  });
  it('the ladder around 0.50: each level holds the pool move from the previous one, rounded down to lots', () => {
    // bids: 0.50->0.49 14.3579 -> 14.35; 0.49->0.48 1000(1.4433757 - 1.4285714) = 14.8042 -> 14.80; 0.48->0.47 15.2742 -> 15.27
    // asks: 0.50->0.51 13.9335 -> 13.93; 0.51->0.52 1000(1.4002801 - 1.3867505) = 13.5296 -> 13.52; 0.52->0.53 13.1449 -> 13.14
    expect(ammLadder(5000, cfgOf(), 100, 5 * SH)).toEqual([
      lvl(true, 4900, 14.35),
      lvl(true, 4800, 14.8),
      lvl(true, 4700, 15.27),
      lvl(false, 5100, 13.93),
      lvl(false, 5200, 13.52),
      lvl(false, 5300, 13.14),
    ]);
  });
  it('carries a level below the minimum size outward into the next one (quoted farther, never nearer)', () => {
    // L = 300: 0.50->0.49 4.3074 -> 4.30 (< 5: carried), 0.49->0.48 4.4413 -> 4.44: 8.74 @ 0.48; 0.48->0.47 4.58 carried past the end
    // asks: 4.1800 -> 4.18 carried, 4.0589 -> 4.05: 8.23 @ 0.52; 3.94 carried past the end
    expect(ammLadder(5000, cfgOf({ liquidity: 300 }), 100, 5 * SH)).toEqual([
      lvl(true, 4800, 8.74),
      lvl(false, 5200, 8.23),
    ]);
  });
  it('stays inside [pMin, pMax] and reaches at most depth away', () => {
    // pool at 0.07, pMin 0.05: bids 0.06 and 0.05 only; asks up to 0.07 + 0.03 = 0.10
    const l = ammLadder(700, cfgOf(), 100, 5 * SH);
    expect(l.map((x) => `${x.bid ? 'b' : 'a'}${x.price}`)).toEqual(['b600', 'b500', 'a800', 'a900', 'a1000']);
    // concentrated liquidity is deep at low prices: 1000 x (1/sqrt(0.06) - 1/sqrt(0.07)) = 302.83 shares
    expect(l[0]!.size).toBe(302_830_000);
    expect(
      ammLadder(9400, cfgOf({ pMax: 0.95 }), 100, 5 * SH)
        .filter((x) => !x.bid)
        .map((x) => x.price),
    ).toEqual([9500]);
  });
  it('steps and spreads are whole ticks (a 0.015 step on a 0.01 tick is 2 ticks)', () => {
    expect(
      ammLadder(5000, cfgOf({ step: 0.015, depth: 0.05 }), 100, 5 * SH)
        .filter((x) => x.bid)
        .map((x) => x.price),
    ).toEqual([4900, 4700, 4500]);
  });
});

describe('amm: the pool price follows the inventory', () => {
  const c = cfgOf();
  const anchor = { price: 5000, net: 0 };
  it('1/sqrt(p) = 1/sqrt(p0) + (net - n0)/L: filling bid 1 puts the pool at 0.49, bid 2 at 0.48, ask 1 at 0.51', () => {
    expect(poolPrice(anchor, c, 0)).toBe(5000);
    expect(poolPrice(anchor, c, 14_350_000)).toBe(4900); // 1/sqrt(p) = 1.4142136 + 0.01435 -> p = 0.490010 -> 4900
    expect(poolPrice(anchor, c, 14_350_000 + 14_800_000)).toBe(4800);
    expect(poolPrice(anchor, c, -13_930_000)).toBe(5100);
    expect(poolPrice({ price: 5000, net: 7 * SH }, c, 7 * SH)).toBe(5000); // the anchor's own inventory
  });
  it('is kept inside [pMin, pMax]', () => {
    expect(poolPrice(anchor, c, 10_000 * SH)).toBe(500);
    expect(poolPrice(anchor, c, -10_000 * SH)).toBe(9500);
  });
  it('walking the ladder: after each full fill the next ladder is the old one shifted by a level (no churn)', () => {
    const r = ref();
    const before = ammLadder(5000, c, 100, 5 * SH);
    const after = ammLadder(poolPrice(anchor, c, before[0]!.size), c, 100, 5 * SH);
    // the bids that were not hit keep their exact prices and sizes; a new one appears below
    expect(after.filter((x) => x.bid).slice(0, 2)).toEqual(before.filter((x) => x.bid).slice(1, 3));
    // and the asks start one level lower, at 0.50, with the size that was just bought there
    expect(after.find((x) => !x.bid)).toEqual(lvl(false, 5000, 14.35));
    expect(r.tick).toBe(100);
  });
});

describe('amm: anchoring', () => {
  const c = cfgOf();
  it('anchors at the book mid (nearest pip, inside [pMin, pMax]) or at initialPrice; needs a mid', () => {
    expect(nextAnchor(undefined, 5050, 3 * SH, c)).toEqual({ price: 5050, net: 3 * SH });
    expect(nextAnchor(undefined, 100, 0, c)).toEqual({ price: 500, net: 0 });
    expect(nextAnchor(undefined, null, 0, c)).toBeUndefined();
    expect(nextAnchor(undefined, null, 0, cfgOf({ initialPrice: 0.42 }))).toEqual({ price: 4200, net: 0 });
  });
  it('re-anchors at the mid, inventory kept, when the pool is more than maxDeviation from it', () => {
    const a = { price: 5000, net: 0 };
    expect(nextAnchor(a, 5500, 0, c)).toBe(a); // 0.05 away: not more than maxDeviation 0.05
    expect(nextAnchor(a, 5550, 2 * SH, c)).toEqual({ price: 5550, net: 2 * SH });
    expect(nextAnchor(a, 9000, 0, cfgOf({ maxDeviation: 0 }))).toBe(a);
    expect(nextAnchor(a, null, 0, c)).toBe(a);
  });
});

describe('amm: quotes', () => {
  const c = cfgOf();
  const quote = (s: ReturnType<typeof fakeState>, anchor = { price: 5000, net: 0 }, cfg = c) =>
    quoteAmm(ref(), cfg, anchor, marketTop(s, ref(), { excludeOwn: true, tokens: cfg.rules.tokens }), s);
  it("tokens 'both' from collateral: YES bids, and the asks as NO bids at 1 - price", () => {
    const s = fakeState({ books: [book(4800, 5200)] });
    expect(simple(quote(s))).toEqual([
      'Y BUY 4900 14.35',
      'N BUY 4900 13.93',
      'Y BUY 4800 14.8',
      'N BUY 4800 13.52',
      'Y BUY 4700 15.27',
      'N BUY 4700 13.14',
    ]);
  });
  it("tokens 'yes': asks only out of YES held, and the pool re-centred by it", () => {
    // 20 YES held, anchored flat at 0.50: 1/sqrt(p) = 1.4142136 + 20/1000 -> p = 0.486152 -> 0.4862
    // bids from floor(0.4762) = 0.47: 1000(1/sqrt(.47) - 1/sqrt(.4862)) = 24.507 -> 24.50; 0.46: 15.770 -> 15.76
    // asks from ceil(0.4962) = 0.50: 1000(1/sqrt(.4862) - 1/sqrt(.5)) = 19.930 -> 19.92 (what the pool bought
    // on the way down, bar rounding); 0.51 (13.93) needs more YES than the 0.08 left: dropped
    const s = fakeState({ books: [book(4700, 5300)], positions: { [YES1]: 20 * SH } });
    expect(poolPrice({ price: 5000, net: 0 }, c, 20 * SH)).toBe(4862);
    expect(simple(quote(s, { price: 5000, net: 0 }, cfgOf({ tokens: 'yes' })))).toEqual([
      'Y BUY 4700 24.5',
      'Y SELL 5000 19.92',
      'Y BUY 4600 15.76',
    ]);
  });
  it('post-only: ladder levels crossing the book move behind the touch (merged) or drop', () => {
    // the book moved to 0.52 / 0.53 while the pool stays at 0.50 (maxDeviation 0): the asks at 0.51 and
    // 0.52 would hit the 0.52 bid. 'move': both join 0.53: 13.93 + 13.52 + 13.14 = 40.59 (a NO bid at 0.47)
    const s = fakeState({ books: [book(5200, 5300)] });
    expect(simple(quote(s, undefined, cfgOf({ maxDeviation: 0 })))).toEqual([
      'Y BUY 4900 14.35',
      'N BUY 4700 40.59',
      'Y BUY 4800 14.8',
      'Y BUY 4700 15.27',
    ]);
    // 'drop': only the 0.53 level is left
    expect(simple(quote(s, undefined, cfgOf({ maxDeviation: 0, postOnly: 'drop' })))).toEqual([
      'Y BUY 4900 14.35',
      'N BUY 4700 13.14',
      'Y BUY 4800 14.8',
      'Y BUY 4700 15.27',
    ]);
  });
  it('no quotes without a trustworthy book or an anchor', () => {
    expect(quote(fakeState({ books: [book(4900, 5100, true)] }))).toEqual([]);
    expect(quote(fakeState())).toEqual([]);
    const s = fakeState({ books: [book(4900, 5100)] });
    expect(quoteAmm(ref(), c, undefined, marketTop(s, ref(), { excludeOwn: true, tokens: 'both' }), s)).toEqual([]);
  });
  it('refuses pMin >= pMax', () => {
    expect(() => cfgOf({ pMin: 0.6, pMax: 0.4 })).toThrow(ConfigError);
  });
});

describe('amm: the handler', () => {
  it('loads by name, anchors at the first mid, re-centres after fills, keeps the pool between them', async () => {
    expect((await loadStrategy('amm')).name).toBe('amm');
    const h = amm.create(
      ctxFor([marketInfo(M1, YES1, NO1)]),
      resolveParams(amm.params, { depth: 0.03, tokens: 'yes' }),
    );
    const s = fakeState({ books: [book(4800, 5200)] });
    const q1 = h.onEvent(snapshotEvent(M1, YES1), s)?.quotes?.[0]?.quotes ?? [];
    expect(simple(q1)).toEqual(['Y BUY 4900 14.35', 'Y BUY 4800 14.8', 'Y BUY 4700 15.27']);
    // the book moves a cent: the pool does not (no churn)
    s.books.set(YES1, book(4900, 5300));
    expect(h.onEvent(timerEvent(), s)?.quotes?.[0]?.quotes).toEqual(q1);
    // our first bid is filled: the pool moves to 0.49, the ask side opens at 0.50 with what we bought
    s.positions.set(YES1, 14_350_000);
    s.books.set(YES1, book(4800, 5200));
    const q2 = h.onEvent({ type: 'fill', market: M1 } as never, s)?.quotes?.[0]?.quotes ?? [];
    expect(simple(q2)).toEqual(['Y BUY 4800 14.8', 'Y SELL 5000 14.35', 'Y BUY 4700 15.27', 'Y BUY 4600 15.76']);
  });
  it('quotes nothing before a two-sided book gives it a mid', () => {
    const h = amm.create(ctxFor([marketInfo(M1, YES1, NO1)]), resolveParams(amm.params));
    const s = fakeState({ books: [bookView(YES1, [[4800, SH]], [])] });
    expect(h.onEvent(snapshotEvent(M1, YES1), s)?.quotes?.[0]?.quotes).toEqual([]);
  });
});
