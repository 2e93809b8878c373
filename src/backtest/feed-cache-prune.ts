/**
 * Keeps a feed-cache folder (src/backtest/feed-cache.ts) from growing without bound. A cache is
 * about 2.7 times the size of its gzip feed and a new one is written whenever a feed, the format
 * version or the decoder's code changes, so without this the folder only grows.
 *
 * `pruneFeedCaches(dir)` removes, in this order:
 *  1. leftovers of crashed builders and probes (`*.tmp`, `.probe-*`) untouched for an hour (a live
 *     builder writes to its temporary file continuously, so an hour without a write means dead);
 *  2. caches this build can never read (another format version or decoder hash) unused for a week
 *     (another mmkit version sharing the folder keeps the ones it still uses);
 *  3. then, while the caches take more than `maxBytes`, the least recently used one (a cache's
 *     mtime is set each time a run uses it), never one used since `keepSince` (the current run's).
 *
 * Everything is best effort and per file: a file that vanished meanwhile (a concurrent prune) or
 * cannot be removed is skipped. Files that are not the cache's own are never touched.
 */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { FEED_CACHE_VERSION } from './feed-cache-format.ts';
import { decoderFingerprint } from './feed-cache-plan.ts';

/** Leftover temporary files and probes older than this are removed, ms. */
export const ORPHAN_AFTER_MS = 60 * 60 * 1000;
/** Caches of another format or decoder unused for this long are removed, ms. */
export const FOREIGN_AFTER_MS = 7 * 24 * 60 * 60 * 1000;
/** Default size cap of a cache folder, MB (`--feed-cache-max-mb`, `MMKIT_FEED_CACHE_MAX_MB`). */
export const DEFAULT_FEED_CACHE_MAX_MB = 10_240;

const CACHE_RE = /^[0-9a-f]{64}\.v\d+(-[0-9a-f]+)?\.mmfc$/;
const TMP_RE = /^[0-9a-f]{64}\.v\d+(-[0-9a-f]+)?\.mmfc\.\d+\.[0-9a-z]*\.tmp$/;
const PROBE_RE = /^\.probe-\d+$/;

export interface PruneOptions {
  /** Size cap of the caches, bytes (default none: only leftovers and foreign caches go). */
  readonly maxBytes?: number;
  /** Caches used or written at or after this time (unix ms; the current run's) are never removed. */
  readonly keepSince?: number;
  /** Now, unix ms (default Date.now(); injected by tests). */
  readonly now?: number;
}

export interface PruneReport {
  /** Files removed, with why. */
  readonly removed: ReadonlyArray<{
    readonly file: string;
    readonly bytes: number;
    readonly why: 'orphan' | 'foreign' | 'size';
  }>;
  readonly freedBytes: number;
  /** Bytes of the caches left. */
  readonly keptBytes: number;
}

/** The suffix of this build's cache names (format version and decoder hash). */
function ownSuffix(): string {
  const fp = decoderFingerprint();
  return `.v${FEED_CACHE_VERSION}${fp ? `-${fp}` : ''}.mmfc`;
}

/** Prunes `dir` (see the module comment). A missing folder is an empty one. */
export function pruneFeedCaches(dir: string, o: PruneOptions = {}): PruneReport {
  const now = o.now ?? Date.now();
  const kept = (mtimeMs: number) => o.keepSince !== undefined && mtimeMs >= o.keepSince;
  const own = ownSuffix();
  const removed: Array<{ file: string; bytes: number; why: 'orphan' | 'foreign' | 'size' }> = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return { removed, freedBytes: 0, keptBytes: 0 };
  }
  const remove = (file: string, bytes: number, why: 'orphan' | 'foreign' | 'size'): boolean => {
    try {
      rmSync(file);
      removed.push({ file, bytes, why });
      return true;
    } catch {
      return false; // gone already, or not ours to remove: skipped
    }
  };
  const caches: Array<{ file: string; bytes: number; mtimeMs: number }> = [];
  for (const name of names) {
    const isCache = CACHE_RE.test(name);
    if (!isCache && !TMP_RE.test(name) && !PROBE_RE.test(name)) continue;
    const file = join(dir, name);
    let st;
    try {
      st = statSync(file);
    } catch {
      continue;
    }
    if (!st.isFile()) continue;
    const age = now - st.mtimeMs;
    if (!isCache) {
      if (age > ORPHAN_AFTER_MS) remove(file, st.size, 'orphan');
      continue;
    }
    if (!name.endsWith(own)) {
      if (age > FOREIGN_AFTER_MS && !kept(st.mtimeMs)) remove(file, st.size, 'foreign');
      else caches.push({ file, bytes: st.size, mtimeMs: st.mtimeMs });
      continue;
    }
    caches.push({ file, bytes: st.size, mtimeMs: st.mtimeMs });
  }
  let total = caches.reduce((s, c) => s + c.bytes, 0);
  if (o.maxBytes !== undefined && total > o.maxBytes) {
    // least recently used first (ties by name, so the order does not depend on the listing)
    caches.sort((a, b) => a.mtimeMs - b.mtimeMs || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
    for (const c of caches) {
      if (total <= o.maxBytes) break;
      if (kept(c.mtimeMs)) continue;
      if (remove(c.file, c.bytes, 'size')) total -= c.bytes;
    }
  }
  const freedBytes = removed.reduce((s, r) => s + r.bytes, 0);
  return { removed, freedBytes, keptBytes: total };
}
