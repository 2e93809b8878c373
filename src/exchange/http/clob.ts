/**
 * The CLOB API of the paper exchange (spec 4.1 plus what public clients of the venue call), mounted
 * under /clob. Public market data needs no credential; trading and account routes need L2 or
 * Bearer auth; key creation needs L1. The account's read routes (open orders, one order, trades,
 * balances, positions, balance-allowance, notifications, closed-only status) also take a read-only
 * key as Bearer (http/readonly-keys.ts). Responses are bare records, as public clients expect.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { formatAmount, formatPrice, PRICE_SCALE } from '../../core/units.ts';
import { orderFromWire } from '../../api/signing/order.ts';
import { orderFromWireV2, wireProtocolOf } from '../../api/signing/order-v2.ts';

/** The neg-risk adapter on Polygon (the public service's contracts page). */
const NEG_RISK_ADAPTER = '0xd91E80cF2E7be2e162c6513ceD06f1dD0dA35296';
import { ValidationError } from '../../core/errors.ts';
import { type ApiKeyRecord, MAX_API_KEYS } from '../accounts/keys.ts';
import { worldRecord } from '../identity.ts';
import { clobMarketRecord } from '../markets.ts';
import {
  NOT_CANCELED_REASON,
  type MarketEntry,
  type PaperExchange,
  type PlaceOutcome,
  type PlaceRequest,
} from '../exchange.ts';
import { clobRewards } from '../rewards/wire.ts';
import type { OrderState } from '../matching/types.ts';
import { avgPrice6, unrealizedAt } from '../accounts/positions.ts';
import { MAX_BATCH_ORDERS, MAX_CANCEL_IDS } from '../../core/rate-limits.ts';
import { authenticate, authenticateL1, authenticateRead, type AuthOptions, type Reader } from './auth.ts';
import { cursorPage, parseWith, qRequired, qString, type Query } from './body.ts';
import { badRequest, envelope, HttpError, notFound } from './errors.ts';
import { formatMid, renderBook, renderOrder, renderTrade } from './render.ts';
import { builderRoutes } from './builder.ts';
import { rewardRoutes } from './rewards.ts';
import { v2Routes } from './v2-routes.ts';
import { NO_SIGNER_GATE, type SignerGate } from './signer-limits.ts';
import type { SignerRequest } from '../../core/signer-limits.ts';

/** Most orders in one POST /orders (src/core/rate-limits.ts). */
export const MAX_BATCH = MAX_BATCH_ORDERS;

const postOrderSchema = z.object({
  order: z.unknown(),
  owner: z.string().min(1).max(100),
  orderType: z.enum(['GTC', 'GTD', 'FOK', 'FAK']).default('GTC'),
  postOnly: z.boolean().optional(),
  deferExec: z.boolean().optional(),
  builder: z.string().max(100).optional(),
});
const tokenListSchema = z
  .array(z.object({ token_id: z.string().min(1).max(100), side: z.enum(['BUY', 'SELL']).optional() }))
  .max(500);
const cancelOneSchema = z.object({ orderID: z.string().min(1).max(100) });
const cancelManySchema = z.array(z.string().min(1).max(100)).max(MAX_CANCEL_IDS);
const cancelMarketSchema = z
  .object({ market: z.string().max(100).optional(), asset_id: z.string().max(100).optional() })
  .nullish()
  .transform((v) => v ?? {});
const heartbeatSchema = z
  .object({ heartbeat_id: z.string().max(100).nullish() })
  .nullish()
  .transform((v) => v ?? {});

/**
 * The protocol of a wire order by its shape: `wireProtocolOf`'s answer, and for a malformed order
 * (neither shape whole) 2 when it has a V2-only field (timestamp, metadata, builder) and no V1-only
 * one (nonce, feeRateBps), else 1: the strict parser of that protocol then names what is wrong.
 */
function wireShapeOf(order: unknown): 1 | 2 {
  const p = wireProtocolOf(order);
  if (p !== undefined) return p;
  if (typeof order !== 'object' || order === null) return 1;
  const has = (f: string) => f in order;
  return (has('timestamp') || has('metadata') || has('builder')) && !has('nonce') && !has('feeRateBps') ? 2 : 1;
}

/**
 * The order request of a `POST /order` body (or one entry of `POST /orders`): a V1 or a V2 order,
 * told apart by its wire shape (order-wire.ts), parsed strictly. `deferExec` (the public clients
 * send it, false by default) is accepted and changes nothing: every order executes at once.
 * `maxTimestampAheadMs`: how far ahead of the clock a V2 order's signed timestamp may be.
 */
function parseOrderRequest(body: unknown, maxTimestampAheadMs: number): PlaceRequest {
  // the spec's unsigned form ({tokenID, price, size, side}): the exchange cannot sign for the caller,
  // so it says what to send instead of naming a missing field (trial 24 F6)
  if (body !== null && typeof body === 'object' && !('order' in body) && 'tokenID' in body)
    throw badRequest(
      'invalid order request: an order is signed by its maker: send {order: {salt, maker, signer, taker, tokenId, makerAmount, takerAmount, side, signatureType, signature, ...}, owner, orderType} (the public clients build it; GET /version says the order protocol)',
    );
  const b = parseWith(postOrderSchema, body, 'order request');
  let parsed: PlaceRequest;
  const common = {
    owner: b.owner,
    orderType: b.orderType,
    postOnly: b.postOnly ?? false,
    ...(b.builder ? { builder: b.builder } : {}),
  };
  try {
    if (wireShapeOf(b.order) === 2) {
      const v2 = orderFromWireV2(b.order);
      parsed = {
        protocol: 2,
        order: v2.order,
        expiration: v2.expiration,
        signature: v2.signature,
        maxTimestampAheadMs,
        ...common,
      };
    } else {
      const v1 = orderFromWire(b.order);
      parsed = { order: v1.order, signature: v1.signature, ...common };
    }
  } catch (e) {
    if (e instanceof ValidationError) throw badRequest(`invalid order: ${e.message}`);
    throw e;
  }
  if (b.postOnly === true && (b.orderType === 'FOK' || b.orderType === 'FAK'))
    throw new HttpError(
      400,
      'INVALID_POST_ONLY_ORDER_TYPE',
      'invalid post-only order: only GTC and GTD order types are allowed',
    );
  return parsed;
}

/** An order the venue could not read, refused as every order refusal is (`errorMsg`, `orderID`). */
function refusalOf(e: HttpError): Record<string, unknown> {
  return envelope(e.code, e.message, { errorMsg: e.message, orderID: '', status: '' });
}

function orderResponse(r: PlaceOutcome): Record<string, unknown> {
  if (r.ok)
    return {
      success: true,
      errorMsg: '',
      orderID: r.orderID,
      status: r.status,
      makingAmount: formatAmount(r.makingAmount),
      takingAmount: formatAmount(r.takingAmount),
      transactionsHashes: r.transactionsHashes,
      tradeIDs: r.tradeIds,
    };
  return envelope(r.code, r.message, { errorMsg: r.message, orderID: r.orderID, status: '' });
}

export interface ClobRouteOptions {
  auth: AuthOptions;
  /** The per-signer order and cancel buckets (http/signer-limits.ts); none when absent. */
  signer?: SignerGate | undefined;
}

const ONE_ORDER: SignerRequest = { bucket: 'order', cost: 1, postCharged: false };
const ONE_CANCEL: SignerRequest = { bucket: 'cancel', cost: 1, postCharged: false };
const CANCEL_ALL: SignerRequest = { bucket: 'cancel', cost: 1, postCharged: true };

export function clobRoutes(ex: PaperExchange, opts: ClobRouteOptions) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    const l2 = (req: FastifyRequest): ApiKeyRecord => authenticate(ex, req, opts.auth);
    /** An account read: a full key, or a read-only key as Bearer. */
    const reader = (req: FastifyRequest): Reader => authenticateRead(ex, req, opts.auth);
    const signer = opts.signer ?? NO_SIGNER_GATE;

    const tokenOf = (tokenId: string | undefined) => {
      if (tokenId === undefined || !/^\d{1,78}$/.test(tokenId)) throw badRequest('Invalid token id');
      const found = ex.marketOfToken(tokenId);
      if (found === undefined) throw notFound('No orderbook exists for the requested token id');
      return found;
    };
    const bookOf = (tokenId: string | undefined) => {
      tokenOf(tokenId);
      return renderBook(ex, ex.engine.book(tokenId as string), ex.clock.now());
    };
    const bba = (tokenId: string) => ex.engine.bestBidAsk(tokenId);
    const midOf = (tokenId: string): string => {
      const { bid, ask } = bba(tokenId);
      if (bid === null || ask === null) {
        const last = ex.lastTradePrice(tokenId);
        if (last) return formatPrice(last.price);
        throw notFound('No orderbook exists for the requested token id: the book has no two-sided quote');
      }
      return formatMid((bid + ask) / 2);
    };
    const priceOf = (tokenId: string, side: string): string => {
      const { bid, ask } = bba(tokenId);
      const p = side === 'BUY' ? bid : ask;
      if (p === null) throw notFound(`no ${side === 'BUY' ? 'bids' : 'asks'} for the requested token id`);
      return formatPrice(p);
    };
    const spreadOf = (tokenId: string): string => {
      const { bid, ask } = bba(tokenId);
      if (bid === null || ask === null) throw notFound('the book has no two-sided quote');
      return formatPrice(ask - bid);
    };

    // what the public V2 client calls besides: /version, /clob-markets, builder keys and fees, ...
    await app.register(v2Routes(ex, opts));
    await app.register(builderRoutes(ex, opts));
    await app.register(rewardRoutes(ex, opts));

    app.get('/', async () => 'OK');
    app.get('/time', async () => Math.floor(ex.serverNow() / 1000));
    // an mmkit extension (the public service has no such route): which world this is
    app.get('/world', async () => {
      const w = ex.opts.identity;
      if (w === undefined) throw notFound('this exchange has no world identity');
      return worldRecord(w);
    });

    // ---- markets ------------------------------------------------------------------------------
    const record = (e: MarketEntry) =>
      clobMarketRecord(e.meta, ex.marketState(e), clobRewards(ex.rewards.configOf(e.meta.conditionId), ex.rewardAsset));
    const marketRecords = () => ex.listMarkets().map(record);
    /** The markets with rewards (the public service's "sampling" markets): active ones with a reward config. */
    const samplingRecords = () =>
      ex
        .listMarkets()
        .filter((e) => e.state.status === 'active' && ex.rewards.configOf(e.meta.conditionId) !== null)
        .map(record);
    app.get('/markets', async (req) => cursorPage(marketRecords(), req.query as Query, (m) => m, 10, 1000));
    app.get('/sampling-markets', async (req) => cursorPage(samplingRecords(), req.query as Query, (m) => m, 10, 1000));
    const simplified = (m: Record<string, unknown>) => ({
      condition_id: m.condition_id,
      tokens: m.tokens,
      rewards: m.rewards,
      active: m.active,
      closed: m.closed,
      archived: m.archived,
      accepting_orders: m.accepting_orders,
    });
    app.get('/simplified-markets', async (req) =>
      cursorPage(marketRecords(), req.query as Query, simplified, 10, 1000),
    );
    app.get('/sampling-simplified-markets', async (req) =>
      cursorPage(samplingRecords(), req.query as Query, simplified, 10, 1000),
    );
    const oneMarket = (cid: string | undefined) => {
      if (cid === undefined) throw badRequest('missing condition_id');
      const e = ex.market(cid);
      if (e === undefined) throw notFound('market not found');
      return record(e);
    };
    app.get<{ Params: { condition_id: string } }>('/markets/:condition_id', async (req) =>
      oneMarket(req.params.condition_id),
    );
    app.get('/market', async (req) =>
      oneMarket(qString(req.query as Query, 'condition_id') ?? qString(req.query as Query, 'market')),
    );

    // ---- book and prices ----------------------------------------------------------------------
    app.get('/book', async (req) => bookOf(qString(req.query as Query, 'token_id')));
    app.post('/books', async (req) => parseWith(tokenListSchema, req.body, 'body').map((t) => bookOf(t.token_id)));
    app.get('/books', async (req) =>
      qRequired(req.query as Query, 'token_ids')
        .split(',')
        .slice(0, 500)
        .map((t) => bookOf(t)),
    );
    app.get('/midpoint', async (req) => {
      const t = qString(req.query as Query, 'token_id');
      tokenOf(t);
      return { mid: midOf(t as string) };
    });
    app.post('/midpoints', async (req) => {
      const out: Record<string, string> = {};
      for (const t of parseWith(tokenListSchema, req.body, 'body')) {
        tokenOf(t.token_id);
        out[t.token_id] = midOf(t.token_id);
      }
      return out;
    });
    app.get('/price', async (req) => {
      const q = req.query as Query;
      const t = qString(q, 'token_id');
      const side = qRequired(q, 'side').toUpperCase();
      if (side !== 'BUY' && side !== 'SELL') throw badRequest('side must be BUY or SELL');
      tokenOf(t);
      return { price: priceOf(t as string, side) };
    });
    app.post('/prices', async (req) => {
      const out: Record<string, Record<string, string>> = {};
      for (const t of parseWith(tokenListSchema, req.body, 'body')) {
        tokenOf(t.token_id);
        const { bid, ask } = bba(t.token_id);
        const entry: Record<string, string> = (out[t.token_id] ??= {});
        if ((t.side ?? 'BUY') === 'BUY' || t.side === undefined) if (bid !== null) entry.BUY = formatPrice(bid);
        if ((t.side ?? 'SELL') === 'SELL' || t.side === undefined) if (ask !== null) entry.SELL = formatPrice(ask);
      }
      return out;
    });
    app.get('/spread', async (req) => {
      const t = qString(req.query as Query, 'token_id');
      tokenOf(t);
      return { spread: spreadOf(t as string) };
    });
    app.post('/spreads', async (req) => {
      const out: Record<string, string> = {};
      for (const t of parseWith(tokenListSchema, req.body, 'body')) {
        tokenOf(t.token_id);
        out[t.token_id] = spreadOf(t.token_id);
      }
      return out;
    });
    // a token that never traded: the public service's single read answers its sentinel, price "0.5"
    // with side "" (the side tells "no trade" from a trade at 0.5), and its batch read leaves the
    // token out (clients match the answers by token_id); /book says "" for it
    const lastTrade = (tokenId: string) => {
      const l = ex.lastTradePrice(tokenId);
      return l ? { price: formatPrice(l.price), side: l.side } : { price: '0.5', side: '' };
    };
    app.get('/last-trade-price', async (req) => {
      const t = qString(req.query as Query, 'token_id');
      tokenOf(t);
      return lastTrade(t as string);
    });
    app.post('/last-trades-prices', async (req) =>
      parseWith(tokenListSchema, req.body, 'body').flatMap((t) => {
        tokenOf(t.token_id);
        const l = ex.lastTradePrice(t.token_id);
        return l ? [{ token_id: t.token_id, price: formatPrice(l.price), side: l.side }] : [];
      }),
    );
    app.get('/tick-size', async (req) => {
      const t = qString(req.query as Query, 'token_id');
      return { minimum_tick_size: Number(tokenOf(t).entry.state.tick) };
    });
    app.get('/neg-risk', async (req) => {
      const t = qString(req.query as Query, 'token_id');
      return { neg_risk: tokenOf(t).entry.meta.negRisk };
    });
    app.get('/fee-rate', async (req) => {
      const q = req.query as Query;
      const t = qString(q, 'token_id');
      return { base_fee: tokenOf(t).entry.meta.feeRateBps };
    });

    // ---- API keys -----------------------------------------------------------------------------
    app.post('/auth/api-key', async (req) => {
      const { address, nonce } = authenticateL1(ex, req, opts.auth);
      if (ex.deriveApiKey(address, nonce) === undefined && ex.keys.countOf(address) >= MAX_API_KEYS)
        throw badRequest(
          `Could not create api key: this address holds ${MAX_API_KEYS} already (delete one with DELETE /auth/api-key, or derive an existing one)`,
          'API_KEY_LIMIT',
        );
      const rec = ex.createApiKey(address, nonce);
      if (rec === null)
        throw badRequest(
          'Could not create api key: one already exists for this address and nonce (derive it with GET /auth/derive-api-key)',
          'API_KEY_EXISTS',
        );
      return { apiKey: rec.apiKey, secret: rec.secret, passphrase: rec.passphrase };
    });
    app.get('/auth/derive-api-key', async (req) => {
      const { address, nonce } = authenticateL1(ex, req, opts.auth);
      const rec = ex.deriveApiKey(address, nonce);
      // the public service: 400 "Could not derive api key!" when the key was never created
      if (rec === undefined)
        throw badRequest(
          'Could not derive api key!: none exists for this address and nonce (create it with POST /auth/api-key)',
        );
      return { apiKey: rec.apiKey, secret: rec.secret, passphrase: rec.passphrase };
    });
    app.get('/auth/api-key', async (req) => {
      const k = l2(req);
      return { apiKey: k.apiKey, address: k.address, nonce: k.nonce, created_at: new Date(k.createdAt).toISOString() };
    });
    // the paper exchange sends no notifications (fills and cancels go through the user channel):
    // the list is always empty, and dropping some is a no-op, as public clients expect the routes
    app.get('/notifications', async (req) => {
      reader(req);
      return [];
    });
    app.delete('/notifications', async (req) => {
      l2(req);
      return 'OK';
    });
    // the account is never restricted to closing positions here
    app.get('/auth/ban-status/closed-only', async (req) => {
      reader(req);
      return { closed_only: false };
    });
    app.get('/auth/api-keys', async (req) => {
      const k = l2(req);
      return { apiKeys: ex.keys.list(k.address).map((r) => r.apiKey) };
    });
    app.delete('/auth/api-key', async (req) => {
      const k = l2(req);
      ex.deleteApiKey(k.apiKey);
      return 'OK';
    });

    // ---- orders -------------------------------------------------------------------------------
    const aheadMs = opts.auth.maxSkewSec * 1000;
    // every order and cancel route: authenticated, then counted in the signer's bucket (all or
    // nothing: a refused batch processes no entry), then processed
    app.post('/order', async (req, reply) => {
      const k = l2(req);
      signer.admit(req, reply, k.address, ONE_ORDER);
      let parsed: ReturnType<typeof parseOrderRequest>;
      try {
        parsed = parseOrderRequest(req.body, aheadMs);
      } catch (e) {
        // a body the venue cannot read is an order refusal too: `errorMsg` as public clients read it
        if (!(e instanceof HttpError)) throw e;
        reply.code(e.status);
        return refusalOf(e);
      }
      const r = ex.place(k, parsed);
      if (!r.ok) reply.code(r.httpStatus);
      return orderResponse(r);
    });
    app.post('/orders', async (req, reply) => {
      const k = l2(req);
      if (!Array.isArray(req.body)) throw badRequest('body must be a JSON array of orders');
      if (req.body.length === 0) throw badRequest('body must hold at least one order');
      if (req.body.length > MAX_BATCH)
        throw badRequest(`too many orders in one request: ${req.body.length} > ${MAX_BATCH}`, 'BATCH_TOO_LARGE');
      signer.admit(req, reply, k.address, { bucket: 'order', cost: req.body.length, postCharged: false });
      return req.body.map((entry: unknown) => {
        try {
          return orderResponse(ex.place(k, parseOrderRequest(entry, aheadMs)));
        } catch (e) {
          if (e instanceof HttpError) return refusalOf(e);
          throw e;
        }
      });
    });
    app.delete('/order', async (req, reply) => {
      const k = l2(req);
      signer.admit(req, reply, k.address, ONE_CANCEL);
      const { orderID } = parseWith(cancelOneSchema, req.body, 'body');
      // not a live order of the caller (unknown, another's, done): 200 with the public service's reason,
      // as its clients expect (public Python clients raise on any other status; bots match the text)
      if (ex.getOrder(k.address, orderID) === undefined)
        return { canceled: [], not_canceled: { [orderID]: NOT_CANCELED_REASON } };
      return ex.cancel(k.address, [orderID]);
    });
    app.delete('/orders', async (req, reply) => {
      const k = l2(req);
      const ids = parseWith(cancelManySchema, req.body, 'body');
      if (ids.length > 0)
        signer.admit(req, reply, k.address, { bucket: 'cancel', cost: ids.length, postCharged: false });
      return ex.cancel(k.address, ids);
    });
    // one token up front, one per cancelled order once the count is known
    app.delete('/cancel-all', async (req, reply) => {
      const k = l2(req);
      signer.admit(req, reply, k.address, CANCEL_ALL);
      const out = ex.cancelAll(k.address);
      signer.settle(reply, k.address, CANCEL_ALL, out.canceled.length);
      return out;
    });
    app.delete('/cancel-market-orders', async (req, reply) => {
      const k = l2(req);
      const b = parseWith(cancelMarketSchema, req.body ?? undefined, 'body');
      signer.admit(req, reply, k.address, CANCEL_ALL);
      const filter: { market?: string; tokenId?: string } = {};
      if (b.market) filter.market = b.market;
      if (b.asset_id) filter.tokenId = b.asset_id;
      const out = ex.cancelMarket(k.address, filter);
      signer.settle(reply, k.address, CANCEL_ALL, out.canceled.length);
      return out;
    });

    // the tier of the credentials' signer (the public service's answer may lag 3 h; here it is current)
    app.get('/v1/user/rate-limit-tier', async (req) => ({ tier: signer.tierOf(l2(req).address) }));

    const oneOrder = (k: Reader, id: string | undefined) => {
      if (id === undefined || id === '') throw badRequest('missing order id');
      const o = ex.getOrder(k.address, id);
      if (o === undefined) throw notFound('order not found');
      return renderOrder(o, k.apiKey, ex.opts.gtdThresholdSec);
    };
    app.get<{ Params: { id: string } }>('/data/order/:id', async (req) => oneOrder(reader(req), req.params.id));
    // the public API reference's path for one order (its clients use /data/order/{id})
    app.get<{ Params: { id: string } }>('/order/:id', async (req) => oneOrder(reader(req), req.params.id));
    app.get('/order', async (req) =>
      oneOrder(reader(req), qString(req.query as Query, 'id') ?? qString(req.query as Query, 'orderID')),
    );

    /**
     * `maker_address` of a read (GET /data/orders, /data/trades, /balances, /positions, /balance-allowance):
     * undefined when absent, else one of the accounts the key trades for (its address, its proxy wallet
     * or Safe, a registered funder), or a 400 naming the parameter: the same answer on every endpoint.
     */
    const makerOf = (req: FastifyRequest, k: Reader): string | undefined => {
      const maker = qString(req.query as Query, 'maker_address')?.toLowerCase() || undefined;
      if (maker === undefined || maker === k.address) return maker;
      if (!ex.accountsOf(k.address).includes(maker))
        throw badRequest(
          'maker_address is not an account of this API key (its address, its proxy wallet or Safe, or a funder registered to it)',
        );
      return maker;
    };
    const openOrders = (req: FastifyRequest) => {
      const k = reader(req);
      const q = req.query as Query;
      const id = qString(q, 'id');
      const market = qString(q, 'market');
      const asset = qString(q, 'asset_id');
      // maker_address (as on GET /data/trades): the open orders of that one account of the key; an
      // address not of the key is a 400, not an empty list (a mistyped funder is told, not "no orders")
      const maker = makerOf(req, k);
      let list: OrderState[] = maker !== undefined ? ex.engine.openOrders(maker) : ex.openOrders(k.address);
      if (id) list = list.filter((o) => o.id === id);
      if (market) list = list.filter((o) => o.market === market);
      if (asset) list = list.filter((o) => o.tokenId === asset);
      return cursorPage(list, q, (o) => renderOrder(o, k.apiKey, ex.opts.gtdThresholdSec), 500, 500);
    };
    app.get('/data/orders', async (req) => openOrders(req));
    app.get('/orders', async (req) => openOrders(req));

    const trades = (req: FastifyRequest) => {
      const k = reader(req);
      const q = req.query as Query;
      const id = qString(q, 'id');
      const market = qString(q, 'market');
      const asset = qString(q, 'asset_id');
      const before = qString(q, 'before');
      const after = qString(q, 'after');
      // unix seconds, or a 400: a garbage bound is not an empty history
      for (const [name, v] of [
        ['before', before],
        ['after', after],
      ] as const)
        if (v !== undefined && v !== '' && !/^\d{1,12}$/.test(v)) throw badRequest(`${name} must be unix seconds`);
      // maker_address: the trades of that one account of the key (its own, its proxy wallet's or
      // Safe's, a registered funder's), as the public service filters: the account took or made; an
      // address not of the key is a 400 as on GET /balances (no account's trades are shown to another)
      const makerAddr = makerOf(req, k);
      let list = makerAddr !== undefined ? ex.tradesOf(makerAddr) : ex.tradesOfKey(k.address);
      if (id) list = list.filter((r) => r.trade.id === id);
      if (market) list = list.filter((r) => r.trade.market === market);
      const mine = new Set(ex.accountsOf(k.address));
      if (asset)
        list = list.filter(
          (r) => r.trade.tokenId === asset || r.trade.makers.some((m) => m.tokenId === asset && mine.has(m.account)),
        );
      if (before) list = list.filter((r) => r.trade.matchTime / 1000 < Number(before));
      if (after) list = list.filter((r) => r.trade.matchTime / 1000 > Number(after));
      return cursorPage(
        list,
        q,
        (r) => renderTrade(ex, r, mine.has(r.trade.takerAccount) ? r.trade.takerAccount : k.address, k.apiKey),
        100,
        500,
      );
    };
    app.get('/data/trades', async (req) => trades(req));
    app.get('/trades', async (req) => trades(req));

    // ---- account ------------------------------------------------------------------------------
    /**
     * The account GET /balances and GET /positions report: the key's address, or `maker_address`
     * when given, one of the accounts the key trades for (its proxy wallet or Safe, a registered
     * funder: the maker of its signatureType 1 / 2 orders, whose funds and tokens those are).
     */
    const accountOf = (req: FastifyRequest, k: Reader): string => makerOf(req, k) ?? k.address;
    app.get('/balances', async (req) => {
      const k = reader(req);
      const account = accountOf(req, k);
      const b = ex.engine.balance(account);
      return {
        address: account,
        collateral: {
          balance: formatAmount(b.collateral + b.collateralReserved),
          available: formatAmount(b.collateral),
          reserved: formatAmount(b.collateralReserved),
        },
        tokens: [...b.tokens.entries()]
          .filter(([, t]) => t.available + t.reserved > 0)
          .map(([tokenId, t]) => {
            const m = ex.marketOfToken(tokenId);
            return {
              asset_id: tokenId,
              market: m?.entry.meta.conditionId ?? '',
              outcome: m ? m.entry.meta.outcomes[m.index] : '',
              balance: formatAmount(t.available + t.reserved),
              available: formatAmount(t.available),
              reserved: formatAmount(t.reserved),
            };
          }),
      };
    });
    app.get('/positions', async (req) => {
      const k = reader(req);
      const account = accountOf(req, k);
      const b = ex.engine.balance(account);
      return ex.positions
        .positions(account)
        .filter(([tokenId]) => {
          const t = b.tokens.get(tokenId);
          return t !== undefined && t.available + t.reserved > 0;
        })
        .map(([tokenId, p]) => {
          const m = ex.marketOfToken(tokenId);
          const t = b.tokens.get(tokenId);
          const size = t ? t.available + t.reserved : 0;
          const st = m ? ex.marketState(m.entry) : undefined;
          // a resolved market's tokens (held until redeemed) are worth what they redeem for
          const mark = st
            ? st.status === 'resolved'
              ? st.winningToken === tokenId
                ? PRICE_SCALE
                : 0
              : (st.mid[m!.index] ?? st.lastPrice[m!.index])
            : undefined;
          const value = mark === undefined ? undefined : Math.round((size * mark) / PRICE_SCALE);
          return {
            asset_id: tokenId,
            market: m?.entry.meta.conditionId ?? '',
            outcome: m ? m.entry.meta.outcomes[m.index] : '',
            size: formatAmount(size),
            avg_price: avgPrice6(p),
            cost: formatAmount(p.cost),
            realized_pnl: formatAmount(p.realized),
            cur_price: mark === undefined ? null : formatMid(mark),
            current_value: value === undefined ? null : formatAmount(value),
            cash_pnl: mark === undefined ? null : formatAmount(unrealizedAt(size, mark, p.costPm)),
          };
        });
    });
    app.get('/balance-allowance', async (req) => {
      const k = reader(req);
      const q = req.query as Query;
      const type = (qString(q, 'asset_type') ?? 'COLLATERAL').toUpperCase();
      // signature_type 1 / 2: the account of the key's proxy wallet / Safe (as at the public service);
      // maker_address (this exchange's, as on GET /balances): one account of the key by its address, e.g.
      // a funder registered with POST /admin/funders, which no signature_type names
      const st = qString(q, 'signature_type');
      const account =
        qString(q, 'maker_address') !== undefined
          ? accountOf(req, k)
          : st === '1' || st === '2'
            ? ex.accountsOf(k.address)[Number(st)]!
            : k.address;
      const b = ex.engine.balance(account);
      let micro: number;
      if (type === 'COLLATERAL') micro = b.collateral + b.collateralReserved;
      else if (type === 'CONDITIONAL') {
        const t = b.tokens.get(qRequired(q, 'token_id'));
        micro = t ? t.available + t.reserved : 0;
      } else throw badRequest('asset_type must be COLLATERAL or CONDITIONAL');
      // keyed by the spender contracts, as public clients look them up: the CTF exchange, the
      // neg-risk CTF exchange and the neg-risk adapter. Unlimited unless an operator set one
      // (POST /admin/allowances: accounts/allowances.ts); a BUY without one is refused. Speaking
      // V2, the spenders of the collateral (pUSD) are the V2 exchanges; the wire names no
      // collateral token, so nothing else changes
      const { exchange, negRiskExchange } = ex.exchangeContracts();
      const of = (spender: string) => ex.allowances.of(account, spender);
      return {
        balance: String(micro),
        allowance: of(exchange),
        allowances: {
          [exchange]: of(exchange),
          [negRiskExchange]: of(negRiskExchange),
          [NEG_RISK_ADAPTER]: of(NEG_RISK_ADAPTER),
        },
      };
    });
    app.get('/balance-allowance/update', async (req) => {
      l2(req);
      return 'OK';
    });
    const heartbeat = async (req: FastifyRequest) => {
      const k = l2(req);
      parseWith(heartbeatSchema, req.body ?? undefined, 'body');
      // `{heartbeat_id}` and no `error` key on success: the public TS clients (V1 and V2, whose type
      // is `{heartbeat_id, error_msg?}`) with throwOnError take an `error` key for a failure
      return { heartbeat_id: ex.heartbeat(k.address) };
    };
    app.post('/v1/heartbeats', heartbeat);
    app.post('/heartbeats', heartbeat);
  };
}
