/**
 * The dead-man switch (with the exchange on a virtual clock, so 10 s pass instantly) and the
 * spec's rate limits (with their default numbers) on the real server.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/clock.ts';
import { startVenue, yes, type TestVenue } from './support/setup.ts';

const venues: TestVenue[] = [];
afterAll(async () => Promise.all(venues.map((v) => v.close())));

describe('dead-man switch: POST /v1/heartbeats', () => {
  it("cancels all of a user's orders 10 s after the last heartbeat, and only then", async () => {
    const clock = new VirtualClock(Date.now());
    const v = await startVenue({ clock });
    venues.push(v);
    const a = await v.trader();
    const b = await v.trader();
    const o1 = await a.place(yes(v.m1), 'BUY', '0.40', '10');
    const o2 = await a.place(yes(v.m1), 'BUY', '0.41', '10');
    const ob = await b.place(yes(v.m1), 'BUY', '0.39', '10');
    const open = async (t: typeof a) => (await t.l2('GET', '/data/orders')).body.data.map((o: any) => o.id).sort();

    // no heartbeat sent yet: nothing is cancelled however long we wait
    clock.advance(60_000);
    expect(await open(a)).toEqual([o1.id, o2.id].sort());

    const h1 = await a.l2('POST', '/v1/heartbeats', { heartbeat_id: null });
    expect(h1.status).toBe(200);
    expect(typeof h1.body.heartbeat_id).toBe('string');
    clock.advance(9_000);
    const h2 = await a.l2('POST', '/v1/heartbeats', { heartbeat_id: h1.body.heartbeat_id });
    expect(h2.body.heartbeat_id).not.toBe(h1.body.heartbeat_id);
    clock.advance(9_500);
    expect(await open(a)).toEqual([o1.id, o2.id].sort());
    clock.advance(1_000); // 10.5 s since the last heartbeat
    expect(await open(a)).toEqual([]);
    expect((await a.l2('GET', `/data/order/${o1.id}`)).body.status).toBe('CANCELED');
    // B never started heartbeats: untouched
    expect(await open(b)).toEqual([ob.id]);
    // collateral fully released
    expect((await a.l2('GET', '/balances')).body.collateral.reserved).toBe('0');
  });

  it('needs auth', async () => {
    const v = venues[0]!;
    const r = await fetch(`${v.clob}/v1/heartbeats`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"heartbeat_id":null}',
    });
    expect(r.status).toBe(401);
  });
});

describe('rate limits (spec section 8, default numbers)', () => {
  it('GET /book: 100 per 10 s, then delayed briefly and answered 429 with its headers', async () => {
    const v = await startVenue({ http: { rateLimits: { enabled: true, scale: 1, queueMs: 200 } } });
    venues.push(v);
    const url = `${v.clob}/book?token_id=${yes(v.m1)}`;
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) statuses.push((await fetch(url)).status);
    expect(statuses.every((s) => s === 200)).toBe(true);
    const t0 = Date.now();
    const r = await fetch(url);
    const waited = Date.now() - t0;
    expect(r.status).toBe(429);
    expect(waited).toBeGreaterThanOrEqual(150); // held in the queue first, as the spec's edge does
    expect(r.headers.get('x-ratelimit-limit')).toBe('100');
    expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
    const reset = Number(r.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThan(Date.now() / 1000);
    expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 11);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const body = await r.json();
    expect(body).toMatchObject({ success: false, error: { code: 'RATE_LIMITED' } });
    // other endpoints have their own budget
    expect((await fetch(`${v.clob}/tick-size?token_id=${yes(v.m1)}`)).status).toBe(200);
  });

  it("counts an authenticated user's trading budget per API key", async () => {
    const v = await startVenue({
      http: {
        rateLimits: {
          enabled: true,
          scale: 1,
          queueMs: 0,
          rules: { 'DELETE /cancel-all:burst': { limit: 3, windowMs: 10_000 } },
        },
      },
    });
    venues.push(v);
    const a = await v.trader();
    const b = await v.trader();
    for (let i = 0; i < 3; i++) expect((await a.l2('DELETE', '/cancel-all')).status).toBe(200);
    const r = await a.l2('DELETE', '/cancel-all');
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).not.toBeNull();
    expect((await b.l2('DELETE', '/cancel-all')).status).toBe(200);
  });
});
