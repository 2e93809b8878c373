import { describe, expect, it } from 'vitest';
import { DEFAULT_FEED_CACHE_MAX_MB } from '../../../src/backtest/feed-cache-prune.ts';
import { feedCacheMaxMb } from '../../../src/cli/backtest.ts';

describe('feed-cache size cap', () => {
  it('the flag, else MMKIT_FEED_CACHE_MAX_MB, else the default; a bad variable is a usage error naming it', () => {
    expect(feedCacheMaxMb({ feedCacheMaxMb: 7 }, { MMKIT_FEED_CACHE_MAX_MB: '9' })).toBe(7);
    expect(feedCacheMaxMb({}, { MMKIT_FEED_CACHE_MAX_MB: '9' })).toBe(9);
    expect(feedCacheMaxMb({}, { MMKIT_FEED_CACHE_MAX_MB: '0' })).toBe(0);
    expect(feedCacheMaxMb({}, {})).toBe(DEFAULT_FEED_CACHE_MAX_MB);
    for (const bad of ['-1', '1.5', 'lots', '1e3', '99999999999'])
      expect(() => feedCacheMaxMb({}, { MMKIT_FEED_CACHE_MAX_MB: bad }), bad).toThrow(
        /MMKIT_FEED_CACHE_MAX_MB must be an integer/,
      );
  });
});
