/**
 * The wire shapes of a market's reward config, as the public service sends them (numbers, not
 * strings: USDC per day, shares, cents):
 *  - CLOB market record: `rewards: {rates: [{asset_address, rewards_daily_rate}] | null, min_size,
 *    max_spread}` (`{rates: null, min_size: 0, max_spread: 0}` without rewards);
 *  - V2 compact market (`GET /clob-markets/{id}`): `r: {mi, ma}` (null without rewards);
 *  - Gamma market: `rewardsMinSize`, `rewardsMaxSpread`, `clobRewards: [{id, conditionId,
 *    assetAddress, rewardsAmount, rewardsDailyRate, startDate, endDate}]` (`[]` without);
 *  - the rewards API's `rewards_config: [{id, asset_address, start_date, end_date, rate_per_day,
 *    total_rewards, total_days}]`.
 * The reward asset is the exchange's collateral: pUSD when it speaks CLOB V2, USDC.e with V1.
 */
import { CONTRACTS_V2, PUSD } from '../../api/signing/order-v2.ts';
import { maxSpreadToCents, type RewardConfig } from '../../core/rewards.ts';
import { formatAmount } from '../../core/units.ts';

/** USDC.e on Polygon, the V1 collateral. */
export const USDC_E = '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174';

/** The reward asset (the collateral) of an exchange speaking `protocol` on `chainId`. */
export function rewardAsset(protocol: 1 | 2, chainId: number): string {
  if (protocol === 1) return USDC_E;
  return (CONTRACTS_V2 as Record<number, { collateral: string } | undefined>)[chainId]?.collateral ?? PUSD;
}

/** Micro-units as a JSON number (exact at 6 decimals). */
export function microNumber(micro: number): number {
  return Number(formatAmount(micro));
}

/** The CLOB market record's `rewards` object. */
export function clobRewards(cfg: RewardConfig | null, asset: string): Record<string, unknown> {
  if (cfg === null) return { rates: null, min_size: 0, max_spread: 0 };
  return {
    rates: [{ asset_address: asset, rewards_daily_rate: microNumber(cfg.dailyRate) }],
    min_size: microNumber(cfg.minSize),
    max_spread: maxSpreadToCents(cfg.maxSpread),
  };
}

/** The V2 compact market's `r` (null without rewards). */
export function compactRewards(cfg: RewardConfig | null): Record<string, unknown> | null {
  return cfg === null ? null : { mi: microNumber(cfg.minSize), ma: maxSpreadToCents(cfg.maxSpread) };
}

/** A reward allocation's dates: the market's start and end (YYYY-MM-DD), and its length in days. */
export interface RewardPeriod {
  startDate: string;
  endDate: string;
  /** Days from the start date to the end date, both counted (at least 1). */
  days: number;
}

/** The reward period of a market from its start and end (ISO 8601 times). */
export function rewardPeriod(startIso: string, endIso: string): RewardPeriod {
  const start = startIso.slice(0, 10);
  const end = endIso.slice(0, 10);
  const days = Math.max(1, Math.round((Date.parse(end) - Date.parse(start)) / 86_400_000) + 1);
  return { startDate: start, endDate: end, days };
}

/** The allocation's total: the daily rate over its days, micro. */
export function rewardsAmount(cfg: RewardConfig, period: RewardPeriod): number {
  return cfg.dailyRate * period.days;
}

/** The Gamma market's reward fields. */
export function gammaRewards(
  cfg: RewardConfig | null,
  conditionId: string,
  asset: string,
  period: RewardPeriod,
): Record<string, unknown> {
  if (cfg === null) return { rewardsMinSize: 0, rewardsMaxSpread: 0, clobRewards: [] };
  return {
    rewardsMinSize: microNumber(cfg.minSize),
    rewardsMaxSpread: maxSpreadToCents(cfg.maxSpread),
    clobRewards: [
      {
        // one allocation per market: its id is the condition id's first 8 hex digits, as a decimal string
        id: String(Number.parseInt(conditionId.slice(2, 10), 16) || 0),
        conditionId,
        assetAddress: asset,
        rewardsAmount: microNumber(rewardsAmount(cfg, period)),
        rewardsDailyRate: microNumber(cfg.dailyRate),
        startDate: period.startDate,
        endDate: period.endDate,
      },
    ],
  };
}

/** The rewards API's `rewards_config` entry (`id` 0 on /rewards/markets/current, 1 on /rewards/markets/{id}). */
export function rewardsConfigEntry(
  cfg: RewardConfig,
  asset: string,
  period: RewardPeriod,
  id: number,
): Record<string, unknown> {
  return {
    id,
    asset_address: asset,
    start_date: period.startDate,
    end_date: period.endDate,
    rate_per_day: microNumber(cfg.dailyRate),
    total_rewards: microNumber(rewardsAmount(cfg, period)),
    total_days: period.days,
  };
}
