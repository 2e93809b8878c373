import type { Wallet } from 'ethers';
import { createOrDeriveApiKey } from '../../api/auth.ts';
import { ClobClient } from '../../api/clob.ts';
import type { Budgets, BudgetConfig } from '../../api/http/budgets.ts';
import { createTransport, type ApiCredentials, type TransportOptions } from '../../api/http/transport.ts';
import { OrderBuilder, type OrderProtocol, type SignatureType } from '../../api/orders.ts';
import type { BackoffPolicy, WsFactory } from '../../api/streams/socket.ts';
import { LiveClock, type Clock } from '../../core/clock.ts';
import type { FillEvent } from '../../core/events.ts';
import type { PresignOptions } from './presign-pool.ts';
import { liveVenueFromParts, type LiveVenue, type VenueLogger } from './live-venue.ts';

/** Options of `createLiveVenue`. */
export interface LiveVenueOptions {
  /**
   * Base URLs: `clob` (required), `ws` (the WebSocket base: `${ws}/ws/market`, `${ws}/ws/user`),
   * optionally gamma/data/content, and `rtds` (the real-time data stream; default `${ws}/rtds`).
   */
  urls: {
    clob: string;
    ws: string;
    gamma?: string;
    data?: string;
    content?: string;
    rtds?: string;
    /** The relayer (split, merge, redeem); absent: the venue has none (those operations are then unavailable). */
    relayer?: string;
  };
  /** The trading wallet (signs orders and the L1 key requests). */
  wallet: Wallet;
  /** EIP-712 chain id (default 137). */
  chainId?: number;
  /** Time for requests, signatures and stream timers (default the wall clock). */
  clock?: Clock;
  /** Request budgets (config, or a shared Budgets instance). */
  budgets?: BudgetConfig | Budgets;
  /** Told each HTTP answer's round trip (the transport's `onAnswer`: order and cancel round trips on /metrics). */
  onAnswer?: TransportOptions['onAnswer'];
  logger?: VenueLogger;
  /** Market channel: data silence after which the connection is replaced, ms (default 30 s; 0 disables). */
  silenceMs?: number;
  /**
   * User channel: data silence after which the connection is replaced, ms (default 0: disabled).
   * A quiet account is silent by nature, so a silence deadline there means a reconnect (and a
   * REST reconciliation, with quotes pulled meanwhile) after every quiet period; liveness is judged
   * by PING/PONG and closes instead, and anything missed is reconciled after any reconnect.
   */
  userSilenceMs?: number;
  /**
   * User channel: every this many ms, while synced, the open orders, the orders last seen open and
   * the trades since the last audit are fetched over REST and what the channel did not deliver is
   * emitted (default 0: off). A connection that stays open but delivers nothing is not detected
   * otherwise (see userSilenceMs).
   */
  userAuditMs?: number;
  /**
   * User channel: a fill this daemon does not book (a fleet member's view of another member's
   * fill): an audit's warning counts it apart. Read when an audit recovers a fill.
   */
  userOthersFill?: (fill: FillEvent) => boolean;
  /**
   * User channel: a fill already recorded (the store holds its trade id and order id: the previous
   * session's, now moving MATCHED -> CONFIRMED, or the restart backfill's): an audit that finds it
   * counts it apart (debug), not as a fill the channel missed. Read when an audit recovers a fill.
   */
  userRecordedFill?: (fill: FillEvent) => boolean;
  /**
   * User channel: its reconciliations (audits, reconnects) also take the trades of the markets this
   * answers true for, beyond the followed ones (a fleet member: the markets outside the fleet's).
   */
  userAuditAlso?: (market: string) => boolean;
  /** Stream PING interval, ms (default 10 s). */
  pingIntervalMs?: number;
  /** Stream reconnect backoff. */
  backoff?: Partial<BackoffPolicy>;
  /** Per-attempt HTTP timeout, ms (default 10 s). */
  timeoutMs?: number;
  /** L1 nonce of the API key (default 0). */
  nonce?: number;
  /** Trades are refetched from this long before a stream gap (reconciliation), ms (default 60 s). */
  reconcileMarginMs?: number;
  /** Socket implementation for both streams (tests, benches). */
  createSocket?: WsFactory;
  /** Speculative signing of likely re-quotes in idle time (see LiveVenueParts.presign). Default `{ticks: 1}`. */
  presign?: PresignOptions | false;
  /** API credentials to use as they are (e.g. from the environment); default: created or derived with the wallet (L1). */
  credentials?: ApiCredentials;
  /** Order signature type: EOA 0 (default), POLY_PROXY 1, POLY_GNOSIS_SAFE 2 (POLY_1271 3: protocol 2 only). */
  signatureType?: SignatureType;
  /** The order protocol to sign: 1 (CTF Exchange V1) or 2 (V2). Default: the venue's (GET /version). */
  protocol?: OrderProtocol;
  /** Maker (funder) address holding the funds, for signature types 1 and 2; also the account whose orders and fills are ours. */
  funder?: string;
}

/**
 * The order protocol of a venue that does not say (no `GET /version`, 404): 1, the protocol before
 * the CLOB V2 migration (the public service answers 2 since 2026-04-28).
 */
export const LIVE_ORDER_PROTOCOL: OrderProtocol = 1;

/**
 * Connects to the venue: creates (or derives) the wallet's API key and returns the Venue.
 * Nothing streams until `marketEvents` / `userEvents` are subscribed.
 * @throws ConfigError on a bad URL; AuthError when the key request is refused; NetworkError /
 *   RateLimitError / TimeoutError when the venue cannot be reached.
 */
export async function createLiveVenue(o: LiveVenueOptions): Promise<LiveVenue> {
  const clock = o.clock ?? new LiveClock();
  const transport = createTransport({
    urls: {
      clob: o.urls.clob,
      ...(o.urls.gamma ? { gamma: o.urls.gamma } : {}),
      ...(o.urls.data ? { data: o.urls.data } : {}),
      ...(o.urls.content ? { content: o.urls.content } : {}),
      ...(o.urls.relayer ? { relayer: o.urls.relayer } : {}),
    },
    signer: o.wallet,
    chainId: o.chainId ?? 137,
    clock,
    ...(o.budgets !== undefined ? { budgets: o.budgets } : {}),
    ...(o.onAnswer !== undefined ? { onAnswer: o.onAnswer } : {}),
    ...(o.logger ? { logger: o.logger } : {}),
    ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
  });
  let creds: ApiCredentials;
  try {
    creds = o.credentials ?? (await createOrDeriveApiKey(transport, { nonce: o.nonce ?? 0 }));
  } catch (err) {
    await transport.close();
    throw err;
  }
  transport.setCredentials(creds);
  let protocol: OrderProtocol;
  try {
    // sign what the venue speaks: GET /version (a venue without it predates V2: 1)
    protocol = o.protocol ?? (await new ClobClient(transport).version());
  } catch (err) {
    await transport.close();
    throw err;
  }
  o.logger?.info({ protocol, asked: o.protocol === undefined }, `signing CLOB V${protocol} orders`);
  const builder = new OrderBuilder({
    wallet: o.wallet,
    chainId: o.chainId ?? 137,
    protocol,
    clock,
    ...(o.signatureType !== undefined ? { signatureType: o.signatureType } : {}),
    ...(o.funder ? { funder: o.funder } : {}),
  });
  return liveVenueFromParts({
    transport,
    creds,
    address: o.funder || o.wallet.address,
    signer: o.wallet.address,
    venueName: `${o.urls.clob.replace(/\/+$/, '')}#${o.chainId ?? 137}`,
    relayer: o.urls.relayer !== undefined && o.urls.relayer !== '',
    data: o.urls.data !== undefined && o.urls.data !== '',
    builder,
    urls: { ws: o.urls.ws, ...(o.urls.rtds ? { rtds: o.urls.rtds } : {}) },
    clock,
    ...(o.logger ? { logger: o.logger } : {}),
    ...(o.silenceMs !== undefined ? { silenceMs: o.silenceMs } : {}),
    ...(o.userSilenceMs !== undefined ? { userSilenceMs: o.userSilenceMs } : {}),
    ...(o.userAuditMs !== undefined ? { userAuditMs: o.userAuditMs } : {}),
    ...(o.userOthersFill !== undefined ? { userOthersFill: o.userOthersFill } : {}),
    ...(o.userRecordedFill !== undefined ? { userRecordedFill: o.userRecordedFill } : {}),
    ...(o.userAuditAlso !== undefined ? { userAuditAlso: o.userAuditAlso } : {}),
    ...(o.pingIntervalMs !== undefined ? { pingIntervalMs: o.pingIntervalMs } : {}),
    ...(o.backoff ? { backoff: o.backoff } : {}),
    ...(o.reconcileMarginMs !== undefined ? { reconcileMarginMs: o.reconcileMarginMs } : {}),
    ...(o.createSocket ? { createSocket: o.createSocket } : {}),
    ...(o.presign !== undefined ? { presign: o.presign } : {}),
  });
}
