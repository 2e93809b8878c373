/**
 * mmkit's logger: pino, JSON lines on stderr (stdout carries `--json` output and the run summary),
 * or, in the pretty format (`log.format`: pretty, or auto when stderr is a terminal), the same lines
 * rendered for a person by the terminal view (./terminal/pretty-view.ts): one status line per
 * period, fills by question and outcome, warnings and errors highlighted (colour only on a
 * terminal, never with NO_COLOR). The JSON lines are the same in both: the view reads them.
 * Components log through child loggers
 * (`componentLogger(log, 'executor', market)`), so every line says where it came from.
 *
 * Secrets never reach a log line, by two independent means:
 *  1. redaction by PATH (`REDACT_PATHS`): every field whose name is a secret's (private key, API
 *     secret, passphrase, password, admin token), the L2 signature headers (POLY_SIGNATURE,
 *     POLY_PASSPHRASE, POLY_API_KEY, Authorization) and the user channel's `auth` frame object,
 *     at the top level and up to three objects deep;
 *  2. scrubbing by VALUE: the serialised line is scrubbed of every secret value registered with
 *     src/core/secrets.ts (the daemon registers the wallet key and the API credentials), so a
 *     secret that slipped into a message string or an error's text is still replaced.
 */
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { SECRET_CENSOR, scrubSecrets } from '../core/secrets.ts';
import { resolveLogFormat, type LogFormat } from './terminal/log-format.ts';
import { PrettyStream } from './terminal/pretty-stream.ts';
import { PrettyView, colorWanted } from './terminal/pretty-view.ts';

export type { Logger } from 'pino';
export { DAEMON_COMPONENT, logFormatOf, type LogFormat } from './terminal/log-format.ts';
export { prettyOnly, terminalView } from './terminal/pretty-stream.ts';

/** What a redacted value is replaced with. */
export const REDACT_CENSOR = SECRET_CENSOR;

/** Field names that hold secrets, wherever they appear. */
export const SECRET_FIELDS: readonly string[] = [
  'privateKey',
  'private_key',
  'mnemonic',
  'secret',
  'apiSecret',
  'api_secret',
  'passphrase',
  'apiPassphrase',
  'password',
  'adminToken',
  'admin_token',
  'creds',
  'credentials',
  // the user channel's subscription frame: {auth: {apiKey, secret, passphrase}, markets, type}
  'auth',
];

/** HTTP headers that carry credentials or signatures (both the wire case and Node's lower case). */
export const SECRET_HEADERS: readonly string[] = [
  'POLY_SIGNATURE',
  'POLY_PASSPHRASE',
  'POLY_API_KEY',
  'poly_signature',
  'poly_passphrase',
  'poly_api_key',
  'Authorization',
  'authorization',
  'X-Admin-Token',
  'x-admin-token',
  'Cookie',
  'cookie',
];

const seg = (k: string): string => (/^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `["${k}"]`);

function buildPaths(): string[] {
  const out: string[] = [];
  const prefixes = ['', '*', '*.*', '*.*.*'];
  for (const p of prefixes) {
    for (const f of SECRET_FIELDS) out.push(p === '' ? f : `${p}${seg(f)}`);
    for (const h of SECRET_HEADERS) out.push(p === '' ? `headers${seg(h)}` : `${p}.headers${seg(h)}`);
  }
  return out;
}

/** Every redacted path (pino / fast-redact syntax). */
export const REDACT_PATHS: readonly string[] = Object.freeze(buildPaths());

/** Options of `createLogger`. */
export interface CreateLoggerOptions {
  /** fatal | error | warn | info | debug | trace | silent (default info). */
  level?: string;
  /**
   * pretty | json | auto (default auto: pretty when the destination is stderr and stderr is a
   * terminal). Wins over `pretty`.
   */
  format?: LogFormat;
  /** The older switch (`log.pretty`): true = pretty, false = json; used when `format` is auto or absent. */
  pretty?: boolean;
  /** Colours in the pretty format (default: on a terminal, unless NO_COLOR is set). */
  color?: boolean;
  /** Where lines go (default stderr, fd 2). A stream is for tests. */
  destination?: DestinationStream | number;
  /** Fields on every line (e.g. `{ service: 'mmkit' }`). */
  base?: Record<string, unknown>;
  /**
   * The `time` of each line, unix ms (default the wall clock). A backtest passes its virtual clock;
   * a line logged while it returns NaN has no `time`.
   */
  now?: () => number;
}

const isTTY = (dest: DestinationStream | number): boolean =>
  dest === 2 ? process.stderr.isTTY === true : dest === 1 ? process.stdout.isTTY === true : false;

/** pino's `timestamp` of a clock: `,"time":<ms>`, nothing while the clock says NaN. */
function timeOf(now: () => number): () => string {
  return () => {
    const t = now();
    return Number.isFinite(t) ? `,"time":${Math.floor(t)}` : '';
  };
}

/**
 * The process logger (see the module comment).
 * @throws Error from pino on an unknown level.
 */
export function createLogger(o: CreateLoggerOptions = {}): Logger {
  const dest = o.destination ?? 2;
  const format = resolveLogFormat(
    o.format,
    o.pretty === undefined ? undefined : o.pretty ? 'true' : 'false',
    dest === 2 && isTTY(dest),
  );
  const opts: LoggerOptions = {
    level: o.level ?? 'info',
    redact: { paths: [...REDACT_PATHS], censor: REDACT_CENSOR },
    hooks: { streamWrite: scrubSecrets },
    ...(o.base !== undefined ? { base: o.base } : {}),
    ...(o.now !== undefined ? { timestamp: timeOf(o.now) } : {}),
  };
  const out = typeof dest === 'number' ? pino.destination(dest) : dest;
  if (format === 'pretty') {
    const view = new PrettyView({ color: o.color ?? colorWanted(isTTY(dest)) });
    return pino(opts, new PrettyStream(out, view) as unknown as DestinationStream);
  }
  return pino(opts, out);
}

/** A child logger of one component (and market): `{component, market}` on every line. */
export function componentLogger(
  log: Logger,
  component: string,
  market?: string,
  extra?: Record<string, unknown>,
): Logger {
  return log.child({ component, ...(market !== undefined ? { market } : {}), ...(extra ?? {}) });
}

/**
 * `componentLogger` of `log` per component and market, each child made once and kept (the daemon
 * logs a fill or a cycle of a market many times: one child each, not one per line).
 */
export function componentLoggers(log: Logger): (component: string, market: string) => Logger {
  const made = new Map<string, Logger>();
  return (component, market) => {
    const k = `${component}|${market}`;
    let l = made.get(k);
    if (l === undefined) made.set(k, (l = componentLogger(log, component, market)));
    return l;
  };
}
