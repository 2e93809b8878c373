/**
 * Reading a feed cache back into replay items, in chunks (see ./feed-cache.ts for the format):
 * the replay's source interface over a cache file, counting as the text source counts.
 */
import { open } from 'node:fs/promises';
import { deserialize } from 'node:v8';
import type { MarketInfo } from '../core/market-info.ts';
import type { CachedItem, FeedChannel, FeedHeader, FeedStatus, ReplayStats } from '../venues/sim/feed.ts';
import { CachedFrame, str } from './feed-cache-codec.ts';
import {
  FEED_CACHE_VERSION,
  MAGIC,
  PREAMBLE,
  R_BAD,
  R_END,
  R_EVENTS,
  R_FRAME,
  R_HEADER,
  R_MARKET,
  R_STATUS,
  R_STRING,
} from './feed-cache-format.ts';

const READ_CHUNK = 1024 * 1024;

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
        const status: FeedStatus = b[p + 9] === 0 ? 'connect' : b[p + 9] === 2 ? 'world' : 'disconnect';
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
      } else if (kind === R_MARKET) {
        const t = v.getFloat64(p, true);
        const n = v.getUint32(p + 8, true);
        const info = deserialize(b.subarray(p + 12, p + 12 + n)) as MarketInfo;
        st.lines++;
        if (this.#keepM) {
          st.statuses++;
          out.push(
            this.#bad > 0
              ? { kind: 'market', t, ch: 'm', info, bad: this.#take() }
              : { kind: 'market', t, ch: 'm', info },
          );
        }
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
