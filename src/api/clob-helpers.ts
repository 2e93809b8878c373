/**
 * Helpers of the CLOB client (./clob-client.ts): retry bookkeeping of order posts, the JSON of a
 * post body's parts, the trades query, and cursor pagination.
 */
import { type MmkitError, NetworkError, TimeoutError } from '../core/errors.ts';
import { END_CURSOR, FIRST_CURSOR, type Page, type TradesFilter } from './clob-types.ts';
import type { QueryValue } from './http/types.ts';

/** True for a failure after which the request may or may not have landed. */
export function isAmbiguous(err: MmkitError): boolean {
  return err instanceof TimeoutError || (err instanceof NetworkError && err.code === 'NETWORK');
}

/**
 * `onRetry` of an order post, bound to its record: notes that a retry followed an ambiguous failure
 * (a bound function, not a closure made per post).
 */
export function noteRetry(this: { ambiguous: boolean }, err: MmkitError): void {
  if (isAmbiguous(err)) this.ambiguous = true;
}

/** The JSON of the order types. */
export const ORDER_TYPE_JSON: ReadonlyMap<string, string> = new Map(
  ['GTC', 'GTD', 'FOK', 'FAK'].map((t) => [t, JSON.stringify(t)]),
);

/** `JSON.stringify` of a value, remembered for the last string (the owner: one API key per client). */
let lastJsonIn: unknown;
let lastJsonOut: string | undefined;
export function jsonString(v: unknown): string {
  if (v !== lastJsonIn || lastJsonOut === undefined || typeof v !== 'string') {
    const j = JSON.stringify(v);
    if (j === undefined) throw new TypeError('not serialisable');
    if (typeof v !== 'string') return j;
    lastJsonIn = v;
    lastJsonOut = j;
  }
  return lastJsonOut;
}

export function tradeQuery(f: TradesFilter): Record<string, QueryValue> {
  return {
    id: f.id,
    market: f.market,
    asset_id: f.assetId,
    maker_address: f.makerAddress,
    before: f.before,
    after: f.after,
    limit: f.limit,
  };
}

/**
 * Iterate a cursor-paginated list: pages from FIRST_CURSOR until END_CURSOR (or an empty cursor,
 * or a cursor that repeats, which would otherwise loop forever).
 */
export async function* paginate<T>(
  fetchPage: (cursor: string) => Promise<Page<T>>,
  first: string = FIRST_CURSOR,
): AsyncGenerator<T> {
  const seen = new Set<string>();
  let cursor = first;
  for (;;) {
    seen.add(cursor);
    const page = await fetchPage(cursor);
    yield* page.data;
    const next = page.nextCursor;
    if (next === END_CURSOR || next === '' || seen.has(next)) return;
    cursor = next;
  }
}
