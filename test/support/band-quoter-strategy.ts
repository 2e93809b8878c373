/**
 * A scripted reward quoter for tests: on every event, on each market with a reward config and a
 * two-sided YES book, a YES bid and a NO bid (a YES ask) at the touch, each `size` shares (at least
 * the market's min size), when the touch is inside the reward band (half the spread under the
 * max spread); nothing otherwise. Both from collateral, no inventory needed. (The shipped `rewards`
 * strategy does this properly; this one is small enough to reason about in a test.)
 */
import { defineStrategy, type DesiredQuotes, type Micro, type Pips, type StrategyOutput } from 'mmkit/strategy';

export default defineStrategy({
  name: 'band-quoter',
  description: 'YES bid and NO bid at the touch, min size, on rewarded markets',
  params: {
    size: { type: 'number', default: 0, min: 0, max: 10_000, doc: 'shares per quote (0: the min size)' },
  },
  create(ctx, params) {
    return {
      onEvent(_event, state): StrategyOutput {
        const quotes: DesiredQuotes[] = [];
        for (const m of ctx.markets.values()) {
          const cfg = m.rewards;
          const b = state.book(m.tokens[0].tokenId);
          const none: DesiredQuotes = { market: m.market, quotes: [], at: state.now };
          if (cfg == null || b === undefined || b.stale || b.bestBid === null || b.bestAsk === null) {
            quotes.push(none);
            continue;
          }
          if (b.bestAsk - b.bestBid >= 2 * cfg.maxSpread) {
            quotes.push(none);
            continue;
          }
          const size = Math.max(cfg.minSize, Math.round(params.size * 1_000_000)) as Micro;
          quotes.push({
            market: m.market,
            quotes: [
              { tokenId: m.tokens[0].tokenId, side: 'BUY', price: b.bestBid as Pips, size },
              { tokenId: m.tokens[1].tokenId, side: 'BUY', price: (10_000 - b.bestAsk) as Pips, size },
            ],
            at: state.now,
          });
        }
        return { quotes };
      },
    };
  },
});
