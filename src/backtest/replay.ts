/**
 * Replay of recorded feeds (format: ./feed.ts), pulled: an async iterator the consumer drives, as
 * tardis-node's `replay` is. Nothing is loaded whole; memory stays flat however long the feed.
 *
 *  - Streaming: each file is read in chunks (`fs` read stream → `zlib` gunzip, which inflates on the
 *    libuv thread pool, in parallel with the consumer) and split into lines by a splitter over the
 *    Buffer chunks: each chunk is cut at its last newline (a multi-byte character is never split)
 *    and decoded in pieces of at most 48 KiB (V8 makes strings above ~128 KiB in its large-object
 *    space, several times slower), then each line is parsed by a hand-written fast path for frame
 *    lines (feed.ts `parseLine` for everything else; same results). Gzip (`.ndjson.gz`, also several
 *    concatenated members) and plain `.ndjson` are both accepted, told apart by the gzip magic
 *    bytes, not the name. Throughput is bound by inflate (~0.5-0.6 GB/s of text on one core).
 *  - Several files are merged by receive time `t` (k-way merge); ties go to the earlier file in the
 *    argument list, then to the earlier line. Rotated parts of one recording are simply more files.
 *    A file is expected in `t` order (the recorder writes it so); the merge never reorders lines of
 *    one file.
 *  - A line that is not a valid record is skipped and counted (`stats.malformed`); blank lines are
 *    not lines. A gzip stream that ends early (a crash while recording) is read to its end and
 *    counted in `stats.truncatedFiles`, never thrown; a partial last line is counted malformed.
 *    Corrupt data inside a stream is counted the same way and read up to the damage (all but the
 *    last few hundred bytes before it: a second pass in small inflate chunks recovers what zlib
 *    drops from the failing call). A file that cannot be opened or read throws (a usage error, not
 *    damage).
 *  - `channels` keeps only frames and statuses of those channels; headers always pass (they carry
 *    the markets). Stats: `lines` counts every non-blank line read; `frames`, `statuses` and
 *    `headers` count the records handed out.
 *
 * Two shapes of the same stream: `replayFeeds` (one FeedItem per step, the reference API) and
 * `replayFeedBatches` (arrays of FeedItems in the same order, for consumers that loop synchronously
 * over a batch and so pay one await per few thousand items instead of one per item).
 */
import { open } from 'node:fs/promises';
import { isAscii } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import { parseLine, type FeedChannel, type FeedHeader, type FeedItem, type ReplayStats } from '../venues/sim/feed.ts';
import type { CachedItem } from '../venues/sim/feed.ts';
import { CachedSource } from './feed-cache-reader.ts';
import { CacheWriter } from './feed-cache-writer.ts';
import { feedUnchanged, type CacheTarget } from './feed-cache-plan.ts';

/** Options of a replay. */
export interface ReplayOptions {
  /** Counters to add to (create them with `newReplayStats()`). */
  stats?: ReplayStats;
  /** Only frames and statuses of these channels (default: all). Headers always pass. */
  channels?: readonly FeedChannel[];
  /**
   * Most items per batch handed out by `replayFeedBatches` (default 4096). Smaller batches come
   * out at file-switch points of a merge and at the end of a chunk.
   */
  batchSize?: number;
  /**
   * Filled with the files whose gzip stream ended early (no gzip trailer: a recording still being
   * written, or one a crash cut short), as they end. Such a file is read to where it stops either way;
   * a feed cache of it is not kept (./feed-cache-build.ts), since the file may yet grow.
   */
  endedEarly?: Set<string>;
}

/** Fresh zeroed replay counters. */
export function newReplayStats(): ReplayStats {
  return { lines: 0, frames: 0, statuses: 0, headers: 0, malformed: 0, truncatedFiles: 0 };
}

const READ_CHUNK = 256 * 1024;
const PLAIN_READ_CHUNK = 1024 * 1024;
const INFLATE_CHUNK = 256 * 1024;
const DECODE_PIECE = 48 * 1024;
const RECOVERY_CHUNK = 256;
const DEFAULT_BATCH = 4096;

/**
 * Replays feed files as one stream of records in receive-time order (see the module comment).
 * Nothing is read until the first `next()`; `return()` (a `break` out of `for await`) closes the
 * files.
 * @throws (from `next()`) the file system's error when a file cannot be opened or read.
 */
export function replayFeeds(
  files: readonly string[],
  opts: { stats?: ReplayStats; channels?: readonly FeedChannel[] } = {},
): AsyncIterableIterator<FeedItem> {
  return new ItemIterator(new Merger(textSources(files, opts), opts));
}

function textSources(files: readonly string[], opts: ReplayOptions): FileSource[] {
  const stats = opts.stats ?? newReplayStats();
  return files.map((f, i) => new FileSource(f, i, stats, opts.channels, opts.endedEarly));
}

/**
 * The same stream as `replayFeeds`, in arrays (never empty) of consecutive items, so the consumer
 * pays one await per batch. The arrays are fresh: the consumer may keep them.
 * @throws (from `next()`) the file system's error when a file cannot be opened or read.
 */
export function replayFeedBatches(
  files: readonly string[],
  opts: ReplayOptions = {},
): AsyncIterableIterator<FeedItem[]> {
  return batchIterator(new Merger(textSources(files, opts), opts));
}

/**
 * `replayFeedBatches`, reading each file that has an entry in `caches` (feed file → cache file, see
 * ./feed-cache.ts `ensureFeedCaches`) from its decoded-event cache instead: its market frames come
 * out as `events` items (already decoded), everything else as from the file. Same order, same
 * receive times, same counters once the replay has ended.
 * @throws (from `next()`) the file system's error, or a damaged cache's
 */
export function replayCachedBatches(
  files: readonly string[],
  caches: ReadonlyMap<string, string>,
  opts: ReplayOptions & { build?: ReadonlyMap<string, CacheTarget> } = {},
): AsyncIterableIterator<CachedItem[]> {
  const stats = opts.stats ?? newReplayStats();
  const sources = files.map((f, i): Source<CachedItem> => {
    const c = caches.get(f);
    if (c !== undefined) return new CachedSource<CachedItem>(c, i, stats, opts.channels);
    const b = opts.build?.get(f);
    if (b !== undefined) return new TeeSource(f, i, stats, opts.channels, b, opts.endedEarly);
    return new FileSource(f, i, stats, opts.channels, opts.endedEarly) as unknown as Source<CachedItem>;
  });
  return batchIterator(new Merger<CachedItem>(sources, opts));
}

/**
 * A file read from its text that writes its cache as it goes (feed-cache.ts CacheWriter): the
 * first replay of a feed builds the cache without a pass of its own, and hands its market frames on
 * already decoded. The cache is written only when the file is read to its end; a replay stopped
 * early (or a cache that cannot be written: a full disk) leaves none, and the replay goes on. A
 * gzip stream that ends early (no trailer: most likely a recording still being written, which the
 * size-and-mtime check misses when the read is quicker than the recorder's flush) leaves none either.
 */
class TeeSource implements Source<CachedItem> {
  buf: CachedItem[] = [];
  pos = 0;
  /** Reads every channel (the cache holds them all); this source filters what it hands out. */
  readonly #inner: FileSource;
  /** The file's own counters, added to the replay's as they grow. */
  readonly #own = newReplayStats();
  readonly #seen = newReplayStats();
  #w: CacheWriter | undefined;
  /** Malformed lines counted on items this source did not hand out (filtered): go on the next. */
  #carry = 0;
  readonly #keepM: boolean;
  readonly #keepR: boolean;

  constructor(
    readonly file: string,
    readonly index: number,
    private readonly stats: ReplayStats,
    channels: readonly FeedChannel[] | undefined,
    private readonly target: CacheTarget,
    endedEarly: Set<string> | undefined,
  ) {
    this.#inner = new FileSource(file, index, this.#own, undefined, endedEarly);
    this.#keepM = channels === undefined || channels.includes('m');
    this.#keepR = channels === undefined || channels.includes('r');
    try {
      this.#w = new CacheWriter(target.out, target.sha);
    } catch {
      this.#w = undefined; // no cache this time
    }
  }

  async fill(): Promise<boolean> {
    const out: CachedItem[] = (this.buf = []);
    this.pos = 0;
    for (;;) {
      let more: boolean;
      try {
        more = await this.#inner.fill();
      } catch (err) {
        this.#drop();
        throw err;
      }
      this.#count();
      if (!more) {
        const w = this.#w;
        this.#w = undefined;
        if (w !== undefined) {
          try {
            // a gzip stream without its end, or a feed that changed since it was hashed (a recording
            // still growing): no cache
            if (!this.#inner.endedEarly && feedUnchanged(this.file, this.target))
              w.finish(this.#own.malformed, this.#own.truncatedFiles);
            else w.abort();
          } catch {
            w.abort();
          }
        }
        return false;
      }
      const items = this.#inner.buf;
      for (let i = 0; i < items.length; i++) {
        let x: CachedItem = items[i]!;
        const w = this.#w;
        if (w !== undefined) {
          try {
            x = w.add(items[i]!);
          } catch {
            this.#drop();
          }
        }
        const keep = x.kind === 'header' || (x.ch === 'm' ? this.#keepM : this.#keepR);
        if (!keep) {
          this.#carry += x.bad ?? 0; // counted on the next item handed out
          continue;
        }
        if (this.#carry > 0) {
          (x as { bad?: number }).bad = (x.bad ?? 0) + this.#carry;
          this.#carry = 0;
        }
        if (x.kind === 'status') this.stats.statuses++;
        else if (x.kind !== 'header') this.stats.frames++;
        out.push(x);
      }
      if (out.length > 0) return true;
    }
  }

  /** Adds what the file's own counters gained (all but frames and statuses: counted as handed out). */
  #count(): void {
    const o = this.#own;
    const s = this.#seen;
    const st = this.stats;
    st.lines += o.lines - s.lines;
    st.headers += o.headers - s.headers;
    st.malformed += o.malformed - s.malformed;
    st.truncatedFiles += o.truncatedFiles - s.truncatedFiles;
    s.lines = o.lines;
    s.headers = o.headers;
    s.malformed = o.malformed;
    s.truncatedFiles = o.truncatedFiles;
  }

  #drop(): void {
    this.#w?.abort();
    this.#w = undefined;
  }

  async close(): Promise<void> {
    this.#drop();
    await this.#inner.close();
  }
}

function batchIterator<T extends { readonly t: number }>(m: Merger<T>): AsyncIterableIterator<T[]> {
  const it: AsyncIterableIterator<T[]> = {
    async next() {
      const b = await m.nextBatch();
      return b === undefined ? { done: true, value: undefined } : { done: false, value: b };
    },
    async return() {
      await m.close();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return it;
    },
  };
  return it;
}

/**
 * The header of a feed file (its first record), or undefined when the file has none (damaged, or
 * not a feed). Reads only the start of the file.
 * @throws the file system's error when the file cannot be opened.
 */
export async function readFeedHeader(file: string): Promise<FeedHeader | undefined> {
  const src = new FileSource(file, 0, newReplayStats(), undefined);
  try {
    for (;;) {
      const b = await src.fill();
      if (!b) return undefined;
      for (const it of src.buf) if (it.kind === 'header') return it.header;
      if (src.buf.length > 0) return undefined;
    }
  } finally {
    await src.close();
  }
}

// ---- one file -----------------------------------------------------------------------------------

const C_LBRACE = 0x7b;
const C_QUOTE = 0x22;
const C_RBRACE = 0x7d;
const C_CR = 0x0d;
const C_DOT = 0x2e;
const C_0 = 0x30;
const C_9 = 0x39;

/** Reads one file: chunks → lines → parsed items, a chunk at a time. */
class FileSource {
  /** Items of the current chunk; `pos` is the next to hand out. */
  buf: FeedItem[] = [];
  pos = 0;
  private stream: Readable | undefined;
  /** The file's read stream (owns the file handle; under the gunzip stream for .gz files). */
  private raw: Readable | undefined;
  private chunks: ChunkQueue | undefined;
  /** Decoded bytes received so far (of the current pass), and bytes to skip (a recovery pass). */
  private outBytes = 0;
  private skip = 0;
  private recovering = false;
  /** Bytes after the last newline of the previous chunk (a line's start). */
  private carry: Buffer | undefined;
  /** Whole chunks without a newline that follow `carry`. */
  private carryParts: Buffer[] | undefined;
  private ended = false;
  private readErr: Error | undefined;
  private readonly keepM: boolean;
  private readonly keepR: boolean;
  /** Malformed lines not yet counted on an item (see SkippedLines). */
  private bad = 0;
  /** True once the gzip stream has ended early (no trailer; see ReplayOptions.endedEarly). */
  endedEarly = false;

  constructor(
    readonly file: string,
    readonly index: number,
    private readonly stats: ReplayStats,
    channels: readonly FeedChannel[] | undefined,
    private readonly endedEarlyFiles?: Set<string>,
  ) {
    this.keepM = channels === undefined || channels.includes('m');
    this.keepR = channels === undefined || channels.includes('r');
  }

  private async start(): Promise<void> {
    const fh = await open(this.file, 'r');
    let gz = false;
    try {
      const head = Buffer.alloc(2);
      const { bytesRead } = await fh.read(head, 0, 2, 0);
      gz = bytesRead === 2 && head[0] === 0x1f && head[1] === 0x8b;
    } catch (err) {
      await fh.close();
      throw err;
    }
    const raw = createReadStream('', { fd: fh, highWaterMark: gz ? READ_CHUNK : PLAIN_READ_CHUNK, start: 0 });
    this.raw = raw;
    if (gz) {
      const g = createGunzip({ chunkSize: INFLATE_CHUNK });
      raw.on('error', (err) => {
        this.readErr = err;
        g.destroy(err);
      });
      raw.pipe(g);
      this.chunks = new ChunkQueue(g);
      this.stream = g;
    } else {
      this.chunks = new ChunkQueue(raw);
      this.stream = raw;
    }
  }

  /**
   * Loads the next non-empty run of items into `buf` (pos 0). Returns false at the end of the file.
   * @throws the file system's error (opening, reading); gzip damage is counted, not thrown.
   */
  async fill(): Promise<boolean> {
    this.buf = [];
    this.pos = 0;
    if (this.ended) return false;
    if (this.chunks === undefined) await this.start();
    for (;;) {
      let r: IteratorResult<Buffer>;
      try {
        r = await this.chunks!.next();
      } catch (err) {
        if (this.readErr !== undefined) throw this.readErr;
        if (!isZlibError(err)) throw err;
        if (!this.recovering && (err as { code: string }).code !== 'Z_BUF_ERROR') {
          // corrupt data inside the stream: zlib drops the output of the call that failed (up to a
          // whole inflate chunk). Decode again with tiny chunks, skipping what was handed out, to
          // get all but the last few hundred bytes before the damage. (A stream that merely ends
          // early, Z_BUF_ERROR, loses nothing: no second pass.)
          this.recovering = true;
          this.skip = this.outBytes;
          this.stream?.destroy();
          const raw = createReadStream(this.file, { highWaterMark: 64 * 1024 });
          const g = createGunzip({ chunkSize: RECOVERY_CHUNK });
          raw.on('error', (e) => {
            this.readErr = e;
            g.destroy(e);
          });
          raw.pipe(g);
          this.stream = g;
          this.chunks = new ChunkQueue(g);
          continue;
        }
        // gzip damage: what was decoded before it has been handed out; a partial last line is lost
        this.stats.truncatedFiles++;
        if (!this.recovering && (err as { code: string }).code === 'Z_BUF_ERROR') {
          this.endedEarly = true;
          this.endedEarlyFiles?.add(this.file);
        }
        const rest = this.takeCarry();
        if (rest !== undefined && !isBlank(rest)) {
          this.stats.lines++;
          this.stats.malformed++;
          this.bad++;
        }
        this.ended = true;
        return this.buf.length > 0;
      }
      if (r.done) {
        if (this.readErr !== undefined) throw this.readErr;
        if (this.recovering) this.stats.truncatedFiles++; // (the damage did not repeat: still damage)
        this.ended = true;
        const c = this.takeCarry();
        if (c !== undefined && c.length > 0) this.lines(c.toString('utf8'));
        return this.buf.length > 0;
      }
      let data = r.value;
      this.outBytes += data.length;
      if (this.skip > 0) {
        if (data.length <= this.skip) {
          this.skip -= data.length;
          continue;
        }
        data = data.subarray(this.skip);
        this.skip = 0;
      }
      if (data.length === 0) continue;
      const nl = data.lastIndexOf(10);
      if (nl < 0) {
        // no line ends here: keep the bytes until one does (parts, so a huge line is copied once)
        (this.carryParts ??= []).push(data);
        continue;
      }
      let off = 0;
      if (this.carry !== undefined || this.carryParts !== undefined) {
        // the line that started in earlier chunks: join just that line (never copy the chunk)
        const first = data.indexOf(10);
        const head = this.takeCarry()!;
        this.lines(Buffer.concat([head, data.subarray(0, first)]).toString('utf8'));
        off = first + 1;
      }
      if (nl + 1 < data.length) this.carry = Buffer.from(data.subarray(nl + 1));
      // decode in pieces of at most DECODE_PIECE bytes cut at newlines: V8 allocates strings over
      // ~128 KiB in its large-object space, which makes one big decode several times slower
      while (off < nl) {
        let cut = nl;
        if (nl - off > DECODE_PIECE) {
          cut = data.lastIndexOf(10, off + DECODE_PIECE);
          if (cut <= off) cut = data.indexOf(10, off + DECODE_PIECE); // a line longer than a piece
        }
        // pure ASCII (the usual case) decodes faster as latin1, to the same string
        this.lines(data.toString(isAscii(data.subarray(off, cut)) ? 'latin1' : 'utf8', off, cut));
        off = cut + 1;
      }
      if (this.buf.length > 0) return true;
    }
  }

  /** The pending bytes of an unfinished line (and forgets them). */
  private takeCarry(): Buffer | undefined {
    const parts = [...(this.carry !== undefined ? [this.carry] : []), ...(this.carryParts ?? [])];
    this.carry = undefined;
    this.carryParts = undefined;
    return parts.length === 0 ? undefined : parts.length === 1 ? parts[0] : Buffer.concat(parts);
  }

  /** Splits decoded text (whole lines, no trailing newline) and parses each line into `buf`. */
  private lines(text: string): void {
    const out = this.buf;
    const st = this.stats;
    const keepM = this.keepM;
    const keepR = this.keepR;
    let start = 0;
    const n = text.length;
    while (start <= n) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = n;
      let e = end;
      if (e > start && text.charCodeAt(e - 1) === C_CR) e--;
      if (e > start) {
        const item = parseFast(text, start, e);
        if (item === undefined) {
          if (!isBlankText(text, start, e)) {
            st.lines++;
            st.malformed++;
            this.bad++;
          }
          start = end + 1;
          continue;
        }
        // malformed lines since the last item handed out: counted on the next one (see SkippedLines)
        if (this.bad > 0 && (item.kind === 'header' || (item.ch === 'm' ? keepM : keepR))) {
          (item as { bad?: number }).bad = this.bad;
          this.bad = 0;
        }
        st.lines++;
        if (item.kind === 'frame') {
          if (item.ch === 'm' ? keepM : keepR) {
            st.frames++;
            out.push(item);
          }
        } else if (item.kind === 'status') {
          if (item.ch === 'm' ? keepM : keepR) {
            st.statuses++;
            out.push(item);
          }
        } else {
          st.headers++;
          out.push(item);
        }
      }
      start = end + 1;
    }
  }

  async close(): Promise<void> {
    this.ended = true;
    const s = this.stream;
    const raw = this.raw;
    this.stream = undefined;
    this.raw = undefined;
    if (s !== undefined && !s.destroyed) s.destroy();
    // destroying the gunzip stream does not close the file under it: the read stream owns the handle
    if (raw !== undefined && !raw.destroyed) {
      const closed = new Promise<void>((resolve) => raw.once('close', () => resolve()));
      raw.destroy();
      await closed;
    }
  }
}

/** Errors of zlib (damaged data), as opposed to the file system's. */
function isZlibError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('Z_');
}

/**
 * The chunks of a readable, pulled one at a time, with backpressure (paused above HIGH_WATER bytes
 * queued). Unlike the stream's own async iterator, chunks emitted before an error are all handed
 * out before the error is: a damaged gzip stream gives everything decoded up to the damage.
 */
class ChunkQueue {
  private static readonly HIGH_WATER = 1024 * 1024;
  private readonly q: Buffer[] = [];
  private bytes = 0;
  private ended = false;
  private error: unknown;
  private failed = false;
  private wake: (() => void) | undefined;

  constructor(private readonly s: Readable) {
    s.on('data', (c: Buffer) => {
      this.q.push(c);
      this.bytes += c.length;
      if (this.bytes > ChunkQueue.HIGH_WATER) s.pause();
      this.notify();
    });
    s.on('end', () => {
      this.ended = true;
      this.notify();
    });
    s.on('error', (err) => {
      if (!this.failed) {
        this.failed = true;
        this.error = err;
      }
      this.notify();
    });
    s.on('close', () => {
      this.ended = true;
      this.notify();
    });
  }

  private notify(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  async next(): Promise<IteratorResult<Buffer>> {
    for (;;) {
      const c = this.q.shift();
      if (c !== undefined) {
        this.bytes -= c.length;
        if (this.bytes <= ChunkQueue.HIGH_WATER / 2 && this.s.isPaused()) this.s.resume();
        return { done: false, value: c };
      }
      if (this.failed) throw this.error;
      if (this.ended) return { done: true, value: undefined };
      await new Promise<void>((r) => (this.wake = r));
    }
  }
}

function isBlankText(s: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return false;
  }
  return true;
}

function isBlank(b: Buffer): boolean {
  for (let i = 0; i < b.length; i++) {
    const c = b[i]!;
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return false;
  }
  return true;
}

/**
 * `parseLine` of feed.ts on `text[s, e)`, with a hand-written path for the common line: a frame in
 * the `f` form, `{"t":<digits>[.<1-3 digits>],"c":"m|r","f":<raw>}`. Same results as parseLine.
 */
function parseFast(text: string, s: number, e: number): FeedItem | undefined {
  // {"t":
  if (
    e - s > 20 &&
    text.charCodeAt(s) === C_LBRACE &&
    text.charCodeAt(s + 1) === C_QUOTE &&
    text.charCodeAt(s + 2) === 0x74 /* t */ &&
    text.charCodeAt(s + 3) === C_QUOTE &&
    text.charCodeAt(s + 4) === 0x3a /* : */
  ) {
    let i = s + 5;
    let int = 0;
    const d0 = i;
    let c = text.charCodeAt(i);
    while (c >= C_0 && c <= C_9) {
      int = int * 10 + (c - C_0);
      c = text.charCodeAt(++i);
    }
    if (i > d0 && i - d0 <= 15) {
      let t = int;
      let ok = true;
      if (c === C_DOT) {
        const f0 = ++i;
        let frac = 0;
        c = text.charCodeAt(i);
        while (c >= C_0 && c <= C_9) {
          frac = frac * 10 + (c - C_0);
          c = text.charCodeAt(++i);
        }
        const fl = i - f0;
        if (fl < 1 || fl > 3) ok = false;
        else if (int < 9e12) {
          // int·10^fl + frac is an exact integer (< 2^53), so one division rounds once: the same
          // double as Number("int.frac")
          const scale = fl === 1 ? 10 : fl === 2 ? 100 : 1000;
          t = (int * scale + frac) / scale;
        } else t = Number(text.slice(d0, i));
      }
      // ,"c":"m","f":
      if (
        ok &&
        c === 0x2c &&
        text.charCodeAt(i + 1) === C_QUOTE &&
        text.charCodeAt(i + 2) === 0x63 /* c */ &&
        text.charCodeAt(i + 3) === C_QUOTE &&
        text.charCodeAt(i + 4) === 0x3a &&
        text.charCodeAt(i + 5) === C_QUOTE &&
        text.charCodeAt(i + 7) === C_QUOTE &&
        text.charCodeAt(i + 8) === 0x2c &&
        text.charCodeAt(i + 9) === C_QUOTE &&
        text.charCodeAt(i + 10) === 0x66 /* f */ &&
        text.charCodeAt(i + 11) === C_QUOTE &&
        text.charCodeAt(i + 12) === 0x3a
      ) {
        const chc = text.charCodeAt(i + 6);
        const ch: FeedChannel | undefined = chc === 0x6d ? 'm' : chc === 0x72 ? 'r' : undefined;
        if (ch !== undefined) {
          const r0 = i + 13;
          if (text.charCodeAt(e - 1) !== C_RBRACE || e - 1 <= r0) return undefined;
          return { kind: 'frame', t, ch, raw: text.slice(r0, e - 1) };
        }
      }
    }
  }
  return parseLine(s === 0 && e === text.length ? text : text.slice(s, e));
}

// ---- the merge ----------------------------------------------------------------------------------

/** What the merge reads from: one file's items a chunk at a time (`buf` from `pos`). */
interface Source<T> {
  readonly index: number;
  buf: T[];
  pos: number;
  fill(): Promise<boolean>;
  close(): Promise<void>;
}

/** k-way merge of the file sources by (t, file index, line order), in batches. */
class Merger<T extends { readonly t: number } = FeedItem> {
  /** Sources still holding items or not yet exhausted. */
  private live: Source<T>[] | undefined;
  private readonly batchSize: number;
  private closed = false;

  constructor(
    private readonly sources: readonly Source<T>[],
    opts: ReplayOptions,
  ) {
    this.batchSize = Math.max(1, opts.batchSize ?? DEFAULT_BATCH);
  }

  /** The next batch in merged order, or undefined at the end. */
  async nextBatch(): Promise<T[] | undefined> {
    if (this.closed) return undefined;
    try {
      return await this.next();
    } catch (err) {
      await this.close();
      throw err;
    }
  }

  private async next(): Promise<T[] | undefined> {
    if (this.live === undefined) {
      this.live = [];
      for (const s of this.sources) if (await s.fill()) this.live.push(s);
    }
    const live = this.live;
    let out: T[] | undefined;
    for (;;) {
      // every live source holds at least one item here
      if (live.length === 0) {
        await this.close();
        return out;
      }
      if (live.length === 1) {
        const s = live[0]!;
        if (out !== undefined) return out; // hand out what is merged; the rest comes next call
        const b = s.pos === 0 ? s.buf : s.buf.slice(s.pos);
        s.buf = [];
        s.pos = 0;
        if (!(await s.fill())) live.length = 0;
        return b;
      }
      // the winner: smallest head t, ties to the lower file index (sources stay in index order)
      let w = 0;
      let wt = live[0]!.buf[live[0]!.pos]!.t;
      let b = -1;
      let bt = Infinity;
      for (let k = 1; k < live.length; k++) {
        const s = live[k]!;
        const t = s.buf[s.pos]!.t;
        if (t < wt) {
          b = w;
          bt = wt;
          w = k;
          wt = t;
        } else if (t < bt) {
          b = k;
          bt = t;
        }
      }
      const ws = live[w]!;
      // take from the winner while it stays first: t < bound, or t == bound with a lower index
      const winsTie = ws.index < live[b]!.index;
      const buf = ws.buf;
      let p = ws.pos;
      out ??= [];
      const room = this.batchSize - out.length;
      const stop = Math.min(buf.length, p + room);
      if (winsTie) while (p < stop && buf[p]!.t <= bt) out.push(buf[p++]!);
      else while (p < stop && buf[p]!.t < bt) out.push(buf[p++]!);
      ws.pos = p;
      if (p >= buf.length && !(await ws.fill())) live.splice(w, 1);
      if (out.length >= this.batchSize) return out;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.sources.map((s) => s.close()));
  }
}

/** One item per `next()`, taken from the merger's batches. */
class ItemIterator implements AsyncIterableIterator<FeedItem> {
  private batch: FeedItem[] = [];
  private pos = 0;
  private done = false;

  constructor(private readonly m: Merger) {}

  next(): Promise<IteratorResult<FeedItem>> {
    if (this.pos < this.batch.length) return Promise.resolve({ done: false, value: this.batch[this.pos++]! });
    return this.refill();
  }

  private async refill(): Promise<IteratorResult<FeedItem>> {
    if (this.done) return { done: true, value: undefined };
    const b = await this.m.nextBatch();
    if (b === undefined || b.length === 0) {
      this.done = true;
      this.batch = [];
      return { done: true, value: undefined };
    }
    this.batch = b;
    this.pos = 1;
    return { done: false, value: b[0]! };
  }

  async return(): Promise<IteratorResult<FeedItem>> {
    this.done = true;
    this.batch = [];
    await this.m.close();
    return { done: true, value: undefined };
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<FeedItem> {
    return this;
  }
}
