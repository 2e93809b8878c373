/**
 * Small, strict readers for query strings and JSON bodies. Anything malformed becomes a 400 with a
 * message that names the field; no handler ever sees an unchecked value.
 */
import type { z } from 'zod';
import { badRequest } from './errors.ts';

/**
 * `value` checked by `schema`. A missing field is said plainly ("order: required field is missing"),
 * not in the schema library's words ("expected nonoptional, received undefined").
 * @throws HttpError 400 naming the first bad field
 */
export function parseWith<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const path = issue?.path.length ? issue.path.join('.') : what;
  const missing = issue?.code === 'invalid_type' && issue.path.length > 0 && at(value, issue.path) === undefined;
  throw badRequest(
    `invalid ${what}: ${path}: ${missing ? 'required field is missing' : (issue?.message ?? 'malformed')}`,
  );
}

/** The value at `path` inside `v` (undefined when any step is missing). */
function at(v: unknown, path: readonly PropertyKey[]): unknown {
  let cur = v;
  for (const k of path) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[k];
  }
  return cur;
}

export type Query = Record<string, string | string[] | undefined>;

export function qString(q: Query, name: string): string | undefined {
  const v = q[name];
  if (Array.isArray(v)) return v[0];
  return v === undefined || v === '' ? undefined : v;
}

export function qRequired(q: Query, name: string): string {
  const v = qString(q, name);
  if (v === undefined) throw badRequest(`missing query parameter ${name}`);
  return v;
}

export function qInt(q: Query, name: string, def: number, min: number, max: number): number {
  const v = qString(q, name);
  if (v === undefined) return def;
  if (!/^\d{1,15}$/.test(v)) throw badRequest(`query parameter ${name} must be a non-negative integer`);
  const n = Number(v);
  if (n < min || n > max) throw badRequest(`query parameter ${name} must be between ${min} and ${max}`);
  return n;
}

export function qBool(q: Query, name: string): boolean | undefined {
  const v = qString(q, name);
  if (v === undefined) return undefined;
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw badRequest(`query parameter ${name} must be true or false`);
}

/** Cursor pagination of the venue: base64 of the offset; "MA==" starts, "LTE=" is the end. */
export const FIRST_CURSOR = 'MA==';
export const END_CURSOR = 'LTE=';

export function decodeCursor(cursor: string | undefined): number {
  if (cursor === undefined || cursor === '' || cursor === FIRST_CURSOR) return 0;
  if (cursor === END_CURSOR) return -1;
  let s: string;
  try {
    s = Buffer.from(cursor, 'base64').toString('utf8');
  } catch {
    throw badRequest('invalid next_cursor');
  }
  if (!/^\d{1,15}$/.test(s)) throw badRequest('invalid next_cursor');
  return Number(s);
}

export function encodeCursor(offset: number): string {
  return Buffer.from(String(offset)).toString('base64');
}

/** One cursor page `{limit, count, next_cursor, data}` over `items`. */
export function cursorPage<T, U>(
  items: readonly T[],
  q: Query,
  render: (t: T) => U,
  defLimit: number,
  maxLimit: number,
): {
  limit: number;
  count: number;
  next_cursor: string;
  data: U[];
} {
  const limit = qInt(q, 'limit', defLimit, 1, maxLimit);
  const cursor = qString(q, 'next_cursor');
  const start = cursor !== undefined ? decodeCursor(cursor) : qInt(q, 'offset', 0, 0, 1e9);
  if (start < 0) return { limit, count: 0, next_cursor: END_CURSOR, data: [] };
  const slice = items.slice(start, start + limit);
  const end = start + slice.length;
  return {
    limit,
    count: slice.length,
    next_cursor: end >= items.length ? END_CURSOR : encodeCursor(end),
    data: slice.map(render),
  };
}

/** The first of `names` present in the query, as unix seconds (digits only, else a 400). */
export function qSeconds(q: Query, ...names: string[]): number | undefined {
  for (const n of names) {
    const v = qString(q, n);
    if (v === undefined) continue;
    if (!/^\d{1,12}$/.test(v)) throw badRequest(`${n} must be unix seconds`);
    return Number(v);
  }
  return undefined;
}
