/**
 * A plugin for e2e tests, as a plugin author writes it: one FAK buy of 5 shares (or the market's
 * minimum) at the best ask of the first market with a sane two-sided book in [0.10, 0.90], on its
 * first timer tick. Written into a scratch file inside the project (so 'mmkit/strategy' resolves).
 */
export const ONE_FAK_PLUGIN = `import { defineStrategy, type StrategyOutput } from 'mmkit/strategy';

export default defineStrategy({
  name: 'one-fak',
  description: 'buys once at the best ask with a FAK order',
  params: {},
  create(ctx) {
    let sent = false;
    return {
      onEvent(event, state): StrategyOutput | undefined {
        // on the strategy's timer (every second), once the markets are quoted: not on the first
        // book events, which may come while a market is still pulled (its order would be dropped)
        if (sent || event.type !== 'timer' || event.name !== 'tick') return undefined;
        for (const m of ctx.markets.values()) {
          const yes = m.tokens[0].tokenId;
          const book = state.book(yes);
          if (book === undefined || book.stale || book.bestBid === null || book.bestAsk === null) continue;
          if (book.bestAsk - book.bestBid > 500) continue; // a sane spread: the ask is near the mid
          // away from the edges, where the risk gate's limits near 0 and 1 do not apply
          if (book.bestBid < 1000 || book.bestAsk > 9000) continue;
          sent = true;
          const size = Math.max(m.minOrderSize, 5_000_000);
          return { orders: [{ market: m.market, tokenId: yes, side: 'BUY', price: book.bestAsk, size, type: 'FAK' }] };
        }
        return undefined;
      },
    };
  },
});
`;

/**
 * The same plugin acting on its very first event (the engine's `engine.ready` timer, or the first book
 * event after it), as an eager plugin may: what a restart past a loss limit must never let trade
 * (trial 20 F1).
 */
export const EAGER_FAK_PLUGIN: string = (() => {
  const eager = ONE_FAK_PLUGIN.replace(
    "if (sent || event.type !== 'timer' || event.name !== 'tick') return undefined;",
    'if (sent) return undefined;',
  ).replace("name: 'one-fak'", "name: 'eager-fak'");
  if (!eager.includes('if (sent) return undefined;')) throw new Error('EAGER_FAK_PLUGIN: the one-fak plugin changed');
  return eager;
})();
