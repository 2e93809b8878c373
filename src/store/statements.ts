/**
 * The store's prepared statements over its schema (./migrations.ts), the row shapes they read and
 * their mapping to StoredOrder / StoredFill, and the integer check every money or time column
 * passes before a write.
 */
import type Database from 'better-sqlite3';
import type { TradeStatus } from '../core/events.ts';
import type { ConditionId, OrderId, TokenId } from '../core/ids.ts';
import type { Micro, Pips, Side } from '../core/units.ts';
import type { FillSource, StoredFill, StoredOrder, StoredOrderStatus } from './store-types.ts';

/**
 * A constraint of the table refused the row's values (SQLITE_CONSTRAINT_*: NOT NULL, CHECK, a STRICT
 * column's type, …). Not a trigger's RAISE: that is a failure of the database (as a full disk is),
 * passed on as it is.
 */
export function isConstraintError(e: unknown): e is Error & { code: string } {
  const code = e instanceof Error ? (e as { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT') && code !== 'SQLITE_CONSTRAINT_TRIGGER';
}

/** The store's prepared statements (one set per connection). */
export function prepareStatements(db: Database.Database) {
  return {
    // an order recorded before it is sent: a row with its id already there is left alone (the
    // caller checks it is the same order: sameOrder); any other constraint failure throws, where
    // OR IGNORE would skip the row without a word (an order sent, not on disk)
    recordOrder: db.prepare(
      `INSERT INTO orders (id, market, token, side, price, size, type, status, size_matched, created_at, updated_at, reject_code)
     VALUES (@id, @market, @token, @side, @price, @size, @type, 'pending', 0, @now, @now, NULL)
     ON CONFLICT (id) DO NOTHING`,
    ),
    /** 1 when the row of `id` is of this order (the columns fixed when it was recorded), else undefined. */
    sameOrder: db
      .prepare(
        `SELECT 1 FROM orders WHERE id = @id AND market = @market AND token = @token AND side = @side
       AND price = @price AND size = @size AND type = @type`,
      )
      .pluck(),
    // an order adopted from the venue: an existing row is left alone; any other constraint failure
    // throws, where OR IGNORE would skip the row without a word (the order's fills then booked as
    // not the bot's)
    insertOrder: db.prepare(
      `INSERT INTO orders (id, market, token, side, price, size, type, status, size_matched, created_at, updated_at, reject_code)
     VALUES (@id, @market, @token, @side, @price, @size, @type, @status, @size_matched, @now, @now, NULL)
     ON CONFLICT (id) DO NOTHING`,
    ),
    getOrder: db.prepare('SELECT * FROM orders WHERE id = ?'),
    openOrders: db.prepare(
      `SELECT * FROM orders WHERE status IN ('pending', 'live', 'partially_filled', 'unknown') ORDER BY created_at, rowid`,
    ),
    openOrdersOf: db.prepare(
      `SELECT * FROM orders WHERE market = ? AND status IN ('pending', 'live', 'partially_filled', 'unknown') ORDER BY created_at, rowid`,
    ),
    updateOrder: db.prepare(
      `UPDATE orders SET status = COALESCE(@status, status), size_matched = MAX(size_matched, COALESCE(@size_matched, 0)),
       reject_code = CASE WHEN @set_code THEN @reject_code ELSE reject_code END, updated_at = @now WHERE id = @id`,
    ),
    // a fill already there (its trade and order) is left alone; any other constraint failure throws,
    // where OR IGNORE would skip the row without a word (a fill reported, not on disk)
    insertFill: db.prepare(
      `INSERT INTO fills (trade_id, order_id, market, token, side, price, size, fee, role, status, match_time, recorded_at, updated_at, source, epoch)
     VALUES (@trade_id, @order_id, @market, @token, @side, @price, @size, @fee, @role, @status, @match_time, @now, @now, @source, @epoch)
     ON CONFLICT (trade_id, order_id) DO NOTHING`,
    ),
    fillStatus: db.prepare('SELECT status FROM fills WHERE trade_id = ? AND order_id = ?'),
    fillEpoch: db.prepare('SELECT epoch FROM fills WHERE trade_id = ? AND order_id = ?'),
    setFillStatus: db.prepare('UPDATE fills SET status = ?, updated_at = ? WHERE trade_id = ? AND order_id = ?'),
    fillsSince: db.prepare('SELECT * FROM fills WHERE match_time >= ? ORDER BY match_time, rowid'),
    lastFill: db.prepare('SELECT MAX(match_time) AS t FROM fills'),
    // (of one epoch: the restart backfill of an epoch is its venue's; the `fills_epoch` index)
    lastFillOf: db.prepare('SELECT MAX(match_time) AS t FROM fills WHERE epoch = ?'),
    // the final statuses are TRADE_RANK's rank 3
    oldestUnsettled: db.prepare(
      `SELECT MIN(match_time) AS t FROM fills WHERE match_time >= ? AND status NOT IN ('CONFIRMED', 'FAILED')`,
    ),
    oldestUnsettledOf: db.prepare(
      `SELECT MIN(match_time) AS t FROM fills WHERE epoch = ? AND match_time >= ? AND status NOT IN ('CONFIRMED', 'FAILED')`,
    ),
    insertAudit: db.prepare('INSERT INTO audit (time, kind, json) VALUES (?, ?, ?)'),
    // ---- the day opens (migration 6; risk.maxDailyLoss) ----
    insertDayOpen: db.prepare('INSERT OR IGNORE INTO day_opens (epoch, date, pnl, at) VALUES (?, ?, ?, ?)'),
    dayOpen: db.prepare('SELECT pnl FROM day_opens WHERE epoch = ? AND date = ?'),
    // ---- the ledger (migration 3) ----
    // the position-moving rows of the current epoch, each in its own time order (./ledger.ts merges
    // them); the `All` / `NoEpoch` forms serve a store with no epoch (every row has epoch NULL)
    ledgerFillsOf: db.prepare(
      `SELECT rowid AS id, trade_id, order_id, market, token, side, price, size, fee, status, source, match_time
       FROM fills WHERE epoch = ? AND status != 'FAILED' ORDER BY match_time, rowid`,
    ),
    ledgerFillsAll: db.prepare(
      `SELECT rowid AS id, trade_id, order_id, market, token, side, price, size, fee, status, source, match_time
       FROM fills WHERE status != 'FAILED' ORDER BY match_time, rowid`,
    ),
    adjustmentsOf: db.prepare('SELECT * FROM adjustments WHERE epoch = ? AND at >= ? ORDER BY at, seq'),
    adjustmentsNoEpoch: db.prepare('SELECT * FROM adjustments WHERE epoch IS NULL AND at >= ? ORDER BY at, seq'),
    operationsOf: db.prepare('SELECT * FROM operations WHERE epoch = ? ORDER BY at, seq'),
    operationsNoEpoch: db.prepare('SELECT * FROM operations WHERE epoch IS NULL ORDER BY at, seq'),
    insertAdjustment: db.prepare(
      `INSERT INTO adjustments (epoch, at, market, token, size, price, price_micro, price_source, cause, note)
       VALUES (@epoch, @at, @market, @token, @size, @price, @price_micro, @price_source, @cause, @note) RETURNING *`,
    ),
    insertOperation: db.prepare(
      `INSERT INTO operations (epoch, at, kind, market, amount, collateral, tx, tx_hash, legs)
       VALUES (@epoch, @at, @kind, @market, @amount, @collateral, @tx, @tx_hash, @legs) RETURNING *`,
    ),
    latestEpoch: db.prepare('SELECT * FROM epochs ORDER BY id DESC LIMIT 1'),
    allEpochs: db.prepare('SELECT * FROM epochs ORDER BY id'),
    insertEpoch: db.prepare('INSERT INTO epochs (venue, world, address, started_at) VALUES (?, ?, ?, ?) RETURNING *'),
    // (an epoch continued through another URL: where its venue is reached now)
    setEpochVenue: db.prepare('UPDATE epochs SET venue = ? WHERE id = ? RETURNING *'),
    insertSession: db.prepare('INSERT INTO sessions (epoch, started_at, pid) VALUES (?, ?, ?) RETURNING *'),
    getSession: db.prepare('SELECT * FROM sessions WHERE id = ?'),
    latestSession: db.prepare('SELECT * FROM sessions ORDER BY id DESC LIMIT 1'),
    endSession: db.prepare('UPDATE sessions SET ended_at = ? WHERE id = ? AND ended_at IS NULL'),
    moveSession: db.prepare('UPDATE sessions SET epoch = ? WHERE id = ? AND ended_at IS NULL'),
    // ---- the summary (./summary.ts), whole store or one scope ----
    orderCounts: db.prepare('SELECT status, COUNT(*) AS n FROM orders GROUP BY status'),
    orderCountsSince: db.prepare(
      'SELECT status, COUNT(*) AS n FROM orders WHERE created_at >= ? AND created_at <= ? GROUP BY status',
    ),
    summaryFills: db.prepare(`SELECT source, status = 'FAILED' AS void, price, size, fee FROM fills`),
    summaryFillsOf: db.prepare(`SELECT source, status = 'FAILED' AS void, price, size, fee FROM fills WHERE epoch = ?`),
    summaryFillsBetween: db.prepare(
      `SELECT source, status = 'FAILED' AS void, price, size, fee FROM fills WHERE match_time >= ? AND match_time <= ?`,
    ),
    countAdjustmentsOf: db.prepare('SELECT COUNT(*) FROM adjustments WHERE epoch IS ?').pluck(),
    countAdjustmentsBetween: db.prepare('SELECT COUNT(*) FROM adjustments WHERE at >= ? AND at <= ?').pluck(),
    countOperationsOf: db.prepare('SELECT COUNT(*) FROM operations WHERE epoch IS ?').pluck(),
    countOperationsBetween: db.prepare('SELECT COUNT(*) FROM operations WHERE at >= ? AND at <= ?').pluck(),
  };
}

/** The statements of one store. */
export type Statements = ReturnType<typeof prepareStatements>;

/** @throws RangeError unless `v` is a non-negative safe integer (an integer column's value). */
export function checkInt(what: string, v: number): void {
  if (!Number.isSafeInteger(v) || v < 0)
    throw new RangeError(`${what}: expected a non-negative safe integer, got ${String(v)}`);
}

/** A row of the orders table. */
export interface OrderRow {
  id: string;
  market: string;
  token: string;
  side: string;
  price: number;
  size: number;
  type: string;
  status: string;
  size_matched: number;
  created_at: number;
  updated_at: number;
  reject_code: string | null;
}
/** A row of the fills table. */
export interface FillRow {
  trade_id: string;
  order_id: string;
  market: string;
  token: string;
  side: string;
  price: number;
  size: number;
  fee: number;
  role: string;
  status: string;
  match_time: number;
  recorded_at: number;
  updated_at: number;
  source: string;
  epoch: number | null;
}

/** A row of the orders table as a StoredOrder. */
export function toOrder(r: OrderRow): StoredOrder {
  return {
    id: r.id as OrderId,
    market: r.market as ConditionId,
    tokenId: r.token as TokenId,
    side: r.side as Side,
    price: r.price as Pips,
    size: r.size as Micro,
    type: r.type,
    status: r.status as StoredOrderStatus,
    sizeMatched: r.size_matched as Micro,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    rejectCode: r.reject_code,
  };
}
/** A row of the fills table as a StoredFill. */
export function toFill(r: FillRow): StoredFill {
  return {
    tradeId: r.trade_id,
    orderId: r.order_id as OrderId,
    market: r.market as ConditionId,
    tokenId: r.token as TokenId,
    side: r.side as Side,
    price: r.price as Pips,
    size: r.size as Micro,
    fee: r.fee as Micro,
    role: r.role as 'TAKER' | 'MAKER',
    status: r.status as TradeStatus,
    matchTime: r.match_time,
    source: r.source as FillSource,
    epoch: r.epoch,
    recordedAt: r.recorded_at,
    updatedAt: r.updated_at,
  };
}
