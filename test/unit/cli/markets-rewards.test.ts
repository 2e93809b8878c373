/**
 * `mmkit markets --rewards` figures (src/cli/markets-rewards.ts) and the Gamma reward fields they
 * read (src/api/schemas/gamma.ts), on constructed records and books.
 */
import { describe, expect, it } from 'vitest';
import type { OrderBook } from '../../../src/api/clob.ts';
import { gammaMarketSchema } from '../../../src/api/schemas/gamma.ts';
import type { Micro, Pips } from '../../../src/core/units.ts';
import { endsLabel, gammaRewardConfig, rewardFigures } from '../../../src/cli/markets-rewards.ts';

const SH = 1_000_000;
const wire = (over: Record<string, unknown> = {}) => ({
  id: '0xabc',
  question: 'Will it?',
  conditionId: '0xabc',
  outcomes: '["Yes","No"]',
  clobTokenIds: '["111","222"]',
  active: true,
  closed: false,
  orderPriceMinTickSize: 0.01,
  orderMinSize: 5,
  ...over,
});
const DAY = 86_400_000;
const NOW = Date.parse('2026-07-10T12:00:00Z');

describe('Gamma reward fields', () => {
  it('min size in micro-shares, max spread cents to pips, allocations with their daily rates', () => {
    const m = gammaMarketSchema.parse(
      wire({
        rewardsMinSize: 200,
        rewardsMaxSpread: 3.5,
        clobRewards: [
          { id: '288102', conditionId: '0xabc', rewardsAmount: 0, rewardsDailyRate: 1000, startDate: '2026-07-01' },
          { id: 7, rewardsDailyRate: '2.5', startDate: null, endDate: '2026-07-31' },
        ],
      }),
    );
    expect(m.rewardsMinSize).toBe(200 * SH);
    expect(m.rewardsMaxSpread).toBe(350);
    expect(m.clobRewards).toEqual([
      { id: '288102', dailyRate: 1000 * SH, startDate: '2026-07-01', endDate: null },
      { id: '7', dailyRate: 2.5 * SH, startDate: null, endDate: '2026-07-31' },
    ]);
  });

  it('absent: none; malformed values read as absent and never fail the market', () => {
    const plain = gammaMarketSchema.parse(wire());
    expect([plain.rewardsMinSize, plain.rewardsMaxSpread, plain.clobRewards]).toEqual([null, null, []]);
    const odd = gammaMarketSchema.parse(wire({ rewardsMinSize: 'lots', rewardsMaxSpread: 'wide', clobRewards: 'x' }));
    expect([odd.rewardsMinSize, odd.rewardsMaxSpread, odd.clobRewards]).toEqual([null, null, []]);
    expect(gammaMarketSchema.parse(wire({ rewardsMaxSpread: 3.33333 })).rewardsMaxSpread).toBeNull();
    expect(gammaMarketSchema.parse(wire({ clobRewards: null })).clobRewards).toEqual([]);
  });
});

describe('gammaRewardConfig', () => {
  const m = (
    clobRewards: Array<{ dailyRate: number; startDate?: string; endDate?: string }>,
    maxSpread: number | null = 300,
  ) => ({
    rewardsMinSize: 50 * SH,
    rewardsMaxSpread: maxSpread,
    clobRewards: clobRewards.map((r, i) => ({ id: String(i), startDate: null, endDate: null, ...r })),
  });
  it('sums the allocations running now (a bare end date runs to the end of that UTC day)', () => {
    const c = gammaRewardConfig(
      m([
        { dailyRate: 10 * SH },
        { dailyRate: 5 * SH, startDate: '2026-07-01', endDate: '2026-07-10' },
        { dailyRate: 7 * SH, endDate: '2026-07-09' }, // ended
        { dailyRate: 9 * SH, startDate: '2026-07-11' }, // not begun
        { dailyRate: 1 * SH, endDate: '2026-07-10T11:00:00Z' }, // ended an hour ago
      ]),
      NOW,
    );
    expect(c).toEqual({ maxSpread: 300, minSize: 50 * SH, dailyRate: 15 * SH });
    expect(gammaRewardConfig(m([{ dailyRate: 5 * SH, endDate: '2026-07-10' }]), NOW + DAY)).toBeNull();
  });
  it('no running pool or no max spread: null', () => {
    expect(gammaRewardConfig(m([]), NOW)).toBeNull();
    expect(gammaRewardConfig(m([{ dailyRate: 0 }]), NOW)).toBeNull();
    expect(gammaRewardConfig(m([{ dailyRate: SH }], null), NOW)).toBeNull();
  });
});

describe('rewardFigures', () => {
  const cfg = { maxSpread: 300 as Pips, minSize: (50 * SH) as Micro, dailyRate: (100 * SH) as Micro };
  const lv = (price: number, size: number) => ({ price: price as Pips, size: (size * SH) as Micro });
  it('the estimate against the book, as decimal strings', () => {
    const book: Pick<OrderBook, 'bids' | 'asks'> = { bids: [lv(4900, 100), lv(4800, 200)], asks: [lv(5100, 100)] };
    expect(rewardFigures(cfg, book, 100)).toEqual({
      rewardsDailyRate: '100',
      rewardsMinSize: '50',
      rewardsMaxSpread: '0.03',
      competitionScore: '44.44',
      estDailyReward: '33.333333',
      estBid: '0.49',
      estAsk: '0.51',
      estDailyMicro: 33_333_333,
    });
  });
  it('no book: no estimate', () => {
    expect(rewardFigures(cfg, null, 100)).toMatchObject({
      estDailyReward: '0',
      estBid: null,
      competitionScore: '0.00',
    });
  });
});

describe('endsLabel (the ENDS column)', () => {
  const now = Date.parse('2026-11-29T10:38:00Z');
  it('says when a market ends to the minute, and how soon when within two days (trial 16 F10)', () => {
    expect(endsLabel('2026-11-29T10:45:00.000Z', now)).toBe('2026-11-29 10:45Z (in 7m)');
    expect(endsLabel('2026-11-30T12:08:00Z', now)).toBe('2026-11-30 12:08Z (in 25h30)');
    expect(endsLabel('2026-12-31T00:00:00Z', now)).toBe('2026-12-31 00:00Z');
    expect(endsLabel('2026-11-29T10:00:00Z', now)).toBe('2026-11-29 10:00Z (ended)');
    expect(endsLabel('2026-12-31', now)).toBe('2026-12-31');
    expect(endsLabel(null, now)).toBeUndefined();
  });
});
