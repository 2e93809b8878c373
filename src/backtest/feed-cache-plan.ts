/**
 * Where feed caches live and which are usable: the cache folder, a feed's content key (SHA-256 of
 * its bytes), the decoder fingerprint in a cache's name, and the plan of which feeds have a whole
 * cache and which need one built (see ./feed-cache.ts for the format).
 */
import { createHash } from 'node:crypto';
import { createReadStream, mkdirSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { END_RECORD, FEED_CACHE_VERSION, MAGIC, PREAMBLE, R_END } from './feed-cache-format.ts';

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
 * its decimal conversions, the cache's codec, writer and reader, this file. Their hash is part of a cache's name, so a change to any of
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
  './feed-cache-format',
  './feed-cache-codec',
  './feed-cache-writer',
  './feed-cache-reader',
  './feed-cache-plan',
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
