/**
 * The world generator: from a seed and the seeding time, every record of a believable synthetic
 * venue (tags, series, sports, events holding markets, profiles, comments, articles). The records
 * that appear later are built by the parts it shares with the lifecycle: the next crypto up/down
 * window (rolling-crypto.ts), the next game (games.ts), a new comment (world-comments.ts).
 *
 * Pure: no exchange, no clock. Identifiers (condition and token ids, event ids, addresses) depend on
 * the seed only, never on the time, so the same seed gives the same ids on any day; titles and dates
 * use the seeding time.
 */
import type { Rng } from '../../core/random.ts';
import type { TickSize } from '../../core/units.ts';
import { conditionIdFor, type MarketMeta } from '../markets.ts';
import { EVENT_TEMPLATES, GAME_SPORTS, OTHER_SPORTS, ROLLING_CRYPTO, TAGS, type EventTemplate } from './catalog.ts';
import { CRYPTO_PARAMS, CryptoWalk } from './crypto.ts';
import { binaryP0 } from './fair.ts';
import { gameEvent, gameSeries } from './games.ts';
import { binaryDescription, DAY, image, iso, type MarketDraft, MONTHS, slugify, toMeta } from './market-drafts.ts';
import type {
  ArticleRec,
  CommentRec,
  CryptoSymbol,
  EventRec,
  ProfileRec,
  SeriesRec,
  SportRec,
  TagRec,
} from './model.ts';
import { coinTags, cryptoWindowMarket, firstWindow, rollingSeries } from './rolling-crypto.ts';
import { hash32, rngFor, shuffled } from './seeding.ts';
import { makeArticles, makeComments, makeProfiles } from './world-comments.ts';

/** Upper bound on the seeded markets (the optional events are trimmed to stay under it). */
const MAX_MARKETS = 60;

/** Everything seedWorld puts into a fresh exchange, in the order it is applied. */
export interface WorldPlan {
  tags: TagRec[];
  series: SeriesRec[];
  sports: SportRec[];
  /** Events with their `marketIds` filled in. */
  events: EventRec[];
  /** Markets in listing order; each has eventId, tags, category and an end date. */
  markets: MarketMeta[];
  profiles: ProfileRec[];
  comments: CommentRec[];
  articles: ArticleRec[];
}

/** First numeric event id of world `seed`; events get consecutive ids from it. */
export function eventIdBase(seed: number): number {
  return 16_000 + (hash32(`events:${seed}`) % 60_000);
}

/**
 * A template's text at `nowMs` (the world's start): `{year}`, `{month}` (next month's name),
 * `{monthSlug}`; and, with the event's `endMs`, `{end}` (its end date, e.g. `February 26, 2027`)
 * and `{endYear}`. A question with a calendar date says `{end}`, not a fixed day of `{year}`: a
 * world started in November would otherwise list "by April 30" of its own year, long past.
 */
function fill(s: string, nowMs: number, endMs?: number): string {
  const d = new Date(nowMs);
  const year = d.getUTCFullYear();
  const next = new Date(Date.UTC(year, d.getUTCMonth() + 1, 1));
  const month = MONTHS[next.getUTCMonth()]!;
  let out = s
    .replace(/\{year\}/g, String(year))
    .replace(/\{monthSlug\}/g, `${month.toLowerCase()}-${next.getUTCFullYear()}`)
    .replace(/\{month\}/g, month);
  if (endMs !== undefined) {
    const e = new Date(endMs);
    out = out
      .replace(/\{end\}/g, `${MONTHS[e.getUTCMonth()]!} ${e.getUTCDate()}, ${e.getUTCFullYear()}`)
      .replace(/\{endYear\}/g, String(e.getUTCFullYear()));
  }
  return out;
}

// ---- the seeded world ---------------------------------------------------------------------------

function staticEvent(
  seed: number,
  t: EventTemplate,
  id: string,
  nowMs: number,
  rng: Rng,
): { event: EventRec; drafts: MarketDraft[] } {
  const slug = slugify(fill(t.key, nowMs));
  const endMs =
    Math.floor((nowMs + (t.endDays[0] + rng.next() * (t.endDays[1] - t.endDays[0])) * DAY) / 60_000) * 60_000;
  const createdMs = Math.floor((nowMs - (2 + rng.next() * 40) * DAY) / 1000) * 1000;
  const description = fill(t.description, nowMs, endMs);
  const event: EventRec = {
    id,
    slug,
    title: fill(t.title, nowMs, endMs),
    description,
    tags: [...t.tags],
    category: t.category,
    startDate: iso(createdMs),
    endDate: iso(endMs),
    imageUrl: image('events', slug),
    createdAt: iso(createdMs),
    negRisk: t.negRisk === true,
    ...(t.series ? { seriesSlug: t.series.slug } : {}),
    marketIds: [],
  };
  const drafts = t.markets.map((q0, i) => {
    const q = fill(q0, nowMs, endMs);
    return {
      label: `${seed}:${t.key}:${i}`,
      question: q,
      description: binaryDescription(q, event),
      slug: slugify(q),
      negRisk: t.negRisk === true,
      tick: '0.01' as TickSize,
      endMs,
      createdMs,
    };
  });
  return { event, drafts };
}

function cryptoAboveEvent(
  seed: number,
  symbol: CryptoSymbol,
  id: string,
  nowMs: number,
  strikes: number[],
): { event: EventRec; drafts: MarketDraft[] } {
  const p = CRYPTO_PARAMS[symbol];
  // the next UTC midnight at least 8 hours away
  let endMs = Math.ceil(nowMs / DAY) * DAY;
  if (endMs - nowMs < 8 * 3_600_000) endMs += DAY;
  const d = new Date(endMs - 1);
  const day = `${MONTHS[d.getUTCMonth()]!} ${d.getUTCDate()}`;
  const slug = `${p.name.toLowerCase()}-above-on-${slugify(day)}`;
  const description = `Markets on the ${p.ticker}/USDT price at ${iso(endMs)} per the exchange's price feed (RTDS crypto_prices).`;
  const event: EventRec = {
    id,
    slug,
    title: `${p.name} above ___ on ${day}?`,
    description,
    tags: ['Crypto', p.name, 'Crypto Prices'],
    category: 'crypto',
    startDate: iso(nowMs),
    endDate: iso(endMs),
    imageUrl: image('events', slug),
    createdAt: iso(nowMs),
    negRisk: false,
    marketIds: [],
  };
  const drafts = strikes.map((k, i) => {
    const ks = k.toLocaleString('en-US');
    const q = `Will the price of ${p.name} be above $${ks} on ${day}?`;
    return {
      label: `${seed}:${symbol}-above:${i}`,
      question: q,
      description: `This market will resolve to "Yes" if the ${p.ticker}/USDT price at ${iso(endMs)} is greater than or equal to the price to beat. Price to beat: $${ks}. Otherwise "No". ${description}`,
      slug: `${p.ticker.toLowerCase()}-above-${String(k).replace('.', '-')}-on-${slugify(day)}`,
      negRisk: false,
      tick: '0.01' as TickSize,
      endMs,
      createdMs: nowMs,
      cryptoSymbol: symbol,
    } satisfies MarketDraft;
  });
  return { event, drafts };
}

function niceStrikes(start: number, symbol: CryptoSymbol): number[] {
  const step = symbol === 'btcusdt' ? 1000 : symbol === 'ethusdt' ? 50 : 1;
  const out = new Set<number>();
  for (const f of [0.97, 0.99, 1.01, 1.03]) out.add(Math.round((start * f) / step) * step);
  return [...out];
}

/**
 * The whole seeded world of `seed` at time `nowMs` (see the module comment). Deterministic: the same
 * (seed, nowMs) gives deep-equal plans, and the same seed gives the same ids at any time.
 */
export function generateWorld(seed: number, nowMs: number): WorldPlan {
  const rng = rngFor(seed, 'world');
  const base = eventIdBase(seed);
  let nextEvent = base;
  const events: EventRec[] = [];
  const drafts: MarketDraft[][] = [];
  const series = new Map<string, SeriesRec>();
  const add = (e: { event: EventRec; drafts: MarketDraft[] }) => {
    events.push(e.event);
    drafts.push(e.drafts);
  };

  // what the seed picks: optional rolling crypto series, price ladders, optional static events
  const rolling = ROLLING_CRYPTO.filter((r) => r.core || rng.next() < 0.5);
  const aboveSymbols: CryptoSymbol[] = ['btcusdt', ...(rng.next() < 0.5 ? (['ethusdt'] as const) : [])];
  const core = EVENT_TEMPLATES.filter((t) => t.core);
  const optional = shuffled(
    rng,
    EVENT_TEMPLATES.filter((t) => !t.core),
  ).slice(0, rng.int(2, 5));
  const count = (ts: readonly EventTemplate[]) => ts.reduce((n, t) => n + t.markets.length, 0);
  const fixed = count(core) + GAME_SPORTS.length * 3 + rolling.length + aboveSymbols.length * 4;
  while (optional.length > 1 && fixed + count(optional) > MAX_MARKETS) optional.pop();
  const picked = new Set([...core, ...optional]);

  // static events: the core ones and the seed's selection of the others, in catalog order
  for (const t of EVENT_TEMPLATES) {
    if (!picked.has(t)) continue;
    add(staticEvent(seed, t, String(nextEvent++), nowMs, rngFor(seed, `event:${t.key}`)));
    if (t.series)
      series.set(t.series.slug, {
        id: String(7_000 + (hash32(t.series.slug) % 1000)),
        ...t.series,
        category: t.category,
      });
  }

  // games (short-dated: they finish during a run and the next game appears)
  const games: Array<{ event: EventRec; markets: MarketMeta[] }> = [];
  for (const g of GAME_SPORTS) {
    games.push(gameEvent(seed, g, 0, String(nextEvent++), nowMs));
    series.set(g.seriesSlug, gameSeries(g));
  }

  // crypto: rolling up/down series (the core ones and a seed-drawn few), price-above ladders
  const walks = new Map<CryptoSymbol, number>();
  const startPrice = (s: CryptoSymbol) => {
    let v = walks.get(s);
    if (v === undefined) walks.set(s, (v = new CryptoWalk(s, seed, nowMs, { historySec: 2 }).startPrice));
    return v;
  };
  const cryptoEvents: Array<{ event: EventRec; markets: MarketMeta[] }> = [];
  for (const rc of rolling) {
    const p = CRYPTO_PARAMS[rc.symbol];
    const w = firstWindow(rc, nowMs);
    const s = rollingSeries(rc);
    series.set(s.slug, s);
    const event: EventRec = {
      id: String(nextEvent++),
      slug: rc.slug,
      title: `${p.name} Up or Down - ${rc.windowMin === 1440 ? 'Daily' : rc.windowMin === 60 ? 'Hourly' : `${rc.windowMin} Minutes`}`,
      description: `${p.name} up or down over successive ${rc.windowMin === 1440 ? 'daily' : rc.windowMin === 60 ? 'hourly' : `${rc.windowMin}-minute`} windows: a new market opens as each window ends.`,
      tags: coinTags(rc.symbol),
      category: 'crypto',
      startDate: iso(w.startMs),
      endDate: iso(w.endMs),
      imageUrl: image('events', rc.slug),
      createdAt: iso(nowMs),
      negRisk: false,
      seriesSlug: rc.slug,
      marketIds: [],
    };
    const m = cryptoWindowMarket(seed, event, rc, 0, w.startMs, w.endMs, startPrice(rc.symbol), nowMs);
    event.marketIds = [m.conditionId];
    cryptoEvents.push({ event, markets: [m] });
  }
  for (const s of aboveSymbols) {
    const e = cryptoAboveEvent(seed, s, String(nextEvent++), nowMs, niceStrikes(startPrice(s), s));
    const markets = e.drafts.map((d) => toMeta(d, e.event));
    e.event.marketIds = markets.map((m) => m.conditionId);
    cryptoEvents.push({ event: e.event, markets });
  }

  // tick sizes: long shots trade on 0.001; one market each on 0.1 and 0.0001; the first
  // non-neg-risk market of the listing stays on 0.01 (tests and examples pick it)
  const staticMarkets: Array<{ d: MarketDraft; ev: EventRec }> = [];
  events.forEach((ev, i) => {
    for (const d of drafts[i]!) staticMarkets.push({ d, ev });
  });
  const binaries = staticMarkets.filter((x) => !x.d.negRisk);
  const first = binaries[0];
  const p0 = (d: MarketDraft) => binaryP0(seed, conditionIdFor(d.label));
  for (const { d } of staticMarkets) {
    if (d === first?.d) continue;
    if (!d.negRisk && (p0(d) < 0.06 || p0(d) > 0.94)) d.tick = '0.001';
  }
  for (const { ev } of staticMarkets) {
    if (!ev.negRisk) continue;
    drafts[events.indexOf(ev)]!.forEach((d, i) => {
      if (i >= 4) d.tick = '0.001';
    });
  }
  const spare = binaries.filter((x) => x.d !== first?.d && x.d.tick === '0.01');
  const byMid = [...spare].sort((a, b) => Math.abs(p0(a.d) - 0.5) - Math.abs(p0(b.d) - 0.5));
  const t01 = byMid[0];
  if (t01) t01.d.tick = '0.1';
  const t0001 = byMid.find((x) => x !== t01 && p0(x.d) > 0.1 && p0(x.d) < 0.9) ?? byMid.find((x) => x !== t01);
  if (t0001) t0001.d.tick = '0.0001';
  if (!staticMarkets.some((x) => x.d.tick === '0.001')) {
    const t001 = byMid.reverse().find((x) => x !== t01 && x !== t0001);
    if (t001) t001.d.tick = '0.001';
  }

  const markets: MarketMeta[] = [];
  events.forEach((ev, i) => {
    const ms = drafts[i]!.map((d) => toMeta(d, ev));
    ev.marketIds = ms.map((m) => m.conditionId);
    markets.push(...ms);
  });
  for (const g of [...games, ...cryptoEvents]) {
    events.push(g.event);
    markets.push(...g.markets);
  }
  // slugs are unique
  const seen = new Set<string>();
  for (const m of markets) {
    let s = m.slug;
    for (let n = 2; seen.has(s); n++) s = `${m.slug}-${n}`;
    m.slug = s;
    seen.add(s);
  }

  const usedTags = new Set(events.flatMap((e) => e.tags));
  const tags = TAGS.filter(
    (t) =>
      usedTags.has(t.label) ||
      ['Politics', 'Sports', 'Crypto', 'Economy', 'Tech', 'Science', 'Culture'].includes(t.label),
  );
  const sports: SportRec[] = [
    ...GAME_SPORTS.map((g) => ({
      id: String(100 + (hash32(g.sport) % 900)),
      sport: g.sport,
      label: g.label,
      image: image('sports', g.sport),
      tags: [...g.tags],
    })),
    ...OTHER_SPORTS.map((s) => ({
      id: String(100 + (hash32(s.sport) % 900)),
      sport: s.sport,
      label: s.label,
      image: image('sports', s.sport),
      tags: [...s.tags],
    })),
  ];

  const profiles = makeProfiles(seed, nowMs);
  const comments = makeComments(seed, nowMs, events, markets, profiles);
  const articles = makeArticles(seed, nowMs, events);
  return { tags, series: [...series.values()], sports, events, markets, profiles, comments, articles };
}
