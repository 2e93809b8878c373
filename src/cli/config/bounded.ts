/** Bounded numeric convict formats: one per bounded parameter, with its doc for `mmkit config docs`. */
import type { ParamSpec } from '../../strategy/api.ts';
import convict from 'convict';

/** Docs of the bounded numeric formats (name → "number 0 to 500000"), for `mmkit config docs`. */
export const BOUNDED_DOCS = new Map<string, string>();

/**
 * One convict format per bounded parameter (risk limits reuse the strategy ParamSpec shape), so a
 * value from the environment ("250") is coerced to a number and the error says the allowed range.
 */
export function boundedFormat(name: string, spec: ParamSpec): string {
  if (spec.type !== 'number' && spec.type !== 'integer') throw new Error(`${name}: only numeric specs`);
  const range = `${spec.type === 'integer' ? 'an integer' : 'a number'} in [${spec.min ?? '-inf'}, ${spec.max ?? 'inf'}]`;
  BOUNDED_DOCS.set(
    name,
    `${spec.type === 'integer' ? 'integer' : 'number'} ${spec.min ?? '-inf'} to ${spec.max ?? 'inf'}`,
  );
  convict.addFormat({
    name,
    validate(v: unknown) {
      const ok =
        typeof v === 'number' &&
        Number.isFinite(v) &&
        (spec.type !== 'integer' || Number.isInteger(v)) &&
        (spec.min === undefined || v >= spec.min) &&
        (spec.max === undefined || v <= spec.max);
      if (!ok) throw new Error(`must be ${range}`);
    },
    coerce(v: unknown) {
      return typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v;
    },
  });
  return name;
}
