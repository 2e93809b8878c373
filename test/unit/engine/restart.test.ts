import { describe, expect, it } from 'vitest';
import type { OrderId } from '../../../src/core/ids.ts';
import { MAX_CANCEL_IDS } from '../../../src/core/rate-limits.ts';
import type { Micro, Pips } from '../../../src/core/units.ts';
import { createEngine } from '../../../src/engine/loop.ts';
import {
  reconcileOnStart,
  ReconcileError,
  UNSETTLED_LOOKBACK_MAX_MS,
  type RestartFill,
  type RestartStore,
} from '../../../src/engine/restart.ts';
import type { VenueFill, VenueOrder } from '../../../src/core/venue.ts';
import { CID, FakeVenue, flush, market, NO, YES } from './fixtures.ts';
import { passGates } from '../../support/approve.ts';

const vo = (id: string, status: VenueOrder['status'] = 'LIVE'): VenueOrder => ({
  id: id as OrderId,
  market: CID,
  tokenId: YES,
  side: 'BUY',
  price: 4000 as Pips,
  originalSize: 5e6 as Micro,
  sizeMatched: 0 as Micro,
  status,
});
const vf = (tradeId: string, orderId: string, matchTime: number): VenueFill => ({
  tradeId,
  orderId: orderId as OrderId,
  market: CID,
  tokenId: NO,
  side: 'BUY',
  price: 6000 as Pips,
  size: 5e6 as Micro,
  role: 'MAKER',
  fee: 0 as Micro,
  status: 'CONFIRMED',
  matchTime,
});

/** An in-memory store keyed like the real one (trade id, order id). */
class MemStore implements RestartStore {
  fills = new Map<string, RestartFill>();
  orders = new Map<string, { id: string; status: string; createdAt?: number }>();
  missing: string[] = [];
  async openOrders() {
    return [...this.orders.values()].filter((o) => o.status === 'LIVE');
  }
  knowsOrder(id: string): boolean {
    return this.orders.has(id);
  }
  recordFill(f: RestartFill): boolean {
    const k = `${f.tradeId}|${f.orderId}`;
    const had = this.fills.has(k);
    this.fills.set(k, f);
    return !had;
  }
  lastFillTime() {
    let t: number | undefined;
    for (const f of this.fills.values()) t = Math.max(t ?? 0, f.matchTime);
    return t;
  }
  updateOrder(o: VenueOrder) {
    this.orders.set(o.id, { id: o.id, status: o.status });
  }
  markOrderMissing(id: string) {
    this.missing.push(id);
    this.orders.set(id, { id, status: 'MISSING' });
  }
}

describe('reconcileOnStart', () => {
  it("policy 'cancel' (default): cancels the bot's orders the venue shows (by id), verifies they are gone, resolves store-open orders by id, backfills since the last fill minus the margin", async () => {
    const venue = new FakeVenue();
    venue.open = [vo('v1'), vo('v2')];
    const store = new MemStore();
    store.orders.set('v1', { id: 'v1', status: 'LIVE' });
    store.orders.set('v2', { id: 'v2', status: 'CANCELED' }); // the store's, believed closed
    store.orders.set('gone', { id: 'gone', status: 'LIVE' }); // filled while we were down
    store.orders.set('never', { id: 'never', status: 'LIVE' }); // persisted, never sent
    venue.orderLookup.set('gone', vo('gone', 'MATCHED'));
    venue.orderLookup.set('v1', vo('v1', 'CANCELED'));
    store.recordFill(vf('t0', 'x', 100_000));
    venue.venueFills = [vf('t0', 'x', 100_000), vf('t1', 'gone', 150_000), vf('old', 'y', 10_000)];
    const r = await reconcileOnStart(venue, store, { marginMs: 60_000 });
    expect(r.policy).toBe('cancel');
    expect(r.found.map((o) => o.id)).toEqual(['v1', 'v2']);
    expect(r.canceled).toEqual(['v1', 'v2']);
    expect(r.adopted).toEqual([]);
    expect(r.foreign).toEqual([]);
    expect(venue.open).toEqual([]);
    expect(venue.calls).not.toContain('cancelAll');
    expect(venue.cancelCalls).toEqual([['v1', 'v2']]);
    expect(r.closed.map((o) => [o.id, o.status])).toEqual([
      ['v1', 'CANCELED'],
      ['gone', 'MATCHED'],
    ]);
    expect(r.missing).toEqual(['never']);
    expect(store.orders.get('gone')!.status).toBe('MATCHED');
    expect(store.orders.get('never')!.status).toBe('MISSING');
    expect(r.sinceMs).toBe(40_000);
    expect(venue.calls).toContain('fills:40000');
    expect(r.fills.map((f) => f.tradeId)).toEqual(['t0', 't1']);
    expect(r.newFills).toBe(1);
    // 'gone' is the store's order: its fill is the bot's
    expect(store.fills.get('t1|gone')!.source).toBeUndefined();
    // a second run changes nothing
    const again = await reconcileOnStart(venue, store);
    expect(again.newFills).toBe(0);
    expect(store.fills.size).toBe(2);
  });

  it('logs its summary line readably: times as ISO 8601, the store-open orders by what became of them', async () => {
    const venue = new FakeVenue();
    const store = new MemStore();
    store.orders.set('gone', { id: 'gone', status: 'LIVE' });
    store.orders.set('never', { id: 'never', status: 'LIVE' });
    venue.orderLookup.set('gone', vo('gone', 'MATCHED'));
    store.recordFill(vf('t0', 'x', 1_795_791_802_000));
    const lines: Array<{ obj: Record<string, unknown>; msg?: string }> = [];
    const logger = {
      info: (obj: object, msg?: string) => lines.push({ obj: obj as Record<string, unknown>, msg }),
      warn: (obj: object, msg?: string) => lines.push({ obj: obj as Record<string, unknown>, msg }),
    };
    await reconcileOnStart(venue, store, { marginMs: 60_000, logger });
    const done = lines.find((l) => l.msg === 'restart reconciliation done')!.obj;
    expect(done).toMatchObject({ backfillSince: '2026-11-27T15:02:22.000Z', closedWhileDown: 1, neverReceived: 1 });
    expect(done).not.toHaveProperty('sinceMs');
    expect(done).not.toHaveProperty('closed');
    expect(done).not.toHaveProperty('missing');
    expect(JSON.stringify(done)).not.toMatch(/\b1795\d{9}\b/);
  });

  it('counts a store-open order of an earlier epoch (a world gone with its exchange) apart from neverReceived (trial 10 F9)', async () => {
    const venue = new FakeVenue();
    const store = new MemStore();
    store.orders.set('old', { id: 'old', status: 'LIVE', createdAt: 500 });
    store.orders.set('new', { id: 'new', status: 'LIVE', createdAt: 5_000 });
    const lines: Array<{ obj: Record<string, unknown>; msg?: string }> = [];
    const logger = {
      info: (obj: object, msg?: string) => lines.push({ obj: obj as Record<string, unknown>, msg }),
      warn: (obj: object, msg?: string) => lines.push({ obj: obj as Record<string, unknown>, msg }),
    };
    const r = await reconcileOnStart(venue, store, { epochStartedAt: 1_000, logger });
    expect(r.missing).toEqual(['new']);
    expect(store.orders.get('old')!.status).toBe('MISSING'); // closed in the store either way
    const done = lines.find((l) => l.msg === 'restart reconciliation done')!.obj;
    expect(done).toMatchObject({ neverReceived: 1, previousEpoch: 1 });
    // without the epoch's start: both are neverReceived, as before
    const store2 = new MemStore();
    store2.orders.set('old', { id: 'old', status: 'LIVE', createdAt: 500 });
    const lines2: typeof lines = [];
    await reconcileOnStart(venue, store2, {
      logger: {
        info: (obj: object, msg?: string) => lines2.push({ obj: obj as Record<string, unknown>, msg }),
        warn: () => {},
      },
    });
    expect(lines2.find((l) => l.msg === 'restart reconciliation done')!.obj).toMatchObject({
      neverReceived: 1,
      previousEpoch: 0,
    });
  });

  it('counts an order it just cancelled once (canceled), not again as closedWhileDown; a first start backfills since none', async () => {
    const venue = new FakeVenue();
    venue.open = [vo('v1'), vo('v2')];
    const store = new MemStore();
    store.orders.set('v1', { id: 'v1', status: 'LIVE' });
    store.orders.set('v2', { id: 'v2', status: 'LIVE' });
    store.orders.set('gone', { id: 'gone', status: 'LIVE' }); // filled while we were down
    venue.orderLookup.set('v1', vo('v1', 'CANCELED'));
    venue.orderLookup.set('v2', vo('v2', 'CANCELED'));
    venue.orderLookup.set('gone', vo('gone', 'MATCHED'));
    const lines: Array<{ obj: Record<string, unknown>; msg?: string }> = [];
    const logger = {
      info: (obj: object, msg?: string) => lines.push({ obj: obj as Record<string, unknown>, msg }),
      warn: (obj: object, msg?: string) => lines.push({ obj: obj as Record<string, unknown>, msg }),
    };
    const r = await reconcileOnStart(venue, store, { logger });
    expect(r.canceled).toEqual(['v1', 'v2']);
    const done = lines.find((l) => l.msg === 'restart reconciliation done')!.obj;
    expect(done).toMatchObject({ found: 2, canceled: 2, closedWhileDown: 1, backfillSince: 'none' });
    expect(JSON.stringify(done)).not.toContain('1970');
  });

  it("policy 'adopt' keeps the venue's orders (and cancels nothing)", async () => {
    const venue = new FakeVenue();
    venue.open = [vo('v1')];
    const store = new MemStore();
    store.orders.set('v1', { id: 'v1', status: 'LIVE' });
    const r = await reconcileOnStart(venue, store, { policy: 'adopt' });
    expect(r.adopted.map((o) => o.id)).toEqual(['v1']);
    expect(venue.calls).not.toContain('cancelAll');
    expect(venue.open).toHaveLength(1);
    expect(r.closed).toEqual([]);
    expect(r.sinceMs).toBe(0); // empty store: the whole history
  });

  it('throws when orders stay open after the cancel attempts (the engine must not quote)', async () => {
    const venue = new FakeVenue();
    venue.open = [vo('v1')];
    venue.stubbornCancels = 10;
    const store = new MemStore();
    store.orders.set('v1', { id: 'v1', status: 'LIVE' });
    const p = reconcileOnStart(venue, store, { verifyAttempts: 2, retryDelayMs: 10 }).catch((e: unknown) => e);
    // the retry delay runs on the venue's (virtual) clock
    for (let i = 0; i < 20; i++) {
      await Promise.resolve();
      await new Promise((r) => setImmediate(r));
      venue.clock.advance(10);
    }
    const err = await p;
    expect(err).toBeInstanceOf(ReconcileError);
    expect((err as ReconcileError).remaining.map((o) => o.id)).toEqual(['v1']);
    expect(venue.calls.filter((c) => c === 'cancel')).toHaveLength(2);
  });

  it('recovers when a later cancel attempt succeeds', async () => {
    const venue = new FakeVenue();
    venue.open = [vo('v1')];
    venue.stubbornCancels = 1;
    const store = new MemStore();
    store.orders.set('v1', { id: 'v1', status: 'LIVE' });
    const p = reconcileOnStart(venue, store, { retryDelayMs: 10 });
    for (let i = 0; i < 10; i++) {
      await new Promise((r) => setImmediate(r));
      venue.clock.advance(10);
    }
    const r = await p;
    expect(r.canceled).toEqual(['v1']);
    expect(venue.calls.filter((c) => c === 'cancel')).toHaveLength(2);
  });
});

describe('reconcileOnStart: orders and fills the bot did not make (bot.foreignOrders)', () => {
  /** The bot's order 'mine' (the store knows it) and a foreign one 'theirs' open at the venue. */
  const setup = () => {
    const venue = new FakeVenue();
    venue.open = [vo('mine'), vo('theirs')];
    venue.orderLookup.set('mine', vo('mine', 'CANCELED'));
    const store = new MemStore();
    store.orders.set('mine', { id: 'mine', status: 'LIVE' });
    return { venue, store };
  };

  it("foreign 'leave' (default): only the bot's orders are cancelled, by id; the foreign one is left and reported", async () => {
    const { venue, store } = setup();
    const r = await reconcileOnStart(venue, store);
    expect(r.foreignPolicy).toBe('leave');
    expect(r.foreign.map((o) => o.id)).toEqual(['theirs']);
    expect(r.left.map((o) => o.id)).toEqual(['theirs']);
    expect(r.canceled).toEqual(['mine']);
    expect(venue.cancelCalls).toEqual([['mine']]);
    expect(venue.calls).not.toContain('cancelAll');
    expect(venue.open.map((o) => o.id)).toEqual(['theirs']);
    // the foreign order is no order of the store's: not resolved, not recorded
    expect(store.orders.has('theirs')).toBe(false);
    expect(venue.calls).not.toContain('order:theirs');
  });

  it('the warning about foreign orders gives their prices in decimals', async () => {
    const { venue, store } = setup();
    const warned: { obj: object; msg: string }[] = [];
    const logger = { info: () => {}, warn: (obj: object, msg: string) => warned.push({ obj, msg }) };
    await reconcileOnStart(venue, store, { logger });
    expect(warned[0]!.obj).toMatchObject({ orders: [{ id: 'theirs', side: 'BUY', price: '0.4' }] });
  });

  it('one warning at start says another daemon or client may trade the wallet, with counts and the policy', async () => {
    const { venue, store } = setup();
    venue.open.push(vo('theirs2'), { ...vo('theirs3'), market: '0xother' as typeof CID });
    const warned: { obj: object; msg: string }[] = [];
    const logger = { info: () => {}, warn: (obj: object, msg: string) => warned.push({ obj, msg }) };
    await reconcileOnStart(venue, store, { logger, foreign: 'leave' });
    expect(warned).toHaveLength(1);
    expect(warned[0]!.msg).toBe(
      '3 open order(s) on this account in 2 market(s) were not placed from this data dir: another daemon or ' +
        'client may be trading this wallet (bot.foreignOrders leave: left alone)',
    );
    expect(warned[0]!.obj).toMatchObject({ foreign: 3, markets: 2, policy: 'leave' });
  });

  it("foreign 'cancel': both are cancelled (by id) and verified gone", async () => {
    const { venue, store } = setup();
    const r = await reconcileOnStart(venue, store, { foreign: 'cancel' });
    expect(r.canceled).toEqual(['mine', 'theirs']);
    expect(r.left).toEqual([]);
    expect(venue.open).toEqual([]);
  });

  it("a fleet member (othersOrder): another member's order is neither foreign nor cancelled; its fills are not recorded", async () => {
    const { venue, store } = setup();
    venue.open.push({ ...vo('member'), market: '0xother' as typeof CID });
    venue.venueFills = [{ ...vf('t1', 'member', 10), market: '0xother' as typeof CID }, vf('t2', 'outsider', 11)];
    const r = await reconcileOnStart(venue, store, { foreign: 'cancel', othersOrder: (_id, m) => m === '0xother' });
    expect(r.canceled).toEqual(['mine', 'theirs']);
    expect(r.foreign.map((o) => o.id)).toEqual(['theirs']);
    expect(venue.open.map((o) => o.id)).toEqual(['member']);
    expect([...store.fills.keys()]).toEqual(['t2|outsider']);
    expect([...r.externalFills]).toEqual(['t2|outsider']);
  });

  it('a fleet member (bookExternal): a fill from outside that another member claimed is not recorded; one it claims is', async () => {
    const { venue, store } = setup();
    venue.venueFills = [vf('t1', 'mine', 10), vf('t2', 'operator', 11), vf('t3', 'operator', 12)];
    const asked: string[] = [];
    const r = await reconcileOnStart(venue, store, {
      bookExternal: async (f) => {
        asked.push(f.tradeId);
        return f.tradeId === 't3';
      },
    });
    // (the bot's own fill is never asked about)
    expect(asked).toEqual(['t2', 't3']);
    expect([...store.fills.keys()]).toEqual(['t1|mine', 't3|operator']);
    expect([...r.externalFills]).toEqual(['t3|operator']);
  });

  it("foreign 'adopt' with restart policy 'cancel': the foreign order is adopted, the bot's own cancelled", async () => {
    const { venue, store } = setup();
    const r = await reconcileOnStart(venue, store, { foreign: 'adopt' });
    expect(r.adopted.map((o) => o.id)).toEqual(['theirs']);
    expect(r.canceled).toEqual(['mine']);
    expect(venue.open.map((o) => o.id)).toEqual(['theirs']);
  });

  it("restart policy 'adopt' with foreign 'cancel': the bot's own is adopted, the foreign one cancelled", async () => {
    const { venue, store } = setup();
    const r = await reconcileOnStart(venue, store, { policy: 'adopt', foreign: 'cancel' });
    expect(r.adopted.map((o) => o.id)).toEqual(['mine']);
    expect(r.canceled).toEqual(['theirs']);
    expect(venue.open.map((o) => o.id)).toEqual(['mine']);
  });

  it("an order the store knows but believes closed is still the bot's (cancelled, not left)", async () => {
    const { venue, store } = setup();
    store.orders.set('mine', { id: 'mine', status: 'CANCELED' });
    const r = await reconcileOnStart(venue, store);
    expect(r.foreign.map((o) => o.id)).toEqual(['theirs']);
    expect(r.canceled).toEqual(['mine']);
  });

  it("without knowsOrder, an order is the store's when it is among its open orders", async () => {
    const { venue, store } = setup();
    const plain: RestartStore = {
      openOrders: () => store.openOrders(),
      recordFill: (f) => store.recordFill(f),
      lastFillTime: () => store.lastFillTime(),
    };
    const r = await reconcileOnStart(venue, plain);
    expect(r.canceled).toEqual(['mine']);
    expect(r.left.map((o) => o.id)).toEqual(['theirs']);
  });

  it('cancels in requests of at most MAX_CANCEL_IDS ids', async () => {
    const venue = new FakeVenue();
    const store = new MemStore();
    const n = MAX_CANCEL_IDS + 5;
    for (let i = 0; i < n; i++) {
      venue.open.push(vo(`o${i}`));
      store.orders.set(`o${i}`, { id: `o${i}`, status: 'CANCELED' });
    }
    const r = await reconcileOnStart(venue, store);
    expect(venue.cancelCalls.map((c) => c.length)).toEqual([MAX_CANCEL_IDS, 5]);
    expect(r.canceled).toHaveLength(n);
    expect(venue.open).toEqual([]);
  });

  it("a fill of an order the store does not know is recorded with source 'external'", async () => {
    const { venue, store } = setup();
    venue.venueFills = [vf('t1', 'mine', 1000), vf('t2', 'theirs', 2000)];
    const r = await reconcileOnStart(venue, store);
    expect(store.fills.get('t1|mine')!.source).toBeUndefined();
    expect(store.fills.get('t2|theirs')!.source).toBe('external');
    expect([...r.externalFills]).toEqual(['t2|theirs']);
    expect(r.fills.map((f) => f.tradeId)).toEqual(['t1', 't2']);
  });
});

/** MemStore that also knows its unsettled fills (as the real store's `oldestUnsettledFillTime`). */
class SettlingMemStore extends MemStore {
  recorded: VenueFill[] = [];
  unsettledAsked: number[] = [];
  override recordFill(f: VenueFill): boolean {
    this.recorded.push(f);
    return super.recordFill(f);
  }
  oldestUnsettledFillTime(sinceMs: number): number | undefined {
    this.unsettledAsked.push(sinceMs);
    let t: number | undefined;
    for (const f of this.fills.values()) {
      if (f.status === 'CONFIRMED' || f.status === 'FAILED' || f.matchTime < sinceMs) continue;
      t = Math.min(t ?? Infinity, f.matchTime);
    }
    return t;
  }
}

describe('reconcileOnStart: fills not settled when the daemon stopped', () => {
  const DAY = 24 * 60 * 60 * 1000;
  const T0 = 30 * DAY; // far from 0, so that no bound hides behind Math.max(0, …)
  const withStatus = (f: VenueFill, status: VenueFill['status']): VenueFill => ({ ...f, status });

  it('backfills from the oldest unsettled fill minus the margin and records its FAILED update', async () => {
    const venue = new FakeVenue();
    const store = new SettlingMemStore();
    const stuck = withStatus(vf('t-old', 'o1', T0), 'MATCHED'); // matched long before the last fill
    store.recordFill(stuck);
    store.recordFill(withStatus(vf('t-mined', 'o2', T0 + 5 * 60_000), 'MINED'));
    store.recordFill(vf('t-last', 'o3', T0 + 10 * 60_000));
    store.recorded = [];
    venue.venueFills = [
      vf('t-before', 'o0', T0 - 61_000), // before the window: not asked for
      withStatus(vf('t-old', 'o1', T0), 'FAILED'), // reverted on chain while we were down
      vf('t-mined', 'o2', T0 + 5 * 60_000),
      vf('t-last', 'o3', T0 + 10 * 60_000),
    ];
    const r = await reconcileOnStart(venue, store, { marginMs: 60_000 });
    expect(store.unsettledAsked).toEqual([T0 + 10 * 60_000 - UNSETTLED_LOOKBACK_MAX_MS]);
    expect(r.sinceMs).toBe(T0 - 60_000);
    expect(venue.calls).toContain(`fills:${T0 - 60_000}`);
    expect(r.fills.map((f) => f.tradeId)).toEqual(['t-old', 't-mined', 't-last']);
    expect(store.recorded.find((f) => f.tradeId === 't-old')?.status).toBe('FAILED');
    expect(store.fills.get('t-old|o1')!.status).toBe('FAILED');
    expect(store.fills.get('t-mined|o2')!.status).toBe('CONFIRMED');
    expect(r.newFills).toBe(0);
    // everything settled now: the next restart is back to the last fill minus the margin
    const again = await reconcileOnStart(venue, store, { marginMs: 60_000 });
    expect(again.sinceMs).toBe(T0 + 10 * 60_000 - 60_000);
  });

  it('with only settled (CONFIRMED / FAILED) fills the window is the last fill minus the margin', async () => {
    const venue = new FakeVenue();
    const store = new SettlingMemStore();
    store.recordFill(vf('a', 'o1', T0));
    store.recordFill(withStatus(vf('b', 'o2', T0 + 60_000), 'FAILED'));
    store.recordFill(vf('c', 'o3', T0 + 120_000));
    const r = await reconcileOnStart(venue, store, { marginMs: 60_000 });
    expect(store.unsettledAsked).toHaveLength(1);
    expect(r.sinceMs).toBe(T0 + 60_000);
    expect(venue.calls).toContain(`fills:${T0 + 60_000}`);
  });

  it('when only the newest fill is unsettled the window is the same (last minus the margin)', async () => {
    const venue = new FakeVenue();
    const store = new SettlingMemStore();
    store.recordFill(vf('a', 'o1', T0));
    store.recordFill(withStatus(vf('b', 'o2', T0 + 120_000), 'RETRYING'));
    store.recordFill(withStatus(vf('c', 'o3', T0 + 120_000), 'MATCHED'));
    const r = await reconcileOnStart(venue, store, { marginMs: 60_000 });
    expect(r.sinceMs).toBe(T0 + 60_000);
  });

  it(`never reaches back more than UNSETTLED_LOOKBACK_MAX_MS (${UNSETTLED_LOOKBACK_MAX_MS / DAY} days) before the last fill`, async () => {
    expect(UNSETTLED_LOOKBACK_MAX_MS).toBe(7 * DAY);
    const last = T0 + 20 * DAY;
    const floor = last - UNSETTLED_LOOKBACK_MAX_MS;
    const run = async (unsettledAt: number): Promise<number> => {
      const venue = new FakeVenue();
      const store = new SettlingMemStore();
      store.recordFill(withStatus(vf('u', 'o1', unsettledAt), 'MINED'));
      store.recordFill(vf('l', 'o2', last));
      const r = await reconcileOnStart(venue, store, { marginMs: 60_000 });
      expect(store.unsettledAsked).toEqual([floor]);
      expect(venue.calls).toContain(`fills:${r.sinceMs}`);
      return r.sinceMs;
    };
    // a store that answers past the floor anyway (the real one does not) is clamped to it
    class Ignoring extends SettlingMemStore {
      override oldestUnsettledFillTime(): number | undefined {
        return super.oldestUnsettledFillTime(0);
      }
    }
    const venue = new FakeVenue();
    const ignoring = new Ignoring();
    ignoring.recordFill(withStatus(vf('u', 'o1', T0), 'MATCHED')); // 20 days before the last fill
    ignoring.recordFill(vf('l', 'o2', last));
    expect((await reconcileOnStart(venue, ignoring, { marginMs: 60_000 })).sinceMs).toBe(floor);
    expect(venue.calls).toContain(`fills:${floor}`);
    // within the bound: its match time minus the margin
    expect(await run(floor + DAY)).toBe(floor + DAY - 60_000);
    // within the bound, but less than a margin inside it: the floor
    expect(await run(floor + 30_000)).toBe(floor);
    // beyond the bound: not seen by the store's query, the window is the last fill's
    expect(await run(floor - 1)).toBe(last - 60_000);
  });

  it('a store without oldestUnsettledFillTime keeps the last-fill window', async () => {
    const venue = new FakeVenue();
    const store = new MemStore();
    store.recordFill({ ...vf('u', 'o1', T0), status: 'MATCHED' });
    store.recordFill(vf('l', 'o2', T0 + DAY));
    const r = await reconcileOnStart(venue, store, { marginMs: 60_000 });
    expect(r.sinceMs).toBe(T0 + DAY - 60_000);
  });
});

describe('reconcileOnStart + engine', () => {
  it('plugs into the engine start: adopted orders and backfilled fills land in the state before any quoting', async () => {
    const venue = new FakeVenue();
    venue.open = [vo('keep')];
    venue.venueFills = [vf('t1', 'keep', 1000)];
    const store = new MemStore();
    store.orders.set('keep', { id: 'keep', status: 'LIVE' });
    const engine = createEngine({
      ...passGates,
      venue,
      markets: [market()],
      clock: venue.clock,
      strategy: { onEvent: () => undefined },
      timers: { tickMs: 0, balanceMs: 0, marketsPollMs: 0 },
      reconcile: () => reconcileOnStart(venue, store, { policy: 'adopt' }),
    });
    await engine.start();
    await flush();
    expect(engine.ready).toBe(true);
    expect(engine.state.openOrders(CID).map((o) => o.id)).toEqual(['keep']);
    expect(engine.state.position(NO).size).toBe(5e6);
    expect(store.fills.size).toBe(1);
    await engine.stop();
  });
});
