/**
 * The binary layout of a feed cache (see ./feed-cache.ts for the whole format): the preamble
 * (magic, version, the feed's SHA-256), the record kinds and the event kinds of an events record.
 * Constants only, shared by the writer, the reader and the planner.
 */

/** Bump when the layout or the meaning of the events changes: older caches are then rebuilt. */
export const FEED_CACHE_VERSION = 4;
/** The first bytes of every cache file. */
export const MAGIC = Buffer.from('MMKFC1\n\0', 'latin1');
/** Bytes before the first record: magic, u32 version, the feed's SHA-256. */
export const PREAMBLE = MAGIC.length + 4 + 32;

/** Record kinds (u8 after each record's u32 length). */
export const R_HEADER = 1;
export const R_STATUS = 2;
export const R_FRAME = 3;
export const R_EVENTS = 4;
export const R_STRING = 5;
export const R_END = 6;
/** Malformed lines skipped before the next item (SkippedLines: the count goes on that item). */
export const R_BAD = 7;
/** A market line (FeedItem kind `market`): f64 t, u32 length, the MarketInfo as a structured clone. */
export const R_MARKET = 8;
/** Bytes of the end record: u32 length, u8 kind, f64 malformed, f64 damaged files. */
export const END_RECORD = 4 + 1 + 8 + 8;

/** Event kinds inside an events record. */
export const E_BOOK = 1;
export const E_LEVEL = 2;
export const E_TRADE = 3;
export const E_BBA = 4;
