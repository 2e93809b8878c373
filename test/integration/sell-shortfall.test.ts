/**
 * A SELL the venue refuses for lack of tokens (the holdings the bot counts are above the venue's:
 * tokens gone beside the daemon, or counted twice) makes the daemon audit its positions at once, so
 * that its asks are sized to what is held before the refusals trip the kill switch (trial 15 F1: the
 * same refused ask was re-sent every cycle until the daemon stopped itself). Against the real paper
 * exchange, with the live venue and createTrader as `mmkit run` wires them.
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
import { eventually, liveVenueFor, sleep, startVenue, type TestVenue } from './support/setup.ts';

const STRATEGY = new URL('../support/blinking-ask-strategy.ts', import.meta.url).pathname;

let v: TestVenue;
let dir: string;
beforeAll(async () => {
  v = await startVenue();
  dir = mkdtempSync(join(tmpdir(), 'mmkit-shortfall-'));
  // a quiet book on m1: bid 0.45, ask 0.55 (a maker's bid for NO at 0.45)
  const maker = await v.trader();
  for (const t of v.m1.tokens) expect((await maker.place(t.token_id, 'BUY', '0.45', '200')).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await v?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a SELL refused for lack of tokens', () => {
  it('audits the positions at once: the asks are sized to the venue holdings, the kill switch never trips', async () => {
    const wallet = new Wallet(Wallet.createRandom().privateKey);
    const address = wallet.address.toLowerCase();
    const clock = new LiveClock();
    const venue = await liveVenueFor(v, { wallet, clock, silenceMs: 0 }, 'content');
    const market = (await venue.markets()).find((m) => m.market === v.m1.condition_id)!;
    const yes = v.m1.tokens[0]!.token_id;
    v.running.exchange.setTokens(wallet.address, yes, 10_000_000);
    const store = openStore(join(dir, 'shortfall.db'), { clock });
    const def = await loadStrategy(STRATEGY);
    const rejections: string[] = [];
    const bot = createTrader({
      venue,
      clock,
      store,
      strategy: def,
      params: resolveParams(def.params, { price: 0.6, size: 10 }),
      markets: [market],
      limits: resolveRiskLimits({}),
      log: { debug() {}, info() {}, warn() {}, error() {} },
      tickMs: 100,
      postOnly: true,
      // the periodic audit far away: only the start's and the shortfall's run here
      positionAudit: { everyMs: 600_000, opening: 'unknown' as const },
    });
    bot.executor.onRejection((r) => void rejections.push(r.code));
    const held = () => {
      const b = v.running.exchange.engine.balance(address).tokens.get(yes);
      return { available: b?.available ?? 0, reserved: b?.reserved ?? 0 };
    };
    const engineHolds = () => bot.engine.state.position(yes as TokenId).size;
    const resting = () => v.running.exchange.openOrders(address);
    try {
      await bot.start();
      bot.startHeartbeat();
      // the start's audit booked the 10 held; the ask of 10 rests in even seconds
      expect(await eventually(() => engineHolds() === 10_000_000, 10_000)).toBe(true);
      expect(await eventually(() => resting().length === 1, 10_000)).toBe(true);
      // 4 of them go beside the daemon while nothing rests (no fill, no user event tells it)
      let gone = false;
      for (const end = Date.now() + 20_000; !gone && Date.now() < end; await sleep(20)) {
        if (resting().length > 0 || held().reserved > 0) continue;
        v.running.exchange.setTokens(wallet.address, yes, 6_000_000);
        gone = resting().length === 0 && held().reserved === 0 && held().available === 6_000_000;
        if (!gone) v.running.exchange.setTokens(wallet.address, yes, 10_000_000 - held().reserved);
      }
      expect(gone).toBe(true);
      expect(engineHolds()).toBe(10_000_000);
      // the next asks are refused; the audits that follow them find 6, and the asks are sized to it
      expect(
        await eventually(() => engineHolds() === 6_000_000, 20_000),
        `engine ${engineHolds()}, rejections ${rejections}`,
      ).toBe(true);
      expect(
        await eventually(() => resting().some((o) => o.originalSize === 6_000_000), 20_000),
        `${JSON.stringify(resting())} rejections ${rejections} kill ${bot.kill.tripped} held ${JSON.stringify(held())} engine ${engineHolds()}`,
      ).toBe(true);
      expect(bot.kill.tripped).toBe(false);
      expect(store.positions().find((p) => p.tokenId === (yes as TokenId))?.size).toBe(6_000_000);
    } finally {
      await bot.stop();
      await bot.cancelAll('test end');
      await bot.close();
      store.close();
      await venue.close();
    }
  }, 90_000);
});
