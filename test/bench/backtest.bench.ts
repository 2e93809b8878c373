/**
 * Backtest figures. A plain script: `node --import tsx test/bench/backtest.bench.ts` (or
 * `npm run bench -- backtest`).
 *
 *  - replay_events_per_sec: end to end, recorded market-channel frames through the simulated venue
 *    and the bands strategy with the daemon's engine, risk gate, executor and store (a temporary
 *    SQLite file), as `mmkit backtest --feed` runs them. A feed event is one event of a normalised
 *    L2 feed (SimVenueStats.feedEvents): each level of a book snapshot, each level change, trade
 *    and best bid/ask. Most of them (~75 %) are levels of the `book` snapshots the venue sends after
 *    every trade, repeating what the level changes before them said: replay_delta_events_per_sec
 *    is the same run counted in an incremental unit (hftbacktest's; src/backtest/delta-events.ts):
 *    level changes and trades of each market once (the NO side derived, not counted), snapshot
 *    levels only where they differ from the mirrored book, counted in one pass over the feed before
 *    the timed runs and divided by the same wall time. replay_messages_per_sec: the same run counted
 *    in market-channel messages (a frame holds one or more; a `book` message holds ~11 levels here).
 *    The feed is the paper exchange's world recorded in virtual time by its own market
 *    channel (test/support/world-feed.ts: the frames `mmkit record` would write), 5 markets, agents
 *    at 10x the default activity (BENCH_FRAMES frames, default 200,000).
 *    The replay reads the feed's decoded-event cache (src/backtest/feed-cache.ts), as every run of
 *    `mmkit backtest` after a feed's first does; replay_events_per_sec_from_text is the same run
 *    decoding the gzip text (the first run of a feed). Each is the median of the runs after warm-up
 *    runs (V8 reaches its steady state only after a few whole runs); the bands runs alternate with
 *    the runs of the market-data path alone below (3 warm-up pairs, then BENCH_PAIRS measured pairs).
 *  - backtest_bands_vs_md_ratio: the speed of the bands run above over the speed of the same
 *    pipeline with a strategy that never quotes (the market-data path alone), same feed, same
 *    process, the two ALTERNATED (BENCH_PAIRS measured pairs, default 5, after 3 warm-up pairs):
 *    the ratio of the medians of their CPU times (process.cpuUsage, the least disturbed by other
 *    processes on a loaded machine); backtest_bands_vs_md_ratio_wall: the same in wall time. The
 *    cost of trading as a fraction (1: free; the goal is at least 0.5).
 *  - replay_memory_growth_mb: the same pipeline over BENCH_EVENTS messages (default 10,000,000; the
 *    feed above repeated, shifted in time, into a temporary file): V8 heap in use after a full GC
 *    at the end minus at the first checkpoint past 1,000,000 messages.
 *  - synthetic_sim_hours_per_sec: `mmkit backtest --world 1 --duration 6h` (BENCH_SYN_HOURS),
 *    simulated hours per wall-clock second.
 *
 * Lines starting with # break the figures down (replay alone, replay + simulated venue, a strategy
 * that never quotes (the market-data path alone, without the cost of trading), the store
 * in memory), so a change can be attributed.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { FeedHeader } from '../../src/venues/sim/feed.ts';
import { replicateFeed, writeWorldFeed } from '../support/world-feed.ts';
// @ts-expect-error a plain JavaScript module of the bin (no types)
import { build, distState } from '../../bin/build-stamp.js';

// The code measured is the compiled JavaScript of dist/ that `mmkit backtest` runs (bin/mmkit.js runs
// dist/ when it is current): built first when the sources changed since the last build. The sources
// through tsx would measure tsx's transform too (esbuild's keepNames helper names every closure
// made in a hot loop: ~5 % of a bands run).
if (!(distState() as { current: boolean }).current && build() !== 0) throw new Error('npm run build:dist failed');
const dist = (rel: string): string => new URL(`../../dist/src/${rel}.js`, import.meta.url).href;
const { runBacktest } = (await import(dist('backtest/runner'))) as typeof import('../../src/backtest/runner.ts');
const { newReplayStats, replayFeedBatches } = (await import(
  dist('backtest/replay')
)) as typeof import('../../src/backtest/replay.ts');
const { createSimVenue } = (await import(
  dist('venues/sim/sim-venue')
)) as typeof import('../../src/venues/sim/sim-venue.ts');
const { VirtualClock } = (await import(dist('core/clock'))) as typeof import('../../src/core/clock.ts');
const { ensureFeedCaches } = (await import(
  dist('backtest/feed-cache')
)) as typeof import('../../src/backtest/feed-cache.ts');
const { countFeedEvents } = (await import(
  dist('backtest/delta-events')
)) as typeof import('../../src/backtest/delta-events.ts');

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const FRAMES = Number(process.env.BENCH_FRAMES ?? 200_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000_000);
const SYN_HOURS = Number(process.env.BENCH_SYN_HOURS ?? 6);
const dir = mkdtempSync(join(tmpdir(), 'mmkit-bench-bt-'));
const risk = { maxRejections: 100_000 };

try {
  // ---- the feed ------------------------------------------------------------------------------------
  const feed = join(dir, 'world.ndjson.gz');
  let t0 = performance.now();
  const w = await writeWorldFeed(feed, { seed: 1, markets: 5, messages: FRAMES, rate: 10 });
  console.log(
    `# feed: ${w.frames} frames of 5 markets, ${((w.endMs - w.startMs) / 3.6e6).toFixed(2)} virtual hours, ${(statSync(feed).size / 1e6).toFixed(1)} MB gzip (made in ${((performance.now() - t0) / 1000).toFixed(1)} s)`,
  );

  // ---- breakdown: replay alone, replay + simulated venue -------------------------------------------
  t0 = performance.now();
  let items = 0;
  let header: FeedHeader | undefined;
  for await (const b of replayFeedBatches([feed])) {
    items += b.length;
    header ??= b[0]?.kind === 'header' ? b[0].header : undefined;
  }
  console.log(`# replay alone: ${Math.round(items / ((performance.now() - t0) / 1000))} items/s`);
  const clock = new VirtualClock(header!.t);
  const zero = { kind: 'constant', ms: 0 } as const;
  const sim = createSimVenue({
    clock,
    markets: header!.markets,
    queue: 'risk-averse',
    latency: { entry: zero, cancel: zero, response: zero },
    seed: 1,
  });
  sim.marketEvents(header!.markets.flatMap((m) => m.tokens.map((t) => t.tokenId))).subscribe(() => undefined);
  t0 = performance.now();
  for await (const b of replayFeedBatches([feed], { stats: newReplayStats() })) {
    for (const it of b) {
      clock.advanceTo(it.t > clock.now() ? it.t : clock.now());
      sim.ingest(it);
    }
  }
  console.log(
    `# replay + simulated venue (decode, books, no strategy): ${Math.round(sim.stats.messages / ((performance.now() - t0) / 1000))} messages/s`,
  );
  await sim.close();

  // ---- end to end -----------------------------------------------------------------------------------
  // the feed's decoded-event cache (src/backtest/feed-cache.ts), as `mmkit backtest` builds it on the
  // first run of a feed and reads it on every later one
  const cacheDir = join(dir, 'feed-cache');
  t0 = performance.now();
  const caches = await ensureFeedCaches([feed], cacheDir);
  console.log(`# feed cache built in ${((performance.now() - t0) / 1000).toFixed(2)} s`);
  // the feed's events in the incremental unit, counted once before the timed runs
  t0 = performance.now();
  const counted = await countFeedEvents([feed], caches);
  console.log(
    `# feed events: ${counted.feedEvents} (every snapshot level), ${counted.deltaEvents} in the incremental unit (${(100 * (1 - counted.deltaEvents / counted.feedEvents)).toFixed(1)} % fewer), from ${counted.events} decoded events (counted in ${((performance.now() - t0) / 1000).toFixed(2)} s)`,
  );
  // no forced GC before these runs: a forced full GC makes V8 shrink the heap and drop what it
  // learned, and the next run measured ~60% slower than in a process that never forces one (as
  // `mmkit backtest` never does)
  const run = async (o: { storePath?: string; cached?: boolean; strategy?: string } = {}) => {
    const c = process.cpuUsage();
    const s = performance.now();
    const r = await runBacktest({
      feeds: [feed],
      strategy: o.strategy ?? 'bands',
      risk,
      ...(o.storePath !== undefined ? { storePath: o.storePath } : {}),
      ...(o.cached !== false ? { feedCache: cacheDir } : {}),
    });
    const sec = (performance.now() - s) / 1000;
    const u = process.cpuUsage(c);
    const v = r.venue as { messages: number; feedEvents: number };
    return { r, sec, cpuSec: (u.user + u.system) / 1e6, messages: v.messages, feedEvents: v.feedEvents };
  };
  type Run = Awaited<ReturnType<typeof run>>;
  const median = (rs: Run[], by: (x: Run) => number): Run =>
    [...rs].sort((a, b) => by(a) - by(b))[Math.floor(rs.length / 2)]!;
  /** The median of `n` runs, after `warm` runs that let the JIT reach its steady state (it takes a few whole runs). */
  const measured = async (n: number, warm: number, o: Parameters<typeof run>[0] = {}) => {
    for (let i = 0; i < warm; i++) await run(o);
    const rs: Run[] = [];
    for (let i = 0; i < n; i++) rs.push(await run(o));
    return median(rs, (x) => x.sec);
  };
  // the same pipeline with a strategy that never quotes: the market-data path alone (replay, frame
  // scanner, sim venue books, engine state and loop, runner), so the cost of trading shows apart
  const idle = join(dir, 'idle-strategy.mjs');
  writeFileSync(
    idle,
    `import { defineStrategy } from ${JSON.stringify(dist('strategy/api'))};\n` +
      `export default defineStrategy({ name: 'idle', description: 'never quotes', params: {}, create() { return { onEvent() { return undefined; } }; } });\n`,
  );
  // bands and the market-data path alone, ALTERNATED in this process (warm-up pairs, then PAIRS
  // measured pairs), so a change of the machine's load or of V8's state hits both alike; the ratio
  // is of the medians, in wall time and in CPU time (process.cpuUsage: less sensitive to other
  // processes on a loaded machine)
  const PAIRS = Number(process.env.BENCH_PAIRS ?? 5);
  const bandsRuns: Run[] = [];
  const idleRuns: Run[] = [];
  for (let i = 0; i < 3 + PAIRS; i++) {
    const b = await run();
    const d = await run({ strategy: idle });
    if (i >= 3) bandsRuns.push(b), idleRuns.push(d);
  }
  const e2e = median(bandsRuns, (x) => x.sec);
  const idleRun = median(idleRuns, (x) => x.sec);
  const cpuRatio = median(idleRuns, (x) => x.cpuSec).cpuSec / median(bandsRuns, (x) => x.cpuSec).cpuSec;
  const wallRatio = idleRun.sec / e2e.sec;
  const text = await measured(3, 1, { cached: false });
  const mem = await measured(1, 0, { storePath: ':memory:' });
  console.log(
    `# end to end with a strategy that never quotes (the market-data path alone): ${Math.round(idleRun.feedEvents / idleRun.sec)} events/s`,
  );
  console.log(
    `# end to end: ${e2e.feedEvents} feed events, ${e2e.messages} messages, ${e2e.r.counts.marketEvents} market events, ${e2e.r.fillCount} fills, ${e2e.r.orders.ordersSent} orders, ${e2e.r.counts.intents} intents (${e2e.r.counts.intentsCoalesced} coalesced) in ${e2e.sec.toFixed(2)} s (median of ${PAIRS} after 3 warm-up runs, alternated with the market-data path alone)`,
  );
  console.log(
    `# bands vs the market-data path alone (medians of ${PAIRS} alternated pairs): wall ${bandsRuns.map((x) => x.sec.toFixed(2)).join('/')} s vs ${idleRuns.map((x) => x.sec.toFixed(2)).join('/')} s, cpu ${bandsRuns.map((x) => x.cpuSec.toFixed(2)).join('/')} s vs ${idleRuns.map((x) => x.cpuSec.toFixed(2)).join('/')} s; ratio wall ${wallRatio.toFixed(3)}, cpu ${cpuRatio.toFixed(3)}`,
  );
  console.log(`# end to end with the store in memory: ${Math.round(mem.feedEvents / mem.sec)} events/s`);
  if (counted.feedEvents !== e2e.feedEvents)
    throw new Error(`the counting pass saw ${counted.feedEvents} feed events, the run ${e2e.feedEvents}`);
  console.log(`figure: replay_events_per_sec = ${Math.round(e2e.feedEvents / e2e.sec)} events/s`);
  console.log(`figure: replay_delta_events_per_sec = ${Math.round(counted.deltaEvents / e2e.sec)} events/s`);
  console.log(`figure: replay_messages_per_sec = ${Math.round(e2e.messages / e2e.sec)} messages/s`);
  // the first run of a feed, before its cache exists: gunzip and the frame scanner on every frame
  console.log(`figure: replay_events_per_sec_from_text = ${Math.round(text.feedEvents / text.sec)} events/s`);
  // the cost of trading: bands over the market-data path alone (same feed, same process)
  console.log(`figure: backtest_bands_vs_md_ratio = ${cpuRatio.toFixed(3)} x`);
  console.log(`figure: backtest_bands_vs_md_ratio_wall = ${wallRatio.toFixed(3)} x`);

  // ---- memory over a long replay ----------------------------------------------------------------------
  const copies = Math.max(1, Math.ceil(EVENTS / w.frames));
  const big = join(dir, 'long.ndjson.gz');
  t0 = performance.now();
  const n = await replicateFeed(feed, big, copies);
  console.log(
    `# long feed: ${n} records (${copies} copies), ${(statSync(big).size / 1e6).toFixed(0)} MB gzip (made in ${((performance.now() - t0) / 1000).toFixed(1)} s)`,
  );
  let base: { items: number; heap: number; rss: number } | undefined;
  let lastCheck = 0;
  let end: { heap: number; rss: number } = { heap: 0, rss: 0 };
  t0 = performance.now();
  const long = await runBacktest({
    feeds: [big],
    strategy: 'bands',
    risk,
    progressEveryMs: 60_000,
    onProgress: (p) => {
      // a full GC now and then (every ~250k items), the first past 1M items is the baseline
      if (p.items - lastCheck < 250_000) return;
      lastCheck = p.items;
      gc();
      const m = process.memoryUsage();
      if (base === undefined && p.items >= Math.min(1_000_000, EVENTS / 10))
        base = { items: p.items, heap: m.heapUsed, rss: m.rss };
      end = { heap: m.heapUsed, rss: m.rss };
      if (process.stderr.isTTY)
        process.stderr.write(`\r# ${p.items} items, heap ${(m.heapUsed / 1e6).toFixed(1)} MB   `);
    },
  });
  const longSec = (performance.now() - t0) / 1000;
  if (process.stderr.isTTY) process.stderr.write('\n');
  const msgs = (long.venue as { messages: number }).messages;
  console.log(
    `# long replay: ${msgs} messages in ${longSec.toFixed(1)} s (${Math.round(msgs / longSec)} events/s), ${long.fillCount} fills, ${long.orders.ordersSent} orders; heap ${(base!.heap / 1e6).toFixed(1)} MB at ${base!.items} items -> ${(end.heap / 1e6).toFixed(1)} MB at the end; rss ${(base!.rss / 1e6).toFixed(0)} -> ${(end.rss / 1e6).toFixed(0)} MB`,
  );
  console.log(`figure: replay_memory_growth_mb = ${((end.heap - base!.heap) / 1e6).toFixed(1)} MB`);

  // ---- synthetic world -------------------------------------------------------------------------------
  gc();
  t0 = performance.now();
  const syn = await runBacktest({ world: { seed: 1, durationMs: SYN_HOURS * 3_600_000 }, strategy: 'bands', risk });
  const synSec = (performance.now() - t0) / 1000;
  console.log(
    `# synthetic: ${SYN_HOURS} h of world 1 (3 markets traded, warm-up 60 s) in ${synSec.toFixed(1)} s: ${syn.fillCount} fills, ${syn.counts.marketEvents} market events`,
  );
  console.log(
    `figure: synthetic_sim_hours_per_sec = ${((syn.endMs - syn.startMs) / 3_600_000 / synSec).toFixed(3)} h/s`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
