/**
 * A followed market changes at the venue while the bot runs (trial 16 F3/F7), against the real
 * paper exchange on loopback: the bot (createTrader with the live venue, as `mmkit run` wires it)
 * re-reads its markets every `marketsPollMs` (GET /markets/{id}). The operator sets the market's
 * reward config: the engine's market info, the strategy's context and the reward estimate take the
 * new config, and the change is logged. The operator closes the market: its quotes are pulled
 * (why: market closed), nothing more is placed there, and the change is logged.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveClock } from '../../src/core/clock.ts';
import type { ConditionId } from '../../src/core/ids.ts';
import { createTrader } from '../../src/kernel/create-trader.ts';
import { resolveRiskLimits } from '../../src/risk/limits.ts';
import { openStore } from '../../src/store/store.ts';
import { loadStrategy } from '../../src/strategy/loader.ts';
import { resolveParams } from '../../src/strategy/params.ts';
import { ADMIN, eventually, liveVenueFor, startVenue, type TestVenue } from './support/setup.ts';

const STRATEGY = new URL('../support/fixed-quotes-strategy.ts', import.meta.url).pathname;

let v: TestVenue;
let dir: string;
beforeAll(async () => {
  v = await startVenue({ http: { adminToken: ADMIN } });
  dir = mkdtempSync(join(tmpdir(), 'mmkit-market-updates-'));
  // a quiet book on m1: bid 0.45, ask 0.55 (both tokens)
  const maker = await v.trader();
  for (const t of v.m1.tokens) expect((await maker.place(t.token_id, 'BUY', '0.45', '100')).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await v?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a followed market's changes at the venue reach the running bot", () => {
  it('a new reward config is followed (state, strategy context, estimate); a closed market is pulled', async () => {
    const wallet = new Wallet(Wallet.createRandom().privateKey);
    const address = wallet.address.toLowerCase();
    const clock = new LiveClock();
    const venue = await liveVenueFor(v, { wallet, clock, silenceMs: 0 }, 'content');
    const M = v.m1.condition_id as ConditionId;
    // the world may reward m1: the bot starts on a market without rewards
    expect((await v.admin('/rewards', { condition_id: M, rewards: null })).status).toBe(200);
    const market = (await venue.markets()).find((m) => m.market === M)!;
    expect(market.rewards ?? null).toBeNull();
    const store = openStore(join(dir, 'bot.db'), { clock });
    const def = await loadStrategy(STRATEGY);
    const infos: Array<{ msg: string; obj: Record<string, unknown> }> = [];
    const warns: Array<{ msg: string; obj: Record<string, unknown> }> = [];
    const bot = createTrader({
      venue,
      clock,
      store,
      strategy: def,
      params: resolveParams(def.params, { p1: 0.4, size: 5 }),
      markets: [market],
      limits: resolveRiskLimits({}),
      log: {
        debug() {},
        info: (obj, msg) => void infos.push({ msg: msg ?? '', obj: obj as Record<string, unknown> }),
        warn: (obj, msg) => void warns.push({ msg: msg ?? '', obj: obj as Record<string, unknown> }),
      },
      tickMs: 100,
      marketsPollMs: 200,
      rewards: { sampleMs: 100 },
    });
    const bids = () => v.running.exchange.openOrders(address).filter((o) => o.side === 'BUY').length;
    try {
      await bot.start();
      bot.startHeartbeat();
      expect(await eventually(() => bids() === 1, 20_000), 'the strategy quotes its 0.40 bid').toBe(true);
      expect(bot.rewards.snapshot()).toEqual([]);

      // the operator rewards the market: 3.5 cents, 50 shares, 65 USDC a day
      const set = await v.admin('/rewards', {
        condition_id: M,
        rewards: { max_spread: 3.5, min_size: '50', daily_rate: '65' },
      });
      expect(set.status).toBe(200);
      const cfg = { maxSpread: 350, minSize: 50_000_000, dailyRate: 65_000_000 };
      expect(
        await eventually(() => bot.engine.state.market(M)?.rewards?.minSize === 50_000_000, 20_000),
        'the engine follows the new config',
      ).toBe(true);
      expect(bot.engine.state.market(M)?.rewards).toMatchObject(cfg);
      // the strategy's context is the engine's view
      expect(bot.engine.state.markets.get(M)?.rewards).toMatchObject(cfg);
      // the estimate samples the market with the new config
      expect(await eventually(() => bot.rewards.snapshot().length === 1, 20_000), 'the estimate follows').toBe(true);
      expect(bot.rewards.snapshot()[0]).toMatchObject({ market: M, config: cfg });
      // one update (no spurious ones: the re-read of an unchanged market is no change)
      expect(infos.filter((l) => l.msg.startsWith('market updated at the venue')).map((l) => l.msg)).toEqual([
        'market updated at the venue: rewards',
      ]);
      const updated = infos.find((l) => l.msg === 'market updated at the venue: rewards');
      expect(updated?.obj).toMatchObject({
        market: M,
        changed: ['rewards'],
        rewardsWas: 'none',
        rewards: 'pool 65/day, band 3.5c, min 50',
      });
      expect(bot.engine.pulled().has(M)).toBe(false);
      expect(bids()).toBe(1);

      // the operator closes the market: pulled, with the reason; nothing more is placed
      expect((await v.admin(`/markets/${M}/close`, {})).status).toBe(200);
      expect(await eventually(() => bot.engine.pulled().has(M), 20_000), 'the closed market is pulled').toBe(true);
      expect(bot.engine.state.whyNotQuotable(M)).toBe('market closed (the venue accepts no orders)');
      expect(infos.some((l) => l.msg.startsWith('market updated at the venue:') && l.obj['active'] === false)).toBe(
        true,
      );
      expect(warns.some((l) => l.msg === 'pulling quotes' && /market closed/.test(String(l.obj['why'])))).toBe(true);
      const placed = bot.tracker.all().length;
      await new Promise((r) => setTimeout(r, 1_000)); // ten strategy ticks, five re-reads
      expect(bot.tracker.all().length, 'nothing placed in a closed market').toBe(placed);
      expect(bids()).toBe(0);
      expect(bot.kill.tripped).toBe(false);
    } finally {
      await bot.stop();
      await bot.cancelAll('test end');
      await bot.close();
      store.close();
      await venue.close();
    }
  }, 90_000);
});
