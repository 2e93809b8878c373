/**
 * A scripted strategy for tests that compare wirings: on every event it states the same bids, at
 * prices given as params, on the YES token of every market it trades. What changes between events
 * is only what the risk gate decides about them (the book, the tick, the market's state).
 */
import { defineStrategy, type DesiredQuotes, type Micro, type Pips, type StrategyOutput } from 'mmkit/strategy';

export default defineStrategy({
  name: 'fixed-quotes',
  description: 'bids at fixed prices (params p1..p3, 0 = none) on every event',
  params: {
    p1: { type: 'number', default: 0, min: 0, max: 1, doc: 'first bid price, price units (0: none)' },
    p2: { type: 'number', default: 0, min: 0, max: 1, doc: 'second bid price, price units (0: none)' },
    p3: { type: 'number', default: 0, min: 0, max: 1, doc: 'third bid price, price units (0: none)' },
    size: { type: 'number', default: 5, min: 0.01, max: 1000, doc: 'shares per bid' },
  },
  create(ctx, params) {
    const prices = [params.p1, params.p2, params.p3].filter((p) => p > 0).map((p) => Math.round(p * 10_000) as Pips);
    const size = Math.round(params.size * 1_000_000) as Micro;
    return {
      onEvent(_event, state): StrategyOutput {
        const quotes: DesiredQuotes[] = [];
        for (const m of ctx.markets.values())
          quotes.push({
            market: m.market,
            quotes: prices.map((price) => ({ tokenId: m.tokens[0].tokenId, side: 'BUY', price, size })),
            at: state.now,
          });
        return { quotes };
      },
    };
  },
});
