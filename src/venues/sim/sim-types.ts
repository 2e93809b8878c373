/**
 * The public shapes of the simulated venue (./sim-venue.ts): its options, counters, account and
 * settlements, and the SimVenue interface the backtest runner drives. Types only.
 */
import type { Clock } from '../../core/clock.ts';
import type { FeeProtocol } from '../../core/fees.ts';
import type { ConditionId, TokenId } from '../../core/ids.ts';
import type { Micro } from '../../core/units.ts';
import type { MarketInfo, Venue } from '../../core/venue.ts';
import type { RateRuleOverrides } from '../../core/rate-limits.ts';
import type { FeedItem } from './feed.ts';
import type { DecodedFrameItem } from './feed.ts';
import type { LatencySpec } from './latency.ts';
import type { QueueModelSpec } from './queue.ts';
import type { BudgetUse } from './sim-budget.ts';

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
  /**
   * The order protocol whose taker fee the venue charges (core/fees.ts): 2, the CLOB V2 fee curve
   * `size × rate × p × (1 − p)` floored to 0.00001 (default: the paper exchange's default protocol;
   * a feed does not say which protocol its venue spoke), or 1, `size × rate × min(p, 1 − p)`.
   */
  readonly feeProtocol?: FeeProtocol;
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
