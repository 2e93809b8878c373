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
 *    A file given twice (the same path, another path to it, or a byte-identical copy) is not
 *    merged with itself by anything here: `checkFeedFiles` finds it (and two recordings of one
 *    market over the same time), for the commands to refuse (or warn) before a replay.
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
 * Where it is done: one file (lines, the fast parse, damage) in ./feed-file-source.ts; gzip or plain and
 * how a gzip stream's damage is told apart in ./gzip-chunks.ts; the merge and the batches here.
 *
 * Two shapes of the same stream: `replayFeeds` (one FeedItem per step, the reference API) and
 * `replayFeedBatches` (arrays of FeedItems in the same order, for consumers that loop synchronously
 * over a batch and so pay one await per few thousand items instead of one per item).
 */
import type { FeedChannel, FeedHeader, FeedItem, ReplayStats } from '../venues/sim/feed.ts';
import type { CachedItem } from '../venues/sim/feed.ts';
import { CachedSource } from './feed-cache-reader.ts';
import { CacheWriter } from './feed-cache-writer.ts';
import { feedUnchanged, fileSha256, type CacheTarget } from './feed-cache-plan.ts';
import { realpathSync, statSync } from 'node:fs';
import { FileSource } from './feed-file-source.ts';

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
        if (x.kind === 'status' || x.kind === 'market') this.stats.statuses++;
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

// ---- feeds given together ----------------------------------------------------------------------

/**
 * What is wrong with a list of feed files given together, which the merge itself does not check
 * (every file given is one more source, so a feed given twice would replay, and fill, every trade
 * twice): `duplicate`, the first two paths that are the same file (`same-file`) or hold the same
 * bytes (`same-content`: equal size, then equal SHA-256); `overlaps`, pairs of files whose headers
 * list a market in common and whose time ranges overlap (two recordings of one market, not parts of
 * one).
 */
export interface FeedFilesCheck {
  readonly duplicate?: { readonly a: string; readonly b: string; readonly why: 'same-file' | 'same-content' };
  readonly overlaps: readonly { readonly a: string; readonly b: string; readonly markets: readonly string[] }[];
}

/**
 * Checks feed files given together (see FeedFilesCheck). Hashes only files of equal size. A file's
 * time range runs from its header's `t` to its last record; the last record is read (the whole
 * file) only for a file that shares a market with one starting later and is not an earlier part of
 * the same recording (same `source`, lower `part`: the recorder starts a part when it ends the one
 * before). A file without a header is left to the replay to refuse.
 * @throws the file system's error when a file cannot be read
 */
export async function checkFeedFiles(files: readonly string[]): Promise<FeedFilesCheck> {
  const real = new Map<string, string>();
  for (const f of files) {
    const r = realpathSync(f);
    const prev = real.get(r);
    if (prev !== undefined) return { duplicate: { a: prev, b: f, why: 'same-file' }, overlaps: [] };
    real.set(r, f);
  }
  const bySize = new Map<number, string[]>();
  for (const f of files) {
    const size = statSync(f).size;
    bySize.set(size, [...(bySize.get(size) ?? []), f]);
  }
  for (const same of bySize.values()) {
    if (same.length < 2) continue;
    const seen = new Map<string, string>();
    for (const f of same) {
      const sha = (await fileSha256(f)).toString('hex');
      const prev = seen.get(sha);
      if (prev !== undefined) return { duplicate: { a: prev, b: f, why: 'same-content' }, overlaps: [] };
      seen.set(sha, f);
    }
  }
  const heads: { file: string; h: FeedHeader }[] = [];
  for (const f of files) {
    const h = await readFeedHeader(f);
    if (h !== undefined) heads.push({ file: f, h });
  }
  heads.sort((x, y) => x.h.t - y.h.t);
  const ends = new Map<string, number>();
  const overlaps: { a: string; b: string; markets: string[] }[] = [];
  for (let i = 0; i < heads.length; i++) {
    const a = heads[i]!;
    const ids = new Set(a.h.markets.map((m) => m.market as string));
    for (let j = i + 1; j < heads.length; j++) {
      const b = heads[j]!;
      const markets = b.h.markets.map((m) => m.market as string).filter((m) => ids.has(m));
      if (markets.length === 0) continue;
      if (a.h.source === b.h.source && a.h.part < b.h.part) continue;
      let end = ends.get(a.file);
      if (end === undefined) {
        end = await lastRecordTime(a.file);
        ends.set(a.file, end);
      }
      if (end > b.h.t) overlaps.push({ a: a.file, b: b.file, markets });
    }
  }
  return { overlaps };
}

/** The receive time of a feed file's last record (reads the whole file). */
async function lastRecordTime(file: string): Promise<number> {
  let last = -Infinity;
  for await (const b of replayFeedBatches([file])) if (b.length > 0) last = Math.max(last, b[b.length - 1]!.t);
  return last;
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
