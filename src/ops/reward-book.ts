/**
 * The daemon's reward book: it keeps the store's reward ledger (src/store/rewards.ts) current.
 *
 *  - Estimated: every sample of the kernel's reward tracker (src/engine/reward-tracker.ts) adds the
 *    sample's value (the pool of `sampleMs` at the daily rate, times our share) to the market's
 *    accrual of the sample's UTC date, exactly (a bigint numerator); the row's estimate is the
 *    stored estimate the date had when this run first touched it plus this run's accrual, floored
 *    to the micro. (Across a restart, less than a micro of a date's estimate may be dropped.)
 *  - Paid: every `pollMs` (and once more at shutdown) the venue's earnings of today and yesterday
 *    (UTC; `GET /rewards/user?date=`) are summed per market and recorded as the date's paid figure:
 *    each change is a credit of collateral with cause 'reward' (logged, counted), so the payout's
 *    collateral increase is booked as a reward, never as an unknown difference.
 *
 * I/O is injected (`earnings`), time is the injected clock; a failed poll is logged and retried at
 * the next one. One poll at a time.
 */
import type { Clock, TimerHandle } from '../core/clock.ts';
import type { ConditionId } from '../core/ids.ts';
import { DAY_MS, SHARE_SCALE, sampleValue } from '../core/rewards.ts';
import { formatAmount } from '../core/units.ts';
import type { RewardEstimate } from '../engine/reward-tracker.ts';
import type { Store, StoredRewardCredit } from '../store/store-types.ts';

/** One market's earnings of one date, as the venue reports them (micro of the asset). */
export interface EarningRow {
  readonly date: string;
  readonly market: string;
  readonly earnings: number;
  /** The maker address the row is for (lower case), when the venue says. */
  readonly maker?: string;
}

/** A logger (pino fits). */
export interface RewardBookLog {
  info(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
}

/** Options of {@link RewardBook}. */
export interface RewardBookOptions {
  readonly store: Pick<Store, 'recordRewardEstimate' | 'recordRewardPaid' | 'reward'>;
  readonly clock: Clock;
  /** The tracker's sampling interval, ms (what one sample's share is worth). */
  readonly sampleMs: number;
  /** The venue's earnings of a UTC date (`YYYY-MM-DD`) for our address. */
  earnings(date: string): Promise<readonly EarningRow[]>;
  /** Our maker address (lower case): rows of another address are ignored. Absent: every row is ours. */
  readonly address?: string;
  /** Poll period, ms (default 60,000; 0: only `poll()` by hand and at `stop()`). */
  readonly pollMs?: number;
  readonly log?: RewardBookLog;
  /** A credit of reward collateral was recorded (metrics). */
  onCredit?(c: StoredRewardCredit): void;
}

/** What one poll did. */
export interface RewardPollResult {
  readonly dates: readonly string[];
  readonly credits: readonly StoredRewardCredit[];
}

/** The UTC date of a unix ms instant. */
export function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

const DEN = BigInt(DAY_MS) * SHARE_SCALE;

interface DateAccrual {
  readonly date: string;
  readonly base: number;
  readonly samples0: number;
  readonly scored0: number;
  num: bigint;
  samples: number;
  scored: number;
}

/** See the module comment. */
export class RewardBook {
  readonly #o: RewardBookOptions;
  /** Per market: the accrual of the date it samples now. */
  readonly #acc = new Map<string, DateAccrual>();
  #timer: TimerHandle | undefined;
  #polling: Promise<RewardPollResult> | undefined;
  /** Polls done, failed; the last error. */
  polls = 0;
  pollFailures = 0;
  lastError: string | undefined;

  constructor(o: RewardBookOptions) {
    if (!Number.isSafeInteger(o.sampleMs) || o.sampleMs <= 0)
      throw new RangeError(`RewardBook: sampleMs must be a positive integer, got ${String(o.sampleMs)}`);
    this.#o = o;
  }

  /** One sample of the tracker (its `onSample` listener). Writes the market's estimate of the sample's date. */
  onSample(e: RewardEstimate): void {
    if (e.lastAt === null || e.last === null) return;
    const date = utcDate(e.lastAt);
    let a = this.#acc.get(e.market);
    if (a === undefined || a.date !== date) {
      const row = this.#o.store.reward(e.market, date);
      a = {
        date,
        base: row?.estimated ?? 0,
        samples0: row?.samples ?? 0,
        scored0: row?.scoredSamples ?? 0,
        num: 0n,
        samples: 0,
        scored: 0,
      };
      this.#acc.set(e.market, a);
    }
    a.num += sampleValue(e.config.dailyRate, this.#o.sampleMs, e.last.share)[0];
    a.samples++;
    if (e.last.share > 0n) a.scored++;
    this.#o.store.recordRewardEstimate({
      market: e.market,
      date,
      estimated: a.base + Number(a.num / DEN),
      samples: a.samples0 + a.samples,
      scoredSamples: a.scored0 + a.scored,
      at: e.lastAt,
    });
  }

  /** Polls every `pollMs` from now on. Idempotent. */
  start(): void {
    const every = this.#o.pollMs ?? 60_000;
    if (this.#timer !== undefined || every <= 0) return;
    this.#timer = this.#o.clock.setInterval(() => {
      this.poll().catch(() => {});
    }, every);
  }

  /** Stops polling and polls once more (the payouts of the run's last epoch), unless `final` is false. */
  async stop(final = true): Promise<RewardPollResult | undefined> {
    if (this.#timer !== undefined) this.#o.clock.clearInterval(this.#timer);
    this.#timer = undefined;
    if (!final) return undefined;
    try {
      return await this.poll();
    } catch {
      return undefined;
    }
  }

  /**
   * Reads the venue's earnings of yesterday and today (UTC) and records what changed. Concurrent
   * calls share one poll.
   * @throws what `earnings` throws (also logged and counted)
   */
  poll(): Promise<RewardPollResult> {
    this.#polling ??= this.#poll().finally(() => {
      this.#polling = undefined;
    });
    return this.#polling;
  }

  async #poll(): Promise<RewardPollResult> {
    const o = this.#o;
    const now = o.clock.now();
    const dates = [utcDate(now - DAY_MS), utcDate(now)];
    const credits: StoredRewardCredit[] = [];
    try {
      for (const date of dates) {
        const rows = await o.earnings(date);
        const byMarket = new Map<string, number>();
        for (const r of rows) {
          if (r.date !== date) continue;
          if (o.address !== undefined && r.maker !== undefined && r.maker !== '' && r.maker !== o.address) continue;
          byMarket.set(r.market, (byMarket.get(r.market) ?? 0) + r.earnings);
        }
        for (const [market, paid] of byMarket) {
          const c = o.store.recordRewardPaid({ market: market as ConditionId, date, paid, at: o.clock.now() });
          if (c.credit === undefined) continue;
          credits.push(c.credit);
          o.onCredit?.(c.credit);
          const f = { market, date, amount: formatAmount(c.credit.amount), paid: formatAmount(paid), cause: 'reward' };
          if (c.credit.amount > 0) o.log?.info(f, 'liquidity reward paid');
          else o.log?.warn(f, 'the venue lowered a reward it had reported as paid');
        }
      }
      this.polls++;
      this.lastError = undefined;
      return { dates, credits };
    } catch (e) {
      this.pollFailures++;
      this.lastError = e instanceof Error ? e.message.slice(0, 200) : String(e).slice(0, 200);
      o.log?.warn({ err: this.lastError }, 'could not read the liquidity rewards paid (retried at the next poll)');
      throw e;
    }
  }
}
