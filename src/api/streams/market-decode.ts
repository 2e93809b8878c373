/**
 * Market-channel messages to events (pure: no I/O, no clock). Each message is validated and
 * converted to integer units once, here:
 *
 *  - the zod schemas below are the reference: what they accept is what the channel accepts, and
 *    their output (a normalised message: prices in pips, sizes in micro-units, timestamps in ms) is
 *    what events are built from;
 *  - the hot kinds (`price_change`, `book`, `last_trade_price`) also have hand-written decoders
 *    that give the same output and refuse the same inputs (property-tested against the schemas),
 *    because they dominate the feed and a generic validator is the bottleneck there.
 *
 * Unknown fields are tolerated; known ones are required (optional book metadata degrades to null).
 * An unknown `event_type` is ignored (counted), a message the schema refuses is a bad frame.
 */
import { z } from 'zod';
import type {
  BestBidAskEvent,
  BookSnapshotEvent,
  LastTradeEvent,
  LevelChangeEvent,
  MarketDataEvent,
  MarketResolvedEvent,
  NewMarketEvent,
  PriceLevel,
  TickSizeChangeEvent,
} from '../../core/events.ts';
import { priceLevel } from '../../core/events.ts';
import type { ConditionId, TokenId } from '../../core/ids.ts';
import type { Micro, Pips } from '../../core/units.ts';
import {
  bestPips,
  feeBps,
  levelPips,
  sizeMicro,
  tickPipsOf,
  timestampMs,
  zBestPrice,
  zFeeBps,
  zId,
  zLevelPrice,
  zodReason,
  zSide,
  zSize,
  zTick,
  zTimestamp,
} from './decode.ts';

// ---- lenient optional metadata (a bad value degrades to null, never refuses the snapshot) --------

function optTick(v: unknown): number | null {
  const p = tickPipsOf(v);
  return p < 0 ? null : p;
}
function optSize(v: unknown): number | null {
  if (typeof v === 'number') v = Number.isFinite(v) && v >= 0 ? String(v) : '';
  if (typeof v !== 'string') return null;
  const s = sizeMicro(v);
  return s < 0 ? null : s;
}
function optPrice(v: unknown): number | null {
  if (typeof v !== 'string') return null;
  const p = levelPips(v);
  return p < 0 ? null : p;
}

// ---- schemas (reference) ------------------------------------------------------------------------

const zLevel = z.object({ price: zLevelPrice, size: zSize });

export const bookSchema = z.object({
  event_type: z.literal('book'),
  asset_id: zId,
  market: zId,
  timestamp: zTimestamp,
  hash: z.string(),
  bids: z.array(zLevel),
  asks: z.array(zLevel),
  tick_size: z.unknown().optional().transform(optTick),
  min_order_size: z.unknown().optional().transform(optSize),
  last_trade_price: z.unknown().optional().transform(optPrice),
});

const zPriceChangeEntry = z.object({
  asset_id: zId,
  price: zLevelPrice,
  size: zSize,
  side: zSide,
  hash: z.string(),
  best_bid: zBestPrice,
  best_ask: zBestPrice,
});

export const priceChangeSchema = z.object({
  event_type: z.literal('price_change'),
  market: zId,
  timestamp: zTimestamp,
  price_changes: z.array(zPriceChangeEntry),
});

export const lastTradeSchema = z.object({
  event_type: z.literal('last_trade_price'),
  asset_id: zId,
  market: zId,
  price: zLevelPrice,
  side: zSide,
  size: zSize,
  fee_rate_bps: zFeeBps,
  timestamp: zTimestamp,
});

export const tickSizeChangeSchema = z.object({
  event_type: z.literal('tick_size_change'),
  asset_id: zId,
  market: zId,
  old_tick_size: zTick,
  new_tick_size: zTick,
  timestamp: zTimestamp,
});

export const bestBidAskSchema = z.object({
  event_type: z.literal('best_bid_ask'),
  asset_id: zId,
  market: zId,
  best_bid: zBestPrice,
  best_ask: zBestPrice,
  spread: zBestPrice.optional().transform((v) => v ?? 0),
  timestamp: zTimestamp,
});

export const newMarketSchema = z.object({
  event_type: z.literal('new_market'),
  market: zId,
  question: z
    .string()
    .optional()
    .transform((v) => v ?? ''),
  slug: z
    .string()
    .optional()
    .transform((v) => v ?? ''),
  assets_ids: z.array(zId),
  outcomes: z.array(z.string()),
  timestamp: zTimestamp,
});

export const marketResolvedSchema = z.object({
  event_type: z.literal('market_resolved'),
  market: zId,
  winning_asset_id: zId,
  winning_outcome: z.string(),
  timestamp: zTimestamp,
});

/** The venue's error frame `{"event_type": "error", "error": {code, message}}`. */
export const errorFrameSchema = z.object({
  event_type: z.literal('error'),
  error: z.object({ code: z.string().optional(), message: z.string().optional() }).optional(),
});

export type WireBook = z.output<typeof bookSchema>;
export type WirePriceChange = z.output<typeof priceChangeSchema>;
export type WireLastTrade = z.output<typeof lastTradeSchema>;

/** The schema of each market event type. */
export const MARKET_SCHEMAS = {
  book: bookSchema,
  price_change: priceChangeSchema,
  last_trade_price: lastTradeSchema,
  tick_size_change: tickSizeChangeSchema,
  best_bid_ask: bestBidAskSchema,
  new_market: newMarketSchema,
  market_resolved: marketResolvedSchema,
} as const;

// ---- hand-written decoders of the hot kinds (same accept/refuse and output as the schemas) -------

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is string => typeof v === 'string' && v.length >= 1 && v.length <= 200;

function fastTs(v: unknown): number | undefined {
  if (v === undefined) return -1;
  if (typeof v !== 'string' && typeof v !== 'number') return undefined;
  const t = timestampMs(v);
  return t < 0 ? undefined : t;
}

function fastLevels(v: unknown): Array<{ price: number; size: number }> | undefined {
  if (!Array.isArray(v)) return undefined;
  const out = new Array<{ price: number; size: number }>(v.length);
  for (let i = 0; i < v.length; i++) {
    const l = v[i];
    if (!isObj(l)) return undefined;
    const p = l['price'];
    const s = l['size'];
    if (typeof p !== 'string' || typeof s !== 'string') return undefined;
    const price = levelPips(p);
    const size = sizeMicro(s);
    if (price < 0 || size < 0) return undefined;
    out[i] = { price, size };
  }
  return out;
}

/** `book` without zod: the schema's output, or undefined when the schema refuses. */
export function fastBook(m: Obj): WireBook | undefined {
  if (m['event_type'] !== 'book') return undefined;
  const asset = m['asset_id'];
  const market = m['market'];
  const hash = m['hash'];
  if (!isId(asset) || !isId(market) || typeof hash !== 'string') return undefined;
  const timestamp = fastTs(m['timestamp']);
  if (timestamp === undefined) return undefined;
  const bids = fastLevels(m['bids']);
  if (bids === undefined) return undefined;
  const asks = fastLevels(m['asks']);
  if (asks === undefined) return undefined;
  return {
    event_type: 'book',
    asset_id: asset,
    market,
    timestamp,
    hash,
    bids,
    asks,
    tick_size: optTick(m['tick_size']),
    min_order_size: optSize(m['min_order_size']),
    last_trade_price: optPrice(m['last_trade_price']),
  };
}

/** `price_change` without zod: the schema's output, or undefined when the schema refuses. */
export function fastPriceChange(m: Obj): WirePriceChange | undefined {
  if (m['event_type'] !== 'price_change') return undefined;
  const market = m['market'];
  if (!isId(market)) return undefined;
  const timestamp = fastTs(m['timestamp']);
  if (timestamp === undefined) return undefined;
  const list = m['price_changes'];
  if (!Array.isArray(list)) return undefined;
  const out = new Array<WirePriceChange['price_changes'][number]>(list.length);
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    if (!isObj(c)) return undefined;
    const asset = c['asset_id'];
    const p = c['price'];
    const s = c['size'];
    const side = c['side'];
    const hash = c['hash'];
    const bb = c['best_bid'];
    const ba = c['best_ask'];
    if (
      !isId(asset) ||
      typeof p !== 'string' ||
      typeof s !== 'string' ||
      (side !== 'BUY' && side !== 'SELL') ||
      typeof hash !== 'string' ||
      typeof bb !== 'string' ||
      typeof ba !== 'string'
    )
      return undefined;
    const price = levelPips(p);
    const size = sizeMicro(s);
    const best_bid = bestPips(bb);
    const best_ask = bestPips(ba);
    if (price < 0 || size < 0 || best_bid < 0 || best_ask < 0) return undefined;
    out[i] = { asset_id: asset, price, size, side, hash, best_bid, best_ask };
  }
  return { event_type: 'price_change', market, timestamp, price_changes: out };
}

/** `last_trade_price` without zod: the schema's output, or undefined when the schema refuses. */
export function fastLastTrade(m: Obj): WireLastTrade | undefined {
  if (m['event_type'] !== 'last_trade_price') return undefined;
  const asset = m['asset_id'];
  const market = m['market'];
  const p = m['price'];
  const s = m['size'];
  const side = m['side'];
  if (
    !isId(asset) ||
    !isId(market) ||
    typeof p !== 'string' ||
    typeof s !== 'string' ||
    (side !== 'BUY' && side !== 'SELL')
  )
    return undefined;
  const price = levelPips(p);
  const size = sizeMicro(s);
  if (price < 0 || size < 0) return undefined;
  const f = m['fee_rate_bps'];
  let fee = 0;
  if (f !== undefined) {
    if (typeof f !== 'string' && typeof f !== 'number') return undefined;
    fee = feeBps(f);
    if (fee < 0) return undefined;
  }
  const timestamp = fastTs(m['timestamp']);
  if (timestamp === undefined) return undefined;
  return { event_type: 'last_trade_price', asset_id: asset, market, price, side, size, fee_rate_bps: fee, timestamp };
}

// ---- normalised messages to events ---------------------------------------------------------------

const vt = (ts: number, recvTime: number): number => (ts < 0 ? recvTime : ts);
const orNull = (p: number): Pips | null => (p === 0 ? null : (p as Pips));

/** Levels best first: bids descending, asks ascending (the wire sends best last; any order is accepted). */
function bestFirst(levels: ReadonlyArray<{ price: number; size: number }>, descending: boolean): PriceLevel[] {
  const n = levels.length;
  const out = new Array<PriceLevel>(n);
  // the usual wire order is best last: reverse; anything else: sort
  let reversed = true;
  for (let i = 1; i < n; i++) {
    const a = levels[i - 1]!.price;
    const b = levels[i]!.price;
    if (descending ? a > b : a < b) {
      reversed = false;
      break;
    }
  }
  for (let i = 0; i < n; i++) {
    const l = levels[reversed ? n - 1 - i : i]!;
    out[i] = priceLevel(l.price, l.size);
  }
  if (!reversed) out.sort(descending ? (x, y) => y[0] - x[0] : (x, y) => x[0] - y[0]);
  return out;
}

/** A normalised `book` to its event. */
export function bookEvent(m: WireBook, recvTime: number): BookSnapshotEvent {
  return {
    type: 'book_snapshot',
    venueTime: vt(m.timestamp, recvTime),
    recvTime,
    market: m.market as ConditionId,
    tokenId: m.asset_id as TokenId,
    bids: bestFirst(m.bids, true),
    asks: bestFirst(m.asks, false),
    hash: m.hash,
    tickSize: m.tick_size as Pips | null,
    minOrderSize: m.min_order_size as Micro | null,
    lastTradePrice: m.last_trade_price as Pips | null,
  };
}

/** A normalised `price_change` to one event per entry (the last with endOfBatch). */
export function levelEvents(m: WirePriceChange, recvTime: number, out: (e: MarketDataEvent) => void): void {
  const venueTime = vt(m.timestamp, recvTime);
  const list = m.price_changes;
  const last = list.length - 1;
  for (let i = 0; i <= last; i++) {
    const c = list[i]!;
    const e: LevelChangeEvent = {
      type: 'level_change',
      venueTime,
      recvTime,
      market: m.market as ConditionId,
      tokenId: c.asset_id as TokenId,
      side: c.side,
      price: c.price as Pips,
      size: c.size as Micro,
      bestBid: orNull(c.best_bid),
      bestAsk: orNull(c.best_ask),
      hash: c.hash,
      endOfBatch: i === last,
    };
    out(e);
  }
}

/** A normalised `last_trade_price` to its event. */
export function lastTradeEvent(m: WireLastTrade, recvTime: number): LastTradeEvent {
  return {
    type: 'last_trade',
    venueTime: vt(m.timestamp, recvTime),
    recvTime,
    market: m.market as ConditionId,
    tokenId: m.asset_id as TokenId,
    price: m.price as Pips,
    size: m.size as Micro,
    side: m.side,
    feeRateBps: m.fee_rate_bps,
  };
}

/** Counters of a decoder. */
export interface MarketDecoderStats {
  /** Messages seen. */
  messages: number;
  /** Events produced. */
  events: number;
  /** Messages refused (bad frames). */
  bad: number;
  /** Messages of an event_type this client does not know (ignored). */
  unknownTypes: number;
  /** Error frames from the venue. */
  serverErrors: number;
}

/** What decoding one message gave, besides its events. */
export type DecodeOutcome =
  | { readonly kind: 'ok' }
  | { readonly kind: 'bad'; readonly reason: string }
  | { readonly kind: 'ignored'; readonly eventType: string }
  | { readonly kind: 'server_error'; readonly reason: string };

const OK: DecodeOutcome = { kind: 'ok' };

/**
 * Decodes market-channel messages into events (see the module comment).
 * `fast: false` validates every kind with zod only (the reference path; slower).
 */
export class MarketDecoder {
  readonly stats: MarketDecoderStats = { messages: 0, events: 0, bad: 0, unknownTypes: 0, serverErrors: 0 };
  private readonly fast: boolean;

  constructor(o: { fast?: boolean } = {}) {
    this.fast = o.fast ?? true;
  }

  /** Decodes one message (one element of a frame); its events go to `out`, in order. */
  decode(msg: unknown, recvTime: number, out: (e: MarketDataEvent) => void): DecodeOutcome {
    this.stats.messages++;
    if (!isObj(msg)) return this.bad('a message must be a JSON object');
    const type = msg['event_type'];
    if (typeof type !== 'string') return this.bad('no event_type');
    const emit = this.#counting(out);
    switch (type) {
      case 'price_change': {
        const m = this.fast ? fastPriceChange(msg) : parse(priceChangeSchema, msg);
        if (m === undefined || typeof m === 'string')
          return this.bad(typeof m === 'string' ? m : reasonOf(priceChangeSchema, msg));
        levelEvents(m, recvTime, emit);
        return OK;
      }
      case 'book': {
        const m = this.fast ? fastBook(msg) : parse(bookSchema, msg);
        if (m === undefined || typeof m === 'string')
          return this.bad(typeof m === 'string' ? m : reasonOf(bookSchema, msg));
        emit(bookEvent(m, recvTime));
        return OK;
      }
      case 'last_trade_price': {
        const m = this.fast ? fastLastTrade(msg) : parse(lastTradeSchema, msg);
        if (m === undefined || typeof m === 'string')
          return this.bad(typeof m === 'string' ? m : reasonOf(lastTradeSchema, msg));
        emit(lastTradeEvent(m, recvTime));
        return OK;
      }
      case 'tick_size_change': {
        const m = parse(tickSizeChangeSchema, msg);
        if (typeof m === 'string') return this.bad(m);
        const e: TickSizeChangeEvent = {
          type: 'tick_size_change',
          venueTime: vt(m.timestamp, recvTime),
          recvTime,
          market: m.market as ConditionId,
          tokenId: m.asset_id as TokenId,
          old: m.old_tick_size as Pips,
          new: m.new_tick_size as Pips,
        };
        emit(e);
        return OK;
      }
      case 'best_bid_ask': {
        const m = parse(bestBidAskSchema, msg);
        if (typeof m === 'string') return this.bad(m);
        const e: BestBidAskEvent = {
          type: 'best_bid_ask',
          venueTime: vt(m.timestamp, recvTime),
          recvTime,
          market: m.market as ConditionId,
          tokenId: m.asset_id as TokenId,
          bestBid: orNull(m.best_bid),
          bestAsk: orNull(m.best_ask),
          spread: m.spread as Pips,
        };
        emit(e);
        return OK;
      }
      case 'new_market': {
        const m = parse(newMarketSchema, msg);
        if (typeof m === 'string') return this.bad(m);
        const e: NewMarketEvent = {
          type: 'new_market',
          venueTime: vt(m.timestamp, recvTime),
          recvTime,
          market: m.market as ConditionId,
          question: m.question,
          slug: m.slug,
          tokenIds: m.assets_ids as TokenId[],
          outcomes: m.outcomes,
        };
        emit(e);
        return OK;
      }
      case 'market_resolved': {
        const m = parse(marketResolvedSchema, msg);
        if (typeof m === 'string') return this.bad(m);
        const e: MarketResolvedEvent = {
          type: 'market_resolved',
          venueTime: vt(m.timestamp, recvTime),
          recvTime,
          market: m.market as ConditionId,
          winningTokenId: m.winning_asset_id as TokenId,
          winningOutcome: m.winning_outcome,
        };
        emit(e);
        return OK;
      }
      case 'error': {
        this.stats.serverErrors++;
        return { kind: 'server_error', reason: serverErrorReason(msg) };
      }
      default:
        this.stats.unknownTypes++;
        return { kind: 'ignored', eventType: type.slice(0, 40) };
    }
  }

  #countingFor: ((e: MarketDataEvent) => void) | undefined;
  #countingFn: ((e: MarketDataEvent) => void) | undefined;
  /** `out` wrapped to count events; made once per `out` (a closure per message is garbage, and under tsx a defineProperty). */
  #counting(out: (e: MarketDataEvent) => void): (e: MarketDataEvent) => void {
    if (this.#countingFor !== out || this.#countingFn === undefined) {
      const stats = this.stats;
      this.#countingFor = out;
      this.#countingFn = (e) => {
        stats.events++;
        out(e);
      };
    }
    return this.#countingFn;
  }

  private bad(reason: string): DecodeOutcome {
    this.stats.bad++;
    return { kind: 'bad', reason };
  }
}

/** The venue's error frame as a short reason ("CODE: message"). */
export function serverErrorReason(msg: unknown): string {
  const r = errorFrameSchema.safeParse(msg);
  if (!r.success) return 'error frame';
  const e = r.data.error;
  return `${e?.code ?? 'ERROR'}: ${(e?.message ?? '').slice(0, 160)}`;
}

function parse<S extends z.ZodType>(schema: S, msg: unknown): z.output<S> | string {
  const r = schema.safeParse(msg);
  return r.success ? r.data : zodReason(r.error);
}

function reasonOf(schema: z.ZodType, msg: unknown): string {
  const r = schema.safeParse(msg);
  return r.success ? 'invalid' : zodReason(r.error);
}
