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
  log: {
    level: {
      doc: 'Log level.',
      format: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
      default: 'info',
      env: 'MMKIT_LOG_LEVEL',
    },
  },
};

export type MmkitConfig = {
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
