/**
 * When the paper exchange samples and pays liquidity rewards (ledger.ts): a sample every
 * `rewards.sampleMs` of the exchange's clock (at multiples of it) and a payout at each epoch's end.
 * It is timers only, kept apart from the exchange's command log (exchange.ts): a closed epoch's
 * payout goes back to the exchange through `pay`, which journals it (the `rewardPayout` command).
 */
import type { Clock, TimerHandle } from '../../core/clock.ts';
import type { EpochPayout, ExchangeRewards } from './ledger.ts';

/** The reward timers of one exchange: `start`ed with its housekeeping, `stop`ped with it. */
export class RewardSchedule {
  private timer: TimerHandle | undefined;
  /** Whether the exchange runs (between `start` and `stop`): only then does a due call schedule the next. */
  private running = false;
  /** When the next reward sample is due (unix ms). */
  private nextSample = 0;

  constructor(
    private readonly clock: Clock,
    private readonly rewards: ExchangeRewards,
    /** Credit a closed epoch's payouts (journaled by the exchange). */
    private readonly pay: (p: EpochPayout) => void,
  ) {}

  /** Open the epoch holding now and schedule the first sample (or the epoch's end). */
  start(): void {
    this.running = true;
    const now = this.clock.now();
    this.rewards.openEpoch(now);
    this.nextSample = this.nextSampleAfter(now);
    this.schedule(now);
  }

  stop(): void {
    this.running = false;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private nextSampleAfter(t: number): number {
    const s = this.rewards.options.sampleMs;
    return (Math.floor(t / s) + 1) * s;
  }

  private schedule(now: number): void {
    const at = Math.min(this.nextSample, this.rewards.epochEnd);
    this.timer = this.clock.setTimeout(() => this.due(), Math.max(0, at - now));
  }

  /**
   * The rewards' timer: close the epoch when it has ended (pay it, begin the next), then take the
   * sample when one is due. A sample at an epoch's end belongs to the next epoch.
   */
  due(): void {
    const now = this.clock.now();
    if (now >= this.rewards.epochEnd) {
      const p = this.rewards.closing();
      if (p.rows.length > 0) this.pay(p);
      this.rewards.openEpoch(now);
    }
    if (now >= this.nextSample) {
      this.rewards.sample(now);
      this.nextSample = this.nextSampleAfter(now);
    }
    if (this.running) this.schedule(now);
  }
}
