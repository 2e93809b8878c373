/**
 * The market-metadata (Gamma) API over real HTTP with plain fetch: events, markets, filters,
 * ordering and pagination, search, tags/sports/series, comments (L2 and Bearer auth), profiles.
 * The world's records are created through the exchange's commands; trades are real signed orders.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { l2Headers } from '../../src/api/signing/hmac.ts';
import type { PaperExchange } from '../../src/exchange/exchange.ts';
import type { EventRec } from '../../src/exchange/world/model.ts';
import { no, startVenue, yes, type TestVenue } from './support/setup.ts';
import type { MarketInfo, Trader } from './support/trader.ts';

let v: TestVenue;
let ex: PaperExchange;
let gamma: string;
let a: Trader;
let b: Trader;
let mOpen: MarketInfo; // in the open event, traded
let mOther: MarketInfo; // in the open event, untraded
let mClosed: MarketInfo; // alone in an event, closed

const SPEC_EVENT_FIELDS = [
  'id',
  'slug',
  'title',
  'description',
  'markets',
  'tags',
  'start_date',
  'end_date',
  'image_url',
  'created_at',
];

async function get(path: string): Promise<{ status: number; body: any; headers: Headers }> {
  const r = await fetch(`${gamma}${path}`);
  return { status: r.status, body: await r.json(), headers: r.headers };
}

function event(id: string, over: Partial<EventRec> = {}): EventRec {
  return {
    id,
    slug: `tst-event-${id}`,
    title: `Test event ${id}`,
    description: `Description of test event ${id}`,
    tags: [],
    category: 'misc',
    startDate: '2026-01-01T00:00:00.000Z',
    endDate: '2026-12-31T00:00:00.000Z',
    imageUrl: `https://img.example/${id}.png`,
    createdAt: '2026-01-01T00:00:00.000Z',
    negRisk: false,
    marketIds: [],
    ...over,
  };
}

async function postComment(
  t: Trader | undefined,
  body: unknown,
  auth: 'l2' | 'bearer' | 'none' = 'l2',
  raw?: string,
): Promise<{ status: number; body: any }> {
  const bodyStr = raw ?? JSON.stringify(body);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (auth === 'l2' && t) {
    const c = t.creds!;
    Object.assign(
      headers,
      l2Headers(
        { key: c.apiKey, secret: c.secret, passphrase: c.passphrase },
        t.wallet.address,
        'POST',
        '/comments',
        bodyStr,
        Math.floor(Date.now() / 1000),
      ),
    );
  } else if (auth === 'bearer' && t) headers.authorization = `Bearer ${t.creds!.apiKey}`;
  const r = await fetch(`${gamma}/comments`, { method: 'POST', headers, body: bodyStr });
  return { status: r.status, body: await r.json() };
}

beforeAll(async () => {
  v = await startVenue({ http: { rateLimits: { enabled: true, scale: 20, queueMs: 500 } } });
  ex = v.running.exchange;
  gamma = v.running.urls.gamma_url;
  a = await v.trader();
  b = await v.trader();
  const plain = v.markets.filter((m) => !m.neg_risk && m.minimum_tick_size === 0.01);
  mOpen = v.m1;
  mOther = v.markets.find((m) => m !== mOpen && m.condition_id !== v.negRisk.condition_id)!;
  mClosed = v.markets.find((m) => m !== mOpen && m !== mOther && m.condition_id !== v.negRisk.condition_id)!;
  expect(plain.length).toBeGreaterThan(0);

  ex.exec({ k: 'tag', tag: { id: 'tst-t1', label: 'Tst Crypto', slug: 'tst-crypto' } });
  ex.exec({ k: 'tag', tag: { id: 'tst-t2', label: 'Tst Sports', slug: 'tst-sports' } });
  ex.exec({
    k: 'series',
    series: { id: 'tst-s1', slug: 'tst-daily', title: 'Tst daily', recurrence: 'daily', category: 'misc' },
  });
  ex.exec({
    k: 'sport',
    sport: { id: 'tst-sp1', sport: 'tstball', label: 'Tst Ball', image: '', tags: ['Tst Sports'] },
  });
  ex.exec({
    k: 'event',
    event: event('e-open', {
      title: 'Zephyr open question',
      tags: ['Tst Crypto'],
      marketIds: [mOpen.condition_id, mOther.condition_id],
      seriesSlug: 'tst-daily',
      startDate: '2026-02-01T00:00:00.000Z',
    }),
  });
  ex.exec({
    k: 'event',
    event: event('e-closed', {
      tags: ['Tst Sports'],
      marketIds: [mClosed.condition_id],
      startDate: '2026-03-01T00:00:00.000Z',
    }),
  });
  for (let i = 0; i < 23; i++) ex.exec({ k: 'event', event: event(`filler-${String(i).padStart(2, '0')}`) });
  ex.exec({
    k: 'profile',
    profile: {
      address: a.address,
      name: 'Alice',
      pseudonym: 'Quiet-Fox',
      bio: 'hi',
      profileImage: '',
      createdAt: '2026-01-02T00:00:00.000Z',
    },
  });

  const r = await v.admin(`/markets/${mClosed.condition_id}/close`, {});
  expect(r.status).toBe(200);
  // a real trade on mOpen: B bids YES 0.40, A buys NO at 0.60 (a pair is minted)
  expect((await b.place(yes(mOpen), 'BUY', '0.40', '10')).body.status).toBe('live');
  expect((await a.place(no(mOpen), 'BUY', '0.60', '10')).body.status).toBe('matched');
  // and a two-sided quote on mOpen: YES 0.45 / 0.55
  expect((await b.place(yes(mOpen), 'BUY', '0.45', '5')).body.status).toBe('live');
  expect((await b.place(yes(mOpen), 'SELL', '0.55', '5')).body.status).toBe('live');
});
afterAll(async () => v?.close());

describe('health', () => {
  it('answers {status: ok}, bare', async () => {
    const r = await get('/health');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ok' });
  });
});

describe('events', () => {
  it('lists bare event records with the spec fields, 20 by default', async () => {
    const r = await get('/events');
    expect(r.status).toBe(200);
    expect(Array.isArray(r.body)).toBe(true);
    const total = Number(r.headers.get('x-total-count'));
    expect(total).toBeGreaterThanOrEqual(25);
    expect(r.body).toHaveLength(20);
    for (const ev of r.body) {
      for (const f of SPEC_EVENT_FIELDS) expect(ev).toHaveProperty(f);
      expect(Array.isArray(ev.tags)).toBe(true);
      expect(typeof ev.start_date).toBe('string');
    }
    expect(r.headers.get('x-next-cursor')).not.toBe('LTE=');
  });

  it('pages with limit/offset and next_cursor consistently', async () => {
    const all = (await get('/events?limit=500')).body.map((e: any) => e.id);
    const byOffset: string[] = [];
    for (let off = 0; off < all.length; off += 7)
      byOffset.push(...(await get(`/events?limit=7&offset=${off}`)).body.map((e: any) => e.id));
    expect(byOffset).toEqual(all);
    const byCursor: string[] = [];
    let cursor = 'MA==';
    for (let i = 0; i < 100 && cursor !== 'LTE='; i++) {
      const r = await get(`/events?limit=6&next_cursor=${encodeURIComponent(cursor)}`);
      byCursor.push(...r.body.map((e: any) => e.id));
      cursor = r.headers.get('x-next-cursor')!;
    }
    expect(cursor).toBe('LTE=');
    expect(byCursor).toEqual(all);
    expect((await get('/events?limit=0')).status).toBe(400);
    expect((await get('/events?limit=501')).status).toBe(400);
    expect((await get('/events?offset=-1')).body.success).toBe(false);
  });

  it('serves one event by slug or id, with its markets and tokens', async () => {
    const r = await get('/events/tst-event-e-open');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: 'e-open',
      slug: 'tst-event-e-open',
      title: 'Zephyr open question',
      tags: ['Tst Crypto'],
      active: true,
      closed: false,
      series_slug: 'tst-daily',
    });
    expect(r.body.markets.map((m: any) => m.id)).toEqual([mOpen.condition_id, mOther.condition_id]);
    const m = r.body.markets[0];
    expect(m).toMatchObject({
      id: mOpen.condition_id,
      condition_id: mOpen.condition_id,
      active: true,
      question: expect.any(String),
    });
    expect(m.tokens.map((t: any) => t.token_id)).toEqual([yes(mOpen), no(mOpen)]);
    expect(m.tokens.map((t: any) => t.outcome)).toEqual(['Yes', 'No']);
    expect(r.body.volume).toBe('4');
    expect((await get('/events/e-open')).body.slug).toBe('tst-event-e-open');
    expect((await get('/events/slug/tst-event-e-open')).body.id).toBe('e-open');
    const missing = await get('/events/no-such-event');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
  });

  it('filters closed (true: only closed, false: only open, absent: both) and by tag', async () => {
    const closed = (await get('/events?closed=true&limit=500')).body.map((e: any) => e.id);
    expect(closed).toContain('e-closed');
    expect(closed).not.toContain('e-open');
    const open = (await get('/events?closed=false&limit=500')).body.map((e: any) => e.id);
    expect(open).toContain('e-open');
    expect(open).not.toContain('e-closed');
    const all = (await get('/events?limit=500')).body.map((e: any) => e.id);
    expect(all).toEqual(expect.arrayContaining(['e-open', 'e-closed']));
    const ec = (await get('/events/e-closed')).body;
    expect(ec).toMatchObject({ active: false, closed: true });
    expect(ec.markets[0]).toMatchObject({ active: false, closed: true, acceptingOrders: false });
    for (const tag of ['Tst Crypto', 'tst-crypto', 'TST-CRYPTO', 'tst-t1']) {
      const r = (await get(`/events?tag=${encodeURIComponent(tag)}&limit=500`)).body.map((e: any) => e.id);
      expect(r).toEqual(['e-open']);
    }
    expect((await get('/events?tag=nothing-like-this')).body).toEqual([]);
    expect((await get('/events?closed=maybe')).status).toBe(400);
  });

  it('orders by volume and start_date', async () => {
    // the seeded world has events too: check the order, and that e-open sits at its volume's rank
    const byVol = (await get('/events?order=volume&limit=500')).body;
    for (let i = 1; i < byVol.length; i++) expect(byVol[i - 1].volumeNum).toBeGreaterThanOrEqual(byVol[i].volumeNum);
    const openVol = byVol.find((e: any) => e.id === 'e-open').volumeNum;
    expect(openVol).toBe(Math.max(...byVol.map((e: any) => e.volumeNum)));
    expect(byVol.findIndex((e: any) => e.id === 'e-open')).toBeLessThan(
      byVol.findIndex((e: any) => e.id === 'e-closed'),
    );
    const byStartDesc = (await get('/events?order=start_date&limit=500')).body.map((e: any) => e.id);
    expect(byStartDesc.indexOf('e-closed')).toBeLessThan(byStartDesc.indexOf('e-open'));
    const byStartAsc = (await get('/events?order=start_date&ascending=true&limit=500')).body.map((e: any) => e.id);
    expect(byStartAsc.indexOf('e-open')).toBeLessThan(byStartAsc.indexOf('e-closed'));
    expect((await get('/events?order=colour')).status).toBe(400);
  });
});

describe('markets', () => {
  it('lists market records in both the venue camelCase and the snake_case form, 10 by default', async () => {
    const r = await get('/markets');
    expect(r.status).toBe(200);
    expect(r.body).toHaveLength(Math.min(10, v.markets.length));
    const m = (await get(`/markets/${mOpen.condition_id}`)).body;
    expect(m).toMatchObject({
      id: mOpen.condition_id,
      conditionId: mOpen.condition_id,
      condition_id: mOpen.condition_id,
      active: true,
      closed: false,
      archived: false,
      acceptingOrders: true,
      enableOrderBook: true,
      orderPriceMinTickSize: 0.01,
      orderMinSize: 5,
      negRisk: false,
      neg_risk: false,
      tick_size: '0.01',
      min_order_size: '5',
      volume: '4',
      volumeNum: 4,
      bestBid: 0.45,
      bestAsk: 0.55,
      spread: 0.1,
      lastTradePrice: 0.4,
      best_bid: '0.45',
      best_ask: '0.55',
      mid: '0.5',
      last_trade_price: '0.4',
      event_id: 'e-open',
      tags: expect.arrayContaining(['Tst Crypto']),
    });
    expect(typeof m.outcomes).toBe('string');
    expect(JSON.parse(m.outcomes)).toEqual(['Yes', 'No']);
    expect(JSON.parse(m.clobTokenIds)).toEqual([yes(mOpen), no(mOpen)]);
    expect(JSON.parse(m.outcomePrices)).toEqual(['0.5', '0.5']);
    expect(m.tokens).toEqual([
      { token_id: yes(mOpen), outcome: 'Yes', price: '0.5', winner: false },
      { token_id: no(mOpen), outcome: 'No', price: '0.5', winner: false },
    ]);
    expect(typeof m.liquidity).toBe('string');
    expect(typeof m.liquidityNum).toBe('number');
    expect(m.events).toEqual([expect.objectContaining({ id: 'e-open', slug: 'tst-event-e-open' })]);
    expect(typeof m.end_date).toBe('string');
    // by slug too; unknown is 404
    expect((await get(`/markets/slug/${m.slug}`)).body.id).toBe(mOpen.condition_id);
    expect((await get(`/markets/${m.slug}`)).body.id).toBe(mOpen.condition_id);
    const missing = await get(`/markets/0x${'ab'.repeat(32)}`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
  });

  it('filters by condition_ids, clob_token_ids, slug, active/closed, tag and category', async () => {
    const two = (
      await get(`/markets?condition_ids=${mOpen.condition_id}&condition_ids=${mClosed.condition_id}`)
    ).body.map((m: any) => m.id);
    expect(two.sort()).toEqual([mOpen.condition_id, mClosed.condition_id].sort());
    const byTok = (await get(`/markets?clob_token_ids=${no(mOther)}`)).body;
    expect(byTok.map((m: any) => m.id)).toEqual([mOther.condition_id]);
    const slug = byTok[0].slug;
    expect((await get(`/markets?slug=${slug}`)).body.map((m: any) => m.id)).toEqual([mOther.condition_id]);
    const closed = (await get('/markets?closed=true&limit=500')).body;
    expect(closed.map((m: any) => m.id)).toContain(mClosed.condition_id);
    expect(closed.map((m: any) => m.id)).not.toContain(mOpen.condition_id);
    for (const m of closed) expect(m).toMatchObject({ closed: true, active: false });
    const active = (await get('/markets?active=true&limit=500')).body;
    expect(active.map((m: any) => m.id)).toContain(mOpen.condition_id);
    expect(active.map((m: any) => m.id)).not.toContain(mClosed.condition_id);
    for (const m of active) expect(m).toMatchObject({ closed: false, active: true });
    const both = (await get('/markets?limit=500')).body;
    expect(both).toHaveLength(active.length + closed.length);
    const tagged = (await get('/markets?tag=tst-crypto&limit=500')).body.map((m: any) => m.id);
    expect(tagged.sort()).toEqual([mOpen.condition_id, mOther.condition_id].sort());
    const cat = byTok[0].category as string;
    const byCat = (await get(`/markets?category=${encodeURIComponent(cat.toUpperCase())}&limit=500`)).body;
    expect(byCat.length).toBeGreaterThan(0);
    for (const m of byCat) expect(m.category.toLowerCase()).toBe(cat.toLowerCase());
  });

  it('filters by the public ranges (volume, liquidity, start and end dates), inclusive; a bad bound is a 400 (trial 24 F3)', async () => {
    const all = (await get('/markets?limit=500')).body as any[];
    const ids = (xs: any[]) => xs.map((m) => m.id).sort();
    const open = all.find((m) => m.id === mOpen.condition_id)!;
    expect(open.volumeNum).toBeGreaterThan(0);
    // volume: exactly the traded market's volume is in (inclusive), a cent more is out
    const vol = (await get(`/markets?volume_num_min=${open.volume}&limit=500`)).body;
    expect(ids(vol)).toEqual(ids(all.filter((m) => m.volumeNum >= open.volumeNum)));
    expect(ids(vol)).toContain(mOpen.condition_id);
    const above = (await get(`/markets?volume_num_min=${open.volumeNum + 0.01}&limit=500`)).body;
    expect(ids(above)).not.toContain(mOpen.condition_id);
    const quiet = (await get('/markets?volume_num_max=0&limit=500')).body;
    expect(ids(quiet)).toEqual(ids(all.filter((m) => m.volumeNum === 0)));
    expect(quiet.length).toBeLessThan(all.length);
    const liquid = (await get(`/markets?liquidity_num_min=${open.liquidityNum}&limit=500`)).body;
    expect(ids(liquid)).toEqual(ids(all.filter((m) => m.liquidityNum >= open.liquidityNum)));
    // end dates: those ending by a date between the earliest and latest
    const ends = all.map((m) => Date.parse(m.endDate)).sort((x, y) => x - y);
    const mid = new Date(ends[Math.floor(ends.length / 2)]!).toISOString();
    const soon = (await get(`/markets?end_date_max=${mid}&limit=500`)).body;
    expect(ids(soon)).toEqual(ids(all.filter((m) => Date.parse(m.endDate) <= Date.parse(mid))));
    expect(soon.length).toBeGreaterThan(0);
    expect(soon.length).toBeLessThan(all.length);
    const late = (await get(`/markets?end_date_min=${mid}&limit=500`)).body;
    expect(ids(late)).toEqual(ids(all.filter((m) => Date.parse(m.endDate) >= Date.parse(mid))));
    // events: volume_min, start_date_min/max
    const evs = (await get('/events?volume_min=0.000001&limit=500')).body;
    expect(evs.map((e: any) => e.id)).toContain('e-open');
    for (const e of evs) expect(e.volumeNum).toBeGreaterThan(0);
    const started = (await get('/events?start_date_min=2026-02-01&start_date_max=2026-02-28T23:59:59Z&limit=500')).body;
    expect(started.map((e: any) => e.id)).toEqual(['e-open']);
    for (const bad of ['volume_num_min=lots', 'end_date_max=someday', 'liquidity_num_max=-1']) {
      const r = await get(`/markets?${bad}`);
      expect(r.status, bad).toBe(400);
      expect(r.body.error.message).toContain(bad.split('=')[0]);
    }
  });

  it('orders by volume (descending by default, ascending=true) and pages consistently', async () => {
    const desc = (await get('/markets?order=volume&limit=500')).body;
    expect(desc[0].id).toBe(mOpen.condition_id);
    for (let i = 1; i < desc.length; i++) expect(desc[i - 1].volumeNum).toBeGreaterThanOrEqual(desc[i].volumeNum);
    const asc = (await get('/markets?order=volume&ascending=true&limit=500')).body;
    expect(asc[asc.length - 1].id).toBe(mOpen.condition_id);
    const liq = (await get('/markets?order=liquidity&limit=1')).body;
    expect(liq[0].id).toBe(mOpen.condition_id);
    const all = (await get('/markets?limit=500')).body.map((m: any) => m.id);
    const paged: string[] = [];
    let cursor = 'MA==';
    while (cursor !== 'LTE=') {
      const r = await get(`/markets?limit=3&next_cursor=${encodeURIComponent(cursor)}`);
      paged.push(...r.body.map((m: any) => m.id));
      cursor = r.headers.get('x-next-cursor')!;
    }
    expect(paged).toEqual(all);
    expect((await get('/markets?limit=3&offset=3')).body.map((m: any) => m.id)).toEqual(all.slice(3, 6));
  });

  it('serves bulk market data, optionally filtered', async () => {
    const all = (await get('/markets/data')).body;
    expect(all).toHaveLength(v.markets.length);
    const one = (await get(`/markets/data?condition_ids=${mOpen.condition_id}`)).body;
    expect(one).toEqual([
      {
        condition_id: mOpen.condition_id,
        token_ids: [yes(mOpen), no(mOpen)],
        active: true,
        closed: false,
        best_bid: '0.45',
        best_ask: '0.55',
        mid: '0.5',
        last_trade_price: '0.4',
        spread: '0.1',
        volume: '4',
        liquidity: expect.any(String),
      },
    ]);
    const other = all.find((x: any) => x.condition_id === mOther.condition_id);
    expect(other).toMatchObject({ best_bid: null, best_ask: null, mid: null, last_trade_price: null, volume: '0' });
  });
});

describe('search, tags, sports, series', () => {
  it('searches event titles, market questions and tags, case-insensitively', async () => {
    const r = await get('/search?q=ZEPHYR');
    expect(r.status).toBe(200);
    expect(r.body.events.map((e: any) => e.id)).toEqual(['e-open']);
    expect(r.body).toHaveProperty('markets');
    expect(r.body).toHaveProperty('tags');
    const q = (await get(`/markets/${mOther.condition_id}`)).body.question as string;
    const byQ = await get(`/search?q=${encodeURIComponent(q.toUpperCase())}&limit=100`);
    expect(byQ.body.markets.map((m: any) => m.id)).toContain(mOther.condition_id);
    const byTag = await get('/search?q=tst%20sp');
    expect(byTag.body.tags).toEqual([{ id: 'tst-t2', label: 'Tst Sports', slug: 'tst-sports' }]);
    expect(byTag.body.events.map((e: any) => e.id)).toEqual(['e-closed']);
    expect((await get('/search')).status).toBe(400);
    expect((await get(`/search?q=${'x'.repeat(101)}`)).status).toBe(400);
    expect((await get('/search?q=qqqqzzzz')).body).toEqual({ events: [], markets: [], tags: [] });
  });

  it('lists tags, sports and series (paginated)', async () => {
    const tags = (await get('/tags?limit=500')).body;
    expect(tags).toEqual(expect.arrayContaining([{ id: 'tst-t1', label: 'Tst Crypto', slug: 'tst-crypto' }]));
    expect((await get('/tags?limit=1')).body).toHaveLength(1);
    const sports = (await get('/sports?limit=500')).body;
    expect(sports).toEqual(
      expect.arrayContaining([{ id: 'tst-sp1', sport: 'tstball', label: 'Tst Ball', image: '', tags: ['Tst Sports'] }]),
    );
    const series = (await get('/series?limit=500')).body;
    const s = series.find((x: any) => x.slug === 'tst-daily');
    expect(s).toMatchObject({
      id: 'tst-s1',
      title: 'Tst daily',
      recurrence: 'daily',
      events: [{ id: 'e-open', slug: 'tst-event-e-open', title: 'Zephyr open question' }],
    });
  });
});

describe('comments', () => {
  it('posts with L2 auth, lists newest first, filters by parent', async () => {
    const before = ex.world.comments.length;
    const highest = Math.max(0, ...ex.world.comments.map((c) => Number(c.id)));
    expect(highest).toBeGreaterThan(1000); // the world's own comments
    const c1 = await postComment(a, { body: 'first!', parentEntityType: 'Event', parentEntityID: 'e-open' });
    expect(c1.status).toBe(201);
    // one increasing sequence with the world's: "newer than the last id seen" finds it (trial 24 F7)
    expect(Number(c1.body.id)).toBe(highest + 1);
    expect(c1.body).toMatchObject({
      body: 'first!',
      parentEntityType: 'Event',
      parentEntityID: 'e-open',
      userAddress: a.address,
      parent_entity_id: 'e-open',
    });
    expect(typeof c1.body.id).toBe('string');
    const c2 = await postComment(
      b,
      {
        body: 'on the market',
        parentEntityType: 'Market',
        parentEntityID: mOpen.condition_id.toUpperCase().replace('0X', '0x'),
      },
      'bearer',
    );
    expect(c2.status).toBe(201);
    expect(c2.body).toMatchObject({
      parentEntityType: 'Market',
      parentEntityID: mOpen.condition_id,
      userAddress: b.address,
    });
    const c3 = await postComment(b, {
      body: 'reply',
      parentEntityType: 'Event',
      parentEntityID: 'e-open',
      replyTo: c1.body.id,
    });
    expect(c3.status).toBe(201);
    expect(c3.body.parentCommentID).toBe(c1.body.id);
    expect(ex.world.comments.length).toBe(before + 3);

    const onEvent = (await get('/comments?parent_entity_type=Event&parent_entity_id=e-open')).body;
    expect(onEvent.map((c: any) => c.id)).toEqual([c3.body.id, c1.body.id]);
    const camel = (await get('/comments?parentEntityType=Market&parentEntityID=' + mOpen.condition_id)).body;
    // newest first; the seeded world's older comments on that market follow
    expect(camel[0].id).toBe(c2.body.id);
    expect(camel.every((c: any) => c.parentEntityID === mOpen.condition_id)).toBe(true);
    const all = await get('/comments?limit=2');
    expect(all.body.map((c: any) => c.id)).toEqual([c3.body.id, c2.body.id]);
    expect((await get('/comments?limit=2&offset=2')).body[0].id).toBe(c1.body.id);
    expect((await get('/comments?parent_entity_type=Thing')).status).toBe(400);
  });

  it('refuses bad requests and stores nothing', async () => {
    const before = ex.world.comments.length;
    const ok = { body: 'x', parentEntityType: 'Event', parentEntityID: 'e-open' };
    const unauth = await postComment(undefined, ok, 'none');
    expect(unauth.status).toBe(401);
    expect(unauth.body).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
    const badBearer = await fetch(`${gamma}/comments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer nope' },
      body: JSON.stringify(ok),
    });
    expect(badBearer.status).toBe(401);
    // an L2 signature over another body
    const c = a.creds!;
    const h = l2Headers(
      { key: c.apiKey, secret: c.secret, passphrase: c.passphrase },
      a.wallet.address,
      'POST',
      '/comments',
      '{"body":"other"}',
      Math.floor(Date.now() / 1000),
    );
    const forged = await fetch(`${gamma}/comments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...h },
      body: JSON.stringify(ok),
    });
    expect(forged.status).toBe(401);

    for (const bad of [
      { ...ok, body: '' },
      { ...ok, body: '   \n ' },
      { ...ok, body: 'y'.repeat(2001) },
      { ...ok, body: 5 },
      { ...ok, parentEntityType: 'Thing' },
      { body: 'x', parentEntityType: 'Event' },
      { ...ok, parentEntityID: '' },
      [ok],
    ]) {
      const r = await postComment(a, bad);
      expect(r.status, JSON.stringify(bad).slice(0, 60)).toBe(400);
      expect(r.body.success).toBe(false);
    }
    expect((await postComment(a, null, 'l2', '{"body": "x",')).status).toBe(400);
    const unknownEvent = await postComment(a, { ...ok, parentEntityID: 'no-such-event' });
    expect(unknownEvent.status).toBe(404);
    const unknownMarket = await postComment(a, {
      ...ok,
      parentEntityType: 'Market',
      parentEntityID: `0x${'cd'.repeat(32)}`,
    });
    expect(unknownMarket.status).toBe(404);
    const unknownReply = await postComment(a, { ...ok, replyTo: '999999' });
    expect(unknownReply.status).toBe(404);
    expect(ex.world.comments.length).toBe(before);
    // exactly 2000 characters is fine
    const max = await postComment(a, { ...ok, body: 'z'.repeat(2000) });
    expect(max.status).toBe(201);
    expect(ex.world.comments.length).toBe(before + 1);
  });
});

describe('profiles', () => {
  it('serves a stored profile, synthesizes one for a trader, 404 otherwise, 400 on a bad address', async () => {
    const p = await get(`/profiles/${a.wallet.address}`);
    expect(p.status).toBe(200);
    expect(p.body).toMatchObject({ address: a.address, name: 'Alice', pseudonym: 'Quiet-Fox', synthetic: false });
    const s = await get(`/profiles/${b.address.toUpperCase().replace('0X', '0x')}`);
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ address: b.address, synthetic: true });
    const none = await get(`/profiles/0x${'1'.repeat(40)}`);
    expect(none.status).toBe(404);
    expect(none.body.error.code).toBe('NOT_FOUND');
    const bad = await get('/profiles/0x1234');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ success: false, error: { code: 'BAD_REQUEST' } });
  });
});
