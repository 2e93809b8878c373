/**
 * Small helpers shared by the metadata, data and content clients to describe requests
 * (`RequestSpec` of ./http/types.ts): per-call options, path segments, query values.
 */
import { ValidationError } from '../core/errors.ts';
import { isAddress } from '../core/ids.ts';
import type { ApiName, QueryValue, RequestSpec } from './http/types.ts';

/** Per-call options of every client method. */
export interface CallOptions {
  /** Abort the call (and its retries). */
  signal?: AbortSignal;
  /** Per-attempt timeout, ms (default: the transport's). */
  timeoutMs?: number;
}

/** A public, idempotent GET. Undefined query values are dropped by the transport. */
export function getSpec(
  api: ApiName,
  path: string,
  query: Record<string, QueryValue> | undefined,
  opts: CallOptions | undefined,
): RequestSpec {
  const spec: RequestSpec = { api, method: 'GET', path, auth: 'none', idempotent: true };
  if (query !== undefined) spec.query = query;
  if (opts?.signal !== undefined) spec.signal = opts.signal;
  if (opts?.timeoutMs !== undefined) spec.timeoutMs = opts.timeoutMs;
  return spec;
}

/**
 * One path segment from an id, slug or address, percent-encoded.
 * @throws ValidationError when empty or longer than 200 characters.
 */
export function segment(what: string, v: string): string {
  if (typeof v !== 'string' || v.length === 0 || v.length > 200)
    throw new ValidationError(`${what}: expected 1 to 200 characters`);
  return encodeURIComponent(v);
}

/**
 * A wallet address for a path.
 * @throws ValidationError unless `0x` + 40 hex digits.
 */
export function addressSegment(v: string): string {
  if (!isAddress(v))
    throw new ValidationError(`address: expected 0x followed by 40 hex digits, got ${String(v).slice(0, 50)}`);
  return v.toLowerCase();
}

/** A repeatable query parameter: one value or many (sent repeated: `?id=a&id=b`). */
export function many(v: string | readonly string[] | undefined): readonly string[] | string | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'string') return v;
  return v.length === 0 ? undefined : v;
}

/**
 * An optional positive integer query parameter within [min, max].
 * @throws ValidationError when out of range.
 */
export function intParam(what: string, v: number | undefined, min: number, max: number): number | undefined {
  if (v === undefined) return undefined;
  if (!Number.isSafeInteger(v) || v < min || v > max)
    throw new ValidationError(`${what}: expected an integer in [${min}, ${max}], got ${String(v)}`);
  return v;
}
