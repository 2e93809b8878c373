/**
 * From the engine's YES-book level events to the market channel's per-token `price_change`
 * entries. Pure: no exchange, no sockets.
 *
 * The engine keeps one book per market in YES terms. A YES bid at p is the YES token's BUY level p
 * and, mirrored, the NO token's SELL level 1 - p; a YES ask at p is the YES token's SELL level p and
 * the NO token's BUY level 1 - p. Sizes are the same on both tokens.
 */
import { formatAmount, formatPrice, PRICE_SCALE } from '../../core/units.ts';
import type { BookLevel, BookView } from '../matching/types.ts';

/** One touched YES-book level (its total after the batch, micro-shares). */
export interface YesLevel {
  side: 'bid' | 'ask';
  yesPrice: number; // pips
  size: number; // micro-shares; 0 = level gone
}

/** A level of one token's book as `price_change` reports it. */
export interface TokenLevel {
  price: number; // pips, the token's own scale
  side: 'BUY' | 'SELL';
  size: number; // micro-shares
}

/** The YES token's level for a YES-book level. */
export function yesLevelOf(l: YesLevel): TokenLevel {
  return { price: l.yesPrice, side: l.side === 'bid' ? 'BUY' : 'SELL', size: l.size };
}

/** The NO token's level for a YES-book level: price 1 - p, opposite side, same size. */
export function noLevelOf(l: YesLevel): TokenLevel {
  return { price: PRICE_SCALE - l.yesPrice, side: l.side === 'bid' ? 'SELL' : 'BUY', size: l.size };
}

/** Key of a YES-book level, unique per (side, price). */
export function levelKey(side: 'bid' | 'ask', yesPrice: number): number {
  return side === 'bid' ? yesPrice : -1 - yesPrice;
}

/**
 * Collects the levels one batch touched: each (side, price) once, in the order first touched; the
 * size kept is the last one seen (sizes are totals, so the last one is the level's state after
 * the batch).
 */
export class LevelCollector {
  private readonly sizes = new Map<number, YesLevel>();
  add(side: 'bid' | 'ask', yesPrice: number, size: number): void {
    const k = levelKey(side, yesPrice);
    const cur = this.sizes.get(k);
    if (cur === undefined) this.sizes.set(k, { side, yesPrice, size });
    else cur.size = size;
  }
  get size(): number {
    return this.sizes.size;
  }
  levels(): YesLevel[] {
    return [...this.sizes.values()];
  }
}

/** Size of the level at `price` in a best-first side (bids descending, asks ascending); 0 if absent. */
export function sizeAt(levels: readonly BookLevel[], price: number, descending: boolean): number {
  let lo = 0;
  let hi = levels.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const p = levels[mid]!.price;
    if (p === price) return levels[mid]!.size;
    if (descending ? p > price : p < price) lo = mid + 1;
    else hi = mid - 1;
  }
  return 0;
}

/**
 * Replaces each touched level's size by its total in the YES book `yesView` as it is now. The
 * stream then states the current truth for every level it lists, so a client that applies it holds
 * the current book even if batches reach the stream out of order (a listener that places orders
 * while being notified makes the exchange notify the nested batch first).
 */
export function withCurrentSizes(levels: readonly YesLevel[], yesView: BookView): YesLevel[] {
  return levels.map((l) => ({
    side: l.side,
    yesPrice: l.yesPrice,
    size: l.side === 'bid' ? sizeAt(yesView.bids, l.yesPrice, true) : sizeAt(yesView.asks, l.yesPrice, false),
  }));
}

/** Best bid / ask of a token's view as the stream shows them: decimal strings, "0" when a side is empty. */
export function bestOf(view: BookView): { best_bid: string; best_ask: string } {
  const b = view.bids[0];
  const a = view.asks[0];
  return { best_bid: b ? formatPrice(b.price) : '0', best_ask: a ? formatPrice(a.price) : '0' };
}

/** Spread as the stream shows it: ask - bid when both sides exist, else "0". */
export function spreadOf(view: BookView): string {
  const b = view.bids[0];
  const a = view.asks[0];
  return b && a ? formatPrice(Math.max(0, a.price - b.price)) : '0';
}

/** A `price_changes[]` entry. */
export interface PriceChangeEntry {
  asset_id: string;
  price: string;
  size: string;
  side: 'BUY' | 'SELL';
  hash: string;
  best_bid: string;
  best_ask: string;
}

/** The wire entry of a token level. */
export function priceChangeEntry(
  assetId: string,
  l: TokenLevel,
  hash: string,
  best: { best_bid: string; best_ask: string },
): PriceChangeEntry {
  return {
    asset_id: assetId,
    price: formatPrice(l.price),
    size: formatAmount(l.size),
    side: l.side,
    hash,
    best_bid: best.best_bid,
    best_ask: best.best_ask,
  };
}

/**
 * A client-side book mirror that applies `book` and `price_change` messages: what a consumer of
 * the market channel does. Used by the tests (and handy for clients): `apply` takes one event
 * object; `levels` gives a token's book as price -> size maps of decimal strings.
 */
export class BookMirror {
  private readonly books = new Map<string, { bids: Map<string, string>; asks: Map<string, string> }>();
  /** Number of price_change entries applied. */
  changes = 0;
  apply(ev: Record<string, unknown>): void {
    if (ev['event_type'] === 'book') {
      const bids = new Map<string, string>();
      const asks = new Map<string, string>();
      for (const l of ev['bids'] as Array<{ price: string; size: string }>) bids.set(l.price, l.size);
      for (const l of ev['asks'] as Array<{ price: string; size: string }>) asks.set(l.price, l.size);
      this.books.set(ev['asset_id'] as string, { bids, asks });
    } else if (ev['event_type'] === 'price_change') {
      for (const c of ev['price_changes'] as PriceChangeEntry[]) {
        const b = this.books.get(c.asset_id);
        if (b === undefined) continue;
        const side = c.side === 'BUY' ? b.bids : b.asks;
        if (c.size === '0') side.delete(c.price);
        else side.set(c.price, c.size);
        this.changes++;
      }
    }
  }
  has(assetId: string): boolean {
    return this.books.has(assetId);
  }
  levels(assetId: string): { bids: Map<string, string>; asks: Map<string, string> } | undefined {
    return this.books.get(assetId);
  }
}
