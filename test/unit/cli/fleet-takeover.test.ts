/**
 * The takeover race of a fleet (findings-2 F5; src/cli/fleet-takeover.ts `previousHolderOrders`), driven
 * event by event: the previous holder's order fills just before this member takes the market over,
 * and the fill reaches this member only after (the user channel's delivery, its audit, a later
 * status of the trade), before the order's id reached the fleet's registry. Marked at the takeover,
 * the fill is the previous holder's; a fill of an order of no member after the takeover is still
 * booked by the holder as external.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.ts';
import type { FillEvent } from '../../../src/core/events.ts';
import type { ConditionId, OrderId, TokenId, TradeId } from '../../../src/core/ids.ts';
import type { Micro, Pips } from '../../../src/core/units.ts';
import type { VenueFill, VenueOrder } from '../../../src/core/venue.ts';
import { previousHolderOrders, sharedListing } from '../../../src/cli/fleet-takeover.ts';
import { Executor } from '../../../src/execution/executor.ts';
import { openStore, type Store } from '../../../src/store/store.ts';
import { FakeVenue } from '../execution/fake-venue.ts';

const M = '0xm1' as ConditionId;
const M2 = '0xm2' as ConditionId;
const Y = 'yes' as TokenId;

const resting = (id: string, market: ConditionId): VenueOrder => ({
  id: id as OrderId,
  market,
  tokenId: Y,
  side: 'BUY',
  price: 4000 as Pips,
  originalSize: 5_000_000 as Micro,
  sizeMatched: 0 as Micro,
  status: 'LIVE',
});
const venueFill = (tradeId: string, orderId: string, market: ConditionId): VenueFill => ({
  tradeId,
  orderId: orderId as OrderId,
  market,
  tokenId: Y,
  side: 'BUY',
  price: 4000 as Pips,
  size: 5_000_000 as Micro,
  role: 'MAKER',
  fee: 0 as Micro,
  status: 'MATCHED',
  matchTime: 900_000,
});
const delivered = (f: VenueFill, status: FillEvent['status'] = 'MINED'): FillEvent => ({
  type: 'fill',
  venueTime: f.matchTime,
  recvTime: 1_000_000,
  tradeId: f.tradeId as TradeId,
  orderId: f.orderId,
  status,
  role: f.role,
  market: f.market,
  tokenId: f.tokenId,
  side: f.side,
  price: f.price,
  size: f.size,
  feeRateBps: 0,
  takerOrderId: '0xtaker' as OrderId,
  source: 'reconcile',
});

/** The exchange of the test: the previous holder's order rests on M, another one filled there just before. */
class Venue extends FakeVenue {
  trades: VenueFill[] = [];
  fail = false;
  override fills(_since: number): Promise<readonly VenueFill[]> {
    return this.fail ? Promise.reject(new Error('503')) : Promise.resolve(this.trades);
  }
}

let clock: VirtualClock;
let venue: Venue;
let store: Store;
/** The fleet markets this member holds (ExecutorOptions.fleetMarket: the others are another member's). */
let holding: Set<ConditionId>;
let ex: Executor;
const prevFilled = venueFill('0xt1', '0xprevfilled', M);

beforeEach(() => {
  clock = new VirtualClock(1_000_000);
  venue = new Venue(clock);
  store = openStore(':memory:', { clock });
  holding = new Set();
  ex = new Executor({ venue, store, clock, tickPips: () => 100, fleetMarket: (m) => !holding.has(m) });
  venue.book.set('0xprevopen' as OrderId, resting('0xprevopen', M));
  venue.book.set('0xelsewhere' as OrderId, resting('0xelsewhere', M2));
  venue.trades = [prevFilled, venueFill('0xt0', '0xelsewhere', M2)];
});
afterEach(async () => {
  await ex.close();
  store.close();
});

describe('a fleet member taking a market over', () => {
  it("the previous holder's fill that matched before the takeover and reaches this member after it is not booked", async () => {
    const r = await previousHolderOrders(venue, ex, M, { ours: new Set(), sinceMs: 0 });
    holding.add(M); // the market is this member's now
    expect(r).toEqual({ open: ['0xprevopen'], filled: ['0xprevfilled'] });
    // the fill (and a later status of it) is delivered now: another member's, not stored, not external
    expect(ex.recordFill(delivered(prevFilled))).toEqual({ change: 'duplicate', source: 'member' });
    expect(ex.recordFill(delivered(prevFilled, 'CONFIRMED')).source).toBe('member');
    // a fill of the resting order of the previous holder too
    expect(ex.recordFill(delivered(venueFill('0xt2', '0xprevopen', M))).source).toBe('member');
    expect(store.fills(0)).toEqual([]);
    expect(ex.accountStats().externalFills).toBe(0);
    // an order of no member filled after the takeover: the holder books it as external
    expect(ex.recordFill(delivered(venueFill('0xt3', '0xoperator', M))).source).toBe('external');
    expect(store.fills(0).map((f) => [f.orderId, f.source])).toEqual([['0xoperator', 'external']]);
  });

  it('without the marks (the race as it was) the late fill is booked here as external', () => {
    holding.add(M);
    expect(ex.recordFill(delivered(prevFilled)).source).toBe('external');
    expect(store.fills(0)).toHaveLength(1);
  });

  it("the bot's own fills stay its own; fills that cannot be read leave the open orders marked", async () => {
    venue.fail = true;
    const errors: string[] = [];
    const r = await previousHolderOrders(venue, ex, M, {
      ours: new Set(),
      sinceMs: 0,
      onError: (e) => errors.push(e.message),
    });
    expect(r).toEqual({ open: ['0xprevopen'], filled: [] });
    expect(errors).toEqual(['503']);
    expect(ex.isMemberOrder('0xprevopen' as OrderId)).toBe(true);
    // the executor's own order (its store knows it) is never marked as another member's
    venue.fail = false;
    const own = { fillSource: (id: OrderId) => (id === '0xprevfilled' ? ('bot' as const) : ('member' as const)) };
    const marked: OrderId[] = [];
    const r2 = await previousHolderOrders(venue, { ...own, markMemberOrders: (ids) => marked.push(...ids) }, M, {
      ours: new Set(['0xprevopen' as OrderId]),
      sinceMs: 0,
    });
    expect(r2).toEqual({ open: [], filled: [] });
    expect(marked).toEqual([]);
  });
});

describe('sharedListing: the takeovers of one round read the account once (review 48 F1)', () => {
  it('reuses a listing within its ttl, reads again after it, and keeps no failed read', async () => {
    let t = 0;
    const calls = { open: 0, fills: 0 };
    let fail = false;
    const venue = {
      openOrders: async () => {
        calls.open++;
        if (fail) throw new Error('venue down');
        return [resting(`0xo${calls.open}`, M)];
      },
      fills: async (_since: number) => {
        calls.fills++;
        return [venueFill(`t${calls.fills}`, '0xo', M)];
      },
    };
    const l = sharedListing(venue, () => t, 1000);
    // twenty markets taken in one round: one read of each
    for (let i = 0; i < 20; i++) {
      await l.openOrders();
      await l.fills(t - 60_000);
      t += 10;
    }
    expect(calls).toEqual({ open: 1, fills: 1 });
    t += 1000;
    expect((await l.openOrders())[0]!.id).toBe('0xo2');
    expect(calls.open).toBe(2);
    // a failed read is not reused: the next takeover asks again
    t += 1000;
    fail = true;
    await expect(l.openOrders()).rejects.toThrow('venue down');
    fail = false;
    expect((await l.openOrders())[0]!.id).toBe('0xo4');
  });
});
