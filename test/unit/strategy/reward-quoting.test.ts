import { describe, expect, it } from 'vitest';
import type { Micro, Pips } from '../../../src/core/units.ts';
import type { RewardConfig } from '../../../src/core/rewards.ts';
import { MarketRegistry, type YesLevel } from '../../../src/strategy/quoting.ts';
import {
  applyRewardRule,
  competitionBook,
  rewardBand,
  rewardConfigOf,
  rewardEstimate,
  rewardMid2,
  rewardTarget,
} from '../../../src/strategy/reward-quoting.ts';
import { bookView, complementView, fakeState, M1, marketInfo, NO1, order, SH, YES1 } from './fixtures.ts';

const px = (p: number) => Math.round(p * 10_000);
const cfg: RewardConfig = { maxSpread: 300 as Pips, minSize: (50 * SH) as Micro, dailyRate: (100 * SH) as Micro };
const refOf = (rewards: RewardConfig | null = cfg) =>
  new MarketRegistry([marketInfo(M1, YES1, NO1, { rewards })]).get(M1)!;

describe('rewardConfigOf', () => {
  it('a config that pays; none, null, or a zero rate or spread: null', () => {
    expect(rewardConfigOf({ rewards: cfg })).toBe(cfg);
    expect(rewardConfigOf({})).toBeNull();
    expect(rewardConfigOf({ rewards: null })).toBeNull();
    expect(rewardConfigOf({ rewards: { ...cfg, dailyRate: 0 as Micro } })).toBeNull();
    expect(rewardConfigOf({ rewards: { ...cfg, maxSpread: 0 as Pips } })).toBeNull();
  });
});

describe('rewardBand', () => {
  it('the ticks strictly nearer the midpoint than v', () => {
    expect(rewardBand(cfg, px(1), 100)).toEqual({ bidFloor: px(0.48), askCeiling: px(0.52) });
    // a half-pip midpoint 0.505: 0.475 is exactly v below, so the floor is 0.48; 0.535 v above: 0.53
    expect(rewardBand(cfg, px(1.01), 100)).toEqual({ bidFloor: px(0.48), askCeiling: px(0.53) });
    expect(rewardBand({ maxSpread: 450 as Pips }, px(1), 10)).toEqual({ bidFloor: px(0.456), askCeiling: px(0.544) });
  });
});

describe('competitionBook and rewardMid2', () => {
  it('the book minus our own orders; a NO order counts as its YES mirror', () => {
    const state = fakeState({
      books: [bookView(YES1, [[px(0.49), 120 * SH]], [[px(0.51), 100 * SH]])],
      orders: [order(M1, YES1, 'BUY', px(0.49), 20 * SH), order(M1, NO1, 'BUY', px(0.49), 100 * SH)],
    });
    const b = competitionBook(state, refOf())!;
    expect(b.bids).toEqual([[px(0.49), 100 * SH]]);
    expect(b.asks).toEqual([]); // our NO bid at 0.49 is the whole YES ask at 0.51
  });

  it('from the NO book when there is no YES book; null when stale or missing', () => {
    const yes = bookView(YES1, [[px(0.49), 100 * SH]], [[px(0.51), 100 * SH]]);
    const state = fakeState({ books: [complementView(NO1, yes)] });
    expect(competitionBook(state, refOf())).toEqual({ bids: [[px(0.49), 100 * SH]], asks: [[px(0.51), 100 * SH]] });
    expect(competitionBook(fakeState({ books: [bookView(YES1, [], [], true)] }), refOf())).toBeNull();
    expect(competitionBook(fakeState(), refOf())).toBeNull();
  });

  it('the size cutoff moves the midpoint; without qualifying levels the touch is used', () => {
    const book = {
      bids: [[px(0.5), 10 * SH] as const, [px(0.48), 100 * SH] as const],
      asks: [[px(0.52), 100 * SH] as const],
    };
    expect(rewardMid2(50 * SH, book)).toBe(px(1)); // 0.48 and 0.52, not 0.50 and 0.52
    expect(rewardMid2(500 * SH, book)).toBe(px(1.02));
    expect(rewardMid2(50 * SH, { bids: [], asks: book.asks })).toBeNull();
  });
});

describe('rewardTarget', () => {
  it('the band around the competition midpoint, the min size in lots (at least the market minimum)', () => {
    const state = fakeState({
      books: [
        bookView(
          YES1,
          [
            [px(0.5), 10 * SH],
            [px(0.48), 100 * SH],
          ],
          [[px(0.52), 100 * SH]],
        ),
      ],
    });
    const t = rewardTarget(refOf(), state)!;
    expect(t).toMatchObject({ mid2: px(1), bidFloor: px(0.48), askCeiling: px(0.52), size: 50 * SH, tick: 100 });
    const odd = rewardTarget(refOf({ ...cfg, minSize: 3 as Micro }), state)!;
    expect(odd.size).toBe(5 * SH); // the market's minimum order size (fixtures: 5 shares)
  });

  it('null for a market without rewards or without a two-sided book', () => {
    const book = bookView(YES1, [[px(0.49), 100 * SH]], [[px(0.51), 100 * SH]]);
    expect(rewardTarget(refOf(null), fakeState({ books: [book] }))).toBeNull();
    expect(rewardTarget(refOf(), fakeState({ books: [bookView(YES1, [[px(0.49), 100 * SH]], [])] }))).toBeNull();
  });

  it('keeps the band inside [tick, 1 - tick]', () => {
    const state = fakeState({ books: [bookView(YES1, [[px(0.01), 100 * SH]], [[px(0.03), 100 * SH]])] });
    const t = rewardTarget(refOf(), state)!;
    expect(t.bidFloor).toBe(px(0.01));
    expect(t.askCeiling).toBe(px(0.04));
  });
});

describe('applyRewardRule', () => {
  const t = { config: cfg, mid2: px(1), bidFloor: px(0.48), askCeiling: px(0.52), size: 50 * SH, tick: 100 };
  const lv = (bid: boolean, p: number, s: number): YesLevel => ({ bid, price: px(p), size: s * SH });

  it('moves the innermost bid and ask into the band at the min size; outer levels stay', () => {
    const out = applyRewardRule([lv(true, 0.45, 10), lv(false, 0.56, 10), lv(true, 0.4, 20), lv(false, 0.6, 20)], t);
    expect(out).toEqual([lv(true, 0.48, 50), lv(false, 0.52, 50), lv(true, 0.4, 20), lv(false, 0.6, 20)]);
  });

  it('quotes already inside the band and large enough are unchanged', () => {
    const ladder = [lv(true, 0.49, 80), lv(false, 0.51, 60)];
    expect(applyRewardRule(ladder, t)).toEqual(ladder);
  });

  it('a missing side is mirrored into the band', () => {
    expect(applyRewardRule([lv(true, 0.49, 80)], t)).toEqual([lv(true, 0.49, 80), lv(false, 0.51, 50)]);
    expect(applyRewardRule([lv(false, 0.6, 10)], t)).toEqual([lv(false, 0.52, 50), lv(true, 0.48, 50)]);
  });

  it('an empty ladder stays empty (the strategy chose not to quote)', () => {
    expect(applyRewardRule([], t)).toEqual([]);
  });
});

describe('rewardEstimate', () => {
  it('our share of a sample against the rest of the book, per minute and per day', () => {
    // the book shows our 50 @0.49 and 50 @0.51 plus a competitor's 100 @0.49 and 100 @0.51:
    // same distances, half their size: our share a third of the pool
    const state = fakeState({
      books: [bookView(YES1, [[px(0.49), 150 * SH]], [[px(0.51), 150 * SH]])],
      orders: [order(M1, YES1, 'BUY', px(0.49), 50 * SH), order(M1, NO1, 'BUY', px(0.49), 50 * SH)],
    });
    const e = rewardEstimate(refOf(), state)!;
    expect(e.score.share).toBe(333_333_333_333_333_333n);
    expect(e.perDay).toBe(33_333_333);
    expect(e.perMinute).toBe(23_148); // 100 USDC / 1440 / 3
  });

  it('quotes outside the band or below the min size earn nothing; no rewards: null', () => {
    const state = fakeState({
      books: [
        bookView(
          YES1,
          [
            [px(0.49), 100 * SH],
            [px(0.45), 50 * SH],
          ],
          [[px(0.51), 130 * SH]],
        ),
      ],
      orders: [order(M1, YES1, 'BUY', px(0.45), 50 * SH), order(M1, YES1, 'SELL', px(0.51), 30 * SH)],
    });
    expect(rewardEstimate(refOf(), state)!.perDay).toBe(0);
    expect(rewardEstimate(refOf(null), state)).toBeNull();
  });
});
