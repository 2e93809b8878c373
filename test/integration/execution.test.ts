/**
 * Execution + store + the live Venue adapter against the real paper exchange on a loopback port:
 * quotes placed, re-quoted with minimal churn, fills recorded once (stream and REST backfill),
 * cancelAll leaving zero open orders at the exchange, and a 429 storm (the exchange started with
 * tiny limits, the client budgeted for the spec's) that loses no intent and causes no retry storm.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Subscription } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpTransport } from '../../src/api/http/transport.ts';
import type { ConditionId, TokenId } from '../../src/core/ids.ts';
import type { DesiredQuotes, QuoteIntent } from '../../src/core/intents.ts';
import { formatAmount, formatPrice, PRICE_SCALE, type Micro, type Pips, type Side } from '../../src/core/units.ts';
import type { LiveVenue } from '../../src/venues/live/live-venue.ts';
import { Executor } from '../../src/execution/executor.ts';
import { HeartbeatKeeper } from '../../src/execution/heartbeat.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { no, sleep, startVenue, yes, type TestVenue, liveVenueFor, partsVenueFor } from './support/setup.ts';
import type { Approved } from '../../src/risk/gate.ts';
import { approved } from '../support/approve.ts';

const q = (tokenId: TokenId, side: Side, price: number, shares: number): QuoteIntent => ({
  tokenId,
  side,
  price: price as Pips,
  size: (shares * 1_000_000) as Micro,
});
async function until(cond: () => boolean | Promise<boolean>, ms = 30_000, what = 'condition'): Promise<void> {
  const t0 = Date.now();
  while (!(await cond())) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mmkit-exec-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('execution on the paper exchange', () => {
  let v: TestVenue;
  let venue: LiveVenue;
  let store: Store;
  let ex: Executor;
  let sub: Subscription;
  let M: ConditionId;
  let Y: TokenId;
  let N: TokenId;
  let at = 0;
  const want = (quotes: QuoteIntent[]): Approved<DesiredQuotes> => approved({ market: M, quotes, at: ++at });
  const openIds = async (): Promise<string[]> => (await venue.openOrders()).map((o) => o.id).sort();

  beforeAll(async () => {
    v = await startVenue();
    venue = await liveVenueFor(v, { silenceMs: 0 }, 'content');
    await venue.markets();
    M = v.m1.condition_id as ConditionId;
    Y = yes(v.m1) as TokenId;
    N = no(v.m1) as TokenId;
    store = openStore(join(dir, 'a.db'), { clock: venue.clock });
    ex = new Executor({ venue, store, tolerance: { priceTicks: 1, sizeFraction: 0.1 }, tickPips: () => 100 });
    let synced = false;
    sub = venue.userEvents([M]).subscribe((e) => {
      if (e.type === 'resynced') synced = true;
      ex.onUserEvent(e);
    });
    await until(() => synced, 30_000, 'user channel sync');
  });
  afterAll(async () => {
    sub?.unsubscribe();
    await ex?.close();
    store?.close();
    await venue?.close();
    await v?.close();
  });

  it('places quotes, then re-quotes with minimal churn', async () => {
    ex.submit(want([q(Y, 'BUY', 300, 10), q(Y, 'BUY', 200, 10), q(N, 'BUY', 300, 10), q(N, 'BUY', 200, 10)]));
    await ex.idle();
    const first = await openIds();
    expect(first).toHaveLength(4);
    expect(store.openOrders(M).map((o) => o.status)).toEqual(['live', 'live', 'live', 'live']);
    expect(
      store
        .openOrders(M)
        .map((o) => o.id)
        .sort(),
    ).toEqual(first);

    // noise inside the tolerance (a tick, 5 % of size): nothing changes at the exchange
    ex.submit(want([q(Y, 'BUY', 400, 10), q(Y, 'BUY', 200, 10.5), q(N, 'BUY', 300, 10), q(N, 'BUY', 100, 10)]));
    await ex.idle();
    expect(await openIds()).toEqual(first);

    // one quote moves beyond the tolerance: exactly one order is replaced
    ex.submit(want([q(Y, 'BUY', 300, 10), q(Y, 'BUY', 200, 10), q(N, 'BUY', 300, 10), q(N, 'BUY', 600, 10)]));
    await ex.idle();
    const second = await openIds();
    expect(second).toHaveLength(4);
    expect(second.filter((id) => first.includes(id))).toHaveLength(3);
    const moved = (await venue.openOrders()).find((o) => !first.includes(o.id))!;
    expect(moved).toMatchObject({ tokenId: N, side: 'BUY', price: 600 });
    expect(store.summary()).toMatchObject({ ordersPlaced: 5, ordersCancelled: 1, ordersOpen: 4 });
  });

  it('records a fill once, from the stream and again from the REST backfill', async () => {
    const ours = (await venue.openOrders()).find((o) => o.tokenId === Y && o.price === 300)!;
    const trader = await v.trader();
    // a SELL of YES at 0.03 from another account, sent as a BUY of NO at 0.97: our bid fills (maker)
    const r = await trader.place(N, 'BUY', formatPrice(PRICE_SCALE - 300), formatAmount(5_000_000));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    await until(() => store.fills().some((f) => f.orderId === ours.id), 30_000, 'the fill in the store');
    await until(() => ex.tracker.get(ours.id)?.status === 'partially_filled', 30_000, 'partially filled');
    const stored = store.fills().filter((f) => f.orderId === ours.id);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ tokenId: Y, side: 'BUY', price: 300, size: 5_000_000, role: 'MAKER' });
    expect(store.order(ours.id)).toMatchObject({ status: 'partially_filled', sizeMatched: 5_000_000 });
    // the same fills again over REST (a restart's backfill): nothing new
    const back = await venue.fills(0);
    expect(back.some((f) => f.orderId === ours.id)).toBe(true);
    for (const f of back) expect(ex.onVenueFill(f)).not.toBe('new');
    expect(store.fills().filter((f) => f.orderId === ours.id)).toHaveLength(1);
    expect(store.positions().find((p) => p.tokenId === Y)).toMatchObject({ size: 5_000_000, avgPrice: 300 });
    // 5 shares left of 10: outside the 10 % size tolerance, so the next cycle re-quotes that level
    ex.submit(want([q(Y, 'BUY', 300, 10), q(Y, 'BUY', 200, 10), q(N, 'BUY', 300, 10), q(N, 'BUY', 600, 10)]));
    await ex.idle();
    const lvl = (await venue.openOrders()).filter((o) => o.tokenId === Y && o.price === 300);
    expect(lvl).toHaveLength(1);
    expect(lvl[0]!.originalSize - lvl[0]!.sizeMatched).toBe(10_000_000);
  });

  it('keeps the dead-man switch fed while orders rest', async () => {
    const hb = new HeartbeatKeeper({
      beat: () => venue.heartbeat(),
      clock: venue.clock,
      active: () => ex.hasOpenOrders(),
      target: ex,
      intervalMs: 200,
    });
    hb.start();
    await until(() => hb.status().sent >= 3, 30_000, 'three heartbeats');
    expect(hb.status()).toMatchObject({ ok: true, failed: 0 });
    expect(ex.paused).toBe(false);
    await hb.stop();
  });

  it('cancelAll leaves zero open orders at the exchange', async () => {
    expect((await venue.openOrders()).length).toBeGreaterThan(0);
    await ex.cancelAll('test');
    const flat = await ex.verifyFlat({ timeoutMs: 30_000 });
    expect(flat.flat).toBe(true);
    expect(await venue.openOrders()).toEqual([]);
    expect(store.summary().ordersOpen).toBe(0);
    expect(ex.tracker.openCount()).toBe(0);
  });
});

describe.each([
  { name: 'absorbed by the transport retries', maxAttempts: 5 },
  {
    name: 'surfacing to the executor (no transport retry: the place throws the 429, the orders are marked rejected and the cycle backs off)',
    maxAttempts: 1,
  },
])('a 429 storm $name', ({ maxAttempts }) => {
  const LIMIT = 5;
  const WINDOW = 1000;
  let v: TestVenue;
  let transport: HttpTransport;
  let venue: LiveVenue;
  let store: Store;
  let ex: Executor;

  beforeAll(async () => {
    v = await startVenue({
      http: {
        rateLimits: {
          enabled: true,
          scale: 1,
          queueMs: 0,
          rules: {
            'POST /orders:burst': { limit: LIMIT, windowMs: WINDOW },
            'DELETE /orders:burst': { limit: LIMIT, windowMs: WINDOW },
          },
        },
      },
    });
    // the client's budgets carry the spec's numbers, far above the exchange's: the exchange says 429
    const made = await partsVenueFor(v, { transport: { retry: { maxAttempts } } });
    ({ venue, transport } = made);
    const { clock } = made;
    store = openStore(join(dir, `storm-${maxAttempts}.db`), { clock });
    ex = new Executor({
      venue,
      store,
      tolerance: { priceTicks: 0, sizeFraction: 0 },
      tickPips: () => 100,
      resolve: { delayMs: 200 },
    });
  });
  afterAll(async () => {
    await ex?.close();
    store?.close();
    await venue?.close();
    await v?.close();
  });

  it('loses no intent (the latest one ends up at the exchange, exactly) and causes no retry storm', async () => {
    const M = v.m1.condition_id as ConditionId;
    const Y = yes(v.m1) as TokenId;
    // 20 bids (two POST /orders each time), re-sized by every intent: every intent churns all of them
    const ladder = (k: number): DesiredQuotes => ({
      market: M,
      quotes: Array.from({ length: 20 }, (_, i) => q(Y, 'BUY', 100 + i * 100, 5 + (k % 3))),
      at: k,
    });
    const INTENTS = 40;
    for (let k = 0; k < INTENTS; k++) {
      ex.submit(approved(ladder(k)));
      await sleep(25);
    }
    const last = ladder(INTENTS - 1);
    const atExchange = async () =>
      (await venue.openOrders()).map((o) => `${o.price}:${o.originalSize - o.sizeMatched}`).sort();
    const wanted = last.quotes.map((x) => `${x.price}:${x.size}`).sort();
    await until(
      async () => {
        await ex.idle();
        return JSON.stringify(await atExchange()) === JSON.stringify(wanted);
      },
      20_000,
      'the latest intent at the exchange',
    );
    // exactly the latest intent, nothing more (no duplicate from a retry)
    expect(await atExchange()).toEqual(wanted);
    const s = transport.stats();
    const refused = s.statuses[429] ?? 0;
    const st = ex.stats();
    // intents were dropped (superseded), not queued up and sent late
    expect(st.superseded).toBeGreaterThan(0);
    expect(st.cycles).toBeLessThan(INTENTS);
    // the storm happened, and stayed small: the budgets learned the limit after the first refusals
    // (with no transport retry, the refused batch came back UNKNOWN and was resolved by id)
    expect(refused).toBeGreaterThan(0);
    expect(refused).toBeLessThanOrEqual(4 * LIMIT);
    expect(s.attempts).toBeLessThanOrEqual(s.requests + refused);
    expect(transport.budgets.gate.rule('POST /orders:burst')?.limit).toBe(LIMIT);
    // everything the executor believes open is what the exchange shows
    expect(
      ex.tracker
        .liveOrders(M)
        .map((o) => `${o.price}:${o.originalSize - o.sizeMatched}`)
        .sort(),
    ).toEqual(wanted);
    await ex.cancelAll();
    expect((await ex.verifyFlat({ timeoutMs: 10_000 })).flat).toBe(true);
    expect(await venue.openOrders()).toEqual([]);
  }, 40_000);
});
