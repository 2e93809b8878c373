/**
 * The live adapter of the Venue port (src/core/venue.ts), built on src/api: the same code talks
 * to the paper exchange and to the real service; only the URLs differ.
 *
 *  - Identity: the wallet's API key, created or derived with an L1 signature at start; one HTTP
 *    transport (one set of budgets) for every request of that identity.
 *  - `markets()`: every market of GET /markets, active (and accepting orders) first, in integer
 *    units. It also fills the cache `prepare` signs from (tick size, neg-risk, fee rate;
 *    ./market-cache.ts); the cache follows tick-size changes seen on the market channel.
 *  - `marketEvents(tokens)`: ONE market-channel connection, shared; asking again for more tokens
 *    subscribes them on the live connection. `userEvents(markets)`: ONE user-channel connection,
 *    shared likewise, whose reconnects are reconciled over REST (/data/orders, /data/order/{id},
 *    /data/trades), so nothing missed while away is lost and nothing is emitted twice (./live-streams.ts).
 *  - `prepare` signs locally (the id, the EIP-712 digest, is known before anything is sent);
 *    `place` posts the prepared wire objects at most 15 per POST /orders, byte-identical on a retry.
 *    Each entry's answer becomes a PlaceOutcome; when the request as a whole fails, no one knows
 *    whether it landed, so every entry of that batch is `UNKNOWN`: resolve with `order(id)`, never
 *    re-sign. Unless the failure proves the venue refused it (a 429 after the retries, an auth or
 *    4xx validation error, a rejection, with no attempt of it ending ambiguously): then `place`
 *    throws it (the caller marks the orders rejected and backs off, Retry-After for a 429).
 *  - `fills(since)`: GET /data/trades mapped per own order: the taker order when we took, and every
 *    maker order of ours (possibly on the complementary token: its token, side and price are the
 *    maker order's own).
 *  - `heartbeat()`: POST /v1/heartbeats chaining the id; on a failure the chain restarts and the
 *    venue's error is thrown (its code and message: the keeper's WARN and the kill switch say it);
 *    the keeper's signal ends it, retries included, well inside the venue's 10 s window.
 *  - The account: `address`, the funder (maker) of a proxy / Safe wallet (signatureType 1 / 2), else
 *    the EOA. The API key is the EOA's and the venue reports it the orders and trades of every
 *    account it trades for (the EOA's own included); fills, open orders, the user channel, balance
 *    and holdings keep the account's only (by maker_address), as the funds and positions are its.
 */
import type { Observable } from 'rxjs';
import { ClobClient, type SignedOrderLike } from '../../api/clob.ts';
import type { ApiCredentials, HttpTransport, LoggerLike } from '../../api/http/transport.ts';
import type { Transport } from '../../api/http/types.ts';
import type { OrderBuilder, OrderProtocol } from '../../api/orders.ts';
import { RelayerClient, type RelayerTransaction } from '../../api/relayer.ts';
import { DataClient } from '../../api/data.ts';
import { RewardsClient } from '../../api/rewards.ts';
import type { ActivityType } from '../../api/schemas/data.ts';
import type { BackoffPolicy, StreamLogger, WsFactory } from '../../api/streams/socket.ts';
import type { UserIdentity } from '../../api/streams/user-decode.ts';
import type { Clock } from '../../core/clock.ts';
import { MAX_BATCH_ORDERS } from '../../core/rate-limits.ts';
import { CANCEL_CHUNK_IDS } from '../../core/signer-limits.ts';
import { LiveMarketCache } from './market-cache.ts';
import { LiveStreams } from './live-streams.ts';
import { PresignPool, type PresignOptions } from './presign-pool.ts';
import { cancelOutcome, toMarketInfo, toVenueOrder, tradeRecord, venueFillsOf } from './live-mappers.ts';
import {
  AuthError,
  ConfigError,
  NotFoundError,
  OrderRejectedError,
  RateLimitError,
  ValidationError,
} from '../../core/errors.ts';
import type { FillEvent, MarketEvent, RtdsEvent, UserEvent } from '../../core/events.ts';
import type { ConditionId, OrderId, TokenId } from '../../core/ids.ts';
import { LOT_MICRO, marketBuyTerms, parseAmount, parsePrice, type Micro, type Pips } from '../../core/units.ts';
import type {
  CancelOutcome,
  CtfOperationKind,
  CtfOperationResult,
  Holdings,
  MarketInfo,
  PlaceOutcome,
  PlaceRequest,
  PreparedOrder,
  Venue,
  VenueFill,
  VenueOrder,
  VenueIdentity,
} from '../../core/venue.ts';

/** A relayer transaction as the Venue port's operation result. */
function ctfResult(kind: CtfOperationKind, market: ConditionId, t: RelayerTransaction): CtfOperationResult {
  return {
    kind,
    market,
    tx: t.id,
    ...(t.hash !== '' ? { hash: t.hash } : {}),
    amount: t.amount as Micro,
    collateral: t.collateralDelta,
    tokens: t.tokens.map((x) => ({ tokenId: x.tokenId as TokenId, delta: x.delta })),
  };
}

/** A logger the venue, its transport and its streams can share (pino's Logger fits). */
export interface VenueLogger extends LoggerLike, StreamLogger {
  warn(obj: Record<string, unknown>, msg: string): void;
  info(obj: Record<string, unknown>, msg: string): void;
  debug(obj: Record<string, unknown>, msg: string): void;
}

export type { PresignOptions } from './presign-pool.ts';
export { feeOf, orderRecord, toMarketInfo, toVenueOrder, tradeRecord, venueFillsOf } from './live-mappers.ts';

/** Counters of a live venue. */
export interface LiveVenueStats {
  /** Orders prepared from the pre-signed cache / signed on the spot. */
  presignHits: number;
  presignMisses: number;
  /** Orders signed speculatively, and held now. */
  presigned: number;
  presignHeld: number;
}

/** What the live venue adds to the port. */
export interface LiveVenue extends Venue {
  /** The API key id (the `owner` of our orders). Never the secret. */
  readonly apiKey: string;
  /**
   * The account address, lower case: the funder (maker) with a proxy / Safe wallet, else the EOA.
   * Every account read (fills, open orders, balance, holdings, activity) is this address's, although
   * the API key (the EOA's) also reaches the EOA's own orders and trades.
   */
  readonly address: string;
  /** The CLOB client of this identity (for what the port does not cover). */
  readonly clob: ClobClient;
  /** Asks the market channel for fresh snapshots of these tokens (a desynced or crossed mirror). */
  resync(tokenIds: readonly TokenId[]): void;
  /** The cached info of a token's market (tick as last seen), or undefined before `markets()`. */
  marketOfToken(tokenId: string): MarketInfo | undefined;
  /** Adds markets to the signing cache without listing (tests, benches, a known universe). */
  learnMarkets(markets: readonly MarketInfo[]): void;
  /**
   * The latest kind of account activity per token since `sinceMs`, from the data API's activity
   * (a market-wide operation names both tokens of a known market): the position audit's causes.
   * Empty without a data URL.
   */
  activityKinds(sinceMs: number): Promise<Map<string, ActivityType>>;
  /**
   * The liquidity rewards the venue credited to the account since `sinceMs` (the data API's REWARD
   * activity: collateral, per market), newest first. Empty without a data URL.
   */
  rewardCredits(sinceMs: number): Promise<RewardCredit[]>;
  /** The liquidity-reward endpoints of this identity (order scoring, earnings). */
  readonly rewards: RewardsClient;
  stats(): LiveVenueStats;
  /** The id the venue returned to the last heartbeat (null: none yet, or the last one failed). */
  readonly heartbeatId: string | null;
  /** Go on from another process's heartbeat chain (a fleet member taking the heartbeats over). */
  continueHeartbeatChain(id: string | null): void;
}

/** One reward payout credited to the account (a REWARD activity item). */
export interface RewardCredit {
  readonly market: ConditionId;
  /** Collateral credited, micro. */
  readonly amount: Micro;
  /** Unix ms. */
  readonly at: number;
  readonly tx: string | null;
}

/** Parts a live venue is assembled from (`createLiveVenue` builds them; tests and benches may inject). */
export interface LiveVenueParts {
  transport: Transport & { close?(): Promise<void> };
  creds: ApiCredentials;
  /** Account address (any case). */
  address: string;
  /**
   * The signing wallet's address (the API key's), when it is not `address`: a proxy / Safe wallet's
   * signer, `address` being its funder. The relayer's operations then name the funder (`proxyWallet`).
   */
  signer?: string;
  /** True when the transport knows a relayer URL (split, merge, redeem available). */
  relayer?: boolean;
  /** True when the transport knows a data API URL (account activity). */
  data?: boolean;
  /** The deployment's name for ledger epochs (default 'unknown'): `createLiveVenue` gives `<clob url>#<chain id>`. */
  venueName?: string;
  /** Signs the orders, in the protocol the venue speaks. */
  builder: OrderBuilder<OrderProtocol>;
  /** WebSocket base; `rtds`: the real-time data stream (default `${ws}/rtds`). */
  urls: { ws: string; rtds?: string };
  clock: Clock;
  logger?: VenueLogger;
  silenceMs?: number;
  userSilenceMs?: number;
  userAuditMs?: number;
  /** User channel: a fill this daemon does not book (another fleet member's; UserStreamOptions.othersFill). */
  userOthersFill?: (fill: FillEvent) => boolean;
  /**
   * User channel: a fill recorded before the channel knew of it (the store holds it: the previous
   * session's, the restart backfill's): an audit does not report it as missed (UserStreamOptions.recordedFill).
   */
  userRecordedFill?: (fill: FillEvent) => boolean;
  /**
   * User channel: the reconciliations (its audits, its reconnects) also take the trades of the markets
   * this answers true for, beyond the followed ones (a fleet member: the markets outside the fleet's,
   * where a hand trade on the wallet is booked by the member that claims it; nothing else asks for them).
   */
  userAuditAlso?: (market: string) => boolean;
  pingIntervalMs?: number;
  backoff?: Partial<BackoffPolicy>;
  reconcileMarginMs?: number;
  createSocket?: WsFactory;
  /** Speculative signing (default `{ticks: 1}`); false disables it. */
  presign?: PresignOptions | false;
}

/** Assembles a live venue from ready parts (no I/O until a method is called). */
export function liveVenueFromParts(p: LiveVenueParts): LiveVenue {
  return new LiveVenueImpl(p);
}

const PLACE_STATUSES = new Set(['live', 'matched', 'unmatched', 'delayed']);

class LiveVenueImpl implements LiveVenue {
  readonly clock: Clock;
  readonly apiKey: string;
  readonly address: string;
  readonly clob: ClobClient;
  readonly rewards: RewardsClient;
  readonly #p: LiveVenueParts;
  readonly #me: UserIdentity;
  /** What orders are built from, per market and token (./market-cache.ts). */
  readonly #cache: LiveMarketCache;
  #heartbeatId: string | null = null;
  #closed: Promise<void> | undefined;
  /** Speculative signing of likely re-quotes (see PresignOptions). */
  readonly #presign: PresignPool;
  /** The market, user and price channels (./live-streams.ts). */
  readonly #streams: LiveStreams;

  constructor(p: LiveVenueParts) {
    this.#p = p;
    this.clock = p.clock;
    this.apiKey = p.creds.apiKey;
    this.address = p.address.toLowerCase();
    this.clob = new ClobClient(p.transport, { owner: p.creds.apiKey });
    this.rewards = new RewardsClient(p.transport);
    this.#me = { apiKey: p.creds.apiKey, address: this.address };
    this.#cache = new LiveMarketCache(this.clob, p.builder, p.logger);
    this.#presign = new PresignPool(p.presign, p.builder, (t) => this.#cache.token(t));
    this.#streams = new LiveStreams(p, {
      address: this.address,
      clob: this.clob,
      cache: this.#cache,
      feeProtocol: p.builder.protocol,
    });
  }

  stats(): LiveVenueStats {
    return this.#presign.stats();
  }

  // ---- markets ---------------------------------------------------------------------------------

  learnMarkets(markets: readonly MarketInfo[]): void {
    this.#cache.learnMarkets(markets);
  }

  marketOfToken(tokenId: string): MarketInfo | undefined {
    return this.#cache.token(tokenId)?.m;
  }

  async markets(): Promise<readonly MarketInfo[]> {
    const out: MarketInfo[] = [];
    for await (const m of this.clob.marketsAll()) {
      const info = toMarketInfo(m, this.#cache.feeRateOf(m.conditionId));
      if (info !== undefined) out.push(info);
    }
    // stable: active first, listing order otherwise
    const sorted = [...out.filter((m) => m.active), ...out.filter((m) => !m.active)];
    this.learnMarkets(sorted);
    return sorted;
  }

  /**
   * One market as GET /markets/{condition_id} gives it now (the engine's re-read of its markets);
   * undefined when the venue does not know it. The cache is not changed: it follows the market
   * channel's ticks, which a listing may lag.
   */
  async market(id: ConditionId): Promise<MarketInfo | undefined> {
    try {
      return toMarketInfo(await this.clob.market(id), this.#cache.feeRateOf(id));
    } catch (e) {
      if (e instanceof NotFoundError) return undefined;
      throw e;
    }
  }

  // ---- streams -----------------------------------------------------------------------------------

  marketEvents(tokenIds: readonly TokenId[]): Observable<MarketEvent> {
    if (this.#closed) throw new ValidationError('venue closed');
    return this.#streams.market(tokenIds);
  }

  resync(tokenIds: readonly TokenId[]): void {
    this.#streams.resync(tokenIds);
  }

  userEvents(markets: readonly ConditionId[]): Observable<UserEvent> {
    if (this.#closed) throw new ValidationError('venue closed');
    return this.#streams.user(markets);
  }

  /**
   * Real-time crypto prices (RTDS `crypto_prices` updates) for these symbols; one shared
   * connection, symbols added on later calls. The subscription's history arrives first (flagged
   * `snapshot`); a reconnect re-subscribes and emits `disconnected` / `resynced` (stream 'rtds').
   */
  priceEvents(symbols: readonly string[]): Observable<RtdsEvent> {
    if (this.#closed) throw new ValidationError('venue closed');
    return this.#streams.prices(symbols);
  }

  // ---- orders ----------------------------------------------------------------------------------

  /**
   * Signs the requests (GTC limit orders from the pre-signed cache when there).
   * @throws ValidationError when a token is not in the market cache, a price is off the market's
   *   current tick or out of range, or a size is below 0.01 share
   */
  prepare(requests: readonly PlaceRequest[]): readonly PreparedOrder[] {
    const out: PreparedOrder[] = new Array(requests.length);
    for (let i = 0; i < requests.length; i++) {
      const r = requests[i]!;
      const t = this.#cache.token(r.tokenId);
      if (t === undefined)
        throw new ValidationError(
          `prepare: token ${String(r.tokenId).slice(0, 20)}… is not in the market cache (call markets() first)`,
        );
      const m = t.m;
      if (m.market !== r.market)
        throw new ValidationError(
          `prepare: token ${String(r.tokenId).slice(0, 20)}… is not of market ${String(r.market).slice(0, 12)}…`,
        );
      if (r.type === 'GTC' && this.#presign.enabled) {
        const hit = this.#presign.take(t, r.side, r.price, r.size);
        if (hit !== undefined) {
          out[i] = { id: hit.id as OrderId, request: r, wire: hit.wire };
        } else {
          const built = this.#p.builder.buildLimit({
            tokenId: r.tokenId,
            side: r.side,
            tick: m.tick,
            negRisk: m.negRisk,
            feeRateBps: m.feeRateBps,
            price: r.price,
            size: r.size,
          });
          out[i] = { id: built.id as OrderId, request: r, wire: built.wire };
        }
        // the replacement and the neighbours are queued in idle time (the pool's step), not here
        this.#presign.prepared(r); // a PlaceRequest is a PresignJob (token, side, price, size)
        continue;
      }
      const common = {
        tokenId: r.tokenId as string,
        side: r.side,
        tick: m.tick,
        negRisk: m.negRisk,
        feeRateBps: m.feeRateBps,
      };
      let built;
      if (r.type === 'FOK' || r.type === 'FAK') {
        // a market order: BUY spends collateral, the whole cents at or just above size × price (the
        // shares it buys are the size or a little more: core/units.ts marketBuyTerms); SELL sells shares
        const amount = r.side === 'BUY' ? marketBuyTerms(r.size, r.price, m.tick).amount : r.size;
        built = this.#p.builder.buildMarket({ ...common, price: r.price, amount: amount - (amount % LOT_MICRO) });
      } else {
        built = this.#p.builder.buildLimit({
          ...common,
          price: r.price,
          size: r.size,
          ...(r.type === 'GTD' ? { expiration: r.expiration ?? 0 } : {}),
        });
      }
      out[i] = { id: built.id as OrderId, request: r, wire: built.wire };
    }
    return out;
  }

  async place(orders: readonly PreparedOrder[]): Promise<readonly PlaceOutcome[]> {
    const out: PlaceOutcome[] = [];
    /** Attempts that may have landed without the client knowing: no answer, or a 5xx. */
    const ambiguousAttempts = (t: ReturnType<HttpTransport['stats']>): number => {
      let n = t.timeouts + t.networkErrors;
      for (const k in t.statuses) if (Number(k) >= 500) n += t.statuses[k]!;
      return n;
    };
    for (let i = 0; i < orders.length; i += MAX_BATCH_ORDERS) {
      const chunk = orders.length <= MAX_BATCH_ORDERS ? orders : orders.slice(i, i + MAX_BATCH_ORDERS);
      const entries: Array<{ order: SignedOrderLike; orderType: PlaceRequest['type']; postOnly?: boolean }> = new Array(
        chunk.length,
      );
      for (let k = 0; k < chunk.length; k++) {
        const o = chunk[k]!;
        // a prepared order is a signed order ({id, wire}) as it stands
        const e: (typeof entries)[number] = { order: o as PreparedOrder & SignedOrderLike, orderType: o.request.type };
        if (o.request.postOnly !== undefined) e.postOnly = o.request.postOnly;
        entries[k] = e;
      }
      // ambiguous attempts (no answer, 5xx) the transport saw so far: see `notAccepted` below
      const stats = (this.#p.transport as Partial<Pick<HttpTransport, 'stats'>>).stats;
      const ambiguousBefore = stats === undefined ? -1 : ambiguousAttempts(stats.call(this.#p.transport));
      let res;
      try {
        res = await this.clob.postOrders(entries);
      } catch (err) {
        const e = err as { code?: unknown; message?: unknown; details?: { status?: unknown } };
        const message = `${typeof e.code === 'string' ? e.code : 'ERROR'}: ${String(e.message ?? err).slice(0, 200)}`;
        // Proof that the venue did not accept the request: the classes of `provesNotAccepted`
        // (src/execution/executor.ts), which place's callers apply to what it throws (not imported
        // from there: the engine does not depend on the execution layer, whose executor loads the
        // store; should the two lists differ, either side falls back to UNKNOWN). Two exceptions,
        // where the orders may be there after all:
        //  - a ValidationError that is not a 4xx answer (a malformed 200 answer: it landed);
        //  - any attempt of the transport ended ambiguously (a timeout, a dropped connection, a
        //    5xx) during this request: the error thrown is the LAST attempt's (e.g. a 429 after a
        //    timed-out first attempt, which may have landed), or comes from resolving a duplicate
        //    by id. Counted on the whole transport (other requests' failures meanwhile only make
        //    this conservative: UNKNOWN, resolved by id, as before); with no counters, no proof.
        const status = e.details?.status;
        const notAccepted =
          (err instanceof RateLimitError ||
            err instanceof AuthError ||
            err instanceof ConfigError ||
            // a whole-request "duplicated" says the orders ARE there (a resend of a request that landed)
            (err instanceof OrderRejectedError && e.code !== 'INVALID_ORDER_DUPLICATED') ||
            (err instanceof ValidationError && typeof status === 'number' && status >= 400 && status < 500)) &&
          stats !== undefined &&
          ambiguousAttempts(stats.call(this.#p.transport)) === ambiguousBefore;
        if (notAccepted) {
          // The venue refused the request as a whole: none of this chunk is there. With no outcome
          // collected yet (the first chunk: the executor's one-chunk calls), throw, so the caller
          // marks every order rejected and backs off (Retry-After for a 429) instead of resolving
          // each by id and resending. Later chunks must not throw (the earlier outcomes would be
          // lost): this chunk and the rest (not sent: they would meet the same refusal) get an
          // outcome. The error's own code for a refusal of the orders (auth, validation, config,
          // venue rejection); but 'UNKNOWN' after a 429, because a non-UNKNOWN failure counts as a
          // venue rejection (the kill switch's rejection counter), which a rate limit is not: the
          // orders are resolved by id instead (not found, then resent once), as before.
          if (out.length === 0) throw err;
          const code = err instanceof RateLimitError ? 'UNKNOWN' : String(e.code);
          for (let j = i; j < orders.length; j++) out.push({ id: orders[j]!.id, ok: false, code, message });
          break;
        }
        // the request may or may not have landed: every entry is unknown until resolved by id
        for (const o of chunk) out.push({ id: o.id, ok: false, code: 'UNKNOWN', message });
        continue;
      }
      for (let k = 0; k < chunk.length; k++) {
        const r = res[k]!;
        const id = chunk[k]!.id;
        if (r.ok) {
          const s = String(r.status).toLowerCase();
          const status = PLACE_STATUSES.has(s)
            ? (s as 'live' | 'matched' | 'unmatched' | 'delayed')
            : s === 'canceled'
              ? 'unmatched'
              : 'live';
          out.push({ id, ok: true, status });
        } else out.push({ id, ok: false, code: String(r.code), message: r.message });
      }
    }
    return out;
  }

  cancel(ids: readonly OrderId[]): Promise<CancelOutcome> {
    if (ids.length > CANCEL_CHUNK_IDS) return this.#cancelChunks(ids);
    // one request (the usual case): not `async`, so that it can be inlined into the caller
    try {
      return this.clob.cancelOrders(ids).then(cancelOutcome);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * Cancels in requests of at most CANCEL_CHUNK_IDS (120) ids, one after the other: a request of
   * more ids than the signer's cancel burst (120 at the tightest tier) could never pass.
   */
  async #cancelChunks(ids: readonly OrderId[]): Promise<CancelOutcome> {
    const canceled: OrderId[] = [];
    const notCanceled = new Map<OrderId, string>();
    for (let i = 0; i < ids.length; i += CANCEL_CHUNK_IDS) {
      const r = await this.clob.cancelOrders(ids.slice(i, i + CANCEL_CHUNK_IDS));
      canceled.push(...r.canceled);
      for (const [k, v] of Object.entries(r.notCanceled)) notCanceled.set(k as OrderId, v);
    }
    return { canceled, notCanceled };
  }

  /**
   * Every open order of the account. The venue's cancel-all is per API key, and a key reaches every
   * account it signs for (the EOA's own and each proxy / Safe / registered funder): with a funder, or
   * when the key has open orders of another account (the EOA's run whose key also signs for a funder
   * another daemon runs), the account's open orders are cancelled by id instead, so the key's other
   * accounts are never touched. Else the venue's cancel-all (one request, and it also takes an order
   * placed after the listing).
   */
  async cancelAll(): Promise<CancelOutcome> {
    if (this.#funded()) return this.#cancelChunks((await this.openOrders()).map((o) => o.id));
    const ours: OrderId[] = [];
    let others = false;
    for await (const o of this.clob.openOrdersAll())
      if (o.makerAddress === '' || o.makerAddress === this.address) ours.push(o.id as OrderId);
      else others = true;
    if (others) return this.#cancelChunks(ours);
    const r = await this.clob.cancelAll();
    return { canceled: r.canceled, notCanceled: new Map(Object.entries(r.notCanceled) as Array<[OrderId, string]>) };
  }

  /** True when the account is a funder the signer trades for (a proxy / Safe wallet), not the signer itself. */
  #funded(): boolean {
    return this.#p.signer !== undefined && this.#p.signer.toLowerCase() !== this.address;
  }

  async openOrders(): Promise<readonly VenueOrder[]> {
    const out: VenueOrder[] = [];
    // the key's orders of every account it trades for: the account's are those it is the maker of
    for await (const o of this.clob.openOrdersAll())
      if (o.makerAddress === '' || o.makerAddress === this.address) out.push(toVenueOrder(o));
    return out;
  }

  async order(id: OrderId): Promise<VenueOrder | undefined> {
    const o = await this.clob.resolveOrder(id);
    return o === undefined ? undefined : toVenueOrder(o);
  }

  async fills(sinceMs: number): Promise<readonly VenueFill[]> {
    const after = Math.max(0, Math.floor(sinceMs / 1000) - 1); // the venue filters on whole seconds, strictly after
    const records: unknown[] = [];
    // the account's trades (maker_address), not those of the key's other accounts (venueFillsOf also sorts them)
    for await (const t of this.clob.tradesAll({ after, makerAddress: this.address })) records.push(tradeRecord(t));
    return venueFillsOf(records, this.#me, this.#p.builder.protocol).filter(
      (f) => f.matchTime >= Math.floor(sinceMs / 1000) * 1000,
    );
  }

  /** @throws the venue's error (the chain restarts), or the signal's reason once it aborted */
  async heartbeat(signal?: AbortSignal): Promise<boolean> {
    try {
      this.#heartbeatId = await this.clob.heartbeat(this.#heartbeatId, signal !== undefined ? { signal } : undefined);
      return true;
    } catch (err) {
      this.#heartbeatId = null;
      // thrown, not false: the heartbeat keeper's WARN line and the kill switch's reason carry the
      // venue's own words (a 401 for clock skew reads as such), once per failure; the request's
      // retries are logged by the transport
      throw err;
    }
  }

  /** The id the venue returned to the last heartbeat (null: none yet, or the last one failed). */
  get heartbeatId(): string | null {
    return this.#heartbeatId;
  }

  /** Go on from another process's heartbeat chain (a fleet member taking the heartbeats over). */
  continueHeartbeatChain(id: string | null): void {
    this.#heartbeatId = id;
  }

  async balance(): Promise<{ available: Micro; reserved: Micro }> {
    const b = await this.clob.balances({ makerAddress: this.address });
    return { available: b.collateral.available, reserved: b.collateral.reserved };
  }

  async holdings(): Promise<Holdings> {
    // balances first: the sizes are the truth; positions only add the venue's average prices
    // the account's (the funder's with a proxy / Safe wallet), not the API key's EOA's
    const b = await this.clob.balances({ makerAddress: this.address });
    const avg = new Map<string, { pips: Pips; micro: number }>();
    const marks = new Map<string, Pips>();
    let marksRead = true;
    try {
      for (const p of await this.clob.positions({ makerAddress: this.address })) {
        // each figure on its own: one the venue writes oddly costs that figure only
        try {
          const px = parsePrice(p.avgPrice, 'half-up');
          if (px > 0) avg.set(p.assetId, { pips: px, micro: parseAmount(p.avgPrice, 'half-up') });
        } catch {
          /* no average price for this token */
        }
        try {
          if (p.curPrice !== undefined) marks.set(p.assetId, parsePrice(p.curPrice, 'half-up'));
        } catch {
          /* no mark for this token */
        }
      }
    } catch (err) {
      marksRead = false;
      this.#p.logger?.warn(
        { err: (err as Error).message?.slice(0, 200) },
        'positions not read: no average prices, the last marks kept',
      );
    }
    return {
      collateral: { available: b.collateral.available, reserved: b.collateral.reserved },
      tokens: b.tokens
        .filter((t) => t.balance > 0)
        .map((t) => {
          const a = avg.get(t.assetId);
          const mark = marks.get(t.assetId);
          return {
            tokenId: t.assetId,
            market: t.market,
            size: t.balance,
            available: t.available,
            ...(a !== undefined ? { avgPrice: a.pips, avgPriceMicro: a.micro } : {}),
            ...(mark !== undefined ? { mark } : {}),
          };
        }),
      ...(marksRead ? {} : { marksRead: false }),
    };
  }

  async activityKinds(sinceMs: number): Promise<Map<string, ActivityType>> {
    const out = new Map<string, ActivityType>();
    if (this.#p.data !== true) return out;
    const data = new DataClient(this.#p.transport);
    const start = Math.max(0, Math.floor(sinceMs / 1000));
    let n = 0;
    // newest first: the first kind seen of a token is its latest
    for await (const a of data.iterActivity(this.address, { start })) {
      if (++n > 2000) break;
      const kind = a.type as ActivityType;
      // a reward pays collateral and moves no token: it never explains a token's difference
      if (kind === 'REWARD') continue;
      const tokens =
        a.asset !== null ? [a.asset] : (this.#cache.market(a.conditionId)?.tokens.map((t) => t.tokenId) ?? []);
      for (const t of tokens) if (!out.has(t)) out.set(t, kind);
    }
    return out;
  }

  async rewardCredits(sinceMs: number): Promise<RewardCredit[]> {
    const out: RewardCredit[] = [];
    if (this.#p.data !== true) return out;
    const data = new DataClient(this.#p.transport);
    const start = Math.max(0, Math.floor(sinceMs / 1000));
    for await (const a of data.iterActivity(this.address, { type: 'REWARD', start })) {
      if (a.type !== 'REWARD') continue;
      out.push({
        market: a.conditionId as ConditionId,
        amount: a.usdcSize,
        at: a.timestamp * 1000,
        tx: a.transactionHash,
      });
      if (out.length >= 5000) break;
    }
    return out;
  }

  async split(market: ConditionId, amount: Micro): Promise<CtfOperationResult> {
    return ctfResult('split', market, await this.#relayer().split(market, amount));
  }

  async merge(market: ConditionId, amount: Micro): Promise<CtfOperationResult> {
    return ctfResult('merge', market, await this.#relayer().merge(market, amount));
  }

  async redeem(market: ConditionId, amount?: Micro): Promise<CtfOperationResult> {
    return ctfResult('redeem', market, await this.#relayer().redeem(market, amount));
  }

  #relayerClient: RelayerClient | undefined;
  #relayer(): RelayerClient {
    if (this.#p.relayer !== true)
      throw new ConfigError(
        'venue.relayerUrl',
        'no relayer URL is configured: split, merge and redeem are unavailable',
      );
    // a proxy / Safe wallet's split, merge and redeem move the funder's balances, as its orders do
    const funder = this.#funded();
    this.#relayerClient ??= new RelayerClient(this.#p.transport, funder ? { proxyWallet: this.address } : {});
    return this.#relayerClient;
  }

  async identity(): Promise<VenueIdentity> {
    const w = await this.clob.world();
    return { venue: this.#p.venueName ?? 'unknown', world: w?.worldId ?? null, address: this.address };
  }

  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.#presign.close();
      this.#streams.close();
      await this.#p.transport.close?.();
    })();
    return this.#closed;
  }
}
