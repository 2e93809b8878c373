/**
 * The ledger's entries besides fills: adjustments (a position moved to the venue's truth) and
 * operations (split, merge, redeem, convert, whose legs move positions): their checks, their rows,
 * and the merge of an epoch's fills, operation legs and adjustments into the one time order in
 * which positions apply them (time; at the same time fills, then operation legs, then adjustments;
 * then the order they were recorded in).
 */
import { ValidationError } from '../core/errors.ts';
import type { TradeStatus } from '../core/events.ts';
import type { ConditionId, TokenId } from '../core/ids.ts';
import { PRICE_SCALE, type Micro, type Pips, type Side } from '../core/units.ts';
import { checkTime } from './epochs.ts';
import type { Statements } from './statements.ts';
import {
  ADJUSTMENT_CAUSES,
  type AdjustmentCause,
  type AdjustmentInput,
  type FillSource,
  type LedgerEntry,
  type LedgerOperation,
  type OperationKind,
  type PriceSource,
  type StoredAdjustment,
  type StoredOperation,
} from './store-types.ts';

/** Rank of an entry among entries of the same time: fills first, then operation legs, then adjustments. */
export const RANK = { fill: 0, operation: 1, adjustment: 2 } as const;

const CAUSES: ReadonlySet<unknown> = new Set<AdjustmentCause>(ADJUSTMENT_CAUSES);
const PRICE_SOURCES: ReadonlySet<unknown> = new Set<PriceSource>(['venue', 'mid', 'none']);
const KINDS: ReadonlySet<unknown> = new Set<OperationKind>(['split', 'merge', 'redeem', 'convert']);

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);
const str = (v: unknown): boolean => typeof v === 'string' && v.length > 0;
function checkPrice(what: string, v: unknown): void {
  if (!isInt(v) || v < 0 || v > PRICE_SCALE)
    throw new ValidationError(`${what}: expected integer pips in 0..${PRICE_SCALE}, got ${String(v)}`);
}
function checkSize(what: string, v: unknown): void {
  if (!isInt(v) || v === 0)
    throw new ValidationError(`${what}: expected a non-zero integer of micro-shares, got ${String(v)}`);
}

/** @throws ValidationError unless `a` is an adjustment the schema takes (checked before any write). */
export function checkAdjustment(a: AdjustmentInput, at: number): void {
  if (!str(a.market)) throw new ValidationError('adjustment: market is required');
  if (!str(a.tokenId)) throw new ValidationError('adjustment: tokenId is required');
  checkSize('adjustment size', a.size);
  checkPrice('adjustment price', a.price);
  if (a.priceMicro !== undefined) {
    if (!isInt(a.priceMicro) || a.priceMicro < 0 || a.priceMicro > PRICE_SCALE * 100)
      throw new ValidationError(
        `adjustment priceMicro: expected integer millionths in 0..1000000, got ${String(a.priceMicro)}`,
      );
    if (Math.abs(a.priceMicro - a.price * 100) > 50)
      throw new ValidationError(`adjustment priceMicro ${a.priceMicro} does not round to its price ${a.price} pips`);
  }
  if (!PRICE_SOURCES.has(a.priceSource))
    throw new ValidationError(`adjustment: priceSource must be venue, mid or none, got ${String(a.priceSource)}`);
  if (!CAUSES.has(a.cause))
    throw new ValidationError(
      `adjustment: cause must be one of ${ADJUSTMENT_CAUSES.join(', ')}, got ${String(a.cause)}`,
    );
  if (a.note !== undefined && typeof a.note !== 'string')
    throw new ValidationError('adjustment: note must be a string');
  checkTime('adjustment at', at);
}

/**
 * @throws ValidationError unless `op` is an operation the schema takes: a known kind, a market,
 * amount ≥ 0, integer collateral, at least one leg (token, non-zero integer size, price 0..10,000),
 * legs of a split positive and of a merge or redeem negative.
 */
export function checkOperation(op: LedgerOperation, at: number): void {
  if (!KINDS.has(op.kind))
    throw new ValidationError(`operation: kind must be split, merge, redeem or convert, got ${String(op.kind)}`);
  if (!str(op.market)) throw new ValidationError('operation: market is required');
  if (!isInt(op.amount) || op.amount < 0)
    throw new ValidationError(`operation amount: expected a non-negative integer (micro), got ${String(op.amount)}`);
  if (!isInt(op.collateral))
    throw new ValidationError(`operation collateral: expected an integer (micro), got ${String(op.collateral)}`);
  if (!Array.isArray(op.legs) || op.legs.length === 0) throw new ValidationError('operation: at least one leg');
  for (const [i, l] of op.legs.entries()) {
    if (!str(l?.tokenId)) throw new ValidationError(`operation leg ${i}: tokenId is required`);
    checkSize(`operation leg ${i} size`, l.size);
    checkPrice(`operation leg ${i} price`, l.price);
    if (op.kind === 'split' && l.size < 0) throw new ValidationError(`operation leg ${i}: a split only adds tokens`);
    if ((op.kind === 'merge' || op.kind === 'redeem') && l.size > 0)
      throw new ValidationError(`operation leg ${i}: a ${op.kind} only removes tokens`);
  }
  if (op.tx !== undefined && typeof op.tx !== 'string') throw new ValidationError('operation: tx must be a string');
  if (op.txHash !== undefined && typeof op.txHash !== 'string')
    throw new ValidationError('operation: txHash must be a string');
  checkTime('operation at', at);
}

/** A row of the adjustments table. */
export interface AdjustmentRow {
  seq: number;
  epoch: number | null;
  at: number;
  market: string;
  token: string;
  size: number;
  price: number;
  price_micro: number | null;
  price_source: string;
  cause: string;
  note: string | null;
}
/** A row of the operations table. */
export interface OperationRow {
  seq: number;
  epoch: number | null;
  at: number;
  kind: string;
  market: string;
  amount: number;
  collateral: number;
  tx: string | null;
  tx_hash: string | null;
  legs: string;
}
/** A row of the ledger's fill query (statements' ledgerFills*). */
export interface LedgerFillRow {
  id: number;
  trade_id: string;
  order_id: string;
  market: string;
  token: string;
  side: string;
  price: number;
  size: number;
  fee: number;
  status: string;
  source: string;
  match_time: number;
}

export function toAdjustment(r: AdjustmentRow): StoredAdjustment {
  return {
    seq: r.seq,
    epoch: r.epoch,
    at: r.at,
    market: r.market as ConditionId,
    tokenId: r.token as TokenId,
    size: r.size as Micro,
    price: r.price as Pips,
    priceMicro: r.price_micro ?? null,
    priceSource: r.price_source as PriceSource,
    cause: r.cause as AdjustmentCause,
    note: r.note,
  };
}
export function toOperation(r: OperationRow): StoredOperation {
  const legs = JSON.parse(r.legs) as { tokenId: string; size: number; price: number }[];
  return {
    seq: r.seq,
    epoch: r.epoch,
    at: r.at,
    kind: r.kind as OperationKind,
    market: r.market as ConditionId,
    amount: r.amount as Micro,
    collateral: r.collateral,
    legs: legs.map((l) => ({ tokenId: l.tokenId as TokenId, size: l.size as Micro, price: l.price as Pips })),
    tx: r.tx,
    txHash: r.tx_hash ?? null,
  };
}
/** The legs as stored: only the three fields, in this order. */
export function legsJson(op: LedgerOperation): string {
  return JSON.stringify(op.legs.map((l) => ({ tokenId: l.tokenId, size: l.size, price: l.price })));
}

const fillEntry = (r: LedgerFillRow): LedgerEntry => ({
  kind: 'fill',
  tradeId: r.trade_id,
  orderId: r.order_id,
  market: r.market as ConditionId,
  tokenId: r.token as TokenId,
  side: r.side as Side,
  price: r.price as Pips,
  size: r.size as Micro,
  fee: r.fee as Micro,
  status: r.status as TradeStatus,
  source: r.source as FillSource,
  at: r.match_time,
});
const adjustmentEntry = (a: StoredAdjustment): LedgerEntry => ({
  kind: 'adjustment',
  tradeId: `adjustment:${a.seq}`,
  orderId: '',
  market: a.market,
  tokenId: a.tokenId,
  side: a.size > 0 ? 'BUY' : 'SELL',
  price: a.price,
  ...(a.priceMicro !== null ? { priceMicro: a.priceMicro } : {}),
  size: Math.abs(a.size) as Micro,
  fee: 0 as Micro,
  status: 'CONFIRMED',
  at: a.at,
});
function pushLegs(out: LedgerEntry[], o: StoredOperation): void {
  for (const [i, l] of o.legs.entries())
    out.push({
      kind: 'operation',
      tradeId: `operation:${o.seq}:${i}`,
      orderId: '',
      market: o.market,
      tokenId: l.tokenId,
      side: l.size > 0 ? 'BUY' : 'SELL',
      price: l.price,
      size: Math.abs(l.size) as Micro,
      fee: 0 as Micro,
      status: 'CONFIRMED',
      at: o.at,
    });
}

/** The position-moving rows of an epoch (null: a store with no epoch, where every row has none). */
export function ledgerRows(
  st: Statements,
  epoch: number | null,
): { fills: LedgerFillRow[]; operations: StoredOperation[]; adjustments: StoredAdjustment[] } {
  if (epoch === null)
    return {
      fills: st.ledgerFillsAll.all() as LedgerFillRow[],
      operations: (st.operationsNoEpoch.all() as OperationRow[]).map(toOperation),
      adjustments: (st.adjustmentsNoEpoch.all(0) as AdjustmentRow[]).map(toAdjustment),
    };
  return {
    fills: st.ledgerFillsOf.all(epoch) as LedgerFillRow[],
    operations: (st.operationsOf.all(epoch) as OperationRow[]).map(toOperation),
    adjustments: (st.adjustmentsOf.all(epoch, 0) as AdjustmentRow[]).map(toAdjustment),
  };
}

/**
 * An epoch's entries in the order positions apply them. Each input is in its own (time, id)
 * order (the statements sort them); at the same time fills come first, then operation legs, then
 * adjustments.
 */
export function mergeLedger(
  fills: readonly LedgerFillRow[],
  operations: readonly StoredOperation[],
  adjustments: readonly StoredAdjustment[],
): LedgerEntry[] {
  if (operations.length === 0 && adjustments.length === 0) return fills.map(fillEntry);
  const out: LedgerEntry[] = [];
  let i = 0;
  let j = 0;
  let k = 0;
  const INF = Number.POSITIVE_INFINITY;
  while (i < fills.length || j < operations.length || k < adjustments.length) {
    const tf = i < fills.length ? fills[i]!.match_time : INF;
    const to = j < operations.length ? operations[j]!.at : INF;
    const ta = k < adjustments.length ? adjustments[k]!.at : INF;
    if (tf <= to && tf <= ta) out.push(fillEntry(fills[i++]!));
    else if (to <= ta) pushLegs(out, operations[j++]!);
    else out.push(adjustmentEntry(adjustments[k++]!));
  }
  return out;
}
