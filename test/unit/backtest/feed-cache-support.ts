/** Shared by the feed-cache tests: a replay through a simulated venue, from the text, a cache, or a first run writing one. */
import { VirtualClock } from '../../../src/core/clock.ts';
import type { MarketEvent } from '../../../src/core/events.ts';
import type { CacheTarget } from '../../../src/backtest/feed-cache.ts';
import type { FeedChannel } from '../../../src/venues/sim/feed.ts';
import {
  newReplayStats,
  readFeedHeader,
  replayCachedBatches,
  replayFeedBatches,
} from '../../../src/backtest/replay.ts';
import { createSimVenue } from '../../../src/venues/sim/sim-venue.ts';
import { marketInfo, NO, T0, YES } from '../venues/sim/sim-fixtures.ts';

/** Where a replay reads from (default: the text of every file) and how. */
export interface ReplayFrom {
  /** Feed file → cache file to read it from (a file not in it: its text). */
  caches?: ReadonlyMap<string, string>;
  /** Feed file → where to write its cache while reading its text (with `caches`). */
  build?: ReadonlyMap<string, CacheTarget>;
  channels?: FeedChannel[];
  batchSize?: number;
  /** Stop after this many items. */
  stopAfter?: number;
}

/** What a replay did: the simulated venue's market events (JSON) and counters, the replay's counters, the items taken. */
export interface Replayed {
  events: string[];
  venue: unknown;
  replay: unknown;
  items: number;
}

/** Replays `files` into a fresh simulated venue (subscribed to every token of the headers, the fixtures' and tok0..tok49) as the runner does. */
export async function through(files: string[], o: ReplayFrom = {}): Promise<Replayed> {
  const clock = new VirtualClock(T0);
  const venue = createSimVenue({
    clock,
    markets: [marketInfo()],
    queue: 'risk-averse',
    latency: {
      entry: { kind: 'constant', ms: 0 },
      cancel: { kind: 'constant', ms: 0 },
      response: { kind: 'constant', ms: 0 },
    },
    seed: 1,
  });
  const events: string[] = [];
  const tokens = [YES, NO] as string[];
  for (const f of files)
    for (const m of (await readFeedHeader(f))?.markets ?? []) for (const t of m.tokens) tokens.push(t.tokenId);
  for (let i = 0; i < 50; i++) tokens.push(`tok${i}`);
  const sub = venue
    .marketEvents([...new Set(tokens)] as (typeof YES)[])
    .subscribe((e: MarketEvent) => events.push(JSON.stringify(e)));
  const stats = newReplayStats();
  const opts = { stats, ...(o.channels ? { channels: o.channels } : {}), batchSize: o.batchSize ?? 3 };
  const it =
    o.caches !== undefined
      ? replayCachedBatches(files, o.caches, { ...opts, ...(o.build ? { build: o.build } : {}) })
      : replayFeedBatches(files, opts);
  const stopAfter = o.stopAfter ?? Infinity;
  let items = 0;
  outer: for await (const b of it) {
    for (const x of b) {
      if (items >= stopAfter) break outer;
      items++;
      if (x.t > clock.now()) clock.advanceTo(x.t);
      venue.ingest(x);
    }
  }
  sub.unsubscribe();
  const v = venue.stats;
  await venue.close();
  return { events, venue: v, replay: { ...stats }, items };
}
