/**
 * Building feed caches: a feed read once with the replay and written through a CacheWriter
 * (./feed-cache-writer.ts), and the caches of a list of feeds made where missing.
 */
import { existsSync, statSync } from 'node:fs';
import { newReplayStats, replayFeedBatches } from './replay.ts';
import { fileSha256, feedUnchanged, planFeedCaches, type CacheTarget } from './feed-cache-plan.ts';
import { CacheWriter } from './feed-cache-writer.ts';

/**
 * What `buildFeedCache` did: wrote the cache; or kept none because the feed changed while it was read,
 * or because its gzip stream ends early (no trailer: a recording still being written, or one a crash
 * cut short; the file may yet grow, so it is read from its text each time).
 */
export type FeedCacheBuild = 'written' | 'changed' | 'ends early';

/**
 * Builds the cache of `feed` at `out` (see the module comment): reads the feed with the replay,
 * scans each market frame, writes a temporary file and renames it into place when whole.
 * @throws the file system's error
 */
export async function buildFeedCache(feed: string, target: string | CacheTarget): Promise<FeedCacheBuild> {
  let t: CacheTarget;
  if (typeof target === 'string') {
    const st = statSync(feed);
    t = { out: target, sha: await fileSha256(feed), size: st.size, mtimeMs: st.mtimeMs };
  } else t = target;
  const w = new CacheWriter(t.out, t.sha);
  try {
    const stats = newReplayStats();
    const endedEarly = new Set<string>();
    for await (const batch of replayFeedBatches([feed], { stats, endedEarly })) for (const it of batch) w.add(it);
    // a gzip stream without its end, or a feed that changed since it was hashed (a recording still
    // growing): no cache
    if (endedEarly.size > 0) return 'ends early';
    if (!feedUnchanged(feed, t)) return 'changed';
    w.finish(stats.malformed, stats.truncatedFiles);
    return 'written';
  } finally {
    w.abort(); // (nothing left to do when finished)
  }
}

/**
 * The cache file of each feed, built first where missing (or unreadable: rebuilt). Returns feed
 * file → cache file; a feed whose gzip stream ends early has none (it is read from its text).
 * @throws the file system's error when a feed cannot be read or the folder cannot be written
 */
export async function ensureFeedCaches(files: readonly string[], dir: string): Promise<Map<string, string>> {
  const plan = await planFeedCaches(files, dir);
  for (const [f, m] of plan.missing) {
    if ((await buildFeedCache(f, m)) === 'ends early') continue;
    if (!existsSync(m.out)) throw new Error(`${f} changed while its cache was built`);
    plan.ready.set(f, m.out);
  }
  return plan.ready;
}
