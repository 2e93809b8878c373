/**
 * Adversarial feeds for the decoded-event cache (src/backtest/feed-cache.ts), from a review: the
 * replay from the cache, and the first replay that writes the cache as it reads the text, must equal
 * the text replay for every feed the text replay accepts (long records over the read chunk, empty
 * things, non-ASCII and lone surrogates, mid-file headers, damaged gzip, plain NDJSON with CRLF,
 * merges, channel filters), and a replay stopped early must count what it went past the same way.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureFeedCaches, planFeedCaches } from '../../../src/backtest/feed-cache.ts';
import {
  frameLine,
  headerLine,
  statusLine,
  stringFrameLine,
  type FeedChannel,
  type FeedHeader,
} from '../../../src/venues/sim/feed.ts';
import { replayCachedBatches, replayFeedBatches } from '../../../src/backtest/replay.ts';
import { CID, marketInfo, NO, T0, YES } from '../venues/sim/sim-fixtures.ts';
import { through } from './feed-cache-support.ts';

const dir = mkdtempSync(join(tmpdir(), 'mmkit-review-fc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const cdir = join(dir, 'cache');

const header: FeedHeader = { h: 1, t: T0, part: 0, source: 'test', recorder: 'test', markets: [marketInfo()] };
const lv = (p: string, s: string) => ({ price: p, size: s });
const book = (asset: string, t: number, bids: object[], asks: object[], extra: object = {}) => ({
  event_type: 'book',
  market: CID,
  asset_id: asset,
  timestamp: String(t),
  hash: `h${t}`,
  bids,
  asks,
  ...extra,
});

async function same(files: string[], channels?: FeedChannel[], batchSize = 3): Promise<void> {
  const caches = await ensureFeedCaches(files, cdir);
  const a = await through(files, { batchSize, ...(channels ? { channels } : {}) });
  const b = await through(files, { caches, batchSize, ...(channels ? { channels } : {}) });
  // and the first run, which builds the cache as it reads the text (tee)
  const tdir = mkdtempSync(join(dir, 'tee-'));
  const plan = await planFeedCaches(files, tdir);
  const c = await through(files, {
    caches: plan.ready,
    build: plan.missing,
    batchSize,
    ...(channels ? { channels } : {}),
  });
  expect(c.replay).toEqual(a.replay);
  expect(c.venue).toEqual(a.venue);
  expect(c.events).toEqual(a.events);
  for (const [f, m] of plan.missing) {
    // a gzip stream that ends early (cut short) gets no cache, from either builder
    if (!caches.has(f)) expect(existsSync(m.out)).toBe(false);
    else expect(readFileSync(m.out).equals(readFileSync(caches.get(f)!))).toBe(true);
  }
  expect(b.replay).toEqual(a.replay);
  expect(b.venue).toEqual(a.venue);
  expect(b.items).toBe(a.items);
  expect(b.events.length).toBe(a.events.length);
  for (let i = 0; i < a.events.length; i++) if (b.events[i] !== a.events[i]) expect(b.events[i]).toBe(a.events[i]);
}

function oddLines(): string[] {
  const L: string[] = [headerLine(header)];
  let t = T0;
  const f = (raw: unknown, ch: FeedChannel = 'm') => L.push(frameLine((t += 1.5), ch, JSON.stringify(raw)));
  // a book frame far over 1 MiB (many levels): a record longer than the read chunk
  const many = Array.from({ length: 60_000 }, (_, i) => lv((0.0001 * (i % 4000) + 0.0001).toFixed(4), String(i + 0.5)));
  f(book(YES, t, many, many.slice(0, 1000)));
  f(book(NO, t, [], [])); // a book with no levels
  f({ event_type: 'price_change', market: CID, timestamp: String(t), price_changes: [] });
  f({ event_type: 'best_bid_ask', market: CID, asset_id: YES, best_bid: '0.4', best_ask: '0.6', timestamp: String(t) }); // no spread
  f({
    event_type: 'best_bid_ask',
    market: CID,
    asset_id: NO,
    best_bid: '0',
    best_ask: '0',
    spread: '0',
    timestamp: String(t),
  });
  // many distinct ids: the string table across chunks
  for (let i = 0; i < 50; i++)
    for (let k = 0; k < 200; k++)
      f({
        event_type: 'last_trade_price',
        market: `m${i}`,
        asset_id: `tok${i}`,
        price: '0.5',
        size: String(k + 0.000001),
        side: k % 2 ? 'BUY' : 'SELL',
        timestamp: String(99_999_999_999_999 + k),
      });
  // a huge declined frame and a huge other-channel frame
  L.push(stringFrameLine((t += 1), 'm', JSON.stringify(book(YES, t, many.slice(0, 50_000), [])).replace(/,/g, ', ')));
  f({ topic: 'x', payload: 'é'.repeat(700_000) }, 'r');
  // non-ASCII everywhere
  f(book(YES, t, [lv('0.3', '1')], [lv('0.7', '1')], { hash: 'ünïcødé→✓😀' }));
  f({
    event_type: 'price_change',
    market: CID,
    timestamp: String(t),
    price_changes: [
      { asset_id: YES, price: '0.3', size: '0', side: 'BUY', hash: '😀', best_bid: '0', best_ask: '0.7' },
    ],
  });
  L.push(statusLine((t += 1), 'r', 'disconnect', 'ρ'));
  // a header in the middle, with another market
  L.push(
    headerLine({
      ...header,
      t: (t += 1),
      part: 1,
      markets: [
        marketInfo(),
        marketInfo({
          market: ('0x' + 'd2'.repeat(32)) as typeof CID,
          tokens: [
            { tokenId: 'tok1' as typeof YES, outcome: 'Yes' },
            { tokenId: 'tok2' as typeof YES, outcome: 'No' },
          ],
        }),
      ],
    }),
  );
  f({ event_type: 'last_trade_price', market: 'x', asset_id: 'tok1', price: '0.5', size: '1', side: 'BUY' });
  L.push('garbage line ✗', '   ', '{"t":1}');
  return L;
}

describe('feed cache on odd feeds', () => {
  it('an events item of the tee (first, building run) gives fresh objects on each events() call, as DecodedFrameItem promises', async () => {
    const L = [
      headerLine(header),
      frameLine(T0 + 1, 'm', JSON.stringify(book(YES, T0 + 1, [lv('0.4', '1')], [lv('0.6', '1')]))),
    ];
    const p = join(dir, 'fresh.ndjson.gz');
    writeFileSync(p, gzipSync(L.join('\n') + '\n'));
    const plan = await planFeedCaches([p], mkdtempSync(join(dir, 'fresh-')));
    const ev: unknown[] = [];
    for await (const b of replayCachedBatches([p], plan.ready, { build: plan.missing }))
      for (const x of b) if (x.kind === 'events') ev.push(x);
    expect(ev.length).toBe(1);
    const item = ev[0] as { events(): { bids: unknown[] }[] };
    const first = item.events();
    first[0]!.bids = []; // what the sim venue does (withOwn, #onLevel): in place
    expect(item.events()[0]!.bids).toEqual([[4000, 1_000_000]]);
  });

  const lines = oddLines();
  const gz = join(dir, 'odd.ndjson.gz');
  writeFileSync(gz, gzipSync(lines.join('\n') + '\n'));
  const plain = join(dir, 'odd.ndjson');
  writeFileSync(plain, lines.join('\r\n')); // CRLF, no final newline

  it('gzip and plain, long records, empty things, non-ASCII, mid-file header', async () => {
    await same([gz]);
    await same([plain], undefined, 4096);
  }, 120_000);

  it('merged, and with channel filters', async () => {
    await same([gz, plain], undefined, 7);
    await same([plain, gz], ['m']);
    await same([gz, plain], ['r']);
  }, 120_000);

  it('damaged gzip: cut short, corrupt in the middle', async () => {
    const whole = gzipSync(lines.join('\n') + '\n', { level: 1 });
    const cut = join(dir, 'cut.ndjson.gz');
    writeFileSync(cut, whole.subarray(0, Math.floor(whole.length * 0.7)));
    await same([cut]);
    expect((await ensureFeedCaches([cut], cdir)).has(cut)).toBe(false); // ends early: read from its text
    const bad = Buffer.from(whole);
    for (let i = Math.floor(bad.length * 0.6); i < Math.floor(bad.length * 0.6) + 40; i++) bad[i] = bad[i]! ^ 0x5a;
    const corrupt = join(dir, 'corrupt.ndjson.gz');
    writeFileSync(corrupt, bad);
    await same([corrupt]);
    expect((await ensureFeedCaches([corrupt], cdir)).has(corrupt)).toBe(true); // damaged for good: cached
    await same([corrupt, cut, gz]);
  }, 120_000);

  it('a lone surrogate in an `s`-form frame (valid JSON escape in the line) survives the cache', async () => {
    const L = [headerLine(header)];
    // the line's JSON string holds \ud800: the frame text holds a lone surrogate, no backslash
    const raw = JSON.stringify(book(YES, T0 + 1, [lv('0.4', '1')], [lv('0.6', '1')], { hash: 'HASH' })).replace(
      'HASH',
      'x\ud800y',
    );
    expect(raw.includes('\\')).toBe(false);
    L.push(stringFrameLine(T0 + 1, 'm', raw));
    const p = join(dir, 'surrogate.ndjson.gz');
    writeFileSync(p, gzipSync(L.join('\n') + '\n'));
    await same([p]);
  });

  it('a replay stopped early counts, on the items it took, the same frames and malformed lines from the text, the cache and the tee', async () => {
    const L = [headerLine(header)];
    for (let i = 1; i <= 5000; i++) {
      L.push(
        frameLine(
          T0 + i,
          'm',
          JSON.stringify(book(YES, T0 + i, [lv('0.4', String(i))], [lv('0.6', '1')], { pad: 'p'.repeat(100) })),
        ),
      );
      if (i % 700 === 0) L.push('not a record', '{"t":');
      if (i % 1100 === 0) L.push(frameLine(T0 + i, 'r', '{"x":1}'));
    }
    L.push('not a record');
    expect(L.join('\n').length).toBeGreaterThan(400_000);
    const p = join(dir, 'early.ndjson.gz');
    writeFileSync(p, gzipSync(L.join('\n') + '\n'));
    const caches = await ensureFeedCaches([p], cdir);
    /** Items taken, frames among them, and malformed lines counted on them, up to `stop` items. */
    const taken = async (it: AsyncIterableIterator<Array<{ kind: string; bad?: number }>>, stop: number) => {
      let n = 0;
      let frames = 0;
      let bad = 0;
      outer: for await (const b of it)
        for (const x of b) {
          if (n >= stop) break outer;
          n++;
          if (x.kind === 'frame' || x.kind === 'events') frames++;
          bad += x.bad ?? 0;
        }
      return { n, frames, bad };
    };
    for (const stop of [5, 699, 701, 702, 2500, 4999, 5004, Infinity]) {
      for (const channels of [undefined, ['m'] as FeedChannel[], ['r'] as FeedChannel[]]) {
        const o = { batchSize: 3, ...(channels ? { channels } : {}) };
        const a = await taken(replayFeedBatches([p], o), stop);
        const b = await taken(replayCachedBatches([p], caches, o), stop);
        const plan = await planFeedCaches([p], mkdtempSync(join(dir, 'early-tee-')));
        const c = await taken(replayCachedBatches([p], plan.ready, { ...o, build: plan.missing }), stop);
        expect(b).toEqual(a);
        expect(c).toEqual(a);
        // all but those after the last item handed out (the trailing line; with 'r' only, also the two after frame 4900)
        if (stop === Infinity) expect(a.bad).toBe(channels?.[0] === 'r' ? 12 : 14);
      }
    }
  });

  it('a header holding a number JSON cannot write back (1e999, -0) comes out of the cache as the text gives it', async () => {
    const line = headerLine(header).replace('"part":0', '"part":-0,"x":1e999');
    const p = join(dir, 'hdr.ndjson.gz');
    writeFileSync(p, gzipSync(line + '\n'));
    const caches = await ensureFeedCaches([p], cdir);
    const a: unknown[] = [];
    const b: unknown[] = [];
    for await (const x of replayFeedBatches([p])) a.push(...x);
    for await (const x of replayCachedBatches([p], caches)) b.push(...x);
    expect((a[0] as { header: { x: number } }).header.x).toBe(Infinity);
    expect(b).toEqual(a);
  });
});
