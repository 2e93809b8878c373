/**
 * The CLOB API's wire-to-domain mappers: the only place its decimal strings become integers (pips,
 * micro), statuses are normalised and levels ordered best first. Pure functions of the parsed wire
 * (./schemas/clob.ts); they throw ValidationError on a value the units refuse.
 */
import type { z } from 'zod';
import { VENUE_REJECT_CODES, ValidationError, type VenueRejectCode } from '../core/errors.ts';
import type { Address, ConditionId, OrderId, TokenId, TradeId } from '../core/ids.ts';
import {
  isTickSize,
  parseAmount,
  parseFixed,
  parsePrice,
  type Micro,
  type Pips,
  type Side,
  type TickSize,
} from '../core/units.ts';
import type * as S from './schemas/clob.ts';
import type {
  Balances,
  BookLevel,
  CancelResult,
  ClobMarket,
  ClobToken,
  OpenOrder,
  OrderBook,
  OrderStatus,
  Position,
  PostOrderResult,
  SimplifiedMarket,
  Trade,
} from './clob-types.ts';

// ---- conversions (the only place wire decimals become integers) -------------------------------

/** A wire price to pips (exact). @throws ValidationError */
export const pips = (s: string): Pips => parsePrice(s, 'exact');
/** A wire amount to micro-units (exact). @throws ValidationError */
export const micro = (s: string): Micro => parseAmount(s, 'exact');

/** A signed decimal (e.g. PnL "-1.25") to signed micro-units. @throws ValidationError. */
export function parseSignedMicro(s: string): number {
  const t = s.trim();
  const neg = t.startsWith('-');
  const v = Number(parseFixed(neg ? t.slice(1) : t, 6, 'exact'));
  return neg ? -v : v;
}

/** A mid (possibly between two pips) to pips, a half pip kept exactly. @throws ValidationError. */
export function parseMidPips(s: string): number {
  const m = parseFixed(s, 6, 'half-up'); // micro-price
  return Number((m * 2n) / 100n) / 2; // half-pip resolution
}

/** A wire tick size as a TickSize ("0.010" and 1e-4 normalised), undefined when none or not a venue tick. */
export function tickOf(v: string | undefined): TickSize | undefined {
  if (v === undefined) return undefined;
  const t = v.trim();
  if (isTickSize(t)) return t;
  // "0.010" or 1e-4 as numbers: normalise through pips
  try {
    const p = parsePrice(t, 'exact');
    const s = String(p / 10_000);
    return isTickSize(s) ? s : undefined;
  } catch {
    return undefined;
  }
}

/** A wire order status in lower case, without the `ORDER_STATUS_` prefix. */
export function lower(status: string): OrderStatus {
  return status.toLowerCase().replace(/^order_status_/, '') as OrderStatus;
}

/** A market's token record (its price, when given, in pips rounded half up). */
export function toToken(t: z.output<typeof S.clobTokenSchema>): ClobToken {
  return {
    tokenId: t.token_id as TokenId,
    outcome: t.outcome,
    price: t.price === undefined ? undefined : parsePrice(t.price, 'half-up'),
    winner: t.winner ?? false,
  };
}

/** A CLOB market record in integer units. @throws ValidationError on an amount the units refuse */
export function toMarket(m: S.WireClobMarket): ClobMarket {
  const tick = tickOf(m.minimum_tick_size);
  if (tick === undefined)
    throw new ValidationError(`market ${m.condition_id}: minimum_tick_size ${m.minimum_tick_size} is not a venue tick`);
  return {
    conditionId: m.condition_id as ConditionId,
    questionId: m.question_id ?? '',
    question: m.question ?? '',
    slug: m.market_slug ?? '',
    tokens: m.tokens.map(toToken),
    minOrderSize: micro(m.minimum_order_size),
    tickSize: tick,
    negRisk: m.neg_risk,
    active: m.active,
    closed: m.closed,
    acceptingOrders: m.accepting_orders ?? m.active,
    endDateIso: m.end_date_iso ?? undefined,
    rewards: m.rewards ?? null,
  };
}

/** A simplified market record. */
export function toSimplified(m: S.WireSimplifiedMarket): SimplifiedMarket {
  return {
    conditionId: m.condition_id as ConditionId,
    tokens: m.tokens.map(toToken),
    active: m.active,
    closed: m.closed,
    acceptingOrders: m.accepting_orders ?? m.active,
  };
}

/** An order book in integer units, levels best first. @throws ValidationError on a bad price or size */
export function toBook(b: S.WireBook): OrderBook {
  const lvl = (l: { price: string; size: string }): BookLevel => ({ price: pips(l.price), size: micro(l.size) });
  const ts = /^\d+$/.test(b.timestamp) ? Number(b.timestamp) : Date.parse(b.timestamp);
  return {
    market: b.market as ConditionId,
    assetId: b.asset_id as TokenId,
    timestamp: Number.isFinite(ts) ? ts : 0,
    hash: b.hash,
    bids: b.bids.map(lvl).sort((x, y) => y.price - x.price),
    asks: b.asks.map(lvl).sort((x, y) => x.price - y.price),
    tickSize: tickOf(b.tick_size),
    minOrderSize: b.min_order_size === undefined ? undefined : micro(b.min_order_size),
    negRisk: b.neg_risk,
    lastTradePrice:
      b.last_trade_price === undefined || b.last_trade_price === '' ? undefined : pips(b.last_trade_price),
  };
}

/** An open order record in integer units. @throws ValidationError on a bad price or size */
export function toOpenOrder(o: S.WireOpenOrder): OpenOrder {
  return {
    id: o.id as OrderId,
    status: lower(o.status),
    owner: o.owner,
    makerAddress: o.maker_address.toLowerCase() as Address,
    market: o.market as ConditionId,
    assetId: o.asset_id as TokenId,
    side: o.side,
    originalSize: micro(o.original_size),
    sizeMatched: micro(o.size_matched),
    price: pips(o.price),
    outcome: o.outcome,
    associateTrades: (o.associate_trades ?? []) as TradeId[],
    createdAt: o.created_at,
    expiration: o.expiration ?? 0,
    orderType: o.order_type,
  };
}

/** A trade record in integer units, with its maker orders. @throws ValidationError on a bad price or size */
export function toTrade(t: S.WireTrade): Trade {
  return {
    id: t.id as TradeId,
    takerOrderId: t.taker_order_id as OrderId,
    market: t.market as ConditionId,
    assetId: t.asset_id as TokenId,
    side: t.side,
    size: micro(t.size),
    feeRateBps: t.fee_rate_bps ?? 0,
    price: pips(t.price),
    status: t.status,
    matchTime: t.match_time,
    lastUpdate: t.last_update,
    outcome: t.outcome,
    bucketIndex: t.bucket_index ?? 0,
    owner: t.owner,
    makerAddress: t.maker_address.toLowerCase() as Address,
    transactionHash: t.transaction_hash ?? undefined,
    traderSide: t.trader_side,
    makerOrders: t.maker_orders.map((m) => ({
      orderId: m.order_id as OrderId,
      owner: m.owner,
      makerAddress: m.maker_address.toLowerCase() as Address,
      matchedAmount: micro(m.matched_amount),
      price: pips(m.price),
      feeRateBps: m.fee_rate_bps ?? 0,
      assetId: m.asset_id as TokenId,
      outcome: m.outcome,
      side: m.side,
    })),
  };
}

/** A cancel answer: the ids cancelled and the reason per id not cancelled. */
export function toCancel(r: z.output<typeof S.cancelResponseSchema>): CancelResult {
  return { canceled: r.canceled as OrderId[], notCanceled: r.not_canceled };
}

/** True for one of the venue's order rejection codes. */
export function isVenueCode(c: string): c is VenueRejectCode {
  return (VENUE_REJECT_CODES as readonly string[]).includes(c);
}

/** The code, message and order id of a refused order post (INVALID_ORDER_ERROR when the venue gave no code). */
export function refusalOf(
  r: S.WireOrderResponse,
  fallbackId: string,
): { code: string; message: string; orderId: OrderId } {
  let code: string | undefined;
  let message = r.errorMsg;
  if (typeof r.error === 'object') {
    code = r.error.code;
    if (message === '') message = r.error.message;
  } else if (typeof r.error === 'string' && message === '') message = r.error;
  return {
    code: code ?? 'INVALID_ORDER_ERROR',
    message: message || 'order refused',
    orderId: (r.orderID || fallbackId) as OrderId,
  };
}

/** The result of an accepted order post. @throws ValidationError on a bad amount */
export function accepted(r: S.WireOrderResponse, fallbackId: string): PostOrderResult {
  return {
    orderId: (r.orderID || fallbackId) as OrderId,
    status: lower(r.status),
    makingAmount: r.makingAmount === undefined || r.makingAmount === '' ? (0 as Micro) : micro(r.makingAmount),
    takingAmount: r.takingAmount === undefined || r.takingAmount === '' ? (0 as Micro) : micro(r.takingAmount),
    transactionsHashes: r.transactionsHashes ?? [],
    tradeIds: (r.tradeIDs ?? []) as TradeId[],
    resolved: false,
  };
}

/** POST /prices to token → {BUY?: best bid, SELL?: best ask}, pips. @throws ValidationError */
export function toPrices(r: z.output<typeof S.pricesSchema>): Map<TokenId, { BUY?: Pips; SELL?: Pips }> {
  const out = new Map<TokenId, { BUY?: Pips; SELL?: Pips }>();
  for (const [k, v] of Object.entries(r))
    out.set(k as TokenId, {
      ...(v.BUY !== undefined ? { BUY: pips(v.BUY) } : {}),
      ...(v.SELL !== undefined ? { SELL: pips(v.SELL) } : {}),
    });
  return out;
}

/** An entry of POST /last-trades-prices: price (pips) and taker side ('' when none). @throws ValidationError */
export function toLastTrade(x: z.output<typeof S.lastTradesPricesSchema>[number]): {
  tokenId: TokenId;
  price: Pips;
  side: Side | '';
} {
  return {
    tokenId: x.token_id as TokenId,
    price: pips(x.price),
    side: x.side === 'BUY' || x.side === 'SELL' ? x.side : '',
  };
}

/** The result of an order post whose outcome was resolved by id (`resolved: true`). */
export function resolvedPost(found: OpenOrder): PostOrderResult {
  return {
    orderId: found.id,
    status: found.status,
    makingAmount: 0 as Micro,
    takingAmount: 0 as Micro,
    transactionsHashes: [],
    tradeIds: found.associateTrades,
    resolved: true,
    order: found,
  };
}

/** GET /balances to Balances (micro). @throws ValidationError on a bad amount */
export function toBalances(r: z.output<typeof S.balancesSchema>): Balances {
  return {
    address: r.address.toLowerCase() as Address,
    collateral: {
      balance: micro(r.collateral.balance),
      available: micro(r.collateral.available),
      reserved: micro(r.collateral.reserved),
    },
    tokens: r.tokens.map((t) => ({
      assetId: t.asset_id as TokenId,
      market: t.market as ConditionId,
      outcome: t.outcome,
      balance: micro(t.balance),
      available: micro(t.available),
      reserved: micro(t.reserved),
    })),
  };
}

/** An entry of GET /positions to a Position (signed micro-units). @throws ValidationError on a bad amount */
export function toPosition(p: z.output<typeof S.positionsSchema>[number]): Position {
  return {
    assetId: p.asset_id as TokenId,
    market: p.market as ConditionId,
    outcome: p.outcome,
    size: micro(p.size),
    avgPrice: p.avg_price,
    cost: parseSignedMicro(p.cost),
    realizedPnl: parseSignedMicro(p.realized_pnl),
    curPrice: p.cur_price ?? undefined,
    currentValue: p.current_value === null ? undefined : parseSignedMicro(p.current_value),
    cashPnl: p.cash_pnl === null ? undefined : parseSignedMicro(p.cash_pnl),
  };
}
