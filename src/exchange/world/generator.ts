/**
 * The world generator: from a seed and the seeding time, every record of a believable synthetic
 * venue (tags, series, sports, events holding markets, profiles, comments, articles), plus the
 * records that appear later (the next crypto up/down window, the next game, a new comment).
 *
 * Pure: no exchange, no clock. Identifiers (condition and token ids, event ids, addresses) depend on
 * the seed only, never on the time, so the same seed gives the same ids on any day; titles and dates
 * use the seeding time.
 */
import { keccak256, toUtf8Bytes } from 'ethers';
import type { Rng } from '../../core/random.ts';
import type { TickSize } from '../../core/units.ts';
import { conditionIdFor, tokenIdFor, type MarketMeta } from '../markets.ts';
import {
  ARTICLE_AUTHORS,
  ARTICLE_PARAGRAPHS,
  ARTICLE_TITLES,
  BIOS,
  COMMENT_BODIES,
  EVENT_TEMPLATES,
  FIRST_NAMES,
  GAME_SPORTS,
  HANDLE_A,
  HANDLE_B,
  OTHER_SPORTS,
  REPLY_BODIES,
  ROLLING_CRYPTO,
  TAGS,
  type EventTemplate,
  type GameSport,
  type RollingCrypto,
} from './catalog.ts';
import { CRYPTO_PARAMS, CryptoWalk, roundPrice } from './crypto.ts';
import { binaryP0 } from './fair.ts';
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
import { addressFor, hash32, rngFor, shuffled } from './seeding.ts';

/** Minimum order size of every world market: 5 shares. */
export const WORLD_MIN_SIZE_MICRO = 5_000_000;

const DAY = 86_400_000;
/** Upper bound on the seeded markets (the optional events are trimmed to stay under it). */
const MAX_MARKETS = 60;
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const;
const MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

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

/** The flow agents' accounts of a world (deterministic per seed). */
export interface AgentAccounts {
  /** Liquidity providers: resting ladders on every market. */
  lp: string[];
  /** Noise traders: Poisson limit and marketable orders. */
  noise: string[];
  /** Informed traders: trade toward the hidden probability. */
  informed: string[];
  /** More informed traders, each with its own delay and error (profiles with news; profiles.ts). */
  newsInformed: string[];
  /** Fast traders: take stale quotes right after a jump (profiles with news). */
  fast: string[];
}

export const AGENT_COUNTS = { lp: 4, noise: 8, informed: 3, newsInformed: 16, fast: 6 } as const;

/** The agent accounts of world `seed`. */
export function agentAccounts(seed: number): AgentAccounts {
  const make = (role: string, n: number) =>
    Array.from({ length: n }, (_, i) => addressFor(`agent:${seed}:${role}:${i}`));
  return {
    lp: make('lp', AGENT_COUNTS.lp),
    noise: make('noise', AGENT_COUNTS.noise),
    informed: make('informed', AGENT_COUNTS.informed),
    newsInformed: make('news-informed', AGENT_COUNTS.newsInformed),
    fast: make('fast', AGENT_COUNTS.fast),
  };
}

/** First numeric event id of world `seed`; events get consecutive ids from it. */
export function eventIdBase(seed: number): number {
  return 16_000 + (hash32(`events:${seed}`) % 60_000);
}

/** First numeric comment id of world `seed`. */
export function commentIdBase(seed: number): number {
  return 1_000_000 + (hash32(`comments:${seed}`) % 8_000_000);
}

export function slugify(s: string): string {
  return s
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

const iso = (ms: number): string => new Date(ms).toISOString();
const image = (kind: string, slug: string): string => `https://paper.mmkit.dev/img/${kind}/${slug}.png`;

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

/** A market's identity from its label (condition, question and token ids). */
function ids(label: string): Pick<MarketMeta, 'conditionId' | 'questionId' | 'tokens'> {
  return {
    conditionId: conditionIdFor(label),
    questionId: keccak256(toUtf8Bytes(`question:${label}`)),
    tokens: [tokenIdFor(`${label}:yes`), tokenIdFor(`${label}:no`)],
  };
}

function binaryDescription(question: string, ev: { description: string }): string {
  return `This market will resolve to "Yes" if the answer to "${question}" is yes. Otherwise, it will resolve to "No". ${ev.description}`;
}

interface MarketDraft {
  label: string;
  question: string;
  description: string;
  slug: string;
  negRisk: boolean;
  tick: TickSize;
  endMs: number;
  createdMs: number;
  cryptoSymbol?: CryptoSymbol;
}

function toMeta(d: MarketDraft, ev: EventRec): MarketMeta {
  return {
    ...ids(d.label),
    question: d.question,
    description: d.description,
    slug: d.slug,
    outcomes: ['Yes', 'No'],
    tick: d.tick,
    minSizeMicro: WORLD_MIN_SIZE_MICRO,
    negRisk: d.negRisk,
    feeRateBps: 0,
    endDate: iso(d.endMs),
    createdAt: iso(d.createdMs),
    category: ev.category,
    tags: [...ev.tags],
    eventId: ev.id,
    ...(d.cryptoSymbol !== undefined ? { cryptoSymbol: d.cryptoSymbol } : {}),
  };
}

// ---- crypto ---------------------------------------------------------------------------------------

function coinTags(symbol: CryptoSymbol): string[] {
  const name = CRYPTO_PARAMS[symbol].name;
  return ['Crypto', name === 'Dogecoin' ? 'Dogecoin' : name, 'Up or Down', 'Crypto Prices'];
}

function windowLabel(rc: RollingCrypto): string {
  if (rc.windowMin === 1440) return 'daily';
  if (rc.windowMin === 60) return 'hourly';
  return `${rc.windowMin}m`;
}

function hhmm(ms: number): string {
  const d = new Date(ms);
  return `${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`;
}

/** The series record of a rolling crypto up/down event. */
export function rollingSeries(rc: RollingCrypto): SeriesRec {
  const p = CRYPTO_PARAMS[rc.symbol];
  return {
    id: String(9_000 + (hash32(rc.slug) % 1000)),
    slug: rc.slug,
    title: `${p.ticker} Up or Down ${rc.windowMin === 1440 ? 'Daily' : rc.windowMin === 60 ? 'Hourly' : `${rc.windowMin}m`}`,
    recurrence: rc.windowMin >= 1440 ? 'daily' : 'hourly',
    category: 'crypto',
  };
}

/** The rolling crypto series an event belongs to, if it is one. */
export function rollingOf(ev: EventRec): RollingCrypto | undefined {
  return ev.seriesSlug === undefined
    ? undefined
    : ROLLING_CRYPTO.find((r) => r.slug === ev.seriesSlug && ev.slug === r.slug);
}

/**
 * The up/down market of window [startMs, endMs] of a rolling crypto event: YES ("Up") when the
 * price at the end is at least the strike (the price when the window opened).
 * @param index the market's number in the event (0 for the first), which fixes its ids
 */
export function cryptoWindowMarket(
  seed: number,
  ev: EventRec,
  rc: RollingCrypto,
  index: number,
  startMs: number,
  endMs: number,
  strike: number,
  nowMs: number,
): MarketMeta {
  const p = CRYPTO_PARAMS[rc.symbol];
  const last = new Date(endMs - 1);
  const first = new Date(startMs);
  const question =
    rc.windowMin >= 1440
      ? `${p.name} Up or Down on ${MONTHS[last.getUTCMonth()]!} ${last.getUTCDate()}?`
      : `${p.name} Up or Down - ${MON[first.getUTCMonth()]!} ${first.getUTCDate()}, ${hhmm(startMs)}-${hhmm(endMs)} UTC`;
  const k = roundPrice(rc.symbol, strike);
  const description =
    `This market will resolve to "Up" ("Yes") if the ${p.ticker}/USDT price at the end of the window (${iso(endMs)}) is greater than or equal to the price at its start (${iso(startMs)}), ` +
    `and to "Down" ("No") otherwise. Price to beat: $${k.toLocaleString('en-US', { maximumFractionDigits: p.decimals })}. ` +
    `The resolution source is the exchange's ${p.ticker}/USDT price feed (RTDS crypto_prices).`;
  return toMeta(
    {
      label: `${seed}:${rc.slug}:${index}`,
      question,
      description,
      slug: `${p.ticker.toLowerCase()}-updown-${windowLabel(rc)}-${Math.floor(endMs / 1000)}`,
      negRisk: false,
      tick: '0.01',
      endMs,
      createdMs: nowMs,
      cryptoSymbol: rc.symbol,
    },
    ev,
  );
}

/**
 * The first window of a rolling series at time `nowMs`: it ends on the next window boundary (the one
 * after, when that is less than a minute away) and has started, at the latest now.
 */
export function firstWindow(rc: RollingCrypto, nowMs: number): { startMs: number; endMs: number } {
  const L = rc.windowMin * 60_000;
  let endMs = Math.ceil(nowMs / L) * L;
  if (endMs - nowMs < 60_000) endMs += L;
  return { startMs: Math.min(endMs - L, Math.floor(nowMs / 1000) * 1000), endMs };
}

// ---- games ----------------------------------------------------------------------------------------

/** The series record of a game sport. */
export function gameSeries(g: GameSport): SeriesRec {
  return {
    id: String(8_000 + (hash32(g.seriesSlug) % 1000)),
    slug: g.seriesSlug,
    title: g.seriesTitle,
    recurrence: 'daily',
    category: 'sports',
  };
}

/**
 * Game number `n` of a sport's series: an event whose markets end when the game does (in minutes),
 * so games finish and the next one appears during a run.
 */
export function gameEvent(
  seed: number,
  g: GameSport,
  n: number,
  eventId: string,
  nowMs: number,
): { event: EventRec; markets: MarketMeta[] } {
  const rng = rngFor(seed, `game:${g.sport}:${n}`);
  const teams = shuffled(rng, g.teams);
  const home = teams[0]!;
  const away = teams[1]!;
  const minutes = rng.int(g.minutes[0], g.minutes[1]);
  const endMs = Math.floor((nowMs + minutes * 60_000) / 1000) * 1000;
  const title = `${home} vs. ${away}`;
  const slug = `${g.sport}-${slugify(home)}-${slugify(away)}-g${n + 1}`;
  const description = `${g.label}: ${home} host ${away}. Markets resolve on the official final result (regulation and overtime included unless stated).`;
  const event: EventRec = {
    id: eventId,
    slug,
    title,
    description,
    tags: [...g.tags],
    category: 'sports',
    startDate: iso(nowMs),
    endDate: iso(endMs),
    imageUrl: image('events', slug),
    createdAt: iso(nowMs),
    negRisk: g.threeWay,
    seriesSlug: g.seriesSlug,
    sport: g.sport,
    marketIds: [],
  };
  const qs: Array<[string, string]> = g.threeWay
    ? [
        [`Will ${home} win?`, `${slug}-${slugify(home)}`],
        [`Will ${home} vs. ${away} end in a draw?`, `${slug}-draw`],
        [`Will ${away} win?`, `${slug}-${slugify(away)}`],
      ]
    : [
        [`${title}: will the ${home} win?`, `${slug}-moneyline`],
        [`Spread: will the ${home} win by more than ${rng.int(2, 8)}.5 points?`, `${slug}-spread`],
        [`Total: will ${home} vs. ${away} score over ${rng.int(212, 238)}.5 points?`, `${slug}-total`],
      ];
  const markets = qs.map(([q, s], i) =>
    toMeta(
      {
        label: `${seed}:game:${g.sport}:${n}:${i}`,
        question: q,
        description: binaryDescription(q, event),
        slug: s,
        negRisk: g.threeWay,
        tick: '0.01',
        endMs,
        createdMs: nowMs,
      },
      event,
    ),
  );
  event.marketIds = markets.map((m) => m.conditionId);
  return { event, markets };
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

// ---- people and content ---------------------------------------------------------------------------

function handle(rng: Rng): string {
  return `${rng.pick(HANDLE_A)}${rng.pick(HANDLE_B)}${rng.int(1, 999)}`;
}

function makeProfiles(seed: number, nowMs: number): ProfileRec[] {
  const rng = rngFor(seed, 'profiles');
  const agents = agentAccounts(seed);
  const out: ProfileRec[] = [];
  const used = new Set<string>();
  const profile = (address: string, name: string, bio: string): ProfileRec => {
    let pseudonym = handle(rng);
    while (used.has(pseudonym)) pseudonym = handle(rng);
    used.add(pseudonym);
    const created = nowMs - Math.floor((5 + rng.next() * 600) * DAY);
    return {
      address,
      name,
      pseudonym,
      bio,
      profileImage: image('profiles', pseudonym.toLowerCase()),
      createdAt: iso(created),
    };
  };
  const lpNames = ['Pinewood Liquidity', 'Harbor Quotes', 'Meridian Markets', 'Delta Flow Capital'];
  agents.lp.forEach((a, i) =>
    out.push(profile(a, lpNames[i % lpNames.length]!, 'Market making on every book. Two-sided, all day.')),
  );
  for (const a of [...agents.noise, ...agents.informed])
    out.push(profile(a, rng.next() < 0.5 ? rng.pick(FIRST_NAMES) : '', rng.pick(BIOS)));
  const users = rng.int(12, 30);
  for (let i = 0; i < users; i++)
    out.push(
      profile(addressFor(`profile:${seed}:${i}`), rng.next() < 0.6 ? rng.pick(FIRST_NAMES) : '', rng.pick(BIOS)),
    );
  return out;
}

/** Parent of a comment: an event or a market. */
export interface CommentParent {
  type: 'Event' | 'Market';
  id: string;
  /** The event title or market question (for {q}). */
  text: string;
}

/** One comment's record (body drawn by `rng`); `replyTo` makes it a reply. */
export function commentRecord(
  rng: Rng,
  id: string,
  parent: CommentParent,
  author: string,
  atMs: number,
  replyTo?: string,
): CommentRec {
  const o = rng.next() < 0.5 ? 'YES' : 'NO';
  const body =
    replyTo !== undefined
      ? rng.pick(REPLY_BODIES)
      : rng.pick(COMMENT_BODIES).replace('{q}', parent.text).replace('{o}', o);
  return {
    id,
    body,
    parentEntityType: parent.type,
    parentEntityId: parent.id,
    userAddress: author.toLowerCase(),
    createdAt: iso(atMs),
    ...(replyTo !== undefined ? { replyTo } : {}),
  };
}

function makeComments(
  seed: number,
  nowMs: number,
  events: EventRec[],
  markets: MarketMeta[],
  profiles: ProfileRec[],
): CommentRec[] {
  const rng = rngFor(seed, 'comments');
  const n = rng.int(60, 140);
  const eventById = new Map(events.map((e) => [e.id, e]));
  const drafts: Array<{ parent: CommentParent; at: number; author: string; reply: boolean }> = [];
  for (let i = 0; i < n; i++) {
    let parent: CommentParent;
    let created: number;
    if (rng.next() < 0.55) {
      const e = rng.pick(events);
      parent = { type: 'Event', id: e.id, text: e.title };
      created = Date.parse(e.createdAt);
    } else {
      const m = rng.pick(markets);
      parent = { type: 'Market', id: m.conditionId, text: m.question };
      created = Date.parse(eventById.get(m.eventId ?? '')?.createdAt ?? m.createdAt);
    }
    const span = Math.max(60_000, nowMs - created);
    const at = Math.floor(nowMs - span * rng.next() * rng.next());
    drafts.push({ parent, at, author: rng.pick(profiles).address, reply: rng.next() < 0.25 });
  }
  drafts.sort((a, b) => a.at - b.at);
  const base = commentIdBase(seed);
  const out: CommentRec[] = [];
  const byParent = new Map<string, CommentRec[]>();
  drafts.forEach((d, i) => {
    const earlier = byParent.get(d.parent.id) ?? [];
    const replyTo = d.reply && earlier.length > 0 ? rng.pick(earlier).id : undefined;
    const c = commentRecord(rng, String(base + i), d.parent, d.author, d.at, replyTo);
    out.push(c);
    earlier.push(c);
    byParent.set(d.parent.id, earlier);
  });
  return out;
}

function makeArticles(seed: number, nowMs: number, events: EventRec[]): ArticleRec[] {
  const rng = rngFor(seed, 'articles');
  const n = rng.int(10, 20);
  const pool = shuffled(
    rng,
    events.filter((e) => e.category !== 'crypto' || !e.seriesSlug),
  );
  const out: ArticleRec[] = [];
  for (let i = 0; i < n; i++) {
    const e = pool[i % pool.length]!;
    const title = rng.pick(ARTICLE_TITLES).replace('{t}', e.title);
    const paras = shuffled(rng, ARTICLE_PARAGRAPHS).slice(0, 3);
    const created = Date.parse(e.createdAt);
    const at = Math.floor(nowMs - Math.max(60_000, nowMs - created) * rng.next());
    const slug = `${slugify(title).slice(0, 60)}-${i + 1}`;
    out.push({
      id: String(500 + i + (hash32(`articles:${seed}`) % 10_000) * 100),
      slug,
      title,
      summary: paras[0]!,
      body: paras.join('\n\n'),
      author: rng.pick(ARTICLE_AUTHORS),
      publishedAt: iso(at),
      tags: [...e.tags],
      eventIds: [e.id],
      imageUrl: image('articles', slug),
    });
  }
  out.sort((a, b) => Date.parse(a.publishedAt) - Date.parse(b.publishedAt));
  return out;
}
