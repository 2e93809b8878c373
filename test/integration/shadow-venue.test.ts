/**
 * The shadow venue on a real paper exchange (loopback): live market frames into the simulated venue,
 * our orders filled there against the live book, nothing sent to the exchange.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { resolveMarkets, venueUrls } from '../../src/backtest/recorder.ts';
import { LiveClock } from '../../src/core/clock.ts';
import type { BookSnapshotEvent, MarketEvent, UserEvent } from '../../src/core/events.ts';
import type { Micro, Pips } from '../../src/core/units.ts';
import { startExchange, type RunningExchange } from '../../src/exchange/server.ts';
import { createShadowVenue, type ShadowVenue } from '../../src/venues/shadow/shadow-venue.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(cond: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(25);
  }
}

let ex: RunningExchange | undefined;
let venue: ShadowVenue | undefined;
afterAll(async () => {
  await venue?.close();
  await ex?.close();
});

describe('shadow venue on a paper exchange', () => {
  it('mirrors the live book, fills a crossing order and rests a passive one in the simulated venue, and sends nothing', async () => {
    ex = await startExchange({ port: 0, seed: 5, world: { agents: 'default', lifecycle: false, priceFeed: true } });
    const x = ex;
    const base = x.urls.clob_url.replace(/\/clob$/, '');
    // a market with both sides resting
    let id: string | undefined;
    await until(() => {
      id = x.exchange.listMarkets().find((m) => {
        const b = x.exchange.engine.book(m.meta.tokens[0]);
        return m.meta.tick === '0.01' && b.bids.length > 0 && b.asks.length > 0;
      })?.meta.conditionId;
      return id !== undefined;
    });
    const urls = venueUrls(base);
    const markets = await resolveMarkets(urls, { markets: [id!] });
    const m = markets[0]!;
    const yes = m.tokens[0].tokenId;
    const keysBefore = x.exchange.keys.all().length;

    const clock = new LiveClock();
    const v = createShadowVenue({
      urls: { ws: urls.ws },
      clock,
      markets,
      queue: 'risk-averse',
      latency: {
        entry: { kind: 'constant', ms: 0 },
        cancel: { kind: 'constant', ms: 0 },
        response: { kind: 'constant', ms: 0 },
      },
      seed: 1,
      collateral: 1_000_000_000 as Micro,
      venueName: `${urls.clob}#137`,
      world: null,
    });
    venue = v;
    const market: MarketEvent[] = [];
    const user: UserEvent[] = [];
    const ms = v.marketEvents(m.tokens.map((t) => t.tokenId)).subscribe((e) => market.push(e));
    const us = v.userEvents([m.market]).subscribe((e) => user.push(e));
    await v.connected();
    await until(() => market.some((e) => e.type === 'book_snapshot' && e.tokenId === yes));
    const snap = market.find((e) => e.type === 'book_snapshot' && e.tokenId === yes) as BookSnapshotEvent;
    // the exchange's book, as the channel gave it
    expect(snap.bids.length + snap.asks.length).toBeGreaterThan(0);

    // a FAK buy at the best live ask takes from the simulated copy of the live book
    const ask = Math.min(...snap.asks.map((l) => l[0]));
    const [fak] = v.prepare([
      {
        market: m.market,
        tokenId: yes,
        side: 'BUY',
        price: ask as Pips,
        size: Math.max(m.minOrderSize, 5_000_000) as Micro,
        type: 'FAK',
      },
    ]);
    const [out] = await v.place([fak!]);
    expect(out, JSON.stringify(out)).toMatchObject({ ok: true });
    await until(() => user.some((e) => e.type === 'fill' && e.role === 'TAKER'));
    expect((await v.fills(0)).length).toBeGreaterThan(0);
    expect(v.account().positions.get(yes)).toBeGreaterThan(0);

    // a passive bid rests in the simulated venue; cancelAll takes it off
    const [gtc] = v.prepare([
      {
        market: m.market,
        tokenId: yes,
        side: 'BUY',
        price: 100 as Pips,
        size: Math.max(m.minOrderSize, 5_000_000) as Micro,
        type: 'GTC',
      },
    ]);
    expect((await v.place([gtc!]))[0]).toMatchObject({ ok: true, status: 'live' });
    expect((await v.openOrders()).map((o) => o.id)).toEqual([gtc!.id]);
    expect((await v.cancelAll()).canceled).toEqual([gtc!.id]);
    expect(await v.openOrders()).toHaveLength(0);

    // a resync serves the mirrored book
    const before = market.length;
    v.resync([yes]);
    expect(market.slice(before).some((e) => e.type === 'book_snapshot' && e.tokenId === yes)).toBe(true);

    // a shadow ledger; nothing reached the exchange (no key made, no order of ours in its book)
    expect(await v.identity()).toEqual({ venue: `shadow:${urls.clob}#137`, world: null, address: 'shadow' });
    expect(x.exchange.keys.all().length).toBe(keysBefore);
    const ids = new Set([fak!.id, gtc!.id]);
    expect([...ids].some((i) => x.exchange.engine.getOrder(i) !== undefined)).toBe(false);
    expect(v.stats.placeRequests).toBe(2);
    expect(v.frames().frames.m).toBeGreaterThan(0);
    ms.unsubscribe();
    us.unsubscribe();
    await v.close();
    await v.close(); // idempotent
  }, 60_000);
});
