/**
 * Our resting orders' places in the recorded queues: joining the back of a level, leaving it, the
 * recorded level moves of a venue batch netted against its trades through the queue model
 * (./queue.ts), and the fills a recorded trade or a recorded best price through our prices gives
 * our resting orders. Returns fills; settling and reporting them is the venue's.
 */
import type { Side } from '../../core/units.ts';
import { tradeAtLevel, tradeVolumeAtLevel, type QueueModel } from './queue.ts';
import { consume } from './recorded-book.ts';
import { BY_TRADE, OwnLevel, type MarketState, type SimOrder, type TokenState } from './sim-state.ts';

/** Fills of our resting orders: [order, micro-shares]. */
export type OwnFills = Array<[SimOrder, number]>;

/**
 * A recorded level where we rest moved from `prev`, by recorded message `message`: joins the
 * market's open batch (the queue model runs when it ends). Several venue batches can share a venue
 * millisecond, each its own message: when an earlier message already moved this level in the open
 * batch, that batch of the level ends here (the queue model runs on it now), so a level that emptied
 * and refilled within one millisecond still moves us to its front (netted, the refill would hide it).
 */
export function levelMoved(l: OwnLevel, prev: number, message: number, model: QueueModel): void {
  if (l.inGroup) {
    if (l.message !== message && l.message !== BY_TRADE) {
      for (const o of l.orders) o.ahead = model.depth(o.ahead, l.l0, prev, l.cum);
      l.l0 = prev;
      l.cum = 0;
    }
    l.message = message;
    return;
  }
  l.inGroup = true;
  l.l0 = prev;
  l.cum = 0;
  l.message = message;
  l.token.market.pending.push(l);
}

/** Ends the market's open batch: level moves net of its trades go through the queue model. */
export function finalizeBatch(m: MarketState, model: QueueModel): void {
  for (const l of m.pending) {
    if (l.orders.length > 0) {
      const now = l.token.book.sizeAt(l.isBid ? 'BUY' : 'SELL', l.price);
      for (const o of l.orders) o.ahead = model.depth(o.ahead, l.l0, now, l.cum);
    }
    l.inGroup = false;
    l.cum = 0;
  }
  m.pending.length = 0;
}

/**
 * A recorded trade on token `t` (taker `takerSide`, last fill at `price`, `volume` in all): it
 * advances our resting orders on the side it hit, at its price and through it, and returns the
 * fills it gives them (empty: none).
 */
export function tradeFills(t: TokenState, takerSide: Side, price: number, volume: number): OwnFills {
  const fills: OwnFills = [];
  const hitsBids = takerSide === 'SELL';
  const best = hitsBids ? t.ownBestBid : t.ownBestAsk;
  if (best === 0 || (hitsBids ? best < price : best > price)) return fills;
  const levels = hitsBids ? t.bids : t.asks;
  // our levels it reached, best first (a sweep takes better prices first)
  const reached: OwnLevel[] = [];
  for (const l of levels.values()) if (hitsBids ? l.price >= price : l.price <= price) reached.push(l);
  reached.sort(hitsBids ? (a, b) => b.price - a.price : (a, b) => a.price - b.price);
  let ownAhead = 0;
  const sideName: Side = hitsBids ? 'BUY' : 'SELL';
  for (const l of reached) {
    let vol = volume;
    if (l.price === price) {
      // at the trade's price: only what the level lost in this batch traded here
      const cur = t.book.sizeAt(sideName, l.price);
      const unexplained = l.inGroup ? l.l0 - cur - l.cum : 0;
      vol = tradeVolumeAtLevel(volume, unexplained);
      if (!l.inGroup) {
        l.inGroup = true;
        l.l0 = cur;
        l.cum = 0;
        l.message = BY_TRADE;
        t.market.pending.push(l);
      }
      l.cum += vol;
    }
    for (const o of l.orders) {
      const rem = o.remaining;
      const r = tradeAtLevel(o.ahead, ownAhead, vol, rem);
      o.ahead = l.price === price ? r.ahead : 0; // traded through: nothing recorded is left ahead
      ownAhead += rem;
      if (r.fill > 0) fills.push([o, r.fill]);
    }
  }
  return fills;
}

/**
 * The recorded best opposite price `opp` reached our resting bids (`bids`) or asks on `t`: those at
 * or through it fill in full, and the recorded liquidity that crossed them is marked taken. Returns
 * the fills, best price first.
 */
export function throughFills(t: TokenState, bids: boolean, opp: number): OwnFills {
  const reached: OwnLevel[] = [];
  for (const l of (bids ? t.bids : t.asks).values()) if (bids ? l.price >= opp : l.price <= opp) reached.push(l);
  reached.sort(bids ? (a, b) => b.price - a.price : (a, b) => a.price - b.price);
  const fills: OwnFills = [];
  for (const l of reached) {
    for (const o of l.orders) {
      fills.push([o, o.remaining]);
      // the recorded orders that crossed us would have traded with us: that liquidity is used
      consume(t, !bids, o.price, o.remaining);
    }
  }
  return fills;
}

/** Puts an accepted order at the back of its level (the recorded size there, less what we took, is ahead of it). */
export function joinLevel(o: SimOrder): void {
  const t = o.token;
  const levels = o.isBuy ? t.bids : t.asks;
  let l = levels.get(o.price);
  if (l === undefined) {
    levels.set(o.price, (l = new OwnLevel(t, o.isBuy, o.price)));
    if (o.isBuy) {
      if (o.price > t.ownBestBid) t.ownBestBid = o.price;
    } else if (t.ownBestAsk === 0 || o.price < t.ownBestAsk) t.ownBestAsk = o.price;
  }
  // the recorded size at its price, less what we took there ourselves (those orders are gone for us)
  o.ahead = Math.max(0, t.book.sizeAt(o.side, o.price) - ((o.isBuy ? t.consumedBid : t.consumedAsk).get(o.price) ?? 0));
  o.level = l;
  l.orders.push(o);
  o.market.resting++;
}

/** Takes an order off its level (filled or cancelled); false if it was on none. */
export function leaveLevel(o: SimOrder): boolean {
  const l = o.level;
  if (l === null) return false;
  o.level = null;
  const i = l.orders.indexOf(o);
  if (i >= 0) l.orders.splice(i, 1);
  o.market.resting--;
  if (l.orders.length === 0) {
    const t = l.token;
    const levels = l.isBid ? t.bids : t.asks;
    levels.delete(l.price);
    if (l.isBid && l.price === t.ownBestBid) {
      let b = 0;
      for (const p of levels.keys()) if (p > b) b = p;
      t.ownBestBid = b;
    } else if (!l.isBid && l.price === t.ownBestAsk) {
      let a = 0;
      for (const p of levels.keys()) if (a === 0 || p < a) a = p;
      t.ownBestAsk = a;
    }
  }
  return true;
}
