/**
 * The paper exchange's rate limits on HTTP (spec section 8; the rule table and the route → rules
 * mapping are in src/core/rate-limits.ts): counted before any handler runs; over a limit a request
 * is held briefly, then answered 429 with the X-RateLimit-* headers and Retry-After, and the 429 is
 * recorded in the security log (rule, client address, identity).
 *
 * Who a request counts as:
 *  - a request that names no key, or a key the exchange does not know, by client address at once;
 *  - a request naming a known key (full or read-only) once its credential is checked
 *    (preValidation, after the body the L2 signature covers): under the key if it verifies, L2 or
 *    Bearer alike (in the spec's Bearer form the key itself is the credential; a read-only key is
 *    one too, for its own windows), under its account for the relayer (a full key; every key of an
 *    address shares its 25 a minute), else under the client address. A claimed key id alone never
 *    moves a request into a key's windows;
 *  - /admin routes always by client address, before the admin token is checked: a failed token
 *    attempt counts like any other.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PaperExchange } from '../exchange.ts';
import { RatePolicy, type ApiName, type RateRule } from '../limits/policy.ts';
import type { SecurityLog } from '../security-log.ts';
import { claimedApiKey, knownKey, verifiedIdentity } from './auth.ts';
import { HttpError } from './errors.ts';
import { identityTag, routeOf } from './security-hooks.ts';

/** Default interval of the rate limiter's sweep of idle identities, ms. */
const SWEEP_MS = 30_000;

export interface RateLimitHookOptions {
  scale: number;
  queueMs: number;
  rules?: Record<string, { limit: number; windowMs: number }> | undefined;
  maxIdentities?: number | undefined;
  sweepMs?: number | undefined;
  authMaxSkewSec: number;
  security?: SecurityLog | undefined;
  /** The API (and the path relative to its base) a request path belongs to, if any. */
  apiOf: (path: string) => { api: Exclude<ApiName, 'admin'>; rel: string } | undefined;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Where a request path is counted: an API, or the admin routes. */
function scopeOf(path: string, apiOf: RateLimitHookOptions['apiOf']): { api: ApiName; rel: string } | undefined {
  if (path === '/admin' || path.startsWith('/admin/')) return { api: 'admin', rel: path.slice('/admin'.length) || '/' };
  return apiOf(path);
}

/** Install the limiter's hooks on `app`; returns the policy (its tables' size for tests). */
export function installRateLimits(app: FastifyInstance, ex: PaperExchange, opts: RateLimitHookOptions): RatePolicy {
  const policy = new RatePolicy(
    { scale: opts.scale, ...(opts.rules ? { rules: opts.rules } : {}) },
    opts.maxIdentities !== undefined ? { maxIdentities: opts.maxIdentities } : {},
  );
  // idle identities leave the tables on the exchange's clock
  const sweeper = ex.clock.setInterval(() => policy.sweep(ex.clock.now()), opts.sweepMs ?? SWEEP_MS);
  app.addHook('onClose', async () => ex.clock.clearInterval(sweeper));

  /** Requests that name a known key wait for the body (the L2 signature covers it) to be counted. */
  const pending = new WeakMap<FastifyRequest, { api: ApiName; rules: RateRule[] }>();
  const clientId = (req: FastifyRequest) => `ip:${req.socket.remoteAddress ?? 'unknown'}`;

  const limit = async (req: FastifyRequest, reply: FastifyReply, identity: string, rules: RateRule[]) => {
    const deadline = ex.clock.now() + opts.queueMs;
    for (;;) {
      const now = ex.clock.now();
      const r = policy.acquire(identity, rules, now);
      if (r.ok) {
        reply.header('X-RateLimit-Limit', String(r.tightest.limit));
        reply.header('X-RateLimit-Remaining', String(r.tightest.remaining));
        reply.header('X-RateLimit-Reset', String(Math.ceil(r.tightest.resetAt / 1000)));
        return;
      }
      // the spec's edge delays an over-limit request before refusing it: hold it until a slot
      // frees or the queue time is spent, whichever comes first
      if (now < deadline) {
        await sleep(Math.max(1, Math.min(r.retryAt, deadline) - now));
        continue;
      }
      const retryAfter = Math.max(1, Math.ceil((r.retryAt - now) / 1000));
      opts.security?.record({
        kind: 'rate_limited',
        route: routeOf(req),
        ip: req.ip,
        identity: identityTag(identity),
        reason: 'RATE_LIMITED',
        detail: r.rule.name,
      });
      throw new HttpError(
        429,
        'RATE_LIMITED',
        `Too Many Requests: ${r.rule.name} allows ${r.limit} requests per ${r.rule.windowMs / 1000} s`,
        {
          headers: {
            'X-RateLimit-Limit': String(r.limit),
            'X-RateLimit-Remaining': '0',
            'X-RateLimit-Reset': String(Math.ceil(r.resetAt / 1000)),
            'Retry-After': String(retryAfter),
          },
        },
      );
    }
  };

  app.addHook('onRequest', async (req, reply) => {
    const path = req.url.split('?')[0] ?? '/';
    // a routed request always counts: its raw path, else the route it was given (review 49b F1)
    const s =
      scopeOf(path, opts.apiOf) ?? (req.routeOptions.url ? scopeOf(req.routeOptions.url, opts.apiOf) : undefined);
    if (s === undefined) return;
    const route = req.routeOptions.url ? (scopeOf(req.routeOptions.url, opts.apiOf)?.rel ?? s.rel) : s.rel;
    const rules = policy.rulesFor(s.api, req.method, route);
    const claimed = s.api === 'admin' ? undefined : claimedApiKey(req);
    if (claimed !== undefined && knownKey(ex, claimed)) {
      pending.set(req, { api: s.api, rules });
      return;
    }
    await limit(req, reply, clientId(req), rules);
  });
  app.addHook('preValidation', async (req, reply) => {
    const p = pending.get(req);
    if (p === undefined) return;
    pending.delete(req);
    // not verified: the handler answers 401/403; the request counts against the client address
    const identity =
      verifiedIdentity(ex, req, { maxSkewSec: opts.authMaxSkewSec, perAccount: p.api === 'relayer' }) ?? clientId(req);
    await limit(req, reply, identity, p.rules);
  });
  // a request refused before preValidation (a malformed body) still counts, by client address
  app.addHook('onResponse', async (req) => {
    const p = pending.get(req);
    if (p === undefined) return;
    pending.delete(req);
    policy.acquire(clientId(req), p.rules, ex.clock.now());
  });
  return policy;
}
