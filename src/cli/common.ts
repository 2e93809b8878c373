/**
 * What the operator commands share: the common flags (--config, --exchange-url, --data-dir,
 * --keystore, --json), loading the configuration with them, connecting to the venue (typed clients
 * of src/api over one transport, with the wallet's API key when the command needs auth), printing
 * tables or JSON, and turning errors into the documented exit codes (exit-codes.ts).
 *
 * Output: data on stdout (a table, or with --json ONE JSON document); notes and errors on stderr.
 * Money and prices are decimal strings on output; integers inside.
 */
import { InvalidArgumentError, type Command } from 'commander';
import type { ClobClient } from '../api/clob.ts';
import type { DataClient } from '../api/data.ts';
import type { GammaClient } from '../api/gamma.ts';
import type { HttpTransport } from '../api/http/transport.ts';
import { terminalSafe } from '../ops/terminal/safe-text.ts';
import { loadConfig, type MmkitConfig } from './config.ts';
import { CliError, ExitCode, isUnreachable, reportError } from './exit-codes.ts';
import { resolveVenue, apiCredentialsOf, budgetsOf, type ResolvedVenue } from './venue.ts';
import type { ResolvedWallet } from './wallet.ts';

/** The flags every venue command takes. */
export interface CommonOptions {
  config?: string;
  exchangeUrl?: string;
  dataDir?: string;
  keystore?: string;
  json?: boolean;
}

/** Adds --config, --exchange-url, --data-dir, --keystore (when `wallet`) and --json. */
export function addCommonOptions(cmd: Command, o: { wallet?: boolean } = {}): Command {
  cmd
    .option('--config <file>', 'JSON config file merged over config/default.json')
    .option(
      '--exchange-url <url>',
      "venue base URL, e.g. http://127.0.0.1:8080 [bot.exchangeUrl] (default: a local daemon's paper exchange, else http://<exchange.host>:<exchange.port>)",
    )
    .option('--data-dir <dir>', 'data directory: the paper wallet and the store [bot.dataDir]');
  if (o.wallet)
    cmd.option(
      '--keystore <file>',
      'encrypted keystore of the wallet; password in MMKIT_KEYSTORE_PASSWORD [bot.keystoreFile]',
    );
  cmd.option('--json', 'print one JSON document on stdout (errors as one JSON line on stderr)');
  return cmd;
}

/** The configuration with the common flags applied (flags win over env, env over files). */
export function configFrom(o: CommonOptions, extra: Record<string, unknown> = {}): MmkitConfig {
  return loadConfig(o.config, {
    'bot.exchangeUrl': o.exchangeUrl,
    'bot.dataDir': o.dataDir,
    'bot.keystoreFile': o.keystore,
    ...extra,
  });
}

/** A connection to the venue for one command. */
export interface Session {
  readonly cfg: MmkitConfig;
  readonly venue: ResolvedVenue;
  readonly transport: HttpTransport;
  readonly clob: ClobClient;
  readonly gamma: GammaClient;
  readonly data: DataClient;
  /** With `auth` or `wallet`. */
  readonly wallet: ResolvedWallet | undefined;
  /** The account address (lower case): the funder when configured, else the wallet's. */
  readonly address: string | undefined;
  close(): Promise<void>;
}

/**
 * Connect to the venue of the configuration. With `wallet` (implied by `auth`), resolve the wallet
 * (wallet.ts) to sign L1 requests; with `auth`, also set the API credentials: from the
 * environment, else created or derived with the wallet (L1).
 * @throws ConfigError (exit 2); CliError UNREACHABLE (exit 3) when the venue does not answer
 */
export async function openSession(
  cfg: MmkitConfig,
  o: { auth: boolean; wallet?: boolean; note?: (msg: string) => void; venue?: ResolvedVenue },
): Promise<Session> {
  // the API clients load here, not with the command definitions: `mmkit --help` stays quick
  const [
    { createOrDeriveApiKey },
    { ClobClient },
    { DataClient },
    { GammaClient },
    { createTransport },
    { resolveWallet },
  ] = await Promise.all([
    import('../api/auth.ts'),
    import('../api/clob.ts'),
    import('../api/data.ts'),
    import('../api/gamma.ts'),
    import('../api/http/transport.ts'),
    import('./wallet.ts'),
  ]);
  // a venue the command resolved already is kept (data-dir-venue.ts VenueCommandTarget.venue): not asked twice
  const venue = o.venue ?? resolveVenue(cfg);
  let wallet: ResolvedWallet | undefined;
  if (o.auth || o.wallet) {
    // reachable first: an unreachable venue must not leave a fresh paper wallet behind
    const probe = createTransport({
      urls: { clob: venue.urls.clob },
      timeoutMs: cfg.venue.timeoutMs,
      retry: { maxAttempts: 2, baseMs: 200, capMs: 1000 },
    });
    try {
      await new ClobClient(probe).ok();
    } catch (err) {
      throw venueError(err, venue);
    } finally {
      await probe.close();
    }
    wallet = await resolveWallet({
      keystoreFile: cfg.bot.keystoreFile,
      dataDir: cfg.bot.dataDir,
      allowPaper: venue.paper,
    });
    if (wallet.created) o.note?.(`created a paper wallet ${wallet.wallet.address} in ${wallet.file}`);
  }
  const transport = createTransport({
    urls: {
      clob: venue.urls.clob,
      gamma: venue.urls.gamma,
      data: venue.urls.data,
      // the content API only where the venue has one (the public service has none)
      ...(venue.urls.content ? { content: venue.urls.content } : {}),
      ...(venue.urls.relayer !== undefined ? { relayer: venue.urls.relayer } : {}),
    },
    ...(wallet ? { signer: wallet.wallet } : {}),
    chainId: cfg.bot.chainId,
    timeoutMs: cfg.venue.timeoutMs,
    budgets: budgetsOf(cfg),
    // a command is interactive: fail fast (one retry) and say the venue is unreachable
    retry: { maxAttempts: 2, baseMs: 200, capMs: 1000 },
  });
  const session: Session = {
    cfg,
    venue,
    transport,
    clob: new ClobClient(transport),
    gamma: new GammaClient(transport),
    data: new DataClient(transport),
    wallet,
    address: wallet ? (cfg.venue.funder || wallet.wallet.address).toLowerCase() : undefined,
    close: () => transport.close(),
  };
  try {
    if (o.auth) {
      const creds = apiCredentialsOf(cfg) ?? (await createOrDeriveApiKey(transport, { nonce: cfg.venue.apiNonce }));
      transport.setCredentials(creds);
    }
  } catch (err) {
    await transport.close();
    throw venueError(err, venue);
  }
  return session;
}

/** A network failure as "venue unreachable" (exit 3) naming the URL and what to do; others unchanged. */
export function venueError(err: unknown, venue: ResolvedVenue): unknown {
  if (!isUnreachable(err)) return err;
  const where = venue.base ?? venue.urls.clob;
  const hint =
    venue.source === 'default'
      ? ' (no venue configured: this is the paper exchange address of the config; start one with `mmkit exchange`, or pass --exchange-url)'
      : venue.source === 'daemon'
        ? ' (the URL a running daemon recorded in its data directory)'
        : '';
  return new CliError(
    `venue unreachable at ${where}${hint}: ${(err as Error).message}`,
    ExitCode.UNREACHABLE,
    'UNREACHABLE',
    { cause: err },
  );
}

/**
 * Runs a session-using body, closing the session and mapping network errors to exit 3.
 * @param o.venue the venue already resolved for `cfg` (venueCommandConfig's), else resolved here
 */
export async function withSession<T>(
  cfg: MmkitConfig,
  o: { auth: boolean; wallet?: boolean; json?: boolean; venue?: ResolvedVenue | undefined },
  body: (s: Session) => Promise<T>,
): Promise<T> {
  const s = await openSession(cfg, {
    auth: o.auth,
    ...(o.wallet ? { wallet: true } : {}),
    ...(o.venue !== undefined ? { venue: o.venue } : {}),
    note,
  });
  try {
    return await body(s);
  } catch (err) {
    throw venueError(err, s.venue);
  } finally {
    await s.close();
  }
}

/**
 * A note for the operator on stderr (never on stdout, which scripts parse). It may quote a venue's
 * answer: control characters spelt out (terminalSafe), its own lines kept.
 */
export function note(msg: string): void {
  process.stderr.write(`mmkit: ${terminalSafe(msg, { keepNewlines: true })}\n`);
}

/**
 * One warning on stderr for a secret given as a flag (trial 7 F7): a process's argv is visible to
 * every user of the machine (`ps`, /proc/PID/cmdline), its environment is not. Nothing when the flag
 * was not given (or given empty). The secret itself is never printed.
 * @param value the flag's value (undefined: not given)
 * @param flag the flag as typed (`--admin-token`)
 * @param envVar the environment variable that takes the secret instead
 */
export function warnSecretOnArgv(value: string | undefined, flag: string, envVar: string): void {
  if (value === undefined || value.trim() === '') return;
  note(
    `warning: ${flag} is visible to every user of this machine in the process list (ps); ` +
      `set ${envVar} in the environment instead`,
  );
}

/**
 * Wrap a command action: run it, print any error as documented, and exit with the code it
 * returned (default 0) or the error's code. Exits explicitly so no stray handle keeps a finished
 * command alive.
 */
export function action<A extends unknown[]>(fn: (...args: A) => Promise<number | void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    // `mmkit orders | head`: a reader that goes away is not an error
    process.stdout.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(ExitCode.OK);
      throw e;
    });
    // commander calls an action with (...arguments, options, command)
    const opts = args[args.length - 2] as { json?: boolean } | undefined;
    // the transport's retry sleeps and timeouts use unref'd timers (a daemon must not be kept
    // alive by them): hold the loop open until the command has finished
    const keepAlive = setInterval(() => {}, 1 << 30);
    let code: number;
    try {
      code = (await fn(...args)) ?? ExitCode.OK;
    } catch (err) {
      code = reportError(err, { json: opts?.json === true });
    } finally {
      clearInterval(keepAlive);
    }
    process.exit(code);
  };
}

/** Print one JSON document on stdout. */
export function printJson(v: unknown): void {
  process.stdout.write(JSON.stringify(v, null, 2) + '\n');
}

/**
 * Print rows as an aligned text table (columns in the given order). Cells may hold venue text (a
 * market's question, an outcome): their control characters are spelt out (terminalSafe).
 */
export function printTable(
  rows: ReadonlyArray<Record<string, string | number | boolean | null | undefined>>,
  columns: ReadonlyArray<string | [key: string, header: string]>,
): void {
  const cols: Array<[string, string]> = columns.map((c): [string, string] =>
    typeof c === 'string' ? [c, c] : [c[0], c[1]],
  );
  const cells = rows.map((r) =>
    cols.map(([k]) => (r[k] === null || r[k] === undefined ? '-' : terminalSafe(String(r[k])))),
  );
  const widths = cols.map(([, h], i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (xs: string[]) => xs.map((x, i) => (i === xs.length - 1 ? x : x.padEnd(widths[i]!))).join('  ');
  process.stdout.write(line(cols.map(([, h]) => h.toUpperCase())) + '\n');
  for (const c of cells) process.stdout.write(line(c) + '\n');
}

/** A positive-integer flag parser for commander. */
export function positiveInt(name: string, max = 1_000_000): (v: string) => number {
  return (v: string) => {
    if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > max)
      throw new InvalidArgumentError(`${name} must be an integer in [1, ${max}]`);
    return Number(v);
  };
}
