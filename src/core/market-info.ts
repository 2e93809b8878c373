/**
 * What the engine needs to know about a market (its own module so that events can carry one:
 * `market_updated`, without a cycle through the Venue port, which re-exports it).
 */
import type { ConditionId, TokenId } from './ids.ts';
import { maxSpreadToCents, type RewardConfig, sameRewardConfig } from './rewards.ts';
import { formatAmount, type Micro, type TickSize } from './units.ts';

/** What a `market_updated` event says changed. */
export type MarketChange = 'rewards' | 'status' | 'minOrderSize';

/** What the engine needs to know about a market to quote it. */
export interface MarketInfo {
  readonly market: ConditionId;
  readonly question: string;
  readonly tokens: readonly [{ tokenId: TokenId; outcome: string }, { tokenId: TokenId; outcome: string }];
  readonly tick: TickSize;
  readonly minOrderSize: Micro;
  readonly negRisk: boolean;
  readonly feeRateBps: number;
  readonly active: boolean;
  readonly endDate: string;
  /** The market's liquidity reward configuration (src/core/rewards.ts); absent or null: no rewards. */
  readonly rewards?: RewardConfig | null;
}

/**
 * What differs between a market's info as known and as the venue lists it now: its reward config
 * (none and a zero pool alike), its status (`active`), its minimum order size. Other fields (the
 * tick: the market channel's `tick_size_change`; texts and dates) are not changes a quoter acts on.
 */
export function marketChanges(was: MarketInfo, now: MarketInfo): MarketChange[] {
  const out: MarketChange[] = [];
  if (!sameRewards(was.rewards, now.rewards)) out.push('rewards');
  if (was.active !== now.active) out.push('status');
  if (was.minOrderSize !== now.minOrderSize) out.push('minOrderSize');
  return out;
}

/**
 * A reward config as people read it (one formatter for the log and the status, so they agree): the max
 * spread in cents, the min size in shares and the daily pool in USDC, as decimal strings.
 */
export function rewardConfigText(c: {
  readonly maxSpread: number;
  readonly minSize: number;
  readonly dailyRate: number;
}): { readonly maxSpread: string; readonly minSize: string; readonly dailyRate: string } {
  return {
    maxSpread: String(maxSpreadToCents(c.maxSpread)),
    minSize: formatAmount(c.minSize),
    dailyRate: formatAmount(c.dailyRate),
  };
}

/** A reward config as a log field: `pool 65/day, band 3.5c, min 50` (none: `none`). */
export function rewardConfigLabel(c: RewardConfig | null | undefined): string {
  if (c == null) return 'none';
  const t = rewardConfigText(c);
  return `pool ${t.dailyRate}/day, band ${t.maxSpread}c, min ${t.minSize}`;
}

/** The log fields of a market's change (`marketChanges`): before and after, readable. */
export function marketChangeFields(was: MarketInfo, now: MarketInfo): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = {};
  if (!sameRewards(was.rewards, now.rewards)) {
    out['rewardsWas'] = rewardConfigLabel(was.rewards);
    out['rewards'] = rewardConfigLabel(now.rewards);
  }
  if (was.active !== now.active) out['active'] = now.active;
  if (was.minOrderSize !== now.minOrderSize) {
    out['minOrderSizeWas'] = formatAmount(was.minOrderSize);
    out['minOrderSize'] = formatAmount(now.minOrderSize);
  }
  return out;
}

function sameRewards(x: RewardConfig | null | undefined, y: RewardConfig | null | undefined): boolean {
  const a = x ?? null;
  const b = y ?? null;
  return a === null || b === null ? a === b : sameRewardConfig(a, b);
}
