/**
 * Schemas of the Data API (spec 4.3): wire records (snake_case, success envelope unwrapped by the
 * transport) in, typed camelCase records out. Money stays in exact decimal strings (sizes, values,
 * PnL, which may be negative); tick-aligned prices become integer pips; prices that may fall between
 * pips (a mid, an average fill price) stay decimal strings. See ./common.ts.
 */
import { z } from 'zod';
import { decimalOrNull, decimalString, enveloped, intLike, micro, pageSchema, pips, pipsOrNull } from './common.ts';
import { rawGammaEventSchema, toGammaEvent } from './gamma.ts';

const str = z.string();
const optStr = z.string().nullish();

/** GET /events: Gamma event records plus the number of trades in their markets. */
export const dataEventSchema = rawGammaEventSchema
  .extend({ trade_count: z.number().int().nonnegative() })
  .transform((e) => ({ ...toGammaEvent(e), tradeCount: e.trade_count }));
export type DataEvent = z.output<typeof dataEventSchema>;
export const dataEventsPageSchema = pageSchema(dataEventSchema);

/** GET /markets: a market's trading figures. */
export const dataMarketSchema = z
  .object({
    condition_id: str,
    question: str,
    slug: str.optional(),
    event_id: optStr,
    status: str,
    active: z.boolean(),
    closed: z.boolean(),
    volume: decimalString,
    liquidity: decimalString,
    trade_count: z.number().int().nonnegative(),
    last_trade_at: optStr,
    open_interest: decimalString,
    best_bid: pipsOrNull,
    best_ask: pipsOrNull,
    mid: decimalOrNull.optional(),
    spread: pipsOrNull,
    last_trade_price: pipsOrNull,
    tokens: z.array(z.object({ token_id: str, outcome: str, price: decimalOrNull.optional() })),
  })
  .transform((m) => ({
    conditionId: m.condition_id,
    question: m.question,
    slug: m.slug ?? '',
    eventId: m.event_id ?? null,
    /** `active` / `closed` / `resolved`. */
    status: m.status,
    active: m.active,
    closed: m.closed,
    volume: m.volume,
    liquidity: m.liquidity,
    tradeCount: m.trade_count,
    lastTradeAt: m.last_trade_at ?? null,
    /** YES tokens outstanding, decimal string. */
    openInterest: m.open_interest,
    bestBid: m.best_bid,
    bestAsk: m.best_ask,
    mid: m.mid ?? null,
    spread: m.spread,
    lastTradePrice: m.last_trade_price,
    tokens: m.tokens.map((t) => ({ tokenId: t.token_id, outcome: t.outcome, price: t.price ?? null })),
  }));
export type DataMarket = z.output<typeof dataMarketSchema>;
export const dataMarketsPageSchema = pageSchema(dataMarketSchema);

/** GET /prices (also /prices-history): `history` of `{t, p}`, `p` → `price` in pips. */
export const priceHistorySchema = enveloped(
  z
    .object({
      token_id: str.optional(),
      condition_id: str.optional(),
      interval: optStr,
      fidelity: z.number().int().optional(),
      start_ts: z.number().int().optional(),
      end_ts: z.number().int().optional(),
      history: z.array(z.object({ t: intLike, p: pips })),
    })
    .transform((h) => ({
      tokenId: h.token_id ?? null,
      conditionId: h.condition_id ?? null,
      interval: h.interval ?? null,
      fidelity: h.fidelity ?? null,
      startTs: h.start_ts ?? null,
      endTs: h.end_ts ?? null,
      /** Buckets with trades, oldest first: `t` unix seconds (bucket start), `price` the last trade price in pips. */
      history: h.history.map((x) => ({ t: x.t, price: x.p })),
    })),
);
export type PriceHistory = z.output<typeof priceHistorySchema>;

/** GET /users/{address}: trading statistics. */
export const userStatsSchema = enveloped(
  z
    .object({
      address: str,
      trades: z.number().int().nonnegative(),
      fills: z.number().int().nonnegative(),
      volume: decimalString,
      buy_volume: decimalString,
      sell_volume: decimalString,
      markets_traded: z.number().int().nonnegative(),
      open_positions: z.number().int().nonnegative(),
      positions_value: decimalString,
      positions_cost: decimalString,
      realized_pnl: decimalString,
      unrealized_pnl: decimalString,
      total_pnl: decimalString,
      fees: decimalString,
      first_trade_at: optStr,
      last_trade_at: optStr,
    })
    .transform((u) => ({
      address: u.address.toLowerCase(),
      trades: u.trades,
      fills: u.fills,
      volume: u.volume,
      buyVolume: u.buy_volume,
      sellVolume: u.sell_volume,
      marketsTraded: u.markets_traded,
      openPositions: u.open_positions,
      positionsValue: u.positions_value,
      positionsCost: u.positions_cost,
      realizedPnl: u.realized_pnl,
      unrealizedPnl: u.unrealized_pnl,
      totalPnl: u.total_pnl,
      fees: u.fees,
      firstTradeAt: u.first_trade_at ?? null,
      lastTradeAt: u.last_trade_at ?? null,
    })),
);
export type UserStats = z.output<typeof userStatsSchema>;

const side = z.enum(['BUY', 'SELL']);
const role = z.enum(['TAKER', 'MAKER']);

/** GET /users/{address}/trades: one of the user's fills (the taker part, or one maker fill). */
export const userTradeSchema = z
  .object({
    id: str,
    proxy_wallet: str.optional(),
    role,
    side,
    asset: str,
    condition_id: str,
    outcome: str.optional(),
    outcome_index: z.number().int().nullish(),
    size: decimalString,
    price: decimalString,
    notional: decimalString,
    fee: decimalString.optional(),
    order_id: str,
    builder: optStr,
    timestamp: intLike,
    match_time: optStr,
    status: str,
    transaction_hash: optStr,
    title: optStr,
    slug: optStr,
  })
  .transform((t) => ({
    /** The trade id (shared by the trade's taker part and maker fills). */
    id: t.id,
    proxyWallet: (t.proxy_wallet ?? '').toLowerCase(),
    role: t.role,
    side: t.side,
    /** The token traded by this fill. */
    asset: t.asset,
    conditionId: t.condition_id,
    outcome: t.outcome ?? '',
    outcomeIndex: t.outcome_index ?? null,
    /** Shares, decimal string. */
    size: t.size,
    /** Average price of the fill, decimal string (up to 6 decimals). */
    price: t.price,
    notional: t.notional,
    fee: t.fee ?? '0',
    orderId: t.order_id,
    builder: t.builder ?? null,
    /** Unix seconds. */
    timestamp: t.timestamp,
    matchTime: t.match_time ?? null,
    /** MATCHED, MINED, CONFIRMED (or RETRYING, FAILED). */
    status: t.status,
    transactionHash: t.transaction_hash ?? null,
    title: t.title ?? '',
    slug: t.slug ?? '',
  }));
export type UserTrade = z.output<typeof userTradeSchema>;
export const userTradesPageSchema = pageSchema(userTradeSchema);

/** GET /users/{address}/positions: a held token with its cost, value and PnL. */
export const positionSchema = z
  .object({
    asset: str,
    token_id: str.optional(),
    condition_id: str,
    outcome: str.optional(),
    outcome_index: z.number().int().nullish(),
    opposite_asset: optStr,
    title: optStr,
    slug: optStr,
    size: decimalString,
    avg_price: decimalString,
    initial_value: decimalString,
    current_value: decimalOrNull,
    cash_pnl: decimalOrNull,
    realized_pnl: decimalString,
    total_bought: decimalString.optional(),
    fees: decimalString.optional(),
    cur_price: decimalOrNull,
    mark_source: z.enum(['mid', 'last', 'resolution']).nullish(),
    market_status: optStr,
    end_date: optStr,
    neg_risk: z.boolean().optional(),
  })
  .transform((p) => ({
    asset: p.asset,
    conditionId: p.condition_id,
    outcome: p.outcome ?? '',
    outcomeIndex: p.outcome_index ?? null,
    oppositeAsset: p.opposite_asset ?? null,
    title: p.title ?? '',
    slug: p.slug ?? '',
    /** Shares held (reserved included), decimal string. */
    size: p.size,
    avgPrice: p.avg_price,
    /** Cost of the shares held. */
    initialValue: p.initial_value,
    /** size × mark, or null when unmarked. */
    currentValue: p.current_value,
    cashPnl: p.cash_pnl,
    realizedPnl: p.realized_pnl,
    totalBought: p.total_bought ?? null,
    fees: p.fees ?? '0',
    /** The mark (may be a half-pip mid), or null. */
    curPrice: p.cur_price,
    markSource: p.mark_source ?? null,
    marketStatus: p.market_status ?? null,
    endDate: p.end_date ?? null,
    negRisk: p.neg_risk ?? false,
  }));
export type Position = z.output<typeof positionSchema>;
export const positionsPageSchema = pageSchema(positionSchema);

/** GET /users/{address}/pnl. */
export const pnlSchema = enveloped(
  z
    .object({
      address: str,
      realized_pnl: decimalString,
      unrealized_pnl: decimalString,
      total_pnl: decimalString,
      fees: decimalString,
      positions_value: decimalString,
      positions_cost: decimalString,
      open_positions: z.number().int().nonnegative(),
      unmarked_positions: z.number().int().nonnegative(),
      history: z.array(z.object({ t: intLike, realized_pnl: decimalString })).optional(),
    })
    .transform((p) => ({
      address: p.address.toLowerCase(),
      realizedPnl: p.realized_pnl,
      unrealizedPnl: p.unrealized_pnl,
      totalPnl: p.total_pnl,
      fees: p.fees,
      positionsValue: p.positions_value,
      positionsCost: p.positions_cost,
      openPositions: p.open_positions,
      unmarkedPositions: p.unmarked_positions,
      /** With `history: true`: cumulative realized PnL after each trade (unix seconds). */
      history: p.history?.map((h) => ({ t: h.t, realizedPnl: h.realized_pnl })) ?? null,
    })),
);
export type Pnl = z.output<typeof pnlSchema>;

/** GET /builders/{api_key}. */
export const builderStatsSchema = enveloped(
  z
    .object({
      builder: str,
      orders: z.number().int().nonnegative(),
      users: z.number().int().nonnegative(),
      trades: z.number().int().nonnegative(),
      fills: z.number().int().nonnegative(),
      volume: decimalString,
      markets: z.number().int().nonnegative(),
      last_trade_at: optStr,
    })
    .transform((b) => ({
      builder: b.builder,
      orders: b.orders,
      users: b.users,
      trades: b.trades,
      fills: b.fills,
      volume: b.volume,
      markets: b.markets,
      lastTradeAt: b.last_trade_at ?? null,
    })),
);
export type BuilderStats = z.output<typeof builderStatsSchema>;

/** GET /builders/{api_key}/volume. */
export const builderVolumeSchema = enveloped(
  z
    .object({
      builder: str,
      volume: decimalString,
      trades: z.number().int().nonnegative(),
      by_day: z.array(z.object({ date: str, volume: decimalString, trades: z.number().int().nonnegative() })),
      by_market: z.array(
        z.object({
          condition_id: str,
          question: str.optional(),
          volume: decimalString,
          trades: z.number().int().nonnegative(),
        }),
      ),
    })
    .transform((b) => ({
      builder: b.builder,
      volume: b.volume,
      trades: b.trades,
      byDay: b.by_day,
      byMarket: b.by_market.map((m) => ({
        conditionId: m.condition_id,
        question: m.question ?? '',
        volume: m.volume,
        trades: m.trades,
      })),
    })),
);
export type BuilderVolume = z.output<typeof builderVolumeSchema>;

/** Activity types of GET /activity (the public data API has a few more, kept as their text). */
export type ActivityType = 'TRADE' | 'SPLIT' | 'MERGE' | 'REDEEM' | 'CONVERSION' | 'REWARD';

/**
 * One item of GET /activity (the public data API's field names, camelCase). Amounts may come as
 * decimal strings (the paper exchange) or JSON numbers (the public service): both become exact
 * micro-units.
 */
export const activitySchema = z
  .object({
    proxyWallet: optStr,
    timestamp: intLike,
    conditionId: z.string(),
    type: z.string().min(1),
    size: micro,
    usdcSize: micro,
    transactionHash: optStr,
    price: decimalString.nullish(),
    asset: optStr,
    side: optStr,
    outcomeIndex: z.number().int().nullish(),
    outcome: optStr,
    title: optStr,
    slug: optStr,
    eventSlug: optStr,
  })
  .transform((a) => ({
    type: a.type as ActivityType | (string & {}),
    /** Unix seconds. */
    timestamp: a.timestamp,
    conditionId: a.conditionId,
    /** Token id of a trade; null for operations on a whole market (split, merge, redeem, conversion). */
    asset: a.asset ? a.asset : null,
    side: a.side === 'BUY' || a.side === 'SELL' ? a.side : null,
    /** Shares (trade: filled; split/merge/conversion: the amount; redeem: shares burned), micro. */
    size: a.size,
    /** Collateral (trade: notional; redeem: paid; conversion: received), micro. */
    usdcSize: a.usdcSize,
    /** A trade's average price, decimal string; null otherwise. */
    price: a.asset ? (a.price ?? null) : null,
    transactionHash: a.transactionHash ?? null,
    outcomeIndex: a.outcomeIndex ?? null,
    outcome: a.outcome ?? '',
    title: a.title ?? '',
    slug: a.slug ?? '',
    eventSlug: a.eventSlug ?? '',
    proxyWallet: a.proxyWallet?.toLowerCase() ?? null,
  }));
export type Activity = z.output<typeof activitySchema>;
export const activityPageSchema = pageSchema(activitySchema);
