import { describe, expect, it } from 'vitest';
import { FaultController } from '../../../src/exchange/faults.ts';

describe('FaultController', () => {
  let now = 1000;
  const f = () => new FaultController(() => now, 3);

  it('is off by default', () => {
    const c = f();
    expect(c.http('GET', '/clob/book')).toBeUndefined();
    expect(c.isFrozen('market')).toBe(false);
    expect(c.dropDecision('user', 0)).toEqual({ now: false });
  });
  it('matches routes by method, path, prefix and wildcard', () => {
    const c = f();
    c.set([{ route: 'POST /clob/order', status: 425 }]);
    expect(c.http('POST', '/clob/order')?.status).toBe(425);
    expect(c.http('GET', '/clob/order')).toBeUndefined();
    expect(c.http('POST', '/clob/orders')).toBeUndefined();
    c.set([{ route: '/clob', status: 500 }]);
    expect(c.http('GET', '/clob/book')?.status).toBe(500);
    expect(c.http('GET', '/gamma/events')).toBeUndefined();
    c.set([{ route: '/clob/data/*', latencyMs: 50 }]);
    expect(c.http('GET', '/clob/data/orders')).toEqual({ latencyMs: 50 });
    c.set([{ route: '*', status: 503 }]);
    expect(c.http('DELETE', '/anything')?.status).toBe(503);
  });
  it('streams: freeze, latency and drop after a delay', () => {
    const c = f();
    const seen: number[] = [];
    c.onChange((r) => seen.push(r.length));
    c.add({ stream: 'market', freeze: true });
    c.add({ stream: 'user', drop: true, dropAfterMs: 500 });
    c.add({ stream: 'rtds', latencyMs: 80 });
    expect(c.isFrozen('market')).toBe(true);
    expect(c.isFrozen('user')).toBe(false);
    expect(c.streamLatency('rtds')).toBe(80);
    expect(c.dropDecision('user', 900)).toEqual({ now: false, inMs: 400 });
    expect(c.dropDecision('user', 400)).toEqual({ now: true });
    expect(seen).toEqual([1, 2, 3]);
  });
  it('expires rules by time and removes by id', () => {
    const c = f();
    const r = c.add({ stream: 'market', freeze: true, untilMs: 2000 });
    expect(c.isFrozen('market')).toBe(true);
    now = 2000;
    expect(c.isFrozen('market')).toBe(false);
    const r2 = c.add({ route: '/x', status: 500 });
    expect(c.remove(r2.id!)).toBe(true);
    expect(c.remove(r.id!)).toBe(false);
  });
  it('refuses rules that make no sense', () => {
    const c = f();
    expect(() => c.add({})).toThrow(RangeError);
    expect(() => c.add({ route: '/x' })).toThrow(RangeError);
    expect(() => c.add({ route: '/x', freeze: true })).toThrow(RangeError);
    expect(() => c.add({ stream: 'market', status: 500 })).toThrow(RangeError);
    expect(() => c.add({ stream: 'nope' as 'market', freeze: true })).toThrow(RangeError);
    expect(() => c.add({ route: '/x', status: 500, probability: 2 })).toThrow(RangeError);
    expect(c.list()).toEqual([]);
  });
  it('draws probabilities from its seeded source (deterministic)', () => {
    const a = f();
    const b = f();
    a.set([{ route: '*', status: 500, probability: 0.3 }]);
    b.set([{ route: '*', status: 500, probability: 0.3 }]);
    const seq = (c: FaultController) => Array.from({ length: 50 }, () => c.http('GET', '/a')?.status ?? 200);
    expect(seq(a)).toEqual(seq(b));
  });
});
