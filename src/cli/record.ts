/**
 * `mmkit record`: records the market channel and the real-time prices of some markets, exactly as
 * received with local receive times, to a gzip NDJSON feed (src/venues/sim/feed.ts, recorder.ts) that
 * `mmkit backtest --feed` replays.
 *
 *   mmkit record --out FILE [--markets CID,...|--top N [--strategy S [--param k=v]...] [--config FILE]] [--duration D] [--exchange-url URL]
 *                [--rotate-mb N] [--rotate-minutes N] [--seed N] [--no-rtds] [--rtds-symbols LIST]
 *
 * --top takes the candidates of `bot.marketFilters` (minHoursToEnd, minWindowMinutes, negRisk,
 * search: src/cli/market-filters.ts), from --config and the MMKIT_MARKET_* environment, as `mmkit
 * run` does.
 *
 * Without --exchange-url a paper exchange (default world: seeded, flow agents trading) runs
 * in-process. The feed's header says which order protocol the venue speaks (its `GET /version`),
 * whose taker fee a backtest of the feed charges. Without --duration it records until SIGINT or
 * SIGTERM; either way the files are closed cleanly and the command exits 0. Logs go to stderr; the
 * summary to stdout.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { ConfigError } from '../core/errors.ts';
import type { MarketInfo } from '../core/venue.ts';
import { loadConfig, parseDuration } from './config.ts';
import { filterCandidates, passesMarketFilters, DEFAULT_MARKET_FILTERS, type MarketFilters } from './market-filters.ts';
import { paramArg } from './strategy.ts';
import { ExitCode, reportError } from './exit-codes.ts';

/** Options of `mmkit record` as commander hands them over. */
export interface RecordCliOptions {
  out: string;
  markets?: string;
  top?: number;
  /** With --top: the strategy whose market choice (`selectMarkets`) picks the N markets. */
  strategy?: string;
  param?: Record<string, string>;
  /** A config file: its bot.marketFilters (with the MMKIT_MARKET_* environment) filter --top. */
  config?: string;
  duration?: string;
  exchangeUrl?: string;
  rotateMb?: number;
  rotateMinutes?: number;
  seed: number;
  rtds: boolean;
  rtdsSymbols?: string;
  logLevel: string;
}

const positiveNumber =
  (name: string) =>
  (v: string): number => {
    if (!/^\d+(\.\d+)?$/.test(v) || !(Number(v) > 0))
      throw new InvalidArgumentError(`${name} must be a positive number`);
    return Number(v);
  };
const intIn =
  (name: string, min: number, max: number) =>
  (v: string): number => {
    if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max)
      throw new InvalidArgumentError(`${name} must be an integer in [${min}, ${max}]`);
    return Number(v);
  };
const durationArg = (v: string): string => {
  const ms = parseDuration(v);
  if (ms === undefined || ms <= 0)
    throw new InvalidArgumentError('--duration must be a duration like 30s, 5m, 2h or 1500ms');
  return v;
};

/** Registers `mmkit record` on the program. */
export function register(program: Command): void {
  program
    .command('record')
    .description('record the market channel and real-time prices of some markets to a gzip NDJSON feed (for backtests)')
    .addHelpText(
      'after',
      `
Examples:
  mmkit record --out feed.ndjson.gz --top 5 --duration 30m            # an in-process paper exchange, 5 busiest markets
  mmkit record --out feed.ndjson.gz --top 3 --strategy rewards --duration 1h  # the 3 markets the rewards strategy would pick
  mmkit record --out feed.ndjson.gz --markets 0xabc...,0xdef... --exchange-url http://127.0.0.1:8080 --rotate-mb 100
  mmkit backtest --feed feed.ndjson.gz feed.1.ndjson.gz --strategy bands   # then backtest it (parts merge by time)

Exit codes: 0 recorded and closed, 2 usage or configuration error, 3 venue unreachable.
`,
    )
    .requiredOption(
      '--out <file>',
      'the feed file to create (e.g. feed.ndjson.gz); rotated parts are <base>.1.ndjson.gz, <base>.2.ndjson.gz, ...',
    )
    .option('--markets <ids>', 'comma-separated condition ids to record')
    .option(
      '--top <n>',
      'record the N most traded active markets passing bot.marketFilters (by volume, then liquidity; default 5)',
      intIn('--top', 1, 250),
    )
    .option(
      '--strategy <name|path>',
      "with --top: pick the N markets by this strategy's market choice (selectMarkets; e.g. rewards) among the 5 x N most traded (at least 50)",
    )
    .option('--param <key=value>', 'a parameter of --strategy (repeatable)', paramArg)
    .option(
      '--config <file>',
      'with --top: take bot.marketFilters (minHoursToEnd, minWindowMinutes, negRisk, search) from this config file (the MMKIT_MARKET_* environment applies without it too)',
    )
    .option('--duration <d>', 'stop after 30s, 5m, 2h... (default: until SIGINT/SIGTERM)', durationArg)
    .option('--exchange-url <url>', 'the venue base URL (http://host:port); default: a paper exchange in-process')
    .option(
      '--rotate-mb <n>',
      'start a new part when the current one holds N MB compressed',
      positiveNumber('--rotate-mb'),
    )
    .option('--rotate-minutes <n>', 'start a new part every N minutes', positiveNumber('--rotate-minutes'))
    .option('--seed <n>', 'seed of the in-process paper exchange world', intIn('--seed', 0, 2 ** 31), 1)
    .option('--no-rtds', 'do not record the real-time data stream (crypto prices)')
    .option('--rtds-symbols <list>', 'crypto_prices symbols to record (comma-separated; "all" for every symbol)')
    .option('--log-level <level>', 'fatal|error|warn|info|debug|trace|silent', 'info')
    .action(async (o: RecordCliOptions) => {
      let code: number;
      try {
        code = await recordCommand(o);
      } catch (err) {
        code = reportError(err);
      }
      process.exit(code);
    });
}

/** Alias of `register` (the name main.ts may import it by). */
export const registerRecord = register;

/**
 * Runs `mmkit record` with parsed options; resolves with the exit code once the files are closed.
 * @throws ConfigError on bad options; the venue's errors when markets cannot be resolved
 */
export async function recordCommand(o: RecordCliOptions): Promise<number> {
  const { marketReader, partPath, resolveMarkets, startRecorder, venueProtocol, venueUrls, watchWorld } = await import(
    '../backtest/recorder.ts'
  );
  if (o.markets !== undefined && o.top !== undefined)
    throw new ConfigError('--markets', 'give either --markets or --top, not both');
  if (o.strategy !== undefined && o.markets !== undefined)
    throw new ConfigError('--strategy', 'picks markets with --top: give either --markets or --strategy, not both');
  if (o.param !== undefined && o.strategy === undefined) throw new ConfigError('--param', 'goes with --strategy');
  if (existsSync(o.out))
    throw new ConfigError('--out', `${o.out} exists: the recorder never overwrites a recording (choose another name)`);
  if (existsSync(partPath(o.out, 1)))
    throw new ConfigError(
      '--out',
      `${partPath(o.out, 1)} exists (a part of an earlier recording): choose another name`,
    );
  // (before recording, not at the first write: trial 23 F5)
  const outDir = dirname(resolve(o.out));
  if (!existsSync(outDir) || !statSync(outDir).isDirectory())
    throw new ConfigError('--out', `the directory of ${o.out} (${outDir}) does not exist`);
  const durationMs = o.duration !== undefined ? (parseDuration(o.duration) ?? 0) : 0;
  // --top picks among the candidates of bot.marketFilters, as `mmkit run` does (--markets: as named)
  const cfg = loadConfig(o.config);
  const filters = topFilters(o.markets === undefined ? cfg.bot.marketFilters : undefined);
  const { pino } = await import('pino');
  const log = pino({ level: o.logLevel }, pino.destination(2));

  let exchange: { close(): Promise<void> } | undefined;
  let watch: Awaited<ReturnType<typeof watchWorld>> | undefined;
  let reader: ReturnType<typeof marketReader> | undefined;
  let base: string;
  if (o.exchangeUrl) base = o.exchangeUrl;
  else {
    const { startExchange } = await import('../exchange/server.ts');
    const running = await startExchange({
      port: 0,
      seed: o.seed,
      logger: log.child({ component: 'exchange' }, { level: 'warn' }),
    });
    exchange = running;
    base = running.urls.clob_url.replace(/\/clob$/, '');
    log.info({ url: base, seed: o.seed }, 'paper exchange started in-process');
  }
  try {
    const urls = venueUrls(base);
    const markets =
      o.strategy !== undefined
        ? await strategyMarkets(urls, o.strategy, o.param ?? {}, o.top ?? 5, filters, log)
        : await resolveMarkets(
            urls,
            o.markets !== undefined ? { markets: o.markets.split(',') } : { top: o.top ?? 5, filter: filters.accepts },
          );
    const symbols =
      o.rtdsSymbols === undefined
        ? undefined
        : o.rtdsSymbols.trim().toLowerCase() === 'all'
          ? []
          : o.rtdsSymbols
              .split(',')
              .map((s) => s.trim().toLowerCase())
              .filter(Boolean);
    // a paper exchange's world id: a reconnect to a new world (the exchange restarted) is noted in the feed
    watch = await watchWorld(urls.clob).catch((err: unknown) => {
      log.warn(
        { err: (err as Error).message },
        'the venue did not say which world it is: a new world will not be noted',
      );
      return undefined;
    });
    // the order protocol the venue speaks goes into the header: a backtest charges its taker fee
    const protocol = await venueProtocol(urls.clob).catch((err: unknown) => {
      log.warn(
        { err: (err as Error).message },
        'the venue did not say which order protocol it speaks: the feed will not say (a backtest assumes 2)',
      );
      return undefined;
    });
    // the markets re-read as the daemon does (venue.marketRefreshMs): a change is written as a market line
    reader = marketReader(urls.clob);
    const rec = startRecorder({
      out: o.out,
      ...(cfg.venue.marketRefreshMs > 0
        ? { marketRefresh: { everyMs: cfg.venue.marketRefreshMs, read: reader.read } }
        : {}),
      ...(protocol !== undefined ? { protocol } : {}),
      ...(watch?.world !== undefined ? { world: watch.world } : {}),
      markets,
      marketUrl: urls.market,
      ...(o.rtds ? { rtdsUrl: urls.rtds } : {}),
      ...(symbols !== undefined ? { rtdsSymbols: symbols } : {}),
      source: base,
      ...(o.rotateMb !== undefined ? { rotateBytes: Math.round(o.rotateMb * 1024 * 1024) } : {}),
      ...(o.rotateMinutes !== undefined ? { rotateMs: Math.round(o.rotateMinutes * 60_000) } : {}),
      logger: log.child({ component: 'recorder' }),
    });
    log.info(
      {
        out: o.out,
        markets: markets.map((m) => ({ market: m.market, question: m.question })),
        durationMs: durationMs || null,
        protocol: protocol ?? null,
      },
      'recording',
    );

    const reason = await new Promise<string>((resolve) => {
      // (kept for the whole run: a second signal while the files close is ignored, not fatal)
      process.on('SIGINT', () => resolve('SIGINT'));
      process.on('SIGTERM', () => resolve('SIGTERM'));
      if (durationMs > 0) setTimeout(() => resolve('duration'), durationMs);
      rec.failed.then((e) => resolve(`write error: ${e.message}`));
    });
    log.info({ reason }, 'stopping');
    let failure: unknown;
    const stats = await rec.stop().catch((err: unknown) => {
      failure = err;
      return rec.stats();
    });
    process.stdout.write(
      [
        `mmkit record stopped (${reason})`,
        `  markets       ${markets.length}`,
        `  files         ${stats.files.join(' ')}`,
        `  lines         ${stats.lines}`,
        `  frames        ${stats.frames.m} market, ${stats.frames.r} rtds`,
        `  disconnects   ${stats.disconnects.m} market, ${stats.disconnects.r} rtds`,
        ...(stats.marketUpdates > 0
          ? [
              `  market updates ${stats.marketUpdates} (a market's rewards, status or minimum size changed: market lines)`,
            ]
          : []),
        ...(stats.newWorlds > 0
          ? [`  new worlds    ${stats.newWorlds} (the venue restarted as a new world: see the world status lines)`]
          : []),
        `  bytes         ${stats.rawBytes} raw, ${stats.diskBytes} gzip`,
      ].join('\n') + '\n',
    );
    if (failure !== undefined) {
      reportError(failure);
      return ExitCode.FAILURE;
    }
    return ExitCode.OK;
  } finally {
    await watch?.close();
    await reader?.close();
    await exchange?.close();
  }
}

/**
 * `--top N --strategy S`: the N markets S's market choice picks (src/strategy/select.ts) among the
 * 5 x N most traded active markets that pass bot.marketFilters (at least 50, at most 250), books
 * read from the venue.
 */
async function strategyMarkets(
  urls: { clob: string; gamma: string },
  strategy: string,
  given: Record<string, string>,
  top: number,
  filters: TopFilters,
  log: import('pino').Logger,
): Promise<MarketInfo[]> {
  const { resolveMarkets } = await import('../backtest/recorder.ts');
  const { loadStrategy } = await import('../strategy/loader.ts');
  const { resolveParams } = await import('../strategy/params.ts');
  const { chooseMarkets, levelsBookView } = await import('../strategy/select.ts');
  const { ClobClient } = await import('../api/clob.ts');
  const { createTransport } = await import('../api/http/transport.ts');
  const def = await loadStrategy(strategy);
  const params = resolveParams(def.params, given);
  const candidates = await resolveMarkets(urls, {
    top: Math.min(250, Math.max(50, 5 * top)),
    filter: filters.accepts,
  });
  const transport = createTransport({ urls: { clob: urls.clob } });
  try {
    const clob = new ClobClient(transport);
    const chosen = await chooseMarkets(def, filterCandidates(candidates, filters.filters, Date.now()), {
      now: Date.now(),
      count: top,
      params: params as Record<string, unknown>,
      log: log.child({ component: 'strategy', strategy: def.name }),
      book: async (tokenId) => {
        const b = await clob.book(tokenId);
        return levelsBookView(
          tokenId,
          b.bids.map((l) => [l.price, l.size] as const),
          b.asks.map((l) => [l.price, l.size] as const),
        );
      },
    });
    if (chosen.length === 0) throw new ConfigError('--strategy', `${def.name} chose no market to record`);
    return chosen;
  } finally {
    await transport.close();
  }
}

/** bot.marketFilters for --top: the filters, and a test of a metadata record against them now. */
interface TopFilters {
  readonly filters: MarketFilters;
  readonly accepts: (m: { question: string; endDate: string | null; negRisk: boolean }) => boolean;
}

function topFilters(f: MarketFilters | undefined): TopFilters {
  const filters = f ?? DEFAULT_MARKET_FILTERS;
  const now = Date.now();
  return { filters, accepts: (m) => passesMarketFilters(m, filters, now) };
}
