/**
 * The `mmkit` command. Only the command definitions load at start: every action imports what it
 * runs (`await import(...)` inside it), so `mmkit --help` and `mmkit status` start quickly. Keep
 * heavy modules (the exchange, the API clients, ethers, pino, fastify) out of the static imports of
 * this file and of the subcommand modules' `register`.
 */
import { Command, InvalidArgumentError } from 'commander';
import { ConfigError } from '../core/errors.ts';
import { parseAmount } from '../core/units.ts';
import type { FaultRule } from '../exchange/faults.ts';
import { EXIT_CODES_HELP, ExitCode, reportError } from './exit-codes.ts';
import { watchStopSignals } from './stop-signals.ts';
import { addRewardOptions, inProcessOnlyFlags, rewardFlagOverrides, rewardOptionsOf } from './reward-flags.ts';
import { register as registerConfig } from './config-cmd.ts';
import { register as registerMarkets } from './markets.ts';
import { register as registerOrders } from './orders.ts';
import { register as registerCancelAll } from './cancel-all.ts';
import { register as registerPositions } from './positions.ts';
import { register as registerStore } from './store-cmd.ts';
import { register as registerCtf } from './ctf.ts';
import { register as registerKeys } from './keys.ts';
import { register as registerStrategy } from './strategy.ts';
import { register as registerRecord } from './record.ts';
import { register as registerStatus } from './status.ts';
import { register as registerBacktest } from './backtest.ts';
import { register as registerSweep } from './sweep.ts';
import { register as registerSweepWorker } from './sweep-worker.ts';
import { register as registerFleet } from './fleet-status.ts';
import { register as registerWorld } from './world.ts';
import { shadowBanner, shadowRunner } from './shadow-cli.ts';
import type { ShadowRunSummary } from './run-shadow.ts';
import { strategyFailureLine } from './run-summary.ts';
import { exitSummaryText } from './run-exit-text.ts';
import { exchangeBanner } from './exchange-banner.ts';
import { doctorSettingsOf, register as registerDoctor } from './doctor.ts';

function intArg(name: string, min: number, max: number) {
  return (v: string): number => {
    if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max)
      throw new InvalidArgumentError(`${name} must be an integer in [${min}, ${max}]`);
    return Number(v);
  };
}

function fundArg(v: string, prev: Array<{ address: string; micro: number }> = []) {
  const m = /^(0x[0-9a-fA-F]{40})=(\d+(?:\.\d{1,6})?)$/.exec(v);
  if (!m) throw new InvalidArgumentError('--fund takes ADDRESS=AMOUNT, e.g. 0xabc...=5000');
  return [...prev, { address: (m[1] as string).toLowerCase(), micro: parseAmount(m[2] as string) }];
}

async function parseFaults(v: unknown[]): Promise<FaultRule[]> {
  const { FaultController } = await import('../exchange/faults.ts');
  const c = new FaultController(() => 0);
  try {
    return c.set(v as FaultRule[]);
  } catch (e) {
    throw new ConfigError('exchange.faults', (e as Error).message);
  }
}

const program = new Command();
program.name('mmkit').description('Market-making framework for prediction-market order books').version('0.1.0');
// usage errors exit 2 (exit-codes.ts); help and --version exit 0. Set before the commands are
// created: subcommands inherit it.
program.exitOverride((err) => process.exit(err.exitCode === 0 ? ExitCode.OK : ExitCode.USAGE));
program.addHelpText('after', EXIT_CODES_HELP);

program
  .command('exchange')
  .description('run the paper exchange: the whole service on one loopback port')
  .addHelpText(
    'after',
    `
Examples:
  mmkit exchange                                   # port 8080, seed 1, agents and lifecycle on
  mmkit exchange --port 0 --json                   # a free port; prints the base URLs as one JSON line
  mmkit exchange --seed 7 --agents none --no-lifecycle --db data/exchange.db
  MMKIT_ADMIN_TOKEN=secret mmkit exchange          # turns on /admin (faults, tick changes, resolution)
  mmkit exchange --protocol 2                      # GET /version answers 2: public V2 clients sign V2 orders
  mmkit exchange --rewards-epoch 2m --rewards-sample 10s --rewards-min-payout 0   # rewards paid every 2 min (demos)
${EXIT_CODES_HELP}`,
  )
  .option('--config <file>', 'JSON config file merged over config/default.json')
  .option('--port <n>', 'port to listen on (0 picks a free one) [exchange.port]', intArg('--port', 0, 65535))
  .option('--host <host>', 'address to bind [exchange.host]')
  .option('--seed <n>', 'seed of the market world [exchange.seed]', intArg('--seed', 0, 2 ** 31))
  .option('--json', 'print the base URLs as one JSON line')
  .option('--fund <address=amount>', 'credit collateral to an address at start (repeatable)', fundArg, [])
  .option(
    '--starting-balance <amount>',
    'collateral an address receives with its first API key [exchange.startingBalance]',
  )
  .option(
    '--chain-id <n>',
    'chain id of signed orders and L1 auth [exchange.chainId]',
    intArg('--chain-id', 1, 2 ** 31),
  )
  .option(
    '--protocol <1|2>',
    'CLOB protocol to speak, GET /version: 2 (CLOB V2) or 1 [exchange.protocol]',
    intArg('--protocol', 1, 2),
  )
  .option('--admin-token <token>', 'enable the /admin routes (prefer env MMKIT_ADMIN_TOKEN) [exchange.adminToken]')
  .option('--no-rate-limits', 'turn off the rate limits of spec section 8 [exchange.rateLimits.enabled]')
  .option('--rate-limit-scale <x>', 'multiply every rate limit by x [exchange.rateLimits.scale]', (v) => Number(v))
  .option(
    '--signer-limits <mode>',
    "the venue's per-signer order and cancel buckets: enforce | warn | off [exchange.signerLimits]",
  )
  .option('--signer-tier <tier>', 'rate-limit tier of every signer, standard ... elite [exchange.signerTier]')
  .option('--db <file>', 'SQLite file: state survives restarts [exchange.db]')
  .option('--agents <mode>', 'flow agents: default | none [exchange.agents]')
  .option(
    '--world-profile <name>',
    'who trades in the world: calm | realistic | toxic (README, World profiles) [exchange.worldProfile]',
  )
  .option(
    '--fee-rate-bps <n>',
    "taker fee rate of the world's markets, bps, 0 to 1000 (takers pay it under the CLOB protocol's formula) [exchange.feeRateBps]",
    intArg('--fee-rate-bps', 0, 1000),
  )
  .option('--no-lifecycle', 'markets do not close, resolve or appear during the run [exchange.lifecycle]')
  .option('--log-level <level>', 'fatal|error|warn|info|debug|trace|silent [log.level]')
  .option(
    '--log-format <format>',
    'pretty (for a person) | json (JSON lines) | auto: pretty on a terminal [log.format]',
  )
  .action(async (o) => {
    // (a token on argv is visible in `ps`: said once, the env variable named)
    const { warnSecretOnArgv } = await import('./common.ts');
    warnSecretOnArgv(o.adminToken, '--admin-token', 'MMKIT_ADMIN_TOKEN');
    const [{ loadConfig }, { createLogger, logFormatOf }, { startExchange }, { streamLimits }] = await Promise.all([
      import('./config.ts'),
      import('../ops/logger.ts'),
      import('../exchange/server.ts'),
      import('../exchange/ws/index.ts'),
    ]);
    const cfg = loadConfig(o.config, {
      'exchange.port': o.port,
      'exchange.host': o.host,
      'exchange.seed': o.seed,
      'exchange.startingBalance': o.startingBalance,
      'exchange.chainId': o.chainId,
      'exchange.protocol': o.protocol,
      'exchange.adminToken': o.adminToken,
      'exchange.rateLimits.enabled': o.rateLimits === false ? false : undefined,
      'exchange.rateLimits.scale': o.rateLimitScale,
      'exchange.signerLimits': o.signerLimits,
      'exchange.signerTier': o.signerTier,
      'exchange.db': o.db,
      'exchange.agents': o.agents,
      'exchange.worldProfile': o.worldProfile,
      'exchange.feeRateBps': o.feeRateBps,
      'exchange.lifecycle': o.lifecycle === false ? false : undefined,
      ...rewardFlagOverrides(o),
      'log.level': o.logLevel,
      'log.format': o.logFormat,
    });
    const x = cfg.exchange;
    const rewards = rewardOptionsOf(x.rewards);
    const ws = {
      maxConnections: x.ws.maxConnections,
      maxConnectionsPerIp: x.ws.maxConnectionsPerIp,
      authTimeoutMs: x.ws.authTimeoutMs,
      pingIntervalMs: x.ws.pingIntervalMs,
      ...(x.ws.idleTimeoutMs > 0 ? { idleTimeoutMs: x.ws.idleTimeoutMs } : {}),
    };
    try {
      streamLimits(ws);
    } catch (e) {
      const key = /^streams: (\w+)/.exec((e as Error).message)?.[1] ?? 'idleTimeoutMs';
      throw new ConfigError(`exchange.ws.${key}`, (e as Error).message);
    }
    // logs go to stderr: stdout carries what a supervisor reads (the --json line of URLs)
    const logger = createLogger({
      level: cfg.log.level,
      format: logFormatOf(cfg.log),
    });
    const running = await startExchange({
      host: x.host,
      port: x.port,
      seed: x.seed,
      fund: o.fund,
      logger,
      ...(x.db ? { dbFile: x.db } : {}),
      world: { agents: x.agents, lifecycle: x.lifecycle, profile: x.worldProfile, feeRateBps: x.feeRateBps },
      faults: await parseFaults(x.faults),
      exchange: {
        startingCollateral: parseAmount(x.startingBalance),
        chainId: x.chainId,
        protocol: x.protocol,
        heartbeatTimeoutMs: x.heartbeatTimeoutMs,
        gtdThresholdSec: x.gtdThresholdSec,
        rewards,
      },
      http: {
        adminToken: x.adminToken || undefined,
        bodyLimit: x.bodyLimitBytes,
        authMaxSkewSec: x.authMaxSkewSec,
        rateLimits: { ...x.rateLimits },
        signerLimits: { mode: x.signerLimits, tier: x.signerTier },
      },
      ws,
    });
    logger.info(
      { urls: running.urls, seed: x.seed, worldProfile: x.worldProfile, admin: x.adminToken !== '' },
      'paper exchange listening',
    );
    let stopping = false;
    const stop = (sig: string) => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal: sig }, 'stopping');
      running.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    // handlers first: a supervisor may signal as soon as it reads the URLs
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
    if (o.json) process.stdout.write(JSON.stringify(running.urls) + '\n');
    else {
      process.stdout.write(exchangeBanner(x, running.world));
      for (const [k, v] of Object.entries(running.urls)) process.stdout.write(`  ${k.padEnd(15)} ${v}\n`);
    }
  });

program
  .command('run')
  .description('run the market-making daemon (default: paper trading against an in-process paper exchange)')
  .addHelpText(
    'after',
    `
Examples:
  mmkit run                                        # paper trading: bands on 3 liquid markets, data/mmkit.db
  mmkit run --duration 30s                         # stops after 30 s: cancels all, verifies, exits 0
  mmkit run --rewards-epoch 2m --rewards-sample 10s --rewards-min-payout 0   # in-process exchange: rewards every 2 min
  mmkit run --strategy avellaneda --param riskAversion=0.5
  mmkit run --strategy ./my-strategy.ts --markets 0xabc...,0xdef...
  mmkit run --exchange-url http://127.0.0.1:8080   # against a paper exchange already running
  MMKIT_KEYSTORE_PASSWORD=... mmkit run --config config/live.example.json --keystore data/keystore.json

Status page, /metrics and /healthz on http://127.0.0.1:8787 (--http-port). Stop with Ctrl-C, SIGTERM,
SIGHUP or \`mmkit kill\`. One daemon per data dir (<dataDir>/daemon.lock). Exit codes: 0 stopped flat,
1 orders left open, 2 usage or configuration error (or the data dir is held by another daemon),
3 venue unreachable, 4 the kill switch tripped on a risk limit.
`,
  )
  .option('--config <file>', 'JSON config file merged over config/default.json')
  .option('--strategy <name|path>', 'strategy: a shipped name or a plugin file [bot.strategy]')
  .option(
    '--param <key=value>',
    'a strategy parameter (repeatable) [bot.params]',
    (v: string, prev: Record<string, string> = {}) => {
      const i = v.indexOf('=');
      if (i <= 0) throw new InvalidArgumentError('--param takes key=value');
      return { ...prev, [v.slice(0, i)]: v.slice(i + 1) };
    },
  )
  .option('--markets <ids>', 'comma-separated condition ids [bot.markets]')
  .option('--duration <d>', 'run for 30s, 5m, 2h, 1500ms (a bare number is seconds) then stop cleanly [bot.duration]')
  .option('--data-dir <dir>', 'where mmkit.db lives [bot.dataDir]')
  .option('--exchange-url <url>', 'a paper exchange already running at this base URL [bot.exchangeUrl]')
  .option(
    '--keystore <file>',
    'encrypted keystore of the wallet; password in MMKIT_KEYSTORE_PASSWORD [bot.keystoreFile]',
  )
  .option(
    '--http-port <n>',
    'port of the status page, /metrics and /healthz (0 picks a free one) [ops.httpPort]',
    intArg('--http-port', 0, 65535),
  )
  .option('--http-host <host>', 'address the status server binds to [ops.httpHost]')
  .option(
    '--world-profile <name>',
    'with the in-process paper exchange: who trades in its world, calm | realistic | toxic [exchange.worldProfile]',
  )
  .option(
    '--fee-rate-bps <n>',
    "with the in-process paper exchange: its markets' taker fee rate, bps, 0 to 1000 [exchange.feeRateBps]",
    intArg('--fee-rate-bps', 0, 1000),
  )
  .option('--log-level <level>', 'fatal|error|warn|info|debug|trace|silent [log.level]')
  .option(
    '--log-format <format>',
    'pretty (for a person) | json (JSON lines) | auto: pretty on a terminal [log.format]',
  )
  .option(
    '--shadow',
    "shadow mode: the venue's live books, simulated fills, nothing sent to the venue (files in <dataDir>/shadow) [bot.shadow]",
  )
  .action(async (o) => {
    // SIGINT/SIGTERM/SIGHUP handled from the first moment (src/cli/stop-signals.ts): node as PID 1 (the
    // Docker image) would ignore, and so lose, one that comes while the modules load
    const stops = watchStopSignals();
    const [
      { loadConfig, parseDuration },
      { componentLogger, createLogger, DAEMON_COMPONENT, logFormatOf },
      { runOptionsOf, daemonVenue },
      { ignoredInProcessKeys, inProcessIgnoredMessage, unusedInProcessSettings },
      { unknownVariables, unknownVariableMessage, unknownVariableWarnings },
    ] = await Promise.all([
      import('./config.ts'),
      import('../ops/logger.ts'),
      import('./venue.ts'),
      import('./run-inprocess.ts'),
      import('./env-names.ts'),
    ]);
    const load = (...a: Parameters<typeof loadConfig>) => {
      try {
        return loadConfig(...a);
      } catch (e) {
        // a misspelt MMKIT_* variable is said with the config's problems, not once they are mended (trial 25 F2)
        for (const w of unknownVariableWarnings(process.env))
          process.stderr.write(`mmkit: warning: config ${w.key}: ${w.message}\n`);
        throw e;
      }
    };
    const cfg = load(o.config, {
      'bot.strategy': o.strategy,
      'bot.markets':
        o.markets !== undefined
          ? String(o.markets)
              .split(',')
              .map((x) => x.trim())
              .filter(Boolean)
          : undefined,
      'bot.duration': o.duration,
      'bot.dataDir': o.dataDir,
      'bot.exchangeUrl': o.exchangeUrl,
      'bot.keystoreFile': o.keystore,
      'ops.httpPort': o.httpPort,
      'ops.httpHost': o.httpHost,
      'exchange.worldProfile': o.worldProfile,
      'exchange.feeRateBps': o.feeRateBps,
      ...rewardFlagOverrides(o),
      'log.level': o.logLevel,
      'log.format': o.logFormat,
      ...(o.shadow ? { 'bot.shadow': true } : {}),
    });
    const b = cfg.bot;
    const paperRewards = rewardOptionsOf(cfg.exchange.rewards);
    // logs on stderr (pretty on a terminal, JSON lines otherwise): stdout carries the summary
    const logger = createLogger({
      level: cfg.log.level,
      format: logFormatOf(cfg.log),
    });
    // a misspelt MMKIT_* variable would leave its key at the default without a word (trial 13 F1)
    for (const v of unknownVariables(process.env))
      componentLogger(logger, DAEMON_COMPONENT).warn(
        { variable: v.name, nearest: v.nearest },
        unknownVariableMessage(v),
      );
    // exchange.* keys the in-process paper exchange does not apply: said, not silently dropped
    if (!b.shadow && daemonVenue(cfg).inProcess) {
      const ignored = ignoredInProcessKeys(cfg);
      if (ignored.length > 0)
        componentLogger(logger, DAEMON_COMPONENT).warn({ keys: ignored }, inProcessIgnoredMessage(ignored));
    }
    const [{ runBot }, { runExitCode }] = await Promise.all([import('./run.ts'), import('./run-stop.ts')]);
    // The daemon's own timers are unref'd (the clock's): this handle keeps the process alive until
    // runBot settles, so a start that is waiting on a retry never ends as a silent exit 0.
    const keepAlive = setInterval(() => {}, 1 << 30);
    // shadow mode (src/cli/run-shadow.ts): the same run on live books with simulated fills
    const run = b.shadow ? await shadowRunner(cfg.shadow) : runBot;
    const summary = await run(
      {
        strategy: b.strategy,
        params: { ...b.params, ...(o.param ?? {}) },
        markets: b.markets,
        marketCount: b.marketCount,
        durationMs: b.duration ? (parseDuration(b.duration) ?? 0) : 0,
        dataDir: b.dataDir,
        exchangeUrl: b.exchangeUrl,
        chainId: b.chainId,
        statusIntervalMs: b.statusIntervalMs,
        tolerance: b.tolerance,
        risk: b.risk,
        restartPolicy: b.restartPolicy,
        foreignOrders: b.foreignOrders,
        postOnly: b.postOnly,
        fillMemory: b.fillMemory,
        keystoreFile: b.keystoreFile,
        ...(o.config ? { configFile: String(o.config) } : {}),
        seed: b.seed,
        paperProtocol: cfg.exchange.protocol === 2 ? 2 : 1,
        worldProfile: cfg.exchange.worldProfile,
        ...(cfg.exchange.feeRateBps > 0 ? { paperFeeRateBps: cfg.exchange.feeRateBps } : {}),
        paperRewards,
        // said when the daemon trades on a venue by URL (flags, and keys set by env or a config file)
        inProcessFlags: unusedInProcessSettings(cfg, inProcessOnlyFlags(o)),
        collateral: {
          autoMerge: b.autoMerge,
          mergeMinSize: parseAmount(b.mergeMinSize),
          autoRedeem: b.autoRedeem,
          everyMs: b.collateralCheckMs,
        },
        rewards: { sampleMs: Math.max(1, Math.round(b.rewards.sampleMs)), pollMs: b.rewards.pollMs },
        ...runOptionsOf(cfg),
        doctor: doctorSettingsOf(cfg),
        fleet: { redisUrl: cfg.fleet.redisUrl, member: cfg.fleet.member },
        ops: { ...cfg.ops },
        ...(cfg.fleet.redisUrl !== '' ? { fleet: { ...cfg.fleet } } : {}),
      },
      logger,
      undefined,
      stops,
    );
    clearInterval(keepAlive);
    // the JSON summary line as it always was; the labels name positions on stdout
    const { tokenLabels, marketTokens: _tokens, ...logged } = summary;
    componentLogger(logger, DAEMON_COMPONENT).info(logged, 'summary');
    // a strategy that erred on every evaluation: said in one line (src/cli/run-exit-text.ts), and exit 1
    const failed = strategyFailureLine(summary);
    process.stdout.write(exitSummaryText(summary, b.shadow ? shadowBanner(summary as ShadowRunSummary) : undefined));
    // exit 0 only when the venue was SEEN flat (an unchecked account is not a flat one) and the
    // strategy did not err on every evaluation (1 then), and 4 after a kill switch tripped by risk
    // (src/cli/run-stop.ts)
    const code = runExitCode(summary.stop, summary.noOrdersLeft && summary.openOrdersAtExit === 0);
    process.exit(code === ExitCode.OK && failed !== undefined ? ExitCode.FAILURE : code);
  });

// the liquidity reward flags of the paper exchange (exchange.rewards.*), on both commands that run one
for (const [name, what] of [
  ['exchange', ''],
  ['run', 'with the in-process paper exchange: '],
] as const) {
  const cmd = program.commands.find((c) => c.name() === name);
  if (cmd !== undefined) addRewardOptions(cmd, what);
}
registerConfig(program);
registerMarkets(program);
registerOrders(program);
registerCancelAll(program);
registerPositions(program);
registerStore(program);
registerCtf(program);
registerKeys(program);
registerStrategy(program);
registerRecord(program);
registerStatus(program);
registerBacktest(program);
registerSweep(program);
registerSweepWorker(program);
registerFleet(program);
registerWorld(program);
registerDoctor(program);

// Every command's own timers may be unref'd (the clock's, retry waits): this handle keeps the
// process alive until the command settles, so a command waiting on a retry never ends as a silent
// exit 0 (it ends with its result, or its error and exit code).
const keepAlive = setInterval(() => {}, 1 << 30);
program
  .parseAsync(process.argv)
  .then(() => clearInterval(keepAlive))
  .catch((err: unknown) => {
    // config errors exit 2, an unreachable venue 3, anything else 1 (exit-codes.ts)
    process.exit(reportError(err));
  });
