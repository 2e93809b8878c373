/**
 * The venue's per-signer token buckets on the paper exchange ("CLOB Trading Rate Limits"): batches
 * count their entries, all or nothing; the cancel bucket is separate; cancel-all is charged after;
 * the Poly-RateLimit-* headers; the tier route and the admin route; one signer's limit is not
 * another's; warn mode. The exchange runs on a virtual clock: buckets refill only when told.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/clock.ts';
import { ADMIN, startVenue, yes, type TestVenue } from '../integration/support/setup.ts';
import type { Trader } from '../integration/support/trader.ts';

const venues: TestVenue[] = [];
afterAll(async () => Promise.all(venues.map((v) => v.close())));

async function venue(clock: VirtualClock, mode?: 'enforce' | 'warn'): Promise<TestVenue> {
  const v = await startVenue({
    clock,
    http: {
      rateLimits: { enabled: true, scale: 1, queueMs: 0 },
      ...(mode ? { signerLimits: { mode } } : {}),
    },
  });
  venues.push(v);
  return v;
}

/** A batch of `n` BUY 0.01 × 5 orders (cheap, never crossing). */
function batch(v: TestVenue, t: Trader, n: number): unknown[] {
  return Array.from({ length: n }, () => t.order(yes(v.m1), 'BUY', '0.01', '5').body);
}

function signerHeaders(h: Headers) {
  return {
    tier: h.get('poly-ratelimit-tier'),
    remaining: h.get('poly-ratelimit-remaining'),
    reset: h.get('poly-ratelimit-reset'),
    warning: h.get('poly-ratelimit-warning'),
    retryAfter: h.get('retry-after'),
  };
}

describe('per-signer buckets on the paper exchange (enforce, standard tier)', () => {
  it('N orders in batches exhaust the order bucket; the next batch is refused whole, nothing placed; cancels are a separate bucket', async () => {
    const clock = new VirtualClock(Date.now());
    const v = await venue(clock);
    const t = await v.trader();
    const now = () => Math.ceil(clock.now() / 1000);
    for (let i = 1; i <= 4; i++) {
      const r = await t.l2('POST', '/orders', batch(v, t, 15));
      expect(r.status).toBe(200);
      expect(r.body.every((e: { success: boolean }) => e.success)).toBe(true);
      expect(signerHeaders(r.headers)).toEqual({
        tier: 'standard',
        remaining: String(60 - 15 * i),
        reset: String(now()),
        warning: null,
        retryAfter: null,
      });
    }
    expect(v.running.exchange.openOrders(t.address)).toHaveLength(60);

    const refused = await t.l2('POST', '/orders', batch(v, t, 15));
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ success: false, error: { code: 'RATE_LIMITED' } });
    expect(signerHeaders(refused.headers)).toMatchObject({
      tier: 'standard',
      remaining: '0',
      reset: String(Math.ceil((clock.now() + 375) / 1000)), // 15 tokens at 40 / s
      retryAfter: '1',
    });
    expect(v.running.exchange.openOrders(t.address)).toHaveLength(60); // nothing of the batch was placed
    // a single order is refused as well (the bucket is empty); 25 ms later it passes
    expect((await t.place(yes(v.m1), 'BUY', '0.01', '5')).status).toBe(429);
    clock.advance(25);
    const one = await t.place(yes(v.m1), 'BUY', '0.01', '5');
    expect(one.status).toBe(200);
    expect(one.headers.get('poly-ratelimit-remaining')).toBe('0');

    // the cancel bucket is untouched: 61 ids in one DELETE /orders (cost 61 of 120)
    const ids = v.running.exchange.openOrders(t.address).map((o) => o.id);
    const del = await t.l2('DELETE', '/orders', ids);
    expect(del.status).toBe(200);
    expect(del.body.canceled).toHaveLength(61);
    expect(signerHeaders(del.headers)).toMatchObject({ tier: 'standard', remaining: String(120 - 61) });
    // a cancel above the burst can never pass: 429 without Retry-After, telling to split it
    const big = await t.l2(
      'DELETE',
      '/orders',
      Array.from({ length: 121 }, (_, i) => `0x${i.toString(16).padStart(64, '0')}`),
    );
    expect(big.status).toBe(429);
    expect(big.body).toMatchObject({ error: { code: 'RATE_LIMIT_BURST_EXCEEDED' } });
    expect(big.body.error.message).toMatch(/split it/);
    expect(big.headers.get('retry-after')).toBeNull();
    expect(v.running.security.counts().rate_limited).toBeGreaterThanOrEqual(3);
  });

  it('cancel-all takes one token first and one per cancelled order after: negative on standard', async () => {
    const clock = new VirtualClock(Date.now());
    const v = await venue(clock);
    const t = await v.trader();
    for (let i = 0; i < 4; i++) expect((await t.l2('POST', '/orders', batch(v, t, 15))).status).toBe(200);
    const del = await t.l2(
      'DELETE',
      '/orders',
      v.running.exchange
        .openOrders(t.address)
        .slice(0, 50)
        .map((o) => o.id),
    );
    expect(del.headers.get('poly-ratelimit-remaining')).toBe('70');
    clock.advance(1500); // the order bucket is full again
    for (let i = 0; i < 4; i++) expect((await t.l2('POST', '/orders', batch(v, t, 15))).status).toBe(200);
    expect(v.running.exchange.openOrders(t.address)).toHaveLength(70);
    // the cancel bucket is full again too (120): cancel-all costs 1 + 70
    const all = await t.l2('DELETE', '/cancel-all');
    expect(all.status).toBe(200);
    expect(all.body.canceled).toHaveLength(70);
    expect(all.headers.get('poly-ratelimit-remaining')).toBe(String(120 - 1 - 70));
    // again with 180 open orders: 120 - 1 - 180 = -61 (standard allows a negative cancel balance)
    for (let k = 0; k < 3; k++) {
      clock.advance(1500);
      for (let i = 0; i < 4; i++) expect((await t.l2('POST', '/orders', batch(v, t, 15))).status).toBe(200);
    }
    expect(v.running.exchange.openOrders(t.address)).toHaveLength(180);
    const all2 = await t.l2('DELETE', '/cancel-all');
    expect(all2.body.canceled).toHaveLength(180);
    expect(all2.headers.get('poly-ratelimit-remaining')).toBe('-61');
    // the next cancel waits for the bucket to hold a token again
    const next = await t.l2('DELETE', '/order', { orderID: '0x01' });
    expect(next.status).toBe(429);
    expect(next.body).toMatchObject({ error: { code: 'RATE_LIMITED' } });
    expect(next.headers.get('retry-after')).toBe('1'); // 62 tokens at 80 / s: 775 ms
    expect(next.headers.get('poly-ratelimit-reset')).toBe(String(Math.ceil((clock.now() + 775) / 1000)));
    clock.advance(775);
    expect((await t.l2('DELETE', '/order', { orderID: '0x01' })).status).toBe(200);
  });

  it('another signer is unaffected; GET /v1/user/rate-limit-tier; the admin route sets a tier at once', async () => {
    const clock = new VirtualClock(Date.now());
    const v = await venue(clock);
    const a = await v.trader();
    const b = await v.trader();
    for (let i = 0; i < 4; i++) await a.l2('POST', '/orders', batch(v, a, 15));
    expect((await a.l2('POST', '/orders', batch(v, a, 15))).status).toBe(429);
    const rb = await b.l2('POST', '/orders', batch(v, b, 15));
    expect(rb.status).toBe(200);
    expect(rb.headers.get('poly-ratelimit-remaining')).toBe('45');

    const tier = await a.l2('GET', '/v1/user/rate-limit-tier');
    expect(tier.status).toBe(200);
    expect(tier.body).toEqual({ tier: 'standard' });
    expect((await a.raw('GET', '/v1/user/rate-limit-tier')).status).toBe(401); // L2 auth

    const set = await v.admin('/rate-limit-tier', { address: a.address, tier: 'Gold' });
    expect(set).toMatchObject({ status: 200, body: { ok: true, tier: 'gold' } });
    expect((await a.l2('GET', '/v1/user/rate-limit-tier')).body).toEqual({ tier: 'gold' });
    expect((await b.l2('GET', '/v1/user/rate-limit-tier')).body).toEqual({ tier: 'standard' });
    clock.advance(100); // gold refills 400 / s
    const ra = await a.l2('POST', '/orders', batch(v, a, 15));
    expect(ra.status).toBe(200);
    expect(ra.headers.get('poly-ratelimit-tier')).toBe('gold');
    expect(ra.headers.get('poly-ratelimit-remaining')).toBe('25');
    const bad = await v.admin('/rate-limit-tier', { address: a.address, tier: 'titanium' });
    expect(bad.status).toBe(400);
    const read = await fetch(`${v.clob.replace(/\/clob$/, '')}/admin/rate-limit-tier?address=${a.address}`, {
      headers: { 'x-admin-token': ADMIN },
    });
    expect(await read.json()).toEqual({ address: a.address, tier: 'gold', mode: 'enforce' });
  });
});

describe('warn mode (the public service in its warning period)', () => {
  it('processes what enforcement would refuse and flags it with Poly-RateLimit-Warning: true', async () => {
    const clock = new VirtualClock(Date.now());
    const v = await venue(clock, 'warn');
    const t = await v.trader();
    for (let i = 0; i < 4; i++) {
      const r = await t.l2('POST', '/orders', batch(v, t, 15));
      expect(r.headers.get('poly-ratelimit-warning')).toBeNull();
    }
    const over = await t.l2('POST', '/orders', batch(v, t, 15));
    expect(over.status).toBe(200);
    expect(signerHeaders(over.headers)).toMatchObject({ tier: 'standard', remaining: '0', warning: 'true' });
    expect(v.running.exchange.openOrders(t.address)).toHaveLength(75);
  });

  it('off (and with the rate limits off): no buckets, no headers', async () => {
    const v = await startVenue({ http: { rateLimits: { enabled: false, scale: 1, queueMs: 0 } } });
    venues.push(v);
    const t = await v.trader();
    for (let i = 0; i < 6; i++) {
      const r = await t.l2('POST', '/orders', batch(v, t, 15));
      expect(r.status).toBe(200);
      expect(r.headers.get('poly-ratelimit-tier')).toBeNull();
    }
    expect(v.running.signerLimits.mode).toBe('off');
  });
});
