/**
 * `avellaneda` (strategies/avellaneda.ts): the logit-space Avellaneda–Stoikov prices on fixed inputs
 * (hand-computed below), exact quotes through the common rules, the bounded domain (widening and
 * clamping near 0 and 1), the time horizon, the online estimators, complement routing, the handler.
 * Prices in pips (0.01 = 100), sizes in micro-shares (SH = one share).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MmkitEvent } from '../../../src/core/events.ts';
import type { QuoteIntent } from '../../../src/core/intents.ts';
import type { Micro, Pips } from '../../../src/core/units.ts';
import { isValidPrice } from '../../../src/core/units.ts';
import { loadStrategy } from '../../../src/strategy/loader.ts';
import { resolveParams } from '../../../src/strategy/params.ts';
import { logit, MarketRegistry } from '../../../src/strategy/quoting.ts';
import avellaneda, {
  AVELLANEDA_PARAMS,
  avellanedaConfig,
  AvellanedaEstimators,
  avellanedaPrices,
  horizonAt,
  quoteAvellaneda,
} from '../../../strategies/avellaneda.ts';
import {
  bookView,
  complementView,
  ctxFor,
  fakeState,
  M1,
  M2,
  marketInfo,
  NO1,
  NO2,
  order,
  SH,
  snapshotEvent,
  timerEvent,
  YES1,
  YES2,
} from '../strategy/fixtures.ts';

// kappa chosen so that ln(1 + gamma/kappa) = 0.1 exactly with gamma = 1
const KAPPA = 1 / (Math.exp(0.1) - 1);
/** Params of the worked example: gamma 1, sigma^2 = 1e-5 per s, tau = 1000 s (rolling), kappa as above. */
const EXAMPLE = {
  riskAversion: 1,
  initialVol: Math.sqrt(1e-5),
  initialKappa: KAPPA,
  horizon: 1000,
  useEndDate: false,
} as const;
const cfgOf = (o: Record<string, unknown> = {}) =>
  avellanedaConfig(resolveParams(AVELLANEDA_PARAMS, { ...EXAMPLE, ...o }));
const EST = { variance: 1e-5, kappa: KAPPA };
const refOf = (tick: '0.01' | '0.001' = '0.001') => new MarketRegistry([marketInfo(M1, YES1, NO1, { tick })]).get(M1)!;
const simple = (qs: readonly QuoteIntent[]) =>
  qs.map((q) => `${q.tokenId === YES1 ? 'Y' : 'N'} ${q.side} ${q.price} ${q.size / SH}`);
const book = (bid: number, ask: number, stale = false) => bookView(YES1, [[bid, 100 * SH]], [[ask, 100 * SH]], stale);

describe('avellaneda: the model in logit space', () => {
  it('reservation price and optimal spread on a worked example', () => {
    // mid 0.50 -> x = logit(0.5) = 0; gamma sigma^2 tau = 1 x 1e-5 x 1000 = 0.01; q = 2 order sizes long
    // x_r = 0 - 2 x 0.01 = -0.02                        -> r = sigmoid(-0.02) = 0.4950002
    // delta = 0.01 + (2/1) ln(1 + 1/kappa) = 0.01 + 0.2 = 0.21; edge factor at 0.50: 1 + 1 x (1 - 4 x 0.25) = 1
    // bid = sigmoid(-0.02 - 0.105) = sigmoid(-0.125) = 0.4687906; ask = sigmoid(0.085) = 0.5212372
    const p = avellanedaPrices({ mid: 0.5, q: 2, variance: 1e-5, kappa: KAPPA, tau: 1000, gamma: 1, edgeWidening: 1 });
    expect(p.spread).toBeCloseTo(0.21, 12);
    expect(p.half).toBeCloseTo(0.105, 12);
    expect(p.reservation).toBeCloseTo(0.4950001667, 9);
    expect(p.bid).toBeCloseTo(0.4687906266, 9);
    expect(p.ask).toBeCloseTo(0.521237215, 9);
  });
  it('widens near 0 and 1: the logit half-spread x (1 + edgeWidening x (1 - 4p(1 - p)))', () => {
    // at 0.10: 1 - 4 x 0.09 = 0.64 -> half = 0.105 x 1.64 = 0.1722
    expect(
      avellanedaPrices({ mid: 0.1, q: 0, variance: 1e-5, kappa: KAPPA, tau: 1000, gamma: 1, edgeWidening: 1 }).half,
    ).toBeCloseTo(0.1722, 12);
    expect(
      avellanedaPrices({ mid: 0.1, q: 0, variance: 1e-5, kappa: KAPPA, tau: 1000, gamma: 1, edgeWidening: 0 }).half,
    ).toBeCloseTo(0.105, 12);
  });
  it('stays inside (0, 1) however large the inventory term (logit space)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.001, max: 0.999, noNaN: true }),
        fc.double({ min: -1e4, max: 1e4, noNaN: true }),
        fc.double({ min: 0, max: 1e-2, noNaN: true }),
        (mid, q, variance) => {
          const p = avellanedaPrices({ mid, q, variance, kappa: 5, tau: 3600, gamma: 2, edgeWidening: 3 });
          for (const x of [p.bid, p.ask, p.reservation]) expect(x >= 0 && x <= 1).toBe(true);
          expect(p.bid).toBeLessThanOrEqual(p.reservation);
          expect(p.ask).toBeGreaterThanOrEqual(p.reservation);
        },
      ),
      { numRuns: 500 },
    );
  });
  it('T - t: min(horizon, time to the end date) when useEndDate, else the rolling horizon', () => {
    const c = { horizonSec: 3600, useEndDate: true };
    expect(horizonAt(c, 1_000_000 + 600_000, 1_000_000)).toBe(600);
    expect(horizonAt(c, 1_000_000 + 7_200_000, 1_000_000)).toBe(3600);
    expect(horizonAt(c, 500_000, 1_000_000)).toBe(0); // past the end: the inventory term is gone
    expect(horizonAt(c, NaN, 1_000_000)).toBe(3600);
    expect(horizonAt({ ...c, useEndDate: false }, 1_000_000 + 600_000, 1_000_000)).toBe(3600);
  });
});

describe('avellaneda: exact quotes (tick 0.001, book 0.490 / 0.510, orderSize 10, minSpread 0.02)', () => {
  it('long 20 YES (q = 2): quotes shift down; the ask sells YES held', () => {
    // bid 0.4687906 -> down to 0.468; ask 0.5212372 -> up to 0.522; centre r = 0.4950:
    // minSpread keeps bids <= 0.485 and asks >= 0.505 (both hold)
    const s = fakeState({ books: [book(4900, 5100)], positions: { [YES1]: 20 * SH } });
    expect(simple(quoteAvellaneda(refOf(), cfgOf(), EST, s))).toEqual(['Y BUY 4680 10', 'Y SELL 5220 10']);
  });
  it("flat: symmetric; with tokens 'both' the ask is a NO bid at 1 - price", () => {
    // bid = sigmoid(-0.105) = 0.4737741 -> 0.473; ask = sigmoid(0.105) = 0.5262259 -> 0.527 = NO bid 0.473
    const s = fakeState({ books: [book(4900, 5100)] });
    expect(simple(quoteAvellaneda(refOf(), cfgOf(), EST, s))).toEqual(['Y BUY 4730 10', 'N BUY 4730 10']);
    expect(simple(quoteAvellaneda(refOf(), cfgOf({ tokens: 'yes' }), EST, s))).toEqual(['Y BUY 4730 10']);
  });
  it('short 20 (NO held, q = -2): quotes shift up; the bid sells NO held, the ask buys NO: one exposure each', () => {
    // x_r = +0.02: bid = sigmoid(-0.085) = 0.4787628 -> 0.478 (NO sell @ 0.522); ask = sigmoid(0.125) = 0.5312094 -> 0.532 (NO bid @ 0.468)
    const s = fakeState({ books: [book(4900, 5100)], positions: { [NO1]: 20 * SH } });
    expect(simple(quoteAvellaneda(refOf(), cfgOf(), EST, s))).toEqual(['N SELL 5220 10', 'N BUY 4680 10']);
  });
  it('sizeShape shrinks the side adding to the position: 10 x e^(-0.1 x 2) = 8.187 -> 8.18', () => {
    const s = fakeState({ books: [book(4900, 5100)], positions: { [YES1]: 20 * SH } });
    expect(simple(quoteAvellaneda(refOf(), cfgOf({ sizeShape: 0.1 }), EST, s))).toEqual([
      'Y BUY 4680 8.18',
      'Y SELL 5220 10',
    ]);
  });
  it('at the end date the inventory term is gone: quotes centre on the mid again', () => {
    const c = cfgOf({ useEndDate: true });
    const ref = new MarketRegistry([marketInfo(M1, YES1, NO1, { tick: '0.001', endDate: '1970-01-01T00:00:01Z' })]).get(
      M1,
    )!;
    const s = fakeState({ books: [book(4900, 5100)], positions: { [YES1]: 20 * SH }, now: 5_000 });
    // tau = 0: delta = 0.2, x_r = 0: bid 0.4750208 -> 0.475, ask 0.5249792 -> 0.525
    expect(simple(quoteAvellaneda(ref, c, EST, s))).toEqual(['Y BUY 4750 10', 'Y SELL 5250 10']);
  });
  it('respects maxPosition (net YES exposure)', () => {
    const s = fakeState({ books: [book(4900, 5100)], positions: { [YES1]: 95 * SH } });
    // q = 9.5: still a bid, but only 5 more shares fit under maxPosition 100
    const out = quoteAvellaneda(refOf(), cfgOf(), EST, s).filter((q) => q.side === 'BUY' && q.tokenId === YES1);
    expect(out.map((q) => q.size)).toEqual([5 * SH]);
  });
});

describe('avellaneda: near 0 and 1 (kappa 1: wide quotes; tick 0.01)', () => {
  const wide = { initialKappa: 1, minSpread: 0 };
  it("near 0 a bid below one tick is clamped to 0.01 ('clamp') or dropped ('drop')", () => {
    // mid 0.015: delta = 0.01 + 2 ln 2 = 1.39629; edge factor 1 + (1 - 4 x 0.015 x 0.985) = 1.9409 -> half 1.35503
    // bid = sigmoid(logit(0.015) - 1.35503) = 0.0039126 -> below 0.01; ask = 0.0557477 -> 0.06 (NO bid 0.94)
    const s = fakeState({ books: [book(100, 200)] });
    const est = { variance: 1e-5, kappa: 1 };
    expect(simple(quoteAvellaneda(refOf('0.01'), cfgOf(wide), est, s))).toEqual(['Y BUY 100 10', 'N BUY 9400 10']);
    expect(simple(quoteAvellaneda(refOf('0.01'), cfgOf({ ...wide, outOfRange: 'drop' }), est, s))).toEqual([
      'N BUY 9400 10',
    ]);
    // with a minimum spread of 0.02 around 0.015 no bid can exist at all
    expect(simple(quoteAvellaneda(refOf('0.01'), cfgOf({ ...wide, minSpread: 0.02 }), est, s))).toEqual([
      'N BUY 9400 10',
    ]);
  });
  it('near 1 an ask above 0.99 is clamped to 0.99', () => {
    // mid 0.985: bid 0.9442523 -> 0.94; ask 0.9960874 -> 1.00 -> 0.99 (NO bid 0.01)
    const s = fakeState({ books: [book(9800, 9900)] });
    expect(simple(quoteAvellaneda(refOf('0.01'), cfgOf(wide), { variance: 1e-5, kappa: 1 }, s))).toEqual([
      'Y BUY 9400 10',
      'N BUY 100 10',
    ]);
  });
  it('property: every quote is a valid tick, never crosses the book or itself', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 98 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: -150, max: 150 }),
        fc.double({ min: 0.05, max: 100, noNaN: true }),
        fc.double({ min: 0, max: 1e-3, noNaN: true }),
        (bidC, w, held, kappa, variance) => {
          const bb = bidC * 100;
          const ba = Math.min(9900, bb + w * 100);
          if (ba <= bb) return;
          const s = fakeState({
            books: [book(bb, ba)],
            positions: held >= 0 ? { [YES1]: held * SH } : { [NO1]: -held * SH },
          });
          const out = quoteAvellaneda(refOf('0.01'), cfgOf({ minSpread: 0 }), { variance, kappa }, s);
          let maxBid = -1;
          let minAsk = 1e9;
          for (const q of out) {
            expect(isValidPrice(q.price, 100)).toBe(true);
            const bid = (q.tokenId === YES1) === (q.side === 'BUY');
            const yp = q.tokenId === YES1 ? q.price : 10_000 - q.price;
            if (bid) {
              expect(yp).toBeLessThan(ba);
              maxBid = Math.max(maxBid, yp);
            } else {
              expect(yp).toBeGreaterThan(bb);
              minAsk = Math.min(minAsk, yp);
            }
          }
          expect(maxBid).toBeLessThan(minAsk);
        },
      ),
      { numRuns: 800 },
    );
  });
});

describe('avellaneda: no quote without a trustworthy two-sided book', () => {
  it.each([
    ['no book', fakeState()],
    ['a stale book', fakeState({ books: [book(4900, 5100, true)] })],
    ['a one-sided book', fakeState({ books: [bookView(YES1, [[4900, SH]], [])] })],
    ['a crossed book', fakeState({ books: [bookView(YES1, [[5100, SH]], [[4900, SH]])] })],
    [
      "a stale NO view with tokens 'both'",
      fakeState({ books: [book(4900, 5100), { ...complementView(NO1, book(4900, 5100)), stale: true }] }),
    ],
  ])('%s: no quotes', (_, s) => {
    expect(quoteAvellaneda(refOf(), cfgOf(), EST, s)).toEqual([]);
  });
});

describe('avellaneda: refresh tolerance and order age', () => {
  it('keeps live orders within one tick (default priceTolerance 1); replaces them once older than maxOrderAge', () => {
    const s = fakeState({ books: [book(4900, 5100)], now: 100_000 });
    const first = quoteAvellaneda(refOf(), cfgOf({ maxOrderAge: 60 }), EST, s);
    // a live bid one tick off the model (0.474 instead of 0.473) stands
    s.orders = [
      { ...order(M1, YES1, 'BUY', 4740, 10 * SH), createdAt: 50_000 },
      { ...order(M1, NO1, 'BUY', 4730, 10 * SH), createdAt: 50_000 },
    ];
    expect(simple(quoteAvellaneda(refOf(), cfgOf({ maxOrderAge: 60 }), EST, s))).toEqual([
      'Y BUY 4740 10',
      'N BUY 4730 10',
    ]);
    // 60 s later both are too old: not kept (execution cancels them); the NO bid at the same price is held back
    s.orders = s.orders.map((o) => ({ ...o, createdAt: 40_000 }));
    expect(simple(quoteAvellaneda(refOf(), cfgOf({ maxOrderAge: 60 }), EST, s))).toEqual(['Y BUY 4730 10']);
    expect(first).toHaveLength(2);
  });
});

describe('avellaneda: online estimators', () => {
  it('samples the logit mid at most every volSampleMs into the variance EWMA', () => {
    const e = new AvellanedaEstimators(cfgOf({ volHalfLife: 1, volSampleMs: 1000 })); // half-life 1 s
    e.observeMid(0, 0.5); // anchor
    e.observeMid(500, 0.6); // too soon: not sampled (but the trade reference moves)
    expect(e.lastMidX).toBeCloseTo(logit(0.6), 15);
    expect(e.vol.samples).toBe(0);
    e.observeMid(1000, 0.6); // r = logit(0.6) = 0.4054651 over 1 s, a = 1/2: 1e-5/2 + 0.1644019/2
    expect(e.variance).toBeCloseTo(0.5e-5 + logit(0.6) ** 2 / 2, 12);
  });
  it('kappa from public trades: 1 / EWMA of their logit distance from the mid', () => {
    const e = new AvellanedaEstimators(cfgOf({ kappaHalfLife: 1, initialKappa: 10 }));
    e.observeTrade(0.6); // no mid yet: ignored
    expect(e.arrivals.samples).toBe(0);
    e.observeMid(0, 0.5);
    e.observeTrade(sigmoid3()); // at logit distance 0.3: mean 0.1 -> 0.2, kappa 5
    expect(e.kappa).toBeCloseTo(5, 9);
  });
  function sigmoid3(): number {
    return 1 / (1 + Math.exp(-0.3));
  }
});

describe('avellaneda: the handler', () => {
  const m1 = marketInfo(M1, YES1, NO1, { tick: '0.001' });
  const m2 = marketInfo(M2, YES2, NO2, { tick: '0.001' });
  const setup = (o: Record<string, unknown> = {}) => {
    const h = avellaneda.create(ctxFor([m1, m2]), resolveParams(avellaneda.params, { ...EXAMPLE, ...o }));
    const s = fakeState({
      books: [book(4900, 5100), bookView(YES2, [[2900, 100 * SH]], [[3100, 100 * SH]])],
      now: 5_000,
    });
    return { h, s };
  };
  const quotesOf = (o: ReturnType<ReturnType<typeof setup>['h']['onEvent']>, market = M1) =>
    simple(o?.quotes?.find((d) => d.market === market)?.quotes ?? []);

  it('loads by name and quotes the worked example from its priors on a snapshot', async () => {
    const def = await loadStrategy('avellaneda');
    expect(def.name).toBe('avellaneda');
    const { h, s } = setup();
    const out = h.onEvent(snapshotEvent(M1, YES1), s);
    expect(out?.quotes?.map((d) => d.market)).toEqual([M1]);
    expect(out?.quotes?.[0]?.at).toBe(5_000);
    expect(quotesOf(out)).toEqual(['Y BUY 4730 10', 'N BUY 4730 10']);
    expect(h.onEvent(timerEvent(), s)?.quotes?.map((d) => d.market)).toEqual([M1, M2]);
  });
  it('widens as trades print far from the mid (kappa falls)', () => {
    const { h, s } = setup({ kappaHalfLife: 5 });
    h.onEvent(snapshotEvent(M1, YES1), s); // the mid reference
    const trade = (tokenId: typeof YES1, price: number): MmkitEvent => ({
      type: 'last_trade',
      market: M1,
      tokenId,
      price: price as Pips,
      size: SH as Micro,
      side: 'BUY',
      feeRateBps: 0,
      venueTime: 5_000,
      recvTime: 5_000,
    });
    // trades at 0.40 on YES and at 0.40 on NO (= 0.60 YES): 0.405 logit from the mid either way
    for (let i = 0; i < 50; i++) expect(h.onEvent(trade(i % 2 ? YES1 : NO1, 4000), s)).toBeUndefined();
    const out = quotesOf(h.onEvent(timerEvent(), s));
    // kappa -> 1/0.405 = 2.47: delta = 0.01 + 2 ln(1 + 1/2.47) = 0.6907: quotes at about 0.415 / 0.585
    expect(out).toEqual(['Y BUY 4140 10', 'N BUY 4140 10']);
  });
  it('pulls a stale book and a resolved market', () => {
    const { h, s } = setup();
    s.books.set(YES1, book(4900, 5100, true));
    expect(h.onEvent(snapshotEvent(M1, YES1), s)?.quotes).toEqual([{ market: M1, quotes: [], at: 5_000 }]);
    s.books.set(YES1, book(4900, 5100));
    const out = h.onEvent(
      { type: 'market_resolved', market: M1, winningTokenId: YES1, winningOutcome: 'Yes', venueTime: 1, recvTime: 1 },
      s,
    );
    expect(out?.quotes).toEqual([{ market: M1, quotes: [], at: 5_000 }]);
    expect(
      h.onEvent({ type: 'price_tick', symbol: 'btcusdt', value: 1, snapshot: false, venueTime: 1, recvTime: 1 }, s),
    ).toBeUndefined();
  });
});
