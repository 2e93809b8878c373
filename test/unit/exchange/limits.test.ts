import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ConfigError, ValidationError } from '../../../src/core/errors.ts';
import { SlidingWindowLimiter } from '../../../src/exchange/limits/sliding-window.ts';
import { DEFAULT_RULES, RatePolicy } from '../../../src/exchange/limits/policy.ts';
import type { RateRule } from '../../../src/exchange/limits/policy.ts';

const T0 = 1_700_000_000_000;

describe('SlidingWindowLimiter', () => {
  it('admits up to the limit, then refuses with retryAt = oldest + windowMs', () => {
    const l = new SlidingWindowLimiter({ limit: 3, windowMs: 1000 });
    expect(l.tryAcquire('a', T0)).toEqual({ ok: true, remaining: 2 });
    expect(l.tryAcquire('a', T0 + 100)).toEqual({ ok: true, remaining: 1 });
    expect(l.tryAcquire('a', T0 + 200)).toEqual({ ok: true, remaining: 0 });
    expect(l.tryAcquire('a', T0 + 300)).toEqual({ ok: false, retryAt: T0 + 1000, remaining: 0 });
  });
  it('frees a slot exactly windowMs after the oldest request, not a ms earlier', () => {
    const l = new SlidingWindowLimiter({ limit: 2, windowMs: 1000 });
    l.tryAcquire('a', T0);
    l.tryAcquire('a', T0 + 500);
    expect(l.tryAcquire('a', T0 + 999).ok).toBe(false);
    expect(l.tryAcquire('a', T0 + 1000)).toEqual({ ok: true, remaining: 0 });
    // now the window holds T0+500 and T0+1000
    expect(l.tryAcquire('a', T0 + 1499)).toEqual({ ok: false, retryAt: T0 + 1500, remaining: 0 });
    expect(l.tryAcquire('a', T0 + 1500).ok).toBe(true);
  });
  it('refused requests consume nothing', () => {
    const l = new SlidingWindowLimiter({ limit: 1, windowMs: 1000 });
    l.tryAcquire('a', T0);
    for (let i = 1; i < 50; i++) expect(l.tryAcquire('a', T0 + i).ok).toBe(false);
    expect(l.tryAcquire('a', T0 + 1000).ok).toBe(true);
  });
  it('retryAt accounts for cost (enough slots must free)', () => {
    const l = new SlidingWindowLimiter({ limit: 5, windowMs: 1000 });
    for (let i = 0; i < 5; i++) l.tryAcquire('a', T0 + i * 10);
    expect(l.tryAcquire('a', T0 + 100, 3)).toEqual({ ok: false, retryAt: T0 + 20 + 1000, remaining: 0 });
    expect(l.tryAcquire('a', T0 + 1019, 3).ok).toBe(false);
    expect(l.tryAcquire('a', T0 + 1020, 3)).toEqual({ ok: true, remaining: 0 });
    expect(l.tryAcquire('b', T0, 6)).toEqual({ ok: false, retryAt: Infinity, remaining: 0 });
    expect(() => l.tryAcquire('a', T0, 0)).toThrow(ValidationError);
  });
  it('peek reports without consuming', () => {
    const l = new SlidingWindowLimiter({ limit: 2, windowMs: 1000 });
    expect(l.peek('a', T0)).toEqual({ remaining: 2, used: 0, retryAt: T0, resetAt: T0 });
    l.tryAcquire('a', T0);
    l.tryAcquire('a', T0 + 10);
    expect(l.peek('a', T0 + 20)).toEqual({ remaining: 0, used: 2, retryAt: T0 + 1000, resetAt: T0 + 1000 });
    expect(l.peek('a', T0 + 20)).toEqual({ remaining: 0, used: 2, retryAt: T0 + 1000, resetAt: T0 + 1000 });
    expect(l.peek('a', T0 + 1000)).toEqual({ remaining: 1, used: 1, retryAt: T0 + 1000, resetAt: T0 + 1010 });
  });
  it('isolates keys', () => {
    const l = new SlidingWindowLimiter({ limit: 1, windowMs: 1000 });
    expect(l.tryAcquire('a', T0).ok).toBe(true);
    expect(l.tryAcquire('a', T0).ok).toBe(false);
    expect(l.tryAcquire('b', T0).ok).toBe(true);
    expect(l.tryAcquire('c', T0).ok).toBe(true);
  });
  it('sweep drops only keys whose window is empty', () => {
    const l = new SlidingWindowLimiter({ limit: 10, windowMs: 1000 });
    l.tryAcquire('a', T0);
    l.tryAcquire('b', T0 + 500);
    expect(l.keyCount).toBe(2);
    expect(l.sweep(T0 + 999)).toBe(0);
    expect(l.sweep(T0 + 1000)).toBe(1);
    expect(l.keyCount).toBe(1);
    expect(l.peek('b', T0 + 1000).used).toBe(1);
    expect(l.sweep(T0 + 1500)).toBe(1);
    expect(l.keyCount).toBe(0);
    expect(l.tryAcquire('a', T0 + 1500)).toEqual({ ok: true, remaining: 9 });
  });
  it('keeps order under clock skew (an earlier now is recorded as the latest stamp)', () => {
    const l = new SlidingWindowLimiter({ limit: 2, windowMs: 1000 });
    l.tryAcquire('a', T0 + 100);
    l.tryAcquire('a', T0); // skewed
    expect(l.tryAcquire('a', T0 + 1099)).toEqual({ ok: false, retryAt: T0 + 1100, remaining: 0 });
    expect(l.tryAcquire('a', T0 + 1100)).toEqual({ ok: true, remaining: 1 }); // both stamps were T0+100
  });
  it('handles 36,000 per 10 minutes cheaply and exactly (grows lazily, wraps the ring)', () => {
    const l = new SlidingWindowLimiter({ limit: 36_000, windowMs: 600_000 });
    // 60 per second for 10 minutes fills it exactly
    let t = T0;
    for (let i = 0; i < 36_000; i++) {
      expect(l.tryAcquire('a', t).ok).toBe(true);
      if (i % 60 === 59) t += 1000;
    }
    expect(t).toBe(T0 + 600_000);
    expect(l.tryAcquire('a', T0 + 599_999)).toEqual({ ok: false, retryAt: T0 + 600_000, remaining: 0 });
    // the first second's 60 slots free at T0+600s, wrapping the ring
    for (let k = 0; k < 60; k++) expect(l.tryAcquire('a', T0 + 600_000).ok).toBe(true);
    expect(l.tryAcquire('a', T0 + 600_000)).toEqual({ ok: false, retryAt: T0 + 601_000, remaining: 0 });
    // CPU time, not wall time: another process keeping the cores busy must not fail a complexity check
    const start = process.cpuUsage();
    let now = T0 + 600_000;
    for (let i = 0; i < 200_000; i++) {
      now += 17;
      l.tryAcquire('a', now);
    }
    const used = process.cpuUsage(start);
    expect((used.user + used.system) / 1000).toBeLessThan(1000);
  });
  it('matches a naive model (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 100 }),
        fc.array(
          fc.record({
            dt: fc.integer({ min: 0, max: 40 }),
            key: fc.constantFrom('a', 'b'),
            cost: fc.integer({ min: 1, max: 3 }),
          }),
          {
            maxLength: 200,
          },
        ),
        (limit, windowMs, steps) => {
          const l = new SlidingWindowLimiter({ limit, windowMs });
          const model = new Map<string, number[]>();
          let now = T0;
          for (const s of steps) {
            now += s.dt;
            const log = (model.get(s.key) ?? []).filter((ts) => ts + windowMs > now);
            model.set(s.key, log);
            const r = l.tryAcquire(s.key, now, s.cost);
            if (log.length + s.cost <= limit) {
              for (let k = 0; k < s.cost; k++) log.push(now);
              expect(r).toEqual({ ok: true, remaining: limit - log.length });
            } else {
              const retryAt = s.cost > limit ? Infinity : log[log.length + s.cost - limit - 1]! + windowMs;
              expect(r).toEqual({ ok: false, retryAt, remaining: 0 });
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
  it('validates its options', () => {
    expect(() => new SlidingWindowLimiter({ limit: 0, windowMs: 1000 })).toThrow(ValidationError);
    expect(() => new SlidingWindowLimiter({ limit: 1.5, windowMs: 1000 })).toThrow(ValidationError);
    expect(() => new SlidingWindowLimiter({ limit: 1, windowMs: 0 })).toThrow(ValidationError);
  });
});

const names = (rules: RateRule[]) => rules.map((r) => r.name);

describe('DEFAULT_RULES', () => {
  const byName = new Map(DEFAULT_RULES.map((r) => [r.name, r]));
  const get = (n: string) => {
    const r = byName.get(n);
    if (r === undefined) throw new Error(`no rule ${n}`);
    return [r.limit, r.windowMs];
  };
  it('carries the spec section 8 numbers', () => {
    expect(get('general')).toEqual([15000, 10_000]);
    expect(get('health')).toEqual([100, 10_000]);
    expect(get('data-api')).toEqual([50, 10_000]);
    expect(get('gamma-api')).toEqual([50, 10_000]);
    expect(get('clob')).toEqual([15000, 10_000]);
    expect(get('clob-api-keys')).toEqual([100, 10_000]);
    expect(get('user-pnl')).toEqual([200, 10_000]);
    for (const p of ['/markets', '/book', '/midpoint', '/price', '/spread', '/balances', '/tick-size', '/neg-risk']) {
      expect(get(`GET ${p}`)).toEqual([100, 10_000]);
    }
    const trading: Array<[string, number, number]> = [
      ['POST /order', 3500, 36000],
      ['DELETE /order', 3000, 30000],
      ['POST /orders', 1000, 15000],
      ['DELETE /orders', 1000, 15000],
      ['DELETE /cancel-all', 250, 6000],
      ['DELETE /cancel-market-orders', 1000, 1500],
    ];
    for (const [ep, burst, sustained] of trading) {
      expect(get(`${ep}:burst`)).toEqual([burst, 10_000]);
      expect(get(`${ep}:sustained`)).toEqual([sustained, 600_000]);
    }
    expect(new Set(DEFAULT_RULES.map((r) => r.name)).size).toBe(DEFAULT_RULES.length);
  });
  it('limits the paper exchange admin routes (not in the spec): 60 per 10 s, whatever the path', () => {
    expect(get('admin')).toEqual([60, 10_000]);
    const p = new RatePolicy();
    for (const [m, path] of [
      ['GET', '/faults'],
      ['POST', '/balances'],
      ['GET', '/health'],
      ['DELETE', '/faults/:id'],
    ] as const)
      expect(names(p.rulesFor('admin', m, path))).toEqual(['general', 'admin']);
  });
});

describe('RatePolicy.rulesFor', () => {
  const p = new RatePolicy();
  it('selects burst and sustained for each trading endpoint', () => {
    for (const [m, path] of [
      ['POST', '/order'],
      ['DELETE', '/order'],
      ['POST', '/orders'],
      ['DELETE', '/orders'],
      ['DELETE', '/cancel-all'],
      ['DELETE', '/cancel-market-orders'],
    ] as const) {
      expect(names(p.rulesFor('clob', m, path))).toEqual([
        'general',
        'clob',
        `${m} ${path}:burst`,
        `${m} ${path}:sustained`,
      ]);
    }
    expect(names(p.rulesFor('clob', 'post', '/order?x=1'))).toEqual([
      'general',
      'clob',
      'POST /order:burst',
      'POST /order:sustained',
    ]);
    expect(names(p.rulesFor('clob', 'GET', '/order'))).toEqual(['general', 'clob']);
    expect(names(p.rulesFor('clob', 'GET', '/orders'))).toEqual(['general', 'clob']);
  });
  it('selects the per-endpoint GET rules', () => {
    for (const path of [
      '/markets',
      '/book',
      '/midpoint',
      '/price',
      '/spread',
      '/balances',
      '/tick-size',
      '/neg-risk',
    ]) {
      expect(names(p.rulesFor('clob', 'GET', path))).toEqual(['general', 'clob', `GET ${path}`]);
    }
    expect(names(p.rulesFor('clob', 'HEAD', '/book/'))).toEqual(['general', 'clob', 'GET /book']);
    expect(names(p.rulesFor('clob', 'GET', '/balance-allowance'))).toEqual(['general', 'clob', 'GET /balances']);
    expect(names(p.rulesFor('clob', 'GET', '/books'))).toEqual(['general', 'clob']);
    expect(names(p.rulesFor('clob', 'GET', '/data/trades'))).toEqual(['general', 'clob']);
  });
  it('selects the group rules', () => {
    expect(names(p.rulesFor('clob', 'POST', '/auth/api-key'))).toEqual(['general', 'clob', 'clob-api-keys']);
    expect(names(p.rulesFor('clob', 'GET', '/auth/derive-api-key'))).toEqual(['general', 'clob', 'clob-api-keys']);
    expect(names(p.rulesFor('clob', 'DELETE', '/auth/api-key'))).toEqual(['general', 'clob', 'clob-api-keys']);
    for (const api of ['clob', 'gamma', 'data', 'content'] as const) {
      expect(names(p.rulesFor(api, 'GET', '/health'))).toEqual(['general', 'health']);
    }
    expect(names(p.rulesFor('clob', 'GET', '/'))).toEqual(['general', 'health']);
    expect(names(p.rulesFor('gamma', 'GET', '/markets'))).toEqual(['general', 'gamma-api']);
    expect(names(p.rulesFor('gamma', 'GET', '/events/some-slug'))).toEqual(['general', 'gamma-api']);
    expect(names(p.rulesFor('data', 'GET', '/users/0xabc/trades'))).toEqual(['general', 'data-api']);
    expect(names(p.rulesFor('data', 'GET', '/users/0xabc/pnl'))).toEqual(['general', 'user-pnl']);
    expect(names(p.rulesFor('data', 'GET', '/users/:address/pnl'))).toEqual(['general', 'user-pnl']);
    expect(names(p.rulesFor('content', 'GET', '/articles/7'))).toEqual(['general']);
    expect(names(p.rulesFor('relayer', 'POST', '/submit'))).toEqual(['general', 'relayer-submit']);
    expect(p.rule('relayer-submit')).toEqual({ name: 'relayer-submit', limit: 25, windowMs: 60_000 });
    expect(names(p.rulesFor('relayer', 'GET', '/transaction'))).toEqual(['general']);
  });
});

describe('RatePolicy.acquire', () => {
  it('applies burst and sustained together: the sustained limit can bind while the burst has room', () => {
    const p = new RatePolicy({
      rules: {
        'DELETE /cancel-market-orders:burst': { limit: 10 },
        'DELETE /cancel-market-orders:sustained': { limit: 15 },
      },
    });
    const rules = p.rulesFor('clob', 'DELETE', '/cancel-market-orders');
    let now = T0;
    for (let i = 0; i < 10; i++) expect(p.acquire('u', rules, now).ok).toBe(true);
    const burst = p.acquire('u', rules, now);
    expect(burst).toMatchObject({ ok: false, retryAt: T0 + 10_000, limit: 10 });
    if (!burst.ok) expect(burst.rule.name).toBe('DELETE /cancel-market-orders:burst');
    now = T0 + 10_000; // the burst window has slid past; the sustained one holds 10 of 15
    for (let i = 0; i < 5; i++) expect(p.acquire('u', rules, now).ok).toBe(true);
    const sustained = p.acquire('u', rules, now + 1);
    expect(sustained).toMatchObject({ ok: false, retryAt: T0 + 600_000, limit: 15, resetAt: T0 + 600_000 });
    if (!sustained.ok) expect(sustained.rule.name).toBe('DELETE /cancel-market-orders:sustained');
    expect(p.acquire('u', rules, T0 + 599_999).ok).toBe(false);
    expect(p.acquire('u', rules, T0 + 600_000).ok).toBe(true);
  });
  it('the default cancel-market-orders sustained limit (1500/10 min) binds before the 10 s burst can be used again', () => {
    const p = new RatePolicy();
    const rules = p.rulesFor('clob', 'DELETE', '/cancel-market-orders');
    for (let i = 0; i < 1000; i++) expect(p.acquire('u', rules, T0).ok).toBe(true);
    for (let i = 0; i < 500; i++) expect(p.acquire('u', rules, T0 + 10_000).ok).toBe(true);
    const r = p.acquire('u', rules, T0 + 20_000);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.rule.name).toBe('DELETE /cancel-market-orders:sustained');
      expect(r.retryAt).toBe(T0 + 600_000);
    }
  });
  it('is all or nothing: a refusal consumes from no rule', () => {
    const p = new RatePolicy({ rules: { 'GET /book': { limit: 2 }, clob: { limit: 5 } } });
    const book = p.rulesFor('clob', 'GET', '/book');
    const price = p.rulesFor('clob', 'GET', '/price');
    expect(p.acquire('u', book, T0).ok).toBe(true);
    expect(p.acquire('u', book, T0).ok).toBe(true);
    for (let i = 0; i < 10; i++) expect(p.acquire('u', book, T0 + 1).ok).toBe(false);
    // the refused /book calls did not eat into 'clob' (5) or 'general': 3 more fit
    for (let i = 0; i < 3; i++) expect(p.acquire('u', price, T0 + 2).ok).toBe(true);
    const r = p.acquire('u', price, T0 + 3);
    expect(r).toMatchObject({ ok: false, limit: 5, retryAt: T0 + 10_000 });
    if (!r.ok) expect(r.rule.name).toBe('clob');
  });
  it('retryAt is when every blocking rule has room (the latest of them)', () => {
    const p = new RatePolicy({ rules: { 'POST /order:burst': { limit: 2 }, 'POST /order:sustained': { limit: 2 } } });
    const rules = p.rulesFor('clob', 'POST', '/order');
    expect(p.acquire('u', rules, T0).ok).toBe(true);
    expect(p.acquire('u', rules, T0 + 1000).ok).toBe(true);
    const r = p.acquire('u', rules, T0 + 2000);
    expect(r).toMatchObject({ ok: false, retryAt: T0 + 600_000, limit: 2 });
    if (!r.ok) expect(r.rule.name).toBe('POST /order:sustained');
  });
  it('reports the tightest rule on success, with resetAt when its window frees a slot', () => {
    const p = new RatePolicy();
    const rules = p.rulesFor('clob', 'GET', '/book');
    const r1 = p.acquire('u', rules, T0);
    expect(r1).toEqual({
      ok: true,
      tightest: { rule: p.rule('GET /book'), limit: 100, remaining: 99, resetAt: T0 + 10_000 },
    });
    const r2 = p.acquire('u', rules, T0 + 500);
    expect(r2).toMatchObject({ ok: true, tightest: { limit: 100, remaining: 98, resetAt: T0 + 10_000 } });
    const cancel = p.acquire('u', p.rulesFor('clob', 'DELETE', '/cancel-all'), T0);
    expect(cancel).toMatchObject({ ok: true, tightest: { limit: 250, remaining: 249, resetAt: T0 + 10_000 } });
  });
  it('isolates identities', () => {
    const p = new RatePolicy({ rules: { 'clob-api-keys': { limit: 1 } } });
    const rules = p.rulesFor('clob', 'POST', '/auth/api-key');
    expect(p.acquire('alice', rules, T0).ok).toBe(true);
    expect(p.acquire('alice', rules, T0).ok).toBe(false);
    expect(p.acquire('bob', rules, T0).ok).toBe(true);
  });
  it('scale multiplies every limit (overrides included)', () => {
    const p = new RatePolicy({ scale: 0.01 });
    expect(p.rule('general')?.limit).toBe(150);
    expect(p.rule('POST /order:sustained')).toEqual({ name: 'POST /order:sustained', limit: 360, windowMs: 600_000 });
    expect(p.rule('data-api')?.limit).toBe(1); // floored, at least 1
    const rules = p.rulesFor('gamma', 'GET', '/events');
    expect(p.acquire('u', rules, T0).ok).toBe(true);
    expect(p.acquire('u', rules, T0).ok).toBe(false);
    expect(new RatePolicy({ scale: 2, rules: { health: { limit: 3, windowMs: 1000 } } }).rule('health')).toEqual({
      name: 'health',
      limit: 6,
      windowMs: 1000,
    });
  });
  it('refuses bad overrides with ConfigError', () => {
    expect(() => new RatePolicy({ rules: { 'POST /nope': { limit: 1 } } })).toThrow(ConfigError);
    expect(() => new RatePolicy({ scale: 0 })).toThrow(ConfigError);
    expect(() => new RatePolicy({ rules: { general: { limit: -1 } } })).toThrow(ConfigError);
  });
  it('sweep drops idle identities across rules', () => {
    const p = new RatePolicy();
    p.acquire('u', p.rulesFor('clob', 'POST', '/order'), T0);
    expect(p.sweep(T0 + 10_000)).toBe(3); // general, clob, burst idle; sustained still counting
    expect(p.sweep(T0 + 600_000)).toBe(1);
    expect(p.sweep(T0 + 600_000)).toBe(0);
  });
});

describe('RatePolicy tables: size, sweep and bound (issue 16, defect 2)', () => {
  it('size() counts (identity, rule) states; sweep returns it to zero once every window is idle', () => {
    const p = new RatePolicy();
    const rules = p.rulesFor('clob', 'GET', '/book');
    for (let i = 0; i < 50; i++) expect(p.acquire(`ip:${i}`, rules, 1000).ok).toBe(true);
    expect(p.size()).toBe(50 * rules.length);
    expect(p.sweep(1000 + 9_999)).toBe(0);
    expect(p.sweep(1000 + 10_000)).toBe(50 * rules.length);
    expect(p.size()).toBe(0);
  });

  it('a full table sweeps, then refuses new identities (nothing consumed) and keeps serving known ones', () => {
    const p = new RatePolicy({}, { maxIdentities: 2 });
    const rules = p.rulesFor('clob', 'GET', '/book');
    expect(p.acquire('a', rules, 0).ok).toBe(true);
    expect(p.acquire('b', rules, 0).ok).toBe(true);
    const r = p.acquire('c', rules, 10);
    expect(r).toMatchObject({ ok: false, retryAt: 1010 });
    expect(p.size()).toBe(2 * rules.length);
    expect(p.acquire('a', rules, 20).ok).toBe(true);
    // once a and b are idle, the sweep on the next new identity makes room
    expect(p.acquire('c', rules, 20_000).ok).toBe(true);
    expect(p.size()).toBe(rules.length);
  });

  it('rejects a non-positive bound', () => {
    expect(() => new RatePolicy({}, { maxIdentities: 0 })).toThrow(ConfigError);
  });
});
