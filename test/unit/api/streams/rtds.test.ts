import { describe, expect, it } from 'vitest';
import { decodeRtdsMessage, rtdsStream, wireSubscription } from '../../../../src/api/streams/rtds.ts';
import { VirtualClock } from '../../../../src/core/clock.ts';
import type { RtdsEvent } from '../../../../src/core/events.ts';
import { FakeServer } from './fake-socket.ts';

const decode = (msg: unknown) => {
  const out: RtdsEvent[] = [];
  const r = decodeRtdsMessage(msg, 7, (e) => out.push(e));
  return { r, out };
};

describe('rtds messages', () => {
  it('a price update', () => {
    const { r, out } = decode({
      topic: 'crypto_prices',
      type: 'update',
      timestamp: 1753314064237,
      payload: { symbol: 'solusdt', timestamp: 1753314064213, value: 189.55 },
      connection_id: 'c',
    });
    expect(r).toBeUndefined();
    expect(out).toEqual([
      { type: 'price_tick', venueTime: 1753314064213, recvTime: 7, symbol: 'solusdt', value: 189.55, snapshot: false },
    ]);
  });
  it('a subscription snapshot: one tick per point, flagged', () => {
    const { out } = decode({
      topic: 'crypto_prices',
      type: 'subscribe',
      timestamp: 1753314063000,
      payload: {
        symbol: 'btcusdt',
        data: [
          { timestamp: 1753314061000, value: 1 },
          { timestamp: 1753314062000, value: 2 },
        ],
      },
    });
    expect(out.map((e) => [e.type, e.venueTime, (e as any).value, (e as any).snapshot])).toEqual([
      ['price_tick', 1753314061000, 1, true],
      ['price_tick', 1753314062000, 2, true],
    ]);
  });
  it('a comment', () => {
    const { out } = decode({
      topic: 'comments',
      type: 'comment_created',
      timestamp: 1753314065000,
      payload: {
        id: 'c1',
        body: 'hi',
        parentEntityType: 'Event',
        parentEntityID: 100,
        userAddress: '0xaa',
        createdAt: '2025-01-01T00:00:00.000Z',
        profile: null,
      },
    });
    expect(out).toEqual([
      {
        type: 'comment',
        venueTime: 1753314065000,
        recvTime: 7,
        kind: 'comment_created',
        id: 'c1',
        body: 'hi',
        parentEntityType: 'Event',
        parentEntityId: '100',
        userAddress: '0xaa',
        createdAt: '2025-01-01T00:00:00.000Z',
      },
    ]);
  });
  it('refuses malformed messages, ignores other topics, reports venue errors', () => {
    expect(decode('x').r).toBe('a message must be a JSON object');
    expect(decode({ topic: 'crypto_prices', type: 'update', payload: { symbol: 'btcusdt', value: '1' } }).r).toMatch(
      /payload.value/,
    );
    expect(decode({ topic: 'comments', type: 'comment_created', payload: {} }).r).toMatch(/payload.id/);
    expect(decode({ topic: 'activity', type: 'orders_matched', payload: {} }).r).toBe('ignored');
    expect(decode({ event_type: 'error', error: { code: 'BAD_REQUEST', message: 'm' } }).r).toBe(
      'venue error: BAD_REQUEST: m',
    );
  });
  it('subscriptions on the wire: symbols joined with commas, object filters as JSON', () => {
    expect(wireSubscription({ topic: 'crypto_prices', type: 'update', filters: ['btcusdt', 'ethusdt'] })).toEqual({
      topic: 'crypto_prices',
      type: 'update',
      filters: 'btcusdt,ethusdt',
    });
    expect(
      wireSubscription({ topic: 'comments', filters: { parentEntityID: 100, parentEntityType: 'Event' } }),
    ).toEqual({ topic: 'comments', type: '*', filters: '{"parentEntityID":100,"parentEntityType":"Event"}' });
    expect(wireSubscription({ topic: 'comments' })).toEqual({ topic: 'comments', type: '*' });
  });
});

describe('rtds stream', () => {
  it('subscribes on every connect, PINGs every 5 s, resyncs after a reconnect, counts bad frames', () => {
    const clock = new VirtualClock(0);
    const server = new FakeServer();
    const s = rtdsStream({
      url: 'ws://x/rtds',
      subscriptions: [{ topic: 'crypto_prices', type: 'update', filters: ['btcusdt'] }],
      clock,
      random: () => 0,
      createSocket: server.factory,
    });
    const events: RtdsEvent[] = [];
    s.events$.subscribe((e) => events.push(e));
    const c = server.last.open();
    expect(c.json()[0]).toEqual({
      action: 'subscribe',
      subscriptions: [{ topic: 'crypto_prices', type: 'update', filters: 'btcusdt' }],
    });
    c.recv('PONG');
    clock.advance(5000);
    expect(c.pings()).toBe(2);
    c.recv({
      topic: 'crypto_prices',
      type: 'update',
      timestamp: 1,
      payload: { symbol: 'btcusdt', timestamp: 1, value: 100.5 },
    }).recv('garbage');
    s.subscribe([{ topic: 'comments' }]);
    expect(c.json()[1]).toEqual({ action: 'subscribe', subscriptions: [{ topic: 'comments', type: '*' }] });
    c.drop();
    clock.advance(500);
    const c2 = server.last.open();
    expect(c2.json()[0].subscriptions).toHaveLength(2);
    c2.recv('PONG');
    expect(events.map((e) => e.type)).toEqual(['resynced', 'price_tick', 'stream_error', 'disconnected', 'resynced']);
    expect(s.stats().badFrames).toBe(1);
    s.close();
    expect(clock.pending()).toBe(0);
  });
});
