/**
 * The per-signer limits on HTTP (limits/signer-buckets.ts; the venue's "CLOB Trading Rate Limits"):
 * the order and cancel routes call `admit` once the request is authenticated (the signer is the
 * address of its API key) and its cost is known, before anything is processed, and `settle` after a
 * cancel-all / cancel-market-orders with the cancelled count.
 *
 * Headers of every evaluated request: `Poly-RateLimit-Tier`, `Poly-RateLimit-Remaining` (whole
 * tokens after it; negative after a post-charge on the tiers that allow it), `Poly-RateLimit-Reset`
 * (unix seconds: now when admitted; when the bucket will hold enough, on a 429); on a 429 whose cost
 * fits the burst `Retry-After` (seconds, rounded up); in warn mode `Poly-RateLimit-Warning: true` on
 * a request enforcement would refuse. A refusal answers 429 in the error envelope, code
 * `RATE_LIMITED`, or `RATE_LIMIT_BURST_EXCEEDED` (no Retry-After: split the batch), and is recorded
 * in the security log as `rate_limited`.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  SIGNER_HEADERS,
  TIGHTEST_SIGNER_TIER,
  type SignerRequest,
  type SignerTierName,
} from '../../core/signer-limits.ts';
import type { PaperExchange } from '../exchange.ts';
import type { SignerLimiter } from '../limits/signer-buckets.ts';
import type { SecurityLog } from '../security-log.ts';
import { HttpError } from './errors.ts';
import { routeOf } from './security-hooks.ts';

/** What the order and cancel routes call (a no-op when the limits are off). */
export interface SignerGate {
  /** @throws HttpError 429 when the request is refused (nothing may be processed). */
  admit(req: FastifyRequest, reply: FastifyReply, address: string, r: SignerRequest): void;
  /** Charge `extra` more tokens of the bucket `r` used (the cancelled orders), and update Remaining. */
  settle(reply: FastifyReply, address: string, r: SignerRequest, extra: number): void;
  /** The tier of a signer address (`GET /v1/user/rate-limit-tier`). */
  tierOf(address: string): SignerTierName;
}

export const NO_SIGNER_GATE: SignerGate = {
  admit: () => undefined,
  settle: () => undefined,
  tierOf: () => TIGHTEST_SIGNER_TIER,
};

const secs = (ms: number) => String(Math.ceil(ms / 1000));

/** The gate of a limiter (no-op when it is absent or off). */
export function signerGate(
  ex: PaperExchange,
  limiter: SignerLimiter | undefined,
  security?: SecurityLog | undefined,
): SignerGate {
  if (limiter === undefined) return NO_SIGNER_GATE;
  if (limiter.mode === 'off') return { ...NO_SIGNER_GATE, tierOf: (a) => limiter.tierOf(a) };
  return {
    tierOf: (a) => limiter.tierOf(a),
    admit(req, reply, address, r) {
      const now = ex.clock.now();
      const d = limiter.evaluate(address, r, now);
      const headers: Record<string, string> = {
        [SIGNER_HEADERS.tier]: d.tier,
        [SIGNER_HEADERS.remaining]: String(d.remaining),
        [SIGNER_HEADERS.reset]: secs(d.resetAt),
      };
      if (d.warning) headers[SIGNER_HEADERS.warning] = 'true';
      if (d.ok) {
        for (const [k, v] of Object.entries(headers)) reply.header(k, v);
        return;
      }
      security?.record({
        kind: 'rate_limited',
        route: routeOf(req),
        ip: req.ip,
        identity: address.toLowerCase(),
        reason: d.overBurst ? 'RATE_LIMIT_BURST_EXCEEDED' : 'RATE_LIMITED',
        detail: `signer ${d.bucket} bucket (${d.tier})`,
      });
      if (d.overBurst)
        throw new HttpError(
          429,
          'RATE_LIMIT_BURST_EXCEEDED',
          `this request costs ${d.cost} ${d.bucket} tokens but the ${d.tier} tier's ${d.bucket} bucket holds at ` +
            `most ${d.burst}: it can never be admitted; split it into requests of at most ${d.burst}`,
          { headers },
        );
      headers['Retry-After'] = String(Math.max(1, Math.ceil((d.retryAfterMs ?? 0) / 1000)));
      throw new HttpError(
        429,
        'RATE_LIMITED',
        `Too Many Requests: the signer's ${d.bucket} bucket (${d.tier}: ${d.burst} tokens) holds ${d.remaining}, ` +
          `this request costs ${d.cost}; nothing was processed`,
        { headers },
      );
    },
    settle(reply, address, r, extra) {
      const now = ex.clock.now();
      reply.header(SIGNER_HEADERS.remaining, String(limiter.settle(address, r.bucket, extra, now)));
    },
  };
}
