/**
 * Typed client of the Content API (spec 4.4; README "Content"): news articles. Built on the
 * `Transport` contract (./http/types.ts); the success envelope is unwrapped by the transport (lists
 * keep their page facts) and `iterArticles` follows the cursor (./pagination.ts).
 */
import type { Transport } from './http/types.ts';
import { MAX_PAGE } from './gamma.ts';
import { cursorPages, flatten, type IterateOptions, type PageRequest } from './pagination.ts';
import { getSpec, intParam, segment, type CallOptions } from './request.ts';
import { enveloped, healthSchema, type Health, type Page } from './schemas/common.ts';
import { articlesPageSchema, oneArticleSchema, type Article } from './schemas/content.ts';

/** Filters of GET /articles (newest first). */
export interface ArticlesQuery {
  /** Tag label, slug or id. */
  tag?: string;
  /** Only articles about this event. */
  eventId?: string;
  /** 1..500 (default 10). */
  limit?: number;
  offset?: number;
  /** `next_cursor` of a previous page; wins over offset. */
  nextCursor?: string;
}

/** The Content API client. */
export class ContentClient {
  constructor(private readonly transport: Transport) {}

  /** GET /health. */
  async health(opts?: CallOptions): Promise<Health> {
    return this.transport.request(getSpec('content', '/health', undefined, opts), enveloped(healthSchema));
  }

  /**
   * One page of GET /articles.
   * @throws ValidationError on a bad limit/offset or a malformed answer.
   */
  async listArticles(q: ArticlesQuery = {}, opts?: CallOptions): Promise<Page<Article>> {
    const query = {
      tag: q.tag,
      event_id: q.eventId,
      limit: intParam('limit', q.limit, 1, MAX_PAGE),
      offset: q.nextCursor === undefined ? intParam('offset', q.offset, 0, 1e9) : undefined,
      next_cursor: q.nextCursor,
    };
    return this.transport.request(getSpec('content', '/articles', query, opts), articlesPageSchema);
  }

  /** Every article matching `q`, newest first. */
  async *iterArticles(
    q: Pick<ArticlesQuery, 'tag' | 'eventId'> = {},
    it: IterateOptions = {},
    opts?: CallOptions,
  ): AsyncGenerator<Article> {
    const pageSize = intParam('pageSize', it.pageSize, 1, MAX_PAGE) ?? 100;
    yield* flatten(
      cursorPages(
        (p: PageRequest) =>
          this.listArticles(
            {
              ...q,
              limit: p.limit,
              ...(p.nextCursor !== undefined ? { nextCursor: p.nextCursor } : { offset: p.offset }),
            },
            opts,
          ),
        { ...it, pageSize },
      ),
    );
  }

  /**
   * GET /articles/{id or slug}.
   * @throws NotFoundError when there is no such article.
   */
  async getArticle(idOrSlug: string, opts?: CallOptions): Promise<Article> {
    return this.transport.request(
      getSpec('content', `/articles/${segment('article', idOrSlug)}`, undefined, opts),
      oneArticleSchema,
    );
  }
}
