/**
 * The live Venue adapter (src/venues/live/live-venue.ts) against the real paper exchange on a loopback
 * port, through the shared contract suite (test/contract/venue.contract.ts), plus what only the
 * live adapter has: the cache following tick-size changes, the reconnect reconciliation, and an
 * ambiguous POST answered as UNKNOWN and resolved by id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FillEvent, UserEvent } from '../../src/core/events.ts';
import type { ConditionId, TokenId } from '../../src/core/ids.ts';
import { formatAmount, formatPrice, PRICE_SCALE, type Micro, type Pips } from '../../src/core/units.ts';
import type { LiveVenue } from '../../src/venues/live/live-venue.ts';
import { runVenueContract } from '../contract/venue.contract.ts';
import { eventually, no, startVenue, yes, type TestVenue, liveVenueFor } from './support/setup.ts';

runVenueContract('live adapter on the paper exchange', async () => {
  const v = await startVenue();
  const venue = await liveVenueFor(v, { chainId: 137 }, 'content');
  const trader = await v.trader();
  const all = await venue.markets();
  const market = all.find((m) => m.active && !m.negRisk && m.tick === '0.01' && m.market === v.m1.condition_id)!;
  return {
    venue,
    market,
    counterparty: {
      // a SELL of YES at p, sent as the equivalent BUY of NO at 1 - p (a complementary match: our
      // maker fill is on YES while the trade is printed on NO)
      async take(o) {
        const r = await trader.place(no(v.m1), 'BUY', formatPrice(PRICE_SCALE - o.price), formatAmount(o.size));
        if (r.status !== 200 || r.body.status !== 'matched')
          throw new Error(`counterparty order: ${r.status} ${JSON.stringify(r.body)}`);
      },
    },
    async close() {
      await venue.close();
      await v.close();
    },
  };
});

describe('live adapter specifics', () => {
  let v: TestVenue;
  let venue: LiveVenue;
  beforeAll(async () => {
    v = await startVenue();
    venue = await liveVenueFor(v, { silenceMs: 0, backoff: { initialMs: 50, maxMs: 200 } }, 'content');
    await venue.markets();
  });
  afterAll(async () => {
    await venue?.close();
    await v?.close();
  });

  it('the signing cache follows a tick-size change seen on the market channel', async () => {
    const m = v.markets.find(
      (x) => !x.neg_risk && x.minimum_tick_size === 0.01 && x.condition_id !== v.m1.condition_id,
    )!;
    const tok = yes(m) as TokenId;
    const seen: string[] = [];
    const sub = venue.marketEvents([tok, no(m) as TokenId]).subscribe((e) => seen.push(e.type));
    try {
      expect(await eventually(() => seen.includes('resynced'))).toBe(true);
      const req = {
        market: m.condition_id as ConditionId,
        tokenId: tok,
        side: 'BUY' as const,
        price: 4550 as Pips,
        size: 5_000_000 as Micro,
        type: 'GTC' as const,
      };
      expect(() => venue.prepare([req])).toThrow(/0\.01/); // off the 0.01 tick
      expect((await v.admin(`/markets/${m.condition_id}/tick-size`, { tick_size: '0.001' })).status).toBe(200);
      expect(await eventually(() => seen.includes('tick_size_change'))).toBe(true);
      expect(venue.marketOfToken(tok)!.tick).toBe('0.001');
      const [p] = venue.prepare([req]);
      const [out] = await venue.place([p!]);
      expect(out).toMatchObject({ ok: true, status: 'live' });
      await venue.cancel([p!.id]);
    } finally {
      sub.unsubscribe();
    }
  });

  it('a user channel loss is reconciled over REST: fills made while away arrive once, as MAKER fills on our token', async () => {
    const m = v.markets.filter((x) => !x.neg_risk && x.minimum_tick_size === 0.01)[3]!;
    const events: UserEvent[] = [];
    const sub = venue.userEvents([m.condition_id as ConditionId]).subscribe((e) => events.push(e));
    const trader = await v.trader();
    try {
      expect(await eventually(() => events.some((e) => e.type === 'resynced'))).toBe(true);
      const [p] = venue.prepare([
        {
          market: m.condition_id as ConditionId,
          tokenId: yes(m) as TokenId,
          side: 'BUY',
          price: 4200 as Pips,
          size: 10_000_000 as Micro,
          type: 'GTC',
        },
      ]);
      expect((await venue.place([p!]))[0]).toMatchObject({ ok: true });
      const rule = v.running.faults.add({ stream: 'user', drop: true });
      expect(await eventually(() => events.some((e) => e.type === 'disconnected'))).toBe(true);
      const r = await trader.place(no(m), 'BUY', '0.58', '10');
      expect(r.body.status).toBe('matched');
      v.running.faults.remove(rule.id!);
      const iDisc = events.findIndex((e) => e.type === 'disconnected');
      expect(await eventually(() => events.slice(iDisc).some((e) => e.type === 'resynced'))).toBe(true);
      const fills = events.filter((e): e is FillEvent => e.type === 'fill' && e.orderId === p!.id);
      expect(fills.length).toBeGreaterThanOrEqual(1);
      expect(new Set(fills.map((f) => `${f.tradeId}|${f.status}`)).size).toBe(fills.length);
      expect(fills[0]).toMatchObject({
        source: 'reconcile',
        role: 'MAKER',
        tokenId: yes(m),
        side: 'BUY',
        price: 4200,
        size: 10_000_000,
      });
      const all = await venue.fills(Date.now() - 60_000);
      expect(all.filter((f) => f.orderId === p!.id)).toHaveLength(1);
      expect(await venue.order(p!.id)).toMatchObject({ status: 'MATCHED' });
    } finally {
      sub.unsubscribe();
    }
  });

  it('a POST /orders that times out is UNKNOWN for every entry; resolved by id, it was placed once', async () => {
    const slow = await liveVenueFor(v, { timeoutMs: 150 }, 'content');
    try {
      await slow.markets();
      const m = v.m1;
      v.running.faults.add({ route: 'POST /clob/orders', latencyMs: 600, untilMs: Date.now() + 1_500 });
      const ps = slow.prepare([
        {
          market: m.condition_id as ConditionId,
          tokenId: yes(m) as TokenId,
          side: 'BUY',
          price: 100 as Pips,
          size: 5_000_000 as Micro,
          type: 'GTC',
        },
        {
          market: m.condition_id as ConditionId,
          tokenId: yes(m) as TokenId,
          side: 'BUY',
          price: 200 as Pips,
          size: 5_000_000 as Micro,
          type: 'GTC',
        },
      ]);
      const outs = await slow.place(ps);
      if (outs.every((o) => o.ok)) {
        // the transport's resend was answered as a duplicate and resolved by id: also fine
        expect(outs.map((o) => o.id)).toEqual(ps.map((p) => p.id));
      } else {
        expect(outs.map((o) => (o.ok ? 'ok' : o.code))).toEqual(['UNKNOWN', 'UNKNOWN']);
      }
      // the late copies land at the exchange after the client gave up on them: waited for
      const landed = async () => {
        for (const p of ps) if ((await slow.order(p.id))?.status !== 'LIVE') return false;
        return true;
      };
      await eventually(landed);
      for (const p of ps) expect(await slow.order(p.id)).toMatchObject({ id: p.id, status: 'LIVE' });
      expect((await slow.openOrders()).length).toBe(2);
    } finally {
      v.running.faults.clear();
      await slow.cancelAll();
      await slow.close();
    }
  });
});
