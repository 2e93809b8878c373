/**
 * The record codec of a feed cache: a growable little-endian record buffer with an id table for
 * market and token ids (Writer), the encoding of a frame's events into an events record
 * (writeEvents), and their decoding on demand (CachedFrame). See ./feed-cache.ts for the format.
 */
import { writeSync } from 'node:fs';
import {
  priceLevel,
  type BestBidAskEvent,
  type BookSnapshotEvent,
  type LastTradeEvent,
  type LevelChangeEvent,
  type MarketDataEvent,
  type PriceLevel,
} from '../core/events.ts';
import type { ConditionId, TokenId } from '../core/ids.ts';
import type { Micro, Pips, Side } from '../core/units.ts';
import type { DecodedFrameItem } from '../venues/sim/feed.ts';
import { E_BBA, E_BOOK, E_LEVEL, E_TRADE, R_EVENTS, R_STRING } from './feed-cache-format.ts';

/** A number read back from the cache (NaN stands for null). */
const nn = (v: number): number | null => (Number.isNaN(v) ? null : v);

/** A growable little-endian record buffer, written out between records. */
export class Writer {
  buf = Buffer.allocUnsafe(1 << 20);
  // numbers go through a DataView (inlined by the JIT), not Buffer's checked write methods
  #v = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
  pos = 0;
  #start = 0;
  readonly #strings = new Map<string, number>();
  /** The first ids defined (index = id), looked up before the map. */
  readonly #few: string[] = [];
  /** Every id defined (index = id). */
  readonly names: string[] = [];

  constructor(private readonly fd: number) {}

  #room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const b = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(b, 0, 0, this.pos);
    this.buf = b;
    this.#v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }
  u8(v: number): void {
    this.#room(1);
    this.buf[this.pos++] = v;
  }
  u32(v: number): void {
    this.#room(4);
    this.#v.setUint32(this.pos, v, true);
    this.pos += 4;
  }
  f64(v: number): void {
    this.#room(8);
    this.#v.setFloat64(this.pos, v, true);
    this.pos += 8;
  }
  nf64(v: number | null): void {
    this.f64(v === null ? NaN : v);
  }
  /** u32 (byte length << 1 | ascii flag), then the bytes (latin1 when ascii, else UTF-16LE). */
  str(s: string): void {
    const len = s.length;
    if (len <= 256) {
      // short strings (ids, hashes, reasons): ASCII copied a character at a time, no encoder call
      this.#room(4 + len);
      const b = this.buf;
      const at = this.pos + 4;
      let i = 0;
      for (; i < len; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        b[at + i] = c;
      }
      if (i === len) {
        this.#v.setUint32(this.pos, len * 2 + 1, true);
        this.pos = at + len;
        return;
      }
    }
    // ASCII as one byte per character; anything else as UTF-16 code units, which keeps every JS
    // string exactly (UTF-8 would turn a lone surrogate into U+FFFD)
    const ascii = Buffer.byteLength(s, 'utf8') === len;
    const n = ascii ? len : 2 * len;
    this.#room(4 + n);
    this.#v.setUint32(this.pos, n * 2 + (ascii ? 1 : 0), true);
    this.buf.write(s, this.pos + 4, n, ascii ? 'latin1' : 'utf16le');
    this.pos += 4 + n;
  }
  bytes(src: Buffer): void {
    this.#room(src.length);
    src.copy(this.buf, this.pos);
    this.pos += src.length;
  }
  /** The id-table index of `s`, defining it first (a record of its own) when new. */
  id(s: string): number {
    // a feed holds a few markets: a scan of the first ids (string compares, which stop at the first
    // differing character) beats hashing a fresh 78-character token id in the map on every event
    const few = this.#few;
    for (let k = 0; k < few.length; k++) if (few[k] === s) return k;
    let i = this.#strings.get(s);
    if (i === undefined) {
      i = this.#strings.size;
      this.#strings.set(s, i);
      if (i === few.length && i < 64) few.push(s);
      this.names.push(s);
      this.begin(R_STRING);
      this.str(s);
      this.end();
    }
    return i;
  }
  begin(kind: number): void {
    this.#start = this.pos;
    this.u32(0);
    this.u8(kind);
  }
  /** The buffer (and its view) holding the record `end` closed last, and where that record starts. */
  lastBuf: Buffer = this.buf;
  lastView: DataView = this.#v;
  lastStart = 0;

  end(): void {
    this.#v.setUint32(this.#start, this.pos - this.#start - 4, true);
    this.lastBuf = this.buf;
    this.lastView = this.#v;
    this.lastStart = this.#start;
    if (this.pos >= 1 << 20) this.flush();
  }
  /** Writes the buffer out; later records go to a fresh one (items handed on still read theirs from this one). */
  flush(): void {
    let off = 0;
    while (off < this.pos) off += writeSync(this.fd, this.buf, off, this.pos - off);
    this.pos = 0;
    this.buf = Buffer.allocUnsafe(1 << 20);
    this.#v = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
  }
}

/** Writes a frame's events as one events record (their market and token ids defined first). */
export function writeEvents(w: Writer, t: number, messages: number, evs: readonly MarketDataEvent[]): void {
  // ids first: their definitions are records of their own, so they cannot sit inside this one
  const ids: number[] = [];
  for (let k = 0; k < evs.length; k++) {
    const x = evs[k] as { market: string; tokenId: string };
    ids.push(w.id(x.market), w.id(x.tokenId));
  }
  w.begin(R_EVENTS);
  w.f64(t);
  w.u32(messages);
  w.u32(evs.length);
  for (let k = 0; k < evs.length; k++) {
    const e = evs[k]!;
    const type =
      e.type === 'book_snapshot'
        ? E_BOOK
        : e.type === 'level_change'
          ? E_LEVEL
          : e.type === 'last_trade'
            ? E_TRADE
            : e.type === 'best_bid_ask'
              ? E_BBA
              : 0;
    if (type === 0) throw new Error(`feed cache: unexpected event ${e.type}`);
    w.u8(type);
    w.f64(e.venueTime);
    w.u32(ids[2 * k]!);
    w.u32(ids[2 * k + 1]!);
    switch (e.type) {
      case 'book_snapshot':
        // indexed: destructuring each level goes through the iterator protocol
        for (let sd = 0; sd < 2; sd++) {
          const side = sd === 0 ? e.bids : e.asks;
          w.u32(side.length);
          for (let i = 0; i < side.length; i++) {
            w.f64(side[i]![0]);
            w.f64(side[i]![1]);
          }
        }
        w.str(e.hash);
        w.nf64(e.tickSize);
        w.nf64(e.minOrderSize);
        w.nf64(e.lastTradePrice);
        break;
      case 'level_change':
        w.u8(e.side === 'BUY' ? 0 : 1);
        w.f64(e.price);
        w.f64(e.size);
        w.nf64(e.bestBid);
        w.nf64(e.bestAsk);
        w.str(e.hash);
        w.u8(e.endOfBatch ? 1 : 0);
        break;
      case 'last_trade':
        w.u8(e.side === 'BUY' ? 0 : 1);
        w.f64(e.price);
        w.f64(e.size);
        w.f64(e.feeRateBps);
        break;
      case 'best_bid_ask':
        w.nf64(e.bestBid);
        w.nf64(e.bestAsk);
        w.f64(e.spread);
        break;
    }
  }
  w.end();
}

/** An `events` item of a cache: the frame's record, decoded on demand (see DecodedFrameItem). */
export class CachedFrame implements DecodedFrameItem {
  readonly kind = 'events';
  readonly ch = 'm';
  bad: number | undefined = undefined;
  constructor(
    readonly t: number,
    readonly messages: number,
    private readonly b: Buffer,
    private readonly v: DataView,
    /** Offset of the event count. */
    private readonly at: number,
    private readonly ids: readonly string[],
    private readonly file: string,
  ) {}

  events(): MarketDataEvent[] {
    const b = this.b;
    const v = this.v;
    const ids = this.ids;
    const t = this.t;
    let p = this.at;
    const n = v.getUint32(p, true);
    p += 4;
    const events = new Array<MarketDataEvent>(n);
    for (let k = 0; k < n; k++) {
      const type = b[p]!;
      const venueTime = v.getFloat64(p + 1, true);
      const market = ids[v.getUint32(p + 9, true)]! as ConditionId;
      const tokenId = ids[v.getUint32(p + 13, true)]! as TokenId;
      p += 17;
      if (type === E_BOOK) {
        const nb = v.getUint32(p, true);
        p += 4;
        const bids = new Array<PriceLevel>(nb);
        for (let i = 0; i < nb; i++, p += 16) bids[i] = priceLevel(v.getFloat64(p, true), v.getFloat64(p + 8, true));
        const na = v.getUint32(p, true);
        p += 4;
        const asks = new Array<PriceLevel>(na);
        for (let i = 0; i < na; i++, p += 16) asks[i] = priceLevel(v.getFloat64(p, true), v.getFloat64(p + 8, true));
        const hash = str(b, v, p);
        p += 4 + (v.getUint32(p, true) >>> 1);
        const e: BookSnapshotEvent = {
          type: 'book_snapshot',
          venueTime,
          recvTime: t,
          market,
          tokenId,
          bids,
          asks,
          hash,
          tickSize: nn(v.getFloat64(p, true)) as Pips | null,
          minOrderSize: nn(v.getFloat64(p + 8, true)) as Micro | null,
          lastTradePrice: nn(v.getFloat64(p + 16, true)) as Pips | null,
        };
        p += 24;
        events[k] = e;
      } else if (type === E_LEVEL) {
        const side: Side = b[p] === 0 ? 'BUY' : 'SELL';
        const price = v.getFloat64(p + 1, true) as Pips;
        const size = v.getFloat64(p + 9, true) as Micro;
        const bestBid = nn(v.getFloat64(p + 17, true)) as Pips | null;
        const bestAsk = nn(v.getFloat64(p + 25, true)) as Pips | null;
        p += 33;
        const hash = str(b, v, p);
        p += 4 + (v.getUint32(p, true) >>> 1);
        const e: LevelChangeEvent = {
          type: 'level_change',
          venueTime,
          recvTime: t,
          market,
          tokenId,
          side,
          price,
          size,
          bestBid,
          bestAsk,
          hash,
          endOfBatch: b[p] === 1,
        };
        p += 1;
        events[k] = e;
      } else if (type === E_TRADE) {
        const e: LastTradeEvent = {
          type: 'last_trade',
          venueTime,
          recvTime: t,
          market,
          tokenId,
          price: v.getFloat64(p + 1, true) as Pips,
          size: v.getFloat64(p + 9, true) as Micro,
          side: b[p] === 0 ? 'BUY' : 'SELL',
          feeRateBps: v.getFloat64(p + 17, true),
        };
        p += 25;
        events[k] = e;
      } else if (type === E_BBA) {
        const e: BestBidAskEvent = {
          type: 'best_bid_ask',
          venueTime,
          recvTime: t,
          market,
          tokenId,
          bestBid: nn(v.getFloat64(p, true)) as Pips | null,
          bestAsk: nn(v.getFloat64(p + 8, true)) as Pips | null,
          spread: v.getFloat64(p + 16, true) as Pips,
        };
        p += 24;
        events[k] = e;
      } else throw new Error(`${this.file}: damaged feed cache (event type ${type})`);
    }
    return events;
  }
}

/** The string at `p` (u32 length·2 | ascii flag, then its bytes). */
export function str(b: Buffer, v: DataView, p: number): string {
  const hl = v.getUint32(p, true);
  const a = p + 4;
  const z = a + (hl >>> 1);
  return hl & 1 ? b.toString('latin1', a, z) : b.toString('utf16le', a, z);
}
