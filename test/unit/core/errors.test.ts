/**
 * The error tree's constructors as a plugin calls them: a plugin is not type-checked (tsx strips the
 * types), so ConfigError's one-argument form must give the author's text back, never an internal
 * TypeError.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, MmkitError, StrategyError } from '../../../src/core/errors.ts';

/** ConfigError as untyped JavaScript sees it. */
const UntypedConfigError = ConfigError as unknown as new (...args: unknown[]) => ConfigError;

describe('ConfigError', () => {
  it('names the key and says what is wrong', () => {
    const e = new ConfigError('strategy.params.lo', 'must be below hi (0.2), got 0.5');
    expect(e.message).toBe('config strategy.params.lo: must be below hi (0.2), got 0.5');
    expect(e.key).toBe('strategy.params.lo');
    expect(e.problems).toEqual([{ key: 'strategy.params.lo', message: 'must be below hi (0.2), got 0.5' }]);
    expect(e.code).toBe('CONFIG');
  });

  it('tolerates a missing message: its one argument is the message, the key empty', () => {
    const e = new UntypedConfigError('lo must be below hi');
    expect(e.message).toBe('config: lo must be below hi');
    expect(e.key).toBe('');
    expect(e.problems).toEqual([{ key: '', message: 'lo must be below hi' }]);
  });

  it('tolerates a message that is not a string', () => {
    expect(new UntypedConfigError('strategy.params.k', 42).message).toBe('config strategy.params.k: 42');
  });
});

describe('StrategyError', () => {
  it('is a fatal MmkitError coded STRATEGY', () => {
    const e = new StrategyError('strategy x: create() threw: no');
    expect(e).toBeInstanceOf(MmkitError);
    expect(e.code).toBe('STRATEGY');
    expect(e.retryable).toBe(false);
    expect(e.name).toBe('StrategyError');
  });
});
