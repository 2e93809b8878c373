/**
 * The Venue port: the one narrow interface the engine drives. The live adapter implements it with
 * src/api (paper exchange or the real service); the backtest adapter with the simulated venue. Both
 * pass the same contract test suite (test/contract/venue.contract.ts).
 */
import type { Observable } from 'rxjs';
import type { Clock } from './clock.ts';
import type { ConditionId, OrderId, TokenId } from './ids.ts';
import type { MarketEvent, RtdsEvent, UserEvent } from './events.ts';
import type { MarketInfo } from './market-info.ts';
import type { Micro, Pips, Side } from './units.ts';

export type { MarketInfo } from './market-info.ts';

/**
 * The markets of `all` that `ids` names (condition ids, any case), in the order of `ids` (a repeat
 * counted once), and the ids not found. `mmkit run` and backtests pick `bot.markets` / `--markets`
 * with it, so a strategy sees `ctx.markets` in the order given in both (trial 12 F4: the daemon's
 * followed the venue's listing, the backtest's the feed header's).
 */
export function marketsInOrder<M extends { readonly market: string }>(
  all: readonly M[],
  ids: readonly string[],
): { found: M[]; missing: string[] } {
  const byId = new Map(all.map((m) => [m.market.toLowerCase(), m] as const));
  const found: M[] = [];
  const missing: string[] = [];
  const seen = new Set<string>();
  for (const raw of ids) {
    const id = raw.toLowerCase();
    if (seen.has(id)) continue;
    seen.add(id);
    const m = byId.get(id);
    if (m === undefined) missing.push(id);
    else found.push(m);
  }
  return { found, missing };
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

/** What the venue says the account holds (the truth the store's ledger is reconciled with). */
export interface Holdings {
  /** Collateral available and reserved by open orders, micro. */
  readonly collateral: { readonly available: Micro; readonly reserved: Micro };
  /** Every token with a non-zero balance (available + reserved), micro-shares. */
  readonly tokens: readonly {
    readonly tokenId: TokenId;
    readonly market: ConditionId;
    readonly size: Micro;
    /** Of `size`, what no open order reserves (what a merge or redeem may use), when the venue says. */
    readonly available?: Micro;
    /** The venue's average entry price, when it reports one (pips, rounded half-up). */
    readonly avgPrice?: Pips;
    /** The same in millionths (the venue's 6 decimals), exact: what an adjustment is booked at. */
    readonly avgPriceMicro?: number;
    /**
     * The venue's mark of the token (its current price: GET /positions `cur_price`), pips rounded
     * half-up, when it reports one: what marks a position on a market the bot does not follow.
     */
    readonly mark?: Pips;
  }[];
  /**
   * False when the venue's marks (and average prices) could not be read this time (its positions
   * endpoint failed): the tokens carry none, which does not mean the venue has none (keep the last).
   */
  readonly marksRead?: boolean;
}

/**
 * Who the venue is, for the store's ledger epochs: `venue` names the deployment (its CLOB URL and
 * chain), `world` the paper exchange's world (null on a venue without one: the real service), and
 * `address` the account traded. A change of any of them starts a new ledger epoch.
 */
export interface VenueIdentity {
  readonly venue: string;
  readonly world: string | null;
  readonly address: string;
}

/** An operation on the conditional tokens (the relayer's split, merge, redeem, convert). */
export type CtfOperationKind = 'split' | 'merge' | 'redeem' | 'convert';

/** What a split, merge, redeem or convert did to the account, as the venue reports it. */
export interface CtfOperationResult {
  readonly kind: CtfOperationKind;
  readonly market: ConditionId;
  /** The venue's transaction id (or hash). */
  readonly tx: string;
  /** The on-chain transaction hash, when the venue gives it (the relayer's `transactionHash`). */
  readonly hash?: string;
  /** The amount asked, micro-shares. */
  readonly amount: Micro;
  /** Collateral change, signed micro. */
  readonly collateral: number;
  /** Token balance changes, signed micro-shares. */
  readonly tokens: readonly { readonly tokenId: TokenId; readonly delta: number }[];
}

export interface Venue {
  readonly clock: Clock;
  /** Markets the venue lists (active ones first). */
  markets(): Promise<readonly MarketInfo[]>;
  /**
   * One market as the venue lists it now (`GET /markets/{condition_id}`), or undefined when the venue
   * does not know it. Optional: without it, the engine's re-read of its markets uses `markets()`.
   */
  market?(id: ConditionId): Promise<MarketInfo | undefined>;
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
  /**
   * Dead-man switch: false (or a throw, whose message says why: the venue's error) when the heartbeat
   * failed. `signal` aborts an attempt that took too long (the keeper's bound), retries included.
   */
  heartbeat(signal?: AbortSignal): Promise<boolean>;
  /** Collateral available and reserved, micro. */
  balance(): Promise<{ available: Micro; reserved: Micro }>;
  /** Collateral and every token balance of the account (position reconciliation). Optional: a venue without it is not audited. */
  holdings?(): Promise<Holdings>;
  /** The venue's identity (ledger epochs). Optional: without it, the store keeps one epoch. */
  identity?(): Promise<VenueIdentity>;
  /**
   * Split `amount` collateral into as many YES and NO tokens, merge as many YES + NO back into
   * collateral, redeem a resolved market's tokens (all held when `amount` is omitted). Optional: a
   * venue without a relayer has none.
   */
  split?(market: ConditionId, amount: Micro): Promise<CtfOperationResult>;
  merge?(market: ConditionId, amount: Micro): Promise<CtfOperationResult>;
  redeem?(market: ConditionId, amount?: Micro): Promise<CtfOperationResult>;
  close(): Promise<void>;
}
