/**
 * A decoded-event cache of recorded feeds: the feed's market-channel frames turned once into the
 * events the frame scanner makes of them, in a binary file that a replay reads back without gunzip
 * or text scanning. hftbacktest works the same way (its feeds are normalised once into a binary
 * event format before any backtest); here the recorded `.ndjson.gz` stays the source of truth and
 * the cache is derived from it, content-addressed, and rebuilt whenever it is missing or from
 * another format version.
 *
 * Why: a backtest spends about half of its market-data time inflating and scanning the text, the
 * same work on every run of the same feed. A sweep runs the same feed once per grid point (and per
 * worker), a strategy author runs it again after every change: they pay the decode once.
 *
 * Exactness: for each market frame the cache holds either the events `FrameScanner.scan` emitted
 * (and the number of messages it counted), or, for a frame the scanner declined, the raw text (the
 * replay then takes the reference path on it, as it does uncached). Headers, statuses and frames of
 * other channels are kept as they are, with their receive times; the replay counters (lines,
 * malformed lines, damaged files) are stored too. A replay from the cache therefore hands the
 * simulated venue the same events, in the same order, at the same times, with the same counts: a
 * backtest's result is identical with and without it (tested byte for byte).
 *
 * Key: SHA-256 of the feed file's bytes and the format version, so an edited or replaced feed is
 * never served from a stale cache, and two copies of one feed share one cache. The cache is written
 * to a temporary file and renamed into place when whole: a crash while building leaves no cache, and
 * concurrent builders (sweep workers) cannot see each other's half-written files.
 *
 * Format (little-endian): magic `MMKFC1\n\0`, u32 version, 32 bytes of the feed's SHA-256, then
 * records `u32 length, u8 kind, payload`: header (t, JSON), status (t, channel, connect|disconnect,
 * reason), frame (t, channel, raw text), events (t, messages, count, events), string (defines the
 * next entry of the id table: markets and tokens are written once), end (malformed lines, damaged
 * files; always last). Numbers are f64 (exact for every integer the events hold), null is NaN.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeSync,
} from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { deserialize, serialize } from 'node:v8';
import { join } from 'node:path';
import type {
  BestBidAskEvent,
  BookSnapshotEvent,
  LastTradeEvent,
  LevelChangeEvent,
  MarketDataEvent,
  PriceLevel,
} from '../core/events.ts';
import type { ConditionId, TokenId } from '../core/ids.ts';
import type { Micro, Pips, Side } from '../core/units.ts';
import { FrameScanner } from '../api/streams/frame-scan.ts';
import type { MarketDecoderStats } from '../api/streams/market-decode.ts';
import type { FeedChannel, FeedHeader, FeedItem, ReplayStats, SkippedLines } from '../venues/sim/feed.ts';

/** Bump when the layout or the meaning of the events changes: older caches are then rebuilt. */
export const FEED_CACHE_VERSION = 2;
const MAGIC = Buffer.from('MMKFC1\n\0', 'latin1');
const PREAMBLE = MAGIC.length + 4 + 32;

const R_HEADER = 1;
const R_STATUS = 2;
const R_FRAME = 3;
const R_EVENTS = 4;
const R_STRING = 5;
const R_END = 6;
/** Malformed lines skipped before the next item (SkippedLines: the count goes on that item). */
const R_BAD = 7;
/** Bytes of the end record: u32 length, u8 kind, f64 malformed, f64 damaged files. */
const END_RECORD = 4 + 1 + 8 + 8;

const E_BOOK = 1;
const E_LEVEL = 2;
const E_TRADE = 3;
const E_BBA = 4;

/**
 * A market frame already decoded into events (replayed from a feed cache). The events are built
 * when `events()` is called, from the bytes of the cache: the replay reads megabytes ahead, and
 * events made that early would live through several young-generation collections and be promoted
 * (a measured ~20 % of a backtest's time in the collector); made at ingest they die young.
 */
export interface DecodedFrameItem extends SkippedLines {
  readonly kind: 'events';
  readonly t: number;
  readonly ch: 'm';
  /** Messages the frame held (the decoder's `messages` counter). */
  readonly messages: number;
  /** The frame's events, as `FrameScanner.scan` emitted them: fresh objects on each call (the consumer may change them). */
  events(): MarketDataEvent[];
}

/** The default cache folder: $MMKIT_CACHE_DIR, else $XDG_CACHE_HOME/mmkit/feeds, else ~/.cache/mmkit/feeds. */
export function defaultFeedCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env['MMKIT_CACHE_DIR']) return env['MMKIT_CACHE_DIR'];
  const base = env['XDG_CACHE_HOME'] || join(homedir(), '.cache');
  return join(base, 'mmkit', 'feeds');
}

/** SHA-256 of a file's bytes (streamed). */
export async function fileSha256(file: string): Promise<Buffer> {
  const h = createHash('sha256');
  await new Promise<void>((resolve, reject) => {
    const s = createReadStream(file, { highWaterMark: 1024 * 1024 });
    s.on('data', (c) => h.update(c));
    s.on('error', reject);
    s.on('end', () => resolve());
  });
  return h.digest();
}

/**
 * The source files whose code decides what a cache holds: the line parsers, the frame scanner and
 * its decimal conversions, this file. Their hash is part of a cache's name, so a change to any of
 * them (a fixed decoding bug, a new field) makes every older cache unused, without anyone having to
 * remember to bump FEED_CACHE_VERSION. Run from dist/, the compiled files are hashed (a cache built
 * from the sources is not reused by the build, and the other way round).
 */
const EXT = import.meta.url.endsWith('.js') ? '.js' : '.ts'; // the compiled dist/ or the sources
const DECODER_SOURCES = [
  '../api/streams/frame-scan',
  '../api/streams/decode',
  '../api/streams/market-decode',
  '../core/units',
  '../venues/sim/feed',
  './replay',
  './feed-cache',
].map((f) => f + EXT);

let decoderHash: string | undefined;
/** 12 hex digits of the SHA-256 of DECODER_SOURCES (empty when they cannot be read, e.g. a bundle). */
export function decoderFingerprint(): string {
  if (decoderHash !== undefined) return decoderHash;
  const h = createHash('sha256');
  try {
    for (const f of DECODER_SOURCES) h.update(readFileSync(new URL(f, import.meta.url)));
    decoderHash = h.digest('hex').slice(0, 12);
  } catch {
    decoderHash = '';
  }
  return decoderHash;
}

/** Where the cache of a feed with this content lives in `dir` (named by the feed's SHA-256, the format version and the decoder's code). */
export function feedCacheFile(dir: string, sha: Buffer): string {
  const fp = decoderFingerprint();
  return join(dir, `${sha.toString('hex')}.v${FEED_CACHE_VERSION}${fp ? `-${fp}` : ''}.mmfc`);
}

/** Where each feed's cache is: whole ones to read, missing (or damaged) ones to build. */
export interface FeedCachePlan {
  /** Feed file → its whole cache file. */
  readonly ready: Map<string, string>;
  /** Feed file → where its cache goes and the feed's SHA-256 (the cache's key). */
  readonly missing: Map<string, CacheTarget>;
}

/** Where a feed's cache goes: its name, the feed's SHA-256, and the feed's size and mtime when hashed. */
export interface CacheTarget {
  readonly out: string;
  readonly sha: Buffer;
  /** The feed as hashed: a cache is kept only if the feed is still so when it is written (not a recording that grew meanwhile). */
  readonly size?: number;
  readonly mtimeMs?: number;
}

/** True when `file` still has the size and mtime `t` recorded (or `t` recorded none). */
export function feedUnchanged(file: string, t: CacheTarget): boolean {
  if (t.size === undefined || t.mtimeMs === undefined) return true;
  try {
    const st = statSync(file);
    return st.size === t.size && st.mtimeMs === t.mtimeMs;
  } catch {
    return false;
  }
}

/**
 * Looks up each feed's cache in `dir` (made when missing). Reads every feed once (its hash).
 * @throws the file system's error when a feed cannot be read or the folder cannot be made
 */
export async function planFeedCaches(files: readonly string[], dir: string): Promise<FeedCachePlan> {
  const ready = new Map<string, string>();
  const missing = new Map<string, CacheTarget>();
  mkdirSync(dir, { recursive: true });
  for (const f of files) {
    if (ready.has(f) || missing.has(f)) continue;
    const st = statSync(f);
    const sha = await fileSha256(f);
    const c = feedCacheFile(dir, sha);
    if (await validCache(c, sha)) {
      ready.set(f, c);
      touch(c);
    } else missing.set(f, { out: c, sha, size: st.size, mtimeMs: st.mtimeMs });
  }
  return { ready, missing };
}

/**
 * The cache file of each feed, built first where missing (or unreadable: rebuilt). Returns feed
 * file → cache file.
 * @throws the file system's error when a feed cannot be read or the folder cannot be written
 */
export async function ensureFeedCaches(files: readonly string[], dir: string): Promise<Map<string, string>> {
  const plan = await planFeedCaches(files, dir);
  for (const [f, m] of plan.missing) {
    await buildFeedCache(f, m);
    if (!existsSync(m.out)) throw new Error(`${f} changed while its cache was built`);
    plan.ready.set(f, m.out);
  }
  return plan.ready;
}

/** Marks a cache as used now (its mtime: what feed-cache-prune.ts evicts the least recently used by). Best effort. */
function touch(file: string): void {
  try {
    const now = new Date();
    utimesSync(file, now, now);
  } catch {
    // a read-only cache folder still serves
  }
}

/** True when `file` exists and starts with this version's preamble for this feed. */
async function validCache(file: string, sha: Buffer): Promise<boolean> {
  try {
    const st = await stat(file);
    if (st.size < PREAMBLE + END_RECORD) return false;
    const fh = await open(file, 'r');
    try {
      const b = Buffer.alloc(PREAMBLE);
      await fh.read(b, 0, PREAMBLE, 0);
      // and whole: it ends with its end record (a file cut short is rebuilt, not read)
      const e = Buffer.alloc(END_RECORD);
      await fh.read(e, 0, END_RECORD, st.size - END_RECORD);
      return (
        b.subarray(0, MAGIC.length).equals(MAGIC) &&
        b.readUInt32LE(MAGIC.length) === FEED_CACHE_VERSION &&
        b.subarray(MAGIC.length + 4).equals(sha) &&
        e.readUInt32LE(0) === END_RECORD - 4 &&
        e[4] === R_END
      );
    } finally {
      await fh.close();
    }
  } catch {
    return false;
  }
}

// ---- writing ------------------------------------------------------------------------------------

/** A growable little-endian record buffer, written out between records. */
class Writer {
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
    if (it.kind === 'status') {
      w.begin(R_STATUS);
      w.f64(it.t);
      w.u8(it.ch === 'm' ? 0 : 1);
      w.u8(it.status === 'connect' ? 0 : 1);
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

/**
 * Builds the cache of `feed` at `out` (see the module comment): reads the feed with the replay,
 * scans each market frame, writes a temporary file and renames it into place when whole.
 * @throws the file system's error
 */
export async function buildFeedCache(feed: string, target: string | CacheTarget): Promise<void> {
  const { newReplayStats, replayFeedBatches } = await import('./replay.ts');
  let t: CacheTarget;
  if (typeof target === 'string') {
    const st = statSync(feed);
    t = { out: target, sha: await fileSha256(feed), size: st.size, mtimeMs: st.mtimeMs };
  } else t = target;
  const w = new CacheWriter(t.out, t.sha);
  try {
    const stats = newReplayStats();
    for await (const batch of replayFeedBatches([feed], { stats })) for (const it of batch) w.add(it);
    // a feed that changed since it was hashed (a recording still growing): no cache
    if (feedUnchanged(feed, t)) w.finish(stats.malformed, stats.truncatedFiles);
  } finally {
    w.abort(); // (nothing left to do when finished)
  }
}

function writeEvents(w: Writer, t: number, messages: number, evs: readonly MarketDataEvent[]): void {
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

// ---- reading ------------------------------------------------------------------------------------

/** What a replay source hands out (one record of a feed, or a decoded market frame). */
export type CachedItem = DecodedFrameItem | FeedItem;

const READ_CHUNK = 1024 * 1024;
const nn = (v: number): number | null => (Number.isNaN(v) ? null : v);

/**
 * Reads a cache file in chunks into replay items (the replay's source interface: `buf`/`pos`,
 * `fill()`, `close()`), counting into `stats` as the text source counts.
 */
export class CachedSource<T = CachedItem> {
  buf: T[] = [];
  pos = 0;
  #fh: Awaited<ReturnType<typeof open>> | undefined;
  #chunk = Buffer.allocUnsafe(READ_CHUNK);
  #view = new DataView(this.#chunk.buffer, this.#chunk.byteOffset, this.#chunk.byteLength);
  /** Bytes of `#chunk` holding data, the next record's offset in it, and the file offset of its end. */
  #len = 0;
  #off = 0;
  #fileOff = 0;
  #ended = false;
  #sawEnd = false;
  readonly #ids: string[] = [];
  readonly #keepM: boolean;
  readonly #keepR: boolean;

  constructor(
    readonly file: string,
    readonly index: number,
    private readonly stats: ReplayStats,
    channels: readonly FeedChannel[] | undefined,
  ) {
    this.#keepM = channels === undefined || channels.includes('m');
    this.#keepR = channels === undefined || channels.includes('r');
  }

  /** Loads the next non-empty run of items into `buf`. False at the end. @throws on a damaged cache */
  async fill(): Promise<boolean> {
    this.buf = [];
    this.pos = 0;
    for (;;) {
      if (this.#ended) return false;
      if (this.#fh === undefined) {
        this.#fh = await open(this.file, 'r');
        await this.#read();
        if (
          this.#len < PREAMBLE ||
          !this.#chunk.subarray(0, MAGIC.length).equals(MAGIC) ||
          this.#chunk.readUInt32LE(MAGIC.length) !== FEED_CACHE_VERSION
        )
          throw new Error(`${this.file}: not a feed cache of version ${FEED_CACHE_VERSION}`);
        this.#off = PREAMBLE;
      } else await this.#read();
      this.#parse();
      if (this.buf.length > 0) return true;
      if (this.#eof) {
        // everything read and parsed: a whole cache ends with its end record, exactly
        if (this.#len - this.#off > 0 || !this.#sawEnd)
          throw new Error(`${this.file}: feed cache ends early (damaged)`);
        this.#ended = true;
        return false;
      }
    }
  }

  #eof = false;

  /** Moves the unread tail to the front and reads more (growing the chunk for a record longer than it). */
  async #read(): Promise<void> {
    const rest = this.#len - this.#off;
    let need = READ_CHUNK;
    if (rest >= 4) {
      const rl = this.#chunk.readUInt32LE(this.#off) + 4;
      if (rl > need) need = rl;
    }
    // a fresh chunk each time: the items handed out still read their events from the previous one
    const b = Buffer.allocUnsafe(need);
    this.#chunk.copy(b, 0, this.#off, this.#len);
    this.#chunk = b;
    this.#view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    this.#len = rest;
    this.#off = 0;
    while (this.#len < this.#chunk.length) {
      const { bytesRead } = await this.#fh!.read(this.#chunk, this.#len, this.#chunk.length - this.#len, this.#fileOff);
      if (bytesRead === 0) {
        this.#eof = true;
        break;
      }
      this.#fileOff += bytesRead;
      this.#len += bytesRead;
    }
  }

  /** Parses the whole records in the chunk into `buf`. */
  #parse(): void {
    const b = this.#chunk;
    const v = this.#view;
    const st = this.stats;
    const out = this.buf as unknown as CachedItem[];
    let off = this.#off;
    const len = this.#len;
    while (len - off >= 4) {
      const rl = v.getUint32(off, true);
      if (len - off - 4 < rl) break;
      const end = off + 4 + rl;
      const p = off + 5;
      const kind = b[off + 4];
      if (kind === R_EVENTS) {
        const t = v.getFloat64(p, true);
        st.lines++;
        if (this.#keepM) {
          st.frames++;
          const f = new CachedFrame(t, v.getUint32(p + 8, true), b, v, p + 12, this.#ids, this.file);
          if (this.#bad > 0) f.bad = this.#take();
          out.push(f);
        }
      } else if (kind === R_FRAME) {
        const t = v.getFloat64(p, true);
        const ch: FeedChannel = b[p + 8] === 0 ? 'm' : 'r';
        const raw = this.#str(p + 9);
        st.lines++;
        if (ch === 'm' ? this.#keepM : this.#keepR) {
          st.frames++;
          out.push(this.#bad > 0 ? { kind: 'frame', t, ch, raw, bad: this.#take() } : { kind: 'frame', t, ch, raw });
        }
      } else if (kind === R_STRING) {
        this.#ids.push(this.#str(p));
      } else if (kind === R_STATUS) {
        const t = v.getFloat64(p, true);
        const ch: FeedChannel = b[p + 8] === 0 ? 'm' : 'r';
        const status = b[p + 9] === 0 ? 'connect' : 'disconnect';
        const reason = this.#str(p + 10);
        st.lines++;
        if (ch === 'm' ? this.#keepM : this.#keepR) {
          st.statuses++;
          out.push(
            this.#bad > 0
              ? { kind: 'status', t, ch, status, reason, bad: this.#take() }
              : { kind: 'status', t, ch, status, reason },
          );
        }
      } else if (kind === R_HEADER) {
        const t = v.getFloat64(p, true);
        const n = v.getUint32(p + 8, true);
        const header = deserialize(b.subarray(p + 12, p + 12 + n)) as FeedHeader;
        st.lines++;
        st.headers++;
        out.push(this.#bad > 0 ? { kind: 'header', t, header, bad: this.#take() } : { kind: 'header', t, header });
      } else if (kind === R_BAD) {
        this.#bad += v.getFloat64(p, true);
      } else if (kind === R_END) {
        const malformed = v.getFloat64(p, true);
        st.lines += malformed;
        st.malformed += malformed;
        st.truncatedFiles += v.getFloat64(p + 8, true);
        this.#sawEnd = true;
      } else throw new Error(`${this.file}: damaged feed cache (record kind ${kind})`);
      off = end;
    }
    this.#off = off;
  }

  #str(p: number): string {
    return str(this.#chunk, this.#view, p);
  }

  /** Malformed lines read before the next item (R_BAD records): counted on it. */
  #bad = 0;
  #take(): number {
    const n = this.#bad;
    this.#bad = 0;
    return n;
  }

  async close(): Promise<void> {
    this.#ended = true;
    const fh = this.#fh;
    this.#fh = undefined;
    if (fh !== undefined) await fh.close();
  }
}

/** An `events` item of a cache: the frame's record, decoded on demand (see DecodedFrameItem). */
class CachedFrame implements DecodedFrameItem {
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
        for (let i = 0; i < nb; i++, p += 16)
          bids[i] = [v.getFloat64(p, true) as Pips, v.getFloat64(p + 8, true) as Micro];
        const na = v.getUint32(p, true);
        p += 4;
        const asks = new Array<PriceLevel>(na);
        for (let i = 0; i < na; i++, p += 16)
          asks[i] = [v.getFloat64(p, true) as Pips, v.getFloat64(p + 8, true) as Micro];
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
function str(b: Buffer, v: DataView, p: number): string {
  const hl = v.getUint32(p, true);
  const a = p + 4;
  const z = a + (hl >>> 1);
  return hl & 1 ? b.toString('latin1', a, z) : b.toString('utf16le', a, z);
}
