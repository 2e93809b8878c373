/**
 * A scripted two-sided quoter for reward tests: on every event it states a YES bid at `bid` and a
 * NO bid at 1 − `ask` (a YES ask at `ask` in YES terms, needing no inventory), `size` shares each,
 * on every market it trades.
 */
import { defineStrategy, type DesiredQuotes, type Micro, type Pips, type StrategyOutput } from 'mmkit/strategy';

export default defineStrategy({
  name: 'two-sided-quotes',
  description: 'a YES bid at `bid` and a NO bid at 1 - `ask` on every event',
  params: {
    bid: { type: 'number', default: 0.49, min: 0.01, max: 0.99, doc: 'YES bid, price units' },
    ask: { type: 'number', default: 0.51, min: 0.01, max: 0.99, doc: 'YES ask (a NO bid at 1 - ask), price units' },
    size: { type: 'number', default: 50, min: 0.01, max: 1000, doc: 'shares per quote' },
  },
  create(ctx, params) {
    const bid = Math.round(params.bid * 10_000) as Pips;
    const noBid = (10_000 - Math.round(params.ask * 10_000)) as Pips;
    const size = Math.round(params.size * 1_000_000) as Micro;
    return {
      onEvent(_event, state): StrategyOutput {
        const quotes: DesiredQuotes[] = [];
        for (const m of ctx.markets.values())
          quotes.push({
            market: m.market,
            quotes: [
              { tokenId: m.tokens[0].tokenId, side: 'BUY', price: bid, size },
              { tokenId: m.tokens[1].tokenId, side: 'BUY', price: noBid, size },
            ],
            at: state.now,
          });
        return { quotes };
      },
    };
  },
});
