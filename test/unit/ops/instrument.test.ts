/**
 * The instrumentation seams: the observed venue counts orders by outcome and starts/stops the
 * tick-to-order clock without changing what the venue does (same results, same errors, other
 * members bound to the real venue, private fields included); ObservedBudgets reports 429s by
 * endpoint and still pauses the rule.
 */
import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.ts';
import { NetworkError, RateLimitError } from '../../../src/core/errors.ts';
import type { MarketEvent } from '../../../src/core/events.ts';
import type { ConditionId, TokenId } from '../../../src/core/ids.ts';
import type { Micro, Pips } from '../../../src/core/units.ts';
import type { PlaceRequest } from '../../../src/core/venue.ts';
import { instrumentVenue, ObservedBudgets } from '../../../src/ops/instrument.ts';
import { Metrics } from '../../../src/ops/metrics.ts';
import { DaemonMonitor } from '../../../src/ops/status.ts';
import { FakeVenue } from '../execution/fake-venue.ts';

const M = '0xmarket' as ConditionId;
const req = (price: number): PlaceRequest => ({
  market: M,
  tokenId: 't1' as TokenId,
  side: 'BUY',
  price: price as Pips,
  size: 5_000_000 as Micro,
  type: 'GTC',
});

class PrivateVenue extends FakeVenue {
  #secretCounter = 0;
  bump(): number {
    return ++this.#secretCounter;
  }
}

function setup() {
  const clock = new VirtualClock(1_000);
  const metrics = new Metrics({ now: () => clock.now(), defaultMetrics: false });
  let hr = 0;
  const monitor = new DaemonMonitor({ clock, metrics, feedStaleMs: 0, hrtime: () => hr });
  const raw = new PrivateVenue(clock);
  const venue = instrumentVenue(raw, monitor);
  return { clock, metrics, monitor, raw, venue, setHr: (v: number) => (hr = v) };
}
const count = async (m: Metrics, outcome: string) =>
  Number(new RegExp(`mmkit_orders_total\\{outcome="${outcome}"\\} (\\S+)`).exec(await m.render())?.[1]);

describe('instrumentVenue', () => {
  it('counts orders by outcome and passes results through unchanged', async () => {
    const { metrics, raw, venue } = setup();
    const prepared = venue.prepare([req(4000), req(4100), req(4200)]);
    let n = 0;
    raw.placeHook = async (orders, accept) =>
      orders.map((o) => {
        n++;
        return n === 1
          ? accept(o)
          : n === 2
            ? { id: o.id, ok: false as const, code: 'INVALID_ORDER_MIN_SIZE', message: 'too small' }
            : { id: o.id, ok: false as const, code: 'UNKNOWN' as const, message: 'timeout' };
      });
    const out = await venue.place(prepared);
    expect(out.map((o) => (o.ok ? o.status : o.code))).toEqual(['live', 'INVALID_ORDER_MIN_SIZE', 'UNKNOWN']);
    expect(await count(metrics, 'placed')).toBe(3);
    expect(await count(metrics, 'live')).toBe(1);
    expect(await count(metrics, 'rejected')).toBe(1);
    expect(await count(metrics, 'unknown')).toBe(1);
    const c = await venue.cancel([prepared[0]!.id]);
    expect(c.canceled).toEqual([prepared[0]!.id]);
    expect(await count(metrics, 'cancelled')).toBe(1);
  });

  it('counts post-only quotes refused as crossing apart (mmkit_post_only_rejections_total), and as rejected', async () => {
    const { metrics, raw, venue } = setup();
    const prepared = venue.prepare([req(4000), req(4100), req(4200)]);
    let n = 0;
    raw.placeHook = async (orders, accept) =>
      orders.map((o) =>
        ++n === 1
          ? accept(o)
          : { id: o.id, ok: false as const, code: 'INVALID_POST_ONLY_ORDER', message: 'order crosses book' },
      );
    await venue.place(prepared);
    expect(await count(metrics, 'rejected')).toBe(2);
    expect(/^mmkit_post_only_rejections_total (\S+)$/m.exec(await metrics.render())?.[1]).toBe('2');
  });

  it('rethrows request failures: a 429 counts as failed, a network error as unknown', async () => {
    const { metrics, raw, venue } = setup();
    raw.placeHook = async () => {
      throw new RateLimitError('429', 1000);
    };
    await expect(venue.place(venue.prepare([req(4000)]))).rejects.toBeInstanceOf(RateLimitError);
    raw.placeHook = async () => {
      throw new NetworkError('reset');
    };
    await expect(venue.place(venue.prepare([req(4000), req(4100)]))).rejects.toBeInstanceOf(NetworkError);
    expect(await count(metrics, 'failed')).toBe(1);
    expect(await count(metrics, 'unknown')).toBe(2);
    const text = await metrics.render();
    expect(text).toContain('mmkit_venue_request_errors_total{code="RATE_LIMITED"} 1');
    expect(text).toContain('mmkit_venue_request_errors_total{code="NETWORK"} 1');
  });

  it('binds every other member to the real venue (private fields work)', async () => {
    const { raw, venue } = setup();
    expect((venue as PrivateVenue).bump()).toBe(1);
    expect(raw.bump()).toBe(2);
    expect(venue.clock).toBe(raw.clock);
    expect(await venue.heartbeat()).toBe(true);
  });

  it('starts the tick-to-order clock on a market frame and stops it at the place request', async () => {
    const { metrics, monitor, raw, venue, clock, setHr } = setup();
    const frames = new Subject<MarketEvent>();
    raw.marketEvents = () => frames;
    const seen: MarketEvent[] = [];
    venue.marketEvents(['t1' as TokenId]).subscribe((e) => {
      seen.push(e);
      // the engine, synchronously: state, strategy, gate, execute
      monitor.onQuoteSet({ market: M, at: clock.now(), quotes: [req(4000)] });
    });
    setHr(10);
    frames.next({
      type: 'best_bid_ask',
      market: M,
      tokenId: 't1' as TokenId,
      bestBid: 4000 as Pips,
      bestAsk: 4100 as Pips,
      spread: 100 as Pips,
      venueTime: clock.now(),
      recvTime: clock.now(),
    });
    setHr(10.5);
    await venue.place(venue.prepare([req(4000)]));
    expect(seen).toHaveLength(1);
    const text = await metrics.render();
    expect(text).toContain('mmkit_tick_to_order_seconds_count 1');
    expect(Number(/mmkit_tick_to_order_seconds_sum (\S+)/.exec(text)![1])).toBeCloseTo(0.0005, 9);
  });
});

describe('ObservedBudgets', () => {
  it('reports a 429 by endpoint key (ids folded) and still pauses the rule', () => {
    const clock = new VirtualClock(0);
    const seen: string[] = [];
    const b = new ObservedBudgets({}, clock, (e) => seen.push(e));
    const paused = b.onRateLimited('clob', 'DELETE', '/order/0x' + 'ab'.repeat(32), 1000);
    expect(seen).toEqual(['clob DELETE /order/:id']);
    expect(paused.length).toBeGreaterThan(0);
    expect(b.gate.ruleState(paused[0]!).pausedUntil).toBe(1000);
  });
});
