/**
 * The incremental feed-event unit (src/backtest/delta-events.ts) on a tiny hand-made feed: level
 * changes and trades of a market count once (the NO side is derived), snapshot levels only where
 * they differ from the mirrored book, best bid/ask never.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { countFeedEvents, DeltaEventCounter } from '../../../src/backtest/delta-events.ts';
import { frameLine, headerLine, type FeedHeader } from '../../../src/venues/sim/feed.ts';
import type { MarketInfo } from '../../../src/core/venue.ts';
import type { ConditionId, TokenId } from '../../../src/core/ids.ts';
import type { Micro, TickSize } from '../../../src/core/units.ts';

const M = '0xm1';
const YES = '111';
const NO = '222';
const market: MarketInfo = {
  market: M as ConditionId,
  question: 'q',
  tokens: [
    { tokenId: YES as TokenId, outcome: 'Yes' },
    { tokenId: NO as TokenId, outcome: 'No' },
  ],
  tick: '0.01' as TickSize,
  minOrderSize: 5_000_000 as Micro,
  negRisk: false,
  feeRateBps: 0,
  active: true,
  endDate: '2030-01-01T00:00:00.000Z',
};
const header: FeedHeader = { h: 1, t: 1000, part: 0, source: 'test', recorder: 'test', markets: [market] };

type L = [string, string];
const lv = (ls: L[]) => ls.map(([price, size]) => ({ price, size }));
/** A `book` message; levels given best first, written best last as the venue does. */
const book = (asset: string, bids: L[], asks: L[], ts: number) => ({
  event_type: 'book',
  market: M,
  asset_id: asset,
  timestamp: String(ts),
  hash: `h${ts}${asset}`,
  bids: lv([...bids].reverse()),
  asks: lv([...asks].reverse()),
});
const change = (ts: number, ...cs: [asset: string, price: string, size: string, side: 'BUY' | 'SELL'][]) => ({
  event_type: 'price_change',
  market: M,
  timestamp: String(ts),
  price_changes: cs.map(([asset_id, price, size, side]) => ({
    asset_id,
    price,
    size,
    side,
    hash: `c${ts}${asset_id}${price}`,
    best_bid: '0.40',
    best_ask: '0.60',
  })),
});
const trade = (asset: string, price: string, side: 'BUY' | 'SELL', size: string, ts: number) => ({
  event_type: 'last_trade_price',
  asset_id: asset,
  market: M,
  price,
  side,
  size,
  fee_rate_bps: '0',
  timestamp: String(ts),
});
const bba = (asset: string, ts: number) => ({
  event_type: 'best_bid_ask',
  market: M,
  asset_id: asset,
  best_bid: '0.40',
  best_ask: '0.60',
  spread: '0.20',
  timestamp: String(ts),
});

// YES book: bids 0.40 x 100, 0.39 x 50; asks 0.60 x 80. NO mirrors it.
const yes0: [L[], L[]] = [
  [
    ['0.40', '100'],
    ['0.39', '50'],
  ],
  [['0.60', '80']],
];
const no0: [L[], L[]] = [
  [['0.40', '80']],
  [
    ['0.60', '100'],
    ['0.61', '50'],
  ],
];
const frames: unknown[] = [
  // 1. the first snapshots: every YES level is new (3), NO derived (0)
  [book(YES, ...yes0, 1), book(NO, ...no0, 1)],
  // 2. a level change printed on both tokens: 1
  change(2, [YES, '0.40', '70', 'BUY'], [NO, '0.60', '70', 'SELL']),
  // 3. a trade printed on both tokens, and best bid/ask: 1
  trade(YES, '0.40', 'SELL', '30', 3),
  trade(NO, '0.60', 'BUY', '30', 3),
  bba(YES, 3),
  // 4. the snapshots after the trade repeat the mirrored state: 0
  [
    book(
      YES,
      [
        ['0.40', '70'],
        ['0.39', '50'],
      ],
      [['0.60', '80']],
      4,
    ),
    book(
      NO,
      [['0.40', '80']],
      [
        ['0.60', '70'],
        ['0.61', '50'],
      ],
      4,
    ),
  ],
  // 5. a snapshot (after a reconnect) where 0.39 is gone, 0.60 changed and 0.62 is new: 3
  [
    book(
      YES,
      [['0.40', '70']],
      [
        ['0.60', '90'],
        ['0.62', '10'],
      ],
      5,
    ),
  ],
  // 6. a level removed (size 0): 1; then a snapshot repeating it: 0
  change(6, [YES, '0.62', '0', 'SELL'], [NO, '0.38', '0', 'BUY']),
  [book(YES, [['0.40', '70']], [['0.60', '90']], 7)],
];

describe('delta feed events (the incremental unit)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mmkit-delta-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('counts level changes and trades once per market, snapshot levels only where they differ from the mirror', async () => {
    const file = join(dir, 'tiny.ndjson');
    const lines = [headerLine(header), ...frames.map((f, i) => frameLine(1001 + i, 'm', JSON.stringify(f)))];
    writeFileSync(file, `${lines.join('\n')}\n`);
    const c = await countFeedEvents([file]);
    // 3 + 1 + 1 + 0 + 3 + 1 + 0
    expect(c.deltaEvents).toBe(9);
    // the sim venue's unit: every snapshot level, each level change, trade and best bid/ask
    expect(c.feedEvents).toBe(6 + 2 + 3 + 6 + 3 + 2 + 2);
    expect(c.events).toBe(2 + 2 + 3 + 2 + 1 + 2 + 1);
  });

  it('DeltaEventCounter: per event, tokens of no known market count as their own book', () => {
    const c = new DeltaEventCounter([market]);
    const base = { market: M as ConditionId, venueTime: 1, recvTime: 1 };
    const snap = (tokenId: string, bids: [number, number][]) =>
      c.add({
        ...base,
        type: 'book_snapshot',
        tokenId: tokenId as TokenId,
        bids: bids as never,
        asks: [],
        hash: '',
        tickSize: null,
        minOrderSize: null,
        lastTradePrice: null,
      });
    expect(snap(YES, [[4000, 1]])).toBe(1);
    expect(snap(YES, [[4000, 1]])).toBe(0);
    expect(snap(NO, [[6000, 1]])).toBe(0); // derived
    expect(snap('333', [[5000, 2]])).toBe(1); // unknown token: counted
    expect(
      c.add({
        ...base,
        type: 'best_bid_ask',
        tokenId: YES as TokenId,
        bestBid: null,
        bestAsk: null,
        spread: 0 as never,
      }),
    ).toBe(0);
    expect(
      c.add({ ...base, type: 'tick_size_change', tokenId: NO as TokenId, old: 100 as never, new: 10 as never }),
    ).toBe(0);
    expect(c.count).toBe(2);
  });
});
