/**
 * JSON that keeps every number: `JSON.stringify` writes NaN and ±Infinity as `null` and -0 as `0`,
 * whereas a sweep's rows must reach the coordinator of a distributed sweep (./sweep-queue.ts) exactly
 * as a worker thread hands them to the local sweep (structured clone keeps them), so that the two
 * ranked tables are identical.
 *
 * The encoding is JSON with one tag: a number JSON cannot hold is written `{"$":"NaN"}`,
 * `{"$":"Infinity"}`, `{"$":"-Infinity"}` or `{"$":"-0"}`, and an object that has a key `$` of its
 * own is wrapped as `{"$":"{}","v":{...}}`, so no data can be mistaken for a tag. Plain data only
 * (null, booleans, numbers, strings, arrays, plain objects); `undefined` object members are dropped
 * as JSON drops them.
 */
import { ValidationError } from '../core/errors.ts';

const SPECIAL = new Set(['NaN', 'Infinity', '-Infinity', '-0']);

function encode(v: unknown): unknown {
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return { $: 'NaN' };
    if (v === Infinity) return { $: 'Infinity' };
    if (v === -Infinity) return { $: '-Infinity' };
    if (Object.is(v, -0)) return { $: '-0' };
    return v;
  }
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (Array.isArray(v)) return v.map(encode);
  if (typeof v === 'object') {
    // fromEntries: a key "__proto__" stays an own member
    const out = Object.fromEntries(
      Object.entries(v as Record<string, unknown>)
        .filter(([, x]) => x !== undefined)
        .map(([k, x]) => [k, encode(x)]),
    );
    return Object.hasOwn(out, '$') ? { $: '{}', v: out } : out;
  }
  throw new ValidationError(`lossless JSON holds plain data only, not ${typeof v}`);
}

function decode(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(decode);
  const o = v as Record<string, unknown>;
  if (Object.hasOwn(o, '$')) {
    const tag = o['$'];
    if (tag === '{}' && typeof o['v'] === 'object' && o['v'] !== null && !Array.isArray(o['v'])) {
      return Object.fromEntries(Object.entries(o['v'] as Record<string, unknown>).map(([k, x]) => [k, decode(x)]));
    }
    if (typeof tag === 'string' && SPECIAL.has(tag) && Object.keys(o).length === 1)
      return tag === '-0' ? -0 : Number(tag);
    throw new ValidationError(`lossless JSON: unknown tag ${JSON.stringify(tag)}`);
  }
  return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, decode(x)]));
}

/** The lossless JSON text of plain data. @throws ValidationError on a function, symbol, bigint or undefined value */
export function toLosslessJson(v: unknown): string {
  return JSON.stringify(encode(v));
}

/** The data of a lossless JSON text. @throws SyntaxError on bad JSON, ValidationError on a bad tag */
export function fromLosslessJson(s: string): unknown {
  return decode(JSON.parse(s));
}
