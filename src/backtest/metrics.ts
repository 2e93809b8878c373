/**
 * The figures of a backtest, computed from its result (pure: no I/O, no clock; the same result
 * gives the same numbers).
 *
 * The fill-based figures (fills, maker/taker, volume, notional, fees, fills per order, markouts,
 * time at inventory limits) come from `result.fillStats`, which the runner measures online as the
 * fills happen (src/backtest/fill-stats.ts): a result keeps only its most recent fill rows, so a
 * long run's memory stays flat. `fillStatsOf` computes the same figures from a complete fill list
 * (the definitions below, literally); the two agree exactly (test/integration/backtest-fill-stats.test.ts).
 *
 * Definitions (money in micro-collateral, sizes in micro-shares, prices in pips unless said):
 *  - fills, volume (shares), notional (collateral: Σ size × price), fees: over the fills of the run;
 *  - PnL: realized + unrealized (open positions marked to the last mid; a resolved market's
 *    positions settled into realized at 1 and 0, as a redemption) − fees, as the runner computed it
 *    at the end;
 *  - Sharpe: of the changes of total PnL per DAY when the run covers at least ten days
 *    (`DAILY_SHARPE_MIN_MS`), per HOUR when it is shorter: the PnL at each period's end (the last
 *    sample at or before it; 0 at the start) over the run's whole periods from its start (a last
 *    period short by under 1 % counts: the run's end is its end), mean / sample standard deviation
 *    of the changes, annualised by √(periods per year) with a 365.25-day year (prediction markets
 *    trade around the clock). `periods` says how many changes it is over: a short run has few (a
 *    30-minute run none: n/a) and the figure means little with under a few dozen. Not of 1-second
 *    changes: those annualise noise into ratios in the thousands. PnL changes, not returns: there
 *    is no capital base in market making that the ratio would be honest about. Null with fewer
 *    than `SHARPE_MIN_PERIODS` (10) changes (a standard deviation of two or three changes,
 *    annualised ×94, gave ratios like 752: trial 21 F8; `mmkit sweep --rank sharpe` ranked on
 *    them) or no variation;
 *  - max drawdown: the largest fall of total PnL from a running peak, over the samples;
 *  - fill ratio per quote: orders placed (accepted by the venue) that got at least one fill, over
 *    orders placed; also fills per order placed;
 *  - markouts at +1 s, +10 s, +60 s: for each fill, the token's mid that long after minus the fill
 *    price (BUY; price minus mid for a SELL), size-weighted over the fills whose later mid is known,
 *    in price units (1 = one unit of collateral per share). Positive: the market moved our way;
 *  - time at inventory limits: per token, the share of the run during which |position| was at or
 *    beyond the inventory limit (positions change only at fills, so this is exact from the fills);
 *  - orders and cancels against the budgets: per rate rule of the trading endpoints, the requests
 *    made and the most seen in one window, against the limit (spec section 8);
 *  - rewards (only when a traded market has a reward config): the liquidity rewards the run earned
 *    (`result.rewards.total`: src/backtest/rewards.ts), apart from the PnL above, which does not
 *    include them; pnlWithRewards = PnL + rewards.
 */
import { PRICE_SCALE } from '../core/units.ts';
import type { BacktestResult, FillStats, InventoryTime, Markout } from './types.ts';
import type { BudgetUse } from '../venues/sim/sim-budget.ts';

export type { InventoryTime, Markout } from './types.ts';

/** The Sharpe ratio of a run's PnL (see the module comment). */
export interface Sharpe {
  readonly value: number | null;
  /** The period of the PnL changes: a day, or an hour for a run shorter than ten days. */
  readonly period: 'day' | 'hour';
  readonly periodMs: number;
  /** How many changes (whole periods) the ratio is over. */
  readonly periods: number;
  readonly periodsPerYear: number;
}

/** The figures of a backtest. */
export interface Metrics {
  readonly durationMs: number;
  readonly fills: number;
  readonly makerFills: number;
  readonly takerFills: number;
  /** Shares traded, micro. */
  readonly volume: number;
  /** Collateral traded, micro (rounded down). */
  readonly notional: number;
  readonly fees: number;
  readonly realized: number;
  readonly unrealized: number;
  /** realized + unrealized − fees. */
  readonly pnl: number;
  readonly sharpe: Sharpe;
  readonly maxDrawdown: { readonly value: number; readonly peakAt: number | null; readonly troughAt: number | null };
  readonly orders: {
    readonly placed: number;
    readonly sent: number;
    readonly rejected: number;
    readonly cancelRequests: number;
    readonly idsCancelled: number;
    readonly filled: number;
  };
  /** Orders placed with at least one fill / orders placed (null: none placed). */
  readonly fillRatio: number | null;
  /** Fills / orders placed (null: none placed). */
  readonly fillsPerOrder: number | null;
  readonly markouts: readonly Markout[];
  readonly inventory: {
    /** The limit that binds (see BacktestResult.inventoryLimit), micro-shares. */
    readonly limit: number;
    readonly source: string;
    /** Markets whose own risk limits bind at another size, by condition id (absent: none). */
    readonly markets?: Readonly<Record<string, { readonly limit: number; readonly source: string }>>;
    readonly tokens: readonly InventoryTime[] /** Largest fraction over the tokens. */;
    readonly maxFraction: number;
  };
  readonly budgets: readonly (BudgetUse & { readonly utilisation: number })[];
  /** Liquidity rewards earned, micro-collateral (absent: no traded market has a reward config). */
  readonly rewards?: number;
  /** pnl + rewards (absent with `rewards`). */
  readonly pnlWithRewards?: number;
}

const YEAR_MS = 365.25 * 24 * 3600 * 1000;

/** Markout horizons, ms of virtual time after a fill (the runner records the mid at each). */
export const MARKOUT_HORIZONS_MS: readonly number[] = [1_000, 10_000, 60_000];

/** Rounds to 6 decimals so derived floats print the same everywhere. */
export function r6(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** A run at least this long is measured in daily PnL changes, a shorter one in hourly. */
export const DAILY_SHARPE_MIN_MS = 10 * DAY_MS;

/** The fewest PnL changes a Sharpe ratio is given over (fewer: null, n/a). */
export const SHARPE_MIN_PERIODS = 10;

/**
 * Sharpe of the PnL per day or hour (see the module comment): `values` sampled at times `t`
 * (ascending) over a run from `startMs` to `endMs`. A period wholly inside one of `gaps` (feeds
 * with no record for an hour or more: BacktestResult.gaps) is no PnL change: it is left out, and
 * the gaps' time does not count towards a daily period either (trial 23 F2: 68 empty hours between
 * two feeds made 68 changes of 0, and a Sharpe of 11.27 from one change).
 */
export function sharpeOf(
  t: readonly number[],
  values: readonly number[],
  startMs: number,
  endMs: number,
  gaps: readonly { readonly fromMs: number; readonly toMs: number }[] = [],
): Sharpe {
  const span = Math.max(0, endMs - startMs);
  let empty = 0;
  for (const g of gaps) empty += Math.max(0, Math.min(g.toMs, endMs) - Math.max(g.fromMs, startMs));
  const period: Sharpe['period'] = span - empty >= DAILY_SHARPE_MIN_MS ? 'day' : 'hour';
  const periodMs = period === 'day' ? DAY_MS : HOUR_MS;
  const periodsPerYear = r6(YEAR_MS / periodMs);
  const slack = periodMs / 100;
  const whole = Math.floor((span + slack) / periodMs);
  // the PnL at each period's end: the last sample at or before it (within the slack), 0 before any
  const at: number[] = [];
  let i = -1;
  for (let k = 0; k <= whole; k++) {
    const end = startMs + k * periodMs + (k === 0 ? 0 : slack);
    while (i + 1 < t.length && t[i + 1]! <= end) i++;
    at.push(i >= 0 ? values[i]! : 0);
  }
  // the changes of the periods with data (not wholly inside a gap)
  const changes: number[] = [];
  for (let k = 1; k <= whole; k++) {
    const from = startMs + (k - 1) * periodMs;
    const to = from + periodMs;
    if (!gaps.some((g) => g.fromMs <= from && to <= g.toMs)) changes.push(at[k]! - at[k - 1]!);
  }
  const n = changes.length;
  const out = { period, periodMs, periods: n, periodsPerYear };
  if (n < SHARPE_MIN_PERIODS) return { value: null, ...out };
  let sum = 0;
  for (const c of changes) sum += c;
  const mean = sum / n;
  let ss = 0;
  for (const c of changes) ss += (c - mean) * (c - mean);
  const sd = Math.sqrt(ss / (n - 1));
  return { value: sd > 0 ? r6((mean / sd) * Math.sqrt(periodsPerYear)) : null, ...out };
}

/** Largest fall from a running peak of `values` (at times `t`). */
export function maxDrawdownOf(
  values: readonly number[],
  t: readonly number[],
): { value: number; peakAt: number | null; troughAt: number | null } {
  let peak = -Infinity;
  let peakAt: number | null = null;
  let best = 0;
  let bestPeak: number | null = null;
  let bestTrough: number | null = null;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v > peak) {
      peak = v;
      peakAt = t[i] ?? null;
    }
    const dd = peak - v;
    if (dd > best) {
      best = dd;
      bestPeak = peakAt;
      bestTrough = t[i] ?? null;
    }
  }
  return { value: best, peakAt: bestPeak, troughAt: bestTrough };
}

/** Size-weighted markouts of the fills (see the module comment). */
export function markoutsOf(fills: BacktestResult['fills'], horizons: readonly number[]): Markout[] {
  return horizons.map((horizonMs, i) => {
    let wsum = 0;
    let size = 0;
    let n = 0;
    for (const f of fills) {
      const m = f.markouts[i];
      if (m === null || m === undefined) continue;
      const d = f.side === 'BUY' ? m - f.price : f.price - m;
      wsum += d * f.size;
      size += f.size;
      n++;
    }
    return { horizonMs, fills: n, avg: size > 0 ? r6(wsum / size / PRICE_SCALE) : null };
  });
}

/**
 * Time at the inventory limit per token, from the fills (positions change only at fills). `limit`
 * applies to every token but those in `tokenLimits` (a market with its own risk limits).
 */
export function inventoryTimeOf(
  fills: BacktestResult['fills'],
  limit: number,
  startMs: number,
  endMs: number,
  tokens: readonly string[],
  tokenLimits?: ReadonlyMap<string, number>,
): InventoryTime[] {
  const limitOf = (t: string): number => tokenLimits?.get(t) ?? limit;
  const pos = new Map<string, number>();
  const since = new Map<string, number>();
  const at = new Map<string, number>();
  const maxAbs = new Map<string, number>();
  for (const t of tokens) {
    pos.set(t, 0);
    at.set(t, 0);
    maxAbs.set(t, 0);
  }
  const sorted = [...fills].sort((a, b) => a.t - b.t);
  for (const f of sorted) {
    const t = f.tokenId;
    const before = pos.get(t) ?? 0;
    const after = before + (f.side === 'BUY' ? f.size : -f.size);
    const time = Math.min(Math.max(f.t, startMs), endMs);
    const limit = limitOf(t);
    if (Math.abs(before) >= limit && limit > 0) at.set(t, (at.get(t) ?? 0) + time - (since.get(t) ?? startMs));
    if (Math.abs(after) >= limit && limit > 0) since.set(t, time);
    pos.set(t, after);
    maxAbs.set(t, Math.max(maxAbs.get(t) ?? 0, Math.abs(after)));
  }
  const span = Math.max(0, endMs - startMs);
  const out: InventoryTime[] = [];
  for (const t of new Set([...tokens, ...pos.keys()])) {
    let ms = at.get(t) ?? 0;
    const limit = limitOf(t);
    if (limit > 0 && Math.abs(pos.get(t) ?? 0) >= limit) ms += endMs - (since.get(t) ?? startMs);
    out.push({
      tokenId: t,
      atLimitMs: Math.round(ms * 1000) / 1000,
      fraction: span > 0 ? r6(ms / span) : 0,
      maxAbs: maxAbs.get(t) ?? 0,
    });
  }
  return out;
}

/**
 * The fill-based figures from a COMPLETE list of fills, in time order (see the module comment: the
 * runner measures the same online; this is the definition, and what tests compare it with).
 */
export function fillStatsOf(
  fills: BacktestResult['fills'],
  limit: number,
  startMs: number,
  endMs: number,
  tokens: readonly string[],
  horizons: readonly number[] = MARKOUT_HORIZONS_MS,
  tokenLimits?: ReadonlyMap<string, number>,
): FillStats {
  let volume = 0;
  let notional = 0n;
  let fees = 0;
  let maker = 0;
  for (const f of fills) {
    volume += f.size;
    notional += BigInt(f.size) * BigInt(f.price);
    fees += f.fee;
    if (f.role === 'MAKER') maker++;
  }
  return {
    fills: fills.length,
    makerFills: maker,
    volume,
    notional: Number(notional / BigInt(PRICE_SCALE)),
    fees,
    markouts: markoutsOf(fills, horizons),
    inventory: inventoryTimeOf(fills, limit, startMs, endMs, tokens, tokenLimits),
  };
}

/** The figures of a backtest result (see the module comment). */
export function computeMetrics(r: BacktestResult): Metrics {
  const s = r.fillStats;
  const placed = r.orders.ordersAccepted;
  return {
    durationMs: r.endMs - r.startMs,
    fills: s.fills,
    makerFills: s.makerFills,
    takerFills: s.fills - s.makerFills,
    volume: s.volume,
    notional: s.notional,
    fees: s.fees,
    realized: r.pnl.realized,
    unrealized: r.pnl.unrealized,
    pnl: r.pnl.total,
    sharpe: sharpeOf(r.samples.t, r.samples.pnl.total, r.startMs, r.endMs, r.gaps),
    maxDrawdown: maxDrawdownOf(r.samples.pnl.total, r.samples.t),
    orders: {
      placed,
      sent: r.orders.ordersSent,
      rejected: r.orders.ordersRejected,
      cancelRequests: r.orders.cancelRequests,
      idsCancelled: r.orders.idsCancelled,
      filled: r.orders.ordersFilled,
    },
    fillRatio: placed > 0 ? r6(r.orders.ordersFilled / placed) : null,
    fillsPerOrder: placed > 0 ? r6(s.fills / placed) : null,
    markouts: s.markouts.map((x) => ({ ...x })),
    inventory: {
      limit: r.inventoryLimit.size,
      source: r.inventoryLimit.source,
      ...(r.inventoryLimit.markets !== undefined
        ? {
            markets: Object.fromEntries(
              Object.entries(r.inventoryLimit.markets).map(([id, l]) => [id, { limit: l.size, source: l.source }]),
            ),
          }
        : {}),
      tokens: s.inventory.map((x) => ({ ...x })),
      maxFraction: s.inventory.reduce((a, x) => Math.max(a, x.fraction), 0),
    },
    budgets: r.budgets.map((b) => ({ ...b, utilisation: b.limit > 0 ? r6(b.peak / b.limit) : 0 })),
    ...(r.rewards !== undefined ? { rewards: r.rewards.total, pnlWithRewards: r.pnl.total + r.rewards.total } : {}),
  };
}
