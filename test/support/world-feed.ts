/**
 * A recorded feed of the paper exchange's world, made in virtual time: the exchange's own market
 * channel (src/exchange/ws/market.ts) fans out to a capturing connection, so every frame is the
 * text the WebSocket would carry, written in the recorder's format (src/venues/sim/feed.ts) with the
 * virtual receive time. What `mmkit record` would record from a paper exchange, minus the network
 * latency, at simulation speed: for benchmarks and tests that need long realistic feeds.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createGzip } from 'node:zlib';
import { VirtualClock } from '../../src/core/clock.ts';
import { DEFAULT_EXCHANGE_OPTIONS, PaperExchange } from '../../src/exchange/exchange.ts';
import { seedWorld, startWorld, type WorldProfileName } from '../../src/exchange/world/index.ts';
import { MarketChannel } from '../../src/exchange/ws/market.ts';
import type { StreamConn } from '../../src/exchange/ws/conn.ts';
import { marketInfo } from '../../src/venues/paper/exchange-venue.ts';
import { frameLine, headerLine } from '../../src/venues/sim/feed.ts';

export interface WorldFeedOptions {
  seed: number;
  /** Markets recorded: the most liquid active ones that stay open (default 5). */
  markets?: number;
  /** Stop after this many market-channel messages (frames), or after `durationMs`. */
  messages?: number;
  durationMs?: number;
  /** World warm-up before recording starts, ms (default 60 s). */
  warmupMs?: number;
  startMs?: number;
  /** Agents' activity multiplier (default 1). */
  rate?: number;
  /**
   * The world profile (default calm: the benchmarks' feed stays the one their figures were measured
   * on before profiles existed, so figures stay comparable across versions).
   */
  profile?: WorldProfileName;
}

/**
 * Records the world's market channel to `file` (gzip NDJSON). Resolves with the frames written and
 * the virtual time span.
 */
export async function writeWorldFeed(
  file: string,
  o: WorldFeedOptions,
): Promise<{ frames: number; startMs: number; endMs: number }> {
  const clock = new VirtualClock(o.startMs ?? Date.UTC(2026, 0, 1));
  const ex = new PaperExchange({ ...DEFAULT_EXCHANGE_OPTIONS, clock });
  seedWorld(ex, o.seed);
  ex.start();
  const world = startWorld(ex, {
    seed: o.seed,
    agents: 'default',
    lifecycle: true,
    priceFeed: false,
    rate: o.rate ?? 1,
    profile: o.profile ?? 'calm',
  });
  clock.advance(o.warmupMs ?? 60_000);
  const limit = o.messages ?? Infinity;
  const end = o.durationMs !== undefined ? clock.now() + o.durationMs : Infinity;
  const entries = ex
    .listMarkets()
    .filter((e) => e.state.status === 'active' && Date.parse(e.meta.endDate) > clock.now() + 86_400_000)
    .map((e) => ({ e, l: ex.liquidity(e) }))
    .filter((x) => x.l > 0)
    .sort((a, b) => b.l - a.l || (a.e.meta.conditionId < b.e.meta.conditionId ? -1 : 1))
    .slice(0, o.markets ?? 5)
    .map((x) => x.e);

  const gz = createGzip({ level: 1 });
  const out = createWriteStream(file);
  gz.pipe(out);
  let lines: string[] = [];
  let frames = 0;
  const startMs = clock.now();
  lines.push(
    headerLine({
      h: 1,
      t: startMs,
      part: 0,
      source: `paper-world:${o.seed}`,
      recorder: 'test/support/world-feed',
      markets: entries.map(marketInfo),
    }),
  );
  const conn = {
    isOpen: true,
    data(buf: Buffer) {
      if (frames >= limit) return;
      const text = buf.toString('utf8');
      lines.push(frameLine(clock.now(), 'm', text));
      frames++;
    },
    control() {},
    // no budget here: every snapshot is rendered
    snapshots: (items: ReadonlyArray<{ render: () => string }>) => items.map((i) => i.render()),
    error(code: string, message: string) {
      throw new Error(`market channel refused the subscription: ${code} ${message}`);
    },
    close() {},
  } as unknown as StreamConn;
  const channel = new MarketChannel(ex, () => ({ frozen: false, latencyMs: 0 }));
  const unsubscribe = ex.subscribe((events) => channel.onEvents(events));
  channel.add(conn);
  channel.handle(conn, {
    type: 'market',
    assets_ids: entries.flatMap((e) => [...e.meta.tokens]),
    custom_feature_enabled: true,
  });
  while (frames < limit && clock.now() < end) {
    const next = clock.nextAt();
    clock.advanceTo(next === undefined ? clock.now() + 1000 : Math.min(next, end));
    if (lines.length > 20_000) {
      const chunk = lines.join('\n') + '\n';
      lines = [];
      if (!gz.write(chunk)) await once(gz, 'drain');
    }
  }
  const endMs = clock.now();
  unsubscribe();
  world.stop();
  ex.stop();
  if (lines.length > 0) gz.write(lines.join('\n') + '\n');
  gz.end();
  await once(out, 'finish');
  return { frames, startMs, endMs };
}

/**
 * Writes `copies` copies of a feed's records one after the other into `dst` (gzip), each shifted
 * in receive time by the span of the source plus one second: a long feed from a short one. The
 * frames' own venue timestamps are left as they are (the simulated venue times the market by the
 * receive time), and each copy starts with the source's snapshots, so books are whole again at
 * every seam. Only the first header is kept. Resolves with the records written (headers included).
 */
export async function replicateFeed(src: string, dst: string, copies: number): Promise<number> {
  const { replayFeedBatches } = await import('../../src/backtest/replay.ts');
  const { frameLine: fl, marketLine, statusLine, stringFrameLine } = await import('../../src/venues/sim/feed.ts');
  let first = Infinity;
  let last = 0;
  const items: Array<import('../../src/venues/sim/feed.ts').FeedItem> = [];
  for await (const b of replayFeedBatches([src]))
    for (const it of b) items.push(it), (first = Math.min(first, it.t)), (last = Math.max(last, it.t));
  const span = last - first + 1000;
  const gz = createGzip({ level: 1 });
  const out = createWriteStream(dst);
  gz.pipe(out);
  let n = 0;
  let lines: string[] = [];
  for (let c = 0; c < copies; c++) {
    const shift = c * span;
    for (const it of items) {
      const t = it.t + shift;
      if (it.kind === 'header') {
        if (c > 0) continue;
        lines.push(headerLine(it.header));
      } else if (it.kind === 'status') lines.push(statusLine(t, it.ch, it.status, it.reason));
      else if (it.kind === 'market') lines.push(marketLine(t, it.info));
      else lines.push(it.raw.includes('\n') ? stringFrameLine(t, it.ch, it.raw) : fl(t, it.ch, it.raw));
      n++;
      if (lines.length >= 20_000) {
        if (!gz.write(lines.join('\n') + '\n')) await once(gz, 'drain');
        lines = [];
      }
    }
  }
  if (lines.length > 0) gz.write(lines.join('\n') + '\n');
  gz.end();
  await once(out, 'finish');
  return n;
}
