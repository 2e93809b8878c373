/**
 * The simulated venue on hand-built feeds (frames as the paper exchange sends them; see
 * ./sim-fixtures.ts). Expected fills are computed by hand in the comments.
 */
import { describe, expect, it } from 'vitest';
import type { FillEvent, MarketEvent, OrderUpdateEvent, UserEvent } from '../../../../src/core/events.ts';
import type { OrderId } from '../../../../src/core/ids.ts';
import { PRICE_SCALE, type Micro, type Pips, type Side } from '../../../../src/core/units.ts';
import type { PlaceRequest } from '../../../../src/core/venue.ts';
import { EngineState } from '../../../../src/engine/state.ts';
import { fillFromEvent } from '../../../../src/store/store.ts';
import { NOT_CANCELED_REASON } from '../../../../src/exchange/exchange.ts';
import { REJECT_MESSAGES } from '../../../../src/exchange/matching/engine.ts';
import type { SimVenue } from '../../../../src/venues/sim/sim-venue.ts';
import type { QueueModelSpec } from '../../../../src/venues/sim/queue.ts';
import type { VirtualClock } from '../../../../src/core/clock.ts';
import { advance, CID, feed, FeedBuilder, flush, marketInfo, newSim, NO, SH, T0, YES } from './sim-fixtures.ts';

const req = (price: number, shares: number, o: Partial<PlaceRequest> = {}): PlaceRequest => ({
  market: CID,
  tokenId: YES,
  side: 'BUY',
  price: price as Pips,
  size: (shares * SH) as Micro,
  type: 'GTC',
  ...o,
});

interface Harness {
  venue: SimVenue;
  clock: VirtualClock;
  fb: FeedBuilder;
  user: UserEvent[];
  market: MarketEvent[];
  /** Feeds the items the builder added since the last call. */
  play(): void;
  /** Places and lets the order arrive and the answer come back (entry + response = 20 ms). */
  place(r: PlaceRequest): Promise<{ id: OrderId; outcome: Awaited<ReturnType<SimVenue['place']>>[number] }>;
  fills(id?: OrderId): FillEvent[];
}

function harness(
  o: Parameters<typeof newSim>[0] = {},
  book?: { bids: Array<[number, number]>; asks: Array<[number, number]> },
): Harness {
  const { venue, clock } = newSim(o);
  const fb = new FeedBuilder(o.markets?.[0] ?? marketInfo());
  const user: UserEvent[] = [];
  const market: MarketEvent[] = [];
  venue.userEvents([CID]).subscribe((e) => user.push(e));
  venue.marketEvents([YES, NO]).subscribe((e) => market.push(e));
  let played = 0;
  const h: Harness = {
    venue,
    clock,
    fb,
    user,
    market,
    play() {
      feed(venue, clock, fb.items.slice(played));
      played = fb.items.length;
    },
    async place(r) {
      const [p] = venue.prepare([r]);
      const pr = venue.place([p!]);
      await advance(clock, 10);
      await advance(clock, 10);
      const [outcome] = await pr;
      fb.t = clock.now();
      return { id: p!.id, outcome: outcome! };
    },
    fills(id) {
      return user.filter((e): e is FillEvent => e.type === 'fill' && (id === undefined || e.orderId === id));
    },
  };
  fb.header();
  if (book) fb.book(book.bids, book.asks);
  h.play();
  return h;
}

const sizes = (fs: FillEvent[]) => fs.map((f) => f.size / SH);

describe('sim venue: queue position (hand-computed)', () => {
  for (const queue of ['risk-averse', 'probabilistic'] as QueueModelSpec[]) {
    it(`${String(queue)}: behind 100 shares, trades of 30 / 50 / 40 then 15 fill 20 then 10`, async () => {
      const h = harness({ queue }, { bids: [[5000, 100]], asks: [[5200, 200]] });
      const { id, outcome } = await h.place(req(5000, 30));
      expect(outcome).toMatchObject({ ok: true, status: 'live' });
      h.fb.at(100).change([['bid', 5000, 150]]); // 50 more join behind us
      h.fb.at(100).sellInto(5000, 30); // ahead 100 -> 70
      h.fb.at(100).sellInto(5000, 50); // ahead 70 -> 20
      h.play();
      expect(h.fills(id)).toEqual([]);
      h.fb.at(100).sellInto(5000, 40); // 20 ahead, 20 reach us: fill 20
      h.play();
      expect(sizes(h.fills(id))).toEqual([20]);
      h.fb.at(100).sellInto(5000, 15); // 10 left of ours: fill 10
      h.play();
      expect(sizes(h.fills(id))).toEqual([20, 10]);
      for (const f of h.fills(id))
        expect(f).toMatchObject({
          role: 'MAKER',
          price: 5000,
          side: 'BUY',
          tokenId: YES,
          status: 'MATCHED',
          source: 'stream',
        });
      expect(await h.venue.order(id)).toMatchObject({ status: 'MATCHED', sizeMatched: 30 * SH });
      expect(await h.venue.openOrders()).toEqual([]);
      // the trade printed on both tokens counted once (else the 30 would have filled us earlier)
      expect(h.venue.stats).toMatchObject({ fills: 2, makerFills: 2, fees: 0 });
    });
  }

  it('cancellations advance the queue only in the probabilistic model', async () => {
    // ahead 100, 50 behind; a cancel of 40 (no trade); then trades of 30, 50, 25
    //  risk-averse: 100 -> 100 (cancel) -> 70 -> 20 -> fill 5 (25 - 20)
    //  probabilistic (n = 2): p = 50²/(50²+100²) = 0.2; ahead 100 - 0.8·40 = 68 -> 38 -> fill 12 -> fill 18
    const out: Record<string, number[]> = {};
    for (const queue of ['risk-averse', { kind: 'probabilistic', power: 2 }] as QueueModelSpec[]) {
      const h = harness({ queue }, { bids: [[5000, 100]], asks: [[5200, 200]] });
      const { id } = await h.place(req(5000, 30));
      h.fb.at(100).change([['bid', 5000, 150]]);
      h.fb.at(100).change([['bid', 5000, 110]]); // a cancellation: no trade
      h.fb.at(100).sellInto(5000, 30);
      h.fb.at(100).sellInto(5000, 50);
      h.fb.at(100).sellInto(5000, 25);
      h.play();
      out[typeof queue === 'string' ? queue : queue.kind] = sizes(h.fills(id));
    }
    expect(out).toEqual({ 'risk-averse': [5], probabilistic: [12, 18] });
  });

  it('a level size drop without a trade never fills, and caps the queue at the level (risk-averse)', async () => {
    const h = harness({}, { bids: [[5000, 100]], asks: [[5200, 200]] });
    const { id } = await h.place(req(5000, 10));
    h.fb.at(100).change([['bid', 5000, 8]]); // 92 cancelled: at most 8 ahead of us now
    h.fb.at(100).sellInto(5000, 8); // takes the 8: nothing for us
    h.play();
    expect(h.fills(id)).toEqual([]);
    h.fb.at(100).change([['bid', 5000, 50]]); // 50 join behind
    h.fb.at(100).sellInto(5000, 6); // 6 reach us
    h.play();
    expect(sizes(h.fills(id))).toEqual([6]);
  });

  for (const queue of ['risk-averse', 'probabilistic'] as QueueModelSpec[]) {
    it(`${String(queue)}: a level that empties and refills in one venue millisecond (two batches) puts us at its front`, async () => {
      // the paper exchange sends one price_change per batch; batches can share a millisecond
      const later = harness({ queue }, { bids: [[5000, 100]], asks: [[5200, 200]] });
      const a = await later.place(req(5000, 10));
      later.fb.at(100).change([['bid', 5000, 0]]); // the 100 ahead of us cancel
      later.fb.at(0).change([['bid', 5000, 50]]); // 50 join behind us, same venue ms
      later.fb.at(100).sellInto(5000, 6); // reaches us first
      later.play();
      expect(sizes(later.fills(a.id))).toEqual([6]);
      // the same with the trade in a third batch of that millisecond
      const same = harness({ queue }, { bids: [[5000, 100]], asks: [[5200, 200]] });
      const b = await same.place(req(5000, 10));
      same.fb.at(100).change([['bid', 5000, 0]]);
      same.fb.at(0).change([['bid', 5000, 50]]);
      same.fb.at(0).sellInto(5000, 6);
      same.play();
      expect(sizes(same.fills(b.id))).toEqual([6]);
    });
  }

  it('a trade printed only on the complement token fills a YES order (BUY NO = SELL YES)', async () => {
    for (const only of [undefined, 1, 0] as const) {
      const h = harness({}, { bids: [[4800, 50]], asks: [[5000, 100]] });
      // BUY NO at 0.50 rests with the YES asks at 0.50 (the NO bids at 0.50): 100 ahead
      const { id, outcome } = await h.place(req(5000, 20, { tokenId: NO }));
      expect(outcome).toMatchObject({ ok: true, status: 'live' });
      h.fb.at(100).change([['ask', 5000, 150]]);
      h.fb
        .at(100)
        .change([['ask', 5000, 90]])
        .trade('BUY', 5000, 60, only); // ahead 40
      h.fb
        .at(100)
        .change([['ask', 5000, 30]])
        .trade('BUY', 5000, 60, only); // 20 reach us
      h.play();
      expect(sizes(h.fills(id))).toEqual([20]);
      expect(h.fills(id)[0]).toMatchObject({ tokenId: NO, side: 'BUY', price: 5000, role: 'MAKER' });
    }
  });

  it('a move through our price fills in full at our price: the best ask reaching our bid, or a trade through it (up to its volume)', async () => {
    const h = harness({}, { bids: [[5000, 100]], asks: [[5200, 200]] });
    const a = await h.place(req(5000, 20));
    // someone sells 130 at 0.50: the 100 bids go, 30 rest as an ask at 0.50 (price_change first, then the print)
    h.fb.at(100).change([
      ['bid', 5000, 0],
      ['ask', 5000, 30],
    ]);
    h.fb.trade('SELL', 5000, 100);
    h.play();
    expect(h.fills(a.id).map((f) => [f.size / SH, f.price, f.role])).toEqual([[20, 5000, 'MAKER']]);
    // a trade printed below our bid: the seller went through us; it had 5 shares
    const b = await h.place(req(4900, 20));
    h.fb.at(100).change([
      ['ask', 5000, 0],
      ['bid', 4800, 10],
    ]);
    h.fb.at(100).sellInto(4800, 5);
    h.play();
    expect(sizes(h.fills(b.id))).toEqual([5]);
    expect(await h.venue.order(b.id)).toMatchObject({ status: 'LIVE', sizeMatched: 5 * SH });
  });
});

describe('sim venue: cancels and latency', () => {
  it('a cancel that arrives after a fill is too late: the fill stands, the cancel is refused as the venue refuses it', async () => {
    const h = harness({}, { bids: [[4900, 100]], asks: [[5200, 200]] });
    const a = await h.place(req(5000, 10)); // alone at 0.50: nothing ahead
    const t = h.clock.now();
    const cancel = h.venue.cancel([a.id]); // reaches the venue at t + 10
    h.fb.t = t;
    h.fb
      .at(5)
      .change([['bid', 5000, 0]])
      .trade('SELL', 5000, 10); // at t + 5 a seller takes 10 at 0.50
    h.play();
    expect(sizes(h.fills(a.id))).toEqual([10]);
    await advance(h.clock, 20);
    const r = await cancel;
    expect(r.canceled).toEqual([]);
    // the paper exchange's one text (the public service's), which bots match
    expect(r.notCanceled.get(a.id)).toBe("order can't be found - already canceled or matched");
    expect(r.notCanceled.get(a.id)).toBe(NOT_CANCELED_REASON);
    expect(h.venue.stats.cancelsTooLate).toBe(1);
    // an id the venue never had: the same text
    const unknown = `0x${'ee'.repeat(32)}` as OrderId;
    const u = h.venue.cancel([unknown]);
    await advance(h.clock, 20);
    expect((await u).notCanceled.get(unknown)).toBe(NOT_CANCELED_REASON);

    // in time: the cancel lands at t2 + 10, the trade at t2 + 15 finds nothing of ours
    const b = await h.place(req(5000, 10));
    const t2 = h.clock.now();
    const c2 = h.venue.cancel([b.id]);
    h.fb.t = t2;
    h.fb.at(15).trade('SELL', 5000, 10);
    h.play();
    await advance(h.clock, 20);
    expect((await c2).canceled).toEqual([b.id]);
    expect(h.fills(b.id)).toEqual([]);
    expect(
      h.user.filter((e) => e.type === 'order_update' && e.id === b.id).map((e) => (e as OrderUpdateEvent).status),
    ).toEqual(['LIVE', 'CANCELED']);
  });

  it('place resolves after entry + response latency; the order reaches the book after the entry latency', async () => {
    const h = harness(
      {
        latency: {
          entry: { kind: 'constant', ms: 30 },
          cancel: { kind: 'constant', ms: 5 },
          response: { kind: 'constant', ms: 20 },
        },
      },
      { bids: [[4900, 10]], asks: [[5200, 10]] },
    );
    const [p] = h.venue.prepare([req(5000, 10)]);
    let done = false;
    const pr = h.venue.place([p!]).then((r) => ((done = true), r));
    await advance(h.clock, 29);
    expect(await h.venue.order(p!.id)).toBeUndefined(); // still on the wire
    await advance(h.clock, 1);
    expect(await h.venue.order(p!.id)).toMatchObject({ status: 'LIVE' });
    expect(h.venue.nextTimerAt()).toBe(T0 + 50);
    await advance(h.clock, 19);
    expect(done).toBe(false);
    await advance(h.clock, 1);
    expect(done).toBe(true);
    expect((await pr)[0]).toMatchObject({ ok: true, status: 'live' });
    expect(h.venue.nextTimerAt()).toBeUndefined();
  });
});

describe('sim venue: taking liquidity, fees, rejections', () => {
  it('charges the V2 fee curve by default (the paper exchange default protocol), each level apart, and books it', async () => {
    const h = harness(
      { markets: [marketInfo({ feeRateBps: 100 })] },
      {
        bids: [[5000, 50]],
        asks: [
          [5200, 10],
          [5300, 20],
        ],
      },
    );
    const start = (await h.venue.balance()).available;
    // FAK BUY 25 up to 0.53: 10 at 0.52 and 15 at 0.53
    //   fees: 10 × 1% × .52 × .48 = 0.02496; 15 × 1% × .53 × .47 = 0.037365 -> 0.03736 (floored to 10 micro)
    //   -> 62,320 micro (the V1 formula would charge 118,500)
    const a = await h.place(req(5300, 25, { type: 'FAK' }));
    expect(a.outcome).toMatchObject({ ok: true, status: 'matched' });
    const [fa] = h.fills(a.id);
    expect(fa).toMatchObject({ role: 'TAKER', price: 5260, size: 25 * SH, fee: 62_320 });
    expect((await h.venue.fills(0)).find((f) => f.orderId === a.id)).toMatchObject({ fee: 62_320, role: 'TAKER' });
    expect((await h.venue.balance()).available).toBe(start - 13_150_000 - 62_320);
    expect(fillFromEvent(fa!).fee).toBe(62_320);
    expect(h.venue.stats).toMatchObject({ fees: 62_320 });
  });

  it('a crossing order takes the recorded levels up to their size, pays the fee formula, and never takes the same liquidity twice', async () => {
    // protocol 1: the V1 fee (the V2 curve, the default: the next test)
    const h = harness(
      { markets: [marketInfo({ feeRateBps: 100 })], feeProtocol: 1 },
      {
        bids: [[5000, 50]],
        asks: [
          [5200, 10],
          [5300, 20],
        ],
      },
    );
    const start = (await h.venue.balance()).available;
    // FAK BUY 25 up to 0.53: 10 at 0.52 and 15 at 0.53
    //   fees: 10 × min(.52,.48) × 1% = 0.048; 15 × min(.53,.47) × 1% = 0.0705 -> 118,500 micro
    //   paid: 5.20 + 7.95 = 13.15 -> 13,150,000 micro; average price (52000 + 79500) / 25 = 0.5260
    const a = await h.place(req(5300, 25, { type: 'FAK' }));
    expect(a.outcome).toMatchObject({ ok: true, status: 'matched' });
    const [fa] = h.fills(a.id);
    expect(fa).toMatchObject({ role: 'TAKER', price: 5260, size: 25 * SH, feeRateBps: 100, takerOrderId: a.id });
    expect((await h.venue.fills(0)).find((f) => f.orderId === a.id)).toMatchObject({ fee: 118_500, role: 'TAKER' });
    // the fill event carries the fee charged (the store books it: store/fills.ts fillFromEvent)
    expect(fa?.fee).toBe(118_500);
    expect((await h.venue.balance()).available).toBe(start - 13_150_000 - 118_500);
    expect(h.venue.account().positions.get(YES)).toBe(25 * SH);
    // the 0.53 level had 20: 5 are left for us
    const b = await h.place(req(5300, 10, { type: 'FAK' }));
    expect(b.outcome).toMatchObject({ ok: true, status: 'matched' });
    expect(sizes(h.fills(b.id))).toEqual([5]);
    expect(
      h.user
        .filter((e) => e.type === 'order_update' && e.id === b.id)
        .map(
          (e) =>
            `${(e as OrderUpdateEvent).kind}:${(e as OrderUpdateEvent).status}:${(e as OrderUpdateEvent).sizeMatched / SH}`,
        ),
    ).toEqual(['PLACEMENT:LIVE:0', 'UPDATE:LIVE:5', 'CANCELLATION:CANCELED:5']);
    const c = await h.place(req(5300, 10, { type: 'FAK' }));
    expect(c.outcome).toMatchObject({ ok: true, status: 'unmatched' });
    const fok = await h.place(req(5300, 10, { type: 'FOK' }));
    expect(fok.outcome).toMatchObject({
      ok: false,
      code: 'FOK_ORDER_NOT_FILLED_ERROR',
      message: REJECT_MESSAGES.FOK_ORDER_NOT_FILLED_ERROR,
    });
    // the recorded level grows by 5: that is new liquidity
    h.fb.at(100).change([['ask', 5300, 25]]);
    h.play();
    const d = await h.place(req(5300, 10, { type: 'FAK' }));
    expect(sizes(h.fills(d.id))).toEqual([5]);
    // it shrinks by 15 (someone else took some): what left eats into what we took first: nothing for us
    h.fb.at(100).change([['ask', 5300, 10]]);
    h.play();
    const e = await h.place(req(5300, 10, { type: 'FAK' }));
    expect(e.outcome).toMatchObject({ ok: true, status: 'unmatched' });
  });

  it('a GTC that crosses takes what it can and rests the rest at its price, at the back of the recorded level', async () => {
    const h = harness({}, { bids: [[5000, 50]], asks: [[5200, 10]] });
    const a = await h.place(req(5200, 30));
    expect(a.outcome).toMatchObject({ ok: true, status: 'live' });
    expect(await h.venue.order(a.id)).toMatchObject({ status: 'LIVE', sizeMatched: 10 * SH });
    expect(
      h.user.filter((e) => e.type === 'order_update' && e.id === a.id).map((e) => (e as OrderUpdateEvent).kind),
    ).toEqual(['PLACEMENT', 'UPDATE']);
    // it rests at 0.52 on the bid side; the 10 asks there are ours now, so the book does not "cross" us
    h.fb.at(100).change([['bid', 4900, 5]]);
    h.play();
    expect(sizes(h.fills(a.id))).toEqual([10]);
    // a seller at 0.52 of 12: 12 reach us (nothing recorded at 0.52 on the bid side)
    h.fb.at(100).trade('SELL', 5200, 12);
    h.play();
    expect(sizes(h.fills(a.id))).toEqual([10, 12]);
    const fills = await h.venue.fills(0);
    expect(fills.map((f) => [f.role, f.size / SH, f.fee])).toEqual([
      ['TAKER', 10, 0],
      ['MAKER', 12, 0], // makers pay no fee on the exchange
    ]);
  });

  it('rejects as the exchange does, with its codes and messages', async () => {
    const h = harness({ account: { collateral: (10 * SH) as Micro } }, { bids: [[5000, 50]], asks: [[5200, 10]] });
    const codes = async (r: PlaceRequest) => {
      const { outcome } = await h.place(r);
      return outcome.ok ? 'ok' : `${outcome.code}|${outcome.message}`;
    };
    expect(await codes(req(5200, 5, { postOnly: true }))).toBe(
      `INVALID_POST_ONLY_ORDER|${REJECT_MESSAGES.INVALID_POST_ONLY_ORDER}`,
    );
    expect(await codes(req(5100, 5, { postOnly: true, type: 'FAK' }))).toBe(
      `INVALID_POST_ONLY_ORDER_TYPE|${REJECT_MESSAGES.INVALID_POST_ONLY_ORDER_TYPE}`,
    );
    expect(await codes(req(5100, 1))).toBe(`INVALID_ORDER_MIN_SIZE|${REJECT_MESSAGES.INVALID_ORDER_MIN_SIZE}`);
    expect(await codes(req(5100, 50))).toBe(
      `INVALID_ORDER_NOT_ENOUGH_BALANCE|${REJECT_MESSAGES.INVALID_ORDER_NOT_ENOUGH_BALANCE}`,
    ); // 25.5 > 10
    expect(await codes(req(5100, 5, { side: 'SELL' }))).toBe(
      `INVALID_ORDER_NOT_ENOUGH_BALANCE|${REJECT_MESSAGES.INVALID_ORDER_NOT_ENOUGH_BALANCE}`,
    ); // no shares
    expect(await codes(req(5100, 5, { type: 'GTD', expiration: Math.floor(T0 / 1000) + 30 }))).toMatch(
      /^INVALID_ORDER_EXPIRATION\|invalid expiration/,
    );
    expect(await codes(req(5100, 5, { postOnly: true }))).toBe('ok'); // does not cross
    // the tick changes between signing and arrival
    const [p] = h.venue.prepare([req(5100, 5)]);
    const [q] = h.venue.prepare([req(4000, 5)]);
    h.fb.at(0).raw(
      JSON.stringify({
        event_type: 'tick_size_change',
        asset_id: YES,
        market: CID,
        old_tick_size: '0.01',
        new_tick_size: '0.1',
        timestamp: String(h.clock.now()),
      }),
    );
    h.play();
    const outs = h.venue.place([p!, q!]);
    await advance(h.clock, 20);
    expect((await outs).map((o) => (o.ok ? o.status : o.code))).toEqual(['INVALID_ORDER_MIN_TICK_SIZE', 'live']);
    // the same prepared order twice: the second is a duplicate
    const again = h.venue.place([q!]);
    await advance(h.clock, 20);
    expect((await again)[0]).toMatchObject({ ok: false, code: 'INVALID_ORDER_DUPLICATED' });
    expect(h.venue.stats.rejects).toMatchObject({
      INVALID_POST_ONLY_ORDER: 1,
      INVALID_ORDER_NOT_ENOUGH_BALANCE: 2,
      INVALID_ORDER_DUPLICATED: 1,
    });
    // prepare refuses what the live venue's signer refuses
    expect(() => h.venue.prepare([req(5050, 5)])).toThrow(/tick/); // the tick is 0.1 now
    expect(() => h.venue.prepare([req(5000, 0.001)])).toThrow(/0\.01 share/);
    expect(() => h.venue.prepare([req(5000, 5, { tokenId: '999' as never })])).toThrow(/listed market/);
  });

  it('a tick-size change cancels our orders off the new tick', async () => {
    const h = harness({}, { bids: [[4000, 50]], asks: [[6000, 10]] });
    const a = await h.place(req(4500, 5));
    const b = await h.place(req(4000, 5));
    h.fb.at(10).raw(
      JSON.stringify({
        event_type: 'tick_size_change',
        asset_id: YES,
        market: CID,
        old_tick_size: '0.01',
        new_tick_size: '0.1',
        timestamp: String(h.fb.t),
      }),
    );
    h.play();
    expect(await h.venue.order(a.id)).toMatchObject({ status: 'CANCELED' });
    expect(await h.venue.order(b.id)).toMatchObject({ status: 'LIVE' });
    expect((await h.venue.markets())[0]!.tick).toBe('0.1');
  });
});

describe('sim venue: resolution and settlement', () => {
  it('market_resolved cancels our orders and settles positions at 1 / 0; nothing is accepted after', async () => {
    const h = harness(
      {},
      {
        bids: [[4000, 50]],
        asks: [
          [5200, 10],
          [5500, 100],
        ],
      },
    );
    const start = (await h.venue.balance()).available;
    await h.place(req(5200, 10, { type: 'FAK' })); // 10 YES for 5.20
    const rest = await h.place(req(4000, 10)); // reserves 4.00
    expect((await h.venue.balance()).reserved).toBe(4 * SH);
    h.fb.at(1000).resolved(0);
    h.play();
    expect(await h.venue.order(rest.id)).toMatchObject({ status: 'CANCELED' });
    const [s] = h.venue.settlements();
    expect(s).toMatchObject({ market: CID, winningTokenId: YES, payout: 10 * SH, cancelledOrders: 1 });
    expect(s!.positions).toEqual([
      { tokenId: YES, shares: 10 * SH, payout: 10 * SH },
      { tokenId: NO, shares: 0, payout: 0 },
    ]);
    expect(await h.venue.balance()).toEqual({ available: start - 5_200_000 + 10 * SH, reserved: 0 });
    expect(h.venue.account().positions.size).toBe(0);
    expect((await h.venue.markets())[0]!.active).toBe(false);
    const late = await h.place(req(4000, 10));
    expect(late.outcome).toMatchObject({ ok: false, code: 'MARKET_NOT_READY' });
    expect(h.market.some((e) => e.type === 'market_resolved')).toBe(true);
    expect(h.venue.settle(CID, NO)).toBe(s); // idempotent: already settled
  });

  it("a feed's market line: a change becomes market_updated at its time; closed, our orders are refused; reopened, accepted", async () => {
    const h = harness({}, { bids: [[4000, 50]], asks: [[5200, 10]] });
    const rewards = { maxSpread: 300 as Pips, minSize: (20 * SH) as Micro, dailyRate: (144 * SH) as Micro };
    h.fb.at(1000).marketLine({ rewards, tick: '0.001' }); // the tick is the market channel's: kept
    h.play();
    const upd = h.market.filter((e) => e.type === 'market_updated');
    expect(upd).toEqual([
      expect.objectContaining({ market: CID, changed: ['rewards'], venueTime: T0 + 1000, recvTime: T0 + 1000 }),
    ]);
    expect(upd[0]!.type === 'market_updated' && upd[0]!.info).toMatchObject({ rewards, tick: '0.01' });
    expect((await h.venue.markets())[0]!.rewards).toEqual(rewards);
    // the same info again: nothing; closed: an event, and our orders are refused (the venue accepts none)
    h.fb.at(2000).marketLine({ rewards }).marketLine({ rewards, active: false });
    h.play();
    expect(
      h.market.filter((e) => e.type === 'market_updated').map((e) => e.type === 'market_updated' && e.changed),
    ).toEqual([['rewards'], ['status']]);
    expect((await h.place(req(4000, 10))).outcome).toMatchObject({ ok: false, code: 'MARKET_NOT_READY' });
    h.fb.at(3000).marketLine({ rewards, active: true });
    h.play();
    expect((await h.place(req(4000, 10))).outcome).toMatchObject({ ok: true });
    // an unknown market, or one whose tokens differ, changes nothing
    h.fb.marketLine({ market: '0xunknown' as typeof CID, active: false });
    h.fb.marketLine({
      active: false,
      tokens: [
        { tokenId: NO, outcome: 'No' },
        { tokenId: YES, outcome: 'Yes' },
      ],
    });
    h.play();
    expect(h.market.filter((e) => e.type === 'market_updated')).toHaveLength(3);
    expect(h.venue.stats.statuses).toBeGreaterThanOrEqual(6);
  });

  it('a losing position pays nothing; settle() resolves by hand', async () => {
    const h = harness({}, { bids: [[4000, 50]], asks: [[5200, 10]] });
    await h.place(req(5200, 10, { type: 'FAK' }));
    const s = h.venue.settle(CID, NO);
    expect(s).toMatchObject({ winningTokenId: NO, payout: 0 });
    expect(h.venue.account().settled).toBe(0);
  });
});

describe('sim venue: no look-ahead', () => {
  /**
   * A scripted run over a feed whose 5th later item resolves the market: the venue ingests
   * `ingest` of the later items and the answers are taken after the first `k` (the bot also acts
   * between items 2 and 3). Returns what the bot could see at that point.
   */
  async function run(k: number, ingest: number): Promise<string> {
    const h = harness({ queue: 'probabilistic' }, { bids: [[5000, 100]], asks: [[5200, 100]] });
    const { fb } = h;
    const mark = fb.items.length;
    fb.at(100).change([['bid', 5000, 120]]);
    fb.at(100).sellInto(5000, 60);
    fb.at(100).change([['bid', 5000, 30]]);
    fb.at(100).sellInto(5000, 50);
    fb.at(100).resolved(1); // NO wins: invisible before its turn
    fb.at(100).change([['ask', 5200, 0]]);
    const later = fb.items.slice(mark);
    const a = await h.place(req(5000, 20));
    let snap = '';
    const take = async () => {
      const upTo = h.clock.now();
      snap = JSON.stringify({
        a: await h.venue.order(a.id),
        open: await h.venue.openOrders(),
        fills: await h.venue.fills(0),
        balance: await h.venue.balance(),
        markets: (await h.venue.markets()).map((m) => m.active),
        settlements: h.venue.settlements(),
        stats: h.venue.stats,
        user: h.user.filter((e) => e.recvTime <= upTo),
        market: h.market.filter((e) => e.recvTime <= upTo),
      });
    };
    let n = 0;
    for (const it of later.slice(0, ingest)) {
      h.clock.advanceTo(Math.max(h.clock.now(), it.t));
      h.venue.ingest(it);
      n++;
      if (it === later[1]) {
        const [p] = h.venue.prepare([req(4900, 10)]);
        void h.venue.place([p!]);
      }
      await flush();
      if (n === k) await take();
    }
    if (k === 0) await take();
    return snap;
  }

  it('a venue fed the items up to t answers identically whether or not later items exist', async () => {
    const total = 10; // the later items: a change is one frame, a sellInto three (the change, two prints); the resolution is the 9th
    for (const k of [1, 3, 5, 8]) {
      const prefix = await run(k, k);
      const full = await run(k, total);
      expect(full).toBe(prefix);
      if (k < 8) expect(prefix).toMatch(/"markets":\[true\]/); // the resolution is not known yet
      if (k < 8) expect(prefix).toMatch(/"settlements":\[\]/);
    }
    const all = await run(total, total);
    expect(all).toMatch(/"markets":\[false\]/);
  });

  it('the resolution is unknown before its frame: an order placed just before it is accepted', async () => {
    const h = harness({}, { bids: [[4000, 50]], asks: [[6000, 10]] });
    const a = await h.place(req(4000, 5));
    expect(a.outcome).toMatchObject({ ok: true, status: 'live' });
    h.fb.at(1).resolved(0);
    h.play();
    expect(await h.venue.order(a.id)).toMatchObject({ status: 'CANCELED' });
  });
});

describe('sim venue: market events as the live stream gives them', () => {
  it('subscribing gives the books, then resynced; our resting orders show in the book (both tokens), the matching never sees them', async () => {
    const h = harness({}, { bids: [[5000, 100]], asks: [[5200, 100]] });
    const late: MarketEvent[] = [];
    h.venue.marketEvents([YES]).subscribe((e) => late.push(e));
    expect(late.map((e) => e.type)).toEqual(['book_snapshot', 'resynced']);
    expect(late[1]).toMatchObject({ initial: true, stream: 'market' });
    const from = h.market.length;
    const a = await h.place(req(5100, 20)); // inside the spread: the new best bid
    const ours = h.market.slice(from).filter((e) => e.type === 'level_change');
    expect(ours).toEqual([
      expect.objectContaining({
        tokenId: YES,
        side: 'BUY',
        price: 5100,
        size: 20 * SH,
        bestBid: 5100,
        bestAsk: 5200,
        endOfBatch: false,
      }),
      expect.objectContaining({
        tokenId: NO,
        side: 'SELL',
        price: 4900,
        size: 20 * SH,
        bestBid: 4800,
        bestAsk: 4900,
        endOfBatch: true,
      }),
    ]);
    // a recorded change elsewhere carries our best
    const from2 = h.market.length;
    h.fb.at(10).change([['bid', 5000, 90]]);
    h.play();
    expect(h.market.slice(from2)).toEqual([
      expect.objectContaining({ tokenId: YES, price: 5000, size: 90 * SH, bestBid: 5100 }),
      expect.objectContaining({ tokenId: NO, price: 5000, size: 90 * SH, bestAsk: 4900 }),
    ]);
    // a snapshot includes us; a fresh subscription too
    const from3 = h.market.length;
    h.fb.at(10).snapshots(0);
    h.play();
    expect(h.market[from3]).toMatchObject({
      type: 'book_snapshot',
      bids: [
        [5100, 20 * SH],
        [5000, 90 * SH],
      ],
    });
    // a trade fills us: our size leaves the book
    h.fb.at(10).trade('SELL', 5100, 20);
    h.play();
    expect(sizes(h.fills(a.id))).toEqual([20]);
    expect(
      h.market.filter((e) => e.type === 'level_change' && e.price === 5100 && e.tokenId === YES).pop(),
    ).toMatchObject({ size: 0, bestBid: 5000 });
  });

  it('an engine state mirroring the venue sees no desync and no crossed book through fills, overlays and snapshots', async () => {
    const h = harness(
      { queue: 'probabilistic' },
      {
        bids: [
          [5000, 100],
          [4900, 50],
        ],
        asks: [
          [5200, 100],
          [5300, 50],
        ],
      },
    );
    const state = new EngineState([marketInfo()], { requireUserSync: false });
    let t = 0;
    const apply = (e: MarketEvent | UserEvent) => state.apply(e, t++);
    for (const e of h.market) apply(e);
    const sub = h.venue.marketEvents([YES, NO]).subscribe(apply);
    h.venue.userEvents([]).subscribe(apply);
    const orders: Array<[Side, number, number, PlaceRequest['tokenId']]> = [
      ['BUY', 5100, 20, YES],
      ['BUY', 5000, 10, YES],
      ['BUY', 4800, 15, NO], // a YES ask at 0.52 in the mirror
      ['BUY', 4700, 15, NO],
    ];
    for (const [side, p, s, tok] of orders) await h.place(req(p, s, { side, tokenId: tok }));
    h.fb.at(10).change([['bid', 5000, 130]]);
    h.fb.at(10).trade('SELL', 5100, 5); // prints at our 0.51
    h.fb.at(10).change([
      ['bid', 5000, 0],
      ['ask', 5000, 40], // an ask at 0.50 crosses our 0.51 and 0.50 bids: filled in full
    ]);
    h.fb.at(10).trade('SELL', 5000, 100);
    h.fb.at(10).snapshots();
    h.fb.at(10).buyInto(5200, 30); // prints on the asks: our NO bids (YES asks) at 0.52 advance
    h.fb.at(10).change([['ask', 5200, 200]]);
    h.fb.at(10).buyInto(5200, 150);
    h.play();
    sub.unsubscribe();
    expect(state.stats).toMatchObject({ desyncs: 0, crossed: 0 });
    expect(h.venue.stats.fills).toBeGreaterThan(2);
    // the mirror holds the recorded book plus our resting orders, like the live one
    expect(state.book(YES)!.stale).toBe(false);
    expect(state.book(NO)!.stale).toBe(false);
    const open = await h.venue.openOrders();
    expect(open.map((o) => [o.tokenId === NO, o.price, o.sizeMatched / SH])).toEqual([[true, 4700, 0]]);
    expect(state.book(NO)!.bestBid).toBe(5000); // the recorded YES ask at 0.50 (40), mirrored
  });

  it('a recorded disconnect is a disconnected event; level changes wait for the fresh snapshots, then resynced', async () => {
    const h = harness({}, { bids: [[5000, 100]], asks: [[5200, 100]] });
    const from = h.market.length;
    h.fb.at(10).status('disconnect', 'closed 1006');
    h.fb.at(500).status('connect');
    h.fb.at(1).change([['bid', 5000, 80]]); // before the snapshots: dropped, as live
    h.fb.at(1).snapshots(0);
    h.fb.at(1).snapshots(1);
    h.fb.at(1).change([['bid', 5000, 70]]);
    h.play();
    expect(h.market.slice(from).map((e) => e.type + (e.type === 'resynced' ? `:${e.initial}` : ''))).toEqual([
      'disconnected',
      'book_snapshot',
      'book_snapshot',
      'resynced:false',
      'level_change',
      'level_change',
    ]);
    expect(h.market[from]).toMatchObject({ reason: 'closed 1006', stream: 'market' });
    expect(h.venue.stats).toMatchObject({ disconnects: 1, droppedWhilePending: 2 });
  });

  it('bad frames are counted and reported as stream errors, never thrown', async () => {
    const h = harness({}, { bids: [[5000, 100]], asks: [[5200, 100]] });
    h.fb
      .raw('not json')
      .raw('{"event_type":"price_change","market":"x"}')
      .raw('[{"event_type":"whatever"}]')
      .raw('{"event_type":"error","error":{"code":"X","message":"y"}}');
    expect(() => h.play()).not.toThrow();
    expect(h.venue.stats).toMatchObject({ decodeErrors: 2, unknownTypes: 1, serverErrors: 1 });
    expect(h.market.filter((e) => e.type === 'stream_error')).toHaveLength(3);
  });

  it('feedMs: N shows each event at venueTime + N (never before it was received), in feed order', async () => {
    const h = harness({
      latency: {
        feedMs: 100,
        entry: { kind: 'constant', ms: 10 },
        cancel: { kind: 'constant', ms: 10 },
        response: { kind: 'constant', ms: 10 },
      },
    });
    h.fb.lag = 30; // recorded: venue time 30 ms before the receive time
    h.fb.at(1000).book([[5000, 100]], [[5200, 100]]);
    const t = h.fb.t;
    const from = h.market.length;
    h.play();
    expect(h.market.length).toBe(from); // not yet: venueTime + 100 = t + 70
    await advance(h.clock, 69);
    expect(h.market.length).toBe(from);
    await advance(h.clock, 1);
    expect(h.market.slice(from).map((e) => [e.type, e.recvTime - t])).toEqual([
      ['book_snapshot', 70],
      ['book_snapshot', 70],
    ]);
    expect(h.venue.stats.feedLatencyMs).toMatchObject({ count: 2, mean: 30, min: 30, max: 30 }); // as recorded
  });
});

describe('sim venue: determinism, ids, stats', () => {
  async function transcript(seed: number): Promise<string> {
    const lat = { kind: 'lognormal' as const, meanMs: 15, sdMs: 10 };
    const h = harness(
      { seed, latency: { entry: lat, cancel: lat, response: lat }, queue: 'probabilistic' },
      { bids: [[5000, 100]], asks: [[5200, 100]] },
    );
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const ps = h.venue.prepare([req(4500 + 100 * i, 5), req(5000, 5)]);
      ids.push(...ps.map((p) => p.id));
      void h.venue.place(ps);
      h.fb.at(7).sellInto(5000, 3);
      h.play();
      await advance(h.clock, 40);
      void h.venue.cancel([ps[0]!.id]);
      h.fb.at(9).change([['bid', 5000, 90 - i]]);
      h.play();
      await advance(h.clock, 60);
    }
    return JSON.stringify({ ids, user: h.user, fills: await h.venue.fills(0), stats: h.venue.stats });
  }

  it('the same inputs and seed give the same run; ids have the shape of an order hash', async () => {
    const a = await transcript(11);
    expect(await transcript(11)).toBe(a);
    expect(await transcript(12)).not.toBe(a);
    const ids = JSON.parse(a).ids as string[];
    expect(ids.every((id) => /^0x[0-9a-f]{64}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('counts requests against the section-8 budgets', async () => {
    const h = harness({}, { bids: [[5000, 100]], asks: [[5200, 100]] });
    const reqs = Array.from({ length: 20 }, (_, i) => req(2000 + 100 * i, 5));
    const ps = h.venue.prepare(reqs);
    const pr = h.venue.place(ps); // 15 + 5: two POST /orders
    for (let i = 0; i < 6; i++) await advance(h.clock, 10);
    expect((await pr).every((o) => o.ok)).toBe(true);
    const c = h.venue.cancel(ps.map((p) => p.id));
    await advance(h.clock, 10);
    await advance(h.clock, 10);
    expect((await c).canceled).toHaveLength(20);
    const all = h.venue.cancelAll();
    await advance(h.clock, 10);
    await advance(h.clock, 10);
    expect((await all).canceled).toEqual([]);
    const st = h.venue.stats;
    expect(st).toMatchObject({
      placeRequests: 2,
      cancelRequests: 1,
      cancelAllRequests: 1,
      ordersPlaced: 20,
      ordersCancelled: 20,
    });
    const by = Object.fromEntries(st.budget.map((b) => [b.rule, b]));
    expect(by['POST /orders:burst']).toMatchObject({ requests: 2, peak: 2, limit: 1000, windowMs: 10_000, over: 0 });
    expect(by['POST /orders:sustained']).toMatchObject({ requests: 2, limit: 15000, windowMs: 600_000 });
    expect(by['DELETE /orders:burst']).toMatchObject({ requests: 1 });
    expect(by['DELETE /cancel-all:burst']).toMatchObject({ requests: 1, limit: 250 });
    expect(by['general']).toMatchObject({ requests: 4 });
  });

  it('close answers what is in flight as unknown and completes the streams', async () => {
    const h = harness({}, { bids: [[5000, 100]], asks: [[5200, 100]] });
    let completed = 0;
    h.venue.marketEvents([YES]).subscribe({ complete: () => completed++ });
    h.venue.userEvents([]).subscribe({ complete: () => completed++ });
    const [p] = h.venue.prepare([req(4000, 5)]);
    const pr = h.venue.place([p!]);
    await h.venue.close();
    expect((await pr)[0]).toMatchObject({ ok: false, code: 'UNKNOWN' });
    expect(completed).toBe(2);
    expect(await h.venue.heartbeat()).toBe(false);
    await h.venue.close(); // idempotent
  });
});

void PRICE_SCALE;

describe('sim venue: bounded memory (retainMs)', () => {
  /** A filled order and a resting one, then `minutes` of level changes, one a minute. */
  async function run(o: Parameters<typeof newSim>[0], minutes: number) {
    const h = harness(o, { bids: [[4900, 100]], asks: [[5200, 200]] });
    const [pa] = h.venue.prepare([req(5000, 10)]); // alone at 0.50: the trade below fills it
    const pr = h.venue.place([pa!]);
    await advance(h.clock, 20);
    await pr;
    const live = await h.place(req(4800, 10)); // rests, never filled
    h.fb.t = h.clock.now();
    h.fb.at(5).trade('SELL', 5000, 10);
    h.play();
    expect(sizes(h.fills(pa!.id))).toEqual([10]);
    for (let i = 0; i < minutes; i++) h.fb.at(60_000).change([['ask', 5200, 200 + i]]);
    h.play();
    return { h, filled: pa!, live: live.id };
  }

  it('drops finished orders and fills after retainMs of virtual time; live orders stay; a dropped id is still a duplicate', async () => {
    const { h, filled, live } = await run({ retainMs: 600_000 }, 13);
    expect(await h.venue.order(filled.id)).toBeUndefined();
    expect(await h.venue.fills(0)).toEqual([]);
    expect(await h.venue.order(live)).toMatchObject({ status: 'LIVE' });
    expect((await h.venue.openOrders()).map((x) => x.id)).toEqual([live]);
    // placing the dropped order again is refused as a duplicate, as it was before it was dropped
    h.clock.advance(0);
    const again = h.venue.place([filled]);
    await advance(h.clock, 20);
    expect((await again)[0]).toMatchObject({ ok: false, code: 'INVALID_ORDER_DUPLICATED' });
  });

  it('drops an order that took all its size on arrival (finished as a taker), after retainMs too', async () => {
    const { h } = await run({ retainMs: 600_000 }, 0);
    const taker = await h.place(req(5200, 10)); // crosses the ask of 200: filled at once, never rests
    expect(await h.venue.order(taker.id)).toMatchObject({ status: 'MATCHED', sizeMatched: 10 * SH });
    for (let i = 0; i < 13; i++) h.fb.at(60_000).change([['ask', 5200, 300 + i]]);
    h.play();
    expect(await h.venue.order(taker.id)).toBeUndefined();
  });

  it('keeps them within retainMs, and forever with Infinity', async () => {
    const recent = await run({ retainMs: 600_000 }, 5);
    expect(await recent.h.venue.order(recent.filled.id)).toMatchObject({ status: 'MATCHED', sizeMatched: 10 * SH });
    expect((await recent.h.venue.fills(0)).map((f) => f.orderId)).toEqual([recent.filled.id]);
    const all = await run({ retainMs: Infinity }, 13);
    expect(await all.h.venue.order(all.filled.id)).toMatchObject({ status: 'MATCHED' });
    expect((await all.h.venue.fills(0)).map((f) => f.orderId)).toEqual([all.filled.id]);
  });
});
