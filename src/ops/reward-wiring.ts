/**
 * The daemon's reward wiring: its reward book (src/ops/reward-book.ts) fed by the kernel's reward
 * tracker and the live venue's earnings, and the bounded last poll of the payouts at shutdown.
 */
import type { Logger } from 'pino';
import type { LiveClock } from '../core/clock.ts';
import type { RewardTracker } from '../engine/reward-tracker.ts';
import type { Store } from '../store/store.ts';
import type { LiveVenue } from '../venues/live/live-venue.ts';
import { componentLogger } from './logger.ts';
import { RewardBook, type RewardBookFleet } from './reward-book.ts';

/** The final poll of the payouts gives up after this long. */
const FINAL_REWARD_POLL_TIMEOUT_MS = 10_000;

/**
 * The daemon's reward book (src/ops/reward-book.ts): each sample of the kernel's tracker into the
 * store's estimate of its UTC date; the venue's earnings (GET /rewards/user?date=) polled every
 * `pollMs` into the store's paid figures (credits of cause 'reward'), cross-checked with the
 * venue's REWARD activity since the epoch began (when it has a data API). A fleet member books only
 * its part of the account's payouts (`o.fleet`).
 */
export function bookRewards(
  tracker: RewardTracker,
  store: Store,
  venue: LiveVenue,
  clock: LiveClock,
  log: Logger,
  o: {
    sampleMs: number;
    pollMs?: number;
    crossCheckSince: number | undefined;
    /** A fleet member: payouts booked once fleet-wide (src/fleet/reward-claims.ts); absent: a lone daemon. */
    fleet?: RewardBookFleet;
  },
): RewardBook {
  const rlog = componentLogger(log, 'rewards');
  const book = new RewardBook({
    store,
    clock,
    sampleMs: o.sampleMs,
    ...(o.pollMs !== undefined ? { pollMs: o.pollMs } : {}),
    ...(o.fleet !== undefined ? { fleet: o.fleet } : {}),
    ...(o.crossCheckSince !== undefined
      ? { since: o.crossCheckSince, venueCredits: (since: number) => venue.rewardCredits(since) }
      : {}),
    earnings: async (date) =>
      (await venue.rewards.userEarnings(date)).map((r) => ({
        date: r.date,
        market: r.market,
        earnings: r.earnings,
        maker: r.maker,
      })),
    // the venue's own share of each running epoch, shown beside the estimate (trial 16 F4)
    percentages: () => venue.rewards.userPercentages(),
    log: rlog,
  });
  tracker.onSample((e) => {
    try {
      book.onSample(e);
    } catch (err) {
      rlog.warn({ market: e.market, err: (err as Error).message }, 'could not store the reward estimate');
    }
  });
  return book;
}

/** The last poll of the payouts (bounded: a venue that does not answer does not hold the exit). */
export async function finalRewardPoll(book: RewardBook, log: Logger): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<undefined>((res) => {
    timer = setTimeout(() => res(undefined), FINAL_REWARD_POLL_TIMEOUT_MS);
  });
  const r = await Promise.race([book.stop(), timeout]).finally(() => clearTimeout(timer));
  if (r === undefined) log.warn({}, 'could not read the rewards paid at shutdown (the next start books them)');
}
