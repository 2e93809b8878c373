/** The `venue.*` section of the configuration: the venue APIs, channel audits, signing and contracts. */
import type { ConfigProblem } from '../../core/errors.ts';

export const venueSchema = {
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
    doc: 'Content (news) API base URL; empty: <bot.exchangeUrl>/content, or none with per-API URLs (the public service has none; no command needs it).',
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
    doc: 'Market channel liveness: no data for this long (ms) and the connection is replaced (its books are stale, quotes pulled, until the fresh snapshot); at most ops.feedStaleMs, so quoting stops no later than /healthz reports feed_stale; 0 disables (only with ops.feedStaleMs 0).',
    format: 'nat',
    default: 15000,
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
  marketRefreshMs: {
    doc: "Market re-read: every this many ms the daemon reads each market it trades at the venue (GET /markets/{id}); a changed liquidity reward config, status (closed, not accepting orders, reopened) or minimum order size is logged and followed: a closed market's quotes are pulled, the strategy re-quotes with the new reward config, the reward estimate uses it; 0: never (a change is then seen at the next start).",
    format: 'nat',
    default: 60000,
    env: 'MMKIT_MARKET_REFRESH_MS',
  },
  kind: {
    doc: 'Paper or live: auto (paper only when every venue URL is on loopback and no wallet, venue.contracts.* or doctor.geoblockUrl is configured; a real venue behind a local tunnel is live), paper, or live. A paper venue gets no pre-flight checks before `mmkit run`, bot.autoMerge/autoRedeem auto on, and a paper wallet when none is set.',
    format: ['auto', 'paper', 'live'],
    default: 'auto',
    env: 'MMKIT_VENUE_KIND',
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
};

export type VenueConfig = {
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
  marketRefreshMs: number;
  kind: 'auto' | 'paper' | 'live';
  signatureType: 'eoa' | 'poly-proxy' | 'gnosis-safe';
  protocol: 'auto' | '1' | '2';
  funder: string;
  apiNonce: number;
  timeoutMs: number;
  contracts: { exchange: string; negRiskExchange: string; collateral: string };
};

/**
 * The market channel's silence deadline against the health's (findings-6 F1): with
 * `venue.marketSilenceMs` 30 s and `ops.feedStaleMs` 15 s, a frozen feed was `feed_stale` on
 * /healthz from 15 s while the books stayed fresh, and the bot placed new orders, until 30 s. The
 * books go stale (quotes pulled) at the market-silence deadline, so it must come no later than the
 * health's: at most `ops.feedStaleMs`, and not disabled while that is set.
 * @returns the problem (under venue.marketSilenceMs), none when they agree
 */
export function feedSilenceProblems(marketSilenceMs: number, feedStaleMs: number): ConfigProblem[] {
  if (feedStaleMs <= 0 || (marketSilenceMs > 0 && marketSilenceMs <= feedStaleMs)) return [];
  const why =
    marketSilenceMs === 0
      ? 'is 0 (no silence deadline: the books of a frozen feed never go stale)'
      : `is ${marketSilenceMs}`;
  return [
    {
      key: 'venue.marketSilenceMs',
      message:
        `must be at most ops.feedStaleMs (${feedStaleMs}) so a silent market feed pulls the quotes no later than ` +
        `/healthz reports feed_stale, but ${why}; lower it, or raise ops.feedStaleMs (0: no feed_stale at all)`,
    },
  ];
}
