/**
 * Where the venue is, from the configuration: the base URLs of the CLOB, metadata (Gamma), data
 * and content APIs and of the streams, plus the request budgets, the signature type and the API
 * credentials. Shared by `mmkit run` and the operator commands so both talk to the same venue.
 *
 * URL resolution (first that applies):
 *   1. `bot.exchangeUrl` (flag --exchange-url, env MMKIT_EXCHANGE_URL): one base URL serving
 *      /clob, /gamma, /data, /content, /relayer and /ws (the paper exchange's layout);
 *   2. for operator commands only, a running daemon records its venue in <dataDir>/venue.json (the
 *      in-process paper exchange's URL, or the venue it was given: --exchange-url, venue.*Url), a
 *      second terminal finds it there (while that process lives);
 *   3. for operator commands, the paper exchange of the config: http://<exchange.host>:<exchange.port>
 *      (what `mmkit exchange` listens on); `mmkit run` starts one in-process instead. The commands on
 *      the wallet's orders and holdings first ask the venue the data dir last traded on (a gone
 *      daemon's venue.json, the store's ledger epoch): data-dir-venue.ts.
 * Each `venue.*Url` key, when set, replaces that one API's URL (a live venue has one host per API).
 * The content (news) API is optional: the public service has none (`venue.contentUrl` ""), and no
 * operator command uses it, so none may require it (findings-5 F1).
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve as resolvePath } from 'node:path';
import type { BudgetConfig } from '../api/http/budgets.ts';
import type { ApiCredentials } from '../api/http/transport.ts';
import type { SignatureType } from '../api/orders.ts';
import { ConfigError } from '../core/errors.ts';
import type { MmkitConfig } from './config.ts';
import type { MarketFilters } from './market-filters.ts';
import { venueKindOf } from './venue-kind.ts';

export interface VenueUrls {
  clob: string;
  gamma: string;
  data: string;
  /**
   * The content (news) API: the paper exchange's extension; absent or '' where the venue has none (the
   * public service: config/polymarket.json sets `venue.contentUrl` ""). No operator command needs it.
   */
  content?: string;
  ws: string;
  /** The real-time data stream (RTDS); absent: `<ws>/rtds`. */
  rtds?: string;
  /** The relayer (split, merge, redeem, convert); absent: none known (a live venue without `venue.relayerUrl`). */
  relayer?: string;
}

/** Where the venue URLs came from. */
export type VenueSource = 'config' | 'daemon' | 'default' | 'explicit';

export interface ResolvedVenue {
  readonly urls: VenueUrls;
  readonly source: VenueSource;
  /** The base URL when there is one (not for fully explicit per-API URLs). */
  readonly base: string | undefined;
  /** A paper exchange (venue-kind.ts: loopback URLs and no live marker, or venue.kind paper): a paper wallet is allowed. */
  readonly paper: boolean;
}

/** The paper exchange's layout under one base URL. */
export function urlsFromBase(base: string): VenueUrls {
  const u = new URL(base);
  const root = `${u.protocol}//${u.host}`;
  const ws = `${u.protocol === 'https:' ? 'wss' : 'ws'}://${u.host}`;
  return {
    clob: `${root}/clob`,
    gamma: `${root}/gamma`,
    data: `${root}/data`,
    content: `${root}/content`,
    relayer: `${root}/relayer`,
    ws,
  };
}

/** The per-API URLs set explicitly (`venue.*Url`). */
export function explicitUrls(cfg: MmkitConfig): Partial<VenueUrls> {
  const v = cfg.venue;
  const out: Partial<VenueUrls> = {};
  if (v.clobUrl) out.clob = v.clobUrl.replace(/\/+$/, '');
  if (v.gammaUrl) out.gamma = v.gammaUrl.replace(/\/+$/, '');
  if (v.dataUrl) out.data = v.dataUrl.replace(/\/+$/, '');
  if (v.contentUrl) out.content = v.contentUrl.replace(/\/+$/, '');
  if (v.wsUrl) out.ws = v.wsUrl.replace(/\/+$/, '');
  if (v.rtdsUrl) out.rtds = v.rtdsUrl.replace(/\/+$/, '');
  if (v.relayerUrl) out.relayer = v.relayerUrl.replace(/\/+$/, '');
  return out;
}

/** True when the URL's host is loopback (moved to venue-kind.ts, with the paper-or-live decision). */
export { isLoopbackUrl } from './venue-kind.ts';

/** The file a running daemon writes its venue's URLs to. */
export const DAEMON_VENUE_FILE = 'venue.json';

/**
 * What <dataDir>/venue.json holds: a base URL, the per-API URLs (over those of the base), the daemon's
 * pid, and how the daemon was configured: after a crash the recovery commands (`mmkit orders`,
 * `cancel-all`, `positions`) act as the account it traded (data-dir-wallet.ts) and the crash message
 * names the `--config` to pass (status.ts).
 */
export interface DaemonVenueRecord {
  url?: string;
  urls?: Partial<VenueUrls>;
  pid: number;
  /** True when the venue is the daemon's in-process paper exchange (it ends with the daemon). */
  inProcess?: boolean;
  /** The config file the daemon was started with (`--config`), absolute; absent: none. */
  config?: string;
  /** The keystore file of its wallet (bot.keystoreFile), absolute; absent: none (MMKIT_PRIVATE_KEY or the paper wallet). */
  keystore?: string;
  /** True when it was a fleet member (fleet.redisUrl): the account's orders are every member's. */
  fleet?: boolean;
}

/** How the daemon was configured, for its venue.json: the files as given (made absolute there). */
export interface DaemonVenueOptions {
  /** The in-process paper exchange (it ends with the daemon). */
  inProcess?: boolean;
  /** The `--config` file ('' or absent: none). */
  config?: string;
  /** bot.keystoreFile ('' or absent: none). */
  keystore?: string;
  /** A fleet member (fleet.redisUrl set). */
  fleet?: boolean;
}

/** A URL without what may be a secret: user and password, query, fragment. */
function withoutCredentials(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    u.search = '';
    u.hash = '';
    return u.toString().replace(/\/+$/, '');
  } catch {
    return '';
  }
}

/**
 * Record the daemon's venue for operator commands in other terminals: the base URL (the in-process
 * exchange's, or --exchange-url) and the per-API URLs set explicitly, with the config and keystore
 * files it was started with (paths only). Never a secret: user, password and query of a URL are dropped.
 */
export function writeDaemonVenue(
  dataDir: string,
  base: string | undefined,
  urls: Partial<VenueUrls> = {},
  o: DaemonVenueOptions = {},
): void {
  const rec: DaemonVenueRecord = {
    pid: process.pid,
    ...(o.inProcess === true ? { inProcess: true } : {}),
    ...(o.config ? { config: resolvePath(o.config) } : {}),
    ...(o.keystore ? { keystore: resolvePath(o.keystore) } : {}),
    ...(o.fleet === true ? { fleet: true } : {}),
  };
  if (base !== undefined && withoutCredentials(base) !== '') rec.url = withoutCredentials(base);
  const per = Object.entries(urls)
    .map(([k, u]) => [k, u ? withoutCredentials(u) : ''] as const)
    .filter(([, u]) => u !== '');
  if (per.length) rec.urls = Object.fromEntries(per);
  writeFileSync(join(dataDir, DAEMON_VENUE_FILE), JSON.stringify(rec) + '\n');
}

/** Remove the record (only when it is this process's). */
export function removeDaemonVenue(dataDir: string): void {
  const f = join(dataDir, DAEMON_VENUE_FILE);
  const r = readDaemonVenue(dataDir, { checkAlive: false });
  if (r !== undefined && r.pid === process.pid) rmSync(f, { force: true });
}

/** Whether a process is there (`kill(pid, 0)`; a zombie not yet reaped still answers). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** How to tell whether a recorded daemon lives (default pidAlive; tests inject one). */
export interface LivenessOptions {
  readonly alive?: (pid: number) => boolean;
}

/**
 * The venue a living daemon recorded in <dataDir>/venue.json, if any (with `checkAlive: false`, a gone one's too).
 * @param o.alive the liveness check of the recorded pid (default pidAlive)
 */
export function readDaemonVenue(
  dataDir: string,
  o: { checkAlive?: boolean } & LivenessOptions = {},
): DaemonVenueRecord | undefined {
  const f = join(dataDir, DAEMON_VENUE_FILE);
  if (!existsSync(f)) return undefined;
  try {
    const v = JSON.parse(readFileSync(f, 'utf8')) as {
      url?: unknown;
      urls?: unknown;
      pid?: unknown;
      inProcess?: unknown;
      config?: unknown;
      keystore?: unknown;
      fleet?: unknown;
    };
    if (typeof v.pid !== 'number') return undefined;
    const urls =
      v.urls !== null && typeof v.urls === 'object'
        ? (Object.fromEntries(
            Object.entries(v.urls).filter(([, u]) => typeof u === 'string' && u !== ''),
          ) as Partial<VenueUrls>)
        : undefined;
    if (typeof v.url !== 'string' && urls?.clob === undefined) return undefined;
    if (o.checkAlive !== false && !(o.alive ?? pidAlive)(v.pid)) return undefined;
    return {
      ...(typeof v.url === 'string' ? { url: v.url } : {}),
      ...(urls !== undefined ? { urls } : {}),
      pid: v.pid,
      ...(v.inProcess === true ? { inProcess: true } : {}),
      ...(typeof v.config === 'string' && v.config !== '' ? { config: v.config } : {}),
      ...(typeof v.keystore === 'string' && v.keystore !== '' ? { keystore: v.keystore } : {}),
      ...(v.fleet === true ? { fleet: true } : {}),
    };
  } catch {
    return undefined;
  }
}

/**
 * The venue an operator command talks to (see the module comment for the order). Asks whether a
 * recorded daemon lives each time it is called: a command resolves once and passes the result on
 * (openSession's `venue`), as a daemon that dies between two calls would send them to two venues.
 * @param o.alive the liveness check of a recorded daemon's pid (default pidAlive)
 * @throws ConfigError when per-API URLs are only partly set and no base URL fills the rest
 */
export function resolveVenue(cfg: MmkitConfig, o: LivenessOptions = {}): ResolvedVenue {
  let explicit = explicitUrls(cfg);
  let base: string | undefined;
  let source: VenueSource;
  if (cfg.bot.exchangeUrl) {
    base = cfg.bot.exchangeUrl;
    source = 'config';
  } else if (explicit.clob !== undefined) {
    source = 'explicit';
  } else {
    const d = readDaemonVenue(cfg.bot.dataDir, o);
    if (d !== undefined) {
      base = d.url;
      explicit = { ...d.urls, ...explicit };
      source = 'daemon';
    } else {
      const h =
        cfg.exchange.host === '0.0.0.0' || cfg.exchange.host === '::' || cfg.exchange.host === ''
          ? '127.0.0.1'
          : cfg.exchange.host;
      base = `http://${h.includes(':') && !h.startsWith('[') ? `[${h}]` : h}:${cfg.exchange.port}`;
      source = 'default';
    }
  }
  const derived: Partial<VenueUrls> = base !== undefined ? urlsFromBase(base) : {};
  const urls = { ...derived, ...explicit };
  // not the content API: optional (see the module comment)
  for (const k of ['clob', 'gamma', 'data', 'ws'] as const) {
    if (urls[k] === undefined)
      throw new ConfigError(
        `venue.${k}Url`,
        'not set: a venue given by per-API URLs needs venue.clobUrl, venue.gammaUrl, venue.dataUrl and venue.wsUrl ' +
          '(config/polymarket.json sets them for the public service), or bot.exchangeUrl (--exchange-url) alone ' +
          'for a paper exchange serving every API under one base URL',
      );
  }
  const full = urls as VenueUrls;
  return { urls: full, source, base, paper: venueKindOf(cfg, Object.values(full)).paper };
}

/** The daemon's venue: `undefined` urls mean "start a paper exchange in-process". */
export function daemonVenue(cfg: MmkitConfig): { urls: Partial<VenueUrls>; inProcess: boolean } {
  const explicit = explicitUrls(cfg);
  if (cfg.bot.exchangeUrl) return { urls: { ...urlsFromBase(cfg.bot.exchangeUrl), ...explicit }, inProcess: false };
  if (explicit.clob !== undefined) return { urls: explicit, inProcess: false };
  return { urls: explicit, inProcess: true };
}

/**
 * The request budgets of the config: the spec's limits × scale × (1 - headroom), the venue's
 * per-signer buckets (the tier to start from) likewise.
 */
export function budgetsOf(cfg: MmkitConfig): BudgetConfig {
  return {
    enabled: cfg.budgets.enabled,
    scale: cfg.budgets.scale * (1 - cfg.budgets.headroom),
    marginMs: cfg.budgets.marginMs,
    signerTier: cfg.budgets.signerTier,
  };
}

/** venue.signatureType as the order builder's number (EOA 0, POLY_PROXY 1, POLY_GNOSIS_SAFE 2). */
export function signatureTypeOf(cfg: MmkitConfig): Exclude<SignatureType, 3> {
  return cfg.venue.signatureType === 'poly-proxy' ? 1 : cfg.venue.signatureType === 'gnosis-safe' ? 2 : 0;
}

/**
 * API credentials from the environment (all three of MMKIT_API_KEY, MMKIT_API_SECRET,
 * MMKIT_API_PASSPHRASE), or undefined to create/derive them with the wallet.
 * @throws ConfigError naming the missing one when only some are set
 */
export function apiCredentialsOf(cfg: MmkitConfig): ApiCredentials | undefined {
  const s = cfg.secrets;
  const set = [s.apiKey, s.apiSecret, s.apiPassphrase].filter((x) => x !== '').length;
  if (set === 0) return undefined;
  if (set < 3) {
    const missing =
      s.apiKey === '' ? 'secrets.apiKey' : s.apiSecret === '' ? 'secrets.apiSecret' : 'secrets.apiPassphrase';
    throw new ConfigError(
      missing,
      'API credentials need all three of MMKIT_API_KEY, MMKIT_API_SECRET and MMKIT_API_PASSPHRASE (or none: then they are derived from the wallet)',
    );
  }
  return { apiKey: s.apiKey, secret: s.apiSecret, passphrase: s.apiPassphrase };
}

/**
 * The venue-related options of `runBot` (a subset of run.ts's RunConfig, declared here so that this
 * module, which run.ts imports, does not import run.ts back).
 */
export interface VenueRunOptions {
  /** Per-API URLs (venue.*Url) replacing those derived from exchangeUrl; `clob` + `ws` without exchangeUrl: no in-process exchange. */
  urls?: Partial<VenueUrls>;
  /** Request budgets (budgets.*); default the spec's limits. */
  budgets?: BudgetConfig;
  /** API credentials from the environment; default created or derived with the wallet. */
  apiCredentials?: ApiCredentials;
  /** L1 nonce of the created or derived API key (venue.apiNonce). */
  apiNonce?: number;
  /** Order signature type (venue.signatureType): EOA 0, POLY_PROXY 1, POLY_GNOSIS_SAFE 2. */
  signatureType?: 0 | 1 | 2;
  /** Funder address (venue.funder). */
  funder?: string;
  /** Per-request timeout, ms (venue.timeoutMs). */
  timeoutMs?: number;
  /** SQLite store file; default <dataDir>/mmkit.db. */
  storeFile?: string;
  /** Filters of the automatic market pick (bot.marketFilters). */
  marketFilters?: Partial<MarketFilters>;
  /** Market channel silence after which the connection is replaced, ms (venue.marketSilenceMs). */
  marketSilenceMs?: number;
  /** User channel fill audit period, ms (venue.userAuditMs; 0: off). */
  userAuditMs?: number;
  /** Position reconciliation period, ms (venue.positionAuditMs; 0: at start and on reconnects only). */
  positionAuditMs?: number;
  /** Re-read of the traded markets, ms (venue.marketRefreshMs; 0: never). */
  marketRefreshMs?: number;
  /** Order protocol (venue.protocol); absent: asked of the venue (GET /version). */
  protocol?: 1 | 2;
}

/** The venue-related options of `runBot` from the configuration (URLs, budgets, credentials, signing, store, market filters). */
export function runOptionsOf(cfg: MmkitConfig): VenueRunOptions {
  const creds = apiCredentialsOf(cfg);
  return {
    urls: explicitUrls(cfg),
    budgets: budgetsOf(cfg),
    ...(creds ? { apiCredentials: creds } : {}),
    apiNonce: cfg.venue.apiNonce,
    signatureType: signatureTypeOf(cfg),
    ...(cfg.venue.protocol !== 'auto' ? { protocol: cfg.venue.protocol === '2' ? 2 : 1 } : {}),
    ...(cfg.venue.funder ? { funder: cfg.venue.funder } : {}),
    timeoutMs: cfg.venue.timeoutMs,
    marketSilenceMs: cfg.venue.marketSilenceMs,
    userAuditMs: cfg.venue.userAuditMs,
    positionAuditMs: cfg.venue.positionAuditMs,
    marketRefreshMs: cfg.venue.marketRefreshMs,
    ...(cfg.bot.storeFile ? { storeFile: cfg.bot.storeFile } : {}),
    marketFilters: { ...cfg.bot.marketFilters },
  };
}
