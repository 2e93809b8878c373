/**
 * `bands` and the common rules added to it (strategies/bands.ts): minimum spread, post-only mode,
 * maximum order age, loading by name. The band mechanics, inventory skew, complement ('both') and
 * the no-book rules are tested in test/unit/strategy/bands.test.ts.
 * Prices in pips (0.01 = 100), sizes in micro-shares (SH = one share).
 */
import { describe, expect, it } from 'vitest';
import type { LiveOrderView, QuoteIntent } from '../../../src/core/intents.ts';
import { loadStrategy } from '../../../src/strategy/loader.ts';
import { resolveParams } from '../../../src/strategy/params.ts';
import bands, { BANDS_PARAMS, bandsConfig, quoteMarket, type MarketPlan } from '../../../strategies/bands.ts';
import {
  bookView,
  ctxFor,
  fakeState,
  M1,
  marketInfo,
  NO1,
  order,
  SH,
  snapshotEvent,
  YES1,
} from '../strategy/fixtures.ts';

const plan: MarketPlan = { market: M1, yes: YES1, no: NO1, tick: 100, minSize: 5 * SH };
const cfgOf = (o: Record<string, unknown> = {}) =>
  bandsConfig(
    resolveParams(BANDS_PARAMS, { inventorySkew: 0, margin: 0.02, marginTolerance: 0.01, tokens: 'yes', ...o }),
  );
const simple = (qs: readonly QuoteIntent[]) =>
  qs.map((q) => `${q.tokenId === YES1 ? 'Y' : 'N'} ${q.side} ${q.price} ${q.size / SH}`);
const book = (bid = 4900, ask = 5100) => bookView(YES1, [[bid, 100 * SH]], [[ask, 100 * SH]]);
const live = (qs: readonly QuoteIntent[], createdAt?: number): LiveOrderView[] =>
  qs.map((q) => ({
    ...order(M1, q.tokenId, q.side, q.price, q.size),
    ...(createdAt === undefined ? {} : { createdAt }),
  }));

describe('bands: common rules', () => {
  it('loads by name with the common params documented', async () => {
    const def = await loadStrategy('bands');
    expect(Object.keys(def.params)).toEqual(
      expect.arrayContaining(['minSpread', 'postOnly', 'maxOrderAge', 'tokens', 'maxPosition']),
    );
    expect(cfgOf({ minSpread: 0.06, postOnly: 'drop', maxOrderAge: 30 })).toMatchObject({
      minSpread: 600,
      postOnly: 'drop',
      maxOrderAgeMs: 30_000,
    });
  });
  it('minimum spread: no bid above mid - minSpread/2 (bands at 0.02 / 0.04 / 0.06; minSpread 0.06)', () => {
    // mid 0.50: band 0 would bid 0.48, kept at or below 0.47; bands 1 and 2 are already farther
    const s = fakeState({ books: [book()], positions: { [YES1]: 50 * SH } });
    expect(simple(quoteMarket(plan, cfgOf({ minSpread: 0.06 }), s))).toEqual([
      'Y BUY 4700 10',
      'Y SELL 5300 10',
      'Y BUY 4600 15',
      'Y SELL 5400 15',
      'Y BUY 4400 20',
      'Y SELL 5600 20',
    ]);
    // a live bid nearer the mid than 0.03 is not kept
    s.orders = [order(M1, YES1, 'BUY', 4800, 10 * SH)];
    expect(simple(quoteMarket(plan, cfgOf({ minSpread: 0.06 }), s))[0]).toBe('Y BUY 4700 10');
    expect(simple(quoteMarket(plan, cfgOf(), s))[0]).toBe('Y BUY 4800 10'); // without it: kept
  });
  it("post-only 'drop': a band that would cross the touch is dropped instead of moved behind it", () => {
    // long 100 with skew 20 ticks: centre 0.495 - 0.20 = 0.295: every ask (0.315...) would hit the 0.49 bid
    const s = fakeState({ books: [book(4900, 5000)], positions: { [YES1]: 100 * SH } });
    const moved = quoteMarket(plan, cfgOf({ inventorySkew: 20 }), s);
    // 'move' (the default): every band one tick behind the 0.49 bid, at 0.50; no bids at maxPosition
    expect(simple(moved)).toEqual(['Y SELL 5000 10', 'Y SELL 5000 15', 'Y SELL 5000 20']);
    expect(quoteMarket(plan, cfgOf({ inventorySkew: 20, postOnly: 'drop' }), s)).toEqual([]);
  });
  it('maximum order age: an aged order is not kept, and its band is refilled only once it is gone', () => {
    const cfg = cfgOf({ maxOrderAge: 60 });
    const s = fakeState({ books: [book()], now: 100_000 });
    const first = quoteMarket(plan, cfg, s);
    expect(simple(first)).toEqual(['Y BUY 4800 10', 'Y BUY 4600 15', 'Y BUY 4400 20']);
    // band 0's order is 60 s old, the others are younger
    s.orders = [...live(first.slice(0, 1), 40_000), ...live(first.slice(1), 90_000)];
    expect(simple(quoteMarket(plan, cfg, s))).toEqual(['Y BUY 4600 15', 'Y BUY 4400 20']);
    // the cancel landed: band 0 is quoted afresh
    s.orders = s.orders.slice(1);
    expect(simple(quoteMarket(plan, cfg, s))).toEqual(['Y BUY 4800 10', 'Y BUY 4600 15', 'Y BUY 4400 20']);
    // age unknown (adopted): never aged; maxOrderAge 0: off
    s.orders = live(first);
    expect(quoteMarket(plan, cfg, s)).toEqual(first);
    s.orders = live(first, 0);
    expect(quoteMarket(plan, cfgOf(), s)).toEqual(first);
  });
  it('the handler still answers per market', () => {
    const h = bands.create(
      ctxFor([marketInfo(M1, YES1, NO1)]),
      resolveParams(bands.params, { inventorySkew: 0, margin: 0.02, marginTolerance: 0.01, tokens: 'yes' }),
    );
    const out = h.onEvent(snapshotEvent(M1, YES1), fakeState({ books: [book()] }));
    expect(out?.quotes?.map((d) => simple(d.quotes))).toEqual([['Y BUY 4800 10', 'Y BUY 4600 15', 'Y BUY 4400 20']]);
  });
});
