/**
 * The shapes the simulated venue reports in: user-channel order updates and fills as the live
 * user channel gives them (src/api/streams/user-decode.ts), the port's VenueOrder, and a token's
 * book snapshot as the bot would get it now. Pure functions of the venue's state.
 */
import type { BookSnapshotEvent, FillEvent, OrderStatus, OrderUpdateEvent } from '../../core/events.ts';
import type { OrderId, TradeId } from '../../core/ids.ts';
import type { Micro, Pips } from '../../core/units.ts';
import type { VenueFill, VenueOrder } from '../../core/venue.ts';
import { withOwn } from './show-own.ts';
import type { SimOrder, TokenState } from './sim-state.ts';

/** An order update of `o` at `now` (its size matched so far), as the user channel sends it. */
export function orderEvent(
  o: SimOrder,
  kind: OrderUpdateEvent['kind'],
  status: OrderStatus,
  now: number,
): OrderUpdateEvent {
  return {
    type: 'order_update',
    kind,
    venueTime: now,
    recvTime: now,
    id: o.id,
    market: o.market.info.market,
    tokenId: o.token.id,
    side: o.side,
    price: o.price as Pips,
    originalSize: o.size as Micro,
    sizeMatched: o.matched as Micro,
    status,
    source: 'stream',
  };
}

/** The MATCHED fill event of a venue fill, keyed (trade id, order id), at its match time. */
export function fillEvent(f: VenueFill, feeRateBps: number, takerOrderId: OrderId): FillEvent {
  return {
    type: 'fill',
    venueTime: f.matchTime,
    recvTime: f.matchTime,
    tradeId: f.tradeId as TradeId,
    orderId: f.orderId,
    status: 'MATCHED',
    role: f.role,
    market: f.market,
    tokenId: f.tokenId,
    side: f.side,
    price: f.price,
    size: f.size,
    feeRateBps,
    fee: f.fee,
    takerOrderId,
    source: 'stream',
  };
}

/** The port's view of an order. */
export function venueOrder(o: SimOrder): VenueOrder {
  return {
    id: o.id,
    market: o.market.info.market,
    tokenId: o.token.id,
    side: o.side,
    price: o.price as Pips,
    originalSize: o.size as Micro,
    sizeMatched: o.matched as Micro,
    status: o.status,
  };
}

/** The book of a token as the bot would get it at `now` (recorded, plus our resting orders when `show`). */
export function snapshotOf(tok: TokenState, now: number, show: boolean): BookSnapshotEvent {
  const lv = tok.book.levels();
  return {
    type: 'book_snapshot',
    venueTime: now,
    recvTime: now,
    market: tok.market.info.market,
    tokenId: tok.id,
    bids: show ? withOwn(lv.bids, tok.shownBid, true) : lv.bids,
    asks: show ? withOwn(lv.asks, tok.shownAsk, false) : lv.asks,
    hash: tok.hash,
    tickSize: tok.market.tick as Pips,
    minOrderSize: tok.market.info.minOrderSize,
    lastTradePrice: tok.lastTradePrice === 0 ? null : (tok.lastTradePrice as Pips),
  };
}
