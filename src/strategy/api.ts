/**
 * The strategy plugin API. A plugin module default-exports `defineStrategy({...})`: a name, a typed
 * and documented parameter schema with defaults, and `create(ctx, params)` returning handlers.
 * Handlers are pure functions of (event, read-only state) that return desired quotes per market
 * (and, rarely, immediate FOK/FAK orders). `ctx` gives the clock, a child logger, market metadata,
 * a seeded random source and the params; nothing else: no env, no network, no wall clock, no
 * `Math.random()`, so the same code runs live, on paper and in backtests, and a backtest is
 * reproducible from its seed. Strategies import only this module and src/core.
 */
import type { Clock } from '../core/clock.ts';
import type { ConditionId, TokenId } from '../core/ids.ts';
import type { MmkitEvent } from '../core/events.ts';
import type { LiveOrderView, StrategyOutput } from '../core/intents.ts';
import type { Micro, Pips } from '../core/units.ts';
import type { MarketInfo } from '../core/venue.ts';
import type { BookView, PositionView } from '../core/views.ts';

export type { BookView, PositionView } from '../core/views.ts';

/** One parameter: its type, default, documentation and bounds. Units are part of the doc. */
export type ParamSpec =
  | {
      readonly type: 'number';
      readonly default: number;
      readonly doc: string;
      readonly min?: number;
      readonly max?: number;
    }
  | {
      readonly type: 'integer';
      readonly default: number;
      readonly doc: string;
      readonly min?: number;
      readonly max?: number;
    }
  | { readonly type: 'boolean'; readonly default: boolean; readonly doc: string }
  | { readonly type: 'string'; readonly default: string; readonly doc: string; readonly choices?: readonly string[] };

export type ParamSchema = Readonly<Record<string, ParamSpec>>;

/** The params object a schema describes (what `create` receives, validated and defaulted). */
export type ParamsOf<S extends ParamSchema> = {
  readonly [K in keyof S]: S[K] extends { type: 'boolean' }
    ? boolean
    : S[K] extends { type: 'string'; choices: readonly (infer C extends string)[] }
      ? C // a string with choices is one of them (checked at load): a switch on it is exhaustive
      : S[K] extends { type: 'string' }
        ? string
        : number;
};

/**
 * A logger a strategy may use (a pino child in production): fields first, then the message
 * (`ctx.log.info({ mid }, 'quoting')`; `ctx.log.info({}, 'quoting')` for a message alone).
 */
export interface StrategyLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export interface StrategyContext {
  readonly clock: Clock;
  readonly log: StrategyLogger;
  /** The markets this strategy instance trades. */
  readonly markets: ReadonlyMap<ConditionId, MarketInfo>;
  /**
   * A uniform random number in [0, 1), from a seeded generator of this instance: in a backtest
   * seeded from the run's `--seed` (the same seed, the same draws, byte-identical `--json`), live
   * from a seed drawn at start and logged at the first draw (`strategySeed`). Use it, never `Math.random()`.
   */
  random(): number;
  /**
   * The risk gate's price limits of a market, pips (`bot.risk.minPrice` / `maxPrice`, per market
   * where `bot.risk.markets` sets them, after the strategy's own `riskPriceBand`): a quote priced
   * outside them is refused. A strategy may leave such quotes out itself (`bands` does). Absent
   * where no gate is known (a hand-made ctx in a unit test).
   */
  priceLimits?(market: ConditionId): { readonly min: Pips; readonly max: Pips };
}

/** What a handler may read. Everything is current: state is updated before the handler runs. */
export interface StrategyState {
  readonly now: number;
  book(tokenId: TokenId): BookView | undefined;
  position(tokenId: TokenId): PositionView;
  openOrders(market: ConditionId): readonly LiveOrderView[];
  /** Collateral available to new orders, micro. */
  readonly availableCollateral: Micro;
  /**
   * The largest order the risk gate lets through on `market` (`bot.risk.maxOrderSizeShares`, per
   * market where `bot.risk.markets` sets it), micro-shares: a larger quote is sent cut to it
   * (`quote trimmed`), and `finishQuotes` keeps a live order of that cut size for it. Absent where no
   * gate is known (a hand-made state in a unit test).
   */
  maxOrderSize?(market: ConditionId): Micro;
}

export interface StrategyHandlers {
  /** Called for every event, after state was updated with it. */
  onEvent(event: MmkitEvent, state: StrategyState): StrategyOutput | undefined;
  /**
   * Reference-price symbols (RTDS `crypto_prices`, e.g. 'btcusdt') this instance prices from. An
   * engine with a price stream subscribes them and delivers their `price_tick` events (and the
   * stream's `disconnected` / `resynced`, stream 'rtds') to `onEvent`. Absent: none needed.
   */
  readonly priceSymbols?: readonly string[];
}

/**
 * What `selectMarkets` may read: the time, how many markets the caller wants, the params, and the
 * books (fetched on demand from the venue, or read from a recording; undefined when unreadable).
 */
export interface SelectContext<P = Readonly<Record<string, unknown>>> {
  readonly now: number;
  /** How many markets the caller wants (bot.marketCount, --market-count, --top). */
  readonly count: number;
  readonly params: P;
  /** A token's book (best first); undefined when it cannot be read. */
  book(tokenId: TokenId): Promise<BookView | undefined>;
  readonly log: StrategyLogger;
}

/**
 * A strategy's own risk price band, probability units (0.01 = 1 cent): where its quotes belong,
 * for the risk gate. Each field given replaces the default of the `bot.risk` key it names; a key
 * the operator set to something other than its default applies too, and the tighter of the two
 * wins (src/risk/strategy-band.ts). Checked when the plugin loads (src/strategy/price-band.ts).
 */
export interface RiskPriceBand {
  /** Lowest price quoted, in (0, 1) (`bot.risk.minPrice`). */
  readonly min?: number;
  /** Highest price quoted, in (0, 1), at least `min` (`bot.risk.maxPrice`). */
  readonly max?: number;
  /** Furthest a quote may be from its token's mid, in (0, 1] (`bot.risk.maxMidDistance`). */
  readonly maxMidDistance?: number;
}

export interface StrategyDefinition<S extends ParamSchema = ParamSchema> {
  readonly name: string;
  readonly description: string;
  readonly params: S;
  create(ctx: StrategyContext, params: ParamsOf<S>): StrategyHandlers;
  /**
   * Optional: the strategy's own risk price band (see RiskPriceBand): e.g. a fair-value quoter
   * whose price comes from elsewhere than the book may quote farther from the book's mid than the
   * default `bot.risk.maxMidDistance` allows. Absent: the `bot.risk` limits alone.
   */
  readonly riskPriceBand?: RiskPriceBand;
  /**
   * Optional: which of `markets` (the candidates: active, long enough to their end, through the
   * operator's filters) this strategy wants when none are configured, best first (condition ids).
   * At most `ctx.count` are taken; ids that are not candidates are ignored. Absent: the markets
   * with the most resting levels (src/strategy/select.ts). Used by `mmkit run`, `mmkit strategy
   * check`, `mmkit record --top --strategy` and backtests.
   */
  selectMarkets?(
    markets: readonly MarketInfo[],
    ctx: SelectContext<ParamsOf<S>>,
  ): readonly ConditionId[] | Promise<readonly ConditionId[]>;
}

/** Identity helper that types a plugin's definition (`export default defineStrategy({...})`). */
export function defineStrategy<const S extends ParamSchema>(def: StrategyDefinition<S>): StrategyDefinition<S> {
  return def;
}
