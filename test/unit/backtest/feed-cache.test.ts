/**
 * The decoded-event feed cache (src/backtest/feed-cache.ts): a replay from the cache hands the
 * simulated venue exactly what a replay of the text does (events, order, times, counters), for
 * every kind of record a feed holds, with channel filters and merged files; the cache is keyed by
 * the feed's content and rebuilt when missing, damaged or of another version.
 */
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import {
  buildFeedCache,
  decoderFingerprint,
  ensureFeedCaches,
  feedCacheFile,
  fileSha256,
  FEED_CACHE_VERSION,
  planFeedCaches,
} from '../../../src/backtest/feed-cache.ts';
import {
  frameLine,
  headerLine,
  marketLine,
  statusLine,
  stringFrameLine,
  type FeedChannel,
  type FeedHeader,
} from '../../../src/venues/sim/feed.ts';
import type { MarketInfo } from '../../../src/core/market-info.ts';
import { CID, marketInfo, NO, T0, YES } from '../venues/sim/sim-fixtures.ts';
import { writeWorldFeed } from '../../support/world-feed.ts';
import { through } from './feed-cache-support.ts';

const dir = mkdtempSync(join(tmpdir(), 'mmkit-feed-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const header: FeedHeader = { h: 1, t: T0, part: 0, source: 'test', recorder: 'test', markets: [marketInfo()] };
const lv = (p: string, s: string) => ({ price: p, size: s });
const book = (asset: string, t: number, bids: object[], asks: object[], extra: object = {}) => ({
  event_type: 'book',
  market: CID,
  asset_id: asset,
  timestamp: String(t),
  hash: `h${t}${asset.slice(0, 4)}`,
  bids,
  asks,
  ...extra,
});

/** A hand-built feed holding every kind of record: each message kind, declined frames, statuses, other channels, bad lines. */
function handFeed(): string {
  const L: string[] = [headerLine(header)];
  let t = T0;
  const f = (raw: unknown, ch: FeedChannel = 'm') => L.push(frameLine((t += 7), ch, JSON.stringify(raw)));
  f([
    book(YES, t, [lv('0.48', '100'), lv('0.49', '50')], [lv('0.52', '80'), lv('0.51', '10')]),
    book(NO, t, [lv('0.48', '10')], [lv('0.52', '5')], {
      tick_size: '0.01',
      min_order_size: '5',
      last_trade_price: '0.5',
    }),
  ]);
  f({
    event_type: 'price_change',
    market: CID,
    timestamp: String(t),
    price_changes: [
      { asset_id: YES, price: '0.49', size: '0', side: 'BUY', hash: 'a1', best_bid: '0.48', best_ask: '0.51' },
      { asset_id: NO, price: '0.51', size: '12.5', side: 'SELL', hash: 'a2', best_bid: '0.48', best_ask: '0.51' },
    ],
  });
  f({
    event_type: 'last_trade_price',
    market: CID,
    asset_id: YES,
    price: '0.51',
    size: '3.25',
    side: 'BUY',
    fee_rate_bps: '0',
    timestamp: String(t),
  });
  f({
    event_type: 'best_bid_ask',
    market: CID,
    asset_id: YES,
    best_bid: '0.48',
    best_ask: '0.51',
    spread: '0.03',
    timestamp: String(t),
  });
  f({ event_type: 'best_bid_ask', market: CID, asset_id: NO, best_bid: '0', best_ask: '0.51', timestamp: String(t) });
  // a non-ASCII hash (utf8 strings in the cache), a book with unordered levels (sorted by the decoder)
  f(book(YES, t, [lv('0.45', '1'), lv('0.47', '2'), lv('0.46', '3')], [lv('0.55', '4')], { hash: 'hé→✓' }));
  // frames the scanner declines (whitespace, escapes, unknown kinds, tick change): the reference path decides
  L.push(
    frameLine(
      (t += 7),
      'm',
      JSON.stringify(book(NO, t, [lv('0.40', '9')], [lv('0.60', '9')]), null, 1).replace(/\n/g, ' '),
    ),
  );
  L.push(
    stringFrameLine(
      (t += 7),
      'm',
      '{"event_type":"tick_size_change","market":"' +
        CID +
        '","asset_id":"' +
        YES +
        '","old_tick_size":"0.01","new_tick_size":"0.001","timestamp":"' +
        t +
        '"}',
    ),
  );
  f({ event_type: 'mystery', market: CID });
  f({ event_type: 'book', market: CID }); // refused by the decoder: a stream_error
  L.push(stringFrameLine((t += 7), 'm', 'not json at all'));
  // other channel, statuses, a malformed line, a blank line
  f({ topic: 'crypto_prices', type: 'update', payload: { symbol: 'btcusdt', value: 50000, timestamp: t } }, 'r');
  L.push(statusLine((t += 7), 'm', 'disconnect', 'socket closed ✗'));
  L.push('{"t": broken');
  L.push('');
  L.push(statusLine((t += 7), 'm', 'connect'));
  L.push(statusLine((t += 7), 'm', 'world', 'new world b (was a)'));
  // market lines: a reward config given, then the market closed (market_updated events of the venue)
  const rewards = { maxSpread: 300, minSize: 20_000_000, dailyRate: 144_000_000 };
  L.push(marketLine((t += 7), { ...marketInfo(), rewards } as MarketInfo));
  L.push(marketLine((t += 7), { ...marketInfo(), rewards, active: false } as MarketInfo));
  f([book(YES, t, [lv('0.48', '100')], [lv('0.52', '80')]), book(NO, t, [lv('0.48', '100')], [lv('0.52', '80')])]);
  f({
    event_type: 'price_change',
    market: CID,
    timestamp: String(t),
    price_changes: [
      { asset_id: YES, price: '0.5', size: '7', side: 'BUY', hash: 'b1', best_bid: '0.5', best_ask: '0.52' },
    ],
  });
  return L.join('\n') + '\n';
}

describe('feed cache', () => {
  const hand = join(dir, 'hand.ndjson.gz');
  writeFileSync(hand, gzipSync(handFeed()));
  const cdir = join(dir, 'cache');

  it('replays a hand-built feed (every record kind) exactly as the text replay does', async () => {
    const caches = await ensureFeedCaches([hand], cdir);
    const c = caches.get(hand)!;
    expect(c).toBe(feedCacheFile(cdir, await fileSha256(hand)));
    const a = await through([hand]);
    const b = await through([hand], { caches });
    expect(a.events.length).toBeGreaterThan(15);
    expect((a.replay as { malformed: number }).malformed).toBe(1);
    expect((a.venue as { decodeErrors: number }).decodeErrors).toBeGreaterThan(0);
    expect(b).toEqual(a);
    // the market lines: two market_updated events (rewards, then status), from the cache as from the text
    expect(a.events.filter((e) => e.includes('"market_updated"')).map((e) => JSON.parse(e).changed)).toEqual([
      ['rewards'],
      ['status'],
    ]);
    // with a channel filter too (stats count filtered lines as the text replay does)
    expect(await through([hand], { caches, channels: ['r'] })).toEqual(await through([hand], { channels: ['r'] }));
    expect(await through([hand], { caches, channels: ['m'] })).toEqual(await through([hand], { channels: ['m'] }));
  });

  it('replays a recorded world feed, merged with a second file read from text, exactly as the text replay does', async () => {
    const w = join(dir, 'world.ndjson.gz');
    await writeWorldFeed(w, { seed: 3, markets: 2, messages: 3000, rate: 5 });
    const caches = await ensureFeedCaches([w], cdir);
    const world = await through([w]);
    expect(world.events.length).toBeGreaterThan(3000);
    expect(await through([w], { caches })).toEqual(world);
    // one file cached, one not, merged by receive time
    expect(await through([w, hand], { caches })).toEqual(await through([w, hand]));
  });

  it('is keyed by content: a changed feed gets a new cache; an existing whole cache is reused, not rebuilt', async () => {
    const f = join(dir, 'changing.ndjson.gz');
    writeFileSync(f, gzipSync(handFeed()));
    const c1 = (await ensureFeedCaches([f], cdir)).get(f)!;
    const s1 = statSync(c1);
    expect((await ensureFeedCaches([f], cdir)).get(f)).toBe(c1);
    // the same file (a rebuild renames a new one into place), marked as used now (its mtime: the
    // pruning's least-recently-used order)
    expect(statSync(c1).ino).toBe(s1.ino);
    expect(statSync(c1).mtimeMs).toBeGreaterThanOrEqual(s1.mtimeMs);
    writeFileSync(
      f,
      gzipSync(
        handFeed() +
          frameLine(T0 + 10_000, 'm', JSON.stringify(book(YES, T0 + 10_000, [lv('0.3', '1')], [lv('0.7', '1')]))) +
          '\n',
      ),
    );
    const c2 = (await ensureFeedCaches([f], cdir)).get(f)!;
    expect(c2).not.toBe(c1);
    expect(await through([f], { caches: new Map([[f, c2]]) })).toEqual(await through([f]));
    expect(c2.endsWith(`.v${FEED_CACHE_VERSION}-${decoderFingerprint()}.mmfc`)).toBe(true);
    expect(decoderFingerprint()).toMatch(/^[0-9a-f]{12}$/); // the decoder's sources were read
  });

  it('keeps no cache of a gzip feed whose stream ends early (a recording still being written); the replay still reads it', async () => {
    // a live recording: the recorder has flushed what it has, but the gzip trailer is not written yet
    const whole = gzipSync(handFeed());
    const live = join(dir, 'live.ndjson.gz');
    writeFileSync(live, whole.subarray(0, whole.length - 8)); // all the deflate data, no trailer
    const sub = mkdtempSync(join(dir, 'live-cache-'));
    const text = await through([live]);
    expect((text.replay as { truncatedFiles: number }).truncatedFiles).toBe(1);
    expect(text.events.length).toBeGreaterThan(15);
    // the first run, which builds the cache as it reads the text (tee): same result, nothing kept
    const plan = await planFeedCaches([live], sub);
    expect(plan.missing.has(live)).toBe(true);
    expect(await through([live], { caches: plan.ready, build: plan.missing })).toEqual(text);
    expect(readdirSync(sub)).toEqual([]);
    // a cache built on its own (a sweep's): none either, and the feed is read from its text
    expect(await buildFeedCache(live, join(sub, 'x.mmfc'))).toBe('ends early');
    expect((await ensureFeedCaches([live], sub)).has(live)).toBe(false);
    expect(readdirSync(sub)).toEqual([]);
    // the recording ends: its whole gzip is cached as usual
    writeFileSync(live, whole);
    expect((await ensureFeedCaches([live], sub)).has(live)).toBe(true);
  });

  it('rebuilds a damaged cache (cut short, or not a cache) instead of reading it; a replay of a damaged cache fails loudly', async () => {
    const f = join(dir, 'damaged.ndjson.gz');
    writeFileSync(f, gzipSync(handFeed()));
    const c = (await ensureFeedCaches([f], cdir)).get(f)!;
    const whole = readFileSync(c);
    truncateSync(c, whole.length - 10);
    // reading it as it is: an error, never a silently shorter replay
    await expect(through([f], { caches: new Map([[f, c]]) })).rejects.toThrow(/damaged|ends early/);
    expect((await ensureFeedCaches([f], cdir)).get(f)).toBe(c);
    expect(readFileSync(c).equals(whole)).toBe(true);
    writeFileSync(c, 'garbage');
    await expect(through([f], { caches: new Map([[f, c]]) })).rejects.toThrow(/not a feed cache/);
    await ensureFeedCaches([f], cdir);
    expect(readFileSync(c).equals(whole)).toBe(true);
  });

  it('writes through a temporary file: a failed build leaves no cache and no temporary file behind', async () => {
    const out = join(dir, 'nocache', 'x.mmfc');
    await expect(buildFeedCache(join(dir, 'missing.ndjson.gz'), out)).rejects.toThrow();
    const left = readdirSync(cdir).filter((n) => n.endsWith('.tmp'));
    expect(left).toEqual([]);
  });

  it('a first replay writes the cache as it reads the text: the same replay, and the same cache file as a pass of its own', async () => {
    const w = join(dir, 'tee-world.ndjson.gz');
    await writeWorldFeed(w, { seed: 5, markets: 2, messages: 1500, rate: 5 });
    for (const f of [w, hand]) {
      const sha = await fileSha256(f);
      const ref = join(dir, `ref-${sha.toString('hex').slice(0, 8)}.mmfc`);
      await buildFeedCache(f, { out: ref, sha });
      for (const channels of [undefined, ['r'] as FeedChannel[]]) {
        const out = join(dir, `tee-${sha.toString('hex').slice(0, 8)}.mmfc`);
        rmSync(out, { force: true });
        const teed = await through([f], {
          caches: new Map(),
          build: new Map([[f, { out, sha }]]),
          ...(channels ? { channels } : {}),
        });
        expect(teed).toEqual(await through([f], channels ? { channels } : {}));
        // the whole cache, whatever the channels handed out
        expect(readFileSync(out).equals(readFileSync(ref))).toBe(true);
      }
    }
  });

  it('a replay stopped before the end of the file leaves no cache and no temporary file', async () => {
    const f = join(dir, 'stopped.ndjson.gz');
    await writeWorldFeed(f, { seed: 6, markets: 1, messages: 1500, rate: 5 });
    const sha = await fileSha256(f);
    const sub = join(dir, 'stopped-cache');
    mkdirSync(sub, { recursive: true });
    const out = join(sub, 'x.mmfc');
    const r = await through([f], { caches: new Map(), build: new Map([[f, { out, sha }]]), stopAfter: 100 });
    expect(r.items).toBe(100);
    expect(readdirSync(sub)).toEqual([]);
  });

  it('keeps no cache of a feed that changed after it was hashed (a recording still growing)', async () => {
    const f = join(dir, 'growing.ndjson.gz');
    writeFileSync(f, gzipSync(handFeed()));
    const sub = mkdtempSync(join(dir, 'growing-'));
    const plan = await planFeedCaches([f], sub);
    const target = plan.missing.get(f)!;
    expect(target).toBeDefined();
    // the feed grows between the hash and the replay's end
    writeFileSync(
      f,
      gzipSync(
        handFeed() +
          frameLine(T0 + 99_999, 'm', JSON.stringify(book(YES, T0 + 99_999, [lv('0.3', '1')], [lv('0.7', '1')]))) +
          '\n',
      ),
    );
    const r = await through([f], { caches: new Map(), build: new Map([[f, target]]) });
    expect(r).toEqual(await through([f]));
    expect(readdirSync(sub)).toEqual([]);
    await expect(ensureFeedCaches([f], sub)).resolves.toBeDefined(); // hashed afresh: now kept
    expect(readdirSync(sub).filter((n) => n.endsWith('.mmfc'))).toHaveLength(1);
  });
});
