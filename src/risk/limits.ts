/**
 * Risk limits: what the pre-trade gate (gate.ts) and the kill switch (kill-switch.ts) enforce.
 *
 * Configured in human units (shares, collateral, price as decimals; the config section `risk`),
 * resolved once at start into integer units (micro-shares, micro-collateral, pips). Per-market
 * overrides (`risk.markets.<conditionId>`) replace individual per-market keys for that market.
 *
 * Notional, here, is the collateral value of resting orders at their limit prices
 * (size x price on the order's own token), counted for both sides; positions are bounded separately
 * by `maxPositionShares`.
 */
import { ConfigError } from '../core/errors.ts';
import { AMOUNT_SCALE, PRICE_SCALE, type Micro, type Pips } from '../core/units.ts';
import type { ParamSchema } from '../strategy/api.ts';
import { resolveValues } from '../strategy/params.ts';

/** The config key prefix of the risk section. */
export const RISK_PREFIX = 'risk';

/** Per-market limits, in config units (the schema of `risk.*` and `risk.markets.<id>.*`). */
export const MARKET_LIMITS_SCHEMA = {
  maxPositionShares: {
    type: 'number',
    default: 250,
    min: 0,
    max: 500_000,
    doc: 'Largest position per token, shares: BUY quotes are cut so that position + resting buys stays within it.',
  },
  maxOrderSizeShares: {
    type: 'number',
    default: 100,
    min: 0.01,
    max: 500_000,
    doc: 'Largest single quote, shares (larger ones are cut to it).',
  },
  maxNotionalPerMarket: {
    type: 'number',
    default: 250,
    min: 0,
    max: 1e9,
    doc: 'Largest value of resting quotes in one market, collateral (size x price, both sides).',
  },
  maxOpenOrdersPerMarket: {
    type: 'integer',
    default: 20,
    min: 0,
    max: 10_000,
    doc: 'Most resting quotes in one market.',
  },
  maxMidDistance: {
    type: 'number',
    default: 0.1,
    min: 0.0001,
    max: 1,
    doc: "Price band: a quote further than this from its token's mid (price units) is refused.",
  },
  minPrice: { type: 'number', default: 0.01, min: 0.0001, max: 0.9999, doc: 'Lowest price quoted, price units.' },
  maxPrice: { type: 'number', default: 0.99, min: 0.0001, max: 0.9999, doc: 'Highest price quoted, price units.' },
} as const satisfies ParamSchema;

/** Global limits and kill-switch thresholds, in config units (the schema of `risk.*`). */
export const GLOBAL_LIMITS_SCHEMA = {
  maxNotionalGlobal: {
    type: 'number',
    default: 2_000,
    min: 0,
    max: 1e9,
    doc: 'Largest value of resting quotes over all markets, collateral.',
  },
  maxOpenOrdersGlobal: {
    type: 'integer',
    default: 200,
    min: 0,
    max: 100_000,
    doc: 'Most resting quotes over all markets.',
  },
  maxLoss: {
    type: 'number',
    default: 100,
    min: 0,
    max: 1e9,
    doc: "Kill switch: trips when realized + unrealized PnL net of fees falls below minus this, collateral (0 disables). The PnL is the ledger epoch's (every fill the store holds for this venue and account, across restarts: earlier profit widens the room; `mmkit positions --source store` shows it), checked at start before anything is quoted, every second and after every fill. A position on a book without a mid is marked at the price it could be closed at (src/risk/marks.ts), one on a market not followed at the venue's mark (GET /positions cur_price, read at each position audit).",
  },
  maxDailyLoss: {
    type: 'number',
    default: 0,
    min: 0,
    max: 1e9,
    doc: "Kill switch: trips when the PnL of the UTC day (realized + unrealized net of fees, now less its value at the day's open) falls below minus this, collateral (0 disables). The day opens at the first reading of the UTC day, after the start's reconciliation and position audit, with every held position of the followed markets marked (until then it is not in force: said at warn after 10 s), kept in the store per ledger epoch: a restart the same day keeps the day's open (a daemon stopped by it trips again at start until the next UTC day). Checked with maxLoss. In a fleet it is the account's, as maxLoss: the members' PnLs of the day summed (every member must have the same value).",
  },
  maxRejections: {
    type: 'integer',
    default: 10,
    min: 0,
    max: 100_000,
    doc: 'Kill switch: trips on this many order rejections within rejectionWindowMs (0 disables).',
  },
  rejectionWindowMs: {
    type: 'integer',
    default: 60_000,
    min: 1,
    max: 86_400_000,
    doc: 'Kill switch: the window of maxRejections, ms.',
  },
  maxHeartbeatFailures: {
    type: 'integer',
    default: 3,
    min: 0,
    max: 1_000,
    doc: 'Kill switch: trips after this many consecutive failed heartbeats (0 disables).',
  },
} as const satisfies ParamSchema;

/** Limits of one market, integer units. */
export interface MarketLimits {
  /** Per token, micro-shares. */
  readonly maxPosition: Micro;
  /** Per quote, micro-shares. */
  readonly maxOrderSize: Micro;
  /** Resting quotes' value in the market, micro-collateral. */
  readonly maxNotional: Micro;
  readonly maxOpenOrders: number;
  /** Price band half-width around the token's mid, pips. */
  readonly maxMidDistance: Pips;
  readonly minPrice: Pips;
  readonly maxPrice: Pips;
}

/** Kill-switch thresholds, integer units; 0 disables a trigger. */
export interface KillSwitchLimits {
  /** Micro-collateral. */
  readonly maxLoss: Micro;
  /** Micro-collateral: the UTC day's loss (0 disables). */
  readonly maxDailyLoss: Micro;
  readonly maxRejections: number;
  readonly rejectionWindowMs: number;
  readonly maxHeartbeatFailures: number;
}

/** All limits, resolved (integer units). */
export interface RiskLimits {
  /** Limits of a market without overrides. */
  readonly defaults: MarketLimits;
  /** Per-market limits where overridden (full objects: overrides on top of the defaults). */
  readonly markets: Readonly<Record<string, MarketLimits>>;
  readonly global: {
    readonly maxNotional: Micro;
    readonly maxOpenOrders: number;
    /**
     * A fleet member's global caps are its grant of the account's (src/fleet/risk-reserve.ts): these
     * are the account's, named in a refusal ("fleet grant: 0 of 24 open orders"). Absent: a lone daemon.
     */
    readonly account?: { readonly maxNotional: Micro; readonly maxOpenOrders: number };
  };
  readonly killSwitch: KillSwitchLimits;
}

type MarketLimitsConfig = { -readonly [K in keyof typeof MARKET_LIMITS_SCHEMA]?: number | string };
type GlobalLimitsConfig = { -readonly [K in keyof typeof GLOBAL_LIMITS_SCHEMA]?: number | string };

/** The `risk` config section as users write it (decimals; numbers may be strings). */
export type RiskLimitsConfig = MarketLimitsConfig &
  GlobalLimitsConfig & { markets?: Record<string, MarketLimitsConfig> };

const shares = (x: number): Micro => Math.round(x * AMOUNT_SCALE) as Micro;
const pipsOf = (x: number): Pips => Math.round(x * PRICE_SCALE) as Pips;

function marketLimits(raw: Record<string, unknown>, prefix: string): MarketLimits {
  const v = resolveValues(MARKET_LIMITS_SCHEMA, raw, prefix);
  const minPrice = pipsOf(v.minPrice);
  const maxPrice = pipsOf(v.maxPrice);
  if (minPrice > maxPrice)
    throw new ConfigError(`${prefix}.minPrice`, `must not exceed maxPrice (${v.maxPrice}), got ${v.minPrice}`);
  return Object.freeze({
    maxPosition: shares(v.maxPositionShares),
    maxOrderSize: shares(v.maxOrderSizeShares),
    maxNotional: shares(v.maxNotionalPerMarket),
    maxOpenOrders: v.maxOpenOrdersPerMarket,
    maxMidDistance: pipsOf(v.maxMidDistance),
    minPrice,
    maxPrice,
  });
}

/**
 * Resolves the `risk` config section: defaults applied, every value checked (numbers may be
 * strings), converted to integer units. Unknown keys are refused.
 * @throws ConfigError naming the key (`risk.<key>` or `risk.markets.<id>.<key>`)
 * @example resolveRiskLimits({ maxPositionShares: 100, markets: { '0xabc...': { maxOrderSizeShares: 20 } } })
 */
export function resolveRiskLimits(overrides: RiskLimitsConfig | Readonly<Record<string, unknown>> = {}): RiskLimits {
  if (typeof overrides !== 'object' || overrides === null || Array.isArray(overrides))
    throw new ConfigError(RISK_PREFIX, 'expected an object');
  const o = overrides as Record<string, unknown>;
  const marketRaw: Record<string, unknown> = {};
  const globalRaw: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (k === 'markets') continue;
    if (Object.hasOwn(MARKET_LIMITS_SCHEMA, k)) marketRaw[k] = v;
    else if (Object.hasOwn(GLOBAL_LIMITS_SCHEMA, k)) globalRaw[k] = v;
    else
      throw new ConfigError(
        `${RISK_PREFIX}.${k}`,
        `unknown key (known: ${[...Object.keys(MARKET_LIMITS_SCHEMA), ...Object.keys(GLOBAL_LIMITS_SCHEMA), 'markets'].join(', ')})`,
      );
  }
  const defaults = marketLimits(marketRaw, RISK_PREFIX);
  const g = resolveValues(GLOBAL_LIMITS_SCHEMA, globalRaw, RISK_PREFIX);
  const markets: Record<string, MarketLimits> = {};
  const m = o['markets'];
  if (m !== undefined) {
    if (typeof m !== 'object' || m === null || Array.isArray(m))
      throw new ConfigError(`${RISK_PREFIX}.markets`, 'expected an object of per-market limits keyed by condition id');
    for (const [id, mo] of Object.entries(m as Record<string, unknown>)) {
      const prefix = `${RISK_PREFIX}.markets.${id}`;
      if (typeof mo !== 'object' || mo === null || Array.isArray(mo))
        throw new ConfigError(prefix, 'expected an object of limits');
      markets[id] = marketLimits({ ...marketRaw, ...(mo as Record<string, unknown>) }, prefix);
    }
  }
  return Object.freeze({
    defaults,
    markets: Object.freeze(markets),
    global: Object.freeze({ maxNotional: shares(g.maxNotionalGlobal), maxOpenOrders: g.maxOpenOrdersGlobal }),
    killSwitch: Object.freeze({
      maxLoss: shares(g.maxLoss),
      maxDailyLoss: shares(g.maxDailyLoss),
      maxRejections: g.maxRejections,
      rejectionWindowMs: g.rejectionWindowMs,
      maxHeartbeatFailures: g.maxHeartbeatFailures,
    }),
  });
}

/** The defaults (`resolveRiskLimits({})`). */
export const DEFAULT_RISK_LIMITS: RiskLimits = resolveRiskLimits({});

/** The limits that apply to `market` (its overrides, else the defaults). */
export function limitsFor(limits: RiskLimits, market: string): MarketLimits {
  return limits.markets[market] ?? limits.defaults;
}
