/**
 * A minimal strategy plugin to copy: a fixed-spread quoter around the mid.
 *
 *   cp strategies/template.ts strategies/my-strategy.ts   # then edit it
 *   mmkit run --strategy my-strategy                      # or by path: --strategy ./strategies/my-strategy.ts
 *
 * A .ts file runs as is, no build step. Imports are relative to the file: a copy elsewhere (say
 * ./my-strategy.ts at the project root) imports './src/strategy/api.ts' and './src/core/...'.
 *
 * A plugin is a module whose default export is `defineStrategy({ name, description, params, create })`.
 * `create(ctx, params)` runs once at start and returns handlers; `onEvent(event, state)` runs for
 * every event, AFTER the engine applied it to `state` (books, own orders, positions), and returns
 * the quotes you want resting now, or `undefined` for "no change".
 *
 * Rules (they are what lets the same file run live, on paper and in backtests):
 *  - Pure: no network, no files, no `process.env`, no `Date.now()` / `new Date()` / timers. The
 *    time is `state.now` (or `ctx.clock.now()`); everything you need comes in `ctx` and `state`.
 *  - Integer units: prices are pips (1 pip = 0.0001, so 0.55 = 5500) on the token's tick; sizes are
 *    micro-shares (1 share = 1_000_000), in whole 0.01-share lots (LOT_MICRO).
 *  - Returned quotes REPLACE the market's previous set: list every quote you want there, every time
 *    you answer for that market (an empty list pulls them all). Execution only sends the difference,
 *    so repeating unchanged quotes costs nothing.
 *  - No book, no quote: when the book is missing, stale or one-sided, quote nothing there.
 *  - Imports: only `src/strategy/api.ts` and `src/core/*` (a copy outside the repo imports them
 *    from wherever mmkit is installed).
 *
 * Everything you send still passes the risk gate (limits, stale books, kill switch) before
 * execution: a refused quote is logged with its reason, never sent.
 */
import type { MmkitEvent } from '../src/core/events.ts';
import type { QuoteIntent, StrategyOutput } from '../src/core/intents.ts';
import { AMOUNT_SCALE, LOT_MICRO, PRICE_SCALE, tickPips, type Micro, type Pips } from '../src/core/units.ts';
import { defineStrategy, type StrategyState } from '../src/strategy/api.ts';

export default defineStrategy({
  // The name shown in logs; the file name is what `--strategy` takes.
  name: 'template',
  description: 'A fixed-spread quoter: one bid and one ask at mid -/+ halfSpread, on the YES token.',

  // Parameters: typed, documented, with defaults. Users override them in the config file
  // (strategy.params) or on the command line; they are validated (type, bounds, unknown keys)
  // before create() is called, and create() receives plain numbers/strings/booleans.
  params: {
    halfSpread: { type: 'number', default: 0.02, min: 0.0001, max: 0.5, doc: 'Distance of each quote from the mid, price units (0.01 = 1 cent).' },
    size: { type: 'number', default: 10, min: 0.01, max: 10_000, doc: 'Shares per quote.' },
  },

  create(ctx, params) {
    // Convert decimal params to integer units ONCE, here.
    const half = Math.round(params.halfSpread * PRICE_SCALE); // pips
    const size = Math.floor((params.size * AMOUNT_SCALE) / LOT_MICRO) * LOT_MICRO; // micro-shares, whole lots

    // ctx.markets: the markets this instance trades (tokens, tick, minimum size, ...).
    // By convention tokens[0] is YES and tokens[1] is NO.
    const markets = [...ctx.markets.values()];

    /** The quotes wanted in one market given the current state. */
    function quotesFor(m: (typeof markets)[number], state: StrategyState): QuoteIntent[] {
      const yes = m.tokens[0].tokenId;
      const book = state.book(yes);
      // No book, a stale one, or no two-sided mid: quote nothing (never a guessed price).
      if (book === undefined || book.stale || book.mid === null || book.bestBid === null || book.bestAsk === null) return [];
      const tick = tickPips(m.tick);
      const out: QuoteIntent[] = [];
      if (size < m.minOrderSize) return out;
      // Bids round down to the tick, asks up; never cross the other side; stay in [tick, 1 - tick].
      const bid = Math.min(Math.floor((book.mid - half) / tick) * tick, book.bestAsk - tick);
      const ask = Math.max(Math.ceil((book.mid + half) / tick) * tick, book.bestBid + tick);
      if (bid >= tick) out.push({ tokenId: yes, side: 'BUY', price: bid as Pips, size: size as Micro });
      // Selling needs shares: only ask what we hold (state.position is in micro-shares).
      const held = Math.floor(Math.max(0, state.position(yes).size) / LOT_MICRO) * LOT_MICRO;
      const askSize = Math.min(size, held);
      if (ask <= PRICE_SCALE - tick && askSize >= m.minOrderSize) out.push({ tokenId: yes, side: 'SELL', price: ask as Pips, size: askSize as Micro });
      return out;
    }

    return {
      onEvent(event: MmkitEvent, state: StrategyState): StrategyOutput | undefined {
        // React to what moves quotes: a book snapshot, the end of a batch of level changes,
        // our fills and the engine's timer. Everything else: undefined (keep the current quotes).
        const relevant =
          event.type === 'book_snapshot' ||
          (event.type === 'level_change' && event.endOfBatch) ||
          event.type === 'fill' ||
          event.type === 'timer';
        if (!relevant) return undefined;
        const market = 'market' in event ? event.market : undefined;
        return {
          quotes: markets.filter((m) => market === undefined || m.market === market).map((m) => ({ market: m.market, quotes: quotesFor(m, state), at: state.now })),
        };
      },
    };
  },
});
