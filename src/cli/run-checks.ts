/**
 * What `mmkit run` and `mmkit run --shadow` (src/cli/run.ts, src/cli/run-shadow.ts) refuse and warn
 * of around the daemon's start and stop, apart from the wiring so both say it the same way:
 *
 *  - the start: the daemon's directory taken (its lock; another daemon there refuses the start,
 *    exit 2) and the stop signals watched, before anything trades;
 *  - flags that only the in-process paper exchange takes, given where there is none: one WARN;
 *  - no market to trade: refused (ConfigError) before the bot starts;
 *  - the shutdown's cancel and verify given up: the line that says where orders may still rest.
 *
 * The fleet's set-up checks are the fleet's (src/cli/run-fleet.ts, src/cli/fleet-markets.ts).
 */
import type { Logger } from 'pino';
import { ConfigError } from '../core/errors.ts';
import type { MarketInfo } from '../core/venue.ts';
import { acquireDaemonLock, DaemonLockedError, type DaemonLock } from '../ops/daemon-lock.ts';
import { CliError, ExitCode } from './exit-codes.ts';
import { watchStopSignals, type StopSignals } from './stop-signals.ts';
import type { VenueUrls } from './venue.ts';

/**
 * Takes the daemon's directory (`<dir>/daemon.lock`, src/ops/daemon-lock.ts) and then watches the
 * stop signals (`stops` when the caller installed them already), saying the first signal at once
 * (a start can take a while: the orderly stop follows as soon as it is started) and every later one.
 * The caller releases the lock and, when it gave no `stops`, disposes of the signals at the end.
 * @param locked the message of the refusal, from the lock's own
 * @throws CliError (exit 2, LOCKED) when another daemon holds the directory
 */
export async function takeDaemonDir(
  dir: string,
  dlog: Logger,
  stops: StopSignals | undefined,
  locked: (message: string) => string = (m) => m,
): Promise<{ lock: DaemonLock; sigs: StopSignals }> {
  let lock: DaemonLock;
  try {
    lock = await acquireDaemonLock(dir, { warn: (fields, msg) => dlog.warn(fields, msg) });
  } catch (e) {
    if (e instanceof DaemonLockedError) throw new CliError(locked(e.message), ExitCode.USAGE, 'LOCKED', { cause: e });
    throw e;
  }
  const sigs = stops ?? watchStopSignals();
  // said at once (a start can take a while: the orderly stop follows as soon as it is started)
  sigs.first.then((s) => dlog.info({ signal: s }, `${s}: stopping`));
  sigs.onRepeat((s) => dlog.warn({ signal: s }, 'already stopping: waiting for the orderly shutdown to finish'));
  return { lock, sigs };
}

/**
 * One WARN line when settings that only the in-process paper exchange takes (`--world-profile`,
 * `--fee-rate-bps`, `--rewards-*`, or their `exchange.*` keys set by the environment or a config
 * file: src/cli/run-inprocess.ts unusedInProcessSettings) were given although the daemon trades on a
 * venue given by URL: they have no effect.
 */
export function warnInProcessFlags(log: Pick<Logger, 'warn'>, flags: readonly string[] | undefined): void {
  if (flags === undefined || flags.length === 0) return;
  const one = flags.length === 1;
  log.warn(
    { flags },
    `${flags.join(', ')}: no effect here: ${one ? 'it applies' : 'they apply'} only to the ` +
      `in-process paper exchange (without --exchange-url); set ${one ? 'it' : 'them'} on \`mmkit exchange\` instead`,
  );
}

/**
 * Refuses a start with no market to trade: bot.markets named none that trades, or the strategy's
 * market choice took none of the `listed` markets.
 * @throws ConfigError when `markets` is empty: keyed bot.markets when they were given, else strategy
 */
export function requireMarketsToTrade(
  markets: readonly MarketInfo[],
  cfg: { readonly markets: readonly string[] },
  strategy: string,
  listed: number,
): void {
  if (markets.length === 0)
    throw cfg.markets.length > 0
      ? new ConfigError('bot.markets', 'no market to trade')
      : // the strategy's choice (its selectMarkets, or the default pick), not a bot.markets the user set
        new ConfigError(
          'strategy',
          `no market to trade: the strategy ${strategy} chose none of the ${listed} listed (filters: bot.marketFilters)`,
        );
}

/**
 * The shutdown's cancel and verify gave up (the venue did not answer, or still listed orders): one
 * ERROR line saying how many orders may still rest and where, with the commands that list and cancel
 * them from another terminal (the daemon's venue.json is gone once it exits: the venue is named).
 * The in-process paper exchange stops with the daemon, so nothing can rest there: a WARN then.
 * @param believedOpen the orders the bot still tracks as open (when the venue listed none)
 */
export function logNotFlat(
  log: Logger,
  flat: { readonly open: readonly unknown[]; readonly placesInFlight?: number },
  believedOpen: number,
  cfg: { readonly exchangeUrl: string; readonly dataDir: string; readonly configFile?: string },
  urls: VenueUrls,
  inProcess: boolean,
): void {
  const n = flat.open.length > 0 ? flat.open.length : believedOpen;
  const venue = cfg.exchangeUrl || urls.clob.replace(/\/clob$/, '');
  const fields = { open: n, placesInFlight: flat.placesInFlight ?? 0, venue };
  const what = `${n > 0 ? `${n} order(s)` : 'orders'} may still rest at the venue (${venue})`;
  if (inProcess) {
    log.warn(
      fields,
      `could not cancel/verify all orders: ${what}; the in-process paper exchange stops with the daemon`,
    );
    return;
  }
  // the venue as the commands take it: a paper exchange by URL, a configured venue by the same config
  const where = cfg.exchangeUrl
    ? `--exchange-url ${cfg.exchangeUrl}`
    : `--config ${cfg.configFile ?? '<the same config>'}`;
  const dir = `--data-dir ${cfg.dataDir}`;
  log.error(
    fields,
    `could not cancel/verify all orders: ${what}: list them with \`mmkit orders ${where} ${dir}\`, ` +
      `cancel them with \`mmkit cancel-all ${where} ${dir}\``,
  );
}
