/**
 * Writing a feed cache as the feed's items go by (see ./feed-cache.ts for the format): market
 * frames the scanner takes are recorded as events and handed on decoded; the file lands whole or
 * not at all.
 */
import { closeSync, fsyncSync, openSync, renameSync, rmSync } from 'node:fs';
import { serialize } from 'node:v8';
import type { MarketDataEvent } from '../core/events.ts';
import { FrameScanner } from '../api/streams/frame-scan.ts';
import type { MarketDecoderStats } from '../api/streams/market-decode.ts';
import type { DecodedFrameItem, FeedItem } from '../venues/sim/feed.ts';
import { CachedFrame, Writer, writeEvents } from './feed-cache-codec.ts';
import {
  FEED_CACHE_VERSION,
  MAGIC,
  PREAMBLE,
  R_BAD,
  R_END,
  R_FRAME,
  R_HEADER,
  R_MARKET,
  R_STATUS,
} from './feed-cache-format.ts';

/**
 * Writes one feed's cache as its items go by (the replay's items in, the items to hand on out:
 * market frames the scanner takes come out already decoded, so they are scanned once). Used by
 * `buildFeedCache` (a pass of its own) and by a replay that builds the cache while it runs
 * (replay.ts `replayCachedBatches` with `build`). Nothing lands until `finish`: it renames the
 * whole file into place; `abort` (or any failure) leaves nothing behind.
 */
export class CacheWriter {
  readonly #tmp: string;
  #fd: number | undefined;
  readonly #w: Writer;
  readonly #scanner = new FrameScanner();
  readonly #ds: MarketDecoderStats = { messages: 0, events: 0, bad: 0, unknownTypes: 0, serverErrors: 0 };
  #evs: MarketDataEvent[] = [];
  readonly #collect = (e: MarketDataEvent): void => void this.#evs.push(e);

  /** @throws the file system's error when the temporary file cannot be made */
  constructor(
    readonly out: string,
    sha: Buffer,
  ) {
    this.#tmp = `${out}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    this.#fd = openSync(this.#tmp, 'w');
    const w = (this.#w = new Writer(this.#fd));
    MAGIC.copy(w.buf, 0);
    w.buf.writeUInt32LE(FEED_CACHE_VERSION, MAGIC.length);
    sha.copy(w.buf, MAGIC.length + 4);
    w.pos = PREAMBLE;
  }

  /** True until finished or aborted. */
  get open(): boolean {
    return this.#fd !== undefined;
  }

  /**
   * Records one item; returns the item to hand on: a market frame the scanner takes as an `events`
   * item (its events, once: they are the consumer's to change), anything else as it is.
   * @throws the file system's error (the caller aborts)
   */
  add(it: FeedItem): FeedItem | DecodedFrameItem {
    const w = this.#w;
    const bad = it.bad;
    if (bad !== undefined && bad > 0) {
      w.begin(R_BAD);
      w.f64(bad);
      w.end();
    }
    if (it.kind === 'header') {
      // structured clone, not JSON: a header holds what JSON.parse made of the line, which JSON
      // cannot always write back (1e999 is Infinity, -0)
      const h = serialize(it.header);
      w.begin(R_HEADER);
      w.f64(it.t);
      w.u32(h.length);
      w.bytes(h);
      w.end();
      return it;
    }
    if (it.kind === 'market') {
      const m = serialize(it.info);
      w.begin(R_MARKET);
      w.f64(it.t);
      w.u32(m.length);
      w.bytes(m);
      w.end();
      return it;
    }
    if (it.kind === 'status') {
      w.begin(R_STATUS);
      w.f64(it.t);
      w.u8(it.ch === 'm' ? 0 : 1);
      w.u8(it.status === 'connect' ? 0 : it.status === 'world' ? 2 : 1);
      w.str(it.reason);
      w.end();
      return it;
    }
    if (it.ch === 'm') {
      const evs = (this.#evs = []);
      this.#ds.messages = 0;
      if (this.#scanner.scan(it.raw, it.t, this.#ds, this.#collect)) {
        writeEvents(w, it.t, this.#ds.messages, evs);
        // handed on as a cached frame reading the record just written, so its events are made when
        // the consumer takes them (made now, a whole batch of them would outlive several
        // young-generation collections); the scanned events themselves are garbage at once
        const f = new CachedFrame(it.t, this.#ds.messages, w.lastBuf, w.lastView, w.lastStart + 17, w.names, this.out);
        if (bad !== undefined) f.bad = bad;
        return f;
      }
    }
    w.begin(R_FRAME);
    w.f64(it.t);
    w.u8(it.ch === 'm' ? 0 : 1);
    w.str(it.raw);
    w.end();
    return it;
  }

  /** Ends the cache (the file's malformed lines and damaged-file count) and renames it into place. @throws the file system's error */
  finish(malformed: number, truncatedFiles: number): void {
    const fd = this.#fd;
    if (fd === undefined) return;
    const w = this.#w;
    w.begin(R_END);
    w.f64(malformed);
    w.f64(truncatedFiles);
    w.end();
    w.flush();
    fsyncSync(fd);
    this.#fd = undefined;
    closeSync(fd);
    renameSync(this.#tmp, this.out);
  }

  /** Drops the unfinished cache. Idempotent; never throws. */
  abort(): void {
    const fd = this.#fd;
    this.#fd = undefined;
    try {
      if (fd !== undefined) closeSync(fd);
    } catch {
      // closing failed: the file goes anyway
    }
    rmSync(this.#tmp, { force: true });
  }
}
