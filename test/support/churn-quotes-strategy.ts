/**
 * A quoter that saturates the request budgets (test/bench/fleet.bench.ts): on every event, for each
 * of its markets with a usable YES book, it states a YES bid and a NO bid (a YES ask in YES terms,
 * needing no inventory) `depth` to `depth + 3` ticks outside an anchor mid, one tick further out
 * than last time (cycling), so every intent differs from the live orders and execution cancels and
 * places again: one DELETE /orders and one POST /orders per cycle, as fast as the budgets let it
 * (execution runs one cycle per market at a time and keeps only the latest intent). The anchor is
 * the book's mid when first seen, moved only when the mid drifts `depth` ticks away from it (the
 * book's mid includes these very bids: anchoring keeps them from walking the mid).
 */
import {
  defineStrategy,
  type DesiredQuotes,
  type Micro,
  type Pips,
  type StrategyOutput,
  tickPips,
} from 'mmkit/strategy';

export default defineStrategy({
  name: 'churn-quotes',
  description: 'a YES bid and a NO bid a few ticks out, moved by one tick on every event',
  params: {
    depth: { type: 'integer', default: 2, min: 1, max: 20, doc: 'ticks from the anchor mid of the innermost quote' },
    size: { type: 'number', default: 5, min: 0.01, max: 1000, doc: 'shares per quote (at least the market minimum)' },
    minIntervalMs: {
      type: 'integer',
      default: 10,
      min: 0,
      max: 10_000,
      doc: 'least time between two intents of one market, ms',
    },
  },
  create(ctx, params) {
    const size = Math.round(params.size * 1_000_000);
    const anchor = new Map<string, number>();
    const step = new Map<string, number>();
    const last = new Map<string, number>();
    return {
      onEvent(_event, state): StrategyOutput | undefined {
        const quotes: DesiredQuotes[] = [];
        for (const m of ctx.markets.values()) {
          if ((last.get(m.market) ?? -Infinity) + params.minIntervalMs > state.now) continue;
          const book = state.book(m.tokens[0].tokenId);
          if (book === undefined || book.stale || book.mid === null) continue;
          const tick = tickPips(m.tick);
          const mid = Math.round(book.mid / tick) * tick;
          let a = anchor.get(m.market);
          if (a === undefined || Math.abs(mid - a) >= params.depth * tick) anchor.set(m.market, (a = mid));
          const n = (step.get(m.market) ?? 0) + 1;
          step.set(m.market, n);
          last.set(m.market, state.now);
          const off = (params.depth + (n % 4)) * tick;
          const bid = a - off;
          const ask = a + off;
          if (bid < tick || ask > 10_000 - tick) continue;
          const sz = Math.max(size, m.minOrderSize) as Micro;
          quotes.push({
            market: m.market,
            quotes: [
              { tokenId: m.tokens[0].tokenId, side: 'BUY', price: bid as Pips, size: sz },
              { tokenId: m.tokens[1].tokenId, side: 'BUY', price: (10_000 - ask) as Pips, size: sz },
            ],
            at: state.now,
          });
        }
        return quotes.length > 0 ? { quotes } : undefined;
      },
    };
  },
});
