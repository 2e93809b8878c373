/**
 * The Venue port: the one narrow interface the engine drives. The live adapter implements it with
 * src/api (paper exchange or the real service); the backtest adapter with the simulated venue. Both
 * pass the same contract test suite (test/contract/venue.contract.ts).
 */
import type { Observable } from 'rxjs';
import type { Clock } from './clock.ts';
import type { ConditionId, OrderId, TokenId } from './ids.ts';
import type { MarketEvent, RtdsEvent, UserEvent } from './events.ts';
import type { Micro, Pips, Side, TickSize } from './units.ts';

/** What the engine needs to know about a market to quote it. */
export interface MarketInfo {
  readonly market: ConditionId;
  readonly question: string;
  readonly tokens: readonly [{ tokenId: TokenId; outcome: string }, { tokenId: TokenId; outcome: string }];
  readonly tick: TickSize;
  readonly minOrderSize: Micro;
  readonly negRisk: boolean;
  readonly feeRateBps: number;
  readonly active: boolean;
  readonly endDate: string;
}

/** An order to place: the venue port signs it (the id is known before it is sent). */
export interface PlaceRequest {
  readonly market: ConditionId;
  readonly tokenId: TokenId;
  readonly side: Side;
  readonly price: Pips;
  readonly size: Micro;
  readonly type: 'GTC' | 'GTD' | 'FOK' | 'FAK';
  readonly postOnly?: boolean;
  /** GTD only: unix seconds. */
  readonly expiration?: number;
}

/** A signed order, ready to send: persist `id` before sending; resend the same object on retry. */
export interface PreparedOrder {
  readonly id: OrderId;
  readonly request: PlaceRequest;
  /** Opaque: the venue's wire form. */
  readonly wire: unknown;
}

export type PlaceOutcome =
  | { readonly id: OrderId; readonly ok: true; readonly status: 'live' | 'matched' | 'unmatched' | 'delayed' }
  | { readonly id: OrderId; readonly ok: false; readonly code: string; readonly message: string }
  /** The outcome is unknown (timeout, dropped connection): resolve by id, never re-sign. */
  | { readonly id: OrderId; readonly ok: false; readonly code: 'UNKNOWN'; readonly message: string };

export interface CancelOutcome {
  readonly canceled: readonly OrderId[];
  readonly notCanceled: ReadonlyMap<OrderId, string>;
}

export interface VenueOrder {
  readonly id: OrderId;
  readonly market: ConditionId;
  readonly tokenId: TokenId;
  readonly side: Side;
  readonly price: Pips;
  readonly originalSize: Micro;
  readonly sizeMatched: Micro;
  readonly status: 'LIVE' | 'MATCHED' | 'CANCELED' | 'DELAYED' | 'UNMATCHED';
}

export interface VenueFill {
  readonly tradeId: string;
  readonly orderId: OrderId;
  readonly market: ConditionId;
  readonly tokenId: TokenId;
  readonly side: Side;
  readonly price: Pips;
  readonly size: Micro;
  readonly role: 'TAKER' | 'MAKER';
  readonly fee: Micro;
  readonly status: 'MATCHED' | 'MINED' | 'CONFIRMED' | 'RETRYING' | 'FAILED';
  readonly matchTime: number; // unix ms
}

export interface Venue {
  readonly clock: Clock;
  /** Markets the venue lists (active ones first). */
  markets(): Promise<readonly MarketInfo[]>;
  /** Market-channel events for these tokens (snapshots, level changes, trades, lifecycle, status). */
  marketEvents(tokenIds: readonly TokenId[]): Observable<MarketEvent>;
  /** The account's own order and fill events (with reconnect reconciliation). */
  userEvents(markets: readonly ConditionId[]): Observable<UserEvent>;
  /**
   * Real-time crypto prices for these feed symbols (e.g. 'btcusdt'): `price_tick` events (the
   * subscription's history first, flagged `snapshot`), and the stream's `disconnected` /
   * `resynced` (stream 'rtds'). Optional: a venue without a price feed omits it, and strategies
   * that need prices then never see one (and never quote on a guessed price).
   */
  priceEvents?(symbols: readonly string[]): Observable<RtdsEvent>;
  /** Sign orders locally (ids known before sending). */
  prepare(requests: readonly PlaceRequest[]): readonly PreparedOrder[];
  /** Send prepared orders, at most 15 per call, inside the budgets. */
  place(orders: readonly PreparedOrder[]): Promise<readonly PlaceOutcome[]>;
  cancel(ids: readonly OrderId[]): Promise<CancelOutcome>;
  cancelAll(): Promise<CancelOutcome>;
  /** Open orders at the venue (for reconciliation and the kill switch's check). */
  openOrders(): Promise<readonly VenueOrder[]>;
  /** One order by id (resolving unknown outcomes), or undefined if the venue never got it. */
  order(id: OrderId): Promise<VenueOrder | undefined>;
  /** Own fills since a time (unix ms), for backfill after a restart. */
  fills(sinceMs: number): Promise<readonly VenueFill[]>;
  /** Dead-man switch: returns false when the heartbeat failed. */
  heartbeat(): Promise<boolean>;
  /** Collateral available and reserved, micro. */
  balance(): Promise<{ available: Micro; reserved: Micro }>;
  close(): Promise<void>;
}
