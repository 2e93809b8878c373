/**
 * The bot's side of liquidity rewards against the real paper exchange on loopback (a virtual clock,
 * so a 2-minute epoch sampled every 10 s closes when the test says): mmkit's RewardsClient reads
 * every endpoint with exact micro-units; the live venue maps the market record's rewards to
 * MarketInfo.rewards and reads the REWARD credits; the reward book records the payout as a credit of
 * cause 'reward' equal, to the micro, to the collateral the exchange credited.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrderBuilder } from '../../src/api/orders.ts';
import { createTransport, type HttpTransport } from '../../src/api/http/transport.ts';
import { RewardsClient } from '../../src/api/rewards.ts';
import { VirtualClock } from '../../src/core/clock.ts';
import type { ConditionId } from '../../src/core/ids.ts';
import type { Micro, Pips } from '../../src/core/units.ts';
import { RewardBook } from '../../src/ops/reward-book.ts';
import { openStore } from '../../src/store/store.ts';
import { liveVenueFromParts } from '../../src/venues/live/live-venue.ts';
import { no, startVenue, yes, type TestVenue } from './support/setup.ts';
import type { Trader } from './support/trader.ts';

const EPOCH = 120_000;
let v: TestVenue;
let clock: VirtualClock;
let t: Trader;
let transport: HttpTransport;
let cid: ConditionId;

beforeAll(async () => {
  clock = new VirtualClock(Math.floor(Date.now() / EPOCH) * EPOCH + 10_000);
  v = await startVenue({
    clock,
    exchange: { rewards: { epochMs: EPOCH, sampleMs: 10_000 } },
    http: { authMaxSkewSec: 3600 },
  });
  cid = v.m1.condition_id as ConditionId;
  // 3 cents, 20 shares, 1440 USDC a day: 2 USDC a 2-minute epoch
  v.running.exchange.setRewardConfig(cid, {
    maxSpread: 300 as Pips,
    minSize: 20_000_000 as Micro,
    dailyRate: 1_440_000_000 as Micro,
  });
  t = await v.trader();
  transport = createTransport({
    urls: { clob: v.clob, data: v.running.urls.data_url },
    credentials: t.creds!,
    address: t.address,
  });
});
afterAll(async () => {
  await transport?.close();
  await v?.close();
});

describe("the bot's reward clients against the paper exchange", () => {
  it('order scoring, earnings, totals, percentages, markets and configs, exact; the payout booked to the micro', async () => {
    const ex = v.running.exchange;
    const c = new RewardsClient(transport);
    const bid = await t.place(yes(v.m1), 'BUY', '0.49', '100');
    const ask = await t.place(no(v.m1), 'BUY', '0.49', '100'); // a YES ask at 0.51
    const small = await t.place(yes(v.m1), 'BUY', '0.48', '10'); // below the min size
    for (const r of [bid, ask, small]) expect(r.body).toMatchObject({ success: true });
    expect(await c.orderScoring(ask.id)).toBe(true);
    expect([...(await c.ordersScoring([bid.id, small.id]))]).toEqual([
      [bid.id, true],
      [small.id, false],
    ]);

    // the live venue: MarketInfo.rewards from the record
    const venue = liveVenueFromParts({
      transport,
      creds: t.creds!,
      address: t.address,
      data: true,
      builder: new OrderBuilder({ wallet: t.wallet, chainId: 137, protocol: ex.protocol }),
      urls: { ws: 'ws://127.0.0.1:9' },
      clock,
      presign: false,
    });
    const info = (await venue.markets()).find((m) => m.market === cid);
    expect(info?.rewards).toEqual({ maxSpread: 300, minSize: 20_000_000, dailyRate: 1_440_000_000 });
    const plain = (await venue.markets()).find((m) => ex.rewards.configOf(m.market) === null);
    expect(plain?.rewards).toBeNull();

    const before = ex.engine.balance(t.address).collateral;
    const end = ex.rewards.epochEnd;
    clock.advanceTo(end + 30_000);
    const date = new Date(end - 1).toISOString().slice(0, 10);
    const credited = ex.engine.balance(t.address).collateral - before;
    expect(credited).toBe(2_000_000); // the only maker: the whole pool

    expect(await c.userEarnings(date)).toEqual([
      { date, market: cid, assetAddress: ex.rewardAsset, maker: t.address, earnings: 2_000_000, assetRate: '1' },
    ]);
    expect(await c.userTotal(date)).toEqual([
      { date, assetAddress: ex.rewardAsset, maker: t.address, earnings: 2_000_000, assetRate: '1' },
    ]);
    expect(await c.userEarnings('2001-01-01')).toEqual([]);
    expect((await c.userPercentages()).get(cid)).toBe(100);
    const mine = (await c.userMarkets(date)).find((m) => m.market === cid);
    expect(mine).toMatchObject({
      maxSpread: '3',
      minSize: 20_000_000,
      dailyRate: 1_440_000_000,
      earnings: 2_000_000,
      percentage: 100,
    });
    const current = await c.currentRewards();
    expect(current.map((r) => r.market).sort()).toEqual(
      ex.rewards
        .rewarded()
        .map(([m]) => m)
        .sort(),
    );
    expect(current.find((r) => r.market === cid)).toMatchObject({
      maxSpread: '3',
      minSize: 20_000_000,
      dailyRate: 1_440_000_000,
    });
    expect((await c.marketRewards(cid)).map((r) => [r.market, r.dailyRate])).toEqual([[cid, 1_440_000_000]]);
    expect(await c.marketRewards(plain!.market)).toEqual([]);

    // the REWARD activity: a collateral credit, naming no token
    expect(await venue.rewardCredits(0)).toEqual([
      expect.objectContaining({ market: cid, amount: 2_000_000, at: Math.floor(end / 1000) * 1000 }),
    ]);
    expect([...(await venue.activityKinds(0)).values()]).not.toContain('REWARD');

    // the reward book: one credit of cause 'reward', equal to what the exchange credited
    const store = openStore(':memory:', { clock });
    store.openEpoch({ venue: 'paper', world: 'w', address: t.address });
    const book = new RewardBook({
      store,
      clock,
      sampleMs: 10_000,
      address: t.address,
      earnings: async (d) => (await venue.rewards.userEarnings(d)).map((r) => ({ ...r })),
    });
    const r = await book.poll();
    expect(r.credits.map((x) => [x.market, x.date, x.amount, x.cause])).toEqual([[cid, date, credited, 'reward']]);
    expect(store.rewardTotals().paid).toBe(credited);
    expect((await book.poll()).credits).toEqual([]);
    store.close();
    await venue.close();
  });

  it('a malformed date is refused before anything is sent', async () => {
    await expect(new RewardsClient(transport).userEarnings('2026-02-30')).rejects.toThrow(/YYYY-MM-DD/);
  });
});
