/**
 * The daemon's bounded fill memory (bot.fillMemory): the engine's state keeps the last N fills to
 * recognise a repeat; older ones are folded into their positions, and a repeat of one is recognised
 * by the store. Against the real paper exchange on loopback, the live venue adapter and a real SQLite
 * store: the exchange's user channel repeats every trade as it moves MATCHED -> MINED -> CONFIRMED,
 * so with a memory of one fill, the MINED and CONFIRMED updates of the earlier fills arrive after
 * the state forgot them. Positions stay exact (the venue's, the store's), each fill counted once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveClock } from '../../src/core/clock.ts';
import { createTrader } from '../../src/kernel/create-trader.ts';
import { resolveRiskLimits } from '../../src/risk/limits.ts';
import { openStore } from '../../src/store/store.ts';
import { loadStrategy } from '../../src/strategy/loader.ts';
import { resolveParams } from '../../src/strategy/params.ts';
import { eventually, liveVenueFor, startVenue, type TestVenue } from './support/setup.ts';

const STRATEGY = new URL('../support/fixed-quotes-strategy.ts', import.meta.url).pathname;

let v: TestVenue;
let dir: string;
beforeAll(async () => {
  v = await startVenue({ exchange: { minedMs: 1_500, confirmedMs: 3_000 } });
  dir = mkdtempSync(join(tmpdir(), 'mmkit-fill-memory-'));
  // a quiet book on m1: YES bid 0.35, ask 0.45 (a NO bid at 0.55); the bot's bid at 0.38 is the best
  const maker = await v.trader();
  const [yes, no] = v.m1.tokens;
  expect((await maker.place(yes!.token_id, 'BUY', '0.35', '200')).status).toBe(200);
  expect((await maker.place(no!.token_id, 'BUY', '0.55', '200')).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await v?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('bot.fillMemory: a bounded fill memory with exact positions', () => {
  it('a memory of one fill: the status updates of forgotten fills are duplicates (the store knows them), positions exact', async () => {
    const wallet = new Wallet(Wallet.createRandom().privateKey);
    const address = wallet.address.toLowerCase();
    const clock = new LiveClock();
    const venue = await liveVenueFor(v, { wallet, clock, silenceMs: 0 });
    const market = (await venue.markets()).find((m) => m.market === v.m1.condition_id)!;
    const yes = market.tokens[0].tokenId;
    const store = openStore(join(dir, 'bot.db'), { clock });
    const def = await loadStrategy(STRATEGY);
    const quiet = () => undefined;
    const make = () =>
      createTrader({
        venue,
        clock,
        store,
        strategy: def,
        // one bid of 5 shares at 0.38 on YES, re-placed after each fill
        params: resolveParams(def.params, { p1: 0.38, size: 5 }),
        markets: [market],
        limits: resolveRiskLimits({}),
        log: { debug: quiet, info: quiet, warn: quiet, error: quiet },
        tickMs: 200,
        postOnly: true,
        fillMemory: 1,
      });
    const bot = make();
    try {
      await bot.start();
      const taker = await v.trader();
      v.running.exchange.setTokens(taker.address, yes, 100_000_000);
      const resting = () => v.running.exchange.openOrders(address).filter((o) => o.price === 3_800);
      // three fills in a row, each within the exchange's MINED delay of the next
      for (let i = 0; i < 3; i++) {
        expect(await eventually(() => resting().length === 1, 10_000)).toBe(true);
        const r = await taker.place(yes, 'SELL', '0.38', '5', { type: 'FAK' });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        expect(await eventually(() => bot.engine.state.stats.fillsCounted === i + 1, 10_000)).toBe(true);
      }
      // every trade CONFIRMED at the exchange and its updates delivered (MINED and CONFIRMED of each)
      expect(await eventually(() => bot.engine.state.stats.fillDuplicates >= 6, 15_000)).toBe(true);
      await new Promise((r) => setTimeout(r, 500)); // nothing later counts them again
      const s = bot.engine.state;
      expect(s.fillCount).toBe(1); // the memory: the last fill only
      expect(s.stats).toMatchObject({ fillsCounted: 3 });
      expect(s.position(yes).size).toBe(15_000_000);
      expect(s.position(yes).avgPrice).toBe(3_800);
      // the store holds each fill once, and the venue agrees
      expect(store.fills().filter((f) => f.status !== 'FAILED')).toHaveLength(3);
      const held = v.running.exchange.engine.balance(address).tokens.get(yes);
      expect((held?.available ?? 0) + (held?.reserved ?? 0)).toBe(15_000_000);
      // a restart reads the ledger through the same cap: the same position, one fill in memory
      const next = make();
      expect(next.engine.state.fillCount).toBe(1);
      expect(next.engine.state.position(yes)).toMatchObject({ size: 15_000_000, avgPrice: 3_800 });
      await next.close();
    } finally {
      await bot.stop();
      await bot.cancelAll('test end');
      await bot.close();
      store.close();
      await venue.close();
    }
  }, 90_000);
});
