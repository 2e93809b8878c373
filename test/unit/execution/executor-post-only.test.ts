/**
 * Post-only on the wire: quotes carry the venue's post-only flag when the executor is told so,
 * immediate orders (FOK/FAK) never do, and the venue's refusal of a crossing post-only quote
 * (INVALID_POST_ONLY_ORDER) is "re-price next time": counted apart, never handed to the rejection
 * listeners (the kill switch), and the next intent places again.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.ts';
import type { ConditionId, OrderId, TokenId, TradeId } from '../../../src/core/ids.ts';
import type { DesiredQuotes, QuoteIntent } from '../../../src/core/intents.ts';
import type { Micro, Pips, Side } from '../../../src/core/units.ts';
import type { PlaceOutcome } from '../../../src/core/venue.ts';
import {
  Executor,
  POST_ONLY_CROSSING,
  SELL_RACE_TOLERANCE,
  type CycleReport,
  type ExecutorOptions,
  type RejectionInfo,
} from '../../../src/execution/executor.ts';
import { describeRejections, rejectionsNotCounted } from '../../../src/cli/run-summary.ts';
import type { Approved } from '../../../src/risk/gate.ts';
import { openStore, type Store } from '../../../src/store/store.ts';
import { approved, approvedOrder } from '../../support/approve.ts';
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

let clock: VirtualClock;
let venue: FakeVenue;
let store: Store;
let ex: Executor;
let cycles: CycleReport[];
let rejections: RejectionInfo[];

function make(opts: Partial<ExecutorOptions> = {}): Executor {
  const e = new Executor({ venue, store, clock, random: () => 0.5, tickPips: () => 100, ...opts });
  e.onCycle((c) => cycles.push(c));
  e.onRejection((r) => rejections.push(r));
  return e;
}

/** The venue refuses every BUY at or above `ask` as a crossing post-only order (as the matching engine does). */
function crossingAt(ask: number): void {
  venue.placeHook = async (orders, accept) =>
    orders.map((o): PlaceOutcome => {
      if (o.request.postOnly === true && o.request.side === 'BUY' && o.request.price >= ask)
        return {
          id: o.id,
          ok: false,
          code: POST_ONLY_CROSSING,
          message: 'invalid post-only order: order crosses book',
        };
      return accept(o);
    });
}

beforeEach(() => {
  clock = new VirtualClock(1_000_000);
  venue = new FakeVenue(clock);
  store = openStore(':memory:', { clock });
  cycles = [];
  rejections = [];
  ex = make({ postOnly: true });
});
afterEach(async () => {
  await ex.close();
  store.close();
});

describe('Executor: post-only', () => {
  it('sends quotes with the post-only flag, and immediate FOK/FAK orders without it', async () => {
    ex.submit(want([q('BUY', 4900)]));
    ex.execute([
      approvedOrder({ market: M, tokenId: Y, side: 'BUY', price: 5100 as Pips, size: 1_000_000 as Micro, type: 'FAK' }),
    ]);
    await ex.idle();
    const sent = [...venue.sentObjects.values()].flat().map((p) => p.request);
    expect(sent.filter((r) => r.type === 'GTC').map((r) => r.postOnly)).toEqual([true]);
    expect(sent.filter((r) => r.type === 'FAK').map((r) => r.postOnly)).toEqual([undefined]);
  });

  it('without the option, quotes carry no post-only flag', async () => {
    await ex.close();
    ex = make();
    ex.submit(want([q('BUY', 4900)]));
    await ex.idle();
    expect([...venue.sentObjects.values()].flat()[0]!.request.postOnly).toBeUndefined();
  });

  it('a crossing post-only refusal is counted apart, not a rejection, and the next intent re-prices', async () => {
    crossingAt(5000);
    ex.submit(want([q('BUY', 5000), q('BUY', 4800)]));
    await ex.idle();
    // the crossing one refused, the other rests
    expect(venue.live().map((o) => o.price)).toEqual([4800]);
    expect(rejections).toEqual([]);
    expect(ex.stats().rejections).toBe(0);
    expect(ex.accountStats().postOnlyRejections).toBe(1);
    expect(cycles.at(-1)).toMatchObject({ placed: 2, rejected: 0, postOnlyRejected: 1 });
    const refused = store.auditLog({ kind: 'cycle' }).at(-1)?.data as Record<string, unknown>;
    expect(refused['postOnlyRejected']).toBe(1);
    // the order is rejected in the store, with the venue's code
    const rows = store.openOrders();
    expect(rows.map((r) => r.price)).toEqual([4800]);
    // re-priced: the next intent (one tick lower) is placed, the resting one kept
    ex.submit(want([q('BUY', 4900), q('BUY', 4800)]));
    await ex.idle();
    expect(
      venue
        .live()
        .map((o) => o.price)
        .sort(),
    ).toEqual([4800, 4900]);
    expect(cycles.at(-1)).toMatchObject({ placed: 1, kept: 1, postOnlyRejected: 0 });
  });

  it('a storm of crossings never reaches the rejection listeners (the kill switch)', async () => {
    crossingAt(5000);
    for (let i = 0; i < 30; i++) {
      ex.submit(want([q('BUY', 5000 + (i % 3) * 100)]));
      await ex.idle();
    }
    expect(ex.accountStats().postOnlyRejections).toBe(30);
    expect(rejections).toEqual([]);
    // a real rejection still is one
    venue.placeHook = async (orders) =>
      orders.map(
        (o): PlaceOutcome => ({ id: o.id, ok: false, code: 'INVALID_ORDER_NOT_ENOUGH_BALANCE', message: 'no' }),
      );
    ex.submit(want([q('BUY', 4000)]));
    await ex.idle();
    await flush();
    expect(rejections.map((r) => r.code)).toEqual(['INVALID_ORDER_NOT_ENOUGH_BALANCE']);
    expect(ex.stats().rejections).toBe(1);
  });

  it('an ask refused for lack of tokens (selling into a fill) is re-sized, not a rejection, a few times in a row', async () => {
    // the venue refuses every SELL for balance (the fill that took the tokens has not reached us)
    venue.placeHook = async (orders, accept) =>
      orders.map(
        (o): PlaceOutcome =>
          o.request.side === 'SELL'
            ? { id: o.id, ok: false, code: 'INVALID_ORDER_NOT_ENOUGH_BALANCE', message: 'not enough balance' }
            : accept(o),
      );
    for (let i = 0; i < SELL_RACE_TOLERANCE; i++) {
      ex.submit(want([q('SELL', 6000 + i * 100)]));
      await ex.idle();
    }
    await flush();
    expect(rejections).toEqual([]);
    expect(ex.stats().rejections).toBe(0);
    expect(ex.accountStats().sellBalanceRaces).toBe(SELL_RACE_TOLERANCE);
    expect(store.auditLog({ kind: 'sell_balance_race' })).toHaveLength(SELL_RACE_TOLERANCE);
    // one more in a row with no fill of the token between: a real shortfall, a rejection again
    ex.submit(want([q('SELL', 6500)]));
    await ex.idle();
    await flush();
    expect(rejections.map((r) => r.code)).toEqual(['INVALID_ORDER_NOT_ENOUGH_BALANCE']);
    // a BUY refused for balance is never tolerated
    venue.placeHook = async (orders) =>
      orders.map(
        (o): PlaceOutcome => ({ id: o.id, ok: false, code: 'INVALID_ORDER_NOT_ENOUGH_BALANCE', message: 'no' }),
      );
    ex.submit(want([q('BUY', 4000)]));
    await ex.idle();
    await flush();
    expect(rejections).toHaveLength(2);
  });

  it('a FOK the book cannot fill whole is counted apart, never handed to the kill switch (trial 13 F7)', async () => {
    venue.placeHook = async (orders) =>
      orders.map(
        (o): PlaceOutcome =>
          o.request.type === 'FOK'
            ? {
                id: o.id,
                ok: false,
                code: 'FOK_ORDER_NOT_FILLED_ERROR',
                message: "order couldn't be fully filled, FOK orders are fully filled/killed",
              }
            : { id: o.id, ok: false, code: 'INVALID_ORDER_NOT_ENOUGH_BALANCE', message: 'no' },
      );
    for (let i = 0; i < 12; i++) {
      ex.execute([
        approvedOrder({
          market: M,
          tokenId: Y,
          side: 'BUY',
          price: 5100 as Pips,
          size: 5_000_000 as Micro,
          type: 'FOK',
        }),
      ]);
      await ex.idle();
    }
    await flush();
    expect(rejections).toEqual([]);
    expect(ex.accountStats().fokNotFilled).toBe(12);
    expect(store.summary().ordersRejected).toBe(12);
    const notCounted = rejectionsNotCounted(ex.accountStats());
    expect(describeRejections(12, notCounted)).toBe('12 (12 FOK not filled whole, not counted by the kill switch)');
    expect(describeRejections(15, { sellBalanceRaces: 1, postOnlyCrossings: 2, fokNotFilled: 12 })).toBe(
      '15 (1 sell-balance race, 2 post-only crossings and 12 FOK not filled whole, not counted by the kill switch)',
    );
  });

  it("the ledger's rejected orders include the races and crossings; the exit summary says how many the kill switch did not count", async () => {
    // two asks refused for balance (races), a crossing bid, then a bid refused for balance (counted)
    venue.placeHook = async (orders) =>
      orders.map(
        (o): PlaceOutcome =>
          o.request.side === 'BUY' && o.request.price >= 5000
            ? { id: o.id, ok: false, code: POST_ONLY_CROSSING, message: 'crosses' }
            : { id: o.id, ok: false, code: 'INVALID_ORDER_NOT_ENOUGH_BALANCE', message: 'no' },
      );
    for (const x of [q('SELL', 6000), q('SELL', 6100), q('BUY', 5000), q('BUY', 4000)]) {
      ex.submit(want([x]));
      await ex.idle();
    }
    await flush();
    expect(rejections).toHaveLength(1);
    expect(store.summary().ordersRejected).toBe(4);
    const notCounted = rejectionsNotCounted(ex.accountStats());
    expect(notCounted).toEqual({ sellBalanceRaces: 2, postOnlyCrossings: 1, fokNotFilled: 0 });
    expect(describeRejections(store.summary().ordersRejected, notCounted)).toBe(
      '4 (2 sell-balance races and 1 post-only crossing, not counted by the kill switch)',
    );
  });

  it('a fill of the token starts the tolerance afresh', async () => {
    venue.placeHook = async (orders) =>
      orders.map(
        (o): PlaceOutcome => ({ id: o.id, ok: false, code: 'INVALID_ORDER_NOT_ENOUGH_BALANCE', message: 'no' }),
      );
    for (let i = 0; i < SELL_RACE_TOLERANCE; i++) {
      ex.submit(want([q('SELL', 6000 + i * 100)]));
      await ex.idle();
    }
    ex.recordFill({
      type: 'fill',
      venueTime: clock.now(),
      recvTime: clock.now(),
      tradeId: 't1' as TradeId,
      orderId: '0xelsewhere' as OrderId,
      status: 'MATCHED',
      role: 'MAKER',
      market: M,
      tokenId: Y,
      side: 'SELL',
      price: 6000 as Pips,
      size: 1_000_000 as Micro,
      feeRateBps: 0,
      takerOrderId: '0xtaker' as OrderId,
      source: 'stream',
    });
    for (let i = 0; i < SELL_RACE_TOLERANCE; i++) {
      ex.submit(want([q('SELL', 6500 + i * 100)]));
      await ex.idle();
    }
    await flush();
    expect(rejections).toEqual([]);
    expect(ex.accountStats().sellBalanceRaces).toBe(2 * SELL_RACE_TOLERANCE);
  });
});
