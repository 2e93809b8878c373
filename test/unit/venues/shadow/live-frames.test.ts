import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../../src/core/clock.ts';
import type { TokenId } from '../../../../src/core/ids.ts';
import type { FeedItem } from '../../../../src/venues/sim/feed.ts';
import { SHADOW_TOKENS_PER_CONNECTION, startLiveFrames } from '../../../../src/venues/shadow/live-frames.ts';
import { FakeServer } from '../../api/streams/fake-socket.ts';

const tok = (i: number) => `t${i}` as TokenId;

describe('startLiveFrames', () => {
  it('hands every market frame on as a feed item stamped with the clock, with connect and disconnect statuses, as the recorder writes them', () => {
    const clock = new VirtualClock(1_000);
    const server = new FakeServer();
    const items: FeedItem[] = [];
    const f = startLiveFrames({
      marketUrl: 'ws://x/ws/market',
      tokens: [tok(1), tok(2), tok(1)],
      sink: (i) => items.push(i),
      clock,
      createSocket: server.factory,
    });
    expect(server.sockets).toHaveLength(1);
    const s = server.last.open();
    // the recorder's subscription frame: both tokens once, custom features on
    expect(s.json()[0]).toEqual({ assets_ids: ['t1', 't2'], type: 'market', custom_feature_enabled: true });
    clock.advanceTo(1_005);
    s.recv('[{"event_type":"book"}]');
    s.recv('PONG');
    s.recv('   ');
    s.drop(1006, 'lost');
    expect(items).toEqual([
      { kind: 'status', t: 1_000, ch: 'm', status: 'connect', reason: 'initial' },
      { kind: 'frame', t: 1_005, ch: 'm', raw: '[{"event_type":"book"}]' },
      { kind: 'status', t: 1_005, ch: 'm', status: 'disconnect', reason: expect.any(String) },
    ]);
    expect(f.stats()).toEqual({ frames: { m: 1, r: 0 }, connects: { m: 1, r: 0 }, disconnects: { m: 1, r: 0 } });
    f.close();
    const n = items.length;
    clock.advanceTo(100_000); // no reconnect after close
    expect(items).toHaveLength(n);
  });

  it('opens RTDS once, for the symbols asked, on the r channel', () => {
    const clock = new VirtualClock(0);
    const server = new FakeServer();
    const items: FeedItem[] = [];
    const f = startLiveFrames({
      marketUrl: 'ws://x/ws/market',
      tokens: [tok(1)],
      sink: (i) => items.push(i),
      clock,
      createSocket: server.factory,
    });
    f.prices('ws://x/rtds', ['btcusdt', 'ethusdt']);
    f.prices('ws://x/rtds', ['solusdt']);
    expect(server.sockets.map((s) => s.url)).toEqual(['ws://x/ws/market', 'ws://x/rtds']);
    const r = server.last.open();
    expect(r.json()[0]).toEqual({
      action: 'subscribe',
      subscriptions: [{ topic: 'crypto_prices', type: 'update', filters: 'btcusdt,ethusdt' }],
    });
    r.recv({ topic: 'crypto_prices' });
    expect(items.map((i) => [i.kind, i.kind === 'header' ? '' : i.ch])).toEqual([
      ['status', 'r'],
      ['frame', 'r'],
    ]);
    f.close();
  });

  it('spreads more than 500 tokens over several connections, and is connected once all opened; refuses no token', async () => {
    const clock = new VirtualClock(0);
    const server = new FakeServer();
    const tokens = Array.from({ length: SHADOW_TOKENS_PER_CONNECTION + 1 }, (_, i) => tok(i));
    const f = startLiveFrames({
      marketUrl: 'ws://x/ws/market',
      tokens,
      sink: () => {},
      clock,
      createSocket: server.factory,
    });
    expect(server.sockets).toHaveLength(2);
    let up = false;
    void f.connected().then(() => (up = true));
    server.sockets[0]!.open();
    await Promise.resolve();
    expect(up).toBe(false);
    server.sockets[1]!.open();
    await f.connected();
    f.close();
    expect(() => startLiveFrames({ marketUrl: 'ws://x', tokens: [], sink: () => {}, clock })).toThrow(RangeError);
  });
});
