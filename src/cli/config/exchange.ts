/**
 * The `exchange.*` section of the configuration: the paper exchange (bind address, world, limits,
 * rewards, WebSockets). `mmkit exchange` applies all of it; `mmkit run`'s in-process exchange only
 * worldProfile, feeRateBps, protocol and rewards.* and warns about the others that are set
 * (src/cli/run-inprocess.ts).
 */
import { SIGNER_TIER_NAMES, type SignerTierName } from '../../core/signer-limits.ts';
import { boundedFormat } from './bounded.ts';

export const exchangeSchema = {
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
    doc: "SQLite file that keeps accounts, keys, orders, trades and the world across restarts of `mmkit exchange`; empty: in memory. `mmkit run`'s in-process exchange is always in memory (it warns when this is set).",
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
  feeRateBps: {
    doc: "Taker fee rate of the paper world's markets, bps (0: none, as before; the public service charges some markets, e.g. 1000 on its short crypto markets): takers pay it under the venue's order protocol (V2: shares x rate x p x (1 - p)), makers nothing. Set when the world is created: a world restored from exchange.db keeps its markets' rates.",
    format: boundedFormat('fee-rate-bps', { type: 'integer', default: 0, min: 0, max: 1000, doc: '' }),
    default: 0,
    env: 'MMKIT_EXCHANGE_FEE_RATE_BPS',
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
      format: boundedFormat('rewards-epoch-ms', {
        type: 'integer',
        default: 0,
        min: 1000,
        max: 31_622_400_000,
        doc: '',
      }),
      default: 86_400_000,
      env: 'MMKIT_EXCHANGE_REWARDS_EPOCH_MS',
    },
    sampleMs: {
      doc: 'How often the paper exchange samples the resting orders of its rewarded markets, ms of its clock (100 to epochMs). Flag --rewards-sample.',
      format: boundedFormat('rewards-sample-ms', {
        type: 'integer',
        default: 0,
        min: 100,
        max: 31_622_400_000,
        doc: '',
      }),
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
};

export type ExchangeConfig = {
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
  feeRateBps: number;
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
