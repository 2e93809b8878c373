/**
 * The rate limits of spec section 8 as data, plus the pure route → rules function. One source for
 * both sides of the wire: the paper exchange enforces these rules (src/exchange/limits/policy.ts)
 * and the bot's request budgets stay inside them (src/api/http/budgets.ts).
 *
 * Which rules apply to a request (`ruleNamesFor`), every one of them at once:
 *
 *  - always `general` (15000 / 10 s);
 *  - health-check endpoints of any API (`/health`, `/ok`, and the CLOB root `/`): `health` only,
 *    in place of the API's group rule;
 *  - order-book API (`clob`): `clob` (15000 / 10 s), plus
 *      - `clob-api-keys` (100 / 10 s) for every `/auth/...` path (api-key create/get/delete, derive);
 *      - `GET /markets`, `GET /book`, `GET /midpoint`, `GET /price`, `GET /spread`, `GET /balances`
 *        (also serving `GET /balance-allowance`), `GET /tick-size`, `GET /neg-risk`: 100 / 10 s each;
 *      - the trading endpoints, a burst (10 s) and a sustained (10 min) rule each, both applying:
 *        `POST /order` 3500 & 36000, `DELETE /order` 3000 & 30000, `POST /orders` 1000 & 15000,
 *        `DELETE /orders` 1000 & 15000, `DELETE /cancel-all` 250 & 6000,
 *        `DELETE /cancel-market-orders` 1000 & 1500; named `<METHOD> <path>:burst|:sustained`;
 *  - data API (`data`): `data-api` (50 / 10 s), except `/users/{address}/pnl`, which is the user
 *    profit-and-loss API: `user-pnl` (200 / 10 s) in place of `data-api`;
 *  - market-metadata API (`gamma`): `gamma-api` (50 / 10 s);
 *  - content API (`content`): no rule beyond `general`;
 *  - relayer (`relayer`): `POST /submit` also `relayer-submit` (25 / 1 min, spec 8.1); its other
 *    routes only `general`;
 *  - the paper exchange's operator routes (`admin`, `/admin/...`; an mmkit extension the service
 *    does not have): `admin` (60 / 10 s), counted by client address before the admin token is
 *    checked, so failed token attempts count too.
 *
 * A request counts once in each rule, whatever it carries (a batch of 15 orders is one request).
 * HEAD counts as GET. Paths are relative to the API's base URL; a query string and a trailing slash
 * are ignored; path parameters may be given as values or as `:name` patterns.
 *
 * Pure: no I/O, no clock.
 */
import { ConfigError } from './errors.ts';

/** One rate rule: at most `limit` requests in any sliding `windowMs`. */
export interface RateRule {
  readonly name: string;
  readonly limit: number;
  readonly windowMs: number;
}

/**
 * The HTTP APIs of the service (the relayer is a separate service at the venue, rate-limited apart),
 * and the paper exchange's operator routes (`admin`).
 */
export type RateApi = 'clob' | 'gamma' | 'data' | 'content' | 'relayer' | 'admin';

/** Overrides of the default rules. */
export interface RateRuleOverrides {
  /** Multiplies every limit (after `rules` overrides); the result is floored, at least 1. Default 1. */
  scale?: number;
  /** Per rule name (see DEFAULT_RATE_RULES), a replacement limit and/or window. Unknown names throw. */
  rules?: Partial<Record<string, { limit?: number; windowMs?: number }>>;
}

const S10 = 10_000;
const M1 = 60_000;
const M10 = 600_000;

/**
 * Most orders in one `POST /orders` request: the venue refuses a larger batch (the paper exchange
 * with BATCH_TOO_LARGE), so every client, venue adapter and executor splits at this size.
 */
export const MAX_BATCH_ORDERS = 15;

/** Most order ids in one `DELETE /orders` request: larger cancels go in several requests. */
export const MAX_CANCEL_IDS = 3000;

function rule(name: string, limit: number, windowMs: number): RateRule {
  return Object.freeze({ name, limit, windowMs });
}

/** Order-book API market-data and account endpoints limited individually (spec 8.2). */
export const PER_ENDPOINT_GETS: readonly string[] = Object.freeze([
  '/markets',
  '/book',
  '/midpoint',
  '/price',
  '/spread',
  '/balances',
  '/tick-size',
  '/neg-risk',
]);

/** Trading endpoints with a burst and a sustained limit (spec 8.3): [method path, burst/10 s, sustained/10 min]. */
export const TRADING_LIMITS: ReadonlyArray<readonly [string, number, number]> = Object.freeze([
  ['POST /order', 3500, 36000],
  ['DELETE /order', 3000, 30000],
  ['POST /orders', 1000, 15000],
  ['DELETE /orders', 1000, 15000],
  ['DELETE /cancel-all', 250, 6000],
  ['DELETE /cancel-market-orders', 1000, 1500],
] as const);

/** The default rules of spec section 8. */
export const DEFAULT_RATE_RULES: readonly RateRule[] = Object.freeze([
  rule('general', 15000, S10),
  rule('health', 100, S10),
  rule('data-api', 50, S10),
  rule('gamma-api', 50, S10),
  rule('clob', 15000, S10),
  rule('clob-api-keys', 100, S10),
  rule('user-pnl', 200, S10),
  rule('relayer-submit', 25, M1),
  // not in the spec: the paper exchange's /admin routes, per client address
  rule('admin', 60, S10),
  ...PER_ENDPOINT_GETS.map((p) => rule(`GET ${p}`, 100, S10)),
  ...TRADING_LIMITS.flatMap(([ep, burst, sustained]) => [
    rule(`${ep}:burst`, burst, S10),
    rule(`${ep}:sustained`, sustained, M10),
  ]),
]);

const DEFAULT_NAMES: ReadonlySet<string> = new Set(DEFAULT_RATE_RULES.map((r) => r.name));

/** Aliases of per-endpoint rules: the public service's name of the balances endpoint. */
const GET_ALIASES: Readonly<Record<string, string>> = { '/balance-allowance': '/balances' };
const HEALTH_PATHS: ReadonlySet<string> = new Set(['/health', '/ok']);
const USER_PNL = /^\/users\/[^/]+\/pnl$/;

/** A route path without its query string and trailing slash, with a leading slash. */
export function normalizeRoutePath(routePath: string): string {
  let p = routePath;
  const q = p.indexOf('?');
  if (q >= 0) p = p.slice(0, q);
  if (!p.startsWith('/')) p = '/' + p;
  while (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  return p;
}

/**
 * The names of the rules that apply to a request (see the module comment), `general` first.
 * Pure; names refer to DEFAULT_RATE_RULES.
 */
export function ruleNamesFor(api: RateApi, method: string, routePath: string): string[] {
  const path = normalizeRoutePath(routePath);
  let m = method.toUpperCase();
  if (m === 'HEAD') m = 'GET';
  const out = ['general'];
  if (api !== 'admin' && (HEALTH_PATHS.has(path) || (api === 'clob' && path === '/'))) {
    out.push('health');
    return out;
  }
  switch (api) {
    case 'clob': {
      out.push('clob');
      if (path.startsWith('/auth/')) {
        out.push('clob-api-keys');
        break;
      }
      if (m === 'GET') {
        const name = `GET ${GET_ALIASES[path] ?? path}`;
        if (DEFAULT_NAMES.has(name)) out.push(name);
        break;
      }
      const burst = `${m} ${path}:burst`;
      if (DEFAULT_NAMES.has(burst)) out.push(burst, `${m} ${path}:sustained`);
      break;
    }
    case 'data':
      out.push(USER_PNL.test(path) ? 'user-pnl' : 'data-api');
      break;
    case 'gamma':
      out.push('gamma-api');
      break;
    case 'content':
      break;
    case 'relayer':
      if (m === 'POST' && path === '/submit') out.push('relayer-submit');
      break;
    case 'admin':
      out.push('admin');
      break;
  }
  return out;
}

/**
 * The effective rules after overrides and scale, in DEFAULT_RATE_RULES order, keyed by name.
 * `keyPrefix` names the configuration section in errors (e.g. "limits" or "budgets").
 * @throws ConfigError on an unknown rule name, a non-positive scale, limit or window.
 */
export function resolveRateRules(overrides: RateRuleOverrides = {}, keyPrefix = 'limits'): Map<string, RateRule> {
  const scale = overrides.scale ?? 1;
  if (!(scale > 0) || !Number.isFinite(scale))
    throw new ConfigError(`${keyPrefix}.scale`, `must be a positive number, got ${String(scale)}`);
  for (const name of Object.keys(overrides.rules ?? {})) {
    if (!DEFAULT_NAMES.has(name)) throw new ConfigError(`${keyPrefix}.rules.${name}`, 'unknown rule name');
  }
  const out = new Map<string, RateRule>();
  for (const base of DEFAULT_RATE_RULES) {
    const o = overrides.rules?.[base.name];
    const limit = o?.limit ?? base.limit;
    const windowMs = o?.windowMs ?? base.windowMs;
    if (!Number.isFinite(limit) || limit <= 0)
      throw new ConfigError(`${keyPrefix}.rules.${base.name}.limit`, 'must be positive');
    if (!Number.isFinite(windowMs) || windowMs <= 0)
      throw new ConfigError(`${keyPrefix}.rules.${base.name}.windowMs`, 'must be positive');
    out.set(base.name, rule(base.name, Math.max(1, Math.floor(limit * scale)), windowMs));
  }
  return out;
}
