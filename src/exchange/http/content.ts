/**
 * The Content API (spec 4.4) of the paper exchange, mounted under /content: news articles. Every
 * success is the spec's envelope `{success: true, data}` (lists: the array in `data`, the page
 * facts `count, limit, offset, total, next_cursor` beside it); errors are the error envelope.
 */
import type { FastifyInstance } from 'fastify';
import type { PaperExchange } from '../exchange.ts';
import { qString, type Query } from './body.ts';
import { notFound } from './errors.ts';
import { articleRecord, ok, okPage, paginate, tagMatcher } from './render-meta.ts';

/**
 * The Content routes: GET /health, GET /articles (newest first; `tag` by label, slug or id;
 * `event_id`; limit 10 by default, offset or next_cursor), GET /articles/{id or slug}.
 */
export function contentRoutes(ex: PaperExchange) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    app.get('/health', async () => ok({ status: 'ok' }));

    app.get('/articles', async (req) => {
      const q = req.query as Query;
      const tag = qString(q, 'tag');
      const tagOk = tag === undefined ? () => true : tagMatcher(ex, tag);
      const eventId = qString(q, 'event_id');
      const list = [...ex.world.articles.values()]
        .map((a, i) => ({ a, i }))
        .filter(({ a }) => tagOk(a.tags) && (eventId === undefined || a.eventIds.includes(eventId)));
      // newest first; equal times: the later stored first
      list.sort((x, y) => (x.a.publishedAt < y.a.publishedAt ? 1 : x.a.publishedAt > y.a.publishedAt ? -1 : y.i - x.i));
      return okPage(paginate(list, q, 10), ({ a }) => articleRecord(a));
    });

    app.get<{ Params: { id: string } }>('/articles/:id', async (req) => {
      const id = req.params.id;
      const a = ex.world.articles.get(id) ?? [...ex.world.articles.values()].find((x) => x.slug === id);
      if (a === undefined) throw notFound('article not found');
      return ok(articleRecord(a));
    });
  };
}
