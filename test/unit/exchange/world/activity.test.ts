/**
 * Uneven market activity (src/exchange/world/activity.ts): a fixed, seeded weight and ladder depth
 * per market, and the weighted choice of a market that the takers use.
 */
import { describe, expect, it } from 'vitest';
import { marketActivity, pickWeighted } from '../../../../src/exchange/world/activity.ts';
import { PROFILES } from '../../../../src/exchange/world/profiles.ts';
import { Rng } from '../../../../src/core/random.ts';
import { VirtualClock } from '../../../../src/core/clock.ts';
import { DEFAULT_EXCHANGE_OPTIONS, PaperExchange } from '../../../../src/exchange/exchange.ts';
import { seedWorld, startWorld } from '../../../../src/exchange/world/index.ts';
import type { WorldProfileName } from '../../../../src/exchange/world/profiles.ts';

/** A world just started (no time has passed): each active market's YES book, levels per side. */
function booksAtStart(profile: WorldProfileName, seed = 1) {
  const clock = new VirtualClock(Date.UTC(2026, 0, 1));
  const ex = new PaperExchange({ ...DEFAULT_EXCHANGE_OPTIONS, clock });
  seedWorld(ex, seed);
  const w = startWorld(ex, { seed, agents: 'default', lifecycle: false, priceFeed: false, profile });
  const out = ex
    .listMarkets()
    .filter((m) => m.state.status === 'active')
    .map((m) => {
      const b = ex.engine.book(m.meta.tokens[0]);
      return { cid: m.meta.conditionId, levels: b.bids.length + b.asks.length };
    });
  w.stop();
  return out;
}

const P = { sigma: 1, maxExtraLevels: 3 };
const cid = (i: number) => `0x${i.toString(16).padStart(64, '0')}`;

describe('market activity', () => {
  it('is fixed by (seed, market): the same after a restart, different across markets and seeds', () => {
    expect(marketActivity(1, cid(1), P)).toEqual(marketActivity(1, cid(1), P));
    expect(marketActivity(1, cid(1), P)).not.toEqual(marketActivity(1, cid(2), P));
    expect(marketActivity(1, cid(1), P)).not.toEqual(marketActivity(2, cid(1), P));
  });
  it('is lognormal around 1 (the median market), and the deeper ladders go to the busier markets', () => {
    const all = Array.from({ length: 2000 }, (_, i) => marketActivity(7, cid(i), P));
    const ws = all.map((a) => a.weight).sort((a, b) => a - b);
    expect(ws[1000]!).toBeGreaterThan(0.85);
    expect(ws[1000]!).toBeLessThan(1.15);
    // e^sigma at the 84th percentile
    expect(ws[1683]!).toBeGreaterThan(2.4);
    expect(ws[1683]!).toBeLessThan(3.1);
    for (const a of all) {
      expect(a.extraLevels).toBe(Math.max(0, Math.min(3, Math.floor(Math.log(a.weight) + 1))));
      expect(a.extraLevels).toBeGreaterThanOrEqual(0);
      expect(a.extraLevels).toBeLessThanOrEqual(3);
    }
    expect(all.filter((a) => a.weight < 1).every((a) => a.extraLevels === 0)).toBe(true);
  });
  it('is off in the calm profile, on in realistic and toxic', () => {
    expect(PROFILES.calm.activity).toBeNull();
    expect(PROFILES.realistic.activity).toEqual(P);
    expect(PROFILES.toxic.activity).toEqual(P);
  });
});

describe('pickWeighted', () => {
  it('chooses each element in proportion to its weight', () => {
    const xs = ['a', 'b', 'c'] as const;
    const w = { a: 1, b: 3, c: 6 };
    const rng = new Rng(42);
    const n = { a: 0, b: 0, c: 0 };
    for (let i = 0; i < 20_000; i++) n[pickWeighted(xs, (x) => w[x], rng.next())]++;
    expect(n.a / 20_000).toBeCloseTo(0.1, 1);
    expect(n.b / 20_000).toBeCloseTo(0.3, 1);
    expect(n.c / 20_000).toBeCloseTo(0.6, 1);
  });
  it('maps u at the edges into the list, and refuses an empty one', () => {
    expect(pickWeighted(['a', 'b'], () => 1, 0)).toBe('a');
    expect(pickWeighted(['a', 'b'], () => 1, 0.999999)).toBe('b');
    expect(() => pickWeighted([], () => 1, 0.5)).toThrow(RangeError);
  });
});

describe('the books at the start of a world', () => {
  it('with uneven activity: every market has its ladder at once, deeper where the flow is busier', () => {
    const books = booksAtStart('realistic');
    expect(books.length).toBeGreaterThan(20);
    for (const b of books) expect(b.levels, b.cid).toBeGreaterThanOrEqual(4);
    const extra = (c: string) => marketActivity(1, c, P).extraLevels;
    const busy = books.filter((b) => extra(b.cid) >= 2);
    const quiet = books.filter((b) => extra(b.cid) === 0);
    expect(busy.length).toBeGreaterThan(0);
    const mean = (xs: typeof books) => xs.reduce((a, b) => a + b.levels, 0) / xs.length;
    expect(mean(busy)).toBeGreaterThan(mean(quiet) + 3);
  });
  it('calm: as before, the providers quote within their first second (nothing at once)', () => {
    for (const b of booksAtStart('calm')) expect(b.levels).toBe(0);
  });
});
