/**
 * The store's prepared statements over its schema (./migrations.ts), the row shapes they read and
 * their mapping to StoredOrder / StoredFill, and the integer check every money or time column
 * passes before a write.
 */
import type Database from 'better-sqlite3';
import type { TradeStatus } from '../core/events.ts';
import type { ConditionId, OrderId, TokenId } from '../core/ids.ts';
import type { Micro, Pips, Side } from '../core/units.ts';
import type { StoredFill, StoredOrder, StoredOrderStatus } from './store-types.ts';

/** The store's prepared statements (one set per connection). */
export function prepareStatements(db: Database.Database) {
  return {
    insertOrder: db.prepare(
      `INSERT OR IGNORE INTO orders (id, market, token, side, price, size, type, status, size_matched, created_at, updated_at, reject_code)
     VALUES (@id, @market, @token, @side, @price, @size, @type, @status, @size_matched, @now, @now, NULL)`,
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
    insertFill: db.prepare(
      `INSERT OR IGNORE INTO fills (trade_id, order_id, market, token, side, price, size, fee, role, status, match_time, recorded_at, updated_at)
     VALUES (@trade_id, @order_id, @market, @token, @side, @price, @size, @fee, @role, @status, @match_time, @now, @now)`,
    ),
    fillStatus: db.prepare('SELECT status FROM fills WHERE trade_id = ? AND order_id = ?'),
    setFillStatus: db.prepare('UPDATE fills SET status = ?, updated_at = ? WHERE trade_id = ? AND order_id = ?'),
    fillsSince: db.prepare('SELECT * FROM fills WHERE match_time >= ? ORDER BY match_time, rowid'),
    lastFill: db.prepare('SELECT MAX(match_time) AS t FROM fills'),
    // the final statuses are TRADE_RANK's rank 3
    oldestUnsettled: db.prepare(
      `SELECT MIN(match_time) AS t FROM fills WHERE match_time >= ? AND status NOT IN ('CONFIRMED', 'FAILED')`,
    ),
    liveFills: db.prepare(
      `SELECT market, token, side, price, size, fee FROM fills WHERE status != 'FAILED' ORDER BY match_time, rowid`,
    ),
    insertAudit: db.prepare('INSERT INTO audit (time, kind, json) VALUES (?, ?, ?)'),
    orderCounts: db.prepare('SELECT status, COUNT(*) AS n FROM orders GROUP BY status'),
    fillCounts: db.prepare(`SELECT status = 'FAILED' AS void, COUNT(*) AS n FROM fills GROUP BY void`),
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
    recordedAt: r.recorded_at,
    updatedAt: r.updated_at,
  };
}
