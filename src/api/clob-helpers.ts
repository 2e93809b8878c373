/**
 * Helpers of the CLOB client (./clob-client.ts): retry bookkeeping of order posts, the body of an
 * order post and its JSON, the open-orders and trades queries, and cursor pagination.
 */
import { type MmkitError, NetworkError, TimeoutError, ValidationError } from '../core/errors.ts';
import {
  END_CURSOR,
  FIRST_CURSOR,
  type OpenOrdersFilter,
  type Page,
  type PostOrderOptions,
  type SignedOrderLike,
  type TradesFilter,
} from './clob-types.ts';
import type { QueryValue } from './http/types.ts';
import { wireJson } from './signing/order-common.ts';

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

/** The query of an open-orders page (GET /data/orders, GET /orders), less its cursor. */
export function openOrdersQuery(f: OpenOrdersFilter): Record<string, QueryValue> {
  return { id: f.id, market: f.market, asset_id: f.assetId, limit: f.limit };
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

/** The body of an order post (POST /order, an entry of POST /orders), owned by `owner` (the API key). @throws ValidationError */
export function orderBody(
  o: SignedOrderLike,
  opts: PostOrderOptions,
  owner: string | undefined,
): Record<string, unknown> {
  if (owner === undefined || owner === '')
    throw new ValidationError('postOrder: no API key to own the order (set credentials on the transport or `owner`)');
  const orderType = opts.orderType ?? 'GTC';
  if (opts.postOnly === true && orderType !== 'GTC' && orderType !== 'GTD')
    throw new ValidationError('postOnly: only with GTC or GTD orders');
  const body: Record<string, unknown> = { order: o.wire, owner, orderType };
  if (opts.postOnly !== undefined) body['postOnly'] = opts.postOnly;
  if (opts.builder !== undefined) body['builder'] = opts.builder;
  return body;
}

/**
 * `JSON.stringify(body)` of an `orderBody` result, with the order's JSON taken from the cache of
 * signed wire orders (`wireJson`): the same bytes, without serialising the order again.
 * Undefined when the body is not plain enough for that (the transport then serialises it, and
 * reports what cannot be serialised as before).
 */
export function orderBodyJson(body: Record<string, unknown>): string | undefined {
  const order = body['order'];
  if (typeof order !== 'object' || order === null) return undefined;
  try {
    let s = '{"order":' + wireJson(order) + ',"owner":' + jsonString(body['owner']);
    const orderType = body['orderType'];
    s +=
      ',"orderType":' +
      (typeof orderType === 'string'
        ? (ORDER_TYPE_JSON.get(orderType) ?? JSON.stringify(orderType))
        : JSON.stringify(orderType));
    const postOnly = body['postOnly'];
    if (postOnly !== undefined) {
      const j = postOnly === true ? 'true' : postOnly === false ? 'false' : JSON.stringify(postOnly);
      if (j !== undefined) s += ',"postOnly":' + j;
    }
    const builder = body['builder'];
    if (builder !== undefined) {
      const j = JSON.stringify(builder);
      if (j !== undefined) s += ',"builder":' + j;
    }
    return s + '}';
  } catch {
    return undefined;
  }
}
