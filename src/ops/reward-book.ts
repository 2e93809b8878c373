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
 *    collateral increase is booked as a reward, never as an unknown difference. Dates of the last
 *    week still only estimated are read again until paid (payouts made while the daemon was down).
 *  - In a fleet (findings-2 F3): the members share the maker address, so each reads the whole
 *    account's payouts. A member books a market's payout only while it may (`fleet.mayClaim`: it
 *    holds the market), and only the part the fleet has not booked yet (`fleet.claim`, atomic in
 *    Redis: src/fleet/reward-claims.ts), so the members' booked figures add up to the venue's. Its
 *    own estimate of a payout stops counting once the fleet has booked the payout (review-1 F9):
 *    the row is settled at what this member booked of it, 0 when another member booked it all
 *    (`settleReward`), so the members' total rewards are the venue's figure, not it plus estimates.
 *    A claim that fails (the fleet's Redis away) is logged as such, not as a venue read. Before
 *    its claims, each poll re-asserts the parts this member booked of the last week's payouts
 *    (`reassertParts`, also called on a reconnect to Redis): a Redis restarted empty lost them
 *    (review-1 F7), and a claim would grant them again to another member.
 *  - Cross-check: after each poll, the credits booked per market since the epoch began against the
 *    venue's REWARD activity (`venueCredits`); a difference two polls see is logged and audited
 *    (`reward_mismatch`), never booked (the earnings endpoint is what the ledger follows).
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
  readonly store: Pick<
    Store,
    'recordRewardEstimate' | 'recordRewardPaid' | 'settleReward' | 'reward' | 'rewards' | 'rewardCredits' | 'audit'
  >;
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
  /**
   * The venue's own record of the reward collateral it credited the account since `sinceMs` (the
   * data API's REWARD activity), for the cross-check after each poll; absent: no cross-check.
   */
  venueCredits?(sinceMs: number): Promise<readonly { readonly market: string; readonly amount: number }[]>;
  /**
   * The venue's share of each market's running epoch so far, percent 0-100 (`GET
   * /rewards/user/percentages`), read after each poll and shown beside the bot's own estimate (which
   * cannot know the competition's standing: README "Liquidity rewards"); absent: not read.
   */
  percentages?(): Promise<ReadonlyMap<string, number>>;
  /** Where the cross-check starts (the ledger epoch's start, unix ms; default 0). */
  readonly since?: number;
  /** A fleet member: payouts are booked once fleet-wide (see the module comment); absent: a lone daemon. */
  readonly fleet?: RewardBookFleet;
}

/** What the reward book of a fleet member asks the fleet (src/fleet/reward-claims.ts fits). */
export interface RewardBookFleet {
  /** True when this member may book `market`'s payouts now. */
  mayClaim(market: string): boolean;
  /**
   * The part of the venue's figure `paid` of (`date`, `market`) the fleet has not booked yet, now
   * this member's to book (`mine`: what it booked of it so far). Signed µ.
   * @throws when the fleet cannot be asked (nothing is booked; the next poll asks again)
   */
  claim(date: string, market: string, paid: number, mine: number): Promise<number>;
  /**
   * What the fleet has booked of (`date`, `market`)'s payout so far, all members (µ).
   * @throws when the fleet cannot be asked (nothing is settled; the next poll asks again)
   */
  booked(date: string, market: string): Promise<number>;
  /**
   * Re-asserts the parts this member booked that the fleet's record lacks (src/fleet/reward-claims.ts).
   * @throws when the fleet cannot be asked
   */
  reassert(parts: readonly { date: string; market: string; paid: number }[]): Promise<number>;
}

/** A fleet claim (or read of the booked figure) failed: the poll fails, logged as the fleet's, not the venue's. */
class FleetClaimError extends Error {
  constructor(
    /** The payout asked about (none: the re-assert of this member's parts). */
    readonly payout: { readonly market: string; readonly date: string } | undefined,
    cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

/** Runs a call to the fleet's Redis; a failure becomes a FleetClaimError of `payout`. */
async function askFleet<T>(payout: { market: string; date: string } | undefined, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    throw new FleetClaimError(payout, e);
  }
}

/** One market whose booked credits differ from what the venue's activity says it credited. */
export interface RewardMismatch {
  readonly market: string;
  /** Micro: booked in the store's credits, and credited per the venue's activity. */
  readonly booked: number;
  readonly credited: number;
}

/** What one poll did. */
export interface RewardPollResult {
  readonly dates: readonly string[];
  readonly credits: readonly StoredRewardCredit[];
  /** Markets whose difference was seen by this poll and the one before (undefined: not checked). */
  readonly mismatches?: readonly RewardMismatch[];
}

/** Dates before today whose estimate is re-read until paid: a week (payouts made while the daemon was down). */
const LOOKBACK_DAYS = 7;

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
  /** Differences seen by the last cross-check: market -> "booked|credited". */
  #seen = new Map<string, string>();
  /** Differences logged already (not again while they stay the same). */
  readonly #reported = new Map<string, string>();
  /** The venue's share of each market's running epoch (0..1) at the last read, and when it was read. */
  #venueShares: { readonly shares: ReadonlyMap<string, number>; readonly at: number } | undefined;
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

  /** Polls now (payouts made while the daemon was down) and every `pollMs` from now on. Idempotent. */
  start(): void {
    const every = this.#o.pollMs ?? 60_000;
    if (this.#timer !== undefined || every <= 0) return;
    this.#timer = this.#o.clock.setInterval(() => {
      this.poll().catch(() => {});
    }, every);
    this.poll().catch(() => {});
  }

  /** Stops polling and polls once more (the payouts of the run's last epoch), unless `final` is false. */
  async stop(final = true): Promise<RewardPollResult | undefined> {
    if (this.#timer !== undefined) this.#o.clock.clearInterval(this.#timer);
    this.#timer = undefined;
    if (!final) return undefined;
    try {
      // a poll in flight may have read before the last payout: a fresh one after it
      await this.#polling?.catch(() => undefined);
      return await this.poll();
    } catch {
      return undefined;
    }
  }

  /**
   * Reads the venue's earnings of yesterday and today (UTC), and of the last week's dates still only
   * estimated, and records what changed; then cross-checks the booked credits with the venue's
   * (when `venueCredits` is given). Concurrent calls share one poll.
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
    const today = utcDate(now);
    const yesterday = utcDate(now - DAY_MS);
    const pending = new Set<string>();
    for (const r of o.store.rewards({ since: utcDate(now - LOOKBACK_DAYS * DAY_MS) }))
      if (r.status === 'estimated' && r.date < yesterday) pending.add(r.date);
    const dates = [...[...pending].sort(), yesterday, today];
    const credits: StoredRewardCredit[] = [];
    let mismatches: RewardMismatch[] | undefined;
    try {
      // a fleet: what this member booked is in the fleet's record before it claims (review-1 F7)
      if (o.fleet !== undefined) await this.#reassert(o.fleet);
      for (const date of dates) {
        const rows = await o.earnings(date);
        const byMarket = new Map<string, number>();
        for (const r of rows) {
          if (r.date !== date) continue;
          if (o.address !== undefined && r.maker !== undefined && r.maker !== '' && r.maker !== o.address) continue;
          byMarket.set(r.market, (byMarket.get(r.market) ?? 0) + r.earnings);
        }
        for (const [market, venuePaid] of byMarket) {
          let paid = venuePaid;
          if (o.fleet !== undefined) {
            // a fleet: only this member's part of the account's payout, claimed once fleet-wide
            const fleet = o.fleet;
            const row = o.store.reward(market as ConditionId, date);
            const mine = row?.paid ?? 0;
            const part = fleet.mayClaim(market)
              ? await askFleet({ market, date }, () => fleet.claim(date, market, venuePaid, mine))
              : 0;
            if (part === 0) {
              // this member's estimate stops counting once the fleet has booked the payout, maybe all
              // of it by another member (this member holds the market no longer, or holds it since)
              if (row?.status === 'estimated' && venuePaid > 0) {
                const booked = await askFleet({ market, date }, () => fleet.booked(date, market));
                if (booked > 0) this.#settle(market, date, venuePaid);
              }
              continue;
            }
            paid = mine + part;
          }
          const c = o.store.recordRewardPaid({ market: market as ConditionId, date, paid, at: o.clock.now() });
          if (c.credit === undefined) continue;
          credits.push(c.credit);
          o.onCredit?.(c.credit);
          const f = {
            market,
            date,
            amount: formatAmount(c.credit.amount),
            paid: formatAmount(venuePaid),
            ...(o.fleet !== undefined ? { booked: formatAmount(paid) } : {}),
            cause: 'reward',
          };
          if (c.credit.amount > 0) o.log?.info(f, 'liquidity reward paid');
          else o.log?.warn(f, 'the venue lowered a reward it had reported as paid');
        }
      }
      if (o.venueCredits !== undefined) mismatches = await this.#crossCheck(o.venueCredits);
      if (o.percentages !== undefined) await this.#readShares(o.percentages);
      this.polls++;
      this.lastError = undefined;
      return mismatches === undefined ? { dates, credits } : { dates, credits, mismatches };
    } catch (e) {
      this.pollFailures++;
      const msg = e instanceof Error ? e.message.slice(0, 200) : String(e).slice(0, 200);
      // said once while the same failure repeats (a venue without the endpoint must not fill the log)
      if (msg !== this.lastError) {
        if (e instanceof FleetClaimError)
          o.log?.warn(
            { err: msg, ...e.payout },
            "could not claim the reward payout in the fleet's Redis (retried at the next poll)",
          );
        else o.log?.warn({ err: msg }, 'could not read the liquidity rewards paid (retried at the next poll)');
      }
      this.lastError = msg;
      throw e instanceof FleetClaimError ? e.cause : e;
    }
  }

  /**
   * The venue's share of each market's running epoch so far (0..1: its percent / 100), as last read;
   * undefined before the first read (or without `percentages`).
   */
  venueShares(): { readonly shares: ReadonlyMap<string, number>; readonly at: number } | undefined {
    return this.#venueShares;
  }

  /** Reads the venue's shares; a failure keeps the last ones (said once while it repeats). */
  async #readShares(read: () => Promise<ReadonlyMap<string, number>>): Promise<void> {
    try {
      const shares = new Map<string, number>();
      for (const [m, pct] of await read())
        if (Number.isFinite(pct) && pct >= 0) shares.set(m.toLowerCase(), Math.min(pct, 100) / 100);
      this.#venueShares = { shares, at: this.#o.clock.now() };
      this.#sharesError = undefined;
    } catch (e) {
      const msg = e instanceof Error ? e.message.slice(0, 200) : String(e).slice(0, 200);
      if (msg !== this.#sharesError)
        this.#o.log?.warn({ err: msg }, "could not read the venue's reward shares (the estimate is shown alone)");
      this.#sharesError = msg;
    }
  }
  #sharesError: string | undefined;

  /**
   * A fleet member: re-asserts the parts of the last week's payouts it booked (its store's paid
   * figures) that the fleet's record lacks: a Redis restarted empty lost them (review-1 F7). Logged
   * when it added any. Returns how many it added (0 for a lone daemon).
   * @throws what the fleet throws (Redis unreachable)
   */
  async reassertParts(): Promise<number> {
    return this.#o.fleet === undefined ? 0 : this.#reassert(this.#o.fleet);
  }

  async #reassert(fleet: RewardBookFleet): Promise<number> {
    const o = this.#o;
    const since = utcDate(o.clock.now() - (LOOKBACK_DAYS + 1) * DAY_MS);
    const parts = o.store
      .rewards({ since })
      .filter((r) => r.paid > 0)
      .map((r) => ({ date: r.date, market: r.market as string, paid: r.paid as number }));
    if (parts.length === 0) return 0;
    const n = await askFleet(undefined, () => fleet.reassert(parts));
    if (n > 0)
      o.log?.warn(
        { parts: n, since },
        "reward parts this member booked were missing from the fleet's Redis (restarted empty?): recorded them again",
      );
    return n;
  }

  /**
   * A fleet member: the fleet booked (`date`, `market`)'s payout of `venuePaid`; this member's row,
   * still estimated, is settled at what it booked of it (logged once, when it settles).
   */
  #settle(market: string, date: string, venuePaid: number): void {
    const r = this.#o.store.settleReward({ market: market as ConditionId, date, at: this.#o.clock.now() });
    if (r === undefined) return;
    this.#o.log?.info(
      {
        market,
        date,
        paid: formatAmount(venuePaid),
        booked: formatAmount(r.paid),
        estimated: formatAmount(r.estimated),
      },
      "liquidity reward booked by the fleet: this member's estimate of it no longer counts",
    );
  }

  /**
   * The booked credits per market against the venue's REWARD activity since `since`. A difference
   * seen by two polls in a row (a payout landing between the two reads is seen once) is logged,
   * audited (`reward_mismatch`) and returned; it changes nothing in the ledger (the earnings are
   * what it books).
   */
  async #crossCheck(venueCredits: NonNullable<RewardBookOptions['venueCredits']>): Promise<RewardMismatch[]> {
    const o = this.#o;
    const since = o.since ?? 0;
    const credited = new Map<string, number>();
    for (const c of await venueCredits(since)) credited.set(c.market, (credited.get(c.market) ?? 0) + c.amount);
    const booked = new Map<string, number>();
    for (const c of o.store.rewardCredits({ since })) booked.set(c.market, (booked.get(c.market) ?? 0) + c.amount);
    const seen = new Map<string, string>();
    const out: RewardMismatch[] = [];
    for (const market of new Set([...credited.keys(), ...booked.keys()])) {
      const b = booked.get(market) ?? 0;
      const v = credited.get(market) ?? 0;
      if (b === v) continue;
      const key = `${b}|${v}`;
      seen.set(market, key);
      if (this.#seen.get(market) !== key) continue;
      out.push({ market, booked: b, credited: v });
    }
    this.#seen = seen;
    for (const m of out) {
      const key = `${m.booked}|${m.credited}`;
      if (this.#reported.get(m.market) === key) continue;
      this.#reported.set(m.market, key);
      const f = { market: m.market, booked: formatAmount(m.booked), credited: formatAmount(m.credited) };
      o.log?.warn(f, "the rewards booked differ from the venue's REWARD activity");
      o.store.audit('reward_mismatch', f);
    }
    return out;
  }
}
