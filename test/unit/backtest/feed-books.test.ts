/** The books a feed starts with (src/backtest/feed-books.ts), for a strategy's market choice. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstBooks } from '../../../src/backtest/feed-books.ts';
import type { TokenId } from '../../../src/core/ids.ts';
import { REWARD_NO, REWARD_YES, writeRewardFeed } from '../../support/reward-feed.ts';

let dir: string;
let feed: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mmkit-feed-books-'));
  feed = join(dir, 'f.ndjson.gz');
  writeRewardFeed(feed, {
    rewards: null,
    bids: [
      [4700, 30_000_000],
      [4800, 100_000_000],
    ],
    asks: [[5200, 100_000_000]],
    durationMs: 60_000,
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('firstBooks', () => {
  it("each token's first snapshot, best first (the NO book mirrors the YES one)", async () => {
    const b = await firstBooks([feed], [REWARD_YES, REWARD_NO, 'unknown' as TokenId]);
    expect(b.get(REWARD_YES)).toEqual({
      bids: [
        [4800, 100_000_000],
        [4700, 30_000_000],
      ],
      asks: [[5200, 100_000_000]],
    });
    expect(b.get(REWARD_NO)).toEqual({
      bids: [[4800, 100_000_000]],
      asks: [
        [5200, 100_000_000],
        [5300, 30_000_000],
      ],
    });
    expect(b.has('unknown' as TokenId)).toBe(false);
    expect((await firstBooks([feed], [])).size).toBe(0);
  });
});
