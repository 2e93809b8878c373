/**
 * The simulated venue of feed backtests: the engine's Venue port (src/core/venue.ts) over a
 * recorded market feed (./feed.ts), with queue-position (./queue.ts) and latency (./latency.ts)
 * models. The runner replays the feed in virtual time: for each item it advances the VirtualClock
 * to `item.t`, then calls `ingest(item)`. The venue only ever knows what was ingested so far: no
 * future frame (a resolution included) is visible before its turn (no look-ahead).
 *
 * TIME. A frame's `t` is its local receive time; the venue time inside it (`timestamp`) is when the
 * exchange made it, so `t − venueTime` is the feed latency of that frame (plus clock skew between
 * the recorder's host and the exchange). With `latency.feedMs: 'recorded'` (the default) the bot
 * sees each market event at its recorded receive time (`recvTime = t`): the feed latency is the
 * recorded one. With `feedMs: N` the bot sees it at `venueTime + N`, or at its receive time if that
 * is later (a replay cannot show an event before its turn in the feed): the events are then held
 * in a FIFO and delivered on the clock.
 *   Requests (place, cancel, cancelAll) are answered from clock timers: `nextTimerAt()` tells the
 * runner when the next one is due, so it can advance to it and let the answer's promise settle
 * before it moves on (else an answer due between two items is seen at the later item).
 *   The simulated matching runs on the receive timeline: a recorded event takes effect at its
 * receive time, and our order placed at local time t0 meets the book at t0 + entry latency. So the
 * book our order meets lags the real exchange's by the feed latency: when calibrating against live
 * fills, fold the typical feed latency into `entry` and `cancel` (hftbacktest's exchange-timeline
 * matching would need the feed beyond the present, which a pulled replay does not have).
 *
 * MARKET EVENTS. `marketEvents(tokens)` emits the decoded recorded events (src/api/streams/
 * market-decode.ts, one `decode` per message of a frame), synchronously inside `ingest`. Subscribing
 * gives the current book of each subscribed token that has one (a snapshot), then `resynced
 * {initial: true}`, as the live client does after its first connection. A recorded `disconnect`
 * becomes `disconnected`; after the recorded `connect`, every token that had a book waits for its
 * fresh snapshot (its level changes are dropped meanwhile, as the live client drops them), and
 * `resynced {initial: false}` follows the last one: the engine pulls and resumes exactly as live.
 * Frames that are not valid messages become `stream_error`s and are counted, never thrown.
 *   Our resting orders are shown in the book the bot sees (option `showOwnOrders`, default true),
 * as the live market channel shows them: each recorded level change, snapshot and best bid/ask is
 * adjusted by our resting size at that price (a BUY of YES at p is also the NO token's ask at
 * 1 − p), and every change of our resting size is a level change of both tokens. Strategies that
 * take "the book net of our own orders" (bands' excludeOwnOrders) then see the same book as live.
 * The matching never sees these: it uses the recorded sizes only.
 *
 * MATCHING. Each token's recorded book is mirrored (src/book/mirror.ts). YES and NO books mirror
 * each other on the venue (one book per market in YES terms), and both are recorded: our order on a
 * token matches THAT token's recorded book (a BUY of NO at q meets the NO asks, which are the YES
 * bids at 1 − q). Our orders never move the recorded market. At arrival (place time + entry
 * latency) an order is validated with the paper exchange's rules and codes
 * (src/exchange/matching/engine.ts: market ready, duplicate id, order type, post-only type, tick
 * and price range, minimum size, lot, fee rate, GTD expiration, balance reserved as the engine
 * reserves it, post-only would-cross, FOK fillable), then:
 *  - a crossing order takes the recorded opposite levels from the best, at each level's price, up to
 *    its recorded size less what we already took there: taken liquidity is tracked per level (and
 *    mirrored on the complement) until the level's recorded updates show it gone (a recorded
 *    decrease eats into what we took first, those orders being gone for us already; an increase is
 *    new liquidity), so the same liquidity is never taken twice (our resting orders on the other
 *    side, or their complement, are matched too, as the venue would: a self-trade). The taker pays the exchange's fee on each fill: floor(size × min(p, 1 − p) × bps),
 *    with bps the market's feeRateBps (src/exchange/matching/engine.ts; makers pay none there);
 *  - a resting order joins the back of its level: queue ahead = the recorded size at its price on
 *    its token at arrival. The queue advances by the queue model (./queue.ts): recorded trades at
 *    its price hitting its side (a `last_trade_price` on its token, or on the complement at 1 − p
 *    with the side flipped; a trade the venue prints on both tokens counts once) and, in the
 *    probabilistic model, cancellations. Level changes are held until their venue batch (the
 *    market's events with one venue timestamp) ends, because the venue sends a level's new size
 *    before the trade that caused it; then they are netted against the batch's trades. Volume beyond the queue ahead fills it (partial fills); a trade printed
 *    THROUGH its price fills it the same way with the whole trade's volume; the recorded best
 *    opposite price reaching its price fills it fully. All at its own price, as MAKER;
 *  - cancels take effect at cancel time + cancel latency: a fill before then stands (a cancel can
 *    arrive too late and is answered "not canceled" as the venue answers it).
 *  - `market_resolved` cancels our orders on the market and settles its positions at 1 (winning
 *    token) or 0 (`settlements()`); `tick_size_change` cancels our orders off the new tick.
 *
 * USER EVENTS are shaped as the live user channel gives them (src/api/streams/user-decode.ts):
 * PLACEMENT / UPDATE / CANCELLATION order updates and MATCHED fills keyed (trade id, order id), in
 * the paper exchange's order (a crossing order: PLACEMENT, the makers' UPDATEs, its own UPDATE, then
 * the fills; a dropped FAK remainder: CANCELLATION last).
 *
 * COST. Per recorded event the venue does one map lookup and an O(1) book update; own orders are
 * indexed by token, side and price, so an event touches them only when it is at one of their
 * prices (or moves the best price through one). Nothing is allocated per event beyond the decoded
 * event (adjusting it for our resting orders is done in place).
 */
import { Observable, type Subscriber } from 'rxjs';
import type { Clock, TimerHandle } from '../../core/clock.ts';
import { ValidationError } from '../../core/errors.ts';
import type {
  BestBidAskEvent,
  BookSnapshotEvent,
  FillEvent,
  LastTradeEvent,
  LevelChangeEvent,
  MarketDataEvent,
  MarketEvent,
  MarketResolvedEvent,
  OrderStatus,
  OrderUpdateEvent,
  PriceLevel,
  RtdsEvent,
  TickSizeChangeEvent,
  UserDataEvent,
  UserEvent,
} from '../../core/events.ts';
import { sequentialUuid, type ConditionId, type OrderId, type TokenId, type TradeId } from '../../core/ids.ts';
import {
  LOT_MICRO,
  MAX_ORDER_MICRO,
  notional,
  PRICE_SCALE,
  tickFromPips,
  tickPips,
  type Micro,
  type Pips,
  type Side,
} from '../../core/units.ts';
import { BookMirror } from '../../book/mirror.ts';
import { MarketDecoder } from '../../api/streams/market-decode.ts';
import { FrameScanner } from '../../api/streams/frame-scan.ts';
import type {
  CancelOutcome,
  MarketInfo,
  PlaceOutcome,
  PlaceRequest,
  PreparedOrder,
  Venue,
  VenueFill,
  VenueOrder,
} from '../../core/venue.ts';
import { MAX_FEE_RATE_BPS, REJECT_MESSAGES } from '../../exchange/matching/engine.ts';
import type { RejectCode } from '../../exchange/matching/types.ts';
import type { RateRuleOverrides } from '../../core/rate-limits.ts';
import type { DecodedFrameItem, FeedItem } from './feed.ts';
import { SimPriceFeed } from './sim-prices.ts';
import { latencySampler, rngStream, validateLatencySpec, type LatencySampler, type LatencySpec } from './latency.ts';
import {
  createQueueModel,
  floorLot,
  tradeAtLevel,
  tradeVolumeAtLevel,
  type QueueModel,
  type QueueModelSpec,
} from './queue.ts';
import { BudgetMeter, type BudgetUse } from './sim-budget.ts';

// ---- options and results ---------------------------------------------------------------------------

/** Latencies of the simulated venue (ms of the injected clock). */
export interface SimLatencyOptions {
  /**
   * When the bot sees a market event: 'recorded' (default) at its recorded receive time; a number N
   * at `venueTime + N`, or at its receive time if that is later.
   */
  readonly feedMs?: 'recorded' | number;
  /** From `place` / `cancelAll` ... to the matching point: an order's entry latency. */
  readonly entry: LatencySpec;
  /** From `cancel` / `cancelAll` to the matching point. */
  readonly cancel: LatencySpec;
  /** From the matching point back to us: the request's promise resolves after it. */
  readonly response: LatencySpec;
}

/** Options of {@link createSimVenue}. */
export interface SimVenueOptions {
  /** The replay's clock (a VirtualClock the runner advances to each item's `t` before `ingest`). */
  readonly clock: Clock;
  /** The recorded markets (the feed header's); headers ingested later add markets not known yet. */
  readonly markets: readonly MarketInfo[];
  /** Starting account: collateral (micro, default 10,000 USDC as the paper exchange) and token positions (micro-shares). */
  readonly account?: { readonly collateral: Micro; readonly positions?: Readonly<Record<string, Micro>> };
  /** Queue-position model: 'risk-averse', 'probabilistic' (power 2), or `{kind: 'probabilistic', power}`. */
  readonly queue: QueueModelSpec;
  readonly latency: SimLatencyOptions;
  /** Seeds the latency draws and the order ids (a 32-bit integer). */
  readonly seed: number;
  /** Show our resting orders in the market events the bot sees, as the live channel does (default true). */
  readonly showOwnOrders?: boolean;
  /** Overrides of the section-8 rate rules the requests are counted against (default: the spec's). */
  readonly budgets?: RateRuleOverrides;
  /**
   * Virtual time (ms) finished orders and fills are kept after they finished, for `order(id)` and
   * `fills(since)` (default 600,000: 10 minutes, as the order tracker keeps terminal orders;
   * Infinity: everything, forever). Older ones are dropped, so memory stays flat however long the
   * replay: `order(id)` of an order finished longer ago answers undefined and `fills(since)` starts
   * at most that far back. The bot's queries (an unknown outcome resolved by id, a restart backfill)
   * look seconds back, never minutes. A dropped order's id still counts as a duplicate if placed
   * again (a bitmap by sequence number: 1 bit per order).
   */
  readonly retainMs?: number;
}

/** Counters of a simulated venue (a snapshot: read `stats` again for fresh numbers). */
export interface SimVenueStats {
  /** Feed items ingested, by kind; `otherChannel`: frames and statuses of channels other than the market channel (ignored). */
  items: number;
  frames: number;
  statuses: number;
  headers: number;
  otherChannel: number;
  /** Messages decoded and market events they gave. */
  messages: number;
  events: number;
  /**
   * Feed events at the granularity of a normalised L2 feed (hftbacktest's unit): every level of a
   * book snapshot, every level change, trade, best bid/ask, tick change and resolution is one.
   */
  feedEvents: number;
  /** Frames that were not JSON and messages the decoder refused (both skipped, each a stream_error). */
  decodeErrors: number;
  /** Messages of an event_type the decoder does not know (ignored), and the venue's error frames. */
  unknownTypes: number;
  serverErrors: number;
  /** Recorded disconnects, and level changes dropped while a token awaited its fresh snapshot. */
  disconnects: number;
  droppedWhilePending: number;
  /** Snapshots served by `resync`. */
  resyncs: number;
  /** Requests: POST /orders (one per 15 orders), DELETE /orders (one per 3000 ids), DELETE /cancel-all. */
  placeRequests: number;
  cancelRequests: number;
  cancelAllRequests: number;
  /** Orders accepted / rejected (per code) at the matching point. */
  ordersPlaced: number;
  ordersRejected: number;
  rejects: Record<string, number>;
  /** Our cancels that took effect; cancels that came too late (the order was already filled or gone). */
  ordersCancelled: number;
  cancelsTooLate: number;
  /** Orders cancelled by the venue: expired GTD, tick-size change, market resolved. */
  venueCancels: number;
  /** Fills (one per order per trade): all, as maker, as taker; shares (micro), collateral (micro), taker fees paid (micro). */
  fills: number;
  makerFills: number;
  takerFills: number;
  volume: number;
  notional: number;
  fees: number;
  /** Per rate rule: requests against the limit (the report's "orders and cancels against the budgets"). */
  budget: BudgetUse[];
  /**
   * Feed latency of the recorded market events, receive time − venue time, ms (it includes the
   * clock skew between the recorder and the venue; events the venue did not stamp count as 0).
   */
  feedLatencyMs: { count: number; mean: number; min: number; max: number };
}

/** The settlement of one resolved market. */
export interface Settlement {
  readonly market: ConditionId;
  /** The winning token (undefined when the resolution named none of the market's tokens: both pay 0). */
  readonly winningTokenId: TokenId | undefined;
  /** Clock time of the settlement, unix ms. */
  readonly at: number;
  /** Per token: the shares held (micro) and what they paid (micro collateral: 1 per winning share). */
  readonly positions: ReadonlyArray<{ readonly tokenId: TokenId; readonly shares: Micro; readonly payout: Micro }>;
  /** Total paid out, micro. */
  readonly payout: Micro;
  /** Our open orders the resolution cancelled. */
  readonly cancelledOrders: number;
}

/** The account of the simulated venue (micro). */
export interface SimAccount {
  readonly collateral: Micro;
  readonly reserved: Micro;
  /** Taker fees paid so far. */
  readonly feesPaid: Micro;
  /** Paid out by settlements so far. */
  readonly settled: Micro;
  /** Shares per token (available + reserved by open SELL orders). */
  readonly positions: ReadonlyMap<TokenId, Micro>;
}

/** The simulated venue: the Venue port plus what the backtest runner drives and reads. */
export interface SimVenue extends Venue {
  /**
   * Applies one replayed item: a frame's messages are decoded and their events emitted on
   * `marketEvents` (synchronously); statuses become disconnected / resynced; headers add markets.
   * Call it after advancing the clock to `item.t`. Never throws for bad data (counted).
   */
  /** A feed item; or a market frame already decoded (a feed cache's `events` item: the same events the frame would give). */
  ingest(item: FeedItem | DecodedFrameItem): void;
  /** Counters (a fresh snapshot on each read). */
  readonly stats: SimVenueStats;
  /** The account now. */
  account(): SimAccount;
  /** Settlements of the markets resolved so far, in order. */
  settlements(): readonly Settlement[];
  /**
   * Resolves a market by hand (e.g. the runner knows the outcome of a feed that ends before the
   * venue said it): our orders on it are cancelled and its positions paid 1 / 0. Idempotent: a
   * resolved market returns its settlement.
   * @throws ValidationError for an unknown market
   */
  settle(market: ConditionId, winningTokenId: TokenId): Settlement;
  /** Fresh snapshots of these tokens' books (as the live venue's resync); what the engine calls on a desynced or crossed mirror. */
  resync(tokenIds: readonly TokenId[]): void;
  /** The earliest time a pending venue timer (an order or cancel in flight, a response, a delayed event) fires, or undefined. */
  nextTimerAt(): number | undefined;
}

// ---- internal state --------------------------------------------------------------------------------

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const ZERO_MICRO = 0 as Micro;
/** Seconds before its expiration a GTD order leaves the book (the venue's security threshold). */
const GTD_THRESHOLD_SEC = 60;
const DEFAULT_COLLATERAL = 10_000 * 1_000_000;
const MAX_PLACE_BATCH = 15;
const MAX_CANCEL_BATCH = 3000;
const NOT_FOUND = 'order not found';
const NOT_LIVE = 'order can not be canceled because it is already canceled or matched';
const VENUE_CLOSED = 'venue closed';

/** Our resting orders at one price of one side of one token, FIFO, with the recorded level's batch state. */
class OwnLevel {
  readonly orders: SimOrder[] = [];
  /** In the open venue batch of its market: L0 = the recorded size before the batch, cum = trade volume counted here in it. */
  inGroup = false;
  l0 = 0;
  cum = 0;
  constructor(
    readonly token: TokenState,
    readonly isBid: boolean,
    readonly price: number,
  ) {}
}

class SimOrder {
  matched = 0;
  status: 'LIVE' | 'MATCHED' | 'CANCELED' = 'LIVE';
  /** Collateral (BUY) or shares (SELL) reserved for the unfilled rest. */
  reserved = 0;
  /** Recorded size ahead of it at its level (micro). */
  ahead = 0;
  level: OwnLevel | null = null;
  expiry: TimerHandle | undefined = undefined;
  constructor(
    readonly id: OrderId,
    readonly market: MarketState,
    readonly token: TokenState,
    readonly side: Side,
    readonly price: number,
    readonly size: number,
    readonly type: PlaceRequest['type'],
    readonly feeRateBps: number,
    readonly createdAt: number,
  ) {}
  get isBuy(): boolean {
    return this.side === 'BUY';
  }
  get remaining(): number {
    return this.size - this.matched;
  }
}

class TokenState {
  readonly book: BookMirror;
  complement!: TokenState;
  /** Our resting orders on this token, by price: BUY (bids) and SELL (asks). */
  readonly bids = new Map<number, OwnLevel>();
  readonly asks = new Map<number, OwnLevel>();
  /** Best price of our resting orders on this token (0: none). */
  ownBestBid = 0;
  ownBestAsk = 0;
  /** Our resting size shown on this token's book (its own orders and the complement's, mirrored). */
  readonly shownBid = new Map<number, number>();
  readonly shownAsk = new Map<number, number>();
  shownBestBid = 0;
  shownBestAsk = 0;
  /** Recorded liquidity we took, per level, until the level's next recorded update. */
  readonly consumedBid = new Map<number, number>();
  readonly consumedAsk = new Map<number, number>();
  hash = '';
  lastTradePrice = 0;
  /** Awaiting its fresh snapshot after a recorded reconnect (its level changes are dropped). */
  awaiting = false;
  lastResyncAt = Number.NaN;
  constructor(
    readonly id: TokenId,
    readonly market: MarketState,
    readonly index: 0 | 1,
  ) {
    this.book = new BookMirror(id);
  }
}

class MarketState {
  readonly tokens: [TokenState, TokenState];
  tick: number;
  resolved = false;
  /** Our resting orders in the market (both tokens). */
  resting = 0;
  /** Venue time of the open batch, and the own levels whose recorded size moved in it. */
  groupT = Number.NaN;
  readonly pending: OwnLevel[] = [];
  // the last trade seen, in YES terms, to recognise the complement print of the same match
  ltIdx = -1;
  ltYesPrice = 0;
  ltBuyYes = false;
  ltSize = 0;
  ltT = 0;
  ltPaired = true;
  settlement: Settlement | undefined = undefined;
  constructor(public info: MarketInfo) {
    this.tick = tickPips(info.tick);
    this.tokens = [new TokenState(info.tokens[0].tokenId, this, 0), new TokenState(info.tokens[1].tokenId, this, 1)];
    this.tokens[0].complement = this.tokens[1];
    this.tokens[1].complement = this.tokens[0];
  }
}

/** What `prepare` signs (opaque to callers). */
interface SimWire {
  readonly sim: 1;
  readonly n: number;
  /** The signed size: the request's, rounded down to the 0.01-share lot. */
  readonly size: number;
  readonly feeRateBps: number;
}

interface MarketSub {
  readonly tokens: ReadonlySet<string>;
  readonly markets: ReadonlySet<string>;
  readonly sub: Subscriber<MarketEvent>;
  initialDone: boolean;
}
interface UserSub {
  readonly markets: ReadonlySet<string>;
  readonly sub: Subscriber<UserEvent>;
}

interface Counters
  extends Omit<
    SimVenueStats,
    'budget' | 'rejects' | 'messages' | 'events' | 'unknownTypes' | 'serverErrors' | 'feedLatencyMs'
  > {
  rejects: Record<string, number>;
}

/** A 0x + 64 hex id, reproducible from (seed, namespace, n) and unique per (namespace, n). */
/** Sweeps for finished orders and old fills (virtual ms): see SimVenueOptions.retainMs. */
const SWEEP_MS = 60_000;

/** The sequence number of an order id made by `prepare` with `seed` (undefined for any other id). */
function seqOf(id: string, seed: number): number | undefined {
  if (id.length !== 66) return undefined;
  const n = Number.parseInt(id.slice(50), 16);
  return Number.isSafeInteger(n) && n > 0 && n < 2 ** 31 && hexId(seed, 1, n) === id ? n : undefined;
}

/** Two lowercase hex digits of each byte value (hexId's table: a lookup per byte instead of toString/padStart per word). */
const HEX2: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** Eight hex digits of a 32-bit unsigned value. */
function hex8(v: number): string {
  return HEX2[v >>> 24]! + HEX2[(v >>> 16) & 255]! + HEX2[(v >>> 8) & 255]! + HEX2[v & 255]!;
}

function hexId(seed: number, ns: number, n: number): string {
  let h = (Math.imul(seed | 0, 0x9e3779b1) ^ Math.imul(ns, 0x85ebca6b) ^ Math.imul(n | 0, 0xc2b2ae35)) >>> 0;
  let out = '0x';
  for (let i = 0; i < 6; i++) {
    h = (h + 0x6d2b79f5 + i) >>> 0;
    let t = h;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out += hex8((t ^ (t >>> 14)) >>> 0);
  }
  // n < 2^53: its high and low 32 bits
  return out + hex8(Math.floor(n / 0x100000000) >>> 0) + hex8(n >>> 0);
}

const comb = (recorded: number | null, own: number, bid: boolean): Pips | null => {
  const r = recorded ?? 0;
  if (own === 0) return r === 0 ? null : (r as Pips);
  if (r === 0) return own as Pips;
  return (bid ? Math.max(r, own) : Math.min(r, own)) as Pips;
};

/**
 * Creates a simulated venue (see the module comment).
 * @throws ValidationError on a bad latency or queue spec, a bad seed, or markets with duplicate tokens
 */
export function createSimVenue(opts: SimVenueOptions): SimVenue {
  return new SimVenueImpl(opts);
}

class SimVenueImpl implements SimVenue {
  readonly clock: Clock;
  readonly #seed: number;
  readonly #model: QueueModel;
  readonly #entry: LatencySampler;
  readonly #cancelLat: LatencySampler;
  readonly #response: LatencySampler;
  readonly #feedMs: number | null;
  readonly #show: boolean;
  readonly #decoder = new MarketDecoder();
  /** Canonical frames go straight from text to events; anything else takes JSON.parse and the decoder (same result). */
  readonly #scanner = new FrameScanner();
  /** The recorded real-time prices (channel "r"), for strategies that price from them. */
  readonly #prices = new SimPriceFeed();
  readonly #meter: BudgetMeter;

  readonly #markets = new Map<string, MarketState>();
  readonly #marketList: MarketState[] = [];
  readonly #tokens = new Map<string, TokenState>();

  // account (micro)
  #collateral: number;
  #reservedCollateral = 0;
  readonly #shares = new Map<string, { available: number; reserved: number }>();
  #feesPaid = 0;
  #settled = 0;

  // orders and fills
  readonly #orders = new Map<string, SimOrder>();
  readonly #live = new Map<string, SimOrder>();
  readonly #fills: VenueFill[] = [];
  readonly #settlements: Settlement[] = [];
  // pruning (see SimVenueOptions.retainMs): when finished orders were first seen finished, the
  // sequence numbers of the orders dropped, and the last sweep
  readonly #retainMs: number;
  readonly #doneAt = new Map<SimOrder, number>();
  #droppedSeq = new Uint8Array(1024);
  #lastSweep = -Infinity;
  #idSeq = 0;
  #tradeSeq = 0;
  #extSeq = 0;

  // streams
  readonly #marketSubs: MarketSub[] = [];
  readonly #userSubs: UserSub[] = [];
  #up = true;
  #pendingSnapshots = 0;
  #inBatch = false;
  /** The token whose snapshot is being applied: no own-order level changes for it (the snapshot carries them). */
  #snapshotting: TokenState | null = null;
  readonly #onEvent = (e: MarketDataEvent): void => this.#event(e);

  // timers: pending request timers (due times by handle id), aborts for close, the delayed-event FIFO
  readonly #timers = new Map<number, number>();
  readonly #aborts = new Set<() => void>();
  readonly #delayed: MarketEvent[] = [];
  #delayedHead = 0;
  #lastDue = -Infinity;
  #delayTimer: { handle: TimerHandle; at: number } | undefined;
  #closed = false;
  // feed latency (receive − venue time) of the recorded events
  #latN = 0;
  #latSum = 0;
  #latMin = Infinity;
  #latMax = -Infinity;

  readonly #c: Counters = {
    items: 0,
    frames: 0,
    statuses: 0,
    headers: 0,
    otherChannel: 0,
    decodeErrors: 0,
    feedEvents: 0,
    disconnects: 0,
    droppedWhilePending: 0,
    resyncs: 0,
    placeRequests: 0,
    cancelRequests: 0,
    cancelAllRequests: 0,
    ordersPlaced: 0,
    ordersRejected: 0,
    rejects: {},
    ordersCancelled: 0,
    cancelsTooLate: 0,
    venueCancels: 0,
    fills: 0,
    makerFills: 0,
    takerFills: 0,
    volume: 0,
    notional: 0,
    fees: 0,
  };

  constructor(o: SimVenueOptions) {
    this.clock = o.clock;
    if (!Number.isSafeInteger(o.seed)) throw new ValidationError(`seed: must be an integer, got ${String(o.seed)}`);
    this.#seed = o.seed;
    this.#model = createQueueModel(o.queue);
    const lat = o.latency;
    if (lat === undefined || lat === null) throw new ValidationError('latency: required ({entry, cancel, response})');
    this.#entry = latencySampler(
      validateLatencySpec(lat.entry, 'latency.entry'),
      rngStream(o.seed, 1),
      'latency.entry',
    );
    this.#cancelLat = latencySampler(
      validateLatencySpec(lat.cancel, 'latency.cancel'),
      rngStream(o.seed, 2),
      'latency.cancel',
    );
    this.#response = latencySampler(
      validateLatencySpec(lat.response, 'latency.response'),
      rngStream(o.seed, 3),
      'latency.response',
    );
    const f = lat.feedMs ?? 'recorded';
    if (f !== 'recorded' && !(typeof f === 'number' && Number.isFinite(f) && f >= 0))
      throw new ValidationError(`latency.feedMs: 'recorded' or a finite number >= 0, got ${String(f)}`);
    this.#feedMs = f === 'recorded' ? null : f;
    this.#show = o.showOwnOrders ?? true;
    this.#meter = new BudgetMeter(o.budgets ?? {});
    const keep = o.retainMs ?? 600_000;
    if (!(keep >= 0)) throw new ValidationError(`retainMs: a number >= 0 (or Infinity), got ${String(keep)}`);
    this.#retainMs = keep;
    for (const m of o.markets) this.#addMarket(m, true);
    const c = o.account?.collateral ?? DEFAULT_COLLATERAL;
    if (!Number.isSafeInteger(c) || c < 0)
      throw new ValidationError(`account.collateral: a non-negative integer of micro, got ${String(c)}`);
    this.#collateral = c;
    for (const [tok, s] of Object.entries(o.account?.positions ?? {})) {
      if (!Number.isSafeInteger(s) || s < 0)
        throw new ValidationError(`account.positions.${tok}: a non-negative integer of micro-shares`);
      if (!this.#tokens.has(tok)) throw new ValidationError(`account.positions.${tok}: not a token of the markets`);
      this.#shares.set(tok, { available: s, reserved: 0 });
    }
  }

  #addMarket(info: MarketInfo, strict: boolean): void {
    if (this.#markets.has(info.market)) {
      if (strict) throw new ValidationError(`markets: duplicate market ${info.market}`);
      return;
    }
    const [a, b] = info.tokens;
    if (a.tokenId === b.tokenId || this.#tokens.has(a.tokenId) || this.#tokens.has(b.tokenId)) {
      if (strict) throw new ValidationError(`markets: market ${info.market} repeats a token id`);
      return;
    }
    const m = new MarketState(info);
    this.#markets.set(info.market, m);
    this.#marketList.push(m);
    this.#tokens.set(a.tokenId, m.tokens[0]);
    this.#tokens.set(b.tokenId, m.tokens[1]);
  }

  // ==== stats and account ==========================================================================

  get stats(): SimVenueStats {
    const d = this.#decoder.stats;
    const n = this.#latN;
    return {
      ...this.#c,
      rejects: { ...this.#c.rejects },
      messages: d.messages,
      events: d.events,
      unknownTypes: d.unknownTypes,
      serverErrors: d.serverErrors,
      budget: this.#meter.usage(),
      feedLatencyMs: {
        count: n,
        mean: n === 0 ? 0 : this.#latSum / n,
        min: n === 0 ? 0 : this.#latMin,
        max: n === 0 ? 0 : this.#latMax,
      },
    };
  }

  account(): SimAccount {
    const positions = new Map<TokenId, Micro>();
    for (const [t, s] of this.#shares)
      if (s.available + s.reserved > 0) positions.set(t as TokenId, (s.available + s.reserved) as Micro);
    return {
      collateral: this.#collateral as Micro,
      reserved: this.#reservedCollateral as Micro,
      feesPaid: this.#feesPaid as Micro,
      settled: this.#settled as Micro,
      positions,
    };
  }

  settlements(): readonly Settlement[] {
    return this.#settlements.slice();
  }

  nextTimerAt(): number | undefined {
    let best: number | undefined;
    for (const at of this.#timers.values()) if (best === undefined || at < best) best = at;
    if (this.#delayTimer !== undefined && (best === undefined || this.#delayTimer.at < best))
      best = this.#delayTimer.at;
    return best;
  }

  // ==== feed ingestion ==============================================================================

  ingest(item: FeedItem | DecodedFrameItem): void {
    if (this.#closed) return;
    const c = this.#c;
    c.items++;
    if (item.t - this.#lastSweep >= SWEEP_MS) this.#sweep(item.t);
    switch (item.kind) {
      case 'events': {
        // a frame the scanner decoded when the cache was built: counted and handed on as scan() does
        c.frames++;
        const ds = this.#decoder.stats;
        ds.messages += item.messages;
        const evs = item.events();
        for (let i = 0; i < evs.length; i++) {
          ds.events++;
          this.#event(evs[i]!);
        }
        this.#inBatch = false;
        return;
      }
      case 'frame': {
        if (item.ch !== 'm') {
          c.otherChannel++;
          this.#prices.ingest(item);
          return;
        }
        c.frames++;
        const t = item.t;
        if (this.#scanner.scan(item.raw, t, this.#decoder.stats, this.#onEvent)) {
          this.#inBatch = false;
          return;
        }
        let parsed: unknown;
        try {
          parsed = JSON.parse(item.raw);
        } catch {
          c.decodeErrors++;
          this.#streamError('bad frame: not JSON', t);
          return;
        }
        if (Array.isArray(parsed)) for (let i = 0; i < parsed.length; i++) this.#decode(parsed[i], t);
        else this.#decode(parsed, t);
        this.#inBatch = false;
        return;
      }
      case 'status':
        if (item.ch !== 'm') {
          c.otherChannel++;
          this.#prices.ingest(item);
          return;
        }
        c.statuses++;
        if (item.status === 'disconnect') this.#onDisconnect(item.reason, item.t);
        else this.#onConnect(item.t);
        return;
      case 'header':
        c.headers++;
        for (const m of item.header.markets ?? [])
          if (m && typeof m === 'object' && Array.isArray(m.tokens) && m.tokens.length === 2) this.#addMarket(m, false);
        return;
    }
  }

  #decode(msg: unknown, t: number): void {
    const r = this.#decoder.decode(msg, t, this.#onEvent);
    if (r.kind === 'ok' || r.kind === 'ignored') return;
    if (r.kind === 'bad') {
      this.#c.decodeErrors++;
      this.#streamError(`bad message: ${r.reason}`, t);
    } else this.#streamError(`venue error: ${r.reason}`, t);
  }

  #streamError(reason: string, t: number): void {
    this.#emitMarket({ type: 'stream_error', stream: 'market', reason, venueTime: t, recvTime: t });
  }

  #event(e: MarketDataEvent): void {
    this.#c.feedEvents += e.type === 'book_snapshot' ? Math.max(1, e.bids.length + e.asks.length) : 1;
    const lat = e.recvTime - e.venueTime;
    this.#latN++;
    this.#latSum += lat;
    if (lat < this.#latMin) this.#latMin = lat;
    if (lat > this.#latMax) this.#latMax = lat;
    switch (e.type) {
      case 'level_change':
        return this.#onLevel(e);
      case 'last_trade':
        return this.#onTrade(e);
      case 'book_snapshot':
        return this.#onBook(e);
      case 'best_bid_ask':
        return this.#onBestBidAsk(e);
      case 'tick_size_change':
        return this.#onTickChange(e);
      case 'market_resolved':
        return this.#onResolved(e);
      case 'new_market':
        return this.#emitMarket(e);
    }
  }

  #onLevel(e: LevelChangeEvent): void {
    const tok = this.#tokens.get(e.tokenId);
    if (tok === undefined) return this.#emitMarket(e);
    const m = tok.market;
    if (m.pending.length > 0 && e.venueTime !== m.groupT) this.#finalize(m);
    m.groupT = e.venueTime;
    if (tok.awaiting) {
      this.#c.droppedWhilePending++;
      if (e.endOfBatch) this.#inBatch = false;
      return;
    }
    this.#inBatch = !e.endOfBatch;
    const book = tok.book;
    const price = e.price;
    const isBid = e.side === 'BUY';
    const prev = book.sizeAt(e.side, price);
    try {
      book.applyLevel(e.side, price, e.size);
    } catch {
      this.#c.decodeErrors++;
      return;
    }
    tok.hash = e.hash;
    if ((isBid ? tok.consumedBid : tok.consumedAsk).size !== 0) updateConsumed(tok, isBid, price, prev, e.size);
    const own = isBid ? tok.bids : tok.asks;
    if (own.size !== 0) {
      const l = own.get(price);
      if (l !== undefined) this.#levelMoved(l, prev);
    }
    if (e.endOfBatch && m.resting > 0) {
      // the batch is whole: the recorded best may have moved through our prices
      this.#inBatch = true; // own-order level changes made now are part of this batch
      this.#priceThrough(m.tokens[0]);
      this.#priceThrough(m.tokens[1]);
      this.#inBatch = false;
    }
    if (this.#show && (tok.shownBid.size !== 0 || tok.shownAsk.size !== 0)) {
      const w = e as Mutable<LevelChangeEvent>;
      const s = (isBid ? tok.shownBid : tok.shownAsk).get(price);
      if (s !== undefined) w.size = (e.size + s) as Micro;
      w.bestBid = comb(e.bestBid, tok.shownBestBid, true);
      w.bestAsk = comb(e.bestAsk, tok.shownBestAsk, false);
    }
    this.#emitMarket(e);
  }

  /** A recorded level where we rest moved: joins the market's open batch (the queue model runs when it ends). */
  #levelMoved(l: OwnLevel, prev: number): void {
    if (l.inGroup) return;
    l.inGroup = true;
    l.l0 = prev;
    l.cum = 0;
    l.token.market.pending.push(l);
  }

  /** Ends the market's open batch: level moves net of its trades go through the queue model. */
  #finalize(m: MarketState): void {
    const model = this.#model;
    for (const l of m.pending) {
      if (l.orders.length > 0) {
        const now = l.token.book.sizeAt(l.isBid ? 'BUY' : 'SELL', l.price);
        for (const o of l.orders) o.ahead = model.depth(o.ahead, l.l0, now, l.cum);
      }
      l.inGroup = false;
      l.cum = 0;
    }
    m.pending.length = 0;
  }

  #finalizeAll(): void {
    for (const m of this.#marketList) if (m.pending.length > 0) this.#finalize(m);
  }

  #onTrade(e: LastTradeEvent): void {
    const tok = this.#tokens.get(e.tokenId);
    if (tok === undefined) return this.#emitMarket(e);
    const m = tok.market;
    if (m.pending.length > 0 && e.venueTime !== m.groupT) this.#finalize(m);
    m.groupT = e.venueTime;
    tok.lastTradePrice = e.price;
    if (!tok.awaiting) {
      // one match printed on both tokens is one trade: recognise the mirror print
      const yesPrice = tok.index === 0 ? e.price : PRICE_SCALE - e.price;
      const buyYes = (tok.index === 0) === (e.side === 'BUY');
      if (
        !m.ltPaired &&
        m.ltIdx !== tok.index &&
        m.ltYesPrice === yesPrice &&
        m.ltBuyYes === buyYes &&
        m.ltSize === e.size &&
        m.ltT === e.venueTime
      ) {
        m.ltPaired = true;
      } else {
        m.ltIdx = tok.index;
        m.ltYesPrice = yesPrice;
        m.ltBuyYes = buyYes;
        m.ltSize = e.size;
        m.ltT = e.venueTime;
        m.ltPaired = false;
        if (m.resting > 0 && e.size > 0) {
          this.#tradeOnToken(tok, e.side, e.price, e.size);
          this.#tradeOnToken(tok.complement, e.side === 'BUY' ? 'SELL' : 'BUY', PRICE_SCALE - e.price, e.size);
        }
      }
    }
    this.#emitMarket(e);
  }

  /**
   * A recorded trade on token `t` (taker `takerSide`, last fill at `price`, `volume` in all): it
   * advances and fills our resting orders on the side it hit, at its price and through it.
   */
  #tradeOnToken(t: TokenState, takerSide: Side, price: number, volume: number): void {
    const hitsBids = takerSide === 'SELL';
    const best = hitsBids ? t.ownBestBid : t.ownBestAsk;
    if (best === 0 || (hitsBids ? best < price : best > price)) return;
    const levels = hitsBids ? t.bids : t.asks;
    // our levels it reached, best first (a sweep takes better prices first)
    const reached: OwnLevel[] = [];
    for (const l of levels.values()) if (hitsBids ? l.price >= price : l.price <= price) reached.push(l);
    reached.sort(hitsBids ? (a, b) => b.price - a.price : (a, b) => a.price - b.price);
    const fills: Array<[SimOrder, number]> = [];
    let ownAhead = 0;
    const sideName: Side = hitsBids ? 'BUY' : 'SELL';
    for (const l of reached) {
      let vol = volume;
      if (l.price === price) {
        // at the trade's price: only what the level lost in this batch traded here
        const cur = t.book.sizeAt(sideName, l.price);
        const unexplained = l.inGroup ? l.l0 - cur - l.cum : 0;
        vol = tradeVolumeAtLevel(volume, unexplained);
        if (!l.inGroup) {
          l.inGroup = true;
          l.l0 = cur;
          l.cum = 0;
          t.market.pending.push(l);
        }
        l.cum += vol;
      }
      for (const o of l.orders) {
        const rem = o.remaining;
        const r = tradeAtLevel(o.ahead, ownAhead, vol, rem);
        o.ahead = l.price === price ? r.ahead : 0; // traded through: nothing recorded is left ahead
        ownAhead += rem;
        if (r.fill > 0) fills.push([o, r.fill]);
      }
    }
    if (fills.length === 0) return;
    const tradeId = this.#nextTradeId();
    const taker = this.#externalId();
    this.#makerFills(fills, tradeId, taker);
  }

  /** Our resting orders on `t` that the recorded best opposite price reached fill in full at their price. */
  #priceThrough(t: TokenState): void {
    if (t.ownBestBid !== 0) {
      const ask = this.#effBest(t, false);
      if (ask !== 0 && ask <= t.ownBestBid) this.#fillThrough(t, true, ask);
    }
    if (t.ownBestAsk !== 0) {
      const bid = this.#effBest(t, true);
      if (bid !== 0 && bid >= t.ownBestAsk) this.#fillThrough(t, false, bid);
    }
  }

  #fillThrough(t: TokenState, bids: boolean, opp: number): void {
    const reached: OwnLevel[] = [];
    for (const l of (bids ? t.bids : t.asks).values()) if (bids ? l.price >= opp : l.price <= opp) reached.push(l);
    reached.sort(bids ? (a, b) => b.price - a.price : (a, b) => a.price - b.price);
    const fills: Array<[SimOrder, number]> = [];
    for (const l of reached) {
      for (const o of l.orders) {
        fills.push([o, o.remaining]);
        // the recorded orders that crossed us would have traded with us: that liquidity is used
        this.#consume(t, !bids, o.price, o.remaining);
      }
    }
    if (fills.length === 0) return;
    this.#makerFills(fills, this.#nextTradeId(), this.#externalId());
  }

  /** Best recorded price on a side of `t` with liquidity left for us (0: none). */
  #effBest(t: TokenState, bidSide: boolean): number {
    const book = t.book;
    const b = bidSide ? book.bestBid() : book.bestAsk();
    if (b === null) return 0;
    const cons = bidSide ? t.consumedBid : t.consumedAsk;
    if (cons.size === 0 || !cons.has(b)) return b;
    const side: Side = bidSide ? 'BUY' : 'SELL';
    if (bidSide) {
      for (let p = b; p > 0; p--) {
        const s = book.sizeAt(side, p);
        if (s > 0 && s - (cons.get(p) ?? 0) > 0) return p;
      }
    } else {
      for (let p = b; p < PRICE_SCALE; p++) {
        const s = book.sizeAt(side, p);
        if (s > 0 && s - (cons.get(p) ?? 0) > 0) return p;
      }
    }
    return 0;
  }

  /** Marks up to `amount` of `t`'s recorded liquidity on a side, best first up to `limit`, as taken by us (and its mirror on the complement). */
  #consume(t: TokenState, bidSide: boolean, limit: number, amount: number): void {
    const book = t.book;
    const side: Side = bidSide ? 'BUY' : 'SELL';
    const cons = bidSide ? t.consumedBid : t.consumedAsk;
    const b = bidSide ? book.bestBid() : book.bestAsk();
    if (b === null) return;
    for (
      let p = b;
      amount > 0 && (bidSide ? p >= limit && p > 0 : p <= limit && p < PRICE_SCALE);
      bidSide ? p-- : p++
    ) {
      const s = book.sizeAt(side, p);
      if (s === 0) continue;
      const used = cons.get(p) ?? 0;
      const take = Math.min(amount, s - used);
      if (take <= 0) continue;
      this.#markConsumed(t, bidSide, p, take);
      amount -= take;
    }
  }

  #markConsumed(t: TokenState, bidSide: boolean, p: number, take: number): void {
    const cons = bidSide ? t.consumedBid : t.consumedAsk;
    cons.set(p, (cons.get(p) ?? 0) + take);
    const mirror = bidSide ? t.complement.consumedAsk : t.complement.consumedBid;
    const q = PRICE_SCALE - p;
    mirror.set(q, (mirror.get(q) ?? 0) + take);
  }

  #onBook(e: BookSnapshotEvent): void {
    const tok = this.#tokens.get(e.tokenId);
    if (tok === undefined) return this.#emitMarket(e);
    const m = tok.market;
    if (m.pending.length > 0 && e.venueTime !== m.groupT) this.#finalize(m);
    m.groupT = e.venueTime;
    // the sizes at our levels before the book is replaced
    let prevs: Array<[OwnLevel, number]> | undefined;
    if (tok.bids.size + tok.asks.size > 0) {
      prevs = [];
      for (const l of tok.bids.values()) prevs.push([l, tok.book.sizeAt('BUY', l.price)]);
      for (const l of tok.asks.values()) prevs.push([l, tok.book.sizeAt('SELL', l.price)]);
    }
    const consumed =
      tok.consumedBid.size + tok.consumedAsk.size > 0
        ? [...consumedSizes(tok, true), ...consumedSizes(tok, false)]
        : undefined;
    try {
      tok.book.applySnapshot(e.bids, e.asks, { hash: e.hash, venueTime: e.venueTime, market: e.market });
    } catch {
      this.#c.decodeErrors++;
      return;
    }
    tok.hash = e.hash;
    if (e.lastTradePrice !== null) tok.lastTradePrice = e.lastTradePrice;
    // indexed, without destructuring (the iterator protocol per entry): this runs on every snapshot while we rest
    if (consumed !== undefined)
      for (let i = 0; i < consumed.length; i++) {
        const c = consumed[i]!;
        updateConsumed(tok, c[0], c[1], c[2], tok.book.sizeAt(c[0] ? 'BUY' : 'SELL', c[1]));
      }
    if (prevs !== undefined) for (let i = 0; i < prevs.length; i++) this.#levelMoved(prevs[i]![0], prevs[i]![1]);
    const wasAwaiting = tok.awaiting;
    if (wasAwaiting) {
      tok.awaiting = false;
      this.#pendingSnapshots--;
    }
    // own-order changes now (tick, price through) are carried by this snapshot for this token
    this.#snapshotting = tok;
    if (e.tickSize !== null && e.tickSize !== m.tick) this.#setTick(m, e.tickSize);
    if (m.resting > 0) this.#priceThrough(tok);
    this.#snapshotting = null;
    if (this.#show && (tok.shownBid.size !== 0 || tok.shownAsk.size !== 0)) {
      const w = e as Mutable<BookSnapshotEvent>;
      w.bids = withOwn(e.bids, tok.shownBid, true);
      w.asks = withOwn(e.asks, tok.shownAsk, false);
    }
    this.#emitMarket(e);
    if (wasAwaiting && this.#pendingSnapshots === 0 && !this.#up) this.#resynced(e.recvTime);
  }

  #onBestBidAsk(e: BestBidAskEvent): void {
    const tok = this.#tokens.get(e.tokenId);
    if (tok !== undefined && this.#show && (tok.shownBestBid !== 0 || tok.shownBestAsk !== 0)) {
      const w = e as Mutable<BestBidAskEvent>;
      w.bestBid = comb(e.bestBid, tok.shownBestBid, true);
      w.bestAsk = comb(e.bestAsk, tok.shownBestAsk, false);
      w.spread = (w.bestBid !== null && w.bestAsk !== null ? Math.max(0, w.bestAsk - w.bestBid) : 0) as Pips;
    }
    this.#emitMarket(e);
  }

  #onTickChange(e: TickSizeChangeEvent): void {
    const tok = this.#tokens.get(e.tokenId);
    if (tok !== undefined && e.new !== tok.market.tick) this.#setTick(tok.market, e.new);
    this.#emitMarket(e);
  }

  /** The market's tick changed: our orders off the new tick are cancelled, as the venue cancels them. */
  #setTick(m: MarketState, pips: number): void {
    let tick;
    try {
      tick = tickFromPips(pips);
    } catch {
      return; // not a venue tick: ignored
    }
    m.tick = pips;
    m.info = { ...m.info, tick };
    for (const o of [...this.#live.values()]) if (o.market === m && o.price % pips !== 0) this.#cancelOrder(o, true);
  }

  #onResolved(e: MarketResolvedEvent): void {
    const m = this.#markets.get(e.market);
    if (m !== undefined && !m.resolved) this.#resolve(m, e.winningTokenId);
    this.#emitMarket(e);
  }

  settle(market: ConditionId, winningTokenId: TokenId): Settlement {
    const m = this.#markets.get(market);
    if (m === undefined) throw new ValidationError(`settle: unknown market ${String(market).slice(0, 20)}`);
    return m.settlement ?? this.#resolve(m, winningTokenId);
  }

  #resolve(m: MarketState, winner: TokenId): Settlement {
    if (m.pending.length > 0) this.#finalize(m);
    let cancelled = 0;
    for (const o of [...this.#live.values()]) {
      if (o.market !== m) continue;
      this.#cancelOrder(o, true);
      cancelled++;
    }
    m.resolved = true;
    m.info = { ...m.info, active: false };
    const positions: Array<{ tokenId: TokenId; shares: Micro; payout: Micro }> = [];
    let payout = 0;
    const win = m.tokens.find((t) => t.id === winner);
    for (const t of m.tokens) {
      const s = this.#shares.get(t.id);
      const shares = s === undefined ? 0 : s.available + s.reserved;
      if (s !== undefined) {
        s.available = 0;
        s.reserved = 0;
      }
      const pay = t === win ? shares : 0; // 1 collateral per winning share: micro-shares to micro
      payout += pay;
      positions.push({ tokenId: t.id, shares: shares as Micro, payout: pay as Micro });
    }
    this.#collateral += payout;
    this.#settled += payout;
    const st: Settlement = {
      market: m.info.market,
      winningTokenId: win?.id,
      at: this.clock.now(),
      positions,
      payout: payout as Micro,
      cancelledOrders: cancelled,
    };
    m.settlement = st;
    this.#settlements.push(st);
    return st;
  }

  // ---- stream status ------------------------------------------------------------------------------

  #onDisconnect(reason: string, t: number): void {
    this.#finalizeAll();
    this.#inBatch = false;
    if (!this.#up) return;
    this.#up = false;
    this.#c.disconnects++;
    for (const tok of this.#tokens.values()) {
      if (tok.awaiting) this.#pendingSnapshots--;
      tok.awaiting = false;
    }
    this.#emitMarket({
      type: 'disconnected',
      stream: 'market',
      reason: reason || 'recorded disconnect',
      venueTime: t,
      recvTime: t,
    });
  }

  #onConnect(t: number): void {
    if (this.#up) return; // the first connection of a recording, a new part: nothing was lost
    let n = 0;
    for (const tok of this.#tokens.values()) {
      if (tok.book.snapshotted) {
        tok.awaiting = true;
        n++;
      }
    }
    this.#pendingSnapshots = n;
    if (n === 0) this.#resynced(t);
  }

  #resynced(t: number): void {
    this.#up = true;
    // `initial` is per subscriber: set on delivery
    this.#emitMarket({ type: 'resynced', stream: 'market', initial: false, venueTime: t, recvTime: t });
  }

  resync(tokenIds: readonly TokenId[]): void {
    if (this.#closed) return;
    const now = this.clock.now();
    for (const id of tokenIds) {
      const tok = this.#tokens.get(id);
      // at most once per token per instant: a book that stays crossed cannot loop the engine
      if (tok === undefined || tok.awaiting || !tok.book.snapshotted || tok.lastResyncAt === now) continue;
      tok.lastResyncAt = now;
      this.#c.resyncs++;
      this.#emitMarket(this.#snapshotOf(tok, now));
    }
  }

  /** The book of a token as the bot would get it now (recorded plus our resting orders). */
  #snapshotOf(tok: TokenState, now: number): BookSnapshotEvent {
    const lv = tok.book.levels();
    const show = this.#show;
    return {
      type: 'book_snapshot',
      venueTime: now,
      recvTime: now,
      market: tok.market.info.market,
      tokenId: tok.id,
      bids: show ? withOwn(lv.bids, tok.shownBid, true) : lv.bids,
      asks: show ? withOwn(lv.asks, tok.shownAsk, false) : lv.asks,
      hash: tok.hash,
      tickSize: tok.market.tick as Pips,
      minOrderSize: tok.market.info.minOrderSize,
      lastTradePrice: tok.lastTradePrice === 0 ? null : (tok.lastTradePrice as Pips),
    };
  }

  // ---- emission -----------------------------------------------------------------------------------

  #emitMarket(e: MarketEvent): void {
    if (this.#feedMs === null) {
      const subs = this.#marketSubs;
      for (let i = 0; i < subs.length; i++) this.#deliverTo(subs[i]!, e);
      return;
    }
    this.#delay(e);
  }

  #deliverTo(s: MarketSub, e: MarketEvent): void {
    switch (e.type) {
      case 'book_snapshot':
      case 'level_change':
      case 'last_trade':
      case 'tick_size_change':
      case 'best_bid_ask':
        if (!s.tokens.has(e.tokenId)) return;
        break;
      case 'market_resolved':
        if (s.markets.size !== 0 && !s.markets.has(e.market)) return;
        break;
      case 'resynced':
        if (e.stream === 'market') {
          const initial = !s.initialDone;
          s.initialDone = true;
          s.sub.next(initial === e.initial ? e : { ...e, initial });
          return;
        }
        break;
      default:
        break;
    }
    s.sub.next(e);
  }

  /** feedMs = N: the bot sees a recorded event at venueTime + N (never before its receive time), in feed order. */
  #delay(e: MarketEvent): void {
    const now = this.clock.now();
    let due =
      e.type === 'disconnected' || e.type === 'resynced' || e.type === 'stream_error'
        ? now
        : Math.max(now, e.venueTime + this.#feedMs!);
    if (due < this.#lastDue) due = this.#lastDue;
    this.#lastDue = due;
    if (due <= now && this.#delayedHead === this.#delayed.length) {
      for (const s of this.#marketSubs) this.#deliverTo(s, e);
      return;
    }
    (e as Mutable<MarketEvent>).recvTime = due;
    this.#delayed.push(e);
    this.#armDelay();
  }

  #armDelay(): void {
    if (this.#delayTimer !== undefined || this.#delayedHead === this.#delayed.length) return;
    const at = this.#delayed[this.#delayedHead]!.recvTime;
    const handle = this.clock.setTimeout(() => {
      this.#delayTimer = undefined;
      const now = this.clock.now();
      const q = this.#delayed;
      while (this.#delayedHead < q.length && q[this.#delayedHead]!.recvTime <= now) {
        const e = q[this.#delayedHead++]!;
        for (const s of this.#marketSubs) this.#deliverTo(s, e);
      }
      if (this.#delayedHead === q.length) {
        q.length = 0;
        this.#delayedHead = 0;
      } else if (this.#delayedHead > 4096) {
        q.splice(0, this.#delayedHead);
        this.#delayedHead = 0;
      }
      this.#armDelay();
    }, at - this.clock.now());
    this.#delayTimer = { handle, at };
  }

  #emitUser(e: UserDataEvent): void {
    const subs = this.#userSubs;
    for (let i = 0; i < subs.length; i++) {
      const s = subs[i]!;
      if (s.markets.size === 0 || s.markets.has(e.market)) s.sub.next(e);
    }
  }

  // ==== the Venue port ===============================================================================

  async markets(): Promise<readonly MarketInfo[]> {
    const list = this.#marketList.map((m) => m.info);
    return [...list.filter((m) => m.active), ...list.filter((m) => !m.active)];
  }

  marketEvents(tokenIds: readonly TokenId[]): Observable<MarketEvent> {
    if (this.#closed) throw new ValidationError('venue closed');
    const tokens = new Set<string>(tokenIds);
    const markets = new Set<string>();
    for (const t of tokenIds) {
      const tok = this.#tokens.get(t);
      if (tok !== undefined) markets.add(tok.market.info.market);
    }
    return new Observable<MarketEvent>((sub) => {
      if (this.#closed) {
        sub.complete();
        return;
      }
      const s: MarketSub = { tokens, markets, sub, initialDone: false };
      this.#marketSubs.push(s);
      // as the live client: the books known now, then in sync
      const now = this.clock.now();
      for (const id of tokens) {
        const tok = this.#tokens.get(id);
        if (tok !== undefined && tok.book.snapshotted && !tok.awaiting) sub.next(this.#snapshotOf(tok, now));
      }
      if (this.#up) {
        sub.next({ type: 'resynced', stream: 'market', initial: true, venueTime: now, recvTime: now });
        s.initialDone = true;
      }
      return () => {
        const i = this.#marketSubs.indexOf(s);
        if (i >= 0) this.#marketSubs.splice(i, 1);
      };
    });
  }

  /** The recorded real-time prices of these symbols (see ./sim-prices.ts). */
  priceEvents(symbols: readonly string[]): Observable<RtdsEvent> {
    if (this.#closed) throw new ValidationError('venue closed');
    return this.#prices.priceEvents(symbols);
  }

  userEvents(markets: readonly ConditionId[]): Observable<UserEvent> {
    if (this.#closed) throw new ValidationError('venue closed');
    const set = new Set<string>(markets);
    return new Observable<UserEvent>((sub) => {
      if (this.#closed) {
        sub.complete();
        return;
      }
      const s: UserSub = { markets: set, sub };
      this.#userSubs.push(s);
      const now = this.clock.now();
      sub.next({ type: 'resynced', stream: 'user', initial: true, venueTime: now, recvTime: now });
      return () => {
        const i = this.#userSubs.indexOf(s);
        if (i >= 0) this.#userSubs.splice(i, 1);
      };
    });
  }

  /**
   * Signs the requests (deterministic ids: 0x + 64 hex from the seed and a counter).
   * @throws ValidationError when a token is not of a listed market (or not of `market`), a price is
   *   off the market's current tick or outside [tick, 1 − tick], or a size is below 0.01 share or
   *   above the largest order, as the live venue's prepare throws
   */
  prepare(requests: readonly PlaceRequest[]): readonly PreparedOrder[] {
    const out: PreparedOrder[] = new Array(requests.length);
    for (let i = 0; i < requests.length; i++) {
      const r = requests[i]!;
      const tok = this.#tokens.get(r.tokenId);
      if (tok === undefined)
        throw new ValidationError(`prepare: token ${String(r.tokenId).slice(0, 20)}… is not of a listed market`);
      const m = tok.market;
      if (m.info.market !== r.market)
        throw new ValidationError(
          `prepare: token ${String(r.tokenId).slice(0, 20)}… is not of market ${String(r.market).slice(0, 12)}…`,
        );
      const tick = m.tick;
      if (!Number.isInteger(r.price) || r.price % tick !== 0 || r.price < tick || r.price > PRICE_SCALE - tick)
        throw new ValidationError(`price: ${r.price} pips is off the ${m.info.tick} tick or outside [tick, 1 - tick]`);
      const size = Number.isSafeInteger(r.size) ? floorLot(r.size) : 0;
      if (size <= 0) throw new ValidationError(`size: must be at least 0.01 share, got ${String(r.size)} micro`);
      if (size > MAX_ORDER_MICRO) throw new ValidationError(`size: at most ${MAX_ORDER_MICRO} micro-shares`);
      const n = ++this.#idSeq;
      const wire: SimWire = { sim: 1, n, size, feeRateBps: m.info.feeRateBps };
      out[i] = { id: hexId(this.#seed, 1, n) as OrderId, request: r, wire };
    }
    return out;
  }

  async place(orders: readonly PreparedOrder[]): Promise<readonly PlaceOutcome[]> {
    const out: PlaceOutcome[] = [];
    for (let i = 0; i < orders.length; i += MAX_PLACE_BATCH) {
      const chunk = orders.slice(i, i + MAX_PLACE_BATCH);
      if (this.#closed) {
        for (const p of chunk) out.push({ id: p.id, ok: false, code: 'UNKNOWN', message: VENUE_CLOSED });
        continue;
      }
      this.#c.placeRequests++;
      this.#meter.record('POST /orders', this.clock.now());
      out.push(
        ...(await this.#request(
          this.#entry(),
          () => chunk.map((p) => this.#arrive(p)),
          () => chunk.map((p) => ({ id: p.id, ok: false, code: 'UNKNOWN', message: VENUE_CLOSED }) as PlaceOutcome),
        )),
      );
    }
    return out;
  }

  async cancel(ids: readonly OrderId[]): Promise<CancelOutcome> {
    const canceled: OrderId[] = [];
    const notCanceled = new Map<OrderId, string>();
    const unique = [...new Set(ids)];
    for (let i = 0; i < unique.length; i += MAX_CANCEL_BATCH) {
      const chunk = unique.slice(i, i + MAX_CANCEL_BATCH);
      if (this.#closed) {
        for (const id of chunk) notCanceled.set(id, VENUE_CLOSED);
        continue;
      }
      this.#c.cancelRequests++;
      this.#meter.record('DELETE /orders', this.clock.now());
      const r = await this.#request(
        this.#cancelLat(),
        () => chunk.map((id) => [id, this.#cancelOne(id)] as const),
        () => chunk.map((id) => [id, VENUE_CLOSED] as const),
      );
      for (const [id, reason] of r) {
        if (reason === null) canceled.push(id);
        else notCanceled.set(id, reason);
      }
    }
    return { canceled, notCanceled };
  }

  async cancelAll(): Promise<CancelOutcome> {
    if (this.#closed) return { canceled: [], notCanceled: new Map() };
    this.#c.cancelAllRequests++;
    this.#meter.record('DELETE /cancel-all', this.clock.now());
    const canceled = await this.#request(
      this.#cancelLat(),
      () => {
        const ids: OrderId[] = [];
        for (const o of [...this.#live.values()]) {
          this.#cancelOrder(o, false);
          ids.push(o.id);
        }
        return ids;
      },
      () => [] as OrderId[],
    );
    return { canceled, notCanceled: new Map() };
  }

  async openOrders(): Promise<readonly VenueOrder[]> {
    const out: VenueOrder[] = [];
    for (const o of this.#live.values()) out.push(venueOrder(o));
    return out;
  }

  async order(id: OrderId): Promise<VenueOrder | undefined> {
    const o = this.#orders.get(id);
    return o === undefined ? undefined : venueOrder(o);
  }

  async fills(sinceMs: number): Promise<readonly VenueFill[]> {
    const f = this.#fills;
    let lo = 0;
    let hi = f.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (f[mid]!.matchTime < sinceMs) lo = mid + 1;
      else hi = mid;
    }
    return f.slice(lo);
  }

  async heartbeat(): Promise<boolean> {
    return !this.#closed;
  }

  async balance(): Promise<{ available: Micro; reserved: Micro }> {
    return { available: this.#collateral as Micro, reserved: this.#reservedCollateral as Micro };
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    for (const id of this.#timers.keys()) this.clock.clearTimeout({ id });
    this.#timers.clear();
    if (this.#delayTimer !== undefined) this.clock.clearTimeout(this.#delayTimer.handle);
    this.#delayTimer = undefined;
    for (const o of this.#live.values()) if (o.expiry !== undefined) this.clock.clearTimeout(o.expiry);
    const aborts = [...this.#aborts];
    this.#aborts.clear();
    for (const a of aborts) a();
    for (const s of [...this.#marketSubs]) s.sub.complete();
    this.#prices.close();
    for (const s of [...this.#userSubs]) s.sub.complete();
    this.#marketSubs.length = 0;
    this.#userSubs.length = 0;
    return Promise.resolve();
  }

  /**
   * One request on the wire: `atVenue` runs at now + `latency` (the matching point), its result
   * comes back after a response latency; `onClose` answers if the venue closes meanwhile.
   */
  #request<T>(latency: number, atVenue: () => T, onClose: () => T): Promise<T> {
    return new Promise<T>((resolve) => {
      let done = false;
      const abort = () => {
        if (done) return;
        done = true;
        resolve(onClose());
      };
      this.#aborts.add(abort);
      this.#later(latency, () => {
        const result = atVenue();
        this.#later(this.#response(), () => {
          this.#aborts.delete(abort);
          if (done) return;
          done = true;
          resolve(result);
        });
      });
    });
  }

  #later(ms: number, fn: () => void): void {
    const at = this.clock.now() + ms;
    const h = this.clock.setTimeout(() => {
      this.#timers.delete(h.id);
      if (!this.#closed) fn();
    }, ms);
    this.#timers.set(h.id, at);
  }

  // ==== orders at the matching point ===================================================================

  #reject(id: OrderId, code: RejectCode, message = REJECT_MESSAGES[code]): PlaceOutcome {
    this.#c.ordersRejected++;
    this.#c.rejects[code] = (this.#c.rejects[code] ?? 0) + 1;
    return { id, ok: false, code, message };
  }

  /** A prepared order reaches the matching point: the exchange's checks, in its order, then matching. */
  #arrive(p: PreparedOrder): PlaceOutcome {
    const now = this.clock.now();
    const r = p.request;
    const w = p.wire as SimWire | undefined;
    if (w === undefined || w === null || typeof w !== 'object' || w.sim !== 1)
      return this.#reject(p.id, 'INVALID_ORDER_ERROR', 'invalid order: not prepared by this venue');
    const tok = this.#tokens.get(r.tokenId);
    if (tok === undefined || tok.market.resolved || !tok.market.info.active)
      return this.#reject(p.id, 'MARKET_NOT_READY');
    const m = tok.market;
    if (this.#orders.has(p.id) || this.#wasDropped(p.id)) return this.#reject(p.id, 'INVALID_ORDER_DUPLICATED');
    const type = r.type;
    if (type !== 'GTC' && type !== 'GTD' && type !== 'FOK' && type !== 'FAK')
      return this.#reject(p.id, 'INVALID_ORDER_ERROR');
    const market = type === 'FOK' || type === 'FAK';
    const postOnly = r.postOnly === true;
    if (postOnly && market) return this.#reject(p.id, 'INVALID_POST_ONLY_ORDER_TYPE');
    const tick = m.tick;
    const price = r.price;
    if (!Number.isInteger(price) || price % tick !== 0 || price < tick || price > PRICE_SCALE - tick)
      return this.#reject(p.id, 'INVALID_ORDER_MIN_TICK_SIZE');
    const size = w.size;
    if (size < m.info.minOrderSize) return this.#reject(p.id, 'INVALID_ORDER_MIN_SIZE');
    if (!Number.isSafeInteger(size) || size <= 0 || size % LOT_MICRO !== 0 || size > MAX_ORDER_MICRO)
      return this.#reject(p.id, 'INVALID_ORDER_ERROR');
    const bps = w.feeRateBps;
    if (!Number.isInteger(bps) || bps < m.info.feeRateBps || bps > MAX_FEE_RATE_BPS)
      return this.#reject(p.id, 'INVALID_ORDER_ERROR');
    if (r.side !== 'BUY' && r.side !== 'SELL') return this.#reject(p.id, 'INVALID_ORDER_ERROR');
    let expiresAt = 0;
    if (type === 'GTD') {
      const exp = Number(r.expiration);
      expiresAt = (exp - GTD_THRESHOLD_SEC) * 1000;
      if (!(exp > 0) || !(expiresAt > now))
        return this.#reject(
          p.id,
          'INVALID_ORDER_EXPIRATION',
          `invalid expiration: a GTD order needs expiration > now + ${GTD_THRESHOLD_SEC}s (unix seconds)`,
        );
    }
    const isBuy = r.side === 'BUY';
    let need: number;
    if (isBuy) {
      const n = notional(size, price, 'up');
      need = n + Math.floor((n * bps) / PRICE_SCALE);
      if (this.#collateral < need) return this.#reject(p.id, 'INVALID_ORDER_NOT_ENOUGH_BALANCE');
    } else {
      need = size;
      if ((this.#shares.get(tok.id)?.available ?? 0) < need)
        return this.#reject(p.id, 'INVALID_ORDER_NOT_ENOUGH_BALANCE');
    }
    // would it cross what is there for us: recorded liquidity not yet taken, and our own resting orders?
    const oppRecorded = this.#effBest(tok, !isBuy);
    const oppOwn = isBuy ? tok.shownBestAsk : tok.shownBestBid;
    const crosses =
      (oppRecorded !== 0 && (isBuy ? oppRecorded <= price : oppRecorded >= price)) ||
      (oppOwn !== 0 && (isBuy ? oppOwn <= price : oppOwn >= price));
    if (postOnly && crosses) return this.#reject(p.id, 'INVALID_POST_ONLY_ORDER');
    if (type === 'FOK' && this.#walk(null, tok, isBuy, price, size) < size)
      return this.#reject(p.id, 'FOK_ORDER_NOT_FILLED_ERROR');

    // -- accepted
    if (m.pending.length > 0) this.#finalize(m);
    const o = new SimOrder(p.id, m, tok, r.side, price, size, type, bps, now);
    this.#orders.set(o.id, o);
    this.#c.ordersPlaced++;
    if (isBuy) {
      this.#collateral -= need;
      this.#reservedCollateral += need;
    } else {
      const s = this.#shares.get(tok.id)!;
      s.available -= need;
      s.reserved += need;
    }
    o.reserved = need;
    if (crosses || market) this.#emitUser(this.#orderEvent(o, 'PLACEMENT', 'LIVE'));
    if (crosses) this.#walk(o, tok, isBuy, price, size);
    const rem = o.remaining;
    const rests = rem > 0 && !market;
    const keep = rests ? (isBuy ? notional(rem, price) : rem) : 0;
    this.#release(o, o.reserved - keep);
    if (rests) {
      this.#rest(o, expiresAt);
      if (!crosses) this.#emitUser(this.#orderEvent(o, 'PLACEMENT', 'LIVE'));
      this.#flushShown();
      return { id: o.id, ok: true, status: 'live' };
    }
    if (rem > 0) {
      o.status = 'CANCELED';
      this.#emitUser(this.#orderEvent(o, 'CANCELLATION', 'CANCELED'));
      return { id: o.id, ok: true, status: o.matched > 0 ? 'matched' : 'unmatched' };
    }
    o.status = 'MATCHED';
    return { id: o.id, ok: true, status: 'matched' };
  }

  /**
   * Drops orders finished (MATCHED or CANCELED) at least `retainMs` ago and fills older than that
   * (see SimVenueOptions.retainMs). An order's finishing time is when a sweep first sees it finished,
   * so it is kept between retainMs and retainMs + SWEEP_MS. O(orders kept + fills dropped).
   */
  #sweep(now: number): void {
    this.#lastSweep = now;
    if (this.#retainMs === Infinity) return;
    const before = now - this.#retainMs;
    for (const o of this.#orders.values()) {
      if (o.status === 'LIVE') continue;
      const at = this.#doneAt.get(o);
      if (at === undefined) this.#doneAt.set(o, now);
      else if (at <= before) {
        this.#orders.delete(o.id);
        this.#doneAt.delete(o);
        this.#markDropped(o.id);
      }
    }
    const f = this.#fills;
    let k = 0;
    while (k < f.length && f[k]!.matchTime < before) k++;
    if (k > 0) f.splice(0, k);
  }

  /** Remembers a dropped order's sequence number (the tail of ids made by `prepare`), one bit. */
  #markDropped(id: string): void {
    const n = seqOf(id, this.#seed);
    if (n === undefined) return;
    let bits = this.#droppedSeq;
    if (n >> 3 >= bits.length) {
      const grown = new Uint8Array(Math.max(bits.length * 2, (n >> 3) + 1));
      grown.set(bits);
      this.#droppedSeq = bits = grown;
    }
    bits[n >> 3]! |= 1 << (n & 7);
  }

  #wasDropped(id: string): boolean {
    if (id.length !== 66) return false;
    const n = Number.parseInt(id.slice(50), 16);
    const bits = this.#droppedSeq;
    // the bit first (cheap, nearly always clear), then whether the id really is ours
    if (!(n >= 0 && n >> 3 < bits.length && (bits[n >> 3]! & (1 << (n & 7))) !== 0)) return false;
    return seqOf(id, this.#seed) === n;
  }

  /** Gives back `amount` of an order's reservation. */
  #release(o: SimOrder, amount: number): void {
    if (amount === 0) return;
    o.reserved -= amount;
    if (o.isBuy) {
      this.#reservedCollateral -= amount;
      this.#collateral += amount;
    } else {
      const s = this.#shares.get(o.token.id)!;
      s.reserved -= amount;
      s.available += amount;
    }
  }

  /**
   * Takes liquidity for `o` (a BUY or SELL on `t` up to `limit`, `want` micro-shares): the recorded
   * levels from the best, less what we already took there, then our own resting orders at that
   * price (on `t`'s other side, or the complement's same side at 1 − p). With `o` null it only
   * counts what could be taken (FOK). Returns the size taken.
   */
  #walk(o: SimOrder | null, t: TokenState, isBuy: boolean, limit: number, want: number): number {
    const book = t.book;
    const oppSide: Side = isBuy ? 'SELL' : 'BUY';
    const cons = isBuy ? t.consumedAsk : t.consumedBid;
    const ownHere = isBuy ? t.asks : t.bids; // our orders on t's opposite side
    const ownComp = isBuy ? t.complement.bids : t.complement.asks; // the complement's, mirrored
    const hasOwn = ownHere.size !== 0 || ownComp.size !== 0;
    const rb = isBuy ? book.bestAsk() : book.bestBid();
    const ob = isBuy ? t.shownBestAsk : t.shownBestBid;
    let start = rb ?? 0;
    if (ob !== 0 && (start === 0 || (isBuy ? ob < start : ob > start))) start = ob;
    if (start === 0) return 0;
    let rem = want;
    let taken = 0;
    const fills: Array<[number, number]> = []; // recorded: [price, size]
    const makers: Array<[SimOrder, number]> = [];
    for (let p = start; rem > 0 && (isBuy ? p <= limit && p < PRICE_SCALE : p >= limit && p > 0); isBuy ? p++ : p--) {
      const s = book.sizeAt(oppSide, p);
      if (s > 0) {
        const avail = floorLot(s - (cons.get(p) ?? 0));
        const take = Math.min(rem, avail);
        if (take > 0) {
          rem -= take;
          taken += take;
          if (o !== null) {
            fills.push([p, take]);
            this.#markConsumed(t, !isBuy, p, take);
          }
        }
      }
      if (hasOwn && rem > 0) {
        for (const l of [ownHere.get(p), ownComp.get(PRICE_SCALE - p)]) {
          if (l === undefined) continue;
          for (const mk of l.orders) {
            if (rem === 0) break;
            const take = Math.min(rem, mk.remaining);
            rem -= take;
            taken += take;
            if (o !== null) {
              fills.push([p, take]);
              makers.push([mk, take]);
            }
          }
        }
      }
    }
    if (o !== null && taken > 0) this.#takerTrade(o, fills, makers);
    return taken;
  }

  /** Settles a taking order's fills (and our own makers' in a self-trade) as one trade, and reports them. */
  #takerTrade(o: SimOrder, fills: ReadonlyArray<[number, number]>, makers: ReadonlyArray<[SimOrder, number]>): void {
    const tradeId = this.#nextTradeId();
    const m = o.market;
    const bps = o.feeRateBps;
    let size = 0;
    let value = 0; // sum of size x price (pips) for the average
    let fee = 0;
    let amount = 0; // collateral paid (BUY) or received (SELL), fees excluded
    for (const [p, s] of fills) {
      const base = p < PRICE_SCALE - p ? p : PRICE_SCALE - p;
      const f = Math.floor((((s * base) / PRICE_SCALE) * bps) / PRICE_SCALE);
      const a = (s * p) / PRICE_SCALE;
      fee += f;
      amount += a;
      size += s;
      value += s * p;
    }
    o.matched += size;
    const shares = this.#sharesOf(o.token.id);
    if (o.isBuy) {
      o.reserved -= amount + fee;
      this.#reservedCollateral -= amount + fee;
      shares.available += size;
    } else {
      o.reserved -= size;
      shares.reserved -= size;
      this.#collateral += amount - fee;
    }
    this.#feesPaid += fee;
    const c = this.#c;
    c.fills++;
    c.takerFills++;
    c.volume += size;
    c.notional += amount;
    c.fees += fee;
    // the taker's price: nearest pip of the size-weighted average (exact integers)
    let avg = fills[0]![0];
    if (fills.some(([p]) => p !== avg)) {
      const q = Math.floor(value / size);
      const r = value - q * size;
      avg = 2 * r >= size ? q + 1 : q;
    }
    const now = this.clock.now();
    // makers first (their UPDATEs), then the taker's UPDATE, then the fills: the paper exchange's order
    const makerEvents: FillEvent[] = [];
    for (const [mk, s] of makers) makerEvents.push(this.#applyMakerFill(mk, s, tradeId, o.id));
    o.status = o.remaining === 0 ? 'MATCHED' : 'LIVE';
    this.#emitUser(this.#orderEvent(o, 'UPDATE', o.status));
    const fill: VenueFill = {
      tradeId,
      orderId: o.id,
      market: m.info.market,
      tokenId: o.token.id,
      side: o.side,
      price: avg as Pips,
      size: size as Micro,
      role: 'TAKER',
      fee: fee as Micro,
      status: 'MATCHED',
      matchTime: now,
    };
    this.#fills.push(fill);
    this.#emitUser(this.#fillEvent(fill, o.feeRateBps, o.id));
    for (const e of makerEvents) this.#emitUser(e);
    this.#flushShown();
  }

  /** Fills our resting orders as makers in one recorded trade (each at its own price). */
  #makerFills(fills: ReadonlyArray<[SimOrder, number]>, tradeId: TradeId, takerOrderId: OrderId): void {
    const events: FillEvent[] = [];
    for (const [o, s] of fills) events.push(this.#applyMakerFill(o, s, tradeId, takerOrderId));
    for (const e of events) this.#emitUser(e);
    this.#flushShown();
  }

  /** Settles one maker fill of a resting order, emits its UPDATE and returns its fill event (not yet emitted). */
  #applyMakerFill(o: SimOrder, s: number, tradeId: TradeId, takerOrderId: OrderId): FillEvent {
    const amount = (s * o.price) / PRICE_SCALE;
    const shares = this.#sharesOf(o.token.id);
    if (o.isBuy) {
      o.reserved -= amount;
      this.#reservedCollateral -= amount;
      shares.available += s;
    } else {
      o.reserved -= s;
      shares.reserved -= s;
      this.#collateral += amount;
    }
    o.matched += s;
    const c = this.#c;
    c.fills++;
    c.makerFills++;
    c.volume += s;
    c.notional += amount;
    this.#showChange(o, -s);
    if (o.remaining === 0) {
      o.status = 'MATCHED';
      this.#unrest(o);
    }
    this.#emitUser(this.#orderEvent(o, 'UPDATE', o.status));
    const fill: VenueFill = {
      tradeId,
      orderId: o.id,
      market: o.market.info.market,
      tokenId: o.token.id,
      side: o.side,
      price: o.price as Pips,
      size: s as Micro,
      role: 'MAKER',
      fee: ZERO_MICRO,
      status: 'MATCHED',
      matchTime: this.clock.now(),
    };
    this.#fills.push(fill);
    return this.#fillEvent(fill, o.feeRateBps, takerOrderId);
  }

  #sharesOf(tokenId: string): { available: number; reserved: number } {
    let s = this.#shares.get(tokenId);
    if (s === undefined) this.#shares.set(tokenId, (s = { available: 0, reserved: 0 }));
    return s;
  }

  /** Puts an accepted order's rest on its level (at the back: the recorded size there is ahead of it). */
  #rest(o: SimOrder, expiresAt: number): void {
    const t = o.token;
    const levels = o.isBuy ? t.bids : t.asks;
    let l = levels.get(o.price);
    if (l === undefined) {
      levels.set(o.price, (l = new OwnLevel(t, o.isBuy, o.price)));
      if (o.isBuy) {
        if (o.price > t.ownBestBid) t.ownBestBid = o.price;
      } else if (t.ownBestAsk === 0 || o.price < t.ownBestAsk) t.ownBestAsk = o.price;
    }
    // the recorded size at its price, less what we took there ourselves (those orders are gone for us)
    o.ahead = Math.max(
      0,
      t.book.sizeAt(o.side, o.price) - ((o.isBuy ? t.consumedBid : t.consumedAsk).get(o.price) ?? 0),
    );
    o.level = l;
    l.orders.push(o);
    o.market.resting++;
    this.#live.set(o.id, o);
    this.#showChange(o, o.remaining);
    if (expiresAt > 0) {
      o.expiry = this.clock.setTimeout(() => {
        o.expiry = undefined;
        if (!this.#closed && o.status === 'LIVE') this.#cancelOrder(o, true);
      }, expiresAt - this.clock.now());
    }
  }

  /** Takes a resting order off its level (filled or cancelled). */
  #unrest(o: SimOrder): void {
    const l = o.level;
    if (l === null) return;
    o.level = null;
    const i = l.orders.indexOf(o);
    if (i >= 0) l.orders.splice(i, 1);
    o.market.resting--;
    this.#live.delete(o.id);
    if (o.expiry !== undefined) {
      this.clock.clearTimeout(o.expiry);
      o.expiry = undefined;
    }
    if (l.orders.length === 0) {
      const t = l.token;
      const levels = l.isBid ? t.bids : t.asks;
      levels.delete(l.price);
      if (l.isBid && l.price === t.ownBestBid) {
        let b = 0;
        for (const p of levels.keys()) if (p > b) b = p;
        t.ownBestBid = b;
      } else if (!l.isBid && l.price === t.ownBestAsk) {
        let a = 0;
        for (const p of levels.keys()) if (a === 0 || p < a) a = p;
        t.ownBestAsk = a;
      }
    }
  }

  #cancelOne(id: OrderId): string | null {
    const o = this.#orders.get(id);
    if (o === undefined) return NOT_FOUND;
    if (o.status !== 'LIVE') {
      this.#c.cancelsTooLate++;
      return NOT_LIVE;
    }
    this.#cancelOrder(o, false);
    return null;
  }

  /** Cancels a LIVE order: off its level, reservation back, CANCELLATION. `byVenue`: expiry, tick change, resolution. */
  #cancelOrder(o: SimOrder, byVenue: boolean): void {
    if (o.status !== 'LIVE') return;
    const rem = o.remaining;
    this.#unrest(o);
    this.#showChange(o, -rem);
    this.#release(o, o.reserved);
    o.status = 'CANCELED';
    if (byVenue) this.#c.venueCancels++;
    else this.#c.ordersCancelled++;
    this.#emitUser(this.#orderEvent(o, 'CANCELLATION', 'CANCELED'));
    this.#flushShown();
  }

  // ---- our orders in the book the bot sees ----------------------------------------------------------

  /** Levels whose shown size changed and are not announced yet: [token, bid side, price]. */
  readonly #shownDirty: Array<[TokenState, boolean, number]> = [];

  /** Our resting size at an order's price changed by `delta`: on its token and, mirrored, on the complement. */
  #showChange(o: SimOrder, delta: number): void {
    if (delta === 0) return;
    const t = o.token;
    this.#shownAdd(t, o.isBuy, o.price, delta);
    this.#shownAdd(t.complement, !o.isBuy, PRICE_SCALE - o.price, delta);
  }

  #shownAdd(t: TokenState, bid: boolean, p: number, delta: number): void {
    const map = bid ? t.shownBid : t.shownAsk;
    const v = (map.get(p) ?? 0) + delta;
    if (v > 0) map.set(p, v);
    else map.delete(p);
    let best = 0;
    for (const q of map.keys()) if (best === 0 || (bid ? q > best : q < best)) best = q;
    if (bid) t.shownBestBid = best;
    else t.shownBestAsk = best;
    if (this.#show) this.#shownDirty.push([t, bid, p]);
  }

  /** Announces the levels our orders changed, as level changes of the tokens concerned. */
  #flushShown(): void {
    const dirty = this.#shownDirty;
    if (dirty.length === 0) return;
    const now = this.clock.now();
    const list = dirty.splice(0, dirty.length);
    // each (token, side, price) once: a few entries (an order placed or cancelled) are compared
    // with the ones before; a long list (a cancel-all) goes through a set
    const seen = list.length > 16 ? new Set<string>() : undefined;
    const out: Array<Mutable<LevelChangeEvent>> = [];
    for (let k = 0; k < list.length; k++) {
      const [t, bid, p] = list[k]!;
      if (seen !== undefined) {
        const key = `${t.id}|${bid ? 'b' : 'a'}|${p}`;
        if (seen.has(key)) continue;
        seen.add(key);
      } else {
        let dup = false;
        for (let j = 0; j < k && !dup; j++) {
          const d = list[j]!;
          dup = d[0] === t && d[1] === bid && d[2] === p;
        }
        if (dup) continue;
      }
      // a token awaiting its snapshot, or getting one now, is not told level by level
      if (t.awaiting || t === this.#snapshotting || !t.book.snapshotted) continue;
      const side: Side = bid ? 'BUY' : 'SELL';
      out.push({
        type: 'level_change',
        venueTime: now,
        recvTime: now,
        market: t.market.info.market,
        tokenId: t.id,
        side,
        price: p as Pips,
        size: (t.book.sizeAt(side, p) + ((bid ? t.shownBid : t.shownAsk).get(p) ?? 0)) as Micro,
        bestBid: comb(t.book.bestBid(), t.shownBestBid, true),
        bestAsk: comb(t.book.bestAsk(), t.shownBestAsk, false),
        hash: t.hash,
        endOfBatch: false,
      });
    }
    if (out.length === 0) return;
    // one batch of our own changes, closed by its last event (inside a recorded batch, that batch's last event closes it)
    out[out.length - 1]!.endOfBatch = !this.#inBatch;
    for (const e of out) this.#emitMarket(e);
  }

  // ---- ids and event shapes -------------------------------------------------------------------------

  #nextTradeId(): TradeId {
    return sequentialUuid(0x51e0, ++this.#tradeSeq) as TradeId;
  }

  /** An order id for the recorded world's taker of a trade that filled us (never one of ours). */
  #externalId(): OrderId {
    return hexId(this.#seed, 2, ++this.#extSeq) as OrderId;
  }

  #orderEvent(o: SimOrder, kind: OrderUpdateEvent['kind'], status: OrderStatus): OrderUpdateEvent {
    const now = this.clock.now();
    return {
      type: 'order_update',
      kind,
      venueTime: now,
      recvTime: now,
      id: o.id,
      market: o.market.info.market,
      tokenId: o.token.id,
      side: o.side,
      price: o.price as Pips,
      originalSize: o.size as Micro,
      sizeMatched: o.matched as Micro,
      status,
      source: 'stream',
    };
  }

  #fillEvent(f: VenueFill, feeRateBps: number, takerOrderId: OrderId): FillEvent {
    return {
      type: 'fill',
      venueTime: f.matchTime,
      recvTime: f.matchTime,
      tradeId: f.tradeId as TradeId,
      orderId: f.orderId,
      status: 'MATCHED',
      role: f.role,
      market: f.market,
      tokenId: f.tokenId,
      side: f.side,
      price: f.price,
      size: f.size,
      feeRateBps,
      takerOrderId,
      source: 'stream',
    };
  }
}

function venueOrder(o: SimOrder): VenueOrder {
  return {
    id: o.id,
    market: o.market.info.market,
    tokenId: o.token.id,
    side: o.side,
    price: o.price as Pips,
    originalSize: o.size as Micro,
    sizeMatched: o.matched as Micro,
    status: o.status,
  };
}

/** Recorded levels (best first) with our shown sizes added (a new array; the input is not changed). */
/** (exported for its test) */
export function withOwn(
  levels: readonly PriceLevel[],
  own: ReadonlyMap<number, number>,
  descending: boolean,
): PriceLevel[] {
  if (own.size === 0) return levels as PriceLevel[];
  // the usual case: every price we rest at is a recorded level (we rest behind others): add in place
  // of a copy (the event's arrays are the decoder's, fresh per event; the venue's own book copied
  // them). We rest at one or two prices per side: a scan of the levels per price (numbers compared)
  // is cheaper than a Map lookup per level.
  // (the map's keys, then get: iterating its entries destructures a fresh [key, value] per entry)
  const out = levels as PriceLevel[];
  let missing = false;
  for (const p of own.keys()) {
    let i = 0;
    while (i < out.length && out[i]![0] !== p) i++;
    if (i < out.length) out[i] = [p as Pips, (out[i]![1] + own.get(p)!) as Micro];
    else missing = true;
  }
  if (!missing) return out;
  // we rest where the recorded book has no level (inside its spread, usually): insert each such
  // level at its place, the levels being best first, as the decoder and the books give them (a
  // Set, a push and a sort per snapshot measured 15x the cost of the in-place case); unsorted
  // input (never seen) takes the general path below
  let sorted = true;
  for (let i = 1; i < out.length && sorted; i++)
    sorted = descending ? out[i - 1]![0] > out[i]![0] : out[i - 1]![0] < out[i]![0];
  if (sorted) {
    for (const p of own.keys()) {
      let i = 0;
      while (i < out.length && (descending ? out[i]![0] > p : out[i]![0] < p)) i++;
      if (i < out.length && out[i]![0] === p) continue; // a recorded level: added above
      out.splice(i, 0, [p as Pips, own.get(p)! as Micro]);
    }
    return out;
  }
  const seen = new Set<number>();
  for (let i = 0; i < out.length; i++) seen.add(out[i]![0]);
  for (const [p, s] of own) if (!seen.has(p)) out.push([p as Pips, s as Micro]);
  out.sort(descending ? (a, b) => b[0] - a[0] : (a, b) => a[0] - b[0]);
  return out;
}

/** [bid side, price, recorded size] of the levels of `t` where we took liquidity. */
function consumedSizes(t: TokenState, bid: boolean): Array<[boolean, number, number]> {
  const out: Array<[boolean, number, number]> = [];
  for (const p of (bid ? t.consumedBid : t.consumedAsk).keys())
    out.push([bid, p, t.book.sizeAt(bid ? 'BUY' : 'SELL', p)]);
  return out;
}

/**
 * A recorded level where we took liquidity went from `prev` to `next`: what we took stays taken,
 * a decrease eats into it first (those orders were already gone for us), an increase is new
 * liquidity; it is forgotten once the level shows none of it left.
 */
function updateConsumed(t: TokenState, bid: boolean, p: number, prev: number, next: number): void {
  const cons = bid ? t.consumedBid : t.consumedAsk;
  const c = cons.get(p);
  if (c === undefined) return;
  const left = Math.min(next, Math.max(0, c - Math.max(0, prev - next)));
  if (left > 0) cons.set(p, left);
  else cons.delete(p);
}
