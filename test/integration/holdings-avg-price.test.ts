/**
 * The live venue's holdings carry the venue's average price to its 6 decimals (trial 13 F10), as
 * the Data API gives it, against the real paper exchange: a wallet that bought 30 shares at 0.40
 * and 40 at 0.41 holds 70 at 0.405714 (0.4057 in pips). The position audit books an adjustment at
 * that exact price (unit tests: position-audit, store ledger, positions).
 */
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveClock } from '../../src/core/clock.ts';
import { liveVenueFor, no, startVenue, type TestVenue, yes } from './support/setup.ts';
import { Trader } from './support/trader.ts';

let v: TestVenue;
beforeAll(async () => {
  v = await startVenue();
}, 60_000);
afterAll(async () => {
  await v?.close();
});

describe("holdings: the venue's average price", () => {
  it('to the micro, beside its pips', async () => {
    const wallet = new Wallet(Wallet.createRandom().privateKey);
    const me = new Trader(v.clob, wallet.privateKey);
    me.protocol = v.running.exchange.protocol;
    expect((await me.createKey()).status).toBe(200);
    const other = await v.trader();
    const Y = yes(v.m1);
    const N = no(v.m1);
    // our YES bids meet the other's NO bids (1 - p): minted pairs, filled at our prices
    const first = await me.place(Y, 'BUY', '0.40', '30');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect((await other.place(N, 'BUY', '0.60', '30')).status).toBe(200);
    expect((await me.place(Y, 'BUY', '0.41', '40')).status).toBe(200);
    expect((await other.place(N, 'BUY', '0.59', '40')).status).toBe(200);
    const venue = await liveVenueFor(v, { wallet, clock: new LiveClock(), silenceMs: 0 });
    try {
      const h = await venue.holdings!();
      const held = h.tokens.find((t) => t.tokenId === Y);
      // (12.00 + 16.40) / 70 = 0.405714285...
      expect(held).toMatchObject({ size: 70_000_000, avgPrice: 4057, avgPriceMicro: 405_714 });
    } finally {
      await venue.close();
    }
  }, 60_000);
});
