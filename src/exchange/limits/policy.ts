/**
 * The paper exchange's rate-limit policy (spec section 8), as data plus a router.
 *
 * Every request is counted against several rules at once, each an exact sliding window per
 * identity (see sliding-window.ts); a request passes only if every rule has room, and then it is
 * counted in all of them (all or nothing). Which rules apply (`rulesFor`):
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
 *  - content API (`content`): no rule beyond `general`.
 *
 * HEAD counts as GET. Route paths are relative to the API base; a query string and a trailing
 * slash are ignored; path parameters may be given as values or as `:name` patterns.
 *
 * Pure: no wall clock; every call takes `now` (unix ms).
 */
import { ConfigError } from '../../core/errors.ts';
import { SlidingWindowLimiter } from './sliding-window.ts';

/** One rate rule: at most `limit` requests per identity in any sliding `windowMs`. */
export interface RateRule {
  name: string;
  limit: number;
  windowMs: number;
}

/** The four APIs of the exchange. */
export type ApiName = 'clob' | 'gamma' | 'data' | 'content';

const S10 = 10_000;
const M10 = 600_000;

function rule(name: string, limit: number, windowMs: number): RateRule {
  return Object.freeze({ name, limit, windowMs });
}

/** Order-book API market-data and account endpoints limited individually (spec 8.2). */
const PER_ENDPOINT_GETS = ['/markets', '/book', '/midpoint', '/price', '/spread', '/balances', '/tick-size', '/neg-risk'] as const;

/** Trading endpoints with a burst and a sustained limit (spec 8.3): [method path, burst/10 s, sustained/10 min]. */
const TRADING: ReadonlyArray<readonly [string, number, number]> = [
  ['POST /order', 3500, 36000],
  ['DELETE /order', 3000, 30000],
  ['POST /orders', 1000, 15000],
  ['DELETE /orders', 1000, 15000],
  ['DELETE /cancel-all', 250, 6000],
  ['DELETE /cancel-market-orders', 1000, 1500],
];

/** The default rules of spec section 8 (the relayer's /submit is not part of this exchange). */
export const DEFAULT_RULES: readonly RateRule[] = Object.freeze([
  rule('general', 15000, S10),
  rule('health', 100, S10),
  rule('data-api', 50, S10),
  rule('gamma-api', 50, S10),
  rule('clob', 15000, S10),
  rule('clob-api-keys', 100, S10),
  rule('user-pnl', 200, S10),
  ...PER_ENDPOINT_GETS.map((p) => rule(`GET ${p}`, 100, S10)),
  ...TRADING.flatMap(([ep, burst, sustained]) => [rule(`${ep}:burst`, burst, S10), rule(`${ep}:sustained`, sustained, M10)]),
]);

/** Aliases of per-endpoint rules: the public service's name of the balances endpoint. */
const GET_ALIASES: Readonly<Record<string, string>> = { '/balance-allowance': '/balances' };

const HEALTH_PATHS = new Set(['/health', '/ok']);
const USER_PNL = /^\/users\/[^/]+\/pnl$/;

/** Overrides of a RatePolicy. */
export interface RatePolicyOverrides {
  /** Multiplies every limit (after `rules` overrides); the result is floored, at least 1. Default 1. */
  scale?: number;
  /** Per rule name (see DEFAULT_RULES), a replacement limit and/or window. Unknown names throw. */
  rules?: Partial<Record<string, { limit?: number; windowMs?: number }>>;
}

/** Success of `RatePolicy.acquire`: the rule with the fewest slots left, for X-RateLimit-* headers. */
export interface PolicyOk {
  ok: true;
  tightest: { rule: RateRule | undefined; limit: number; remaining: number; resetAt: number };
}
/** Refusal of `RatePolicy.acquire` (nothing was consumed): the rule that holds the request back longest. */
export interface PolicyRefused {
  ok: false;
  rule: RateRule;
  /** Unix ms at which every rule has room again (absent other requests). */
  retryAt: number;
  limit: number;
  /** Same as retryAt: when the blocking window frees enough slots. */
  resetAt: number;
}
export type PolicyResult = PolicyOk | PolicyRefused;

/** Rate-limit policy of the paper exchange: rule routing plus one sliding-window limiter per rule. */
export class RatePolicy {
  readonly #rules = new Map<string, RateRule>();
  readonly #limiters = new Map<RateRule, SlidingWindowLimiter>();
  /** Limiters of rules passed in from outside, keyed by name, limit and window. */
  readonly #foreign = new Map<string, SlidingWindowLimiter>();

  /** @throws ConfigError on an unknown rule name, a non-positive scale, limit or window. */
  constructor(overrides: RatePolicyOverrides = {}) {
    const scale = overrides.scale ?? 1;
    if (!(scale > 0) || !Number.isFinite(scale)) throw new ConfigError('limits.scale', `must be a positive number, got ${String(scale)}`);
    const known = new Set(DEFAULT_RULES.map((r) => r.name));
    for (const name of Object.keys(overrides.rules ?? {})) {
      if (!known.has(name)) throw new ConfigError(`limits.rules.${name}`, 'unknown rule name');
    }
    for (const base of DEFAULT_RULES) {
      const o = overrides.rules?.[base.name];
      const limit = o?.limit ?? base.limit;
      const windowMs = o?.windowMs ?? base.windowMs;
      if (!Number.isFinite(limit) || limit <= 0) throw new ConfigError(`limits.rules.${base.name}.limit`, 'must be positive');
      if (!Number.isFinite(windowMs) || windowMs <= 0) throw new ConfigError(`limits.rules.${base.name}.windowMs`, 'must be positive');
      const r = rule(base.name, Math.max(1, Math.floor(limit * scale)), windowMs);
      this.#rules.set(r.name, r);
      this.#limiters.set(r, new SlidingWindowLimiter(r));
    }
  }

  /** The effective rule of that name (after overrides and scale), or undefined. */
  rule(name: string): RateRule | undefined {
    return this.#rules.get(name);
  }

  /** All effective rules, in DEFAULT_RULES order. */
  rules(): RateRule[] {
    return [...this.#rules.values()];
  }

  #r(name: string): RateRule {
    const r = this.#rules.get(name);
    if (r === undefined) throw new ConfigError(`limits.rules.${name}`, 'missing rule'); // unreachable
    return r;
  }

  /**
   * The rules that apply to a request (see the module comment), `general` first. The returned
   * array is fresh; its rules are this policy's own objects.
   */
  rulesFor(api: ApiName, method: string, routePath: string): RateRule[] {
    const path = normalizePath(routePath);
    let m = method.toUpperCase();
    if (m === 'HEAD') m = 'GET';
    const out: RateRule[] = [this.#r('general')];
    if (HEALTH_PATHS.has(path) || (api === 'clob' && path === '/')) {
      out.push(this.#r('health'));
      return out;
    }
    switch (api) {
      case 'clob': {
        out.push(this.#r('clob'));
        if (path.startsWith('/auth/')) {
          out.push(this.#r('clob-api-keys'));
          break;
        }
        if (m === 'GET') {
          const p = GET_ALIASES[path] ?? path;
          const r = this.#rules.get(`GET ${p}`);
          if (r !== undefined) out.push(r);
          break;
        }
        const burst = this.#rules.get(`${m} ${path}:burst`);
        if (burst !== undefined) out.push(burst, this.#r(`${m} ${path}:sustained`));
        break;
      }
      case 'data':
        out.push(this.#r(USER_PNL.test(path) ? 'user-pnl' : 'data-api'));
        break;
      case 'gamma':
        out.push(this.#r('gamma-api'));
        break;
      case 'content':
        break;
    }
    return out;
  }

  /**
   * Count one request (or `cost` requests) of `identity` against all `rules` at `now`, all or
   * nothing: if any rule lacks room, nothing is consumed and the refusal names the rule whose
   * window frees last (`retryAt` is then when every rule has room, absent other requests).
   * Rules not created by this policy get a limiter per (name, limit, windowMs) on first use.
   */
  acquire(identity: string, rules: readonly RateRule[], now: number, cost = 1): PolicyResult {
    let blocked: RateRule | undefined;
    let retryAt = -Infinity;
    for (const r of rules) {
      const p = this.#limiter(r).peek(identity, now, cost);
      if (p.remaining < cost && p.retryAt > retryAt) {
        blocked = r;
        retryAt = p.retryAt;
      }
    }
    if (blocked !== undefined) {
      return { ok: false, rule: blocked, retryAt, limit: blocked.limit, resetAt: retryAt };
    }
    let tightest: RateRule | undefined;
    let tightRemaining = Infinity;
    let tightLimiter: SlidingWindowLimiter | undefined;
    for (const r of rules) {
      const lim = this.#limiter(r);
      const res = lim.tryAcquire(identity, now, cost);
      // Cannot fail: every rule was checked above and nothing else runs in between.
      const remaining = res.ok ? res.remaining : 0;
      if (remaining < tightRemaining || (remaining === tightRemaining && tightest !== undefined && r.limit < tightest.limit)) {
        tightest = r;
        tightRemaining = remaining;
        tightLimiter = lim;
      }
    }
    if (tightest === undefined || tightLimiter === undefined) {
      return { ok: true, tightest: { rule: undefined, limit: Infinity, remaining: Infinity, resetAt: now } };
    }
    return {
      ok: true,
      tightest: { rule: tightest, limit: tightest.limit, remaining: tightRemaining, resetAt: tightLimiter.peek(identity, now).resetAt },
    };
  }

  /** Drop identities with nothing left in any window. Returns how many (identity, rule) states were dropped. */
  sweep(now: number): number {
    let n = 0;
    for (const lim of this.#limiters.values()) n += lim.sweep(now);
    for (const lim of this.#foreign.values()) n += lim.sweep(now);
    return n;
  }

  #limiter(r: RateRule): SlidingWindowLimiter {
    const own = this.#limiters.get(r);
    if (own !== undefined) return own;
    const key = `${r.name}|${r.limit}|${r.windowMs}`;
    let lim = this.#foreign.get(key);
    if (lim === undefined) {
      lim = new SlidingWindowLimiter(r);
      this.#foreign.set(key, lim);
    }
    return lim;
  }
}

function normalizePath(routePath: string): string {
  let p = routePath;
  const q = p.indexOf('?');
  if (q >= 0) p = p.slice(0, q);
  if (!p.startsWith('/')) p = '/' + p;
  while (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  return p;
}
