/**
 * A minimal strategy plugin to copy: a fixed-spread quoter around the mid.
 *
 *   cp strategies/template.ts strategies/my-strategy.ts   # then edit it
 *   mmkit run --strategy my-strategy                      # or by path: --strategy ./strategies/my-strategy.ts
 *
 * A .ts file runs as is, no build step. It imports 'mmkit/strategy' (the plugin API, one module),
 * which resolves the same from anywhere in the project, so a copy elsewhere needs no path changes.
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
 *  - Imports: only 'mmkit/strategy' (src/strategy/index.ts: the strategy API, the quoting rules,
 *    the models and the core units, ids, events, intents and errors).
 *
 * The quoting rules (src/strategy/quoting.ts, in 'mmkit/strategy') do the common rules for you: `finishQuotes` takes a ladder of YES bids
 * and asks (floats allowed) and rounds it to ticks (bids down, asks up), keeps a minimum spread,
 * never crosses the book (post-only), routes it to YES/NO tokens without doubling the exposure,
 * respects the position limit, and keeps live orders within the refresh tolerance (no churn).
 *
 * Everything you send still passes the risk gate (limits, stale books, kill switch) before
 * execution: a refused quote is logged with its reason, never sent.
 */
import {
  commonParam,
  defineStrategy,
  finishQuotes,
  type MarketRef,
  MarketRegistry,
  marketTop,
  type MmkitEvent,
  PRICE_SCALE,
  rulesOf,
  selectTwoSidedMarkets,
  sharesToMicro,
  type StrategyOutput,
  type StrategyState,
} from 'mmkit/strategy';

export default defineStrategy({
  // The name shown in logs; the file name is what `--strategy` takes.
  name: 'template',
  description: 'A fixed-spread quoter: one bid and one ask at mid -/+ halfSpread.',

  // Parameters: typed, documented (with the unit), with defaults. Users override them in the config
  // file (bot.params) or on the command line; they are validated (type, bounds, unknown keys)
  // before create() is called, and create() receives plain numbers/strings/booleans.
  params: {
    halfSpread: {
      type: 'number',
      default: 0.01,
      min: 0.0001,
      max: 0.5,
      doc: 'Distance of each quote from the mid, price units (0.01 = 1 cent).',
    },
    size: { type: 'number', default: 10, min: 0.01, max: 10_000, doc: 'Shares per quote.' },
    // the common rules, documented once in src/strategy/quoting.ts
    tokens: commonParam.tokens('yes'),
    minSpread: commonParam.minSpread(0.02),
    postOnly: commonParam.postOnly('move'),
    maxPosition: commonParam.maxPosition(100),
    priceTolerance: commonParam.priceTolerance(0),
    maxOrderAge: commonParam.maxOrderAge(0),
  },

  // Optional: which markets to trade when none are configured (bot.markets empty). `markets` are the
  // candidates (active, through bot.marketFilters); return condition ids, best first. Here: two-sided
  // books with a mid in [0.10, 0.90] (room for a quote on each side) at most 10 cents wide, ending
  // in more than an hour, the tightest first. Without it: the books with the most levels.
  selectMarkets: (markets, ctx) =>
    selectTwoSidedMarkets(markets, ctx, { minMid: 0.1, maxMid: 0.9, maxSpread: 0.1, minMsToEnd: 3_600_000 }),

  create(ctx, params) {
    // Convert decimal params to integer units ONCE, here.
    const half = params.halfSpread * PRICE_SCALE; // pips (rounded to the tick by finishQuotes)
    const size = sharesToMicro(params.size); // micro-shares, whole lots
    const rules = rulesOf(params);
    // ctx.markets: the markets this instance trades; the registry follows their tick changes and
    // resolution and says which markets an event concerns. tokens[0] is YES, tokens[1] is NO.
    const markets = new MarketRegistry(ctx.markets.values());

    /** The quotes wanted in one market given the current state. */
    function quotesFor(m: MarketRef, state: StrategyState) {
      // No book, a stale or crossed one, or no two-sided mid: quote nothing (never a guessed price).
      const top = marketTop(state, m, { excludeOwn: true, tokens: rules.tokens });
      if (!m.quotable || top === null || top.mid === null) return [];
      const ladder = [
        { bid: true, price: top.mid - half, size },
        { bid: false, price: top.mid + half, size },
      ];
      return finishQuotes(ladder, top.mid, top, m, rules, state);
    }

    return {
      onEvent(event: MmkitEvent, state: StrategyState): StrategyOutput | undefined {
        // A snapshot, the end of a batch of level changes, a fill, a tick change: that market;
        // a timer or a resync: every market; anything else: undefined (keep the current quotes).
        const a = markets.note(event);
        if (a.kind === 'none') return undefined;
        const list = a.kind === 'all' ? markets.all() : [a.ref];
        return { quotes: list.map((m) => ({ market: m.market, quotes: quotesFor(m, state), at: state.now })) };
      },
    };
  },
});
