/**
 * Feed ingestion of the simulated venue: a replayed item becomes market events. Market-channel
 * frames are decoded (the FrameScanner's fast path for canonical frames, else JSON.parse and the
 * MarketDecoder, same result), frames a feed cache decoded already are handed on as they are,
 * real-time price frames go to the SimPriceFeed, statuses become disconnects and reconnects (a
 * `world` status, a note that a new world began, changes nothing), headers add markets, and market
 * lines update a known market. Bad data is counted and reported as stream errors, never thrown. Counts
 * the feed events and the feed latency (receive − venue time) of what it hands on.
 */
import type { MarketDataEvent } from '../../core/events.ts';
import type { MarketInfo } from '../../core/venue.ts';
import { MarketDecoder } from '../../api/streams/market-decode.ts';
import { FrameScanner } from '../../api/streams/frame-scan.ts';
import type { FeedItem } from './feed.ts';
import type { DecodedFrameItem } from './feed.ts';
import { SimPriceFeed } from './sim-prices.ts';
import type { SimVenueStats } from './sim-types.ts';

/** Where ingestion hands what it decoded (the venue). */
export interface IngestSink {
  /** A decoded market event, in feed order. */
  event(e: MarketDataEvent): void;
  /** The events of one frame are all handed on. */
  endFrame(): void;
  /** A frame or message that could not be decoded, or the venue's error frame. */
  streamError(reason: string, t: number): void;
  /** A recorded disconnect of the market channel. */
  disconnect(reason: string, t: number): void;
  /** A recorded (re)connect of the market channel. */
  connect(t: number): void;
  /** A market a feed header lists. */
  market(info: MarketInfo): void;
  /** A recorded market as the venue listed it at `t` (a feed's market line). */
  marketInfo(info: MarketInfo, t: number): void;
}

/** The ingestion counters (shared with the venue's counters object). */
export type IngestCounters = Pick<
  SimVenueStats,
  'frames' | 'statuses' | 'headers' | 'otherChannel' | 'decodeErrors' | 'feedEvents'
>;

/** Decodes replayed items into market events for a sink (see the module comment). */
export class FeedIngest {
  readonly decoder = new MarketDecoder();
  /** Canonical frames go straight from text to events; anything else takes JSON.parse and the decoder (same result). */
  readonly #scanner = new FrameScanner();
  /** The recorded real-time prices (channel "r"), for strategies that price from them. */
  readonly prices = new SimPriceFeed();
  // feed latency (receive − venue time) of the recorded events
  #latN = 0;
  #latSum = 0;
  #latMin = Infinity;
  #latMax = -Infinity;
  readonly #onEvent = (e: MarketDataEvent): void => this.#event(e);

  constructor(
    private readonly c: IngestCounters,
    private readonly sink: IngestSink,
  ) {}

  /** Feed latency of the events handed on, ms (receive − venue time; 0s when none). */
  get latency(): { count: number; mean: number; min: number; max: number } {
    const n = this.#latN;
    return {
      count: n,
      mean: n === 0 ? 0 : this.#latSum / n,
      min: n === 0 ? 0 : this.#latMin,
      max: n === 0 ? 0 : this.#latMax,
    };
  }

  /** Applies one replayed item (see the module comment). Never throws for bad data. */
  ingest(item: FeedItem | DecodedFrameItem): void {
    const c = this.c;
    switch (item.kind) {
      case 'events': {
        // a frame the scanner decoded when the cache was built: counted and handed on as scan() does
        c.frames++;
        const ds = this.decoder.stats;
        ds.messages += item.messages;
        const evs = item.events();
        for (let i = 0; i < evs.length; i++) {
          ds.events++;
          this.#event(evs[i]!);
        }
        this.sink.endFrame();
        return;
      }
      case 'frame': {
        if (item.ch !== 'm') {
          c.otherChannel++;
          this.prices.ingest(item);
          return;
        }
        c.frames++;
        const t = item.t;
        if (this.#scanner.scan(item.raw, t, this.decoder.stats, this.#onEvent)) {
          this.sink.endFrame();
          return;
        }
        let parsed: unknown;
        try {
          parsed = JSON.parse(item.raw);
        } catch {
          c.decodeErrors++;
          this.sink.streamError('bad frame: not JSON', t);
          return;
        }
        if (Array.isArray(parsed)) for (let i = 0; i < parsed.length; i++) this.#decode(parsed[i], t);
        else this.#decode(parsed, t);
        this.sink.endFrame();
        return;
      }
      case 'status':
        if (item.ch !== 'm') {
          c.otherChannel++;
          this.prices.ingest(item);
          return;
        }
        c.statuses++;
        // a new world behind the venue is a note: the connect before it and the fresh snapshots re-set the books
        if (item.status === 'world') return;
        if (item.status === 'disconnect') this.sink.disconnect(item.reason, item.t);
        else this.sink.connect(item.t);
        return;
      case 'market':
        c.statuses++;
        this.sink.marketInfo(item.info, item.t);
        return;
      case 'header':
        c.headers++;
        for (const m of item.header.markets ?? [])
          if (m && typeof m === 'object' && Array.isArray(m.tokens) && m.tokens.length === 2) this.sink.market(m);
        return;
    }
  }

  #decode(msg: unknown, t: number): void {
    const r = this.decoder.decode(msg, t, this.#onEvent);
    if (r.kind === 'ok' || r.kind === 'ignored') return;
    if (r.kind === 'bad') {
      this.c.decodeErrors++;
      this.sink.streamError(`bad message: ${r.reason}`, t);
    } else this.sink.streamError(`venue error: ${r.reason}`, t);
  }

  #event(e: MarketDataEvent): void {
    this.c.feedEvents += e.type === 'book_snapshot' ? Math.max(1, e.bids.length + e.asks.length) : 1;
    const lat = e.recvTime - e.venueTime;
    this.#latN++;
    this.#latSum += lat;
    if (lat < this.#latMin) this.#latMin = lat;
    if (lat > this.#latMax) this.#latMax = lat;
    this.sink.event(e);
  }
}
