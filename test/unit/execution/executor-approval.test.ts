/**
 * Execution accepts only what the risk gate approved (src/risk/gate.ts: Approved<T>): a cast is
 * refused at run time, an immediate order's approval is spent once; approved immediate orders
 * (FOK/FAK) are recorded before they are sent, sent in their market's turn (after a quote change
 * of that market handed before them, before any later one), never during a quote cycle of that market, and not sent while placing is paused or after cancelAll.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.ts';
import type { ConditionId, OrderId, TokenId } from '../../../src/core/ids.ts';
import type { DesiredQuotes, ImmediateIntent } from '../../../src/core/intents.ts';
import type { Micro, Pips } from '../../../src/core/units.ts';
import type { PlaceOutcome } from '../../../src/core/venue.ts';
import { Executor } from '../../../src/execution/executor.ts';
import { isApproved, pullQuotes, spendApproval, type Approved } from '../../../src/risk/gate.ts';
import { openStore, type Store } from '../../../src/store/store.ts';
import { approved, approvedOrder } from '../../support/approve.ts';
import { FakeVenue, flush } from './fake-venue.ts';

const M = '0xm1' as ConditionId;
const Y = 'yes' as TokenId;

const fak = (price = 5200, size = 5_000_000): ImmediateIntent => ({
  market: M,
  tokenId: Y,
  side: 'BUY',
  price: price as Pips,
  size: size as Micro,
  type: 'FAK',
});

let clock: VirtualClock;
let venue: FakeVenue;
let store: Store;
let ex: Executor;

beforeEach(() => {
  clock = new VirtualClock(1_000_000);
  venue = new FakeVenue(clock);
  store = openStore(':memory:', { clock });
  ex = new Executor({ venue, store, clock, random: () => 0.5, tickPips: () => 100 });
});
afterEach(async () => {
  await ex.close();
  store.close();
});

describe('approval is a type the gate alone makes', () => {
  it('quotes not approved by the gate (a cast) are refused and nothing is sent', () => {
    const forged = { market: M, quotes: [], at: 1 } as DesiredQuotes as Approved<DesiredQuotes>;
    expect(() => ex.submit(forged)).toThrow(/not approved by the risk gate/);
    expect(venue.calls).toEqual([]);
    expect(ex.stats().submitted).toBe(0);
  });

  it('a copy of an approved set (a spread, a changed field) is no approval', () => {
    const d = pullQuotes(M, 1);
    expect(isApproved(d)).toBe(true);
    const copy = { ...d, quotes: [{ tokenId: Y, side: 'BUY', price: 4900 as Pips, size: 5e6 as Micro }] };
    expect(isApproved(copy)).toBe(false);
    expect(() => ex.submit(copy as Approved<DesiredQuotes>)).toThrow(/not approved by the risk gate/);
    expect(venue.calls).toEqual([]);
  });

  it('the gate approves; a pull is always approved', async () => {
    const d = approved({
      market: M,
      quotes: [{ tokenId: Y, side: 'BUY', price: 4900 as Pips, size: 5e6 as Micro }],
      at: 1,
    });
    expect(isApproved(d)).toBe(true);
    ex.submit(d);
    await ex.idle();
    expect(venue.calls.map((c) => c.kind)).toEqual(['place']);
    ex.submit(pullQuotes(M, 2));
    await ex.idle();
    expect(venue.calls.map((c) => c.kind)).toEqual(['place', 'cancel']);
  });

  it('an immediate order not approved, or approved and already executed, is refused', () => {
    const forged = fak() as ImmediateIntent as Approved<ImmediateIntent>;
    expect(() => ex.execute([forged])).toThrow(/not approved by the risk gate/);
    const ok = approvedOrder(fak());
    ex.execute([ok]);
    expect(() => ex.execute([ok])).toThrow(/executed already/);
    expect(spendApproval(ok)).toBe(false);
  });
});

describe('Executor.execute: immediate orders', () => {
  it('records the order before sending it, sends it as FAK once, and the tracker finishes it on a match', async () => {
    const seen: Array<string | undefined> = [];
    venue.placeHook = async (orders) => {
      for (const o of orders) seen.push(store.order(o.id)?.status);
      return orders.map((o): PlaceOutcome => ({ id: o.id, ok: true, status: 'matched' }));
    };
    ex.execute([approvedOrder(fak())]);
    await ex.idle();
    await flush(5);
    const places = venue.calls.filter((c) => c.kind === 'place');
    expect(places).toHaveLength(1);
    const id = places[0]!.ids[0]!;
    expect(seen).toEqual(['pending']);
    const sent = venue.sentObjects.get(id as string)![0]!;
    expect(sent.request).toMatchObject({ type: 'FAK', side: 'BUY', price: 5200, size: 5_000_000, tokenId: Y });
    expect(store.order(id as OrderId)).toMatchObject({ type: 'FAK' });
    expect(ex.immediateStats()).toEqual({ submitted: 1, sent: 1, skipped: 0 });
    // nothing rests: the next quote cycle has nothing of it to cancel
    ex.submit(approved({ market: M, quotes: [], at: 3 }));
    await ex.idle();
    expect(venue.calls.filter((c) => c.kind === 'cancel')).toEqual([]);
  });

  it('waits for a running quote cycle of its market, then goes before the next one', async () => {
    const held = venue.holdFirstPlace();
    ex.submit(
      approved({ market: M, quotes: [{ tokenId: Y, side: 'BUY', price: 4800 as Pips, size: 5e6 as Micro }], at: 1 }),
    );
    await flush(3);
    ex.execute([approvedOrder(fak())]);
    ex.submit(
      approved({ market: M, quotes: [{ tokenId: Y, side: 'BUY', price: 4700 as Pips, size: 5e6 as Micro }], at: 2 }),
    );
    await flush(3);
    expect(venue.calls.filter((c) => c.kind === 'place')).toHaveLength(1); // the cycle still runs
    held.release();
    await ex.idle();
    const kinds = venue.calls.filter((c) => c.kind !== 'order').map((c) => c.kind);
    // cycle 1's place, then the FAK, then cycle 2 (cancel the 4800 bid, place the 4700 one)
    expect(kinds).toEqual(['place', 'place', 'cancel', 'place']);
    const fakId = venue.calls.filter((c) => c.kind === 'place')[1]!.ids[0]!;
    expect(venue.sentObjects.get(fakId)![0]!.request.type).toBe('FAK');
  });

  it("runs its market's quote change handed before it first (the same output's: its cancels free what the order uses)", async () => {
    const held = venue.holdFirstPlace();
    ex.submit(
      approved({ market: M, quotes: [{ tokenId: Y, side: 'SELL', price: 5400 as Pips, size: 5e6 as Micro }], at: 1 }),
    );
    await flush(3);
    // one output while that cycle runs: pull the ask, then sell the shares it held
    ex.submit(approved({ market: M, quotes: [], at: 2 }));
    ex.execute([approvedOrder({ ...fak(5000), side: 'SELL' })]);
    held.release();
    await flush(1);
    await ex.idle();
    const kinds = venue.calls.filter((c) => c.kind !== 'order').map((c) => c.kind);
    // cycle 1's place (the ask), the pull's cancel, then the SELL
    expect(kinds).toEqual(['place', 'cancel', 'place']);
    const places = venue.calls.filter((c) => c.kind === 'place');
    expect(venue.sentObjects.get(places[1]!.ids[0]!)![0]!.request).toMatchObject({ type: 'FAK', side: 'SELL' });
  });

  it('is not sent while placing is paused, nor after cancelAll', async () => {
    ex.pause('heartbeat');
    ex.execute([approvedOrder(fak())]);
    await ex.idle();
    expect(venue.calls.filter((c) => c.kind === 'place')).toEqual([]);
    ex.resume('heartbeat');
    await ex.cancelAll('test');
    ex.execute([approvedOrder(fak())]);
    await ex.idle();
    expect(venue.calls.filter((c) => c.kind === 'place')).toEqual([]);
    expect(ex.immediateStats()).toEqual({ submitted: 2, sent: 0, skipped: 2 });
  });
});
