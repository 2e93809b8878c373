/**
 * The typed client of the order-book (CLOB) API: every endpoint the paper exchange serves (spec 4.1
 * plus what public clients of the venue call), over the Transport contract (budgets, auth, retries,
 * envelopes and errors are the transport's).
 *
 * Units: the wire's decimal strings become integers once, here: prices are integer pips (Pips),
 * sizes and amounts integer micro-units (Micro), with src/core/units.ts. A mid or an average price
 * may fall between two pips: those are exposed in pips with a possible half (`midPips`, exact in
 * binary) or left as decimal strings. Book levels are returned BEST FIRST (bids descending, asks
 * ascending), whatever order the venue sends (the public venue sends best last on REST).
 *
 * Orders: `postOrder` takes an already signed order (`{id, wire}`, e.g. a BuiltOrder of
 * src/api/orders.ts) and never re-signs it. The transport re-sends the identical bytes after an
 * ambiguous failure (timeout, dropped connection); if that resend is refused as
 * INVALID_ORDER_DUPLICATED, the first copy landed, and the client resolves the order by its id
 * (GET /data/order/{id}) and returns it with `resolved: true`. `resolveOrder(id)` does the same on
 * demand (e.g. after a restart, for ids persisted before sending).
 */
import { NotFoundError, OrderRejectedError, ValidationError } from '../core/errors.ts';
import type { z } from 'zod';
import type { TokenId } from '../core/ids.ts';
import { parseRawAmount, type Pips, type Side, type TickSize } from '../core/units.ts';
import type { ApiCredentials, RequestObserver } from './http/transport.ts';
import type { QueryValue, RequestSpec, Transport } from './http/types.ts';
import * as S from './schemas/clob.ts';
import {
  accepted,
  isVenueCode,
  parseMidPips,
  pips,
  refusalOf,
  resolvedPost,
  tickOf,
  toBalances,
  toBook,
  toCancel,
  toLastTrade,
  toMarket,
  toOpenOrder,
  toPosition,
  toPrices,
  toSimplified,
  toTrade,
} from './clob-mappers.ts';
import {
  FIRST_CURSOR,
  MAX_BATCH_ORDERS,
  type ApiKeyInfo,
  type BalanceAllowance,
  type Balances,
  type BatchEntryResult,
  type CallOptions,
  type CancelResult,
  type ClobMarket,
  type OpenOrder,
  type OpenOrdersFilter,
  type OrderBook,
  type Page,
  type Position,
  type PostOrderOptions,
  type PostOrderResult,
  type SignedOrderLike,
  type SimplifiedMarket,
  type Trade,
  type TradesFilter,
  type AccountQuery,
} from './clob-types.ts';
import { noteRetry, openOrdersQuery, orderBody, orderBodyJson, paginate, tradeQuery } from './clob-helpers.ts';

export { paginate } from './clob-helpers.ts';

/** Options of a ClobClient. */
export interface ClobClientOptions {
  /**
   * The API key that owns posted orders (`owner`). Default: the transport's `apiKey` (an
   * HttpTransport from createTransport has one once credentials are set).
   */
  owner?: string | (() => string | undefined);
}

/** The CLOB API client. Stateless apart from the transport; safe to share. */
export class ClobClient {
  readonly #t: Transport;
  readonly #owner: () => string | undefined;

  constructor(transport: Transport, opts: ClobClientOptions = {}) {
    this.#t = transport;
    const o = opts.owner;
    if (typeof o === 'string') this.#owner = () => o;
    else if (typeof o === 'function') this.#owner = o;
    else this.#owner = () => (transport as { apiKey?: string }).apiKey;
  }

  #req<T extends z.ZodType>(
    method: RequestSpec['method'],
    path: string,
    schema: T,
    o: {
      auth?: RequestSpec['auth'];
      query?: Record<string, QueryValue>;
      body?: unknown;
      bodyJson?: string | undefined;
      idempotent?: boolean;
      nonce?: number;
      call?: CallOptions;
      observer?: RequestObserver;
    },
  ): Promise<z.output<T>> {
    // one object literal of one shape (absent options are undefined, which every transport reads
    // as absent): this runs on every order and cancel, often before it is optimised
    const call = o.call;
    const spec: RequestSpec & RequestObserver = {
      api: 'clob',
      method,
      path,
      auth: o.auth ?? 'none',
      idempotent: o.idempotent ?? true,
      query: o.query,
      body: o.body,
      bodyJson: o.body === undefined ? undefined : o.bodyJson,
      nonce: o.nonce,
      signal: call?.signal,
      timeoutMs: call?.timeoutMs,
      onRetry: o.observer?.onRetry,
    };
    return this.#t.request(spec, schema);
  }

  // ---- health, time, markets --------------------------------------------------------------------

  /** GET / : the health check. @throws NetworkError when the service is down. */
  async ok(call?: CallOptions): Promise<boolean> {
    await this.#req('GET', '/', S.okSchema, { call });
    return true;
  }

  /** GET /time: the server's unix time, seconds (for clock-skew checks of L1/L2 timestamps). */
  time(call?: CallOptions): Promise<number> {
    return this.#req('GET', '/time', S.timeSchema, { call });
  }

  /**
   * GET /world: the identity of the paper exchange's world (`worldId` changes when it starts a fresh
   * world and is kept across a restore; `startedAt` unix ms), or undefined when the venue has none
   * (404: the public service has no such route).
   * @throws NetworkError, ValidationError (malformed answer) as any request.
   */
  async world(call?: CallOptions): Promise<S.WorldInfo | undefined> {
    try {
      return await this.#req('GET', '/world', S.worldSchema, { call });
    } catch (e) {
      if (e instanceof NotFoundError) return undefined;
      throw e;
    }
  }

  /**
   * GET /version: the order protocol the venue speaks, 1 or 2 (the public service since 2026-04-28:
   * 2). A venue without the route (404) predates the migration: 1.
   * @throws NetworkError, ValidationError (a version this client does not speak) as any request.
   */
  async version(call?: CallOptions): Promise<1 | 2> {
    try {
      return await this.#req('GET', '/version', S.versionSchema, { call });
    } catch (e) {
      if (e instanceof NotFoundError) return 1;
      throw e;
    }
  }

  /** GET /markets: one page of market records. @throws ValidationError on a malformed record. */
  async markets(cursor: string = FIRST_CURSOR, call?: CallOptions & { limit?: number }): Promise<Page<ClobMarket>> {
    const p = await this.#req('GET', '/markets', S.cursorPageSchema(S.clobMarketSchema), {
      query: { next_cursor: cursor, limit: call?.limit },
      call,
    });
    return { data: p.data.map(toMarket), nextCursor: p.next_cursor };
  }

  /** Every market, following next_cursor until END_CURSOR. */
  marketsAll(call?: CallOptions & { limit?: number }): AsyncGenerator<ClobMarket> {
    return paginate((c) => this.markets(c, call));
  }

  /** GET /sampling-markets: markets in the rewards program (the paper exchange: active ones). */
  async samplingMarkets(cursor: string = FIRST_CURSOR, call?: CallOptions): Promise<Page<ClobMarket>> {
    const p = await this.#req('GET', '/sampling-markets', S.cursorPageSchema(S.clobMarketSchema), {
      query: { next_cursor: cursor },
      call,
    });
    return { data: p.data.map(toMarket), nextCursor: p.next_cursor };
  }

  /** GET /simplified-markets. */
  async simplifiedMarkets(cursor: string = FIRST_CURSOR, call?: CallOptions): Promise<Page<SimplifiedMarket>> {
    const p = await this.#req('GET', '/simplified-markets', S.cursorPageSchema(S.simplifiedMarketSchema), {
      query: { next_cursor: cursor },
      call,
    });
    return { data: p.data.map(toSimplified), nextCursor: p.next_cursor };
  }

  /** GET /sampling-simplified-markets. */
  async samplingSimplifiedMarkets(cursor: string = FIRST_CURSOR, call?: CallOptions): Promise<Page<SimplifiedMarket>> {
    const p = await this.#req('GET', '/sampling-simplified-markets', S.cursorPageSchema(S.simplifiedMarketSchema), {
      query: { next_cursor: cursor },
      call,
    });
    return { data: p.data.map(toSimplified), nextCursor: p.next_cursor };
  }

  /** GET /markets/{condition_id}. @throws NotFoundError for an unknown market. */
  async market(conditionId: string, call?: CallOptions): Promise<ClobMarket> {
    return toMarket(
      await this.#req('GET', `/markets/${encodeURIComponent(conditionId)}`, S.clobMarketSchema, { call }),
    );
  }

  /** GET /market?condition_id= (the spec's form of the same record). @throws NotFoundError. */
  async marketByQuery(conditionId: string, call?: CallOptions): Promise<ClobMarket> {
    return toMarket(
      await this.#req('GET', '/market', S.clobMarketSchema, { query: { condition_id: conditionId }, call }),
    );
  }

  // ---- book and prices ------------------------------------------------------------------------

  /** GET /book. Levels best first. @throws NotFoundError when no book exists for the token. */
  async book(tokenId: string, call?: CallOptions): Promise<OrderBook> {
    return toBook(await this.#req('GET', '/book', S.bookSchema, { query: { token_id: tokenId }, call }));
  }

  /**
   * Several books in one request: POST /books (default, as the public client), or GET
   * /books?token_ids=a,b with `via: 'GET'`. Same order as `tokenIds`.
   * @throws NotFoundError when one token has no book.
   */
  async books(tokenIds: readonly string[], call?: CallOptions & { via?: 'POST' | 'GET' }): Promise<OrderBook[]> {
    const r =
      call?.via === 'GET'
        ? await this.#req('GET', '/books', S.bookSchema.array(), { query: { token_ids: tokenIds.join(',') }, call })
        : await this.#req('POST', '/books', S.bookSchema.array(), {
            body: tokenIds.map((t) => ({ token_id: t })),
            call,
          });
    return r.map(toBook);
  }

  /** GET /midpoint, in pips (a half pip when the mid falls between two). @throws NotFoundError without a two-sided book. */
  async midpoint(tokenId: string, call?: CallOptions): Promise<number> {
    return parseMidPips(
      (await this.#req('GET', '/midpoint', S.midpointSchema, { query: { token_id: tokenId }, call })).mid,
    );
  }

  /** POST /midpoints: token → mid in pips. */
  async midpoints(tokenIds: readonly string[], call?: CallOptions): Promise<Map<TokenId, number>> {
    const r = await this.#req('POST', '/midpoints', S.midpointsSchema, {
      body: tokenIds.map((t) => ({ token_id: t })),
      call,
    });
    return new Map(Object.entries(r).map(([k, v]) => [k as TokenId, parseMidPips(v)]));
  }

  /** GET /price: the best bid (side BUY) or ask (side SELL), pips. @throws NotFoundError when that side is empty. */
  async price(tokenId: string, side: Side, call?: CallOptions): Promise<Pips> {
    return pips((await this.#req('GET', '/price', S.priceSchema, { query: { token_id: tokenId, side }, call })).price);
  }

  /** POST /prices: token → {BUY?: best bid, SELL?: best ask}, pips. */
  async prices(
    req: ReadonlyArray<{ tokenId: string; side?: Side }>,
    call?: CallOptions,
  ): Promise<Map<TokenId, { BUY?: Pips; SELL?: Pips }>> {
    const r = await this.#req('POST', '/prices', S.pricesSchema, {
      body: req.map((x) => ({ token_id: x.tokenId, ...(x.side ? { side: x.side } : {}) })),
      call,
    });
    return toPrices(r);
  }

  /** GET /spread, pips. @throws NotFoundError without a two-sided book. */
  async spread(tokenId: string, call?: CallOptions): Promise<Pips> {
    return pips((await this.#req('GET', '/spread', S.spreadSchema, { query: { token_id: tokenId }, call })).spread);
  }

  /** POST /spreads: token → spread, pips. */
  async spreads(tokenIds: readonly string[], call?: CallOptions): Promise<Map<TokenId, Pips>> {
    const r = await this.#req('POST', '/spreads', S.spreadsSchema, {
      body: tokenIds.map((t) => ({ token_id: t })),
      call,
    });
    return new Map(Object.entries(r).map(([k, v]) => [k as TokenId, pips(v)]));
  }

  /** GET /last-trade-price: price (pips) and taker side ('' when no trade yet: price is then the venue's 0.5 default). */
  async lastTradePrice(tokenId: string, call?: CallOptions): Promise<{ price: Pips; side: Side | '' }> {
    const r = await this.#req('GET', '/last-trade-price', S.lastTradePriceSchema, {
      query: { token_id: tokenId },
      call,
    });
    return { price: pips(r.price), side: r.side === 'BUY' || r.side === 'SELL' ? r.side : '' };
  }

  /** POST /last-trades-prices: the tokens that traded (a token that never did is left out, as the venue does). */
  async lastTradesPrices(
    tokenIds: readonly string[],
    call?: CallOptions,
  ): Promise<Array<{ tokenId: TokenId; price: Pips; side: Side | '' }>> {
    const r = await this.#req('POST', '/last-trades-prices', S.lastTradesPricesSchema, {
      body: tokenIds.map((t) => ({ token_id: t })),
      call,
    });
    return r.map(toLastTrade);
  }

  /** GET /tick-size. @throws ValidationError when the venue answers something that is not a tick. */
  async tickSize(tokenId: string, call?: CallOptions): Promise<TickSize> {
    const r = await this.#req('GET', '/tick-size', S.tickSizeSchema, { query: { token_id: tokenId }, call });
    const t = tickOf(r.minimum_tick_size);
    if (t === undefined) throw new ValidationError(`GET /tick-size: ${r.minimum_tick_size} is not a venue tick size`);
    return t;
  }

  /** GET /neg-risk: whether orders on the token sign for the neg-risk exchange. */
  async negRisk(tokenId: string, call?: CallOptions): Promise<boolean> {
    return (await this.#req('GET', '/neg-risk', S.negRiskSchema, { query: { token_id: tokenId }, call })).neg_risk;
  }

  /** GET /fee-rate: the market's base fee, bps. */
  /**
   * GET /clob-markets/{condition_id} (CLOB V2): tick, neg-risk flag and taker fee rate of a market,
   * what V2 orders are built from.
   * @throws NotFoundError (unknown market), ValidationError (malformed answer) as any request.
   */
  clobMarket(conditionId: string, call?: CallOptions): Promise<S.ClobMarketInfo> {
    return this.#req('GET', `/clob-markets/${encodeURIComponent(conditionId)}`, S.clobMarketInfoSchema, { call });
  }

  async feeRate(tokenId: string, call?: CallOptions): Promise<number> {
    return (await this.#req('GET', '/fee-rate', S.feeRateSchema, { query: { token_id: tokenId }, call })).base_fee;
  }

  // ---- API keys ---------------------------------------------------------------------------------

  /** POST /auth/api-key (L1). @throws ValidationError when the key exists (derive it). */
  createApiKey(nonce = 0, call?: CallOptions): Promise<ApiCredentials> {
    return this.#req('POST', '/auth/api-key', S.apiCredsSchema, { auth: 'l1', nonce, call });
  }

  /** GET /auth/derive-api-key (L1): the same credentials for the same nonce. */
  deriveApiKey(nonce = 0, call?: CallOptions): Promise<ApiCredentials> {
    return this.#req('GET', '/auth/derive-api-key', S.apiCredsSchema, { auth: 'l1', nonce, call });
  }

  /** GET /auth/api-key (L2): the key in use. */
  async getApiKey(call?: CallOptions): Promise<ApiKeyInfo> {
    const r = await this.#req('GET', '/auth/api-key', S.apiKeyInfoSchema, { auth: 'l2', call });
    return { apiKey: r.apiKey, address: r.address, nonce: r.nonce, createdAt: r.created_at };
  }

  /** GET /auth/api-keys (L2): every key of the wallet. */
  async apiKeys(call?: CallOptions): Promise<string[]> {
    return (await this.#req('GET', '/auth/api-keys', S.apiKeysSchema, { auth: 'l2', call })).apiKeys;
  }

  /** DELETE /auth/api-key (L2): revoke the key in use. Later L2 calls with it fail with AuthError. */
  async deleteApiKey(call?: CallOptions): Promise<void> {
    await this.#req('DELETE', '/auth/api-key', S.okSchema, { auth: 'l2', idempotent: false, call });
  }

  // ---- orders -----------------------------------------------------------------------------------

  /**
   * POST /order: post one signed order. Resent byte for byte after an ambiguous failure; a resend
   * refused as a duplicate is resolved by id (`resolved: true`).
   * @throws OrderRejectedError with the venue's code (INVALID_ORDER_MIN_SIZE, ...); ValidationError
   *   on a bad option; TimeoutError / NetworkError when the outcome stays unknown after the
   *   retries (then call `resolveOrder(order.id)`, never re-sign); AuthError; RateLimitError.
   */
  async postOrder(order: SignedOrderLike, opts: PostOrderOptions = {}): Promise<PostOrderResult> {
    const body = orderBody(order, opts, this.#owner());
    const seen = { ambiguous: false };
    const observer: RequestObserver = { onRetry: noteRetry.bind(seen) };
    let r: S.WireOrderResponse;
    try {
      const bodyJson = orderBodyJson(body);
      r = await this.#req('POST', '/order', S.orderResponseSchema, {
        auth: 'l2',
        body,
        ...(bodyJson !== undefined ? { bodyJson } : {}),
        idempotent: true,
        call: opts,
        observer,
      });
    } catch (err) {
      if (seen.ambiguous && err instanceof OrderRejectedError && err.code === 'INVALID_ORDER_DUPLICATED') {
        const found = await this.resolveOrder(order.id, opts);
        if (found !== undefined) return resolvedPost(found);
      }
      throw err;
    }
    if (!r.success) {
      const f = refusalOf(r, order.id);
      const code = isVenueCode(f.code) ? f.code : 'INVALID_ORDER_ERROR';
      throw new OrderRejectedError(code, `POST /order: ${f.code}: ${f.message}`, { details: { orderID: f.orderId } });
    }
    return accepted(r, order.id);
  }

  /**
   * POST /orders: post up to 15 signed orders in one request (one budget slot). Returns one result
   * per entry, in order; a refused entry is `{ok: false, code}` and never throws. Entries refused
   * as duplicates after an ambiguous failure are resolved by id.
   * @throws ValidationError for an empty batch or more than 15 orders; TimeoutError /
   *   NetworkError when the outcome stays unknown (resolve the ids); AuthError; RateLimitError.
   */
  async postOrders(
    orders: ReadonlyArray<{ order: SignedOrderLike } & Omit<PostOrderOptions, 'signal'>>,
    call?: CallOptions,
  ): Promise<BatchEntryResult[]> {
    if (orders.length === 0) throw new ValidationError('postOrders: empty batch');
    if (orders.length > MAX_BATCH_ORDERS)
      throw new ValidationError(`postOrders: ${orders.length} orders, at most ${MAX_BATCH_ORDERS} per request`);
    const n = orders.length;
    const body: Array<Record<string, unknown>> = new Array(n);
    let bodyJson: string | undefined = '[';
    for (let i = 0; i < n; i++) {
      const e = orders[i]!;
      const b = orderBody(e.order, e, this.#owner());
      body[i] = b;
      if (bodyJson === undefined) continue;
      const j = orderBodyJson(b);
      bodyJson = j === undefined ? undefined : bodyJson + (i === 0 ? '' : ',') + j;
    }
    if (bodyJson !== undefined) bodyJson += ']';
    const seen = { ambiguous: false };
    const observer: RequestObserver = { onRetry: noteRetry.bind(seen) };
    const r = await this.#req('POST', '/orders', S.orderResponsesSchema, {
      auth: 'l2',
      body,
      bodyJson,
      idempotent: true,
      call,
      observer,
    });
    if (r.length !== orders.length)
      throw new ValidationError(`POST /orders: ${r.length} results for ${orders.length} orders`);
    const out: BatchEntryResult[] = [];
    for (let i = 0; i < r.length; i++) {
      const e = r[i]!;
      const id = orders[i]!.order.id;
      if (e.success) {
        out.push({ ok: true, ...accepted(e, id) });
        continue;
      }
      const f = refusalOf(e, id);
      if (seen.ambiguous && f.code === 'INVALID_ORDER_DUPLICATED') {
        const found = await this.resolveOrder(id, call);
        if (found !== undefined) {
          out.push({ ok: true, ...resolvedPost(found) });
          continue;
        }
      }
      out.push({ ok: false, orderId: f.orderId, code: f.code, message: f.message });
    }
    return out;
  }

  /** DELETE /order. An id that is no live order of ours (unknown, someone else's, done) is in `notCanceled` with the venue's reason (the public service answers 200). */
  async cancelOrder(orderId: string, call?: CallOptions): Promise<CancelResult> {
    return toCancel(
      await this.#req('DELETE', '/order', S.cancelResponseSchema, { auth: 'l2', body: { orderID: orderId }, call }),
    );
  }

  /** DELETE /orders: cancel many by id in one request; unknown ids land in `notCanceled`. */
  cancelOrders(orderIds: readonly string[], call?: CallOptions): Promise<CancelResult> {
    // not `async`: the request is handed over synchronously either way, and a plain function can be
    // inlined into its (hot) caller; a synchronous throw still becomes a rejection
    try {
      return this.#req('DELETE', '/orders', S.cancelResponseSchema, {
        auth: 'l2',
        body: Array.isArray(orderIds) ? orderIds.slice() : [...orderIds],
        call,
      }).then(toCancel);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** DELETE /cancel-all: cancel every open order of the caller. */
  async cancelAll(call?: CallOptions): Promise<CancelResult> {
    return toCancel(await this.#req('DELETE', '/cancel-all', S.cancelResponseSchema, { auth: 'l2', call }));
  }

  /** DELETE /cancel-market-orders: cancel the caller's orders in one market and/or token. */
  async cancelMarketOrders(filter: { market?: string; assetId?: string }, call?: CallOptions): Promise<CancelResult> {
    const body = {
      ...(filter.market ? { market: filter.market } : {}),
      ...(filter.assetId ? { asset_id: filter.assetId } : {}),
    };
    return toCancel(
      await this.#req('DELETE', '/cancel-market-orders', S.cancelResponseSchema, { auth: 'l2', body, call }),
    );
  }

  /** GET /data/order/{id}: one of the caller's orders (open or not). @throws NotFoundError. */
  async getOrder(orderId: string, call?: CallOptions): Promise<OpenOrder> {
    return toOpenOrder(
      await this.#req('GET', `/data/order/${encodeURIComponent(orderId)}`, S.openOrderSchema, { auth: 'l2', call }),
    );
  }

  /** GET /order?id= (the spec's form of getOrder). @throws NotFoundError. */
  async getOrderByQuery(orderId: string, call?: CallOptions): Promise<OpenOrder> {
    return toOpenOrder(
      await this.#req('GET', '/order', S.openOrderSchema, { auth: 'l2', query: { id: orderId }, call }),
    );
  }

  /**
   * Resolve an order whose POST outcome is unknown: its record, or undefined when the venue never
   * got it (then the same signed bytes may be posted again, never a re-signed order).
   * @throws NetworkError / TimeoutError / AuthError / RateLimitError as the transport.
   */
  async resolveOrder(orderId: string, call?: CallOptions): Promise<OpenOrder | undefined> {
    try {
      return await this.getOrder(orderId, call);
    } catch (err) {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
  }

  /** GET /data/orders: one page of the caller's open orders. */
  async openOrders(
    filter: OpenOrdersFilter = {},
    cursor: string = FIRST_CURSOR,
    call?: CallOptions,
  ): Promise<Page<OpenOrder>> {
    const p = await this.#req('GET', '/data/orders', S.cursorPageSchema(S.openOrderSchema), {
      auth: 'l2',
      query: { ...openOrdersQuery(filter), next_cursor: cursor },
      call,
    });
    return { data: p.data.map(toOpenOrder), nextCursor: p.next_cursor };
  }

  /** Every open order: `for await (const o of clob.openOrdersAll())`, following next_cursor to END_CURSOR. */
  openOrdersAll(filter: OpenOrdersFilter = {}, call?: CallOptions): AsyncGenerator<OpenOrder> {
    return paginate((c) => this.openOrders(filter, c, call));
  }

  /** GET /orders: the spec's open-orders endpoint (same records and pages as /data/orders). */
  async orders(
    filter: OpenOrdersFilter = {},
    cursor: string = FIRST_CURSOR,
    call?: CallOptions,
  ): Promise<Page<OpenOrder>> {
    const p = await this.#req('GET', '/orders', S.cursorPageSchema(S.openOrderSchema), {
      auth: 'l2',
      query: { ...openOrdersQuery(filter), next_cursor: cursor },
      call,
    });
    return { data: p.data.map(toOpenOrder), nextCursor: p.next_cursor };
  }

  /** GET /data/trades: one page of the caller's trades (as taker or maker). */
  async trades(filter: TradesFilter = {}, cursor: string = FIRST_CURSOR, call?: CallOptions): Promise<Page<Trade>> {
    const p = await this.#req('GET', '/data/trades', S.cursorPageSchema(S.tradeSchema), {
      auth: 'l2',
      query: { ...tradeQuery(filter), next_cursor: cursor },
      call,
    });
    return { data: p.data.map(toTrade), nextCursor: p.next_cursor };
  }

  /** Every trade matching the filter, following next_cursor. */
  tradesAll(filter: TradesFilter = {}, call?: CallOptions): AsyncGenerator<Trade> {
    return paginate((c) => this.trades(filter, c, call));
  }

  /** GET /trades: the spec's trade history (same records and pages as /data/trades). */
  async tradeHistory(
    filter: TradesFilter = {},
    cursor: string = FIRST_CURSOR,
    call?: CallOptions,
  ): Promise<Page<Trade>> {
    const p = await this.#req('GET', '/trades', S.cursorPageSchema(S.tradeSchema), {
      auth: 'l2',
      query: { ...tradeQuery(filter), next_cursor: cursor },
      call,
    });
    return { data: p.data.map(toTrade), nextCursor: p.next_cursor };
  }

  // ---- account ----------------------------------------------------------------------------------

  /**
   * GET /balances: collateral and token balances (available + reserved), micro, of the key's address
   * or of `account.makerAddress` (a proxy / Safe wallet's funder).
   */
  async balances(account: AccountQuery = {}, call?: CallOptions): Promise<Balances> {
    const r = await this.#req('GET', '/balances', S.balancesSchema, {
      auth: 'l2',
      query: { maker_address: account.makerAddress?.toLowerCase() },
      call,
    });
    return toBalances(r);
  }

  /**
   * GET /positions: held tokens with cost, realized PnL and mark (signed micro-units), of the key's
   * address or of `account.makerAddress` (a proxy / Safe wallet's funder).
   */
  async positions(account: AccountQuery = {}, call?: CallOptions): Promise<Position[]> {
    const r = await this.#req('GET', '/positions', S.positionsSchema, {
      auth: 'l2',
      query: { maker_address: account.makerAddress?.toLowerCase() },
      call,
    });
    return r.map(toPosition);
  }

  /** GET /balance-allowance: the venue's raw balance of collateral or of one token, micro. */
  async balanceAllowance(
    q: { assetType: 'COLLATERAL' | 'CONDITIONAL'; tokenId?: string },
    call?: CallOptions,
  ): Promise<BalanceAllowance> {
    const r = await this.#req('GET', '/balance-allowance', S.balanceAllowanceSchema, {
      auth: 'l2',
      query: { asset_type: q.assetType, token_id: q.tokenId },
      call,
    });
    return { balance: parseRawAmount(r.balance), allowance: r.allowance };
  }

  /** GET /balance-allowance/update: ask the venue to refresh its cached balance. */
  async updateBalanceAllowance(
    q: { assetType: 'COLLATERAL' | 'CONDITIONAL'; tokenId?: string },
    call?: CallOptions,
  ): Promise<void> {
    await this.#req('GET', '/balance-allowance/update', S.okSchema, {
      auth: 'l2',
      query: { asset_type: q.assetType, token_id: q.tokenId },
      call,
    });
  }

  /**
   * POST /v1/heartbeats: the dead-man switch. Chain each call with the previous id (null first);
   * once started, 10 s without one cancels all the caller's orders.
   */
  async heartbeat(previousId: string | null, call?: CallOptions): Promise<string> {
    return (
      await this.#req('POST', '/v1/heartbeats', S.heartbeatSchema, {
        auth: 'l2',
        body: { heartbeat_id: previousId },
        call,
      })
    ).heartbeat_id;
  }
}
