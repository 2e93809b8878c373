/**
 * The Venue port's contract: ONE suite every adapter must pass (the live adapter against the paper
 * exchange now; the backtest's simulated venue later). Not a test file itself: an adapter's test
 * imports `runVenueContract` and calls it with a factory.
 *
 *   runVenueContract('live venue on the paper exchange', async () => ({ venue, counterparty, close }));
 *
 * What it checks:
 *  - markets are listed with two tokens, a venue tick and a minimum size, active ones first;
 *  - market events give a snapshot, then level changes, for a subscribed token;
 *  - prepare gives ids before anything is sent; the id is the order's for good (place answers with
 *    it, the venue lists it, resending the same prepared order makes no second order);
 *  - place → live → listed by openOrders and order(id) → cancel → gone (CANCELED), with the order
 *    updates on userEvents;
 *  - a crossing order from a counterparty fills a resting order: a fill on userEvents and in
 *    fills(since), on the resting order's own token, side and price;
 *  - cancelAll leaves openOrders empty; order(unknown id) is undefined; heartbeat is true.
 *
 * The harness's market should have room between its best bid and ask (an empty book is best): the
 * suite rests BUY orders at the lowest tick and crosses one inside the spread.
 */
import type { Observable, Subscription } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BookSnapshotEvent, FillEvent, MarketEvent, OrderUpdateEvent, UserEvent } from '../../src/core/events.ts';
import type { ConditionId, OrderId, TokenId } from '../../src/core/ids.ts';
import {
  isTickSize,
  LOT_MICRO,
  PRICE_SCALE,
  tickPips,
  type Micro,
  type Pips,
  type Side,
} from '../../src/core/units.ts';
import type { MarketInfo, PlaceRequest, Venue } from '../../src/core/venue.ts';

/** Another account trading against ours. */
export interface ContractCounterparty {
  /**
   * Sends an order from another account that trades immediately against a resting order: `side`
   * on `tokenId` at `price` for `size` (the adapter may route it as the equivalent order on the
   * complementary token: a SELL of YES at p is a BUY of NO at 1 − p).
   */
  take(o: { market: ConditionId; tokenId: TokenId; side: Side; price: Pips; size: Micro }): Promise<void>;
}

/** What an adapter's factory gives the suite. */
export interface VenueHarness {
  venue: Venue;
  /** Without one, the crossing test is skipped. */
  counterparty?: ContractCounterparty;
  /** The market to trade (default: the first active market listed). */
  market?: MarketInfo;
  /** How long to wait for an event, ms (default 5000; a virtual-time venue may need to drive its clock instead). */
  timeoutMs?: number;
  close(): Promise<void>;
}

/** Records an Observable's events and waits for one. */
class Recorder<E extends { type: string }> {
  readonly events: E[] = [];
  private readonly sub: Subscription;
  private waiters: Array<() => void> = [];
  constructor(src: Observable<E>) {
    this.sub = src.subscribe((e) => {
      this.events.push(e);
      const w = this.waiters;
      this.waiters = [];
      for (const f of w) f();
    });
  }
  waitFor<T extends E>(pred: (e: E) => boolean, timeoutMs: number, what: string, from = 0): Promise<T> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `timed out waiting for ${what}; saw ${this.events
                .slice(from)
                .map((e) => e.type)
                .join(',')
                .slice(-300)}`,
            ),
          ),
        timeoutMs,
      );
      const check = () => {
        const e = this.events.slice(from).find(pred);
        if (e !== undefined) {
          clearTimeout(timer);
          resolve(e as T);
        } else this.waiters.push(check);
      };
      check();
    });
  }
  stop(): void {
    this.sub.unsubscribe();
  }
}

/** Polls `fn` until it returns a value accepted by `ok`, or throws after `timeoutMs`. */
async function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs: number, what: string): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Registers the contract suite for one adapter. `makeVenue` is called once, before the suite's
 * tests; `close` after them.
 */
export function runVenueContract(name: string, makeVenue: () => Promise<VenueHarness>): void {
  describe(`Venue contract: ${name}`, () => {
    let h: VenueHarness;
    let v: Venue;
    let m: MarketInfo;
    let yes: TokenId;
    let no: TokenId;
    let tick: number;
    let size: Micro;
    let wait: number;
    let market: Recorder<MarketEvent>;
    let user: Recorder<UserEvent>;
    let listed: readonly MarketInfo[];

    const req = (price: number, o: Partial<PlaceRequest> = {}): PlaceRequest => ({
      market: m.market,
      tokenId: yes,
      side: 'BUY',
      price: price as Pips,
      size,
      type: 'GTC',
      ...o,
    });
    const restPrice = () => tick; // the lowest price: never crosses a sane book

    beforeAll(async () => {
      h = await makeVenue();
      v = h.venue;
      wait = h.timeoutMs ?? 5000;
      listed = await v.markets();
      m = h.market ?? listed.find((x) => x.active)!;
      expect(m, 'a market to trade').toBeDefined();
      [yes, no] = [m.tokens[0].tokenId, m.tokens[1].tokenId];
      tick = tickPips(m.tick);
      const min = Math.max(m.minOrderSize, LOT_MICRO);
      size = (Math.ceil(min / LOT_MICRO) * LOT_MICRO) as Micro;
      user = new Recorder(v.userEvents([m.market]));
      market = new Recorder(v.marketEvents([yes, no]));
      await user.waitFor((e) => e.type === 'resynced', wait * 2, 'the user channel in sync');
    }, 60_000);

    afterAll(async () => {
      market?.stop();
      user?.stop();
      try {
        await v?.cancelAll();
      } finally {
        await h?.close();
      }
    }, 60_000);

    it('lists markets with two tokens, a venue tick and a minimum size; active ones first', () => {
      expect(listed.length).toBeGreaterThan(0);
      for (const x of listed) {
        expect(x.tokens).toHaveLength(2);
        expect(x.tokens[0].tokenId).not.toBe(x.tokens[1].tokenId);
        expect(x.tokens.every((t) => typeof t.tokenId === 'string' && t.tokenId.length > 0)).toBe(true);
        expect(isTickSize(x.tick)).toBe(true);
        expect(Number.isSafeInteger(x.minOrderSize) && x.minOrderSize >= 0).toBe(true);
        expect(Number.isInteger(x.feeRateBps)).toBe(true);
      }
      const firstInactive = listed.findIndex((x) => !x.active);
      if (firstInactive >= 0) expect(listed.slice(firstInactive).every((x) => !x.active)).toBe(true);
    });

    it("market(id), where the venue has it, is the listing's record now; an unknown id is undefined", async (ctx) => {
      if (v.market === undefined) return ctx.skip();
      expect(await v.market(m.market)).toEqual(listed.find((x) => x.market === m.market));
      expect(await v.market(`0x${'0'.repeat(64)}` as ConditionId)).toBeUndefined();
    });

    it('market events: a snapshot, then level changes, for a subscribed token', async () => {
      const s = await market.waitFor<BookSnapshotEvent>(
        (e) => e.type === 'book_snapshot' && e.tokenId === yes,
        wait,
        'a YES snapshot',
      );
      expect(s.market).toBe(m.market);
      const from = market.events.indexOf(s) + 1;
      const [p] = v.prepare([req(restPrice())]);
      const [out] = await v.place([p!]);
      expect(out).toMatchObject({ id: p!.id, ok: true });
      const change = await market.waitFor(
        (e) => e.type === 'level_change' && e.tokenId === yes && e.price === restPrice() && e.side === 'BUY',
        wait,
        'a level change at our price',
        from,
      );
      expect(change).toMatchObject({ market: m.market, size: expect.any(Number) });
      expect((change as { size: number }).size).toBeGreaterThanOrEqual(size);
      await v.cancel([p!.id]);
    });

    it('prepare gives ids before anything is sent; the id is the order for good (resending makes no second order)', async () => {
      const [a, b] = v.prepare([req(restPrice()), req(restPrice())]);
      expect(typeof a!.id).toBe('string');
      expect(a!.id.length).toBeGreaterThan(0);
      expect(a!.id).not.toBe(b!.id); // same request, two orders
      expect(a!.request).toMatchObject({ tokenId: yes, price: restPrice(), size });
      expect(await v.order(a!.id)).toBeUndefined(); // nothing was sent
      const [out] = await v.place([a!]);
      expect(out).toMatchObject({ id: a!.id, ok: true, status: 'live' });
      const again = await v.place([a!]);
      expect(again[0]!.id).toBe(a!.id);
      if (!again[0]!.ok) expect(again[0]!.code).toMatch(/DUPLICATED/);
      const open = await v.openOrders();
      expect(open.filter((o) => o.id === a!.id)).toHaveLength(1);
      expect(open.some((o) => o.id === b!.id)).toBe(false);
      await v.cancel([a!.id]);
    });

    it('place → live → listed → cancel → gone, with the order updates on userEvents', async () => {
      const from = user.events.length;
      const [p] = v.prepare([req(restPrice())]);
      const [out] = await v.place([p!]);
      expect(out).toMatchObject({ id: p!.id, ok: true, status: 'live' });
      const open = await v.openOrders();
      expect(open.find((o) => o.id === p!.id)).toMatchObject({
        market: m.market,
        tokenId: yes,
        side: 'BUY',
        price: restPrice(),
        originalSize: size,
        sizeMatched: 0,
        status: 'LIVE',
      });
      expect(await v.order(p!.id)).toMatchObject({ id: p!.id, status: 'LIVE' });
      await user.waitFor<OrderUpdateEvent>(
        (e) => e.type === 'order_update' && e.id === p!.id && e.status === 'LIVE',
        wait,
        'the placement',
        from,
      );
      const c = await v.cancel([p!.id]);
      expect(c.canceled).toEqual([p!.id]);
      expect(c.notCanceled.size).toBe(0);
      expect((await v.openOrders()).some((o) => o.id === p!.id)).toBe(false);
      expect(await v.order(p!.id)).toMatchObject({ id: p!.id, status: 'CANCELED' });
      await user.waitFor<OrderUpdateEvent>(
        (e) => e.type === 'order_update' && e.id === p!.id && e.status === 'CANCELED',
        wait,
        'the cancellation',
        from,
      );
      // cancelling again: not cancelled, with a reason
      const twice = await v.cancel([p!.id]);
      expect(twice.canceled).toEqual([]);
      expect(twice.notCanceled.has(p!.id)).toBe(true);
    });

    it('a crossing order from a counterparty fills a resting order: a fill on userEvents and in fills()', async (ctx) => {
      if (h.counterparty === undefined) return ctx.skip();
      const snapEv = market.events
        .filter((e): e is BookSnapshotEvent => e.type === 'book_snapshot' && e.tokenId === yes)
        .pop();
      const bb = snapEv?.bids[0]?.[0] ?? 0;
      const ba = snapEv?.asks[0]?.[0] ?? PRICE_SCALE;
      const price = Math.floor((bb + ba) / 2 / tick) * tick;
      if (!(price > bb && price < ba)) return ctx.skip();
      const t0 = v.clock.now();
      const from = user.events.length;
      const [p] = v.prepare([req(price)]);
      const [out] = await v.place([p!]);
      expect(out).toMatchObject({ id: p!.id, ok: true, status: 'live' });
      await h.counterparty.take({ market: m.market, tokenId: yes, side: 'SELL', price: price as Pips, size });
      const f = await user.waitFor<FillEvent>((e) => e.type === 'fill' && e.orderId === p!.id, wait, 'our fill', from);
      expect(f).toMatchObject({ role: 'MAKER', market: m.market, tokenId: yes, side: 'BUY', price, size });
      const fills = await eventually(
        () => v.fills(t0 - 1000),
        (l) => l.some((x) => x.orderId === p!.id),
        wait,
        'the fill in fills()',
      );
      const mine = fills.filter((x) => x.orderId === p!.id);
      expect(mine).toHaveLength(1);
      expect(mine[0]).toMatchObject({
        tradeId: f.tradeId,
        market: m.market,
        tokenId: yes,
        side: 'BUY',
        price,
        size,
        role: 'MAKER',
      });
      expect(mine[0]!.matchTime).toBeGreaterThanOrEqual(Math.floor(t0 / 1000) * 1000 - 1000);
      expect(fills.every((x) => x.matchTime >= Math.floor((t0 - 1000) / 1000) * 1000)).toBe(true);
      expect(await v.order(p!.id)).toMatchObject({ status: 'MATCHED', sizeMatched: size });
      expect((await v.openOrders()).some((o) => o.id === p!.id)).toBe(false);
    });

    it('cancelAll leaves openOrders empty', async () => {
      const ps = v.prepare([req(restPrice()), req(restPrice() * 2), req(restPrice(), { tokenId: no })]);
      const outs = await v.place(ps);
      expect(outs.every((o) => o.ok)).toBe(true);
      expect((await v.openOrders()).length).toBeGreaterThanOrEqual(3);
      const r = await v.cancelAll();
      expect([...r.canceled].sort()).toEqual(expect.arrayContaining(ps.map((p) => p.id).sort()));
      expect(await v.openOrders()).toEqual([]);
    });

    it('order(unknown id) is undefined; heartbeat is true; balance is integers', async () => {
      const [never] = v.prepare([req(restPrice())]);
      expect(await v.order(never!.id as OrderId)).toBeUndefined();
      expect(await v.heartbeat()).toBe(true);
      expect(await v.heartbeat()).toBe(true); // chained
      const b = await v.balance();
      expect(Number.isSafeInteger(b.available) && b.available >= 0).toBe(true);
      expect(Number.isSafeInteger(b.reserved) && b.reserved >= 0).toBe(true);
    });
  });
}
