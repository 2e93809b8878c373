/**
 * The Content API over real HTTP with plain fetch: articles newest first, tag and event filters,
 * pagination, one article by id or slug, the success and error envelopes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArticleRec } from '../../src/exchange/world/model.ts';
import { startVenue, type TestVenue } from './support/setup.ts';

let v: TestVenue;
let content: string;

async function get(path: string): Promise<{ status: number; body: any }> {
  const r = await fetch(`${content}${path}`);
  return { status: r.status, body: await r.json() };
}

function article(n: number, over: Partial<ArticleRec> = {}): ArticleRec {
  return {
    id: `tst-art-${n}`,
    slug: `tst-article-${n}`,
    title: `Article ${n}`,
    summary: `Summary ${n}`,
    body: `Body of article ${n}`,
    author: 'Desk',
    publishedAt: `2026-03-${String(10 + n).padStart(2, '0')}T12:00:00.000Z`,
    tags: n % 2 === 0 ? ['Tst Even'] : ['Tst Odd'],
    eventIds: n === 3 ? ['tst-ev-3'] : [],
    imageUrl: `https://img.example/a${n}.png`,
    ...over,
  };
}

beforeAll(async () => {
  v = await startVenue({ http: { rateLimits: { enabled: true, scale: 20, queueMs: 500 } } });
  content = v.running.urls.content_url;
  const ex = v.running.exchange;
  ex.exec({ k: 'tag', tag: { id: 'tst-even', label: 'Tst Even', slug: 'tst-even' } });
  // stored out of time order on purpose
  for (const n of [3, 1, 5, 2, 4]) ex.exec({ k: 'article', article: article(n) });
});
afterAll(async () => v?.close());

describe('articles', () => {
  it('lists articles newest first in the success envelope, paginated', async () => {
    const r = await get('/articles?limit=500');
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(true);
    const mine = r.body.data.filter((a: any) => a.id.startsWith('tst-art-')).map((a: any) => a.id);
    expect(mine).toEqual(['tst-art-5', 'tst-art-4', 'tst-art-3', 'tst-art-2', 'tst-art-1']);
    const first = r.body.data.find((a: any) => a.id === 'tst-art-5');
    expect(first).toEqual({
      id: 'tst-art-5',
      slug: 'tst-article-5',
      title: 'Article 5',
      summary: 'Summary 5',
      body: 'Body of article 5',
      author: 'Desk',
      published_at: '2026-03-15T12:00:00.000Z',
      tags: ['Tst Odd'],
      event_ids: [],
      image_url: 'https://img.example/a5.png',
    });
    const total = r.body.total as number;
    expect((await get('/articles')).body.data).toHaveLength(Math.min(10, total));
    const p1 = await get('/articles?limit=2&tag=tst-odd');
    expect(p1.body.data.map((a: any) => a.id)).toEqual(['tst-art-5', 'tst-art-3']);
    expect(p1.body).toMatchObject({ count: 2, limit: 2, offset: 0, total: 3 });
    const p2 = await get(`/articles?limit=2&tag=tst-odd&next_cursor=${encodeURIComponent(p1.body.next_cursor)}`);
    expect(p2.body.data.map((a: any) => a.id)).toEqual(['tst-art-1']);
    expect(p2.body.next_cursor).toBe('LTE=');
    expect((await get('/articles?tag=Tst%20Even')).body.data.map((a: any) => a.id)).toEqual(['tst-art-4', 'tst-art-2']);
    expect((await get('/articles?event_id=tst-ev-3')).body.data.map((a: any) => a.id)).toEqual(['tst-art-3']);
    expect((await get('/articles?limit=abc')).status).toBe(400);
  });

  it('serves one article by id or slug; 404 otherwise', async () => {
    const byId = await get('/articles/tst-art-2');
    expect(byId.status).toBe(200);
    expect(byId.body).toMatchObject({
      success: true,
      data: { id: 'tst-art-2', title: 'Article 2', body: 'Body of article 2' },
    });
    expect((await get('/articles/tst-article-2')).body.data.id).toBe('tst-art-2');
    const missing = await get('/articles/nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ success: false, error: { code: 'NOT_FOUND', message: expect.any(String) } });
  });

  it('health is enveloped', async () => {
    expect(await get('/health')).toEqual({ status: 200, body: { success: true, data: { status: 'ok' } } });
  });
});
