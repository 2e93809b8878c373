import { describe, expect, it } from 'vitest';
import { marketStream, MAX_MARKET_ASSETS, type MarketStreamOptions } from '../../../../src/api/streams/market.ts';
import { VirtualClock } from '../../../../src/core/clock.ts';
import type { MarketEvent } from '../../../../src/core/events.ts';
import { FakeServer } from './fake-socket.ts';

const M = '0xabc';
const book = (asset: string, bid = '0.49') => ({
  event_type: 'book',
  market: M,
  asset_id: asset,
  timestamp: '1760000000000',
  hash: 'h',
  bids: [{ price: bid, size: '10' }],
  asks: [{ price: '0.51', size: '10' }],
});
const pc = (asset: string, price = '0.48') => ({
  event_type: 'price_change',
  market: M,
  timestamp: '1760000000001',
  price_changes: [{ asset_id: asset, price, size: '5', side: 'BUY', hash: 'h2', best_bid: '0.49', best_ask: '0.51' }],
});

function setup(o: Partial<MarketStreamOptions> = {}) {
  const clock = new VirtualClock(1_000_000);
  const server = new FakeServer();
  const logs: Array<[object, string]> = [];
  const stream = marketStream({
    url: 'ws://x/ws/market',
    assetIds: ['A', 'B'],
    clock,
    random: () => 0,
    createSocket: server.factory,
    logger: { warn: (obj, msg) => logs.push([obj, msg]) },
    ...o,
  });
  const events: MarketEvent[] = [];
  let completed = false;
  const sub = stream.events$.subscribe({ next: (e) => events.push(e), complete: () => (completed = true) });
  return {
    clock,
    server,
    stream,
    events,
    sub,
    logs,
    types: () =>
      events.map((e) => (e.type === 'book_snapshot' || e.type === 'level_change' ? `${e.type}:${e.tokenId}` : e.type)),
    get completed() {
      return completed;
    },
  };
}

describe('market stream', () => {
  it('subscribes per the venue conventions, emits snapshots then resynced(initial)', () => {
    const t = setup();
    const s = t.server.last.open();
    expect(s.json()[0]).toEqual({ assets_ids: ['A', 'B'], type: 'market', custom_feature_enabled: true });
    s.recv([book('A'), book('B')]).recv('PONG');
    expect(t.types()).toEqual(['book_snapshot:A', 'book_snapshot:B', 'resynced']);
    expect(t.events[2]).toMatchObject({ type: 'resynced', stream: 'market', initial: true });
    s.recv(pc('A'));
    expect(t.types().slice(-1)).toEqual(['level_change:A']);
  });

  it('on loss: disconnected; after reconnect, level changes of pending tokens are dropped until their fresh snapshots, then resynced', () => {
    const t = setup();
    t.server.last
      .open()
      .recv([book('A'), book('B')])
      .recv('PONG');
    t.events.length = 0;
    t.server.last.drop();
    expect(t.events).toEqual([
      expect.objectContaining({ type: 'disconnected', stream: 'market', reason: 'closed 1006' }),
    ]);
    t.clock.advance(500);
    const s2 = t.server.last.open();
    expect(s2.json()[0]).toEqual({ assets_ids: ['A', 'B'], type: 'market', custom_feature_enabled: true });
    s2.recv('PONG'); // subscription handled, snapshots not here yet: no resynced
    s2.recv(pc('A')); // dropped: A's fresh snapshot is pending
    s2.recv(book('A'));
    s2.recv(pc('A')); // applies: A is fresh
    s2.recv(pc('B')); // dropped
    s2.recv(book('B'));
    expect(t.types()).toEqual(['disconnected', 'book_snapshot:A', 'level_change:A', 'book_snapshot:B', 'resynced']);
    expect(t.events[4]).toMatchObject({ type: 'resynced', initial: false });
    expect(t.stream.stats().droppedWhilePending).toBe(2);
  });

  it('replaces a connection whose fresh snapshots do not come within the resync deadline', () => {
    const t = setup({ resyncTimeoutMs: 2000, silenceMs: 0 });
    t.server.last
      .open()
      .recv([book('A'), book('B')])
      .recv('PONG');
    t.server.last.drop();
    t.clock.advance(500);
    t.server.last.open().recv('PONG').recv(book('A'));
    t.clock.advance(2000);
    expect(t.server.last.terminated).toBe(true);
    const errs = t.events.filter((e) => e.type === 'stream_error');
    expect((errs[0] as any).reason).toBe('connection attempt failed: no fresh snapshot within 2000 ms for 1 token(s)');
    t.clock.advance(1000);
    t.server.last.open().recv([book('A'), book('B')]);
    expect(t.types().slice(-3)).toEqual(['book_snapshot:A', 'book_snapshot:B', 'resynced']);
    expect(t.types().filter((x) => x === 'disconnected').length).toBe(1);
  });

  it('a frozen socket (PONG answered, no data) is replaced after the silence deadline', () => {
    const t = setup({ silenceMs: 1000, pingIntervalMs: 200 });
    const s = t.server.last
      .open()
      .recv([book('A'), book('B')])
      .recv('PONG');
    for (let i = 0; i < 4; i++) {
      t.clock.advance(200);
      s.recv('PONG');
    }
    t.clock.advance(200);
    expect(t.events[t.events.length - 1]).toMatchObject({
      type: 'disconnected',
      reason: 'silence: no data for 1000 ms',
    });
    expect(s.terminated).toBe(true);
  });

  it('once every market followed resolved, silence is expected: the connection stays (findings-5 P4)', () => {
    const t = setup({ silenceMs: 1000, pingIntervalMs: 200, assetIds: ['A', 'B', 'C'] });
    const other = { ...book('C'), market: '0xother' };
    const s = t.server.last
      .open()
      .recv([book('A'), book('B'), other])
      .recv('PONG');
    const resolved = (market: string) => ({
      event_type: 'market_resolved',
      market,
      winning_asset_id: 'A',
      winning_outcome: 'Yes',
      timestamp: '1760000000002',
    });
    // one of the two markets resolved: the other may still send, silence counts
    s.recv(resolved(M));
    t.clock.advance(1000);
    expect(t.events[t.events.length - 1]).toMatchObject({
      type: 'disconnected',
      reason: 'silence: no data for 1000 ms',
    });
    expect(t.stream.stats().socket.silenceReconnects).toBe(1);
    // a new connection (after the backoff); then the other market resolves too: nothing followed sends data
    t.clock.advance(2000);
    const s2 = t.server.last
      .open()
      .recv([book('A'), book('B'), other])
      .recv('PONG');
    s2.recv(resolved('0xother'));
    for (let i = 0; i < 50; i++) {
      t.clock.advance(200);
      s2.recv('PONG');
    }
    expect(s2.terminated).toBe(false);
    expect(t.stream.stats().socket.silenceReconnects).toBe(1);
    // following a token of a live market again: its silence counts
    t.stream.subscribe(['D']);
    s2.recv([{ ...book('D'), market: '0xlive' }]);
    t.clock.advance(1000);
    expect(s2.terminated).toBe(true);
    expect(t.stream.stats().socket.silenceReconnects).toBe(2);
  });

  it('subscribe / unsubscribe / resync send the venue messages; resync drops the token changes until its snapshot', () => {
    const t = setup();
    const s = t.server.last
      .open()
      .recv([book('A'), book('B')])
      .recv('PONG');
    t.stream.subscribe(['C', 'A']);
    t.stream.unsubscribe(['B', 'Z']);
    t.stream.resync(['A']);
    expect(s.json().slice(1)).toEqual([
      { assets_ids: ['C'], operation: 'subscribe', custom_feature_enabled: true },
      { assets_ids: ['B'], operation: 'unsubscribe', custom_feature_enabled: true },
      { assets_ids: ['A'], operation: 'subscribe', custom_feature_enabled: true },
    ]);
    expect(t.stream.assets()).toEqual(['A', 'C']);
    t.events.length = 0;
    s.recv(pc('A')).recv(book('A', '0.47')).recv(pc('A'));
    expect(t.types()).toEqual(['book_snapshot:A', 'level_change:A']);
    // the next connection subscribes the current set
    s.drop();
    t.clock.advance(500);
    expect(t.server.last.open().json()[0].assets_ids).toEqual(['A', 'C']);
  });

  it('refuses more than the per-connection asset limit', () => {
    const many = Array.from({ length: MAX_MARKET_ASSETS + 1 }, (_, i) => `t${i}`);
    expect(() => marketStream({ url: 'ws://x', assetIds: many })).toThrow(RangeError);
    const t = setup();
    expect(() => t.stream.subscribe(many)).toThrow(RangeError);
  });

  it('bad frames and venue errors are stream_errors (counted, logged); the stream goes on', () => {
    const t = setup();
    const s = t.server.last
      .open()
      .recv([book('A'), book('B')])
      .recv('PONG');
    s.recv('{oops')
      .recv([{ event_type: 'price_change', market: M }, pc('A')])
      .recv({ event_type: 'error', error: { code: 'BAD_REQUEST', message: 'x' } })
      .recv({ event_type: 'brand_new', a: 1 })
      .recv(pc('B'));
    expect(t.types().slice(3)).toEqual([
      'stream_error',
      'stream_error',
      'level_change:A',
      'stream_error',
      'level_change:B',
    ]);
    expect((t.events[3] as any).reason).toBe('bad frame: malformed JSON');
    expect((t.events[4] as any).reason).toMatch(/^bad message: price_changes/);
    expect((t.events[6] as any).reason).toBe('venue error: BAD_REQUEST: x');
    expect(t.stream.stats()).toMatchObject({ badFrames: 2, decoder: { bad: 1, unknownTypes: 1, serverErrors: 1 } });
    expect(t.logs.length).toBeGreaterThanOrEqual(2);
    expect(t.completed).toBe(false);
  });

  it('close() completes events$ and stops reconnecting; idempotent', () => {
    const t = setup();
    const s = t.server.last
      .open()
      .recv([book('A'), book('B')])
      .recv('PONG');
    t.stream.close();
    t.stream.close();
    expect(t.completed).toBe(true);
    expect(s.closed).toBe(true);
    t.clock.advance(120_000);
    expect(t.server.sockets.length).toBe(1);
    expect(t.clock.pending()).toBe(0);
  });

  it('canonical frames go through the frame scanner, others through JSON.parse and the decoder: the same events either way', () => {
    const run = (fastDecode: boolean, text: (x: unknown) => string) => {
      const t = setup({ fastDecode });
      const s = t.server.last.open();
      s.recv(text([book('A'), book('B')])).recv('PONG');
      s.recv(text(pc('A'))).recv(text(pc('B', '0.47')));
      return { events: t.events, stats: t.stream.stats() };
    };
    const scanned = run(true, (x) => JSON.stringify(x));
    const spaced = run(true, (x) => JSON.stringify(x, null, 1)); // whitespace: declined by the scanner
    const reference = run(false, (x) => JSON.stringify(x));
    expect(scanned.stats.framesScanned).toBe(3);
    expect(spaced.stats.framesScanned).toBe(0);
    expect(reference.stats.framesScanned).toBe(0);
    expect(scanned.events).toEqual(reference.events);
    expect(spaced.events).toEqual(reference.events);
    expect(scanned.stats.decoder).toEqual(reference.stats.decoder);
    expect(scanned.stats.socket.messages).toBe(reference.stats.socket.messages);
  });
});
