/**
 * The typed client of the venue's liquidity-reward endpoints (CLOB API; the public service's paths
 * and shapes, as its TS client calls them: /work/notes/issue19-research.md §2.4–2.5):
 *
 *  - order scoring (L2): `orderScoring(id)` GET /order-scoring?order_id=, `ordersScoring(ids)`
 *    POST /orders-scoring with a bare JSON array of ids;
 *  - reward configurations (public, paginated): `currentRewards()` GET /rewards/markets/current,
 *    `marketRewards(id)` GET /rewards/markets/{condition_id};
 *  - the account's earnings (L2): `userEarnings(date)` GET /rewards/user (paginated, one row per
 *    market of that UTC date), `userTotal(date)` GET /rewards/user/total (a bare array per asset),
 *    `userPercentages()` GET /rewards/user/percentages (a bare map: condition id → percent of the
 *    running epoch), `userMarkets(date)` GET /rewards/user/markets (paginated).
 *
 * Amounts are micro-units (./schemas/rewards.ts). Paginated lists follow `next_cursor` until
 * "LTE=" (src/api/pagination.ts). `signature_type` / `maker_address` choose which address the
 * earnings are read for (default: the API key's funder), as the public client sends them.
 */
import type { z } from 'zod';
import { ValidationError } from '../core/errors.ts';
import { isAddress } from '../core/ids.ts';
import type { QueryValue, RequestSpec, Transport } from './http/types.ts';
import { collect, cursorPages, flatten, type PageRequest } from './pagination.ts';
import type { CallOptions } from './request.ts';
import { pageSchema } from './schemas/common.ts';
import {
  currentRewardSchema,
  marketRewardSchema,
  orderScoringSchema,
  ordersScoringSchema,
  userEarningSchema,
  userMarketSchema,
  userPercentagesSchema,
  userTotalSchema,
  type CurrentReward,
  type MarketReward,
  type UserEarning,
  type UserMarket,
  type UserTotal,
} from './schemas/rewards.ts';

export type { CurrentReward, MarketReward, UserEarning, UserMarket, UserTotal } from './schemas/rewards.ts';

/** Options of a RewardsClient: which address the `/rewards/user*` calls report. */
export interface RewardsClientOptions {
  /** `signature_type`: 0 EOA, 1 POLY_PROXY, 2 POLY_GNOSIS_SAFE (sent when set). */
  signatureType?: 0 | 1 | 2;
  /** `maker_address` (sent when set). */
  makerAddress?: string;
}

/** The longest list of ids one POST /orders-scoring carries (the client splits longer ones). */
export const ORDERS_SCORING_CHUNK = 500;
/** Page sizes of the venue's lists (the public service's). */
const USER_PAGE = 100;
const CURRENT_PAGE = 500;

const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

/**
 * A UTC date for the `date` query.
 * @throws ValidationError unless `YYYY-MM-DD` (a real calendar date).
 */
export function checkDate(date: string): string {
  if (typeof date !== 'string' || !DATE.test(date) || new Date(`${date}T00:00:00Z`).toISOString().slice(0, 10) !== date)
    throw new ValidationError(`date: expected YYYY-MM-DD, got ${String(date).slice(0, 30)}`);
  return date;
}

/** The UTC date (`YYYY-MM-DD`) of a unix ms instant. */
export function utcDateOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The liquidity-rewards client. Stateless apart from the transport; safe to share. */
export class RewardsClient {
  readonly #t: Transport;
  readonly #who: Record<string, QueryValue>;

  /** @throws ValidationError on a malformed maker address or signature type. */
  constructor(transport: Transport, opts: RewardsClientOptions = {}) {
    this.#t = transport;
    if (opts.makerAddress !== undefined && !isAddress(opts.makerAddress))
      throw new ValidationError(`makerAddress: expected 0x followed by 40 hex digits`);
    if (opts.signatureType !== undefined && ![0, 1, 2].includes(opts.signatureType))
      throw new ValidationError(`signatureType: expected 0, 1 or 2`);
    this.#who = {
      signature_type: opts.signatureType,
      maker_address: opts.makerAddress?.toLowerCase(),
    };
  }

  #spec(
    method: RequestSpec['method'],
    path: string,
    auth: RequestSpec['auth'],
    query: Record<string, QueryValue> | undefined,
    call: CallOptions | undefined,
    body?: unknown,
  ): RequestSpec {
    const spec: RequestSpec = { api: 'clob', method, path, auth, idempotent: true };
    if (query !== undefined) spec.query = query;
    if (body !== undefined) spec.body = body;
    if (call?.signal !== undefined) spec.signal = call.signal;
    if (call?.timeoutMs !== undefined) spec.timeoutMs = call.timeoutMs;
    return spec;
  }

  /**
   * GET /order-scoring: whether the order scores now (live, on a rewarded market, at least the min
   * size, inside the band).
   * @throws ValidationError on an empty id; NotFoundError (market not found), AuthError as any request.
   */
  async orderScoring(orderId: string, call?: CallOptions): Promise<boolean> {
    if (typeof orderId !== 'string' || orderId.length === 0) throw new ValidationError('orderScoring: an order id');
    const r = await this.#t.request(
      this.#spec('GET', '/order-scoring', 'l2', { order_id: orderId }, call),
      orderScoringSchema,
    );
    return r.scoring;
  }

  /**
   * POST /orders-scoring (body: a bare JSON array of ids): id → scoring. No ids: no request.
   * @throws ValidationError on an empty id.
   */
  async ordersScoring(orderIds: readonly string[], call?: CallOptions): Promise<Map<string, boolean>> {
    const out = new Map<string, boolean>();
    for (const id of orderIds)
      if (typeof id !== 'string' || id.length === 0) throw new ValidationError('ordersScoring: empty order id');
    for (let i = 0; i < orderIds.length; i += ORDERS_SCORING_CHUNK) {
      const chunk = orderIds.slice(i, i + ORDERS_SCORING_CHUNK);
      const r = await this.#t.request(
        this.#spec('POST', '/orders-scoring', 'l2', undefined, call, chunk),
        ordersScoringSchema,
      );
      for (const [k, v] of Object.entries(r)) out.set(k, v);
    }
    return out;
  }

  #pages<S extends z.ZodType>(
    path: string,
    auth: RequestSpec['auth'],
    query: Record<string, QueryValue>,
    item: S,
    pageSize: number,
    call: CallOptions | undefined,
  ): AsyncGenerator<z.output<S>> {
    const schema = pageSchema(item);
    const fetch = (p: PageRequest) =>
      this.#t.request(this.#spec('GET', path, auth, { ...query, next_cursor: p.nextCursor }, call), schema);
    return flatten(cursorPages(fetch, { pageSize }));
  }

  /** GET /rewards/markets/current: every market with an active reward config (all pages). */
  currentRewards(call?: CallOptions): Promise<CurrentReward[]> {
    return collect(this.#pages('/rewards/markets/current', 'none', {}, currentRewardSchema, CURRENT_PAGE, call));
  }

  /**
   * GET /rewards/markets/{condition_id}: the present and future configs of one market (empty: none).
   * @throws ValidationError on an empty id.
   */
  async marketRewards(conditionId: string, call?: CallOptions): Promise<MarketReward[]> {
    if (typeof conditionId !== 'string' || conditionId.length === 0 || conditionId.length > 200)
      throw new ValidationError('marketRewards: a condition id');
    return collect(
      this.#pages(
        `/rewards/markets/${encodeURIComponent(conditionId)}`,
        'none',
        {},
        marketRewardSchema,
        USER_PAGE,
        call,
      ),
    );
  }

  /**
   * GET /rewards/user?date=: the account's earnings per market of that UTC date (all pages).
   * @throws ValidationError on a malformed date (nothing is sent).
   */
  async userEarnings(date: string, call?: CallOptions): Promise<UserEarning[]> {
    const q = { date: checkDate(date), ...this.#who };
    return collect(this.#pages('/rewards/user', 'l2', q, userEarningSchema, USER_PAGE, call));
  }

  /**
   * GET /rewards/user/total?date=: the account's earnings of that UTC date per asset.
   * @throws ValidationError on a malformed date (nothing is sent).
   */
  async userTotal(date: string, call?: CallOptions): Promise<UserTotal[]> {
    const q = { date: checkDate(date), ...this.#who };
    return this.#t.request(this.#spec('GET', '/rewards/user/total', 'l2', q, call), userTotalSchema.array());
  }

  /** GET /rewards/user/percentages: condition id → percent (0–100) of the running epoch's pool so far. */
  async userPercentages(call?: CallOptions): Promise<Map<string, number>> {
    const r = await this.#t.request(
      this.#spec('GET', '/rewards/user/percentages', 'l2', { ...this.#who }, call),
      userPercentagesSchema,
    );
    return new Map(Object.entries(r));
  }

  /**
   * GET /rewards/user/markets?date=: the rewarded markets with the account's earnings of that date
   * and its live share (all pages). Sends the public client's `order_by=""`, `position=""`,
   * `no_competition=false`.
   * @throws ValidationError on a malformed date (nothing is sent).
   */
  async userMarkets(date: string, call?: CallOptions): Promise<UserMarket[]> {
    const q = {
      date: checkDate(date),
      ...this.#who,
      order_by: '',
      position: '',
      no_competition: false,
    };
    return collect(this.#pages('/rewards/user/markets', 'l2', q, userMarketSchema, USER_PAGE, call));
  }
}
