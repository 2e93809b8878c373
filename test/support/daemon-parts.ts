/**
 * The daemon's parts as `DaemonOps.attach` takes them, reduced to what the status snapshot reads:
 * an account, no market, no position, no order (tests of the ops and the status server).
 */
export function stubDaemonParts(o: {
  kill: unknown;
  address: string;
  strategy?: { name: string; params: Record<string, unknown> };
  availableCollateral?: number;
}): unknown {
  return {
    engine: {
      state: {
        book: () => undefined,
        quotable: () => true,
        isResolved: () => false,
        whyNotQuotable: () => undefined,
        availableCollateral: o.availableCollateral ?? 0,
        reservedCollateral: 0,
      },
      events$: { subscribe: () => ({ unsubscribe() {} }) },
      pulled: () => new Set(),
      ready: true,
      stats: () => ({ errors: { strategy: 0 } }),
    },
    store: {
      positions: () => [],
      positionDecimals: () => [],
      pnl: () => ({ realized: 0, unrealized: 0, fees: 0, total: 0, unmarked: [] }),
      summary: () => ({ ordersPlaced: 0, ordersCancelled: 0, ordersRejected: 0, fills: 0, volume: 0, notional: 0 }),
      currentSession: () => undefined,
      currentEpoch: () => undefined,
      rewardTotals: () => ({ paid: 0, estimated: 0, total: 0, byMarket: [] }),
    },
    tracker: { liveOrders: () => [] },
    executor: {
      onCycle: () => () => {},
      stats: () => ({ pauseReasons: [] }),
      accountStats: () => ({ sellBalanceRaces: 0, postOnlyCrossings: 0 }),
    },
    heartbeat: { onStatus: () => () => {}, status: () => ({ ok: true, failures: 0 }) },
    kill: o.kill,
    markets: [],
    strategy: o.strategy ?? { name: 'bands', params: {} },
    address: o.address,
    venueUrl: 'http://127.0.0.1:1',
  };
}
