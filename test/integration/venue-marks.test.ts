/**
 * The venue's marks (trial 19 F4): the live venue's holdings carry each token's current price as the
 * venue gives it (`cur_price` of GET /positions: the book's mid, else the last trade), and the trader
 * keeps them from each position audit (`Trader.venueMarks`), so a position held on a market the bot
 * does not follow is marked (the loss limits, the status, the exit summary: unit tests
 * run-loss-limit, status). Against the real paper exchange on loopback, the live venue adapter and a
 * real SQLite store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveClock } from '../../src/core/clock.ts';
import type { TokenId } from '../../src/core/ids.ts';
import { createTrader } from '../../src/kernel/create-trader.ts';
import { resolveRiskLimits } from '../../src/risk/limits.ts';
import { openStore } from '../../src/store/store.ts';
import { loadStrategy } from '../../src/strategy/loader.ts';
import { resolveParams } from '../../src/strategy/params.ts';
import { liveVenueFor, startVenue, type TestVenue, yes } from './support/setup.ts';
import { Trader } from './support/trader.ts';

const STRATEGY = new URL('../support/fixed-quotes-strategy.ts', import.meta.url).pathname;

let v: TestVenue;
let dir: string;
beforeAll(async () => {
  v = await startVenue();
  dir = mkdtempSync(join(tmpdir(), 'mmkit-venue-marks-'));
}, 60_000);
afterAll(async () => {
  await v?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the venue's marks", () => {
  it('holdings carry the mark; the trader keeps those of a market it does not follow from the audit', async () => {
    // another market than the one the bot follows, with a book: YES bid 0.30, ask 0.50 (mid 0.40)
    const other = v.markets.find(
      (m) => m.condition_id !== v.m1.condition_id && !m.neg_risk && m.minimum_tick_size === 0.01,
    )!;
    const Y = yes(other);
    const maker = await v.trader();
    v.running.exchange.setTokens(maker.address, Y, 100_000_000);
    expect((await maker.place(Y, 'BUY', '0.30', '10')).status).toBe(200);
    expect((await maker.place(Y, 'SELL', '0.50', '10')).status).toBe(200);

    // the bot's wallet buys 5 of the ask's 10 at 0.50: the book stays 0.30 / 0.50
    const wallet = new Wallet(Wallet.createRandom().privateKey);
    const me = new Trader(v.clob, wallet.privateKey);
    me.protocol = v.running.exchange.protocol;
    expect((await me.createKey()).status).toBe(200);
    expect((await me.place(Y, 'BUY', '0.50', '5')).status).toBe(200);
    const clock = new LiveClock();
    const venue = await liveVenueFor(v, { wallet, clock, silenceMs: 0 }, 'content', 'relayer');
    const store = openStore(join(dir, 'marks.db'), { clock });
    try {
      const h = await venue.holdings!();
      expect(h.tokens.find((t) => t.tokenId === Y)).toMatchObject({ size: 5_000_000, avgPrice: 5000, mark: 4000 });

      const market = (await venue.markets()).find((m) => m.market === v.m1.condition_id)!;
      const def = await loadStrategy(STRATEGY);
      const bot = createTrader({
        venue,
        clock,
        store,
        strategy: def,
        params: resolveParams(def.params, {}),
        markets: [market],
        limits: resolveRiskLimits({}),
        log: { debug() {}, info() {}, warn() {}, error() {} },
        tickMs: 200,
        positionAudit: { everyMs: 0, opening: 'unknown' as const },
      });
      expect(bot.venueMarks().size).toBe(0);
      try {
        // the start audit books the holding and reads the marks
        await bot.start();
        expect(store.positions().find((p) => p.tokenId === (Y as TokenId))?.size).toBe(5_000_000);
        expect([...bot.venueMarks()]).toEqual([[Y, 4000]]);
        // the book moves (bid 0.34: mid 0.42): the next audit reads the new mark
        expect((await maker.place(Y, 'BUY', '0.34', '10')).status).toBe(200);
        await bot.auditPositions();
        expect(bot.venueMarks().get(Y as TokenId)).toBe(4200);
      } finally {
        await bot.stop();
        await bot.cancelAll('test end');
        await bot.close();
      }
    } finally {
      store.close();
      await venue.close();
    }
  }, 60_000);
});
