/**
 * The status snapshot and the metrics show trading, fees and liquidity rewards apart and together:
 * total = trading - fees + rewards (paid + estimated); per market the reward config, the last
 * sample's share and what was paid and estimated; `mmkit_rewards_usdc{market,state}`; without
 * rewards the figures are zero and markets show none.
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.ts';
import type { TokenId } from '../../../src/core/ids.ts';
import { Metrics } from '../../../src/ops/metrics.ts';
import { DaemonMonitor, type DaemonView, type RewardsView } from '../../../src/ops/status.ts';
import { formatStatus } from '../../../src/cli/status.ts';

const M = '0x' + '1'.repeat(64);
const M2 = '0x' + '2'.repeat(64);
const Y = '1111' as TokenId;
const N = '2222' as TokenId;

function setup(rewards: RewardsView | undefined) {
  const clock = new VirtualClock(1_700_000_000_000);
  const metrics = new Metrics({ now: () => clock.now(), defaultMetrics: false });
  const monitor = new DaemonMonitor({ clock, metrics, feedStaleMs: 5000 });
  const view: DaemonView = {
    book: (t) =>
      t === Y ? { bestBid: 4500, bestAsk: 4700, stale: false } : { bestBid: 5300, bestAsk: 5500, stale: false },
    whyNotQuotable: () => undefined,
    isRetired: () => false,
    liveOrders: () => [],
    positions: () => [],
    // trading: realized 2.5 + unrealized -0.5, fees 0.25
    pnl: () => ({ realized: 2_500_000, unrealized: -500_000, fees: 250_000, total: 1_750_000, unmarked: [] }),
    collateral: () => ({ available: 1, reserved: 0 }),
    heartbeat: () => ({ ok: true, consecutiveFailures: 0, lastLatencyMs: 1, lastAttemptAt: 0, failed: 0 }),
    killSwitch: () => ({ tripped: false }),
    totals: () => ({ ordersPlaced: 0, ordersCancelled: 0, ordersRejected: 0, fills: 0, volume: 0, notional: 0 }),
    pauseReasons: () => [],
    ...(rewards ? { rewards: () => rewards } : {}),
  };
  monitor.attach(view, {
    markets: [
      {
        market: M,
        question: 'Will it rain?',
        tokens: [
          { tokenId: Y, outcome: 'Yes' },
          { tokenId: N, outcome: 'No' },
        ],
      },
    ],
    strategy: { name: 'rewards', params: {} },
    address: '0xabc',
    venueUrl: 'http://127.0.0.1:1',
  });
  return { monitor, metrics };
}

const REWARDS: RewardsView = {
  paid: 1_234_567,
  estimated: 10_001,
  byMarket: [
    { market: M, paid: 1_000_000, estimated: 10_001 },
    { market: M2, paid: 234_567, estimated: 0 }, // paid for a market not traded this run
  ],
  live: [
    {
      market: M,
      config: { maxSpread: 450, minSize: 20_000_000, dailyRate: 100_000_000 },
      samples: 12,
      scoredSamples: 10,
      lastShare: 0.25,
      lastDaily: 25_000_000,
      lastAt: 1_700_000_000_000,
    },
  ],
};

describe('rewards in the status', () => {
  it('PnL apart and together: trading, fees, rewards paid and estimated, total', () => {
    const s = setup(REWARDS).monitor.sample();
    expect(s.pnl).toMatchObject({
      realized: '2.5',
      unrealized: '-0.5',
      trading: '2',
      fees: '0.25',
      rewards: {
        paid: '1.234567',
        estimated: '0.010001',
        total: '1.244568',
        byMarket: [
          { market: M, paid: '1', estimated: '0.010001', total: '1.010001' },
          { market: M2, paid: '0.234567', estimated: '0', total: '0.234567' },
        ],
      },
      // 2 - 0.25 + 1.244568
      total: '2.994568',
    });
    expect(s.pnl.series.at(-1)).toMatchObject({ rewards: '1.244568', total: '2.994568' });
    expect(s.markets[0]!.rewards).toEqual({
      maxSpread: '4.5',
      minSize: '20',
      dailyRate: '100',
      paid: '1',
      estimated: '0.010001',
      share: 0.25,
      estDaily: '25',
      samples: 12,
      scoredSamples: 10,
      venueShare: null,
    });
  });

  it('metrics: mmkit_rewards_usdc{market,state}, the PnL split and the last share', async () => {
    const { monitor, metrics } = setup(REWARDS);
    monitor.sample();
    const text = await metrics.registry.metrics();
    expect(text).toContain(`mmkit_rewards_usdc{market="${M}",state="paid"} 1`);
    expect(text).toContain(`mmkit_rewards_usdc{market="${M}",state="estimated"} 0.010001`);
    expect(text).toContain(`mmkit_rewards_usdc{market="${M2}",state="paid"} 0.234567`);
    expect(text).toContain('mmkit_pnl_rewards_usdc{state="paid"} 1.234567');
    expect(text).toContain('mmkit_pnl_rewards_usdc{state="estimated"} 0.010001');
    expect(text).toContain('mmkit_pnl_trading_usdc 2');
    expect(text).toContain('mmkit_pnl_fees_usdc 0.25');
    expect(text).toContain('mmkit_pnl_total_usdc 2.994568');
    expect(text).toContain(`mmkit_reward_share{market="${M}"} 0.25`);
    expect(text).toContain(`mmkit_reward_daily_estimate_usdc{market="${M}"} 25`);
  });

  it('without rewards: zero figures, total = trading - fees, markets show none', async () => {
    const { monitor, metrics } = setup(undefined);
    const s = monitor.sample();
    expect(s.pnl).toMatchObject({
      trading: '2',
      fees: '0.25',
      rewards: { paid: '0', estimated: '0', total: '0', byMarket: [] },
      total: '1.75',
    });
    expect(s.markets[0]!.rewards).toBeNull();
    expect(await metrics.registry.metrics()).not.toContain('mmkit_rewards_usdc{');
  });

  it('mmkit status prints them: the PnL line apart and together, a rewards line per rewarded market', () => {
    const text = formatStatus(setup(REWARDS).monitor.sample(), 'http://127.0.0.1:1');
    expect(text).toContain(
      'PnL (USDC)  total 2.994568   trading 2 (realized 2.5, unrealized -0.5)   fees 0.25   rewards 1.244568 (paid 1.234567, estimated 0.010001)',
    );
    expect(text).toContain(
      'rewards: pool 100/day, band 4.5c, min 20 shares; share 25.0% (~25/day), scored 10/12; paid 1, estimated 0.010001',
    );
  });

  it("the venue's share of the running epoch beside the estimate, once read (trial 16 F4)", () => {
    const s = setup({ ...REWARDS, venueShares: new Map([[M.toLowerCase(), 0.304]]) }).monitor.sample();
    expect(s.markets.find((m) => m.market === M)!.rewards).toMatchObject({ share: 0.25, venueShare: 0.304 });
    expect(formatStatus(s, 'http://127.0.0.1:1')).toContain(
      "share 25.0% (~25/day), the venue's 30.4% of the running epoch, scored 10/12",
    );
  });

  it('a market the venue left out of a read is 0 (a new epoch before its first sample), not unknown', () => {
    const s = setup({ ...REWARDS, venueShares: new Map([['0xother', 0.5]]) }).monitor.sample();
    expect(s.markets.find((m) => m.market === M)!.rewards).toMatchObject({ venueShare: 0 });
    expect(formatStatus(s, 'http://127.0.0.1:1')).toContain("the venue's 0.0% of the running epoch");
  });
});
