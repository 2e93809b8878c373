/**
 * The liquidity-rewards client against a fake transport answering the public service's captured
 * wire shapes (/work/notes/issue19-research.md §2.4–2.5): the RequestSpec of every method (path,
 * auth, query, the bare-array body), the schemas (numbers to exact micro-units, both date forms,
 * unknown fields tolerated, required ones enforced) and the cursor pagination until "LTE=".
 */
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ValidationError } from '../../../src/core/errors.ts';
import type { RequestSpec, Transport } from '../../../src/api/http/types.ts';
import { checkDate, RewardsClient, utcDateOf } from '../../../src/api/rewards.ts';
import { marketRewardsSchema } from '../../../src/api/schemas/rewards.ts';

class FakeTransport implements Transport {
  readonly specs: RequestSpec[] = [];
  constructor(private readonly answer: (spec: RequestSpec) => unknown) {}
  async request<S extends z.ZodType>(spec: RequestSpec, schema: S): Promise<z.output<S>> {
    this.specs.push(spec);
    const r = schema.safeParse(this.answer(spec));
    if (!r.success) throw new ValidationError(`malformed response: ${r.error.issues[0]?.message}`);
    return r.data;
  }
}

const CID = '0xbd31dc8a20211944f6b70f31557f1001557b59905b7738480ca09bd4532f84af';
const ASSET = '0x9c4E1703476E875070EE25b56A58B008CFb8FA78';
const MAKER = '0xFeA4cB3dD4ca7CefD3368653B7D6FF9BcDFca604';

describe('RewardsClient: order scoring', () => {
  it('GET /order-scoring?order_id= with L2 auth', async () => {
    const t = new FakeTransport(() => ({ scoring: true }));
    expect(await new RewardsClient(t).orderScoring('0x6950')).toBe(true);
    expect(t.specs[0]).toMatchObject({
      method: 'GET',
      path: '/order-scoring',
      auth: 'l2',
      query: { order_id: '0x6950' },
    });
  });

  it('POST /orders-scoring with a bare JSON array of ids, answering a map', async () => {
    const t = new FakeTransport(() => ({ '0xabc': true, '0xdef': false }));
    const r = await new RewardsClient(t).ordersScoring(['0xabc', '0xdef']);
    expect([...r]).toEqual([
      ['0xabc', true],
      ['0xdef', false],
    ]);
    expect(t.specs[0]).toMatchObject({ method: 'POST', path: '/orders-scoring', auth: 'l2', body: ['0xabc', '0xdef'] });
  });

  it('no ids: no request; an empty id: a ValidationError and nothing sent', async () => {
    const t = new FakeTransport(() => ({}));
    expect((await new RewardsClient(t).ordersScoring([])).size).toBe(0);
    await expect(new RewardsClient(t).ordersScoring(['a', ''])).rejects.toThrow(ValidationError);
    await expect(new RewardsClient(t).orderScoring('')).rejects.toThrow(ValidationError);
    expect(t.specs).toHaveLength(0);
  });

  it('a malformed answer is a ValidationError', async () => {
    const t = new FakeTransport(() => ({ scoring: 'yes' }));
    await expect(new RewardsClient(t).orderScoring('x')).rejects.toThrow(ValidationError);
  });
});

describe('RewardsClient: earnings', () => {
  it('GET /rewards/user: every page until LTE=, earnings exact micro, both date forms, address lower case', async () => {
    const t = new FakeTransport((s) =>
      s.query?.['next_cursor'] === undefined
        ? {
            limit: 100,
            count: 1,
            next_cursor: 'MTAw',
            data: [
              {
                date: '2024-03-26T00:00:00Z',
                condition_id: CID,
                asset_address: ASSET,
                maker_address: MAKER,
                earnings: 0.237519,
                asset_rate: 1,
              },
            ],
          }
        : {
            limit: 100,
            count: 1,
            next_cursor: 'LTE=',
            data: [
              {
                date: '2024-03-26',
                condition_id: '0x2',
                asset_address: ASSET,
                maker_address: MAKER,
                earnings: 1.1,
                asset_rate: 1,
                extra: 'tolerated',
              },
            ],
          },
    );
    const rows = await new RewardsClient(t, { signatureType: 1 }).userEarnings('2024-03-26');
    expect(rows).toEqual([
      {
        date: '2024-03-26',
        market: CID,
        assetAddress: ASSET,
        maker: MAKER.toLowerCase(),
        earnings: 237_519,
        assetRate: '1',
      },
      {
        date: '2024-03-26',
        market: '0x2',
        assetAddress: ASSET,
        maker: MAKER.toLowerCase(),
        earnings: 1_100_000,
        assetRate: '1',
      },
    ]);
    expect(
      t.specs.map((s) => [s.path, s.auth, s.query?.['date'], s.query?.['signature_type'], s.query?.['next_cursor']]),
    ).toEqual([
      ['/rewards/user', 'l2', '2024-03-26', 1, undefined],
      ['/rewards/user', 'l2', '2024-03-26', 1, 'MTAw'],
    ]);
  });

  it('a float a hair below a micro is that micro (half-up past the 6th decimal)', async () => {
    const t = new FakeTransport(() => ({
      next_cursor: 'LTE=',
      data: [
        {
          date: '2026-01-02',
          condition_id: CID,
          asset_address: ASSET,
          maker_address: MAKER,
          earnings: 0.1 + 0.2 + 2.9999999999,
          asset_rate: 1,
        },
      ],
    }));
    const [r] = await new RewardsClient(t).userEarnings('2026-01-02');
    expect(r!.earnings).toBe(3_300_000);
  });

  it('a malformed date is refused before anything is sent', async () => {
    const t = new FakeTransport(() => []);
    const c = new RewardsClient(t);
    for (const d of ['2024-3-26', '2024-02-30', 'today', '2024-03-26T00:00:00Z', ''])
      await expect(c.userEarnings(d)).rejects.toThrow(ValidationError);
    await expect(c.userTotal('x')).rejects.toThrow(ValidationError);
    await expect(c.userMarkets('x')).rejects.toThrow(ValidationError);
    expect(t.specs).toHaveLength(0);
    expect(checkDate('2024-02-29')).toBe('2024-02-29');
    expect(utcDateOf(Date.UTC(2026, 10, 27, 23, 59, 59, 999))).toBe('2026-11-27');
  });

  it('a row without its earnings is refused (required fields enforced)', async () => {
    const t = new FakeTransport(() => ({
      next_cursor: 'LTE=',
      data: [{ date: '2026-01-02', condition_id: CID, asset_address: ASSET, maker_address: MAKER }],
    }));
    await expect(new RewardsClient(t).userEarnings('2026-01-02')).rejects.toThrow(ValidationError);
  });

  it('GET /rewards/user/total answers a bare array per asset', async () => {
    const t = new FakeTransport(() => [
      {
        date: '2024-04-09T00:00:00Z',
        asset_address: ASSET,
        maker_address: MAKER,
        earnings: 1.59984,
        asset_rate: 0.999357,
      },
    ]);
    const r = await new RewardsClient(t, { makerAddress: MAKER }).userTotal('2024-04-09');
    expect(r).toEqual([
      {
        date: '2024-04-09',
        assetAddress: ASSET,
        maker: MAKER.toLowerCase(),
        earnings: 1_599_840,
        assetRate: '0.999357',
      },
    ]);
    expect(t.specs[0]).toMatchObject({
      path: '/rewards/user/total',
      auth: 'l2',
      query: { maker_address: MAKER.toLowerCase() },
    });
  });

  it('GET /rewards/user/percentages answers a bare map of percents', async () => {
    const t = new FakeTransport(() => ({ [CID]: 20, '0x296e': 2.5 }));
    const r = await new RewardsClient(t).userPercentages();
    expect(r.get(CID)).toBe(20);
    expect(r.get('0x296e')).toBe(2.5);
    expect(t.specs[0]).toMatchObject({ path: '/rewards/user/percentages', auth: 'l2' });
  });

  it("GET /rewards/user/markets sends the public client's empty order_by/position and sums earnings", async () => {
    const t = new FakeTransport(() => ({
      limit: 100,
      count: 1,
      total_count: 42,
      next_cursor: 'LTE=',
      data: [
        {
          condition_id: CID,
          market_id: '248849',
          question: 'Will Trump win the 2024 Iowa Caucus?',
          market_slug: 'will-trump-win-the-2024-iowa-caucus',
          rewards_max_spread: 4.5,
          rewards_min_size: 10,
          volume_24hr: 12345.67,
          market_competitiveness: 0.42,
          tokens: [
            { token_id: '1343', outcome: 'YES', price: 0.8 },
            { token_id: '1667', outcome: 'NO', price: 0.2 },
          ],
          rewards_config: [
            {
              id: 0,
              asset_address: ASSET,
              start_date: '2024-03-01',
              end_date: '2500-12-31',
              rate_per_day: 2,
              total_rewards: 92,
            },
          ],
          maker_address: MAKER,
          earning_percentage: 30,
          earnings: [{ asset_address: ASSET, earnings: 0.585051, asset_rate: 1.001 }],
        },
      ],
    }));
    const [m] = await new RewardsClient(t).userMarkets('2024-03-26');
    expect(m).toMatchObject({
      market: CID,
      maxSpread: '4.5',
      minSize: 10_000_000,
      dailyRate: 2_000_000,
      percentage: 30,
      earnings: 585_051,
      competitiveness: 0.42,
      tokens: [
        { tokenId: '1343', outcome: 'YES', price: '0.8' },
        { tokenId: '1667', outcome: 'NO', price: '0.2' },
      ],
    });
    expect(t.specs[0]!.query).toMatchObject({ date: '2024-03-26', order_by: '', position: '', no_competition: false });
  });

  it('refuses a malformed maker address or signature type', () => {
    const t = new FakeTransport(() => ({}));
    expect(() => new RewardsClient(t, { makerAddress: '0x12' })).toThrow(ValidationError);
    expect(() => new RewardsClient(t, { signatureType: 5 as 0 })).toThrow(ValidationError);
  });
});

describe('RewardsClient: reward configurations', () => {
  it('GET /rewards/markets/current: public, live rows without question/tokens; daily = total_daily_rate or the sum', async () => {
    const t = new FakeTransport(() => ({
      limit: 500,
      count: 2,
      next_cursor: 'LTE=',
      data: [
        {
          condition_id: '0x1',
          rewards_config: [
            {
              asset_address: '0xC011',
              start_date: '2026-09-25',
              end_date: '2500-12-31',
              rate_per_day: 1,
              total_rewards: 0,
              id: 0,
            },
          ],
          rewards_max_spread: 4.5,
          rewards_min_size: 20,
          native_daily_rate: 1,
          total_daily_rate: 1.5,
        },
        {
          condition_id: '0x2',
          rewards_config: [
            { asset_address: '0xC011', start_date: '2026-09-25', rate_per_day: 0.25 },
            { asset_address: '0xC011', start_date: '2026-09-25', rate_per_day: 1 },
          ],
          rewards_max_spread: 3,
          rewards_min_size: 50,
        },
      ],
    }));
    const r = await new RewardsClient(t).currentRewards();
    expect(r.map((x) => [x.market, x.maxSpread, x.minSize, x.dailyRate])).toEqual([
      ['0x1', '4.5', 20_000_000, 1_500_000],
      ['0x2', '3', 50_000_000, 1_250_000],
    ]);
    expect(t.specs[0]).toMatchObject({ path: '/rewards/markets/current', auth: 'none' });
  });

  it('GET /rewards/markets/{id}: an empty data is no rewards; the id is a path segment', async () => {
    const t = new FakeTransport(() => ({ limit: 100, count: 0, next_cursor: 'LTE=', data: [] }));
    expect(await new RewardsClient(t).marketRewards('0xab/c')).toEqual([]);
    expect(t.specs[0]).toMatchObject({ path: '/rewards/markets/0xab%2Fc', auth: 'none' });
    await expect(new RewardsClient(t).marketRewards('')).rejects.toThrow(ValidationError);
  });

  it('a cursor that does not advance stops with a ValidationError (never loops)', async () => {
    const t = new FakeTransport(() => ({ next_cursor: 'MTAw', data: [{ condition_id: '0x1' }] }));
    await expect(new RewardsClient(t).currentRewards()).rejects.toThrow(/does not advance/);
  });
});

describe('the CLOB market record rewards object', () => {
  it('rates summed per asset, min size in micro-shares, max spread kept as cents text', () => {
    expect(
      marketRewardsSchema.parse({
        rates: [{ asset_address: '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174', rewards_daily_rate: 5 }],
        min_size: 200,
        max_spread: 1.5,
      }),
    ).toEqual({
      rates: [{ assetAddress: '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174', dailyRate: 5_000_000 }],
      minSize: 200_000_000,
      maxSpread: '1.5',
    });
    expect(marketRewardsSchema.parse({ rates: null, min_size: 0, max_spread: 0 })).toEqual({
      rates: [],
      minSize: 0,
      maxSpread: '0',
    });
  });
});
