/**
 * `mmkit backtest`: runs a strategy on recorded feeds (or a synthetic world) in virtual time, with
 * the daemon's own engine, risk gate, executor, store and strategy (src/backtest/runner.ts).
 *
 *   mmkit backtest --feed FILE... --strategy NAME|PATH [--config FILE] [--params JSON] [--param k=v]... [--seed N]
 *                  [--queue risk-averse|probabilistic] [--latency-ms N] [--fee-protocol 1|2] [--log-level L]
 *                  [--report out.html] [--json]
 *   mmkit backtest --world SEED --duration 6h --strategy NAME|PATH [...]
 *
 * Prints the summary (or, with --json, one JSON document: deterministic, the same inputs and seed
 * give the same bytes; no wall-clock value in it). How long the run took goes to stderr only. A
 * progress bar is drawn on stderr when stderr is a terminal. Bad flags exit 2 with a message
 * naming the flag. Without `--config` a backtest reads no configuration file and no `MMKIT_*`
 * setting of the daemon: a setting of the environment it would then ignore (risk limits, post-only,
 * strategy, params, markets, log level) is named in a warning on stderr, with the flag to use
 * instead. `--config FILE` loads the configuration as `mmkit run` does (config/default.json, FILE,
 * `MMKIT_*`, the same validation) and takes the bot's strategy, params, markets, risk limits and
 * post-only from it; flags given too win (`--params`/`--param` and `--risk` per key, over
 * `bot.params` and `bot.risk`: a flag that sets one limit keeps the configuration's others). The
 * log level is the one daemon setting `--config` does not take (the daemon's default, info, would
 * make every backtest of a run's configuration talk): `MMKIT_LOG_LEVEL` is still named in the
 * warning then. `--log-level` shows the engine's, the gate's and the strategy's log lines on stderr
 * (JSON lines, virtual time); without it a backtest logs nothing. Taker fees are charged under the
 * order protocol the feed's header says its venue spoke (2 when it says none; a synthetic world: 1),
 * or `--fee-protocol`'s; the summary and --json say which (`feeProtocol`).
 */
import { accessSync, constants, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import type { WorldProfileName } from '../exchange/world/profiles.ts';
import { rewardOptions, type RewardOptions } from '../exchange/rewards/ledger.ts';
import type { FeeProtocol } from '../core/fees.ts';
import { parseAmount } from '../core/units.ts';
import { computeMetrics, type Metrics } from '../backtest/metrics.ts';
import { defaultFeedCacheDir } from '../backtest/feed-cache-plan.ts';
import { DEFAULT_FEED_CACHE_MAX_MB, pruneFeedCaches } from '../backtest/feed-cache-prune.ts';
import { formatSummary, duration, strategyFailure } from '../backtest/report.ts';
import { renderHtmlReport } from '../backtest/report-html.ts';
import type { BacktestOptions, BacktestProgress, BacktestResult } from '../backtest/runner.ts';
import { loadConfig, parseDuration } from './config.ts';
import { CliError, ExitCode, reportError, usageError } from './exit-codes.ts';
import {
  durationArg,
  feeProtocolArg,
  intIn,
  jsonObject,
  nonNegative,
  paramPairArg,
  rewardInterval,
  timeArg,
  windowFlagError,
} from './backtest-args.ts';

export { durationArg, intIn, jsonObject, nonNegative, paramPairArg, timeArg } from './backtest-args.ts';

/** Options shared by `backtest` and `sweep`, as commander hands them over. */
export interface SourceCliOptions {
  feed?: string[];
  world?: number;
  duration?: string;
  warmup?: string;
  worldMarkets?: number;
  worldSearch?: string;
  worldProfile?: string;
  /** --world-fee-rate-bps: the world's markets' taker fee rate. */
  worldFeeRateBps?: number;
  /** --rewards-epoch / --rewards-sample (ms) and --rewards-min-payout (USDC): the world's reward options. */
  rewardsEpoch?: number;
  rewardsSample?: number;
  rewardsMinPayout?: string;
  /** --strategy; with --config, bot.strategy when absent. */
  strategy?: string;
  /** --config FILE: strategy, params, markets, risk and postOnly of a run configuration (see the module comment). */
  config?: string;
  params?: Record<string, unknown>;
  /** --param key=value, repeatable (merged with --params; a key given twice is an error). */
  param?: Record<string, string>;
  seed: number;
  queue?: 'risk-averse' | 'probabilistic';
  latencyMs: number;
  /** --fee-protocol 1|2: the order protocol whose taker fee the venue charges (over the feed header's). */
  feeProtocol?: FeeProtocol;
  /** --post-only: quotes sent post-only, as the daemon's default. */
  postOnly?: boolean;
  markets?: string;
  risk?: Record<string, unknown>;
  sampleMs?: number;
  /** --from / --to: the window of the feed to trade, unix ms. */
  from?: number;
  to?: number;
  /** --feed-cache DIR, or false for --no-feed-cache. */
  feedCache?: string | false;
  /** --feed-cache-max-mb N (0: no cap). */
  feedCacheMaxMb?: number;
  json?: boolean;
}

/**
 * The strategy parameters of --params JSON and the --param key=value flags, merged.
 * @throws CliError (usage) naming the key when it is given by both
 */
export function mergedParams(o: Pick<SourceCliOptions, 'params' | 'param'>): Record<string, unknown> | undefined {
  if (o.param === undefined) return o.params;
  for (const k of Object.keys(o.param))
    if (o.params !== undefined && Object.hasOwn(o.params, k))
      throw usageError(`--param ${k}: "${k}" is given in --params too (give each parameter once)`);
  return { ...o.params, ...o.param };
}

/** Settings of `mmkit run` in the environment that a backtest does not read, and the flag that does it there. */
const LIVE_ONLY_ENV: ReadonlyArray<readonly [RegExp, string]> = [
  [/^MMKIT_RISK_/, '--risk JSON'],
  [/^MMKIT_POST_ONLY$/, '--post-only'],
  [/^MMKIT_STRATEGY$/, '--strategy'],
  [/^MMKIT_STRATEGY_PARAMS$/, '--params JSON or --param k=v'],
  [/^MMKIT_MARKETS$/, '--markets'],
];

/** The daemon's log level, which a backtest or sweep never takes from the environment, `--config` or not. */
const LOG_LEVEL_ENV: readonly [RegExp, string] = [/^MMKIT_LOG_LEVEL$/, '--log-level'];

/**
 * A warning naming the daemon's `MMKIT_*` settings that are set in the environment and that a
 * backtest (or sweep) ignores, with the flags to use instead; undefined when none is set. With
 * `--config` (`withConfig`) the configuration reads them all but the log level (see the module
 * comment): only `MMKIT_LOG_LEVEL` can then be named.
 */
export function ignoredEnvWarning(
  command: string,
  env: NodeJS.ProcessEnv = process.env,
  withConfig = false,
): string | undefined {
  const rules: ReadonlyArray<readonly [RegExp, string]> = withConfig
    ? [LOG_LEVEL_ENV]
    : [...LIVE_ONLY_ENV, LOG_LEVEL_ENV];
  const hits = new Map<string, string[]>();
  for (const k of Object.keys(env).sort()) {
    if (env[k] === undefined || env[k] === '') continue;
    const rule = rules.find(([re]) => re.test(k));
    if (rule !== undefined) hits.set(rule[1], [...(hits.get(rule[1]) ?? []), k]);
  }
  if (hits.size === 0) return undefined;
  const list = [...hits].map(([flag, keys]) => `${keys.join(', ')} (use ${flag})`).join('; ');
  if (withConfig)
    return `mmkit ${command}: warning: ignoring the environment's ${list}: a ${command} logs only with --log-level\n`;
  return (
    `mmkit ${command}: warning: ignoring the environment's ${list}: without --config a ${command} takes ` +
    'its settings from its flags only (--config FILE reads them as mmkit run does)\n'
  );
}

/** Adds the source, strategy and simulation options both commands take. */
export function addSourceOptions(cmd: Command): Command {
  return cmd
    .option('--feed <files...>', 'recorded feed files (.ndjson.gz; several merge by receive time)')
    .option(
      '--world <seed>',
      'a synthetic world instead of a feed: the paper exchange world of this seed, in virtual time',
      intIn('--world', 0, 2 ** 31),
    )
    .option('--duration <d>', 'with --world: virtual time to simulate (90s, 30m, 6h, ...)', durationArg('--duration'))
    .option(
      '--warmup <d>',
      'with --world: virtual time the world runs before the bot joins (default 60s)',
      durationArg('--warmup'),
    )
    .option(
      '--world-markets <n>',
      'with --world: trade the N most liquid long-lived markets (default 3)',
      intIn('--world-markets', 1, 100),
    )
    .option(
      '--world-search <text>',
      'with --world: pick only markets whose question contains this text (e.g. "price of Bitcoin")',
    )
    .option(
      '--rewards-epoch <d>',
      "with --world: the exchange's liquidity reward epoch: ms, or 30m, 1h, 1d (default 1d: paid at midnight UTC)",
      rewardInterval('--rewards-epoch'),
    )
    .option(
      '--rewards-sample <d>',
      'with --world: how often the exchange samples resting orders for rewards: ms, or 10s, 1m (default 1m)',
      rewardInterval('--rewards-sample'),
    )
    .option(
      '--rewards-min-payout <usdc>',
      'with --world: the smallest reward the exchange pays per market and epoch, USDC (default 1)',
    )
    .addOption(
      new Option(
        '--world-profile <name>',
        'with --world: who trades in the world (README, World profiles; default realistic)',
      ).choices(['calm', 'realistic', 'toxic']),
    )
    .option(
      '--world-fee-rate-bps <n>',
      "with --world: the taker fee rate of the world's markets, bps, 0 to 1000 (as the paper exchange's --fee-rate-bps; default 0)",
      intIn('--world-fee-rate-bps', 0, 1000),
    )
    .option(
      '--strategy <name|path>',
      'a shipped strategy (bands) or a plugin file (./my-strategy.ts); with --config, default bot.strategy',
    )
    .option(
      '--config <file>',
      "take the strategy, params, markets, risk limits and post-only of `mmkit run`'s configuration (this file over config/default.json, and MMKIT_*; flags win, --params/--param and --risk per key)",
    )
    .option('--params <json>', 'strategy parameters as a JSON object, e.g. \'{"margin":0.02}\'', jsonObject('--params'))
    .option('--param <key=value>', 'a strategy parameter (repeatable; merged with --params)', paramPairArg)
    .option(
      '--seed <n>',
      "seed of the simulation: with --world the world; the simulated venue's order ids, latency draws and retry jitter, and the strategy's ctx.random (the queue models are deterministic)",
      intIn('--seed', 0, 2 ** 32 - 1),
      1,
    )
    .addOption(
      new Option('--queue <model>', 'with --feed: queue-position model (default risk-averse)').choices([
        'risk-averse',
        'probabilistic',
      ]),
    )
    .option('--latency-ms <n>', 'one-way latency of orders and cancels, virtual ms', nonNegative('--latency-ms'), 0)
    .option(
      '--fee-protocol <1|2>',
      "the order protocol whose taker fee the venue charges: 1 (rate x min(p, 1-p)) or 2 (rate x p x (1-p)); default with --feed the feed header's (2 when it says none), with --world the world exchange's (2)",
      feeProtocolArg,
    )
    .option(
      '--post-only',
      'send quotes post-only as `mmkit run` does by default (bot.postOnly): a quote that would cross is refused by the simulated venue and re-priced',
    )
    .option(
      '--markets <ids>',
      'comma-separated condition ids to trade (default: with --config bot.markets when set, else every market of the feed; the most liquid of the world)',
    )
    .option(
      '--risk <json>',
      "risk limits as a JSON object (the config's risk section), e.g. '{\"maxPositionShares\":50}'; with --config, merged per key over bot.risk",
      jsonObject('--risk'),
    )
    .option(
      '--sample-ms <n>',
      'sampling period of the charts and of the max drawdown measured on them, virtual ms (default 1000)',
      intIn('--sample-ms', 1, 86_400_000),
    )
    .option(
      '--from <time>',
      "with --feed: trade from this time on (ISO 8601 with its zone, or unix ms; e.g. a run's session start): the records before it only build the books the bot starts with",
      timeArg('--from'),
    )
    .option('--to <time>', 'with --feed: stop at this time (ISO 8601 with its zone, or unix ms)', timeArg('--to'))
    .option(
      '--feed-cache <dir>',
      'with --feed: folder of decoded-event caches: a feed is decoded once, later runs read its events back (default $MMKIT_CACHE_DIR, else ~/.cache/mmkit/feeds)',
    )
    .option('--no-feed-cache', 'with --feed: decode the feed text on every run, write no cache')
    .option(
      '--feed-cache-max-mb <n>',
      `with --feed: after the run, evict the least recently used caches beyond this many MB (default $MMKIT_FEED_CACHE_MAX_MB, else ${DEFAULT_FEED_CACHE_MAX_MB}; 0: no cap)`,
      intIn('--feed-cache-max-mb', 0, 1e9),
    );
}

/**
 * The runner options of parsed flags (and, with `--config`, of the configuration: `env` is the
 * environment it reads, as `mmkit run` does).
 * @throws CliError (usage, exit 2) naming the flag on a bad combination
 * @throws ConfigError naming the key when the configuration is bad
 */
export function backtestOptionsOf(o: SourceCliOptions, env: NodeJS.ProcessEnv = process.env): BacktestOptions {
  const feeds = o.feed ?? [];
  if (feeds.length > 0 && o.world !== undefined)
    throw usageError('give either --feed FILE... or --world SEED, not both');
  if (feeds.length === 0 && o.world === undefined)
    throw usageError('give --feed FILE... (a recorded feed) or --world SEED --duration D (a synthetic world)');
  const live = o.config !== undefined ? loadConfig(o.config, {}, env).bot : undefined;
  const strategy = o.strategy ?? live?.strategy;
  if (strategy === undefined)
    throw usageError("required option '--strategy <name|path>' not specified (or give --config FILE)");
  const flagParams = mergedParams(o);
  const params = live === undefined ? flagParams : { ...live.params, ...flagParams };
  // per key, as --param over bot.params: --risk '{"maxMidDistance":0.5}' keeps the run's maxPositionShares
  const risk = live === undefined ? o.risk : { ...live.risk, ...o.risk };
  const markets =
    o.markets !== undefined
      ? o.markets
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : live !== undefined && live.markets.length > 0
        ? live.markets
        : undefined;
  const common = {
    strategy,
    ...(params !== undefined ? { params } : {}),
    seed: o.seed,
    latencyMs: o.latencyMs,
    ...(o.feeProtocol !== undefined ? { feeProtocol: o.feeProtocol } : {}),
    ...(o.postOnly === true || live?.postOnly === true ? { postOnly: true } : {}),
    ...(markets !== undefined ? { markets } : {}),
    ...(risk !== undefined ? { risk: risk as Record<string, unknown> } : {}),
    ...(o.sampleMs !== undefined ? { sampleMs: o.sampleMs } : {}),
  };
  if (feeds.length > 0) {
    for (const [f, flag] of [
      ['rewardsEpoch', 'rewards-epoch'],
      ['rewardsSample', 'rewards-sample'],
      ['rewardsMinPayout', 'rewards-min-payout'],
    ] as const)
      if (o[f] !== undefined)
        throw usageError(`--${flag} applies to --world backtests only (a feed's rewards are scored every minute)`);
    for (const f of ['duration', 'warmup', 'worldMarkets', 'worldSearch', 'worldProfile', 'worldFeeRateBps'] as const)
      if (o[f] !== undefined) throw usageError(`--${kebab(f)} applies to --world backtests only`);
    for (const f of feeds) if (!existsSync(f)) throw usageError(`--feed: no such file: ${f}`);
    const feedCache = o.feedCache === false ? undefined : (o.feedCache ?? defaultFeedCacheDir());
    if (o.from !== undefined && o.to !== undefined && o.to <= o.from)
      throw usageError(
        `--to (${new Date(o.to).toISOString()}) must be after --from (${new Date(o.from).toISOString()})`,
      );
    return {
      ...common,
      ...(o.from !== undefined ? { fromMs: o.from } : {}),
      ...(o.to !== undefined ? { toMs: o.to } : {}),
      feeds: feeds.map((f) => f),
      queue: o.queue ?? 'risk-averse',
      ...(feedCache !== undefined ? { feedCache } : {}),
    };
  }
  if (typeof o.feedCache === 'string') throw usageError('--feed-cache applies to --feed backtests only');
  for (const f of ['from', 'to'] as const)
    if (o[f] !== undefined)
      throw usageError(`--${f} applies to --feed backtests only (a world starts after its warm-up)`);
  if (o.queue !== undefined)
    throw usageError(
      '--queue applies to --feed backtests only (the synthetic world matches our orders in its own book)',
    );
  if (o.duration === undefined) throw usageError('--world needs --duration (e.g. --duration 6h)');
  return {
    ...common,
    world: {
      seed: o.world!,
      durationMs: parseDuration(o.duration)!,
      ...(o.warmup !== undefined ? { warmupMs: parseDuration(o.warmup)! } : {}),
      ...(o.worldMarkets !== undefined ? { marketCount: o.worldMarkets } : {}),
      ...(o.worldSearch !== undefined ? { search: o.worldSearch } : {}),
      ...(o.worldProfile !== undefined ? { profile: o.worldProfile as WorldProfileName } : {}),
      ...(o.worldFeeRateBps !== undefined ? { feeRateBps: o.worldFeeRateBps } : {}),
      ...worldRewards(o),
    },
  };
}

/** A camelCase option name as its flag: worldFeeRateBps -> world-fee-rate-bps. */
const kebab = (name: string): string => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/**
 * The world's reward options of --rewards-epoch / --rewards-sample / --rewards-min-payout (none
 * given: the exchange's defaults).
 * @throws CliError (usage) naming the flag when a value is out of range
 */
function worldRewards(o: SourceCliOptions): { rewards?: Partial<RewardOptions> } {
  if (o.rewardsEpoch === undefined && o.rewardsSample === undefined && o.rewardsMinPayout === undefined) return {};
  let minPayout: number | undefined;
  if (o.rewardsMinPayout !== undefined) {
    try {
      minPayout = parseAmount(o.rewardsMinPayout);
    } catch {
      throw usageError(`--rewards-min-payout takes a USDC amount >= 0, got "${o.rewardsMinPayout}"`);
    }
  }
  const r: Partial<RewardOptions> = {
    ...(o.rewardsEpoch !== undefined ? { epochMs: o.rewardsEpoch } : {}),
    ...(o.rewardsSample !== undefined ? { sampleMs: o.rewardsSample } : {}),
    ...(minPayout !== undefined ? { minPayout } : {}),
  };
  try {
    rewardOptions(r);
  } catch (e) {
    throw usageError(`--rewards-*: ${(e as Error).message}`);
  }
  return { rewards: r };
}

/** A one-line progress bar on stderr (only when stderr is a terminal). */
export class ProgressBar {
  readonly #on: boolean;
  readonly #t0 = performance.now();
  #last = 0;
  #drawn = false;
  constructor(enabled = process.stderr.isTTY === true) {
    this.#on = enabled;
  }
  /** Draws `fraction` (0..1, or undefined: indeterminate) and a label, at most 10 times a second. */
  draw(fraction: number | undefined, label: string, force = false): void {
    if (!this.#on) return;
    const now = performance.now();
    if (!force && now - this.#last < 100) return;
    this.#last = now;
    const width = 28;
    let bar: string;
    if (fraction === undefined) {
      const pos = Math.floor(now / 80) % width;
      bar = '.'
        .repeat(width)
        .split('')
        .map((c, i) => (Math.abs(i - pos) < 3 ? '#' : c))
        .join('');
    } else {
      const f = Math.max(0, Math.min(1, fraction));
      const n = Math.round(f * width);
      bar = '#'.repeat(n) + '.'.repeat(width - n);
    }
    const cols = Math.max(20, process.stderr.columns || 100);
    const line = `[${bar}] ${fraction === undefined ? '' : `${(fraction * 100).toFixed(0).padStart(3)}% `}${label}`;
    process.stderr.write(
      `\r${line.slice(0, cols - 1).padEnd(Math.min(cols - 1, this.#drawn ? cols - 1 : line.length))}`,
    );
    this.#drawn = true;
  }
  /** Wall seconds since the bar was made. */
  get elapsedSec(): number {
    return (performance.now() - this.#t0) / 1000;
  }
  clear(): void {
    if (!this.#on || !this.#drawn) return;
    const cols = Math.max(20, process.stderr.columns || 100);
    process.stderr.write(`\r${' '.repeat(cols - 1)}\r`);
    this.#drawn = false;
  }
}

/**
 * The deterministic JSON document of `--json` (no samples, no per-fill rows or points: see the HTML
 * report; the fill figures are in `metrics`).
 */
export function backtestJson(r: BacktestResult, m: Metrics): Record<string, unknown> {
  const { fills: _f, fillCount: _c, fillStats: _fs, fillPoints: _fp, samples: _s, ...rest } = r;
  return { ...rest, metrics: m };
}

/**
 * Refuses feed files that are one feed given twice (two paths to one file, or two files of the
 * same bytes: the merge would replay, and fill, every trade twice), and warns on stderr about two
 * files that record a market in common over overlapping times (two recordings of one market, not
 * parts of one: its trades would come twice too). Nothing for a world.
 * @throws CliError (usage, exit 2) naming both paths
 */
export async function checkFeedList(opts: BacktestOptions, command: string): Promise<void> {
  if (opts.feeds === undefined || opts.feeds.length < 2) return;
  const { checkFeedFiles } = await import('../backtest/replay.ts');
  const c = await checkFeedFiles(opts.feeds);
  if (c.duplicate !== undefined) {
    const { a, b, why } = c.duplicate;
    throw usageError(
      `--feed: ${a} and ${b} are ${why === 'same-file' ? 'the same file' : 'the same feed (identical content)'}: ` +
        'every trade would be replayed (and filled) twice; give each feed once',
    );
  }
  for (const o of c.overlaps) {
    const n = o.markets.length;
    process.stderr.write(
      `mmkit ${command}: warning: --feed ${o.a} and ${o.b} both record ${n === 1 ? `market ${o.markets[0]}` : `${n} markets (${o.markets[0]}, ...)`} over overlapping times: ` +
        'two recordings of one market, not parts of one (its trades come in twice)\n',
    );
  }
}

/** Options of `mmkit backtest` as commander hands them over. */
export interface BacktestCliOptions extends SourceCliOptions {
  report?: string;
  store?: string;
  /** --log-level: the engine's, gate's and strategy's log lines on stderr (default: none). */
  logLevel?: string;
}

/**
 * Checks that the feed-cache folder can be written (src/backtest/feed-cache.ts: the run then writes
 * a missing cache as it reads the feed). A cache is only a speed-up: when the folder cannot be
 * made or written, the run goes on from the text, with a warning.
 */
export function prepareFeedCache(opts: BacktestOptions, command: string): BacktestOptions {
  if (opts.feeds === undefined || opts.feedCache === undefined) return opts;
  const probe = join(opts.feedCache, `.probe-${process.pid}`);
  try {
    mkdirSync(opts.feedCache, { recursive: true });
    writeFileSync(probe, '');
    rmSync(probe, { force: true });
    return opts;
  } catch (e) {
    process.stderr.write(
      `mmkit ${command}: warning: no feed cache (${(e as Error).message}); decoding the feed text instead\n`,
    );
    const { feedCache: _, ...rest } = opts;
    return rest;
  }
}

/**
 * The feed-cache size cap, MB: --feed-cache-max-mb, else $MMKIT_FEED_CACHE_MAX_MB, else the default
 * (0: no cap).
 * @throws CliError (usage) on a bad environment value
 */
export function feedCacheMaxMb(
  o: Pick<SourceCliOptions, 'feedCacheMaxMb'>,
  env: NodeJS.ProcessEnv = process.env,
): number {
  if (o.feedCacheMaxMb !== undefined) return o.feedCacheMaxMb;
  const v = env['MMKIT_FEED_CACHE_MAX_MB'];
  if (v === undefined || v === '') return DEFAULT_FEED_CACHE_MAX_MB;
  if (!/^\d+$/.test(v) || Number(v) > 1e9)
    throw usageError(`MMKIT_FEED_CACHE_MAX_MB must be an integer in [0, 1000000000], got "${v}"`);
  return Number(v);
}

/**
 * After a run: prunes the feed-cache folder (src/backtest/feed-cache-prune.ts: leftovers, caches of
 * other versions unused for a week, then the least recently used beyond the cap; never one this run
 * used). Best effort: a failure is a warning.
 */
export function pruneFeedCacheAfterRun(
  opts: BacktestOptions,
  maxMb: number,
  startedAtMs: number,
  command: string,
): void {
  if (opts.feedCache === undefined) return;
  try {
    const r = pruneFeedCaches(opts.feedCache, {
      ...(maxMb > 0 ? { maxBytes: maxMb * 1024 * 1024 } : {}),
      keepSince: startedAtMs - 1000,
    });
    if (r.removed.length > 0) {
      const mb = (b: number) => (b / 1048576).toFixed(1);
      process.stderr.write(
        `mmkit ${command}: feed cache ${opts.feedCache}: removed ${r.removed.length} file(s), ${mb(r.freedBytes)} MB (${r.removed.map((x) => x.why).join(', ')}); ${mb(r.keptBytes)} MB kept\n`,
      );
    }
  } catch (e) {
    process.stderr.write(`mmkit ${command}: warning: could not prune the feed cache (${(e as Error).message})\n`);
  }
}

/**
 * Refuses (a usage error naming `flag`) an output path that cannot be written: its directory missing
 * or not one, or the path a directory. Checked before a run, so that a typo costs no run.
 */
function writablePath(flag: string, path: string): void {
  const file = resolve(path);
  if (existsSync(file) && statSync(file).isDirectory())
    throw usageError(`${flag}: ${path} is a directory (give a file name)`);
  const dir = dirname(file);
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw usageError(`${flag}: the directory of ${path} (${dir}) does not exist`);
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    throw usageError(`${flag}: the directory of ${path} (${dir}) cannot be written`);
  }
}

/** Runs `mmkit backtest`; resolves with the exit code. */
export async function backtestCommand(o: BacktestCliOptions): Promise<number> {
  const opts = prepareFeedCache(backtestOptionsOf(o), 'backtest');
  await checkFeedList(opts, 'backtest');
  const maxMb = feedCacheMaxMb(o);
  const startedAt = Date.now();
  if (o.store !== undefined && o.store !== ':memory:' && existsSync(o.store))
    throw usageError(`--store: ${o.store} exists already (a backtest starts from an empty store)`);
  // output paths checked before the run, not after it (trial 23 F5: a typo lost the whole run's results)
  if (o.store !== undefined && o.store !== ':memory:') writablePath('--store', o.store);
  if (o.report !== undefined) writablePath('--report', o.report);
  const ignored = ignoredEnvWarning('backtest', process.env, o.config !== undefined);
  if (ignored !== undefined) process.stderr.write(ignored);
  const { runBacktest } = await import('../backtest/runner.ts');
  const logging = o.logLevel !== undefined && o.logLevel !== 'silent';
  let logs: Partial<BacktestOptions> = {};
  if (logging) {
    const { createLogger } = await import('../ops/logger.ts');
    const level = o.logLevel;
    logs = {
      makeLogger: (now) => createLogger({ level, format: 'json', now }),
      // the gate logs its refusals and trims only without its memo (the same results, slower)
      memoiseGate: false,
    };
  }
  // no progress bar between log lines
  const bar = new ProgressBar(process.stderr.isTTY === true && !logging);
  const onProgress = (p: BacktestProgress): void => {
    const rate = p.items / Math.max(1e-3, bar.elapsedSec);
    if (p.endMs !== undefined) {
      const f = (p.nowMs - p.startMs) / Math.max(1, p.endMs - p.startMs);
      const simh = (p.nowMs - p.startMs) / 3_600_000 / Math.max(1e-3, bar.elapsedSec);
      bar.draw(
        f,
        `${duration(p.nowMs - p.startMs)} / ${duration(p.endMs - p.startMs)} virtual, ${simh.toFixed(2)} h/s, ${p.fills} fills`,
      );
    } else {
      bar.draw(
        undefined,
        `${p.items.toLocaleString('en-US')} items (${Math.round(rate).toLocaleString('en-US')}/s), ${duration(p.nowMs - p.startMs)} virtual, ${p.fills} fills`,
      );
    }
  };
  let result: BacktestResult;
  try {
    result = await runBacktest({
      ...opts,
      ...logs,
      ...(o.store !== undefined ? { storePath: o.store === ':memory:' ? o.store : resolve(o.store) } : {}),
      ...(process.stderr.isTTY ? { onProgress, progressEveryMs: 10_000 } : {}),
    });
  } catch (e) {
    throw windowFlagError(e);
  } finally {
    bar.clear();
  }
  const wall = bar.elapsedSec;
  pruneFeedCacheAfterRun(opts, maxMb, startedAt, 'backtest');
  const m = computeMetrics(result);
  if (o.json) process.stdout.write(JSON.stringify(backtestJson(result, m)) + '\n');
  else process.stdout.write(formatSummary(result, m));
  // (after the results are out: a report that cannot be written loses nothing else)
  if (o.report !== undefined) {
    const file = resolve(o.report);
    try {
      writeFileSync(file, renderHtmlReport(result, m));
    } catch (e) {
      throw new CliError(`--report: cannot write ${file}: ${(e as Error).message}`, ExitCode.FAILURE);
    }
    process.stderr.write(`mmkit backtest: report written to ${file}\n`);
  }
  const virt = result.endMs - result.startMs;
  const items =
    result.mode === 'feed'
      ? `${Math.round(result.counts.feedItems / Math.max(1e-3, wall)).toLocaleString('en-US')} feed items/s, `
      : '';
  process.stderr.write(
    `mmkit backtest: ran in ${wall.toFixed(2)} s wall (${items}${(virt / 3_600_000 / Math.max(1e-3, wall)).toFixed(3)} simulated h/s)\n`,
  );
  const failure = strategyFailure(result, m);
  if (failure !== undefined) {
    process.stderr.write(`mmkit backtest: FAILED: ${failure}\n`);
    return ExitCode.FAILURE;
  }
  return ExitCode.OK;
}

/** Registers `mmkit backtest` on the program. */
export function register(program: Command): void {
  const cmd = program
    .command('backtest')
    .description(
      "backtest a strategy on recorded feeds (or a synthetic world) in virtual time, with the daemon's own engine, risk, execution and store",
    );
  cmd.addHelpText(
    'after',
    `
Examples:
  mmkit backtest --feed test/fixtures/sample-feed.ndjson.gz --strategy bands --report report.html
  mmkit backtest --feed a.ndjson.gz b.ndjson.gz --strategy ./my-quoter.ts --params '{"halfSpread":0.03}' --queue probabilistic --latency-ms 20
  mmkit backtest --world 1 --duration 6h --strategy avellaneda --json > result.json
  mmkit backtest --feed day1.ndjson.gz --config config/paper.json --param margin=0.03 --log-level info
  mmkit backtest --world 1 --duration 1h --world-search "price of" --strategy crypto-fair-value --risk '{"maxMidDistance":0.5}'

Same inputs and --seed: byte-identical --json. Exit codes: 0 done, 1 the strategy placed no order while it erred (threw or returned an invalid output) or the risk gate refused what it asked, or the venue rejected every order it sent, 2 usage or configuration error.
`,
  );
  addSourceOptions(cmd)
    .option(
      '--report <file>',
      'write a self-contained HTML report (charts: PnL, inventory, quotes against mid, fills, drawdown)',
    )
    .option(
      '--store <file>',
      "keep the run's SQLite store (orders, every fill, audit) in FILE, which must not exist yet (default: a temporary file, deleted after the run; :memory: is fastest)",
    )
    .addOption(
      new Option(
        '--log-level <level>',
        "show the engine's, the risk gate's and the strategy's (ctx.log) log lines at this level and above on stderr, as JSON lines with virtual time (default: none)",
      ).choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    )
    .option('--json', 'print one deterministic JSON document instead of the summary')
    .action(async (o: BacktestCliOptions) => {
      let code: number;
      try {
        code = await backtestCommand(o);
      } catch (err) {
        code = reportError(err, { json: o.json === true });
      }
      process.exit(code);
    });
}
