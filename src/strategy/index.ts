/**
 * THE plugin API: everything a strategy plugin may use, as one module. A plugin (the shipped ones in
 * strategies/ included) imports only this: `import { defineStrategy, ... } from 'mmkit/strategy'`,
 * which resolves from any file inside the project (package.json `exports` self-reference) and from a
 * project that depends on mmkit; no relative paths into src/ (enforced by dependency-cruiser:
 * .dependency-cruiser.cjs, rule `strategies-only-the-plugin-api`).
 *
 * What it holds, and nothing that does I/O or reads the wall clock:
 *  - the definition and its types: `defineStrategy`, the parameter schema (`ParamSchema`,
 *    `ParamsOf`), `StrategyContext`, `StrategyState`, `StrategyHandlers`, the read-only views
 *    (`BookView`, `PositionView`, `MarketInfo`) and `Clock` (./api.ts);
 *  - for a plugin's tests: `VirtualClock` (time only moves when told) and `resolveParams` (the
 *    schema's defaults and checks, as the loader applies them);
 *  - the shared quoting rules: ticks, lots, inventory, market tops, order ageing, the market
 *    registry (./quoting.ts), and the fair-value and volatility models (./models.ts);
 *  - market choice: `SelectContext` (what a definition's optional `selectMarkets` reads), the
 *    default pick, the two-sided pick (`selectTwoSidedMarkets`) and a BookView over plain levels
 *    (./select.ts); a definition's own risk band type (`RiskPriceBand`, ./api.ts);
 *  - the liquidity-reward rule and estimate (./reward-quoting.ts) with the core pieces a strategy
 *    needs to reason about rewards (`RewardConfig`, `estimateMarketReward`, ...: src/core/rewards.ts);
 *  - from src/core: units (exact integer pips and micro, with their conversions), ids, events (the
 *    `MmkitEvent` union and `assertNever`), intents (`StrategyOutput`, `DesiredQuotes`,
 *    `QuoteIntent`, ...), and the errors a plugin throws (`ConfigError` for bad parameters).
 */
export * from './api.ts';
export * from './quoting.ts';
export * from './common-params.ts';
export * from './models.ts';
export * from '../core/units.ts';
export type * from '../core/ids.ts';
export * from '../core/events.ts';
export type * from '../core/intents.ts';
export { sameQuotes } from '../core/intents.ts';
export { ConfigError, MmkitError, ValidationError, type ErrorCode, type ErrorOptions } from '../core/errors.ts';
export type { MarketInfo } from '../core/venue.ts';
export { VirtualClock, type Clock, type TimerHandle } from '../core/clock.ts';
export { resolveParams } from './params.ts';
export * from './reward-quoting.ts';
export * from './band-ladder.ts';
export {
  chooseMarkets,
  defaultSelectMarkets,
  levelsBookView,
  selectTwoSidedMarkets,
  type TwoSidedPick,
} from './select.ts';
export {
  DAY_MS,
  estimateMarketReward,
  type BookScore,
  type MarketRewardEstimate,
  type RewardConfig,
  type SideScores,
  SHARE_SCALE,
  qMinToShares,
  scoreToShares,
  maxSpreadToCents,
} from '../core/rewards.ts';
