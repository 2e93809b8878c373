/**
 * A layering quoter that saturates the order budget (test/bench/fleet.bench.ts): on every event
 * (at most every `minIntervalMs` per market), for each of its markets with a usable YES book, it
 * adds one level to its ladder: a YES bid and a NO bid (a YES ask in YES terms, needing no
 * inventory) one tick further out than the last level, from `depth` ticks outside an anchor mid.
 * After `levels` levels the next intent is empty (the ladder is pulled) and it starts again. So
 * every intent differs from the live orders: execution sends one POST /orders per level added and
 * one DELETE /orders (the whole ladder, one request) per `levels` + 1 intents, as fast as the
 * budgets let it (execution runs one cycle per market at a time and keeps only the latest intent):
 * the order budget binds, not the cancel one. The anchor is the book's mid when first seen, moved
 * only when the mid drifts `depth` ticks away from it (the book's mid includes these very bids:
 * anchoring keeps them from walking the mid).
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
    levels: { type: 'integer', default: 6, min: 1, max: 9, doc: 'levels of the ladder before it is pulled' },
    minIntervalMs: {
      type: 'integer',
      default: 50,
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
          const k = n % (params.levels + 1); // levels on the ladder now: 0 pulls it
          const sz = Math.max(size, m.minOrderSize) as Micro;
          const ladder: DesiredQuotes['quotes'][number][] = [];
          for (let j = 0; j < k; j++) {
            const off = (params.depth + j) * tick;
            const bid = a - off;
            const ask = a + off;
            if (bid < tick || ask > 10_000 - tick) break;
            ladder.push(
              { tokenId: m.tokens[0].tokenId, side: 'BUY', price: bid as Pips, size: sz },
              { tokenId: m.tokens[1].tokenId, side: 'BUY', price: (10_000 - ask) as Pips, size: sz },
            );
          }
          quotes.push({ market: m.market, quotes: ladder, at: state.now });
        }
        return quotes.length > 0 ? { quotes } : undefined;
      },
    };
  },
});
