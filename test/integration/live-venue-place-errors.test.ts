/**
 * `LiveVenue.place` (src/venues/live/live-venue.ts) when POST /orders fails as a whole, against the real
 * paper exchange over loopback HTTP (its fault injection answers instead of serving):
 *
 *  - an error that proves the venue did not accept the request (a 429 after the transport's
 *    retries) is THROWN when no outcome was collected yet, so the executor marks the orders
 *    rejected and backs off, instead of resolving each one by id as UNKNOWN;
 *  - an error after which the request may have landed (503/500 after the retries, a timeout, or a
 *    429 that follows a timed-out attempt) still gives UNKNOWN outcomes;
 *  - a 429 on a later chunk of the same call does not throw (the first chunk's outcomes are kept):
 *    the rest is UNKNOWN, and not sent;
 *  - a normal place still returns ok outcomes.
 *
 * The transport is built here with short retries (2 attempts, waits capped at 20 ms, Retry-After
 * included) and the client budgets off, so that nothing waits for the 1 s Retry-After of a 429.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HttpTransport } from '../../src/api/http/transport.ts';
import { RateLimitError } from '../../src/core/errors.ts';
import type { ConditionId, TokenId } from '../../src/core/ids.ts';
import type { Micro, Pips } from '../../src/core/units.ts';
import type { LiveVenue } from '../../src/venues/live/live-venue.ts';
import type { PlaceOutcome, PreparedOrder } from '../../src/core/venue.ts';
import { eventually, startVenue, yes, type TestVenue, partsVenueFor } from './support/setup.ts';

type HttpFault = { status?: number; latencyMs?: number } | undefined;

let v: TestVenue;
/** Every POST /clob/orders that reached the exchange (its fault hook sees each before any handler). */
let posts = 0;
/** Scripted faults for the next POST /clob/orders requests, in order ('rules': the fault rules decide). */
let script: Array<HttpFault | 'rules'> = [];
const venues: Array<{ venue: LiveVenue; transport: HttpTransport }> = [];

beforeAll(async () => {
  v = await startVenue();
  const f = v.running.faults;
  const orig = f.http.bind(f);
  f.http = (method: string, path: string) => {
    if (method !== 'POST' || path !== '/clob/orders') return orig(method, path);
    posts++;
    const s = script.shift();
    return s === undefined || s === 'rules' ? orig(method, path) : s;
  };
});
afterEach(() => {
  v.running.faults.clear();
  script = [];
});
afterAll(async () => {
  for (const { venue } of venues) {
    await venue.cancelAll().catch(() => undefined);
    await venue.close();
  }
  await v?.close();
});

/** A live venue on its own wallet and transport: 2 attempts per request, waits capped at 20 ms. */
async function makeVenue(o: { timeoutMs?: number } = {}): Promise<{ venue: LiveVenue; transport: HttpTransport }> {
  const { venue, transport } = await partsVenueFor(v, {
    transport: {
      retry: { maxAttempts: 2, baseMs: 5, capMs: 20 },
      budgets: { enabled: false },
      ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
    },
    presign: false,
  });
  const r = { venue, transport };
  venues.push(r);
  return r;
}

/** `n` small GTC bids on m1's YES token at distinct prices from `from` pips, 0.01 apart. */
function bids(venue: LiveVenue, n: number, from = 100): readonly PreparedOrder[] {
  const m = v.m1;
  return venue.prepare(
    Array.from({ length: n }, (_, i) => ({
      market: m.condition_id as ConditionId,
      tokenId: yes(m) as TokenId,
      side: 'BUY' as const,
      price: (from + i * 100) as Pips,
      size: 5_000_000 as Micro,
      type: 'GTC' as const,
    })),
  );
}

const codes = (outs: readonly PlaceOutcome[]) => outs.map((o) => (o.ok ? 'ok' : o.code));
const atExchange = (ps: readonly PreparedOrder[]) =>
  ps.filter((p) => v.running.exchange.engine.getOrder(p.id) !== undefined).length;

/** Whether every one of these orders rests at the exchange (as the venue's order lookup says). */
async function allLive(
  venue: { order(id: string): Promise<{ status: string } | undefined> },
  ps: ReadonlyArray<{ id: string }>,
) {
  for (const p of ps) if ((await venue.order(p.id).catch(() => undefined))?.status !== 'LIVE') return false;
  return true;
}

describe('LiveVenue.place when POST /orders fails as a whole', () => {
  it('a 429 (after the transport retries) is thrown as a RateLimitError, and no order reached the exchange', async () => {
    const { venue } = await makeVenue();
    const ps = bids(venue, 3);
    v.running.faults.add({ route: 'POST /clob/orders', status: 429 });
    const before = posts;
    const err = await venue.place(ps).then(
      (outs) => outs,
      (e: unknown) => e,
    );
    expect(err, `expected a rejection, got outcomes ${JSON.stringify(err)}`).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).code).toBe('RATE_LIMITED');
    expect(posts - before).toBe(2); // both attempts refused at the door
    expect(atExchange(ps)).toBe(0);
    expect(await venue.openOrders()).toEqual([]);
    // the same signed orders, once the 429s stop: accepted as new (not duplicates), so they were never there
    v.running.faults.clear();
    expect(codes(await venue.place(ps))).toEqual(['ok', 'ok', 'ok']);
    expect(atExchange(ps)).toBe(3);
  });

  it.each([503, 500] as const)(
    'a %i (after the transport retries) still gives UNKNOWN for every entry',
    async (status) => {
      const { venue } = await makeVenue();
      const ps = bids(venue, 2, 1000);
      v.running.faults.add({ route: 'POST /clob/orders', status });
      const outs = await venue.place(ps);
      expect(codes(outs)).toEqual(['UNKNOWN', 'UNKNOWN']);
      expect(outs.map((o) => o.id)).toEqual(ps.map((p) => p.id));
      expect(outs[0]).toMatchObject({
        message: expect.stringMatching(status === 503 ? /^SERVICE_UNAVAILABLE: / : /^NETWORK: /),
      });
    },
  );

  it('a timeout still gives UNKNOWN for every entry (the request landed)', async () => {
    const { venue } = await makeVenue({ timeoutMs: 150 });
    const ps = bids(venue, 2, 2000);
    // every attempt answers late: each one times out at the client, and lands at the exchange
    v.running.faults.add({ route: 'POST /clob/orders', latencyMs: 400 });
    const outs = await venue.place(ps);
    if (outs.every((o) => o.ok)) {
      // the transport's resend was answered as a duplicate and resolved by id: also fine
      expect(outs.map((o) => o.id)).toEqual(ps.map((p) => p.id));
    } else {
      expect(codes(outs)).toEqual(['UNKNOWN', 'UNKNOWN']);
    }
    // the late attempts land at the exchange after the client gave up on them: waited for
    await eventually(() => allLive(venue, ps));
    for (const p of ps) expect(await venue.order(p.id)).toMatchObject({ id: p.id, status: 'LIVE' });
  });

  it('a 429 that follows a timed-out attempt is NOT proof: UNKNOWN (and the first attempt did land)', async () => {
    const { venue } = await makeVenue({ timeoutMs: 150 });
    const ps = bids(venue, 2, 3000);
    script = [{ latencyMs: 400 }, { status: 429 }]; // attempt 1: late (lands), attempt 2: 429
    const outs = await venue.place(ps);
    expect(codes(outs)).toEqual(['UNKNOWN', 'UNKNOWN']);
    await eventually(() => allLive(venue, ps));
    for (const p of ps) expect(await venue.order(p.id)).toMatchObject({ id: p.id, status: 'LIVE' });
  });

  it('a 429 on a later chunk does not throw: the first chunk keeps its outcomes, the rest is UNKNOWN and not sent', async () => {
    const { venue } = await makeVenue();
    const ps = bids(venue, 31, 100); // three chunks: 15, 15, 1
    script = ['rules', { status: 429 }, { status: 429 }]; // chunk 1 served; chunk 2 refused twice
    const before = posts;
    const outs = await venue.place(ps);
    expect(outs.map((o) => o.id)).toEqual(ps.map((p) => p.id));
    expect(codes(outs)).toEqual([...Array<string>(15).fill('ok'), ...Array<string>(16).fill('UNKNOWN')]);
    expect(posts - before).toBe(3); // chunk 3 was never sent
    expect(atExchange(ps.slice(0, 15))).toBe(15);
    expect(atExchange(ps.slice(15))).toBe(0);
  });

  it('a normal place still returns ok outcomes', async () => {
    const { venue } = await makeVenue();
    const ps = bids(venue, 4, 500);
    const before = posts;
    const outs = await venue.place(ps);
    expect(outs).toEqual(ps.map((p) => ({ id: p.id, ok: true, status: 'live' })));
    expect(posts - before).toBe(1);
    expect(atExchange(ps)).toBe(4);
    expect((await venue.openOrders()).map((o) => o.id).sort()).toEqual(ps.map((p) => p.id).sort());
  });
});
