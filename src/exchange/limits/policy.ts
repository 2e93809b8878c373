/**
 * The paper exchange's rate-limit policy (spec section 8), as data plus a router.
 *
 * Every request is counted against several rules at once, each an exact sliding window per
 * identity (see sliding-window.ts); a request passes only if every rule has room, and then it is
 * counted in all of them (all or nothing). The rule table and the route → rules mapping (which
 * rules apply to which request: `general` always, the API group, the per-endpoint GET rules, burst
 * and sustained for the trading endpoints) live in src/core/rate-limits.ts, shared with the bot's
 * request budgets so both sides of the wire use one source.
 *
 * Pure: no wall clock; every call takes `now` (unix ms).
 */
import { ConfigError } from '../../core/errors.ts';
import {
  DEFAULT_RATE_RULES,
  resolveRateRules,
  ruleNamesFor,
  type RateApi,
  type RateRule,
  type RateRuleOverrides,
} from '../../core/rate-limits.ts';
import { SlidingWindowLimiter } from './sliding-window.ts';

/** One rate rule: at most `limit` requests per identity in any sliding `windowMs` (src/core/rate-limits.ts). */
export type { RateRule };

/** The four APIs of the exchange. */
export type ApiName = RateApi;

/** The default rules of spec section 8 (the table lives in src/core/rate-limits.ts, shared with the client). */
export const DEFAULT_RULES: readonly RateRule[] = DEFAULT_RATE_RULES;

/** Overrides of a RatePolicy. */
export type RatePolicyOverrides = RateRuleOverrides;

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

/** Bounds of a RatePolicy's tables. */
export interface RatePolicyBounds {
  /**
   * Most identities one rule's table holds. A request of a new identity when the table is full
   * first sweeps the idle ones (at most once a second); if the table is still full it is refused
   * (nothing is consumed) with a retry one second later. Default 100,000.
   */
  maxIdentities?: number;
}

/** Default of RatePolicyBounds.maxIdentities. */
export const DEFAULT_MAX_IDENTITIES = 100_000;

/** Rate-limit policy of the paper exchange: rule routing plus one sliding-window limiter per rule. */
export class RatePolicy {
  readonly #rules = new Map<string, RateRule>();
  readonly #limiters = new Map<RateRule, SlidingWindowLimiter>();
  /** Limiters of rules passed in from outside, keyed by name, limit and window. */
  readonly #foreign = new Map<string, SlidingWindowLimiter>();

  readonly #maxIdentities: number;
  #lastFullSweep = -Infinity;

  /** @throws ConfigError on an unknown rule name, a non-positive scale, limit or window, or a bad bound. */
  constructor(overrides: RatePolicyOverrides = {}, bounds: RatePolicyBounds = {}) {
    const max = bounds.maxIdentities ?? DEFAULT_MAX_IDENTITIES;
    if (!Number.isSafeInteger(max) || max < 1)
      throw new ConfigError('limits.maxIdentities', 'must be a positive integer');
    this.#maxIdentities = max;
    for (const r of resolveRateRules(overrides, 'limits').values()) {
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
    return ruleNamesFor(api, method, routePath).map((n) => this.#r(n));
  }

  /**
   * Count one request (or `cost` requests) of `identity` against all `rules` at `now`, all or
   * nothing: if any rule lacks room, nothing is consumed and the refusal names the rule whose
   * window frees last (`retryAt` is then when every rule has room, absent other requests).
   * Rules not created by this policy get a limiter per (name, limit, windowMs) on first use.
   */
  acquire(identity: string, rules: readonly RateRule[], now: number, cost = 1): PolicyResult {
    const full = this.#fullFor(identity, rules, now);
    if (full !== undefined) {
      const retryAt = now + 1000;
      return { ok: false, rule: full, retryAt, limit: full.limit, resetAt: retryAt };
    }
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
      if (
        remaining < tightRemaining ||
        (remaining === tightRemaining && tightest !== undefined && r.limit < tightest.limit)
      ) {
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
      tightest: {
        rule: tightest,
        limit: tightest.limit,
        remaining: tightRemaining,
        resetAt: tightLimiter.peek(identity, now).resetAt,
      },
    };
  }

  /** Drop identities with nothing left in any window. Returns how many (identity, rule) states were dropped. */
  sweep(now: number): number {
    let n = 0;
    for (const lim of this.#limiters.values()) n += lim.sweep(now);
    for (const lim of this.#foreign.values()) n += lim.sweep(now);
    return n;
  }

  /** (identity, rule) states held: the size of the tables (idle ones count until swept). */
  size(): number {
    let n = 0;
    for (const lim of this.#limiters.values()) n += lim.keyCount;
    for (const lim of this.#foreign.values()) n += lim.keyCount;
    return n;
  }

  /** The first rule whose table is full and lacks `identity` (after a sweep, at most once a second). */
  #fullFor(identity: string, rules: readonly RateRule[], now: number): RateRule | undefined {
    const full = () =>
      rules.find((r) => {
        const lim = this.#limiter(r);
        return lim.keyCount >= this.#maxIdentities && !lim.has(identity);
      });
    if (full() === undefined) return undefined;
    if (now - this.#lastFullSweep >= 1000) {
      this.#lastFullSweep = now;
      this.sweep(now);
    }
    return full();
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
