/**
 * The daemon monitor: the status snapshot (decimal strings, quotes per market, inventory, PnL
 * series thinned over the whole run), tick-to-order measured only for quotes a market frame
 * caused, stream state for health, and no secret anywhere in what it produces.
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.ts';
import type { FillEvent, MmkitEvent } from '../../../src/core/events.ts';
import type { ConditionId, OrderId, TokenId, TradeId } from '../../../src/core/ids.ts';
import type { DesiredQuotes, LiveOrderView } from '../../../src/core/intents.ts';
import type { Micro, Pips } from '../../../src/core/units.ts';
import { Metrics } from '../../../src/ops/metrics.ts';
import { DaemonMonitor, type DaemonView } from '../../../src/ops/status.ts';

const M = '0x' + '1'.repeat(64);
const Y = '1111' as TokenId;
const N = '2222' as TokenId;

function setup() {
  const clock = new VirtualClock(1_700_000_000_000);
  const metrics = new Metrics({ now: () => clock.now(), defaultMetrics: false });
  let hr = 0;
  const monitor = new DaemonMonitor({
    clock,
    metrics,
    feedStaleMs: 5000,
    hrtime: () => hr,
    seriesCapacity: 8,
    version: '9.9.9',
  });
  const books = new Map<string, { bestBid: number | null; bestAsk: number | null; stale: boolean }>([
    [Y, { bestBid: 4500, bestAsk: 4700, stale: false }],
    [N, { bestBid: 5300, bestAsk: 5500, stale: false }],
  ]);
  const live: LiveOrderView[] = [
    {
      id: '0xo1' as OrderId,
      market: M as ConditionId,
      tokenId: Y,
      side: 'BUY',
      price: 4400 as Pips,
      originalSize: 5_000_000 as Micro,
      sizeMatched: 1_000_000 as Micro,
    },
  ];
  let realized = 0;
  const refused = new Map<string, number>();
  const intents = { strategyErrors: 0, first: undefined as { message: string; at?: string } | undefined };
  const pauses: string[] = [];
  const view: DaemonView = {
    book: (t) => books.get(t),
    whyNotQuotable: () => undefined,
    isRetired: () => false,
    liveOrders: () => live,
    positions: () => [{ market: M, tokenId: Y, size: 1_000_000, avgPrice: 4400, realized: 0, fees: 0 }],
    pnl: (marks) => ({
      realized,
      unrealized: ((marks.get(Y) ?? 0) - 4400) * 100,
      fees: 0,
      total: realized + ((marks.get(Y) ?? 0) - 4400) * 100,
      unmarked: [],
    }),
    collateral: () => ({ available: 9_990_500_000, reserved: 2_200_000 }),
    heartbeat: () => ({ ok: true, consecutiveFailures: 0, lastLatencyMs: 3, lastAttemptAt: clock.now(), failed: 0 }),
    killSwitch: () => ({ tripped: false }),
    totals: () => ({
      ordersPlaced: 3,
      ordersCancelled: 2,
      ordersRejected: 4,
      fills: 1,
      volume: 1_000_000,
      notional: 440_000,
    }),
    rejectionsNotCounted: () => ({ sellBalanceRaces: 2, postOnlyCrossings: 1 }),
    pauseReasons: () => pauses,
    intents: () => ({
      refused,
      trimmed: new Map(),
      strategyErrors: intents.strategyErrors,
      ...(intents.first !== undefined ? { firstStrategyError: intents.first } : {}),
    }),
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
    strategy: { name: 'bands', params: { spread: 2 } },
    address: '0xabc',
    venueUrl: 'http://127.0.0.1:1',
  });
  return {
    clock,
    metrics,
    monitor,
    view,
    books,
    refused,
    intents,
    pauses,
    setHr: (v: number) => (hr = v),
    setRealized: (v: number) => (realized = v),
  };
}

const level = (recvTime: number): MmkitEvent => ({
  type: 'level_change',
  market: M as ConditionId,
  tokenId: Y,
  side: 'BUY',
  price: 4500 as Pips,
  size: 1 as Micro,
  bestBid: 4500 as Pips,
  bestAsk: 4700 as Pips,
  hash: '',
  endOfBatch: true,
  venueTime: recvTime - 3,
  recvTime,
});
const quotes = (at: number, n = 1): DesiredQuotes => ({
  market: M as ConditionId,
  at,
  quotes: Array.from({ length: n }, () => ({
    tokenId: Y,
    side: 'BUY' as const,
    price: 4400 as Pips,
    size: 5_000_000 as Micro,
  })),
});

describe('DaemonMonitor', () => {
  it('names a position held in a market it does not follow from the venue listing (trial 13 F14)', () => {
    const { monitor, view } = setup();
    const M2 = '0x' + '2'.repeat(64);
    const followed = {
      market: M,
      question: 'Will it rain?',
      tokens: [
        { tokenId: Y, outcome: 'Yes' },
        { tokenId: N, outcome: 'No' },
      ],
    };
    const other = {
      market: M2,
      question: 'Will it snow?',
      tokens: [
        { tokenId: '3333', outcome: 'Yes' },
        { tokenId: '4444', outcome: 'No' },
      ],
    };
    const v2: DaemonView = {
      ...view,
      positions: () => [
        ...view.positions(),
        { market: M2, tokenId: '3333', size: 2_000_000, avgPrice: 5000, realized: 0, fees: 0 },
      ],
    };
    const ctx = { strategy: { name: 'bands', params: {} }, address: '0xabc', venueUrl: 'http://127.0.0.1:1' };
    monitor.attach(v2, { ...ctx, markets: [followed] });
    expect(monitor.sample().inventory.positions.find((p) => p.tokenId === '3333')).toMatchObject({
      question: '',
      outcome: '',
    });
    monitor.attach(v2, { ...ctx, markets: [followed], listed: [followed, other] });
    const s = monitor.sample();
    expect(s.inventory.positions.find((p) => p.tokenId === '3333')).toMatchObject({
      market: M2,
      question: 'Will it snow?',
      outcome: 'Yes',
      size: '2',
    });
    // named, still not followed
    expect(s.markets.map((m) => m.market)).toEqual([M]);
  });

  it('builds the status snapshot with decimal strings, book tops, own quotes and inventory', () => {
    const { monitor, clock } = setup();
    monitor.setLifecycle('running');
    monitor.onEvent({
      type: 'resynced',
      stream: 'market',
      initial: true,
      venueTime: clock.now(),
      recvTime: clock.now(),
    });
    monitor.onEvent({ type: 'resynced', stream: 'user', initial: true, venueTime: clock.now(), recvTime: clock.now() });
    monitor.onEvent(level(clock.now()));
    // order and cancel round trips (the transport's answers); other requests are not kept
    monitor.onAnswer({ api: 'clob', method: 'POST', path: '/orders', ms: 2.5 });
    monitor.onAnswer({ api: 'clob', method: 'GET', path: '/orders', ms: 90 });
    const s = monitor.sample();
    expect(s).toMatchObject({
      schema: 1,
      version: '9.9.9',
      lifecycle: 'running',
      strategy: { name: 'bands' },
      account: { address: '0xabc' },
    });
    expect(s.health.healthy).toBe(true);
    const m = s.markets[0]!;
    expect(m).toMatchObject({ market: M, question: 'Will it rain?', quotable: true });
    expect(m.tokens[0]).toMatchObject({
      outcome: 'Yes',
      bestBid: '0.45',
      bestAsk: '0.47',
      mid: '0.46',
      position: '1',
      avgPrice: '0.44',
      stale: false,
    });
    expect(m.quotes).toEqual([
      { id: '0xo1', tokenId: Y, outcome: 'Yes', side: 'BUY', price: '0.44', size: '5', matched: '1' },
    ]);
    expect(s.inventory.collateral).toEqual({ available: '9990.5', reserved: '2.2' });
    expect(s.inventory.positions[0]).toMatchObject({ outcome: 'Yes', size: '1', avgPrice: '0.44', mark: '0.46' });
    expect(s.pnl).toMatchObject({ realized: '0', unrealized: '0.02', total: '0.02', day: null });
    // of the rejections, those the kill switch does not count (the executor's sell-balance races and
    // post-only crossings), by cause
    expect(s.orders).toEqual({
      open: 1,
      placed: 3,
      cancelled: 2,
      rejected: 4,
      notCounted: { sellBalanceRaces: 2, postOnlyCrossings: 1 },
      roundTrips: { place: { count: 1, window: 1, p50Ms: 2.5, p90Ms: 2.5, maxMs: 2.5 }, cancel: null },
    });
    expect(s.fills).toMatchObject({ count: 1, volume: '1', notional: '0.44' });
    // markouts, fill ratio and drawdown of the session (src/ops/session-trade-stats.ts)
    expect(s.trading?.markouts.map((x) => x.horizonMs)).toEqual([1000, 10_000, 60_000]);
    expect(s.trading).toMatchObject({ ordersFilled: 0, fillRatio: 0, maxDrawdown: '0' });
  });

  it("shows the gate's refusals by code and the strategy's errors, since the start and over the last 5 minutes (F22)", async () => {
    const { clock, metrics, monitor, refused, intents } = setup();
    const s0 = monitor.sample();
    expect(s0.gate).toEqual({ windowSec: 300, refused: {}, refusedRecent: {}, trimmed: {}, trimmedRecent: {} });
    expect(s0.strategyErrors).toEqual({ count: 0, recent: 0, first: null });
    refused.set('OFF_TICK', 30);
    intents.strategyErrors = 3;
    intents.first = { message: 'boom', at: '/x/bad.ts:15:44' };
    clock.advance(1000);
    const s1 = monitor.sample();
    expect(s1.gate).toMatchObject({ refused: { OFF_TICK: 30 }, refusedRecent: { OFF_TICK: 30 } });
    expect(s1.strategyErrors).toEqual({ count: 3, recent: 3, first: { message: 'boom', at: '/x/bad.ts:15:44' } });
    expect(await metrics.render()).toContain('mmkit_risk_refusals_total{code="OFF_TICK"} 30');
    // five minutes later with nothing new: none recent, the totals stay
    refused.set('OFF_TICK', 31);
    clock.advance(10_000);
    monitor.sample();
    clock.advance(300_000);
    const s2 = monitor.sample();
    expect(s2.gate).toMatchObject({ refused: { OFF_TICK: 31 }, refusedRecent: {} });
    expect(s2.strategyErrors).toMatchObject({ count: 3, recent: 0 });
  });

  it('goes unhealthy when the market stream drops or stays silent, and back', () => {
    const { monitor, clock } = setup();
    monitor.setLifecycle('running');
    monitor.onEvent({
      type: 'resynced',
      stream: 'market',
      initial: true,
      venueTime: clock.now(),
      recvTime: clock.now(),
    });
    monitor.onEvent({ type: 'resynced', stream: 'user', initial: true, venueTime: clock.now(), recvTime: clock.now() });
    monitor.onEvent(level(clock.now()));
    expect(monitor.health().healthy).toBe(true);
    monitor.onEvent({
      type: 'disconnected',
      stream: 'market',
      reason: 'closed 1006',
      venueTime: clock.now(),
      recvTime: clock.now(),
    });
    expect(monitor.health().reasons.map((r) => r.code)).toEqual(['market_stream_down']);
    monitor.onEvent({
      type: 'resynced',
      stream: 'market',
      initial: false,
      venueTime: clock.now(),
      recvTime: clock.now(),
    });
    monitor.onEvent(level(clock.now()));
    expect(monitor.health().healthy).toBe(true);
    clock.advance(6000);
    expect(monitor.health().reasons.map((r) => r.code)).toEqual(['feed_stale']);
    monitor.onEvent(level(clock.now()));
    expect(monitor.health().healthy).toBe(true);
  });

  it("goes unhealthy while placing is paused for the fleet's Redis (trial 22 F5), not for a merge", () => {
    const { monitor, clock, pauses } = setup();
    monitor.setLifecycle('running');
    for (const stream of ['market', 'user'] as const)
      monitor.onEvent({ type: 'resynced', stream, initial: true, venueTime: clock.now(), recvTime: clock.now() });
    monitor.onEvent(level(clock.now()));
    pauses.push('merge');
    expect(monitor.health().healthy).toBe(true);
    pauses.push('fleet');
    expect(monitor.health().reasons.map((r) => r.code)).toEqual(['fleet_unreachable']);
  });

  it('measures tick-to-order from a market frame to the place request, and nothing for timer-driven quotes', async () => {
    const { monitor, metrics, clock, setHr } = setup();
    // a frame received 2 ms before the engine saw it, then 0.75 ms to the place request
    const recv = clock.now();
    clock.advance(2);
    setHr(100);
    monitor.onMarketFrame(level(recv));
    monitor.onQuoteSet(quotes(clock.now()));
    monitor.onEvent(level(recv)); // the engine finished the event
    setHr(100.75);
    monitor.onPlaceRequest(M);
    monitor.onPlaceRequest(M); // a second batch of the same reaction: not measured again
    // a timer-driven quote set: no frame pending, not measured
    monitor.onQuoteSet(quotes(clock.now()));
    monitor.onPlaceRequest(M);
    // a frame whose quotes were diffed to nothing: the cycle ends without a place
    monitor.onMarketFrame(level(clock.now()));
    monitor.onQuoteSet(quotes(clock.now() + 1));
    monitor.onEvent(level(clock.now()));
    monitor.onCycleEnd(M, clock.now() + 1);
    monitor.onPlaceRequest(M);
    const text = await metrics.render();
    expect(text).toContain('mmkit_tick_to_order_seconds_count 1');
    const sum = Number(/mmkit_tick_to_order_seconds_sum (\S+)/.exec(text)![1]);
    expect(sum).toBeCloseTo(0.00275, 6);
  });

  it("says the UTC day's PnL the daily loss limit judges (risk.maxDailyLoss on), and /metrics has it", async () => {
    const { monitor, view, metrics } = setup();
    monitor.sample();
    expect(await metrics.registry.metrics()).toContain('mmkit_pnl_day_usdc 0');
    view.killSwitch = () => ({ tripped: false, day: { date: '2026-11-29', pnl: -1_234_567 } });
    expect(monitor.sample().pnl.day).toEqual({ date: '2026-11-29', pnl: '-1.234567' });
    expect(await metrics.registry.metrics()).toContain('mmkit_pnl_day_usdc -1.234567');
  });

  it('keeps the PnL series over the whole run, thinned to the capacity', () => {
    const { monitor, clock, setRealized } = setup();
    for (let i = 0; i < 40; i++) {
      setRealized(i * 1_000_000);
      monitor.sample();
      clock.advance(1000);
    }
    const s = monitor.sample();
    expect(s.pnl.series.length).toBeLessThanOrEqual(9);
    expect(s.pnl.series[0]!.t).toBe(1_700_000_000_000);
    expect(s.pnl.series[s.pnl.series.length - 1]!.realized).toBe('39');
    for (let i = 1; i < s.pnl.series.length; i++) expect(s.pnl.series[i]!.t).toBeGreaterThan(s.pnl.series[i - 1]!.t);
  });

  it('lists recent fills, newest first, and counts them', async () => {
    const { monitor, metrics, clock } = setup();
    const f = (id: string): FillEvent => ({
      type: 'fill',
      tradeId: id as TradeId,
      orderId: '0xo1' as OrderId,
      status: 'MATCHED',
      role: 'MAKER',
      market: M as ConditionId,
      tokenId: Y,
      side: 'BUY',
      price: 4400 as Pips,
      size: 1_000_000 as Micro,
      feeRateBps: 0,
      takerOrderId: '0xt' as OrderId,
      source: 'stream',
      venueTime: clock.now(),
      recvTime: clock.now(),
    });
    monitor.onFill(f('a'));
    monitor.onFill(f('b'));
    monitor.onFill({ ...f('c'), source: 'reconcile' }); // found over REST: the user channel missed it
    const s = monitor.sample();
    expect(s.fills.recent.map((x) => x.price)).toEqual(['0.44', '0.44', '0.44']);
    expect(s.fills.recent[0]).toMatchObject({
      question: 'Will it rain?',
      outcome: 'Yes',
      side: 'BUY',
      role: 'MAKER',
      size: '1',
    });
    expect(await metrics.render()).toContain(`mmkit_fills_total{market="${M}",side="BUY",role="MAKER"} 3`);
    expect(await metrics.render()).toContain(`mmkit_fills_recovered_total{market="${M}"} 1`);
  });
});
