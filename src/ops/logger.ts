/**
 * mmkit's logger: pino, JSON lines on stderr (stdout carries `--json` output and the run summary),
 * pretty-printed (pino-pretty) when stderr is a terminal. Components log through child loggers
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

export type { Logger } from 'pino';

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
   * Pretty-print (pino-pretty) instead of JSON lines. Default: when the destination is stderr and
   * stderr is a terminal.
   */
  pretty?: boolean;
  /** Where lines go (default stderr, fd 2). A stream is for tests. */
  destination?: DestinationStream | number;
  /** Fields on every line (e.g. `{ service: 'mmkit' }`). */
  base?: Record<string, unknown>;
}

/**
 * The process logger (see the module comment).
 * @throws Error from pino on an unknown level.
 */
export function createLogger(o: CreateLoggerOptions = {}): Logger {
  const dest = o.destination ?? 2;
  const pretty = o.pretty ?? (dest === 2 && process.stderr.isTTY === true);
  const opts: LoggerOptions = {
    level: o.level ?? 'info',
    redact: { paths: [...REDACT_PATHS], censor: REDACT_CENSOR },
    hooks: { streamWrite: scrubSecrets },
    ...(o.base !== undefined ? { base: o.base } : {}),
  };
  if (pretty) {
    return pino({
      ...opts,
      transport: {
        target: 'pino-pretty',
        options: { destination: typeof dest === 'number' ? dest : 2, colorize: true, translateTime: 'SYS:HH:MM:ss.l' },
      },
    });
  }
  return pino(opts, typeof dest === 'number' ? pino.destination(dest) : dest);
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
