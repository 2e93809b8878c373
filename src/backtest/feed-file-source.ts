/**
 * One feed file read for the replay (./replay.ts merges several): chunks (./gzip-chunks.ts: gzip
 * or plain, told by the magic bytes) → lines → parsed items, a chunk at a time.
 *
 *  - Lines: each chunk is cut at its last newline (a multi-byte character is never split) and
 *    decoded in pieces of at most 48 KiB (V8 makes strings above ~128 KiB in its large-object space,
 *    several times slower); each line is parsed by a hand-written fast path for frame lines
 *    (feed.ts `parseLine` for everything else; same results).
 *  - Damage: a gzip stream that ends early is read to its end, counted in `stats.truncatedFiles`
 *    and named in `endedEarly`; corrupt data inside a stream is counted the same way and read up to
 *    the damage (a second pass in small inflate chunks recovers what zlib drops from the failing
 *    call); a partial last line is counted malformed. A file that cannot be opened or read throws.
 */
import { isAscii } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { parseLine, type FeedChannel, type FeedItem, type ReplayStats } from '../venues/sim/feed.ts';
import { ChunkQueue, gunzipOf, gzipDamage, startsWithGzipMagic } from './gzip-chunks.ts';

const READ_CHUNK = 256 * 1024;
const PLAIN_READ_CHUNK = 1024 * 1024;
const INFLATE_CHUNK = 256 * 1024;
const DECODE_PIECE = 48 * 1024;
const RECOVERY_CHUNK = 256;

const C_LBRACE = 0x7b;
const C_QUOTE = 0x22;
const C_RBRACE = 0x7d;
const C_CR = 0x0d;
const C_DOT = 0x2e;
const C_0 = 0x30;
const C_9 = 0x39;

/** Reads one file: chunks → lines → parsed items, a chunk at a time. */
export class FileSource {
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
    let gz: boolean;
    try {
      gz = await startsWithGzipMagic(fh);
    } catch (err) {
      await fh.close();
      throw err;
    }
    const raw = createReadStream('', { fd: fh, highWaterMark: gz ? READ_CHUNK : PLAIN_READ_CHUNK, start: 0 });
    this.raw = raw;
    if (gz) {
      const g = gunzipOf(raw, INFLATE_CHUNK, (err) => {
        this.readErr = err;
      });
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
        const damage = gzipDamage(err);
        if (damage === undefined) throw err;
        if (!this.recovering && damage === 'corrupt') {
          // corrupt data inside the stream: zlib drops the output of the call that failed (up to a
          // whole inflate chunk). Decode again with tiny chunks, skipping what was handed out, to
          // get all but the last few hundred bytes before the damage. (A stream that merely ends
          // early, Z_BUF_ERROR, loses nothing: no second pass.)
          this.recovering = true;
          this.skip = this.outBytes;
          // (the first pass's read stream is paused on the file, unpiped by the failed gunzip:
          // destroyed, or its handle stays open; the second pass's is tracked for close())
          this.stream?.destroy();
          this.raw?.destroy();
          const raw = createReadStream(this.file, { highWaterMark: 64 * 1024 });
          this.raw = raw;
          const g = gunzipOf(raw, RECOVERY_CHUNK, (e) => {
            this.readErr = e;
          });
          this.stream = g;
          this.chunks = new ChunkQueue(g);
          continue;
        }
        // gzip damage: what was decoded before it has been handed out; a partial last line is lost
        this.stats.truncatedFiles++;
        if (!this.recovering && damage === 'endedEarly') {
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
        } else if (item.kind === 'status' || item.kind === 'market') {
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
