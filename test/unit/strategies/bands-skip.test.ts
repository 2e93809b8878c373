/**
 * The bands plugin answers a book event that moved nothing its quotes depend on with no output
 * (execution keeps the quotes), and re-quotes on every event that may have moved them.
 */
import { describe, expect, it } from 'vitest';
import type { MmkitEvent } from '../../../src/core/events.ts';
import type { LiveOrderView } from '../../../src/core/intents.ts';
import type { Side } from '../../../src/core/units.ts';
import type { TokenId } from '../../../src/core/ids.ts';
import { resolveParams } from '../../../src/strategy/params.ts';
import bands, { BANDS_PARAMS, bandsConfig, quoteMarket, type MarketPlan } from '../../../strategies/bands.ts';
import {
  bookView,
  ctxFor,
  fakeState,
  levelEvent,
  M1,
  marketInfo,
  NO1,
  order,
  SH,
  snapshotEvent,
  YES1,
  type Lv,
} from '../strategy/fixtures.ts';

const level = (tokenId: TokenId, side: Side, price: number, endOfBatch = true): MmkitEvent =>
  levelEvent(M1, tokenId, endOfBatch, { side, price });

describe('bands: no output for book events that move nothing it reads', () => {
  const setup = (excludeOwnOrders: boolean) => {
    const params = resolveParams(bands.params, { excludeOwnOrders });
    const cfg = bandsConfig(resolveParams(BANDS_PARAMS, { excludeOwnOrders }));
    const h = bands.create(ctxFor([marketInfo(M1, YES1, NO1)]), params);
    let bids: Lv[] = [
      [4900, 100 * SH],
      [4800, 50 * SH],
      [4000, 10 * SH],
    ];
    let asks: Lv[] = [
      [5100, 100 * SH],
      [5200, 50 * SH],
      [6000, 10 * SH],
    ];
    const s = fakeState({ books: [bookView(YES1, bids, asks)] });
    let orders: readonly LiveOrderView[] = [];
    s.openOrders = () => orders;
    const setBook = (b: Lv[], a: Lv[]) => {
      bids = b;
      asks = a;
      s.books.set(YES1, bookView(YES1, b, a));
    };
    const plan: MarketPlan = { market: M1, yes: YES1, no: NO1, tick: 100, minSize: 5 * SH };
    const out = (e: MmkitEvent) => h.onEvent(e, s)?.quotes?.[0]?.quotes;
    return {
      h,
      s,
      cfg,
      plan,
      out,
      setBook,
      setOrders: (o: readonly LiveOrderView[]) => (orders = o),
      book: () => ({ bids, asks }),
    };
  };

  it('a level change behind the top, a NO-token event, a trade: nothing; a change at the top: the fresh quotes', () => {
    const t = setup(true);
    const q0 = t.out(snapshotEvent(M1, YES1));
    expect(q0).toEqual(quoteMarket(t.plan, t.cfg, t.s));
    expect(q0!.length).toBeGreaterThan(0);

    // deep levels change on both sides: same top, no output
    t.setBook(
      [
        [4900, 100 * SH],
        [4800, 70 * SH],
      ],
      [
        [5100, 100 * SH],
        [5200, 20 * SH],
        [6100, 5 * SH],
      ],
    );
    expect(t.out(level(YES1, 'BUY', 4800, false))).toBeUndefined();
    expect(t.out(level(YES1, 'SELL', 5200, true))).toBeUndefined();
    // the NO book and NO snapshots: not read while the YES book exists
    expect(t.out(level(NO1, 'BUY', 4000, true))).toBeUndefined();
    expect(t.out(snapshotEvent(M1, NO1))).toBeUndefined();

    // the top moves: a change at the best bid re-quotes, equal to a fresh computation
    t.setBook(
      [
        [5500, 10 * SH],
        [4900, 100 * SH],
      ],
      [[5700, 10 * SH], ...t.book().asks],
    );
    const q1 = t.out(level(YES1, 'BUY', 5500));
    expect(q1).toEqual(quoteMarket(t.plan, t.cfg, t.s));
    expect(q1).not.toEqual(q0);

    // a batch whose first change was at the top and whose last was deep: re-quoted (the batch is remembered)
    t.setBook(
      [
        [4900, 100 * SH],
        [4700, 1 * SH],
      ],
      t.book().asks,
    );
    expect(t.out(level(YES1, 'BUY', 5500, false))).toBeUndefined(); // not the end of the batch
    const q2 = t.out(level(YES1, 'BUY', 4700, true));
    expect(q2).toEqual(quoteMarket(t.plan, t.cfg, t.s));
  });

  it('a level change at our own resting price re-quotes (the top net of our orders may move); behind it, nothing', () => {
    const t = setup(true);
    t.out(snapshotEvent(M1, YES1));
    // we rest the whole best bid: the net bid is the next level
    t.setOrders([order(M1, YES1, 'BUY', 4900, 100 * SH)]);
    t.out(snapshotEvent(M1, YES1)); // the memo now holds the net top (4800)
    // a change at 4900 (our level) with the touch unchanged: may move the net top, re-quoted
    t.setBook(
      [
        [4900, 150 * SH],
        [4800, 50 * SH],
        [4000, 10 * SH],
      ],
      t.book().asks,
    );
    const q = t.out(level(YES1, 'BUY', 4900));
    expect(q).toEqual(quoteMarket(t.plan, t.cfg, t.s));
    // behind the net bid (4800): nothing
    t.setBook(
      [
        [4900, 150 * SH],
        [4800, 50 * SH],
        [4100, 10 * SH],
      ],
      t.book().asks,
    );
    expect(t.out(level(YES1, 'BUY', 4100))).toBeUndefined();
  });

  it('our orders, positions or a timer re-quote even when the book did not move', () => {
    const t = setup(false);
    t.out(snapshotEvent(M1, YES1));
    expect(t.out(level(YES1, 'BUY', 4000))).toBeUndefined();
    t.setOrders([order(M1, YES1, 'BUY', 4800, 10 * SH)]);
    expect(t.out(level(YES1, 'BUY', 4000))).toEqual(quoteMarket(t.plan, t.cfg, t.s));
    t.s.positions.set(YES1, 20 * SH);
    expect(t.out(level(YES1, 'BUY', 4000))).toEqual(quoteMarket(t.plan, t.cfg, t.s));
    expect(t.out(level(YES1, 'BUY', 4000))).toBeUndefined();
    expect(t.out({ type: 'timer', name: 'tick', venueTime: 1, recvTime: 1 })).toEqual(quoteMarket(t.plan, t.cfg, t.s));
  });

  it('a stale or missing YES book is never skipped', () => {
    const t = setup(false);
    t.out(snapshotEvent(M1, YES1));
    t.s.books.set(YES1, bookView(YES1, t.book().bids, t.book().asks, true));
    expect(t.out(level(YES1, 'BUY', 4000))).toEqual(quoteMarket(t.plan, t.cfg, t.s));
  });
});
