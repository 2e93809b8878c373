/**
 * Strategy parameters: validation and documentation of a plugin's `ParamSchema`.
 *
 * Values come from config files, environment and the command line, so numbers may arrive as strings
 * ("0.02"); they are parsed strictly (a whole-string decimal, finite), bounds and choices are
 * enforced, unknown keys are refused (a misspelled key silently falling back to its default is the
 * classic way to run a bot with the wrong size). Every error is a ConfigError naming the key as
 * `bot.params.<key>`, so the operator knows exactly what to fix.
 *
 * The same machinery validates other small numeric configs (the risk limits use it with the prefix
 * `risk`): see `resolveValues`.
 */
import { ConfigError } from '../core/errors.ts';
import type { ParamSchema, ParamSpec, ParamsOf } from './api.ts';

/** The key prefix of strategy parameters in errors and docs. */
export const PARAMS_PREFIX = 'bot.params';

const NUMBER_RE = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

function describeValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v);
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  return String(v);
}

function coerceNumber(key: string, spec: Extract<ParamSpec, { type: 'number' | 'integer' }>, raw: unknown): number {
  let n: number;
  if (typeof raw === 'number') n = raw;
  else if (typeof raw === 'string' && NUMBER_RE.test(raw.trim())) n = Number(raw.trim());
  else
    throw new ConfigError(
      key,
      `expected ${spec.type === 'integer' ? 'an integer' : 'a number'}, got ${describeValue(raw)}`,
    );
  if (!Number.isFinite(n)) throw new ConfigError(key, `expected a finite number, got ${describeValue(raw)}`);
  if (spec.type === 'integer' && !Number.isInteger(n))
    throw new ConfigError(key, `expected an integer, got ${describeValue(raw)}`);
  if (spec.min !== undefined && n < spec.min) throw new ConfigError(key, `must be >= ${spec.min}, got ${n}`);
  if (spec.max !== undefined && n > spec.max) throw new ConfigError(key, `must be <= ${spec.max}, got ${n}`);
  return n;
}

function coerceBoolean(key: string, raw: unknown): boolean {
  if (typeof raw === 'boolean') return raw;
  if (typeof raw === 'string') {
    const s = raw.trim().toLowerCase();
    if (s === 'true' || s === '1') return true;
    if (s === 'false' || s === '0') return false;
  }
  if (raw === 1) return true;
  if (raw === 0) return false;
  throw new ConfigError(key, `expected true or false (or 1, 0; any case), got ${describeValue(raw)}`);
}

function coerceString(key: string, spec: Extract<ParamSpec, { type: 'string' }>, raw: unknown): string {
  if (typeof raw !== 'string') throw new ConfigError(key, `expected a string, got ${describeValue(raw)}`);
  if (spec.choices !== undefined && !spec.choices.includes(raw)) {
    throw new ConfigError(
      key,
      `must be one of ${spec.choices.map((c) => JSON.stringify(c)).join(', ')}, got ${describeValue(raw)}`,
    );
  }
  return raw;
}

/** Validates one value against its spec; `key` is the full key used in errors. @throws ConfigError */
function coerce(key: string, spec: ParamSpec, raw: unknown): number | boolean | string {
  switch (spec.type) {
    case 'number':
    case 'integer':
      return coerceNumber(key, spec, raw);
    case 'boolean':
      return coerceBoolean(key, raw);
    case 'string':
      return coerceString(key, spec, raw);
  }
}

/**
 * Defaults applied to `overrides`, every value checked against the schema; `prefix` names keys in
 * errors (`<prefix>.<key>`). Keys whose value is `undefined` take their default.
 * @throws ConfigError naming `<prefix>.<key>`: an unknown key, a wrong type, a value out of bounds or
 *   not among the choices
 */
export function resolveValues<S extends ParamSchema>(
  schema: S,
  overrides: Readonly<Record<string, unknown>> | undefined,
  prefix: string,
): ParamsOf<S> {
  const given = overrides ?? {};
  if (typeof given !== 'object' || given === null || Array.isArray(given))
    throw new ConfigError(prefix, `expected an object of values, got ${describeValue(given)}`);
  for (const k of Object.keys(given)) {
    if (!Object.hasOwn(schema, k)) {
      const known = Object.keys(schema);
      throw new ConfigError(`${prefix}.${k}`, `unknown key${known.length ? ` (known: ${known.join(', ')})` : ''}`);
    }
  }
  const out: Record<string, number | boolean | string> = {};
  for (const [k, spec] of Object.entries(schema)) {
    const raw = given[k];
    out[k] = raw === undefined ? spec.default : coerce(`${prefix}.${k}`, spec, raw);
  }
  return Object.freeze(out) as ParamsOf<S>;
}

/**
 * A plugin's params: the schema's defaults with `overrides` applied (from config or CLI; numbers may
 * be given as strings), each checked for type, bounds and choices. The result is frozen.
 * @throws ConfigError naming `bot.params.<key>` for an unknown key or a bad value
 * @example resolveParams(bands.params, { bands: '2', tokens: 'both' })
 */
export function resolveParams<S extends ParamSchema>(
  schema: S,
  overrides: Readonly<Record<string, unknown>> = {},
): ParamsOf<S> {
  return resolveValues(schema, overrides, PARAMS_PREFIX);
}

/**
 * Checks that a schema itself is well formed (what the loader runs on a plugin): each spec has a
 * known type, a string doc, a default of its type inside its own bounds or choices.
 * @throws ConfigError naming `<prefix>.<key>` for the first bad spec
 */
export function validateSchema(schema: unknown, prefix = PARAMS_PREFIX): asserts schema is ParamSchema {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    throw new ConfigError(prefix, `the parameter schema must be an object, got ${describeValue(schema)}`);
  for (const [k, s] of Object.entries(schema as Record<string, unknown>)) {
    const key = `${prefix}.${k}`;
    if (typeof s !== 'object' || s === null)
      throw new ConfigError(key, 'the spec must be an object { type, default, doc }');
    const spec = s as Record<string, unknown>;
    if (
      spec['type'] !== 'number' &&
      spec['type'] !== 'integer' &&
      spec['type'] !== 'boolean' &&
      spec['type'] !== 'string'
    ) {
      throw new ConfigError(
        key,
        `the spec's type must be number, integer, boolean or string, got ${describeValue(spec['type'])}`,
      );
    }
    if (typeof spec['doc'] !== 'string' || spec['doc'].trim() === '')
      throw new ConfigError(key, 'the spec needs a doc string (what it means, with its unit)');
    for (const b of ['min', 'max'] as const) {
      if (spec[b] !== undefined && (typeof spec[b] !== 'number' || !Number.isFinite(spec[b])))
        throw new ConfigError(key, `the spec's ${b} must be a finite number`);
    }
    if (
      spec['choices'] !== undefined &&
      (!Array.isArray(spec['choices']) || !spec['choices'].every((c) => typeof c === 'string'))
    ) {
      throw new ConfigError(key, "the spec's choices must be an array of strings");
    }
    if (spec['default'] === undefined) throw new ConfigError(key, 'the spec needs a default');
    const typeOk =
      spec['type'] === 'boolean'
        ? typeof spec['default'] === 'boolean'
        : spec['type'] === 'string'
          ? typeof spec['default'] === 'string'
          : typeof spec['default'] === 'number';
    if (!typeOk)
      throw new ConfigError(key, `the default ${describeValue(spec['default'])} is not a ${String(spec['type'])}`);
    try {
      coerce(key, spec as unknown as ParamSpec, spec['default']);
    } catch (e) {
      throw new ConfigError(key, `the default is invalid: ${(e as Error).message.replace(/^config [^:]+: /, '')}`, {
        cause: e,
      });
    }
  }
}

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

function formatDefault(spec: ParamSpec): string {
  return spec.type === 'string' ? `\`${JSON.stringify(spec.default)}\`` : `\`${String(spec.default)}\``;
}

function formatRange(spec: ParamSpec): string {
  if (spec.type === 'number' || spec.type === 'integer') {
    if (spec.min !== undefined && spec.max !== undefined) return `${spec.min} to ${spec.max}`;
    if (spec.min !== undefined) return `>= ${spec.min}`;
    if (spec.max !== undefined) return `<= ${spec.max}`;
    return 'any';
  }
  if (spec.type === 'string')
    return spec.choices !== undefined ? spec.choices.map((c) => `\`${c}\``).join(', ') : 'any';
  return '`true`, `false`';
}

/**
 * The schema as markdown table lines (for the README and `--help`): a header line, the separator
 * line, then one row per parameter: name, type, default, allowed values, doc. Join with "\n".
 */
export function describeParams(schema: ParamSchema): string[] {
  const rows = ['| param | type | default | allowed | meaning |', '| --- | --- | --- | --- | --- |'];
  for (const [k, spec] of Object.entries(schema)) {
    rows.push(
      `| \`${cell(k)}\` | ${spec.type} | ${cell(formatDefault(spec))} | ${cell(formatRange(spec))} | ${cell(spec.doc)} |`,
    );
  }
  return rows;
}
