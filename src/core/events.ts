/**
 * Everything that happens, as data. Every event is a readonly member of a discriminated union with
 * a `type`, the venue's time (`venueTime`, unix ms, as the venue stamped it; when the venue gave
 * none, the receive time) and the local receive time (`recvTime`, unix ms, from the injected
 * Clock). Money is integers: prices in pips (1 pip = 0.0001), sizes in micro-units (6 decimals),
 * converted once at the wire edge (src/api/streams).
 *
 * A disconnect is an event in the stream, not an exception: `disconnected` says that state built on
 * the stream (book mirrors, own orders) is stale from now on; `resynced` says it is whole again (a
 * fresh snapshot arrived, or the user channel was reconciled over REST). A bad frame is a
 * `stream_error`, never a thrown error.
 *
 * Switch on `type` with an exhaustive `default: assertNever(e)` so a new event kind is a compile
 * error wherever it is not handled.
 */
import { InternalError } from './errors.ts';
import type { ConditionId, OrderId, TokenId, TradeId } from './ids.ts';
import type { MarketChange, MarketInfo } from './market-info.ts';
import { formatAmount, formatPrice, type Micro, type Pips, type Side } from './units.ts';

/** The streams of the venue. */
export type StreamName = 'market' | 'user' | 'rtds';
export type { MarketChange } from './market-info.ts';

/** Fields every event carries. */
export interface EventBase {
  /** Venue timestamp, unix ms (the receive time when the venue sent none). */
  readonly venueTime: number;
  /** Local receive time, unix ms, from the injected clock. */
  readonly recvTime: number;
}

/** One book level: [price in pips, total size in micro-shares]. */
export type PriceLevel = readonly [price: Pips, size: Micro];

/**
 * A book level as an array of two doubles. The hot producers of levels (the feed cache's decoder,
 * the simulated venue's own sizes) make them with this, so that the readers (the book mirrors)
 * see one array shape: levels of mixed shapes (small integers and doubles) made every element
 * read polymorphic and boxed each price and size read.
 */
export function priceLevel(price: number, size: number): PriceLevel {
  const l = [0.5, 0.5];
  l[0] = price;
  l[1] = size;
  return l as unknown as PriceLevel;
}

// ---- market channel ------------------------------------------------------------------------------

/**
 * A full snapshot of one token's book: replace the whole book. Sent on subscribe, after each
 * trade and after every reconnect. Levels are BEST FIRST (bids descending, asks ascending), unlike
 * the wire (best last).
 */
export interface BookSnapshotEvent extends EventBase {
  readonly type: 'book_snapshot';
  readonly market: ConditionId;
  readonly tokenId: TokenId;
  readonly bids: readonly PriceLevel[];
  readonly asks: readonly PriceLevel[];
  /** The venue's book hash (opaque; compare, do not recompute). */
  readonly hash: string;
  /** Tick size in pips when the snapshot says it (the paper exchange does), else null. */
  readonly tickSize: Pips | null;
  /** Minimum order size in micro-shares when given, else null. */
  readonly minOrderSize: Micro | null;
  /** Last trade price in pips when given and non-empty, else null. */
  readonly lastTradePrice: Pips | null;
}

/**
 * One level of one token changed: `size` is the NEW TOTAL at that price (0 removes the level).
 * One `price_change` message becomes one event per entry, in order; `endOfBatch` is true on the
 * last one: only then is the book consistent, and `bestBid` / `bestAsk` (the token's best after the
 * whole message, null when that side is empty) describe it.
 */
export interface LevelChangeEvent extends EventBase {
  readonly type: 'level_change';
  readonly market: ConditionId;
  readonly tokenId: TokenId;
  /** BUY: a bid level; SELL: an ask level. */
  readonly side: Side;
  readonly price: Pips;
  readonly size: Micro;
  readonly bestBid: Pips | null;
  readonly bestAsk: Pips | null;
  readonly hash: string;
  readonly endOfBatch: boolean;
}

/** A trade printed on a token (public): price and size of the last fill on that token's scale. */
export interface LastTradeEvent extends EventBase {
  readonly type: 'last_trade';
  readonly market: ConditionId;
  readonly tokenId: TokenId;
  readonly price: Pips;
  readonly size: Micro;
  /** The taker's side on this token. */
  readonly side: Side;
  readonly feeRateBps: number;
}

/** The token's tick size changed: orders off the new tick are refused from now on. */
export interface TickSizeChangeEvent extends EventBase {
  readonly type: 'tick_size_change';
  readonly market: ConditionId;
  readonly tokenId: TokenId;
  readonly old: Pips;
  readonly new: Pips;
}

/** The top of a token's book changed (custom features). null: that side is empty. */
export interface BestBidAskEvent extends EventBase {
  readonly type: 'best_bid_ask';
  readonly market: ConditionId;
  readonly tokenId: TokenId;
  readonly bestBid: Pips | null;
  readonly bestAsk: Pips | null;
  /** Ask minus bid in pips; 0 when a side is empty. */
  readonly spread: Pips;
}

/** A market was created (custom features). */
export interface NewMarketEvent extends EventBase {
  readonly type: 'new_market';
  readonly market: ConditionId;
  readonly question: string;
  readonly slug: string;
  /** Token ids in outcome order (index i is outcomes[i]). */
  readonly tokenIds: readonly TokenId[];
  readonly outcomes: readonly string[];
}

/** A market resolved (custom features; the venue sometimes does not deliver it: also poll). */
export interface MarketResolvedEvent extends EventBase {
  readonly type: 'market_resolved';
  readonly market: ConditionId;
  readonly winningTokenId: TokenId;
  readonly winningOutcome: string;
}

/**
 * A followed market's info changed at the venue (the engine re-reads the markets it follows every
 * `marketsPollMs`; the live service sends no event for these): its liquidity reward config, its
 * status (`info.active` false: closed or not accepting orders, so it is not quoted; true again:
 * reopened) or its minimum order size. `info` is the whole new `MarketInfo` (its tick is the one
 * the market channel gave last: tick changes come as `tick_size_change`).
 */
export interface MarketUpdatedEvent extends EventBase {
  readonly type: 'market_updated';
  readonly market: ConditionId;
  readonly info: MarketInfo;
  readonly changed: readonly MarketChange[];
}

// ---- user channel --------------------------------------------------------------------------------

/** Order statuses of the venue. */
export type OrderStatus = 'LIVE' | 'MATCHED' | 'CANCELED' | 'DELAYED' | 'UNMATCHED';
/** Trade statuses: MATCHED → MINED → CONFIRMED, or RETRYING → FAILED (a FAILED trade is void). */
export type TradeStatus = 'MATCHED' | 'MINED' | 'CONFIRMED' | 'RETRYING' | 'FAILED';
/** Where a user event came from: the socket, or the REST reconciliation after a reconnect. */
export type UserEventSource = 'stream' | 'reconcile';

/** One of the user's own orders was placed, (partly) matched or cancelled. */
export interface OrderUpdateEvent extends EventBase {
  readonly type: 'order_update';
  /** PLACEMENT | UPDATE | CANCELLATION (a reconciled order: PLACEMENT when first seen). */
  readonly kind: 'PLACEMENT' | 'UPDATE' | 'CANCELLATION';
  readonly id: OrderId;
  readonly market: ConditionId;
  readonly tokenId: TokenId;
  readonly side: Side;
  readonly price: Pips;
  readonly originalSize: Micro;
  /** Total matched so far (monotonic). */
  readonly sizeMatched: Micro;
  readonly status: OrderStatus;
  readonly source: UserEventSource;
}

/**
 * A fill of ONE of the user's orders in one trade, at one trade status. A trade that filled two of
 * the user's orders is two events. Key fills by (tradeId, orderId): the same pair appears again as
 * the trade progresses (MATCHED, MINED, CONFIRMED); count the quantity once, and reverse it on
 * FAILED.
 */
export interface FillEvent extends EventBase {
  readonly type: 'fill';
  readonly tradeId: TradeId;
  readonly orderId: OrderId;
  readonly status: TradeStatus;
  /** TAKER: the order crossed; MAKER: the order rested. */
  readonly role: 'TAKER' | 'MAKER';
  readonly market: ConditionId;
  /** The token of the user's order (a maker fill may be on the complementary token). */
  readonly tokenId: TokenId;
  /** The side of the user's order. */
  readonly side: Side;
  /** Price of the fill on the order's token, pips (a taker's size-weighted price, rounded to a pip). */
  readonly price: Pips;
  /** Size matched for this order in this trade, micro-shares. */
  readonly size: Micro;
  readonly feeRateBps: number;
  /**
   * The fee the venue charged this fill, micro-collateral (a maker's: 0), when the venue's message
   * gives what it takes to compute it exactly (the in-process venues; a trade record with its maker
   * orders: core/fees.ts `takerFeeOfMatches`). Absent: the store computes it from the rate on the
   * fill's average price (store/fills.ts `fillFromEvent`), exact for a single match.
   */
  readonly fee?: Micro;
  readonly takerOrderId: OrderId;
  readonly source: UserEventSource;
}

/**
 * A fill's fields as every log line about it shows them (prices and sizes as decimal strings): the
 * whole token id and, when the caller knows it, its outcome, so a JSON line tells a YES buy from a
 * NO buy without a join against the store.
 * @param outcome the token's outcome ("Yes", "No", ...), when known
 */
export function fillLogFields(
  f: Pick<FillEvent, 'side' | 'price' | 'size' | 'role' | 'status'> & {
    tradeId: string;
    orderId: string;
    tokenId: string;
  },
  outcome?: string,
): {
  trade: string;
  order: string;
  token: string;
  outcome?: string;
  side: Side;
  price: string;
  size: string;
  role: 'TAKER' | 'MAKER';
  status: TradeStatus;
} {
  return {
    trade: f.tradeId,
    order: f.orderId,
    token: f.tokenId,
    ...(outcome !== undefined ? { outcome } : {}),
    side: f.side,
    price: formatPrice(f.price),
    size: formatAmount(f.size),
    role: f.role,
    status: f.status,
  };
}

// ---- real-time data stream -----------------------------------------------------------------------

/** A reference price (e.g. Binance btcusdt). `value` is market data, not money held: a float. */
export interface PriceTickEvent extends EventBase {
  readonly type: 'price_tick';
  readonly symbol: string;
  readonly value: number;
  /** True for the points of the subscription snapshot (history), false for live updates. */
  readonly snapshot: boolean;
}

/** A comment event of the content stream. */
export interface CommentEvent extends EventBase {
  readonly type: 'comment';
  /** The venue's message type, e.g. comment_created. */
  readonly kind: string;
  readonly id: string;
  readonly body: string;
  readonly parentEntityType: string;
  readonly parentEntityId: string;
  readonly userAddress: string;
  /** ISO time as the venue gave it. */
  readonly createdAt: string;
}

// ---- stream status -------------------------------------------------------------------------------

/** The stream's socket went away: everything built on it is stale until `resynced`. */
export interface DisconnectedEvent extends EventBase {
  readonly type: 'disconnected';
  readonly stream: StreamName;
  /** Why: "closed 1006", "silence 30000 ms", "no snapshot within ...", "connect timeout", ... */
  readonly reason: string;
}

/**
 * The stream is whole again: after a reconnect, every book that was mirrored has a fresh
 * snapshot (market), or the missed orders and fills were reconciled (user). `initial` is true for
 * the first sync of the stream (no `disconnected` before it).
 */
export interface ResyncedEvent extends EventBase {
  readonly type: 'resynced';
  readonly stream: StreamName;
  readonly initial: boolean;
}

/** A frame or record the client refused (counted, logged) or an error the venue sent; the stream goes on. */
export interface StreamErrorEvent extends EventBase {
  readonly type: 'stream_error';
  readonly stream: StreamName;
  readonly reason: string;
}

/** A timer fired (the engine's own clock events). */
export interface TimerEvent extends EventBase {
  readonly type: 'timer';
  readonly name: string;
}

/** Status events every stream emits. */
export type StreamStatusEvent = DisconnectedEvent | ResyncedEvent | StreamErrorEvent;

/** What the market channel emits. */
export type MarketDataEvent =
  | BookSnapshotEvent
  | LevelChangeEvent
  | LastTradeEvent
  | TickSizeChangeEvent
  | BestBidAskEvent
  | NewMarketEvent
  | MarketResolvedEvent;
/**
 * What a venue's market stream emits: the market channel's events and statuses, and a market's
 * change at the venue where the venue knows it in time (the simulated venue replays a feed's market
 * lines as `market_updated`; live, the engine's re-read of its markets makes them).
 */
export type MarketEvent = MarketDataEvent | StreamStatusEvent | MarketUpdatedEvent;

/** What the user channel emits. */
export type UserDataEvent = OrderUpdateEvent | FillEvent;
export type UserEvent = UserDataEvent | StreamStatusEvent;

/** What the real-time data stream emits. */
export type RtdsDataEvent = PriceTickEvent | CommentEvent;
export type RtdsEvent = RtdsDataEvent | StreamStatusEvent;

/** Every event of mmkit. */
export type MmkitEvent =
  | MarketDataEvent
  | UserDataEvent
  | RtdsDataEvent
  | StreamStatusEvent
  | TimerEvent
  | MarketUpdatedEvent;
export type EventType = MmkitEvent['type'];

/**
 * The exhaustiveness check of a switch over a union: `default: return assertNever(e)` compiles only
 * when every member is handled.
 * @throws InternalError when reached at run time (a value outside the union slipped past the types)
 */
export function assertNever(x: never, what = 'value'): never {
  const t = typeof x === 'object' && x !== null && 'type' in x ? String((x as { type: unknown }).type) : String(x);
  throw new InternalError(`unexpected ${what}: ${t.slice(0, 60)}`);
}

/** True for the status events (disconnected, resynced, stream_error). */
export function isStreamStatus(e: MmkitEvent): e is StreamStatusEvent {
  return e.type === 'disconnected' || e.type === 'resynced' || e.type === 'stream_error';
}
