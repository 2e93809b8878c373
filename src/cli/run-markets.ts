/**
 * The markets `mmkit run` (and its shadow run) trades: those of `bot.markets` in the order given, or
 * the strategy's choice among the venue's candidates.
 */
import type { Logger } from 'pino';
import { ConfigError } from '../core/errors.ts';
import { marketsInOrder, type MarketInfo } from '../core/venue.ts';
import type { StrategyDefinition } from '../strategy/api.ts';
import { chooseMarkets, levelsBookView } from '../strategy/select.ts';
import type { LiveVenue } from '../venues/live/live-venue.ts';
import { filterCandidates, type MarketFilters } from './market-filters.ts';

/**
 * The markets to trade: bot.markets when given (all must exist); otherwise the candidates (active,
 * through bot.marketFilters) go to the strategy's market choice (`selectMarkets`, or the default
 * pick: the most resting levels; src/strategy/select.ts), `marketCount` of them.
 */
export async function pickMarkets(
  venue: Pick<LiveVenue, 'clob'>,
  all: readonly MarketInfo[],
  cfg: {
    readonly markets: readonly string[];
    readonly marketFilters?: Partial<MarketFilters> | undefined;
    readonly marketCount: number;
  },
  now: number,
  def: StrategyDefinition,
  params: Readonly<Record<string, unknown>>,
  log: Logger,
): Promise<MarketInfo[]> {
  if (cfg.markets.length > 0) {
    // in the order given: the strategy's ctx.markets follows it, as a backtest's does
    const { found, missing } = marketsInOrder(all, cfg.markets);
    if (missing.length > 0)
      throw new ConfigError('bot.markets', `unknown or inactive market(s): ${missing.join(', ')}`);
    return found;
  }
  const candidates = filterCandidates(all, cfg.marketFilters, now);
  return chooseMarkets(def, candidates, {
    now,
    count: cfg.marketCount,
    params,
    log: log.child({ component: 'strategy', strategy: def.name }),
    book: async (tokenId) => {
      const b = await venue.clob.book(tokenId);
      return levelsBookView(
        tokenId,
        b.bids.map((l) => [l.price, l.size] as const),
        b.asks.map((l) => [l.price, l.size] as const),
      );
    },
  });
}
