/**
 * `rewards` (strategies/rewards.ts): the candidate grid, the choice that maximises expected rewards
 * minus expected adverse selection on constructed books, the quotes through the common rules, the
 * market ranking and the handler. Prices in pips (0.01 = 100), sizes in micro-shares (SH = one share).
 */
import { describe, expect, it } from 'vitest';
import type { ConditionId, TokenId } from '../../../src/core/ids.ts';
import type { QuoteIntent, StrategyOutput } from '../../../src/core/intents.ts';
import type { MmkitEvent } from '../../../src/core/events.ts';
import type { RewardConfig } from '../../../src/core/rewards.ts';
import type { Micro, Pips } from '../../../src/core/units.ts';
import { loadStrategy } from '../../../src/strategy/loader.ts';
import { resolveParams } from '../../../src/strategy/params.ts';
import { MarketRegistry } from '../../../src/strategy/quoting.ts';
import { rewardEstimate, rewardTarget } from '../../../src/strategy/reward-quoting.ts';
import { levelsBookView } from '../../../src/strategy/select.ts';
import rewards, {
  candidatePrices,
  chooseRewardQuotes,
  holdQuotes,
  livePair,
  quoteRewards,
  REWARDS_PARAMS,
  rewardsConfig,
  selectRewardMarkets,
} from '../../../strategies/rewards.ts';
import {
  bookView,
  ctxFor,
  fakeState,
  M1,
  M2,
  marketInfo,
  NO1,
  order,
  SH,
  snapshotEvent,
  YES1,
  YES2,
  NO2,
} from '../strategy/fixtures.ts';

const px = (p: number) => Math.round(p * 10_000);
const rc: RewardConfig = { maxSpread: 300 as Pips, minSize: (50 * SH) as Micro, dailyRate: (100 * SH) as Micro };
const cfgOf = (o: Record<string, unknown> = {}) => rewardsConfig(resolveParams(REWARDS_PARAMS, o));
const refOf = (rewards: RewardConfig | null = rc, tick: '0.01' | '0.001' = '0.01') =>
  new MarketRegistry([marketInfo(M1, YES1, NO1, { rewards, tick })]).get(M1)!;
const simple = (qs: readonly QuoteIntent[]) =>
  qs.map((q) => `${q.tokenId === YES1 ? 'Y' : 'N'} ${q.side} ${q.price} ${q.size / SH}`);
/** The target, the competition and the touch of a state's YES book for `refOf()`. */
function inputs(
  bids: [number, number][],
  asks: [number, number][],
  rewards: RewardConfig = rc,
  tick: '0.01' | '0.001' = '0.01',
) {
  const ref = refOf(rewards, tick);
  const state = fakeState({
    books: [
      bookView(
        YES1,
        bids.map(([p, s]) => [px(p), s * SH]),
        asks.map(([p, s]) => [px(p), s * SH]),
      ),
    ],
  });
  const t = rewardTarget(ref, state)!;
  const book = {
    bids: bids.map(([p, s]) => [px(p), s * SH] as const),
    asks: asks.map(([p, s]) => [px(p), s * SH] as const),
  };
  const touch = { touchBid: px(bids[0]![0]), touchAsk: px(asks[0]![0]) };
  return { ref, state, t, book, touch };
}

describe('candidatePrices', () => {
  it('every tick when few; evenly spaced with both ends when many; none for an empty range', () => {
    expect(candidatePrices(4800, 5000, 100)).toEqual([4800, 4900, 5000]);
    const many = candidatePrices(4000, 5000, 10, 12);
    expect(many).toHaveLength(12);
    expect(many[0]).toBe(4000);
    expect(many[11]).toBe(5000);
    expect(many.every((p) => p % 10 === 0)).toBe(true);
    expect(candidatePrices(5000, 4900, 100)).toEqual([]);
  });
});

describe('chooseRewardQuotes', () => {
  it('alone in the band: the pool is ours anywhere, so the pair furthest from the mid (least adverse selection)', () => {
    const { t, book, touch } = inputs([[0.4, 100]], [[0.6, 100]]);
    const c = chooseRewardQuotes(t, book, touch, cfgOf(), 0)!;
    expect([c.bid, c.ask, c.size]).toEqual([px(0.48), px(0.52), 50 * SH]);
    expect(c.rewardPerHour).toBeCloseTo(100 / 24, 9);
  });

  it('against competition and without fill risk: as near the midpoint as post-only allows', () => {
    const { t, book, touch } = inputs([[0.49, 1000]], [[0.51, 1000]]);
    const c = chooseRewardQuotes(t, book, touch, cfgOf({ fillRate: 0 }), 0)!;
    expect(c.ask - c.bid).toBe(100); // one tick apart, one of them improving the touch
    expect(c.bid).toBeGreaterThanOrEqual(px(0.49));
    expect(c.ask).toBeLessThanOrEqual(px(0.51));
  });

  it('with adverse selection it steps back from the touch; too costly for the pool: nothing', () => {
    const { t, book, touch } = inputs([[0.49, 1000]], [[0.51, 1000]]);
    const near = chooseRewardQuotes(t, book, touch, cfgOf({ fillRate: 0 }), 0)!;
    const careful = chooseRewardQuotes(t, book, touch, cfgOf({ fillRate: 5, adverseSelection: 0.02 }), 0)!;
    expect(careful.ask - careful.bid).toBeGreaterThan(near.ask - near.bid);
    expect(careful.value).toBeGreaterThan(0);
    expect(
      chooseRewardQuotes(t, book, touch, cfgOf({ fillRate: 100, adverseSelection: 0.2, fillDecay: 0 }), 0),
    ).toBeNull();
  });

  it('long: the bid (adding to the position) sits further from the midpoint than the ask', () => {
    const { t, book, touch } = inputs([[0.49, 300]], [[0.51, 300]], rc, '0.001');
    const cfg = cfgOf({ fillRate: 3, adverseSelection: 0.02, inventoryAversion: 3 });
    const flat = chooseRewardQuotes(t, book, touch, cfg, 0)!;
    expect(flat.mid - flat.bid).toBe(flat.ask - flat.mid);
    const c = chooseRewardQuotes(t, book, touch, cfg, 400 * SH)!;
    expect(c.mid - c.bid).toBeGreaterThan(c.ask - c.mid);
    const s = chooseRewardQuotes(t, book, touch, cfg, -400 * SH)!;
    expect(s.ask - s.mid).toBeGreaterThan(s.mid - s.bid);
  });

  it('sizeMultiple: that many min sizes a side (whole lots)', () => {
    const { t, book, touch } = inputs([[0.49, 100]], [[0.51, 100]]);
    expect(chooseRewardQuotes(t, book, touch, cfgOf({ sizeMultiple: 2.5, maxSize: 200 }), 0)!.size).toBe(125 * SH);
  });

  it('a market whose min size x sizeMultiple is above maxSize is not quoted', () => {
    const { t, book, touch } = inputs([[0.49, 100]], [[0.51, 100]]);
    expect(chooseRewardQuotes(t, book, touch, cfgOf({ maxSize: 49 }), 0)).toBeNull();
    expect(chooseRewardQuotes(t, book, touch, cfgOf({ maxSize: 50 }), 0)).not.toBeNull();
    expect(chooseRewardQuotes(t, book, touch, cfgOf({ maxSize: 100, sizeMultiple: 3 }), 0)).toBeNull();
  });

  it('near the edges only two-sided quotes score: still both sides', () => {
    const { t, book, touch } = inputs([[0.04, 100]], [[0.06, 100]]);
    const c = chooseRewardQuotes(t, book, touch, cfgOf(), 0)!;
    // both sides inside the band around the midpoint the pair leaves
    expect(c.mid - c.bid).toBeGreaterThan(0);
    expect(c.mid - c.bid).toBeLessThan(rc.maxSpread);
    expect(c.ask - c.mid).toBeGreaterThan(0);
    expect(c.ask - c.mid).toBeLessThan(rc.maxSpread);
  });
});

describe('chooseRewardQuotes: hysteresis', () => {
  const { t, book, touch } = inputs([[0.49, 300]], [[0.51, 300]], rc, '0.001');
  const cfg = cfgOf({ fillRate: 3, adverseSelection: 0.02 });
  const best = chooseRewardQuotes(t, book, touch, cfg, 0)!;

  it('a live pair near the best is kept; with threshold 0 or far off, the best replaces it', () => {
    const near = { bid: best.bid - 10, ask: best.ask };
    const kept = chooseRewardQuotes(t, book, touch, cfg, 0, near)!;
    expect([kept.bid, kept.ask]).toEqual([near.bid, near.ask]);
    expect(kept.value).toBeLessThan(best.value);
    expect(kept.value).toBeGreaterThanOrEqual(best.value * 0.9);
    const strict = chooseRewardQuotes(
      t,
      book,
      touch,
      cfgOf({ fillRate: 3, adverseSelection: 0.02, requoteThreshold: 0 }),
      0,
      near,
    )!;
    expect([strict.bid, strict.ask]).toEqual([best.bid, best.ask]);
  });

  it('a live pair outside the band (it would not score) is never kept', () => {
    const out = chooseRewardQuotes(
      t,
      book,
      touch,
      cfgOf({ fillRate: 3, adverseSelection: 0.02, requoteThreshold: 1 }),
      0,
      {
        bid: t.bidFloor - 10,
        ask: best.ask,
      },
    )!;
    expect([out.bid, out.ask]).toEqual([best.bid, best.ask]);
  });
});

describe('quoteRewards', () => {
  it('two-sided from collateral (a YES bid and a NO bid), at the min size, and the quotes score', () => {
    const { ref, state } = inputs([[0.49, 200]], [[0.51, 200]]);
    const qs = quoteRewards(ref, cfgOf(), state);
    expect(qs).toHaveLength(2);
    expect(qs.map((q) => q.size)).toEqual([50 * SH, 50 * SH]);
    expect(qs.map((q) => `${q.tokenId === YES1 ? 'Y' : 'N'} ${q.side}`)).toEqual(['Y BUY', 'N BUY']);
    // resting, they earn a share of the pool against the book
    const live = qs.map((q) => order(M1, q.tokenId, q.side, q.price, q.size));
    const after = fakeState({
      books: [
        bookView(
          YES1,
          [
            [px(0.49), 200 * SH],
            [qs[0]!.price, 50 * SH],
          ],
          [
            [px(0.51), 200 * SH],
            [10_000 - qs[1]!.price, 50 * SH],
          ],
        ),
      ],
      orders: live,
    });
    expect(rewardEstimate(ref, after)!.perDay).toBeGreaterThan(0);
  });

  it('no quotes without rewards, without a two-sided book, or once resolved', () => {
    expect(quoteRewards(refOf(null), cfgOf(), inputs([[0.49, 200]], [[0.51, 200]]).state)).toEqual([]);
    const ref = refOf();
    expect(quoteRewards(ref, cfgOf(), fakeState({ books: [bookView(YES1, [[px(0.49), 200 * SH]], [])] }))).toEqual([]);
    ref.quotable = false;
    expect(quoteRewards(ref, cfgOf(), inputs([[0.49, 200]], [[0.51, 200]]).state)).toEqual([]);
  });

  it('holding less than the size: each side is still one order of the min size (never split below it: trial 16 F1)', () => {
    const { ref } = inputs([[0.49, 200]], [[0.51, 200]]);
    const state = fakeState({
      books: [bookView(YES1, [[px(0.49), 200 * SH]], [[px(0.51), 200 * SH]])],
      positions: { [YES1]: 30 * SH },
    });
    const qs = quoteRewards(ref, cfgOf(), state);
    // the ask is one NO buy of 50 (same exposure as selling the 30 held and buying 20 NO), the bid a YES buy of 50
    expect(simple(qs).map((x) => x.replace(/ \d+ /, ' p '))).toEqual(['Y BUY p 50', 'N BUY p 50']);
    // holding the size or more: the ask sells what is held
    const rich = fakeState({
      books: [bookView(YES1, [[px(0.49), 200 * SH]], [[px(0.51), 200 * SH]])],
      positions: { [YES1]: 80 * SH },
    });
    expect(simple(quoteRewards(ref, cfgOf(), rich)).map((x) => x.replace(/ \d+ /, ' p '))).toEqual([
      'Y BUY p 50',
      'Y SELL p 50',
    ]);
  });

  it('a side the position limit cuts below the min size is not quoted (it would score nothing: trial 16 F6)', () => {
    const { ref } = inputs([[0.49, 200]], [[0.51, 200]]);
    const state = fakeState({
      books: [bookView(YES1, [[px(0.49), 200 * SH]], [[px(0.51), 200 * SH]])],
      positions: { [YES1]: 210 * SH }, // 40 left under maxPosition 250: the bid would be 40 < 50
    });
    expect(simple(quoteRewards(ref, cfgOf(), state)).map((x) => x.replace(/ \d+ /, ' p '))).toEqual(['Y SELL p 50']);
  });

  it('at maxPosition the side adding to it is not quoted', () => {
    const { ref } = inputs([[0.49, 200]], [[0.51, 200]]);
    const state = fakeState({
      books: [bookView(YES1, [[px(0.49), 200 * SH]], [[px(0.51), 200 * SH]])],
      positions: { [YES1]: 500 * SH },
    });
    const qs = quoteRewards(ref, cfgOf(), state);
    expect(simple(qs).every((s) => s.startsWith('Y SELL'))).toBe(true);
  });
});

describe('livePair', () => {
  it('our best YES bid and lowest YES ask of at least the size; a NO bid is a YES ask', () => {
    const state = fakeState({
      orders: [
        order(M1, YES1, 'BUY', px(0.48), 50 * SH),
        order(M1, YES1, 'BUY', px(0.49), 20 * SH), // too small
        order(M1, NO1, 'BUY', px(0.47), 60 * SH), // YES ask 0.53
        order(M1, YES1, 'SELL', px(0.55), 50 * SH),
      ],
    });
    expect(livePair(refOf(), state, 50 * SH)).toEqual({ bid: px(0.48), ask: px(0.53) });
    expect(livePair(refOf(), fakeState({ orders: [order(M1, YES1, 'BUY', px(0.48), 50 * SH)] }), 50 * SH)).toBeNull();
  });

  it('orders count alone, as the venue scores them: a side split over both tokens below the size does not (trial 16 F1)', () => {
    const split = fakeState({
      orders: [
        order(M1, YES1, 'BUY', px(0.05), 20 * SH),
        order(M1, YES1, 'SELL', px(0.06), 7 * SH),
        order(M1, NO1, 'BUY', px(0.94), 13 * SH), // YES ask 0.06: 7 + 13, neither part scores at 20
      ],
    });
    expect(livePair(refOf(), split, 20 * SH)).toBeNull();
    expect(livePair(refOf(), split, 13 * SH)).toEqual({ bid: px(0.05), ask: px(0.06) });
  });
});

describe('holdQuotes (minRequoteMs)', () => {
  const q = (side: 'BUY' | 'SELL', p: number, token: TokenId = YES1): QuoteIntent => ({
    tokenId: token,
    side,
    price: px(p) as Pips,
    size: (50 * SH) as Micro,
  });
  const A = [q('BUY', 0.48), q('BUY', 0.5, NO1)]; // YES 0.48 / 0.50
  const B = [q('BUY', 0.47), q('BUY', 0.51, NO1)];
  const ref = { yes: YES1 };
  const touch = { touchBid: px(0.47), touchAsk: px(0.53) };

  it('the first quotes are taken; the same quotes keep their age', () => {
    const h = holdQuotes(undefined, A, 1_000, 1_000, ref, touch, false);
    expect(h).toEqual({ quotes: A, since: 1_000 });
    expect(holdQuotes(h, [...A], 1_500, 1_000, ref, touch, false)).toBe(h);
  });

  it('a change sooner than minMs keeps the held quotes; at minMs it is taken', () => {
    const h = { quotes: A, since: 1_000 };
    expect(holdQuotes(h, B, 1_999, 1_000, ref, touch, false)).toBe(h);
    expect(holdQuotes(h, [], 1_999, 1_000, ref, touch, false)).toBe(h);
    expect(holdQuotes(h, B, 2_000, 1_000, ref, touch, false)).toEqual({ quotes: B, since: 2_000 });
    expect(holdQuotes(h, B, 1_000, 0, ref, touch, false)).toEqual({ quotes: B, since: 1_000 });
  });

  it('urgent (no trustworthy book), or a held quote crossing the touch: the change is taken at once', () => {
    const h = { quotes: A, since: 1_000 };
    expect(holdQuotes(h, [], 1_001, 1_000, ref, touch, true)).toEqual({ quotes: [], since: 1_001 });
    expect(holdQuotes(h, [], 1_001, 1_000, ref, null, false)).toEqual({ quotes: [], since: 1_001 });
    // the YES ask 0.50 (a NO bid at 0.50) at or under the touch bid: it would cross
    expect(holdQuotes(h, B, 1_001, 1_000, ref, { touchBid: px(0.5), touchAsk: px(0.53) }, false).quotes).toBe(B);
    // the YES bid 0.48 at or over the touch ask
    expect(holdQuotes(h, B, 1_001, 1_000, ref, { touchBid: px(0.4), touchAsk: px(0.48) }, false).quotes).toBe(B);
  });
});

describe('selectRewardMarkets', () => {
  const M3 = ('0x' + '33'.repeat(32)) as ConditionId;
  const YES3 = '3001' as TokenId;
  const markets = [
    marketInfo(M1, YES1, NO1, { rewards: rc }), // crowded
    marketInfo(M2, YES2, NO2, { rewards: { ...rc, dailyRate: (50 * SH) as Micro } }), // alone
    marketInfo(M3, YES3, '3002' as TokenId), // no rewards
  ];
  const levels = {
    [YES1]: [[[px(0.49), 5000 * SH]], [[px(0.51), 5000 * SH]]],
    [YES2]: [[[px(0.4), 100 * SH]], [[px(0.6), 100 * SH]]],
    [YES3]: [[[px(0.49), 10 * SH]], [[px(0.51), 10 * SH]]],
  } as Record<string, [[number, number][], [number, number][]]>;
  const ctx = {
    params: resolveParams(REWARDS_PARAMS, {}),
    book: async (t: TokenId) => levelsBookView(t, levels[t]![0], levels[t]![1]),
  };

  it('rewarded markets by estimated daily reward (a small pool alone beats a big crowded one); others left out', async () => {
    expect(await selectRewardMarkets(markets, ctx)).toEqual([M2, M1]);
  });

  it('markets whose min size is above maxSize are left out', async () => {
    const p = resolveParams(REWARDS_PARAMS, { maxSize: 49 });
    expect(await selectRewardMarkets(markets, { ...ctx, params: p })).toEqual([]);
  });

  it('the plugin ranks through selectMarkets; unreadable books are skipped', async () => {
    const def = await loadStrategy('rewards');
    expect(def.selectMarkets).toBeDefined();
    const r = await def.selectMarkets!(markets, {
      ...ctx,
      now: 0,
      count: 5,
      log: { debug() {}, info() {}, warn() {} },
      book: async (t) => (t === YES2 ? undefined : ctx.book(t)),
    });
    expect(r).toEqual([M1]);
  });
});

describe('the plugin', () => {
  it('quotes a rewarded market on its snapshot, nothing on one without rewards', () => {
    const ms = [marketInfo(M1, YES1, NO1, { rewards: rc }), marketInfo(M2, YES2, NO2)];
    const h = rewards.create(ctxFor(ms), resolveParams(REWARDS_PARAMS, {}));
    const state = fakeState({
      books: [
        bookView(YES1, [[px(0.49), 200 * SH]], [[px(0.51), 200 * SH]]),
        bookView(YES2, [[px(0.49), 200 * SH]], [[px(0.51), 200 * SH]]),
      ],
    });
    const out1 = h.onEvent(snapshotEvent(M1, YES1), state)!;
    expect(out1.quotes![0]!.quotes).toHaveLength(2);
    const out2 = h.onEvent(snapshotEvent(M2, YES2), state)!;
    expect(out2.quotes![0]!.quotes).toEqual([]);
  });

  it('quotes a reward config changed at the venue (market_updated) with the new min size, and nothing once it is gone (trial 16 F3)', () => {
    const ms = [marketInfo(M1, YES1, NO1, { rewards: rc })];
    const h = rewards.create(ctxFor(ms), resolveParams(REWARDS_PARAMS, { minRequoteMs: 0 }));
    const state = fakeState({
      books: [bookView(YES1, [[px(0.49), 200 * SH]], [[px(0.51), 200 * SH]])],
    });
    const sizes = (out: StrategyOutput | undefined) => out!.quotes![0]!.quotes.map((q) => q.size / SH);
    const before = sizes(h.onEvent(snapshotEvent(M1, YES1), state));
    expect(before.length).toBe(2);
    expect(Math.min(...before)).toBeLessThan(80);
    const updated = (info: ReturnType<typeof marketInfo>): MmkitEvent => ({
      type: 'market_updated',
      market: M1,
      info,
      changed: ['rewards'],
      venueTime: 1,
      recvTime: 1,
    });
    const after = sizes(
      h.onEvent(updated(marketInfo(M1, YES1, NO1, { rewards: { ...rc, minSize: (80 * SH) as Micro } })), state),
    );
    expect(after.length).toBe(2);
    expect(Math.min(...after)).toBeGreaterThanOrEqual(80);
    expect(sizes(h.onEvent(updated(marketInfo(M1, YES1, NO1, { rewards: null })), state))).toEqual([]);
  });

  it("changes a market's quotes at most once per minRequoteMs, but pulls at once on a stale book", () => {
    const ms = [marketInfo(M1, YES1, NO1, { rewards: rc })];
    const h = rewards.create(ctxFor(ms), resolveParams(REWARDS_PARAMS, { minRequoteMs: 1_000 }));
    const at = (now: number, bids: [number, number][], asks: [number, number][], stale = false) =>
      fakeState({
        now,
        books: [
          bookView(
            YES1,
            bids.map(([p, sz]) => [px(p), sz * SH]),
            asks.map(([p, sz]) => [px(p), sz * SH]),
            stale,
          ),
        ],
      });
    const quotesOf = (_now: number, st: ReturnType<typeof at>) =>
      h.onEvent(snapshotEvent(M1, YES1), st)!.quotes![0]!.quotes;
    const first = quotesOf(1_000, at(1_000, [[0.49, 200]], [[0.51, 200]]));
    expect(first).toHaveLength(2);
    const moved = at(1_500, [[0.45, 200]], [[0.55, 200]]);
    const wanted = quoteRewards(refOf(), cfgOf(), moved);
    expect(simple(wanted)).not.toEqual(simple(first)); // the book move asks for other quotes...
    expect(quotesOf(1_500, moved)).toEqual(first); // ...which wait
    const later = at(2_000, [[0.45, 200]], [[0.55, 200]]);
    expect(quotesOf(2_000, later)).toEqual(quoteRewards(refOf(), cfgOf(), later));
    expect(quotesOf(2_001, at(2_001, [[0.45, 200]], [[0.55, 200]], true))).toEqual([]);
  });
});
