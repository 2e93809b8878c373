import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.ts';
import type { OrderStatus, OrderUpdateEvent } from '../../../src/core/events.ts';
import type { ConditionId, OrderId, TokenId } from '../../../src/core/ids.ts';
import type { Micro, Pips } from '../../../src/core/units.ts';
import type { PreparedOrder, VenueOrder } from '../../../src/core/venue.ts';
import { OrderTracker, fromVenueStatus, type Transition } from '../../../src/execution/tracker.ts';

const M = '0xm' as ConditionId;
const Y = 'y' as TokenId;
const SIZE = 10_000_000;

function prep(id: string, type: 'GTC' | 'FAK' = 'GTC'): PreparedOrder {
  return {
    id: id as OrderId,
    request: { market: M, tokenId: Y, side: 'BUY', price: 5000 as Pips, size: SIZE as Micro, type },
    wire: { id },
  };
}
function upd(
  id: string,
  status: OrderStatus,
  sizeMatched = 0,
  kind: OrderUpdateEvent['kind'] = 'UPDATE',
): OrderUpdateEvent {
  return {
    type: 'order_update',
    kind,
    id: id as OrderId,
    market: M,
    tokenId: Y,
    side: 'BUY',
    price: 5000 as Pips,
    originalSize: SIZE as Micro,
    sizeMatched: sizeMatched as Micro,
    status,
    source: 'stream',
    venueTime: 0,
    recvTime: 0,
  };
}
function vo(id: string, status: VenueOrder['status'], sizeMatched = 0): VenueOrder {
  return {
    id: id as OrderId,
    market: M,
    tokenId: Y,
    side: 'BUY',
    price: 5000 as Pips,
    originalSize: SIZE as Micro,
    sizeMatched: sizeMatched as Micro,
    status,
  };
}
const fill = (
  id: string,
  tradeId: string,
  size: number,
  status: 'MATCHED' | 'MINED' | 'CONFIRMED' | 'FAILED' = 'MATCHED',
) => ({ tradeId, orderId: id as OrderId, size, status });
const A = '0xa' as OrderId;

function setup() {
  const clock = new VirtualClock(1000);
  const t = new OrderTracker(clock);
  const log: Transition[] = [];
  t.onTransition((x) => log.push(x));
  return { clock, t, log };
}

describe('OrderTracker transitions', () => {
  it('pending → live → partially_filled → filled', () => {
    const { t, log } = setup();
    t.addPending(prep('0xa'));
    expect(t.get(A)?.status).toBe('pending');
    t.onPlaceOutcome({ id: A, ok: true, status: 'live' });
    t.onFill(fill('0xa', 't1', 4_000_000));
    expect(t.get(A)).toMatchObject({ status: 'partially_filled', sizeMatched: 4_000_000 });
    t.onFill(fill('0xa', 't2', 6_000_000));
    expect(t.get(A)).toMatchObject({ status: 'filled', sizeMatched: SIZE });
    expect(log.map((x) => `${x.from}>${x.to}`)).toEqual([
      'null>pending',
      'pending>live',
      'live>partially_filled',
      'partially_filled>filled',
    ]);
    expect(t.liveOrders()).toEqual([]);
  });

  it('pending → rejected with the venue code; the prepared order is dropped', () => {
    const { t } = setup();
    t.addPending(prep('0xa'));
    t.onPlaceOutcome({ id: A, ok: false, code: 'INVALID_ORDER_MIN_SIZE', message: 'too small' });
    expect(t.get(A)).toMatchObject({
      status: 'rejected',
      rejectCode: 'INVALID_ORDER_MIN_SIZE',
      prepared: undefined,
      inferred: false,
    });
  });

  it('place statuses: matched → filled, unmatched → cancelled, delayed → live', () => {
    const { t } = setup();
    for (const id of ['0x1', '0x2', '0x3']) t.addPending(prep(id));
    t.onPlaceOutcome({ id: '0x1' as OrderId, ok: true, status: 'matched' });
    t.onPlaceOutcome({ id: '0x2' as OrderId, ok: true, status: 'unmatched' });
    t.onPlaceOutcome({ id: '0x3' as OrderId, ok: true, status: 'delayed' });
    expect(t.get('0x1' as OrderId)).toMatchObject({ status: 'filled', sizeMatched: SIZE });
    expect(t.get('0x2' as OrderId)?.status).toBe('cancelled');
    expect(t.get('0x3' as OrderId)?.status).toBe('live');
  });

  it('a FAK matched at once is never given a matched size it was not told: its fills make it filled', () => {
    const { t } = setup();
    t.addPending(prep('0xa', 'FAK'));
    t.onPlaceOutcome({ id: A, ok: true, status: 'matched' });
    // its fills not seen yet: its rest was killed (the venue's CANCELED), nothing invented
    expect(t.get(A)).toMatchObject({ status: 'cancelled', sizeMatched: 0 });
    t.onFill(fill('0xa', 't1', 4_000_000));
    expect(t.get(A)).toMatchObject({ status: 'cancelled', sizeMatched: 4_000_000 });
    // its fills make its whole size: it was filled
    t.onFill(fill('0xa', 't2', 6_000_000));
    expect(t.get(A)).toMatchObject({ status: 'filled', sizeMatched: SIZE });
  });

  it('a FAK that matched in part ends cancelled whichever comes first, the answer or the stream (trial 13 F13)', () => {
    // the fill and the cancellation first, then the answer
    const a = setup();
    a.t.addPending(prep('0xa', 'FAK'));
    a.t.onFill(fill('0xa', 't1', 2_240_000));
    a.t.onOrderUpdate(upd('0xa', 'CANCELED', 2_240_000, 'CANCELLATION'));
    a.t.onPlaceOutcome({ id: A, ok: true, status: 'matched' });
    expect(a.t.get(A)).toMatchObject({ status: 'cancelled', sizeMatched: 2_240_000 });
    // the fill, then the answer, then the cancellation
    const b = setup();
    b.t.addPending(prep('0xa', 'FAK'));
    b.t.onFill(fill('0xa', 't1', 2_240_000));
    b.t.onPlaceOutcome({ id: A, ok: true, status: 'matched' });
    b.t.onOrderUpdate(upd('0xa', 'CANCELED', 2_240_000, 'CANCELLATION'));
    expect(b.t.get(A)).toMatchObject({ status: 'cancelled', sizeMatched: 2_240_000 });
    // the answer first, then the fill: cancelled too
    const c = setup();
    c.t.addPending(prep('0xa', 'FAK'));
    c.t.onPlaceOutcome({ id: A, ok: true, status: 'matched' });
    c.t.onFill(fill('0xa', 't1', 2_240_000));
    expect(c.t.get(A)).toMatchObject({ status: 'cancelled', sizeMatched: 2_240_000 });
    // a FAK filled whole before its answer: filled
    const d = setup();
    d.t.addPending(prep('0xa', 'FAK'));
    d.t.onFill(fill('0xa', 't1', SIZE));
    d.t.onPlaceOutcome({ id: A, ok: true, status: 'matched' });
    expect(d.t.get(A)).toMatchObject({ status: 'filled', sizeMatched: SIZE });
  });

  it('live and partially filled orders can be cancelled; the matched size stays', () => {
    const { t } = setup();
    t.addPending(prep('0xa'));
    t.onPlaceOutcome({ id: A, ok: true, status: 'live' });
    t.onFill(fill('0xa', 't1', 3_000_000));
    t.markCancelRequested([A]);
    expect(t.liveOrders(M, { excludeCancelling: true })).toEqual([]);
    expect(t.cancellingOrders(M)).toEqual([A]);
    expect(t.onCancelOutcome({ canceled: [A], notCanceled: new Map() })).toEqual([]);
    expect(t.get(A)).toMatchObject({ status: 'cancelled', sizeMatched: 3_000_000 });
  });

  it('returns the not-canceled ids for resolution', () => {
    const { t } = setup();
    t.addPending(prep('0xa'));
    expect(t.onCancelOutcome({ canceled: [], notCanceled: new Map([[A, 'order not found']]) })).toEqual([A]);
  });

  it('unknown → resolved by a query (found) or concluded gone (never arrived), which venue evidence overrides', () => {
    const { t } = setup();
    t.addPending(prep('0xa'));
    t.onPlaceOutcome({ id: A, ok: false, code: 'UNKNOWN', message: 'timeout' });
    expect(t.get(A)?.status).toBe('unknown');
    expect(t.get(A)?.prepared?.id).toBe(A);
    expect(t.unknownOrders().map((o) => o.id)).toEqual([A]);
    // unknown orders count as live for the diff (a quote is never placed twice)
    expect(t.liveOrders(M).map((o) => o.id)).toEqual([A]);
    t.applyVenueOrder(vo('0xa', 'LIVE'));
    expect(t.get(A)?.status).toBe('live');

    t.addPending(prep('0xb'));
    t.markUnknown('0xb' as OrderId);
    t.concludeGone('0xb' as OrderId);
    expect(t.get('0xb' as OrderId)).toMatchObject({ status: 'rejected', rejectCode: 'NEVER_ARRIVED', inferred: true });
    // the request landed after all: the stream shows it
    t.onOrderUpdate(upd('0xb', 'LIVE', 0, 'PLACEMENT'));
    expect(t.get('0xb' as OrderId)).toMatchObject({ status: 'live', inferred: false, rejectCode: null });
  });

  it('a live order the venue no longer knows is concluded cancelled (NOT_FOUND)', () => {
    const { t } = setup();
    t.addPending(prep('0xa'));
    t.onPlaceOutcome({ id: A, ok: true, status: 'live' });
    t.concludeGone(A);
    expect(t.get(A)).toMatchObject({ status: 'cancelled', rejectCode: 'NOT_FOUND', inferred: true });
  });

  it('venue terminal states are final: a late LIVE after the cancellation changes nothing', () => {
    const { t, log } = setup();
    t.addPending(prep('0xa'));
    t.onOrderUpdate(upd('0xa', 'CANCELED', 0, 'CANCELLATION'));
    const n = log.length;
    t.onOrderUpdate(upd('0xa', 'LIVE', 0, 'PLACEMENT'));
    t.onPlaceOutcome({ id: A, ok: true, status: 'live' });
    expect(t.get(A)?.status).toBe('cancelled');
    expect(log.length).toBe(n);
  });

  it('out of order: the stream before the place answer, an UPDATE before the PLACEMENT', () => {
    const { t } = setup();
    t.addPending(prep('0xa'));
    t.onOrderUpdate(upd('0xa', 'LIVE', 2_000_000, 'UPDATE'));
    expect(t.get(A)).toMatchObject({ status: 'partially_filled', sizeMatched: 2_000_000 });
    t.onOrderUpdate(upd('0xa', 'LIVE', 0, 'PLACEMENT'));
    t.onPlaceOutcome({ id: A, ok: true, status: 'live' });
    expect(t.get(A)).toMatchObject({ status: 'partially_filled', sizeMatched: 2_000_000 });
  });

  it('fills are counted once per trade; later trade statuses and replays change nothing', () => {
    const { t, log } = setup();
    t.addPending(prep('0xa'));
    t.onPlaceOutcome({ id: A, ok: true, status: 'live' });
    t.onFill(fill('0xa', 't1', 2_000_000));
    const n = log.length;
    t.onFill(fill('0xa', 't1', 2_000_000, 'MINED'));
    t.onFill(fill('0xa', 't1', 2_000_000, 'CONFIRMED'));
    t.onFill(fill('0xa', 't1', 2_000_000));
    expect(t.get(A)?.sizeMatched).toBe(2_000_000);
    expect(log.length).toBe(n);
    // a trade first seen FAILED does not count
    t.onFill(fill('0xa', 't2', 5_000_000, 'FAILED'));
    expect(t.get(A)?.sizeMatched).toBe(2_000_000);
  });

  it('a fill on a pending order proves it exists (pending → partially_filled)', () => {
    const { t } = setup();
    t.addPending(prep('0xa'));
    t.onFill(fill('0xa', 't1', 1_000_000));
    expect(t.get(A)?.status).toBe('partially_filled');
  });

  it('a late fill on a cancelled order raises its matched size, not its status', () => {
    const { t, log } = setup();
    t.addPending(prep('0xa'));
    t.onPlaceOutcome({ id: A, ok: true, status: 'live' });
    t.onCancelOutcome({ canceled: [A], notCanceled: new Map() });
    t.onFill(fill('0xa', 't1', 1_000_000));
    expect(t.get(A)).toMatchObject({ status: 'cancelled', sizeMatched: 1_000_000 });
    expect(log.at(-1)).toMatchObject({ from: 'cancelled', to: 'cancelled', cause: 'fill' });
  });

  it('adopts orders it never saw (an earlier run) from the stream and from queries', () => {
    const { t, log } = setup();
    t.onOrderUpdate(upd('0xold', 'LIVE', 0, 'PLACEMENT'));
    expect(t.get('0xold' as OrderId)).toMatchObject({ status: 'live', adopted: true, prepared: undefined });
    expect(log.at(-1)).toMatchObject({ from: 'unknown', to: 'live' });
    t.applyVenueOrder(vo('0xq', 'LIVE', 1_000_000));
    expect(t.get('0xq' as OrderId)).toMatchObject({ status: 'partially_filled', adopted: true });
    expect(t.liveOrders(M).map((o) => o.id)).toEqual(['0xold', '0xq']);
  });

  it('classifies an id it never saw once: foreign orders are tracked apart (not live, not counted, not cancelling)', () => {
    const { t, log } = setup();
    const asked: string[] = [];
    t.setClassifier((id) => {
      asked.push(id);
      return id.startsWith('0xf') ? 'foreign' : 'own';
    });
    t.onOrderUpdate(upd('0xf1', 'LIVE', 0, 'PLACEMENT'));
    t.applyVenueOrder(vo('0xf2', 'LIVE', 2_000_000));
    t.onOrderUpdate(upd('0xold', 'LIVE', 0, 'PLACEMENT'));
    t.onOrderUpdate(upd('0xf1', 'LIVE', 1_000_000)); // known now: not asked again
    expect(asked).toEqual(['0xf1', '0xf2', '0xold']);
    expect(t.get('0xf1' as OrderId)).toMatchObject({ foreign: true, adopted: true, status: 'partially_filled' });
    expect(t.origin('0xf1' as OrderId)).toBe('foreign');
    expect(t.origin('0xold' as OrderId)).toBe('own');
    expect(t.origin('0xnone' as OrderId)).toBeUndefined();
    expect(t.liveOrders(M).map((o) => o.id)).toEqual(['0xold']);
    expect(t.liveOrdersCached(M).map((o) => o.id)).toEqual(['0xold']);
    expect(t.openCount()).toBe(1);
    expect(t.foreignOrders(M).map((o) => [o.id, o.sizeMatched])).toEqual([
      ['0xf1', 1_000_000],
      ['0xf2', 2_000_000],
    ]);
    expect(t.foreignOrders('0xother' as ConditionId)).toEqual([]);
    t.markCancelRequested(['0xf1' as OrderId]);
    expect(t.cancellingOrders()).toEqual([]);
    expect(t.openForeign().map((o) => [o.id, o.cancelRequested])).toEqual([
      ['0xf1', true],
      ['0xf2', false],
    ]);
    // a foreign order's fills and end are tracked as any order's; filled ones leave the list
    t.onFill(fill('0xf2', 't1', SIZE));
    expect(t.foreignOrders(M).map((o) => o.id)).toEqual(['0xf1']);
    t.onCancelOutcome({ canceled: ['0xf1' as OrderId], notCanceled: new Map() });
    expect(t.foreignOrders(M)).toEqual([]);
    expect(t.openForeign()).toEqual([]);
    expect(log.some((x) => x.order.foreign && x.to === 'cancelled')).toBe(true);
  });

  it('addPending is idempotent (a resend of the same prepared order is not new)', () => {
    const { t, log } = setup();
    t.addPending(prep('0xa'));
    t.addPending(prep('0xa'));
    expect(log).toHaveLength(1);
  });

  it('forgets terminal orders after the retention time', () => {
    const clock = new VirtualClock(0);
    const t = new OrderTracker(clock, { retainTerminalMs: 5000 });
    t.addPending(prep('0xa'));
    t.onPlaceOutcome({ id: A, ok: false, code: 'INVALID_ORDER_MIN_SIZE', message: '' });
    clock.advance(4000);
    expect(t.get(A)).toBeDefined();
    clock.advance(2000);
    expect(t.get(A)).toBeUndefined();
  });

  it('forgets a terminal order on time when the clock went backwards before it finished', () => {
    let now = 10_000;
    const t = new OrderTracker({ now: () => now } as unknown as VirtualClock, { retainTerminalMs: 5000 });
    t.addPending(prep('0xa'));
    t.onPlaceOutcome({ id: A, ok: false, code: 'X', message: '' }); // finished at 10 s
    now = 4000; // a wall clock set back
    t.addPending(prep('0xb'));
    t.onPlaceOutcome({ id: '0xb' as OrderId, ok: false, code: 'X', message: '' }); // finished at 4 s
    now = 9500; // 0xb is 5.5 s old, 0xa not yet finished by this clock
    expect(t.get(A)).toBeDefined();
    expect(t.get('0xb' as OrderId)).toBeUndefined();
    now = 15_001;
    expect(t.get(A)).toBeUndefined();
  });

  it('fromVenueStatus maps the venue statuses', () => {
    expect(fromVenueStatus('LIVE', 0, 10)).toBe('live');
    expect(fromVenueStatus('LIVE', 3, 10)).toBe('partially_filled');
    expect(fromVenueStatus('DELAYED', 0, 10)).toBe('live');
    expect(fromVenueStatus('MATCHED', 10, 10)).toBe('filled');
    expect(fromVenueStatus('CANCELED', 3, 10)).toBe('cancelled');
    expect(fromVenueStatus('UNMATCHED', 0, 10)).toBe('cancelled');
  });
});

describe('OrderTracker (property): any order of the events gives the same final state', () => {
  it('a permutation of a fixed lifecycle with replays converges', () => {
    // the events of one order that was placed, filled in two trades (with status progressions) and
    // then cancelled; the streams may deliver them in any order, some twice
    type Ev =
      | { kind: 'place'; status: 'live' }
      | { kind: 'upd'; status: OrderStatus; matched: number }
      | { kind: 'fill'; trade: string; size: number; status: 'MATCHED' | 'MINED' | 'CONFIRMED' }
      | { kind: 'cancel' };
    const events: Ev[] = [
      { kind: 'place', status: 'live' },
      { kind: 'upd', status: 'LIVE', matched: 0 },
      { kind: 'fill', trade: 't1', size: 2_000_000, status: 'MATCHED' },
      { kind: 'upd', status: 'LIVE', matched: 2_000_000 },
      { kind: 'fill', trade: 't1', size: 2_000_000, status: 'CONFIRMED' },
      { kind: 'fill', trade: 't2', size: 3_000_000, status: 'MATCHED' },
      { kind: 'upd', status: 'LIVE', matched: 5_000_000 },
      { kind: 'cancel' },
      { kind: 'upd', status: 'CANCELED', matched: 5_000_000 },
    ];
    const apply = (t: OrderTracker, e: Ev): void => {
      switch (e.kind) {
        case 'place':
          t.onPlaceOutcome({ id: A, ok: true, status: e.status });
          break;
        case 'upd':
          t.onOrderUpdate(upd('0xa', e.status, e.matched));
          break;
        case 'fill':
          t.onFill(fill('0xa', e.trade, e.size, e.status));
          break;
        case 'cancel':
          t.onCancelOutcome({ canceled: [A], notCanceled: new Map() });
          break;
      }
    };
    fc.assert(
      fc.property(
        fc.shuffledSubarray(events, { minLength: events.length, maxLength: events.length }),
        fc.array(fc.integer({ min: 0, max: events.length - 1 }), { maxLength: 5 }),
        (order, replays) => {
          const { t } = setup();
          t.addPending(prep('0xa'));
          let lastStatusRank = 0;
          const rank = {
            pending: 0,
            unknown: 0,
            live: 1,
            partially_filled: 2,
            filled: 3,
            cancelled: 3,
            rejected: 3,
          } as const;
          let lastMatched = 0;
          for (const e of [...order, ...replays.map((i) => events[i]!)]) {
            apply(t, e);
            const o = t.get(A)!;
            expect(rank[o.status]).toBeGreaterThanOrEqual(lastStatusRank);
            expect(o.sizeMatched).toBeGreaterThanOrEqual(lastMatched);
            lastStatusRank = rank[o.status];
            lastMatched = o.sizeMatched;
          }
          expect(t.get(A)).toMatchObject({ status: 'cancelled', sizeMatched: 5_000_000 });
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('OrderTracker (property): forgetting terminal orders', () => {
  it('forgets exactly the orders terminal and unchanged for the retention time at each prune, the clock going backwards too', () => {
    const ids = ['0xa', '0xb', '0xc', '0xd'];
    const opArb = fc.oneof(
      fc.record({ k: fc.constant('add' as const), i: fc.nat(3) }),
      fc.record({ k: fc.constant('live' as const), i: fc.nat(3) }),
      fc.record({ k: fc.constant('reject' as const), i: fc.nat(3) }),
      fc.record({ k: fc.constant('inferred' as const), i: fc.nat(3) }),
      fc.record({ k: fc.constant('venueLive' as const), i: fc.nat(3) }),
      fc.record({ k: fc.constant('cancel' as const), i: fc.nat(3) }),
      fc.record({ k: fc.constant('fill' as const), i: fc.nat(3), n: fc.nat(1000) }),
      fc.record({
        k: fc.constant('time' as const),
        // steps that land on the boundaries (exactly the retention, a second), and backwards ones
        dt: fc.constantFrom(0, 1, 500, 999, 1000, 2500, 4000, 4999, 5000, 5001, -1, -1000, -3000),
      }),
    );
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 150 }), (ops) => {
        let now = 0;
        const clock = { now: () => now } as unknown as VirtualClock;
        const retain = 5000;
        const t = new OrderTracker(clock, { retainTerminalMs: retain });
        // the model: each order's status and last change as the transitions say, forgotten as the
        // tracker's first version did (a scan of every order at most once a second)
        const model = new Map<string, { terminal: boolean; at: number }>();
        t.onTransition((x) =>
          model.set(x.order.id, {
            terminal: ['filled', 'cancelled', 'rejected'].includes(x.order.status),
            at: x.order.updatedAt,
          }),
        );
        let lastPrune = 0;
        for (const op of ops) {
          if (op.k === 'time') now += op.dt;
          else {
            const id = ids[op.i]!;
            if (op.k === 'add') t.addPending(prep(id));
            else if (op.k === 'live') t.onPlaceOutcome({ id: id as OrderId, ok: true, status: 'live' });
            else if (op.k === 'reject') t.onPlaceOutcome({ id: id as OrderId, ok: false, code: 'X', message: '' });
            else if (op.k === 'inferred') t.markRejected(id as OrderId, 'GONE', true);
            else if (op.k === 'venueLive') t.applyVenueOrder(vo(id, 'LIVE'));
            else if (op.k === 'cancel') t.onOrderUpdate(upd(id, 'CANCELED'));
            else t.onFill(fill(id, `t${op.n}`, 1_000_000));
          }
          t.get(ids[0] as OrderId); // a read: prunes when a second has passed
          if (now - lastPrune >= 1000) {
            lastPrune = now;
            for (const [id, m] of model) if (m.terminal && now - m.at > retain) model.delete(id);
          }
          expect(
            t
              .all()
              .map((o) => o.id)
              .sort(),
          ).toEqual([...model.keys()].sort());
        }
      }),
      { numRuns: 2000 },
    );
  });
});
