/**
 * Shared readers and renderers of the market-metadata (Gamma), Data and Content APIs: query
 * helpers (lists, pagination, tag matching, addresses), exact money arithmetic, and the wire
 * records of events, markets, comments, profiles, tags, series, sports and articles.
 *
 * Money stays integer until it reaches the wire: amounts are micro-units, prices pips (a mid may
 * be a half pip). Decimal strings are produced by formatAmount/formatPrice; the few JSON numbers
 * (the venue's camelCase `volumeNum`, `bestBid`, ...; price-history `p`) are `Number()` of such an
 * exact decimal string, i.e. the double nearest to the exact value, never the result of float math.
 */
import type { FastifyReply } from 'fastify';
import { formatAmount, formatFixed, PRICE_SCALE } from '../../core/units.ts';
import type { MarketEntry, PaperExchange, TradeRecord } from '../exchange.ts';
import type { ArticleRec, CommentRec, EventRec, ProfileRec, SeriesRec, SportRec, TagRec } from '../world/model.ts';
import type { MakerFill, Trade } from '../matching/types.ts';
import { decodeCursor, encodeCursor, END_CURSOR, qBool, qInt, qString, type Query } from './body.ts';
import { badRequest } from './errors.ts';
import { formatMid } from './render.ts';
import { rangeFilter } from './range-filters.ts';
import { gammaRewards, rewardPeriod } from '../rewards/wire.ts';

// ---- query helpers ----------------------------------------------------------------------------

/** Largest `limit` any list of these APIs accepts. */
export const MAX_LIMIT = 500;

/**
 * Every value of a query parameter: repeated keys (`?a=1&a=2`), `name[]` keys and comma-separated
 * values all count. Empty values are dropped.
 */
export function qList(q: Query, name: string): string[] {
  const out: string[] = [];
  for (const key of [name, `${name}[]`]) {
    const v = q[key];
    const vals = v === undefined ? [] : Array.isArray(v) ? v : [v];
    for (const s of vals) for (const part of s.split(',')) if (part.trim() !== '') out.push(part.trim());
  }
  return out;
}

/** The first present parameter among several spellings (`parent_entity_id`, `parentEntityID`...). */
export function qAny(q: Query, ...names: string[]): string | undefined {
  for (const n of names) {
    const v = qString(q, n);
    if (v !== undefined) return v;
  }
  return undefined;
}

/** One page of a list, with what the caller needs to describe it. */
export interface Page<T> {
  items: T[];
  limit: number;
  offset: number;
  total: number;
  /** Cursor of the next page (base64 offset, as the CLOB's), `LTE=` when this page is the last. */
  nextCursor: string;
}

/**
 * Slice `items` by `limit` (default `defLimit`, 1..MAX_LIMIT) and `offset`, or by `next_cursor`
 * (the CLOB's cursor: base64 of the offset, `MA==` first, `LTE=` past the end) when given.
 * @throws HttpError 400 on a malformed limit, offset or cursor.
 */
export function paginate<T>(items: readonly T[], q: Query, defLimit: number, maxLimit = MAX_LIMIT): Page<T> {
  const limit = qInt(q, 'limit', defLimit, 1, maxLimit);
  const cursor = qString(q, 'next_cursor');
  let offset = cursor !== undefined ? decodeCursor(cursor) : qInt(q, 'offset', 0, 0, 1e9);
  if (offset < 0) offset = items.length;
  const slice = items.slice(offset, offset + limit);
  const end = offset + slice.length;
  return {
    items: slice,
    limit,
    offset,
    total: items.length,
    nextCursor: end >= items.length ? END_CURSOR : encodeCursor(end),
  };
}

/** Pagination of a bare-array answer (Gamma): the cursor and total travel in headers. */
export function pageHeaders<T>(reply: FastifyReply, p: Page<T>): T[] {
  reply.header('X-Next-Cursor', p.nextCursor);
  reply.header('X-Total-Count', String(p.total));
  return p.items;
}

/** The spec's success envelope `{success: true, data}`. */
export function ok<T>(data: T): { success: true; data: T } {
  return { success: true, data };
}

/** The success envelope of a list page: `data` is the array, the page facts sit beside it. */
export function okPage<T, U>(p: Page<T>, render: (t: T) => U): Record<string, unknown> {
  return {
    success: true,
    data: p.items.map(render),
    count: p.items.length,
    limit: p.limit,
    offset: p.offset,
    total: p.total,
    next_cursor: p.nextCursor,
  };
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * A wallet address from a path parameter, lower case.
 * @throws HttpError 400 unless it is `0x` followed by 40 hex digits (any case).
 */
export function pathAddress(s: string | undefined): string {
  if (s === undefined || !ADDRESS.test(s)) throw badRequest('address must be 0x followed by 40 hex digits');
  return s.toLowerCase();
}

/** `name` as a slug: lower case, runs of other characters turned into one dash. */
export function slugify(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/**
 * A predicate over tag-label lists for a `tag` query value: the value matches a tag by label,
 * slug or id (case-insensitive), and a record matches when one of its labels is that tag.
 */
export function tagMatcher(ex: PaperExchange, tag: string): (labels: readonly string[]) => boolean {
  const want = tag.trim().toLowerCase();
  const names = new Set<string>([want, slugify(want)]);
  for (const t of ex.world.tags.values()) {
    if (t.label.toLowerCase() === want || t.slug.toLowerCase() === want || t.id.toLowerCase() === want) {
      names.add(t.label.toLowerCase());
      names.add(t.slug.toLowerCase());
    }
  }
  return (labels) => labels.some((l) => names.has(l.toLowerCase()) || names.has(slugify(l)));
}

/** A boolean filter: absent → everything passes. */
export function boolFilter(q: Query, name: string): (v: boolean) => boolean {
  const want = qBool(q, name);
  return (v) => want === undefined || v === want;
}

/**
 * Sort `items` by the `order` parameter (`keys` maps each accepted name to a sort key; undefined
 * and null sort last) descending, or ascending with `ascending=true`. Without `order` the input
 * order is kept. Ties keep the input order (the sort is stable).
 * @throws HttpError 400 on an unknown order name.
 */
export function ordered<T>(
  items: T[],
  q: Query,
  keys: Record<string, (t: T) => number | string | null | undefined>,
): T[] {
  const order = qString(q, 'order');
  if (order === undefined) return items;
  const names = order
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const fns = names.map((n) => {
    const fn = Object.hasOwn(keys, n) ? keys[n] : undefined; // never an inherited name (security review 49 F6)
    if (fn === undefined) throw badRequest(`order must be one of ${Object.keys(keys).join(', ')}`);
    return fn;
  });
  const asc = qBool(q, 'ascending') === true;
  const dir = asc ? 1 : -1;
  const decorated = items.map((t, i) => ({ t, i, k: fns.map((f) => f(t)) }));
  decorated.sort((a, b) => {
    for (let j = 0; j < fns.length; j++) {
      const x = a.k[j];
      const y = b.k[j];
      const xn = x === undefined || x === null;
      const yn = y === undefined || y === null;
      if (xn || yn) {
        if (xn && yn) continue;
        return xn ? 1 : -1;
      }
      if (x! < y!) return -dir;
      if (x! > y!) return dir;
    }
    return a.i - b.i;
  });
  return decorated.map((d) => d.t);
}

// ---- exact arithmetic --------------------------------------------------------------------------

/** round(a × b / c) for non-negative or negative integers (half away from zero), exact via bigint. */
export function mulDivRound(a: number, b: number, c: number): number {
  const n = BigInt(a) * BigInt(b);
  const d = BigInt(c);
  const neg = n < 0n !== d < 0n;
  const an = n < 0n ? -n : n;
  const ad = d < 0n ? -d : d;
  const q = (an * 2n + ad) / (2n * ad);
  return Number(neg ? -q : q);
}

/** Notional (micro-collateral) of `size` micro-shares at `price` pips; a half-pip mid is allowed. */
export function valueAt(size: number, price: number): number {
  return mulDivRound(size, Math.round(price * 2), 2 * PRICE_SCALE);
}

/** `num / den` as a decimal string with 6 decimals at most (an average price), or "0" when den is 0. */
export function ratio6(num: number, den: number): string {
  if (den === 0) return '0';
  return formatFixed(mulDivRound(num, 1_000_000, den), 6);
}

/** A price (pips, maybe a half pip) as a JSON number: Number() of its exact decimal string. */
export function priceNumber(p: number | null | undefined): number | null {
  return p === null || p === undefined ? null : Number(formatMid(p));
}

/** A price (pips, maybe a half pip) as a decimal string, or null. */
export function priceString(p: number | null | undefined): string | null {
  return p === null || p === undefined ? null : formatMid(p);
}

/** The price of a maker fill on `token`'s scale (a fill on the other token is at 1 − price). */
export function fillPriceOn(m: MakerFill, token: string): number {
  return m.tokenId === token ? m.price : PRICE_SCALE - m.price;
}

/** Notional of a trade for its taker: each maker fill at its price on the taker's token. */
export function takerNotional(t: Trade): number {
  let s = 0;
  for (const m of t.makers) s += valueAt(m.size, fillPriceOn(m, t.tokenId));
  return s;
}

/** Unix seconds of a unix-ms time. */
export const unixSec = (ms: number): number => Math.floor(ms / 1000);
/** ISO 8601 UTC of a unix-ms time. */
export const iso = (ms: number): string => new Date(ms).toISOString();

// ---- market figures ----------------------------------------------------------------------------

/** Live figures of a market, on its YES token, as integers (pips / micro). */
export interface MarketFigures {
  bid: number | null;
  ask: number | null;
  /** Mid of the YES book (may be a half pip), null without a two-sided book. */
  mid: number | null;
  spread: number | null;
  last: number | null;
  volume: number;
  liquidity: number;
  /** Per token: mid, else last trade, else null (resolved: 1 or 0). */
  marks: [number | null, number | null];
}

/** The live figures of one market. */
export function figures(ex: PaperExchange, e: MarketEntry): MarketFigures {
  const s = ex.marketState(e);
  const { bid, ask } = ex.engine.bestBidAsk(e.meta.tokens[0]);
  const mark = (i: 0 | 1): number | null => {
    if (s.status === 'resolved') return s.winningToken === e.meta.tokens[i] ? PRICE_SCALE : 0;
    return s.mid[i] ?? s.lastPrice[i] ?? null;
  };
  return {
    bid,
    ask,
    mid: bid !== null && ask !== null ? (bid + ask) / 2 : null,
    spread: bid !== null && ask !== null ? ask - bid : null,
    last: s.lastPrice[0] ?? null,
    volume: e.volume,
    liquidity: ex.liquidity(e),
    marks: [mark(0), mark(1)],
  };
}

/** The event holding a market, if any. */
export function eventOf(ex: PaperExchange, e: MarketEntry): EventRec | undefined {
  return (
    ex.world.eventOfMarket.get(e.meta.conditionId) ?? (e.meta.eventId ? ex.world.events.get(e.meta.eventId) : undefined)
  );
}

/** Tag labels of a market: its own, then its event's (deduplicated, in that order). */
export function marketTags(ex: PaperExchange, e: MarketEntry): string[] {
  const ev = eventOf(ex, e);
  return [...new Set([...e.meta.tags, ...(ev?.tags ?? [])])];
}

/** A market by condition id (any case) or slug. */
export function findMarket(ex: PaperExchange, idOrSlug: string): MarketEntry | undefined {
  const byId = ex.market(idOrSlug);
  if (byId) return byId;
  return ex.listMarkets().find((e) => e.meta.slug === idOrSlug);
}

/** An event by id or slug. */
export function findEvent(ex: PaperExchange, idOrSlug: string): EventRec | undefined {
  return ex.world.events.get(idOrSlug) ?? ex.world.eventBySlug.get(idOrSlug);
}

/**
 * The Gamma market record: the venue's camelCase fields (`outcomes`, `outcomePrices` and
 * `clobTokenIds` as JSON-encoded strings; `volumeNum`, `liquidityNum`, `bestBid`, `bestAsk`,
 * `lastTradePrice`, `spread`, `orderPriceMinTickSize`, `orderMinSize` as JSON numbers, like the
 * venue) and mmkit's snake_case fields (decimal strings). `withEvents` adds the venue's `events`.
 */
export function gammaMarket(ex: PaperExchange, e: MarketEntry, withEvents = true): Record<string, unknown> {
  const m = e.meta;
  const s = e.state;
  const f = figures(ex, e);
  const ev = eventOf(ex, e);
  const active = s.status === 'active';
  const prices = f.marks.map((p) => (p === null ? '0.5' : formatMid(p)));
  const tags = marketTags(ex, e);
  const category = m.category || ev?.category || '';
  const startDate = ev?.startDate ?? m.createdAt;
  const rec: Record<string, unknown> = {
    // the venue's camelCase record
    id: m.conditionId,
    question: m.question,
    conditionId: m.conditionId,
    questionID: m.questionId,
    slug: m.slug,
    description: m.description,
    outcomes: JSON.stringify(m.outcomes),
    outcomePrices: JSON.stringify(prices),
    clobTokenIds: JSON.stringify(m.tokens),
    active,
    closed: !active,
    archived: false,
    acceptingOrders: active,
    enableOrderBook: true,
    orderPriceMinTickSize: Number(s.tick),
    orderMinSize: Number(formatAmount(m.minSizeMicro)),
    negRisk: m.negRisk,
    volume: formatAmount(f.volume),
    volumeNum: Number(formatAmount(f.volume)),
    liquidity: formatAmount(f.liquidity),
    liquidityNum: Number(formatAmount(f.liquidity)),
    bestBid: priceNumber(f.bid),
    bestAsk: priceNumber(f.ask),
    lastTradePrice: priceNumber(f.last),
    spread: priceNumber(f.spread),
    endDate: m.endDate,
    startDate,
    createdAt: m.createdAt,
    category,
    // liquidity rewards: min size (shares), max spread (cents), the allocation (rewards/wire.ts)
    ...gammaRewards(
      ex.rewards.configOf(m.conditionId),
      m.conditionId,
      ex.rewardAsset,
      rewardPeriod(m.createdAt, m.endDate),
    ),
    // mmkit's snake_case record
    condition_id: m.conditionId,
    question_id: m.questionId,
    tokens: [0, 1].map((i) => ({
      token_id: m.tokens[i as 0 | 1],
      outcome: m.outcomes[i as 0 | 1],
      price: prices[i],
      winner: s.status === 'resolved' && s.winningToken === m.tokens[i as 0 | 1],
    })),
    tick_size: s.tick,
    min_order_size: formatAmount(m.minSizeMicro),
    neg_risk: m.negRisk,
    fee_rate_bps: m.feeRateBps,
    status: s.status,
    best_bid: priceString(f.bid),
    best_ask: priceString(f.ask),
    mid: priceString(f.mid),
    last_trade_price: priceString(f.last),
    end_date: m.endDate,
    start_date: startDate,
    created_at: m.createdAt,
    event_id: ev?.id ?? null,
    event_slug: ev?.slug ?? null,
    tags,
  };
  if (withEvents) rec.events = ev ? [eventStub(ex, ev)] : [];
  return rec;
}

/** The short event record carried inside a market's `events`. */
function eventStub(ex: PaperExchange, ev: EventRec): Record<string, unknown> {
  const st = eventStatus(ex, ev);
  return {
    id: ev.id,
    slug: ev.slug,
    title: ev.title,
    active: st.active,
    closed: st.closed,
    neg_risk: ev.negRisk,
    negRisk: ev.negRisk,
  };
}

/** The existing markets of an event, in its display order. */
export function eventMarkets(ex: PaperExchange, ev: EventRec): MarketEntry[] {
  const out: MarketEntry[] = [];
  for (const id of ev.marketIds) {
    const e = ex.market(id);
    if (e) out.push(e);
  }
  return out;
}

/** An event is closed when it has markets and all of them are closed; active otherwise. */
export function eventStatus(ex: PaperExchange, ev: EventRec): { active: boolean; closed: boolean } {
  const ms = eventMarkets(ex, ev);
  const closed = ms.length > 0 && ms.every((e) => e.state.status !== 'active');
  return { active: !closed, closed };
}

/** Summed figures of an event's markets (micro). */
export function eventTotals(ex: PaperExchange, ev: EventRec): { volume: number; liquidity: number } {
  let volume = 0;
  let liquidity = 0;
  for (const e of eventMarkets(ex, ev)) {
    volume += e.volume;
    liquidity += ex.liquidity(e);
  }
  return { volume, liquidity };
}

/**
 * The event record of spec 2.1 (snake_case: id, slug, title, description, markets, tags as label
 * strings, start_date, end_date, image_url, created_at) plus active, closed, category, neg_risk,
 * volume, liquidity (decimal strings), series_slug, sport and a few venue camelCase aliases.
 * `markets` holds full Gamma market records (without their `events`).
 */
export function eventRecord(ex: PaperExchange, ev: EventRec): Record<string, unknown> {
  const st = eventStatus(ex, ev);
  const tot = eventTotals(ex, ev);
  return {
    id: ev.id,
    slug: ev.slug,
    title: ev.title,
    description: ev.description,
    markets: eventMarkets(ex, ev).map((e) => gammaMarket(ex, e, false)),
    tags: [...ev.tags],
    start_date: ev.startDate,
    end_date: ev.endDate,
    image_url: ev.imageUrl,
    created_at: ev.createdAt,
    active: st.active,
    closed: st.closed,
    category: ev.category,
    neg_risk: ev.negRisk,
    volume: formatAmount(tot.volume),
    liquidity: formatAmount(tot.liquidity),
    series_slug: ev.seriesSlug ?? null,
    sport: ev.sport ?? null,
    // venue aliases
    startDate: ev.startDate,
    endDate: ev.endDate,
    negRisk: ev.negRisk,
    volumeNum: Number(formatAmount(tot.volume)),
    liquidityNum: Number(formatAmount(tot.liquidity)),
  };
}

// ---- selections shared by Gamma and Data -------------------------------------------------------

/**
 * Events selected and ordered by the list parameters: `closed` (true: only closed, false: only
 * open, absent: all), `active`, `tag` (label, slug or id), `category`, `slug`/`id` (repeatable), the ranges (./range-filters.ts: `volume_min`, `end_date_max`, ...),
 * `order` = volume | liquidity | start_date | end_date | created_at (descending unless
 * `ascending=true`; insertion order without `order`).
 */
export function selectEvents(ex: PaperExchange, q: Query): EventRec[] {
  const closedOk = boolFilter(q, 'closed');
  const activeOk = boolFilter(q, 'active');
  const tag = qString(q, 'tag') ?? qString(q, 'tag_slug') ?? qString(q, 'tag_id');
  const tagOk = tag === undefined ? () => true : tagMatcher(ex, tag);
  const category = qString(q, 'category')?.toLowerCase();
  const slugs = new Set(qList(q, 'slug'));
  const ids = new Set(qList(q, 'id'));
  const inRange = rangeFilter<EventRec>(q, 'events', {
    volume: (ev) => eventTotals(ex, ev).volume,
    liquidity: (ev) => eventTotals(ex, ev).liquidity,
    startDate: (ev) => ev.startDate,
    endDate: (ev) => ev.endDate,
  });
  const list = [...ex.world.events.values()].filter((ev) => {
    const st = eventStatus(ex, ev);
    if (!closedOk(st.closed) || !activeOk(st.active)) return false;
    if (!tagOk(ev.tags)) return false;
    if (category !== undefined && ev.category.toLowerCase() !== category) return false;
    if (slugs.size && !slugs.has(ev.slug)) return false;
    if (ids.size && !ids.has(ev.id)) return false;
    return inRange(ev);
  });
  const vol = (ev: EventRec) => eventTotals(ex, ev).volume;
  const liq = (ev: EventRec) => eventTotals(ex, ev).liquidity;
  return ordered(list, q, {
    volume: vol,
    volumeNum: vol,
    liquidity: liq,
    liquidityNum: liq,
    start_date: (ev) => ev.startDate,
    startDate: (ev) => ev.startDate,
    end_date: (ev) => ev.endDate,
    endDate: (ev) => ev.endDate,
    created_at: (ev) => ev.createdAt,
    createdAt: (ev) => ev.createdAt,
  });
}

/**
 * Markets selected and ordered by the list parameters: `active`, `closed` (absent: all), `tag`
 * (the market's or its event's), `category`, `condition_ids` / `id`, `clob_token_ids`, `slug`
 * (repeatable or comma-separated), `event_id`, the ranges (./range-filters.ts: `volume_num_min`, `end_date_max`, ...), `order` = volume | liquidity | end_date |
 * start_date | created_at (descending unless `ascending=true`; listing order without `order`).
 */
export function selectMarkets(ex: PaperExchange, q: Query): MarketEntry[] {
  const closedOk = boolFilter(q, 'closed');
  const activeOk = boolFilter(q, 'active');
  const tag = qString(q, 'tag') ?? qString(q, 'tag_slug') ?? qString(q, 'tag_id');
  const tagOk = tag === undefined ? () => true : tagMatcher(ex, tag);
  const category = qString(q, 'category')?.toLowerCase();
  const cids = new Set([...qList(q, 'condition_ids'), ...qList(q, 'id')].map((s) => s.toLowerCase()));
  const toks = new Set(qList(q, 'clob_token_ids'));
  const slugs = new Set(qList(q, 'slug'));
  const eventId = qString(q, 'event_id');
  const start = (e: MarketEntry) => eventOf(ex, e)?.startDate ?? e.meta.createdAt;
  const inRange = rangeFilter<MarketEntry>(q, 'markets', {
    volume: (e) => e.volume,
    liquidity: (e) => ex.liquidity(e),
    startDate: start,
    endDate: (e) => e.meta.endDate,
  });
  const list = ex.listMarkets().filter((e) => {
    const active = e.state.status === 'active';
    if (!activeOk(active) || !closedOk(!active)) return false;
    if (cids.size && !cids.has(e.meta.conditionId.toLowerCase())) return false;
    if (toks.size && !e.meta.tokens.some((t) => toks.has(t))) return false;
    if (slugs.size && !slugs.has(e.meta.slug)) return false;
    if (category !== undefined && (e.meta.category || eventOf(ex, e)?.category || '').toLowerCase() !== category)
      return false;
    if (eventId !== undefined && eventOf(ex, e)?.id !== eventId) return false;
    if (!tagOk(marketTags(ex, e))) return false;
    return inRange(e);
  });
  const liq = (e: MarketEntry) => ex.liquidity(e);
  return ordered(list, q, {
    volume: (e) => e.volume,
    volumeNum: (e) => e.volume,
    liquidity: liq,
    liquidityNum: liq,
    end_date: (e) => e.meta.endDate,
    endDate: (e) => e.meta.endDate,
    start_date: start,
    startDate: start,
    created_at: (e) => e.meta.createdAt,
    createdAt: (e) => e.meta.createdAt,
  });
}

// ---- world records -----------------------------------------------------------------------------

/** A tag: `{id, label, slug}`. */
export const tagRecord = (t: TagRec): Record<string, unknown> => ({ id: t.id, label: t.label, slug: t.slug });

/** A sport category: `{id, sport, label, image, tags}`. */
export const sportRecord = (s: SportRec): Record<string, unknown> => ({
  id: s.id,
  sport: s.sport,
  label: s.label,
  image: s.image,
  tags: [...s.tags],
});

/** A series with the short records of its events. */
export function seriesRecord(ex: PaperExchange, s: SeriesRec): Record<string, unknown> {
  const events = [...ex.world.events.values()]
    .filter((e) => e.seriesSlug === s.slug)
    .map((e) => ({ id: e.id, slug: e.slug, title: e.title }));
  return { id: s.id, slug: s.slug, title: s.title, recurrence: s.recurrence, category: s.category, events };
}

/**
 * A comment, in the venue's camelCase (`parentEntityType`, `parentEntityID`, `parentCommentID`,
 * `userAddress`, `createdAt`) and mmkit's snake_case.
 */
export function commentRecord(c: CommentRec): Record<string, unknown> {
  return {
    id: c.id,
    body: c.body,
    parentEntityType: c.parentEntityType,
    parentEntityID: c.parentEntityId,
    parentCommentID: c.replyTo ?? null,
    userAddress: c.userAddress,
    createdAt: c.createdAt,
    parent_entity_type: c.parentEntityType,
    parent_entity_id: c.parentEntityId,
    reply_to: c.replyTo ?? null,
    user_address: c.userAddress,
    created_at: c.createdAt,
  };
}

/** A user profile (venue camelCase and snake_case); `synthetic` when made up from trading. */
export function profileRecord(p: ProfileRec, synthetic = false): Record<string, unknown> {
  return {
    address: p.address,
    proxyWallet: p.address,
    name: p.name,
    pseudonym: p.pseudonym,
    bio: p.bio,
    profileImage: p.profileImage,
    createdAt: p.createdAt,
    profile_image: p.profileImage,
    created_at: p.createdAt,
    synthetic,
  };
}

/** An article: `{id, slug, title, summary, body, author, published_at, tags, event_ids, image_url}`. */
export function articleRecord(a: ArticleRec): Record<string, unknown> {
  return {
    id: a.id,
    slug: a.slug,
    title: a.title,
    summary: a.summary,
    body: a.body,
    author: a.author,
    published_at: a.publishedAt,
    tags: [...a.tags],
    event_ids: [...a.eventIds],
    image_url: a.imageUrl,
  };
}

// ---- per-user fills ----------------------------------------------------------------------------

/** One user's part in one trade: the taker side, or one maker fill. */
export interface UserFill {
  rec: TradeRecord;
  role: 'TAKER' | 'MAKER';
  orderId: string;
  tokenId: string;
  side: 'BUY' | 'SELL';
  size: number; // micro-shares
  notional: number; // micro-collateral
  fee: number; // micro-collateral
}

/** A trade's taker part as its taker's fill. */
export function takerFill(rec: TradeRecord): UserFill {
  const t = rec.trade;
  return {
    rec,
    role: 'TAKER',
    orderId: t.takerOrderId,
    tokenId: t.tokenId,
    side: t.side,
    size: t.size,
    notional: takerNotional(t),
    fee: t.fee,
  };
}

/** The user's fills, oldest first (taker part first within a trade, then maker fills). */
export function userFills(ex: PaperExchange, account: string): UserFill[] {
  const out: UserFill[] = [];
  for (const rec of ex.tradesOf(account)) {
    const t = rec.trade;
    if (t.takerAccount === account) out.push(takerFill(rec));
    for (const m of t.makers)
      if (m.account === account)
        out.push({
          rec,
          role: 'MAKER',
          orderId: m.orderId,
          tokenId: m.tokenId,
          side: m.side,
          size: m.size,
          notional: valueAt(m.size, m.price),
          fee: 0,
        });
  }
  return out;
}
