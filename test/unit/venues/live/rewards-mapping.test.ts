/**
 * The live venue and liquidity rewards: a CLOB market record's `rewards` becomes MarketInfo.rewards
 * (pips, micro-shares, micro per day; null without a pool), and the data API's REWARD activity is a
 * collateral credit, never the cause of a token's difference.
 */
import { Wallet } from 'ethers';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { toMarket } from '../../../../src/api/clob-mappers.ts';
import type { RequestSpec, Transport } from '../../../../src/api/http/types.ts';
import { OrderBuilder } from '../../../../src/api/orders.ts';
import { clobMarketSchema } from '../../../../src/api/schemas/clob.ts';
import { marketRewardsSchema } from '../../../../src/api/schemas/rewards.ts';
import { LiveClock } from '../../../../src/core/clock.ts';
import { ValidationError } from '../../../../src/core/errors.ts';
import type { ConditionId, TokenId } from '../../../../src/core/ids.ts';
import type { Micro } from '../../../../src/core/units.ts';
import { rewardConfigOf } from '../../../../src/venues/live/live-mappers.ts';
import { liveVenueFromParts, toMarketInfo } from '../../../../src/venues/live/live-venue.ts';

const record = (rewards: unknown) => ({
  condition_id: '0xm',
  question: 'Will it?',
  tokens: [
    { token_id: 'Y', outcome: 'Yes', price: 0.5 },
    { token_id: 'N', outcome: 'No', price: 0.5 },
  ],
  minimum_order_size: 5,
  minimum_tick_size: 0.01,
  neg_risk: false,
  active: true,
  closed: false,
  accepting_orders: true,
  end_date_iso: '2027-01-01T00:00:00Z',
  ...(rewards === undefined ? {} : { rewards }),
});
const infoOf = (rewards: unknown) => toMarketInfo(toMarket(clobMarketSchema.parse(record(rewards))), 0);

describe('MarketInfo.rewards of a CLOB market record', () => {
  it('max spread cents x 100 as pips, min size x 1e6, the rates summed as micro per day', () => {
    expect(
      infoOf({
        rates: [
          { asset_address: '0xC011', rewards_daily_rate: 5 },
          { asset_address: '0xC011', rewards_daily_rate: 0.25 },
        ],
        min_size: 200,
        max_spread: 1.5,
      })?.rewards,
    ).toEqual({ maxSpread: 150, minSize: 200_000_000, dailyRate: 5_250_000 });
    expect(
      infoOf({ rates: [{ asset_address: '0xC011', rewards_daily_rate: 100 }], min_size: 20, max_spread: 4.5 })?.rewards,
    ).toEqual({ maxSpread: 450, minSize: 20_000_000, dailyRate: 100_000_000 });
  });

  it("null without a pool: today's no-rewards form, empty rates, a zero rate, min size and spread set without rates", () => {
    expect(infoOf({ rates: null, min_size: 0, max_spread: 0 })?.rewards).toBeNull();
    expect(infoOf({ rates: [], min_size: 20, max_spread: 3 })?.rewards).toBeNull();
    expect(infoOf({ rates: null, min_size: 50, max_spread: 4.5 })?.rewards).toBeNull();
    expect(
      infoOf({ rates: [{ asset_address: '0x', rewards_daily_rate: 0 }], min_size: 50, max_spread: 4.5 })?.rewards,
    ).toBeNull();
    expect(infoOf(undefined)?.rewards).toBeNull();
  });

  it('a max spread that is not a whole number of pips is no rewards (never a guessed band)', () => {
    expect(
      rewardConfigOf(
        marketRewardsSchema.parse({
          rates: [{ asset_address: '0x', rewards_daily_rate: 1 }],
          min_size: 1,
          max_spread: 0.001,
        }),
      ),
    ).toBeNull();
    expect(
      rewardConfigOf(
        marketRewardsSchema.parse({
          rates: [{ asset_address: '0x', rewards_daily_rate: 1 }],
          min_size: 1,
          max_spread: -3,
        }),
      ),
    ).toBeNull();
  });

  it('a malformed rewards object fails the record (a ValidationError names it), never a silent no-rewards', () => {
    expect(() => clobMarketSchema.parse(record({ rates: [{ rewards_daily_rate: 'x' }] }))).toThrow();
  });
});

class DataTransport implements Transport {
  readonly specs: RequestSpec[] = [];
  constructor(private readonly items: unknown[]) {}
  async request<S extends z.ZodType>(spec: RequestSpec, schema: S): Promise<z.output<S>> {
    this.specs.push(spec);
    const r = schema.safeParse({ data: this.items, next_cursor: 'LTE=' });
    if (!r.success) throw new ValidationError(r.error.issues[0]?.message ?? 'bad');
    return r.data;
  }
}

describe('REWARD activity', () => {
  const wallet = Wallet.createRandom();
  const venue = (items: unknown[]) => {
    const transport = new DataTransport(items);
    const v = liveVenueFromParts({
      transport,
      creds: { apiKey: 'k', secret: 'AAAA', passphrase: 'p' },
      address: wallet.address,
      data: true,
      builder: new OrderBuilder({ wallet, chainId: 137, protocol: 1 }),
      urls: { ws: 'ws://x' },
      clock: new LiveClock(),
      presign: false,
    });
    v.learnMarkets([
      {
        market: '0xm' as ConditionId,
        question: 'q',
        tokens: [
          { tokenId: 'Y' as TokenId, outcome: 'Yes' },
          { tokenId: 'N' as TokenId, outcome: 'No' },
        ],
        tick: '0.01',
        minOrderSize: 5_000_000 as Micro,
        negRisk: false,
        feeRateBps: 0,
        active: true,
        endDate: '',
      },
    ]);
    return { v, transport };
  };
  const reward = {
    timestamp: 1_764_201_600,
    conditionId: '0xm',
    type: 'REWARD',
    size: '0',
    usdcSize: '1.234567',
    transactionHash: '0xtx',
  };
  const split = { timestamp: 1_764_201_500, conditionId: '0xm', type: 'SPLIT', size: '10', usdcSize: '10' };

  it("names no token (a reward moves collateral only): a token's difference is not caused by it", async () => {
    const { v } = venue([reward, split]);
    const kinds = await v.activityKinds(0);
    // newest first: without the fix the reward would name both tokens (cause 'reward' for any token difference)
    expect(kinds.get('Y')).toBe('SPLIT');
    expect(kinds.get('N')).toBe('SPLIT');
  });

  it('is a collateral credit: market, micro, time, tx', async () => {
    const { v, transport } = venue([reward]);
    expect(await v.rewardCredits(1_764_201_000_000)).toEqual([
      { market: '0xm', amount: 1_234_567, at: 1_764_201_600_000, tx: '0xtx' },
    ]);
    expect(transport.specs[0]).toMatchObject({
      api: 'data',
      path: '/activity',
      query: { type: 'REWARD', start: 1_764_201_000 },
    });
  });
});
