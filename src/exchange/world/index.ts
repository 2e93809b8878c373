/**
 * The synthetic market world: seeding (events, markets, tags, series, sports, comments, articles,
 * profiles), the crypto price feed, market lifecycle and flow agents. (Stub: replaced by the world
 * implementation.)
 */
import type { PaperExchange } from '../exchange.ts';
import { initialMarkets } from '../markets.ts';

export type AgentsMode = 'default' | 'none';

export interface WorldOptions {
  seed: number;
  /** Flow agents: 'default' trades on every active market; 'none' turns them off. */
  agents: AgentsMode;
  /** Markets closing, resolving and appearing during the run. */
  lifecycle: boolean;
  /** The simulated crypto prices (RTDS crypto_prices; they drive the up/down markets). */
  priceFeed: boolean;
}

export interface RunningWorld {
  stop(): void;
}

/** Create the world's initial records in an empty exchange (deterministic for a seed). */
export function seedWorld(ex: PaperExchange, seed: number): void {
  for (const m of initialMarkets(seed, ex.clock.now())) ex.addMarket(m);
}

/** Start the world's activity (prices, lifecycle, agents). */
export function startWorld(_ex: PaperExchange, _opts: WorldOptions): RunningWorld {
  return { stop() {} };
}
