/**
 * The recorded-feed format: the one contract between the recorder (`mmkit record`), replay, the
 * simulated venue and the backtest runner. It lives with the simulated venue, which consumes it,
 * so that the venue imports nothing from src/backtest (which sits above the venues).
 *
 * A feed is one or more gzip files of NDJSON (one record per line; `.ndjson.gz`). Every file starts
 * with a header line; rotated files start with their own header (same markets, `part` + 1). Lines:
 *
 *   header   {"h":1,"t":<ms>,"part":0,"source":"<base url>","recorder":"mmkit/0.1.0","protocol":2,"markets":[MarketInfo...]}
 *   frame    {"t":<ms>,"c":"m","f":<the frame's text exactly as received>}
 *   frame    {"t":<ms>,"c":"m","s":"<the frame's text as a JSON string>"}  (text that is not one-line JSON)
 *   status   {"t":<ms>,"c":"m","e":"connect"|"disconnect","r":"<reason>"}
 *   status   {"t":<ms>,"c":"m","e":"world","r":"new world <id> (was <id>)"}
 *   market   {"t":<ms>,"c":"m","mi":MarketInfo}  (a followed market as the venue lists it now: see below)
 *
 * `t` is the LOCAL receive time in unix milliseconds with up to 3 decimals (microseconds);
 * `c` is the channel: "m" market channel, "r" real-time data stream (RTDS). A frame is written as
 * `{"t":…,"c":"m","f":` + raw + `}`, so its bytes on disk are the bytes received (the recorder only
 * does this when the raw text parses as JSON and holds no line break; otherwise it writes the `s`
 * form, a JSON string holding the text exactly; replay hands both forms out as the same `frame`, and
 * the consumer's decoder counts text that is not a valid frame). After every
 * reconnect the recorder writes a `connect` status line, then the venue's fresh snapshot frames
 * follow as ordinary frames. When the venue it reconnected to is a new world (a paper
 * exchange restarted without its journal: its `GET /world` id changed), a `world` status line
 * follows: the frames before it and after it are of two different worlds (same market and token
 * ids when seeded alike, but other books, orders and trades). It is a note: replay hands it out,
 * the simulated venue counts it and changes nothing (the fresh snapshots re-set the books).
 *
 * The header's `protocol` is the order protocol the venue spoke (its `GET /version`: 1 or 2), which
 * decides its taker fee (core/fees.ts); a backtest charges that one. Feeds recorded before it was
 * written have none: a backtest then assumes 2 (DEFAULT_FEE_PROTOCOL). {@link feedProtocol} checks it.
 *
 * MarketInfo (src/core/venue.ts) is stored as is: integers in pips and micro (exact), which is
 * what the simulated venue's `markets()` returns. A market's liquidity reward config
 * (`MarketInfo.rewards`: `{"maxSpread":<pips>,"minSize":<micro-shares>,"dailyRate":<micro/day>}`,
 * optionally `"multiplier"`) is kept with it; a market without one (absent or null: feeds recorded
 * before rewards existed) has no rewards. {@link feedRewardConfig} checks one as read.
 *
 * A market line says a recorded market changed at the venue while recording: its reward config,
 * its status (`active`: closed, not accepting orders, reopened) or its minimum order size (the
 * recorder re-reads its markets as the daemon does, `venue.marketRefreshMs`, and writes one when
 * something changed; the headers of later parts carry the new info). The simulated venue turns it
 * into a `market_updated` event at that time, as the daemon's re-read does live. The tick in it is
 * not acted on (the market channel's `tick_size_change` frames are the tick). Feeds recorded before
 * it have none.
 */
import { ValidationError } from '../../core/errors.ts';
import type { MarketDataEvent } from '../../core/events.ts';
import type { FeeProtocol } from '../../core/fees.ts';
import type { RewardConfig } from '../../core/rewards.ts';
import { PRICE_SCALE, type Micro, type Pips } from '../../core/units.ts';
import type { MarketInfo } from '../../core/venue.ts';

export type FeedChannel = 'm' | 'r';

/** What a status line says: a connection up or lost, or a new world behind the venue after a reconnect. */
export type FeedStatus = 'connect' | 'disconnect' | 'world';

/** The first line of every feed file. */
export interface FeedHeader {
  readonly h: 1;
  /** When the file was started (local unix ms). */
  readonly t: number;
  /** Rotation index: 0 for the first file of a recording. */
  readonly part: number;
  /** Where it was recorded from (base URL). */
  readonly source: string;
  readonly recorder: string;
  /**
   * The order protocol the venue spoke (its `GET /version`), whose taker fee a backtest charges;
   * absent in feeds recorded before it was written (a backtest then assumes 2).
   */
  readonly protocol?: FeeProtocol;
  /** The markets recorded (both tokens of each were subscribed). */
  readonly markets: readonly MarketInfo[];
}

/**
 * Malformed lines of an item's file skipped since the item before it (absent: none). Counted on the
 * item that follows them, so a consumer that stops early knows exactly how many it went past (the
 * replay's `stats.malformed` also counts what it has read ahead).
 */
export interface SkippedLines {
  readonly bad?: number;
}

/** One replayed record, as replay hands it out (pulled, in receive-time order). */
export type FeedItem =
  | ({
      readonly kind: 'frame';
      readonly t: number;
      readonly ch: FeedChannel;
      /** The frame's text exactly as received. */
      readonly raw: string;
    } & SkippedLines)
  | ({
      readonly kind: 'status';
      readonly t: number;
      readonly ch: FeedChannel;
      readonly status: FeedStatus;
      readonly reason: string;
    } & SkippedLines)
  | ({ readonly kind: 'header'; readonly t: number; readonly header: FeedHeader } & SkippedLines)
  | ({
      readonly kind: 'market';
      readonly t: number;
      readonly ch: 'm';
      /** The market as the venue listed it then (not checked: {@link isFeedMarket}). */
      readonly info: MarketInfo;
    } & SkippedLines);

/**
 * A market frame already decoded into events (replayed from a feed cache, src/backtest/feed-cache.ts).
 * The events are built when `events()` is called, from the bytes of the cache: the replay reads
 * megabytes ahead, and events made that early would live through several young-generation
 * collections and be promoted (a measured ~20 % of a backtest's time in the collector); made at
 * ingest they die young.
 */
export interface DecodedFrameItem extends SkippedLines {
  readonly kind: 'events';
  readonly t: number;
  readonly ch: 'm';
  /** Messages the frame held (the decoder's `messages` counter). */
  readonly messages: number;
  /** The frame's events, as `FrameScanner.scan` emitted them: fresh objects on each call (the consumer may change them). */
  events(): MarketDataEvent[];
}

/** What a replay source hands out (one record of a feed, or a decoded market frame). */
export type CachedItem = DecodedFrameItem | FeedItem;

/** Counters a replay keeps (malformed lines are skipped and counted, never fatal). */
export interface ReplayStats {
  lines: number;
  frames: number;
  /** Status lines and market lines. */
  statuses: number;
  headers: number;
  /** Lines that were not a valid record (skipped). */
  malformed: number;
  /** Files whose gzip stream ended early (a crash while recording): read up to the damage. */
  truncatedFiles: number;
}

/** Formats one frame line (no trailing newline). The raw text must be valid one-line JSON; else use `stringFrameLine`. */
export function frameLine(t: number, ch: FeedChannel, raw: string): string {
  return `{"t":${formatT(t)},"c":"${ch}","f":${raw}}`;
}

/** Formats a frame whose text is not one-line JSON (kept exactly, as a JSON string). */
export function stringFrameLine(t: number, ch: FeedChannel, raw: string): string {
  return `{"t":${formatT(t)},"c":"${ch}","s":${JSON.stringify(raw)}}`;
}

/** Formats a status line. */
export function statusLine(t: number, ch: FeedChannel, status: FeedStatus, reason = ''): string {
  return `{"t":${formatT(t)},"c":"${ch}","e":"${status}","r":${JSON.stringify(reason)}}`;
}

/** Formats a market line: a recorded market as the venue lists it now. */
export function marketLine(t: number, info: MarketInfo): string {
  return `{"t":${formatT(t)},"c":"m","mi":${JSON.stringify(info)}}`;
}

/** Formats a header line. */
export function headerLine(h: FeedHeader): string {
  return JSON.stringify(h);
}

/** Largest feed time accepted (unix ms, year 33658): keeps `String(t)` clear of exponent notation. */
export const MAX_FEED_T = 1e15;

/**
 * Receive times keep microseconds at most (3 decimals), never exponent notation.
 * @throws RangeError when `t` is negative, not finite, or not below MAX_FEED_T
 */
export function formatT(t: number): string {
  if (!Number.isFinite(t) || t < 0 || t >= MAX_FEED_T)
    throw new RangeError(`feed time must be a finite number in [0, 1e15) (unix ms), got ${t}`);
  const r = Math.round(t * 1000) / 1000;
  return Number.isInteger(r) ? String(r) : r.toFixed(3).replace(/0+$/, '');
}

const FRAME_PREFIX = /^\{"t":(\d+(?:\.\d{1,3})?),"c":"([mr])","f":/;

/**
 * Parses one line into a FeedItem, or undefined when the line is malformed. A frame line's raw
 * text is sliced out of the line (no re-serialisation): the bytes handed on are the bytes recorded.
 */
export function parseLine(line: string): FeedItem | undefined {
  const m = FRAME_PREFIX.exec(line);
  if (m !== null) {
    if (line.charCodeAt(line.length - 1) !== 0x7d /* } */) return undefined;
    const raw = line.slice(m[0].length, line.length - 1);
    if (raw.length === 0) return undefined;
    return { kind: 'frame', t: Number(m[1]), ch: m[2] as FeedChannel, raw };
  }
  let o: unknown;
  try {
    o = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof o !== 'object' || o === null) return undefined;
  const r = o as Record<string, unknown>;
  const t = r['t'];
  if (typeof t !== 'number' || !Number.isFinite(t) || t < 0) return undefined;
  if (r['h'] === 1) {
    if (!Array.isArray(r['markets']) || typeof r['part'] !== 'number') return undefined;
    return { kind: 'header', t, header: r as unknown as FeedHeader };
  }
  const ch = r['c'];
  if (ch !== 'm' && ch !== 'r') return undefined;
  if (typeof r['s'] === 'string') return { kind: 'frame', t, ch, raw: r['s'] };
  const mi = r['mi'];
  if (mi !== undefined) return ch === 'm' && isFeedMarket(mi) ? { kind: 'market', t, ch, info: mi } : undefined;
  const e = r['e'];
  if (e === 'connect' || e === 'disconnect' || e === 'world')
    return { kind: 'status', t, ch, status: e, reason: typeof r['r'] === 'string' ? r['r'] : '' };
  return undefined;
}

/**
 * True when `x` has a market's shape as a feed holds it (a header's market, a market line): a
 * condition id and two tokens with ids. Other fields are checked where they are used
 * ({@link feedRewardConfig}).
 */
export function isFeedMarket(x: unknown): x is MarketInfo {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) return false;
  const m = x as Record<string, unknown>;
  const tokens = m['tokens'];
  return (
    typeof m['market'] === 'string' &&
    Array.isArray(tokens) &&
    tokens.length === 2 &&
    tokens.every((t) => typeof t === 'object' && t !== null && typeof (t as { tokenId?: unknown }).tokenId === 'string')
  );
}

/**
 * The order protocol a feed header says its venue spoke (`FeedHeader.protocol`), checked: absent
 * (feeds recorded before it was written) is undefined; otherwise 1 or 2.
 * @throws ValidationError when it is something else
 */
export function feedProtocol(h: FeedHeader): FeeProtocol | undefined {
  const p: unknown = h.protocol;
  if (p === undefined) return undefined;
  if (p !== 1 && p !== 2) throw new ValidationError(`protocol: must be 1 or 2, got ${JSON.stringify(p)}`);
  return p;
}

/**
 * A market's reward config as a feed header holds it (`MarketInfo.rewards`), checked: absent or
 * null is "no rewards" (null); otherwise integers: `maxSpread` pips in (0, 10000], `minSize` and
 * `dailyRate` micro >= 0, `multiplier` (optional) a positive integer. Returns a fresh object with
 * only those keys.
 * @throws ValidationError naming the field when the config is malformed
 */
export function feedRewardConfig(x: unknown): RewardConfig | null {
  if (x === undefined || x === null) return null;
  if (typeof x !== 'object' || Array.isArray(x)) throw new ValidationError('rewards: must be an object or null');
  const r = x as Record<string, unknown>;
  const int = (k: string, min: number, max: number): number => {
    const v = r[k];
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max)
      throw new ValidationError(`rewards.${k}: must be an integer in [${min}, ${max}], got ${JSON.stringify(v)}`);
    return v;
  };
  const maxSpread = int('maxSpread', 1, PRICE_SCALE) as Pips;
  const minSize = int('minSize', 0, Number.MAX_SAFE_INTEGER) as Micro;
  const dailyRate = int('dailyRate', 0, Number.MAX_SAFE_INTEGER) as Micro;
  if (r['multiplier'] === undefined) return { maxSpread, minSize, dailyRate };
  return { maxSpread, minSize, dailyRate, multiplier: int('multiplier', 1, 1_000_000) };
}
