/**
 * The HTTP side of the security log (src/exchange/security-log.ts): what the HTTP layer records,
 * so the exchange core stays free of logging.
 *
 *  - `auth_failed`: every 401 (L1, L2, Bearer; a missing, unknown, overlong or unsigned credential)
 *    and every 403 outside /admin (a read-only key where it has no power), recorded by the error
 *    handler (`recordHttpError`) with the error's code and message;
 *  - `order_refused`: every refusal on an order route (`POST /order`, `POST /orders`, `DELETE
 *    /order`, `DELETE /orders`, `DELETE /cancel-all`, `DELETE /cancel-market-orders`): a thrown
 *    4xx (bad body, batch too large) by the error handler, and the refusals the routes answer as
 *    data (an order's venue code, in `POST /order`'s 400 or in `POST /orders`' array; a cancel's
 *    `not_canceled` reasons, one event per distinct reason) by a preSerialization hook; a
 *    `not_canceled` reason (the order already cancelled, matched or gone: the ordinary race of a
 *    cancel with a fill) is recorded at debug, not warn, and so is an order refused for balance
 *    (INVALID_ORDER_NOT_ENOUGH_BALANCE: the account's state, e.g. a sell racing the bot's own fills);
 *  - `admin` and `rate_limited` are recorded where they happen (http/admin.ts, http/rate-limit-hooks.ts).
 *
 * What an event names: the route (its pattern when routed, so ids in paths are not logged), the
 * client address, and the claimed identity: POLY_ADDRESS when it is an address, and the claimed
 * key as `key:` plus its first 8 characters. A key is never logged whole: with the spec's Bearer
 * form the key alone is a credential. Never a secret, passphrase, signature, admin token or body.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { keyTag, type SecurityEvent, type SecurityLog } from '../security-log.ts';
import { claimedAddress, claimedApiKey } from './auth.ts';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** The order routes (method and route pattern), whose refusals are recorded. */
const ORDER_ROUTES: ReadonlySet<string> = new Set([
  'POST /clob/order',
  'POST /clob/orders',
  'DELETE /clob/order',
  'DELETE /clob/orders',
  'DELETE /clob/cancel-all',
  'DELETE /clob/cancel-market-orders',
]);

/** Distinct `not_canceled` reasons recorded per response, at most. */
const MAX_CANCEL_REASONS = 10;

export { keyTag };

/** A rate-limit identity as the log shows it (`key:<id>` shortened by keyTag; addresses as they are). */
export function identityTag(identity: string): string {
  return identity.startsWith('key:') ? keyTag(identity.slice(4)) : identity;
}

/** The identity a request claims: POLY_ADDRESS (when it is an address) and the key tag. */
export function claimedIdentity(req: FastifyRequest): string | undefined {
  const parts: string[] = [];
  const a = claimedAddress(req);
  if (a !== undefined) parts.push(ADDRESS.test(a) ? a.toLowerCase() : `address?(${a.length})`);
  const k = claimedApiKey(req);
  if (k !== undefined) parts.push(keyTag(k));
  return parts.length > 0 ? parts.join(' ') : undefined;
}

/** `METHOD /route/pattern` (the raw path, without query string, when nothing was routed). */
export function routeOf(req: FastifyRequest): string {
  return `${req.method} ${req.routeOptions.url ?? req.url.split('?')[0] ?? '/'}`;
}

const isAdmin = (req: FastifyRequest): boolean => (req.url.split('?')[0] ?? '').startsWith('/admin');
const isOrderRoute = (req: FastifyRequest): boolean =>
  req.routeOptions.url !== undefined && ORDER_ROUTES.has(`${req.method} ${req.routeOptions.url}`);

/**
 * Order refusals that are the account's state, not an attack: logged at debug (counted and kept
 * all the same). Not enough balance: a market maker's sell racing its own fills, a buy its spent
 * collateral.
 */
const BUSINESS_REFUSALS: ReadonlySet<string> = new Set(['INVALID_ORDER_NOT_ENOUGH_BALANCE']);

/** Requests whose error the error handler recorded already (the preSerialization hook skips them). */
const recorded = new WeakSet<FastifyRequest>();

/**
 * Record an error answer (called by the error handler): a 401, or a 403 outside /admin, as
 * `auth_failed`; any other 4xx but 429 on an order route as `order_refused`.
 */
export function recordHttpError(
  security: SecurityLog | undefined,
  req: FastifyRequest,
  status: number,
  code: string,
  message: string,
): void {
  if (security === undefined) return;
  recorded.add(req);
  const base = { route: routeOf(req), ip: req.ip, identity: claimedIdentity(req) };
  if (status === 401 || (status === 403 && !isAdmin(req)))
    security.record({ kind: 'auth_failed', ...base, reason: `${code}: ${message}` });
  else if (status >= 400 && status < 500 && status !== 429 && isOrderRoute(req))
    security.record(
      { kind: 'order_refused', ...base, reason: code, detail: message },
      BUSINESS_REFUSALS.has(code) ? 'debug' : 'warn',
    );
}

interface Refusal {
  reason: string;
  detail: string;
  /**
   * A cancel's `not_canceled` reason (already cancelled, matched or gone: a race) or a business
   * refusal of an order (not enough balance): logged at debug.
   */
  routine?: true;
}

const isRefusal = (x: unknown): x is { error: { code: string }; orderID?: unknown } =>
  typeof x === 'object' &&
  x !== null &&
  (x as { success?: unknown }).success === false &&
  typeof (x as { error?: { code?: unknown } }).error?.code === 'string';

/** The refusals an order route's answer carries (see the module comment). */
export function refusalsIn(payload: unknown): Refusal[] {
  const out: Refusal[] = [];
  const order = (x: unknown) => {
    if (isRefusal(x))
      out.push({
        reason: x.error.code,
        detail: typeof x.orderID === 'string' && x.orderID ? `order ${x.orderID}` : '',
        ...(BUSINESS_REFUSALS.has(x.error.code) ? { routine: true as const } : {}),
      });
  };
  if (Array.isArray(payload)) for (const x of payload) order(x);
  else order(payload);
  const notCanceled = (payload as { not_canceled?: unknown } | null)?.not_canceled;
  if (typeof notCanceled === 'object' && notCanceled !== null) {
    const byReason = new Map<string, number>();
    for (const r of Object.values(notCanceled)) {
      const reason = typeof r === 'string' ? r : 'not canceled';
      if (!byReason.has(reason) && byReason.size >= MAX_CANCEL_REASONS) continue;
      byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
    }
    for (const [reason, n] of byReason) out.push({ reason, detail: `${n} not canceled`, routine: true });
  }
  return out;
}

/** Record the refusals the order routes answer as data (a preSerialization hook on the whole app). */
export function installOrderRefusalLog(app: FastifyInstance, security: SecurityLog): void {
  app.addHook('preSerialization', async (req, _reply, payload) => {
    if (recorded.has(req) || !isOrderRoute(req)) return payload;
    const refusals = refusalsIn(payload);
    if (refusals.length === 0) return payload;
    const base = { route: routeOf(req), ip: req.ip, identity: claimedIdentity(req) };
    for (const r of refusals) {
      const e: SecurityEvent = { kind: 'order_refused', ...base, reason: r.reason };
      if (r.detail) e.detail = r.detail;
      security.record(e, r.routine ? 'debug' : 'warn');
    }
    return payload;
  });
}
