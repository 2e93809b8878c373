/**
 * The paper exchange's liquidity rewards: each market's reward config, the running epoch's scores,
 * and the history of what closed epochs paid. `PaperExchange.rewards` is one of these.
 *
 *  - Sampling: every `sampleMs` of the exchange's clock (aligned to multiples of it), each
 *    rewarded, active market is sampled (sampler.ts) and the sample's normalised shares are added
 *    to the market's `EpochScores` (core/rewards.ts).
 *  - Epochs are aligned to multiples of `epochMs` since the unix epoch (a day epoch ends at
 *    midnight UTC). The exchange starts in the epoch holding its start time. At an epoch's end
 *    each market with scores pays `epochPool(dailyRate, epochMs)` (its config then) split by the
 *    makers' shares, floored to the micro-unit per maker; a payout below `minPayout` is not paid;
 *    the remainder is not paid. The exchange credits the payouts through a journaled command
 *    (`rewardPayout`), so a restart restores them; the running epoch's samples are not journaled
 *    (after a restart the epoch carries on with the samples taken since).
 *  - An epoch is dated by the UTC date of its last millisecond: a day epoch by its day, a
 *    2-minute epoch by the date it ends in (several short epochs of a date add up in the
 *    date-keyed endpoints).
 *  - Setting a market's config mid-epoch keeps its scores; clearing it drops them (it pays nothing
 *    for the epoch).
 */
import { ValidationError } from '../../core/errors.ts';
import {
  DAY_MS,
  EpochScores,
  SHARE_SCALE,
  epochPool,
  qMinToShares,
  type RewardConfig,
  type Sample,
} from '../../core/rewards.ts';
import type { Micro } from '../../core/units.ts';
import { sampleMarket, type RestingBook } from './sampler.ts';

/** How the exchange samples and pays. */
export interface RewardOptions {
  /** Epoch length, ms (aligned to multiples of it since the unix epoch). Default one day. */
  epochMs: number;
  /** Sampling interval, ms of the exchange's clock. Default 60 s. */
  sampleMs: number;
  /** The smallest payout, micro-collateral (less is not paid). Default 1 USDC. */
  minPayout: number;
}

export const DEFAULT_REWARD_OPTIONS: Readonly<RewardOptions> = Object.freeze({
  epochMs: DAY_MS,
  sampleMs: 60_000,
  minPayout: 1_000_000,
});

/**
 * The options with defaults filled in.
 * @throws ValidationError when a value is out of range (epoch 1 s to 366 days, sample 100 ms to the
 * epoch, min payout a non-negative integer of micro-units).
 */
export function rewardOptions(o: Partial<RewardOptions> = {}): RewardOptions {
  const r = { ...DEFAULT_REWARD_OPTIONS, ...o };
  if (!Number.isSafeInteger(r.epochMs) || r.epochMs < 1000 || r.epochMs > 366 * DAY_MS)
    throw new ValidationError(`rewards epochMs must be an integer from 1000 to ${366 * DAY_MS}, got ${r.epochMs}`);
  if (!Number.isSafeInteger(r.sampleMs) || r.sampleMs < 100 || r.sampleMs > r.epochMs)
    throw new ValidationError(
      `rewards sampleMs must be an integer from 100 to epochMs (${r.epochMs}), got ${r.sampleMs}`,
    );
  if (!Number.isSafeInteger(r.minPayout) || r.minPayout < 0)
    throw new ValidationError(`rewards minPayout must be a non-negative integer of micro-units, got ${r.minPayout}`);
  return r;
}

/** One maker's result in one market for one closed epoch. */
export interface RewardPaymentRow {
  /** The epoch, unix ms [start, end). */
  readonly epochStart: number;
  readonly epochEnd: number;
  /** UTC date (YYYY-MM-DD) of the epoch's last millisecond. */
  readonly date: string;
  /** Condition id. */
  readonly market: string;
  /** The maker (funder) address, lower case: paid to it. */
  readonly maker: string;
  /** Its share of the pool floored to the micro, before the minimum. */
  readonly earned: Micro;
  /** What was credited: `earned` when at least the minimum payout, else 0. */
  readonly paid: Micro;
}

/** A maker's standing in one market in the running epoch: what it would earn if it closed now. */
export interface RewardStanding {
  readonly market: string;
  /** Its share of the epoch's scores so far, fixed point (SHARE_SCALE = 1e18). */
  readonly share: bigint;
  /** The pool of the epoch so far: the daily rate over the time elapsed since the epoch began, micro. */
  readonly poolSoFar: Micro;
  /** Its share of `poolSoFar`, floored to the micro (before the minimum payout). */
  readonly earnedSoFar: Micro;
}

/** What a closed epoch pays (the exchange's `rewardPayout` command carries it). */
export interface EpochPayout {
  readonly epochStart: number;
  readonly epochEnd: number;
  readonly rows: ReadonlyArray<{ market: string; maker: string; earned: number; paid: number }>;
}

/** What the ledger reads of the exchange. */
export interface RewardVenue extends RestingBook {
  /** Whether a market accepts orders now (only those are sampled). */
  isActive(conditionId: string): boolean;
  /** The exchange's clock, unix ms. */
  now(): number;
}

/** The UTC date (YYYY-MM-DD) of a unix-ms time. */
export function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The UTC date an epoch ending (exclusive) at `epochEnd` is reported under. */
export function epochDate(epochEnd: number): string {
  return utcDate(epochEnd - 1);
}

/** A validated reward config: positive whole pips, min size, daily rate; multiplier a positive integer. */
export function checkRewardConfig(cfg: RewardConfig): RewardConfig {
  const ok =
    Number.isSafeInteger(cfg.maxSpread) &&
    cfg.maxSpread > 0 &&
    cfg.maxSpread <= 5000 &&
    Number.isSafeInteger(cfg.minSize) &&
    cfg.minSize >= 0 &&
    Number.isSafeInteger(cfg.dailyRate) &&
    cfg.dailyRate > 0 &&
    (cfg.multiplier === undefined || (Number.isSafeInteger(cfg.multiplier) && cfg.multiplier >= 1));
  if (!ok)
    throw new ValidationError(
      'invalid reward config: maxSpread 1-5000 pips (0.01-50 cents), minSize >= 0 micro-shares, dailyRate > 0 micro, multiplier a positive integer',
    );
  return {
    maxSpread: cfg.maxSpread,
    minSize: cfg.minSize,
    dailyRate: cfg.dailyRate,
    ...(cfg.multiplier !== undefined && cfg.multiplier !== 1 ? { multiplier: cfg.multiplier } : {}),
  };
}

/** The liquidity rewards of a paper exchange (see the module comment). */
export class ExchangeRewards {
  readonly options: RewardOptions;
  private readonly configs = new Map<string, RewardConfig>();
  private readonly rows: RewardPaymentRow[] = [];
  /** The rows by UTC date and by maker (the date-keyed routes and the activity feed read these). */
  private readonly byDate = new Map<string, RewardPaymentRow[]>();
  private readonly byMaker = new Map<string, RewardPaymentRow[]>();
  private readonly scores = new Map<string, EpochScores>();
  private readonly last = new Map<string, { at: number; sample: Sample }>();
  private start = Number.NaN;
  private end = Number.NaN;
  /** The end of the last epoch paid (a replayed journal's too): never paid twice. */
  private paidUntil = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly venue: RewardVenue,
    options: Partial<RewardOptions> = {},
  ) {
    this.options = rewardOptions(options);
  }

  // ---- configs -------------------------------------------------------------------------------

  /** A market's reward config, or null when it has none. */
  configOf(conditionId: string): RewardConfig | null {
    return this.configs.get(this.key(conditionId)) ?? null;
  }

  /** A condition id as the ledger keys it: as given when known, else in lower case (like `PaperExchange.market`). */
  private key(conditionId: string): string {
    return this.configs.has(conditionId) || this.scores.has(conditionId) ? conditionId : conditionId.toLowerCase();
  }

  /** Every rewarded market (condition id, config), in the order they got their config. */
  rewarded(): Array<[string, RewardConfig]> {
    return [...this.configs];
  }

  /**
   * Set (or, with null, clear) a market's config, by its condition id as the exchange knows it. The
   * exchange calls it from its `rewardConfig` command; clearing drops the market's scores of the
   * running epoch.
   * @throws ValidationError for an invalid config (nothing changes).
   */
  setConfig(conditionId: string, cfg: RewardConfig | null): void {
    const cid = conditionId;
    if (cfg === null) {
      this.configs.delete(cid);
      this.scores.delete(cid);
      this.last.delete(cid);
      return;
    }
    this.configs.set(cid, checkRewardConfig(cfg));
  }

  // ---- epochs and samples ------------------------------------------------------------------------

  /** The running epoch [start, end), unix ms (NaN before the exchange started sampling). */
  get epochStart(): number {
    return this.start;
  }
  get epochEnd(): number {
    return this.end;
  }

  /** Begin the epoch holding `now` (its scores empty). */
  openEpoch(now: number): void {
    const e = this.options.epochMs;
    this.start = Math.floor(now / e) * e;
    this.end = this.start + e;
    this.scores.clear();
  }

  /** Sample every rewarded, active market now into the running epoch. */
  sample(now: number): void {
    if (Number.isNaN(this.start)) this.openEpoch(now);
    for (const [cid, cfg] of this.configs) {
      if (!this.venue.isActive(cid)) continue;
      const s = sampleMarket(this.venue, cid, cfg);
      this.last.set(cid, { at: now, sample: s });
      let ep = this.scores.get(cid);
      if (ep === undefined) this.scores.set(cid, (ep = new EpochScores()));
      ep.add(s);
    }
  }

  /** The last sample of a market and when it was taken. */
  lastSample(conditionId: string): { at: number; sample: Sample } | undefined {
    return this.last.get(this.key(conditionId));
  }

  /** The running epoch's scores of a market (undefined before its first sample). */
  epochScores(conditionId: string): EpochScores | undefined {
    return this.scores.get(this.key(conditionId));
  }

  /**
   * What the running epoch pays if it closes now: per market with scores (and a config), each
   * maker's share of `epochPool(dailyRate, epochMs)`, rows with nothing earned left out.
   */
  closing(): EpochPayout {
    const rows: Array<{ market: string; maker: string; earned: number; paid: number }> = [];
    // an epoch already paid (a restart within it, on a clock that went back) pays nothing again
    if (this.end <= this.paidUntil) return { epochStart: this.start, epochEnd: this.end, rows };
    for (const [cid, ep] of this.scores) {
      const cfg = this.configs.get(cid);
      if (cfg === undefined) continue;
      const p = ep.payout(epochPool(cfg.dailyRate, this.options.epochMs), this.options.minPayout);
      for (const [maker, earned] of p.earned) {
        if (earned <= 0) continue;
        rows.push({ market: cid, maker, earned, paid: p.paid.get(maker) ?? 0 });
      }
    }
    return { epochStart: this.start, epochEnd: this.end, rows };
  }

  /** Record a closed epoch's rows in the history (the exchange credits the payouts). */
  record(p: EpochPayout): void {
    if (p.epochEnd > this.paidUntil) this.paidUntil = p.epochEnd;
    const date = epochDate(p.epochEnd);
    for (const r of p.rows) {
      const row: RewardPaymentRow = {
        epochStart: p.epochStart,
        epochEnd: p.epochEnd,
        date,
        market: r.market,
        maker: r.maker,
        earned: r.earned as Micro,
        paid: r.paid as Micro,
      };
      this.rows.push(row);
      push(this.byDate, date, row);
      push(this.byMaker, row.maker, row);
    }
  }

  /** A maker's rows, oldest first. */
  historyOf(maker: string): readonly RewardPaymentRow[] {
    return this.byMaker.get(maker.toLowerCase()) ?? [];
  }

  // ---- reads -------------------------------------------------------------------------------------

  /** Every closed epoch's rows, oldest first. */
  history(): readonly RewardPaymentRow[] {
    return this.rows;
  }

  /** The rows of `makers` reported under a UTC date, summed per (market, maker), in history order. */
  earningsOn(date: string, makers: readonly string[]): RewardPaymentRow[] {
    const want = new Set(makers.map((m) => m.toLowerCase()));
    const out = new Map<string, RewardPaymentRow>();
    for (const r of this.byDate.get(date) ?? []) {
      if (!want.has(r.maker)) continue;
      const k = `${r.market}|${r.maker}`;
      const prev = out.get(k);
      out.set(
        k,
        prev === undefined
          ? r
          : {
              ...prev,
              epochEnd: r.epochEnd,
              earned: (prev.earned + r.earned) as Micro,
              paid: (prev.paid + r.paid) as Micro,
            },
      );
    }
    return [...out.values()];
  }

  /** A maker's share of a market's running epoch so far, fixed point (0 when it has none). */
  shareOf(conditionId: string, maker: string): bigint {
    return this.scores.get(this.key(conditionId))?.shareOf(maker.toLowerCase()) ?? 0n;
  }

  /**
   * A maker's standing in the running epoch, per market where it has a share: its share, the pool
   * so far (the daily rate over the time since the epoch began, at `now`: default the exchange's
   * clock) and its part of it, what the epoch would pay if it closed now (before the minimum payout).
   */
  standing(maker: string, now: number = this.venue.now()): RewardStanding[] {
    const m = maker.toLowerCase();
    const out: RewardStanding[] = [];
    if (Number.isNaN(this.start)) return out;
    const elapsed = Math.min(Math.max(now - this.start, 0), this.options.epochMs);
    for (const [cid, ep] of this.scores) {
      const cfg = this.configs.get(cid);
      if (cfg === undefined) continue;
      let all = 0n;
      for (const v of ep.totals().values()) all += v;
      const mine = ep.totals().get(m) ?? 0n;
      if (mine === 0n) continue;
      const pool = epochPool(cfg.dailyRate, elapsed);
      out.push({
        market: cid,
        share: (mine * SHARE_SCALE) / all,
        poolSoFar: pool,
        earnedSoFar: Number((BigInt(pool) * mine) / all) as Micro,
      });
    }
    return out;
  }

  /**
   * The market's competitiveness: the total Q_min of its last sample, in share-units (what the
   * makers resting in the band score together; 0 before a sample). For display.
   */
  competitiveness(conditionId: string): number {
    const cfg = this.configOf(conditionId);
    const last = this.last.get(this.key(conditionId));
    if (cfg === null || last === undefined) return 0;
    return Math.round(qMinToShares(cfg, last.sample.total) * 1e6) / 1e6;
  }
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list === undefined) m.set(k, [v]);
  else list.push(v);
}
