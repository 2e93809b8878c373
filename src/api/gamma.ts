/**
 * Typed client of the market-metadata API ("Gamma", spec 4.2; README "Gamma"): events, markets,
 * bulk market figures, comments (read, and post with L2 auth), profiles, search, tags, sports and
 * series. Built on the `Transport` contract (./http/types.ts): every call goes through the
 * transport's budget, timeout, retries and validation, so a malformed answer is a ValidationError
 * and never reaches the caller.
 *
 * Gamma answers bare records and arrays. Lists paginate by `limit`/`offset`; the `iter*` methods
 * walk them as async iterators (./pagination.ts).
 */
import { ValidationError } from '../core/errors.ts';
import type { Transport } from './http/types.ts';
import { flatten, offsetPages, type IterateOptions, type PageRequest } from './pagination.ts';
import { addressSegment, getSpec, intParam, many, segment, type CallOptions } from './request.ts';
import { healthSchema, type Health } from './schemas/common.ts';
import {
  commentSchema,
  commentsSchema,
  gammaEventSchema,
  gammaEventsSchema,
  gammaMarketSchema,
  gammaMarketsSchema,
  marketFiguresListSchema,
  profileSchema,
  searchSchema,
  seriesListSchema,
  sportsSchema,
  tagSchema,
  tagsSchema,
  type Comment,
  type GammaEvent,
  type GammaMarket,
  type MarketFigures,
  type Profile,
  type SearchResult,
  type Series,
  type Sport,
  type Tag,
} from './schemas/gamma.ts';

/** Largest page the venue serves. */
export const MAX_PAGE = 500;
const ITER_PAGE = 100;

/** Page position of a list call. */
export interface OffsetQuery {
  /** 1..500 (venue defaults: 20 events, 10 elsewhere, 500 bulk figures). */
  limit?: number;
  offset?: number;
}

/** Sort keys of event and market lists (descending unless `ascending`). */
export type ListOrder = 'volume' | 'liquidity' | 'start_date' | 'end_date' | 'created_at';

/** Filters of GET /events. */
export interface EventsQuery extends OffsetQuery {
  /** true: only closed events; false: only open ones; absent: both. */
  closed?: boolean;
  active?: boolean;
  /** Tag label, slug or id (any case). */
  tag?: string;
  category?: string;
  slug?: string | readonly string[];
  id?: string | readonly string[];
  order?: ListOrder;
  ascending?: boolean;
}

/** Filters of GET /markets. */
export interface MarketsQuery extends OffsetQuery {
  active?: boolean;
  closed?: boolean;
  /** The market's or its event's tag (label, slug or id). */
  tag?: string;
  category?: string;
  conditionIds?: string | readonly string[];
  clobTokenIds?: string | readonly string[];
  slug?: string | readonly string[];
  id?: string | readonly string[];
  eventId?: string;
  order?: ListOrder;
  ascending?: boolean;
}

/** Filters of GET /markets/data. */
export interface MarketFiguresQuery extends OffsetQuery {
  conditionIds?: string | readonly string[];
}

/** Filters of GET /comments (newest first). */
export interface CommentsQuery extends OffsetQuery {
  parentEntityType?: 'Event' | 'Market';
  /** Event id or condition id. */
  parentEntityId?: string;
  /** Author address. */
  user?: string;
}

/** Body of POST /comments. */
export interface NewComment {
  /** 1..2000 characters, not blank. */
  body: string;
  parentEntityType: 'Event' | 'Market';
  /** Event id (or slug) or condition id. */
  parentEntityId: string;
  /** A comment on the same parent to reply to. */
  replyTo?: string;
}

/** Longest comment body, in characters (code points). */
export const MAX_COMMENT_CHARS = 2000;

function offsetQuery(
  q: OffsetQuery | undefined,
  max = MAX_PAGE,
): { limit: number | undefined; offset: number | undefined } {
  return { limit: intParam('limit', q?.limit, 1, max), offset: intParam('offset', q?.offset, 0, 1e9) };
}

/** The market-metadata client. */
export class GammaClient {
  constructor(private readonly transport: Transport) {}

  /** GET /health. */
  async health(opts?: CallOptions): Promise<Health> {
    return this.transport.request(getSpec('gamma', '/health', undefined, opts), healthSchema);
  }

  // ---- events ---------------------------------------------------------------------------------

  /**
   * One page of GET /events.
   * @throws ValidationError on a bad parameter or a malformed answer; the transport's errors.
   */
  async listEvents(q: EventsQuery = {}, opts?: CallOptions): Promise<GammaEvent[]> {
    return this.transport.request(getSpec('gamma', '/events', eventsQuery(q), opts), gammaEventsSchema);
  }

  /** Every event matching `q`, page by page (limit/offset). */
  async *iterEvents(
    q: Omit<EventsQuery, 'limit' | 'offset'> = {},
    it: IterateOptions = {},
    opts?: CallOptions,
  ): AsyncGenerator<GammaEvent> {
    yield* flatten(
      offsetPages((p: PageRequest) => this.listEvents({ ...q, limit: p.limit, offset: p.offset }, opts), pageOpts(it)),
    );
  }

  /**
   * GET /events/{slug or id}.
   * @throws NotFoundError when there is no such event.
   */
  async getEvent(idOrSlug: string, opts?: CallOptions): Promise<GammaEvent> {
    return this.transport.request(
      getSpec('gamma', `/events/${segment('event', idOrSlug)}`, undefined, opts),
      gammaEventSchema,
    );
  }

  /**
   * GET /events/slug/{slug}.
   * @throws NotFoundError when there is no such event.
   */
  async getEventBySlug(slug: string, opts?: CallOptions): Promise<GammaEvent> {
    return this.transport.request(
      getSpec('gamma', `/events/slug/${segment('slug', slug)}`, undefined, opts),
      gammaEventSchema,
    );
  }

  // ---- markets --------------------------------------------------------------------------------

  /** One page of GET /markets. @throws ValidationError on a bad parameter or a malformed answer. */
  async listMarkets(q: MarketsQuery = {}, opts?: CallOptions): Promise<GammaMarket[]> {
    return this.transport.request(getSpec('gamma', '/markets', marketsQuery(q), opts), gammaMarketsSchema);
  }

  /** Every market matching `q`, page by page. */
  async *iterMarkets(
    q: Omit<MarketsQuery, 'limit' | 'offset'> = {},
    it: IterateOptions = {},
    opts?: CallOptions,
  ): AsyncGenerator<GammaMarket> {
    yield* flatten(
      offsetPages((p: PageRequest) => this.listMarkets({ ...q, limit: p.limit, offset: p.offset }, opts), pageOpts(it)),
    );
  }

  /**
   * GET /markets/{condition id or slug}.
   * @throws NotFoundError when there is no such market.
   */
  async getMarket(conditionIdOrSlug: string, opts?: CallOptions): Promise<GammaMarket> {
    return this.transport.request(
      getSpec('gamma', `/markets/${segment('market', conditionIdOrSlug)}`, undefined, opts),
      gammaMarketSchema,
    );
  }

  /**
   * GET /markets/slug/{slug}.
   * @throws NotFoundError when there is no such market.
   */
  async getMarketBySlug(slug: string, opts?: CallOptions): Promise<GammaMarket> {
    return this.transport.request(
      getSpec('gamma', `/markets/slug/${segment('slug', slug)}`, undefined, opts),
      gammaMarketSchema,
    );
  }

  /** One page of GET /markets/data: live figures per market (default page 500). */
  async marketFigures(q: MarketFiguresQuery = {}, opts?: CallOptions): Promise<MarketFigures[]> {
    const { limit, offset } = offsetQuery(q);
    return this.transport.request(
      getSpec('gamma', '/markets/data', { condition_ids: many(q.conditionIds), limit, offset }, opts),
      marketFiguresListSchema,
    );
  }

  /** Every market's figures, page by page. */
  async *iterMarketFigures(
    q: Omit<MarketFiguresQuery, 'limit' | 'offset'> = {},
    it: IterateOptions = {},
    opts?: CallOptions,
  ): AsyncGenerator<MarketFigures> {
    yield* flatten(
      offsetPages(
        (p: PageRequest) => this.marketFigures({ ...q, limit: p.limit, offset: p.offset }, opts),
        pageOpts(it, MAX_PAGE),
      ),
    );
  }

  // ---- comments -------------------------------------------------------------------------------

  /** One page of GET /comments, newest first. */
  async listComments(q: CommentsQuery = {}, opts?: CallOptions): Promise<Comment[]> {
    const { limit, offset } = offsetQuery(q);
    if (q.user !== undefined) addressSegment(q.user);
    return this.transport.request(
      getSpec(
        'gamma',
        '/comments',
        { parent_entity_type: q.parentEntityType, parent_entity_id: q.parentEntityId, user: q.user, limit, offset },
        opts,
      ),
      commentsSchema,
    );
  }

  /** Every comment matching `q`, newest first. */
  async *iterComments(
    q: Omit<CommentsQuery, 'limit' | 'offset'> = {},
    it: IterateOptions = {},
    opts?: CallOptions,
  ): AsyncGenerator<Comment> {
    yield* flatten(
      offsetPages(
        (p: PageRequest) => this.listComments({ ...q, limit: p.limit, offset: p.offset }, opts),
        pageOpts(it),
      ),
    );
  }

  /**
   * POST /comments (L2 auth; not idempotent: never retried after an ambiguous failure).
   * @throws ValidationError on a blank or too long body; AuthError without credentials; NotFoundError
   *   on an unknown parent or replyTo.
   */
  async postComment(c: NewComment, opts?: CallOptions): Promise<Comment> {
    if (typeof c.body !== 'string' || c.body.trim().length === 0)
      throw new ValidationError('comment body must not be blank');
    if ([...c.body].length > MAX_COMMENT_CHARS)
      throw new ValidationError(`comment body must be at most ${MAX_COMMENT_CHARS} characters`);
    if (c.parentEntityType !== 'Event' && c.parentEntityType !== 'Market')
      throw new ValidationError('parentEntityType must be Event or Market');
    segment('parentEntityId', c.parentEntityId);
    const body: Record<string, string> = {
      body: c.body,
      parentEntityType: c.parentEntityType,
      parentEntityID: c.parentEntityId,
    };
    if (c.replyTo !== undefined) body['replyTo'] = c.replyTo;
    return this.transport.request(
      {
        api: 'gamma',
        method: 'POST',
        path: '/comments',
        body,
        auth: 'l2',
        idempotent: false,
        ...(opts?.signal !== undefined ? { signal: opts.signal } : {}),
        ...(opts?.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
      },
      commentSchema,
    );
  }

  // ---- profiles, search, tags, sports, series -------------------------------------------------

  /**
   * GET /profiles/{address}.
   * @throws ValidationError on a malformed address; NotFoundError for an address with no profile and no trades.
   */
  async getProfile(address: string, opts?: CallOptions): Promise<Profile> {
    return this.transport.request(
      getSpec('gamma', `/profiles/${addressSegment(address)}`, undefined, opts),
      profileSchema,
    );
  }

  /**
   * GET /search?q= (or its alias /public-search): events, markets and tags whose text contains `q`.
   * @throws ValidationError when `q` is not 1..100 characters or limit not 1..100.
   */
  async search(
    q: string,
    o: { limit?: number; path?: '/search' | '/public-search' } = {},
    opts?: CallOptions,
  ): Promise<SearchResult> {
    const text = typeof q === 'string' ? q.trim() : '';
    if (text.length < 1 || [...text].length > 100) throw new ValidationError('search text must be 1 to 100 characters');
    return this.transport.request(
      getSpec('gamma', o.path ?? '/search', { q: text, limit: intParam('limit', o.limit, 1, 100) }, opts),
      searchSchema,
    );
  }

  /** One page of GET /tags. */
  async listTags(q: OffsetQuery = {}, opts?: CallOptions): Promise<Tag[]> {
    return this.transport.request(getSpec('gamma', '/tags', offsetQuery(q), opts), tagsSchema);
  }

  /** Every tag. */
  async *iterTags(it: IterateOptions = {}, opts?: CallOptions): AsyncGenerator<Tag> {
    yield* flatten(offsetPages((p: PageRequest) => this.listTags(p, opts), pageOpts(it)));
  }

  /**
   * GET /tags/{id, slug or label}.
   * @throws NotFoundError when there is no such tag.
   */
  async getTag(idSlugOrLabel: string, opts?: CallOptions): Promise<Tag> {
    return this.transport.request(
      getSpec('gamma', `/tags/${segment('tag', idSlugOrLabel)}`, undefined, opts),
      tagSchema,
    );
  }

  /** One page of GET /sports. */
  async listSports(q: OffsetQuery = {}, opts?: CallOptions): Promise<Sport[]> {
    return this.transport.request(getSpec('gamma', '/sports', offsetQuery(q), opts), sportsSchema);
  }

  /** Every sport. */
  async *iterSports(it: IterateOptions = {}, opts?: CallOptions): AsyncGenerator<Sport> {
    yield* flatten(offsetPages((p: PageRequest) => this.listSports(p, opts), pageOpts(it)));
  }

  /** One page of GET /series (optionally one slug). */
  async listSeries(q: OffsetQuery & { slug?: string } = {}, opts?: CallOptions): Promise<Series[]> {
    return this.transport.request(
      getSpec('gamma', '/series', { slug: q.slug, ...offsetQuery(q) }, opts),
      seriesListSchema,
    );
  }

  /** Every series. */
  async *iterSeries(q: { slug?: string } = {}, it: IterateOptions = {}, opts?: CallOptions): AsyncGenerator<Series> {
    yield* flatten(offsetPages((p: PageRequest) => this.listSeries({ ...q, ...p }, opts), pageOpts(it)));
  }
}

function pageOpts(it: IterateOptions, def = ITER_PAGE): IterateOptions & { pageSize: number } {
  return { ...it, pageSize: intParam('pageSize', it.pageSize, 1, MAX_PAGE) ?? def };
}

/** Wire query of an events list (shared with the Data API). */
export function eventsQuery(q: EventsQuery): Record<string, string | number | boolean | readonly string[] | undefined> {
  return {
    closed: q.closed,
    active: q.active,
    tag: q.tag,
    category: q.category,
    slug: many(q.slug),
    id: many(q.id),
    order: q.order,
    ascending: q.ascending,
    ...offsetQuery(q),
  };
}

/** Wire query of a markets list (shared with the Data API). */
export function marketsQuery(
  q: MarketsQuery,
): Record<string, string | number | boolean | readonly string[] | undefined> {
  return {
    active: q.active,
    closed: q.closed,
    tag: q.tag,
    category: q.category,
    condition_ids: many(q.conditionIds),
    clob_token_ids: many(q.clobTokenIds),
    slug: many(q.slug),
    id: many(q.id),
    event_id: q.eventId,
    order: q.order,
    ascending: q.ascending,
    ...offsetQuery(q),
  };
}
