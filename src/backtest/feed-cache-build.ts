/**
 * Building feed caches: a feed read once with the replay and written through a CacheWriter
 * (./feed-cache-writer.ts), and the caches of a list of feeds made where missing.
 */
import { existsSync, statSync } from 'node:fs';
import { newReplayStats, replayFeedBatches } from './replay.ts';
import { fileSha256, feedUnchanged, planFeedCaches, type CacheTarget } from './feed-cache-plan.ts';
import { CacheWriter } from './feed-cache-writer.ts';

/**
 * Builds the cache of `feed` at `out` (see the module comment): reads the feed with the replay,
 * scans each market frame, writes a temporary file and renames it into place when whole.
 * @throws the file system's error
 */
export async function buildFeedCache(feed: string, target: string | CacheTarget): Promise<void> {
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
