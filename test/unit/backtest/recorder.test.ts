/**
 * The recorder's file handling and frame capture, on a virtual clock with a fake socket (the real
 * exchange over real WebSockets is test/integration/recorder.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, gunzipSync } from 'node:zlib';
import { VirtualClock } from '../../../src/core/clock.ts';
import { FeedWriter, partPath, recordingParts, startRecorder } from '../../../src/backtest/recorder.ts';
import { newReplayStats, replayFeeds } from '../../../src/backtest/replay.ts';
import type { FeedItem } from '../../../src/venues/sim/feed.ts';
import type { WsFactory, WsHandlers } from '../../../src/api/streams/socket.ts';
import type { MarketInfo } from '../../../src/core/venue.ts';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mmkit-rec-unit-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let seq = 0;
const file = () => join(dir, `${++seq}.ndjson.gz`);
const tick = () => new Promise((r) => setTimeout(r, 30)); // let zlib's thread pool work land on disk

/** What a file decodes to right now (even when its gzip stream is unfinished). */
const decodable = (p: string) => gunzipSync(readFileSync(p), { finishFlush: constants.Z_SYNC_FLUSH }).toString('utf8');

const market = {
  market: '0xm1',
  question: 'q',
  tokens: [
    { tokenId: 'Y1', outcome: 'Yes' },
    { tokenId: 'N1', outcome: 'No' },
  ],
  tick: '0.01',
  minOrderSize: 5_000_000,
  negRisk: false,
  feeRateBps: 0,
  active: true,
  endDate: '',
} as unknown as MarketInfo;

describe('partPath', () => {
  it('names parts <base>.<n>.ndjson.gz; part 0 is the path given', () => {
    expect(partPath('/x/feed.ndjson.gz', 0)).toBe('/x/feed.ndjson.gz');
    expect(partPath('/x/feed.ndjson.gz', 1)).toBe('/x/feed.1.ndjson.gz');
    expect(partPath('/x/feed.ndjson.gz', 12)).toBe('/x/feed.12.ndjson.gz');
    expect(partPath('/x/feed.gz', 2)).toBe('/x/feed.2.ndjson.gz');
    expect(partPath('/x/feed', 3)).toBe('/x/feed.3.ndjson.gz');
  });
});

describe('FeedWriter', () => {
  it('makes lines decodable at every flush interval, before the stream is finished', async () => {
    const clock = new VirtualClock(1_000);
    const out = file();
    const w = new FeedWriter({
      out,
      header: { source: 's', recorder: 'r', markets: [] },
      now: () => clock.now(),
      clock,
      flushIntervalMs: 250,
    });
    w.open();
    await tick();
    expect(decodable(out).split('\n')[0]).toContain('"h":1');
    w.write('{"t":1,"c":"m","f":{"a":1}}');
    await tick();
    expect(decodable(out)).not.toContain('"a":1'); // still in memory
    clock.advance(250);
    await tick();
    expect(decodable(out)).toContain('{"t":1,"c":"m","f":{"a":1}}\n');
    await w.close();
    expect(gunzipSync(readFileSync(out)).toString('utf8').split('\n')).toHaveLength(3); // finished stream
  });

  it("keeps each market's reward config in every part's header (replayed as written)", async () => {
    const clock = new VirtualClock(0);
    const out = file();
    const rewards = { maxSpread: 450, minSize: 50_000_000, dailyRate: 25_000_000 };
    const plain = {
      ...market,
      market: '0xm2',
      tokens: [
        { tokenId: 'Y2', outcome: 'Yes' },
        { tokenId: 'N2', outcome: 'No' },
      ],
    };
    const w = new FeedWriter({
      out,
      header: {
        source: 's',
        recorder: 'r',
        markets: [{ ...market, rewards } as MarketInfo, plain as unknown as MarketInfo],
      },
      now: () => clock.now(),
      clock,
      rotateMs: 1000,
    });
    w.open();
    for (let i = 0; i < 6; i++) {
      w.write(`{"t":${clock.now()},"c":"m","f":{"i":${i}}}`);
      clock.advance(250);
      await tick();
    }
    await w.close();
    const headers: FeedItem[] = [];
    for await (const it of replayFeeds(recordingParts(out))) if (it.kind === 'header') headers.push(it);
    expect(headers.length).toBeGreaterThan(1);
    for (const h of headers) {
      if (h.kind !== 'header') continue;
      expect(h.header.markets[0]?.rewards).toEqual(rewards);
      expect(h.header.markets[1]?.rewards).toBeUndefined();
    }
  });

  it('rotates by age and by compressed size, each part with its header; never overwrites', async () => {
    const clock = new VirtualClock(0);
    const out = file();
    const parts: number[] = [];
    const w = new FeedWriter({
      out,
      header: { source: 's', recorder: 'r', markets: [market] },
      now: () => clock.now(),
      clock,
      rotateMs: 1000,
      onRotate: (p) => parts.push(p),
    });
    w.open();
    for (let i = 0; i < 10; i++) {
      w.write(`{"t":${clock.now()},"c":"m","f":{"i":${i}}}`);
      clock.advance(250);
      await tick();
    }
    await w.close();
    expect(parts).toEqual([0, 1, 2]);
    expect(recordingParts(out)).toEqual([out, partPath(out, 1), partPath(out, 2)]);
    for (const [k, p] of recordingParts(out).entries()) {
      const first = JSON.parse(gunzipSync(readFileSync(p)).toString('utf8').split('\n')[0]!);
      expect(first).toMatchObject({ h: 1, part: k, markets: [{ market: '0xm1' }] });
    }
    // by size: a tiny budget rotates at the first flush with data
    const out2 = file();
    const w2 = new FeedWriter({
      out: out2,
      header: { source: 's', recorder: 'r', markets: [] },
      now: () => clock.now(),
      clock,
      rotateBytes: 50,
    });
    w2.open();
    await tick();
    w2.write(`{"t":1,"c":"m","f":{"x":"${'y'.repeat(100)}"}}`);
    clock.advance(250);
    await tick();
    clock.advance(250);
    await w2.close();
    expect(w2.files.length).toBeGreaterThanOrEqual(2);
    // exclusive: a part that exists stops the writing instead of overwriting it
    expect(() =>
      new FeedWriter({ out, header: { source: 's', recorder: 'r', markets: [] }, now: () => 0, clock }).open(),
    ).toThrow(/EEXIST/);
  });
});

/** A fake socket: the test plays the server through the handlers. */
function fakeSockets(): {
  factory: WsFactory;
  sockets: Array<{ url: string; h: WsHandlers; sent: string[]; terminated: boolean }>;
} {
  const sockets: Array<{ url: string; h: WsHandlers; sent: string[]; terminated: boolean }> = [];
  const factory: WsFactory = (url, h) => {
    const s = { url, h, sent: [] as string[], terminated: false };
    sockets.push(s);
    return {
      send: (t) => s.sent.push(t),
      terminate: () => {
        s.terminated = true;
      },
      close: () => {
        s.terminated = true;
      },
    };
  };
  return { factory, sockets };
}

async function items(p: string[]): Promise<FeedItem[]> {
  const out: FeedItem[] = [];
  const stats = newReplayStats();
  for await (const it of replayFeeds(p, { stats })) out.push(it);
  expect(stats.malformed).toBe(0);
  return out;
}

describe('startRecorder (fake sockets, virtual clock)', () => {
  it('records text frames exactly, with the injected receive time; skips PONG and blank keep-alives', async () => {
    const clock = new VirtualClock(1_700_000_000_000);
    let t = 1_700_000_000_000.125;
    const { factory, sockets } = fakeSockets();
    const out = file();
    const rec = startRecorder({
      out,
      markets: [market],
      marketUrl: 'ws://x/ws/market',
      rtdsUrl: 'ws://x/rtds',
      source: 'http://x',
      now: () => (t += 0.001),
      clock,
      createSocket: factory,
    });
    expect(sockets.map((s) => s.url)).toEqual(['ws://x/ws/market', 'ws://x/rtds']);
    const [m, r] = sockets;
    m!.h.onOpen();
    r!.h.onOpen();
    await rec.connected();
    // the subscriptions as the venue expects them, then PING
    expect(JSON.parse(m!.sent[0]!)).toEqual({ assets_ids: ['Y1', 'N1'], type: 'market', custom_feature_enabled: true });
    expect(JSON.parse(r!.sent[0]!)).toEqual({
      action: 'subscribe',
      subscriptions: [{ topic: 'crypto_prices', type: 'update', filters: 'btcusdt,ethusdt,solusdt,xrpusdt,dogeusdt' }],
    });
    expect(m!.sent[1]).toBe('PING');
    const book = '[{"event_type":"book","asset_id":"Y1","bids":[],"asks":[]} , {"event_type":"book","asset_id":"N1"}]';
    m!.h.onText(book);
    m!.h.onText('PONG');
    m!.h.onText('  ');
    m!.h.onText('{"event_type":\n"price_change"}'); // multi-line JSON: kept in the s form
    m!.h.onText('oops not json');
    r!.h.onText('{"topic":"crypto_prices","type":"update","payload":{"symbol":"btcusdt","value":95000.12}}');
    const s = await rec.stop();
    expect(s.frames).toEqual({ m: 3, r: 1 });
    expect(s.stringFrames).toBe(2);
    const it = await items([out]);
    const body = it
      .slice(1)
      .map((i) =>
        i.kind === 'frame' ? `${i.ch}:f:${i.raw}` : i.kind === 'status' ? `${i.ch}:${i.status}:${i.reason}` : '',
      );
    expect(body).toEqual([
      'm:connect:initial',
      'r:connect:initial',
      `m:f:${book}`,
      'm:f:{"event_type":\n"price_change"}',
      'm:f:oops not json',
      'r:f:{"topic":"crypto_prices","type":"update","payload":{"symbol":"btcusdt","value":95000.12}}',
      'm:disconnect:stop',
      'r:disconnect:stop',
    ]);
    expect(it[3]!.t).toBe(1_700_000_000_000.129); // microseconds from the injected clock
    // the raw bytes on disk are the frame's bytes
    expect(gunzipSync(readFileSync(out)).toString('utf8')).toContain(`"c":"m","f":${book}}\n`);
  });

  it('writes disconnect / connect on a reconnect; frames of a dead socket are not recorded', async () => {
    const clock = new VirtualClock(0);
    const { factory, sockets } = fakeSockets();
    const out = file();
    const rec = startRecorder({
      out,
      markets: [market],
      marketUrl: 'ws://x/ws/market',
      source: 'http://x',
      now: () => clock.now(),
      clock,
      createSocket: factory,
      backoff: { initialMs: 100, maxMs: 100, jitter: 0 },
    });
    sockets[0]!.h.onOpen();
    sockets[0]!.h.onText('{"event_type":"book","asset_id":"Y1"}');
    clock.advance(10);
    sockets[0]!.h.onClose(1006, 'gone');
    sockets[0]!.h.onText('{"late":true}'); // after the loss: ignored
    clock.advance(100); // backoff, then the next attempt
    expect(sockets).toHaveLength(2);
    sockets[1]!.h.onOpen();
    sockets[1]!.h.onText('{"event_type":"book","asset_id":"Y1","fresh":true}');
    expect(rec.stats()).toMatchObject({ connects: { m: 2 }, disconnects: { m: 1 } });
    await rec.stop();
    const it = (await items([out])).slice(1);
    expect(it.map((i) => (i.kind === 'frame' ? i.raw : i.kind === 'status' ? `${i.status}:${i.reason}` : ''))).toEqual([
      'connect:initial',
      '{"event_type":"book","asset_id":"Y1"}',
      'disconnect:closed 1006 gone',
      'connect:reconnect',
      '{"event_type":"book","asset_id":"Y1","fresh":true}',
      'disconnect:stop',
    ]);
  });

  it("re-reads its markets: a change is one market line, later parts' headers carry it; a failed read is logged, the next goes on", async () => {
    const clock = new VirtualClock(0);
    const { factory, sockets } = fakeSockets();
    const out = file();
    const warnings: string[] = [];
    let venue: MarketInfo | Error = market;
    const rec = startRecorder({
      out,
      markets: [market],
      marketUrl: 'ws://x/ws/market',
      source: 'http://x',
      now: () => clock.now(),
      clock,
      createSocket: factory,
      logger: { warn: (_o, m) => void warnings.push(m) },
      marketRefresh: {
        everyMs: 1000,
        read: async () => {
          if (venue instanceof Error) throw venue;
          return venue;
        },
      },
    });
    sockets[0]!.h.onOpen();
    const round = async () => {
      clock.advance(1000);
      for (let i = 0; i < 5; i++) await Promise.resolve();
    };
    await round(); // unchanged: nothing written
    const rewards = { maxSpread: 300, minSize: 20_000_000, dailyRate: 144_000_000 };
    venue = { ...market, rewards } as MarketInfo;
    await round();
    await round(); // the same again: nothing more
    venue = new Error('venue down');
    await round();
    expect(warnings).toEqual(['recording: could not re-read a market']);
    venue = { ...market, rewards, active: false } as MarketInfo;
    await round();
    expect(rec.stats().marketUpdates).toBe(2);
    rec.rotate();
    await tick();
    await rec.stop();
    const parts = recordingParts(out);
    expect(parts).toHaveLength(2);
    const all = await items(parts);
    const lines = all.filter((i) => i.kind === 'market');
    expect(lines.map((i) => i.kind === 'market' && [i.t, i.info.active, i.info.rewards])).toEqual([
      [2000, true, rewards],
      [5000, false, rewards],
    ]);
    const headers = all.filter((i) => i.kind === 'header');
    expect(headers.map((h) => h.kind === 'header' && h.header.markets[0]!.active)).toEqual([true, false]);
  });

  it('splits more than 500 tokens over several market connections', async () => {
    const clock = new VirtualClock(0);
    const { factory, sockets } = fakeSockets();
    const many = Array.from({ length: 260 }, (_, i) => ({
      ...market,
      market: `0x${i}`,
      tokens: [
        { tokenId: `Y${i}`, outcome: 'Yes' },
        { tokenId: `N${i}`, outcome: 'No' },
      ],
    })) as unknown as MarketInfo[];
    const rec = startRecorder({
      out: file(),
      markets: many,
      marketUrl: 'ws://x/ws/market',
      source: 'x',
      now: () => clock.now(),
      clock,
      createSocket: factory,
    });
    for (const s of sockets) s.h.onOpen();
    const subs = sockets.map((s) => (JSON.parse(s.sent[0]!) as { assets_ids: string[] }).assets_ids.length);
    expect(subs).toEqual([500, 20]);
    await rec.stop();
  });
});
