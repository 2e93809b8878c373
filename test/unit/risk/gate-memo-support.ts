/** Shared by the GateMemo tests: a book that changes in place, and tight limits under which every input of the gate matters. */
import type { TokenId } from '../../../src/core/ids.ts';
import type { Micro, Pips } from '../../../src/core/units.ts';
import type { RiskLimits } from '../../../src/risk/limits.ts';
import type { BookView } from '../../../src/strategy/api.ts';
import { SH } from '../strategy/fixtures.ts';

/** A book that changes in place (one object for its life, as the engine's mirror). */
export class MutBook implements BookView {
  readonly bids = new Map<number, number>();
  readonly asks = new Map<number, number>();
  stale = false;
  constructor(readonly tokenId: TokenId) {}
  get bestBid(): Pips | null {
    let b: number | null = null;
    for (const [p, s] of this.bids) if (s > 0 && (b === null || p > b)) b = p;
    return b as Pips | null;
  }
  get bestAsk(): Pips | null {
    let a: number | null = null;
    for (const [p, s] of this.asks) if (s > 0 && (a === null || p < a)) a = p;
    return a as Pips | null;
  }
  get mid(): number | null {
    const b = this.bestBid;
    const a = this.bestAsk;
    return b !== null && a !== null ? (b + a) / 2 : null;
  }
  levels(side: 'bids' | 'asks', depth = Infinity): ReadonlyArray<readonly [Pips, Micro]> {
    const m = side === 'bids' ? this.bids : this.asks;
    const ls = [...m].filter(([, s]) => s > 0).sort((x, y) => (side === 'bids' ? y[0] - x[0] : x[0] - y[0]));
    return ls.slice(0, depth) as unknown as ReadonlyArray<readonly [Pips, Micro]>;
  }
}

/** A MutBook with two levels a side around 0.50 (bids 0.48, 0.47; asks 0.52, 0.53). */
export function filledBook(tokenId: TokenId): MutBook {
  const b = new MutBook(tokenId);
  b.bids.set(4800, 10 * SH);
  b.bids.set(4700, 20 * SH);
  b.asks.set(5200, 10 * SH);
  b.asks.set(5300, 20 * SH);
  return b;
}

export const limits: RiskLimits = {
  defaults: {
    maxPosition: (60 * SH) as Micro,
    maxOrderSize: (40 * SH) as Micro,
    maxNotional: (40 * SH) as Micro,
    maxOpenOrders: 4,
    maxMidDistance: 300,
    minPrice: 100,
    maxPrice: 9900,
  },
  markets: {},
  global: { maxNotional: (80 * SH) as Micro, maxOpenOrders: 6 },
  killSwitch: { maxLoss: 0 as Micro, maxRejections: 0, rejectionWindowMs: 1, maxHeartbeatFailures: 0 },
} as unknown as RiskLimits;
