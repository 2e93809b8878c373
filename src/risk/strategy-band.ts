/**
 * A strategy's own risk price band (`riskPriceBand` of its definition, src/strategy/api.ts) applied
 * to the resolved risk limits, for every market (the defaults and each `risk.markets.<id>`).
 *
 * The rule, per limit (minPrice <- band.min, maxPrice <- band.max, maxMidDistance <-
 * band.maxMidDistance):
 *  - the limit is at its default value (MARKET_LIMITS_SCHEMA): the operator left it to the
 *    strategy, the strategy's value is used, wider or narrower;
 *  - the operator set it to another value (bot.risk, or a per-market override): the tighter of the
 *    operator's and the strategy's is used (the higher minPrice, the lower maxPrice and
 *    maxMidDistance). An operator's explicit limit is never loosened by a strategy.
 * Pure.
 */
import { ConfigError } from '../core/errors.ts';
import { PRICE_SCALE, type Pips } from '../core/units.ts';
import type { RiskPriceBand } from '../strategy/api.ts';
import { MARKET_LIMITS_SCHEMA, type MarketLimits, type RiskLimits } from './limits.ts';

const pipsOf = (x: number): Pips => Math.round(x * PRICE_SCALE) as Pips;

/** The schema defaults of the three band limits, pips. */
export const DEFAULT_BAND: Readonly<{ minPrice: Pips; maxPrice: Pips; maxMidDistance: Pips }> = Object.freeze({
  minPrice: pipsOf(MARKET_LIMITS_SCHEMA.minPrice.default),
  maxPrice: pipsOf(MARKET_LIMITS_SCHEMA.maxPrice.default),
  maxMidDistance: pipsOf(MARKET_LIMITS_SCHEMA.maxMidDistance.default),
});

function apply(l: MarketLimits, band: RiskPriceBand, where: string): MarketLimits {
  const pick = (key: keyof typeof DEFAULT_BAND, strategy: number | undefined, tighter: (a: Pips, b: Pips) => Pips) =>
    strategy === undefined
      ? l[key]
      : l[key] === DEFAULT_BAND[key]
        ? pipsOf(strategy)
        : tighter(l[key], pipsOf(strategy));
  const minPrice = pick('minPrice', band.min, (a, b) => Math.max(a, b) as Pips);
  const maxPrice = pick('maxPrice', band.max, (a, b) => Math.min(a, b) as Pips);
  const maxMidDistance = pick('maxMidDistance', band.maxMidDistance, (a, b) => Math.min(a, b) as Pips);
  if (minPrice > maxPrice)
    throw new ConfigError(
      `${where}.minPrice`,
      `the strategy's riskPriceBand and ${where} leave no price to quote: [${minPrice / PRICE_SCALE}, ${maxPrice / PRICE_SCALE}]`,
    );
  return Object.freeze({ ...l, minPrice, maxPrice, maxMidDistance });
}

/**
 * The limits with the strategy's band applied (see the module comment); `limits` itself when the
 * strategy declares none.
 * @throws ConfigError (key `bot.risk.minPrice` or `bot.risk.markets.<id>.minPrice`) when the band and
 *   the operator's limits leave no price between minPrice and maxPrice
 */
export function withStrategyBand(limits: RiskLimits, band: RiskPriceBand | undefined): RiskLimits {
  if (band === undefined) return limits;
  const markets: Record<string, MarketLimits> = {};
  for (const [id, l] of Object.entries(limits.markets)) markets[id] = apply(l, band, `bot.risk.markets.${id}`);
  return Object.freeze({
    ...limits,
    defaults: apply(limits.defaults, band, 'bot.risk'),
    markets: Object.freeze(markets),
  });
}
