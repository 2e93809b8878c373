/**
 * The paper exchange's types (src/exchange/exchange.ts re-exports them): its options, markets,
 * order requests (V1 and V2) and their outcomes, trades, events, and the refusals of an order
 * before it reaches the book.
 */
import type { Clock } from '../core/clock.ts';
import { AMOUNT_SCALE } from '../core/units.ts';
import type { SignedOrderStruct } from '../api/signing/order.ts';
import type { SignedOrderStructV2 } from '../api/signing/order-v2.ts';
import type { EngineEvent, OrderType, RejectCode, Trade } from './matching/types.ts';
import type { LiveMarketState, MarketMeta } from './markets.ts';
import type { WorldIdentity } from './identity.ts';
import type { WorldEvent } from './world/model.ts';
import type { RewardOptions } from './rewards/ledger.ts';

export interface ExchangeOptions {
  clock: Clock;
  chainId: number;
  /** Collateral credited to an address when it first creates an API key (micro). */
  startingCollateral: number;
  heartbeatTimeoutMs: number;
  /** The venue's GTD security threshold: an order lives until expiration - threshold. */
  gtdThresholdSec: number;
  /** Trade status progression: MATCHED, then MINED after minedMs, CONFIRMED after confirmedMs. */
  minedMs: number;
  confirmedMs: number;
  serverSecret?: Buffer;
  /** The world's identity (GET /world); none for an exchange without one (backtests): the route is then 404. */
  identity?: WorldIdentity;
  exchangeAddress?: string;
  negRiskExchangeAddress?: string;
  /**
   * The CLOB protocol the exchange speaks (`GET /version`): 1, or 2 (CLOB V2, the public service's
   * since 2026-04-28). Public V2 clients sign V1 orders when it answers 1. Unset: DEFAULT_PROTOCOL.
   */
  protocol?: ClobProtocol;
  /**
   * Liquidity rewards: epoch length, sampling interval, minimum payout (rewards/ledger.ts;
   * defaults: one day, 60 s, 1 USDC).
   */
  rewards?: Partial<RewardOptions>;
}

/** A CLOB protocol version: 1 (V1 orders) or 2 (CLOB V2). */
export type ClobProtocol = 1 | 2;

/**
 * The protocol an exchange speaks unless told otherwise: 2, as the public service since 2026-04-28
 * (V1 orders are refused `order_version_mismatch`); `--protocol 1` serves V1 clients.
 */
export const DEFAULT_PROTOCOL: ClobProtocol = 2;

export const DEFAULT_EXCHANGE_OPTIONS: Omit<ExchangeOptions, 'clock'> = {
  chainId: 137,
  startingCollateral: 10_000 * AMOUNT_SCALE,
  heartbeatTimeoutMs: 10_000,
  gtdThresholdSec: 60,
  minedMs: 2_000,
  confirmedMs: 5_000,
  protocol: DEFAULT_PROTOCOL,
};

export interface MarketEntry {
  meta: MarketMeta;
  state: LiveMarketState;
  /** Traded notional, micro-collateral (both tokens). */
  volume: number;
  createdAt: number; // unix ms
}

/** What a signed order of either protocol comes with in `POST /order`. */
interface PlaceRequestCommon {
  signature: string;
  owner: string;
  orderType: OrderType;
  postOnly: boolean;
  /**
   * Optional builder attribution key (data API builder statistics): the V1 body's `builder`. A V2
   * order's signed `builder` code, when not zero, takes its place.
   */
  builder?: string;
}

/** A V1 order (CTF Exchange, domain version 1): `protocol` 1 or absent. */
export interface PlaceRequestV1 extends PlaceRequestCommon {
  protocol?: 1;
  order: SignedOrderStruct;
}

/** A V2 order (CTF Exchange V2, domain version 2: api/signing/order-v2.ts). */
export interface PlaceRequestV2 extends PlaceRequestCommon {
  protocol: 2;
  order: SignedOrderStructV2;
  /** GTD expiration, unix seconds (0: none): in the payload, not signed in V2. */
  expiration: bigint;
  /**
   * How far in the future the signed `timestamp` (unix ms) may be: the HTTP layer passes its auth
   * clock skew. Default V2_TIMESTAMP_MAX_AHEAD_MS.
   */
  maxTimestampAheadMs?: number;
}

/** A signed order to place: V1 or V2 (`protocol`), as its wire shape said. */
export type PlaceRequest = PlaceRequestV1 | PlaceRequestV2;

/**
 * How far ahead of the exchange's clock a V2 order's signed `timestamp` may be when the request
 * does not say: 300 s, the default auth clock skew of the HTTP API. A timestamp further ahead is a
 * clock or unit mistake (microseconds, or seconds × 10^6); one in the past is always fine, however
 * old: clients sign ahead of time (mmkit's presign pool, the public client's `createOrder` before
 * `postOrder`), and the signed time bounds nothing on chain.
 */
export const V2_TIMESTAMP_MAX_AHEAD_MS = 300_000;

/**
 * The refusal of an order signed in another protocol than the exchange speaks. The public service
 * answers such an order 400 `{"error": "order_version_mismatch"}` (since its V2 cutover); the
 * public V2 client looks for that text in the error to re-read `GET /version` and sign again, so the
 * message starts with it.
 */
export function versionMismatchMessage(signed: ClobProtocol, speaks: ClobProtocol): string {
  return `order_version_mismatch: order version ${signed} is not accepted: sign V${speaks} (GET /version)`;
}

export type PlaceOutcome =
  | {
      ok: true;
      orderID: string;
      status: 'live' | 'matched' | 'unmatched' | 'delayed';
      makingAmount: number;
      takingAmount: number;
      tradeIds: string[];
      transactionsHashes: string[];
    }
  | {
      ok: false;
      orderID: string;
      code: RejectCode | 'INVALID_SIGNATURE' | 'INVALID_ORDER_OWNER';
      message: string;
      httpStatus: number;
    };

export type TradeStatus = 'MATCHED' | 'MINED' | 'CONFIRMED';

export interface TradeRecord {
  trade: Trade;
  transactionHash: string;
}

/** What listeners (WS fan-out, RTDS) receive: engine events and world events, in order. */
export type ExchangeEvent = EngineEvent | WorldEvent;
export type ExchangeListener = (events: readonly ExchangeEvent[]) => void;

/** An order placed from inside the exchange (flow agents): no signature, the id is given. */
export interface InternalOrder {
  id: string;
  account: string;
  tokenId: string;
  side: 'BUY' | 'SELL';
  price: number; // pips, token scale
  size: number; // micro-shares (multiple of 10_000)
  type: OrderType;
  postOnly?: boolean;
  expiresAt?: number;
}

/** A refusal of an order before it reaches the book. */
export interface Refusal {
  code: Extract<PlaceOutcome, { ok: false }>['code'];
  message: string;
}
export const refusal = (code: Refusal['code'], message: string): Refusal => ({ code, message });
export const unknownToken = (tokenId: bigint): Refusal =>
  refusal('MARKET_NOT_READY', `invalid token id: no market trades token ${tokenId.toString(10).slice(0, 20)}…`);
