/**
 * Typed client of the Data API (spec 4.3; README "Data"): events and markets with trading figures,
 * price history, per-user statistics, fills, positions and PnL, account activity, builder
 * attribution. Built on the
 * `Transport` contract (./http/types.ts). The Data API answers the success envelope; the transport
 * unwraps it (lists keep their page facts: `next_cursor`, `total`), and the `iter*` methods follow
 * the cursor (./pagination.ts).
 *
 * An address that never traded is not an error: empty lists and zero statistics.
 */
import { ValidationError } from '../core/errors.ts';
import { parseAmount } from '../core/units.ts';
import type { QueryValue, Transport } from './http/types.ts';
import { eventsQuery, marketsQuery, MAX_PAGE, type EventsQuery, type MarketsQuery } from './gamma.ts';
import { cursorPages, flatten, type IterateOptions, type PageRequest } from './pagination.ts';
import { addressSegment, getSpec, intParam, segment, type CallOptions } from './request.ts';
import { enveloped, healthSchema, type Health, type Page } from './schemas/common.ts';
import {
  activityPageSchema,
  builderStatsSchema,
  builderVolumeSchema,
  dataEventsPageSchema,
  dataMarketsPageSchema,
  pnlSchema,
  positionsPageSchema,
  priceHistorySchema,
  userStatsSchema,
  userTradesPageSchema,
  type Activity,
  type ActivityType,
  type BuilderStats,
  type BuilderVolume,
  type DataEvent,
  type DataMarket,
  type Pnl,
  type Position,
  type PriceHistory,
  type UserStats,
  type UserTrade,
} from './schemas/data.ts';

const ITER_PAGE = 100;

/** A cursor to resume a list from (`next_cursor` of a previous page); wins over `offset`. */
export interface CursorQuery {
  /** 1..500 (venue default 10; 20 for events). */
  limit?: number;
  offset?: number;
  nextCursor?: string;
}

/** Price-history windows back from now (`1m` is a month, as at the venue). */
export type PriceInterval = '1h' | '6h' | '1d' | '1w' | '1m' | 'max';

/** Parameters of GET /prices. Give `market` (condition id = its YES token, or a token id) or `tokenId`. */
export interface PriceHistoryQuery {
  market?: string;
  tokenId?: string;
  /** Default `max`. Ignored by the venue when startTs/endTs are given. */
  interval?: PriceInterval;
  /** Minutes per bucket (venue defaults 1, 1, 5, 60, 180, 180 by interval). */
  fidelity?: number;
  /** Unix seconds. */
  startTs?: number;
  endTs?: number;
}

/** Filters of GET /users/{address}/trades. */
export interface UserTradesQuery extends CursorQuery {
  /** Condition id. */
  market?: string;
  /** Token id. */
  asset?: string;
  side?: 'BUY' | 'SELL';
  role?: 'TAKER' | 'MAKER';
}

/** Filters of GET /users/{address}/positions. */
export interface PositionsQuery extends CursorQuery {
  /** Minimum shares, decimal string (default 0). */
  sizeThreshold?: string;
  /** Condition id. */
  market?: string;
}

/** Filters of GET /activity. */
export interface ActivityQuery extends CursorQuery {
  /** Only these types (default all). */
  type?: ActivityType | readonly ActivityType[];
  /** Only these markets (condition ids). */
  market?: string | readonly string[];
  /** Unix seconds, inclusive. */
  start?: number;
  end?: number;
}

const INTERVALS: readonly PriceInterval[] = ['1h', '6h', '1d', '1w', '1m', 'max'];

function cursorQuery(q: CursorQuery): Record<string, QueryValue> {
  return {
    limit: intParam('limit', q.limit, 1, MAX_PAGE),
    offset: q.nextCursor === undefined ? intParam('offset', q.offset, 0, 1e9) : undefined,
    next_cursor: q.nextCursor,
  };
}

function unixSeconds(what: string, v: number | undefined): number | undefined {
  return intParam(what, v, 0, 1e12);
}

/** The Data API client. */
export class DataClient {
  constructor(private readonly transport: Transport) {}

  /** GET /health. */
  async health(opts?: CallOptions): Promise<Health> {
    return this.transport.request(getSpec('data', '/health', undefined, opts), enveloped(healthSchema));
  }

  /** One page of GET /events (Gamma's filters; each event with its trade count). */
  async listEvents(q: EventsQuery & { nextCursor?: string } = {}, opts?: CallOptions): Promise<Page<DataEvent>> {
    const query = { ...eventsQuery(q), ...cursorQuery(q) };
    return this.transport.request(getSpec('data', '/events', query, opts), dataEventsPageSchema);
  }

  /** Every event matching `q`. */
  async *iterEvents(
    q: Omit<EventsQuery, 'limit' | 'offset'> = {},
    it: IterateOptions = {},
    opts?: CallOptions,
  ): AsyncGenerator<DataEvent> {
    yield* flatten(cursorPages((p: PageRequest) => this.listEvents({ ...q, ...pageQuery(p) }, opts), pageOpts(it)));
  }

  /** One page of GET /markets (Gamma's filters; trading figures per market). */
  async listMarkets(q: MarketsQuery & { nextCursor?: string } = {}, opts?: CallOptions): Promise<Page<DataMarket>> {
    const query = { ...marketsQuery(q), ...cursorQuery(q) };
    return this.transport.request(getSpec('data', '/markets', query, opts), dataMarketsPageSchema);
  }

  /** Every market matching `q`. */
  async *iterMarkets(
    q: Omit<MarketsQuery, 'limit' | 'offset'> = {},
    it: IterateOptions = {},
    opts?: CallOptions,
  ): AsyncGenerator<DataMarket> {
    yield* flatten(cursorPages((p: PageRequest) => this.listMarkets({ ...q, ...pageQuery(p) }, opts), pageOpts(it)));
  }

  /**
   * GET /prices (or its alias /prices-history): the last trade price per time bucket, in pips.
   * @throws ValidationError without market/tokenId or with a bad interval; NotFoundError for an unknown market.
   */
  async priceHistory(
    q: PriceHistoryQuery,
    o: { path?: '/prices' | '/prices-history' } = {},
    opts?: CallOptions,
  ): Promise<PriceHistory> {
    if (q.market === undefined && q.tokenId === undefined)
      throw new ValidationError('priceHistory needs market or tokenId');
    if (q.interval !== undefined && !INTERVALS.includes(q.interval))
      throw new ValidationError(`interval must be one of ${INTERVALS.join(', ')}`);
    const query: Record<string, QueryValue> = {
      market: q.market,
      token_id: q.tokenId,
      interval: q.interval,
      fidelity: intParam('fidelity', q.fidelity, 1, 60 * 24 * 30),
      startTs: unixSeconds('startTs', q.startTs),
      endTs: unixSeconds('endTs', q.endTs),
    };
    return this.transport.request(getSpec('data', o.path ?? '/prices', query, opts), priceHistorySchema);
  }

  /**
   * GET /users/{address}: trading statistics.
   * @throws ValidationError on a malformed address.
   */
  async userStats(address: string, opts?: CallOptions): Promise<UserStats> {
    return this.transport.request(
      getSpec('data', `/users/${addressSegment(address)}`, undefined, opts),
      userStatsSchema,
    );
  }

  /** One page of GET /users/{address}/trades: the user's fills, newest first. */
  async userTrades(address: string, q: UserTradesQuery = {}, opts?: CallOptions): Promise<Page<UserTrade>> {
    const query = { market: q.market, asset: q.asset, side: q.side, role: q.role, ...cursorQuery(q) };
    return this.transport.request(
      getSpec('data', `/users/${addressSegment(address)}/trades`, query, opts),
      userTradesPageSchema,
    );
  }

  /** Every fill of the user matching `q`, newest first. */
  async *iterUserTrades(
    address: string,
    q: Omit<UserTradesQuery, keyof CursorQuery> = {},
    it: IterateOptions = {},
    opts?: CallOptions,
  ): AsyncGenerator<UserTrade> {
    yield* flatten(
      cursorPages((p: PageRequest) => this.userTrades(address, { ...q, ...pageQuery(p) }, opts), pageOpts(it)),
    );
  }

  /**
   * One page of GET /users/{address}/positions, largest current value first.
   * @throws ValidationError on a malformed address or sizeThreshold.
   */
  async userPositions(address: string, q: PositionsQuery = {}, opts?: CallOptions): Promise<Page<Position>> {
    if (q.sizeThreshold !== undefined) parseAmount(q.sizeThreshold, 'down');
    const query = { sizeThreshold: q.sizeThreshold, market: q.market, ...cursorQuery(q) };
    return this.transport.request(
      getSpec('data', `/users/${addressSegment(address)}/positions`, query, opts),
      positionsPageSchema,
    );
  }

  /** Every position of the user matching `q`. */
  async *iterUserPositions(
    address: string,
    q: Omit<PositionsQuery, keyof CursorQuery> = {},
    it: IterateOptions = {},
    opts?: CallOptions,
  ): AsyncGenerator<Position> {
    yield* flatten(
      cursorPages((p: PageRequest) => this.userPositions(address, { ...q, ...pageQuery(p) }, opts), pageOpts(it)),
    );
  }

  /**
   * GET /users/{address}/pnl; with `history` also the realized PnL after each trade.
   * @throws ValidationError on a malformed address.
   */
  async userPnl(address: string, o: { history?: boolean } = {}, opts?: CallOptions): Promise<Pnl> {
    return this.transport.request(
      getSpec('data', `/users/${addressSegment(address)}/pnl`, { history: o.history ? 'true' : undefined }, opts),
      pnlSchema,
    );
  }

  /**
   * One page of GET /activity?user=: the account's trades (one item per fill), splits, merges,
   * redemptions and conversions, newest first.
   * @throws ValidationError on a malformed address or filter.
   */
  async activity(user: string, q: ActivityQuery = {}, opts?: CallOptions): Promise<Page<Activity>> {
    const join = (v: string | readonly string[] | undefined) =>
      v === undefined ? undefined : typeof v === 'string' ? v : v.length === 0 ? undefined : v.join(',');
    const query = {
      user: addressSegment(user),
      type: join(q.type),
      market: join(q.market),
      start: unixSeconds('start', q.start),
      end: unixSeconds('end', q.end),
      ...cursorQuery(q),
    };
    return this.transport.request(getSpec('data', '/activity', query, opts), activityPageSchema);
  }

  /** Every activity item of the account matching `q`, newest first. */
  async *iterActivity(
    user: string,
    q: Omit<ActivityQuery, keyof CursorQuery> = {},
    it: IterateOptions = {},
    opts?: CallOptions,
  ): AsyncGenerator<Activity> {
    yield* flatten(cursorPages((p: PageRequest) => this.activity(user, { ...q, ...pageQuery(p) }, opts), pageOpts(it)));
  }

  /** GET /builders/{api_key}: attribution of orders carrying that builder key (unknown key: zeros). */
  async builderStats(builderKey: string, opts?: CallOptions): Promise<BuilderStats> {
    return this.transport.request(
      getSpec('data', `/builders/${segment('builder key', builderKey)}`, undefined, opts),
      builderStatsSchema,
    );
  }

  /** GET /builders/{api_key}/volume: volume by day and by market, optionally within [startTs, endTs] (unix s). */
  async builderVolume(
    builderKey: string,
    q: { startTs?: number; endTs?: number } = {},
    opts?: CallOptions,
  ): Promise<BuilderVolume> {
    const query = { startTs: unixSeconds('startTs', q.startTs), endTs: unixSeconds('endTs', q.endTs) };
    return this.transport.request(
      getSpec('data', `/builders/${segment('builder key', builderKey)}/volume`, query, opts),
      builderVolumeSchema,
    );
  }
}

/** The list position of one page request. */
function pageQuery(p: PageRequest): CursorQuery {
  return p.nextCursor !== undefined
    ? { limit: p.limit, nextCursor: p.nextCursor }
    : { limit: p.limit, offset: p.offset };
}

function pageOpts(it: IterateOptions): IterateOptions & { pageSize: number } {
  return { ...it, pageSize: intParam('pageSize', it.pageSize, 1, MAX_PAGE) ?? ITER_PAGE };
}
