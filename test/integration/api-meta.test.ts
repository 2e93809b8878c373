/**
 * The metadata (Gamma), Data and Content clients against the real paper exchange, through the real
 * transport (createTransport: undici, budgets, retries, envelope unwrap, zod validation), with the
 * exchange's rate limits on (scale 20) and the budgets at the same scale: every endpoint, both
 * envelopes (Gamma bare, Data/Content `{success, data}`), offset and cursor pagination, POST
 * /comments with L2 auth, typed errors, and no 429.
 *
 * Trades (market m1, tick 0.01, made by OrderBuilder orders):
 *  1. A bids YES 0.40 × 10; B buys NO 0.60 × 10 with builder "bld-meta": a pair is minted.
 *  2. A offers YES 0.55 × 5; B buys YES 0.55 × 5: A sells 5 of its YES.
 *  3. A quotes YES 0.50 × 5 / 0.60 × 5: YES mid 0.55.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthError, NotFoundError, ValidationError } from '../../src/core/errors.ts';
import { LiveClock } from '../../src/core/clock.ts';
import { createTransport, type HttpTransport } from '../../src/api/http/transport.ts';
import { ContentClient } from '../../src/api/content.ts';
import { DataClient } from '../../src/api/data.ts';
import { GammaClient } from '../../src/api/gamma.ts';
import { OrderBuilder, toPostBody, type PostBodyOptions } from '../../src/api/orders.ts';
import { collect } from '../../src/api/pagination.ts';
import type { Side } from '../../src/core/units.ts';
import { no, startVenue, yes, type TestVenue } from './support/setup.ts';
import type { Trader } from './support/trader.ts';

let v: TestVenue;
let a: Trader;
let b: Trader;
let transport: HttpTransport;
let anon: HttpTransport;
let gamma: GammaClient;
let data: DataClient;
let content: ContentClient;

async function raw(url: string): Promise<{ body: any; total: number }> {
  const r = await fetch(url);
  return { body: await r.json(), total: Number(r.headers.get('x-total-count') ?? NaN) };
}

async function trade(
  t: Trader,
  token: string,
  side: Side,
  price: string,
  size: string,
  o: Partial<PostBodyOptions> = {},
): Promise<any> {
  const builder = new OrderBuilder({ wallet: t.wallet, chainId: 137 });
  const order = builder.buildLimit({ tokenId: token, side, price, size, tick: '0.01', negRisk: false });
  const r = await t.l2('POST', '/order', toPostBody(order, { owner: t.creds!.apiKey, ...o }));
  expect(r.body.success, JSON.stringify(r.body)).toBe(true);
  return r.body;
}

beforeAll(async () => {
  v = await startVenue({ http: { rateLimits: { enabled: true, scale: 20, queueMs: 500 } } });
  a = await v.trader();
  b = await v.trader();
  const u = v.running.urls;
  const urls = { clob: u.clob_url, gamma: u.gamma_url, data: u.data_url, content: u.content_url };
  transport = createTransport({
    urls,
    credentials: { apiKey: a.creds!.apiKey, secret: a.creds!.secret, passphrase: a.creds!.passphrase },
    address: a.wallet.address,
    budgets: { scale: 20 },
    clock: new LiveClock(),
  });
  anon = createTransport({ urls, budgets: { scale: 20 } });
  gamma = new GammaClient(transport);
  data = new DataClient(transport);
  content = new ContentClient(transport);

  const m = v.m1;
  expect((await trade(a, yes(m), 'BUY', '0.40', '10')).status).toBe('live');
  expect((await trade(b, no(m), 'BUY', '0.60', '10', { builder: 'bld-meta' })).status).toBe('matched');
  expect((await trade(a, yes(m), 'SELL', '0.55', '5')).status).toBe('live');
  expect((await trade(b, yes(m), 'BUY', '0.55', '5')).status).toBe('matched');
  expect((await trade(a, yes(m), 'BUY', '0.50', '5')).status).toBe('live');
  expect((await trade(a, yes(m), 'SELL', '0.60', '5')).status).toBe('live');
});

afterAll(async () => {
  if (transport) {
    // the budgets kept us inside the exchange's limits the whole time
    expect(transport.stats().statuses[429] ?? 0).toBe(0);
    await transport.close();
  }
  await anon?.close();
  await v?.close();
});

describe('Gamma (bare records, offset pages)', () => {
  it('health', async () => {
    expect(await gamma.health()).toEqual({ status: 'ok' });
  });

  it('events: typed records, JSON-encoded market fields parsed, equal to the wire', async () => {
    const events = await gamma.listEvents();
    const wire = (await raw(`${v.running.urls.gamma_url}/events`)).body;
    expect(events.map((e) => e.id)).toEqual(wire.map((e: any) => e.id));
    expect(events.length).toBeLessThanOrEqual(20);
    const ev = events.find((e) => e.markets.length > 0)!;
    const wev = wire.find((e: any) => e.id === ev.id);
    expect(ev).toMatchObject({
      slug: wev.slug,
      title: wev.title,
      tags: wev.tags,
      startDate: wev.start_date,
      imageUrl: wev.image_url,
      negRisk: wev.neg_risk,
      volume: wev.volume,
    });
    const mk = ev.markets[0]!;
    const wm = wev.markets[0];
    expect(mk.outcomes).toEqual(JSON.parse(wm.outcomes));
    expect(mk.clobTokenIds).toEqual(JSON.parse(wm.clobTokenIds));
    expect(mk.outcomePrices).toEqual(JSON.parse(wm.outcomePrices));
    expect(mk.tokens.map((t) => t.tokenId)).toEqual(mk.clobTokenIds);
    expect(mk.tickSize).toBe(wm.tick_size);
    expect(mk.minOrderSize).toBe(Number(wm.min_order_size) * 1_000_000);
    expect(Number.isSafeInteger(mk.minOrderSize)).toBe(true);
  });

  it('events: filters, single records by id and slug, 404', async () => {
    const all = await collect(gamma.iterEvents({}, { pageSize: 3 }));
    const { total } = await raw(`${v.running.urls.gamma_url}/events?limit=1`);
    expect(all).toHaveLength(total);
    expect(new Set(all.map((e) => e.id)).size).toBe(total);
    expect(all.map((e) => e.id)).toEqual((await gamma.listEvents({ limit: 500 })).map((e) => e.id));
    const first = all[0]!;
    expect((await gamma.getEvent(first.id)).slug).toBe(first.slug);
    expect((await gamma.getEvent(first.slug)).id).toBe(first.id);
    expect((await gamma.getEventBySlug(first.slug)).id).toBe(first.id);
    expect((await gamma.listEvents({ slug: [first.slug, all[1]!.slug] })).map((e) => e.id)).toEqual([
      first.id,
      all[1]!.id,
    ]);
    expect((await gamma.listEvents({ id: first.id })).map((e) => e.id)).toEqual([first.id]);
    const byVol = await gamma.listEvents({ order: 'volume', limit: 3 });
    expect(byVol[0]!.volume).not.toBe('0'); // m1's event traded
    const open = await gamma.listEvents({ closed: false, limit: 500 });
    expect(open.every((e) => !e.closed)).toBe(true);
    const tag = first.tags[0]!;
    expect((await gamma.listEvents({ tag, limit: 500 })).every((e) => e.tags.includes(tag))).toBe(true);
    await expect(gamma.getEvent('no-such-event')).rejects.toBeInstanceOf(NotFoundError);
    await expect(gamma.listEvents({ limit: 501 })).rejects.toBeInstanceOf(ValidationError);
  });

  it('markets: typed, filters, iteration, single by condition id and slug; live figures in pips', async () => {
    const m1 = await gamma.getMarket(v.m1.condition_id);
    expect(m1).toMatchObject({
      conditionId: v.m1.condition_id,
      tickSize: '0.01',
      negRisk: false,
      active: true,
      closed: false,
      outcomes: ['Yes', 'No'],
    });
    expect(m1.clobTokenIds).toEqual([yes(v.m1), no(v.m1)]);
    expect(m1.bestBid).toBe(5000);
    expect(m1.bestAsk).toBe(6000);
    expect(m1.spread).toBe(1000);
    expect(m1.mid).toBe('0.55');
    expect(m1.lastTradePrice).toBe(5500);
    expect(m1.outcomePrices).toEqual(['0.55', '0.45']);
    expect(m1.volume).not.toBe('0');
    expect((await gamma.getMarketBySlug(m1.slug)).conditionId).toBe(m1.conditionId);
    expect((await gamma.getMarket(m1.slug)).conditionId).toBe(m1.conditionId);
    expect((await gamma.getMarket(v.negRisk.condition_id)).negRisk).toBe(true);

    const two = await gamma.listMarkets({ conditionIds: [v.m1.condition_id, v.negRisk.condition_id], limit: 500 });
    expect(new Set(two.map((m) => m.conditionId))).toEqual(new Set([v.m1.condition_id, v.negRisk.condition_id]));
    expect((await gamma.listMarkets({ clobTokenIds: no(v.m1) })).map((m) => m.conditionId)).toEqual([
      v.m1.condition_id,
    ]);
    if (m1.eventId !== null)
      expect(
        (await gamma.listMarkets({ eventId: m1.eventId, limit: 500 })).some((m) => m.conditionId === m1.conditionId),
      ).toBe(true);
    const all = await collect(gamma.iterMarkets({}, { pageSize: 7 }));
    const { total } = await raw(`${v.running.urls.gamma_url}/markets?limit=1`);
    expect(all).toHaveLength(total);
    expect(all.length).toBe(v.markets.length);
    const limited = await collect(gamma.iterMarkets({}, { pageSize: 4, maxItems: 9 }));
    expect(limited.map((m) => m.id)).toEqual(all.slice(0, 9).map((m) => m.id));
    await expect(gamma.getMarket('0x' + '0'.repeat(64))).rejects.toBeInstanceOf(NotFoundError);
  });

  it('bulk market figures', async () => {
    const [f] = await gamma.marketFigures({ conditionIds: v.m1.condition_id });
    expect(f).toEqual({
      conditionId: v.m1.condition_id,
      tokenIds: [yes(v.m1), no(v.m1)],
      active: true,
      closed: false,
      bestBid: 5000,
      bestAsk: 6000,
      mid: '0.55',
      lastTradePrice: 5500,
      spread: 1000,
      volume: expect.any(String),
      liquidity: expect.any(String),
    });
    expect(await collect(gamma.iterMarketFigures({}, { pageSize: 10 }))).toHaveLength(v.markets.length);
  });

  it('comments: list, iterate, post with L2 auth, reply; errors typed', async () => {
    const { total } = await raw(`${v.running.urls.gamma_url}/comments?limit=1`);
    expect(total).toBeGreaterThan(0);
    const all = await collect(gamma.iterComments({}, { pageSize: 50 }));
    expect(all).toHaveLength(total);
    const c0 = all[0]!;
    const onParent = await gamma.listComments({
      parentEntityType: c0.parentEntityType,
      parentEntityId: c0.parentEntityId,
      limit: 100,
    });
    expect(onParent.every((c) => c.parentEntityId === c0.parentEntityId)).toBe(true);
    expect(
      (await gamma.listComments({ user: c0.userAddress, limit: 100 })).every((c) => c.userAddress === c0.userAddress),
    ).toBe(true);

    const posted = await gamma.postComment({
      body: 'Tight spread today.',
      parentEntityType: 'Market',
      parentEntityId: v.m1.condition_id,
    });
    expect(posted).toMatchObject({
      body: 'Tight spread today.',
      parentEntityType: 'Market',
      parentEntityId: v.m1.condition_id,
      userAddress: a.address,
      replyTo: null,
    });
    const reply = await gamma.postComment({
      body: 'Agreed.',
      parentEntityType: 'Market',
      parentEntityId: v.m1.condition_id,
      replyTo: posted.id,
    });
    expect(reply.replyTo).toBe(posted.id);
    const newest = await gamma.listComments({
      parentEntityType: 'Market',
      parentEntityId: v.m1.condition_id,
      limit: 2,
    });
    expect(newest.map((c) => c.id)).toEqual([reply.id, posted.id]);

    const before = (
      await gamma.listComments({ parentEntityType: 'Market', parentEntityId: v.m1.condition_id, limit: 500 })
    ).map((c) => c.id);
    await expect(
      gamma.postComment({ body: '   ', parentEntityType: 'Market', parentEntityId: v.m1.condition_id }),
    ).rejects.toBeInstanceOf(ValidationError);
    await expect(
      gamma.postComment({ body: 'x'.repeat(2001), parentEntityType: 'Market', parentEntityId: v.m1.condition_id }),
    ).rejects.toBeInstanceOf(ValidationError);
    await expect(
      gamma.postComment({ body: 'hello', parentEntityType: 'Market', parentEntityId: '0x' + '1'.repeat(64) }),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      new GammaClient(anon).postComment({
        body: 'hello',
        parentEntityType: 'Market',
        parentEntityId: v.m1.condition_id,
      }),
    ).rejects.toBeInstanceOf(AuthError);
    // nothing stored on failure
    expect(
      (await gamma.listComments({ parentEntityType: 'Market', parentEntityId: v.m1.condition_id, limit: 500 })).map(
        (c) => c.id,
      ),
    ).toEqual(before);
  });

  it('profiles: stored, synthetic for a trader, 404, malformed address refused before sending', async () => {
    const stored = [...v.running.exchange.world.profiles.keys()][0]!;
    const p = await gamma.getProfile(stored.toUpperCase().replace('0X', '0x'));
    expect(p).toMatchObject({ address: stored, synthetic: false });
    expect(p.pseudonym.length).toBeGreaterThan(0);
    expect(await gamma.getProfile(b.wallet.address)).toMatchObject({ address: b.address, synthetic: true });
    await expect(gamma.getProfile('0x' + '9'.repeat(40))).rejects.toBeInstanceOf(NotFoundError);
    await expect(gamma.getProfile('0x123')).rejects.toBeInstanceOf(ValidationError);
  });

  it('search, tags, sports, series', async () => {
    const tags = await collect(gamma.iterTags({ pageSize: 5 }));
    const { total: tagTotal } = await raw(`${v.running.urls.gamma_url}/tags?limit=1`);
    expect(tags).toHaveLength(tagTotal);
    const t = tags[0]!;
    expect(await gamma.getTag(t.slug)).toEqual(t);
    expect(await gamma.getTag(t.id)).toEqual(t);
    expect((await gamma.listTags({ limit: 2, offset: 1 })).map((x) => x.id)).toEqual(tags.slice(1, 3).map((x) => x.id));
    await expect(gamma.getTag('no-such-tag-anywhere')).rejects.toBeInstanceOf(NotFoundError);

    const s = await gamma.search(t.label, { limit: 5 });
    expect(s.tags.some((x) => x.id === t.id)).toBe(true);
    expect(s.events.length + s.markets.length).toBeGreaterThan(0);
    const ps = await gamma.search(t.label, { limit: 5, path: '/public-search' });
    expect(ps.tags.map((x) => x.id)).toEqual(s.tags.map((x) => x.id));
    const byQuestion = await gamma.search((await gamma.getMarket(v.m1.condition_id)).question.slice(0, 20));
    expect(byQuestion.markets.some((m) => m.conditionId === v.m1.condition_id)).toBe(true);
    await expect(gamma.search('')).rejects.toBeInstanceOf(ValidationError);

    const sports = await collect(gamma.iterSports({ pageSize: 2 }));
    expect(sports.length).toBeGreaterThan(0);
    expect(sports[0]).toMatchObject({ id: expect.any(String), sport: expect.any(String), tags: expect.any(Array) });
    const series = await collect(gamma.iterSeries({}, { pageSize: 2 }));
    expect(series.length).toBeGreaterThan(0);
    const one = await gamma.listSeries({ slug: series[0]!.slug });
    expect(one.map((x) => x.id)).toEqual([series[0]!.id]);
    expect(one[0]!.events.every((e) => typeof e.slug === 'string')).toBe(true);
  });
});

describe('Data (success envelope, cursor pages)', () => {
  it('health', async () => {
    expect(await data.health()).toEqual({ status: 'ok' });
  });

  it('events and markets: pages with cursor and total, iteration by cursor', async () => {
    const p = await data.listEvents({ limit: 4 });
    expect(p.items).toHaveLength(4);
    expect(p.total).toBeGreaterThan(4);
    expect(p.nextCursor).toBe(Buffer.from('4').toString('base64'));
    const all = await collect(data.iterEvents({}, { pageSize: 4 }));
    expect(all).toHaveLength(p.total!);
    expect(all.slice(0, 4).map((e) => e.id)).toEqual(p.items.map((e) => e.id));
    const next = await data.listEvents({ limit: 4, nextCursor: p.nextCursor! });
    expect(next.items.map((e) => e.id)).toEqual(all.slice(4, 8).map((e) => e.id));
    expect(all.reduce((s, e) => s + e.tradeCount, 0)).toBeGreaterThanOrEqual(2);

    const mp = await data.listMarkets({ conditionIds: v.m1.condition_id });
    expect(mp.total).toBe(1);
    expect(mp.nextCursor).toBe('LTE=');
    expect(mp.items[0]).toMatchObject({
      conditionId: v.m1.condition_id,
      status: 'active',
      tradeCount: 2,
      bestBid: 5000,
      bestAsk: 6000,
      mid: '0.55',
      spread: 1000,
      lastTradePrice: 5500,
      openInterest: '10',
    });
    expect(mp.items[0]!.tokens.map((t) => t.tokenId)).toEqual([yes(v.m1), no(v.m1)]);
    expect(await collect(data.iterMarkets({}, { pageSize: 9 }))).toHaveLength(v.markets.length);
  });

  it('price history in pips, both paths, by market or token', async () => {
    const h = await data.priceHistory({ market: v.m1.condition_id, fidelity: 1 });
    expect(h.tokenId).toBe(yes(v.m1));
    expect(h.history.length).toBeGreaterThan(0);
    expect(h.history.at(-1)!.price).toBe(5500);
    const alias = await data.priceHistory({ market: v.m1.condition_id, fidelity: 1 }, { path: '/prices-history' });
    expect(alias.history).toEqual(h.history);
    const noSide = await data.priceHistory({ tokenId: no(v.m1), interval: '1h' });
    expect(noSide.history.at(-1)!.price).toBe(4500);
    expect(noSide.interval).toBe('1h');
    const now = Math.floor(Date.now() / 1000);
    const win = await data.priceHistory({ market: v.m1.condition_id, startTs: now - 3600, endTs: now + 60 });
    expect(win.history.length).toBeGreaterThan(0);
    await expect(data.priceHistory({})).rejects.toBeInstanceOf(ValidationError);
    await expect(data.priceHistory({ market: '0x' + '2'.repeat(64) })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('user statistics, fills, positions and PnL', async () => {
    const s = await data.userStats(a.wallet.address);
    expect(s).toMatchObject({ address: a.address, trades: 2, fills: 2, marketsTraded: 1, openPositions: 1 });
    const fills = await collect(data.iterUserTrades(a.address, {}, { pageSize: 1 }));
    expect(fills).toHaveLength(2);
    expect(fills.every((f) => f.role === 'MAKER' && f.conditionId === v.m1.condition_id)).toBe(true);
    expect(fills.map((f) => [f.side, f.size, f.price])).toEqual([
      ['SELL', '5', '0.55'],
      ['BUY', '10', '0.4'],
    ]);
    const page = await data.userTrades(b.address, { role: 'TAKER', limit: 1 });
    expect(page.total).toBe(2);
    expect(page.items[0]).toMatchObject({ role: 'TAKER', side: 'BUY', asset: yes(v.m1), builder: null });
    const builderFill = (await data.userTrades(b.address, { asset: no(v.m1) })).items[0]!;
    expect(builderFill.builder).toBe('bld-meta');

    const pos = await data.userPositions(a.address);
    expect(pos.items).toHaveLength(1);
    expect(pos.items[0]).toMatchObject({
      asset: yes(v.m1),
      size: '5',
      avgPrice: '0.4',
      initialValue: '2',
      curPrice: '0.55',
      markSource: 'mid',
      currentValue: '2.75',
      cashPnl: '0.75',
    });
    expect((await collect(data.iterUserPositions(b.address, {}, { pageSize: 1 }))).map((p) => p.asset).sort()).toEqual(
      [yes(v.m1), no(v.m1)].sort(),
    );
    expect((await data.userPositions(b.address, { sizeThreshold: '6' })).items.map((p) => p.asset)).toEqual([no(v.m1)]);

    const pnl = await data.userPnl(a.address, { history: true });
    expect(pnl).toMatchObject({
      address: a.address,
      realizedPnl: '0.75',
      unrealizedPnl: '0.75',
      totalPnl: '1.5',
      openPositions: 1,
    });
    expect(pnl.history!.map((h) => h.realizedPnl)).toEqual(['0', '0.75']);
    expect((await data.userPnl(a.address)).history).toBeNull();

    const nobody = '0x' + '7'.repeat(40);
    expect(await data.userStats(nobody)).toMatchObject({ trades: 0, volume: '0', firstTradeAt: null });
    expect((await data.userTrades(nobody)).items).toEqual([]);
    expect(await collect(data.iterUserPositions(nobody))).toEqual([]);
    await expect(data.userStats('nope')).rejects.toBeInstanceOf(ValidationError);
  });

  it('builder attribution', async () => {
    expect(await data.builderStats('bld-meta')).toMatchObject({
      builder: 'bld-meta',
      orders: 1,
      users: 1,
      trades: 1,
      fills: 1,
      volume: '6',
      markets: 1,
    });
    const vol = await data.builderVolume('bld-meta');
    expect(vol).toMatchObject({ builder: 'bld-meta', volume: '6', trades: 1 });
    expect(vol.byMarket).toEqual([
      { conditionId: v.m1.condition_id, question: expect.any(String), volume: '6', trades: 1 },
    ]);
    expect(vol.byDay).toHaveLength(1);
    expect((await data.builderVolume('bld-meta', { startTs: 1 })).volume).toBe('6');
    expect(await data.builderStats('unknown-builder')).toMatchObject({ orders: 0, volume: '0', lastTradeAt: null });
  });
});

describe('Content (success envelope, cursor pages)', () => {
  it('health, articles, iteration, single by id and slug, 404', async () => {
    expect(await content.health()).toEqual({ status: 'ok' });
    const p = await content.listArticles({ limit: 3 });
    expect(p.items).toHaveLength(3);
    expect(p.total).toBeGreaterThan(3);
    const all = await collect(content.iterArticles({}, { pageSize: 3 }));
    expect(all).toHaveLength(p.total!);
    expect(new Set(all.map((x) => x.id)).size).toBe(all.length);
    // newest first
    for (let i = 1; i < all.length; i++) expect(all[i - 1]!.publishedAt >= all[i]!.publishedAt).toBe(true);
    const art = all[0]!;
    expect(await content.getArticle(art.id)).toEqual(art);
    expect(await content.getArticle(art.slug)).toEqual(art);
    if (art.tags[0] !== undefined)
      expect((await content.listArticles({ tag: art.tags[0], limit: 100 })).items.some((x) => x.id === art.id)).toBe(
        true,
      );
    if (art.eventIds[0] !== undefined)
      expect(
        (await content.listArticles({ eventId: art.eventIds[0], limit: 100 })).items.some((x) => x.id === art.id),
      ).toBe(true);
    await expect(content.getArticle('no-such-article')).rejects.toBeInstanceOf(NotFoundError);
  });
});
