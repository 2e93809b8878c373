/** The bands plugin keeps no memo of its quotes: every output is computed afresh and equals quoteMarket. */
import { describe, expect, it } from 'vitest';
import type { LiveOrderView } from '../../../src/core/intents.ts';
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

describe('bands: quotes computed afresh', () => {
  it('equals quoteMarket after every change of the book, the positions, the live orders and the tick; a fresh list each time', () => {
    const params = resolveParams(bands.params, { inventorySkew: 2 });
    const cfg = bandsConfig(resolveParams(BANDS_PARAMS, { inventorySkew: 2 }));
    const h = bands.create(ctxFor([marketInfo(M1, YES1, NO1)]), params);
    const s = fakeState({ books: [bookView(YES1, [[4900, 100 * SH]], [[5100, 100 * SH]])] });
    // a state whose order list is a new array only when the orders change (as the tracker's cached view)
    let orders: readonly LiveOrderView[] = [];
    s.openOrders = () => orders;
    const plan = (tick = 100): MarketPlan => ({ market: M1, yes: YES1, no: NO1, tick, minSize: 5 * SH });
    const quotes = (tickSize: number | null = null) =>
      h.onEvent(snapshotEvent(M1, YES1, tickSize), s)!.quotes![0]!.quotes;

    const q1 = quotes();
    expect(q1).toEqual(quoteMarket(plan(), cfg, s));
    const again = quotes(); // nothing changed: the same quotes, computed again
    expect(again).toEqual(q1);
    expect(again).not.toBe(q1);

    s.positions.set(YES1, 50 * SH); // inventory skews the quotes
    const q2 = quotes();
    expect(q2).toEqual(quoteMarket(plan(), cfg, s));
    expect(q2).not.toEqual(q1);

    s.books.set(YES1, bookView(YES1, [[5300, 100 * SH]], [[5500, 100 * SH]]));
    const q3 = quotes();
    expect(q3).toEqual(quoteMarket(plan(), cfg, s));
    expect(q3).not.toEqual(q2);

    orders = q3.map((q) => order(M1, q.tokenId, q.side, q.price, q.size));
    const q4 = quotes();
    expect(q4).toEqual(quoteMarket(plan(), cfg, s));
    expect(quotes()).toEqual(q4);

    const q5 = quotes(1000 as never); // a tick change (0.10)
    expect(q5).toEqual(quoteMarket(plan(1000), cfg, s));
    expect(q5).not.toEqual(q4);
  });
});
