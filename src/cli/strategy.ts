/**
 * `mmkit strategy new NAME`: scaffold a strategy plugin and its vitest test from
 * strategies/template.ts (into strategies/ when the working directory has one, else ./; --dir to
 * choose). `mmkit strategy check PATH`: load a plugin, validate its params, run it briefly through
 * the real daemon (runBot: engine, risk gate, execution, store) against an in-process paper
 * exchange with a throwaway paper wallet and data directory, and report what it quoted.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Writable } from 'node:stream';
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { codeCountsText, countsTotal, firstErrorText, sortedCounts } from '../core/code-counts.ts';
import { formatAmount, formatPrice } from '../core/units.ts';
import type { StrategyTiming } from '../engine/loop.ts';
import { loadStrategy } from '../strategy/loader.ts';
import { describeParams, resolveParams } from '../strategy/params.ts';
import { parseDuration, loadConfig } from './config.ts';
import { action, printJson, positiveInt } from './common.ts';
import { EXIT_CODES_HELP, ExitCode, usageError } from './exit-codes.ts';
import { describeRanges, quoteRanges } from './quote-ranges.ts';
import type { RunSummary } from './run-summary.ts';
import { pluginApiSpecifier, pluginSource, STRATEGY_NAME_RE, testSource } from './strategy-scaffold.ts';

/** One order the strategy placed during the check (decimal strings). */
export interface CheckedOrder {
  market: string;
  tokenId: string;
  side: string;
  price: string;
  size: string;
  status: string;
  rejectCode: string | null;
  /** GTC / GTD (quotes) or FOK / FAK (immediate orders). */
  type: string;
  /** Shares matched, decimal. */
  matched: string;
}

/** The orders the bot recorded in a store file (read-only). */
/**
 * The venue's rejections by code, with the post-only quotes it refused as crossing added (the
 * kernel logs those once per cycle, with their count in `rejected` and their code: not as
 * 'order rejected' lines, since they are no error).
 */
function withPostOnly(
  byCode: Record<string, number>,
  lines: readonly Record<string, unknown>[],
): Record<string, number> {
  for (const l of lines) {
    const n = l['rejected'];
    if (l['code'] !== 'INVALID_POST_ONLY_ORDER' || typeof n !== 'number') continue;
    byCode['INVALID_POST_ONLY_ORDER'] = (byCode['INVALID_POST_ONLY_ORDER'] ?? 0) + n;
  }
  return byCode;
}

function ordersIn(file: string): CheckedOrder[] {
  if (!existsSync(file)) return [];
  // loaded when a check has run, not when the CLI starts (`mmkit --help` registers this command)
  const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const rows = db
      .prepare(
        'SELECT market, token, side, price, size, status, reject_code, type, size_matched FROM orders ORDER BY created_at, id',
      )
      .all() as Array<{
      market: string;
      token: string;
      side: string;
      price: number;
      size: number;
      status: string;
      reject_code: string | null;
      type: string;
      size_matched: number;
    }>;
    return rows.map((r) => ({
      market: r.market,
      tokenId: r.token,
      side: r.side,
      price: formatPrice(r.price),
      size: formatAmount(r.size),
      status: r.status,
      rejectCode: r.reject_code,
      type: r.type,
      matched: formatAmount(r.size_matched),
    }));
  } finally {
    db.close();
  }
}

/**
 * The strategy's errors in a check: the exact count (the run's summary: the engine's counter) and the
 * first, with whether it threw or returned an invalid output (the engine's log lines: 'strategy
 * handler threw' or 'strategy output invalid', src/engine/output-check.ts).
 */
export interface StrategyErrors {
  /** How many times it threw or returned an invalid output (exact: the engine's counter). */
  count: number;
  /**
   * The first error: its message, where it was thrown (file:line:column; null when unknown or for an
   * invalid output) and whether the handler threw or returned an invalid output.
   */
  first: { message: string; at: string | null; kind: 'threw' | 'invalid output' } | null;
}

const STRATEGY_ERROR_LINES: Readonly<Record<string, 'threw' | 'invalid output'>> = {
  'strategy handler threw (output dropped)': 'threw',
  'strategy output invalid (output dropped)': 'invalid output',
};

/**
 * The strategy's errors of a check: the count and the first from the run's summary, the kind of the
 * first from the log lines (the first error line; else from its message: an invalid output's starts
 * with `invalid output:`).
 */
export function strategyErrorsOf(
  summary: Pick<RunSummary, 'strategyErrors' | 'firstStrategyError'>,
  lines: readonly Record<string, unknown>[],
): StrategyErrors {
  const first = summary.firstStrategyError;
  if (first === null) return { count: summary.strategyErrors, first: null };
  let kind: 'threw' | 'invalid output' | undefined;
  for (const l of lines) {
    kind = STRATEGY_ERROR_LINES[String(l['msg'])];
    if (kind !== undefined) break;
  }
  kind ??= first.message.startsWith('invalid output:') ? 'invalid output' : 'threw';
  return { count: summary.strategyErrors, first: { message: first.message, at: first.at, kind } };
}

/** Counts by code of the log lines with one of `msgs` (most first), and the first reason given for each code. */
export function byCodeIn(
  lines: readonly Record<string, unknown>[],
  ...msgs: string[]
): { counts: Record<string, number>; firstReasons: Record<string, string> } {
  const counts: Record<string, number> = {};
  const firstReasons: Record<string, string> = {};
  for (const l of lines) {
    if (!msgs.includes(String(l['msg']))) continue;
    const code = String(l['code'] ?? '?');
    counts[code] = (counts[code] ?? 0) + 1;
    if (firstReasons[code] === undefined && typeof l['reason'] === 'string') firstReasons[code] = l['reason'];
  }
  return { counts: sortedCounts(counts), firstReasons };
}

/** The slowest handler call a check lets pass without a warning (README rule 4, "cheap handlers"), ms. */
export const SLOW_HANDLER_MS = 100;

/** A time in ms as "401 ms", "12 ms", "0.35 ms". */
function ms(x: number): string {
  return x >= 10 ? `${Math.round(x)} ms` : `${Number(x.toPrecision(2))} ms`;
}

/**
 * The check's warnings (it stays ok): most of what the strategy asked the gate for was refused
 * (`most quotes refused: OFF_TICK x30 of 31`; all of them: `every quote refused`), or exactly half (`half the quotes refused`); every
 * immediate (FOK/FAK) order it asked for was refused (`immediate`: those refused by code and those
 * sent; the quotes resting meanwhile would hide a dead taking leg in the first count: trial 21 F7);
 * its slowest `onEvent` took over SLOW_HANDLER_MS.
 */
export function checkWarnings(
  refusals: Readonly<Record<string, number>>,
  timing: StrategyTiming | undefined,
  immediate?: { readonly refused: Readonly<Record<string, number>>; readonly sent: number },
): string[] {
  const out: string[] = [];
  if (immediate !== undefined && immediate.sent === 0 && countsTotal(immediate.refused) > 0)
    out.push(
      `every immediate order refused: ${codeCountsText(immediate.refused)} of ${countsTotal(immediate.refused)} (none reached the venue)`,
    );
  const refused = countsTotal(refusals);
  if (timing !== undefined && refused * 2 > timing.asked)
    out.push(
      `${refused >= timing.asked ? 'every quote' : 'most quotes'} refused: ${codeCountsText(refusals)} of ${timing.asked}`,
    );
  // exactly half: a two-sided quoter with one side (or one token) refused every time (trial 10 F4)
  else if (timing !== undefined && refused > 0 && refused * 2 === timing.asked)
    out.push(
      `half the quotes refused: ${codeCountsText(refusals)} of ${timing.asked} (one side or one token refused every time?)`,
    );
  if (timing !== undefined && timing.slowestMs > SLOW_HANDLER_MS)
    out.push(
      `slow handler: the slowest onEvent took ${ms(timing.slowestMs)} (over ${SLOW_HANDLER_MS} ms: handlers must be cheap, README "Rules")`,
    );
  return out;
}

/**
 * The command that runs a scaffold's test: mmkit's vitest runs the tests under its strategies/ (a
 * project of its config) by path; a folder of the user's needs `--root` (the config's projects do
 * not include it), run from the mmkit checkout where vitest is installed (trial 10 F10). (A folder
 * inside the checkout but outside strategies/ would get the checkout's config: keep plugins in
 * strategies/ or outside.)
 */
export function testCommand(dir: string, name: string, root: string = packageRoot()): string {
  const test = join(dir, `${name}.test.ts`);
  const rel = relative(join(root, 'strategies'), test);
  if (!rel.startsWith('..') && !isAbsolute(rel)) return `npx vitest run ${test}`;
  return `cd ${root} && npx vitest run --root ${dir} ${name}.test.ts`;
}

/** The mmkit checkout or package this file belongs to (src/cli/ or dist/src/cli/ below it). */
function packageRoot(): string {
  let d = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (existsSync(join(d, 'package.json')) && existsSync(join(d, 'bin', 'mmkit.js'))) return d;
    d = dirname(d);
  }
  return process.cwd();
}

/** A `--param key=value` flag (repeatable) into a record. */
export function paramArg(v: string, prev: Record<string, string> = {}): Record<string, string> {
  const i = v.indexOf('=');
  if (i <= 0) throw new InvalidArgumentError('--param takes key=value');
  return { ...prev, [v.slice(0, i)]: v.slice(i + 1) };
}

interface NewOptions {
  dir?: string;
  force?: boolean;
  json?: boolean;
}

interface CheckOptions {
  config?: string;
  param?: Record<string, string>;
  duration: string;
  markets?: string;
  marketCount: number;
  seed?: number;
  keep?: boolean;
  logLevel?: string;
  json?: boolean;
}

export function register(program: Command): void {
  const strategy = program.command('strategy').description('scaffold (new) and try out (check) strategy plugins');
  strategy.addHelpText(
    'after',
    `
Examples:
  mmkit strategy new my-quoter            # strategies/my-quoter.ts + strategies/my-quoter.test.ts
  npx vitest run strategies/my-quoter.test.ts
  mmkit strategy check strategies/my-quoter.ts --param halfSpread=0.03
  mmkit run --strategy ./strategies/my-quoter.ts
${EXIT_CODES_HELP}`,
  );

  strategy
    .command('new')
    .description(
      'scaffold NAME.ts (from strategies/template.ts) and NAME.test.ts (vitest) in strategies/ (when present) or ./',
    )
    .argument('<name>', 'file name of the plugin: a letter, then letters, digits, - or _')
    .option('--dir <dir>', 'where to write the two files (default: ./strategies if it exists, else .)')
    .option('--force', 'overwrite existing files')
    .option('--json', 'print {plugin, test} paths as JSON')
    .addHelpText(
      'after',
      `
The plugin imports mmkit's strategy API relative to where it is written, so it runs as is:
  mmkit run --strategy ./strategies/NAME.ts     (or --strategy NAME inside the mmkit project)

Examples:
  mmkit strategy new my-quoter
  mmkit strategy new my-quoter --dir ~/bots
${EXIT_CODES_HELP}`,
    )
    .action(
      action(async (name: string, o: NewOptions) => {
        if (!STRATEGY_NAME_RE.test(name))
          throw usageError(
            `strategy name ${JSON.stringify(name.slice(0, 70))}: use a letter, then letters, digits, - or _ (it becomes the file name)`,
          );
        if (name === 'template') throw usageError('"template" is the name of the template itself: pick another');
        const dir = resolve(
          o.dir ?? (existsSync('strategies') && statSync('strategies').isDirectory() ? 'strategies' : '.'),
        );
        mkdirSync(dir, { recursive: true });
        const plugin = join(dir, `${name}.ts`);
        const test = join(dir, `${name}.test.ts`);
        for (const f of [plugin, test])
          if (existsSync(f) && !o.force) throw usageError(`${f} exists: pass --force to overwrite it`);
        const api = pluginApiSpecifier(dir);
        writeFileSync(plugin, pluginSource(name, api));
        writeFileSync(test, testSource(name, api));
        if (o.json) printJson({ name, plugin, test });
        else
          process.stdout.write(
            `wrote ${plugin}\nwrote ${test}\nnext:\n  ${testCommand(dir, name)}\n  mmkit strategy check ${plugin}\n  mmkit run --strategy ${plugin}\n`,
          );
      }),
    );

  strategy
    .command('check')
    .description(
      'load a plugin, validate its params, run it briefly against an in-process paper exchange and report what it quoted',
    )
    .argument('<path>', 'the plugin file (or a shipped name, e.g. bands)')
    .option('--param <key=value>', 'a strategy parameter (repeatable)', paramArg)
    .option('--config <file>', 'take bot.params and bot.risk from this config file (flags win)')
    .option('--duration <d>', 'how long to run: 8s, 30s, 1m', '8s')
    .option(
      '--markets <ids>',
      "comma-separated condition ids of the paper world (default: the strategy's choice, selectMarkets, else the most liquid)",
    )
    .option('--market-count <n>', 'how many markets to pick without --markets', positiveInt('--market-count', 20), 2)
    .option('--seed <n>', 'paper world seed [bot.seed]', positiveInt('--seed', 2 ** 31))
    .option('--keep', 'keep the temporary data directory (store, paper wallet) and print its path')
    .addOption(
      new Option(
        '--log-level <level>',
        "also show the daemon's log lines at this level and above on stderr, as JSON lines: the strategy's own (ctx.log, component strategy), the risk gate's refusals (debug), the venue's (default: none)",
      ).choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace']),
    )
    .option('--json', 'print the report as JSON')
    .addHelpText(
      'after',
      `
The run uses the real daemon (engine, risk gate, execution, SQLite store) with a throwaway paper
wallet and data directory, so nothing of yours is touched. Exit code 0 when the strategy loaded,
its params were valid, it placed at least one order, never threw and left no order open; 1 when
it threw (the first error named, with its file:line) or returned an invalid output (why named),
quoted nothing or left orders open (a create() that throws is such an error too: 1); 2 for a load
or params error (naming bot.params.<key>).
Refusals count quotes and immediate (FOK/FAK) orders the risk gate refused, by code, with the
gate's first reason for each. The report gives the slowest onEvent call and the p99 of its times;
it warns (still exit 0) when the gate refused half or more of what the strategy asked for, or
when a call took over ${SLOW_HANDLER_MS} ms (handlers must be cheap).

Examples:
  mmkit strategy check strategies/bands.ts
  mmkit strategy check ./my-quoter.ts --param halfSpread=0.03 --duration 20s --json
${EXIT_CODES_HELP}`,
    )
    .action(
      action(async (path: string, o: CheckOptions) => {
        const durationMs = parseDuration(o.duration);
        if (durationMs === undefined || durationMs < 1000 || durationMs > 3_600_000)
          throw usageError('--duration takes 1s to 1h, e.g. 8s, 30s, 2m');
        const cfg = loadConfig(o.config);
        const def = await loadStrategy(path);
        const given = { ...(o.config ? cfg.bot.params : {}), ...(o.param ?? {}) };
        const params = resolveParams(def.params, given);
        const dataDir = mkdtempSync(join(tmpdir(), 'mmkit-strategy-check-'));
        if (!o.json) {
          process.stderr.write(
            Object.keys(def.params).length === 0
              ? `mmkit: ${def.name}: no params\n`
              : `mmkit: ${def.name}: params ok\n${describeParams(def.params).join('\n')}\n`,
          );
          process.stderr.write(
            `mmkit: running ${def.name} for ${o.duration} against an in-process paper exchange...\n`,
          );
        }
        // the daemon logs into memory: the gate's reasons, the venue's rejections and the kind of the
        // strategy's first error are read from its lines for the report
        const lines: Array<Record<string, unknown>> = [];
        const { pino } = await import('pino');
        // --log-level: the lines at that level and above are also shown as they come (trial 10 F6)
        const shown = o.logLevel === undefined ? Infinity : pino.levels.values[o.logLevel]!;
        const sink = new Writable({
          write(chunk, _enc, cb) {
            for (const l of String(chunk).split('\n')) {
              if (l.trim() === '') continue;
              try {
                const line = JSON.parse(l) as Record<string, unknown>;
                lines.push(line);
                if (typeof line['level'] === 'number' && line['level'] >= shown) process.stderr.write(`${l}\n`);
              } catch {
                /* not JSON: ignore */
              }
            }
            cb();
          },
        });
        const logger = pino({ level: 'debug' }, sink);
        // a check never signs with the operator's real key: the throwaway paper wallet only
        delete process.env['MMKIT_PRIVATE_KEY'];
        const { runBot } = await import('./run.ts');
        let summary;
        try {
          summary = await runBot(
            {
              strategy: path,
              params,
              markets: o.markets
                ? o.markets
                    .split(',')
                    .map((x) => x.trim())
                    .filter(Boolean)
                : [],
              marketCount: o.marketCount,
              // the operator's bot.marketFilters (file, environment) as `mmkit run` applies them
              marketFilters: cfg.bot.marketFilters,
              durationMs,
              dataDir,
              exchangeUrl: '',
              chainId: cfg.bot.chainId,
              statusIntervalMs: 60_000,
              tolerance: cfg.bot.tolerance,
              risk: cfg.bot.risk,
              restartPolicy: 'cancel',
              // quotes as `mmkit run` sends them (bot.postOnly); a throwaway wallet has no foreign orders
              postOnly: cfg.bot.postOnly,
              keystoreFile: '',
              seed: o.seed ?? cfg.bot.seed,
              // the engine times the strategy's handler and counts what it asks the gate for
              measureStrategy: true,
            },
            logger,
          );
        } catch (e) {
          // a load or config error (exit 2) or a failed start (exit 1/3): nothing to keep
          if (!o.keep) rmSync(dataDir, { recursive: true, force: true });
          throw e;
        }
        const orders = ordersIn(join(dataDir, 'mmkit.db'));
        if (!o.keep) rmSync(dataDir, { recursive: true, force: true });
        // the counts are the run's (the engine's and the kernel's counters); the log lines give the
        // gate's first reason per code and the kind of the strategy's first error
        const count = (...msgs: string[]) => byCodeIn(lines, ...msgs).counts;
        const refusalReasons = byCodeIn(lines, 'quote refused', 'immediate order refused').firstReasons;
        const trimReasons = byCodeIn(lines, 'quote trimmed').firstReasons;
        const strategyErrors = strategyErrorsOf(summary, lines);
        const timing = summary.strategyTiming;
        const warnings = checkWarnings(summary.riskRefusals, timing, {
          refused: summary.immediateRefusals ?? {},
          sent: orders.filter((x) => x.type === 'FOK' || x.type === 'FAK').length,
        });
        const started = lines.find((l) => l['msg'] === 'starting') as
          | { markets?: Array<{ market: string; question: string }> }
          | undefined;
        const byMarket = new Map<string, CheckedOrder[]>();
        for (const x of orders) byMarket.set(x.market, [...(byMarket.get(x.market) ?? []), x]);
        // a market's tokens in listing order (the first is YES) with their outcomes, as the run traded them
        const tokensOf = (market: string) => summary.marketTokens?.[market] ?? [];
        const markets = (started?.markets ?? []).map((m) => {
          const os = byMarket.get(m.market) ?? [];
          const quoted = os.filter((x) => x.status !== 'rejected');
          const ranges = quoteRanges(quoted, tokensOf(m.market));
          const all = ranges.inYes ?? {
            bids: quoted.filter((x) => x.side === 'BUY').length,
            asks: quoted.filter((x) => x.side === 'SELL').length,
            bidPrices: null,
            askPrices: null,
          };
          return {
            market: m.market,
            question: m.question,
            orders: os.length,
            // the whole quote in YES prices (a NO bid at p is a YES ask at 1 - p): never two books in one range
            prices: ranges.inYes === null ? null : ('yes' as const),
            ...all,
            // each token's quotes in its own prices
            tokens: ranges.tokens,
          };
        });
        const report = {
          strategy: def.name,
          params,
          durationMs,
          ok:
            strategyErrors.count === 0 &&
            summary.ordersPlaced > 0 &&
            summary.noOrdersLeft &&
            summary.openOrdersAtExit === 0,
          summary,
          markets,
          strategyErrors,
          // quotes and immediate orders the gate refused, by code, most first
          refusals: summary.riskRefusals,
          // the gate's first reason per code (which price or size, and why)
          refusalReasons,
          trims: summary.riskTrims,
          trimReasons,
          // what the strategy asked the gate for and how long its handler took (ms)
          ...(timing !== undefined ? { handler: timing } : {}),
          // the check is still ok with them: most quotes refused, a slow handler
          warnings,
          rejections: withPostOnly(count('order rejected'), lines),
          orders,
          ...(o.keep ? { dataDir } : {}),
        };
        if (o.json) printJson(report);
        else {
          const out: string[] = [
            `strategy ${def.name}: ${summary.ordersPlaced} order(s) placed, ${summary.ordersCancelled} cancelled, ${summary.ordersRejected} rejected, ${summary.fills} fill(s) in ${o.duration}`,
          ];
          for (const m of markets)
            out.push(
              `  ${m.market.slice(0, 14)}… ${m.question.slice(0, 50)}: ${describeRanges({ tokens: m.tokens, inYes: m.prices === null ? null : m })}`,
            );
          for (const x of orders.filter((y) => y.type === 'FOK' || y.type === 'FAK'))
            out.push(
              `  immediate ${x.type} ${x.side} ${x.size} @ ${x.price} on ${x.market.slice(0, 14)}…: ${x.status}${x.rejectCode ? ` (${x.rejectCode})` : ''}, ${x.matched} matched`,
            );
          // `CODE xN, first: <the gate's reason>` per code, `; ` between codes
          const withReasons = (by: Record<string, number>, reasons: Record<string, string>) =>
            Object.entries(sortedCounts(by))
              .map(([k, n]) => `${k} x${n}${reasons[k] === undefined ? '' : `, first: ${reasons[k]}`}`)
              .join('; ');
          const refused = Object.entries(report.refusals);
          if (refused.length)
            out.push(`  refused by the risk gate: ${withReasons(report.refusals, report.refusalReasons)}`);
          const trimmed = Object.entries(report.trims);
          if (trimmed.length) out.push(`  trimmed by the risk gate: ${withReasons(report.trims, report.trimReasons)}`);
          const first = strategyErrors.first;
          if (first !== null)
            out.push(`  strategy errors: ${strategyErrors.count} (output dropped); first: ${firstErrorText(first)}`);
          const rejected = Object.entries(report.rejections);
          if (rejected.length) out.push(`  rejected by the venue: ${codeCountsText(report.rejections)}`);
          if (timing !== undefined && timing.calls > 0)
            out.push(`  slowest onEvent ${ms(timing.slowestMs)}, p99 ${ms(timing.p99Ms)} (${timing.calls} calls)`);
          out.push(`  open orders at exit: ${summary.openOrdersAtExit ?? 'unknown (the venue could not be checked)'}`);
          for (const w of warnings) out.push(`  warning: ${w}`);
          if (o.keep) out.push(`  data kept in ${dataDir}`);
          out.push(
            report.ok
              ? 'check ok'
              : first !== null
                ? first.kind === 'invalid output'
                  ? `check FAILED: the strategy returned an ${first.message}`
                  : `check FAILED: the strategy threw: ${first.message}${first.at === null ? ' (no file:line: what was thrown is not an Error; throw new Error(...) to get one)' : ` (at ${first.at})`}`
                : summary.ordersPlaced === 0
                  ? orders.length > 0
                    ? // sent, but the venue rejected or killed each (a FOK not filled is a normal outcome)
                      'check FAILED: no order rested or filled (the venue rejected or killed what was sent: see above)'
                    : `check FAILED: the strategy placed no order${refused.length ? ' (the risk gate refused what it asked: see above)' : ''}`
                  : 'check FAILED: orders were left open',
          );
          process.stdout.write(out.join('\n') + '\n');
        }
        return report.ok ? ExitCode.OK : ExitCode.FAILURE;
      }),
    );
}
