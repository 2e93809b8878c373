/**
 * A scripted strategy for tests of selling what is held: a YES ask at `price` for `size` shares on
 * every market it trades, stated in even seconds of the clock and pulled in odd ones (so that the
 * account's tokens rest free half of the time).
 */
import { defineStrategy, type DesiredQuotes, type Micro, type Pips, type StrategyOutput } from 'mmkit/strategy';

export default defineStrategy({
  name: 'blinking-ask',
  description: 'a YES ask at `price` in even seconds, nothing in odd ones',
  params: {
    price: { type: 'number', default: 0.6, min: 0.01, max: 0.99, doc: 'YES ask, price units' },
    size: { type: 'number', default: 10, min: 0.01, max: 1000, doc: 'shares' },
  },
  create(ctx, params) {
    const price = Math.round(params.price * 10_000) as Pips;
    const size = Math.round(params.size * 1_000_000) as Micro;
    return {
      onEvent(_event, state): StrategyOutput {
        const on = Math.floor(state.now / 1000) % 2 === 0;
        const quotes: DesiredQuotes[] = [];
        for (const m of ctx.markets.values())
          quotes.push({
            market: m.market,
            quotes: on ? [{ tokenId: m.tokens[0].tokenId, side: 'SELL', price, size }] : [],
            at: state.now,
          });
        return { quotes };
      },
    };
  },
});
