/**
 * The liquidity rewards of a backtest (BacktestResult.rewards), apart from its trading PnL.
 *
 *  - Feed mode: the kernel's reward tracker (src/engine/reward-tracker.ts) scores the bot's own
 *    quotes every minute of virtual time against the recorded book's competition (the book minus
 *    our orders, since the simulated venue shows them) by the public methodology
 *    (src/core/rewards.ts), and accrues each sample's share of the market's pool exactly: the
 *    estimate is the figure.
 *  - World mode: the paper exchange samples every maker's resting orders itself and pays at the end
 *    of each epoch; the figure is our account's share of the pools (each closed epoch's earnings
 *    plus the running epoch's standing at the end of the run, before the minimum payout), with what
 *    the exchange credited at epoch ends (`paid`: nothing below the minimum payout) and the bot's
 *    own estimate (`estimated`) beside it.
 *
 * Pure: a result from the tracker's snapshots and, in world mode, the exchange's figures.
 */
import type { RewardEstimate } from '../engine/reward-tracker.ts';
import type { MarketInfo } from '../core/venue.ts';
import type { RewardMarketRow, RewardsResult } from './types.ts';

/** The exchange's figures of one market for our account (world mode), micro. */
export interface ExchangeRewards {
  /** Earned at closed epochs plus the running epoch's standing (before the minimum payout). */
  readonly accrued: number;
  /** Credited at the ends of closed epochs (at least the minimum payout, else nothing). */
  readonly paid: number;
}

/**
 * The result's `rewards`: one row per traded market with a reward config (in the order of
 * `markets`), or undefined when there is none (the result then has no `rewards` key).
 */
export function rewardsResult(
  markets: readonly MarketInfo[],
  estimates: readonly RewardEstimate[],
  exchange?: ReadonlyMap<string, ExchangeRewards>,
): RewardsResult | undefined {
  const byId = new Map(estimates.map((e) => [e.market as string, e]));
  const rows: RewardMarketRow[] = [];
  for (const m of markets) {
    const e = byId.get(m.market);
    const x = exchange?.get(m.market);
    if (e === undefined && x === undefined) continue;
    const est: number = e?.accrued ?? 0;
    const counts = { samples: e?.samples ?? 0, scoredSamples: e?.scoredSamples ?? 0 };
    rows.push(
      exchange === undefined
        ? { market: m.market, accrued: est, ...counts }
        : { market: m.market, accrued: x?.accrued ?? 0, ...counts, estimated: est, paid: x?.paid ?? 0 },
    );
  }
  if (rows.length === 0) return undefined;
  return {
    source: exchange === undefined ? 'estimate' : 'exchange',
    total: rows.reduce((a, r) => a + r.accrued, 0),
    byMarket: rows,
  };
}
