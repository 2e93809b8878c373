/**
 * Making the strategy instance (`definition.create(ctx, params)`), its failure named. A throw in
 * `create` stops the start (there is no strategy to run) and used to surface as the bare message
 * (`mmkit: cannot create`), with no word of which strategy, nor where: now a StrategyError reads
 * `strategy NAME: create() threw: MESSAGE (at file:line:column)`, as a throw in `onEvent` is
 * reported with its location. A ConfigError stays what it is: `create` is the documented place for a
 * cross-parameter check (`throw new ConfigError('bot.params.lo', 'must be below hi')`), and it
 * exits as a configuration error; the one-argument form (no key) is keyed `bot.params`, the config
 * file's key of the params (an older plugin's `strategy.params.x`, a key no config file has, is
 * re-keyed to `bot.params.x`).
 */
import { inspect } from 'node:util';
import { ConfigError, StrategyError } from '../core/errors.ts';
import { errAt, errMsg } from '../engine/loop.ts';
import type { StrategyContext, StrategyDefinition, StrategyHandlers } from '../strategy/api.ts';

/** The config key of a strategy's parameters (src/strategy/params.ts, PARAMS_PREFIX). */
const PARAMS_KEY = 'bot.params';
/** The key plugins were once told to use: no config file has it. */
const OLD_PARAMS_KEY = 'strategy.params';
/** The config key of the strategy itself (src/strategy/loader.ts names definition problems under it). */
const STRATEGY_KEY = 'strategy';

/**
 * `def.create(ctx, params)`.
 * @throws ConfigError what `create` threw as one (keyed `bot.params` when it had no key);
 *   StrategyError for any other throw, naming the strategy and where it was thrown
 */
export function createStrategy(def: StrategyDefinition, ctx: StrategyContext, params: unknown): StrategyHandlers {
  let handlers: unknown;
  try {
    handlers = def.create(ctx, params as never);
  } catch (err) {
    if (err instanceof ConfigError) {
      const key = err.key;
      if (key === '') throw new ConfigError(PARAMS_KEY, err.problems[0]?.message ?? err.message, { cause: err });
      if (key === OLD_PARAMS_KEY || key.startsWith(`${OLD_PARAMS_KEY}.`))
        throw new ConfigError(PARAMS_KEY + key.slice(OLD_PARAMS_KEY.length), err.problems[0]?.message ?? err.message, {
          cause: err,
        });
      throw err;
    }
    const at = errAt(err);
    throw new StrategyError(
      `strategy ${def.name}: create() threw: ${errMsg(err)}${at === undefined ? '' : ` (at ${at})`}`,
      { cause: err },
    );
  }
  const problem = handlersProblem(handlers);
  if (problem !== undefined)
    throw new ConfigError(
      STRATEGY_KEY,
      `${def.name}: create(ctx, params) returned ${problem}: it must return \`{ onEvent }\`, onEvent a function`,
    );
  return handlers as StrategyHandlers;
}

/**
 * What is wrong with what `create` returned, or undefined: checked once at the start, so that a
 * plugin returning no `onEvent` stops there, named, instead of failing at every event inside the
 * engine (trial 10 F16). An `async create` (a Promise) is named as such.
 */
function handlersProblem(h: unknown): string | undefined {
  if (typeof h !== 'object' || h === null) return describe(h);
  if (typeof (h as { then?: unknown }).then === 'function') return 'a Promise (an async create?)';
  const on = (h as { onEvent?: unknown }).onEvent;
  if (typeof on !== 'function') return `an object whose onEvent is ${describe(on)}`;
  return undefined;
}

function describe(v: unknown): string {
  return inspect(v, { depth: 0, breakLength: Infinity, maxStringLength: 40 }).slice(0, 80);
}
