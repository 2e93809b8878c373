/**
 * The bot's estimate of the liquidity rewards its quotes earn (src/core/rewards.ts): every
 * `sampleMs` of the injected clock (the venue samples every minute), each rewarded market's own
 * resting orders are scored against the book's competition (the mirrored book minus our own orders
 * when the book shows them, as a live book does). The estimate accrues each sample's share of the
 * pool; it is what the store keeps as "estimated" until the venue pays. The same code runs live,
 * on paper and in backtests (a backtest reports the accrual as the rewards it earned on a recorded
 * feed).
 *
 * Reads only: it never changes what the bot does.
 */
import type { Clock, TimerHandle } from '../core/clock.ts';
import type { ConditionId, TokenId } from '../core/ids.ts';
import type { LiveOrderView } from '../core/intents.ts';
import {
  type BookScore,
  estimateDailyReward,
  type RewardConfig,
  RewardAccrual,
  sameRewardConfig,
  scoreMarketNow,
} from '../core/rewards.ts';
import type { Micro } from '../core/units.ts';
import type { MarketInfo } from '../core/venue.ts';
import type { BookView } from '../core/views.ts';

/** The venue samples once a minute. */
export const REWARD_SAMPLE_MS = 60_000;

/** One rewarded market's estimate. */
export interface RewardEstimate {
  readonly market: ConditionId;
  readonly config: RewardConfig;
  /** Samples taken, and those in which our quotes scored. */
  readonly samples: number;
  readonly scoredSamples: number;
  /** Accrued estimate since the tracker started, micro-collateral (floored). */
  readonly accrued: Micro;
  /** The last sample: our share (0..1), the daily reward it would earn if it held all day (micro), and when. */
  readonly lastShare: number;
  readonly lastDaily: Micro;
  readonly lastAt: number | null;
  /** The last sample's score (null before the first). */
  readonly last: BookScore | null;
}

/** Options of {@link RewardTracker}. */
export interface RewardTrackerOptions {
  readonly clock: Clock;
  readonly markets: readonly MarketInfo[];
  /** A token's book mirror. */
  book(tokenId: TokenId): BookView | undefined;
  /** The bot's live orders of a market. */
  openOrders(market: ConditionId): readonly LiveOrderView[];
  /** The book shows our own orders (live and paper venues: true; a recorded feed without show-own: false). */
  readonly bookIncludesOwn: boolean;
  /** Default {@link REWARD_SAMPLE_MS}. */
  readonly sampleMs?: number;
}

interface Entry {
  readonly info: MarketInfo;
  readonly config: RewardConfig;
  readonly accrual: RewardAccrual;
  samples: number;
  scoredSamples: number;
  lastShare: number;
  lastDaily: Micro;
  lastAt: number | null;
  last: BookScore | null;
}

export class RewardTracker {
  private readonly entries = new Map<ConditionId, Entry>();
  private readonly sampleMs: number;
  private timer: TimerHandle | undefined;
  private readonly listeners: Array<(e: RewardEstimate) => void> = [];

  constructor(private readonly o: RewardTrackerOptions) {
    this.sampleMs = o.sampleMs ?? REWARD_SAMPLE_MS;
    for (const m of o.markets) this.setMarket(m);
  }

  /** A market's info changed (or became known): follow its reward config (none: not followed). */
  setMarket(info: MarketInfo): void {
    const c = info.rewards;
    if (c == null || c.dailyRate <= 0 || c.maxSpread <= 0) {
      this.entries.delete(info.market);
      return;
    }
    const e = this.entries.get(info.market);
    if (e !== undefined && sameRewardConfig(e.config, c)) return;
    this.entries.set(info.market, {
      info,
      config: c,
      accrual: e?.accrual ?? new RewardAccrual(),
      samples: e?.samples ?? 0,
      scoredSamples: e?.scoredSamples ?? 0,
      lastShare: 0,
      lastDaily: 0 as Micro,
      lastAt: null,
      last: null,
    });
  }

  /** Whether any market is rewarded. */
  get active(): boolean {
    return this.entries.size > 0;
  }

  /** Samples every `sampleMs` from now on. Idempotent. */
  start(): void {
    if (this.timer !== undefined || this.entries.size === 0) return;
    this.timer = this.o.clock.setInterval(() => this.sample(), this.sampleMs);
  }

  stop(): void {
    if (this.timer !== undefined) this.o.clock.clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Each market's estimate after each sample. */
  onSample(fn: (e: RewardEstimate) => void): void {
    this.listeners.push(fn);
  }

  /** One sample of every rewarded market, now. */
  sample(): void {
    const now = this.o.clock.now();
    for (const e of this.entries.values()) {
      const s = scoreMarketNow(
        e.info.tokens[0].tokenId,
        e.config,
        this.o.book(e.info.tokens[0].tokenId),
        this.o.openOrders(e.info.market),
        this.o.bookIncludesOwn,
      );
      e.samples++;
      if (s.share > 0n) e.scoredSamples++;
      e.accrual.add(e.config.dailyRate, this.sampleMs, s.share);
      e.last = s;
      e.lastAt = now;
      e.lastShare = Number(s.share) / 1e18;
      e.lastDaily = s.mid2 === null ? (0 as Micro) : estimateDailyReward(e.config, s.mid2, s.own, s.others);
      const snap = snapshotOf(e);
      for (const l of this.listeners) l(snap);
    }
  }

  /** Every rewarded market's estimate. */
  snapshot(): RewardEstimate[] {
    return [...this.entries.values()].map(snapshotOf);
  }

  /** The accrued estimate over every market, micro. */
  totalAccrued(): Micro {
    let t = 0;
    for (const e of this.entries.values()) t += e.accrual.micro;
    return t as Micro;
  }
}

function snapshotOf(e: Entry): RewardEstimate {
  return {
    market: e.info.market,
    config: e.config,
    samples: e.samples,
    scoredSamples: e.scoredSamples,
    accrued: e.accrual.micro,
    lastShare: e.lastShare,
    lastDaily: e.lastDaily,
    lastAt: e.lastAt,
    last: e.last,
  };
}
