/**
 * Issue 16, defect 5 (part): a garbage trade-history bound is refused, not answered with an empty
 * history; an order (of any type) whose signed expiration is already past is refused and changes
 * nothing. Real paper exchange on loopback, real HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVenue, yes, type TestVenue } from '../integration/support/setup.ts';
import type { Trader } from '../integration/support/trader.ts';

let v: TestVenue;
let t: Trader;
beforeAll(async () => {
  v = await startVenue();
  t = await v.trader();
});
afterAll(async () => v?.close());

describe('the paper exchange refuses bad input in the envelope', () => {
  it('GET /trades with a bound that is not unix seconds: 400', async () => {
    for (const q of ['before=garbage', 'after=1e9', 'before=-5']) {
      const r = await t.l2('GET', '/trades', undefined, q);
      expect(r.status, q).toBe(400);
      expect(r.body).toMatchObject({ success: false, error: { code: 'BAD_REQUEST' } });
    }
    expect((await t.l2('GET', '/trades', undefined, 'before=9999999999')).status).toBe(200);
  });

  it('a GTC or FOK order whose signed expiration is past: INVALID_ORDER_EXPIRATION, nothing changes', async () => {
    const before = (await t.l2('GET', '/balances')).body;
    const past = Math.floor(Date.now() / 1000) - 60;
    for (const type of ['GTC', 'FOK'] as const) {
      const r = await t.place(yes(v.m1), 'BUY', '0.30', '10', { type, expiration: past });
      expect(r.status, type).toBe(400);
      expect(r.body).toMatchObject({ error: { code: 'INVALID_ORDER_EXPIRATION' } });
    }
    expect((await t.l2('GET', '/balances')).body).toEqual(before);
    expect((await t.l2('GET', '/data/orders')).body.data ?? (await t.l2('GET', '/data/orders')).body).toEqual([]);
    // a GTC with no expiration (0) rests as always
    expect((await t.place(yes(v.m1), 'BUY', '0.30', '10', { type: 'GTC' })).status).toBe(200);
  });
});
