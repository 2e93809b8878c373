/**
 * The markets `mmkit run` (and its shadow run) trades: those of `bot.markets` in the order given, or
 * the strategy's choice among the venue's candidates.
 */
import type { Logger } from 'pino';
import { ConfigError } from '../core/errors.ts';
import { formatAmount } from '../core/units.ts';
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

/**
 * The default pick keeps the markets where the ledger holds a position (trial 19 F4): adds to
 * `markets` every active market of `all` where a position is held and not picked, so its books mark
 * it (the PnL, the loss limit) and the strategy may trade it down; logs them. Not for bot.markets.
 */
export function followHeldMarkets(
  markets: MarketInfo[],
  all: readonly MarketInfo[],
  positions: ReadonlyArray<{ readonly market: string; readonly size: number }>,
  log: Logger,
): void {
  const picked = new Set<string>(markets.map((m) => m.market));
  const held = new Set<string>(positions.flatMap((p) => (p.size !== 0 ? [p.market] : [])));
  const more = all.filter((m) => m.active && held.has(m.market) && !picked.has(m.market));
  if (more.length === 0) return;
  markets.push(...more);
  log.info(
    { markets: more.map((m) => ({ market: m.market, question: m.question })) },
    `following ${more.length} more market(s) where the ledger holds a position (bot.markets is not set): their books mark it`,
  );
}

/**
 * The positions held in markets this run does not follow (a restart whose pick changed: trial 17 F2):
 * says so at warn; answers those markets as the venue listed them (the terminal view names them by
 * question, as the text summary does: trial 20 F6).
 */
export function strayedMarkets(
  markets: readonly MarketInfo[],
  all: readonly MarketInfo[],
  positions: ReadonlyArray<{ readonly market: string; readonly tokenId: string; readonly size: number }>,
  log: Logger,
): MarketInfo[] {
  const followed = new Set<string>(markets.map((m) => m.market));
  const strayed = positions.filter((p) => p.size !== 0 && !followed.has(p.market));
  if (strayed.length === 0) return [];
  const ids = new Set<string>(strayed.map((p) => p.market));
  log.warn(
    { positions: strayed.map((p) => ({ market: p.market, token: p.tokenId, size: formatAmount(p.size) })) },
    `positions held in ${ids.size} market(s) this run does not follow: nothing quotes them down; they are marked at the venue's price read by the position audit, none when the venue gives none (list them in bot.markets to trade them)`,
  );
  return all.filter((m) => ids.has(m.market));
}
