/**
 * The `bot.*` section of the configuration: the daemon (strategy, markets, store, risk, orders,
 * collateral, rewards, shadow mode).
 */
import { boundedFormat } from './bounded.ts';
import { riskSchema, type RiskConfig } from './risk.ts';

export const botSchema = {
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
    doc: 'Condition ids to trade (JSON array or comma list); empty: the most liquid `marketCount`, and every active market where the ledger holds a position (so its books mark it).',
    format: 'string-list',
    default: [] as string[],
    env: 'MMKIT_MARKETS',
  },
  marketCount: {
    doc: 'How many markets to pick when `markets` is empty.',
    // 0 would pass here and then stop the run with "no market to trade", blaming the filters
    format: boundedFormat('market-count', { type: 'integer', default: 3, min: 1, doc: '' }),
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
    doc: 'Directory of the SQLite store (mmkit.db) and the paper wallet; created owner-only (0700) when missing. A file, a path under /proc or /sys, or one whose parent cannot be written is refused (exit 2, `config bot.dataDir: …`).',
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
      doc: 'A live order whose remaining size is at most this fraction below a desired size is kept (never one above it: the desired size is what the risk gate approved).',
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
  fillMemory: {
    doc: 'Fills the daemon keeps in memory to recognise a repeated fill or a FAILED reversal (about 200 bytes each; the default holds days of trading). Older fills are folded into their positions (exact) and a repeat of one is recognised by the store; 0: every fill of the ledger, forever (memory grows with every fill).',
    format: 'nat',
    default: 200000,
    env: 'MMKIT_FILL_MEMORY',
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
      doc: "How often (ms) the daemon scores its own quotes on rewarded markets against the book's competition (the estimate the store keeps until the venue pays); the venue samples every minute. With the in-process paper exchange, the default follows its exchange.rewards.sampleMs; against a paper exchange of its own process started with --rewards-sample, set the same period here (else few samples per epoch may all miss a scoring quote).",
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
};

export type BotConfig = {
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
  fillMemory: number;
  keystoreFile: string;
  seed: number;
  autoMerge: 'auto' | 'on' | 'off';
  mergeMinSize: string;
  autoRedeem: 'auto' | 'on' | 'off';
  collateralCheckMs: number;
  rewards: { sampleMs: number; pollMs: number };
  shadow: boolean;
};
