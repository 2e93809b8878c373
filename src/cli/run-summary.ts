/**
 * What `mmkit run` (and `mmkit run --shadow`) report at exit: the ledger's figures of the session
 * and the epoch, the positions held, and why it stopped (one builder for both runs).
 */
import { codeCountsText, firstErrorText, sortedCounts } from '../core/code-counts.ts';
import { formatAmount, formatPrice } from '../core/units.ts';
import type { ConditionId, TokenId } from '../core/ids.ts';
import { tokenLabel } from '../core/labels.ts';
import type { MarketInfo } from '../core/venue.ts';
import type { EngineStats, StrategyCalls, StrategyTiming } from '../engine/loop.ts';
import type { FlatReport } from '../execution/executor.ts';
import type { TraderCounters } from '../kernel/types.ts';
import { epochVenueShown } from '../ops/venue-display.ts';
import { gateCountsOf } from '../ops/gate-counts.ts';
import { followedMarks } from '../risk/marks.ts';
import type { RoundTripStatus } from '../ops/round-trips.ts';
import type { SessionTradeStatus } from '../ops/session-trade-stats.ts';
import { rejectionsNotCountedOf, type RejectionsNotCountedStatus } from '../ops/status.ts';
import type { PnlReport } from '../store/positions.ts';
import type { LedgerEpoch, Store, StoreSummary } from '../store/store-types.ts';
import type { RunStop } from './run-stop.ts';

/** Figures of the ledger over a scope (this session, or the epoch); amounts are decimal strings. */
export interface LedgerFigures {
  ordersPlaced: number;
  ordersCancelled: number;
  ordersRejected: number;
  /** The bot's own fills; fills of orders it did not place are `externalFills`. */
  fills: number;
  externalFills: number;
  /** Shares and collateral traded by the bot's fills. */
  volume: string;
  notional: string;
  fees: string;
  /** Position adjustments to the venue's holdings, and split / merge / redeem operations. */
  adjustments: number;
  operations: number;
  /**
   * Liquidity rewards: paid by the venue (the epoch: all of its credits; the session: those booked
   * during it) and the bot's estimate of the dates not paid yet; total = paid + estimated.
   */
  rewards: { paid: string; estimated: string; total: string };
}

/**
 * What `mmkit run` reports at exit. The top-level order and fill figures and `realizedPnl` are THIS
 * SESSION's (this run's); `epoch` holds the ledger epoch's (this venue, world and account since the
 * epoch began), with its PnL at the last marks.
 */
export interface RunSummary {
  ordersPlaced: number;
  ordersCancelled: number;
  ordersRejected: number;
  /**
   * Of `ordersRejected`, the refusals the kill switch does not count (src/execution/executor.ts):
   * asks refused for lack of tokens while selling into a fill not seen yet (up to
   * SELL_RACE_TOLERANCE in a row per token), and post-only quotes refused as crossing.
   */
  rejectionsNotCounted: RejectionsNotCounted;
  /** Errors the engine counted against the strategy this run (a handler that threw or returned an invalid output: its output dropped). */
  strategyErrors: number;
  /** The first of them: its message and where it was thrown (`file:line:col`, null when unknown); null: none. */
  firstStrategyError: { message: string; at: string | null } | null;
  /**
   * How many times the engine called the strategy this run (each event it evaluated), erring or not:
   * `strategyErrors` equal to it (and not 0) is a strategy that erred on every evaluation
   * (`strategyFailedEveryTime`: `mmkit run` exits 1 then).
   */
  strategyEvaluations: number;
  /**
   * The strategy's handler times and the quotes and orders it asked the gate for, when the engine
   * measured them (`mmkit strategy check` only: EngineOptions.measureStrategy); absent otherwise.
   */
  strategyTiming?: StrategyTiming;
  /**
   * Quotes and immediate (FOK/FAK) orders the risk gate refused this run (never sent), by code, largest
   * first: the two together (a backtest counts them apart: quotes refused, immediate orders refused).
   */
  riskRefusals: Record<string, number>;
  /** Of those, the immediate (FOK/FAK) orders, by code; absent when none was refused. */
  immediateRefusals?: Record<string, number>;
  /** Quotes the risk gate approved with a smaller size this run, by the code of the limit that cut them. */
  riskTrims: Record<string, number>;
  fills: number;
  volume: string;
  notional: string;
  /** Realized PnL this session made: its own fills matched during it (store/summary.ts), before fees. */
  realizedPnl: string;
  /** Unrealized PnL of the positions held at exit, at the last marks. */
  unrealizedPnl: string;
  /** `since` and `until`: the session's start and stop (ISO 8601, UTC; what `backtest --from/--to` take). */
  session: LedgerFigures & { since: string; until: string; realizedPnl: string };
  epoch: LedgerFigures & {
    id: number;
    venue: string;
    world: string | null;
    since: string;
    realizedPnl: string;
    unrealizedPnl: string;
    /** Trading PnL before fees: realized + unrealized. */
    tradingPnl: string;
    /** Trading - fees + rewards (paid and estimated): what the epoch made, all told. */
    totalPnl: string;
    /** Positions held without a mark (their unrealized PnL is not counted). */
    unmarked: number;
  };
  /**
   * The UTC day's PnL as the daily loss limit last judged it (bot.risk.maxDailyLoss on and the day
   * opened): the loss limit's marks, net of fees, less the day's open; absent otherwise.
   */
  dayPnl?: { date: string; pnl: string };
  /** Positions of the epoch at exit (non-zero), with the last mark when there is one. */
  positionsAtExit: { market: string; tokenId: string; size: string; avgPrice: string; mark: string | null }[];
  /** True when the venue was seen with zero open orders of ours at exit (nothing in flight); positions may still be held. */
  noOrdersLeft: boolean;
  /**
   * Open orders seen at the venue at exit; null when unknown: it could not be checked (no listing
   * succeeded, or requests were still in flight).
   */
  openOrdersAtExit: number | null;
  /** Why it stopped, in words (`describeStop(stop)`). */
  reason: string;
  /** Why it stopped (the exit code follows from it: src/cli/run-stop.ts). */
  stop: RunStop;
  /**
   * The session's order and cancel round trips to the venue (src/ops/round-trips.ts; a backtest's
   * `--latency-ms` is about half the median); absent from a run that measures none (a shadow run).
   */
  orderRoundTrips?: RoundTripStatus;
  /**
   * The session's markouts, fill ratio and max drawdown, as a backtest measures them
   * (src/ops/session-trade-stats.ts); absent from a shadow run.
   */
  trading?: SessionTradeStatus;
  /** Token id → "Yes · Will …" of the markets traded: how the terminal names positions (not logged). */
  tokenLabels?: Record<string, string>;
  /** Each traded market's tokens in listing order (the first is YES) with their outcomes (not logged). */
  marketTokens?: Record<string, ReadonlyArray<{ readonly tokenId: string; readonly outcome: string }>>;
}

/** Rejections the kill switch does not count, by cause (see `RunSummary.rejectionsNotCounted`). */
export type RejectionsNotCounted = RejectionsNotCountedStatus;

/** The rejections not counted by the kill switch, from the executor's counters. */
export const rejectionsNotCounted = rejectionsNotCountedOf;

/**
 * "15 (12 sell-balance races and 3 post-only crossings, not counted by the kill switch)" (and FOK
 * orders the book could not fill whole: "2 FOK not filled whole"): the
 * rejected orders as the exit summary and `mmkit status` print them.
 */
export function describeRejections(rejected: number, n: RejectionsNotCounted | undefined): string {
  if (n === undefined || rejected === 0) return String(rejected);
  const parts: string[] = [];
  if (n.sellBalanceRaces > 0)
    parts.push(`${n.sellBalanceRaces} sell-balance race${n.sellBalanceRaces === 1 ? '' : 's'}`);
  if (n.postOnlyCrossings > 0)
    parts.push(`${n.postOnlyCrossings} post-only crossing${n.postOnlyCrossings === 1 ? '' : 's'}`);
  const fok = n.fokNotFilled ?? 0;
  if (fok > 0) parts.push(`${fok} FOK not filled whole`);
  if (parts.length === 0) return `${rejected} (all counted by the kill switch)`;
  const list = parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
  return `${rejected} (${list}, not counted by the kill switch)`;
}

/** The strategy's errors and the gate's refusals and trims of a run (`RunSummary`'s fields of them). */
export type IntentFigures = Pick<
  RunSummary,
  | 'strategyErrors'
  | 'firstStrategyError'
  | 'strategyEvaluations'
  | 'strategyTiming'
  | 'riskRefusals'
  | 'immediateRefusals'
  | 'riskTrims'
>;

/** No strategy error, nothing refused or cut. */
export const NO_INTENT_FIGURES: IntentFigures = {
  strategyErrors: 0,
  firstStrategyError: null,
  strategyEvaluations: 0,
  riskRefusals: {},
  riskTrims: {},
};

/**
 * A run's intent figures, from its engine's stats and strategy calls (an engine without
 * `strategyCalls` counts no evaluation) and the kernel's counters (createTrader's `counters`).
 */
export function intentFigures(
  engine: {
    stats(): Pick<EngineStats, 'errors' | 'firstStrategyError'>;
    strategyCalls?(): Pick<StrategyCalls, 'evaluations' | 'measured'>;
  },
  counters: Pick<TraderCounters, 'quotesRefused' | 'quotesTrimmed' | 'ordersRefusedByCode'>,
): IntentFigures {
  const e = engine.stats();
  const calls = engine.strategyCalls?.();
  const g = gateCountsOf(counters);
  const first = e.firstStrategyError;
  return {
    strategyErrors: e.errors.strategy,
    firstStrategyError: first === undefined ? null : { message: first.message, at: first.at ?? null },
    strategyEvaluations: calls?.evaluations ?? 0,
    riskRefusals: sortedCounts(g.refused),
    riskTrims: sortedCounts(g.trimmed),
    ...(Object.keys(counters.ordersRefusedByCode).length > 0
      ? { immediateRefusals: sortedCounts(counters.ordersRefusedByCode) }
      : {}),
    ...(calls?.measured !== undefined ? { strategyTiming: calls.measured } : {}),
  };
}

/**
 * "OFF_TICK x30, PRICE_BAND x2" (counts by code as every human-readable output prints them:
 * ../core/code-counts.ts), or "none".
 */
export function describeCounts(byCode: Readonly<Record<string, number>>): string {
  return codeCountsText(byCode) || 'none';
}

/** "30 (first: boom in onEvent at /x/bad.ts:15:44)": the strategy's errors as the exit summary prints them. */
export function describeStrategyErrors(n: number, first: RunSummary['firstStrategyError']): string {
  const text = firstErrorText(first);
  if (n === 0 || text === '') return String(n);
  return `${n} (first: ${text})`;
}

/**
 * True when the strategy erred on every evaluation of the run (it threw or returned an invalid output
 * each time the engine called it, at least once): a run that never traded as its strategy meant.
 * `mmkit run` exits 1 then, after its orderly shutdown (README "Exit codes").
 */
export function strategyFailedEveryTime(s: Pick<RunSummary, 'strategyErrors' | 'strategyEvaluations'>): boolean {
  return s.strategyErrors > 0 && s.strategyErrors >= s.strategyEvaluations;
}

/**
 * "FAILED: the strategy errored on every evaluation (30), first: boom in onEvent at /x/bad.ts:15:44":
 * the exit summary's line for such a run (`strategyFailedEveryTime`), or for one whose strategy erred
 * and placed no order in the session ("FAILED: the strategy threw 24 time(s) and placed no order"),
 * or undefined for any other.
 */
export function strategyFailureLine(
  s: Pick<RunSummary, 'strategyErrors' | 'strategyEvaluations' | 'firstStrategyError'> & {
    readonly ordersPlaced?: number;
  },
): string | undefined {
  const first = firstErrorText(s.firstStrategyError);
  const note = first === '' ? '' : `, first: ${first}`;
  if (strategyFailedEveryTime(s))
    return `FAILED: the strategy errored on every evaluation (${s.strategyErrors})${note}`;
  // it erred and never traded (it returned nothing on the events it ignored): as a backtest says it (trial 10 F14)
  if (s.strategyErrors > 0 && s.ordersPlaced === 0)
    return `FAILED: the strategy threw ${s.strategyErrors} time(s) and placed no order${note}`;
  return undefined;
}

/**
 * A ledger epoch's venue as the exit summary and `mmkit positions` show it: as /api/status does
 * (`epochVenueShown`: no `#chain`, no `user:password@` or query token of a configured URL); a venue
 * that is no URL (e.g. a test store's `paper`) as it is, without its chain.
 */
export function epochVenueText(venue: string): string {
  const shown = epochVenueShown(venue);
  return /^(?:shadow:|inprocess:)*$/.test(shown) ? venue.replace(/#\d+$/, '') : shown;
}

/** The ledger figures of a store summary, in decimal units. */
export function ledgerFigures(f: StoreSummary): LedgerFigures {
  return {
    ordersPlaced: f.ordersPlaced,
    ordersCancelled: f.ordersCancelled,
    ordersRejected: f.ordersRejected,
    fills: f.fills,
    externalFills: f.externalFills,
    volume: formatAmount(f.volume),
    notional: formatAmount(f.notional),
    fees: formatAmount(f.fees),
    adjustments: f.adjustments,
    operations: f.operations,
    rewards: {
      paid: formatAmount(f.rewardsPaid),
      estimated: formatAmount(f.rewardsEstimated),
      total: formatAmount(f.rewardsPaid + f.rewardsEstimated),
    },
  };
}

/**
 * The positions held (non-zero), with the last mark when there is one. The average price has the
 * venue's 6 decimals when `decimals` (the store's PositionDecimals) has the token, as `mmkit positions`.
 */
export function positionsAtExit(
  positions: readonly { market: string; tokenId: TokenId; size: number; avgPrice: number }[],
  marks: ReadonlyMap<TokenId, number>,
  decimals: readonly { tokenId: TokenId; avgPrice: string }[] = [],
): RunSummary['positionsAtExit'] {
  const avg = new Map(decimals.map((d) => [d.tokenId, d.avgPrice]));
  return positions
    .filter((x) => x.size !== 0)
    .map((p) => ({
      market: p.market,
      tokenId: p.tokenId,
      size: formatAmount(p.size),
      avgPrice: avg.get(p.tokenId) ?? formatPrice(p.avgPrice),
      mark: marks.has(p.tokenId) ? formatPrice(marks.get(p.tokenId)!) : null,
    }));
}

/**
 * The mids of the books of the markets traded (rounded pips; a resolved market at 1/0): the marks of the PnL; with `venueMarks`
 * (Trader.venueMarks: the venue's marks of the tokens held), a token of a market not traded is marked
 * at the venue's.
 */
export function midMarks(
  markets: readonly { market: string; tokens: readonly { tokenId: TokenId }[] }[],
  engine: {
    state: {
      book(t: TokenId): { mid: number | null } | null | undefined;
      winner?(m: ConditionId): TokenId | null | undefined;
    };
  },
  venueMarks: ReadonlyMap<TokenId, number> = new Map(),
): Map<TokenId, number> {
  // the rule of the loss limits' and the status's marks (src/risk/marks.ts): a resolved market at 1/0
  // (trial 25 F1's exit summary still said `mark=null` for a position the loss limit had marked at 0)
  const { marks, followed } = followedMarks(
    markets,
    (m) => engine.state.winner?.(m as ConditionId),
    (t) => {
      const mid = engine.state.book(t)?.mid;
      return mid == null ? undefined : Math.round(mid);
    },
    venueMarks,
  );
  for (const [t, mark] of venueMarks) if (!followed.has(t)) marks.set(t, mark);
  return marks;
}

/** The ledger at exit: the session ended, its figures and the epoch's, the positions held. */
export interface LedgerAtExit {
  readonly positionsAtExit: RunSummary['positionsAtExit'];
  /**
   * The summary (without `tokenLabels`), once the orders are known gone (or not); `notCounted`: the
   * executor's rejections not counted by the kill switch (none without an executor); `intents`: the
   * strategy's errors and the gate's refusals (`intentFigures`; none without).
   */
  summary(
    flat: FlatReport,
    reason: string,
    stop: RunStop,
    notCounted?: RejectionsNotCounted,
    intents?: IntentFigures,
  ): RunSummary;
}

/**
 * Ends the store's session at `now` and reads the ledger at exit at the last `marks`: the PnL, the
 * session's and the epoch's figures, the positions held.
 */
export function ledgerAtExit(
  store: Pick<Store, 'pnl' | 'endSession' | 'summary' | 'positions' | 'positionDecimals'>,
  o: {
    session: number;
    now: number;
    marks: ReadonlyMap<TokenId, number>;
    epoch: LedgerEpoch;
    realizedAtStart: number;
    runStartMs: number;
  },
): LedgerAtExit {
  const pnl = store.pnl(o.marks);
  store.endSession(o.session, o.now);
  // (with the realized PnL the session's own fills made: store/summary.ts)
  const session = store.summary({ scope: 'session', realized: true });
  const epochFigures = store.summary({ scope: 'epoch' });
  const held = positionsAtExit(store.positions(), o.marks, store.positionDecimals());
  return {
    positionsAtExit: held,
    summary: (flat, reason, stop, notCounted, intents) =>
      exitSummary({
        session,
        epochFigures,
        epoch: o.epoch,
        pnl,
        realizedAtStart: o.realizedAtStart,
        runStartMs: o.runStartMs,
        sessionEndMs: o.now,
        positionsAtExit: held,
        flat,
        reason,
        stop,
        ...(notCounted !== undefined ? { notCounted } : {}),
        ...(intents !== undefined ? { intents } : {}),
      }),
  };
}

/** The summary at exit (without `tokenLabels`), from the ledger's figures after the session ended. */
export function exitSummary(o: {
  session: StoreSummary;
  epochFigures: StoreSummary;
  epoch: LedgerEpoch;
  pnl: PnlReport;
  realizedAtStart: number;
  runStartMs: number;
  /** When the store's session ended (unix ms): the summary's `session.until`. */
  sessionEndMs: number;
  positionsAtExit: RunSummary['positionsAtExit'];
  flat: FlatReport;
  reason: string;
  stop: RunStop;
  notCounted?: RejectionsNotCounted;
  intents?: IntentFigures;
}): RunSummary {
  const { session: sessionFigures, epochFigures, epoch, pnl, realizedAtStart, flat } = o;
  const noOrdersLeft = flat.flat;
  // what the session made: its own fills' realized PnL (store/summary.ts), not the epoch's change since the
  // start, which external fills backfilled at start or adjustments move too (the latter without the former)
  const sessionRealized = formatAmount(sessionFigures.realized ?? pnl.realized - realizedAtStart);
  return {
    ordersPlaced: sessionFigures.ordersPlaced,
    ordersCancelled: sessionFigures.ordersCancelled,
    ordersRejected: sessionFigures.ordersRejected,
    rejectionsNotCounted: o.notCounted ?? { sellBalanceRaces: 0, postOnlyCrossings: 0 },
    ...(o.intents ?? NO_INTENT_FIGURES),
    fills: sessionFigures.fills,
    volume: formatAmount(sessionFigures.volume),
    notional: formatAmount(sessionFigures.notional),
    realizedPnl: sessionRealized,
    unrealizedPnl: formatAmount(pnl.unrealized),
    session: {
      ...ledgerFigures(sessionFigures),
      // the store's session start, as /api/status shows it (ledger.session.since); the run's start without one
      since: new Date(sessionFigures.since ?? o.runStartMs).toISOString(),
      until: new Date(o.sessionEndMs).toISOString(),
      realizedPnl: sessionRealized,
    },
    epoch: {
      ...ledgerFigures(epochFigures),
      id: epoch.id,
      // as /api/status shows it: no `#chain`, no credentials or query token of a configured URL
      venue: epochVenueText(epoch.venue),
      world: epoch.world,
      since: new Date(epoch.startedAt).toISOString(),
      realizedPnl: formatAmount(pnl.realized),
      unrealizedPnl: formatAmount(pnl.unrealized),
      tradingPnl: formatAmount(pnl.realized + pnl.unrealized),
      totalPnl: formatAmount(pnl.total + epochFigures.rewardsPaid + epochFigures.rewardsEstimated),
      unmarked: pnl.unmarked.length,
    },
    positionsAtExit: o.positionsAtExit,
    noOrdersLeft,
    openOrdersAtExit: noOrdersLeft ? 0 : flat.open.length > 0 ? flat.open.length : null,
    reason: o.reason,
    stop: o.stop,
  };
}

/**
 * How the terminal names the traded markets' tokens in the exit summary (`tokenLabels`: "Yes · Will
 * …", as the log lines) and each market's tokens (`marketTokens`): the same for `mmkit run` and its
 * shadow run. A position held at exit in a market the run did not quote (one of an earlier run of
 * the same ledger epoch) is named too when the venue's market listing has it (`listed`: what the
 * run listed at start), so the summary shows an id only where nothing names it, as `mmkit positions`.
 */
export function summaryLabels(
  markets: readonly MarketInfo[],
  o: { listed?: readonly MarketInfo[]; held?: ReadonlyArray<{ readonly market: string }> } = {},
): Required<Pick<RunSummary, 'tokenLabels' | 'marketTokens'>> {
  const quoted = new Set(markets.map((m) => m.market));
  const heldMarkets = new Set((o.held ?? []).map((p) => p.market));
  const others = (o.listed ?? []).filter((m) => heldMarkets.has(m.market) && !quoted.has(m.market));
  return {
    tokenLabels: Object.fromEntries(
      [...others, ...markets].flatMap((m) => m.tokens.map((t) => [t.tokenId, tokenLabel(t.outcome, m.question, 40)])),
    ),
    marketTokens: Object.fromEntries(
      markets.map((m) => [m.market, m.tokens.map((t) => ({ tokenId: t.tokenId, outcome: t.outcome }))]),
    ),
  };
}

/**
 * Each traded token's outcome ("Yes", "No", ...), by token id: how the fill and status log lines name
 * a token's side (the JSON lines carry the whole id and its outcome, not a prefix).
 */
export function tokenOutcomes(
  markets: readonly { tokens: readonly { tokenId: string; outcome: string }[] }[],
): ReadonlyMap<string, string> {
  return new Map(markets.flatMap((m) => m.tokens.map((t) => [t.tokenId, t.outcome] as const)));
}

/**
 * The status line's positions (non-zero): the whole token id (joinable with /api/status, /metrics
 * and the store), its market and, for a traded market, its outcome.
 */
export function statusPositions(
  positions: readonly { market: string; tokenId: string; size: number }[],
  outcomes: ReadonlyMap<string, string>,
): { token: string; outcome?: string; market: string; size: string }[] {
  return positions
    .filter((p) => p.size !== 0)
    .map((p) => {
      const outcome = outcomes.get(p.tokenId);
      return {
        token: p.tokenId,
        ...(outcome !== undefined ? { outcome } : {}),
        market: p.market,
        size: formatAmount(p.size),
      };
    });
}
