/**
 * The paper exchange's operator routes (`/admin/...`), served only when an admin token is set;
 * requests carry it in `X-Admin-Token` (compared in constant time). Every request to them is
 * recorded in the security log as an `admin` event, accepted or refused, with its method and path
 * (never the token); they are rate-limited by client address (rule `admin`, 60 / 10 s, counted
 * before the token is checked: http/rate-limit-hooks.ts).
 *
 * `GET /admin/security` answers the security log's counts per kind and its recent events.
 * `POST /admin/allowances` and `POST /admin/clock` simulate what `mmkit doctor` checks on a real
 * venue: a wallet that never approved the exchange contracts, a venue clock that is off.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { parseAmount, tickPips, isTickSize } from '../../core/units.ts';
import type { PaperExchange } from '../exchange.ts';
import type { FaultController, FaultRule } from '../faults.ts';
import type { SecurityLog } from '../security-log.ts';
import type { SignerLimiter } from '../limits/signer-buckets.ts';
import { parseSignerTier, SIGNER_TIER_NAMES } from '../../core/signer-limits.ts';
import { parseWith } from './body.ts';
import { maxSpreadFromCents, type RewardConfig } from '../../core/rewards.ts';
import { clobRewards } from '../rewards/wire.ts';
import { notFoundHandler } from './error-handling.ts';
import { badRequest, forbidden, notFound } from './errors.ts';

const fundSchema = z.object({
  address: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
  collateral: z.string().optional(),
  tokens: z.record(z.string().regex(/^\d{1,78}$/), z.string()).optional(),
});

const faultSchema = z.object({
  id: z.string().max(50).optional(),
  route: z.string().max(200).optional(),
  status: z.union([z.literal(425), z.literal(429), z.literal(500), z.literal(503)]).optional(),
  latencyMs: z.number().int().min(0).max(600_000).optional(),
  probability: z.number().min(0).max(1).optional(),
  stream: z.enum(['market', 'user', 'rtds']).optional(),
  freeze: z.boolean().optional(),
  drop: z.boolean().optional(),
  dropAfterMs: z.number().int().min(0).optional(),
  untilMs: z.number().int().min(0).optional(),
});

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const allowanceSchema = z.object({
  address: z.string().regex(ADDRESS, '0x-prefixed 20-byte hex address'),
  allowance: z.string().regex(/^\d{1,78}$/, 'a non-negative integer (raw units), e.g. "0"'),
  spender: z.string().regex(ADDRESS, '0x-prefixed 20-byte hex address').optional(),
});
/** At most a day either way: enough for any skew a test wants. */
const clockSchema = z.object({ offset_ms: z.number().int().min(-86_400_000).max(86_400_000) });
const decimal = z.union([z.number().finite().nonnegative(), z.string().max(40)]);
const rewardsSchema = z.object({
  condition_id: z.string().max(100),
  rewards: z
    .object({
      max_spread: decimal,
      min_size: decimal,
      daily_rate: decimal,
      multiplier: z.number().int().min(1).max(1000).optional(),
    })
    .strict()
    .nullable(),
});
const tierSchema = z.object({
  address: z.string().regex(ADDRESS, '0x-prefixed 20-byte hex address'),
  tier: z.string().max(20),
});
const funderSchema = z.object({
  signer: z.string().regex(ADDRESS, '0x-prefixed 20-byte hex address'),
  funder: z.string().regex(ADDRESS, '0x-prefixed 20-byte hex address'),
});

/**
 * True when `given` (a header value) is the secret, compared in constant time (of the digests: the
 * time says nothing of the secret, not even its length).
 */
export function sameSecret(given: string | string[] | undefined, secret: string): boolean {
  if (typeof given !== 'string') return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(secret).digest();
  return timingSafeEqual(a, b);
}

export interface AdminRouteOptions {
  token: string;
  faults?: FaultController | undefined;
  security?: SecurityLog | undefined;
  /** The per-signer buckets, whose tiers `/admin/rate-limit-tier` sets. */
  signerLimits?: SignerLimiter | undefined;
}

/** Test and operator controls; served only when an admin token is configured. */
export function adminRoutes(ex: PaperExchange, opts: AdminRouteOptions) {
  const { token, faults, security, signerLimits } = opts;
  return async function plugin(app: FastifyInstance): Promise<void> {
    /** Whether the token was checked, and how: absent when the request was refused before (a 429). */
    const tokenOk = new WeakMap<FastifyRequest, boolean>();
    app.addHook('onRequest', async (req) => {
      const ok = sameSecret(req.headers['x-admin-token'], token);
      tokenOk.set(req, ok);
      if (!ok) throw forbidden('admin token required (X-Admin-Token)');
    });
    // every admin request, accepted or refused, once answered: method and path, never the token
    app.addHook('onResponse', async (req, reply) => {
      if (security === undefined) return;
      const ok = tokenOk.get(req);
      const status = reply.statusCode;
      security.record({
        kind: 'admin',
        route: `${req.method} ${req.url.split('?')[0] ?? ''}`,
        ip: req.ip,
        reason: ok === false ? 'refused: bad admin token' : status < 400 ? 'accepted' : `refused: status ${status}`,
      });
    });
    // an unknown /admin route is an admin request too: token checked, recorded, then 404
    app.setNotFoundHandler(notFoundHandler);
    /** The security log: counts per kind since start, and the recent events (oldest first). */
    app.get('/security', async () => ({
      counts: security?.counts() ?? {},
      recent: security?.recent() ?? [],
    }));
    const amount = (s: string) => {
      try {
        return parseAmount(s);
      } catch (e) {
        throw badRequest(`invalid amount ${JSON.stringify(s)}: ${(e as Error).message}`);
      }
    };
    /** Set balances: collateral and/or token balances (decimal strings), replacing what was there. */
    app.post('/balances', async (req) => {
      const b = parseWith(fundSchema, req.body, 'body');
      const addr = b.address.toLowerCase();
      // everything is checked before anything is set: a refused request changes no balance
      const collateral = b.collateral !== undefined ? amount(b.collateral) : undefined;
      const tokens = Object.entries(b.tokens ?? {}).map(([tok, v]) => {
        if (!ex.marketOfToken(tok)) throw notFound(`unknown token ${tok}`);
        return [tok, amount(v)] as const;
      });
      if (collateral !== undefined) ex.setCollateral(addr, collateral);
      for (const [tok, micro] of tokens) ex.setTokens(addr, tok, micro);
      return { ok: true };
    });
    /**
     * Register a funder (maker account) to a signer: its proxy orders (signatureType 1/2) may then
     * be funded by it, and it joins the signer's orders, trades and heartbeats. The signer's derived
     * proxy wallet and Safe need no registration (accounts/funders.ts).
     */
    app.post('/funders', async (req) => {
      const b = parseWith(funderSchema, req.body, 'body');
      const signer = b.signer.toLowerCase();
      const funder = b.funder.toLowerCase();
      if (signer === funder) throw badRequest('funder must differ from signer');
      return { ok: true, signer, funder, added: ex.registerFunder(signer, funder) };
    });
    /**
     * A signer's rate-limit tier (per-signer order and cancel buckets): set at once, its buckets keep
     * their tokens up to the new burst. `GET ?address=` reads it.
     */
    app.post('/rate-limit-tier', async (req) => {
      const b = parseWith(tierSchema, req.body, 'body');
      const tier = parseSignerTier(b.tier);
      if (tier === undefined)
        throw badRequest(`unknown tier ${JSON.stringify(b.tier)}: ${SIGNER_TIER_NAMES.join(', ')}`);
      if (signerLimits === undefined) throw notFound('per-signer limits are not configured');
      return {
        ok: true,
        address: b.address.toLowerCase(),
        tier: signerLimits.setTier(b.address, tier, ex.clock.now()),
      };
    });
    app.get('/rate-limit-tier', async (req) => {
      const a = (req.query as Record<string, unknown>)['address'];
      if (typeof a !== 'string' || !ADDRESS.test(a)) throw badRequest('address: 0x-prefixed 20-byte hex address');
      if (signerLimits === undefined) throw notFound('per-signer limits are not configured');
      return { address: a.toLowerCase(), tier: signerLimits.tierOf(a), mode: signerLimits.mode };
    });
    /**
     * An account's collateral allowance to one exchange contract (`spender`) or to all of them:
     * what GET /balance-allowance reports (e.g. "0": a wallet that never approved the exchange; its
     * BUY orders are refused). DELETE: every account back to unlimited.
     */
    app.post('/allowances', async (req) => {
      const b = parseWith(allowanceSchema, req.body, 'body');
      ex.allowances.set(b.address, b.spender, b.allowance);
      return {
        ok: true,
        address: b.address.toLowerCase(),
        ...(b.spender !== undefined ? { spender: b.spender } : {}),
        allowance: b.allowance,
      };
    });
    app.delete('/allowances', async () => {
      ex.allowances.clear();
      return { ok: true };
    });
    /**
     * The venue's clock offset (ms): GET /time and the L1/L2 timestamp check see the exchange's
     * clock plus it, as a client sees a venue whose clock is off. 0 puts it back.
     */
    app.post('/clock', async (req) => {
      const b = parseWith(clockSchema, req.body, 'body');
      ex.timeOffsetMs = b.offset_ms;
      return { ok: true, offset_ms: ex.timeOffsetMs };
    });
    app.get('/clock', async () => ({ offset_ms: ex.timeOffsetMs, server_time_ms: ex.serverNow() }));
    const market = (cid: string) => {
      const m = ex.market(cid);
      if (!m) throw notFound('market not found');
      return m;
    };
    app.post<{ Params: { cid: string } }>('/markets/:cid/tick-size', async (req) => {
      const b = parseWith(z.object({ tick_size: z.string() }), req.body, 'body');
      if (!isTickSize(b.tick_size)) throw badRequest('tick_size must be 0.1, 0.01, 0.001 or 0.0001');
      ex.setTickSize(market(req.params.cid).meta.conditionId, tickPips(b.tick_size));
      return { ok: true };
    });
    /** Fault injection at run time: list, replace (PUT), add (POST), remove (DELETE /:id) or clear (DELETE). */
    const needFaults = (): FaultController => {
      if (!faults) throw notFound('fault injection is not enabled on this exchange');
      return faults;
    };
    const asRule = (v: unknown): FaultRule => {
      const r = parseWith(faultSchema, v, 'fault rule');
      return r as FaultRule;
    };
    const guarded = <T>(fn: () => T): T => {
      try {
        return fn();
      } catch (e) {
        if (e instanceof RangeError) throw badRequest(e.message);
        throw e;
      }
    };
    app.get('/faults', async () => ({ rules: needFaults().list() }));
    app.put('/faults', async (req) => {
      const f = needFaults();
      const list = parseWith(z.array(z.unknown()).max(100), req.body, 'body').map(asRule);
      return { rules: guarded(() => f.set(list)) };
    });
    app.post('/faults', async (req) => {
      const f = needFaults();
      // (trial 17 F6: an array here read "expected object, received array")
      if (Array.isArray(req.body))
        throw badRequest(
          'POST /admin/faults adds one rule (an object); PUT /admin/faults replaces the list (an array)',
        );
      const rule = asRule(req.body);
      return { rule: guarded(() => f.add(rule)) };
    });
    app.delete('/faults', async () => {
      needFaults().clear();
      return { rules: [] };
    });
    app.delete<{ Params: { id: string } }>('/faults/:id', async (req) => {
      if (!needFaults().remove(req.params.id)) throw notFound('no such fault rule');
      return { ok: true };
    });
    /**
     * Set a market's liquidity reward config (`rewards: {max_spread: cents, min_size: shares,
     * daily_rate: USDC, multiplier?}`, numbers or decimal strings) or clear it (`rewards: null`).
     * Journaled; it applies from the next sample (clearing drops the market's running epoch).
     */
    app.post('/rewards', async (req) => {
      const b = parseWith(rewardsSchema, req.body, 'body');
      const m = market(b.condition_id);
      let cfg: RewardConfig | null = null;
      if (b.rewards !== null) {
        const maxSpread = maxSpreadFromCents(Number(b.rewards.max_spread));
        if (maxSpread === null || maxSpread > 5000)
          throw badRequest('rewards.max_spread: cents, a positive multiple of 0.01 up to 50');
        const minSize = amount(String(b.rewards.min_size));
        const dailyRate = amount(String(b.rewards.daily_rate));
        if (dailyRate <= 0) throw badRequest('rewards.daily_rate must be positive (clear with rewards: null)');
        cfg = {
          maxSpread,
          minSize,
          dailyRate,
          ...(b.rewards.multiplier !== undefined ? { multiplier: b.rewards.multiplier } : {}),
        };
      }
      ex.setRewardConfig(m.meta.conditionId, cfg);
      return {
        ok: true,
        condition_id: m.meta.conditionId,
        rewards: clobRewards(ex.rewards.configOf(m.meta.conditionId), ex.rewardAsset),
      };
    });
    app.post<{ Params: { cid: string } }>('/markets/:cid/close', async (req) => {
      ex.closeMarket(market(req.params.cid).meta.conditionId);
      return { ok: true };
    });
    app.post<{ Params: { cid: string } }>('/markets/:cid/resolve', async (req) => {
      const m = market(req.params.cid);
      const b = parseWith(z.object({ winning_token: z.string() }), req.body, 'body');
      if (!m.meta.tokens.includes(b.winning_token)) throw badRequest('winning_token is not a token of this market');
      ex.resolveMarket(m.meta.conditionId, b.winning_token);
      return { ok: true };
    });
  };
}
