/**
 * A fleet member trades the fleet's markets, `bot.markets`, the same list on every member (README
 * "Scaling out"): the market leases split that list, and an order of another member is told from a
 * foreign one by its market being a fleet market this member does not hold. Without `bot.markets`
 * each member would pick its own markets from the books it sees at its start (the strategy's
 * choice), so two members could trade different sets and take a mate's quotes for foreign orders
 * (cancelled with `bot.foreignOrders: cancel`). So a fleet member refuses to start without it; that
 * the lists are the same on every member is checked when it joins (src/fleet/fleet-limits.ts).
 */
import { ConfigError } from '../core/errors.ts';

/**
 * Refuses a fleet member (fleet.redisUrl set) without `bot.markets`.
 * @throws ConfigError (`bot.markets`, exit 2)
 */
export function requireFleetMarkets(cfg: {
  readonly fleet?: { readonly redisUrl: string } | undefined;
  readonly markets: readonly string[];
}): void {
  if (cfg.fleet === undefined || cfg.fleet.redisUrl === '' || cfg.markets.length > 0) return;
  throw new ConfigError(
    'bot.markets',
    "a fleet member needs the fleet's markets listed, the same on every member (MMKIT_MARKETS=0x…,0x… or " +
      "bot.markets in the config file): without them each member would choose its own and take its mates' " +
      'orders for foreign ones (`mmkit markets --rewards` lists candidates)',
  );
}
