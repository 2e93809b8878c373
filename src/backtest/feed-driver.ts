/**
 * Feed mode of the backtest: recorded feeds (src/backtest/replay.ts, pulled in batches, or their
 * decoded-event caches) into the simulated venue (src/venues/sim/sim-venue.ts), each item advancing
 * the virtual clock to its receive time and then ingested.
 *
 * The venue charges taker fees under the order protocol the feeds' headers say their venue spoke
 * (`FeedHeader.protocol`: a feed does not mix two), unless the caller names one (`--fee-protocol`);
 * feeds recorded before headers said it assume 2 (DEFAULT_FEE_PROTOCOL), as backtests always did.
 */
import { open } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { VirtualClock } from '../core/clock.ts';
import { ConfigError } from '../core/errors.ts';
import { DEFAULT_FEE_PROTOCOL, type FeeProtocol } from '../core/fees.ts';
import type { Micro } from '../core/units.ts';
import { marketsInOrder, type MarketInfo } from '../core/venue.ts';
import { feedProtocol, feedRewardConfig, parseLine, type FeedHeader } from '../venues/sim/feed.ts';
import type { LatencySpec } from '../venues/sim/latency.ts';
import { createSimVenue, type SimLatencyOptions, type SimVenue } from '../venues/sim/sim-venue.ts';
import { planFeedCaches, type FeedCachePlan } from './feed-cache.ts';
import { newReplayStats, replayCachedBatches, replayFeedBatches } from './replay.ts';
import { firstBooks } from './feed-books.ts';
import type { BacktestDriver, MarketChooser } from './types.ts';

/**
 * A gap of the feeds (BacktestResult.gaps): an hour or more from the market channel's disconnect (the
 * recorder's stop at the end of a file, or a connection lost) to the next record. A quiet hour of a
 * connected recording is none: the recorder writes market lines only on change.
 */
export const FEED_GAP_MS = 3_600_000;

/** Follows the feed's records for its gaps (FEED_GAP_MS), clipped to the run's window. */
class GapWatch {
  readonly gaps: { fromMs: number; toMs: number }[] = [];
  /** The market channel's disconnect not yet followed by a record (its time), else undefined. */
  #down: number | undefined;
  /** The run's start (a window's `--from`): a gap is counted from it at the earliest. */
  startMs = Number.NEGATIVE_INFINITY;

  see(item: { readonly t: number; readonly kind: string; readonly ch?: string; readonly status?: string }): void {
    if (this.#down !== undefined) this.#close(item.t);
    if (item.kind === 'status' && item.status === 'disconnect' && item.ch === 'm') this.#down ??= item.t;
    else this.#down = undefined;
  }

  /** The run ends at `t` (a window's `--to`) with the channel down: the gap up to it. */
  end(t: number): void {
    if (this.#down !== undefined) this.#close(t);
  }

  #close(t: number): void {
    const from = Math.max(this.#down!, this.startMs);
    if (t - from >= FEED_GAP_MS) this.gaps.push({ fromMs: from, toMs: t });
  }
}

/**
 * The header of a feed file (its first line), or undefined when the first line is not one. Reads
 * only the start of the file, and closes it.
 * @throws the file system's error when the file cannot be read
 */
async function firstHeader(file: string): Promise<FeedHeader | undefined> {
  const fh = await open(file, 'r');
  let text = '';
  try {
    const head = Buffer.alloc(2);
    const { bytesRead } = await fh.read(head, 0, 2, 0);
    const gz = bytesRead === 2 && head[0] === 0x1f && head[1] === 0x8b;
    const raw = fh.createReadStream({ start: 0, autoClose: false, highWaterMark: 64 * 1024 });
    const src = gz ? raw.pipe(createGunzip()) : raw;
    try {
      for await (const chunk of src as AsyncIterable<Buffer>) {
        text += chunk.toString('utf8');
        if (text.includes('\n') || text.length > 64 << 20) break;
      }
    } catch {
      // damaged gzip: whatever decoded is all there is
    } finally {
      raw.destroy();
      src.destroy();
    }
  } finally {
    await fh.close();
  }
  const nl = text.indexOf('\n');
  const item = parseLine(nl < 0 ? text : text.slice(0, nl));
  return item?.kind === 'header' ? item.header : undefined;
}

/**
 * A header's market with its reward config checked (src/venues/sim/feed.ts: feedRewardConfig); a
 * market without one (feeds recorded before rewards) is returned as it is: no rewards.
 * @throws ConfigError naming the file and market when the config is malformed
 */
function withRewards(m: MarketInfo, file: string): MarketInfo {
  if (m.rewards === undefined || m.rewards === null) return m;
  try {
    return { ...m, rewards: feedRewardConfig(m.rewards) };
  } catch (e) {
    throw new ConfigError('backtest.feed', `${file}: market ${m.market}: ${(e as Error).message}`, { cause: e });
  }
}

/** Options of the feed driver. */
export interface FeedDriverOptions {
  readonly files: readonly string[];
  readonly seed: number;
  readonly queue: 'risk-averse' | 'probabilistic';
  readonly latencyMs: number;
  /** Full latency options of the simulated venue (default: entry, cancel and response all `latencyMs`, constant). */
  readonly latency?: SimLatencyOptions | undefined;
  readonly collateral: number;
  readonly markets?: readonly string[] | undefined;
  readonly batchSize?: number | undefined;
  /** A folder of decoded-event caches (built there when missing). */
  readonly feedCache?: string | undefined;
  /**
   * Without `markets`: chooses among the feed's active markets (all of them may be chosen) from the
   * books the feed starts with (./feed-books.ts). Default: every active market.
   */
  readonly choose?: MarketChooser | undefined;
  /** The order protocol whose taker fee the venue charges, over the headers' (see the module comment). */
  readonly feeProtocol?: FeeProtocol | undefined;
  /**
   * The window of the feed to trade, unix ms (receive time, both ends included): the records before
   * `fromMs` only build the books and markets the bot starts with (it sees them as a snapshot when it
   * subscribes, as a live bot does); the run stops at `toMs`.
   */
  readonly fromMs?: number | undefined;
  readonly toMs?: number | undefined;
}

/**
 * The order protocol whose taker fee a feed backtest charges: `given` when set, else the one the
 * headers say (all that say one alike; a header that says none follows them), else
 * DEFAULT_FEE_PROTOCOL.
 * @throws ConfigError when a header's protocol is malformed, or the feeds say different ones and none is given
 */
export function feedFeeProtocol(
  files: readonly string[],
  headers: readonly FeedHeader[],
  given?: FeeProtocol,
): FeeProtocol {
  const said = new Map<FeeProtocol, string>();
  for (const [i, h] of headers.entries()) {
    let p: FeeProtocol | undefined;
    try {
      p = feedProtocol(h);
    } catch (e) {
      throw new ConfigError('backtest.feed', `${files[i]}: ${(e as Error).message}`, { cause: e });
    }
    if (p !== undefined && !said.has(p)) said.set(p, files[i]!);
  }
  if (given !== undefined) return given;
  if (said.size > 1)
    throw new ConfigError(
      'backtest.feeProtocol',
      `the feeds were recorded from venues of different order protocols (${said.get(1)}: 1, ${said.get(2)}: 2): ` +
        'backtest them apart, or name the fee protocol (--fee-protocol 1|2)',
    );
  return [...said.keys()][0] ?? DEFAULT_FEE_PROTOCOL;
}

/**
 * Reads the feeds' headers (the markets recorded), builds the clock and the simulated venue, and
 * returns the driver: replayed items, in receive-time order, each advancing the clock to its time
 * and then ingested by the venue.
 * @throws ConfigError when a file is missing or not a feed, or a market asked for is not in it
 */
export async function createFeedDriver(o: FeedDriverOptions): Promise<BacktestDriver> {
  if (o.files.length === 0) throw new ConfigError('backtest.feed', 'no feed file given');
  const headers: FeedHeader[] = [];
  for (const f of o.files) {
    let h: FeedHeader | undefined;
    try {
      h = await firstHeader(f);
    } catch (e) {
      throw new ConfigError('backtest.feed', `cannot read ${f}: ${(e as Error).message}`, { cause: e });
    }
    if (h === undefined) throw new ConfigError('backtest.feed', `${f} is not a recorded feed (no header line)`);
    headers.push(h);
  }
  const all: MarketInfo[] = [];
  const seen = new Set<string>();
  for (const [i, h] of headers.entries())
    for (const m of h.markets) {
      if (seen.has(m.market)) continue;
      seen.add(m.market);
      all.push(withRewards(m, o.files[i]!));
    }
  let markets = all.filter((m) => m.active);
  if (o.markets !== undefined && o.markets.length > 0) {
    // in the order given: the strategy's ctx.markets follows it, as the daemon's does
    const picked = marketsInOrder(all, o.markets);
    markets = picked.found;
    const missing = picked.missing;
    if (missing.length > 0)
      throw new ConfigError('backtest.markets', `market(s) not in the feed: ${missing.join(', ')}`);
  }
  const t0 = Math.min(...headers.map((h) => h.t));
  // a window that ends before the feed begins holds nothing (unix seconds given for ms, say): said,
  // as a window that starts after its end is
  if (o.toMs !== undefined && o.toMs < t0) throw windowBeforeFeed(o.toMs, t0);
  if (o.choose !== undefined && (o.markets === undefined || o.markets.length === 0)) {
    const books = await firstBooks(
      o.files,
      markets.flatMap((m) => m.tokens.map((t) => t.tokenId)),
    );
    const n = markets.length;
    markets = await o.choose(markets, n, t0, (t) => books.get(t));
    if (markets.length === 0)
      throw new ConfigError(
        'backtest.markets',
        `the strategy's selectMarkets chose none of the feed's ${n} active markets`,
      );
  }
  const feeProtocol = feedFeeProtocol(o.files, headers, o.feeProtocol);
  const clock = new VirtualClock(t0);
  const one: LatencySpec = { kind: 'constant', ms: o.latencyMs };
  // the book the bot sees shows our resting orders (as the live channel does): the reward estimate
  // takes them out of the competition
  const showOwnOrders = true;
  let venue: SimVenue;
  try {
    venue = createSimVenue({
      showOwnOrders,
      clock,
      markets: all,
      account: { collateral: o.collateral as Micro },
      queue: o.queue,
      latency: o.latency ?? { entry: one, cancel: one, response: one },
      seed: o.seed >>> 0,
      feeProtocol,
    });
  } catch (e) {
    throw new ConfigError('backtest.latency', (e as Error).message, { cause: e });
  }
  const files = [...o.files];
  // the feeds' caches: whole ones are read; missing ones are written by this run as it reads the
  // text (kept only when the run reads the feed to its end)
  let plan: FeedCachePlan | undefined;
  if (o.feedCache !== undefined) {
    try {
      plan = await planFeedCaches(files, o.feedCache);
    } catch (e) {
      await venue.close();
      throw new ConfigError(
        'backtest.feedCache',
        `cannot use the feed cache folder ${o.feedCache}: ${(e as Error).message}`,
        { cause: e },
      );
    }
  }
  // the feeds' gaps (a disconnect before the window's start counts from it)
  const gapWatch = new GapWatch();
  // the replay, opened now: a window's start (`fromMs`) is reached before the bot exists
  type Item = Parameters<SimVenue['ingest']>[0];
  const stats = newReplayStats();
  const ro = { stats, ...(o.batchSize !== undefined ? { batchSize: o.batchSize } : {}) };
  const it =
    plan !== undefined
      ? replayCachedBatches(files, plan.ready, { ...ro, build: plan.missing })
      : replayFeedBatches(files, ro);
  // the records of the batch that crossed the window's start, from the first one inside it
  let carry: readonly Item[] = [];
  if (o.fromMs !== undefined) {
    const from = o.fromMs;
    try {
      carry = await primeBooks(it, from, (item) => {
        clock.advanceTo(item.t > clock.now() ? item.t : clock.now());
        gapWatch.see(item);
        venue.ingest(item);
      });
    } catch (e) {
      await it.return?.(undefined);
      await venue.close();
      throw e;
    }
    if (carry.length === 0) {
      await it.return?.(undefined);
      await venue.close();
      throw windowAfterFeed(from, clock.now());
    }
    clock.advanceTo(Math.max(clock.now(), from));
    gapWatch.startMs = from;
  }
  return {
    mode: 'feed',
    clock,
    venue,
    markets,
    endMs: undefined,
    gaps: () => gapWatch.gaps,
    bookIncludesOwn: showOwnOrders,
    source: { feeds: files },
    feeProtocol,
    async run(step, count) {
      let n = 0;
      // frames and malformed lines are counted as the items are taken, not as the replay reads
      // ahead: a run that stops early (kill switch, abort, the window's end) reports what it went
      // past, the same from the text and from the feed cache, whose read-ahead differs
      let frames = 0;
      let bad = 0;
      let ended = false;
      const held: Item[] = [];
      const to = o.toMs ?? Number.POSITIVE_INFINITY;
      try {
        outer: for (;;) {
          let batch = carry;
          if (batch.length > 0) carry = [];
          else {
            const r = await it.next();
            if (r.done === true) {
              ended = true;
              break;
            }
            batch = r.value;
          }
          for (const item of batch) {
            // the window's end: the run lasts to it, and no record after it is taken
            if (item.t > to) {
              gapWatch.end(to);
              clock.advanceTo(to > clock.now() ? to : clock.now());
              const s = step();
              if (s !== false && s !== true) await s;
              break outer;
            }
            n++;
            gapWatch.see(item);
            if (item.kind === 'frame' || item.kind === 'events') frames++;
            bad += item.bad ?? 0;
            // the recorder's orderly stop: held until something follows it (then it was a gap,
            // ingested where it stood, before the clock moves on); at the end of the feed it is
            // no disconnect at all, and nothing is pulled for it (trial 11 F6)
            if (item.kind === 'status' && item.status === 'disconnect' && item.reason === 'stop') {
              clock.advanceTo(item.t > clock.now() ? item.t : clock.now());
              const s = step();
              if (s !== false && (s === true || (await s))) break outer;
              held.push(item);
              continue;
            }
            if (held.length > 0) {
              for (const h of held.splice(0)) venue.ingest(h);
              const s = step();
              if (s !== false && (s === true || (await s))) break outer;
            }
            clock.advanceTo(item.t > clock.now() ? item.t : clock.now());
            let s = step();
            if (s !== false && (s === true || (await s))) break outer;
            venue.ingest(item);
            s = step();
            if (s !== false && (s === true || (await s))) break outer;
          }
          count(n, frames, bad);
        }
      } finally {
        await it.return?.(undefined);
        // read to the end: the malformed lines after the last item too
        count(n, frames, ended ? stats.malformed : bad);
      }
    },
    halt() {},
    async close() {
      await it.return?.(undefined);
      await venue.close();
    },
  };
}

/**
 * Ingests the replay's records before `from` (the books and markets as they stood then; no bot
 * sees them) and returns the rest of the batch that reached it, from its first record at or after
 * `from`; empty when the replay ended before.
 */
/** The refusal of a window that ends (`toMs`) before the feed's first record (`t0`). */
function windowBeforeFeed(toMs: number, t0: number): ConfigError {
  return new ConfigError(
    'backtest.to',
    `${new Date(toMs).toISOString()} is before the feed's first record (${new Date(t0).toISOString()}): nothing to trade (times are unix ms, or ISO 8601 with their zone)`,
  );
}

/** The refusal of a window that starts (`from`) after the feed's last record (`last`). */
function windowAfterFeed(from: number, last: number): ConfigError {
  return new ConfigError(
    'backtest.from',
    `${new Date(from).toISOString()} is after the feed's last record (${new Date(last).toISOString()})`,
  );
}

/**
 * The window checks a feed backtest makes (createFeedDriver, as it reaches the window), made alone:
 * `toMs` before the feeds' first record, `fromMs` after their last. `mmkit sweep` makes them once
 * before its points (trial 12 F6: every point ran and failed, each with the message cut in the
 * table). Reads the feeds up to `fromMs` (their caches when `feedCache` holds them whole); a file
 * that is no feed is left to the run to refuse.
 * @throws ConfigError (backtest.to, backtest.from)
 */
export async function checkFeedWindow(o: {
  readonly files: readonly string[];
  readonly fromMs?: number | undefined;
  readonly toMs?: number | undefined;
  readonly feedCache?: string | undefined;
}): Promise<void> {
  if (o.fromMs === undefined && o.toMs === undefined) return;
  let t0 = Infinity;
  for (const f of o.files) {
    const h = await firstHeader(f).catch(() => undefined);
    if (h === undefined) return; // the run says what is wrong with it
    t0 = Math.min(t0, h.t);
  }
  if (o.toMs !== undefined && o.toMs < t0) throw windowBeforeFeed(o.toMs, t0);
  if (o.fromMs === undefined) return;
  const plan =
    o.feedCache === undefined ? undefined : await planFeedCaches(o.files, o.feedCache).catch(() => undefined);
  const it = plan !== undefined ? replayCachedBatches(o.files, plan.ready) : replayFeedBatches(o.files);
  let last = t0;
  try {
    for await (const batch of it) {
      if (batch.length === 0) continue;
      last = Math.max(last, batch[batch.length - 1]!.t);
      if (last >= o.fromMs) return;
    }
  } finally {
    await it.return?.(undefined);
  }
  throw windowAfterFeed(o.fromMs, last);
}

async function primeBooks<T extends { readonly t: number }>(
  it: AsyncIterator<readonly T[]>,
  from: number,
  ingest: (item: T) => void,
): Promise<readonly T[]> {
  for (;;) {
    const r = await it.next();
    if (r.done === true) return [];
    const batch = r.value;
    for (let i = 0; i < batch.length; i++) {
      if (batch[i]!.t >= from) return batch.slice(i);
      ingest(batch[i]!);
    }
  }
}
