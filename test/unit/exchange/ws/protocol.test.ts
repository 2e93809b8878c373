import { describe, expect, it } from 'vitest';
import {
  channelOf,
  errorFrame,
  isJsonPing,
  MAX_ASSETS_PER_CONNECTION,
  parseMarketRequest,
  parseObject,
  parseUserRequest,
  pingReply,
} from '../../../../src/exchange/ws/protocol.ts';
import { parseRtdsRequest } from '../../../../src/exchange/rtds/protocol.ts';
import { routeOf } from '../../../../src/exchange/ws/index.ts';

const obj = (text: string) => {
  const r = parseObject(text);
  if (!r.ok) throw new Error(r.message);
  return r.value;
};

describe('keep-alive and frames', () => {
  it('answers PING/ping only', () => {
    expect(pingReply('PING')).toBe('PONG');
    expect(pingReply('ping')).toBe('pong');
    expect(pingReply('PING\n')).toBe('PONG');
    expect(pingReply('Ping')).toBeUndefined();
    expect(pingReply('{"type":"ping"}')).toBeUndefined();
    expect(isJsonPing({ type: 'ping' })).toBe(true);
    expect(isJsonPing({ type: 'market' })).toBe(false);
  });
  it('builds the error frame', () => {
    expect(JSON.parse(errorFrame('BAD_REQUEST', 'nope'))).toEqual({
      event_type: 'error',
      error: { code: 'BAD_REQUEST', message: 'nope' },
    });
  });
  it('accepts only JSON objects', () => {
    for (const bad of ['', 'x', '[1]', '1', 'null', '"s"', '{']) expect(parseObject(bad).ok).toBe(false);
    expect(parseObject('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
  });
  it('routes paths', () => {
    expect(routeOf('/ws/market')).toBe('market');
    expect(routeOf('/ws/market/')).toBe('market');
    expect(routeOf('/ws/user')).toBe('user');
    expect(routeOf('/ws/')).toBe('generic');
    expect(routeOf('/ws')).toBe('generic');
    expect(routeOf('/rtds')).toBe('rtds');
    expect(routeOf('/rtds/')).toBe('rtds');
    expect(routeOf('/')).toBe('rtds');
    expect(routeOf('/ws/all')).toBeUndefined();
    expect(routeOf('/clob/book')).toBeUndefined();
    expect(routeOf('/ws/market/x')).toBeUndefined();
  });
});

describe('market channel messages', () => {
  it('parses the first subscription, with the public clients extras', () => {
    expect(
      parseMarketRequest(obj('{"assets_ids":["1","2","1"],"type":"market","custom_feature_enabled":true}')),
    ).toEqual({
      ok: true,
      value: { op: 'subscribe', assets: ['1', '2'], custom: true, initialDump: true },
    });
    const rs = parseMarketRequest({
      assets_ids: ['1'],
      type: 'MARKET',
      markets: [],
      operation: 'subscribe',
      initial_dump: false,
      level: 2,
    });
    expect(rs).toEqual({ ok: true, value: { op: 'subscribe', assets: ['1'], initialDump: false } });
  });
  it('parses later subscribe / unsubscribe', () => {
    expect(parseMarketRequest({ assets_ids: ['9'], operation: 'unsubscribe' })).toEqual({
      ok: true,
      value: { op: 'unsubscribe', assets: ['9'], initialDump: true },
    });
    expect(parseMarketRequest({ assets_ids: [], operation: 'SUBSCRIBE', custom_feature_enabled: false })).toEqual({
      ok: true,
      value: { op: 'subscribe', assets: [], custom: false, initialDump: true },
    });
  });
  it('refuses wrong shapes and types', () => {
    const bad: Array<Record<string, unknown>> = [
      {},
      { type: 'market' },
      { assets_ids: 'x' },
      { assets_ids: [1] },
      { assets_ids: [''] },
      { assets_ids: ['x'.repeat(101)] },
      { assets_ids: [], type: 'user' },
      { assets_ids: [], type: 'nope' },
      { assets_ids: [], type: 7 },
      { assets_ids: [], operation: 'explode' },
      { assets_ids: [], custom_feature_enabled: 'yes' },
      { assets_ids: [], initial_dump: 1 },
      { assets_ids: [], markets: 'x' },
      { assets_ids: Array.from({ length: MAX_ASSETS_PER_CONNECTION + 1 }, (_, i) => String(i)) },
    ];
    for (const b of bad) {
      const r = parseMarketRequest(b);
      expect(r.ok, JSON.stringify(b).slice(0, 80)).toBe(false);
      if (!r.ok) expect(r.message.length).toBeGreaterThan(5);
    }
  });
  it('reads the channel of a /ws message', () => {
    expect(channelOf({ type: 'market' })).toEqual({ ok: true, value: 'market' });
    expect(channelOf({ type: 'USER' })).toEqual({ ok: true, value: 'user' });
    expect(channelOf({})).toEqual({ ok: true, value: undefined });
    expect(channelOf({ type: 'all' }).ok).toBe(false);
  });
});

describe('user channel messages', () => {
  const auth = { apiKey: 'k', secret: 's', passphrase: 'p' };
  it('parses the authenticated first message and later changes', () => {
    expect(parseUserRequest({ auth, markets: ['0xAB', '0xab'], type: 'user' })).toEqual({
      ok: true,
      value: { op: 'subscribe', auth, markets: ['0xab'] },
    });
    expect(parseUserRequest({ auth, type: 'USER' })).toEqual({
      ok: true,
      value: { op: 'subscribe', auth, markets: [] },
    });
    expect(parseUserRequest({ markets: ['0x1'], operation: 'unsubscribe' })).toEqual({
      ok: true,
      value: { op: 'unsubscribe', markets: ['0x1'] },
    });
  });
  it('refuses malformed auth and markets', () => {
    for (const b of [
      { auth: 'x' },
      { auth: { apiKey: 'k', secret: 's' } },
      { auth: { apiKey: 1, secret: 's', passphrase: 'p' } },
      { auth, markets: 'x' },
      { auth, markets: [1] },
      { auth, type: 'market' },
      { markets: [], operation: 'x' },
    ]) {
      expect(parseUserRequest(b as Record<string, unknown>).ok, JSON.stringify(b)).toBe(false);
    }
  });
});

describe('RTDS messages', () => {
  it('parses crypto_prices filters in every public form', () => {
    const sub = (filters: unknown) =>
      parseRtdsRequest({ action: 'subscribe', subscriptions: [{ topic: 'crypto_prices', type: 'update', filters }] });
    expect(sub('btcusdt,ETHUSDT')).toEqual({
      ok: true,
      value: {
        action: 'subscribe',
        subscriptions: [{ topic: 'crypto_prices', type: 'update', symbols: ['btcusdt', 'ethusdt'] }],
      },
    });
    expect(sub(['solusdt'])).toMatchObject({ ok: true, value: { subscriptions: [{ symbols: ['solusdt'] }] } });
    expect(sub('["xrpusdt", "btcusdt"]')).toMatchObject({
      ok: true,
      value: { subscriptions: [{ symbols: ['xrpusdt', 'btcusdt'] }] },
    });
    expect(sub(undefined)).toMatchObject({ ok: true, value: { subscriptions: [{ symbols: 'all' }] } });
    expect(sub('')).toMatchObject({ ok: true, value: { subscriptions: [{ symbols: 'all' }] } });
    for (const bad of [42, { a: 1 }, '[1,2]', '[oops', 'btc usdt'])
      expect(sub(bad).ok, JSON.stringify(bad)).toBe(false);
  });
  it('parses comments filters as object or JSON string', () => {
    const sub = (filters: unknown, type = 'comment_created') =>
      parseRtdsRequest({ action: 'subscribe', subscriptions: [{ topic: 'comments', type, filters }] });
    expect(sub('{"parentEntityID":100,"parentEntityType":"Event"}')).toMatchObject({
      ok: true,
      value: { subscriptions: [{ topic: 'comments', filter: { parentEntityID: '100', parentEntityType: 'Event' } }] },
    });
    expect(sub({ parentEntityID: 'abc' })).toMatchObject({
      ok: true,
      value: { subscriptions: [{ filter: { parentEntityID: 'abc' } }] },
    });
    expect(sub(undefined, '*')).toMatchObject({ ok: true, value: { subscriptions: [{ filter: 'all', type: '*' }] } });
    for (const bad of ['{x', '[1]', 5]) expect(sub(bad).ok).toBe(false);
    expect(sub(undefined, 'reaction_created').ok).toBe(false);
  });
  it('refuses unknown topics, actions and shapes', () => {
    expect(
      parseRtdsRequest({ action: 'subscribe', subscriptions: [{ topic: 'activity', type: 'orders_matched' }] }),
    ).toMatchObject({ ok: false, message: expect.stringMatching(/unknown topic/) });
    expect(parseRtdsRequest({ action: 'nope', subscriptions: [{ topic: 'comments' }] }).ok).toBe(false);
    expect(parseRtdsRequest({ action: 'subscribe', subscriptions: [] }).ok).toBe(false);
    expect(parseRtdsRequest({ action: 'subscribe' }).ok).toBe(false);
    expect(parseRtdsRequest({ action: 'subscribe', subscriptions: [null] }).ok).toBe(false);
    expect(parseRtdsRequest({ action: 'subscribe', subscriptions: [{ type: 'update' }] }).ok).toBe(false);
  });
});
