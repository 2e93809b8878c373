/**
 * Fills exactly once: a fill is keyed by (trade id, order id), so a replayed event changes nothing;
 * a trade status only moves forward (MATCHED → MINED → CONFIRMED, or RETRYING → FAILED) and FAILED
 * makes the fill void. A fill keeps the source ('bot' or 'external') and the ledger epoch it was
 * first recorded with. Also the conversion of a user-stream fill event to a fill record.
 */
import type Database from 'better-sqlite3';
import { ValidationError } from '../core/errors.ts';
import type { FillEvent, TradeStatus } from '../core/events.ts';
import { DEFAULT_FEE_PROTOCOL, takerFee, type FeeProtocol } from '../core/fees.ts';
import type { Micro } from '../core/units.ts';
import { isConstraintError, type Statements } from './statements.ts';
import type { FillChange, FillRecord } from './store-types.ts';

/** Rank of a trade status: a status may only move to a higher rank; rank 3 is final. */
const TRADE_RANK: Readonly<Record<TradeStatus, number>> = {
  MATCHED: 0,
  RETRYING: 1,
  MINED: 2,
  CONFIRMED: 3,
  FAILED: 3,
};

/** True when a fill at `from` may move to `to` (forward only; CONFIRMED and FAILED are final). */
export function tradeStatusAdvances(from: TradeStatus, to: TradeStatus): boolean {
  return TRADE_RANK[from] < 3 && TRADE_RANK[to] > TRADE_RANK[from];
}

/**
 * A fill event of the user stream as a FillRecord. Makers pay no fee. A taker's fee is the one the
 * event carries (`FillEvent.fee`: the venue's charge, each match floored apart); an event without
 * one carries the fee RATE only, so the fee is computed the venue's way under `protocol`
 * (core/fees.ts `takerFee`: V2 the curve size × rate × p × (1 − p) floored to 0.00001, V1
 * floor(size × rate × min(p, 1 − p))) on the fill's average price: exact for a single match, an
 * estimate for a sweep.
 * @param protocol the order protocol the venue charges under (default 2, the paper exchange's)
 */
export function fillFromEvent(e: FillEvent, protocol: FeeProtocol = DEFAULT_FEE_PROTOCOL): FillRecord {
  const fee = e.role === 'TAKER' ? (e.fee ?? takerFee(protocol, e.size, e.price, e.feeRateBps)) : 0;
  return {
    tradeId: e.tradeId,
    orderId: e.orderId,
    market: e.market,
    tokenId: e.tokenId,
    side: e.side,
    price: e.price,
    size: e.size,
    fee: fee as Micro,
    role: e.role,
    status: e.status,
    matchTime: e.venueTime,
  };
}

/** The fill writes of one store. A new fill is tagged with `epoch` (the current one, or null). */
export interface FillWrites {
  /** Applies one fill (at most one statement writes: atomic without a transaction of its own). */
  applyFillOnce(f: FillRecord, now: number, epoch: number | null): FillChange;
  /** The same in a transaction of its own (a store that commits each write). */
  applyFillTx(f: FillRecord, now: number, epoch: number | null): FillChange;
}

/**
 * The fill writes over a store's statements.
 * @throws ValidationError (from the calls) when a new fill's row is one the table refuses (a NOT
 *   NULL, CHECK or type constraint): never reported as a duplicate, as OR IGNORE would have it
 */
export function fillWrites(db: Database.Database, st: Statements): FillWrites {
  // at most one statement writes, whatever the path: atomic without a transaction of its own
  const applyFillOnce = (f: FillRecord, now: number, epoch: number | null): FillChange => {
    let ins: Database.RunResult;
    try {
      ins = insertFill(f, now, epoch);
    } catch (error) {
      throw isConstraintError(error)
        ? new ValidationError(`fill ${f.tradeId} of order ${f.orderId} not recorded: ${error.message}`, {
            cause: error,
            details: { tradeId: f.tradeId, orderId: f.orderId },
          })
        : error;
    }
    if (ins.changes > 0) return 'new';
    const row = st.fillStatus.get(f.tradeId, f.orderId) as { status: TradeStatus } | undefined;
    if (row === undefined || !tradeStatusAdvances(row.status, f.status)) return 'duplicate';
    st.setFillStatus.run(f.status, now, f.tradeId, f.orderId);
    return f.status === 'FAILED' ? 'void' : 'status';
  };
  const applyFillTx = db.transaction(applyFillOnce);
  const insertFill = (f: FillRecord, now: number, epoch: number | null): Database.RunResult =>
    st.insertFill.run({
      trade_id: f.tradeId,
      order_id: f.orderId,
      market: f.market,
      token: f.tokenId,
      side: f.side,
      price: f.price,
      size: f.size,
      fee: f.fee,
      role: f.role,
      status: f.status,
      match_time: f.matchTime,
      now,
      source: f.source ?? 'bot',
      epoch,
    });

  return { applyFillOnce, applyFillTx };
}
