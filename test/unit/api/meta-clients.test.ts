/**
 * The Gamma, Data and Content clients against a fake transport: the RequestSpec of every method,
 * the schemas (unknown fields tolerated, required ones enforced, JSON-encoded arrays parsed, money
 * exact) and the pagination iterators (offset pages, cursor pages, fallbacks, laziness).
 */
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ValidationError } from '../../../src/core/errors.ts';
import type { RequestSpec, Transport } from '../../../src/api/http/types.ts';
import { GammaClient } from '../../../src/api/gamma.ts';
import { DataClient } from '../../../src/api/data.ts';
import { ContentClient } from '../../../src/api/content.ts';
import { collect, cursorPages, offsetPages } from '../../../src/api/pagination.ts';
import { gammaMarketSchema, gammaEventSchema, commentSchema } from '../../../src/api/schemas/gamma.ts';
import {
  pageSchema,
  pipsOrNull,
  micro,
  tickSize,
  jsonStringArray,
  decimalString,
} from '../../../src/api/schemas/common.ts';
import { positionSchema, priceHistorySchema } from '../../../src/api/schemas/data.ts';
import { articleSchema } from '../../../src/api/schemas/content.ts';

/** A transport that answers from a function and records every spec. */
class FakeTransport implements Transport {
  readonly specs: RequestSpec[] = [];
  constructor(private readonly answer: (spec: RequestSpec) => unknown) {}
  async request<S extends z.ZodType>(spec: RequestSpec, schema: S): Promise<z.output<S>> {
    this.specs.push(spec);
    const r = schema.safeParse(this.answer(spec));
    if (!r.success) throw new ValidationError(`malformed response: ${r.error.issues[0]?.message}`);
    return r.data;
  }
}

const TOKENS = ['111', '222'];
const wireMarket = (over: Record<string, unknown> = {}) => ({
  id: '0xabc',
  question: 'Will it?',
  conditionId: '0xabc',
  questionID: '0xq',
  slug: 'will-it',
  outcomes: '["Yes","No"]',
  outcomePrices: '["0.55","0.45"]',
  clobTokenIds: JSON.stringify(TOKENS),
  active: true,
  closed: false,
  orderPriceMinTickSize: 0.01,
  orderMinSize: 5,
  negRisk: false,
  volume: '1234.5',
  bestBid: 0.54,
  bestAsk: 0.56,
  spread: 0.02,
  lastTradePrice: 0.55,
  endDate: '2027-01-01T00:00:00Z',
  somethingNew: { nested: true },
  ...over,
});

describe('schemas', () => {
  it('a real-Gamma-style market (camelCase only, tag objects): arrays parsed, prices in pips, sizes in micro', () => {
    const m = gammaMarketSchema.parse(wireMarket({ tags: [{ id: '1', label: 'Politics', slug: 'politics' }] }));
    expect(m).toMatchObject({
      conditionId: '0xabc',
      questionId: '0xq',
      outcomes: ['Yes', 'No'],
      outcomePrices: ['0.55', '0.45'],
      clobTokenIds: TOKENS,
      tickSize: '0.01',
      minOrderSize: 5_000_000,
      negRisk: false,
      bestBid: 5400,
      bestAsk: 5600,
      spread: 200,
      lastTradePrice: 5500,
      mid: null,
      volume: '1234.5',
      tags: ['Politics'],
      acceptingOrders: true,
    });
    expect(m.tokens).toEqual([
      { tokenId: '111', outcome: 'Yes', price: '0.55', winner: false },
      { tokenId: '222', outcome: 'No', price: '0.45', winner: false },
    ]);
    expect('somethingNew' in m).toBe(false);
  });

  it('snake_case fallbacks (mmkit fields) and exact strings win over venue floats', () => {
    const m = gammaMarketSchema.parse(
      wireMarket({
        conditionId: undefined,
        condition_id: '0xdef',
        orderPriceMinTickSize: undefined,
        tick_size: '0.001',
        orderMinSize: undefined,
        min_order_size: '2.5',
        negRisk: undefined,
        neg_risk: true,
        best_bid: '0.541',
        mid: '0.5505',
      }),
    );
    expect(m).toMatchObject({
      conditionId: '0xdef',
      tickSize: '0.001',
      minOrderSize: 2_500_000,
      negRisk: true,
      bestBid: 5410,
      mid: '0.5505',
    });
  });

  it('required fields are enforced; malformed ones fail', () => {
    const bad = [
      wireMarket({ conditionId: undefined }),
      wireMarket({ orderPriceMinTickSize: undefined }),
      wireMarket({ orderPriceMinTickSize: 0.05 }),
      wireMarket({ orderMinSize: undefined }),
      wireMarket({ clobTokenIds: undefined }),
      wireMarket({ clobTokenIds: '["1"]' }),
      wireMarket({ outcomes: '[Yes' }),
      wireMarket({ outcomes: '{"a":1}' }),
      wireMarket({ active: 'yes' }),
      wireMarket({ question: undefined }),
      wireMarket({ bestBid: 'high' }),
    ];
    for (const b of bad) expect(gammaMarketSchema.safeParse(b).success, JSON.stringify(b).slice(0, 80)).toBe(false);
  });

  it('events: spec 2.1 snake_case with markets; closed derived when absent', () => {
    const e = gammaEventSchema.parse({
      id: 7,
      slug: 's',
      title: 'T',
      markets: [wireMarket({ closed: true, active: false })],
      tags: ['A'],
      start_date: '2026-01-01',
      extra: 1,
    });
    expect(e).toMatchObject({
      id: '7',
      slug: 's',
      closed: true,
      active: false,
      tags: ['A'],
      startDate: '2026-01-01',
      negRisk: false,
      volume: '0',
    });
    expect(e.markets[0]!.closed).toBe(true);
    expect(gammaEventSchema.safeParse({ id: '1', title: 'no slug' }).success).toBe(false);
  });

  it('comments, positions, articles, price history', () => {
    expect(
      commentSchema.parse({
        id: 3,
        body: 'b',
        parent_entity_type: 'Event',
        parent_entity_id: '9',
        user_address: '0xAB',
        created_at: 't',
      }),
    ).toEqual({
      id: '3',
      body: 'b',
      parentEntityType: 'Event',
      parentEntityId: '9',
      replyTo: null,
      userAddress: '0xab',
      createdAt: 't',
    });
    expect(commentSchema.safeParse({ id: '1', body: 'b' }).success).toBe(false);
    const pos = positionSchema.parse({
      asset: '1',
      condition_id: '0xc',
      size: '5',
      avg_price: '0.4',
      initial_value: '2',
      current_value: null,
      cash_pnl: null,
      realized_pnl: '-0.25',
      cur_price: null,
      mark_source: null,
    });
    expect(pos).toMatchObject({ realizedPnl: '-0.25', currentValue: null, markSource: null, fees: '0' });
    expect(positionSchema.safeParse({ asset: '1', condition_id: '0xc', size: 'five' }).success).toBe(false);
    expect(
      articleSchema.parse({ id: '1', slug: 's', title: 't', published_at: 'p', tags: ['x'], event_ids: [5] }),
    ).toMatchObject({ eventIds: ['5'], imageUrl: null });
    const h = priceHistorySchema.parse({
      success: true,
      data: {
        history: [
          { t: 60, p: 0.57 },
          { t: '120', p: 0.0001 },
        ],
      },
    });
    expect(h.history).toEqual([
      { t: 60, price: 5700 },
      { t: 120, price: 1 },
    ]);
  });

  it('money helpers are exact', () => {
    expect(pipsOrNull.parse(0.29)).toBe(2900); // 0.29 * 10000 = 2899.9999999999995 in floats
    expect(pipsOrNull.parse('0.5555')).toBe(5555);
    expect(pipsOrNull.parse(null)).toBeNull();
    expect(micro.parse(0.1)).toBe(100_000);
    expect(micro.parse('1000000.123456')).toBe(1_000_000_123_456);
    expect(tickSize.parse(0.0001)).toBe('0.0001');
    expect(tickSize.parse('0.10')).toBe('0.1');
    expect(tickSize.safeParse(0.02).success).toBe(false);
    expect(jsonStringArray.parse('["a", 1.5]')).toEqual(['a', '1.5']);
    expect(jsonStringArray.parse(['x'])).toEqual(['x']);
    expect(decimalString.parse(-1.25)).toBe('-1.25');
    expect(decimalString.safeParse('1e5').success).toBe(false);
  });

  it('pages: the transport-unwrapped form, the raw envelope and a bare array', () => {
    const s = pageSchema(articleSchema);
    const art = { id: '1', slug: 's', title: 't', published_at: 'p' };
    expect(s.parse({ data: [art], total: 9, next_cursor: 'MQ==', limit: 1, offset: 0, count: 1 })).toMatchObject({
      total: 9,
      nextCursor: 'MQ==',
      limit: 1,
      offset: 0,
    });
    expect(s.parse([art])).toMatchObject({ total: null, nextCursor: null });
    expect(s.safeParse({ data: [{ id: 1 }] }).success).toBe(false);
  });
});

describe('request specs', () => {
  const market = wireMarket();
  const fake = new FakeTransport((spec) => {
    if (spec.api === 'gamma') {
      if (spec.path === '/health') return { status: 'ok' };
      if (spec.path.startsWith('/markets/data')) return [];
      if (spec.path.startsWith('/markets/')) return market;
      if (spec.path === '/markets') return [market];
      if (spec.path === '/comments' && spec.method === 'POST')
        return { id: '1', body: 'hi', parentEntityType: 'Market', parentEntityID: '0xabc', userAddress: '0x1' };
      if (spec.path === '/search' || spec.path === '/public-search') return { events: [], markets: [market], tags: [] };
      return [];
    }
    if (spec.api === 'data') {
      if (spec.path === '/prices') return { history: [] };
      return { data: [], total: 0, next_cursor: 'LTE=' };
    }
    return { data: [], total: 0, next_cursor: 'LTE=' };
  });
  const g = new GammaClient(fake);
  const d = new DataClient(fake);
  const c = new ContentClient(fake);
  const last = () => fake.specs.at(-1)!;
  /** Only the request spec matters here: the canned answer may not fit every schema. */
  const sent = (p: Promise<unknown>) => p.catch(() => undefined);

  it('Gamma: paths, queries, auth and idempotence', async () => {
    await g.listMarkets({
      conditionIds: ['0x1', '0x2'],
      clobTokenIds: '7',
      active: true,
      order: 'volume',
      ascending: true,
      limit: 50,
      offset: 100,
    });
    expect(last()).toMatchObject({ api: 'gamma', method: 'GET', path: '/markets', auth: 'none', idempotent: true });
    expect(last().query).toMatchObject({
      condition_ids: ['0x1', '0x2'],
      clob_token_ids: '7',
      active: true,
      order: 'volume',
      ascending: true,
      limit: 50,
      offset: 100,
    });
    await g.getMarket('a b/c');
    expect(last().path).toBe('/markets/a%20b%2Fc');
    await g.getMarketBySlug('slug-1');
    expect(last().path).toBe('/markets/slug/slug-1');
    await g.marketFigures({ conditionIds: '0x1' });
    expect(last()).toMatchObject({ path: '/markets/data', query: { condition_ids: '0x1' } });
    await g.listComments({ parentEntityType: 'Market', parentEntityId: '0xabc', user: '0x' + 'a'.repeat(40) });
    expect(last().query).toMatchObject({
      parent_entity_type: 'Market',
      parent_entity_id: '0xabc',
      user: '0x' + 'a'.repeat(40),
    });
    const ac = new AbortController();
    await g.postComment(
      { body: 'hi', parentEntityType: 'Market', parentEntityId: '0xabc', replyTo: '5' },
      { signal: ac.signal, timeoutMs: 1234 },
    );
    expect(last()).toEqual({
      api: 'gamma',
      method: 'POST',
      path: '/comments',
      body: { body: 'hi', parentEntityType: 'Market', parentEntityID: '0xabc', replyTo: '5' },
      auth: 'l2',
      idempotent: false,
      signal: ac.signal,
      timeoutMs: 1234,
    });
    await g.search(' btc ', { path: '/public-search', limit: 3 });
    expect(last()).toMatchObject({ path: '/public-search', query: { q: 'btc', limit: 3 } });
    await sent(g.getProfile('0x' + 'AB'.repeat(20)));
    expect(last().path).toBe('/profiles/0x' + 'ab'.repeat(20));
    await g.listSeries({ slug: 'nba' });
    expect(last()).toMatchObject({ path: '/series', query: { slug: 'nba' } });
    await sent(g.getTag('Crypto'));
    expect(last().path).toBe('/tags/Crypto');
    await sent(g.getEventBySlug('e'));
    expect(last().path).toBe('/events/slug/e');
    const n = fake.specs.length;
    await expect(g.listMarkets({ limit: 0 })).rejects.toBeInstanceOf(ValidationError);
    await expect(g.getProfile('0xnope')).rejects.toBeInstanceOf(ValidationError);
    await expect(g.postComment({ body: '', parentEntityType: 'Market', parentEntityId: '1' })).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(g.getMarket('')).rejects.toBeInstanceOf(ValidationError);
    expect(fake.specs.length).toBe(n); // refused before sending
  });

  it('Data and Content: paths and queries; a cursor replaces the offset', async () => {
    const addr = '0x' + 'c'.repeat(40);
    await d.userTrades(addr, { side: 'BUY', role: 'MAKER', market: '0xm', asset: '9', limit: 5, offset: 10 });
    expect(last()).toMatchObject({
      api: 'data',
      path: `/users/${addr}/trades`,
      auth: 'none',
      idempotent: true,
      query: { side: 'BUY', role: 'MAKER', market: '0xm', asset: '9', limit: 5, offset: 10 },
    });
    await d.userTrades(addr, { nextCursor: 'Mg==', offset: 10 });
    expect(last().query).toMatchObject({ next_cursor: 'Mg==', offset: undefined });
    await sent(d.userPositions(addr, { sizeThreshold: '1.5' }));
    expect(last()).toMatchObject({ path: `/users/${addr}/positions`, query: { sizeThreshold: '1.5' } });
    await sent(d.userPnl(addr, { history: true }));
    expect(last()).toMatchObject({ path: `/users/${addr}/pnl`, query: { history: 'true' } });
    await d.priceHistory({ market: '0xm', interval: '1w', fidelity: 60 });
    expect(last()).toMatchObject({ path: '/prices', query: { market: '0xm', interval: '1w', fidelity: 60 } });
    await sent(d.builderVolume('key/1', { startTs: 5 }));
    expect(last()).toMatchObject({ path: '/builders/key%2F1/volume', query: { startTs: 5 } });
    await d.listEvents({ tag: 'x', closed: false, nextCursor: 'MQ==' });
    expect(last()).toMatchObject({ path: '/events', query: { tag: 'x', closed: false, next_cursor: 'MQ==' } });
    await c.listArticles({ tag: 't', eventId: 'e', limit: 2 });
    expect(last()).toMatchObject({ api: 'content', path: '/articles', query: { tag: 't', event_id: 'e', limit: 2 } });
    await expect(d.priceHistory({ market: 'm', interval: '2d' as '1d' })).rejects.toBeInstanceOf(ValidationError);
    await expect(d.userPositions(addr, { sizeThreshold: '-1' })).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('pagination', () => {
  const items = Array.from({ length: 23 }, (_, i) => i);

  it('offset pages: advance by the page, stop on a short page; maxItems; lazy', async () => {
    const calls: Array<[number, number]> = [];
    const fetch = async (p: { limit: number; offset: number }) => {
      calls.push([p.limit, p.offset]);
      return items.slice(p.offset, p.offset + p.limit);
    };
    expect((await collect(offsetPages(fetch, { pageSize: 5 }))).flat()).toEqual(items);
    expect(calls).toEqual([
      [5, 0],
      [5, 5],
      [5, 10],
      [5, 15],
      [5, 20],
    ]);
    calls.length = 0;
    // an exact multiple needs one empty page to know it is over
    const exact = async (p: { limit: number; offset: number }) =>
      items.slice(0, 20).slice(p.offset, p.offset + p.limit);
    expect((await collect(offsetPages(exact, { pageSize: 10 }))).flat()).toHaveLength(20);
    expect((await collect(offsetPages(fetch, { pageSize: 5, maxItems: 7, offset: 3 }))).flat()).toEqual([
      3, 4, 5, 6, 7, 8, 9,
    ]);
    calls.length = 0;
    for await (const page of offsetPages(fetch, { pageSize: 5 })) {
      expect(page).toHaveLength(5);
      break;
    }
    expect(calls).toHaveLength(1); // pulled: no request past the break
  });

  it('cursor pages: follow next_cursor until LTE=', async () => {
    const reqs: unknown[] = [];
    const fetch = async (p: { limit: number; offset: number; nextCursor?: string }) => {
      reqs.push(p);
      const off = p.nextCursor !== undefined ? Number(Buffer.from(p.nextCursor, 'base64').toString()) : p.offset;
      const slice = items.slice(off, off + p.limit);
      const end = off + slice.length;
      return {
        items: slice,
        nextCursor: end >= items.length ? 'LTE=' : Buffer.from(String(end)).toString('base64'),
        total: items.length,
        limit: p.limit,
        offset: off,
      };
    };
    expect((await collect(cursorPages(fetch, { pageSize: 10 }))).flat()).toEqual(items);
    expect(reqs).toEqual([
      { limit: 10, offset: 0 },
      { limit: 10, offset: 10, nextCursor: 'MTA=' },
      { limit: 10, offset: 20, nextCursor: 'MjA=' },
    ]);
  });

  it('cursor pages without cursors fall back to offsets and the total', async () => {
    let n = 0;
    const fetch = async (p: { limit: number; offset: number }) => {
      n++;
      return {
        items: items.slice(p.offset, p.offset + p.limit),
        nextCursor: null,
        total: 20,
        limit: null,
        offset: null,
      };
    };
    // total says 20: stop there even though pages are full
    expect((await collect(cursorPages(fetch, { pageSize: 10 }))).flat()).toEqual(items.slice(0, 20));
    expect(n).toBe(2);
  });

  it('a cursor that does not advance is an error, not an endless loop', async () => {
    const fetch = async () => ({ items: [1], nextCursor: 'MQ==', total: null, limit: null, offset: null });
    await expect(collect(cursorPages(fetch, { pageSize: 1 }))).rejects.toBeInstanceOf(ValidationError);
    await expect(collect(offsetPages(async () => [], { pageSize: 0 }))).rejects.toBeInstanceOf(ValidationError);
  });

  it('client iterators walk the pages through the transport', async () => {
    const all = Array.from({ length: 12 }, (_, i) => ({
      id: String(i),
      slug: `a${i}`,
      title: 't',
      published_at: String(100 - i),
    }));
    const fake = new FakeTransport((spec) => {
      const q = spec.query ?? {};
      const limit = Number(q['limit']);
      const off =
        q['next_cursor'] !== undefined
          ? Number(Buffer.from(String(q['next_cursor']), 'base64').toString())
          : Number(q['offset'] ?? 0);
      const end = Math.min(all.length, off + limit);
      return {
        data: all.slice(off, end),
        total: all.length,
        next_cursor: end >= all.length ? 'LTE=' : Buffer.from(String(end)).toString('base64'),
      };
    });
    const got = await collect(new ContentClient(fake).iterArticles({ tag: 'x' }, { pageSize: 5 }));
    expect(got.map((a) => a.id)).toEqual(all.map((a) => a.id));
    expect(fake.specs.map((s) => s.query)).toEqual([
      { tag: 'x', event_id: undefined, limit: 5, offset: 0, next_cursor: undefined },
      { tag: 'x', event_id: undefined, limit: 5, offset: undefined, next_cursor: 'NQ==' },
      { tag: 'x', event_id: undefined, limit: 5, offset: undefined, next_cursor: 'MTA=' },
    ]);
    const gfake = new FakeTransport((spec) => {
      const q = spec.query ?? {};
      return Array.from({ length: Math.max(0, Math.min(Number(q['limit']), 8 - Number(q['offset']))) }, (_, i) => ({
        id: String(Number(q['offset']) + i),
        label: 'L',
        slug: 's',
      }));
    });
    expect((await collect(new GammaClient(gfake).iterTags({ pageSize: 3 }))).map((t) => t.id)).toEqual([
      '0',
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      '7',
    ]);
    expect(gfake.specs).toHaveLength(3);
  });
});
