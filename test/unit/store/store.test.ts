import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.ts';
import { ValidationError } from '../../../src/core/errors.ts';
import type { FillEvent } from '../../../src/core/events.ts';
import type { ConditionId, OrderId, TokenId, TradeId } from '../../../src/core/ids.ts';
import type { Micro, Pips, Side } from '../../../src/core/units.ts';
import type { PreparedOrder } from '../../../src/core/venue.ts';
import { MIGRATIONS, SCHEMA_VERSION, migrate } from '../../../src/store/migrations.ts';
import {
  fillFromEvent,
  openStore,
  pendingOrderWrites,
  tradeStatusAdvances,
  type FillRecord,
  type Store,
} from '../../../src/store/store.ts';

const M = '0xmarket' as ConditionId;
const YES = '111' as TokenId;
const NO = '222' as TokenId;

function prepared(id: string, over: Partial<PreparedOrder['request']> = {}): PreparedOrder {
  return {
    id: id as OrderId,
    request: {
      market: M,
      tokenId: YES,
      side: 'BUY',
      price: 5000 as Pips,
      size: 10_000_000 as Micro,
      type: 'GTC',
      ...over,
    },
    wire: {},
  };
}
function fill(tradeId: string, orderId: string, over: Partial<FillRecord> = {}): FillRecord {
  return {
    tradeId,
    orderId: orderId as OrderId,
    market: M,
    tokenId: YES,
    side: 'BUY',
    price: 5000 as Pips,
    size: 10_000_000 as Micro,
    fee: 0 as Micro,
    role: 'MAKER',
    status: 'MATCHED',
    matchTime: 1000,
    ...over,
  };
}

let dir: string;
let file: string;
let clock: VirtualClock;
let store: Store;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mmkit-store-'));
  file = join(dir, 'mmkit.db');
  clock = new VirtualClock(1_000_000);
  store = openStore(file, { clock });
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('migrations', () => {
  it('creates the latest schema with WAL and records the version', () => {
    store.close();
    const db = new Database(file);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect((db.prepare('SELECT version FROM schema_version').get() as { version: number }).version).toBe(
      SCHEMA_VERSION,
    );
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map(
      (r) => r.name,
    );
    expect(tables).toEqual(expect.arrayContaining(['orders', 'fills', 'audit', 'schema_version']));
    db.close();
    store = openStore(file, { clock });
  });

  it('upgrades an older database in place, keeping its rows', () => {
    store.close();
    rmSync(file);
    const db = new Database(file);
    expect(migrate(db, file, 1)).toBe(1);
    db.prepare(
      `INSERT INTO orders (id, market, token, side, price, size, type, status, size_matched, created_at, updated_at) VALUES ('0xold', 'm', 't', 'BUY', 100, 10000, 'GTC', 'live', 0, 1, 1)`,
    ).run();
    db.close();
    store = openStore(file, { clock });
    expect(store.order('0xold' as OrderId)?.status).toBe('live');
    store.audit('after-upgrade', { ok: true });
    expect(store.auditLog().map((a) => a.kind)).toEqual(['after-upgrade']);
  });

  it('refuses a database from a newer mmkit', () => {
    store.close();
    const db = new Database(file);
    db.prepare('UPDATE schema_version SET version = ?').run(MIGRATIONS.length + 1);
    db.close();
    expect(() => openStore(file)).toThrow(/newer/);
    store = openStore(join(dir, 'other.db'), { clock });
  });

  it('reopening an up-to-date database applies nothing', () => {
    store.recordOrder(prepared('0x1'));
    store.close();
    store = openStore(file, { clock });
    expect(store.order('0x1' as OrderId)).toBeDefined();
  });
});

describe('orders', () => {
  it('records a prepared order as pending, once', () => {
    expect(store.recordOrder(prepared('0xa'))).toBe(true);
    expect(store.recordOrder(prepared('0xa'))).toBe(false);
    const o = store.order('0xa' as OrderId)!;
    expect(o).toMatchObject({
      id: '0xa',
      market: M,
      tokenId: YES,
      side: 'BUY',
      price: 5000,
      size: 10_000_000,
      type: 'GTC',
      status: 'pending',
      sizeMatched: 0,
      rejectCode: null,
      createdAt: 1_000_000,
    });
  });

  it('records a batch in one call', () => {
    expect(store.recordOrders([prepared('0xa'), prepared('0xb'), prepared('0xa')])).toBe(2);
    expect(store.openOrders().map((o) => o.id)).toEqual(['0xa', '0xb']);
  });

  it('records an order whose request has no type as the GTC order the wire sends, never skips it (trial 10 F19)', () => {
    // the NOT NULL type column under INSERT OR IGNORE skipped the row without a word: the order was sent, not on disk
    expect(store.recordOrders([prepared('0xa', { type: undefined })])).toBe(1);
    expect(store.order('0xa' as OrderId)?.type).toBe('GTC');
  });

  it('refuses loudly an order whose row the table refuses, where INSERT OR IGNORE skipped it (not to be sent); the batch is not recorded', () => {
    const refused = (over: Partial<PreparedOrder['request']>, column: RegExp): void => {
      let err: unknown;
      try {
        store.recordOrders([prepared('0x1'), prepared('0x2', over)]);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).code).toBe('VALIDATION');
      expect((err as ValidationError).message).toMatch(/^recordOrders: order 0x2 not recorded, so not to be sent: /);
      expect((err as ValidationError).message).toMatch(column);
      expect((err as ValidationError).details).toEqual({ id: '0x2' });
      // one transaction: the order before it is not recorded either (the caller sends neither)
      expect(store.order('0x1' as OrderId)).toBeUndefined();
      expect(store.order('0x2' as OrderId)).toBeUndefined();
    };
    refused({ side: 'HOLD' as Side }, /CHECK constraint failed: side/); // CHECK
    refused({ market: null as unknown as ConditionId }, /NOT NULL constraint failed: orders\.market/); // NOT NULL
    refused({ tokenId: null as unknown as TokenId }, /NOT NULL constraint failed: orders\.token/);
    refused({ type: Buffer.from('GTC') as unknown as 'GTC' }, /cannot store BLOB value in TEXT column orders\.type/); // STRICT
    expect(store.openOrders()).toEqual([]);
  });

  it('recording the same order again is a no-op; the same id for a different order is refused loudly, the row left as it was', () => {
    expect(store.recordOrders([prepared('0xa')])).toBe(1);
    store.updateOrder('0xa' as OrderId, { status: 'live' });
    clock.advance(10);
    // a resend of the same prepared order (its status moved on meanwhile): nothing changes
    expect(store.recordOrders([prepared('0xa'), prepared('0xb')])).toBe(1);
    expect(store.recordOrder(prepared('0xa'))).toBe(false);
    expect(store.order('0xa' as OrderId)).toMatchObject({ status: 'live', createdAt: 1_000_000, updatedAt: 1_000_000 });
    // a request without a type is the GTC order recorded
    expect(store.recordOrder(prepared('0xa', { type: undefined }))).toBe(false);
    for (const over of [
      { price: 5100 as Pips },
      { size: 1 as Micro },
      { side: 'SELL' as const },
      { tokenId: NO },
      { market: '0xother' as ConditionId },
      { type: 'FOK' as const },
    ]) {
      expect(() => store.recordOrders([prepared('0xc'), prepared('0xa', over)])).toThrow(
        new ValidationError(
          'recordOrders: order 0xa not recorded, so not to be sent: a different order is recorded with this id',
          {
            details: { id: '0xa' },
          },
        ),
      );
      expect(store.order('0xc' as OrderId)).toBeUndefined();
    }
    expect(store.order('0xa' as OrderId)).toMatchObject({ price: 5000, size: 10_000_000, side: 'BUY', status: 'live' });
  });

  it('updates status, matched size (never down) and reject code', () => {
    store.recordOrder(prepared('0xa'));
    clock.advance(5);
    expect(store.updateOrder('0xa' as OrderId, { status: 'partially_filled', sizeMatched: 4_000_000 })).toBe(true);
    expect(store.updateOrder('0xa' as OrderId, { sizeMatched: 1_000_000 })).toBe(true);
    let o = store.order('0xa' as OrderId)!;
    expect(o.status).toBe('partially_filled');
    expect(o.sizeMatched).toBe(4_000_000);
    expect(o.updatedAt).toBe(1_000_005);
    store.recordOrder(prepared('0xb'));
    store.updateOrder('0xb' as OrderId, { status: 'rejected', rejectCode: 'INVALID_ORDER_MIN_SIZE' });
    o = store.order('0xb' as OrderId)!;
    expect(o).toMatchObject({ status: 'rejected', rejectCode: 'INVALID_ORDER_MIN_SIZE' });
    expect(store.updateOrder('0xnope' as OrderId, { status: 'live' })).toBe(false);
  });

  it('lists open orders (pending, live, partially filled, unknown), optionally per market', () => {
    for (const [id, status] of [
      ['0x1', 'pending'],
      ['0x2', 'live'],
      ['0x3', 'partially_filled'],
      ['0x4', 'unknown'],
      ['0x5', 'filled'],
      ['0x6', 'cancelled'],
      ['0x7', 'rejected'],
    ] as const) {
      store.recordOrder(prepared(id));
      store.updateOrder(id as OrderId, { status });
    }
    store.recordOrder(prepared('0x8', { market: '0xother' as ConditionId }));
    expect(store.openOrders().map((o) => o.id)).toEqual(['0x1', '0x2', '0x3', '0x4', '0x8']);
    expect(store.openOrders(M).map((o) => o.id)).toEqual(['0x1', '0x2', '0x3', '0x4']);
  });

  it('adopts an order found at the venue without overwriting a known one', () => {
    expect(
      store.adoptOrder({
        id: '0xz' as OrderId,
        market: M,
        tokenId: NO,
        side: 'SELL',
        price: 4000 as Pips,
        originalSize: 5_000_000 as Micro,
        sizeMatched: 1_000_000 as Micro,
        status: 'partially_filled',
      }),
    ).toBe(true);
    expect(store.order('0xz' as OrderId)).toMatchObject({
      status: 'partially_filled',
      sizeMatched: 1_000_000,
      type: 'GTC',
    });
    store.recordOrder(prepared('0xa'));
    expect(
      store.adoptOrder({
        id: '0xa' as OrderId,
        market: M,
        tokenId: YES,
        side: 'BUY',
        price: 1 as Pips,
        originalSize: 1 as Micro,
        sizeMatched: 0 as Micro,
        status: 'live',
      }),
    ).toBe(false);
    expect(store.order('0xa' as OrderId)?.price).toBe(5000);
  });

  it('an adopted order the table refuses is a ValidationError naming it, never skipped without a word', () => {
    const bad = {
      id: '0xbad' as OrderId,
      market: M,
      tokenId: YES,
      side: 'buy' as 'BUY', // (a mapping defect: the table takes BUY or SELL)
      price: 5000 as Pips,
      originalSize: 5_000_000 as Micro,
      sizeMatched: 0 as Micro,
      status: 'live' as const,
    };
    let err: unknown;
    try {
      store.adoptOrder(bad);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).message).toMatch(
      /^adoptOrder: order 0xbad found at the venue not recorded: .*CHECK/,
    );
    expect(store.order('0xbad' as OrderId)).toBeUndefined();
  });

  it('refuses floats and negative amounts (integer units only)', () => {
    expect(() => store.recordOrder(prepared('0xf', { price: 50.5 as Pips }))).toThrow(RangeError);
    expect(() => store.recordFill(fill('t', '0x1', { size: -1 as Micro }))).toThrow(RangeError);
    expect(() => store.updateOrder('0x1' as OrderId, { sizeMatched: 0.5 })).toThrow(RangeError);
  });
});

describe('fills exactly once', () => {
  it('a replayed fill changes nothing', () => {
    expect(store.recordFill(fill('t1', '0xa'))).toBe(true);
    expect(store.recordFill(fill('t1', '0xa'))).toBe(false);
    expect(store.recordFill(fill('t1', '0xa', { size: 99_000_000 as Micro, price: 9000 as Pips }))).toBe(false);
    expect(store.fills()).toHaveLength(1);
    expect(store.fills()[0]).toMatchObject({ size: 10_000_000, price: 5000, status: 'MATCHED' });
    expect(store.positions()[0]?.size).toBe(10_000_000);
  });

  it('a fill whose row the table refuses throws, is not recorded, and is never reported as a duplicate (the store, direct and batched scratch)', () => {
    // before: INSERT OR IGNORE skipped the row and the fill came back 'duplicate': a fill lost without a word
    const bad: [string, Partial<FillRecord>][] = [
      ['role', { role: 'maker' as FillRecord['role'] }],
      ['side', { side: 'buy' as Side }],
      ['status', { status: 'matched' as FillRecord['status'] }],
      ['market', { market: undefined as unknown as ConditionId }],
    ];
    const scratch = openStore(join(dir, 'scratch.db'), {
      clock,
      commit: 'batched',
      scratch: true,
      durability: { fills: 'off', other: 'off' },
    });
    try {
      for (const s of [store, scratch]) {
        for (const [what, over] of bad) {
          expect(() => s.applyFill(fill(`t-${what}`, '0xa', over)), what).toThrow(ValidationError);
          expect(() => s.applyFill(fill(`t-${what}`, '0xa', over)), what).toThrow(
            new RegExp(`^fill t-${what} of order 0xa not recorded: (CHECK|NOT NULL) constraint failed`),
          );
        }
        expect(s.fills()).toEqual([]);
        expect(s.positions()).toEqual([]);
        // a good fill still goes in once
        expect(s.applyFill(fill('t1', '0xa'))).toBe('new');
        expect(s.applyFill(fill('t1', '0xa'))).toBe('duplicate');
        expect(s.fills()).toHaveLength(1);
      }
    } finally {
      scratch.close();
    }
  });

  it('hasFill: whether (trade id, order id) is recorded (the user-channel audit asks it after a restart)', () => {
    expect(store.hasFill('t1', '0xa')).toBe(false);
    store.recordFill(fill('t1', '0xa'));
    expect(store.hasFill('t1', '0xa')).toBe(true);
    expect(store.hasFill('t1', '0xb')).toBe(false);
    expect(store.hasFill('t2', '0xa')).toBe(false);
  });

  it('one trade filling two own orders is two fills', () => {
    expect(store.recordFill(fill('t1', '0xa'))).toBe(true);
    expect(store.recordFill(fill('t1', '0xb', { tokenId: NO, side: 'BUY', price: 5000 as Pips }))).toBe(true);
    expect(store.fills()).toHaveLength(2);
  });

  it('status progression MATCHED → MINED → CONFIRMED updates the status only', () => {
    expect(store.applyFill(fill('t1', '0xa'))).toBe('new');
    clock.advance(10);
    expect(store.applyFill(fill('t1', '0xa', { status: 'MINED', size: 1 as Micro }))).toBe('status');
    expect(store.applyFill(fill('t1', '0xa', { status: 'MINED' }))).toBe('duplicate');
    expect(store.applyFill(fill('t1', '0xa', { status: 'CONFIRMED' }))).toBe('status');
    // a late replay of an older status does not move it back
    expect(store.applyFill(fill('t1', '0xa', { status: 'MATCHED' }))).toBe('duplicate');
    expect(store.applyFill(fill('t1', '0xa', { status: 'FAILED' }))).toBe('duplicate');
    const [f] = store.fills();
    expect(f).toMatchObject({ status: 'CONFIRMED', size: 10_000_000, recordedAt: 1_000_000, updatedAt: 1_000_010 });
    expect(store.positions()[0]?.size).toBe(10_000_000);
  });

  it('FAILED voids the fill and reverses it in positions and PnL', () => {
    store.recordFill(fill('t1', '0xa', { side: 'BUY', price: 4000 as Pips, size: 10_000_000 as Micro, matchTime: 1 }));
    store.recordFill(fill('t2', '0xb', { side: 'SELL', price: 6000 as Pips, size: 10_000_000 as Micro, matchTime: 2 }));
    expect(store.pnl(new Map()).realized).toBe(2_000_000);
    expect(store.applyFill(fill('t1', '0xa', { status: 'RETRYING' }))).toBe('status');
    expect(store.applyFill(fill('t1', '0xa', { status: 'FAILED' }))).toBe('void');
    expect(store.applyFill(fill('t1', '0xa', { status: 'CONFIRMED' }))).toBe('duplicate');
    // only the sell remains: a short of 10 shares at 0.60, nothing realized
    const [p] = store.positions();
    expect(p).toMatchObject({ size: -10_000_000, avgPrice: 6000, realized: 0, fills: 1 });
    expect(store.fills().map((f) => f.status)).toEqual(['FAILED', 'MATCHED']);
    expect(store.summary()).toMatchObject({ fills: 1, voidFills: 1, volume: 10_000_000, notional: 6_000_000 });
  });

  it('a fill first seen as FAILED is stored void and never counted', () => {
    expect(store.recordFill(fill('t9', '0xa', { status: 'FAILED' }))).toBe(true);
    expect(store.positions()).toEqual([]);
  });

  it('status rank: forward only, final states final', () => {
    expect(tradeStatusAdvances('MATCHED', 'MINED')).toBe(true);
    expect(tradeStatusAdvances('MATCHED', 'RETRYING')).toBe(true);
    expect(tradeStatusAdvances('RETRYING', 'FAILED')).toBe(true);
    expect(tradeStatusAdvances('RETRYING', 'CONFIRMED')).toBe(true);
    expect(tradeStatusAdvances('MINED', 'MATCHED')).toBe(false);
    expect(tradeStatusAdvances('CONFIRMED', 'FAILED')).toBe(false);
    expect(tradeStatusAdvances('FAILED', 'CONFIRMED')).toBe(false);
  });

  it('fills(since) filters by match time, in time order', () => {
    store.recordFill(fill('b', '0x1', { matchTime: 200 }));
    store.recordFill(fill('a', '0x1', { matchTime: 100 }));
    store.recordFill(fill('c', '0x1', { matchTime: 300 }));
    expect(store.fills().map((f) => f.tradeId)).toEqual(['a', 'b', 'c']);
    expect(store.fills(200).map((f) => f.tradeId)).toEqual(['b', 'c']);
  });

  it("fillFromEvent books the taker fee the venue charged (the event's, else the protocol's formula) and none for a maker", () => {
    const e: FillEvent = {
      type: 'fill',
      venueTime: 1234,
      recvTime: 1240,
      tradeId: 'tr' as TradeId,
      orderId: '0xo' as OrderId,
      status: 'MATCHED',
      role: 'TAKER',
      market: M,
      tokenId: YES,
      side: 'BUY',
      price: 3000 as Pips,
      size: 10_000_000 as Micro,
      feeRateBps: 200,
      takerOrderId: '0xo' as OrderId,
      source: 'stream',
    };
    // protocol 2 (the default): the curve, 10 shares × 2 % × 0.30 × 0.70 = 0.042 collateral
    expect(fillFromEvent(e)).toMatchObject({
      tradeId: 'tr',
      fee: 42_000,
      matchTime: 1234,
      size: 10_000_000,
      price: 3000,
    });
    expect(fillFromEvent({ ...e, role: 'MAKER' }).fee).toBe(0);
    expect(fillFromEvent({ ...e, price: 8000 as Pips }).fee).toBe(32_000);
    // protocol 1: 10 shares × min(0.30, 0.70) × 2 % = 0.06 collateral
    expect(fillFromEvent(e, 1).fee).toBe(60_000);
    expect(fillFromEvent({ ...e, price: 8000 as Pips }, 1).fee).toBe(40_000);
    // the fee the venue's event carries wins (a sweep's matches floored apart); a maker's stays 0
    expect(fillFromEvent({ ...e, fee: 41_990 as Micro }).fee).toBe(41_990);
    expect(fillFromEvent({ ...e, role: 'MAKER', fee: 5 as Micro }).fee).toBe(0);
  });
});

describe('positions and PnL', () => {
  it('average cost, partial close, realized and unrealized', () => {
    store.recordFill(
      fill('1', '0xa', { side: 'BUY', price: 4000 as Pips, size: 10_000_000 as Micro, matchTime: 1, fee: 10 as Micro }),
    );
    store.recordFill(fill('2', '0xa', { side: 'BUY', price: 5000 as Pips, size: 30_000_000 as Micro, matchTime: 2 }));
    // avg = (10×0.40 + 30×0.50) / 40 = 0.475
    let [p] = store.positions();
    expect(p).toMatchObject({
      size: 40_000_000,
      avgPrice: 4750,
      cost: 19_000_000,
      realized: 0,
      fees: 10,
      bought: 40_000_000,
      sold: 0,
    });
    store.recordFill(
      fill('3', '0xb', { side: 'SELL', price: 6000 as Pips, size: 20_000_000 as Micro, matchTime: 3, fee: 5 as Micro }),
    );
    [p] = store.positions();
    // realized = 20 × (0.60 − 0.475) = 2.5
    expect(p).toMatchObject({
      size: 20_000_000,
      avgPrice: 4750,
      cost: 9_500_000,
      realized: 2_500_000,
      fees: 15,
      sold: 20_000_000,
    });
    const r = store.pnl(new Map([[YES, 5500]]));
    // unrealized = 20 × (0.55 − 0.475) = 1.5
    expect(r).toMatchObject({ realized: 2_500_000, unrealized: 1_500_000, fees: 15, total: 3_999_985, unmarked: [] });
  });

  it('a sell larger than the position flips it; the rest opens at the fill price', () => {
    store.recordFill(fill('1', '0xa', { side: 'BUY', price: 3000 as Pips, size: 10_000_000 as Micro, matchTime: 1 }));
    store.recordFill(fill('2', '0xb', { side: 'SELL', price: 3500 as Pips, size: 15_000_000 as Micro, matchTime: 2 }));
    const [p] = store.positions();
    expect(p).toMatchObject({ size: -5_000_000, avgPrice: 3500, realized: 500_000 });
    // short 5 at 0.35, mark 0.30: +0.25
    expect(store.pnl(new Map([[YES, 3000]])).unrealized).toBe(250_000);
  });

  it('positions are per token; unmarked open tokens are reported, not guessed', () => {
    store.recordFill(fill('1', '0xa', { tokenId: YES, matchTime: 1 }));
    store.recordFill(fill('2', '0xb', { tokenId: NO, price: 4000 as Pips, matchTime: 2 }));
    expect(store.positions().map((p) => p.tokenId)).toEqual([YES, NO]);
    const r = store.pnl(new Map([[YES, 5100]]));
    expect(r.unmarked).toEqual([NO]);
    expect(r.unrealized).toBe(100_000);
  });

  it('position math is independent of the order fills ARRIVE in (sorted by match time)', () => {
    const fs = [
      fill('1', '0xa', { side: 'BUY', price: 4000 as Pips, size: 10_000_000 as Micro, matchTime: 1 }),
      fill('2', '0xb', { side: 'SELL', price: 6000 as Pips, size: 5_000_000 as Micro, matchTime: 2 }),
      fill('3', '0xc', { side: 'BUY', price: 2000 as Pips, size: 5_000_000 as Micro, matchTime: 3 }),
    ];
    for (const f of fs) store.recordFill(f);
    const a = store.positions();
    const other = openStore(':memory:', { clock });
    for (const f of [...fs].reverse()) other.recordFill(f);
    expect(other.positions()).toEqual(a);
    other.close();
  });

  it('summary counts orders, fills and volume', () => {
    store.recordOrders([prepared('0x1'), prepared('0x2'), prepared('0x3'), prepared('0x4')]);
    store.updateOrder('0x1' as OrderId, { status: 'live' });
    store.updateOrder('0x2' as OrderId, { status: 'cancelled' });
    store.updateOrder('0x3' as OrderId, { status: 'rejected', rejectCode: 'INVALID_ORDER_MIN_SIZE' });
    store.recordFill(fill('t', '0x1', { price: 2500 as Pips, size: 4_000_000 as Micro, fee: 7 as Micro }));
    expect(store.summary()).toEqual({
      scope: 'epoch',
      epoch: null,
      session: null,
      since: null,
      ordersRecorded: 4,
      ordersPlaced: 2,
      ordersCancelled: 1,
      ordersRejected: 1,
      ordersOpen: 2,
      fills: 1,
      voidFills: 0,
      volume: 4_000_000,
      notional: 1_000_000,
      fees: 7,
      externalFills: 0,
      externalVolume: 0,
      externalNotional: 0,
      externalFees: 0,
      adjustments: 0,
      operations: 0,
      rewardsPaid: 0,
      rewardsEstimated: 0,
    });
  });
});

describe('audit', () => {
  it('appends decisions and refuses updates and deletes', () => {
    store.audit('cycle', { market: M, placed: 2 });
    clock.advance(1);
    store.audit('pause', { reason: 'heartbeat' });
    const log = store.auditLog();
    expect(log.map((a) => [a.kind, a.time])).toEqual([
      ['cycle', 1_000_000],
      ['pause', 1_000_001],
    ]);
    expect(log[1]?.data).toEqual({ reason: 'heartbeat' });
    expect(store.auditLog({ kind: 'pause' })).toHaveLength(1);
    expect(store.auditLog({ sinceSeq: log[0]!.seq })).toHaveLength(1);
    store.close();
    const db = new Database(file);
    expect(() => db.prepare('DELETE FROM audit').run()).toThrow(/append-only/);
    expect(() => db.prepare("UPDATE audit SET kind = 'x'").run()).toThrow(/append-only/);
    db.close();
    store = openStore(file, { clock });
  });

  it('keeps bigints as their digits (and other values as JSON.stringify writes them)', () => {
    store.audit('big', { n: 12345678901234567890n, list: [1n, 'x', null], nested: { ok: true, u: undefined } });
    store.audit('plain', { a: [1, 2], s: 'é"\\' });
    store.audit('none', undefined);
    expect(store.auditLog().map((a) => a.data)).toEqual([
      { n: '12345678901234567890', list: ['1', 'x', null], nested: { ok: true } },
      { a: [1, 2], s: 'é"\\' },
      null,
    ]);
    const circular: Record<string, unknown> = {};
    circular['self'] = circular;
    expect(() => store.audit('circular', circular)).toThrow(TypeError);
  });
});

describe('crash safety', () => {
  it('everything committed is there after reopening, without close()', () => {
    store.recordOrder(prepared('0xa'));
    store.updateOrder('0xa' as OrderId, { status: 'live' });
    store.recordFill(fill('t1', '0xa'));
    store.applyFill(fill('t1', '0xa', { status: 'MINED' }));
    store.audit('cycle', { n: 1 });
    // a second connection (as a restarted process would open it) sees every commit while the
    // first one was never closed nor checkpointed
    const again = openStore(file, { clock });
    expect(again.order('0xa' as OrderId)?.status).toBe('live');
    expect(again.fills()).toHaveLength(1);
    expect(again.fills()[0]?.status).toBe('MINED');
    expect(again.auditLog()).toHaveLength(1);
    expect(again.recordFill(fill('t1', '0xa'))).toBe(false);
    again.close();
  });

  it('a worker thread checkpoints the WAL into the database file (the writer never does)', async () => {
    store.close();
    const { statSync } = await import('node:fs');
    store = openStore(file, { clock, checkpointMs: 50 });
    const before = statSync(file).size;
    store.recordOrders(Array.from({ length: 3000 }, (_, i) => prepared(`0x${i.toString(16).padStart(64, '0')}`)));
    // (waits on what is checked: a checkpoint may land in parts on a loaded machine; bounded at 10 s)
    for (let i = 0; i < 500 && statSync(file).size <= before + 100_000; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(statSync(file).size).toBeGreaterThan(before + 100_000);
    expect(store.openOrders()).toHaveLength(3000);
  });

  it('close is idempotent and later use throws', () => {
    store.close();
    store.close();
    expect(() => store.recordFill(fill('x', '0x1'))).toThrow(/closed/);
    store = openStore(file, { clock });
  });
});

describe("commit: 'batched' (backtests)", () => {
  /** What another connection sees: the committed rows only. */
  const committed = (): { orders: number; fills: number; audit: number } => {
    const db = new Database(file, { readonly: true });
    try {
      const n = (t: string): number => (db.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n;
      return { orders: n('orders'), fills: n('fills'), audit: n('audit') };
    } finally {
      db.close();
    }
  };

  it('writes become visible to others only at flush (or close); reads of the writer see them at once; exactly once still holds', () => {
    store.close();
    rmSync(file);
    store = openStore(file, { clock, commit: 'batched', durability: { fills: 'off', other: 'off' } });
    expect(store.recordOrders([prepared('0xa'), prepared('0xb')])).toBe(2);
    expect(store.updateOrder('0xa' as OrderId, { status: 'live' })).toBe(true);
    expect(store.applyFill(fill('t1', '0xa'))).toBe('new');
    expect(store.applyFill(fill('t1', '0xa'))).toBe('duplicate'); // deduplicated inside the open transaction
    expect(store.applyFill(fill('t1', '0xa', { status: 'CONFIRMED' }))).toBe('status');
    store.audit('cycle', { n: 1 });
    // the writer reads its own writes
    expect(store.order('0xa' as OrderId)?.status).toBe('live');
    expect(store.fills().map((f) => [f.tradeId, f.status])).toEqual([['t1', 'CONFIRMED']]);
    expect(store.positions()[0]?.size).toBe(10_000_000);
    // nothing committed yet
    expect(committed()).toEqual({ orders: 0, fills: 0, audit: 0 });
    store.flush();
    expect(committed()).toEqual({ orders: 2, fills: 1, audit: 1 });
    store.recordOrder(prepared('0xc'));
    expect(committed().orders).toBe(2);
    store.close();
    expect(committed()).toEqual({ orders: 3, fills: 1, audit: 1 });
    store = openStore(file, { clock });
    expect(store.fills().map((f) => f.status)).toEqual(['CONFIRMED']);
  });

  it('a method that fails leaves nothing half-written (each method is still atomic)', () => {
    store.close();
    rmSync(file);
    store = openStore(file, { clock, commit: 'batched' });
    expect(() => store.recordOrders([prepared('0xa'), prepared('0xb', { price: -1 as Pips })])).toThrow(RangeError);
    store.recordOrders([prepared('0xc')]);
    store.flush();
    expect(committed().orders).toBe(1);
    expect(store.order('0xa' as OrderId)).toBeUndefined();
  });

  it('deferred (backtests, scratch too): the same order twice is a no-op; a refused row or an id of a different order throws, the call leaves nothing deferred', () => {
    store.close();
    for (const [i, scratch] of [false, true].entries()) {
      const f = join(dir, `guard-${i}.db`);
      const s = openStore(f, {
        clock,
        commit: 'batched',
        durability: { fills: 'off', other: 'off' },
        ...(scratch ? { scratch: true } : {}),
      });
      const different = new ValidationError(
        'recordOrders: order 0xa not recorded, so not to be sent: a different order is recorded with this id',
        { details: { id: '0xa' } },
      );
      expect(s.recordOrders([prepared('0xa'), prepared('0xb')])).toBe(2);
      // 0xa deferred (not in the table yet): the same order again, then another under its id
      expect(s.recordOrders([prepared('0xa'), prepared('0xc')])).toBe(1);
      expect(() => s.recordOrders([prepared('0xd'), prepared('0xa', { price: 5100 as Pips })])).toThrow(different);
      expect(() => s.recordOrders([prepared('0xe'), prepared('0xe', { size: 1 as Micro })])).toThrow(ValidationError);
      expect(pendingOrderWrites(s)).toBe(3);
      s.updateOrder('0xa' as OrderId, { status: 'live' }); // a deferred update of a deferred insert
      s.flush();
      // 0xa in the table now
      expect(s.recordOrder(prepared('0xa'))).toBe(false);
      expect(() => s.recordOrders([prepared('0xd'), prepared('0xa', { type: 'FOK' })])).toThrow(different);
      s.updateOrder('0xa' as OrderId, { status: 'partially_filled' }); // deferred, an UPDATE of the row
      expect(() => s.recordOrders([prepared('0xd'), prepared('0xa', { side: 'SELL' })])).toThrow(different);
      expect(s.recordOrders([prepared('0xa', { type: undefined })])).toBe(0);
      // a row the table refuses: the statements' error, the batch not recorded
      expect(() => s.recordOrders([prepared('0xd'), prepared('0xf', { side: 'HOLD' as Side })])).toThrow(
        /^recordOrders: order 0xf not recorded, so not to be sent: CHECK constraint failed: side/,
      );
      expect([s.order('0xd' as OrderId), s.order('0xe' as OrderId), s.order('0xf' as OrderId)]).toEqual([
        undefined,
        undefined,
        undefined,
      ]);
      expect(s.openOrders().map((o) => [o.id, o.status, o.price])).toEqual([
        ['0xa', 'partially_filled', 5000],
        ['0xb', 'pending', 5000],
        ['0xc', 'pending', 5000],
      ]);
      s.close();
    }
  });

  it('a scratch store (journal in memory, exclusive lock) leaves the same rows and answers as a batched WAL store', () => {
    store.close();
    const files = [join(dir, 'wal.db'), join(dir, 'scratch.db')];
    const stores = files.map((f, i) =>
      openStore(f, {
        clock,
        commit: 'batched',
        durability: { fills: 'off', other: 'off' },
        checkpoint: 'auto',
        ...(i === 1 ? { scratch: true } : {}),
      }),
    );
    const answers = stores.map((s) => {
      const out: unknown[] = [];
      out.push(s.recordOrders([prepared('0xa'), prepared('0xb')]));
      out.push(s.updateOrder('0xa' as OrderId, { status: 'live' }));
      out.push(s.applyFill(fill('t1', '0xa')), s.applyFill(fill('t1', '0xa')));
      s.audit('cycle', { n: 1 });
      s.flush();
      expect(() => s.recordOrders([prepared('0xc'), prepared('0xd', { price: -1 as Pips })])).toThrow(RangeError);
      out.push(s.updateOrder('0xb' as OrderId, { status: 'cancelled' }), s.summary(), s.openOrders());
      s.close();
      return out;
    });
    expect(answers[1]).toEqual(answers[0]);
    const rows = (f: string) => {
      const db = new Database(f, { readonly: true });
      try {
        return ['orders', 'fills', 'audit'].map((t) => db.prepare(`SELECT rowid, * FROM ${t} ORDER BY rowid`).all());
      } finally {
        db.close();
      }
    };
    expect(rows(files[1]!)).toEqual(rows(files[0]!));
    // the orders' indexes, set aside while it ran (src/store/scratch-indexes.ts), are there again
    const schema = (f: string) => {
      const db = new Database(f, { readonly: true });
      try {
        return db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name').all();
      } finally {
        db.close();
      }
    };
    expect(schema(files[1]!)).toEqual(schema(files[0]!));
    expect(() => openStore(join(dir, 'x.db'), { scratch: true })).toThrow(/scratch/);
    expect(() =>
      openStore(join(dir, 'x.db'), { scratch: true, commit: 'batched', durability: { fills: 'full', other: 'off' } }),
    ).toThrow(/scratch/);
    store = openStore(file, { clock });
  });

  it("the default ('each') commits every method at once, and flush is a no-op", () => {
    store.recordOrders([prepared('0xa')]);
    expect(committed().orders).toBe(1);
    store.flush();
    expect(committed().orders).toBe(1);
  });
});
