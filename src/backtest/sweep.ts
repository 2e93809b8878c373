/**
 * Parameter sweeps: one backtest per point of a grid of strategy parameters, run in worker
 * threads, ranked.
 *
 *   runSweep({ base: { feeds, strategy, ... }, grid: { margin: [0.01, 0.02], amount: [5, 10] }, workers: 2 })
 *
 * The grid is the cartesian product of the value lists (keys in the order given, the last key
 * varying fastest); each point's params are the base params with the point's values on top. Every
 * point is validated against the strategy's schema before anything runs (a ConfigError names the
 * key). Each run is a full, independent, deterministic backtest (its own store, its own venue), so
 * the ranking does not depend on the number of workers or on which worker ran what. A point's row
 * comes from the run's figures, which the runner measures online over every fill, so points run
 * with `maxFillRows: 0` (no fill rows kept) unless the base options set it.
 *
 * A point whose strategy threw, or placed no order because the risk gate refused all it asked for
 * (the runs `mmkit backtest` calls FAILED: ./report.ts `strategyFailure`), says nothing about its
 * parameters: its row carries the strategy's errors and the gate's refusals, it ranks after every
 * clean point (a PnL of 0 would otherwise rank it above every losing one), and `troubleNotes`
 * gives a line for each such point (stderr, `mmkit sweep`).
 *
 * Workers: `workers` threads (default: the cores less one, at most the number of points; 0 runs
 * everything in this thread). A worker is started from a small JavaScript bootstrap that registers
 * tsx and imports ./sweep-worker.ts, so TypeScript strategies and the sources load in workers as
 * they do in `mmkit` itself (bin/mmkit.js), from any working directory.
 *
 * Logs (`logLevel`, `mmkit sweep --log-level`): a logger cannot cross into a worker thread, so the
 * level travels as a string in each task and the worker builds the point's logger itself, as
 * `mmkit backtest --log-level` does (JSON lines on stderr, virtual time, the gate's memo off: the
 * same results). Each line carries `point: {index, params}` (the row's `index` and the point's grid
 * values), so the lines of points running at the same time in several workers can be told apart;
 * each line is one synchronous write to stderr (a pipe takes a line under 4 KiB whole), so the
 * lines of several workers do not interleave.
 */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { firstErrorText } from '../core/code-counts.ts';
import { ConfigError } from '../core/errors.ts';
import { loadStrategy } from '../strategy/loader.ts';
import { resolveParams } from '../strategy/params.ts';
import type { FeeProtocol } from '../core/fees.ts';
import { formatAmount } from '../core/units.ts';
import { computeMetrics, type Metrics, SHARPE_MIN_PERIODS } from './metrics.ts';
import { duration, effectiveRiskLimits, rewardUsd, runRulesText, strategyFailure, usd } from './report.ts';
import type { BacktestOptions, BacktestResult } from './runner.ts';
import type { EffectiveRiskLimits, WorldSpec } from './types.ts';
import { PACKAGE_ROOT_URL, RUNNING_COMPILED } from '../core/package-root.ts';

/** A grid: parameter name → the values to try. */
export type Grid = Readonly<Record<string, readonly (string | number | boolean)[]>>;

/** What to rank by. */
export type RankBy = 'pnl' | 'sharpe' | 'drawdown' | 'fills' | 'rewards' | 'total';
/** `total`: PnL + liquidity rewards; `rewards`: rewards alone (0 without rewarded markets). */
export const RANK_KEYS: readonly RankBy[] = ['pnl', 'sharpe', 'drawdown', 'fills', 'rewards', 'total'];

/** Options of a sweep. The base options must be plain data (they are sent to workers). */
export interface SweepOptions {
  readonly base: Omit<BacktestOptions, 'onProgress' | 'logger' | 'signal' | 'storePath'>;
  readonly grid: Grid;
  /** Worker threads (default: cores − 1, at least 1, at most the points; 0: in this thread). */
  readonly workers?: number;
  readonly rankBy?: RankBy;
  /**
   * Each point's engine, gate and strategy log lines at this pino level and above on stderr (see the
   * module comment); default: none.
   */
  readonly logLevel?: string;
  /** Called when a point finishes (or fails). */
  readonly onProgress?: (p: { done: number; total: number; failed: number }) => void;
}

/** One point's outcome. */
export interface SweepRow {
  /** Position in the grid (0-based, grid order). */
  readonly index: number;
  /** The grid values of this point. */
  readonly point: Readonly<Record<string, string | number | boolean>>;
  readonly pnl: number;
  readonly realized: number;
  readonly unrealized: number;
  readonly fees: number;
  readonly sharpe: number | null;
  readonly maxDrawdown: number;
  readonly fills: number;
  readonly ordersPlaced: number;
  readonly fillRatio: number | null;
  /** Size-weighted markout at +10 s, price units. */
  readonly markout10s: number | null;
  readonly atLimit: number;
  /** Why the run stopped (BacktestResult.stopReason); "kill switch: ..." when the kill switch stopped it (`killSwitched`). */
  readonly stopReason: string;
  /** The order protocol whose taker fee the venue charged (BacktestResult.feeProtocol); absent on a point that could not run. */
  readonly feeProtocol?: FeeProtocol;
  /** Liquidity rewards earned, micro (BacktestResult.rewards; absent when no traded market has a reward config). */
  readonly rewards?: number;
  /** Times the strategy erred (threw or returned an invalid output; its output dropped each time); 0 for a clean run. */
  readonly strategyErrors: number;
  /** The first of them: its message and where (file:line:column); absent when none. */
  readonly firstStrategyError?: { readonly message: string; readonly at?: string };
  /** Quotes the risk gate refused, by code, each time asked (BacktestResult.counts.quotesRefused); absent when none. */
  readonly quotesRefused?: Readonly<Record<string, number>>;
  /** Immediate orders (FOK/FAK) the risk gate refused; absent when none. */
  readonly ordersRefused?: number;
  /**
   * Set when the run says nothing about the strategy (it placed no order while it threw or while
   * the gate refused what it asked: ./report.ts strategyFailure): why. Ranked after the clean points.
   */
  readonly failed?: string;
  /** Set when the run failed (the other fields are then 0/null). */
  readonly error?: string;
}

/**
 * What every point of a sweep ran under, as a backtest's --json says it of its run: the source, the
 * fixed strategy params (each point's grid values go on top of them), seed, queue model (null for a
 * world), latency, the fee protocol the points were charged under (null when no point ran), post-only,
 * the effective risk limits, and the markets and window when given.
 */
export interface SweepConditions {
  readonly source: { readonly feeds?: readonly string[]; readonly world?: WorldSpec };
  readonly params: Readonly<Record<string, unknown>>;
  readonly seed: number;
  readonly queue: 'risk-averse' | 'probabilistic' | null;
  readonly latencyMs: number;
  readonly feeProtocol: FeeProtocol | null;
  readonly postOnly: boolean;
  readonly risk: EffectiveRiskLimits;
  readonly markets?: readonly string[];
  readonly fromMs?: number;
  readonly toMs?: number;
}

/** The ranked outcome of a sweep. */
export interface SweepResult {
  readonly strategy: string;
  readonly grid: Grid;
  readonly rankBy: RankBy;
  readonly points: number;
  /** What every point ran under (absent in a result written before it was said). */
  readonly conditions?: SweepConditions;
  /**
   * Best first: the clean points, then those whose strategy threw or failed (`strategyErrors`,
   * `failed`), then those that could not run (`error`, in grid order).
   */
  readonly rows: readonly SweepRow[];
}

/** A point of the grid as the worker receives it. */
export interface SweepTask {
  readonly index: number;
  /** The grid values of this point. */
  readonly point: Readonly<Record<string, string | number | boolean>>;
  readonly options: SweepOptions['base'];
  /** SweepOptions.logLevel: the worker builds the point's logger of it (a logger cannot be posted). */
  readonly logLevel?: string;
}

/** What a worker sends back. */
export type SweepMessage =
  | { readonly kind: 'done'; readonly index: number; readonly row: SweepRow }
  | { readonly kind: 'ready' };

/**
 * The points of a grid, in order (the last key varies fastest).
 * @throws ConfigError (key `sweep.grid`) on an empty grid or a key with no values
 */
export function gridPoints(grid: Grid): Array<Record<string, string | number | boolean>> {
  const keys = Object.keys(grid);
  if (keys.length === 0) throw new ConfigError('sweep.grid', 'the grid has no parameter');
  for (const k of keys) {
    const v = grid[k];
    if (!Array.isArray(v) || v.length === 0)
      throw new ConfigError(`sweep.grid.${k}`, 'needs a non-empty array of values');
    for (const x of v)
      if (typeof x !== 'string' && typeof x !== 'number' && typeof x !== 'boolean')
        throw new ConfigError(
          `sweep.grid.${k}`,
          `values must be numbers, strings or booleans, got ${JSON.stringify(x)}`,
        );
  }
  let out: Array<Record<string, string | number | boolean>> = [{}];
  for (const k of keys) {
    const next: Array<Record<string, string | number | boolean>> = [];
    for (const p of out) for (const v of grid[k]!) next.push({ ...p, [k]: v });
    out = next;
  }
  return out;
}

/** The row of one finished backtest. */
export function sweepRow(index: number, point: SweepRow['point'], r: BacktestResult, m: Metrics): SweepRow {
  const failure = strategyFailure(r, m);
  return {
    index,
    point,
    pnl: m.pnl,
    realized: m.realized,
    unrealized: m.unrealized,
    fees: m.fees,
    sharpe: m.sharpe.value,
    maxDrawdown: m.maxDrawdown.value,
    fills: m.fills,
    ordersPlaced: m.orders.placed,
    fillRatio: m.fillRatio,
    markout10s: m.markouts.find((x) => x.horizonMs === 10_000)?.avg ?? null,
    atLimit: m.inventory.maxFraction,
    stopReason: r.stopReason,
    feeProtocol: r.feeProtocol,
    ...(m.rewards !== undefined ? { rewards: m.rewards } : {}),
    strategyErrors: r.engine.errors.strategy,
    ...(r.engine.firstStrategyError !== undefined ? { firstStrategyError: r.engine.firstStrategyError } : {}),
    ...(r.counts.quotesRefused !== undefined ? { quotesRefused: r.counts.quotesRefused } : {}),
    ...(r.counts.ordersRefused !== undefined ? { ordersRefused: r.counts.ordersRefused } : {}),
    ...(failure !== undefined ? { failed: failure } : {}),
  };
}

/** True when the kill switch stopped a point's run (its figures cover the run up to the stop). */
export function killSwitched(r: SweepRow): boolean {
  return r.error === undefined && r.stopReason.startsWith('kill switch');
}

/**
 * The conditions of a sweep (see SweepConditions) of its base options and its rows (the fee
 * protocol is the one the points' runs were charged under: a feed's header says it). Feeds are
 * named by absolute path, so a distributed sweep (which sends them so) says the same as a local one.
 */
export function sweepConditions(
  base: SweepOptions['base'],
  rows: readonly SweepRow[],
  fixedParams: Readonly<Record<string, unknown>> = base.params ?? {},
): SweepConditions {
  const feeProtocol = rows.find((r) => r.feeProtocol !== undefined)?.feeProtocol ?? base.feeProtocol ?? null;
  return {
    source: base.world !== undefined ? { world: base.world } : { feeds: (base.feeds ?? []).map((f) => resolve(f)) },
    params: { ...fixedParams },
    seed: base.seed ?? 1,
    queue: base.world !== undefined ? null : (base.queue ?? 'risk-averse'),
    latencyMs: base.latencyMs ?? 0,
    feeProtocol,
    postOnly: base.postOnly === true,
    risk: effectiveRiskLimits(base.risk),
    ...(base.markets !== undefined ? { markets: [...base.markets] } : {}),
    ...(base.fromMs !== undefined ? { fromMs: base.fromMs } : {}),
    ...(base.toMs !== undefined ? { toMs: base.toMs } : {}),
  };
}

/** The row of a point that could not run (`error` says why). */
export function failedRow(index: number, point: SweepRow['point'], error: string): SweepRow {
  return {
    index,
    point,
    pnl: 0,
    realized: 0,
    unrealized: 0,
    fees: 0,
    sharpe: null,
    maxDrawdown: 0,
    fills: 0,
    ordersPlaced: 0,
    fillRatio: null,
    markout10s: null,
    atLimit: 0,
    stopReason: 'error',
    strategyErrors: 0,
    error,
  };
}

/**
 * The runner's logging options of a point with a `logLevel` (none without): a JSON logger on stderr
 * in the run's virtual time, its lines tagged with the point, and the gate's memo off (the gate logs
 * its refusals only without it; the results are the same), as `mmkit backtest --log-level`.
 */
async function pointLogging(task: SweepTask): Promise<Pick<BacktestOptions, 'makeLogger' | 'memoiseGate'>> {
  const level = task.logLevel;
  if (level === undefined || level === 'silent') return {};
  const [{ createLogger }, { default: pino }] = await Promise.all([import('../ops/logger.ts'), import('pino')]);
  const point = { index: task.index, params: task.point };
  return {
    makeLogger: (now) =>
      // synchronous: one write per line, so the lines of several workers never interleave
      createLogger({ level, format: 'json', now, destination: pino.destination({ dest: 2, sync: true }) }).child({
        point,
      }),
    memoiseGate: false,
  };
}

/** Runs one point in this thread. */
export async function runPoint(task: SweepTask): Promise<SweepRow> {
  try {
    const { runBacktest } = await import('./runner.ts');
    // a point's row needs the figures only (measured online over every fill), not the fill rows
    const r = await runBacktest({ maxFillRows: 0, ...task.options, ...(await pointLogging(task)) });
    return sweepRow(task.index, task.point, r, computeMetrics(r));
  } catch (e) {
    return failedRow(task.index, task.point, (e as Error)?.message ?? String(e));
  }
}

/**
 * How a row ranks before its key: 0 a clean point, 1 one whose strategy threw or failed (see
 * SweepRow.failed), 2 one that could not run.
 */
function tier(r: SweepRow): number {
  if (r.error !== undefined) return 2;
  return r.strategyErrors > 0 || r.failed !== undefined ? 1 : 0;
}

/**
 * True when a point's strategy threw or failed (placed no order while the gate refused what it
 * asked): it ranks after the clean points and gets a note (`troubleNotes`).
 */
export function troubled(r: SweepRow): boolean {
  return tier(r) === 1;
}

/** Orders rows best first by `rankBy` (ties: grid order); troubled rows after the clean ones, failed rows last. */
export function rankRows(rows: readonly SweepRow[], rankBy: RankBy): SweepRow[] {
  const key = (r: SweepRow): number => {
    switch (rankBy) {
      case 'pnl':
        return -r.pnl;
      case 'sharpe':
        return r.sharpe === null ? Infinity : -r.sharpe;
      case 'drawdown':
        return r.maxDrawdown;
      case 'fills':
        return -r.fills;
      case 'rewards':
        return -(r.rewards ?? 0);
      case 'total':
        return -(r.pnl + (r.rewards ?? 0));
    }
  };
  return [...rows].sort((a, b) => {
    const t = tier(a) - tier(b);
    if (t !== 0) return t;
    const d = key(a) - key(b);
    return d !== 0 && !Number.isNaN(d) ? d : a.index - b.index;
  });
}

/**
 * A note for stderr when the ranking key is missing on points (only Sharpe can be: it is n/a on a
 * run with fewer than ten hourly PnL changes, e.g. any run shorter than 10 hours), saying the order
 * used instead: such points rank after the others, in grid order. Undefined when nothing is missing.
 */
export function rankNote(s: SweepResult): string | undefined {
  if (s.rankBy !== 'sharpe') return undefined;
  const ok = s.rows.filter((r) => r.error === undefined);
  const na = ok.filter((r) => r.sharpe === null).length;
  if (na === 0) return undefined;
  const why = `it needs ${SHARPE_MIN_PERIODS} hourly PnL changes, a run of ${SHARPE_MIN_PERIODS} hours or more`;
  return na === ok.length
    ? `Sharpe is n/a on every point (${why}): the rows are in grid order, not ranked; rank by another key (--rank pnl|drawdown|...) or run longer`
    : `Sharpe is n/a on ${na} of ${ok.length} points (${why}): those are ranked last, in grid order`;
}

/**
 * One line per point whose strategy erred or failed (ranked order), for stderr: which point, what
 * went wrong (the first error and where; the gate's refusals by code), and that it ranks after the
 * clean points; and one per point the kill switch stopped (marked "KILL" in the table). Empty when
 * every point ran clean.
 */
export function troubleNotes(s: SweepResult): string[] {
  const out: string[] = [];
  for (const r of s.rows) {
    const point = Object.entries(r.point)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(' ');
    if (killSwitched(r))
      out.push(`point ${point}: STOPPED by the ${r.stopReason}; its figures cover the run up to the stop`);
    if (!troubled(r)) continue;
    const first = firstErrorText(r.firstStrategyError);
    const threw =
      r.strategyErrors > 0
        ? `the strategy erred ${r.strategyErrors} time(s) (threw or returned an invalid output)${first === '' ? '' : ` (first: ${first})`}`
        : '';
    const what = r.failed !== undefined ? `FAILED: ${r.failed}` : threw;
    out.push(`point ${point}: ${what}; ranked after the clean points`);
  }
  return out;
}

// A worker started from the sources registers tsx (and the source export condition) first; one
// started from dist/ runs the compiled worker as it is.
const BOOT = `const { workerData } = require('node:worker_threads');
(workerData.boot ? import(workerData.boot).then((m) => m.registerSourceMode()) : Promise.resolve())
  .then(() => import(workerData.entry)).catch((e) => { console.error(e); process.exit(1); });`;

/**
 * A worker thread that runs the points it is posted (./sweep-worker.ts: a `SweepTask` in, a
 * `SweepMessage` out; 'ready' first). Also used by the workers of distributed sweeps.
 */
export function startSweepThread(): Worker {
  const boot = RUNNING_COMPILED ? undefined : new URL('bin/source-mode.js', PACKAGE_ROOT_URL).href;
  const entry = new URL(RUNNING_COMPILED ? './sweep-worker.js' : './sweep-worker.ts', import.meta.url).href;
  return new Worker(BOOT, { eval: true, workerData: { boot, entry } });
}

/**
 * The points of a sweep as tasks (grid order), each point's params checked against the strategy's
 * schema first; and the strategy's name.
 * @throws ConfigError on a bad grid or a point whose params the strategy refuses
 */
export async function sweepTasks(
  o: Pick<SweepOptions, 'base' | 'grid' | 'logLevel'>,
): Promise<{ strategy: string; tasks: SweepTask[]; fixedParams: Record<string, unknown> }> {
  const points = gridPoints(o.grid);
  const def = await loadStrategy(o.base.strategy);
  for (const p of points) resolveParams(def.params, { ...(o.base.params ?? {}), ...p });
  // the fixed params as the strategy reads them (`--param micro=false` is the boolean false), for the conditions
  const base = o.base.params ?? {};
  const resolved: Readonly<Record<string, unknown>> = resolveParams(def.params, base);
  const fixedParams = Object.fromEntries(Object.keys(base).map((k) => [k, resolved[k] ?? base[k]]));
  const tasks: SweepTask[] = points.map((p, index) => ({
    index,
    point: p,
    options: { ...o.base, params: { ...(o.base.params ?? {}), ...p } },
    ...(o.logLevel !== undefined ? { logLevel: o.logLevel } : {}),
  }));
  return { strategy: def.name, tasks, fixedParams };
}

/**
 * Runs the sweep (see the module comment).
 * @throws ConfigError on a bad grid or a point whose params the strategy refuses (before running anything)
 */
export async function runSweep(o: SweepOptions): Promise<SweepResult> {
  const { strategy, tasks, fixedParams } = await sweepTasks(o);
  const points = tasks.map((t) => t.point);
  const rankBy = o.rankBy ?? 'pnl';
  // the feeds' decoded-event caches are built once here, not by every worker at the same time
  if (o.base.feeds !== undefined && o.base.feedCache !== undefined) {
    const { ensureFeedCaches } = await import('./feed-cache.ts');
    await ensureFeedCaches(o.base.feeds, o.base.feedCache);
  }
  const rows: SweepRow[] = new Array(points.length);
  let done = 0;
  let failed = 0;
  const finish = (row: SweepRow): void => {
    rows[row.index] = row;
    done++;
    if (row.error !== undefined) failed++;
    o.onProgress?.({ done, total: points.length, failed });
  };
  const n = Math.min(points.length, o.workers ?? Math.max(1, availableParallelism() - 1));
  if (n <= 0) {
    for (const t of tasks) finish(await runPoint(t));
  } else {
    await new Promise<void>((resolve, reject) => {
      let next = 0;
      let alive = 0;
      let settled = false;
      const give = (w: Worker): boolean => {
        if (next >= tasks.length) return false;
        const t = tasks[next++]!;
        inFlight.set(w, t);
        w.postMessage(t);
        return true;
      };
      const inFlight = new Map<Worker, SweepTask>();
      const end = (w: Worker): void => {
        inFlight.delete(w);
        void w.terminate();
        alive--;
        if (alive === 0 && !settled) {
          settled = true;
          resolve();
        }
      };
      for (let i = 0; i < n; i++) {
        const w = startSweepThread();
        alive++;
        w.on('message', (m: SweepMessage) => {
          if (m.kind === 'done') {
            inFlight.delete(w);
            finish(m.row);
          }
          if (!give(w)) end(w);
        });
        w.on('error', (e) => {
          const t = inFlight.get(w);
          if (t !== undefined) finish(failedRow(t.index, points[t.index]!, `worker failed: ${e.message}`));
          end(w);
        });
        w.on('exit', (code) => {
          if (!inFlight.has(w)) return;
          const t = inFlight.get(w)!;
          finish(failedRow(t.index, points[t.index]!, `worker exited with code ${code}`));
          end(w);
        });
      }
      void reject;
    });
    // tasks never handed out (every worker died): run them here
    for (const t of tasks) if (rows[t.index] === undefined) finish(await runPoint(t));
  }
  return {
    strategy,
    grid: o.grid,
    rankBy,
    points: points.length,
    conditions: sweepConditions(o.base, rows, fixedParams),
    rows: rankRows(rows, rankBy),
  };
}

/**
 * The lines under the table's title that say what every point ran under (SweepConditions), e.g.
 * "feed a.ndjson.gz, queue risk-averse, seed 1, latency 0 ms, fee protocol 2, post-only off, risk
 * limits default" and "fixed params: {"amount":5}"; none for a result without its conditions.
 */
export function conditionsLines(c: SweepConditions | undefined): string[] {
  if (c === undefined) return [];
  const feeds = c.source.feeds ?? [];
  const w = c.source.world;
  const source =
    w !== undefined
      ? `synthetic world ${w.seed}${w.profile !== undefined ? ` (${w.profile})` : ''}, ${duration(w.durationMs)}`
      : `feed ${feeds.length === 1 ? feeds[0] : `(${feeds.length} files: ${feeds.join(', ')})`}, queue ${c.queue ?? '-'}`;
  const window = [
    ...(c.fromMs !== undefined ? [`from ${new Date(c.fromMs).toISOString()}`] : []),
    ...(c.toMs !== undefined ? [`to ${new Date(c.toMs).toISOString()}`] : []),
  ].join(' ');
  const fee = c.feeProtocol === null ? '' : `, fee protocol ${c.feeProtocol}`;
  const rules = runRulesText({ ...(c.postOnly ? { postOnly: true as const } : {}), risk: c.risk });
  const params = Object.keys(c.params).length === 0 ? "none (the strategy's defaults)" : JSON.stringify(c.params);
  return [
    `${source}${window === '' ? '' : `, ${window}`}, seed ${c.seed}, latency ${c.latencyMs} ms${fee}${rules}`,
    `fixed params: ${params}${c.markets !== undefined ? `; markets ${c.markets.join(', ')}` : ''}`,
  ];
}

/**
 * The ranked table for the terminal. Money as `mmkit backtest`'s summary gives it (./report.ts:
 * signed PnL to the cent, fees exact); a point the kill switch stopped is marked KILL in a `stopped`
 * column (shown when some point was).
 */
export function formatSweepTable(s: SweepResult): string {
  const keys = Object.keys(s.grid);
  const killed = s.rows.some(killSwitched);
  // the rewards columns only when a point earned rewards (a market with a reward config)
  const rw = s.rows.some((r) => r.rewards !== undefined);
  // the strategy's errors and the gate's refusals only when a point threw or failed
  const tr = s.rows.some(troubled);
  const refusedOf = (r: SweepRow): number =>
    Object.values(r.quotesRefused ?? {}).reduce((a, n) => a + n, 0) + (r.ordersRefused ?? 0);
  const head = [
    '#',
    ...keys,
    'PnL',
    ...(rw ? ['rewards', 'PnL+rw'] : []),
    'realized',
    'fees',
    'Sharpe',
    'maxDD',
    'fills',
    'orders',
    'fill%',
    'mk+10s',
    'atLim%',
    ...(tr ? ['errors', 'refused'] : []),
    ...(killed ? ['stopped'] : []),
  ];
  const body = s.rows.map((r, i) =>
    r.error !== undefined
      ? [String(i + 1), ...keys.map((k) => String(r.point[k])), `error: ${r.error.slice(0, 60)}`]
      : [
          String(i + 1),
          ...keys.map((k) => String(r.point[k])),
          usd(r.pnl, true),
          ...(rw ? [rewardUsd(r.rewards ?? 0, true), usd(r.pnl + (r.rewards ?? 0), true)] : []),
          usd(r.realized, true),
          formatAmount(r.fees),
          r.sharpe === null ? 'n/a' : r.sharpe.toFixed(2),
          usd(r.maxDrawdown),
          String(r.fills),
          String(r.ordersPlaced),
          r.fillRatio === null ? 'n/a' : (r.fillRatio * 100).toFixed(1),
          r.markout10s === null ? 'n/a' : r.markout10s.toFixed(4),
          (r.atLimit * 100).toFixed(1),
          ...(tr ? [String(r.strategyErrors), String(refusedOf(r))] : []),
          ...(killed ? [killSwitched(r) ? 'KILL' : '-'] : []),
        ],
  );
  const widths = head.map((h, j) =>
    Math.max(h.length, ...body.map((row) => (row.length === head.length ? (row[j] ?? '').length : 0))),
  );
  const fmt = (row: string[]): string =>
    row.length === head.length
      ? row.map((c, j) => (j <= keys.length ? c.padEnd(widths[j]!) : c.padStart(widths[j]!))).join('  ')
      : row.join('  ');
  return (
    [
      `sweep of ${s.strategy}: ${s.points} points, ranked by ${s.rankBy} (money in USDC)`,
      ...conditionsLines(s.conditions),
      fmt(head),
      ...body.map(fmt),
    ].join('\n') + '\n'
  );
}
