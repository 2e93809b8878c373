/**
 * Wire schemas of the CLOB API's responses (zod), validated at the boundary by the transport.
 *
 * Objects are not strict: unknown extra fields are tolerated (and dropped); known fields are
 * required unless the venue is known to omit them. Decimal strings stay strings here; the client
 * (src/api/clob.ts) converts them once, with src/core/units.ts, into integer pips and micro-units.
 * A few fields are JSON numbers because the venue sends them so (market records, /tick-size,
 * /fee-rate); both forms are accepted where sources disagree.
 */
import { z } from 'zod';
import { marketRewardsSchema } from './rewards.ts';

/** A decimal string ("0.55", "12.5"); numbers are accepted and kept as their decimal text. */
const decimal = z.union([z.string(), z.number().transform((n) => String(n))]);
/** A signed decimal string ("-1.25"). */
const signedDecimal = decimal;
/** An integer that may come as a number or a digit string. */
const intLike = z.union([
  z.number().int(),
  z
    .string()
    .regex(/^-?\d+$/)
    .transform(Number),
]);

/** GET /time: server unix seconds. */
export const timeSchema = intLike;

/**
 * GET /world: which world of the paper exchange this is (an mmkit extension; the public service has
 * no such route). `startedAt` becomes unix ms.
 */
export const worldSchema = z
  .object({ world_id: z.string().min(1).max(200), started_at: z.string(), seed: z.number().int() })
  .transform((w, ctx) => {
    const startedAt = Date.parse(w.started_at);
    if (!Number.isFinite(startedAt)) {
      ctx.addIssue({ code: 'custom', message: 'started_at is not an ISO 8601 time', path: ['started_at'] });
      return z.NEVER;
    }
    return { worldId: w.world_id, startedAt, seed: w.seed };
  });
/** The identity of a paper exchange's world (GET /world). */
export type WorldInfo = z.output<typeof worldSchema>;

/** GET /version: the order protocol the venue speaks (`{"version": 2}` since the CLOB V2 migration). */
export const versionSchema = z.object({ version: z.union([z.literal(1), z.literal(2)]) }).transform((v) => v.version);

/** GET / (health): "OK". */
export const okSchema = z.unknown();

/** A market's outcome token in a CLOB market record. */
export const clobTokenSchema = z.object({
  token_id: z.string(),
  outcome: z.string(),
  price: decimal.optional(),
  winner: z.boolean().optional(),
});

/** A CLOB market record (snake_case, venue-conventions). */
export const clobMarketSchema = z.object({
  condition_id: z.string(),
  question_id: z.string().optional(),
  question: z.string().optional(),
  market_slug: z.string().optional(),
  tokens: z.array(clobTokenSchema),
  minimum_order_size: decimal,
  minimum_tick_size: decimal,
  neg_risk: z.boolean(),
  active: z.boolean(),
  closed: z.boolean(),
  accepting_orders: z.boolean().optional(),
  end_date_iso: z.string().nullish(),
  tags: z.array(z.string()).optional(),
  /** Liquidity rewards (./rewards.ts); absent on venues that predate them. */
  rewards: marketRewardsSchema.nullish(),
});
export type WireClobMarket = z.output<typeof clobMarketSchema>;

/** A simplified market record. */
export const simplifiedMarketSchema = z.object({
  condition_id: z.string(),
  tokens: z.array(clobTokenSchema),
  active: z.boolean(),
  closed: z.boolean(),
  archived: z.boolean().optional(),
  accepting_orders: z.boolean().optional(),
});
export type WireSimplifiedMarket = z.output<typeof simplifiedMarketSchema>;

/** A cursor page `{limit, count, next_cursor, data}` (first cursor "MA==", last page "LTE="). */
export function cursorPageSchema<T extends z.ZodType>(item: T) {
  return z.object({
    limit: z.number().optional(),
    count: z.number().optional(),
    next_cursor: z.string(),
    data: z.array(item),
  });
}

/** A price level of a book. */
export const levelSchema = z.object({ price: decimal, size: decimal });

/** GET /book. */
export const bookSchema = z.object({
  market: z.string(),
  asset_id: z.string(),
  timestamp: z.union([z.string(), z.number().transform(String)]),
  hash: z.string().optional().default(''),
  bids: z.array(levelSchema),
  asks: z.array(levelSchema),
  min_order_size: decimal.optional(),
  tick_size: decimal.optional(),
  neg_risk: z.boolean().optional(),
  last_trade_price: z.string().optional(),
});
export type WireBook = z.output<typeof bookSchema>;

export const midpointSchema = z.object({ mid: decimal });
export const midpointsSchema = z.record(z.string(), decimal);
export const priceSchema = z.object({ price: decimal });
export const pricesSchema = z.record(z.string(), z.object({ BUY: decimal.optional(), SELL: decimal.optional() }));
export const spreadSchema = z.object({ spread: decimal });
export const spreadsSchema = z.record(z.string(), decimal);
export const lastTradePriceSchema = z.object({ price: decimal, side: z.string().optional().default('') });
export const lastTradesPricesSchema = z.array(
  z.object({ token_id: z.string(), price: decimal, side: z.string().optional().default('') }),
);
export const tickSizeSchema = z.object({ minimum_tick_size: decimal });
export const negRiskSchema = z.object({ neg_risk: z.boolean() });
export const feeRateSchema = z.object({ base_fee: intLike });

/**
 * GET /clob-markets/{condition_id} (CLOB V2): the compact market info V2 clients build orders from:
 * `mts` minimum tick, `nr` neg-risk, `mos` minimum order size, `tbf` taker base fee (bps).
 */
export const clobMarketInfoSchema = z
  .object({
    c: z.string(),
    mts: z.number(),
    nr: z.boolean(),
    mos: z.number().nonnegative().optional(),
    tbf: z.number().int().nonnegative().optional(),
  })
  .transform((m, ctx) => {
    const tick = String(m.mts);
    if (tick !== '0.1' && tick !== '0.01' && tick !== '0.001' && tick !== '0.0001') {
      ctx.addIssue({ code: 'custom', message: `mts ${m.mts} is not a tick size`, path: ['mts'] });
      return z.NEVER;
    }
    return {
      conditionId: m.c,
      tick: tick as '0.1' | '0.01' | '0.001' | '0.0001',
      negRisk: m.nr,
      feeRateBps: m.tbf ?? 0,
    };
  });
export type ClobMarketInfo = z.output<typeof clobMarketInfoSchema>;

/** POST /auth/api-key, GET /auth/derive-api-key. */
export const apiCredsSchema = z.object({
  apiKey: z.string().min(1),
  secret: z.string().min(1),
  passphrase: z.string().min(1),
});
/** GET /auth/api-key. */
export const apiKeyInfoSchema = z.object({
  apiKey: z.string(),
  address: z.string().optional(),
  nonce: z.union([z.string(), z.number().transform(String)]).optional(),
  created_at: z.string().optional(),
});
/** GET /auth/api-keys. */
export const apiKeysSchema = z.object({ apiKeys: z.array(z.string()) });

/** The error part of a refused entry. */
const entryErrorSchema = z.union([
  z.object({ code: z.string(), message: z.string().optional().default('') }),
  z.string(),
]);

/** One order response (POST /order, an entry of POST /orders): accepted or refused. */
export const orderResponseSchema = z.object({
  success: z.boolean(),
  errorMsg: z.string().optional().default(''),
  orderID: z.string().optional().default(''),
  status: z.string().optional().default(''),
  makingAmount: decimal.optional(),
  takingAmount: decimal.optional(),
  transactionsHashes: z.array(z.string()).nullish(),
  tradeIDs: z.array(z.string()).nullish(),
  error: entryErrorSchema.optional(),
});
export type WireOrderResponse = z.output<typeof orderResponseSchema>;
export const orderResponsesSchema = z.array(orderResponseSchema);

/** Every cancel endpoint. */
export const cancelResponseSchema = z.object({
  canceled: z.array(z.string()),
  not_canceled: z.record(z.string(), z.string()).optional().default({}),
});

/** An order record (GET /data/order/{id}, /data/orders). */
export const openOrderSchema = z.object({
  id: z.string(),
  status: z.string(),
  owner: z.string().optional().default(''),
  maker_address: z.string().optional().default(''),
  market: z.string(),
  asset_id: z.string(),
  side: z.enum(['BUY', 'SELL']),
  original_size: decimal,
  size_matched: decimal,
  price: decimal,
  outcome: z.string().optional().default(''),
  associate_trades: z.array(z.string()).nullish(),
  created_at: intLike.optional(),
  expiration: intLike.optional(),
  order_type: z.string().optional().default(''),
});
export type WireOpenOrder = z.output<typeof openOrderSchema>;

/** A maker order inside a trade. */
export const makerOrderSchema = z.object({
  order_id: z.string(),
  owner: z.string().optional().default(''),
  maker_address: z.string().optional().default(''),
  matched_amount: decimal,
  price: decimal,
  fee_rate_bps: intLike.optional(),
  asset_id: z.string(),
  outcome: z.string().optional().default(''),
  side: z.enum(['BUY', 'SELL']),
});

/** A trade (GET /data/trades). */
export const tradeSchema = z.object({
  id: z.string(),
  taker_order_id: z.string(),
  market: z.string(),
  asset_id: z.string(),
  side: z.enum(['BUY', 'SELL']),
  size: decimal,
  fee_rate_bps: intLike.optional(),
  price: decimal,
  status: z.string(),
  match_time: intLike,
  last_update: intLike.optional(),
  outcome: z.string().optional().default(''),
  bucket_index: z.number().optional(),
  owner: z.string().optional().default(''),
  maker_address: z.string().optional().default(''),
  transaction_hash: z.string().nullish(),
  trader_side: z.enum(['TAKER', 'MAKER']),
  maker_orders: z.array(makerOrderSchema),
});
export type WireTrade = z.output<typeof tradeSchema>;

/** GET /balances (the spec's account balances, decimal strings). */
export const balancesSchema = z.object({
  address: z.string(),
  collateral: z.object({ balance: decimal, available: decimal, reserved: decimal }),
  tokens: z.array(
    z.object({
      asset_id: z.string(),
      market: z.string().optional().default(''),
      outcome: z.string().optional().default(''),
      balance: decimal,
      available: decimal,
      reserved: decimal,
    }),
  ),
});

/** GET /positions. */
export const positionsSchema = z.array(
  z.object({
    asset_id: z.string(),
    market: z.string().optional().default(''),
    outcome: z.string().optional().default(''),
    size: decimal,
    avg_price: decimal,
    cost: signedDecimal,
    realized_pnl: signedDecimal,
    cur_price: decimal.nullable(),
    current_value: signedDecimal.nullable(),
    cash_pnl: signedDecimal.nullable(),
  }),
);

/** GET /balance-allowance: the venue's raw 6-decimal integers. */
export const balanceAllowanceSchema = z.object({
  balance: z.union([z.string(), z.number().transform(String)]),
  allowance: z.string().optional(),
  allowances: z.record(z.string(), z.string()).optional(),
});

/** POST /v1/heartbeats. */
export const heartbeatSchema = z.object({ heartbeat_id: z.string(), error: z.string().nullish() });
