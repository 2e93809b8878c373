/**
 * Cancelling in the matching engine (one order, all of an account's, those of a market or token)
 * and the market lifecycle (tick size changes, closing, resolution), which cancel the orders they
 * no longer allow. The public methods and their documentation are MatchingEngine's (engine.ts).
 *
 * For the matching engine only (src/exchange/matching/engine.ts).
 */
import { ValidationError } from '../../core/errors.ts';
import type { CancelReason, OrderState } from './types.ts';
import type { EngineCore, OrderFilter } from './engine-core.ts';
import * as halfBook from './half-book.ts';
import { type Market, VALID_TICK_PIPS } from './market.ts';
import * as layout from './order-layout.ts';
import * as orderTable from './order-table.ts';

const { I_ACCT, I_META, I_NEXT, I_PRICE, NIL, S_LIVE, statusOf } = layout;
const { NO_ASK } = halfBook;
const { hashId } = orderTable;

/** Result of `MatchingEngine.cancel` (engine.ts). */
export type CancelResult = { ok: true; order: OrderState } | { ok: false; reason: 'NOT_FOUND' | 'NOT_LIVE' };

/** `MatchingEngine.cancel` (engine.ts). */
export function cancel(
  c: EngineCore,
  account: string,
  orderId: string,
  now: number,
  reason: CancelReason,
): CancelResult {
  c.advance(now);
  const t = c.ot;
  const o = t.find(orderId, hashId(orderId));
  if (o === NIL || c.accountList[t.gi(o, I_ACCT)]!.id !== account) return { ok: false, reason: 'NOT_FOUND' };
  if (statusOf(t.gi(o, I_META)) !== S_LIVE) return { ok: false, reason: 'NOT_LIVE' };
  c.beginOp();
  const order = c.cancelOrd(o, reason, now) ?? c.snap(o);
  c.endOp(now);
  return { ok: true, order };
}

/** The account's LIVE orders matching the filter (all without one), cancelled; oldest first. */
export function cancelWhere(
  c: EngineCore,
  account: string,
  filter: OrderFilter | undefined,
  now: number,
  reason: CancelReason,
): OrderState[] {
  c.advance(now);
  const a = c.accounts.get(account);
  if (a === undefined || a.liveCount === 0) return [];
  const todo = c.liveOf(a, filter);
  if (todo.length === 0) return [];
  c.beginOp();
  const out: OrderState[] = [];
  for (const o of todo) out.push(c.cancelOrd(o, reason, now) ?? c.snap(o));
  c.endOp(now);
  return out;
}

/** All LIVE orders of a market, oldest first. */
function liveOrdersOf(c: EngineCore, m: Market): number[] {
  const out: number[] = [];
  for (const b of [m.bids, m.asks]) {
    for (let p = b.nextUp(0); p !== NO_ASK; p = b.nextUp(p + 1))
      for (let o = b.head[p]!; o !== NIL; o = c.ot.gi(o, I_NEXT)) out.push(o);
  }
  out.sort((x, y) => x - y);
  return out;
}

/** `MatchingEngine.setTickSize` (engine.ts). */
export function setTickSize(c: EngineCore, conditionId: string, tickPips: number, now: number): void {
  const m = c.marketOrThrow(conditionId);
  if (!VALID_TICK_PIPS.includes(tickPips)) throw new ValidationError(`invalid tick size in pips: ${tickPips}`);
  c.advance(now);
  c.beginOp();
  const old = m.tickPips;
  m.tickPips = tickPips;
  if (c.rec)
    c.emit({ type: 'tick_size_change', market: conditionId, oldTickPips: old, newTickPips: tickPips, at: now });
  for (const o of liveOrdersOf(c, m)) if (c.ot.gi(o, I_PRICE) % tickPips !== 0) c.cancelOrd(o, 'TICK_SIZE_CHANGE', now);
  c.endOp(now);
}

/** `MatchingEngine.closeMarket` (engine.ts). */
export function closeMarket(c: EngineCore, conditionId: string, now: number): void {
  const m = c.marketOrThrow(conditionId);
  if (m.status === 'resolved') throw new ValidationError(`market ${conditionId} is resolved`);
  c.advance(now);
  if (m.status === 'closed') return;
  c.beginOp();
  m.status = 'closed';
  for (const o of liveOrdersOf(c, m)) c.cancelOrd(o, 'MARKET_CLOSED', now);
  if (c.rec) c.emit({ type: 'market_status', market: conditionId, status: 'closed', at: now });
  c.endOp(now);
}

/** `MatchingEngine.resolveMarket` (engine.ts). */
export function resolveMarket(c: EngineCore, conditionId: string, winningTokenId: string, now: number): void {
  const m = c.marketOrThrow(conditionId);
  const { yesToken, noToken } = m.def;
  if (winningTokenId !== yesToken && winningTokenId !== noToken)
    throw new ValidationError(`token ${winningTokenId} is not an outcome of market ${conditionId}`);
  if (m.status === 'resolved') throw new ValidationError(`market ${conditionId} is already resolved`);
  c.advance(now);
  c.beginOp();
  for (const o of liveOrdersOf(c, m)) c.cancelOrd(o, 'MARKET_RESOLVED', now);
  m.status = 'resolved';
  m.winningToken = winningTokenId;
  if (c.rec)
    c.emit({
      type: 'market_status',
      market: conditionId,
      status: 'resolved',
      winningToken: winningTokenId,
      at: now,
    });
  c.endOp(now);
}
