/**
 * One error tree for all of mmkit. Every error has a stable `code` (safe to switch on, log and
 * count) and says whether retrying the same action may succeed. Messages never carry secrets.
 *
 * Hierarchy:
 *   MmkitError
 *   ├─ ValidationError      fatal   bad input (malformed wire data, out-of-range value)
 *   ├─ ConfigError          fatal   a bad configuration key (names the key)
 *   ├─ StrategyError        fatal   a strategy plugin failed where it cannot be skipped (its create() threw)
 *   ├─ AuthError            fatal   missing/invalid credentials or signature
 *   ├─ NotFoundError        fatal   unknown id
 *   ├─ OrderRejectedError   fatal   the venue refused an order (venue code, e.g. INVALID_ORDER_MIN_SIZE)
 *   ├─ RateLimitError       retry   429 (carries retryAfterMs)
 *   ├─ NetworkError         retry   transport failure, 5xx, 425/503
 *   │  └─ TimeoutError      retry   no answer in time (the request may or may not have landed)
 *   └─ InternalError        fatal   a bug: an invariant did not hold
 */
import { scrubSecrets } from './secrets.ts';

export type ErrorCode =
  | 'VALIDATION'
  | 'CONFIG'
  /** A strategy plugin failed where it cannot be skipped (its `create()` threw). */
  | 'STRATEGY'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'RATE_LIMITED'
  | 'NETWORK'
  | 'SERVICE_UNAVAILABLE'
  /** A fleet member's shared request budgets (its Redis) could not be asked: nothing was sent. */
  | 'FLEET_BUDGET_UNAVAILABLE'
  | 'TIMEOUT'
  | 'INTERNAL'
  | VenueRejectCode;

/** Rejection codes of the venue's order endpoints (venue-conventions). */
export const VENUE_REJECT_CODES = [
  'INVALID_ORDER_MIN_TICK_SIZE',
  'INVALID_ORDER_MIN_SIZE',
  'INVALID_ORDER_DUPLICATED',
  'INVALID_ORDER_NOT_ENOUGH_BALANCE',
  'INVALID_ORDER_EXPIRATION',
  'INVALID_ORDER_ERROR',
  'INVALID_POST_ONLY_ORDER_TYPE',
  'INVALID_POST_ONLY_ORDER',
  'FOK_ORDER_NOT_FILLED_ERROR',
  'MARKET_NOT_READY',
  'INVALID_SIGNATURE',
  'INVALID_ORDER_OWNER',
] as const;
export type VenueRejectCode = (typeof VENUE_REJECT_CODES)[number];

export interface ErrorOptions {
  cause?: unknown;
  details?: Record<string, unknown>;
}

export class MmkitError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly details: Record<string, unknown> | undefined;
  /** The message is scrubbed of every registered secret value (./secrets.ts) as a last line of defence. */
  constructor(code: ErrorCode, message: string, retryable: boolean, opts: ErrorOptions = {}) {
    super(scrubSecrets(message), opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryable = retryable;
    this.details = opts.details;
  }
}

export class ValidationError extends MmkitError {
  constructor(message: string, opts?: ErrorOptions) {
    super('VALIDATION', message, false, opts);
  }
}

/** One bad configuration key and what is wrong with it. */
export interface ConfigProblem {
  readonly key: string;
  readonly message: string;
}

export class ConfigError extends MmkitError {
  readonly key: string;
  /** Every problem found (the first is `key`'s); one line each in the message. */
  readonly problems: readonly ConfigProblem[];
  /**
   * `key` names what is wrong (`bot.params.lo`), `message` says why. A plugin is not
   * type-checked, so the one-argument form (`new ConfigError('lo must be below hi')`) is tolerated:
   * its one argument is the message, and the key is empty (`config: lo must be below hi`).
   */
  constructor(key: string, message: string, opts?: ErrorOptions) {
    // (message is typed, but a plugin's JavaScript may leave it out or pass anything)
    const given = message as unknown;
    const [k, m] = given === undefined ? ['', String(key)] : [String(key), String(given)];
    super('CONFIG', k === '' ? `config: ${m}` : `config ${k}: ${m}`, false, opts);
    this.key = k;
    this.problems = [{ key: k, message: scrubSecrets(m) }];
  }

  /** One error carrying several problems (validation reports them all, not only the first). */
  static of(problems: readonly [ConfigProblem, ...ConfigProblem[]]): ConfigError {
    const [first, ...rest] = problems;
    const e = new ConfigError(
      first.key,
      [first.message, ...rest.map((p) => `config ${p.key}: ${p.message}`)].join('\n'),
    );
    (e as { problems: readonly ConfigProblem[] }).problems = problems.map((p) => ({
      key: p.key,
      message: scrubSecrets(p.message),
    }));
    return e;
  }
}

/**
 * A strategy plugin failed where the engine cannot skip it and go on (its `create()` threw: there is
 * no strategy to run). The message names the strategy and where it was thrown, when known. (A throw
 * in `onEvent` is no such error: the engine counts it and drops that output.)
 */
export class StrategyError extends MmkitError {
  constructor(message: string, opts?: ErrorOptions) {
    super('STRATEGY', message, false, opts);
  }
}

export class AuthError extends MmkitError {
  constructor(message: string, code: 'UNAUTHORIZED' | 'FORBIDDEN' = 'UNAUTHORIZED', opts?: ErrorOptions) {
    super(code, message, false, opts);
  }
}

export class NotFoundError extends MmkitError {
  constructor(message: string, opts?: ErrorOptions) {
    super('NOT_FOUND', message, false, opts);
  }
}

export class OrderRejectedError extends MmkitError {
  constructor(code: VenueRejectCode, message: string, opts?: ErrorOptions) {
    super(code, message, false, opts);
  }
}

export class RateLimitError extends MmkitError {
  readonly retryAfterMs: number;
  constructor(message: string, retryAfterMs: number, opts?: ErrorOptions) {
    super('RATE_LIMITED', message, true, opts);
    this.retryAfterMs = retryAfterMs;
  }
}

export class NetworkError extends MmkitError {
  constructor(
    message: string,
    code: 'NETWORK' | 'SERVICE_UNAVAILABLE' | 'FLEET_BUDGET_UNAVAILABLE' | 'TIMEOUT' = 'NETWORK',
    opts?: ErrorOptions,
  ) {
    super(code, message, true, opts);
  }
}

/**
 * No answer within the request's timeout. A NetworkError (code 'TIMEOUT', retryable): the request
 * may have landed, so only idempotent requests are retried after one, and a POST of signed orders
 * is resent byte for byte or resolved by querying the order ids, never re-signed.
 */
export class TimeoutError extends NetworkError {
  readonly timeoutMs: number;
  constructor(message: string, timeoutMs: number, opts?: ErrorOptions) {
    super(message, 'TIMEOUT', opts);
    this.timeoutMs = timeoutMs;
  }
}

export class InternalError extends MmkitError {
  constructor(message: string, opts?: ErrorOptions) {
    super('INTERNAL', message, false, opts);
  }
}

/** True when retrying the same action later may succeed. Unknown errors are not retryable. */
export function isRetryable(err: unknown): boolean {
  return err instanceof MmkitError && err.retryable;
}
