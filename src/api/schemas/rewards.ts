/**
 * Schemas of the liquidity-reward wire shapes (the public service's, as its TS client reads them;
 * /work/notes/issue19-research.md §2): the `rewards` object of a CLOB market record, order scoring
 * (`GET /order-scoring`, `POST /orders-scoring`), the reward configurations (`/rewards/markets/*`)
 * and the user's earnings (`/rewards/user*`).
 *
 * The wire sends JSON numbers (USDC, shares, cents) where mmkit keeps integers: amounts become
 * micro-units once, here, from the number's shortest decimal text (exact for any amount with at
 * most 6 decimals), rounded half-up past the 6th (a float that lands just below a micro is the
 * micro). Max spreads stay decimal strings of cents ("4.5"): the consumer decides (pips for
 * scoring, core/rewards.ts `maxSpreadFromCents`). Unknown fields are tolerated, the fields a bot
 * needs are required.
 */
import { z } from 'zod';
import { parseAmount, type Micro } from '../../core/units.ts';
import { decimalString } from './common.ts';

/** A non-negative amount (JSON number or decimal string) as micro-units, half-up past the 6th decimal. */
export const rewardMicro = z.union([z.string(), z.number().finite()]).transform((v, ctx): Micro => {
  try {
    return parseAmount(typeof v === 'number' ? numberText(v) : v, 'half-up');
  } catch {
    ctx.addIssue({ code: 'custom', message: `not a non-negative amount: ${String(v).slice(0, 20)}` });
    return z.NEVER;
  }
});

function numberText(n: number): string {
  const s = String(n);
  return /e/i.test(s) ? n.toFixed(12).replace(/\.?0+$/, '') : s;
}

const DATE = /^(\d{4}-\d{2}-\d{2})(?:$|[T ])/;

/** A UTC date as `YYYY-MM-DD`, from "2024-03-26" or "2024-03-26T00:00:00Z" (both are sent). */
export const utcDate = z.string().transform((v, ctx): string => {
  const m = DATE.exec(v);
  if (m === null) {
    ctx.addIssue({ code: 'custom', message: `not a date: ${v.slice(0, 30)}` });
    return z.NEVER;
  }
  return m[1] as string;
});

// ---- the CLOB market record's `rewards` ----------------------------------------------------------

/** `rewards` of a CLOB market record: `{rates: [...] | null, min_size, max_spread}`. */
export const marketRewardsSchema = z
  .object({
    rates: z.array(z.object({ asset_address: z.string(), rewards_daily_rate: rewardMicro })).nullish(),
    min_size: rewardMicro.optional(),
    max_spread: decimalString.optional(),
  })
  .transform((r) => ({
    /** Pools per asset, micro per day (empty: no rewards, `rates: null` on the wire). */
    rates: (r.rates ?? []).map((x) => ({ assetAddress: x.asset_address, dailyRate: x.rewards_daily_rate })),
    /** Min size, micro-shares. */
    minSize: r.min_size ?? (0 as Micro),
    /** Max spread, cents, decimal string ("0" without). */
    maxSpread: r.max_spread ?? '0',
  }));
export type MarketRewards = z.output<typeof marketRewardsSchema>;

// ---- order scoring --------------------------------------------------------------------------------

/** GET /order-scoring. */
export const orderScoringSchema = z.object({ scoring: z.boolean() });
/** POST /orders-scoring: order id → scoring. */
export const ordersScoringSchema = z.record(z.string(), z.boolean());

// ---- reward configurations ------------------------------------------------------------------------

/** One entry of `rewards_config`. */
export const rewardsConfigSchema = z
  .object({
    id: z.union([z.number(), z.string()]).optional(),
    asset_address: z.string(),
    start_date: z.string().optional(),
    end_date: z.string().nullish(),
    rate_per_day: rewardMicro,
    total_rewards: rewardMicro.optional(),
  })
  .transform((c) => ({
    id: c.id === undefined ? '' : String(c.id),
    assetAddress: c.asset_address,
    startDate: c.start_date ?? '',
    endDate: c.end_date ?? null,
    /** Micro per day. */
    ratePerDay: c.rate_per_day,
    /** Micro. */
    totalRewards: c.total_rewards ?? (0 as Micro),
  }));
export type RewardsConfigEntry = z.output<typeof rewardsConfigSchema>;

const rewardTokenSchema = z
  .object({ token_id: z.string(), outcome: z.string().optional(), price: z.union([z.number(), z.string()]).optional() })
  .transform((t) => ({
    tokenId: t.token_id,
    outcome: t.outcome ?? '',
    price: t.price === undefined ? null : String(t.price),
  }));

/** The sum of the configs' daily rates, micro. */
function dailyOf(cfgs: readonly RewardsConfigEntry[]): Micro {
  let s = 0;
  for (const c of cfgs) s += c.ratePerDay;
  return s as Micro;
}

/** A row of GET /rewards/markets/current (live rows carry no question, tokens or slugs). */
export const currentRewardSchema = z
  .object({
    condition_id: z.string(),
    rewards_max_spread: decimalString.optional(),
    rewards_min_size: rewardMicro.optional(),
    rewards_config: z.array(rewardsConfigSchema).nullish(),
    native_daily_rate: rewardMicro.optional(),
    sponsored_daily_rate: rewardMicro.optional(),
    total_daily_rate: rewardMicro.optional(),
  })
  .transform((r) => {
    const configs = r.rewards_config ?? [];
    return {
      market: r.condition_id,
      /** Cents, decimal string. */
      maxSpread: r.rewards_max_spread ?? '0',
      /** Micro-shares. */
      minSize: r.rewards_min_size ?? (0 as Micro),
      configs,
      /** Micro per day: `total_daily_rate` when sent, else the configs' sum. */
      dailyRate: r.total_daily_rate ?? dailyOf(configs),
    };
  });
export type CurrentReward = z.output<typeof currentRewardSchema>;

/** A row of GET /rewards/markets/{condition_id}: present and future configs of one market. */
export const marketRewardSchema = z
  .object({
    condition_id: z.string(),
    question: z.string().optional(),
    market_slug: z.string().optional(),
    event_slug: z.string().optional(),
    rewards_max_spread: decimalString.optional(),
    rewards_min_size: rewardMicro.optional(),
    market_competitiveness: z.number().optional(),
    tokens: z.array(rewardTokenSchema).nullish(),
    rewards_config: z.array(rewardsConfigSchema).nullish(),
  })
  .transform((r) => {
    const configs = r.rewards_config ?? [];
    return {
      market: r.condition_id,
      question: r.question ?? '',
      slug: r.market_slug ?? '',
      eventSlug: r.event_slug ?? '',
      maxSpread: r.rewards_max_spread ?? '0',
      minSize: r.rewards_min_size ?? (0 as Micro),
      competitiveness: r.market_competitiveness ?? null,
      tokens: r.tokens ?? [],
      configs,
      dailyRate: dailyOf(configs),
    };
  });
export type MarketReward = z.output<typeof marketRewardSchema>;

// ---- the user's earnings --------------------------------------------------------------------------

/** A row of GET /rewards/user: one market's earnings of one UTC date. */
export const userEarningSchema = z
  .object({
    date: utcDate,
    condition_id: z.string(),
    asset_address: z.string(),
    maker_address: z.string(),
    earnings: rewardMicro,
    asset_rate: z.union([z.number(), z.string()]).optional(),
  })
  .transform((r) => ({
    date: r.date,
    market: r.condition_id,
    assetAddress: r.asset_address,
    maker: r.maker_address.toLowerCase(),
    /** Micro of the asset. */
    earnings: r.earnings,
    /** USD per asset unit, as sent ("1"). */
    assetRate: r.asset_rate === undefined ? '1' : String(r.asset_rate),
  }));
export type UserEarning = z.output<typeof userEarningSchema>;

/** A row of GET /rewards/user/total: one asset's earnings of one UTC date. */
export const userTotalSchema = z
  .object({
    date: utcDate,
    asset_address: z.string(),
    maker_address: z.string(),
    earnings: rewardMicro,
    asset_rate: z.union([z.number(), z.string()]).optional(),
  })
  .transform((r) => ({
    date: r.date,
    assetAddress: r.asset_address,
    maker: r.maker_address.toLowerCase(),
    earnings: r.earnings,
    assetRate: r.asset_rate === undefined ? '1' : String(r.asset_rate),
  }));
export type UserTotal = z.output<typeof userTotalSchema>;

/** GET /rewards/user/percentages: condition id → percent (0–100) of the running epoch so far. */
export const userPercentagesSchema = z.record(z.string(), z.number().finite().nonnegative());

/** A row of GET /rewards/user/markets: a rewarded market with the user's earnings and live share. */
export const userMarketSchema = z
  .object({
    condition_id: z.string(),
    question: z.string().optional(),
    market_slug: z.string().optional(),
    rewards_max_spread: decimalString.optional(),
    rewards_min_size: rewardMicro.optional(),
    market_competitiveness: z.number().optional(),
    tokens: z.array(rewardTokenSchema).nullish(),
    rewards_config: z.array(rewardsConfigSchema).nullish(),
    maker_address: z.string().optional(),
    earning_percentage: z.number().finite().optional(),
    earnings: z
      .array(z.object({ asset_address: z.string(), earnings: rewardMicro, asset_rate: z.unknown().optional() }))
      .nullish(),
  })
  .transform((r) => {
    const configs = r.rewards_config ?? [];
    let earned = 0;
    for (const e of r.earnings ?? []) earned += e.earnings;
    return {
      market: r.condition_id,
      question: r.question ?? '',
      slug: r.market_slug ?? '',
      maxSpread: r.rewards_max_spread ?? '0',
      minSize: r.rewards_min_size ?? (0 as Micro),
      competitiveness: r.market_competitiveness ?? null,
      tokens: r.tokens ?? [],
      configs,
      dailyRate: dailyOf(configs),
      maker: (r.maker_address ?? '').toLowerCase(),
      /** Percent (0–100) of the running epoch. */
      percentage: r.earning_percentage ?? 0,
      /** The date's earnings over every asset, micro. */
      earnings: earned as Micro,
    };
  });
export type UserMarket = z.output<typeof userMarketSchema>;
