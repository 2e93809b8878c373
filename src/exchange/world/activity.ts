/**
 * How busy each market of the world is (profiles with `activity`: realistic, toxic). Real venues
 * are uneven: a few markets draw most of the orders and carry the deepest books, most are quiet.
 * Each market gets a fixed activity from (seed, condition id), z standard normal:
 *
 *  - its weight, e^(sigma x z): the noise and informed traders choose the market of each order in
 *    proportion to it (the total arrival rates are the profile's, only their split changes), so a
 *    busy market has more of every kind of taker, the informed ones included;
 *  - its provider's ladder depth: `floor(z + 1)` more levels a side (0 below the median, at most
 *    `maxExtraLevels`): depth goes with volume, so a pick by resting levels (the default
 *    `selectMarkets`, src/strategy/select.ts) finds the busy markets.
 *
 * Its own random stream per market: nothing else in the world draws differently because of it.
 */
import { rngFor } from './seeding.ts';
import type { ActivityParams } from './profiles.ts';

export interface MarketActivity {
  /** Relative share of the takers' orders (1 at the median market). */
  readonly weight: number;
  /** Levels a side the market's liquidity provider quotes beyond the usual ones. */
  readonly extraLevels: number;
}

/** The activity of market `cid` in world `seed` (see the module comment). */
export function marketActivity(seed: number, cid: string, p: ActivityParams): MarketActivity {
  const z = rngFor(seed, `activity:${cid}`).normal();
  return {
    weight: Math.exp(p.sigma * z),
    extraLevels: Math.max(0, Math.min(p.maxExtraLevels, Math.floor(z + 1))),
  };
}

/**
 * The element of `xs` that `u` (uniform in [0, 1)) falls on when each takes a share of [0, 1)
 * proportional to its weight.
 * @throws RangeError when `xs` is empty
 */
export function pickWeighted<T>(xs: readonly T[], weight: (x: T) => number, u: number): T {
  if (xs.length === 0) throw new RangeError('pick from empty list');
  let total = 0;
  for (const x of xs) total += weight(x);
  let at = u * total;
  for (const x of xs) {
    at -= weight(x);
    if (at < 0) return x;
  }
  return xs[xs.length - 1] as T;
}
