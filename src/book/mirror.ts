/**
 * Local order-book mirrors built from market events, in integer units. Pure: no I/O, no clock.
 *
 * One mirror per token: each side is a dense array indexed by price in pips (0..10000) holding the
 * level's size in micro-shares (a Float64Array holds integers exactly up to 2^53), so an update is
 * O(1) and the best price moves by a short scan only when the best level empties. `stale` is true
 * until the first snapshot and again from a `disconnected` (or a detected desync) until the next
 * snapshot: no book, no quote.
 *
 * `feedMirrors` applies a market-event Observable to a set of mirrors and passes every event on
 * AFTER applying it, so a consumer downstream always reads mirrors that include the event. After
 * each `price_change` batch it checks the mirror's best bid/ask against the venue's (the batch's
 * best_bid/best_ask): a mismatch marks the book stale, emits a `stream_error` and asks for a fresh
 * snapshot through `onDesync` (a book that silently drifted is worse than no book).
 *
 * The YES/NO complement: a bid for YES at p is an offer of NO at 1 - p; `complementLevels` gives
 * one token's book as seen from the other.
 */
import { Observable } from 'rxjs';
import { assertNever, priceLevel, type MarketEvent, type PriceLevel, type StreamErrorEvent } from '../core/events.ts';
import type { Micro, Pips, Side } from '../core/units.ts';
import { PRICE_SCALE } from '../core/units.ts';

/** Slots per side: prices 0..10000 pips. */
export const PRICE_SLOTS = PRICE_SCALE + 1;

/** A token's book as sorted levels: bids descending, asks ascending (best first). */
export interface BookLevels {
  bids: PriceLevel[];
  asks: PriceLevel[];
}

function checkPrice(price: number): void {
  if (!Number.isInteger(price) || price < 1 || price >= PRICE_SCALE)
    throw new RangeError(`price out of range (pips in [1, 9999]): ${price}`);
}
function checkSize(size: number): void {
  if (!Number.isSafeInteger(size) || size < 0)
    throw new RangeError(`size must be a non-negative safe integer (micro): ${size}`);
}

/** 32-bit words of a side's occupancy bitmap (bit p set: a level at p pips). */
const WORDS = (PRICE_SLOTS + 31) >> 5;

/** Highest set bit at or below `p` (-1: none). */
function prevSet(bits: Int32Array, p: number): number {
  if (p < 0) return -1;
  let w = p >> 5;
  const b = p & 31;
  let word = bits[w]! & (b === 31 ? -1 : (1 << (b + 1)) - 1);
  while (word === 0) {
    if (--w < 0) return -1;
    word = bits[w]!;
  }
  return (w << 5) + 31 - Math.clz32(word);
}

/** Lowest set bit at or above `p` (-1: none). */
function nextSet(bits: Int32Array, p: number): number {
  if (p >= PRICE_SLOTS) return -1;
  let w = p >> 5;
  let word = bits[w]! & ~((1 << (p & 31)) - 1);
  while (word === 0) {
    if (++w >= WORDS) return -1;
    word = bits[w]!;
  }
  return (w << 5) + 31 - Math.clz32(word & -word);
}

/** The order book of one token (see the module comment). */
export class BookMirror {
  private readonly bidSz = new Float64Array(PRICE_SLOTS);
  private readonly askSz = new Float64Array(PRICE_SLOTS);
  // which prices hold a level, per side: the next level from a price is a bit scan, not a walk
  // through the empty pips between levels (100 of them at a 0.01 tick)
  private readonly bidBits = new Int32Array(WORDS);
  private readonly askBits = new Int32Array(WORDS);
  private bb = 0; // best bid pips, 0 = none
  private ba = 0; // best ask pips, 0 = none
  private nb = 0; // bid levels
  private na = 0; // ask levels
  // the price range that may hold a non-zero size, per side (lo > hi: none): a snapshot clears only
  // that range, not the whole 80 KB array (which would also evict the caches on the hot path)
  private bidLo = PRICE_SLOTS;
  private bidHi = -1;
  private askLo = PRICE_SLOTS;
  private askHi = -1;
  /** True until the first snapshot and from a disconnect or desync until the next snapshot. */
  stale = true;
  /** True once a snapshot has been applied. */
  snapshotted = false;
  /** Condition id of the market, from the snapshot. */
  market = '';
  /** The venue's last hash for this book (opaque). */
  hash = '';
  /** Venue time of the last applied event, unix ms. */
  venueTime = 0;
  /** Tick size in pips when known (snapshot, tick_size_change), else 0. */
  tickSize = 0;
  /** Last trade price in pips when known, else 0. */
  lastTradePrice = 0;
  /** Level updates applied (snapshot levels excluded). */
  updates = 0;

  constructor(readonly tokenId: string) {}

  /** Best bid in pips, null when there is none. */
  bestBid(): Pips | null {
    return this.bb === 0 ? null : (this.bb as Pips);
  }
  /** Best ask in pips, null when there is none. */
  bestAsk(): Pips | null {
    return this.ba === 0 ? null : (this.ba as Pips);
  }
  /** Number of levels on a side. */
  depth(side: Side): number {
    return side === 'BUY' ? this.nb : this.na;
  }
  /** Size at a price (micro-shares), 0 when no level. */
  sizeAt(side: Side, price: number): Micro {
    if (!Number.isInteger(price) || price < 0 || price > PRICE_SCALE) return 0 as Micro;
    return (side === 'BUY' ? this.bidSz[price]! : this.askSz[price]!) as Micro;
  }

  /**
   * Replaces the whole book (levels in any order; a size of 0 is no level) and clears `stale`.
   * @throws RangeError on a price outside [1, 9999] or a size that is not a non-negative safe integer
   */
  applySnapshot(
    bids: readonly PriceLevel[],
    asks: readonly PriceLevel[],
    meta: {
      hash?: string;
      venueTime?: number;
      market?: string;
      tickSize?: number | null;
      lastTradePrice?: number | null;
    } = {},
  ): void {
    // indexed loops, no destructuring: `for (const [p, s] of levels)` destructures each level through
    // the iterator protocol, which measured twice the cost of the whole snapshot
    for (let i = 0; i < bids.length; i++) checkPrice(bids[i]![0]), checkSize(bids[i]![1]);
    for (let i = 0; i < asks.length; i++) checkPrice(asks[i]![0]), checkSize(asks[i]![1]);
    if (this.bidLo <= this.bidHi) clearSide(this.bidSz, this.bidBits, this.bidLo, this.bidHi);
    if (this.askLo <= this.askHi) clearSide(this.askSz, this.askBits, this.askLo, this.askHi);
    this.bidLo = this.askLo = PRICE_SLOTS;
    this.bidHi = this.askHi = -1;
    this.bb = this.ba = this.nb = this.na = 0;
    for (let i = 0; i < bids.length; i++) this.set(this.bidSz, true, bids[i]![0], bids[i]![1]);
    for (let i = 0; i < asks.length; i++) this.set(this.askSz, false, asks[i]![0], asks[i]![1]);
    this.stale = false;
    this.snapshotted = true;
    if (meta.hash !== undefined) this.hash = meta.hash;
    if (meta.venueTime !== undefined) this.venueTime = meta.venueTime;
    if (meta.market !== undefined) this.market = meta.market;
    if (meta.tickSize) this.tickSize = meta.tickSize;
    if (meta.lastTradePrice) this.lastTradePrice = meta.lastTradePrice;
  }

  /**
   * Sets one level's total size (0 removes it). BUY is the bid side, SELL the ask side.
   * @throws RangeError on a price outside [1, 9999] or a size that is not a non-negative safe integer
   */
  applyLevel(side: Side, price: number, size: number): void {
    checkPrice(price);
    checkSize(size);
    this.set(side === 'BUY' ? this.bidSz : this.askSz, side === 'BUY', price, size);
    this.updates++;
  }

  private set(arr: Float64Array, bid: boolean, p: number, s: number): void {
    const prev = arr[p]!;
    arr[p] = s;
    if (prev === 0 && s > 0) {
      if (bid) {
        this.bidBits[p >> 5]! |= 1 << (p & 31);
        this.nb++;
        if (p > this.bb) this.bb = p;
        if (p < this.bidLo) this.bidLo = p;
        if (p > this.bidHi) this.bidHi = p;
      } else {
        this.askBits[p >> 5]! |= 1 << (p & 31);
        this.na++;
        if (this.ba === 0 || p < this.ba) this.ba = p;
        if (p < this.askLo) this.askLo = p;
        if (p > this.askHi) this.askHi = p;
      }
    } else if (prev > 0 && s === 0) {
      if (bid) {
        this.bidBits[p >> 5]! &= ~(1 << (p & 31));
        this.nb--;
        if (p === this.bb) this.bb = this.nb > 0 ? Math.max(0, prevSet(this.bidBits, p - 1)) : 0;
      } else {
        this.askBits[p >> 5]! &= ~(1 << (p & 31));
        this.na--;
        if (p === this.ba) {
          const q = this.na > 0 ? nextSet(this.askBits, p + 1) : -1;
          this.ba = q < 0 || q >= PRICE_SCALE ? 0 : q;
        }
      }
    }
  }

  /** The book as sorted levels, best first; at most `maxDepth` per side. */
  levels(maxDepth = Infinity): BookLevels {
    return { bids: this.sideLevels(true, maxDepth), asks: this.sideLevels(false, maxDepth) };
  }

  /**
   * One side's levels, best first, at most `maxDepth`: what `levels(maxDepth).bids` (or `.asks`)
   * holds, without scanning the other side (a reader of one side, e.g. "the best level not ours",
   * pays half).
   */
  sideLevels(bids: boolean, maxDepth = Infinity): PriceLevel[] {
    const out: PriceLevel[] = [];
    if (bids) {
      const n = Math.min(this.nb, maxDepth);
      for (let p = this.bb; p > 0 && out.length < n; p = prevSet(this.bidBits, p - 1))
        out.push(priceLevel(p, this.bidSz[p]!));
    } else if (this.ba > 0) {
      const n = Math.min(this.na, maxDepth);
      for (let p = this.ba; p > 0 && p < PRICE_SCALE && out.length < n; p = nextSet(this.askBits, p + 1))
        out.push(priceLevel(p, this.askSz[p]!));
    }
    return out;
  }

  /** Marks the book stale (its stream was lost, or it no longer matches the venue). */
  markStale(): void {
    this.stale = true;
  }
}

/** One token's book seen from its complement: NO bids are YES asks at 1 - p, NO asks are YES bids at 1 - p. */
export function complementLevels(book: BookLevels): BookLevels {
  return {
    bids: book.asks.map(([p, s]) => priceLevel(PRICE_SCALE - p, s)),
    asks: book.bids.map(([p, s]) => priceLevel(PRICE_SCALE - p, s)),
  };
}

/** A complement price: 1 - p in pips (null stays null). */
export function complementPrice(p: Pips | null): Pips | null {
  return p === null ? null : ((PRICE_SCALE - p) as Pips);
}

/** What applying one event found: tokens whose book no longer matches the venue's best prices. */
export interface ApplyResult {
  desynced: Array<{ tokenId: string; reason: string }>;
}

const NONE: ApplyResult = { desynced: [] };

/** Mirrors of every token a market stream shows, keyed by token id. */
export class BookMirrors {
  private readonly books = new Map<string, BookMirror>();
  /** Venue best prices per token touched in the current price_change batch. */
  private readonly touched = new Map<string, { bid: number | null; ask: number | null }>();
  /** Desyncs detected so far. */
  desyncs = 0;

  constructor(private readonly o: { verifyTop?: boolean } = {}) {}

  get(tokenId: string): BookMirror | undefined {
    return this.books.get(tokenId);
  }
  /** The mirror of a token, created (stale, empty) when missing. */
  ensure(tokenId: string): BookMirror {
    let m = this.books.get(tokenId);
    if (m === undefined) this.books.set(tokenId, (m = new BookMirror(tokenId)));
    return m;
  }
  /** Drops a token's mirror (e.g. after unsubscribing it). */
  delete(tokenId: string): boolean {
    return this.books.delete(tokenId);
  }
  values(): IterableIterator<BookMirror> {
    return this.books.values();
  }
  get size(): number {
    return this.books.size;
  }
  /** Marks every mirror stale. */
  markAllStale(): void {
    for (const m of this.books.values()) m.markStale();
  }

  /** Applies one market event to the mirrors. */
  apply(e: MarketEvent): ApplyResult {
    switch (e.type) {
      case 'book_snapshot': {
        this.touched.delete(e.tokenId);
        this.ensure(e.tokenId).applySnapshot(e.bids, e.asks, {
          hash: e.hash,
          venueTime: e.venueTime,
          market: e.market,
          tickSize: e.tickSize,
          lastTradePrice: e.lastTradePrice,
        });
        return NONE;
      }
      case 'level_change': {
        const m = this.books.get(e.tokenId);
        if (m?.snapshotted) {
          m.applyLevel(e.side, e.price, e.size);
          m.hash = e.hash;
          m.venueTime = e.venueTime;
          if (this.o.verifyTop !== false && !m.stale) this.touched.set(e.tokenId, { bid: e.bestBid, ask: e.bestAsk });
        }
        return e.endOfBatch ? this.verify() : NONE;
      }
      case 'tick_size_change': {
        const m = this.books.get(e.tokenId);
        if (m !== undefined) m.tickSize = e.new;
        return NONE;
      }
      case 'last_trade': {
        const m = this.books.get(e.tokenId);
        if (m !== undefined) m.lastTradePrice = e.price;
        return NONE;
      }
      case 'disconnected':
        if (e.stream === 'market') {
          this.touched.clear();
          this.markAllStale();
        }
        return NONE;
      case 'best_bid_ask':
      case 'new_market':
      case 'market_resolved':
      case 'market_updated':
      case 'resynced':
      case 'stream_error':
        return NONE;
      default:
        return assertNever(e, 'market event');
    }
  }

  private verify(): ApplyResult {
    if (this.touched.size === 0) return NONE;
    let out: ApplyResult | undefined;
    for (const [tokenId, venue] of this.touched) {
      const m = this.books.get(tokenId);
      if (m === undefined || m.stale) continue;
      const bid = m.bestBid();
      const ask = m.bestAsk();
      if (bid !== venue.bid || ask !== venue.ask) {
        m.markStale();
        this.desyncs++;
        (out ??= { desynced: [] }).desynced.push({
          tokenId,
          reason: `book desync on ${tokenId}: mirror best ${bid ?? '-'}/${ask ?? '-'}, venue ${venue.bid ?? '-'}/${venue.ask ?? '-'} (pips)`,
        });
      }
    }
    this.touched.clear();
    return out ?? NONE;
  }
}

export interface FeedOptions {
  /** Called with the tokens whose book no longer matches the venue: ask the stream for fresh snapshots. */
  onDesync?: (tokenIds: string[]) => void;
}

/**
 * Applies a market-event stream to `mirrors` and passes each event on after applying it; a
 * detected desync is followed by a `stream_error` event and `onDesync`. Errors and completion pass
 * through.
 */
export function feedMirrors(
  source$: Observable<MarketEvent>,
  mirrors: BookMirrors,
  o: FeedOptions = {},
): Observable<MarketEvent> {
  return new Observable<MarketEvent>((sub) =>
    source$.subscribe({
      next(e) {
        const r = mirrors.apply(e);
        sub.next(e);
        if (r.desynced.length > 0) {
          for (const d of r.desynced) {
            const err: StreamErrorEvent = {
              type: 'stream_error',
              stream: 'market',
              reason: d.reason,
              venueTime: e.venueTime,
              recvTime: e.recvTime,
            };
            sub.next(err);
          }
          o.onDesync?.(r.desynced.map((d) => d.tokenId));
        }
      },
      error: (err: unknown) => sub.error(err),
      complete: () => sub.complete(),
    }),
  );
}

/**
 * Empties one side between `lo` and `hi` (the range it ever held since the last snapshot): only
 * the occupied levels, found word by word in the occupancy bitmap (a size is non-zero exactly where
 * its bit is set), are zeroed. A snapshot replaces ~10 levels spread over hundreds of price slots:
 * clearing the whole range cost more than reading the snapshot.
 */
function clearSide(sz: Float64Array, bits: Int32Array, lo: number, hi: number): void {
  for (let w = lo >> 5, end = hi >> 5; w <= end; w++) {
    let x = bits[w]!;
    if (x === 0) continue;
    bits[w] = 0;
    const base = w << 5;
    while (x !== 0) {
      sz[base + 31 - Math.clz32(x & -x)] = 0;
      x &= x - 1;
    }
  }
}
