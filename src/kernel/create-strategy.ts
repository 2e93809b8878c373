/**
 * Making the strategy instance (`definition.create(ctx, params)`), its failure named. A throw in
 * `create` stops the start (there is no strategy to run) and used to surface as the bare message
 * (`mmkit: cannot create`), with no word of which strategy, nor where: now a StrategyError reads
 * `strategy NAME: create() threw: MESSAGE (at file:line:column)`, as a throw in `onEvent` is
 * reported with its location. A ConfigError stays what it is: `create` is the documented place for a
 * cross-parameter check (`throw new ConfigError('strategy.params.lo', 'must be below hi')`), and it
 * exits as a configuration error; the one-argument form (no key) is keyed `strategy.params`.
 */
import { ConfigError, StrategyError } from '../core/errors.ts';
import { errAt, errMsg } from '../engine/loop.ts';
import type { StrategyContext, StrategyDefinition, StrategyHandlers } from '../strategy/api.ts';

/** The config key of a strategy's parameters (src/strategy/params.ts, PARAMS_PREFIX). */
const PARAMS_KEY = 'strategy.params';

/**
 * `def.create(ctx, params)`.
 * @throws ConfigError what `create` threw as one (keyed `strategy.params` when it had no key);
 *   StrategyError for any other throw, naming the strategy and where it was thrown
 */
export function createStrategy(def: StrategyDefinition, ctx: StrategyContext, params: unknown): StrategyHandlers {
  try {
    return def.create(ctx, params as never);
  } catch (err) {
    if (err instanceof ConfigError) {
      if (err.key !== '') throw err;
      throw new ConfigError(PARAMS_KEY, err.problems[0]?.message ?? err.message, { cause: err });
    }
    const at = errAt(err);
    throw new StrategyError(
      `strategy ${def.name}: create() threw: ${errMsg(err)}${at === undefined ? '' : ` (at ${at})`}`,
      { cause: err },
    );
  }
}
