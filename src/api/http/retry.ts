/**
 * The retry policy of the HTTP transport, pure: given the error of an attempt, whether to try again
 * and after how long. Time and randomness are inputs, so every rule is unit-testable.
 *
 *  - 429 (RateLimitError): wait `retryAfterMs` (the later of Retry-After and X-RateLimit-Reset), then
 *    an exponential backoff with full jitter on top. Always retried: a refused request did nothing.
 *    (The transport also pauses the endpoint's budget for everyone: see budgets.ts, no storm.)
 *  - 425 / 503 (NetworkError 'SERVICE_UNAVAILABLE'): the service is not ready and did nothing: wait
 *    its Retry-After (or a backoff) plus jitter, and retry, idempotent or not.
 *  - Timeouts, dropped connections, other 5xx (NetworkError 'NETWORK' / TimeoutError): the request
 *    may have landed. Retried ONLY when the request is idempotent (sending the same bytes twice
 *    cannot act twice: GETs, cancels, a POST of already-signed orders that the venue refuses as
 *    duplicates), after a backoff.
 *  - A fleet member's shared budgets unavailable (NetworkError 'FLEET_BUDGET_UNAVAILABLE': its Redis
 *    does not answer; nothing was sent): not retried. The member fails closed until Redis is back,
 *    and the pollers try again on their own period; retrying here would only fill the log.
 *  - Anything else (auth, validation, not found, venue refusal): never retried.
 *
 * Backoff: full jitter, `random() * min(capMs, baseMs * 2^(attempt-1))` (AWS architecture blog,
 * "Exponential Backoff And Jitter"): spreads synchronized clients apart, bounded by capMs.
 */
import { MmkitError, NetworkError, RateLimitError } from '../../core/errors.ts';

/** Retry configuration. */
export interface RetryConfig {
  /** Attempts in all, the first included (default 5; 1 disables retries). */
  maxAttempts?: number;
  /** Backoff base, ms (default 250). */
  baseMs?: number;
  /** Backoff cap, ms (default 30 s); also caps a server-requested wait. */
  capMs?: number;
  /** Random source in [0, 1) (default Math.random). */
  random?: () => number;
}

/** What to do after a failed attempt. */
export interface RetryDecision {
  retry: boolean;
  /** Wait before the next attempt, ms (0 when not retrying). */
  delayMs: number;
  /** Why (for logs and tests). */
  reason:
    | 'rate-limited'
    | 'unavailable'
    | 'network'
    | 'not-idempotent'
    | 'fatal'
    | 'attempts-exhausted'
    | 'fleet-offline';
}

/** A retry policy bound to its configuration. */
export interface RetryPolicy {
  readonly maxAttempts: number;
  /**
   * @param err the error of the attempt that just failed
   * @param attempt how many attempts were made so far (1 after the first)
   * @param idempotent whether sending the same bytes again is safe after an ambiguous failure
   */
  decide(err: unknown, attempt: number, idempotent: boolean): RetryDecision;
  /** The full-jitter backoff before attempt `attempt + 1`. */
  backoff(attempt: number): number;
}

/**
 * Build a retry policy.
 * @throws RangeError on a non-positive maxAttempts, a negative base or a cap below the base.
 */
export function createRetryPolicy(cfg: RetryConfig = {}): RetryPolicy {
  const maxAttempts = cfg.maxAttempts ?? 5;
  const baseMs = cfg.baseMs ?? 250;
  const capMs = cfg.capMs ?? 30_000;
  const random = cfg.random ?? Math.random;
  if (!Number.isSafeInteger(maxAttempts) || maxAttempts < 1)
    throw new RangeError(`retry.maxAttempts must be a positive integer, got ${maxAttempts}`);
  if (!(baseMs >= 0) || !(capMs >= baseMs)) throw new RangeError('retry: need 0 <= baseMs <= capMs');
  const backoff = (attempt: number): number => {
    const exp = Math.min(capMs, baseMs * 2 ** Math.max(0, Math.min(attempt - 1, 30)));
    const r = random();
    return Math.floor(Math.min(Math.max(r, 0), 1) * exp);
  };
  return {
    maxAttempts,
    backoff,
    decide(err, attempt, idempotent) {
      if (!(err instanceof MmkitError) || !err.retryable) return { retry: false, delayMs: 0, reason: 'fatal' };
      if (err.code === 'FLEET_BUDGET_UNAVAILABLE') return { retry: false, delayMs: 0, reason: 'fleet-offline' };
      if (attempt >= maxAttempts) return { retry: false, delayMs: 0, reason: 'attempts-exhausted' };
      if (err instanceof RateLimitError) {
        return {
          retry: true,
          delayMs: Math.min(capMs, Math.max(0, err.retryAfterMs)) + backoff(attempt),
          reason: 'rate-limited',
        };
      }
      if (err instanceof NetworkError && err.code === 'SERVICE_UNAVAILABLE') {
        const ra = err.details?.['retryAfterMs'];
        const wait = typeof ra === 'number' && ra >= 0 ? Math.min(capMs, ra) + backoff(attempt) : backoff(attempt + 1);
        return { retry: true, delayMs: wait, reason: 'unavailable' };
      }
      if (!idempotent) return { retry: false, delayMs: 0, reason: 'not-idempotent' };
      return { retry: true, delayMs: backoff(attempt + 1), reason: 'network' };
    },
  };
}

function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * How long a 429 (or 425/503) asks the client to wait, ms from `nowMs`: the later of Retry-After
 * (seconds, or an HTTP date) and X-RateLimit-Reset (unix seconds as the paper exchange and the spec
 * send it; unix ms when it is that large; seconds from now when it is small). Undefined when neither
 * header is usable.
 */
export function retryAfterFromHeaders(
  headers: Record<string, string | string[] | undefined>,
  nowMs: number,
): number | undefined {
  let wait: number | undefined;
  const ra = headerValue(headers, 'retry-after')?.trim();
  if (ra !== undefined && ra !== '') {
    if (/^\d+(\.\d+)?$/.test(ra)) wait = Number(ra) * 1000;
    else {
      const t = Date.parse(ra);
      if (Number.isFinite(t)) wait = Math.max(0, t - nowMs);
    }
  }
  const reset = headerValue(headers, 'x-ratelimit-reset')?.trim();
  if (reset !== undefined && /^\d+(\.\d+)?$/.test(reset)) {
    const n = Number(reset);
    let at: number;
    if (n >= 1e12)
      at = n; // unix ms
    else if (n >= 1e9)
      at = n * 1000; // unix s
    else at = nowMs + n * 1000; // seconds from now
    const w = Math.max(0, at - nowMs);
    wait = wait === undefined ? w : Math.max(wait, w);
  }
  return wait === undefined ? undefined : Math.ceil(wait);
}
