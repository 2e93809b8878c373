/**
 * The store's liquidity-reward ledger (migration 4): per ledger epoch, market and UTC date, the
 * bot's estimate while it runs (`estimated`, from the kernel's reward tracker) and what the venue
 * paid (`paid`); status 'estimated' until the venue pays something for the row, then 'paid'.
 *
 * Every change of what the venue paid is one append-only credit of collateral with cause 'reward'
 * (reward_credits), so a payout's collateral increase is always booked as a reward, never as an
 * unknown difference, and `paid` is exactly the sum of the row's credits. Money is integer micro.
 *
 * Totals: `paid` sums the credits; `estimated` sums the estimates of the rows not paid yet (a paid
 * row counts the venue's figure only), so paid + estimated never counts a date twice.
 *
 * A fleet member (review-1 F9) books only its part of the account's payout, maybe none: once the
 * fleet has booked a (date, market) payout, the member's row is settled (`settle`: 'paid' at what
 * it booked, 0 when another member booked it all), so its estimate stops counting and the members'
 * totals add up to the venue's figure.
 */
import type Database from 'better-sqlite3';
import { ValidationError } from '../core/errors.ts';
import type { ConditionId } from '../core/ids.ts';
import type { Micro } from '../core/units.ts';
import type {
  RewardCreditSource,
  RewardEstimateInput,
  RewardPaymentChange,
  RewardPaymentInput,
  RewardStatus,
  RewardTotals,
  StoredReward,
  StoredRewardCredit,
} from './store-types.ts';

interface RewardRow {
  epoch: number;
  market: string;
  date: string;
  estimated: number;
  paid: number;
  status: string;
  samples: number;
  scored: number;
  updated_at: number;
  paid_at: number | null;
}
interface CreditRow {
  seq: number;
  epoch: number;
  at: number;
  market: string;
  date: string;
  amount: number;
  cause: string;
  source: string;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** @throws ValidationError unless a real calendar date `YYYY-MM-DD` (`what`: the message's subject). */
export function checkRewardDate(date: unknown, what = 'reward date'): string {
  if (
    typeof date !== 'string' ||
    !DATE.test(date) ||
    Number.isNaN(Date.parse(`${date}T00:00:00Z`)) ||
    new Date(`${date}T00:00:00Z`).toISOString().slice(0, 10) !== date
  )
    throw new ValidationError(`${what}: expected YYYY-MM-DD, got ${String(date).slice(0, 30)}`);
  return date;
}

function checkMarket(m: unknown): ConditionId {
  if (typeof m !== 'string' || m.length === 0 || m.length > 200)
    throw new ValidationError('reward market: expected a condition id');
  return m as ConditionId;
}

function checkCount(what: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
    throw new ValidationError(`reward ${what}: expected a non-negative integer, got ${String(v)}`);
  return v;
}

const toReward = (r: RewardRow): StoredReward => ({
  epoch: r.epoch === 0 ? null : r.epoch,
  market: r.market as ConditionId,
  date: r.date,
  estimated: r.estimated as Micro,
  paid: r.paid as Micro,
  status: r.status as RewardStatus,
  samples: r.samples,
  scoredSamples: r.scored,
  updatedAt: r.updated_at,
  paidAt: r.paid_at,
});

const toCredit = (r: CreditRow): StoredRewardCredit => ({
  seq: r.seq,
  epoch: r.epoch === 0 ? null : r.epoch,
  at: r.at,
  market: r.market as ConditionId,
  date: r.date,
  amount: r.amount,
  cause: 'reward',
  source: r.source as RewardCreditSource,
});

/** The reward ledger's writes and reads on one connection; `epoch()` is the current epoch (null: none). */
export function rewardLedger(db: Database.Database, epoch: () => number | null, now: () => number) {
  const st = {
    get: db.prepare('SELECT * FROM rewards WHERE epoch = ? AND market = ? AND date = ?'),
    upsertEstimate: db.prepare(
      `INSERT INTO rewards (epoch, market, date, estimated, samples, scored, updated_at)
       VALUES (@epoch, @market, @date, @estimated, @samples, @scored, @at)
       ON CONFLICT (epoch, market, date) DO UPDATE SET estimated = excluded.estimated, samples = excluded.samples,
         scored = excluded.scored, updated_at = excluded.updated_at
       RETURNING *`,
    ),
    upsertPaid: db.prepare(
      `INSERT INTO rewards (epoch, market, date, paid, status, updated_at, paid_at)
       VALUES (@epoch, @market, @date, @paid, @status, @at, @at)
       ON CONFLICT (epoch, market, date) DO UPDATE SET paid = excluded.paid, status = excluded.status,
         updated_at = excluded.updated_at, paid_at = excluded.paid_at
       RETURNING *`,
    ),
    insertCredit: db.prepare(
      `INSERT INTO reward_credits (epoch, at, market, date, amount, source)
       VALUES (@epoch, @at, @market, @date, @amount, @source) RETURNING *`,
    ),
    settle: db.prepare(
      `UPDATE rewards SET status = 'paid', updated_at = @at, paid_at = COALESCE(paid_at, @at)
       WHERE epoch = @epoch AND market = @market AND date = @date AND status = 'estimated' RETURNING *`,
    ),
    rowsSince: db.prepare('SELECT * FROM rewards WHERE epoch = ? AND date >= ? ORDER BY date, market'),
    creditsSince: db.prepare('SELECT * FROM reward_credits WHERE epoch = ? AND at >= ? ORDER BY seq'),
    byMarket: db.prepare(
      `SELECT market, SUM(paid) AS paid, SUM(CASE WHEN status = 'estimated' THEN estimated ELSE 0 END) AS estimated
       FROM rewards WHERE epoch = ? GROUP BY market ORDER BY market`,
    ),
    paidBetween: db.prepare('SELECT COALESCE(SUM(amount), 0) FROM reward_credits WHERE at >= ? AND at <= ?').pluck(),
    estimatedBetween: db
      .prepare(
        `SELECT COALESCE(SUM(estimated), 0) FROM rewards WHERE status = 'estimated' AND updated_at >= ? AND updated_at <= ?`,
      )
      .pluck(),
  };
  const e0 = (): number => epoch() ?? 0;
  const atOf = (at: number | undefined): number => {
    const t = at ?? now();
    return checkCount('time', t);
  };

  const paidTx = db.transaction((r: RewardPaymentInput): RewardPaymentChange => {
    const market = checkMarket(r.market);
    const date = checkRewardDate(r.date);
    const paid = checkCount('paid', r.paid);
    const source = r.source ?? 'earnings';
    if (source !== 'earnings' && source !== 'activity')
      throw new ValidationError(`reward source: expected earnings or activity, got ${String(source)}`);
    const at = atOf(r.at);
    const epochId = e0();
    const before = st.get.get(epochId, market, date) as RewardRow | undefined;
    const delta = paid - (before?.paid ?? 0);
    if (delta === 0) return { reward: before === undefined ? undefined : toReward(before), credit: undefined };
    const credit = toCredit(
      st.insertCredit.get({ epoch: epochId, at, market, date, amount: delta, source }) as CreditRow,
    );
    const row = st.upsertPaid.get({
      epoch: epochId,
      market,
      date,
      paid,
      status: paid > 0 ? 'paid' : 'estimated',
      at,
    }) as RewardRow;
    return { reward: toReward(row), credit };
  });

  return {
    recordEstimate(r: RewardEstimateInput): StoredReward {
      const market = checkMarket(r.market);
      const date = checkRewardDate(r.date);
      const estimated = checkCount('estimate', r.estimated);
      const samples = checkCount('samples', r.samples);
      const scored = checkCount('scored samples', r.scoredSamples);
      if (scored > samples) throw new ValidationError('reward scored samples: more than the samples');
      const at = atOf(r.at);
      return toReward(
        st.upsertEstimate.get({ epoch: e0(), market, date, estimated, samples, scored, at }) as RewardRow,
      );
    },
    recordPaid(r: RewardPaymentInput): RewardPaymentChange {
      return paidTx(r);
    },
    /**
     * Settles an estimated row at what it booked (its `paid`, unchanged: no credit): the payout was
     * booked elsewhere (a fleet's other member). Returns the row settled, undefined when none was
     * estimated (no row, or paid already).
     */
    settle(r: { market: ConditionId; date: string; at?: number }): StoredReward | undefined {
      const market = checkMarket(r.market);
      const date = checkRewardDate(r.date);
      const row = st.settle.get({ epoch: e0(), market, date, at: atOf(r.at) }) as RewardRow | undefined;
      return row === undefined ? undefined : toReward(row);
    },
    reward(market: string, date: string): StoredReward | undefined {
      const r = st.get.get(e0(), market, date) as RewardRow | undefined;
      return r === undefined ? undefined : toReward(r);
    },
    rewards(o: { epoch?: number; since?: string } = {}): StoredReward[] {
      const since = o.since === undefined ? '' : checkRewardDate(o.since);
      return (st.rowsSince.all(o.epoch ?? e0(), since) as RewardRow[]).map(toReward);
    },
    credits(o: { epoch?: number; since?: number } = {}): StoredRewardCredit[] {
      return (st.creditsSince.all(o.epoch ?? e0(), o.since ?? 0) as CreditRow[]).map(toCredit);
    },
    totals(o: { epoch?: number } = {}): RewardTotals {
      let paid = 0;
      let estimated = 0;
      const byMarket = (st.byMarket.all(o.epoch ?? e0()) as { market: string; paid: number; estimated: number }[]).map(
        (r) => {
          paid += r.paid;
          estimated += r.estimated;
          return {
            market: r.market as ConditionId,
            paid: r.paid as Micro,
            estimated: r.estimated as Micro,
            total: (r.paid + r.estimated) as Micro,
          };
        },
      );
      return { paid: paid as Micro, estimated: estimated as Micro, total: (paid + estimated) as Micro, byMarket };
    },
    /** Paid (credits recorded) and estimated (rows not paid, updated) between two instants: a session's. */
    between(from: number, to: number): { paid: number; estimated: number } {
      return {
        paid: st.paidBetween.get(from, to) as number,
        estimated: st.estimatedBetween.get(from, to) as number,
      };
    },
  };
}

export type RewardLedger = ReturnType<typeof rewardLedger>;
