/**
 * `mmkit markets --rewards`: the reward figures of a market from its metadata (Gamma's
 * `rewardsMinSize`, `rewardsMaxSpread`, `clobRewards`) and its YES book: the pool, the band, the
 * competition resting in it and the estimated daily reward of a two-sided min-size quote inside the
 * band (core `estimateMarketReward`: pool x its score / (its score + the competition's)). Pure.
 */
import type { OrderBook } from '../api/clob.ts';
import type { GammaMarket } from '../api/schemas/gamma.ts';
import { DAY_MS, estimateMarketReward, type RewardConfig } from '../core/rewards.ts';
import { formatAmount, formatPrice, type Micro, type Pips } from '../core/units.ts';

/** Start of a date (`YYYY-MM-DD` or ISO), unix ms; NaN when unreadable. */
const startOf = (d: string): number => Date.parse(d);
/** End of a date: the end of that UTC day for a bare date, the instant for a timestamp. */
const endOf = (d: string): number => (/^\d{4}-\d{2}-\d{2}$/.test(d) ? Date.parse(d) + DAY_MS : Date.parse(d));

/**
 * A market's reward config from its metadata at `nowMs`: the daily rate is the sum of the
 * allocations running now (started, not ended; undated ends run on); null when none runs, or the
 * market sends no max spread.
 */
export function gammaRewardConfig(
  m: Pick<GammaMarket, 'rewardsMinSize' | 'rewardsMaxSpread' | 'clobRewards'>,
  nowMs: number,
): RewardConfig | null {
  if (m.rewardsMaxSpread === null || !(m.rewardsMaxSpread > 0)) return null;
  let rate = 0;
  for (const r of m.clobRewards) {
    if (r.startDate !== null && !(startOf(r.startDate) <= nowMs)) continue;
    if (r.endDate !== null && !(endOf(r.endDate) > nowMs)) continue;
    rate += r.dailyRate;
  }
  if (!(rate > 0)) return null;
  return { maxSpread: m.rewardsMaxSpread as Pips, minSize: (m.rewardsMinSize ?? 0) as Micro, dailyRate: rate as Micro };
}

/**
 * The ENDS column: a bare date as it is; a timestamp to the minute (UTC), with the time left when
 * under two days (a market ending in minutes pays minutes of its daily pool: trial 16 F10), or
 * `ended`. Undefined without an end.
 */
export function endsLabel(endDate: string | null | undefined, nowMs: number): string | undefined {
  if (endDate === null || endDate === undefined) return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(endDate)) return endDate;
  const end = Date.parse(endDate);
  if (!Number.isFinite(end)) return endDate;
  const at = `${new Date(end).toISOString().slice(0, 16).replace('T', ' ')}Z`;
  const left = end - nowMs;
  if (left <= 0) return `${at} (ended)`;
  if (left >= 2 * DAY_MS) return at;
  const m = Math.floor(left / 60_000);
  return `${at} (in ${m >= 60 ? `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}` : `${m}m`})`;
}

/** The reward columns of `mmkit markets --rewards` (decimal strings; `--json` keys). */
export interface RewardFigures {
  /** USDC per day (the allocations running now). */
  rewardsDailyRate: string;
  /** Shares. */
  rewardsMinSize: string;
  /** Price units (3.5 cents = "0.035"). */
  rewardsMaxSpread: string;
  /** The competition's score in the band (Q_min of the book's orders, shares x S), 2 decimals. */
  competitionScore: string;
  /** USDC per day a two-sided min-size quote inside the band is estimated to earn. */
  estDailyReward: string;
  /** Where that quote was placed (YES prices), null without a two-sided book. */
  estBid: string | null;
  estAsk: string | null;
}

/** The figures of one market: its config against its YES book (levels best first; none: no estimate). */
export function rewardFigures(
  cfg: RewardConfig,
  book: Pick<OrderBook, 'bids' | 'asks'> | null | undefined,
  tick: number,
): RewardFigures & { estDailyMicro: number } {
  const e = estimateMarketReward(
    cfg,
    (book?.bids ?? []).map((l) => [l.price, l.size] as const),
    (book?.asks ?? []).map((l) => [l.price, l.size] as const),
    tick,
  );
  return {
    rewardsDailyRate: formatAmount(cfg.dailyRate),
    rewardsMinSize: formatAmount(cfg.minSize),
    rewardsMaxSpread: formatPrice(cfg.maxSpread),
    competitionScore: e.competitionScore.toFixed(2),
    estDailyReward: formatAmount(e.estDaily),
    estBid: e.bid === null ? null : formatPrice(e.bid),
    estAsk: e.ask === null ? null : formatPrice(e.ask),
    estDailyMicro: e.estDaily,
  };
}
