/**
 * Schemas of the Content API (spec 4.4): news articles. Wire records (snake_case, success envelope
 * unwrapped by the transport) in, typed camelCase records out. See ./common.ts.
 */
import { z } from 'zod';
import { enveloped, pageSchema, tagLabels } from './common.ts';

const str = z.string();
const optStr = z.string().nullish();

/** An article. */
export const articleSchema = z
  .object({
    id: z.union([str, z.number().transform(String)]),
    slug: str,
    title: str,
    summary: optStr,
    body: optStr,
    author: optStr,
    published_at: str,
    tags: tagLabels,
    event_ids: z.array(z.union([str, z.number().transform(String)])).optional(),
    image_url: optStr,
  })
  .transform((a) => ({
    id: a.id,
    slug: a.slug,
    title: a.title,
    summary: a.summary ?? '',
    body: a.body ?? '',
    author: a.author ?? '',
    /** ISO 8601 time of publication (lists are newest first). */
    publishedAt: a.published_at,
    /** Tag labels. */
    tags: a.tags,
    /** Events the article is about. */
    eventIds: a.event_ids ?? [],
    imageUrl: a.image_url ?? null,
  }));
export type Article = z.output<typeof articleSchema>;

/** GET /articles/{id}: one article (envelope tolerated). */
export const oneArticleSchema = enveloped(articleSchema);
/** GET /articles: a page of articles. */
export const articlesPageSchema = pageSchema(articleSchema);
