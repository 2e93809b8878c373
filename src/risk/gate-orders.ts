/**
 * The immediate-order gate: the rare FOK/FAK orders a strategy asks for (`gateOrder`, `gateOrders`),
 * checked whole (approved or refused, never trimmed) on the room the same output leaves them
 * (`OrderRoom`). The quote-set gate is gate.ts, which re-exports this module.
 */
import type { ConditionId, TokenId } from '../core/ids.ts';
import type { DesiredQuotes, ImmediateIntent } from '../core/intents.ts';
import {
  LOT_MICRO,
  PRICE_SCALE,
  isValidPrice,
  marketBuyTerms,
  notional,
  tickFromPips,
  type Micro,
} from '../core/units.ts';
import { approveOrder, type Approved } from './approval.ts';
import {
  NO_FOREIGN,
  badPrice,
  badSide,
  badSize,
  checkMarket,
  px,
  remainingOf,
  selfTrade,
  sh,
  type Refusal,
  type RiskCode,
  type RiskView,
} from './gate-checks.ts';

/** The gate's answer for one immediate order. */
export type OrderGateResult =
  | { readonly approved: Approved<ImmediateIntent>; readonly refusal: null }
  | { readonly approved: null; readonly refusal: Refusal<ImmediateIntent> };

/**
 * What an output's other parts take from an immediate order's room (`gateOrders`). The approved
 * quote sets of the same output REPLACE their markets' live orders, and execution runs a market's
 * quote change handed before an immediate order ahead of it (src/execution/executor.ts), so the
 * shares and collateral the order may use are counted on the state after the replacement: the live
 * sells of a replaced market are gone and the set's approved sells reserve their size instead (the
 * venue refuses a SELL of shares a resting sell of ours holds: INVALID_ORDER_NOT_ENOUGH_BALANCE).
 * The orders approved before it in the same output have spent their shares and collateral.
 */
export interface OrderRoom {
  /** The output's approved quote sets, each replacing its market's live orders. */
  readonly replacing: readonly DesiredQuotes[];
  /** Shares sold and bought by the orders approved before, by token; collateral they spent. */
  readonly sold: Map<TokenId, number>;
  readonly bought: Map<TokenId, number>;
  spent: number;
}

/** An empty room (no quote set replaced, no order before). */
export function orderRoom(replacing: readonly DesiredQuotes[] = []): OrderRoom {
  return { replacing, sold: new Map(), bought: new Map(), spent: 0 };
}

/** The shares of `token` that our resting sells will hold when the order goes (see OrderRoom). */
function reservedShares(token: TokenId, market: ConditionId, view: RiskView, room: OrderRoom): number {
  let n = 0;
  const set = room.replacing.find((d) => d.market === market);
  if (set !== undefined) {
    for (const q of set.quotes) if (q.tokenId === token && q.side === 'SELL') n += q.size;
    return n;
  }
  for (const o of view.openOrders()) if (o.tokenId === token && o.side === 'SELL') n += Math.max(0, remainingOf(o));
  return n;
}

/** The collateral free when the order goes: a replaced market's live buys release theirs, its set's buys take theirs. */
function freeCollateral(market: ConditionId, view: RiskView, room: OrderRoom): number {
  let free = view.availableCollateral - room.spent;
  const set = room.replacing.find((d) => d.market === market);
  if (set === undefined) return free;
  for (const o of view.openOrders()) {
    const rem = remainingOf(o);
    if (o.market === market && o.side === 'BUY' && rem > 0) free += notional(rem, o.price, 'up');
  }
  for (const q of set.quotes) if (q.side === 'BUY') free -= notional(q.size, q.price, 'up');
  return free;
}

/**
 * Checks the immediate orders (FOK/FAK) of one output, in order, each as `gateOrder` does, on the
 * room the output leaves them (OrderRoom: its quote sets replace their markets' live orders, the
 * orders approved before spend shares and collateral). Pure.
 */
export function gateOrders(
  orders: readonly ImmediateIntent[],
  view: RiskView,
  replacing: readonly DesiredQuotes[] = [],
): OrderGateResult[] {
  const room = orderRoom(replacing);
  return orders.map((o) => gateOrder(o, view, room));
}

/**
 * Checks a rare immediate order (FOK/FAK): the whole-market checks, the tick and price limits, the
 * price band (its worst price must be within maxMidDistance of the mid), no foreign order of our
 * own wallet within its worst price (SELF_TRADE), maxOrderSize, the position
 * limit (BUY) or the shares held and not reserved by our resting sells (SELL) and the collateral,
 * on `room` (what the same output's quote sets and earlier orders leave: OrderRoom; approving the
 * order spends its share of it). No trimming: an immediate order is approved whole or refused, a
 * BUY at the size its whole-cent amount buys (core/units.ts `marketBuyTerms`: the size asked, or a
 * little more at a price of 3-4 decimals), and under the market's minimum size it is refused
 * (MIN_SIZE), as the venue would. Pure but for `room`.
 */
export function gateOrder(order: ImmediateIntent, view: RiskView, room: OrderRoom = orderRoom()): OrderGateResult {
  const refuse = (code: RiskCode, reason: string): OrderGateResult => ({
    approved: null,
    refusal: { quote: order, code, reason },
  });
  const mc = checkMarket(order.market, [order.tokenId], view);
  if ('code' in mc) return refuse(mc.code, mc.reason);
  const top = mc.tops.get(order.tokenId);
  if (top === undefined)
    return refuse('WRONG_TOKEN', `token ${order.tokenId} is not a token of market ${order.market}`);
  if (order.side !== 'BUY' && order.side !== 'SELL') return refuse('INVALID_SIDE', badSide(order.side));
  if (!Number.isInteger(order.price) || order.price <= 0 || order.price >= PRICE_SCALE)
    return refuse('INVALID_PRICE', badPrice(order.price));
  if (!isValidPrice(order.price, mc.tick))
    return refuse('OFF_TICK', `price ${px(order.price)} is not on the tick (${px(mc.tick)})`);
  if (order.price < mc.limits.minPrice || order.price > mc.limits.maxPrice)
    return refuse(
      'PRICE_LIMIT',
      `price ${px(order.price)} outside the limits [${px(mc.limits.minPrice)}, ${px(mc.limits.maxPrice)}]`,
    );
  if (Math.abs(order.price - top.mid) > mc.limits.maxMidDistance)
    return refuse(
      'PRICE_BAND',
      `worst price ${px(order.price)} is too far from the mid ${px(top.mid)} (band ${px(mc.limits.maxMidDistance)})`,
    );
  const foreign = view.foreignOrders?.(order.market) ?? NO_FOREIGN;
  const mine = foreign.length === 0 ? undefined : selfTrade(order.side, order.price, order.tokenId, foreign);
  if (mine !== undefined)
    return refuse(
      'SELF_TRADE',
      `a ${order.side} up to ${px(order.price)} could trade with an order resting on our own wallet that the bot did not place (${mine.side} at ${px(mine.price)})`,
    );
  if (!Number.isSafeInteger(order.size) || order.size <= 0 || order.size % LOT_MICRO !== 0)
    return refuse(
      'INVALID_SIZE',
      badSize(order.size) ?? `size ${sh(order.size)} is not a positive number of 0.01-share lots`,
    );
  // a market BUY is signed for whole cents of collateral: it buys `size`, which may be a little more
  // than asked at a price of 3-4 decimals (core/units.ts marketBuyTerms); the venues sign and fill it
  const size =
    order.side === 'BUY' ? marketBuyTerms(order.size, order.price, tickFromPips(mc.tick)).shares : order.size;
  const bought = size === order.size ? '' : ` (${sh(size)} as signed: a market BUY spends whole cents)`;
  const minSize = Math.max(mc.info.minOrderSize, LOT_MICRO);
  if (size < minSize) return refuse('MIN_SIZE', `size ${sh(order.size)} is below the market's minimum ${sh(minSize)}`);
  if (size > mc.limits.maxOrderSize)
    return refuse('ORDER_SIZE', `size ${sh(order.size)}${bought} above maxOrderSize ${sh(mc.limits.maxOrderSize)}`);
  const pos = Math.max(0, view.position(order.tokenId));
  const token = order.tokenId;
  if (order.side === 'BUY') {
    const before = room.bought.get(token) ?? 0;
    if (pos + before + size > mc.limits.maxPosition)
      return refuse(
        'POSITION',
        `position ${sh(pos)}${before > 0 ? ` + ${sh(before)} bought by the orders before it` : ''} + ${sh(size)}${bought} would exceed maxPosition ${sh(mc.limits.maxPosition)}`,
      );
    const n = notional(size, order.price, 'up');
    const free = freeCollateral(order.market, view, room);
    if (n > free) return refuse('COLLATERAL', `needs more than the ${sh(Math.max(0, free))} USDC collateral available`);
    room.bought.set(token, before + size);
    room.spent += n;
  } else {
    const before = room.sold.get(token) ?? 0;
    const reserved = reservedShares(token, order.market, view, room);
    if (order.size > pos - reserved - before) {
      const taken = [
        reserved > 0 ? `${sh(reserved)} held by your resting sells (pull or shrink them first)` : '',
        before > 0 ? `${sh(before)} sold by the orders before it` : '',
      ].filter((x) => x !== '');
      return refuse(
        'NO_INVENTORY',
        `sells ${sh(order.size)} with ${sh(pos)} shares held${taken.length > 0 ? `, ${taken.join(' and ')}` : ''}`,
      );
    }
    room.sold.set(token, before + order.size);
  }
  // a copy: the approval is spent when executed, whatever the strategy does with its object
  return {
    approved: approveOrder(size === order.size ? { ...order } : { ...order, size: size as Micro }),
    refusal: null,
  };
}
