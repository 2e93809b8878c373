import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/errors.ts';
import type { ParamSchema } from '../../../src/strategy/api.ts';
import { describeParams, resolveParams, validateSchema } from '../../../src/strategy/params.ts';

const schema = {
  spread: { type: 'number', default: 0.02, min: 0.0001, max: 0.5, doc: 'half spread, price units' },
  levels: { type: 'integer', default: 3, min: 1, max: 10, doc: 'levels | per side' },
  both: { type: 'boolean', default: false, doc: 'quote both tokens' },
  mode: { type: 'string', default: 'yes', choices: ['yes', 'both'], doc: 'mode' },
  label: { type: 'string', default: '', doc: 'free text' },
} as const satisfies ParamSchema;

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('resolveParams', () => {
  it('applies defaults and returns a frozen object', () => {
    const p = resolveParams(schema);
    expect(p).toEqual({ spread: 0.02, levels: 3, both: false, mode: 'yes', label: '' });
    expect(Object.isFrozen(p)).toBe(true);
  });
  it('takes overrides, numbers and booleans from strings (config/CLI values)', () => {
    const p = resolveParams(schema, { spread: '0.05', levels: ' 4 ', both: 'true', mode: 'both', label: 'x' });
    expect(p).toEqual({ spread: 0.05, levels: 4, both: true, mode: 'both', label: 'x' });
    expect(resolveParams(schema, { both: '0', spread: 1e-2 }).both).toBe(false);
    expect(resolveParams(schema, { levels: undefined }).levels).toBe(3);
  });
  it('refuses unknown keys, naming them', () => {
    const e = configError(() => resolveParams(schema, { sprad: 0.1 }));
    expect(e.key).toBe('bot.params.sprad');
    expect(e.message).toMatch(/unknown key.*known: spread, levels/);
  });
  it.each([
    ['spread', 'abc', /expected a number/],
    ['spread', '0.1x', /expected a number/],
    ['spread', '', /expected a number/],
    ['spread', Number.NaN, /finite/],
    ['spread', Number.POSITIVE_INFINITY, /finite/],
    ['spread', 0.6, /<= 0.5/],
    ['spread', '0', />= 0.0001/],
    ['levels', 2.5, /integer/],
    ['levels', '11', /<= 10/],
    ['both', 'yes', /expected true or false \(or 1, 0; any case\), got "yes"/],
    ['mode', 'no', /one of "yes", "both"/],
    ['mode', 3, /expected a string/],
    ['label', null, /expected a string/],
  ] as const)('refuses %s = %j', (key, value, msg) => {
    const e = configError(() => resolveParams(schema, { [key]: value }));
    expect(e.key).toBe(`bot.params.${key}`);
    expect(e.code).toBe('CONFIG');
    expect(e.message).toMatch(msg);
  });
  it('refuses a non-object', () => {
    expect(() => resolveParams(schema, [] as unknown as Record<string, unknown>)).toThrow(ConfigError);
  });
});

describe('validateSchema', () => {
  it('accepts a good schema', () => {
    expect(() => validateSchema(schema)).not.toThrow();
    expect(() => validateSchema({})).not.toThrow();
  });
  it.each([
    [{ a: { type: 'float', default: 1, doc: 'x' } }, /type must be/],
    [{ a: { type: 'number', default: 1 } }, /doc/],
    [{ a: { type: 'number', doc: 'x' } }, /needs a default/],
    [{ a: { type: 'number', default: '1', doc: 'x' } }, /not a number/],
    [{ a: { type: 'number', default: 5, max: 2, doc: 'x' } }, /default is invalid.*<= 2/],
    [{ a: { type: 'string', default: 'c', choices: ['a', 'b'], doc: 'x' } }, /default is invalid/],
    [{ a: { type: 'integer', default: 1.5, doc: 'x' } }, /default is invalid/],
    [{ a: 3 }, /must be an object/],
  ])('refuses %j', (bad, msg) => {
    const e = configError(() => validateSchema(bad));
    expect(e.key).toBe('bot.params.a');
    expect(e.message).toMatch(msg);
  });
});

describe('describeParams', () => {
  it('renders markdown table lines with defaults, ranges and escaped docs', () => {
    const rows = describeParams(schema);
    expect(rows[0]).toBe('| param | type | default | allowed | meaning |');
    expect(rows[1]).toMatch(/^\| ---/);
    expect(rows).toHaveLength(2 + 5);
    expect(rows[2]).toBe('| `spread` | number | `0.02` | 0.0001 to 0.5 | half spread, price units |');
    expect(rows[3]).toContain('levels \\| per side');
    expect(rows[4]).toContain('`true`, `false`');
    expect(rows[5]).toContain('`yes`, `both`');
    expect(rows[5]).toContain('`"yes"`');
  });
});
