/**
 * The schema of mmkit's configuration (src/cli/config.ts loads it): the convict formats, every key
 * with its doc, default, format and environment variable, and the typed configuration it yields.
 */
import { SIGNER_TIER_NAMES, type BudgetSignerTier, type SignerTierName } from '../core/signer-limits.ts';
import { GLOBAL_LIMITS_SCHEMA, MARKET_LIMITS_SCHEMA } from '../risk/limits.ts';
import type { ParamSpec } from '../strategy/api.ts';
import { validateAllowedHosts } from '../ops/allowed-hosts.ts';
import convict from 'convict';

convict.addFormat({
  name: 'decimal-amount',
  validate(v: unknown) {
    if (typeof v !== 'string' || !/^\d+(\.\d{1,6})?$/.test(v))
      throw new Error('must be a decimal amount string with at most 6 decimals, e.g. "10000"');
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
  name: 'host-list',
  validate(v: unknown) {
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new Error('must be a list of host names');
    validateAllowedHosts(v as string[]);
  },
  coerce(v: unknown) {
    if (typeof v !== 'string') return v;
    const t = v.trim();
    // a JSON array, else a comma list (`[::1]:9000` is a host, not JSON)
    if (t.startsWith('[') && t.includes('"')) {
      try {
        return JSON.parse(t);
      } catch {
        return v;
      }
    }
    return t === '' ? [] : t.split(',').map((x) => x.trim());
  },
});
convict.addFormat({
  name: 'duration-string',
  validate(v: unknown) {
    if (typeof v !== 'string' || (v !== '' && parseDuration(v) === undefined))
      throw new Error('must be a duration like 30s, 5m, 2h or 1500ms (or empty)');
  },
});
convict.addFormat({
  name: 'positive-number',
  validate(v: unknown) {
    if (typeof v !== 'number' || !(v > 0) || !Number.isFinite(v)) throw new Error('must be a positive number');
  },
  // environment values arrive as strings
  coerce(v: unknown) {
    return typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v;
  },
});
// convict's own Boolean takes any string but "false" as true: "ture" would switch a flag on
convict.addFormat({
  name: 'bool',
  validate(v: unknown) {
    if (typeof v !== 'boolean') throw new Error('must be true or false (env: true|false|1|0)');
  },
  coerce(v: unknown) {
    if (typeof v !== 'string') return v;
    const s = v.trim().toLowerCase();
    return s === 'true' || s === '1' ? true : s === 'false' || s === '0' ? false : v;
  },
});
convict.addFormat({
  name: 'clob-protocol',
  validate(v: unknown) {
    if (v !== 1 && v !== 2) throw new Error('must be 1 or 2');
  },
  coerce(v: unknown) {
    return v === '1' || v === '2' ? Number(v) : v;
  },
});
convict.addFormat({
  name: 'http-url-or-empty',
  validate(v: unknown) {
    if (typeof v !== 'string' || (v !== '' && !isUrl(v, ['http:', 'https:'])))
      throw new Error('must be an absolute http:// or https:// URL, or empty');
  },
});
convict.addFormat({
  name: 'ws-url-or-empty',
  validate(v: unknown) {
    if (typeof v !== 'string' || (v !== '' && !isUrl(v, ['ws:', 'wss:'])))
      throw new Error('must be an absolute ws:// or wss:// URL, or empty');
  },
});
convict.addFormat({
  name: 'address-or-empty',
  validate(v: unknown) {
    if (typeof v !== 'string' || (v !== '' && !/^0x[0-9a-fA-F]{40}$/.test(v)))
      throw new Error('must be an address (0x + 40 hex digits), or empty');
  },
});
convict.addFormat({
  name: 'private-key-or-empty',
  // never echo the value: convict appends "value was ..." only for formats that do not throw
  // their own full message, so the message here is complete and carries no part of the key
  validate(v: unknown) {
    if (typeof v !== 'string' || (v !== '' && !/^(0x)?[0-9a-fA-F]{64}$/.test(v.trim())))
      throw new Error('must be a private key (0x + 64 hex digits), or empty');
  },
});
convict.addFormat({
  name: 'secret-string',
  validate(v: unknown) {
    if (typeof v !== 'string') throw new Error('must be a string');
  },
});

function isUrl(s: string, protocols: readonly string[]): boolean {
  try {
    return protocols.includes(new URL(s).protocol);
  } catch {
    return false;
  }
}

/**
 * One convict format per bounded parameter (risk limits reuse the strategy ParamSpec shape), so a
 * value from the environment ("250") is coerced to a number and the error says the allowed range.
 */
/** Docs of the bounded numeric formats (name → "number 0 to 500000"), for `mmkit config docs`. */
export const BOUNDED_DOCS = new Map<string, string>();
function boundedFormat(name: string, spec: ParamSpec): string {
  if (spec.type !== 'number' && spec.type !== 'integer') throw new Error(`${name}: only numeric specs`);
  const range = `${spec.type === 'integer' ? 'an integer' : 'a number'} in [${spec.min ?? '-inf'}, ${spec.max ?? 'inf'}]`;
  BOUNDED_DOCS.set(
    name,
    `${spec.type === 'integer' ? 'integer' : 'number'} ${spec.min ?? '-inf'} to ${spec.max ?? 'inf'}`,
  );
  convict.addFormat({
    name,
    validate(v: unknown) {
      const ok =
        typeof v === 'number' &&
        Number.isFinite(v) &&
        (spec.type !== 'integer' || Number.isInteger(v)) &&
        (spec.min === undefined || v >= spec.min) &&
        (spec.max === undefined || v <= spec.max);
      if (!ok) throw new Error(`must be ${range}`);
    },
    coerce(v: unknown) {
      return typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v;
    },
  });
  return name;
}

/** `bot.risk.*`: the limits of src/risk/limits.ts, one key (and env var) each, in decimal units. */
function riskSchema() {
  const out: Record<string, { doc: string; format: unknown; default: unknown; env: string }> = {};
  for (const [k, spec] of Object.entries({ ...MARKET_LIMITS_SCHEMA, ...GLOBAL_LIMITS_SCHEMA }) as Array<
    [string, ParamSpec]
  >) {
    out[k] = {
      doc: spec.doc,
      format: boundedFormat(`risk-${k}`, spec),
      default: spec.default,
      env: `MMKIT_RISK_${k.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`,
    };
  }
  out['markets'] = {
    doc: 'Per-market overrides of the per-market limits above: {"<condition id>": {"maxPositionShares": 50, ...}} (JSON object).',
    format: 'json-object',
    default: {},
    env: 'MMKIT_RISK_MARKETS',
  };
  return out;
}

export const schema = {
  exchange: {
    host: {
      doc: 'Address the paper exchange binds to.',
      format: String,
      default: '127.0.0.1',
      env: 'MMKIT_EXCHANGE_HOST',
    },
    port: {
      doc: 'Port of the paper exchange (0 picks a free one).',
      format: 'port',
      default: 8080,
      env: 'MMKIT_EXCHANGE_PORT',
    },
    seed: { doc: 'Seed of the synthetic market world.', format: 'nat', default: 1, env: 'MMKIT_EXCHANGE_SEED' },
    chainId: {
      doc: 'Chain id of signed orders (EIP-712 domain) and L1 auth.',
      format: 'nat',
      default: 137,
      env: 'MMKIT_EXCHANGE_CHAIN_ID',
    },
    protocol: {
      doc: 'CLOB protocol the paper exchange speaks (GET /version): 2 (CLOB V2, the public service since 2026-04-28) or 1 (V1 orders only, for V1 clients). Public V2 clients sign V1 orders when it is 1.',
      format: 'clob-protocol',
      default: 2 as 1 | 2,
      env: 'MMKIT_EXCHANGE_PROTOCOL',
    },
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
    heartbeatTimeoutMs: {
      doc: "Dead-man switch: ms without a heartbeat after which a user's orders are cancelled.",
      format: 'nat',
      default: 10_000,
      env: 'MMKIT_EXCHANGE_HEARTBEAT_TIMEOUT_MS',
    },
    gtdThresholdSec: {
      doc: 'GTD security threshold (s): an order lives until expiration minus this.',
      format: 'nat',
      default: 60,
      env: 'MMKIT_EXCHANGE_GTD_THRESHOLD_SEC',
    },
    bodyLimitBytes: {
      doc: 'Largest accepted request body, bytes.',
      format: 'nat',
      default: 262_144,
      env: 'MMKIT_EXCHANGE_BODY_LIMIT',
    },
    authMaxSkewSec: {
      doc: 'Largest accepted difference between POLY_TIMESTAMP and server time, s.',
      format: 'nat',
      default: 300,
      env: 'MMKIT_EXCHANGE_AUTH_MAX_SKEW_SEC',
    },
    db: {
      doc: 'SQLite file that keeps accounts, keys, orders, trades and the world across restarts; empty: in memory.',
      format: String,
      default: '',
      env: 'MMKIT_EXCHANGE_DB',
    },
    agents: {
      doc: 'Flow agents trading on every market: default, or none.',
      format: ['default', 'none'],
      default: 'default',
      env: 'MMKIT_EXCHANGE_AGENTS',
    },
    worldProfile: {
      doc: 'Who trades in the paper world (README, World profiles): calm (uninformed flow, the easy world), realistic (news, informed and fast traders) or toxic.',
      format: ['calm', 'realistic', 'toxic'],
      default: 'realistic',
      env: 'MMKIT_EXCHANGE_WORLD_PROFILE',
    },
    lifecycle: {
      doc: 'Markets close, resolve and appear during the run.',
      format: 'bool',
      default: true,
      env: 'MMKIT_EXCHANGE_LIFECYCLE',
    },
    faults: {
      doc: 'Fault-injection rules active from the start (see README); change them at run time through /admin/faults.',
      format: 'json-array',
      default: [] as unknown[],
      env: 'MMKIT_EXCHANGE_FAULTS',
    },
    rateLimits: {
      enabled: {
        doc: 'Apply the rate limits of spec section 8.',
        format: 'bool',
        default: true,
        env: 'MMKIT_EXCHANGE_RATE_LIMITS',
      },
      scale: {
        doc: 'Multiplier of every rate limit.',
        format: 'positive-number',
        default: 1,
        env: 'MMKIT_EXCHANGE_RATE_LIMIT_SCALE',
      },
      queueMs: {
        doc: 'How long an over-limit request is held before it is answered 429, ms.',
        format: 'nat',
        default: 500,
        env: 'MMKIT_EXCHANGE_RATE_LIMIT_QUEUE_MS',
      },
    },
    signerLimits: {
      doc: "The venue's per-signer token buckets (orders and cancels; a batch costs its entries, a cancel-all 1 + the orders it cancelled): enforce (429 over the limit), warn (processed, flagged Poly-RateLimit-Warning: true), or off. Off too when rateLimits.enabled is false; rateLimits.scale multiplies them.",
      format: ['enforce', 'warn', 'off'],
      default: 'enforce',
      env: 'MMKIT_EXCHANGE_SIGNER_LIMITS',
    },
    signerTier: {
      doc: "Rate-limit tier of every signer (standard, copper, bronze, silver, gold, platinum, diamond, elite); one signer's changes with POST /admin/rate-limit-tier.",
      format: [...SIGNER_TIER_NAMES],
      default: 'standard',
      env: 'MMKIT_EXCHANGE_SIGNER_TIER',
    },
    rewards: {
      epochMs: {
        doc: "Liquidity reward epoch of the paper exchange, ms: at each end (epochs aligned to multiples of it since the unix epoch; a day ends at midnight UTC) the pool of every rewarded market is paid by the makers' scores. 1000 to 31622400000 (366 days). Flag --rewards-epoch (2m, 1h, 1d).",
        format: 'nat',
        default: 86_400_000,
        env: 'MMKIT_EXCHANGE_REWARDS_EPOCH_MS',
      },
      sampleMs: {
        doc: 'How often the paper exchange samples the resting orders of its rewarded markets, ms of its clock (100 to epochMs). Flag --rewards-sample.',
        format: 'nat',
        default: 60_000,
        env: 'MMKIT_EXCHANGE_REWARDS_SAMPLE_MS',
      },
      minPayout: {
        doc: 'Smallest liquidity reward the paper exchange pays a maker for one market and epoch (USDC, decimal string); less is not paid. Flag --rewards-min-payout.',
        format: 'decimal-amount',
        default: '1',
        env: 'MMKIT_EXCHANGE_REWARDS_MIN_PAYOUT',
      },
    },
    ws: {
      maxConnections: {
        doc: 'Most WebSockets open at once, all paths together (at least 1); over it an upgrade is refused 503.',
        format: 'nat',
        default: 1000,
        env: 'MMKIT_EXCHANGE_WS_MAX_CONNECTIONS',
      },
      maxConnectionsPerIp: {
        doc: 'Most WebSockets open at once from one client address (at least 1); over it an upgrade is refused 429.',
        format: 'nat',
        default: 100,
        env: 'MMKIT_EXCHANGE_WS_MAX_CONNS_PER_IP',
      },
      authTimeoutMs: {
        doc: 'A /ws/user socket that has not authenticated within this many ms is closed (1008); 0: no deadline.',
        format: 'nat',
        default: 10_000,
        env: 'MMKIT_EXCHANGE_WS_AUTH_TIMEOUT_MS',
      },
      pingIntervalMs: {
        doc: 'Interval of the server WebSocket ping frames, ms; 0: no pings and no idle timeout.',
        format: 'nat',
        default: 30_000,
        env: 'MMKIT_EXCHANGE_WS_PING_INTERVAL_MS',
      },
      idleTimeoutMs: {
        doc: 'A socket that sent nothing (pong included) for this many ms is terminated; more than pingIntervalMs; 0: twice pingIntervalMs.',
        format: 'nat',
        default: 0,
        env: 'MMKIT_EXCHANGE_WS_IDLE_TIMEOUT_MS',
      },
    },
  },
  bot: {
    strategy: {
      doc: 'Strategy: a shipped name (strategies/<name>.ts) or a path to a plugin file.',
      format: String,
      default: 'bands',
      env: 'MMKIT_STRATEGY',
    },
    params: {
      doc: 'Strategy parameters (JSON object), checked against the strategy\'s schema by `mmkit config check` (README "Strategies" lists them).',
      format: 'json-object',
      default: {} as Record<string, unknown>,
      env: 'MMKIT_STRATEGY_PARAMS',
    },
    markets: {
      doc: 'Condition ids to trade (JSON array or comma list); empty: the most liquid `marketCount`.',
      format: 'string-list',
      default: [] as string[],
      env: 'MMKIT_MARKETS',
    },
    marketCount: {
      doc: 'How many markets to pick when `markets` is empty.',
      format: 'nat',
      default: 3,
      env: 'MMKIT_MARKET_COUNT',
    },
    marketFilters: {
      minHoursToEnd: {
        doc: 'Automatic pick (and `record --top`): only markets ending at least this many hours from now.',
        format: 'nat',
        default: 1,
        env: 'MMKIT_MARKET_MIN_HOURS_TO_END',
      },
      negRisk: {
        doc: 'Automatic pick: neg-risk markets included, excluded, or only them.',
        format: ['include', 'exclude', 'only'],
        default: 'include',
        env: 'MMKIT_MARKET_NEG_RISK',
      },
      search: {
        doc: 'Automatic pick: only markets whose question contains this text (case-insensitive); empty: any.',
        format: String,
        default: '',
        env: 'MMKIT_MARKET_SEARCH',
      },
      minWindowMinutes: {
        doc: 'Automatic pick (and `record --top`): leave out markets whose question names a time window shorter than this many minutes (crypto up/down windows: "10:00-10:15 UTC" is 15, hourly 60, daily 1440); 0: any.',
        format: 'nat',
        default: 0,
        env: 'MMKIT_MARKET_MIN_WINDOW_MINUTES',
      },
    },
    duration: {
      doc: 'Run for this long (e.g. 30s, 5m, 2h); empty: until a signal.',
      format: 'duration-string',
      default: '',
      env: 'MMKIT_DURATION',
    },
    dataDir: {
      doc: 'Directory of the SQLite store (mmkit.db) and the paper wallet.',
      format: String,
      default: 'data',
      env: 'MMKIT_DATA_DIR',
    },
    storeFile: {
      doc: 'SQLite store file; empty: <dataDir>/mmkit.db.',
      format: String,
      default: '',
      env: 'MMKIT_STORE_FILE',
    },
    exchangeUrl: {
      doc: 'Base URL of the venue (http://host:port): the paper exchange, or a gateway serving /clob, /gamma, /data, /content and /ws. `mmkit run`: empty starts a paper exchange in-process; other commands: empty means http://<exchange.host>:<exchange.port>. `venue.*Url` override single APIs.',
      format: 'http-url-or-empty',
      default: '',
      env: 'MMKIT_EXCHANGE_URL',
    },
    chainId: { doc: 'Chain id of signed orders.', format: 'nat', default: 137, env: 'MMKIT_CHAIN_ID' },
    statusIntervalMs: {
      doc: 'Period of the position and PnL log line, ms.',
      format: 'nat',
      default: 5000,
      env: 'MMKIT_STATUS_INTERVAL_MS',
    },
    tolerance: {
      priceTicks: {
        doc: 'A live order within this many ticks of a desired quote is kept.',
        format: 'nat',
        default: 0,
        env: 'MMKIT_TOLERANCE_PRICE_TICKS',
      },
      sizeFraction: {
        doc: 'A live order within this fraction of a desired size is kept.',
        format: boundedFormat('tolerance-size-fraction', { type: 'number', default: 0.1, min: 0, max: 1, doc: '' }),
        default: 0.1,
        env: 'MMKIT_TOLERANCE_SIZE_FRACTION',
      },
    },
    risk: riskSchema(),
    restartPolicy: {
      doc: "The bot's own open orders (those its store recorded, placed by an earlier run) found at the venue on start: cancel, or adopt. Orders the store does not know follow bot.foreignOrders.",
      format: ['cancel', 'adopt'],
      default: 'cancel',
      env: 'MMKIT_RESTART_POLICY',
    },
    foreignOrders: {
      doc: "Orders on the wallet that the bot did not place (another client's), at start and while running: leave (tracked apart, never crossed: self-trade prevention), cancel, or adopt (taken over as the bot's own). Their fills are recorded as external, never as the strategy's.",
      format: ['leave', 'cancel', 'adopt'],
      default: 'leave',
      env: 'MMKIT_FOREIGN_ORDERS',
    },
    postOnly: {
      doc: "Send quotes with the venue's post-only flag: a quote that would cross is refused by the venue (counted, re-priced at the next intent, not a kill-switch rejection). Immediate FOK/FAK orders never are.",
      format: 'bool',
      default: true,
      env: 'MMKIT_POST_ONLY',
    },
    keystoreFile: {
      doc: 'Encrypted keystore file of the wallet (password in MMKIT_KEYSTORE_PASSWORD); else MMKIT_PRIVATE_KEY, else a paper wallet.',
      format: String,
      default: '',
      env: 'MMKIT_KEYSTORE_FILE',
    },
    seed: { doc: 'World seed of the in-process paper exchange.', format: 'nat', default: 1, env: 'MMKIT_SEED' },
    autoMerge: {
      doc: 'Merge complementary holdings (YES and NO of one market, free of orders, both at least bot.mergeMinSize) back into collateral through the relayer: on, off, or auto (on with a paper exchange, off on a real venue).',
      format: ['auto', 'on', 'off'],
      default: 'auto',
      env: 'MMKIT_AUTO_MERGE',
    },
    mergeMinSize: {
      doc: 'The smallest holding of both tokens of a market (shares, a decimal string) that the daemon merges.',
      format: 'decimal-amount',
      default: '10',
      env: 'MMKIT_MERGE_MIN_SIZE',
    },
    autoRedeem: {
      doc: "Redeem resolved markets' tokens through the relayer: on, off, or auto (on with a paper exchange, off on a real venue).",
      format: ['auto', 'on', 'off'],
      default: 'auto',
      env: 'MMKIT_AUTO_REDEEM',
    },
    collateralCheckMs: {
      doc: 'How often (ms) the daemon looks for holdings to merge and markets to redeem (also after each position audit and when a followed market resolves); 0: only then.',
      format: 'nat',
      default: 60000,
      env: 'MMKIT_COLLATERAL_CHECK_MS',
    },
    // liquidity rewards (issue 19, workstream B): the bot's estimate and the payouts it books
    rewards: {
      sampleMs: {
        doc: "How often (ms) the daemon scores its own quotes on rewarded markets against the book's competition (the estimate the store keeps until the venue pays); the venue samples every minute. With the in-process paper exchange, the default follows its exchange.rewards.sampleMs.",
        format: 'positive-number',
        default: 60000,
        env: 'MMKIT_BOT_REWARDS_SAMPLE_MS',
      },
      pollMs: {
        doc: "How often (ms) the daemon reads the venue's reward earnings of today and yesterday (UTC) and books what it paid (also once at shutdown); 0: only at shutdown.",
        format: 'nat',
        default: 60000,
        env: 'MMKIT_BOT_REWARDS_POLL_MS',
      },
    },
    // shadow mode (issue 20, workstream S): src/cli/run-shadow.ts
    shadow: {
      doc: "Shadow mode (`mmkit run --shadow`): the venue's live books, the strategy, risk and execution as live, orders filled by the backtester's simulated venue (shadow.*); nothing is sent to the venue, no wallet is needed. Its files live in <dataDir>/shadow.",
      format: 'bool',
      default: false,
      env: 'MMKIT_SHADOW',
    },
  },
  venue: {
    clobUrl: {
      doc: 'CLOB API base URL; empty: <bot.exchangeUrl>/clob.',
      format: 'http-url-or-empty',
      default: '',
      env: 'MMKIT_CLOB_URL',
    },
    gammaUrl: {
      doc: 'Market-metadata (Gamma) API base URL; empty: <bot.exchangeUrl>/gamma.',
      format: 'http-url-or-empty',
      default: '',
      env: 'MMKIT_GAMMA_URL',
    },
    dataUrl: {
      doc: 'Data API base URL; empty: <bot.exchangeUrl>/data.',
      format: 'http-url-or-empty',
      default: '',
      env: 'MMKIT_DATA_URL',
    },
    contentUrl: {
      doc: 'Content API base URL; empty: <bot.exchangeUrl>/content.',
      format: 'http-url-or-empty',
      default: '',
      env: 'MMKIT_CONTENT_URL',
    },
    wsUrl: {
      doc: 'WebSocket base URL (streams at <wsUrl>/ws/market and /ws/user); empty: ws://<bot.exchangeUrl host>.',
      format: 'ws-url-or-empty',
      default: '',
      env: 'MMKIT_WS_URL',
    },
    rtdsUrl: {
      doc: 'Real-time data stream (crypto prices) URL; empty: <wsUrl>/rtds (the paper exchange layout).',
      format: 'ws-url-or-empty',
      default: '',
      env: 'MMKIT_RTDS_URL',
    },
    relayerUrl: {
      doc: 'Relayer base URL (split, merge, redeem, convert: POST <relayerUrl>/submit); empty: <bot.exchangeUrl>/relayer.',
      format: 'http-url-or-empty',
      default: '',
      env: 'MMKIT_RELAYER_URL',
    },
    marketSilenceMs: {
      doc: 'Market channel liveness: no data for this long (ms) and the connection is replaced (its books are stale, quotes pulled, until the fresh snapshot); 0 disables.',
      format: 'nat',
      default: 30000,
      env: 'MMKIT_MARKET_SILENCE_MS',
    },
    userAuditMs: {
      doc: 'User channel audit: every this many ms the open orders and the trades since the last audit are fetched over REST and what the channel did not deliver (a fill, an order filled or cancelled) is recorded; a connection can stay open yet deliver nothing; 0 disables.',
      format: 'nat',
      default: 30000,
      env: 'MMKIT_USER_AUDIT_MS',
    },
    positionAuditMs: {
      doc: "Position reconciliation: every this many ms the venue's collateral and token balances are read and the store's positions follow them (each difference recorded as an adjustment with its cause, logged, counted); it also runs at start and after every reconnect of the user channel; 0: only then.",
      format: 'nat',
      default: 60000,
      env: 'MMKIT_POSITION_AUDIT_MS',
    },
    signatureType: {
      doc: 'How orders are signed: eoa (the wallet holds the funds), poly-proxy or gnosis-safe (the funder address holds them; set venue.funder).',
      format: ['eoa', 'poly-proxy', 'gnosis-safe'],
      default: 'eoa',
      env: 'MMKIT_SIGNATURE_TYPE',
    },
    protocol: {
      doc: 'Order protocol to sign: auto (ask the venue, GET /version: 2 for CLOB V2, the public service since 2026-04-28; 1 when it answers 1 or has no such route), 2 or 1.',
      format: ['auto', '1', '2'],
      default: 'auto',
      env: 'MMKIT_ORDER_PROTOCOL',
    },
    funder: {
      doc: 'Maker (funder) address: the proxy or Safe holding the funds; empty: the wallet address (eoa).',
      format: 'address-or-empty',
      default: '',
      env: 'MMKIT_FUNDER',
    },
    apiNonce: {
      doc: 'L1 nonce of the API key created or derived when no API credentials are set in the environment.',
      format: 'nat',
      default: 0,
      env: 'MMKIT_API_NONCE',
    },
    timeoutMs: {
      doc: 'Per-request timeout of venue calls, ms.',
      format: 'nat',
      default: 10_000,
      env: 'MMKIT_VENUE_TIMEOUT_MS',
    },
    contracts: {
      exchange: {
        doc: "The venue's CTF exchange contract, as its docs publish it; `mmkit doctor` checks it is the one orders are signed for (and its allowance). Empty: mmkit's own for the protocol and chain.",
        format: 'address-or-empty',
        default: '',
        env: 'MMKIT_EXCHANGE_CONTRACT',
      },
      negRiskExchange: {
        doc: "The venue's neg-risk CTF exchange contract (checked as venue.contracts.exchange). Empty: mmkit's own.",
        format: 'address-or-empty',
        default: '',
        env: 'MMKIT_NEG_RISK_EXCHANGE_CONTRACT',
      },
      collateral: {
        doc: "The venue's collateral token (V2: pUSD), checked as venue.contracts.exchange. Empty: mmkit's own.",
        format: 'address-or-empty',
        default: '',
        env: 'MMKIT_COLLATERAL_TOKEN',
      },
    },
  },
  doctor: {
    maxClockSkewMs: {
      doc: "`mmkit doctor`: the largest difference between this machine's clock and the venue's (GET /time) that passes, ms (warned past half of it).",
      format: 'nat',
      default: 5_000,
      env: 'MMKIT_DOCTOR_MAX_CLOCK_SKEW_MS',
    },
    geoblockUrl: {
      doc: "`mmkit doctor`: the venue's geoblock endpoint ({blocked, ip, country, region}); empty: <bot.exchangeUrl>/api/geoblock for a paper exchange, none otherwise (a warn).",
      format: 'http-url-or-empty',
      default: '',
      env: 'MMKIT_DOCTOR_GEOBLOCK_URL',
    },
    beforeRun: {
      doc: '`mmkit run` against a venue that is not on loopback runs the doctor first and refuses to start when a check fails; false skips it (at your own risk).',
      format: Boolean,
      default: true,
      env: 'MMKIT_DOCTOR_BEFORE_RUN',
    },
  },
  secrets: {
    privateKey: {
      doc: 'Wallet private key (0x + 64 hex). Environment only; prefer bot.keystoreFile. Unset: the keystore, else the paper wallet in <dataDir>/paper-wallet.key.',
      format: 'private-key-or-empty',
      default: '',
      env: 'MMKIT_PRIVATE_KEY',
      sensitive: true,
    },
    keystorePassword: {
      doc: 'Password of bot.keystoreFile. Environment only.',
      format: 'secret-string',
      default: '',
      env: 'MMKIT_KEYSTORE_PASSWORD',
      sensitive: true,
    },
    apiKey: {
      doc: 'API key id (with apiSecret and apiPassphrase); unset: created or derived from the wallet (L1). Environment only.',
      format: 'secret-string',
      default: '',
      env: 'MMKIT_API_KEY',
      sensitive: true,
    },
    apiSecret: {
      doc: 'API secret (base64). Environment only.',
      format: 'secret-string',
      default: '',
      env: 'MMKIT_API_SECRET',
      sensitive: true,
    },
    apiPassphrase: {
      doc: 'API passphrase. Environment only.',
      format: 'secret-string',
      default: '',
      env: 'MMKIT_API_PASSPHRASE',
      sensitive: true,
    },
  },
  budgets: {
    enabled: {
      doc: "Hold every venue request until the endpoint's rate budget (spec section 8) admits it.",
      format: 'bool',
      default: true,
      env: 'MMKIT_BUDGETS',
    },
    scale: {
      doc: 'Multiplier of every rate limit the client budgets against (e.g. a venue granting more).',
      format: 'positive-number',
      default: 1,
      env: 'MMKIT_BUDGET_SCALE',
    },
    headroom: {
      doc: 'Fraction of every limit left unused (0.1: budget 90 % of it), for other clients of the same key and clock skew.',
      format: boundedFormat('budget-headroom', { type: 'number', default: 0, min: 0, max: 0.9, doc: '' }),
      default: 0,
      env: 'MMKIT_BUDGET_HEADROOM',
    },
    marginMs: {
      doc: 'Extra time a request stays counted after its window, ms.',
      format: 'nat',
      default: 50,
      env: 'MMKIT_BUDGET_MARGIN_MS',
    },
    signerTier: {
      doc: "The venue's per-signer buckets the client budgets against: auto (start at standard, the tightest, and adopt the tier the venue names in Poly-RateLimit-Tier), a tier name to start from (then adopt likewise), or off (a venue without them).",
      format: ['auto', 'off', ...SIGNER_TIER_NAMES],
      default: 'auto',
      env: 'MMKIT_BUDGET_SIGNER_TIER',
    },
  },
  log: {
    level: {
      doc: 'Log level of the daemon and the commands (pino levels).',
      format: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
      default: 'info',
      env: 'MMKIT_LOG_LEVEL',
    },
    format: {
      doc: 'Log format on stderr: pretty (a compact view for a person: one status line per period, fills by question and outcome), json (JSON lines, for log shippers), or auto (pretty on a terminal, JSON otherwise). Colours only on a terminal, never with NO_COLOR.',
      format: ['auto', 'pretty', 'json'],
      default: 'auto',
      env: 'MMKIT_LOG_FORMAT',
    },
    pretty: {
      doc: 'Alias of log.format, kept for older configs (used when log.format is auto): true = pretty, false = json, auto.',
      format: ['auto', 'true', 'false'],
      default: 'auto',
      env: 'MMKIT_LOG_PRETTY',
    },
  },
  ops: {
    httpPort: {
      doc: "Port of the daemon's HTTP server: /metrics, /healthz and the status page (0 picks a free one).",
      format: 'port',
      default: 8787,
      env: 'MMKIT_HTTP_PORT',
    },
    httpHost: {
      doc: "Address the daemon's HTTP server binds to (loopback by default; 0.0.0.0 in a container).",
      format: String,
      default: '127.0.0.1',
      env: 'MMKIT_HTTP_HOST',
    },
    allowedHosts: {
      doc: "Host names the daemon's HTTP server answers besides localhost, 127.0.0.1, [::1] and the address it binds to (any other Host header gets 421: DNS rebinding). `name` allows any port, `name:port` that port only; e.g. the name and port of a container's published port.",
      format: 'host-list',
      default: [],
      env: 'MMKIT_STATUS_ALLOWED_HOSTS',
    },
    feedStaleMs: {
      doc: '/healthz reports feed_stale after this long without market data, ms (0: never).',
      format: 'nat',
      default: 15_000,
      env: 'MMKIT_FEED_STALE_MS',
    },
  },
  shadow: {
    queue: {
      doc: 'Shadow mode: queue-position model of the simulated venue, as `mmkit backtest --queue`.',
      format: ['risk-averse', 'probabilistic'],
      default: 'risk-averse',
      env: 'MMKIT_SHADOW_QUEUE',
    },
    latencyMs: {
      doc: 'Shadow mode: one-way latency of the simulated orders and cancels, ms (as `mmkit backtest --latency-ms`): added to the real event loop, so backtest a feed recorded alongside with the same value.',
      format: 'nat',
      default: 50,
      env: 'MMKIT_SHADOW_LATENCY_MS',
    },
    collateral: {
      doc: "Shadow mode: the simulated account's starting collateral (USDC, decimal string); each shadow run starts a fresh account and ledger epoch.",
      format: 'decimal-amount',
      default: '10000',
      env: 'MMKIT_SHADOW_COLLATERAL',
    },
    seed: {
      doc: "Shadow mode: seed of the simulated venue's random draws (queue model, latencies, order ids).",
      format: 'nat',
      default: 1,
      env: 'MMKIT_SHADOW_SEED',
    },
  },
  fleet: {
    redisUrl: {
      doc: "A fleet: the Redis holding the account's shared state (budgets, heartbeat lease, risk limits, market leases, kill switch), redis://[user:password@]host:port[/db]. Empty: one process, no Redis (as always). Never logged (it may carry a password).",
      format: String,
      default: '',
      env: 'MMKIT_REDIS_URL',
      sensitive: true,
    },
    member: {
      doc: "This daemon's name in the fleet (letters, digits, '.', '_', '-'; unique per account). Empty: <hostname>-<pid>.",
      format: String,
      default: '',
      env: 'MMKIT_FLEET_MEMBER',
    },
    maxMembers: {
      doc: 'Most daemons in the fleet of one account: a member beyond it refuses to start. The emergency reserves (fleet.reserve, and half of the per-signer cancel bucket split among this many) of this many members are kept out of the shared budgets: set it to the real size of the fleet. The same on every member; 0: no cap (only with fleet.reserve 0).',
      format: 'nat',
      default: 8,
      env: 'MMKIT_FLEET_MAX_MEMBERS',
    },
    reserve: {
      doc: 'Emergency reserve per member: requests per window of each rule of DELETE /cancel-all, DELETE /cancel-market-orders and POST /v1/heartbeats kept out of the shared budgets, so a member can pull its quotes and feed the dead-man switch while Redis is unreachable. 0: none. The same on every member.',
      format: 'nat',
      default: 4,
      env: 'MMKIT_FLEET_RESERVE',
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

/** The `bot.risk` section: limits in decimal units (src/risk/limits.ts resolves them to integers). */
export type RiskConfig = { [K in keyof typeof MARKET_LIMITS_SCHEMA | keyof typeof GLOBAL_LIMITS_SCHEMA]: number } & {
  markets: Record<string, Record<string, number | string>>;
};

export type MmkitConfig = {
  bot: {
    strategy: string;
    params: Record<string, unknown>;
    markets: string[];
    marketCount: number;
    marketFilters: {
      minHoursToEnd: number;
      negRisk: 'include' | 'exclude' | 'only';
      search: string;
      minWindowMinutes: number;
    };
    duration: string;
    dataDir: string;
    storeFile: string;
    exchangeUrl: string;
    chainId: number;
    statusIntervalMs: number;
    tolerance: { priceTicks: number; sizeFraction: number };
    risk: RiskConfig;
    restartPolicy: 'cancel' | 'adopt';
    foreignOrders: 'leave' | 'cancel' | 'adopt';
    postOnly: boolean;
    keystoreFile: string;
    seed: number;
    autoMerge: 'auto' | 'on' | 'off';
    mergeMinSize: string;
    autoRedeem: 'auto' | 'on' | 'off';
    collateralCheckMs: number;
    rewards: { sampleMs: number; pollMs: number };
    shadow: boolean;
  };
  shadow: { queue: 'risk-averse' | 'probabilistic'; latencyMs: number; collateral: string; seed: number };
  fleet: { redisUrl: string; member: string; maxMembers: number; reserve: number };
  venue: {
    clobUrl: string;
    gammaUrl: string;
    dataUrl: string;
    contentUrl: string;
    wsUrl: string;
    rtdsUrl: string;
    relayerUrl: string;
    marketSilenceMs: number;
    userAuditMs: number;
    positionAuditMs: number;
    signatureType: 'eoa' | 'poly-proxy' | 'gnosis-safe';
    protocol: 'auto' | '1' | '2';
    funder: string;
    apiNonce: number;
    timeoutMs: number;
    contracts: { exchange: string; negRiskExchange: string; collateral: string };
  };
  doctor: { maxClockSkewMs: number; geoblockUrl: string; beforeRun: boolean };
  secrets: { privateKey: string; keystorePassword: string; apiKey: string; apiSecret: string; apiPassphrase: string };
  budgets: { enabled: boolean; scale: number; headroom: number; marginMs: number; signerTier: BudgetSignerTier };
  exchange: {
    host: string;
    port: number;
    seed: number;
    chainId: number;
    protocol: 1 | 2;
    startingBalance: string;
    adminToken: string;
    heartbeatTimeoutMs: number;
    gtdThresholdSec: number;
    bodyLimitBytes: number;
    authMaxSkewSec: number;
    db: string;
    agents: 'default' | 'none';
    worldProfile: 'calm' | 'realistic' | 'toxic';
    lifecycle: boolean;
    faults: unknown[];
    rateLimits: { enabled: boolean; scale: number; queueMs: number };
    signerLimits: 'enforce' | 'warn' | 'off';
    signerTier: SignerTierName;
    rewards: { epochMs: number; sampleMs: number; minPayout: string };
    ws: {
      maxConnections: number;
      maxConnectionsPerIp: number;
      authTimeoutMs: number;
      pingIntervalMs: number;
      idleTimeoutMs: number;
    };
  };
  log: { level: string; format: 'auto' | 'pretty' | 'json'; pretty: 'auto' | 'true' | 'false' };
  ops: { httpPort: number; httpHost: string; allowedHosts: string[]; feedStaleMs: number };
};
