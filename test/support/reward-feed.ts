/**
 * A small recorded feed whose header carries reward configs (MarketInfo.rewards), for the backtest's
 * reward tests: one market with a STATIC YES book (the same snapshots of both tokens repeated every
 * `everyMs`, so virtual time moves and nothing else does), so what a quote scores is known exactly.
 */
import { writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import type { ConditionId, TokenId } from '../../src/core/ids.ts';
import type { RewardConfig } from '../../src/core/rewards.ts';
import { formatAmount, formatPrice, PRICE_SCALE, type Micro } from '../../src/core/units.ts';
import type { MarketInfo } from '../../src/core/venue.ts';
import { frameLine, headerLine } from '../../src/venues/sim/feed.ts';

export const REWARD_MARKET = `0x${'ab'.repeat(32)}` as ConditionId;
export const REWARD_YES = `1${'2'.repeat(76)}` as TokenId;
export const REWARD_NO = `3${'4'.repeat(76)}` as TokenId;
export const REWARD_FEED_T0 = Date.UTC(2026, 0, 1);

export interface RewardFeedOptions {
  /** The market's reward config in the header (null or undefined: none; `'omit'`: no `rewards` key at all, as an old feed). */
  readonly rewards: RewardConfig | null | 'omit' | Record<string, unknown>;
  /** YES levels [price pips, size micro]. */
  readonly bids: ReadonlyArray<readonly [number, number]>;
  readonly asks: ReadonlyArray<readonly [number, number]>;
  /** How long the feed lasts, ms (the last snapshots are at this time). */
  readonly durationMs: number;
  /** Snapshots every this many ms. Default 20 s. */
  readonly everyMs?: number;
}

/** The feed's market. */
export function rewardMarket(rewards: RewardFeedOptions['rewards']): MarketInfo {
  const m: MarketInfo = {
    market: REWARD_MARKET,
    question: 'Rewarded market?',
    tokens: [
      { tokenId: REWARD_YES, outcome: 'Yes' },
      { tokenId: REWARD_NO, outcome: 'No' },
    ],
    tick: '0.01',
    minOrderSize: 5_000_000 as Micro,
    negRisk: false,
    feeRateBps: 0,
    active: true,
    endDate: '2027-01-01T00:00:00Z',
  };
  return rewards === 'omit' ? m : ({ ...m, rewards } as MarketInfo);
}

/** Writes the feed (gzip NDJSON) to `file`. */
export function writeRewardFeed(file: string, o: RewardFeedOptions): void {
  const lines = [
    headerLine({
      h: 1,
      t: REWARD_FEED_T0,
      part: 0,
      source: 'test',
      recorder: 'test/support/reward-feed',
      markets: [rewardMarket(o.rewards)],
    }),
  ];
  const lv = (ls: ReadonlyArray<readonly [number, number]>, mirror: boolean, asc: boolean): string =>
    ls
      .map(([p, s]) => [mirror ? PRICE_SCALE - p : p, s] as const)
      .sort((a, b) => (asc ? a[0] - b[0] : b[0] - a[0]))
      .map(([p, s]) => `{"price":"${formatPrice(p)}","size":"${formatAmount(s)}"}`)
      .join(',');
  let n = 0;
  const book = (t: number, yes: boolean): string => {
    // wire order: best LAST (bids ascending, asks descending)
    const bids = yes ? lv(o.bids, false, true) : lv(o.asks, true, true);
    const asks = yes ? lv(o.asks, false, false) : lv(o.bids, true, false);
    return `{"event_type":"book","market":"${REWARD_MARKET}","asset_id":"${yes ? REWARD_YES : REWARD_NO}","timestamp":"${Math.floor(t)}","hash":"h${n++}","bids":[${bids}],"asks":[${asks}],"min_order_size":"5","tick_size":"0.01","neg_risk":false,"last_trade_price":""}`;
  };
  const every = o.everyMs ?? 20_000;
  for (let t = REWARD_FEED_T0 + 1; t <= REWARD_FEED_T0 + o.durationMs; t += every) {
    lines.push(frameLine(t, 'm', book(t, true)), frameLine(t, 'm', book(t, false)));
  }
  writeFileSync(file, gzipSync(`${lines.join('\n')}\n`));
}
