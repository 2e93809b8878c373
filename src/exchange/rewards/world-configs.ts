/**
 * The reward configurations of the synthetic world's markets: a share of the markets carries one,
 * more often and with bigger min sizes and pools on the liquid ones, as on the public service
 * (max spread 1.5-6.5 cents, mostly 3-4.5; min size 20-200 shares; daily rate 5-500 USDC, most of
 * them small).
 *
 * Deterministic from (seed, condition id), from a random stream of its own (`rewards:<cid>`), so no
 * other part of the world draws differently. How liquid a market is comes from its liquidity
 * provider's size and width, read (not drawn) from the provider's stream `lp:<cid>` as the agents
 * derive them (world/agents.ts `lpBook`): bigger and tighter ladders are the liquid markets.
 */
import type { RewardConfig } from '../../core/rewards.ts';
import type { Micro, Pips } from '../../core/units.ts';
import { AMOUNT_SCALE } from '../../core/units.ts';
import type { MarketMeta } from '../markets.ts';
import { rngFor } from '../world/seeding.ts';

/** Max spreads (cents) and their weights: mostly 3-4.5 cents. */
const SPREADS: ReadonlyArray<readonly [number, number]> = [
  [1.5, 1],
  [2.5, 1],
  [3, 3],
  [3.5, 4],
  [4, 3],
  [4.5, 5],
  [5.5, 1],
  [6.5, 1],
];
/** Min sizes (shares), smallest first. */
const MIN_SIZES = [20, 50, 100, 200] as const;

/** How liquid the world makes a market, 0 (thin) to 1 (deep), from its provider's ladder. */
export function worldLiquidity(seed: number, meta: Pick<MarketMeta, 'conditionId' | 'cryptoSymbol'>): number {
  // the same two draws, in the same order, as Agents.lpBook (a fresh generator: nothing moves)
  const r = rngFor(seed, `lp:${meta.conditionId}`);
  const half = 60 + 140 * r.next(); // pips, before the profile's scale
  const base = (20 + 130 * r.next()) * (meta.cryptoSymbol !== undefined ? 1.5 : 1); // shares
  const depth = Math.min(1, (base - 20) / 175);
  const tight = 1 - (half - 60) / 140;
  return 0.7 * depth + 0.3 * tight;
}

function pick(weights: ReadonlyArray<readonly [number, number]>, u: number): number {
  const total = weights.reduce((s, [, w]) => s + w, 0);
  let x = u * total;
  for (const [v, w] of weights) {
    if (x < w) return v;
    x -= w;
  }
  return weights[weights.length - 1]![0];
}

/** A daily rate in whole USDC, rounded to a number a venue would choose. */
function roundRate(usdc: number): number {
  if (usdc < 20) return Math.max(5, Math.round(usdc));
  if (usdc < 100) return Math.round(usdc / 5) * 5;
  return Math.min(500, Math.round(usdc / 25) * 25);
}

/**
 * The reward config the world gives a market, or null (about 30 % of the thinnest markets and
 * 80 % of the deepest carry one).
 */
export function worldRewardConfig(
  seed: number,
  meta: Pick<MarketMeta, 'conditionId' | 'cryptoSymbol'>,
): RewardConfig | null {
  const liq = worldLiquidity(seed, meta);
  const r = rngFor(seed, `rewards:${meta.conditionId}`);
  if (r.next() >= 0.3 + 0.5 * liq) return null;
  const cents = pick(SPREADS, r.next());
  const sizeIdx = Math.min(MIN_SIZES.length - 1, Math.floor(liq * 2.5 + r.next() * 1.5));
  // 5 x 100^(u^2 x k): most pools small, the deep markets' up to 500 USDC a day
  const u = r.next();
  const usdc = roundRate(5 * 100 ** (u * u * (0.25 + 0.75 * liq)));
  return {
    maxSpread: Math.round(cents * 100) as Pips,
    minSize: (MIN_SIZES[sizeIdx]! * AMOUNT_SCALE) as Micro,
    dailyRate: (usdc * AMOUNT_SCALE) as Micro,
  };
}

/** What `giveWorldRewards` needs of the exchange. */
export interface RewardConfigSink {
  exec(cmd: { k: 'rewardConfig'; conditionId: string; config: RewardConfig }): unknown;
}

/** Give a new world market its reward config, when the world gives it one (a journaled command). */
export function giveWorldRewards(ex: RewardConfigSink, seed: number, meta: MarketMeta): void {
  const config = worldRewardConfig(seed, meta);
  if (config !== null) ex.exec({ k: 'rewardConfig', conditionId: meta.conditionId, config });
}
