/** createStrategy: a throw in a plugin's create() named with the strategy and where it was thrown. */
import { describe, expect, it } from 'vitest';
import { ConfigError, StrategyError } from '../../../src/core/errors.ts';
import { createStrategy } from '../../../src/kernel/create-strategy.ts';
import { defineStrategy, type StrategyContext } from '../../../src/strategy/api.ts';

const ctx = {} as StrategyContext;
const throwing = (err: () => unknown) =>
  defineStrategy({
    name: 'boomer',
    description: '',
    params: {},
    create() {
      throw err();
    },
  });

describe('createStrategy', () => {
  it('returns the handlers create() returns', () => {
    const handlers = { onEvent: () => undefined };
    const def = defineStrategy({ name: 'ok', description: '', params: {}, create: () => handlers });
    expect(createStrategy(def, ctx, {})).toBe(handlers);
  });

  it('a throw is a StrategyError naming the strategy, the message and file:line:column', () => {
    let e: unknown;
    try {
      createStrategy(
        throwing(() => new Error('cannot create')),
        ctx,
        {},
      );
    } catch (err) {
      e = err;
    }
    expect(e).toBeInstanceOf(StrategyError);
    expect((e as Error).message).toMatch(
      /^strategy boomer: create\(\) threw: cannot create \(at .*create-strategy\.test\.ts:\d+:\d+\)$/,
    );
  });

  it('a non-Error throw is shown as util.inspect shows it', () => {
    expect(() =>
      createStrategy(
        throwing(() => ({ code: 42 })),
        ctx,
        {},
      ),
    ).toThrow('strategy boomer: create() threw: { code: 42 }');
  });

  it('a ConfigError stays one (a bad parameter); without a key it is keyed bot.params', () => {
    const keyed = new ConfigError('bot.params.lo', 'must be below hi');
    expect(() =>
      createStrategy(
        throwing(() => keyed),
        ctx,
        {},
      ),
    ).toThrow(keyed);
    const Untyped = ConfigError as unknown as new (m: string) => ConfigError;
    let e: unknown;
    try {
      createStrategy(
        throwing(() => new Untyped('lo must be below hi')),
        ctx,
        {},
      );
    } catch (err) {
      e = err;
    }
    expect(e).toBeInstanceOf(ConfigError);
    expect((e as ConfigError).message).toBe('config bot.params: lo must be below hi');
    expect((e as ConfigError).key).toBe('bot.params');
  });

  it("an older plugin's strategy.params.x (a key no config file has) is named bot.params.x (trial 10 F18)", () => {
    let e: unknown;
    try {
      createStrategy(
        throwing(() => new ConfigError('strategy.params.lo', 'must be below hi')),
        ctx,
        {},
      );
    } catch (err) {
      e = err;
    }
    expect(e).toBeInstanceOf(ConfigError);
    expect((e as ConfigError).message).toBe('config bot.params.lo: must be below hi');
  });

  it('create() returning no onEvent stops the start as a ConfigError naming the strategy (trial 10 F16)', () => {
    const returning = (v: unknown) =>
      defineStrategy({ name: 'hollow', description: '', params: {}, create: () => v as never });
    const msg = (v: unknown): string => {
      try {
        createStrategy(returning(v), ctx, {});
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        expect((err as ConfigError).key).toBe('strategy');
        return (err as Error).message;
      }
      throw new Error('no throw');
    };
    expect(msg({})).toBe(
      'config strategy: hollow: create(ctx, params) returned an object whose onEvent is undefined: it must return `{ onEvent }`, onEvent a function',
    );
    expect(msg(undefined)).toContain('hollow: create(ctx, params) returned undefined: it must return');
    expect(msg({ onEvent: 'x' })).toContain("returned an object whose onEvent is 'x'");
    expect(msg(Promise.resolve({ onEvent() {} }))).toContain('returned a Promise (an async create?)');
  });
});
