/**
 * The live venue's streams (./live-venue.ts holds the port; this, its channels): ONE market-channel
 * connection, shared, asking again for more tokens subscribes them on the live connection; ONE
 * user-channel connection, shared likewise, whose reconnects and audits are reconciled over REST
 * (/data/orders, /data/order/{id}, /data/trades: `#reconcile`), so nothing missed while away is
 * lost and nothing is emitted twice; ONE real-time data (RTDS) connection for crypto prices. The
 * market channel keeps the signing cache's tick in step with the venue (./market-cache.ts), before
 * any consumer sees the event. The venue checks it is open before asking, and closes them.
 */
import type { Observable } from 'rxjs';
import { filter, share, tap } from 'rxjs';
import type { ClobClient } from '../../api/clob.ts';
import type { ApiCredentials } from '../../api/http/transport.ts';
import { marketStream, type MarketStream } from '../../api/streams/market.ts';
import { rtdsStream, type RtdsStream } from '../../api/streams/rtds.ts';
import type { BackoffPolicy, StreamLogger, WsFactory } from '../../api/streams/socket.ts';
import { userStream, type ReconcileContext, type ReconcileResult, type UserStream } from '../../api/streams/user.ts';
import type { Clock } from '../../core/clock.ts';
import type { FeeProtocol } from '../../core/fees.ts';
import type { FillEvent, MarketEvent, RtdsEvent, UserEvent } from '../../core/events.ts';
import type { ConditionId, TokenId } from '../../core/ids.ts';
import { orderRecord, tradeRecord } from './live-mappers.ts';
import type { LiveMarketCache } from './market-cache.ts';

/** What the streams are made from: LiveVenueParts' stream settings (./live-venue.ts documents them). */
export interface LiveStreamParts {
  readonly creds: ApiCredentials;
  readonly urls: { readonly ws: string; readonly rtds?: string };
  readonly clock: Clock;
  readonly logger?: StreamLogger;
  readonly silenceMs?: number;
  readonly userSilenceMs?: number;
  readonly userAuditMs?: number;
  readonly userOthersFill?: (fill: FillEvent) => boolean;
  readonly userRecordedFill?: (fill: FillEvent) => boolean;
  readonly userAuditAlso?: (market: string) => boolean;
  readonly pingIntervalMs?: number;
  readonly backoff?: Partial<BackoffPolicy>;
  readonly reconcileMarginMs?: number;
  readonly createSocket?: WsFactory;
}

/** The live venue's market, user and price channels (see the module comment). */
export class LiveStreams {
  readonly #p: LiveStreamParts;
  readonly #address: string;
  readonly #clob: ClobClient;
  /** What orders are built from, per market and token (./market-cache.ts). */
  readonly #cache: LiveMarketCache;
  readonly #marginMs: number;
  #market: { stream: MarketStream; events$: Observable<MarketEvent> } | undefined;
  #user: { stream: UserStream; events$: Observable<UserEvent>; markets: Set<string> } | undefined;
  #rtds: { stream: RtdsStream; events$: Observable<RtdsEvent>; symbols: Set<string> } | undefined;

  /** The order protocol the venue charges taker fees under (its orders' protocol). */
  readonly #feeProtocol: FeeProtocol;

  /** @param o the venue's account address (lower case), CLOB client, market cache and fee protocol */
  constructor(
    p: LiveStreamParts,
    o: { address: string; clob: ClobClient; cache: LiveMarketCache; feeProtocol: FeeProtocol },
  ) {
    this.#feeProtocol = o.feeProtocol;
    this.#p = p;
    this.#address = o.address;
    this.#clob = o.clob;
    this.#cache = o.cache;
    this.#marginMs = p.reconcileMarginMs ?? 60_000;
  }

  /** The market channel's events of these tokens (see the module comment); the caller checked the venue is open. */
  market(tokenIds: readonly TokenId[]): Observable<MarketEvent> {
    this.#cache.learnFees(tokenIds);
    let m = this.#market;
    if (m === undefined) {
      const p = this.#p;
      const stream = marketStream({
        url: `${p.urls.ws.replace(/\/+$/, '')}/ws/market`,
        assetIds: [...tokenIds],
        clock: p.clock,
        ...(p.silenceMs !== undefined ? { silenceMs: p.silenceMs } : {}),
        ...(p.pingIntervalMs !== undefined ? { pingIntervalMs: p.pingIntervalMs } : {}),
        ...(p.backoff ? { backoff: p.backoff } : {}),
        ...(p.logger ? { logger: p.logger } : {}),
        ...(p.createSocket ? { createSocket: p.createSocket } : {}),
      });
      // keep the signing cache's tick in step with the venue (before any consumer sees the event)
      const events$ = stream.events$.pipe(
        tap((e) => {
          if (e.type === 'tick_size_change') this.#cache.onTick(e.tokenId, e.new);
          else if (e.type === 'book_snapshot' && e.tickSize !== null) this.#cache.onTick(e.tokenId, e.tickSize);
        }),
        share(),
      );
      this.#market = m = { stream, events$ };
    } else {
      m.stream.subscribe(tokenIds);
    }
    const wanted = new Set<string>(tokenIds);
    const markets = new Set<string>();
    for (const t of tokenIds) {
      const info = this.#cache.token(t)?.m;
      if (info !== undefined) markets.add(info.market);
    }
    return m.events$.pipe(
      filter((e) => {
        switch (e.type) {
          case 'book_snapshot':
          case 'level_change':
          case 'last_trade':
          case 'tick_size_change':
          case 'best_bid_ask':
            return wanted.has(e.tokenId);
          case 'market_resolved':
            return markets.size === 0 || markets.has(e.market);
          default:
            return true;
        }
      }),
    );
  }

  /** Asks the market channel for fresh snapshots of these tokens. */
  resync(tokenIds: readonly TokenId[]): void {
    this.#market?.stream.resync(tokenIds);
  }

  /** The user channel's events of these markets (see the module comment); the caller checked the venue is open. */
  user(markets: readonly ConditionId[]): Observable<UserEvent> {
    let u = this.#user;
    if (u === undefined) {
      const p = this.#p;
      const set = new Set<string>(markets);
      const stream = userStream({
        url: `${p.urls.ws.replace(/\/+$/, '')}/ws/user`,
        creds: p.creds,
        address: this.#address,
        markets: [...set],
        feeProtocol: this.#feeProtocol,
        reconcile: (ctx) => this.#reconcile(ctx, set),
        clock: p.clock,
        silenceMs: p.userSilenceMs ?? 0,
        auditMs: p.userAuditMs ?? 0,
        ...(p.userOthersFill !== undefined ? { othersFill: p.userOthersFill } : {}),
        ...(p.userRecordedFill !== undefined ? { recordedFill: p.userRecordedFill } : {}),
        ...(p.pingIntervalMs !== undefined ? { pingIntervalMs: p.pingIntervalMs } : {}),
        ...(p.backoff ? { backoff: p.backoff } : {}),
        ...(p.logger ? { logger: p.logger } : {}),
        ...(p.createSocket ? { createSocket: p.createSocket } : {}),
      });
      this.#user = u = { stream, events$: stream.events$, markets: set };
    } else {
      const fresh = markets.filter((m) => !u!.markets.has(m));
      for (const m of fresh) u.markets.add(m);
      if (fresh.length > 0) u.stream.subscribe(fresh);
    }
    return u.events$;
  }

  /** Real-time crypto prices of these symbols (LiveVenue.priceEvents); the caller checked the venue is open. */
  prices(symbols: readonly string[]): Observable<RtdsEvent> {
    const want = [...new Set(symbols.map((x) => x.toLowerCase()))];
    let r = this.#rtds;
    if (r === undefined) {
      const p = this.#p;
      const stream = rtdsStream({
        url: p.urls.rtds ?? `${p.urls.ws.replace(/\/+$/, '')}/rtds`,
        subscriptions: [{ topic: 'crypto_prices', type: 'update', filters: want }],
        clock: p.clock,
        ...(p.backoff ? { backoff: p.backoff } : {}),
        ...(p.logger ? { logger: p.logger } : {}),
        ...(p.createSocket ? { createSocket: p.createSocket } : {}),
      });
      this.#rtds = r = { stream, events$: stream.events$, symbols: new Set(want) };
    } else {
      const fresh = want.filter((x) => !r!.symbols.has(x));
      for (const x of fresh) r.symbols.add(x);
      if (fresh.length > 0) r.stream.subscribe([{ topic: 'crypto_prices', type: 'update', filters: fresh }]);
    }
    return r.events$;
  }

  /**
   * What the user stream may have missed: open orders, orders last seen open, trades since the gap
   * (of the followed markets, and of those `userAuditAlso` adds: trades only, never orders).
   */
  async #reconcile(ctx: ReconcileContext, markets: ReadonlySet<string>): Promise<ReconcileResult> {
    const call = { signal: ctx.signal };
    const inScope = (market: string) => markets.size === 0 || markets.has(market);
    const also = this.#p.userAuditAlso;
    const orders: unknown[] = [];
    const seen = new Set<string>();
    for await (const o of this.#clob.openOrdersAll({}, call)) {
      seen.add(o.id);
      if (inScope(o.market)) orders.push(orderRecord(o));
    }
    for (const id of ctx.openOrderIds) {
      if (seen.has(id)) continue;
      const o = await this.#clob.resolveOrder(id, call);
      if (o !== undefined) orders.push(orderRecord(o));
    }
    const trades: unknown[] = [];
    const after = Math.max(0, Math.floor((ctx.since - this.#marginMs) / 1000) - 1);
    for await (const t of this.#clob.tradesAll({ after }, call))
      if (inScope(t.market) || also?.(t.market) === true) trades.push(tradeRecord(t));
    return { orders, trades };
  }

  /** Closes the connections opened (market, user, prices). */
  close(): void {
    this.#market?.stream.close();
    this.#user?.stream.close();
    this.#rtds?.stream.close();
  }
}
