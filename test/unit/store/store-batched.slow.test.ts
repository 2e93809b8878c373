/**
 * The 'batched' store's deferred order writes (src/store/store.ts, StoreOptions.commit): the same
 * return values, errors and final rows as the 'each' store, with one row write per order per flush
 * interval and a bounded number of deferred orders; its audit entries are deferred too
 * (src/store/deferred-audit.ts), and a scratch store (StoreOptions.scratch) skips the look-up of
 * order ids it never wrote and defers its new fills (src/store/deferred-fills.ts: written before
 * any read of the fills table, the ledger's included): the same again, audit and fill rows
 * included (sources and epochs too).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.ts';
import type { ConditionId, OrderId, TokenId } from '../../../src/core/ids.ts';
import type { Micro, Pips } from '../../../src/core/units.ts';
import type { PreparedOrder } from '../../../src/core/venue.ts';
import {
  BATCHED_PENDING_ORDERS,
  openStore,
  pendingOrderWrites,
  type AdoptedOrder,
  type FillRecord,
  type OrderPatch,
  type Store,
  type StoredOrderStatus,
} from '../../../src/store/store.ts';

const MARKETS = ['0xm1', '0xm2'] as const;
const IDS = ['0xa', '0xb', '0xc', '0xd', '0xe', '0xf', '0x10', '0x11'] as const;
const STATUSES: readonly StoredOrderStatus[] = [
  'pending',
  'live',
  'partially_filled',
  'filled',
  'cancelled',
  'rejected',
  'unknown',
];

function prepared(id: string, over: Partial<PreparedOrder['request']> = {}): PreparedOrder {
  return {
    id: id as OrderId,
    request: {
      market: MARKETS[0] as ConditionId,
      tokenId: '111' as TokenId,
      side: 'BUY',
      price: 5000 as Pips,
      size: 10_000_000 as Micro,
      type: 'GTC',
      ...over,
    },
    wire: {},
  };
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mmkit-store-batched-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Every row of a table of a closed store's file, all columns and the rowid, in rowid order. */
function rowsOf(file: string, table: 'orders' | 'fills' | 'audit'): unknown[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(`SELECT rowid AS _rowid, * FROM ${table} ORDER BY rowid`).all();
  } finally {
    db.close();
  }
}

// ---- the model: random call sequences against an 'each' and a 'batched' store ------------------

const idArb = fc.constantFrom(...IDS);
const marketArb = fc.constantFrom(...MARKETS);
/** Mostly valid values, now and then one the schema or checkInt refuses (both stores must agree). */
const statusArb = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(...STATUSES) },
  { weight: 1, arbitrary: fc.constant('bogus' as StoredOrderStatus) },
);
const sideArb = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom('BUY' as const, 'SELL' as const) },
  { weight: 1, arbitrary: fc.constant('HOLD' as 'BUY') },
);
const intArb = (max: number): fc.Arbitrary<number> =>
  fc.oneof({ weight: 15, arbitrary: fc.integer({ min: 0, max }) }, { weight: 1, arbitrary: fc.constantFrom(-1, 1.5) });
const patchArb: fc.Arbitrary<OrderPatch> = fc.record(
  {
    status: fc.option(statusArb, { nil: undefined }),
    sizeMatched: fc.option(intArb(10_000_000), { nil: undefined }),
    rejectCode: fc.constantFrom(undefined, null, 'E1', 'NEVER_ARRIVED'),
  },
  { requiredKeys: [] },
);
const adoptArb = (id: fc.Arbitrary<string>): fc.Arbitrary<AdoptedOrder> =>
  fc.record(
    {
      id: id as fc.Arbitrary<OrderId>,
      market: marketArb as fc.Arbitrary<ConditionId>,
      tokenId: fc.constantFrom('111', '222') as fc.Arbitrary<TokenId>,
      side: sideArb,
      price: intArb(10_000) as fc.Arbitrary<Pips>,
      originalSize: intArb(10_000_000) as fc.Arbitrary<Micro>,
      sizeMatched: intArb(10_000_000) as fc.Arbitrary<Micro>,
      status: statusArb,
      type: fc.constantFrom('GTC', 'FOK'),
    },
    { requiredKeys: ['id', 'market', 'tokenId', 'side', 'price', 'originalSize', 'sizeMatched', 'status'] },
  );
const preparedArb: fc.Arbitrary<PreparedOrder> = fc
  .record({
    id: idArb,
    market: marketArb,
    side: sideArb,
    price: intArb(10_000),
    size: intArb(10_000_000),
    type: fc.constantFrom('GTC', 'GTD'),
  })
  .map((r) =>
    prepared(r.id, {
      market: r.market as ConditionId,
      side: r.side,
      price: r.price as Pips,
      size: r.size as Micro,
      type: r.type,
    }),
  );

type Cmd =
  | { k: 'record'; orders: PreparedOrder[] }
  | { k: 'adopt'; o: AdoptedOrder }
  | { k: 'update'; id: OrderId; patch: OrderPatch }
  | { k: 'updates'; us: { id: OrderId; patch: OrderPatch; adopt?: AdoptedOrder }[] }
  | { k: 'order'; id: OrderId }
  | { k: 'open'; market: ConditionId | undefined }
  | { k: 'summary' }
  | { k: 'flush' }
  | {
      k: 'fill';
      trade: string;
      id: OrderId;
      status: FillRecord['status'];
      side: FillRecord['side'];
      size: number;
      source?: FillRecord['source'];
    }
  | { k: 'fills' }
  | { k: 'fillReads' }
  | { k: 'ledger' }
  | { k: 'epoch'; venue: string }
  | { k: 'audit'; kind: string; data: unknown }
  | { k: 'auditLog' };

/** An item of updateOrders: a bare update, one with the adoption of its own id (the executor's shape), or of another id. */
const updateArb: fc.Arbitrary<{ id: OrderId; patch: OrderPatch; adopt?: AdoptedOrder }> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ id: idArb as fc.Arbitrary<OrderId>, patch: patchArb }) },
  {
    weight: 3,
    arbitrary: idArb.chain((id) =>
      fc.record({ patch: patchArb, adopt: adoptArb(fc.constant(id)) }).map((r) => ({ id: id as OrderId, ...r })),
    ),
  },
  { weight: 1, arbitrary: fc.record({ id: idArb as fc.Arbitrary<OrderId>, patch: patchArb, adopt: adoptArb(idArb) }) },
);

const cmdArb: fc.Arbitrary<Cmd> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.array(preparedArb, { minLength: 1, maxLength: 4 }).map((orders): Cmd => ({ k: 'record', orders })),
  },
  { weight: 2, arbitrary: adoptArb(idArb).map((o): Cmd => ({ k: 'adopt', o })) },
  {
    weight: 6,
    arbitrary: fc
      .record({ id: idArb, patch: patchArb })
      .map(({ id, patch }): Cmd => ({ k: 'update', id: id as OrderId, patch })),
  },
  { weight: 6, arbitrary: fc.array(updateArb, { maxLength: 4 }).map((us): Cmd => ({ k: 'updates', us })) },
  { weight: 1, arbitrary: idArb.map((id): Cmd => ({ k: 'order', id: id as OrderId })) },
  {
    weight: 1,
    arbitrary: fc
      .option(marketArb, { nil: undefined })
      .map((m): Cmd => ({ k: 'open', market: m as ConditionId | undefined })),
  },
  { weight: 1, arbitrary: fc.constant<Cmd>({ k: 'summary' }) },
  { weight: 1, arbitrary: fc.constant<Cmd>({ k: 'flush' }) },
  {
    weight: 3,
    arbitrary: fc
      .record({
        // now and then a trade id the deferred fills cannot key (a line feed, a lone surrogate)
        trade: fc.constantFrom('t1', 't2', 't3', 't\n4', 't\uD8005'),
        id: idArb,
        status: fc.oneof(
          {
            weight: 12,
            arbitrary: fc.constantFrom<FillRecord['status']>('MATCHED', 'MINED', 'CONFIRMED', 'RETRYING', 'FAILED'),
          },
          { weight: 1, arbitrary: fc.constant('BOGUS' as FillRecord['status']) },
        ),
        side: sideArb,
        size: intArb(10_000_000),
      })
      .map(
        (f): Cmd => ({ k: 'fill', trade: f.trade, id: f.id as OrderId, status: f.status, side: f.side, size: f.size }),
      ),
  },
  { weight: 1, arbitrary: fc.constant<Cmd>({ k: 'fills' }) },
  { weight: 1, arbitrary: fc.constant<Cmd>({ k: 'fillReads' }) },
  { weight: 1, arbitrary: fc.constant<Cmd>({ k: 'ledger' }) },
  {
    weight: 3,
    arbitrary: fc
      .record({ kind: fc.constantFrom('cycle', 'rejected'), data: fc.jsonValue({ maxDepth: 2 }) })
      .map((a): Cmd => ({ k: 'audit', kind: a.kind, data: a.data })),
  },
  { weight: 1, arbitrary: fc.constant<Cmd>({ k: 'auditLog' }) },
);

/** Run one call; its result or its error (class and message), to compare between the stores. */
function run(s: Store, c: Cmd): { ok: unknown } | { err: string } {
  try {
    switch (c.k) {
      case 'record':
        return { ok: c.orders.length === 1 ? s.recordOrder(c.orders[0]!) : s.recordOrders(c.orders) };
      case 'adopt':
        return { ok: s.adoptOrder(c.o) };
      case 'update':
        return { ok: s.updateOrder(c.id, c.patch) };
      case 'updates':
        return { ok: s.updateOrders(c.us) };
      case 'order':
        return { ok: s.order(c.id) };
      case 'open':
        return { ok: s.openOrders(c.market) };
      case 'summary':
        return { ok: s.summary() };
      case 'flush':
        return { ok: s.flush() };
      case 'fill':
        return {
          ok: s.applyFill({
            tradeId: c.trade,
            orderId: c.id,
            market: MARKETS[0] as ConditionId,
            tokenId: '111' as TokenId,
            side: c.side,
            price: 4000 as Pips,
            size: c.size as Micro,
            fee: 0 as Micro,
            role: 'MAKER',
            status: c.status,
            matchTime: 1000,
            ...(c.source !== undefined ? { source: c.source } : {}),
          }),
        };
      case 'fills':
        return { ok: s.fills() };
      case 'fillReads':
        return {
          ok: [
            s.lastFillTime(),
            s.oldestUnsettledFillTime(0),
            s.positions(),
            s.pnl(new Map([['111' as TokenId, 4500]])),
          ],
        };
      case 'ledger':
        return { ok: s.ledgerEntries() };
      case 'epoch':
        return { ok: s.openEpoch({ venue: c.venue, world: null, address: '0x1' }) };
      case 'audit':
        return { ok: s.audit(c.kind, c.data) };
      case 'auditLog':
        return { ok: s.auditLog() };
    }
  } catch (e) {
    return { err: `${(e as Error).constructor.name}: ${(e as Error).message}` };
  }
}

describe("'batched' store: deferred order writes", () => {
  it("a random call sequence returns, throws and leaves every row (all columns, rowids) as the 'each' store does", () => {
    let runNo = 0;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), cmdArb), { maxLength: 40 }),
        fc.constantFrom(1, 3, BATCHED_PENDING_ORDERS),
        (cmds, bound) => {
          const n = runNo++;
          const eachFile = join(dir, `each-${n}.db`);
          const batchedFile = join(dir, `batched-${n}.db`);
          const scratchFile = join(dir, `scratch-${n}.db`);
          // one clock for both, advanced between calls (0 too: equal timestamps happen)
          const clock = new VirtualClock(1_000_000);
          const each = openStore(eachFile, { clock, checkpoint: 'auto', durability: { fills: 'off', other: 'off' } });
          const batched = openStore(batchedFile, {
            clock,
            checkpoint: 'auto',
            durability: { fills: 'off', other: 'off' },
            commit: 'batched',
            pendingOrders: bound,
          });
          const scratch = openStore(scratchFile, {
            clock,
            checkpoint: 'auto',
            durability: { fills: 'off', other: 'off' },
            commit: 'batched',
            scratch: true,
            pendingOrders: bound,
          });
          try {
            for (const [dt, c] of cmds) {
              clock.advance(dt);
              const want = run(each, c);
              expect(run(batched, c), JSON.stringify(c)).toEqual(want);
              expect(run(scratch, c), JSON.stringify(c)).toEqual(want);
              expect(pendingOrderWrites(batched)).toBeLessThan(bound);
              expect(pendingOrderWrites(scratch)).toBeLessThan(bound);
              expect(pendingOrderWrites(each)).toBe(0);
            }
          } finally {
            each.close();
            batched.close();
            scratch.close();
          }
          for (const table of ['orders', 'fills', 'audit'] as const) {
            expect(rowsOf(batchedFile, table), table).toEqual(rowsOf(eachFile, table));
            expect(rowsOf(scratchFile, table), table).toEqual(rowsOf(eachFile, table));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("a scratch store: a call sequence dense in fills and audit entries returns, throws and leaves every row as the 'each' store does", () => {
    const fillArb = fc
      .record({
        trade: fc.constantFrom('t1', 't2', 't\n3'),
        id: fc.constantFrom('0xa', '0xb'),
        status: fc.constantFrom<FillRecord['status']>('MATCHED', 'MINED', 'CONFIRMED', 'RETRYING', 'FAILED'),
        side: sideArb,
        size: intArb(10_000_000),
        source: fc.constantFrom<FillRecord['source']>(undefined, 'bot', 'external', 'bogus' as 'bot'),
      })
      .map(
        (f): Cmd => ({
          k: 'fill',
          trade: f.trade,
          id: f.id as OrderId,
          status: f.status,
          side: f.side,
          size: f.size,
          source: f.source,
        }),
      );
    const denseArb: fc.Arbitrary<Cmd> = fc.oneof(
      { weight: 8, arbitrary: fillArb },
      { weight: 3, arbitrary: fc.constant<Cmd>({ k: 'audit', kind: 'cycle', data: { n: 1 } }) },
      { weight: 1, arbitrary: fc.constant<Cmd>({ k: 'fills' }) },
      { weight: 1, arbitrary: fc.constant<Cmd>({ k: 'fillReads' }) },
      { weight: 1, arbitrary: fc.constant<Cmd>({ k: 'ledger' }) },
      { weight: 1, arbitrary: fc.constantFrom('sim', 'paper').map((venue): Cmd => ({ k: 'epoch', venue })) },
      { weight: 1, arbitrary: fc.constant<Cmd>({ k: 'flush' }) },
      { weight: 1, arbitrary: fc.constant<Cmd>({ k: 'summary' }) },
      { weight: 1, arbitrary: fc.constant<Cmd>({ k: 'auditLog' }) },
    );
    let runNo = 0;
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), denseArb), { maxLength: 40 }), (cmds) => {
        const n = runNo++;
        const eachFile = join(dir, `dense-each-${n}.db`);
        const scratchFile = join(dir, `dense-scratch-${n}.db`);
        const clock = new VirtualClock(1_000_000);
        const durability = { fills: 'off', other: 'off' } as const;
        const each = openStore(eachFile, { clock, checkpoint: 'auto', durability });
        const scratch = openStore(scratchFile, {
          clock,
          checkpoint: 'auto',
          durability,
          commit: 'batched',
          scratch: true,
        });
        try {
          for (const [dt, c] of cmds) {
            clock.advance(dt);
            expect(run(scratch, c), JSON.stringify(c)).toEqual(run(each, c));
          }
        } finally {
          each.close();
          scratch.close();
        }
        for (const table of ['fills', 'audit'] as const)
          expect(rowsOf(scratchFile, table), table).toEqual(rowsOf(eachFile, table));
      }),
      { numRuns: 500 },
    );
  });

  it('merges all changes of an order in one window into one row write: final state, created_at of the record, updated_at of the last change', () => {
    const file = join(dir, 'b.db');
    const clock = new VirtualClock(1_000_000);
    const s = openStore(file, { clock, checkpoint: 'auto', commit: 'batched' });
    s.recordOrders([prepared('0xa'), prepared('0xb')]);
    clock.advance(5);
    expect(s.updateOrders([{ id: '0xa' as OrderId, patch: { status: 'live', rejectCode: 'X' } }])).toBe(1);
    clock.advance(5);
    expect(s.updateOrder('0xa' as OrderId, { status: 'partially_filled', sizeMatched: 3_000_000 })).toBe(true);
    clock.advance(5);
    // an equal-valued update still counts (SQLite counts a matched row); size_matched never decreases
    expect(
      s.updateOrders([
        { id: '0xa' as OrderId, patch: { sizeMatched: 1_000_000 } },
        { id: '0xzz' as OrderId, patch: { status: 'live' } },
      ]),
    ).toBe(1);
    clock.advance(5);
    expect(s.updateOrder('0xa' as OrderId, { status: 'cancelled', rejectCode: null })).toBe(true);
    expect(pendingOrderWrites(s)).toBe(2);
    s.close();
    const rows = rowsOf(file, 'orders') as {
      id: string;
      status: string;
      size_matched: number;
      created_at: number;
      updated_at: number;
      reject_code: string | null;
    }[];
    expect(rows.map((r) => [r.id, r.status, r.size_matched, r.created_at, r.updated_at, r.reject_code])).toEqual([
      ['0xa', 'cancelled', 3_000_000, 1_000_000, 1_000_020, null],
      ['0xb', 'pending', 0, 1_000_000, 1_000_000, null],
    ]);
  });

  it('keeps rowid order of first recording across flushes: an order recorded earlier sorts first among equal created_at', () => {
    const clock = new VirtualClock(1_000_000);
    const s = openStore(':memory:', { clock, commit: 'batched' });
    s.recordOrder(prepared('0xz'));
    s.flush();
    s.recordOrder(prepared('0xy')); // same created_at as 0xz, recorded later
    s.updateOrder('0xz' as OrderId, { status: 'live' }); // 0xz's deferred UPDATE comes after 0xy's INSERT in the map
    s.recordOrder(prepared('0xx'));
    expect(s.openOrders().map((o) => o.id)).toEqual(['0xz', '0xy', '0xx']);
    s.close();
  });

  it('a call that throws changes nothing (checkInt still throws at call time)', () => {
    const clock = new VirtualClock(1_000_000);
    const s = openStore(':memory:', { clock, commit: 'batched' });
    s.recordOrder(prepared('0xa'));
    expect(() => s.recordOrders([prepared('0xb'), prepared('0xc', { size: -1 as Micro })])).toThrow(RangeError);
    expect(() =>
      s.updateOrders([
        { id: '0xa' as OrderId, patch: { status: 'live' } },
        { id: '0xa' as OrderId, patch: { sizeMatched: 0.5 } },
      ]),
    ).toThrow(RangeError);
    expect(() =>
      s.adoptOrder({
        id: '0xd' as OrderId,
        market: MARKETS[0] as ConditionId,
        tokenId: '1' as TokenId,
        side: 'BUY',
        price: 1 as Pips,
        originalSize: 1 as Micro,
        sizeMatched: -1 as Micro,
        status: 'live',
      }),
    ).toThrow(RangeError);
    expect(pendingOrderWrites(s)).toBe(1);
    expect(s.summary().ordersRecorded).toBe(1);
    expect(s.order('0xa' as OrderId)?.status).toBe('pending');
    s.close();
  });

  it(`bounds the deferred orders: 10,000 orders without a flush are written ${BATCHED_PENDING_ORDERS} at a time, all present and in order`, () => {
    const file = join(dir, 'big.db');
    const clock = new VirtualClock(1_000_000);
    const s = openStore(file, {
      clock,
      checkpoint: 'auto',
      durability: { fills: 'off', other: 'off' },
      commit: 'batched',
    });
    const ids = Array.from({ length: 10_000 }, (_, i) => `0x${i.toString(16).padStart(8, '0')}`);
    let writes = 0;
    let before = 0;
    const observe = (): void => {
      const now = pendingOrderWrites(s);
      expect(now).toBeLessThan(BATCHED_PENDING_ORDERS);
      if (now < before) writes++;
      before = now;
    };
    for (const id of ids) {
      clock.advance(1);
      expect(s.recordOrder(prepared(id))).toBe(true);
      observe();
      expect(s.updateOrder(id as OrderId, { status: 'live' })).toBe(true);
      observe();
    }
    expect(writes).toBeGreaterThanOrEqual(4);
    expect(pendingOrderWrites(s)).toBeGreaterThan(0);
    // an order written at the bound is known to the table: a later update finds it, a re-record is not new
    expect(s.updateOrder(ids[0] as OrderId, { status: 'cancelled' })).toBe(true);
    expect(s.recordOrder(prepared(ids[1]!))).toBe(false);
    const open = s.openOrders();
    expect(pendingOrderWrites(s)).toBe(0);
    expect(open.map((o) => o.id)).toEqual(ids.slice(1));
    s.close();
    expect((rowsOf(file, 'orders') as { id: string }[]).map((r) => r.id)).toEqual(ids);
  });
});
