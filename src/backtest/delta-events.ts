/**
 * Feed events counted in an incremental unit (hftbacktest's: each change of a book level, each
 * trade), for throughput figures that do not count the same information several times.
 *
 * The simulated venue's `feedEvents` (SimVenueStats) counts every level of every `book` snapshot.
 * The venue sends a snapshot of both tokens after every trade, and those levels repeat what the
 * level changes before them already said: most of a recorded feed's "feed events" are such
 * repeats. The delta count is, per market:
 *  - a level change of the market's first token (YES): 1. Those of its second token (NO) are 0: the
 *    venue keeps one book per market and prints each change on both tokens (a NO bid at q is the
 *    YES ask at 1 - q), so the NO side is derived;
 *  - a trade printed on the YES token: 1; its NO print: 0 (the same match, derived);
 *  - a `book` snapshot of the YES token: the levels that differ from the YES book mirrored so far
 *    (a level whose size is new, or a mirrored level the snapshot no longer has); the snapshot
 *    then replaces the mirror. A snapshot that repeats the mirrored book counts 0. NO snapshots: 0;
 *  - a tick size change of the YES token, a resolution, a new market: 1 each;
 *  - best bid/ask: 0 (derived from the levels).
 * Tokens not in a feed header (no market known) are counted as YES tokens (each is its own book).
 * Level changes of every YES token update its mirror, so the count of a snapshot is exact.
 */
import type { MarketDataEvent, PriceLevel } from '../core/events.ts';
import type { MarketInfo } from '../core/venue.ts';
import { FrameScanner } from '../api/streams/frame-scan.ts';
import { MarketDecoder } from '../api/streams/market-decode.ts';
import { replayCachedBatches, replayFeedBatches } from './replay.ts';

/** One mirrored book: price (pips) → size (micro), per side. */
interface MirrorBook {
  bids: Map<number, number>;
  asks: Map<number, number>;
}

/** Counts market-data events in the incremental unit described in the module comment. */
export class DeltaEventCounter {
  /** Delta events counted so far. */
  count = 0;
  /** Second tokens (NO) of the known markets: derived, never counted. */
  readonly #derived = new Set<string>();
  readonly #books = new Map<string, MirrorBook>();

  constructor(markets: readonly MarketInfo[] = []) {
    this.addMarkets(markets);
  }

  /** Markets of a feed header (a market already known is unchanged). */
  addMarkets(markets: readonly MarketInfo[]): void {
    for (const m of markets) {
      const no = m.tokens?.[1]?.tokenId;
      if (no !== undefined) this.#derived.add(no);
    }
  }

  /** Counts one event; returns its delta events. */
  add(e: MarketDataEvent): number {
    const n = this.#of(e);
    this.count += n;
    return n;
  }

  #of(e: MarketDataEvent): number {
    switch (e.type) {
      case 'level_change': {
        if (this.#derived.has(e.tokenId)) return 0;
        const b = this.#book(e.tokenId);
        const side = e.side === 'BUY' ? b.bids : b.asks;
        if (e.size > 0) side.set(e.price, e.size);
        else side.delete(e.price);
        return 1;
      }
      case 'book_snapshot': {
        if (this.#derived.has(e.tokenId)) return 0;
        const b = this.#book(e.tokenId);
        const bids = levelMap(e.bids);
        const asks = levelMap(e.asks);
        const n = changed(b.bids, bids) + changed(b.asks, asks);
        b.bids = bids;
        b.asks = asks;
        return n;
      }
      case 'last_trade':
      case 'tick_size_change':
        return this.#derived.has(e.tokenId) ? 0 : 1;
      case 'market_resolved':
      case 'new_market':
        return 1;
      case 'best_bid_ask':
        return 0;
    }
  }

  #book(token: string): MirrorBook {
    let b = this.#books.get(token);
    if (b === undefined) this.#books.set(token, (b = { bids: new Map(), asks: new Map() }));
    return b;
  }
}

function levelMap(levels: readonly PriceLevel[]): Map<number, number> {
  const m = new Map<number, number>();
  for (const [p, s] of levels) if (s > 0) m.set(p, s);
  return m;
}

/** Levels of `next` whose size differs from `prev`, plus levels of `prev` that `next` lacks. */
function changed(prev: ReadonlyMap<number, number>, next: ReadonlyMap<number, number>): number {
  let n = 0;
  for (const [p, s] of next) if (prev.get(p) !== s) n++;
  for (const p of prev.keys()) if (!next.has(p)) n++;
  return n;
}

/** The sim venue's feed-event unit (SimVenueStats.feedEvents) of one event. */
export function feedEventsOf(e: MarketDataEvent): number {
  return e.type === 'book_snapshot' ? Math.max(1, e.bids.length + e.asks.length) : 1;
}

/** What one pass over a feed counted. */
export interface FeedEventCounts {
  /** Market-data events decoded (the decoder's `events`). */
  readonly events: number;
  /** In the simulated venue's unit (every snapshot level; equals SimVenueStats.feedEvents of a replay of the feed). */
  readonly feedEvents: number;
  /** In the incremental unit (see the module comment). */
  readonly deltaEvents: number;
}

/**
 * Counts a feed's market-channel events in both units, in one pass (decoded as the simulated venue
 * decodes them: the frame scanner, or the reference decoder for a frame it declines). With
 * `caches` (feed file → decoded-event cache, see ./feed-cache.ts) cached files are read from there.
 */
export async function countFeedEvents(
  files: readonly string[],
  caches?: ReadonlyMap<string, string>,
): Promise<FeedEventCounts> {
  const counter = new DeltaEventCounter();
  const scanner = new FrameScanner();
  const decoder = new MarketDecoder();
  let events = 0;
  let feedEvents = 0;
  const on = (e: MarketDataEvent): void => {
    events++;
    feedEvents += feedEventsOf(e);
    counter.add(e);
  };
  const batches = caches !== undefined ? replayCachedBatches(files, caches) : replayFeedBatches(files);
  for await (const b of batches) {
    for (const it of b) {
      if (it.kind === 'header') counter.addMarkets(it.header.markets ?? []);
      else if (it.kind === 'events') for (const e of it.events()) on(e);
      else if (it.kind === 'frame' && it.ch === 'm') {
        if (scanner.scan(it.raw, it.t, decoder.stats, on)) continue;
        let parsed: unknown;
        try {
          parsed = JSON.parse(it.raw);
        } catch {
          continue;
        }
        for (const msg of Array.isArray(parsed) ? parsed : [parsed]) decoder.decode(msg, it.t, on);
      }
    }
  }
  return { events, feedEvents, deltaEvents: counter.count };
}
