/**
 * Fault injection on the HTTP APIs: configured at start or at run time through the admin route;
 * off by default.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startVenue, yes, type TestVenue } from './support/setup.ts';

let v: TestVenue;
let base: string;
const admin = async (method: string, path: string, body?: unknown) => {
  const r = await fetch(`${base}/admin${path}`, {
    method,
    headers: { 'x-admin-token': ADMIN, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: r.status, body: (await r.json()) as any };
};

beforeAll(async () => {
  v = await startVenue({ faults: [{ route: 'GET /clob/sampling-markets', status: 503 }] });
  base = v.clob.replace(/\/clob$/, '');
});
afterAll(async () => v?.close());

describe('HTTP fault injection', () => {
  it('applies rules given at start', async () => {
    const r = await fetch(`${v.clob}/sampling-markets`);
    expect(r.status).toBe(503);
    expect(((await r.json()) as any).error.code).toBe('SERVICE_UNAVAILABLE');
    expect((await fetch(`${v.clob}/markets`)).status).toBe(200);
  });

  it('answers 425 / 429 / 500 on the routes named, set at run time, and clears', async () => {
    await admin('DELETE', '/faults');
    const t = await v.trader();
    const order = t.order(yes(v.m1), 'BUY', '0.20', '10').body;
    expect((await admin('POST', '/faults', { route: 'POST /clob/order', status: 425 })).status).toBe(200);
    const r425 = await t.l2('POST', '/order', order);
    expect(r425.status).toBe(425);
    expect(r425.body.error.code).toBe('SERVICE_NOT_READY');
    // the refused order changed nothing: it can be sent again once the fault is gone
    expect((await t.l2('GET', '/data/orders')).body.data).toEqual([]);
    await admin('PUT', '/faults', [
      { route: '/clob/book', status: 429 },
      { route: 'GET /clob/midpoint', status: 500 },
    ]);
    const r429 = await fetch(`${v.clob}/book?token_id=${yes(v.m1)}`);
    expect(r429.status).toBe(429);
    expect(r429.headers.get('retry-after')).toBe('1');
    expect(r429.headers.get('x-ratelimit-remaining')).toBe('0');
    expect((await fetch(`${v.clob}/midpoint?token_id=${yes(v.m1)}`)).status).toBe(500);
    expect((await t.l2('POST', '/order', order)).body.status).toBe('live');
    await admin('DELETE', '/faults');
    expect((await fetch(`${v.clob}/book?token_id=${yes(v.m1)}`)).status).toBe(200);
  });

  it('adds latency', async () => {
    const rule = (await admin('POST', '/faults', { route: '/clob/time', latencyMs: 300 })).body.rule;
    const t0 = Date.now();
    expect((await fetch(`${v.clob}/time`)).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(280);
    expect((await admin('DELETE', `/faults/${rule.id}`)).status).toBe(200);
    expect((await admin('GET', '/faults')).body.rules).toEqual([]);
  });

  it('applies a probability and expires rules by time', async () => {
    await admin('PUT', '/faults', [{ route: '/clob/time', status: 500, probability: 0.5 }]);
    let fails = 0;
    for (let i = 0; i < 60; i++) if ((await fetch(`${v.clob}/time`)).status === 500) fails++;
    expect(fails).toBeGreaterThan(10);
    expect(fails).toBeLessThan(50);
    await admin('PUT', '/faults', [{ route: '/clob/time', status: 500, untilMs: Date.now() + 200 }]);
    expect((await fetch(`${v.clob}/time`)).status).toBe(500);
    await new Promise((r) => setTimeout(r, 250));
    expect((await fetch(`${v.clob}/time`)).status).toBe(200);
  });

  it('refuses bad rules and needs the admin token', async () => {
    expect((await admin('POST', '/faults', { route: '/clob/time', status: 404 })).status).toBe(400);
    expect((await admin('POST', '/faults', { freeze: true, route: '/clob' })).status).toBe(400);
    expect((await admin('POST', '/faults', { route: '/clob/time' })).status).toBe(400);
    // a list POSTed: the answer says which verb takes it
    const listed = await admin('POST', '/faults', [{ route: '/clob/time', status: 503 }]);
    expect(listed.status).toBe(400);
    expect(JSON.stringify(listed.body)).toContain('PUT /admin/faults replaces the list (an array)');
    const r = await fetch(`${base}/admin/faults`, { method: 'DELETE', headers: { 'x-admin-token': 'nope' } });
    expect(r.status).toBe(403);
  });
});
