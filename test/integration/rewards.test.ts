/**
 * The paper exchange pays liquidity rewards, seen through the wire and the public V2 client
 * (@polymarket/clob-client-v2, unchanged: isOrderScoring, areOrdersScoring, getCurrentRewards,
 * getRawRewardsForMarket, getEarningsForUserForDay, getTotalEarningsForUserForDay,
 * getRewardPercentages, getUserEarningsAndMarketsConfig). The exchange runs on loopback with a
 * virtual clock (injected), so a 2-minute epoch sampled every 10 s passes when the test says and the
 * split is exact: maker A quotes both sides, maker B one side; A is paid 3/4 of the pool to the
 * micro-unit, B's quarter is below the minimum payout and is not paid.
 */
import { ClobClient } from '@polymarket/clob-client-v2';
import { createWalletClient, http } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { polygon } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUSD } from '../../src/api/signing/order-v2.ts';
import { VirtualClock } from '../../src/core/clock.ts';
import { Trader } from './support/trader.ts';
import { ADMIN, getJson, no, startVenue, yes, type TestVenue } from './support/setup.ts';

const EPOCH = 120_000;
let v: TestVenue;
let clock: VirtualClock;

const walletOf = (pk: `0x${string}`) =>
  createWalletClient({ account: privateKeyToAccount(pk), chain: polygon, transport: http('http://127.0.0.1:9') });

/** A V2 client with throwOnError, and a trader (signing what the exchange speaks) of the same wallet and key. */
async function pair(): Promise<{ c: ClobClient; t: Trader }> {
  const pk = generatePrivateKey();
  const signer = walletOf(pk);
  const creds = await new ClobClient({ host: v.clob, chain: 137, signer }).createOrDeriveApiKey();
  const t = new Trader(v.clob, pk);
  t.protocol = v.running.exchange.protocol;
  t.creds = { apiKey: creds.key, secret: creds.secret, passphrase: creds.passphrase };
  return { c: new ClobClient({ host: v.clob, chain: 137, signer, creds, throwOnError: true }), t };
}

const utc = (ms: number) => new Date(ms).toISOString().slice(0, 10);

beforeAll(async () => {
  // 10 s after an epoch boundary: the test's orders rest before the first sample
  clock = new VirtualClock(Math.floor(Date.now() / EPOCH) * EPOCH + 10_000);
  v = await startVenue({
    clock,
    exchange: { rewards: { epochMs: EPOCH, sampleMs: 10_000 } },
    http: { adminToken: ADMIN, authMaxSkewSec: 3600 },
  });
});
afterAll(async () => {
  await v?.close();
});

describe('liquidity rewards on the paper exchange', () => {
  it('the world rewards a share of its markets, on every wire the public service has', async () => {
    const ex = v.running.exchange;
    const rewarded = ex.rewards.rewarded();
    expect(rewarded.length).toBeGreaterThan(5);
    expect(rewarded.length).toBeLessThan(ex.listMarkets().length);
    const sampling = await getJson(`${v.clob}/sampling-markets?limit=1000`);
    expect(sampling.data.map((m: any) => m.condition_id).sort()).toEqual(rewarded.map(([c]) => c).sort());
    const [cid, cfg] = rewarded[0]!;
    const rec = await getJson(`${v.clob}/markets/${cid}`);
    expect(rec.rewards).toEqual({
      rates: [{ asset_address: PUSD, rewards_daily_rate: cfg.dailyRate / 1e6 }],
      min_size: cfg.minSize / 1e6,
      max_spread: cfg.maxSpread / 100,
    });
    const info = await new ClobClient({ host: v.clob, chain: 137, throwOnError: true }).getClobMarketInfo(cid);
    expect(info.r).toEqual({ mi: cfg.minSize / 1e6, ma: cfg.maxSpread / 100 });
    const gamma = await getJson(`${v.running.urls.gamma_url}/markets/${cid}`);
    expect(gamma).toMatchObject({
      rewardsMinSize: cfg.minSize / 1e6,
      rewardsMaxSpread: cfg.maxSpread / 100,
      clobRewards: [
        {
          id: expect.stringMatching(/^\d+$/),
          conditionId: cid,
          assetAddress: PUSD,
          rewardsDailyRate: cfg.dailyRate / 1e6,
          startDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
          endDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        },
      ],
    });
    const plain = ex.listMarkets().find((e) => ex.rewards.configOf(e.meta.conditionId) === null)!;
    expect((await getJson(`${v.clob}/markets/${plain.meta.conditionId}`)).rewards).toEqual({
      rates: null,
      min_size: 0,
      max_spread: 0,
    });
    expect((await getJson(`${v.running.urls.gamma_url}/markets/${plain.meta.conditionId}`)).clobRewards).toEqual([]);
  });

  it('pays a 2-minute epoch by the scores, credits collateral to the micro, and every client method sees it', async () => {
    const ex = v.running.exchange;
    const m = v.m1;
    const cid = m.condition_id;
    // the operator sets the market's config: 3 cents, 20 shares, 1440 USDC a day (2 USDC per 2-minute epoch)
    const set = await v.admin('/rewards', {
      condition_id: cid,
      rewards: { max_spread: 3, min_size: '20', daily_rate: '1440' },
    });
    expect(set).toEqual({
      status: 200,
      body: {
        ok: true,
        condition_id: cid,
        rewards: { rates: [{ asset_address: PUSD, rewards_daily_rate: 1440 }], min_size: 20, max_spread: 3 },
      },
    });
    const a = await pair();
    const b = await pair();
    const aBid = await a.t.place(yes(m), 'BUY', '0.49', '100');
    const aAsk = await a.t.place(no(m), 'BUY', '0.49', '100'); // a NO bid at 0.49 is a YES ask at 0.51
    const bBid = await b.t.place(yes(m), 'BUY', '0.49', '100');
    const bSmall = await b.t.place(yes(m), 'BUY', '0.48', '10'); // below the min size
    for (const r of [aBid, aAsk, bBid, bSmall]) expect(r.body).toMatchObject({ success: true, status: 'live' });

    // order scoring, as the public client asks
    expect(await a.c.isOrderScoring({ order_id: aAsk.id })).toEqual({ scoring: true });
    expect(await b.c.isOrderScoring({ order_id: bSmall.id })).toEqual({ scoring: false });
    expect(await b.c.areOrdersScoring({ orderIds: [bBid.id, bSmall.id, aBid.id] })).toEqual({
      [bBid.id]: true,
      [bSmall.id]: false,
      [aBid.id]: false, // another user's order
    });

    const before = ex.engine.balance(a.t.address);
    const balanceBefore = (await a.c.getBalanceAllowance({ asset_type: 'COLLATERAL' as never })).balance;
    const epochEnd = ex.rewards.epochEnd;
    clock.advanceTo(epochEnd + 30_000); // the epoch closes; 4 samples of the next one taken
    const date = utc(epochEnd - 1);

    // collateral: +1.5 USDC exactly (3/4 of 2 USDC), nothing else moved
    const after = ex.engine.balance(a.t.address);
    expect(after.collateral - before.collateral).toBe(1_500_000);
    expect(after.collateralReserved).toBe(before.collateralReserved);
    const balanceAfter = (await a.c.getBalanceAllowance({ asset_type: 'COLLATERAL' as never })).balance;
    expect(BigInt(balanceAfter) - BigInt(balanceBefore)).toBe(1_500_000n);
    const bRow = ex.rewards.history().find((r) => r.maker === b.t.address && r.market === cid);
    expect(bRow).toMatchObject({ earned: 500_000, paid: 0, date });

    // the data API's activity: a REWARD row for A (none for B: nothing was paid)
    const act = await getJson(`${v.running.urls.data_url}/activity?user=${a.t.address}&type=REWARD`);
    const rows = Array.isArray(act) ? act : act.data;
    expect(rows).toEqual([
      expect.objectContaining({
        type: 'REWARD',
        conditionId: cid,
        usdcSize: '1.5',
        size: '1.5',
        timestamp: Math.floor(epochEnd / 1000),
        proxyWallet: a.t.address,
      }),
    ]);
    // filtered by time as the bot's cross-check asks (unix seconds: ten digits), before and after the payout
    const since = (s: number) =>
      getJson(`${v.running.urls.data_url}/activity?user=${a.t.address}&type=REWARD&start=${s}`).then((x) =>
        Array.isArray(x) ? x : x.data,
      );
    expect(await since(Math.floor(epochEnd / 1000))).toEqual(rows);
    expect(await since(Math.floor(epochEnd / 1000) + 1)).toEqual([]);
    const bAct = await getJson(`${v.running.urls.data_url}/activity?user=${b.t.address}&type=REWARD`);
    expect(Array.isArray(bAct) ? bAct : bAct.data).toEqual([]);

    // earnings of the date, per market and in total
    expect(await a.c.getEarningsForUserForDay(date)).toEqual([
      {
        date: `${date}T00:00:00Z`,
        condition_id: cid,
        asset_address: PUSD,
        maker_address: a.t.address,
        earnings: 1.5,
        asset_rate: 1,
      },
    ]);
    expect(await b.c.getEarningsForUserForDay(date)).toEqual([expect.objectContaining({ earnings: 0 })]);
    expect(await a.c.getTotalEarningsForUserForDay(date)).toEqual([
      { date: `${date}T00:00:00Z`, asset_address: PUSD, maker_address: a.t.address, earnings: 1.5, asset_rate: 1 },
    ]);
    expect(await a.c.getEarningsForUserForDay('2001-01-01')).toEqual([]);

    // the running epoch: A holds 3/4 of the scores so far
    expect(await a.c.getRewardPercentages()).toEqual({ [cid]: 75 });
    expect(await b.c.getRewardPercentages()).toEqual({ [cid]: 25 });

    const mine = await a.c.getUserEarningsAndMarketsConfig(date);
    expect(mine.length).toBe(ex.rewards.rewarded().length);
    expect(mine.find((r) => r.condition_id === cid)).toMatchObject({
      condition_id: cid,
      rewards_max_spread: 3,
      rewards_min_size: 20,
      maker_address: a.t.address,
      earning_percentage: 75,
      earnings: [{ asset_address: PUSD, earnings: 1.5, asset_rate: 1 }],
      rewards_config: [expect.objectContaining({ asset_address: PUSD, rate_per_day: 1440 })],
      tokens: [expect.objectContaining({ token_id: yes(m) }), expect.objectContaining({ token_id: no(m) })],
    });

    // the public lists
    const current = await a.c.getCurrentRewards();
    expect(current.map((r) => r.condition_id).sort()).toEqual(
      ex.rewards
        .rewarded()
        .map(([c]) => c)
        .sort(),
    );
    expect(current.find((r) => r.condition_id === cid)).toMatchObject({
      rewards_max_spread: 3,
      rewards_min_size: 20,
      rewards_config: [{ id: 0, asset_address: PUSD, rate_per_day: 1440 }],
    });
    const raw = await a.c.getRawRewardsForMarket(cid);
    expect(raw).toEqual([
      expect.objectContaining({
        condition_id: cid,
        rewards_max_spread: 3,
        rewards_min_size: 20,
        rewards_config: [expect.objectContaining({ id: 1, rate_per_day: 1440 })],
      }),
    ]);
    expect((raw[0] as unknown as { market_competitiveness: number }).market_competitiveness).toBeGreaterThan(0);
    const plain = ex.listMarkets().find((e) => ex.rewards.configOf(e.meta.conditionId) === null)!;
    expect(await a.c.getRawRewardsForMarket(plain.meta.conditionId)).toEqual([]);
  });

  it('pages the rewards lists with next_cursor until "LTE="; refuses a malformed date, changing nothing', async () => {
    const c = await pair();
    const all = await c.c.getUserEarningsAndMarketsConfig(utc(clock.now()));
    // by hand, 3 a page: the same rows
    const seen: string[] = [];
    let cursor = 'MA==';
    let pages = 0;
    while (cursor !== 'LTE=') {
      const r = await c.t.l2(
        'GET',
        `/rewards/user/markets?page_size=3&order_by=&position=&no_competition=false&next_cursor=${encodeURIComponent(cursor)}`,
      );
      expect(r.status).toBe(200);
      expect(r.body.data.length).toBeLessThanOrEqual(3);
      seen.push(...r.body.data.map((x: any) => x.condition_id));
      cursor = r.body.next_cursor;
      pages++;
    }
    expect(pages).toBe(Math.ceil(all.length / 3));
    expect(seen).toEqual(all.map((r) => r.condition_id));
    for (const bad of ['2026-13-01', '2026-02-30', 'yesterday', '20260101'])
      await expect(c.c.getEarningsForUserForDay(bad)).rejects.toThrow(/Invalid date \(format: YYYY-MM-DD\)/);
    const r = await c.t.l2('GET', '/rewards/user/total?date=01-01-2026');
    expect(r.status).toBe(400);
    expect(r.body.error.message).toBe('Invalid date (format: YYYY-MM-DD)');
    expect(
      (await c.t.l2('GET', '/rewards/user?date=2026-01-01&maker_address=0x0000000000000000000000000000000000000001'))
        .status,
    ).toBe(400);
    // public routes need no key; the user routes do
    expect((await fetch(`${v.clob}/rewards/user?date=2026-01-01`)).status).toBe(401);
    expect((await fetch(`${v.clob}/rewards/markets/0x12`)).status).toBe(400);
  });

  it('the operator clears a config: the market leaves the sampling list, its record says no rewards', async () => {
    const cid = v.m1.condition_id;
    expect((await v.admin('/rewards', { condition_id: cid, rewards: null })).body.rewards).toEqual({
      rates: null,
      min_size: 0,
      max_spread: 0,
    });
    const sampling = await getJson(`${v.clob}/sampling-simplified-markets?limit=1000`);
    expect(sampling.data.map((m: any) => m.condition_id)).not.toContain(cid);
    // refusals change nothing
    const bad = await v.admin('/rewards', {
      condition_id: cid,
      rewards: { max_spread: 0, min_size: 20, daily_rate: 5 },
    });
    expect(bad.status).toBe(400);
    expect(v.running.exchange.rewards.configOf(cid)).toBeNull();
    expect((await v.admin('/rewards', { condition_id: `0x${'0'.repeat(64)}`, rewards: null })).status).toBe(404);
  });
});
