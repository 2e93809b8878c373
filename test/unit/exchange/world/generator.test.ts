import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../../src/core/clock.ts';
import { TICK_SIZES } from '../../../../src/core/units.ts';
import { DEFAULT_EXCHANGE_OPTIONS, PaperExchange } from '../../../../src/exchange/exchange.ts';
import { agentAccounts } from '../../../../src/exchange/world/agent-accounts.ts';
import { generateWorld, type WorldPlan } from '../../../../src/exchange/world/generator.ts';
import { firstWindow } from '../../../../src/exchange/world/rolling-crypto.ts';
import { ROLLING_CRYPTO } from '../../../../src/exchange/world/catalog.ts';
import { parseStrike } from '../../../../src/exchange/world/fair.ts';
import { seedWorld } from '../../../../src/exchange/world/index.ts';
import { CRYPTO_SYMBOLS } from '../../../../src/exchange/world/model.ts';

const T0 = Date.UTC(2025, 0, 6, 12, 0, 7);

function seeded(seed: number, t = T0): PaperExchange {
  const ex = new PaperExchange({ ...DEFAULT_EXCHANGE_OPTIONS, clock: new VirtualClock(t) });
  seedWorld(ex, seed);
  return ex;
}

/** Everything seedWorld put in the exchange, comparable with toEqual. */
function records(ex: PaperExchange) {
  const w = ex.world;
  return {
    markets: ex.listMarkets().map((m) => m.meta),
    events: [...w.events.values()],
    tags: [...w.tags.values()],
    series: [...w.series.values()],
    sports: [...w.sports.values()],
    comments: w.comments,
    articles: [...w.articles.values()],
    profiles: [...w.profiles.values()],
  };
}

describe('seedWorld determinism', () => {
  it('the same seed at the same time gives identical records and ids', () => {
    expect(records(seeded(7))).toEqual(records(seeded(7)));
    expect(generateWorld(7, T0)).toEqual(generateWorld(7, T0));
  });

  it('the same seed at another time gives the same ids', () => {
    const a = generateWorld(11, T0);
    const b = generateWorld(11, T0 + 3 * 86_400_000 + 12_345);
    expect(b.markets.map((m) => m.conditionId)).toEqual(a.markets.map((m) => m.conditionId));
    expect(b.markets.map((m) => m.tokens)).toEqual(a.markets.map((m) => m.tokens));
    expect(b.events.map((e) => e.id)).toEqual(a.events.map((e) => e.id));
    expect(b.profiles.map((p) => p.address)).toEqual(a.profiles.map((p) => p.address));
  });

  it('a different seed gives a different world', () => {
    const a = generateWorld(1, T0);
    const b = generateWorld(2, T0);
    const ids = new Set(a.markets.map((m) => m.conditionId));
    expect(b.markets.some((m) => ids.has(m.conditionId))).toBe(false);
    expect(b.profiles[0]!.address).not.toBe(a.profiles[0]!.address);
    expect(JSON.stringify(b.comments)).not.toBe(JSON.stringify(a.comments));
  });

  it('places no orders and funds nobody', () => {
    const ex = seeded(3);
    for (const m of ex.listMarkets()) {
      expect(m.state.status).toBe('active');
      const book = ex.engine.book(m.meta.tokens[0]);
      expect(book.bids).toEqual([]);
      expect(book.asks).toEqual([]);
    }
    expect(ex.engine.totals().collateral).toBe(0);
  });
});

function checkPlan(p: WorldPlan, seed: number): void {
  const markets = p.markets;
  const events = new Map(p.events.map((e) => [e.id, e]));
  // sizes
  expect(p.events.length).toBeGreaterThanOrEqual(10);
  expect(p.events.length).toBeLessThanOrEqual(20);
  expect(markets.length).toBeGreaterThanOrEqual(30);
  expect(markets.length).toBeLessThanOrEqual(60);
  expect(p.profiles.length).toBeGreaterThanOrEqual(20);
  expect(p.profiles.length).toBeLessThanOrEqual(50);
  expect(p.comments.length).toBeGreaterThanOrEqual(50);
  expect(p.comments.length).toBeLessThanOrEqual(150);
  expect(p.articles.length).toBeGreaterThanOrEqual(10);
  expect(p.articles.length).toBeLessThanOrEqual(20);
  // unique ids
  expect(new Set(markets.map((m) => m.conditionId)).size).toBe(markets.length);
  expect(new Set(markets.flatMap((m) => m.tokens)).size).toBe(2 * markets.length);
  expect(new Set(markets.map((m) => m.slug)).size).toBe(markets.length);
  expect(new Set(p.events.map((e) => e.id)).size).toBe(p.events.length);
  expect(new Set(p.events.map((e) => e.slug)).size).toBe(p.events.length);
  expect(new Set(p.comments.map((c) => c.id)).size).toBe(p.comments.length);
  // the guarantees other tests rely on
  for (const t of TICK_SIZES)
    expect(
      markets.some((m) => m.tick === t),
      `tick ${t}`,
    ).toBe(true);
  const firstBinary = markets.find((m) => !m.negRisk)!;
  expect(firstBinary.tick).toBe('0.01');
  expect(firstBinary.cryptoSymbol).toBeUndefined();
  const nr = p.events.filter((e) => e.negRisk);
  expect(nr.length).toBeGreaterThan(0);
  for (const e of nr) {
    expect(e.marketIds.length).toBeGreaterThanOrEqual(3);
    for (const c of e.marketIds) expect(markets.find((m) => m.conditionId === c)!.negRisk).toBe(true);
  }
  expect(p.events.some((e) => e.negRisk && e.category === 'politics')).toBe(true);
  // every market belongs to its event and the event lists it
  const listed = new Map<string, string>();
  for (const e of p.events) for (const c of e.marketIds) listed.set(c, e.id);
  expect(listed.size).toBe(markets.length);
  const tagLabels = new Set(p.tags.map((t) => t.label));
  for (const m of markets) {
    expect(m.eventId).toBeDefined();
    expect(listed.get(m.conditionId)).toBe(m.eventId);
    const e = events.get(m.eventId!)!;
    expect(m.negRisk).toBe(e.negRisk);
    expect(m.category).toBe(e.category);
    expect(m.tags.length).toBeGreaterThan(0);
    for (const t of m.tags) expect(tagLabels.has(t), t).toBe(true);
    expect(Number.isFinite(Date.parse(m.endDate))).toBe(true);
    expect(Date.parse(m.endDate)).toBeGreaterThan(T0);
    expect(m.minSizeMicro).toBe(5_000_000);
    expect(m.outcomes).toEqual(['Yes', 'No']);
  }
  for (const e of p.events) for (const t of e.tags) expect(tagLabels.has(t), t).toBe(true);
  // categories
  const cats = new Set(p.events.map((e) => e.category));
  for (const c of ['politics', 'sports', 'crypto', 'economics', 'tech', 'science', 'culture'])
    expect(cats.has(c), c).toBe(true);
  // sports and series
  for (const e of p.events.filter((x) => x.sport !== undefined))
    expect(p.sports.some((s) => s.sport === e.sport)).toBe(true);
  for (const e of p.events.filter((x) => x.seriesSlug !== undefined))
    expect(p.series.some((s) => s.slug === e.seriesSlug)).toBe(true);
  expect(p.series.some((s) => s.slug === 'btc-up-or-down-daily')).toBe(true);
  // crypto markets name their symbol and state their strike
  const crypto = markets.filter((m) => m.cryptoSymbol !== undefined);
  expect(crypto.length).toBeGreaterThanOrEqual(4);
  for (const m of crypto) {
    expect((CRYPTO_SYMBOLS as readonly string[]).includes(m.cryptoSymbol!)).toBe(true);
    expect(m.category).toBe('crypto');
    expect(parseStrike(m.description)).toBeGreaterThan(0);
  }
  // short-dated markets close within the first hour
  expect(markets.some((m) => Date.parse(m.endDate) - T0 <= 15 * 60_000)).toBe(true);
  // profiles, comments and articles hang together
  const addrs = new Set(p.profiles.map((x) => x.address));
  for (const a of p.profiles) expect(a.address).toMatch(/^0x[0-9a-f]{40}$/);
  // the calm world's agents have public profiles; the traders only the other profiles run
  // (news-informed, fast) have none: adding theirs would move the calm world's comment authors
  const { lp, noise, informed } = agentAccounts(seed);
  for (const a of [...lp, ...noise, ...informed]) expect(addrs.has(a)).toBe(true);
  const ids = new Set(p.comments.map((c) => c.id));
  for (const c of p.comments) {
    expect(addrs.has(c.userAddress)).toBe(true);
    if (c.parentEntityType === 'Event') expect(events.has(c.parentEntityId)).toBe(true);
    else expect(listed.has(c.parentEntityId)).toBe(true);
    if (c.replyTo !== undefined) expect(ids.has(c.replyTo)).toBe(true);
    expect(Date.parse(c.createdAt)).toBeLessThanOrEqual(T0);
  }
  for (const a of p.articles) {
    expect(a.eventIds.length).toBeGreaterThan(0);
    for (const e of a.eventIds) expect(events.has(e)).toBe(true);
  }
}

describe('seeded world guarantees', () => {
  it('holds for many seeds', () => {
    for (let seed = 0; seed < 40; seed++) checkPlan(generateWorld(seed, T0), seed);
  });

  it('seedWorld stores what the plan holds and links markets to events', () => {
    const ex = seeded(5);
    const p = generateWorld(5, T0);
    expect(ex.listMarkets().map((m) => m.meta.conditionId)).toEqual(p.markets.map((m) => m.conditionId));
    for (const m of ex.listMarkets()) expect(ex.world.eventOfMarket.get(m.meta.conditionId)?.id).toBe(m.meta.eventId);
    expect(ex.world.comments.length).toBe(p.comments.length);
    expect(ex.world.articles.size).toBe(p.articles.length);
    expect(ex.world.profiles.size).toBe(p.profiles.length);
  });

  it('first crypto windows have started and end on a boundary at least a minute away (so the first may be up to a minute longer)', () => {
    for (const rc of ROLLING_CRYPTO) {
      for (const t of [T0, Date.UTC(2025, 0, 6, 12, 4, 30), Date.UTC(2025, 0, 6, 23, 59, 59)]) {
        const w = firstWindow(rc, t);
        const L = rc.windowMin * 60_000;
        expect(w.startMs).toBeLessThanOrEqual(t);
        expect(w.endMs % L).toBe(0);
        expect(w.endMs - t).toBeGreaterThanOrEqual(60_000);
        expect(w.endMs - w.startMs).toBeLessThanOrEqual(L + 60_000);
      }
    }
  });
});

describe('dates in the questions', () => {
  const MONTH_NAMES = [
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
  ];
  const DATED = new RegExp(
    `\\b(${MONTH_NAMES.join('|')}) (\\d{1,2}), (\\d{4})\\b|\\b(${MONTH_NAMES.join('|')}) (\\d{4})\\b`,
    'g',
  );
  /** The last ms of each calendar date (`Month D, YYYY`) or month (`Month YYYY`) a text names. */
  const datesIn = (text: string): number[] =>
    [...text.matchAll(DATED)].map((m) =>
      m[1] !== undefined
        ? Date.UTC(Number(m[3]), MONTH_NAMES.indexOf(m[1]), Number(m[2]) + 1) - 1
        : Date.UTC(Number(m[5]), MONTH_NAMES.indexOf(m[4]!) + 1, 1) - 1,
    );

  it('no question, title or description names a date already past at the world start, whenever it starts', () => {
    // late in a year (the trial's clock), at its start, mid-year
    for (const start of [Date.UTC(2026, 10, 27, 20, 0), Date.UTC(2026, 0, 1), Date.UTC(2025, 6, 15, 9, 30), T0])
      for (const seed of [1, 2, 3]) {
        const w = generateWorld(seed, start);
        const texts = [
          ...w.markets.map((m) => ({ text: m.question, end: Date.parse(m.endDate) })),
          ...w.events.flatMap((e) => [e.title, e.description].map((text) => ({ text, end: Date.parse(e.endDate) }))),
        ];
        let dated = 0;
        for (const { text, end } of texts)
          for (const d of datesIn(text)) {
            dated++;
            expect(d, `"${text}" in a world started ${new Date(start).toISOString()}`).toBeGreaterThanOrEqual(start);
            // a dated question does not reach past its market's end either
            expect(d, `"${text}" ends ${new Date(end).toISOString()}`).toBeLessThanOrEqual(end + 86_400_000);
          }
        expect(dated).toBeGreaterThan(0);
        // the one the trial saw in a November world: now dated at its event's end
        const artemis = w.markets.find((m) => m.question.startsWith('Will Artemis II launch by '))!;
        const end = new Date(artemis.endDate);
        expect(artemis.question).toBe(
          `Will Artemis II launch by ${MONTH_NAMES[end.getUTCMonth()]} ${end.getUTCDate()}, ${end.getUTCFullYear()}?`,
        );
      }
  });
});
