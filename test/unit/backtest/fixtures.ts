/**
 * A hand-built backtest result for the metrics and report tests.
 */
import { fillStatsOf } from '../../../src/backtest/metrics.ts';
import type { BacktestResult, FillRow } from '../../../src/backtest/runner.ts';

export const T0 = 1_767_225_600_000;

function fill(o: Partial<FillRow> & Pick<FillRow, 't' | 'side' | 'price' | 'size'>): FillRow {
  return {
    tradeId: `t${o.t}`,
    orderId: o.orderId ?? `o${o.t}`,
    market: 'm1',
    tokenId: o.tokenId ?? 'yes',
    fee: 0,
    role: 'MAKER',
    mid: null,
    markouts: [null, null, null],
    ...o,
  };
}

/** A result with 4 fills and 6 samples, 1 s apart. */
export function sampleResult(): BacktestResult {
  const fills: FillRow[] = [
    // BUY 10 @ 0.50; mids later 0.52, 0.49, 0.55 → markouts +0.02, -0.01, +0.05
    fill({ t: T0 + 1000, side: 'BUY', price: 5000, size: 10_000_000, orderId: 'a', markouts: [5200, 4900, 5500] }),
    // SELL 30 @ 0.60; mids later 0.58, 0.61, null → +0.02, -0.01, n/a
    fill({
      t: T0 + 2000,
      side: 'SELL',
      price: 6000,
      size: 30_000_000,
      orderId: 'b',
      markouts: [5800, 6100, null],
      fee: 12_345,
      role: 'TAKER',
    }),
    // BUY 20 @ 0.40 on the NO token; mids later 0.41, null, null
    fill({
      t: T0 + 3000,
      side: 'BUY',
      price: 4000,
      size: 20_000_000,
      orderId: 'c',
      tokenId: 'no',
      markouts: [4100, null, null],
    }),
    // BUY 5 @ 0.50 of order a again (a partial fill: still one filled order)
    fill({ t: T0 + 4000, side: 'BUY', price: 5000, size: 5_000_000, orderId: 'a', markouts: [5000, null, null] }),
  ];
  return {
    version: 1,
    mode: 'feed',
    source: { feeds: ['x.ndjson.gz'] },
    strategy: { name: 'bands', params: { maxPosition: 20 } },
    seed: 1,
    queue: 'risk-averse',
    latencyMs: 0,
    feeProtocol: 2,
    startMs: T0,
    endMs: T0 + 5000,
    stopReason: 'end of feed',
    markets: [
      {
        market: 'm1',
        question: 'Q?',
        tick: '0.01',
        feeRateBps: 0,
        tokens: [
          { tokenId: 'yes', outcome: 'Yes' },
          { tokenId: 'no', outcome: 'No' },
        ],
        resolvedTo: null,
      },
    ],
    counts: {
      feedItems: 100,
      frames: 99,
      malformed: 1,
      marketEvents: 150,
      userEvents: 20,
      intents: 40,
      intentsCoalesced: 30,
    },
    orders: {
      placeRequests: 5,
      ordersSent: 10,
      ordersAccepted: 8,
      ordersRejected: 2,
      ordersUnknown: 0,
      cancelRequests: 4,
      idsCancelled: 6,
      cancelAllRequests: 1,
      ordersFilled: 3,
      rejectCodes: { INVALID_ORDER_NOT_ENOUGH_BALANCE: 2 },
    },
    budgets: [
      { rule: 'general', limit: 15000, windowMs: 10_000, requests: 10, peak: 7, over: 0 },
      { rule: 'POST /orders:burst', limit: 1000, windowMs: 10_000, requests: 5, peak: 250, over: 0 },
    ],
    inventoryLimit: { size: 20_000_000, source: 'strategy.maxPosition' },
    fills,
    fillCount: fills.length,
    fillStats: fillStatsOf(fills, 20_000_000, T0, T0 + 5000, ['yes', 'no']),
    fillPoints: {
      stride: 1,
      t: fills.map((f) => f.t),
      tokenId: fills.map((f) => f.tokenId),
      side: fills.map((f) => f.side),
      price: fills.map((f) => f.price),
      size: fills.map((f) => f.size),
    },
    samples: {
      intervalMs: 1000,
      t: [T0, T0 + 1000, T0 + 2000, T0 + 3000, T0 + 4000, T0 + 5000],
      pnl: {
        realized: [0, 0, 3, 3, 3, 3],
        unrealized: [0, 0, 0, 0, 0, 0],
        fees: [0, 0, 0, 0, 0, 0],
        total: [0, 10, 4, 12, 6, 14],
      },
      tokens: [],
    },
    pnl: { realized: 3_000_000, unrealized: -1_000_000, fees: 12_345, total: 1_987_655, unmarked: [] },
    positions: [],
    engine: {
      events: 1,
      executed: 1,
      dropped: 0,
      pulls: 0,
      resumes: 0,
      errors: { state: 0, strategy: 0, gate: 0, execute: 0, onFill: 0, source: 0, balance: 0, listing: 0 },
      outputs: 1,
    },
    executor: {
      submitted: 1,
      superseded: 0,
      cycles: 1,
      failedCycles: 0,
      ordersSent: 10,
      cancelsSent: 4,
      rejections: 2,
      unknownOutcomes: 0,
      resends: 0,
      concludedNeverArrived: 0,
    },
    venue: null,
    openOrdersAtEnd: 0,
  };
}
