/**
 * Orders and fills the bot did not make (another client on the same wallet): an order id neither
 * the tracker nor the store knows is foreign and follows the policy (leave / cancel / adopt); its
 * fills are recorded with source 'external', counted apart and reported to `onForeign`; shutdown
 * with 'leave' cancels only the bot's orders, and "flat" means none of ours is left. In a fleet, a
 * fill from outside on a market outside the fleet's is booked by the member that claims it only.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.ts';
import type { FillEvent, OrderUpdateEvent } from '../../../src/core/events.ts';
import type { ConditionId, OrderId, TokenId, TradeId } from '../../../src/core/ids.ts';
import type { DesiredQuotes, QuoteIntent } from '../../../src/core/intents.ts';
import type { Micro, Pips, Side } from '../../../src/core/units.ts';
import type { VenueFill, VenueOrder } from '../../../src/core/venue.ts';
import {
  Executor,
  type ExecutorOptions,
  type ForeignEvent,
  type RejectionInfo,
} from '../../../src/execution/executor.ts';
import type { Approved } from '../../../src/risk/gate.ts';
import { openStore, type FillRecord, type Store } from '../../../src/store/store.ts';
import { approved } from '../../support/approve.ts';
import { FakeVenue, flush } from './fake-venue.ts';

const M = '0xm1' as ConditionId;
const Y = 'yes' as TokenId;

const q = (side: Side, price: number, size = 10_000_000): QuoteIntent => ({
  tokenId: Y,
  side,
  price: price as Pips,
  size: size as Micro,
});
let at = 0;
const want = (quotes: QuoteIntent[]): Approved<DesiredQuotes> => approved({ market: M, quotes, at: ++at });

/** An order someone else placed on the wallet: it rests at the venue. */
function foreignAtVenue(venue: FakeVenue, id = '0xtheirs', price = 3000): VenueOrder {
  const v: VenueOrder = {
    id: id as OrderId,
    market: M,
    tokenId: Y,
    side: 'SELL',
    price: price as Pips,
    originalSize: 5_000_000 as Micro,
    sizeMatched: 0 as Micro,
    status: 'LIVE',
  };
  venue.book.set(v.id, v);
  venue.seen.add(v.id);
  return v;
}
const update = (v: VenueOrder): OrderUpdateEvent => ({
  type: 'order_update',
  kind: 'PLACEMENT',
  id: v.id,
  market: v.market,
  tokenId: v.tokenId,
  side: v.side,
  price: v.price,
  originalSize: v.originalSize,
  sizeMatched: v.sizeMatched,
  status: v.status,
  source: 'stream',
  venueTime: 1,
  recvTime: 1,
});
const fillOf = (orderId: string, tradeId: string, size = 2_000_000): FillEvent => ({
  type: 'fill',
  venueTime: 5,
  recvTime: 6,
  tradeId: tradeId as TradeId,
  orderId: orderId as OrderId,
  status: 'MATCHED',
  role: 'MAKER',
  market: M,
  tokenId: Y,
  side: 'SELL',
  price: 3000 as Pips,
  size: size as Micro,
  feeRateBps: 0,
  takerOrderId: '0xtaker' as OrderId,
  source: 'stream',
});

let clock: VirtualClock;
let venue: FakeVenue;
let store: Store;
/** Every fill record handed to the store (the store's `source` column is the ledger's). */
let applied: FillRecord[];
let ex: Executor;
let foreign: ForeignEvent[];
let rejections: RejectionInfo[];

/** The store, with the fill records it is handed kept (everything else is the real store). */
function watched(s: Store): Store {
  return new Proxy(s, {
    get(target, prop) {
      if (prop === 'applyFill')
        return (f: FillRecord) => {
          applied.push(f);
          return target.applyFill(f);
        };
      const v: unknown = Reflect.get(target, prop, target);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

function make(opts: Partial<ExecutorOptions> = {}): Executor {
  const e = new Executor({ venue, store: watched(store), clock, random: () => 0.5, tickPips: () => 100, ...opts });
  e.onForeign((x) => foreign.push(x));
  e.onRejection((r) => rejections.push(r));
  return e;
}

beforeEach(() => {
  clock = new VirtualClock(1_000_000);
  venue = new FakeVenue(clock);
  store = openStore(':memory:', { clock });
  applied = [];
  foreign = [];
  rejections = [];
  ex = make();
});
afterEach(async () => {
  await ex.close();
  store.close();
});

describe("Executor: foreign orders, policy 'leave' (default)", () => {
  it("tracks it apart: not the diff's, not the store's, in foreignOrders for the gate; reported once", async () => {
    const v = foreignAtVenue(venue);
    ex.onUserEvent(update(v));
    expect(ex.tracker.origin(v.id)).toBe('foreign');
    expect(ex.tracker.liveOrders(M)).toEqual([]);
    expect(ex.tracker.foreignOrders(M).map((o) => o.id)).toEqual([v.id]);
    expect(ex.hasOpenOrders()).toBe(false);
    expect(store.order(v.id)).toBeUndefined();
    expect(foreign).toMatchObject([{ kind: 'order', policy: 'leave', order: { id: v.id } }]);
    expect(ex.accountStats().foreignOrders).toEqual({ left: 1, cancelled: 0, adopted: 0 });
    expect(store.auditLog({ kind: 'foreign_order' })).toHaveLength(1);
    // the strategy's quotes replace the market's orders: the foreign one is not among them
    ex.submit(want([q('BUY', 2000)]));
    await ex.idle();
    expect(venue.book.get(v.id)?.status).toBe('LIVE');
    expect(venue.calls.filter((c) => c.kind === 'cancel')).toEqual([]);
    // later updates of it are not new: reported once
    ex.onUserEvent({ ...update(v), kind: 'UPDATE', sizeMatched: 1_000_000 as Micro });
    expect(foreign).toHaveLength(1);
    expect(ex.tracker.foreignOrders(M)[0]!.sizeMatched).toBe(1_000_000);
  });

  it('the foreign list is the same array while nothing of it changed (the gate memo compares it)', () => {
    expect(ex.tracker.foreignOrders(M)).toBe(ex.tracker.foreignOrders(M));
    const v = foreignAtVenue(venue);
    ex.onUserEvent(update(v));
    const a = ex.tracker.foreignOrders(M);
    expect(ex.tracker.foreignOrders(M)).toBe(a);
    ex.onUserEvent({ ...update(v), kind: 'CANCELLATION', status: 'CANCELED' });
    expect(ex.tracker.foreignOrders(M)).toEqual([]);
  });

  it("cancelAll cancels the bot's orders by id and leaves the foreign one; verifyFlat is flat with it resting", async () => {
    ex.submit(want([q('BUY', 2000), q('BUY', 2100)]));
    await ex.idle();
    const v = foreignAtVenue(venue);
    const out = await ex.cancelAll('test');
    expect(out.canceled).toHaveLength(2);
    expect(venue.count('cancelAll')).toBe(0);
    const flat = await ex.verifyFlat();
    expect(flat).toMatchObject({ flat: true, open: [] });
    expect(venue.book.get(v.id)?.status).toBe('LIVE');
    expect(ex.tracker.origin(v.id)).toBe('foreign'); // seen in the listing, classified
    expect(venue.calls.filter((c) => c.kind === 'cancel').flatMap((c) => c.ids)).not.toContain(v.id);
  });

  it("an order the store recorded (an earlier run's) is the bot's, not foreign", () => {
    const v = foreignAtVenue(venue, '0xmine-earlier');
    store.adoptOrder({ ...v, status: 'live' });
    ex.onUserEvent(update(v));
    expect(ex.tracker.origin(v.id)).toBe('own');
    expect(ex.tracker.liveOrders(M).map((o) => o.id)).toEqual([v.id]);
    expect(foreign).toEqual([]);
  });
});

describe("Executor: foreign orders, policies 'cancel' and 'adopt'", () => {
  it("'cancel': the foreign order is cancelled by id as soon as it is seen", async () => {
    await ex.close();
    ex = make({ foreignOrders: 'cancel' });
    const v = foreignAtVenue(venue);
    ex.onUserEvent(update(v));
    await flush();
    await ex.idle();
    expect(venue.calls.filter((c) => c.kind === 'cancel')).toEqual([{ kind: 'cancel', ids: [v.id] }]);
    expect(venue.book.get(v.id)?.status).toBe('CANCELED');
    expect(ex.tracker.get(v.id)?.status).toBe('cancelled');
    expect(ex.tracker.foreignOrders(M)).toEqual([]);
    expect(store.order(v.id)).toBeUndefined();
    expect(ex.accountStats().foreignOrders.cancelled).toBe(1);
    expect(foreign).toMatchObject([{ kind: 'order', policy: 'cancel' }]);
  });

  it("'cancel': a failed cancel is tried again", async () => {
    await ex.close();
    ex = make({ foreignOrders: 'cancel', backoff: { baseMs: 10, capMs: 100 } });
    let fail = 1;
    venue.cancelHook = async (ids, cancel) => {
      if (fail-- > 0) throw new Error('boom');
      return cancel(ids);
    };
    const v = foreignAtVenue(venue);
    ex.onUserEvent(update(v));
    for (let i = 0; i < 10; i++) {
      await flush();
      clock.advance(10);
    }
    await ex.idle();
    expect(venue.book.get(v.id)?.status).toBe('CANCELED');
  });

  it("'adopt': the order becomes the bot's (recorded, said so), and the diff manages it", async () => {
    await ex.close();
    ex = make({ foreignOrders: 'adopt' });
    const v = foreignAtVenue(venue);
    ex.onUserEvent(update(v));
    expect(ex.tracker.origin(v.id)).toBe('own');
    expect(store.order(v.id)).toMatchObject({ status: 'live' });
    expect(foreign).toMatchObject([{ kind: 'order', policy: 'adopt' }]);
    expect(ex.accountStats().foreignOrders.adopted).toBe(1);
    ex.submit(want([q('BUY', 2000)]));
    await ex.idle();
    expect(venue.book.get(v.id)?.status).toBe('CANCELED');
  });
});

describe('Executor: fills the bot did not make', () => {
  it("a fill of a foreign order is recorded with source 'external', counted apart and reported once", () => {
    const v = foreignAtVenue(venue);
    ex.onUserEvent(update(v));
    const r = ex.recordFill(fillOf(v.id, 't1'));
    expect(r).toEqual({ change: 'new', source: 'external' });
    expect(applied.at(-1)).toMatchObject({ tradeId: 't1', orderId: v.id, source: 'external' });
    expect(store.fills()).toHaveLength(1); // the wallet's truth: positions include it
    expect(ex.accountStats().externalFills).toBe(1);
    expect(foreign.filter((x) => x.kind === 'fill')).toMatchObject([{ change: 'new', fill: { source: 'external' } }]);
    // the foreign order's matched size follows (the self-trade check reads what is left)
    expect(ex.tracker.get(v.id)?.sizeMatched).toBe(2_000_000);
    // a replay is no new fill
    expect(ex.recordFill(fillOf(v.id, 't1')).change).toBe('duplicate');
    expect(ex.accountStats().externalFills).toBe(1);
    expect(rejections).toEqual([]);
  });

  it('a fill of an order nobody told us about (no order update first) is external too', () => {
    expect(ex.onUserEvent(fillOf('0xnever-seen', 't9'))).toBe('new');
    expect(applied.at(-1)?.source).toBe('external');
    expect(ex.fillSource('0xnever-seen' as OrderId)).toBe('external');
  });

  it("a fill of the bot's own order (this run, or one the store recorded) is the bot's", async () => {
    ex.submit(want([q('BUY', 4900)]));
    await ex.idle();
    const [mine] = venue.live();
    expect(ex.recordFill({ ...fillOf(mine!.id, 't2'), side: 'BUY', price: 4900 as Pips })).toEqual({
      change: 'new',
      source: 'bot',
    });
    expect(applied.at(-1)?.source).toBeUndefined();
    store.adoptOrder({ ...foreignAtVenue(venue, '0xearlier'), status: 'live' });
    expect(ex.fillSource('0xearlier' as OrderId)).toBe('bot');
    expect(ex.accountStats().externalFills).toBe(0);
    expect(foreign).toEqual([]);
  });

  it('backfilled fills (the venue history) are classified the same way', () => {
    const f = (orderId: string, tradeId: string): VenueFill => ({
      tradeId,
      orderId: orderId as OrderId,
      market: M,
      tokenId: Y,
      side: 'SELL',
      price: 3000 as Pips,
      size: 1_000_000 as Micro,
      role: 'MAKER',
      fee: 0 as Micro,
      status: 'CONFIRMED',
      matchTime: 10,
    });
    store.adoptOrder({ ...foreignAtVenue(venue, '0xmine'), status: 'live' });
    expect(ex.onVenueFill(f('0xmine', 'a'))).toBe('new');
    expect(applied.at(-1)?.source).toBeUndefined();
    expect(ex.onVenueFill(f('0xtheirs', 'b'))).toBe('new');
    expect(applied.at(-1)?.source).toBe('external');
    expect(ex.accountStats().externalFills).toBe(1);
  });
});

describe('Executor in a fleet (fleetMarket: the markets other members hold)', () => {
  const M2 = '0xm2' as ConditionId;
  const on = (v: VenueOrder, market: ConditionId): VenueOrder => {
    const x = { ...v, market };
    venue.book.set(x.id, x);
    return x;
  };
  const fleetEx = async () => {
    await ex.close();
    ex = make({ foreignOrders: 'cancel', fleetMarket: (m) => m === M2 });
  };

  it("another member's order is not foreign: not reported, counted, cancelled; a no-member order is cancelled", async () => {
    await fleetEx();
    const theirs = on(foreignAtVenue(venue, '0xmember'), M2);
    const outsider = foreignAtVenue(venue, '0xoutsider');
    ex.onUserEvent(update(theirs));
    ex.onUserEvent(update(outsider));
    await flush();
    await ex.idle();
    expect(ex.isMemberOrder(theirs.id)).toBe(true);
    expect(foreign.map((f) => (f.kind === 'order' ? f.order.id : ''))).toEqual([outsider.id]);
    expect(ex.accountStats().foreignOrders).toEqual({ left: 0, cancelled: 1, adopted: 0 });
    const cancelled = venue.calls.filter((c) => c.kind === 'cancel').flatMap((c) => c.ids);
    expect(cancelled).toContain(outsider.id);
    expect(cancelled).not.toContain(theirs.id);
    expect(venue.book.get(theirs.id)?.status).toBe('LIVE');
  });

  it("another member's fills are not stored nor external, even before its order was seen", () => {
    const e = make({ foreignOrders: 'cancel', fleetMarket: (m) => m === M2 });
    const r = e.recordFill({ ...fillOf('0xmember', '0xt1'), market: M2 });
    expect(r).toEqual({ change: 'duplicate', source: 'member' });
    expect(applied).toEqual([]);
    expect(e.accountStats().externalFills).toBe(0);
    expect(e.fillSource('0xmember' as OrderId, M2)).toBe('member');
    // a fill of an order of no member on this member's market is external, as before
    expect(e.recordFill(fillOf('0xoutsider', '0xt2')).source).toBe('external');
    expect(applied).toHaveLength(1);
    void e.close();
  });

  it("a market taken over: the previous holder's orders marked as a member's, their late fills are not this member's", () => {
    const e = make({ foreignOrders: 'cancel', fleetMarket: () => false });
    e.markMemberOrders(['0xprev' as OrderId]);
    expect(e.recordFill(fillOf('0xprev', '0xt3')).source).toBe('member');
    expect(applied).toEqual([]);
    void e.close();
  });

  it("a market taken over: the previous holder's orders, marked, are not reported foreign when their updates arrive (trial 22 F10)", async () => {
    await ex.close();
    const foreign: ForeignEvent[] = [];
    // the market is this member's now (fleetMarket false): only the mark tells the order apart
    ex = make({ foreignOrders: 'leave', fleetMarket: () => false });
    ex.onForeign((x) => foreign.push(x));
    const prev = foreignAtVenue(venue, '0xprevious');
    const outsider = foreignAtVenue(venue, '0xoutsider2');
    ex.markMemberOrders([prev.id]);
    ex.onUserEvent(update(prev));
    ex.onUserEvent(update(outsider));
    await flush();
    await ex.idle();
    expect(foreign.map((f) => (f.kind === 'order' ? f.order.id : ''))).toEqual([outsider.id]);
    expect(ex.accountStats().foreignOrders).toEqual({ left: 1, cancelled: 0, adopted: 0 });
  });

  it("cancelAll cancels by id (the venue's cancel-all would take the other members' orders); verifyFlat leaves theirs", async () => {
    await fleetEx();
    ex.submit(want([q('BUY', 2000)]));
    await ex.idle();
    const theirs = on(foreignAtVenue(venue, '0xmember'), M2);
    await ex.cancelAll('test');
    expect(venue.count('cancelAll')).toBe(0);
    const flat = await ex.verifyFlat();
    expect(flat.flat).toBe(true);
    expect(venue.book.get(theirs.id)?.status).toBe('LIVE');
    expect(venue.calls.filter((c) => c.kind === 'cancel').flatMap((c) => c.ids)).not.toContain(theirs.id);
  });
});

describe('Executor in a fleet: a fill from outside on a market outside the fleet (externalClaims)', () => {
  const OUT = '0xoutside' as ConditionId;
  /** The fleet's record of claims (first claimer wins, as src/fleet/member-orders.ts claimExternalFill). */
  let record: Map<string, string>;
  let fails: number;
  const claims = (ledger: string) => ({
    needed: (m: ConditionId) => m === OUT,
    claim: async (tradeId: string, orderId: string) => {
      if (fails-- > 0) throw new Error('redis down');
      const k = `${tradeId}|${orderId}`;
      if (!record.has(k)) record.set(k, ledger);
      return record.get(k) === ledger;
    },
  });
  const outside = (tradeId: string, status: FillEvent['status'] = 'MATCHED'): FillEvent => ({
    ...fillOf('0xoperator', tradeId),
    market: OUT,
    status,
  });
  beforeEach(() => {
    record = new Map();
    fails = 0;
  });

  it('two members see it: exactly one books it (with its later status), the other knows it as theirs', async () => {
    const storeB = openStore(':memory:', { clock });
    const a = make({ fleetMarket: () => false, externalClaims: claims('a') });
    const b = new Executor({
      venue,
      store: storeB,
      clock,
      tickPips: () => 100,
      fleetMarket: () => false,
      externalClaims: claims('b'),
    });
    try {
      // a sees it first; nothing is booked before the claim's answer
      expect(a.recordFill(outside('0xt1'))).toEqual({ change: 'duplicate', source: 'external' });
      expect(b.recordFill(outside('0xt1'))).toEqual({ change: 'duplicate', source: 'external' });
      // its next status arrives while the claims are in flight
      a.recordFill(outside('0xt1', 'CONFIRMED'));
      b.recordFill(outside('0xt1', 'CONFIRMED'));
      await flush();
      expect(store.fills(0).map((f) => [f.tradeId, f.source, f.status])).toEqual([['0xt1', 'external', 'CONFIRMED']]);
      expect(storeB.fills(0)).toEqual([]);
      expect(a.accountStats().externalFills).toBe(1);
      expect(b.accountStats().externalFills).toBe(0);
      expect(foreign.filter((f) => f.kind === 'fill')).toHaveLength(2); // new, then the status
      expect([a.othersFill('0xt1', '0xoperator'), b.othersFill('0xt1', '0xoperator')]).toEqual([false, true]);
      // the restart backfill's question gets the same answers, without asking again
      fails = 1;
      expect(await a.claimExternal({ tradeId: '0xt1' as TradeId, orderId: '0xoperator' as OrderId, market: OUT })).toBe(
        true,
      );
      expect(await b.claimExternal({ tradeId: '0xt1' as TradeId, orderId: '0xoperator' as OrderId, market: OUT })).toBe(
        false,
      );
      // and a backfill replays nothing into b's ledger
      b.onVenueFill({ ...outside('0xt1', 'CONFIRMED'), matchTime: 5 } as unknown as VenueFill);
      expect(storeB.fills(0)).toEqual([]);
    } finally {
      await a.close();
      await b.close();
      storeB.close();
    }
  });

  it('a fill on a fleet market (or of no claim) is booked at once, as before; a failed claim is retried', async () => {
    const a = make({ fleetMarket: () => false, externalClaims: claims('a') });
    try {
      expect(a.recordFill(fillOf('0xoperator', '0xt2')).change).toBe('new');
      fails = 2;
      a.recordFill(outside('0xt3'));
      await flush();
      expect(store.fills(0).map((f) => f.tradeId)).toEqual(['0xt2']);
      clock.advance(250); // the first retry
      await flush();
      clock.advance(500); // the second
      await flush();
      expect(store.fills(0).map((f) => f.tradeId)).toEqual(['0xt2', '0xt3']);
      expect(record.get('0xt3|0xoperator')).toBe('a');
    } finally {
      await a.close();
    }
  });
});
