/**
 * `mmkit sweep`: a backtest per point of a grid of strategy parameters, in worker threads, ranked.
 *
 *   mmkit sweep --feed FILE... --strategy NAME|PATH --grid '{"margin":[0.01,0.02],"amount":[5,10]}'
 *               [--params JSON] [--param k=v]... [--workers N] [--rank pnl|sharpe|drawdown|fills|rewards|total] [--json]
 *               [--redis URL] [--log-level L]
 *
 * Takes every option of `mmkit backtest` that picks the data and the simulation (--world,
 * --duration, --seed, --queue, --latency-ms, --markets, --risk). Prints the ranked table, or with
 * --json one deterministic JSON document. A progress bar on stderr when it is a terminal.
 * With --redis the points go on a Redis queue for `mmkit sweep-worker` processes on any machine
 * (src/backtest/sweep-queue.ts); the table is the same as the local sweep's. `--log-level` shows
 * each point's engine, gate and strategy log lines on stderr as `mmkit backtest --log-level` does,
 * each tagged with its point (src/backtest/sweep.ts); local sweeps only.
 */
import { Option, type Command } from 'commander';
import { RANK_KEYS, formatSweepTable, rankNote, troubleNotes, type Grid, type RankBy } from '../backtest/sweep.ts';
import {
  addSourceOptions,
  backtestOptionsOf,
  checkFeedList,
  feedCacheMaxMb,
  ignoredEnvWarning,
  prepareFeedCache,
  pruneFeedCacheAfterRun,
  intIn,
  jsonObject,
  ProgressBar,
  type SourceCliOptions,
} from './backtest.ts';
import { windowFlagError } from './backtest-args.ts';
import { ExitCode, reportError, usageError } from './exit-codes.ts';

/** Options of `mmkit sweep` as commander hands them over. */
export interface SweepCliOptions extends SourceCliOptions {
  grid: Record<string, unknown>;
  workers?: number;
  rank: RankBy;
  /** --redis URL: a distributed sweep. */
  redis?: string;
  /** --log-level: each point's engine, gate and strategy log lines on stderr (default: none). */
  logLevel?: string;
}

/**
 * The grid of the --grid flag.
 * @throws CliError (usage) naming --grid when a value list is not a non-empty array of scalars
 */
export function gridOf(g: Record<string, unknown>): Grid {
  const out: Record<string, readonly (string | number | boolean)[]> = {};
  const keys = Object.keys(g);
  if (keys.length === 0) throw usageError('--grid needs at least one parameter, e.g. \'{"margin":[0.01,0.02]}\'');
  for (const k of keys) {
    const v = g[k];
    if (
      !Array.isArray(v) ||
      v.length === 0 ||
      !v.every((x) => typeof x === 'number' || typeof x === 'string' || typeof x === 'boolean')
    ) {
      throw usageError(`--grid: "${k}" must be a non-empty array of values, e.g. {"${k}": [1, 2]}`);
    }
    out[k] = v as (string | number | boolean)[];
  }
  return out;
}

/**
 * Refuses a parameter both varied by --grid and fixed by --params/--param (the grid's values would
 * silently win), as `mmkit backtest` refuses a key given twice. A configuration's `bot.params` are
 * the run's defaults, which the grid varies as --param overrides them: not refused.
 * @throws CliError (usage) naming the key and both flags
 */
export function refuseFixedGridKeys(grid: Grid, o: Pick<SourceCliOptions, 'params' | 'param'>): void {
  for (const k of Object.keys(grid)) {
    const flag =
      o.param !== undefined && Object.hasOwn(o.param, k)
        ? '--param'
        : o.params !== undefined && Object.hasOwn(o.params, k)
          ? '--params'
          : undefined;
    if (flag !== undefined)
      throw usageError(
        `--grid: "${k}" is given in ${flag} too (give each parameter once: in --grid to vary it, in ${flag} to fix it)`,
      );
  }
}

/** Runs `mmkit sweep`; resolves with the exit code. */
export async function sweepCommand(o: SweepCliOptions): Promise<number> {
  if (o.redis !== undefined && o.workers !== undefined)
    throw usageError('--workers applies to local sweeps; with --redis, start `mmkit sweep-worker` processes instead');
  if (o.redis !== undefined && o.logLevel !== undefined)
    throw usageError(
      '--log-level applies to local sweeps (the points of a distributed sweep run in `mmkit sweep-worker` processes)',
    );
  const distributed = o.redis !== undefined;
  const grid = gridOf(o.grid);
  refuseFixedGridKeys(grid, o);
  const ignored = ignoredEnvWarning('sweep', process.env, o.config !== undefined);
  if (ignored !== undefined) process.stderr.write(ignored);
  // a distributed sweep's coordinator decodes no feed: each worker uses its own feed cache
  const base = distributed ? backtestOptionsOf(o) : prepareFeedCache(backtestOptionsOf(o), 'sweep');
  await checkFeedList(base, 'sweep');
  // a window outside the feed is refused once, as `mmkit backtest` refuses it (exit 2), not by every point
  if (!distributed && base.feeds !== undefined) {
    const { checkFeedWindow } = await import('../backtest/feed-driver.ts');
    await checkFeedWindow({
      files: base.feeds,
      fromMs: base.fromMs,
      toMs: base.toMs,
      feedCache: base.feedCache,
    }).catch((e: unknown) => {
      throw windowFlagError(e);
    });
  }
  const maxMb = feedCacheMaxMb(o);
  const startedAt = Date.now();
  // no progress bar between log lines
  const bar = new ProgressBar(process.stderr.isTTY === true && (o.logLevel === undefined || o.logLevel === 'silent'));
  const onProgress = (p: { done: number; total: number; failed: number }): void =>
    bar.draw(p.done / p.total, `${p.done}/${p.total} backtests${p.failed > 0 ? `, ${p.failed} failed` : ''}`, true);
  let result;
  try {
    if (o.redis !== undefined) {
      const { checkRedisUrl, redactRedisUrl } = await import('../fleet/redis.ts');
      const url = checkRedisUrl(o.redis);
      const { runQueuedSweep } = await import('../backtest/sweep-queue.ts');
      result = await runQueuedSweep({
        base,
        grid,
        rankBy: o.rank,
        redisUrl: url,
        onProgress,
        onNoWorkers: (queue) =>
          process.stderr.write(
            `mmkit sweep: no worker on queue ${queue} yet; start \`mmkit sweep-worker --redis ${redactRedisUrl(url)}\` (same code and Node.js) on any machine\n`,
          ),
      });
    } else {
      const { runSweep } = await import('../backtest/sweep.ts');
      result = await runSweep({
        base,
        grid,
        rankBy: o.rank,
        ...(o.workers !== undefined ? { workers: o.workers } : {}),
        ...(o.logLevel !== undefined ? { logLevel: o.logLevel } : {}),
        onProgress,
      });
    }
  } finally {
    bar.clear();
  }
  if (!distributed) pruneFeedCacheAfterRun(base, maxMb, startedAt, 'sweep');
  if (o.json) process.stdout.write(JSON.stringify(result) + '\n');
  else process.stdout.write(formatSweepTable(result));
  const note = rankNote(result);
  if (note !== undefined) process.stderr.write(`mmkit sweep: ${note}\n`);
  for (const line of troubleNotes(result)) process.stderr.write(`mmkit sweep: ${line}\n`);
  process.stderr.write(`mmkit sweep: ${result.points} backtests in ${bar.elapsedSec.toFixed(2)} s wall\n`);
  // a point that could not run, or whose strategy placed no order while it threw or the gate
  // refused what it asked (`mmkit backtest` exits 1 on such a run), fails the sweep
  return result.rows.every((r) => r.error === undefined && r.failed === undefined) ? ExitCode.OK : ExitCode.FAILURE;
}

/** Registers `mmkit sweep` on the program. */
export function register(program: Command): void {
  const cmd = program
    .command('sweep')
    .description('backtest every point of a grid of strategy parameters in worker threads, and rank them');
  cmd.addHelpText(
    'after',
    `
Examples:
  mmkit sweep --feed test/fixtures/sample-feed.ndjson.gz --strategy bands --grid '{"margin":[0.01,0.02,0.03],"amount":[5,10]}'
  mmkit sweep --world 1 --duration 2h --strategy avellaneda --grid '{"riskAversion":[0.5,1,2]}' --workers 2 --rank sharpe --json

Results do not depend on --workers. With --redis URL the points go on a Redis queue and
\`mmkit sweep-worker --redis URL\` processes run them on any machine (same code, Node.js and feed
paths); the table is the same as the local sweep's. A point whose strategy erred (threw or returned
an invalid output), or placed no order because the risk gate refused what it asked, gets a line on
stderr and ranks after the clean points; a point the kill switch stopped is marked KILL in the table
and gets a line on stderr. A parameter given both in --grid and in --params/--param is refused.
Exit codes: 0 done, 1 a point failed (it could not run, or its strategy placed no order while it
erred or the gate refused everything), 2 usage or configuration error.
`,
  );
  addSourceOptions(cmd)
    .requiredOption(
      '--grid <json>',
      'the grid: a JSON object of parameter -> list of values, e.g. \'{"margin":[0.01,0.02]}\'',
      jsonObject('--grid'),
    )
    .option('--workers <n>', 'worker threads (default: cores - 1; 0 runs in this thread)', intIn('--workers', 0, 256))
    .addOption(new Option('--rank <key>', 'rank by').choices([...RANK_KEYS]).default('pnl'))
    .option('--json', 'print one deterministic JSON document instead of the table')
    .option('--redis <url>', 'a distributed sweep: queue the points in this Redis for `mmkit sweep-worker` processes')
    .addOption(
      new Option(
        '--log-level <level>',
        "show each point's engine, risk gate and strategy (ctx.log) log lines at this level and above on stderr, as JSON lines with virtual time and the point ({index, params}); local sweeps only (default: none)",
      ).choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    )
    .action(async (o: SweepCliOptions) => {
      let code: number;
      try {
        code = await sweepCommand(o);
      } catch (err) {
        code = reportError(err, { json: o.json === true });
      }
      process.exit(code);
    });
}
