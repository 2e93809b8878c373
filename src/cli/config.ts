/**
 * mmkit's configuration: one convict schema, every key documented with its default, unit and
 * environment variable. Precedence: defaults < config/default.json < the file given with --config <
 * environment (MMKIT_...) < command-line flags. Validation is strict: an unknown key or a bad value
 * stops the start with a ConfigError that names the key.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import convict from 'convict';
import { ConfigError } from '../core/errors.ts';

convict.addFormat({
  name: 'decimal-amount',
  validate(v: unknown) {
    if (typeof v !== 'string' || !/^\d+(\.\d{1,6})?$/.test(v)) throw new Error('must be a decimal amount string with at most 6 decimals, e.g. "10000"');
  },
});
convict.addFormat({
  name: 'json-array',
  validate(v: unknown) {
    if (!Array.isArray(v)) throw new Error('must be a JSON array');
  },
  coerce(v: unknown) {
    if (typeof v !== 'string') return v;
    try {
      return JSON.parse(v);
    } catch {
      throw new Error('must be a JSON array');
    }
  },
});
convict.addFormat({
  name: 'json-object',
  validate(v: unknown) {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('must be a JSON object');
  },
  coerce(v: unknown) {
    if (typeof v !== 'string') return v;
    try {
      return JSON.parse(v);
    } catch {
      throw new Error('must be a JSON object');
    }
  },
});
convict.addFormat({
  name: 'string-list',
  validate(v: unknown) {
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new Error('must be a list of strings');
  },
  coerce(v: unknown) {
    if (typeof v !== 'string') return v;
    const t = v.trim();
    if (t.startsWith('[')) return JSON.parse(t);
    return t === '' ? [] : t.split(',').map((x) => x.trim());
  },
});
convict.addFormat({
  name: 'duration-string',
  validate(v: unknown) {
    if (typeof v !== 'string' || (v !== '' && parseDuration(v) === undefined)) throw new Error('must be a duration like 30s, 5m, 2h or 1500ms (or empty)');
  },
});
convict.addFormat({
  name: 'positive-number',
  validate(v: unknown) {
    if (typeof v !== 'number' || !(v > 0) || !Number.isFinite(v)) throw new Error('must be a positive number');
  },
});

export const schema = {
  exchange: {
    host: { doc: 'Address the paper exchange binds to.', format: String, default: '127.0.0.1', env: 'MMKIT_EXCHANGE_HOST' },
    port: { doc: 'Port of the paper exchange (0 picks a free one).', format: 'port', default: 8080, env: 'MMKIT_EXCHANGE_PORT' },
    seed: { doc: 'Seed of the synthetic market world.', format: 'nat', default: 1, env: 'MMKIT_EXCHANGE_SEED' },
    chainId: { doc: 'Chain id of signed orders (EIP-712 domain) and L1 auth.', format: 'nat', default: 137, env: 'MMKIT_EXCHANGE_CHAIN_ID' },
    startingBalance: {
      doc: 'Collateral (USDC, decimal string) credited to an address with its first API key.',
      format: 'decimal-amount',
      default: '10000',
      env: 'MMKIT_EXCHANGE_STARTING_BALANCE',
    },
    adminToken: {
      doc: 'Enables the /admin routes when set; requests carry it in X-Admin-Token. Secret: set it by env, not in a committed file.',
      format: String,
      default: '',
      env: 'MMKIT_ADMIN_TOKEN',
      sensitive: true,
    },
    heartbeatTimeoutMs: { doc: 'Dead-man switch: ms without a heartbeat after which a user\'s orders are cancelled.', format: 'nat', default: 10_000, env: 'MMKIT_EXCHANGE_HEARTBEAT_TIMEOUT_MS' },
    gtdThresholdSec: { doc: 'GTD security threshold (s): an order lives until expiration minus this.', format: 'nat', default: 60, env: 'MMKIT_EXCHANGE_GTD_THRESHOLD_SEC' },
    bodyLimitBytes: { doc: 'Largest accepted request body, bytes.', format: 'nat', default: 262_144, env: 'MMKIT_EXCHANGE_BODY_LIMIT' },
    authMaxSkewSec: { doc: 'Largest accepted difference between POLY_TIMESTAMP and server time, s.', format: 'nat', default: 300, env: 'MMKIT_EXCHANGE_AUTH_MAX_SKEW_SEC' },
    db: {
      doc: 'SQLite file that keeps accounts, keys, orders, trades and the world across restarts; empty: in memory.',
      format: String,
      default: '',
      env: 'MMKIT_EXCHANGE_DB',
    },
    agents: { doc: 'Flow agents trading on every market: default, or none.', format: ['default', 'none'], default: 'default', env: 'MMKIT_EXCHANGE_AGENTS' },
    lifecycle: { doc: 'Markets close, resolve and appear during the run.', format: Boolean, default: true, env: 'MMKIT_EXCHANGE_LIFECYCLE' },
    faults: {
      doc: 'Fault-injection rules active from the start (see README); change them at run time through /admin/faults.',
      format: 'json-array',
      default: [] as unknown[],
      env: 'MMKIT_EXCHANGE_FAULTS',
    },
    rateLimits: {
      enabled: { doc: 'Apply the rate limits of spec section 8.', format: Boolean, default: true, env: 'MMKIT_EXCHANGE_RATE_LIMITS' },
      scale: { doc: 'Multiplier of every rate limit.', format: 'positive-number', default: 1, env: 'MMKIT_EXCHANGE_RATE_LIMIT_SCALE' },
      queueMs: { doc: 'How long an over-limit request is held before it is answered 429, ms.', format: 'nat', default: 500, env: 'MMKIT_EXCHANGE_RATE_LIMIT_QUEUE_MS' },
    },
  },
  bot: {
    strategy: { doc: 'Strategy: a shipped name (strategies/<name>.ts) or a path to a plugin file.', format: String, default: 'bands', env: 'MMKIT_STRATEGY' },
    params: { doc: 'Strategy parameters (JSON object); see `mmkit strategies`.', format: 'json-object', default: {} as Record<string, unknown>, env: 'MMKIT_STRATEGY_PARAMS' },
    markets: { doc: 'Condition ids to trade (JSON array or comma list); empty: the most liquid `marketCount`.', format: 'string-list', default: [] as string[], env: 'MMKIT_MARKETS' },
    marketCount: { doc: 'How many markets to pick when `markets` is empty.', format: 'nat', default: 3, env: 'MMKIT_MARKET_COUNT' },
    duration: { doc: 'Run for this long (e.g. 30s, 5m, 2h); empty: until a signal.', format: 'duration-string', default: '', env: 'MMKIT_DURATION' },
    dataDir: { doc: 'Directory of the SQLite store (mmkit.db) and the paper wallet.', format: String, default: 'data', env: 'MMKIT_DATA_DIR' },
    exchangeUrl: { doc: 'Base URL of a running paper exchange (http://host:port); empty: start one in-process.', format: String, default: '', env: 'MMKIT_EXCHANGE_URL' },
    chainId: { doc: 'Chain id of signed orders.', format: 'nat', default: 137, env: 'MMKIT_CHAIN_ID' },
    statusIntervalMs: { doc: 'Period of the position and PnL log line, ms.', format: 'nat', default: 5000, env: 'MMKIT_STATUS_INTERVAL_MS' },
    tolerance: {
      priceTicks: { doc: 'A live order within this many ticks of a desired quote is kept.', format: 'nat', default: 0, env: 'MMKIT_TOLERANCE_PRICE_TICKS' },
      sizeFraction: { doc: 'A live order within this fraction of a desired size is kept.', format: Number, default: 0.1, env: 'MMKIT_TOLERANCE_SIZE_FRACTION' },
    },
    risk: { doc: 'Risk limits (JSON object; see README "Risk").', format: 'json-object', default: {} as Record<string, unknown>, env: 'MMKIT_RISK' },
    restartPolicy: { doc: 'Open orders found at the venue on start: cancel, or adopt.', format: ['cancel', 'adopt'], default: 'cancel', env: 'MMKIT_RESTART_POLICY' },
    keystoreFile: { doc: 'Encrypted keystore file of the wallet (password in MMKIT_KEYSTORE_PASSWORD); else MMKIT_PRIVATE_KEY, else a paper wallet.', format: String, default: '', env: 'MMKIT_KEYSTORE_FILE' },
    seed: { doc: 'World seed of the in-process paper exchange.', format: 'nat', default: 1, env: 'MMKIT_SEED' },
  },
  log: {
    level: {
      doc: 'Log level.',
      format: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
      default: 'info',
      env: 'MMKIT_LOG_LEVEL',
    },
  },
};

/** '30s' | '5m' | '2h' | '1500ms' | '45' (seconds) -> ms; undefined when malformed. */
export function parseDuration(s: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(s.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = m[2] ?? 's';
  return Math.round(n * (unit === 'ms' ? 1 : unit === 's' ? 1000 : unit === 'm' ? 60_000 : 3_600_000));
}

export type MmkitConfig = {
  bot: {
    strategy: string;
    params: Record<string, unknown>;
    markets: string[];
    marketCount: number;
    duration: string;
    dataDir: string;
    exchangeUrl: string;
    chainId: number;
    statusIntervalMs: number;
    tolerance: { priceTicks: number; sizeFraction: number };
    risk: Record<string, unknown>;
    restartPolicy: 'cancel' | 'adopt';
    keystoreFile: string;
    seed: number;
  };
  exchange: {
    host: string;
    port: number;
    seed: number;
    chainId: number;
    startingBalance: string;
    adminToken: string;
    heartbeatTimeoutMs: number;
    gtdThresholdSec: number;
    bodyLimitBytes: number;
    authMaxSkewSec: number;
    db: string;
    agents: 'default' | 'none';
    lifecycle: boolean;
    faults: unknown[];
    rateLimits: { enabled: boolean; scale: number; queueMs: number };
  };
  log: { level: string };
};

const DEFAULT_FILE = fileURLToPath(new URL('../../config/default.json', import.meta.url));

/**
 * Load and validate the configuration.
 * @param file an extra JSON file (e.g. config/paper.json) merged over config/default.json
 * @param overrides values from command-line flags, as dotted keys ("exchange.port")
 * @throws ConfigError naming the first bad key
 */
export function loadConfig(file?: string, overrides: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = process.env): MmkitConfig {
  const c = convict(schema, { env });
  try {
    if (existsSync(DEFAULT_FILE)) c.loadFile(DEFAULT_FILE);
    if (file !== undefined) {
      if (!existsSync(file)) throw new ConfigError('--config', `no such file: ${file}`);
      c.loadFile(file);
    }
    for (const [k, v] of Object.entries(overrides)) if (v !== undefined) c.set(k, v);
    c.validate({ allowed: 'strict' });
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    const msg = (e as Error).message.split('\n')[0] ?? 'invalid configuration';
    const key = /^([\w.]+):/.exec(msg)?.[1] ?? /configuration param '([\w.]+)'/.exec(msg)?.[1] ?? 'config';
    throw new ConfigError(key, msg.startsWith(`${key}: `) ? msg.slice(key.length + 2) : msg);
  }
  return c.getProperties() as MmkitConfig;
}

/** Markdown table of every key (for the README). */
export function describeConfig(): string {
  const rows: string[] = ['| key | env | default | meaning |', '|---|---|---|---|'];
  const walk = (node: Record<string, any>, path: string[]) => {
    for (const [k, v] of Object.entries(node)) {
      if (v && typeof v === 'object' && 'doc' in v) {
        rows.push(`| \`${[...path, k].join('.')}\` | \`${v.env ?? ''}\` | \`${JSON.stringify(v.sensitive ? '' : v.default)}\` | ${v.doc} |`);
      } else walk(v, [...path, k]);
    }
  };
  walk(schema, []);
  return rows.join('\n');
}
