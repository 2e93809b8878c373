/**
 * The recorder (`mmkit record`): the market channel and the real-time data stream (RTDS), exactly
 * as received, with local receive timestamps, to gzip NDJSON feed files (format: ./feed.ts).
 *
 *  - Raw: the socket factory of src/api/streams/socket.ts is wrapped so every text frame is written
 *    as it came off the wire (the `f` form when it is one-line JSON, else the `s` form); the
 *    reconnecting socket still does the stream hygiene (subscription frames on every connect, the
 *    text `PING` every 10 s on the market channel and every 5 s on RTDS, reconnect with capped
 *    backoff and jitter, a connection with no data for `silenceMs` replaced). Keep-alive answers
 *    (`PONG`) and blank keep-alive frames are not recorded.
 *  - Connections: every connection writes a `connect` status line first (reason "initial" or
 *    "reconnect"); the venue's snapshot frames for the subscription follow as ordinary frames. A lost
 *    connection writes a `disconnect` status line with the reason; stopping writes one per channel
 *    with reason "stop". At most 500 tokens per market-channel connection (more: more connections).
 *  - Worlds: with `world` (the venue's `GET /world` id, a paper exchange's: `watchWorld`), the id is asked for again after every reconnect of the market channel; when it
 *    changed (a paper exchange restarted without its journal is a NEW world: other books, orders
 *    and trades, though seeded alike it has the same market and token ids), a `world` status line
 *    says so (`new world <id> (was <id>)`), so a reader of the feed knows it splices two worlds
 *    there. The answer comes after the reconnect's first frames (it is asked for once the socket is
 *    up). A venue without the route (the public service) never gets such a line.
 *  - Protocol: the header says which order protocol the venue speaks (`protocol`, from its
 *    `GET /version`: `venueProtocol`), so a backtest of the feed charges that protocol's taker fee.
 *  - Time: `t` comes from the injected `now()` (default: `performance.timeOrigin +
 *    performance.now()`, the wall clock with sub-millisecond resolution, monotonic over a run).
 *  - Durability: lines are gathered in memory and handed to gzip every `flushIntervalMs` (default
 *    250 ms) followed by a Z_SYNC_FLUSH, so everything received before the last flush is decodable
 *    from the file even if the process is killed: a crash loses at most the last flush interval
 *    (plus the OS write). (No fsync: a power cut may lose what the OS had not written.)
 *  - Rotation by compressed size (`rotateBytes`) and/or age (`rotateMs`): the current file is
 *    finished and part N+1 starts with its own header (same markets, `part` N+1), followed by fresh
 *    snapshots asked for on the live connections (a market `subscribe` of every token, and the RTDS
 *    subscription again), so each part can be replayed on its own. Names: part 0 is the `out` path
 *    itself; part N ≥ 1 is `<base>.<N>.ndjson.gz`, where `<base>` is `out` without its
 *    `.ndjson.gz` (or `.gz`) ending: `feed.ndjson.gz`, `feed.1.ndjson.gz`, `feed.2.ndjson.gz`, …
 *    Replay merges them by time, so they can be passed in any order.
 *  - Files are created exclusively: an existing file is never appended to or overwritten (a
 *    crashed recording ends inside a gzip member; appending after it would hide the new data).
 */
import { toMarketInfo } from '../venues/live/live-mappers.ts';
import { LiveClock, type Clock } from '../core/clock.ts';
import { ConfigError, NotFoundError } from '../core/errors.ts';
import type { FeeProtocol } from '../core/fees.ts';
import { parseAmount } from '../core/units.ts';
import type { TokenId } from '../core/ids.ts';
import { ClobClient, type ClobMarket } from '../api/clob.ts';
import { GammaClient } from '../api/gamma.ts';
import { createTransport } from '../api/http/transport.ts';
import {
  isPong,
  reconnectingSocket,
  wsFactory,
  type BackoffPolicy,
  type ReconnectingSocket,
  type SocketSignal,
  type StreamLogger,
  type WsFactory,
} from '../api/streams/socket.ts';
import { captureFrames } from '../api/streams/capture.ts';
import type { MarketInfo } from '../core/venue.ts';
import { marketChangeFields, marketChanges } from '../core/market-info.ts';
import { frameLine, marketLine, statusLine, stringFrameLine, type FeedChannel } from '../venues/sim/feed.ts';

/** The file writer and the parts' names: ./feed-writer.ts. */
export { FeedWriter, type FeedWriterOptions, partPath, recordingParts } from './feed-writer.ts';
import { FeedWriter } from './feed-writer.ts';
/** Probing the venue (its URLs, world and protocol): ./recorder-venue.ts. */
export {
  marketReader,
  type MarketReader,
  venueProtocol,
  venueUrls,
  watchWorld,
  type WorldWatch,
} from './recorder-venue.ts';

/** The `recorder` field of the headers this recorder writes. */
export const RECORDER_ID = 'mmkit/0.1.0';
/** Crypto symbols recorded from RTDS by default (the venue's crypto up/down markets follow these). */
export const DEFAULT_RTDS_SYMBOLS: readonly string[] = ['btcusdt', 'ethusdt', 'solusdt', 'xrpusdt', 'dogeusdt'];
/** Most tokens on one market-channel connection (the venue's limit). */
export const MAX_TOKENS_PER_CONNECTION = 500;

/** Wall clock with sub-millisecond resolution (unix ms, fractional). */
export const preciseNow = (): number => performance.timeOrigin + performance.now();

// ---- the recorder --------------------------------------------------------------------------------

export interface RecorderOptions {
  /** Path of the first file (part 0); created exclusively. */
  out: string;
  /** The markets recorded (both tokens of each); they go into every header. */
  markets: readonly MarketInfo[];
  /** The market channel's URL, e.g. `ws://127.0.0.1:8080/ws/market`. */
  marketUrl: string;
  /** The RTDS URL, e.g. `ws://127.0.0.1:8080/rtds`; undefined: RTDS not recorded. */
  rtdsUrl?: string;
  /** crypto_prices symbols (default DEFAULT_RTDS_SYMBOLS); empty: every symbol, unfiltered (no snapshot on subscribe). */
  rtdsSymbols?: readonly string[];
  /** The header's `source` (the base URL recorded from). */
  source: string;
  /**
   * The header's `protocol`: the order protocol the venue speaks (`venueProtocol`), whose taker fee a
   * backtest of the feed charges; undefined: not written (a backtest then assumes 2).
   */
  protocol?: FeeProtocol;
  /** Receive times (unix ms, fractional); default `preciseNow`. */
  now?: () => number;
  /** Timers (flushes, rotation, socket hygiene); default the wall clock. */
  clock?: Clock;
  rotateBytes?: number;
  rotateMs?: number;
  flushIntervalMs?: number;
  /** Market channel: no data for this long replaces the connection, ms (default 30 s; 0 disables). */
  silenceMs?: number;
  /** RTDS: likewise (default 30 s; 0 disables). */
  rtdsSilenceMs?: number;
  backoff?: Partial<BackoffPolicy>;
  logger?: StreamLogger;
  /** Socket implementation (tests); default `ws`. */
  createSocket?: WsFactory;
  /**
   * The venue's world: its id when recording starts and how to ask for it again (after each
   * reconnect); undefined: not watched. See the module comment.
   */
  world?: { readonly id: string; readonly probe: () => Promise<string | undefined> };
  /**
   * Re-reads of the recorded markets (`venue.marketRefreshMs`, as the daemon does): every `everyMs`
   * each market is read (`read`: `marketReader`); one whose reward config, status or minimum size
   * changed is written as a market line, and later parts' headers carry it. Undefined: never.
   */
  marketRefresh?: { readonly everyMs: number; readonly read: (market: MarketInfo) => Promise<MarketInfo | undefined> };
}

export interface RecorderStats {
  /** Files started, in part order. */
  files: string[];
  lines: number;
  frames: { m: number; r: number };
  connects: { m: number; r: number };
  disconnects: { m: number; r: number };
  /** New worlds met after a reconnect (`world` status lines written). */
  newWorlds: number;
  /** Frames kept in the `s` form (text that is not one-line JSON). */
  stringFrames: number;
  /** Market lines written (a recorded market changed at the venue). */
  marketUpdates: number;
  /** Uncompressed bytes written. */
  rawBytes: number;
  /** Compressed bytes written. */
  diskBytes: number;
}

/** A running recorder: `stop()` it to close the files. */
export interface Recorder {
  stats(): RecorderStats;
  /** Resolves once every channel has connected (or rejects with the first write error). */
  connected(): Promise<void>;
  /** Starts the next part now. */
  rotate(): void;
  /** Resolves with the first write error (disk full...): the recording has stopped writing. */
  readonly failed: Promise<Error>;
  /**
   * Closes the sockets (a `disconnect` status per channel, reason "stop"), flushes and closes the
   * files. Idempotent. @throws the first write error, if there was one.
   */
  stop(): Promise<RecorderStats>;
}

interface Channel {
  ch: FeedChannel;
  sockets: ReconnectingSocket[];
  /** Frames that ask for fresh snapshots on a live connection (rotation). */
  refresh: (i: number) => string[];
  /** Per connection: has been up at least once / is up now. */
  everUp: boolean[];
  up: boolean[];
}

/**
 * Starts recording: creates part 0 (header with the markets), then connects.
 * @throws when `out` exists or cannot be created; RangeError when there is nothing to record
 */
export function startRecorder(o: RecorderOptions): Recorder {
  if (o.markets.length === 0) throw new RangeError('startRecorder: no market to record');
  const now = o.now ?? preciseNow;
  const clock = o.clock ?? new LiveClock();
  const counts = {
    frames: { m: 0, r: 0 },
    connects: { m: 0, r: 0 },
    disconnects: { m: 0, r: 0 },
    stringFrames: 0,
    newWorlds: 0,
    marketUpdates: 0,
  };
  // the markets as last read: every part's header carries them (replaced in place on a change)
  const current: MarketInfo[] = [...o.markets];
  let stopping = false;
  let failWith: (e: Error) => void = () => {};
  const failed = new Promise<Error>((r) => (failWith = r));
  const channels: Channel[] = [];

  const writer = new FeedWriter({
    out: o.out,
    header: {
      source: o.source,
      recorder: RECORDER_ID,
      ...(o.protocol !== undefined ? { protocol: o.protocol } : {}),
      markets: current,
    },
    now,
    clock,
    ...(o.rotateBytes !== undefined ? { rotateBytes: o.rotateBytes } : {}),
    ...(o.rotateMs !== undefined ? { rotateMs: o.rotateMs } : {}),
    ...(o.flushIntervalMs !== undefined ? { flushIntervalMs: o.flushIntervalMs } : {}),
    onRotate: (part) => {
      if (part === 0) return;
      // fresh snapshots at the start of the part, so it replays on its own
      for (const c of channels) c.sockets.forEach((s, i) => c.refresh(i).forEach((f) => s.send(f)));
    },
    onError: (err) => {
      o.logger?.warn({ err: err.message }, 'recording: write failed; nothing more is written');
      failWith(err);
    },
  });
  writer.open();

  const base = o.createSocket ?? wsFactory;
  /** Wraps the socket factory: every text frame of a live socket is recorded before it is parsed. */
  const capture = (ch: FeedChannel): WsFactory =>
    captureFrames(base, (text) => {
      if (!stopping) record(ch, text);
    });

  const record = (ch: FeedChannel, text: string) => {
    if (isPong(text)) return;
    const t = now();
    if (isOneLineJson(text)) writer.write(frameLine(t, ch, text));
    else if (text.trim().length === 0)
      return; // blank keep-alive
    else {
      counts.stringFrames++;
      writer.write(stringFrameLine(t, ch, text));
    }
    counts.frames[ch]++;
  };

  let connectedResolve: () => void = () => {};
  const connectedP = new Promise<void>((r) => (connectedResolve = r));
  const checkConnected = () => {
    if (channels.every((c) => c.everUp.every(Boolean))) connectedResolve();
  };

  // the venue's world: asked for again after each market-channel reconnect, one question at a time
  let worldId = o.world?.id;
  let worldCheck = Promise.resolve();
  const checkWorld = (): void => {
    const probe = o.world?.probe;
    if (probe === undefined) return;
    worldCheck = worldCheck.then(async () => {
      let id: string | undefined;
      try {
        id = await probe();
      } catch (err) {
        o.logger?.warn({ err: (err as Error).message }, 'recording: could not ask the venue for its world');
        return;
      }
      if (stopping || id === undefined || id === worldId) return;
      counts.newWorlds++;
      writer.write(statusLine(now(), 'm', 'world', `new world ${id} (was ${worldId ?? 'unknown'})`));
      o.logger?.warn(
        { world: id, was: worldId ?? null },
        'recording: the venue is a new world (its /world id changed): the feed goes on in that world',
      );
      worldId = id;
    });
  };

  // the markets re-read (one round at a time): a change the engine acts on is written as a market line
  let refreshing = false;
  const refreshMarkets = async (): Promise<void> => {
    const read = o.marketRefresh?.read;
    if (read === undefined || refreshing || stopping) return;
    refreshing = true;
    try {
      for (let i = 0; i < current.length && !stopping; i++) {
        const was = current[i]!;
        let fresh: MarketInfo | undefined;
        try {
          fresh = await read(was);
        } catch (err) {
          o.logger?.warn({ market: was.market, err: (err as Error).message }, 'recording: could not re-read a market');
          continue;
        }
        if (stopping || fresh === undefined || fresh.market !== was.market) continue;
        const changed = marketChanges(was, fresh);
        if (changed.length === 0) continue;
        current[i] = fresh;
        counts.marketUpdates++;
        writer.write(marketLine(now(), fresh));
        o.logger?.info?.(
          { market: was.market, changed, ...marketChangeFields(was, fresh) },
          `recording: market updated at the venue: ${changed.join(', ')}`,
        );
      }
    } finally {
      refreshing = false;
    }
  };
  const refreshTimer =
    o.marketRefresh !== undefined && o.marketRefresh.everyMs > 0
      ? clock.setInterval(() => void refreshMarkets(), o.marketRefresh.everyMs)
      : undefined;

  const onSignal = (c: Channel, i: number) => (s: SocketSignal) => {
    if (stopping) return;
    if (s.kind === 'open') {
      counts.connects[c.ch]++;
      writer.write(statusLine(now(), c.ch, 'connect', s.reconnect ? 'reconnect' : 'initial'));
      c.up[i] = true;
      c.everUp[i] = true;
      if (s.reconnect && c.ch === 'm' && i === 0) checkWorld();
      checkConnected();
    } else if (s.kind === 'down' && s.wasOpen) {
      c.up[i] = false;
      counts.disconnects[c.ch]++;
      writer.write(statusLine(now(), c.ch, 'disconnect', s.reason));
    }
  };

  const sockOpts = { clock, ...(o.backoff ? { backoff: o.backoff } : {}), ...(o.logger ? { logger: o.logger } : {}) };

  // market channel: both tokens of every market, at most 500 tokens per connection
  const tokens: TokenId[] = [...new Set(o.markets.flatMap((m) => m.tokens.map((t) => t.tokenId)))];
  const groups: TokenId[][] = [];
  for (let i = 0; i < tokens.length; i += MAX_TOKENS_PER_CONNECTION)
    groups.push(tokens.slice(i, i + MAX_TOKENS_PER_CONNECTION));
  const market: Channel = {
    ch: 'm',
    sockets: [],
    everUp: groups.map(() => false),
    up: groups.map(() => false),
    refresh: (i) => [JSON.stringify({ assets_ids: groups[i], operation: 'subscribe', custom_feature_enabled: true })],
  };
  market.sockets = groups.map((g) =>
    reconnectingSocket({
      url: o.marketUrl,
      stream: 'market',
      openFrames: () => [JSON.stringify({ assets_ids: g, type: 'market', custom_feature_enabled: true })],
      pingIntervalMs: 10_000,
      silenceMs: o.silenceMs ?? 30_000,
      createSocket: capture('m'),
      ...sockOpts,
    }),
  );
  channels.push(market);

  if (o.rtdsUrl !== undefined) {
    const symbols = o.rtdsSymbols ?? DEFAULT_RTDS_SYMBOLS;
    const sub = JSON.stringify({
      action: 'subscribe',
      subscriptions: [
        symbols.length > 0
          ? { topic: 'crypto_prices', type: 'update', filters: symbols.join(',') }
          : { topic: 'crypto_prices', type: 'update' },
      ],
    });
    const rtds: Channel = {
      ch: 'r',
      sockets: [],
      everUp: [false],
      up: [false],
      refresh: () => (symbols.length > 0 ? [sub] : []),
    };
    rtds.sockets = [
      reconnectingSocket({
        url: o.rtdsUrl,
        stream: 'rtds',
        openFrames: () => [sub],
        pingIntervalMs: 5_000,
        silenceMs: o.rtdsSilenceMs ?? 30_000,
        createSocket: capture('r'),
        ...sockOpts,
      }),
    ];
    channels.push(rtds);
  }

  const subs = channels.flatMap((c) => c.sockets.map((s, i) => s.signals$.subscribe({ next: onSignal(c, i) })));

  let stopped: Promise<RecorderStats> | undefined;
  const stats = (): RecorderStats => ({
    files: [...writer.files],
    lines: writer.lines,
    frames: { ...counts.frames },
    connects: { ...counts.connects },
    disconnects: { ...counts.disconnects },
    newWorlds: counts.newWorlds,
    stringFrames: counts.stringFrames,
    marketUpdates: counts.marketUpdates,
    rawBytes: writer.rawBytes,
    diskBytes: writer.diskBytes,
  });
  return {
    stats,
    connected: () =>
      new Promise<void>((resolve, reject) => {
        void connectedP.then(resolve);
        void failed.then(reject);
      }),
    rotate: () => writer.rotate(),
    failed,
    stop() {
      stopped ??= (async () => {
        const t = now();
        for (const c of channels) {
          if (c.up.some(Boolean)) writer.write(statusLine(t, c.ch, 'disconnect', 'stop'));
        }
        stopping = true;
        if (refreshTimer !== undefined) clock.clearInterval(refreshTimer);
        for (const s of subs) s.unsubscribe();
        for (const c of channels) for (const s of c.sockets) s.close();
        await writer.close();
        return stats();
      })();
      return stopped;
    },
  };
}

/** True when `text` is JSON and holds no line break (so it can be written in the `f` form). */
function isOneLineJson(text: string): boolean {
  if (text.length === 0 || text.includes('\n') || text.includes('\r')) return false;
  const c = text.charCodeAt(0);
  // a frame is an object or an array: anything else (PONG, numbers...) takes the s form
  if (c !== 0x7b && c !== 0x5b) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

// ---- choosing the markets ------------------------------------------------------------------------

/** Base URLs of the REST APIs the market selection reads. */
export interface MetadataUrls {
  clob: string;
  gamma: string;
}

/** Which markets to record: explicit condition ids, or the `top` N by volume then liquidity. */
export type MarketSelection =
  | { markets: readonly string[] }
  | {
      top: number;
      /** Only the metadata records this accepts are ranked (e.g. bot.marketFilters: src/cli/market-filters.ts). */
      filter?: (m: { question: string; endDate: string | null; negRisk: boolean }) => boolean;
    };

/** MarketInfo of a CLOB market record: the live venue's own conversion. */
export const marketInfoOf: (m: ClobMarket, feeRateBps: number) => MarketInfo | undefined = toMarketInfo;

/** A decimal figure ("1234.5") as exact micro-units for ranking; unparseable: 0. */
function figure(s: string): number {
  try {
    return parseAmount(s, 'down');
  } catch {
    return 0;
  }
}

/**
 * Resolves the markets to record into MarketInfo (the CLOB record and fee rate, as the live venue
 * builds it). `top`: active, order-book markets of the metadata API (those `filter` accepts, when
 * given) ranked by volume, then liquidity, then listing order.
 * @throws ConfigError when a condition id is unknown, a market is not binary, or none qualifies;
 *   the API client's errors (NetworkError...) when the venue cannot be reached
 */
export async function resolveMarkets(
  urls: MetadataUrls,
  sel: MarketSelection,
  signal?: AbortSignal,
): Promise<MarketInfo[]> {
  const transport = createTransport({ urls: { clob: urls.clob, gamma: urls.gamma } });
  try {
    const clob = new ClobClient(transport);
    const call = signal ? { signal } : undefined;
    let ids: string[];
    if ('markets' in sel) {
      ids = [...new Set(sel.markets.map((m) => m.trim()).filter((m) => m.length > 0))];
      if (ids.length === 0) throw new ConfigError('--markets', 'no condition id given');
    } else {
      if (!Number.isSafeInteger(sel.top) || sel.top < 1) throw new ConfigError('--top', 'must be a positive integer');
      const gamma = new GammaClient(transport);
      const ranked: Array<{ id: string; vol: number; liq: number; i: number }> = [];
      let i = 0;
      for await (const m of gamma.iterMarkets({ active: true, closed: false }, { pageSize: 500 }, call)) {
        if (!m.acceptingOrders || !m.enableOrderBook || m.clobTokenIds.length !== 2) continue;
        if (sel.filter !== undefined && !sel.filter(m)) continue;
        ranked.push({ id: m.conditionId, vol: figure(m.volume), liq: figure(m.liquidity), i: i++ });
      }
      ranked.sort((x, y) => y.vol - x.vol || y.liq - x.liq || x.i - y.i);
      ids = ranked.slice(0, sel.top).map((r) => r.id);
      if (ids.length === 0)
        throw new ConfigError(
          '--top',
          sel.filter !== undefined
            ? 'the venue lists no active order-book market that passes the filters (bot.marketFilters)'
            : 'the venue lists no active order-book market',
        );
    }
    const out: MarketInfo[] = [];
    const unknown: string[] = [];
    for (const id of ids) {
      let m: ClobMarket;
      try {
        m = await clob.market(id, call);
      } catch (err) {
        if (err instanceof NotFoundError) {
          unknown.push(id);
          continue;
        }
        throw err;
      }
      const fee = await clob.feeRate(m.tokens[0]?.tokenId ?? '', call);
      const info = marketInfoOf(m, fee);
      if (info === undefined) throw new ConfigError('--markets', `market ${id} is not a binary market`);
      out.push(info);
    }
    if (unknown.length > 0) throw new ConfigError('--markets', `unknown market(s): ${unknown.join(', ')}`);
    return out;
  } finally {
    await transport.close();
  }
}
