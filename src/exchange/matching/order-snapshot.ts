/**
 * The OrderState snapshots the matching engine hands out, built by one object literal.
 *
 * For the matching engine only (src/exchange/matching/engine.ts).
 */
import type { Side } from '../../core/units.ts';
import type { OrderState, OrderStatus, OrderType } from './types.ts';

/** Shared tradeIds of snapshots of orders that never traded (frozen: snapshots are read-only). */
export const NO_TRADES: string[] = Object.freeze([] as string[]) as string[];

/** Builds an OrderState snapshot (one object literal for all of them; see the priming below). */
export function orderState(
  id: string,
  account: string,
  owner: string,
  market: string,
  tokenId: string,
  outcome: 'Yes' | 'No',
  side: Side,
  price: number,
  originalSize: number,
  sizeMatched: number,
  status: OrderStatus,
  type: OrderType,
  expiresAt: number,
  feeRateBps: number,
  createdAt: number,
  reserved: number,
  tradeIds: string[],
): OrderState {
  return {
    id,
    account,
    owner,
    market,
    tokenId,
    outcome,
    side,
    price,
    originalSize,
    sizeMatched,
    status,
    type,
    expiresAt,
    feeRateBps,
    createdAt,
    reserved,
    tradeIds,
  };
}
// V8 detail, for speed only: the first object a literal builds fixes how its fields are stored.
// Building one with non-numbers first keeps the numeric fields "tagged", so small integers (most
// prices, sizes and amounts) are stored in the object itself instead of in a heap number each:
// snapshots, the bulk of the engine's allocations, get about a quarter smaller.
{
  const x = null as unknown as number;
  orderState('', '', '', '', '', 'Yes', 'BUY', x, x, x, 'LIVE', 'GTC', x, x, x, x, NO_TRADES);
  orderState('', '', '', '', '', 'Yes', 'BUY', 0, 0, 0, 'LIVE', 'GTC', 0, 0, 0, 0, NO_TRADES);
}
