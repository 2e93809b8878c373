/**
 * A market (FAK/FOK) BUY is signed for whole cents of collateral (core/units.ts marketBuyTerms). Trial
 * 12 F1: on a 0.0001-tick market the live venue signed 5 x 0.5675 = 2.8375 as 2.83, which buys 4.98
 * shares: the paper exchange refused it (INVALID_ORDER_MIN_SIZE), the backtest's simulated venue filled
 * 5. Here the live venue (real clients, real HTTP) places FAK BUYs at 4-decimal prices on the real
 * paper exchange: each fills the size marketBuyTerms gives (the size asked, or a little more), and the
 * simulated venue fills the same sizes from the same book.
 */
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveClock } from '../../src/core/clock.ts';
import type { FillEvent } from '../../src/core/events.ts';
import type { ConditionId, TokenId } from '../../src/core/ids.ts';
import { marketBuyTerms, type Micro, type Pips } from '../../src/core/units.ts';
import type { PlaceRequest, Venue } from '../../src/core/venue.ts';
import { createLiveVenue } from '../../src/venues/live/create-live-venue.ts';
import { advance, CID, FeedBuilder, feed, marketInfo, newSim, YES, NO } from '../unit/venues/sim/sim-fixtures.ts';
import { liveUrls, startVenue, type TestVenue } from './support/setup.ts';

const SH = 1_000_000;
let v: TestVenue;
beforeAll(async () => {
  v = await startVenue({ seed: 12 });
}, 60_000);
afterAll(async () => {
  await v?.close();
});

/** The YES asks a maker leaves (as BUYs of NO at 1 - p): 100 shares at each price. */
const ASKS = [5675, 5001, 5899];
/** The FAK BUYs: [shares, worst price (pips)] and the shares they must get. */
const ORDERS: Array<[number, number, number]> = [
  [5, 5675, 5], // 2.8375 -> signed 2.84 -> 5 (was 2.83 -> 4.98: refused under the 5-share minimum)
  [5, 5001, 5.01], // 2.5005 -> 2.51 -> 5.0189 -> 5.01
  [10, 5899, 10], // 5.899 -> 5.90 -> 10.0017 -> 10 (was 5.89 -> 9.98)
];

async function placeAll(venue: Venue, market: ConditionId, yes: TokenId): Promise<string[]> {
  const out: string[] = [];
  for (const [shares, price] of ORDERS) {
    const r: PlaceRequest = {
      market,
      tokenId: yes,
      side: 'BUY',
      price: price as Pips,
      size: (shares * SH) as Micro,
      type: 'FAK',
    };
    const [p] = venue.prepare([r]);
    const [o] = await venue.place([p!]);
    expect(o, `FAK BUY ${shares} @ ${price / 10_000}`).toMatchObject({ ok: true, status: 'matched' });
    out.push(p!.id);
  }
  return out;
}

describe('a market BUY at a 4-decimal price (trial 12 F1)', () => {
  it('the paper exchange fills what the live venue signed; the simulated venue fills the same', async () => {
    const m = v.markets.find((x) => !x.neg_risk && x.minimum_order_size === 5)!;
    expect(m, 'a binary market with a 5-share minimum').toBeDefined();
    expect((await v.admin(`/markets/${m.condition_id}/tick-size`, { tick_size: '0.0001' })).status).toBe(200);
    const [yes, no] = [m.tokens[0]!.token_id, m.tokens[1]!.token_id];
    const maker = await v.trader();
    for (const p of ASKS)
      expect((await maker.place(no, 'BUY', ((10_000 - p) / 10_000).toFixed(4), '100', { tick: '0.0001' })).status).toBe(
        200,
      );

    const wallet = new Wallet(Wallet.createRandom().privateKey);
    const venue = await createLiveVenue({ urls: liveUrls(v), wallet, clock: new LiveClock() });
    try {
      await venue.markets();
      const ids = await placeAll(venue, m.condition_id as ConditionId, yes as TokenId);
      const fills = await venue.fills(0);
      const got = ids.map((id) => fills.filter((f) => f.orderId === id).reduce((s, f) => s + f.size, 0) / SH);
      expect(got).toEqual(ORDERS.map((o) => o[2]));
      // what the venue signed is what core/units.ts says it buys
      expect(got).toEqual(ORDERS.map(([s, p]) => marketBuyTerms(s * SH, p, '0.0001').shares / SH));
    } finally {
      await venue.close();
    }

    // the simulated venue on the same asks: the same sizes
    const info = marketInfo({ tick: '0.0001' });
    const { venue: sim, clock } = newSim({ markets: [info] });
    const fb = new FeedBuilder(info);
    const simFills: FillEvent[] = [];
    sim.userEvents([CID]).subscribe((e) => {
      if (e.type === 'fill') simFills.push(e);
    });
    sim.marketEvents([YES, NO]).subscribe(() => {});
    fb.header();
    fb.book(
      [[4000, 100]],
      ASKS.toSorted((a, b) => a - b).map((p) => [p, 100]),
    );
    feed(sim, clock, fb.items);
    for (const [shares, price, want] of ORDERS) {
      const [p] = sim.prepare([
        { market: CID, tokenId: YES, side: 'BUY', price: price as Pips, size: (shares * SH) as Micro, type: 'FAK' },
      ]);
      const pr = sim.place([p!]);
      await advance(clock, 10);
      await advance(clock, 10);
      expect((await pr)[0]).toMatchObject({ ok: true, status: 'matched' });
      const size = simFills.filter((f) => f.orderId === p!.id).reduce((s, f) => s + f.size, 0) / SH;
      expect(size, `sim FAK BUY ${shares} @ ${price / 10_000}`).toBe(want);
    }
  });
});
