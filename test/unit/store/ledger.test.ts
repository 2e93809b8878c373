/**
 * The store as a ledger (migration 3): epochs, adjustments, operations, external fills, sessions
 * and the scoped summary, on real SQLite files.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.ts';
import { ValidationError } from '../../../src/core/errors.ts';
import type { ConditionId, OrderId, TokenId } from '../../../src/core/ids.ts';
import type { Micro, Pips } from '../../../src/core/units.ts';
import type { PreparedOrder } from '../../../src/core/venue.ts';
import { MIGRATIONS, migrate } from '../../../src/store/migrations.ts';
import {
  openStore,
  type AdjustmentInput,
  type FillRecord,
  type LedgerOperation,
  type Store,
} from '../../../src/store/store.ts';

const M = '0xmarket' as ConditionId;
const YES = '111' as TokenId;
const NO = '222' as TokenId;
const ADDR = '0xAbCdEf0000000000000000000000000000000001';
const PAPER = { venue: 'paper', world: 'w-1', address: ADDR };

function fill(tradeId: string, over: Partial<FillRecord> = {}): FillRecord {
  return {
    tradeId,
    orderId: `0xo${tradeId}` as OrderId,
    market: M,
    tokenId: YES,
    side: 'BUY',
    price: 5000 as Pips,
    size: 10_000_000 as Micro,
    fee: 0 as Micro,
    role: 'MAKER',
    status: 'MATCHED',
    matchTime: 1_000_000,
    ...over,
  };
}
function prepared(id: string): PreparedOrder {
  return {
    id: id as OrderId,
    request: {
      market: M,
      tokenId: YES,
      side: 'BUY',
      price: 5000 as Pips,
      size: 10_000_000 as Micro,
      type: 'GTC',
    },
    wire: {},
  };
}
const adj = (over: Partial<AdjustmentInput> = {}): AdjustmentInput => ({
  market: M,
  tokenId: YES,
  size: 10_000_000,
  price: 4000,
  priceSource: 'venue',
  cause: 'external_trade',
  ...over,
});
/** A split (or merge, negative) of `amount` micro at YES price p pips, NO at 10,000 − p. */
const splitOp = (kind: 'split' | 'merge', amount: number, p: number): LedgerOperation => ({
  kind,
  market: M,
  amount,
  collateral: kind === 'split' ? -amount : amount,
  legs: [
    { tokenId: YES, size: kind === 'split' ? amount : -amount, price: p },
    { tokenId: NO, size: kind === 'split' ? amount : -amount, price: 10_000 - p },
  ],
});
const marks = (yes: number, no: number) =>
  new Map<TokenId, number>([
    [YES, yes],
    [NO, no],
  ]);
const sizes = (s: Store) => Object.fromEntries(s.positions().map((p) => [p.tokenId, p.size]));

let dir: string;
let file: string;
let clock: VirtualClock;
let store: Store;
const open = () => openStore(file, { clock, checkpoint: 'auto' });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mmkit-ledger-'));
  file = join(dir, 'mmkit.db');
  clock = new VirtualClock(1_000_000);
  store = open();
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('migration 3', () => {
  it('upgrades a version-2 file: its rows go to a legacy epoch 1 and keep their positions', () => {
    store.close();
    rmSync(file);
    const db = new Database(file);
    expect(migrate(db, file, 2)).toBe(2);
    db.prepare(
      `INSERT INTO orders (id, market, token, side, price, size, type, status, size_matched, created_at, updated_at) VALUES ('0xold', ?, ?, 'BUY', 4000, 10000000, 'GTC', 'filled', 10000000, 500, 600)`,
    ).run(M, YES);
    const ins = db.prepare(
      `INSERT INTO fills (trade_id, order_id, market, token, side, price, size, fee, role, status, match_time, recorded_at, updated_at)
       VALUES (?, '0xold', ?, ?, ?, ?, 10000000, 0, 'MAKER', 'CONFIRMED', ?, ?, ?)`,
    );
    ins.run('t1', M, YES, 'BUY', 4000, 700, 701, 701);
    ins.run('t2', M, YES, 'SELL', 5000, 800, 801, 801);
    ins.run('t3', M, NO, 'BUY', 3000, 900, 901, 901);
    db.close();

    store = open();
    expect(store.currentEpoch()).toEqual({ id: 1, venue: 'unknown', world: null, address: '', startedAt: 500 });
    expect(store.fills().map((f) => [f.tradeId, f.source, f.epoch])).toEqual([
      ['t1', 'bot', 1],
      ['t2', 'bot', 1],
      ['t3', 'bot', 1],
    ]);
    // positions and PnL as before the upgrade
    expect(sizes(store)).toEqual({ [YES]: 0, [NO]: 10_000_000 });
    expect(store.pnl(marks(5000, 3000)).realized).toBe(1_000_000);
    expect(store.summary()).toMatchObject({ scope: 'epoch', epoch: 1, since: 500, ordersRecorded: 1, fills: 3 });

    // a venue starts a new epoch: positions and PnL from zero, the legacy rows stay
    const o = store.openEpoch(PAPER);
    expect(o).toMatchObject({ fresh: true, epoch: { id: 2, venue: 'paper' }, previous: { id: 1 } });
    expect(store.positions()).toEqual([]);
    expect(store.pnl(marks(5000, 3000))).toMatchObject({ realized: 0, unrealized: 0, total: 0 });
    expect(store.fills()).toHaveLength(3);
    expect(store.summary()).toMatchObject({ epoch: 2, fills: 0, ordersRecorded: 0 });
  });

  it('a version-2 file without rows gets no legacy epoch (a store with no epoch)', () => {
    store.close();
    rmSync(file);
    const db = new Database(file);
    migrate(db, file, 2);
    db.close();
    store = open();
    expect(store.currentEpoch()).toBeUndefined();
    expect(store.epochs()).toEqual([]);
  });

  it('creates STRICT tables whose CHECKs refuse what the ledger never writes', () => {
    store.close();
    const db = new Database(file);
    const sql = (t: string) =>
      (db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").get(t) as { sql: string }).sql;
    for (const t of ['epochs', 'adjustments', 'operations', 'sessions']) expect(sql(t)).toMatch(/STRICT$/);
    db.prepare("INSERT INTO epochs (venue, world, address, started_at) VALUES ('paper', NULL, '', 1)").run();
    const bad = [
      "INSERT INTO adjustments (epoch, at, market, token, size, price, price_source, cause) VALUES (1, 1, 'm', 't', 1.5, 100, 'venue', 'reward')",
      "INSERT INTO adjustments (epoch, at, market, token, size, price, price_source, cause) VALUES (1, 1, 'm', 't', 0, 100, 'venue', 'reward')",
      "INSERT INTO adjustments (epoch, at, market, token, size, price, price_source, cause) VALUES (1, 1, 'm', 't', 5, 100, 'guess', 'reward')",
      "INSERT INTO adjustments (epoch, at, market, token, size, price, price_source, cause) VALUES (1, 1, 'm', 't', 5, 100, 'venue', 'gift')",
      "INSERT INTO adjustments (epoch, at, market, token, size, price, price_source, cause) VALUES (9, 1, 'm', 't', 5, 100, 'venue', 'reward')",
      "INSERT INTO operations (epoch, at, kind, market, amount, collateral, legs) VALUES (1, 1, 'burn', 'm', 1, 1, '[]')",
      "INSERT INTO operations (epoch, at, kind, market, amount, collateral, legs) VALUES (1, 1, 'split', 'm', 1, 1, 'nope')",
      "INSERT INTO fills (trade_id, order_id, market, token, side, price, size, fee, role, status, match_time, recorded_at, updated_at, source) VALUES ('x', 'y', 'm', 't', 'BUY', 1, 1, 0, 'MAKER', 'MATCHED', 1, 1, 1, 'alien')",
    ];
    for (const q of bad) expect(() => db.prepare(q).run(), q).toThrow();
    db.close();
    store = open();
  });

  it("reads the current epoch's fills through the partial index fills_epoch", () => {
    store.close();
    const db = new Database(file, { readonly: true });
    const plan = db
      .prepare(
        `EXPLAIN QUERY PLAN SELECT rowid FROM fills WHERE epoch = ? AND status != 'FAILED' ORDER BY match_time, rowid`,
      )
      .all(1) as { detail: string }[];
    db.close();
    const d = plan.map((p) => p.detail).join('\n');
    expect(d).toMatch(/USING INDEX fills_epoch/);
    expect(d).not.toMatch(/TEMP B-TREE/);
    store = open();
  });
});

describe('epochs', () => {
  it('continues the same venue + world + address (address in any case), starts a new one on a change', () => {
    expect(store.currentEpoch()).toBeUndefined();
    const a = store.openEpoch(PAPER);
    expect(a).toEqual({
      fresh: true,
      epoch: { id: 1, venue: 'paper', world: 'w-1', address: ADDR.toLowerCase(), startedAt: 1_000_000 },
    });
    clock.advance(10);
    expect(store.openEpoch({ ...PAPER, address: ADDR.toLowerCase() })).toEqual({ fresh: false, epoch: a.epoch });
    const b = store.openEpoch({ ...PAPER, world: 'w-2' });
    expect(b).toMatchObject({ fresh: true, epoch: { id: 2, world: 'w-2', startedAt: 1_000_010 }, previous: a.epoch });
    expect(store.openEpoch({ ...PAPER, world: 'w-2', address: '0x2' })).toMatchObject({
      fresh: true,
      epoch: { id: 3 },
    });
    expect(store.openEpoch({ venue: 'polymarket', world: null, address: '0x2' })).toMatchObject({
      fresh: true,
      epoch: { id: 4, world: null },
    });
    expect(store.openEpoch({ venue: 'polymarket', world: null, address: '0x2' }).fresh).toBe(false);
    expect(store.epochs().map((e) => e.id)).toEqual([1, 2, 3, 4]);
  });

  it('a paper world is named by its world id, a real venue by its chain, whatever URL reaches them (trial 15 F4)', () => {
    const w = store.openEpoch({ venue: 'http://127.0.0.1:18515/clob#137', world: 'w-9', address: ADDR });
    // the same world through a proxy, or in-process: the same epoch
    expect(store.openEpoch({ venue: 'http://127.0.0.1:18517/clob#137', world: 'w-9', address: ADDR }).fresh).toBe(
      false,
    );
    expect(store.openEpoch({ venue: 'inprocess:http://127.0.0.1:1/clob#137', world: 'w-9', address: ADDR }).fresh).toBe(
      false,
    );
    expect(store.currentEpoch()?.id).toBe(w.epoch.id);
    // named by the URL in use now (the commands that ask the store epoch's venue reach it there)
    expect(store.currentEpoch()?.venue).toBe('inprocess:http://127.0.0.1:1/clob#137');
    expect(store.epochs().find((e) => e.id === w.epoch.id)?.venue).toBe('inprocess:http://127.0.0.1:1/clob#137');
    // a real venue (no world): its chain, not its URL (a tunnel); another chain or account is another epoch
    const live = store.openEpoch({ venue: 'https://clob.example.com#137', world: null, address: ADDR });
    expect(live.fresh).toBe(true);
    expect(store.openEpoch({ venue: 'http://127.0.0.1:9443/tunnel#137', world: null, address: ADDR }).fresh).toBe(
      false,
    );
    expect(store.openEpoch({ venue: 'http://127.0.0.1:9443/tunnel#80002', world: null, address: ADDR }).fresh).toBe(
      true,
    );
    // an identity without a chain is compared whole
    expect(store.openEpoch({ venue: 'venue-a', world: null, address: ADDR }).fresh).toBe(true);
    expect(store.openEpoch({ venue: 'venue-a', world: null, address: ADDR }).fresh).toBe(false);
    expect(store.openEpoch({ venue: 'venue-b', world: null, address: ADDR }).fresh).toBe(true);
  });

  it('positions and PnL start at zero in a new epoch; the old epoch keeps its rows; reopening reads the latest', () => {
    store.openEpoch(PAPER);
    store.recordFill(fill('1', { price: 4000 as Pips }));
    store.recordFill(fill('2', { side: 'SELL', price: 6000 as Pips, size: 4_000_000 as Micro, matchTime: 1_000_001 }));
    store.recordAdjustment(adj({ tokenId: NO, size: 3_000_000, price: 2000 }));
    expect(sizes(store)).toEqual({ [YES]: 6_000_000, [NO]: 3_000_000 });
    expect(store.pnl(marks(5000, 2000)).realized).toBe(800_000);

    const fresh = store.openEpoch({ ...PAPER, world: 'w-2' });
    expect(fresh.fresh).toBe(true);
    expect(store.positions()).toEqual([]);
    expect(store.pnl(marks(5000, 2000))).toMatchObject({ realized: 0, unrealized: 0, fees: 0, total: 0 });
    store.recordFill(fill('3', { price: 3000 as Pips, size: 1_000_000 as Micro, matchTime: 1_000_002 }));
    expect(sizes(store)).toEqual({ [YES]: 1_000_000 });
    // the old epoch's rows stay, tagged with it
    expect(store.fills().map((f) => [f.tradeId, f.epoch])).toEqual([
      ['1', 1],
      ['2', 1],
      ['3', 2],
    ]);
    expect(store.adjustments({ epoch: 1 })).toHaveLength(1);
    expect(store.adjustments()).toEqual([]);

    store.close();
    store = open();
    expect(store.currentEpoch()?.id).toBe(2);
    expect(sizes(store)).toEqual({ [YES]: 1_000_000 });
    // back to the first identity: a third epoch (only the latest one continues), from zero
    expect(store.openEpoch(PAPER)).toMatchObject({ fresh: true, epoch: { id: 3 } });
    expect(store.positions()).toEqual([]);
  });

  it('a store with no epoch (a backtest) keeps every fill in its positions, as before epochs', () => {
    store.recordFill(fill('1'));
    store.recordFill(fill('2', { matchTime: 1_000_001 }));
    expect(store.fills().map((f) => f.epoch)).toEqual([null, null]);
    expect(sizes(store)).toEqual({ [YES]: 20_000_000 });
    expect(store.summary()).toMatchObject({ scope: 'epoch', epoch: null, since: null, fills: 2 });
  });

  it('refuses a bad identity with a ValidationError and changes nothing', () => {
    for (const bad of [
      { venue: '', world: null, address: '0x1' },
      { venue: 'paper', world: '', address: '0x1' },
      { venue: 'paper', world: 5, address: '0x1' },
      { venue: 'paper', world: null, address: undefined },
    ])
      expect(() => store.openEpoch(bad as never)).toThrow(ValidationError);
    expect(() => store.openEpoch(PAPER, -1)).toThrow(ValidationError);
    expect(store.epochs()).toEqual([]);
  });
});

describe('adjustments', () => {
  it('open and close at their price like a fill without fee, exactly', () => {
    store.openEpoch(PAPER);
    const a = store.recordAdjustment(adj({ size: 10_000_000, price: 4000, note: 'venue holds more' }));
    expect(a).toEqual({
      seq: 1,
      epoch: 1,
      at: 1_000_000,
      market: M,
      tokenId: YES,
      size: 10_000_000,
      price: 4000,
      priceMicro: null,
      priceSource: 'venue',
      cause: 'external_trade',
      note: 'venue holds more',
    });
    expect(store.positions()).toEqual([
      expect.objectContaining({ size: 10_000_000, avgPrice: 4000, cost: 4_000_000, fees: 0, fills: 0, bought: 0 }),
    ]);
    clock.advance(5);
    store.recordAdjustment(adj({ size: -4_000_000, price: 5500, priceSource: 'mid', cause: 'unknown' }));
    // 4 shares closed at 0.55 bought at 0.40: 0.60 realized, to the micro
    expect(store.pnl(marks(5500, 4500))).toMatchObject({
      realized: 600_000,
      unrealized: 900_000,
      fees: 0,
      total: 1_500_000,
    });
    expect(sizes(store)).toEqual({ [YES]: 6_000_000 });
    expect(store.adjustments().map((x) => [x.seq, x.size, x.cause, x.priceSource, x.note])).toEqual([
      [1, 10_000_000, 'external_trade', 'venue', 'venue holds more'],
      [2, -4_000_000, 'unknown', 'mid', null],
    ]);
    expect(store.adjustments({ since: 1_000_001 })).toHaveLength(1);
    expect(store.summary()).toMatchObject({ adjustments: 2, fills: 0 });
  });

  it("at the venue's average price to its 6 decimals: the store's average price and PnL follow it exactly, after a reopen too (trial 13 F10)", () => {
    store.openEpoch(PAPER);
    const a = store.recordAdjustment(
      adj({ size: 156_270_000, price: 6522, priceMicro: 652_231, cause: 'venue_reset' }),
    );
    expect(a).toMatchObject({ price: 6522, priceMicro: 652_231 });
    const exact = { tokenId: YES, avgPrice: '0.652231', cost: '101.924138', realized: '0' };
    expect(store.positionDecimals()).toEqual([exact]);
    expect(store.ledgerEntries()[0]).toMatchObject({ kind: 'adjustment', price: 6522, priceMicro: 652_231 });
    store.close();
    store = open();
    expect(store.positionDecimals()).toEqual([exact]);
    expect(store.adjustments()[0]?.priceMicro).toBe(652_231);
    // a sale at 0.70 realizes against the exact average: (0.70 - 0.652231) x 56.27
    store.recordFill(fill('t1', { side: 'SELL', price: 7000 as Pips, size: 56_270_000 as Micro }));
    expect(store.positionDecimals()[0]).toMatchObject({ avgPrice: '0.652231', realized: '2.687962' });
  });

  it('refuses a zero or fractional size, a price outside 0..1, an unknown cause or price source, and records nothing', () => {
    store.openEpoch(PAPER);
    for (const bad of [
      { size: 0 },
      { size: 1.5 },
      { price: 10_001 },
      { price: -1 },
      { price: 12.5 },
      { cause: 'gift' },
      { priceSource: 'guess' },
      { priceMicro: 1_000_001 },
      { priceMicro: 400_000.5 },
      { price: 4000, priceMicro: 400_051 }, // not the same price
      { tokenId: '' },
      { at: -5 },
    ])
      expect(() => store.recordAdjustment(adj(bad as never)), JSON.stringify(bad)).toThrow(ValidationError);
    expect(store.adjustments()).toEqual([]);
    expect(store.positions()).toEqual([]);
  });
});

describe('operations', () => {
  it('split then merge nets to a zero position and no PnL change at marks summing to 1', () => {
    store.openEpoch(PAPER);
    const s = store.recordOperation({ ...splitOp('split', 10_000_000, 3700), tx: 'relayer-1', txHash: '0xhash1' });
    expect(s).toMatchObject({
      seq: 1,
      epoch: 1,
      kind: 'split',
      amount: 10_000_000,
      collateral: -10_000_000,
      tx: 'relayer-1',
      txHash: '0xhash1',
    });
    expect(s.legs).toEqual([
      { tokenId: YES, size: 10_000_000, price: 3700 },
      { tokenId: NO, size: 10_000_000, price: 6300 },
    ]);
    expect(sizes(store)).toEqual({ [YES]: 10_000_000, [NO]: 10_000_000 });
    for (const [y, n] of [
      [3700, 6300],
      [5000, 5000],
      [100, 9900],
    ] as const)
      expect(store.pnl(marks(y, n)).total, `${y}/${n}`).toBe(0);
    clock.advance(1000);
    store.recordOperation(splitOp('merge', 10_000_000, 6000));
    expect(sizes(store)).toEqual({ [YES]: 0, [NO]: 0 });
    const p = store.pnl(marks(6000, 4000));
    // YES realises +2.3, NO −2.3: nothing in total
    expect(p.byToken.map((b) => b.realized)).toEqual([2_300_000, -2_300_000]);
    expect(p).toMatchObject({ realized: 0, unrealized: 0, total: 0 });
    expect(store.operations().map((o) => o.kind)).toEqual(['split', 'merge']);
    expect(store.summary()).toMatchObject({ operations: 2 });
  });

  it("an operation keeps the relayer's id and the on-chain hash apart (null when not known)", () => {
    store.openEpoch(PAPER);
    store.recordOperation({ ...splitOp('split', 10_000_000, 3700), tx: 'relayer-1', txHash: '0xhash1' });
    // the relayer's id and the on-chain hash both read back; an operation without a hash keeps null
    expect(store.recordOperation({ ...splitOp('split', 1_000_000, 3700), tx: 'relayer-2' }).txHash).toBeNull();
    expect(store.operations().map((o) => [o.tx, o.txHash])).toEqual([
      ['relayer-1', '0xhash1'],
      ['relayer-2', null],
    ]);
    expect(() =>
      store.recordOperation({ ...splitOp('split', 1_000_000, 3700), txHash: 7 as unknown as string }),
    ).toThrow(/txHash must be a string/);
    expect(store.operations()).toHaveLength(2);
  });

  it('split and merge next to traded positions leave total PnL at marks summing to 1 unchanged', () => {
    store.openEpoch(PAPER);
    store.recordFill(fill('1', { price: 4100 as Pips, size: 7_000_000 as Micro }));
    store.recordFill(fill('2', { tokenId: NO, side: 'SELL', price: 5300 as Pips, size: 3_000_000 as Micro }));
    const m = marks(4700, 5300);
    const before = store.pnl(m).total;
    store.recordOperation(splitOp('split', 5_000_000, 4700));
    expect(store.pnl(m).total).toBe(before);
    store.recordOperation(splitOp('merge', 9_000_000, 4700));
    expect(store.pnl(m).total).toBe(before);
    expect(sizes(store)).toEqual({ [YES]: 3_000_000, [NO]: -7_000_000 });
  });

  it('redeem realises exactly: winners at 1, losers at 0', () => {
    store.openEpoch(PAPER);
    store.recordFill(fill('1', { price: 4500 as Pips, size: 10_000_000 as Micro }));
    store.recordFill(fill('2', { tokenId: NO, price: 5000 as Pips, size: 5_000_000 as Micro }));
    store.recordOperation({
      kind: 'redeem',
      market: M,
      amount: 10_000_000,
      collateral: 10_000_000,
      legs: [
        { tokenId: YES, size: -10_000_000, price: 10_000 },
        { tokenId: NO, size: -5_000_000, price: 0 },
      ],
    });
    expect(sizes(store)).toEqual({ [YES]: 0, [NO]: 0 });
    // +5.5 on YES, −2.5 on NO
    expect(store.pnl(new Map())).toMatchObject({ realized: 3_000_000, unrealized: 0, total: 3_000_000, unmarked: [] });
  });

  it('refuses a malformed operation and records nothing', () => {
    store.openEpoch(PAPER);
    const ok = splitOp('split', 1_000_000, 5000);
    for (const bad of [
      { ...ok, kind: 'burn' },
      { ...ok, legs: [] },
      { ...ok, amount: -1 },
      { ...ok, amount: 0.5 },
      { ...ok, collateral: 1.5 },
      { ...ok, market: '' },
      { ...ok, legs: [{ tokenId: YES, size: -1_000_000, price: 5000 }] },
      { ...splitOp('merge', 1_000_000, 5000), legs: [{ tokenId: YES, size: 1_000_000, price: 5000 }] },
      { ...ok, legs: [{ tokenId: YES, size: 1_000_000, price: 10_001 }] },
      { ...ok, legs: [{ tokenId: YES, size: 0, price: 5000 }] },
    ])
      expect(() => store.recordOperation(bad as never), JSON.stringify(bad)).toThrow(ValidationError);
    expect(store.operations()).toEqual([]);
    expect(store.positions()).toEqual([]);
  });
});

describe('the ledger in time order', () => {
  it('merges fills, operation legs and adjustments by time (fills first at the same time), whatever the recording order', () => {
    store.openEpoch(PAPER);
    store.recordAdjustment(adj({ size: 2_000_000, price: 6000, at: 2000 }));
    store.recordOperation({ ...splitOp('split', 1_000_000, 5000), at: 2000 });
    // backfilled: matched before what is recorded already
    store.recordFill(fill('late', { matchTime: 2000, price: 3000 as Pips, size: 1_000_000 as Micro }));
    store.recordFill(fill('early', { matchTime: 1500, price: 2000 as Pips, size: 1_000_000 as Micro }));
    expect(store.ledgerEntries().map((e) => [e.kind, e.tradeId, e.at, e.side, e.size])).toEqual([
      ['fill', 'early', 1500, 'BUY', 1_000_000],
      ['fill', 'late', 2000, 'BUY', 1_000_000],
      ['operation', 'operation:1:0', 2000, 'BUY', 1_000_000],
      ['operation', 'operation:1:1', 2000, 'BUY', 1_000_000],
      ['adjustment', 'adjustment:1', 2000, 'BUY', 2_000_000],
    ]);
    const got = store.positions();
    store.close();
    store = open();
    expect(store.positions()).toEqual(got);
    expect(got.find((p) => p.tokenId === YES)).toMatchObject({ size: 5_000_000, fills: 2, cost: 2_200_000 });
  });
});

describe('fills by source', () => {
  it('external fills move positions and are counted apart from the bot’s own', () => {
    store.openEpoch(PAPER);
    store.recordFill(fill('1', { price: 4000 as Pips, fee: 10 as Micro }));
    store.recordFill(fill('2', { source: 'external', price: 5000 as Pips, size: 2_000_000 as Micro, fee: 3 as Micro }));
    store.recordFill(fill('3', { source: 'external', status: 'FAILED', matchTime: 1_000_001 }));
    expect(sizes(store)).toEqual({ [YES]: 12_000_000 });
    expect(store.fills().map((f) => f.source)).toEqual(['bot', 'external', 'external']);
    expect(store.summary()).toMatchObject({
      fills: 1,
      voidFills: 0,
      volume: 10_000_000,
      notional: 4_000_000,
      fees: 10,
      externalFills: 1,
      externalVolume: 2_000_000,
      externalNotional: 1_000_000,
      externalFees: 3,
    });
    // a later status keeps the source it was recorded with
    store.recordFill(fill('2', { status: 'CONFIRMED' }));
    expect(store.fills()[1]).toMatchObject({ status: 'CONFIRMED', source: 'external' });
  });

  it('refuses an unknown source', () => {
    expect(() => store.recordFill(fill('1', { source: 'alien' as never }))).toThrow(ValidationError);
    expect(store.fills()).toEqual([]);
  });
});

describe('sessions', () => {
  it('summary({scope: session}) counts what happened since the session began; the epoch scope all of the epoch', () => {
    store.openEpoch(PAPER);
    // an earlier run
    const first = store.beginSession();
    store.recordOrders([prepared('0x1')]);
    store.recordFill(fill('1', { matchTime: 1_000_000 }));
    clock.advance(1000);
    expect(store.endSession(first)).toBe(true);
    expect(store.endSession(first)).toBe(false);
    store.close();

    clock.advance(1000);
    store = open();
    expect(store.currentSession()).toMatchObject({ id: first, endedAt: 1_001_000 });
    const id = store.beginSession();
    expect(store.currentSession()).toEqual({ id, epoch: 1, startedAt: 1_002_000, endedAt: null, pid: process.pid });
    clock.advance(10);
    store.recordOrders([prepared('0x2'), prepared('0x3')]);
    store.updateOrder('0x2' as OrderId, { status: 'live' });
    store.recordFill(fill('2', { matchTime: 1_002_010, size: 3_000_000 as Micro }));
    store.recordFill(fill('3', { matchTime: 1_002_011, source: 'external' }));
    store.recordAdjustment(adj());
    const s = store.summary({ scope: 'session' });
    expect(s).toMatchObject({
      scope: 'session',
      session: id,
      epoch: 1,
      since: 1_002_000,
      ordersRecorded: 2,
      ordersPlaced: 1,
      fills: 1,
      volume: 3_000_000,
      externalFills: 1,
      adjustments: 1,
    });
    expect(store.summary({ scope: 'epoch' })).toMatchObject({
      scope: 'epoch',
      session: null,
      ordersRecorded: 3,
      fills: 2,
    });
    expect(store.summary()).toEqual(store.summary({ scope: 'epoch' }));
    clock.advance(10);
    expect(store.endSession(id)).toBe(true);
    // after its end, the session's figures stay those of its window
    clock.advance(10);
    store.recordFill(fill('4', { matchTime: clock.now() }));
    expect(store.summary({ scope: 'session' })).toMatchObject({ session: id, fills: 1 });
  });

  it('opening a new epoch moves the open session into it', () => {
    const id = store.beginSession();
    expect(store.currentSession()?.epoch).toBeNull();
    const e = store.openEpoch(PAPER).epoch;
    expect(store.currentSession()).toMatchObject({ id, epoch: e.id });
  });

  it('refuses a session scope without a session, an unknown scope and an end before the start', () => {
    expect(() => store.summary({ scope: 'session' })).toThrow(ValidationError);
    expect(() => store.summary({ scope: 'week' as never })).toThrow(ValidationError);
    const id = store.beginSession();
    expect(() => store.endSession(id, 5)).toThrow(ValidationError);
    expect(store.currentSession()?.endedAt).toBeNull();
    expect(store.endSession(999)).toBe(false);
  });
});

describe("a 'batched' store (backtests)", () => {
  it('tags fills with the epoch and keeps the ledger the same as an each-commit store', () => {
    const run = (s: Store) => {
      s.openEpoch(PAPER);
      s.recordFill(fill('1', { price: 4200 as Pips }));
      s.recordOperation(splitOp('split', 2_000_000, 4200));
      s.recordAdjustment(adj({ size: -1_000_000, price: 4300 }));
      s.recordFill(fill('2', { side: 'SELL', matchTime: 1_000_001, size: 4_000_000 as Micro }));
      return { positions: s.positions(), fills: s.fills().map((f) => [f.epoch, f.source]), summary: s.summary() };
    };
    const b = openStore(join(dir, 'b.db'), { clock, commit: 'batched', checkpoint: 'auto' });
    const got = run(b);
    b.close();
    expect(got).toEqual(run(store));
  });
});

it('MIGRATIONS has the ledger as migration 3', () => {
  expect(MIGRATIONS.length).toBeGreaterThanOrEqual(3);
  expect(MIGRATIONS[2]).toMatch(/CREATE TABLE epochs/);
});
