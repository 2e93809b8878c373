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
 * concurrent builders (sweep workers) cannot see each other's half-written files. A gzip feed whose
 * stream ends early (no trailer: a recording still being written, or one a crash cut short) gets no
 * cache: it may yet grow, and each peek at a live recording would leave one more cache behind.
 *
 * Format (little-endian): magic `MMKFC1\n\0`, u32 version, 32 bytes of the feed's SHA-256, then
 * records `u32 length, u8 kind, payload`: header (t, JSON), status (t, channel, connect|disconnect|world,
 * reason), frame (t, channel, raw text), events (t, messages, count, events), string (defines the
 * next entry of the id table: markets and tokens are written once), end (malformed lines, damaged
 * files; always last). Numbers are f64 (exact for every integer the events hold), null is NaN.
 *
 * This module is the facade; the parts: ./feed-cache-format.ts (layout constants), -codec.ts (record
 * buffer, event encoding and decoding), -writer.ts (CacheWriter), -reader.ts (CachedSource),
 * -plan.ts (folder, keys, which caches are whole), -build.ts (building caches with the replay).
 */
export { FEED_CACHE_VERSION } from './feed-cache-format.ts';
export type { CachedItem, DecodedFrameItem } from '../venues/sim/feed.ts';
export {
  decoderFingerprint,
  defaultFeedCacheDir,
  feedCacheFile,
  feedUnchanged,
  fileSha256,
  planFeedCaches,
  type CacheTarget,
  type FeedCachePlan,
} from './feed-cache-plan.ts';
export { CacheWriter } from './feed-cache-writer.ts';
export { CachedSource } from './feed-cache-reader.ts';
export { buildFeedCache, ensureFeedCaches, type FeedCacheBuild } from './feed-cache-build.ts';
