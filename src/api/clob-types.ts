/**
 * The shapes of the order-book (CLOB) API as the client returns them: markets, books, orders,
 * trades, balances and the results of posts and cancels, in integer units (Pips, Micro); the
 * cursor constants and the batch limit. Types and constants only (./clob-mappers.ts makes them
 * from the wire).
 */
import type { VenueRejectCode } from '../core/errors.ts';
import type { Address, ConditionId, OrderId, TokenId, TradeId } from '../core/ids.ts';
import type { Micro, Pips, Side, TickSize } from '../core/units.ts';
import type { AnyWireOrder } from './signing/order-v2.ts';
import type { MarketRewards } from './schemas/rewards.ts';

/** First cursor of a cursor-paginated list. */
export const FIRST_CURSOR = 'MA==';
/** Cursor of "no more pages". */
export const END_CURSOR = 'LTE=';
/** Most orders in one POST /orders (defined in src/core/rate-limits.ts). */
export { MAX_BATCH_ORDERS } from '../core/rate-limits.ts';

/** Order types of the venue. */
export type OrderType = 'GTC' | 'GTD' | 'FOK' | 'FAK';

/** An order signed elsewhere (e.g. `BuiltOrder` of src/api/orders.ts): its id (EIP-712 digest) and wire form (V1 or V2). */
export interface SignedOrderLike {
  readonly id: string;
  readonly wire: AnyWireOrder;
}

/** How to post an order. */
export interface PostOrderOptions {
  /** Default GTC. */
  orderType?: OrderType;
  /** Only with GTC/GTD: refuse to cross the book (INVALID_POST_ONLY_ORDER). */
  postOnly?: boolean;
  /** Optional builder attribution key. */
  builder?: string;
  signal?: AbortSignal;
}

/** Per-call options. */
export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** One outcome token of a market. */
export interface ClobToken {
  tokenId: TokenId;
  outcome: string;
  /** The outcome's price (mid, last trade or 0.5), in pips rounded half-up. */
  price: Pips | undefined;
  winner: boolean;
}

/** A market of the CLOB API (prices in pips, sizes in micro). */
export interface ClobMarket {
  conditionId: ConditionId;
  questionId: string;
  question: string;
  slug: string;
  tokens: ClobToken[];
  minOrderSize: Micro;
  tickSize: TickSize;
  negRisk: boolean;
  active: boolean;
  closed: boolean;
  acceptingOrders: boolean;
  endDateIso: string | undefined;
  /** The market's liquidity rewards as the record states them (null: the record has none). */
  rewards: MarketRewards | null;
}

/** A market of the simplified listing. */
export interface SimplifiedMarket {
  conditionId: ConditionId;
  tokens: ClobToken[];
  active: boolean;
  closed: boolean;
  acceptingOrders: boolean;
}

/** One price level of a book. */
export interface BookLevel {
  price: Pips;
  size: Micro;
}

/** A token's order book, levels best first. */
export interface OrderBook {
  market: ConditionId;
  assetId: TokenId;
  /** Venue time of the snapshot, unix ms. */
  timestamp: number;
  hash: string;
  /** Best (highest) first. */
  bids: BookLevel[];
  /** Best (lowest) first. */
  asks: BookLevel[];
  tickSize: TickSize | undefined;
  minOrderSize: Micro | undefined;
  negRisk: boolean | undefined;
  lastTradePrice: Pips | undefined;
}

/** A page of a cursor-paginated list. */
export interface Page<T> {
  data: T[];
  /** Cursor of the next page; END_CURSOR when this is the last. */
  nextCursor: string;
}

/** An order's status in lower case (the venue may add others). */
export type OrderStatus = 'live' | 'matched' | 'canceled' | 'delayed' | 'unmatched' | (string & {});

/** One of our orders as the venue reports it. */
export interface OpenOrder {
  id: OrderId;
  status: OrderStatus;
  owner: string;
  makerAddress: Address;
  market: ConditionId;
  assetId: TokenId;
  side: Side;
  originalSize: Micro;
  sizeMatched: Micro;
  price: Pips;
  outcome: string;
  associateTrades: TradeId[];
  /** Unix seconds. */
  createdAt: number | undefined;
  /** Unix seconds; 0 for none. */
  expiration: number;
  orderType: string;
}

/** A maker order of a trade. */
export interface MakerOrder {
  orderId: OrderId;
  owner: string;
  makerAddress: Address;
  matchedAmount: Micro;
  price: Pips;
  feeRateBps: number;
  assetId: TokenId;
  outcome: string;
  side: Side;
}

/** A trade of ours as the venue reports it, with its maker orders. */
export interface Trade {
  id: TradeId;
  takerOrderId: OrderId;
  market: ConditionId;
  assetId: TokenId;
  side: Side;
  size: Micro;
  feeRateBps: number;
  price: Pips;
  status: string;
  /** Unix seconds. */
  matchTime: number;
  lastUpdate: number | undefined;
  outcome: string;
  bucketIndex: number;
  owner: string;
  makerAddress: Address;
  transactionHash: string | undefined;
  traderSide: 'TAKER' | 'MAKER';
  makerOrders: MakerOrder[];
}

/** The result of an accepted order. */
export interface PostOrderResult {
  orderId: OrderId;
  status: OrderStatus;
  /** What the order gave in its immediate matches (collateral for BUY, shares for SELL), micro. */
  makingAmount: Micro;
  /** What it received, micro. */
  takingAmount: Micro;
  transactionsHashes: string[];
  tradeIds: TradeId[];
  /**
   * True when the POST's outcome was ambiguous and the order was found by id (GET /data/order):
   * making/taking amounts are then 0 and `order` holds the venue's record.
   */
  resolved: boolean;
  order?: OpenOrder;
}

/** One entry of a batch: accepted, or refused with the venue's code (never thrown). */
export type BatchEntryResult =
  | ({ ok: true } & PostOrderResult)
  | { ok: false; orderId: OrderId; code: VenueRejectCode | (string & {}); message: string };

/** What a cancel request cancelled, and why the rest was not. */
export interface CancelResult {
  canceled: OrderId[];
  /** Order id → reason. */
  notCanceled: Record<string, string>;
}

/** Collateral and token balances (micro). */
export interface Balances {
  address: Address;
  collateral: { balance: Micro; available: Micro; reserved: Micro };
  tokens: Array<{
    assetId: TokenId;
    market: ConditionId;
    outcome: string;
    balance: Micro;
    available: Micro;
    reserved: Micro;
  }>;
}

/** A position of the account. */
export interface Position {
  assetId: TokenId;
  market: ConditionId;
  outcome: string;
  size: Micro;
  /** Average entry price, decimal (it may fall between pips). */
  avgPrice: string;
  /** Signed micro-units of collateral. */
  cost: number;
  realizedPnl: number;
  /** Mark price, decimal, or undefined when unmarked. */
  curPrice: string | undefined;
  currentValue: number | undefined;
  cashPnl: number | undefined;
}

/** Balance and allowance of an asset (micro). */
export interface BalanceAllowance {
  balance: Micro;
  allowance: string | undefined;
}

/** An API key of the account. */
export interface ApiKeyInfo {
  apiKey: string;
  address: string | undefined;
  nonce: string | undefined;
  createdAt: string | undefined;
}

/** Filters of GET /data/orders. */
export interface OpenOrdersFilter {
  id?: string;
  market?: string;
  assetId?: string;
  /** Page size (the venue's default when absent). */
  limit?: number;
}

/**
 * Which of the API key's accounts GET /balances and GET /positions report: `makerAddress` (sent as
 * `maker_address`) names the funder of a proxy / Safe wallet (signatureType 1 or 2), whose funds and
 * tokens those are; absent, the key's own address (the EOA).
 */
export interface AccountQuery {
  makerAddress?: string;
}

/** Filters of GET /data/trades. */
export interface TradesFilter {
  id?: string;
  market?: string;
  assetId?: string;
  makerAddress?: string;
  /** Unix seconds. */
  before?: number;
  after?: number;
  /** Page size (the venue's default when absent). */
  limit?: number;
}
