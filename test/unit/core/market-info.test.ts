/** What a re-read of a market counts as a change (src/core/market-info.ts: `market_updated`). */
import { describe, expect, it } from 'vitest';
import type { ConditionId, TokenId } from '../../../src/core/ids.ts';
import {
  marketChangeFields,
  marketChanges,
  type MarketInfo,
  rewardConfigLabel,
} from '../../../src/core/market-info.ts';
import type { RewardConfig } from '../../../src/core/rewards.ts';
import type { Micro, Pips } from '../../../src/core/units.ts';

const m = (o: Partial<MarketInfo> = {}): MarketInfo => ({
  market: '0xm' as ConditionId,
  question: 'q?',
  tokens: [
    { tokenId: '1' as TokenId, outcome: 'Yes' },
    { tokenId: '2' as TokenId, outcome: 'No' },
  ],
  tick: '0.01',
  minOrderSize: 5_000_000 as Micro,
  negRisk: false,
  feeRateBps: 0,
  active: true,
  endDate: '',
  ...o,
});
const rc: RewardConfig = { maxSpread: 350 as Pips, minSize: 50_000_000 as Micro, dailyRate: 65_000_000 as Micro };

describe('marketChanges', () => {
  it('counts the reward config, the status and the minimum size; not the tick, texts or dates', () => {
    expect(marketChanges(m(), m({ tick: '0.001', question: 'other', endDate: '2027-01-01' }))).toEqual([]);
    expect(marketChanges(m(), m({ rewards: null }))).toEqual([]); // absent and null: no rewards alike
    expect(marketChanges(m({ rewards: rc }), m({ rewards: { ...rc } }))).toEqual([]);
    expect(marketChanges(m({ rewards: rc }), m({ rewards: { ...rc, multiplier: 1 } }))).toEqual([]);
    expect(marketChanges(m(), m({ rewards: rc }))).toEqual(['rewards']);
    expect(marketChanges(m({ rewards: rc }), m())).toEqual(['rewards']);
    expect(marketChanges(m({ rewards: rc }), m({ rewards: { ...rc, minSize: 80_000_000 as Micro } }))).toEqual([
      'rewards',
    ]);
    expect(marketChanges(m({ rewards: rc }), m({ rewards: { ...rc, dailyRate: 1 as Micro } }))).toEqual(['rewards']);
    expect(marketChanges(m(), m({ active: false, minOrderSize: 15_000_000 as Micro }))).toEqual([
      'status',
      'minOrderSize',
    ]);
  });
  it('says what changed, before and after, in readable units', () => {
    expect(rewardConfigLabel(rc)).toBe('pool 65/day, band 3.5c, min 50');
    expect(rewardConfigLabel(null)).toBe('none');
    expect(marketChangeFields(m(), m({ rewards: rc }))).toEqual({
      rewardsWas: 'none',
      rewards: 'pool 65/day, band 3.5c, min 50',
    });
    expect(marketChangeFields(m(), m({ active: false, minOrderSize: 15_000_000 as Micro }))).toEqual({
      active: false,
      minOrderSizeWas: '5',
      minOrderSize: '15',
    });
  });
});
