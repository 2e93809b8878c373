/** The `shadow.*` section of the configuration: the simulated venue of shadow mode. */
export const shadowSchema = {
  queue: {
    doc: 'Shadow mode: queue-position model of the simulated venue, as `mmkit backtest --queue`.',
    format: ['risk-averse', 'probabilistic'],
    default: 'risk-averse',
    env: 'MMKIT_SHADOW_QUEUE',
  },
  latencyMs: {
    doc: 'Shadow mode: one-way latency of the simulated orders and cancels, ms (as `mmkit backtest --latency-ms`): added to the real event loop, so backtest a feed recorded alongside with the same value.',
    format: 'nat',
    default: 50,
    env: 'MMKIT_SHADOW_LATENCY_MS',
  },
  collateral: {
    doc: "Shadow mode: the simulated account's starting collateral (USDC, decimal string); each shadow run starts a fresh account and ledger epoch.",
    format: 'decimal-amount',
    default: '10000',
    env: 'MMKIT_SHADOW_COLLATERAL',
  },
  seed: {
    doc: "Shadow mode: seed of the simulated venue's random draws (queue model, latencies, order ids).",
    format: 'nat',
    default: 1,
    env: 'MMKIT_SHADOW_SEED',
  },
};

export type ShadowConfig = {
  queue: 'risk-averse' | 'probabilistic';
  latencyMs: number;
  collateral: string;
  seed: number;
};
