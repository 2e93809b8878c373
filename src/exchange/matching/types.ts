/**
 * The matching engine's contract. Pure and deterministic: no I/O, no wall clock; every call that
 * depends on time takes `now` (unix ms). Units: prices in pips (1e-4), amounts in micro (1e-6);
 * see src/core/units.ts.
 *
 * One book per market (condition) serves both outcome tokens. Internally every order is expressed
 * in YES terms: BUY YES at p and SELL NO at q are YES bids at p and 10000-q; SELL YES at p and
 * BUY NO at q are YES asks at p and 10000-q. A bid matches an ask when bid >= ask, at the resting
 * order's price. Settlement depends on the pair: BUY YES x SELL YES and BUY NO x SELL NO transfer
 * a token; BUY YES x BUY NO mints a pair from both sides' collateral; SELL YES x SELL NO merges a
 * pair back into collateral.
 */
import type { OrderRejectCode } from '../../core/order-rules.ts';
import type { Side } from '../../core/units.ts';

export type OrderType = 'GTC' | 'GTD' | 'FOK' | 'FAK';
export type MarketStatus = 'active' | 'closed' | 'resolved';
export type OrderStatus = 'LIVE' | 'MATCHED' | 'CANCELED';
export type CancelReason =
  | 'USER'
  | 'EXPIRED'
  | 'HEARTBEAT'
  | 'TICK_SIZE_CHANGE'
  | 'MARKET_CLOSED'
  | 'MARKET_RESOLVED'
  | 'UNFILLED_REMAINDER';

export interface MarketDef {
  conditionId: string;
  /** Token ids: index 0 is YES (outcome "Yes"), index 1 is NO. */
  yesToken: string;
  noToken: string;
  tickPips: number; // 1000 | 100 | 10 | 1
  minSizeMicro: number; // minimum order size in micro-shares
  negRisk: boolean;
  /** Minimum feeRateBps an order must carry (the market's taker fee). */
  feeRateBps: number;
  status?: MarketStatus; // default 'active'
}

export interface NewOrder {
  id: string; // the order hash; duplicates are refused forever
  account: string; // the funded account (maker address, lower case)
  owner: string; // the API key that placed it (reported in trades)
  tokenId: string;
  side: Side;
  price: number; // pips, on the token's own scale (a NO order's price is the NO price)
  size: number; // micro-shares, a multiple of LOT_MICRO
  type: OrderType;
  postOnly: boolean;
  /** GTD only: unix ms at which the order leaves the book. 0 for other types. */
  expiresAt: number;
  feeRateBps: number;
  /**
   * How the order pays when it takes (makers pay nothing either way), at `feeRateBps`:
   *  - 'v1' (default: V1 signed orders, the exchange's own flow): `rate × min(p, 1 − p) × size`,
   *    floored to the micro-unit (./engine.ts);
   *  - 'v2' (CTF Exchange V2 orders, whose fee is not signed: the exchange gives the market's rate):
   *    the V2 fee curve `rate × p × (1 − p) × size`, floored to 0.00001 (core/order-rules.ts
   *    `curveFee`).
   * Either way a BUY pays it in collateral on top of the fill, a SELL off its proceeds.
   */
  feeModel?: 'v1' | 'v2';
  /**
   * The reservation rule it was admitted by: 2, the most fee its fills can pay (core/order-rules.ts
   * `orderReservation`); absent, an order journaled before that rule: notional plus rate × notional
   * (`legacyOrderReservation`), so a journal replays as it ran.
   */
  reservation?: 2;
}

export interface OrderState {
  readonly id: string;
  readonly account: string;
  readonly owner: string;
  readonly market: string;
  readonly tokenId: string;
  readonly outcome: 'Yes' | 'No';
  readonly side: Side;
  readonly price: number; // pips, token scale
  readonly originalSize: number;
  sizeMatched: number;
  status: OrderStatus;
  readonly type: OrderType;
  readonly expiresAt: number;
  readonly feeRateBps: number;
  readonly createdAt: number; // unix ms
  /** Collateral (BUY) or tokens (SELL) still reserved for the unfilled rest. */
  reserved: number;
  /** Trade ids this order took part in. */
  readonly tradeIds: string[];
}

export type SettlementKind = 'TRANSFER' | 'MINT' | 'MERGE';

export interface MakerFill {
  orderId: string;
  account: string;
  owner: string;
  tokenId: string;
  outcome: 'Yes' | 'No';
  side: Side;
  price: number; // pips, maker token scale
  size: number; // micro-shares
}

/** One taker order matched against one or more resting orders in one operation. */
export interface Trade {
  id: string;
  market: string;
  takerOrderId: string;
  takerAccount: string;
  takerOwner: string;
  tokenId: string; // the taker's token
  outcome: 'Yes' | 'No';
  side: Side; // the taker's side
  /** Size-weighted price for the taker, pips on the taker token scale (exact: last fill price when one maker). */
  price: number;
  size: number; // micro-shares matched in total
  feeRateBps: number;
  fee: number; // micro-collateral charged to the taker
  makers: MakerFill[];
  matchTime: number; // unix ms
}

export type BookSide = 'bids' | 'asks';

export interface BookLevel {
  price: number; // pips, token scale
  size: number; // micro-shares
}

export interface BookView {
  market: string;
  tokenId: string;
  /** Best first: bids descending, asks ascending. */
  bids: BookLevel[];
  asks: BookLevel[];
}

/** Events emitted by the engine, drained by the caller (WS fan-out, persistence, stats). */
export type EngineEvent =
  | { type: 'order_placed'; order: OrderState; at: number }
  | { type: 'order_updated'; order: OrderState; at: number } // sizeMatched changed
  | { type: 'order_canceled'; order: OrderState; reason: CancelReason; at: number }
  | { type: 'trade'; trade: Trade; at: number }
  /** A YES-book level's total changed (size 0 removes it); consumers mirror it for the NO token. */
  | { type: 'level'; market: string; side: 'bid' | 'ask'; yesPrice: number; size: number; at: number }
  | { type: 'tick_size_change'; market: string; oldTickPips: number; newTickPips: number; at: number }
  | { type: 'market_status'; market: string; status: MarketStatus; winningToken?: string; at: number }
  | { type: 'balance'; account: string; at: number };

export type PlaceResult =
  | {
      ok: true;
      order: OrderState;
      /** live: rests on the book; matched: fully filled or FAK/FOK done with a fill; unmatched: FAK that filled nothing. */
      status: 'live' | 'matched' | 'unmatched';
      trade: Trade | null;
      /**
       * Collateral given / received and shares received / given by the taker in this operation:
       * with the fee (a BUY's given includes it, a SELL's received is net of it) for a 'v1' fee
       * model, without it for 'v2' (the fill's own amounts; the fee is charged besides).
       */
      makingAmount: number;
      takingAmount: number;
    }
  | { ok: false; code: RejectCode; message: string };

/** The venue's rejection codes at the matching point (src/core/order-rules.ts). */
export type RejectCode = OrderRejectCode;

export interface Balance {
  collateral: number; // available micro-collateral
  collateralReserved: number;
  tokens: Map<string, { available: number; reserved: number }>;
}

/**
 * Why a position operation outside the book (split, merge, redeem, convert) was refused. Nothing
 * changes on a refusal.
 */
export type PositionOpCode =
  | 'INVALID_AMOUNT'
  | 'MARKET_NOT_FOUND'
  | 'NOT_ENOUGH_BALANCE'
  | 'MARKET_NOT_RESOLVED'
  | 'MARKET_RESOLVED'
  | 'NOT_NEG_RISK'
  | 'NOTHING_TO_REDEEM';

/** A signed change of one token balance of the account, micro-shares. */
export interface TokenDelta {
  tokenId: string;
  delta: number;
}

/** Result of a position operation: the account's signed collateral change and token changes (micro). */
export type PositionOpResult =
  | { ok: true; collateral: number; tokens: TokenDelta[] }
  | { ok: false; code: PositionOpCode; message: string };
