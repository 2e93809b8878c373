/**
 * The venue's per-signer trading limits as data, plus a pure token bucket. The second layer of the
 * one rule table (the first, Cloudflare-style sliding windows per endpoint, is ./rate-limits.ts):
 * the paper exchange enforces these buckets per signer address (src/exchange/limits/
 * signer-buckets.ts) and the bot's budgets never send a request they would refuse
 * (src/api/http/signer-budget.ts).
 *
 * Sources (checked 2026-11; every figure "verify at build time"):
 *  - "CLOB Trading Rate Limits", https://docs.polymarket.com/api-reference/trading-rate-limits
 *    (and its .md and Chinese editions): two token buckets per signer address (the address of the
 *    API credentials), an order bucket and a cancel bucket, separate from each other and from the
 *    Cloudflare IP limits; the costs per route; refill at the tier's rate per second, burst = the
 *    bucket's capacity; a batch is admitted only when the bucket holds enough tokens for every entry,
 *    else the whole request is refused and nothing is processed; a batch costing more than the
 *    tier's burst can never be admitted (split it); cancel-all and cancel-market-orders take one
 *    token first and one per cancelled order once the result is known, which may leave a negative
 *    balance on tiers that allow one (later cancels wait until the bucket holds enough for them)
 *    while the other tiers floor the balance at zero; tiers follow the account (maker) wallet's
 *    30-day volume, refreshed every three hours; headers `Poly-RateLimit-Remaining`,
 *    `Poly-RateLimit-Reset` (unix seconds), `Poly-RateLimit-Tier`, and conditionally `Retry-After`
 *    (a 429 whose cost fits the burst) and `Poly-RateLimit-Warning: true` (the two-week warning
 *    period from 2026-07-24: requests that enforcement would refuse are processed and flagged).
 *  - "Get rate limit tier", https://docs.polymarket.com/api-reference/account/get-rate-limit-tier:
 *    `GET /v1/user/rate-limit-tier`, L2 auth, the tier of the credentials' signer; a volume change
 *    can take up to three hours to show.
 *  - The volume tiers table (rate per second and burst per bucket, the negative-balance column) as
 *    transcribed by the public Rust client polyoxide-core (docs.rs, `signer_limit.rs`, and its
 *    mirror of the docs page `docs/specs/clob/trading-rate-limits.md`, fetched 2026-08-05).
 *
 * Exactness: a bucket's level is kept in milli-tokens (integers) and time in integer ms, so a refill
 * of `rate` tokens per second adds exactly `rate` milli-tokens per ms: no float drift however long
 * it runs. Pure: no clock; every call takes `now` (unix ms).
 */
import { ConfigError, ValidationError } from './errors.ts';

/** The volume tiers, tightest first. */
export const SIGNER_TIER_NAMES = [
  'standard',
  'copper',
  'bronze',
  'silver',
  'gold',
  'platinum',
  'diamond',
  'elite',
] as const;
export type SignerTierName = (typeof SIGNER_TIER_NAMES)[number];

/**
 * What a client budgets against: `auto` (start at the tightest tier, adopt the one the venue names),
 * a tier to start from (then adopt likewise), or `off` (a venue without per-signer limits).
 */
export type BudgetSignerTier = 'auto' | 'off' | SignerTierName;

/** A signer's two buckets. */
export type SignerBucketName = 'order' | 'cancel';

/** One bucket's allowance: `rate` tokens per second refill, at most `burst` tokens held. */
export interface BucketSpec {
  readonly rate: number;
  readonly burst: number;
}

/** One volume tier. */
export interface SignerTier {
  readonly name: SignerTierName;
  /** 30-day volume (USD) from which the tier applies. */
  readonly minVolumeUsd: number;
  readonly order: BucketSpec;
  readonly cancel: BucketSpec;
  /** The cancel bucket may go below zero after a cancel-all's post-charge (else it floors at zero). */
  readonly negativeCancelBalance: boolean;
}

function tier(
  name: SignerTierName,
  minVolumeUsd: number,
  order: [number, number],
  cancel: [number, number],
  negativeCancelBalance: boolean,
): SignerTier {
  return Object.freeze({
    name,
    minVolumeUsd,
    order: Object.freeze({ rate: order[0], burst: order[1] }),
    cancel: Object.freeze({ rate: cancel[0], burst: cancel[1] }),
    negativeCancelBalance,
  });
}

/**
 * The published tiers: [order rate/s, order burst], [cancel rate/s, cancel burst], negative cancel
 * balance. Transcribed literally (Diamond's order burst is 787, not 1.5 × 525).
 */
export const SIGNER_TIERS: readonly SignerTier[] = Object.freeze([
  tier('standard', 0, [40, 60], [80, 120], true),
  tier('copper', 30_000, [60, 90], [120, 180], true),
  tier('bronze', 50_000, [80, 120], [160, 240], true),
  tier('silver', 100_000, [200, 300], [400, 600], true),
  tier('gold', 500_000, [400, 600], [800, 1200], true),
  tier('platinum', 2_500_000, [450, 675], [900, 1350], false),
  tier('diamond', 5_000_000, [525, 787], [1050, 1575], false),
  tier('elite', 10_000_000, [600, 900], [1200, 1800], false),
]);

/** The tightest tier: where a client starts until the venue names its tier. */
export const TIGHTEST_SIGNER_TIER: SignerTierName = 'standard';

/** The tier of that name (case-insensitive), or undefined for a name the table lacks. */
export function parseSignerTier(value: string | undefined | null): SignerTierName | undefined {
  if (typeof value !== 'string') return undefined;
  const v = value.trim().toLowerCase();
  return (SIGNER_TIER_NAMES as readonly string[]).includes(v) ? (v as SignerTierName) : undefined;
}

/**
 * A tier's allowances, each rate and burst multiplied by `scale` (floored, at least 1).
 * @throws ConfigError on an unknown tier or a non-positive scale
 */
export function signerTier(name: string, scale = 1, keyPrefix = 'signerLimits'): SignerTier {
  const n = parseSignerTier(name);
  const t = SIGNER_TIERS.find((x) => x.name === n);
  if (t === undefined)
    throw new ConfigError(`${keyPrefix}.tier`, `unknown tier ${JSON.stringify(name)}: ${SIGNER_TIER_NAMES.join(', ')}`);
  if (!(scale > 0) || !Number.isFinite(scale))
    throw new ConfigError(`${keyPrefix}.scale`, `must be a positive number, got ${String(scale)}`);
  if (scale === 1) return t;
  const s = (b: BucketSpec): BucketSpec =>
    Object.freeze({ rate: Math.max(1, Math.floor(b.rate * scale)), burst: Math.max(1, Math.floor(b.burst * scale)) });
  return Object.freeze({ ...t, order: s(t.order), cancel: s(t.cancel) });
}

/** What a route costs: a token, one per entry of the batch, one per id, or one now plus one per cancelled order after. */
export type SignerCostRule = 'one' | 'entries' | 'ids' | 'one-plus-cancelled';

/** The routes the buckets count: [method path, bucket, cost]. Paths are the CLOB API's. */
export const SIGNER_ROUTE_COSTS: ReadonlyArray<readonly [string, SignerBucketName, SignerCostRule]> = Object.freeze([
  ['POST /order', 'order', 'one'],
  ['POST /orders', 'order', 'entries'],
  ['DELETE /order', 'cancel', 'one'],
  ['DELETE /orders', 'cancel', 'ids'],
  ['DELETE /cancel-all', 'cancel', 'one-plus-cancelled'],
  ['DELETE /cancel-market-orders', 'cancel', 'one-plus-cancelled'],
] as const);

/** What one request draws from its signer's buckets. */
export interface SignerRequest {
  readonly bucket: SignerBucketName;
  /** Tokens taken when it is admitted (for cancel-all: the first token only). */
  readonly cost: number;
  /** One more token per cancelled order is charged once the answer is known (cancel-all, cancel-market-orders). */
  readonly postCharged: boolean;
}

/**
 * The bucket and cost of a CLOB request, or undefined when the buckets do not count it. `body` is
 * the parsed JSON body: the entries of `POST /orders`, the ids of `DELETE /orders` (a body of another
 * shape counts what the venue would count: an array's length, else 1).
 */
export function signerRequestOf(method: string, routePath: string, body?: unknown): SignerRequest | undefined {
  let path = routePath;
  const q = path.indexOf('?');
  if (q >= 0) path = path.slice(0, q);
  while (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  const key = `${method.toUpperCase()} ${path}`;
  const row = SIGNER_ROUTE_COSTS.find((r) => r[0] === key);
  if (row === undefined) return undefined;
  const [, bucket, rule] = row;
  switch (rule) {
    case 'one':
      return { bucket, cost: 1, postCharged: false };
    case 'one-plus-cancelled':
      return { bucket, cost: 1, postCharged: true };
    case 'entries':
    case 'ids':
      return { bucket, cost: Array.isArray(body) ? body.length : 1, postCharged: false };
  }
}

/**
 * Most ids one `DELETE /orders` should carry: the tightest tier's cancel burst, so a request of that
 * many ids is admissible at every tier (a larger one can never pass at Standard).
 */
export const CANCEL_CHUNK_IDS = Math.min(...SIGNER_TIERS.map((t) => t.cancel.burst));

/** The response headers of the per-signer limits (names as the venue spells them). */
export const SIGNER_HEADERS = Object.freeze({
  tier: 'Poly-RateLimit-Tier',
  remaining: 'Poly-RateLimit-Remaining',
  reset: 'Poly-RateLimit-Reset',
  warning: 'Poly-RateLimit-Warning',
});

const MILLI = 1000;

/**
 * A token bucket with exact integer arithmetic: the level in milli-tokens, time in whole ms (a
 * fractional `now` is floored; a `now` earlier than the last one refills nothing). Starts full.
 */
export class TokenBucket {
  #rate: number;
  #burst: number;
  #negative: boolean;
  #milli: number;
  #at: number;

  /**
   * @param spec rate (tokens per second) and burst (capacity), positive integers
   * @param allowNegative a post-charge (`charge`) may take the level below zero; else it floors at zero
   * @throws ValidationError on a rate or burst that is not a positive safe integer
   */
  constructor(spec: BucketSpec, now: number, allowNegative = false) {
    TokenBucket.#check(spec);
    this.#rate = spec.rate;
    this.#burst = spec.burst;
    this.#negative = allowNegative;
    this.#milli = spec.burst * MILLI;
    this.#at = Math.floor(now);
  }

  static #check(spec: BucketSpec): void {
    for (const [k, v] of [
      ['rate', spec.rate],
      ['burst', spec.burst],
    ] as const)
      if (!Number.isSafeInteger(v) || v < 1) throw new ValidationError(`token bucket ${k} must be a positive integer`);
  }

  get rate(): number {
    return this.#rate;
  }
  get burst(): number {
    return this.#burst;
  }
  get allowNegative(): boolean {
    return this.#negative;
  }

  #refill(now: number): void {
    const t = Math.floor(now);
    if (t <= this.#at) return;
    const cap = this.#burst * MILLI;
    if (this.#milli < cap) this.#milli = Math.min(cap, this.#milli + this.#rate * (t - this.#at));
    this.#at = t;
  }

  /** The level at `now`, in milli-tokens (may be negative after a post-charge). */
  milli(now: number): number {
    this.#refill(now);
    return this.#milli;
  }

  /** The whole tokens held at `now` (floored: -0.5 tokens is -1), as the Remaining header says. */
  tokens(now: number): number {
    return Math.floor(this.milli(now) / MILLI);
  }

  /**
   * Ms from `now` until the bucket holds `cost` tokens (0: now), absent other charges; Infinity when
   * `cost` exceeds the burst (it never will).
   */
  waitMs(cost: number, now: number): number {
    if (cost > this.#burst) return Infinity;
    const missing = cost * MILLI - this.milli(now);
    return missing <= 0 ? 0 : Math.ceil(missing / this.#rate);
  }

  /** Take `cost` tokens if the bucket holds them all (all or nothing). Returns whether it did. */
  take(cost: number, now: number): boolean {
    if (this.milli(now) < cost * MILLI) return false;
    this.#milli -= cost * MILLI;
    return true;
  }

  /** Charge `cost` tokens whatever the level (a post-charge): below zero only if the bucket allows it. */
  charge(cost: number, now: number): void {
    this.#refill(now);
    this.#milli -= cost * MILLI;
    if (!this.#negative && this.#milli < 0) this.#milli = 0;
  }

  /** Give back `cost` tokens (capped at the burst). */
  refund(cost: number, now: number): void {
    this.#refill(now);
    this.#milli = Math.min(this.#burst * MILLI, this.#milli + cost * MILLI);
  }

  /** Lower the level to at most `tokens` (never raises it). */
  lowerTo(tokens: number, now: number): void {
    this.#refill(now);
    this.#milli = Math.min(this.#milli, Math.floor(tokens * MILLI));
  }

  /**
   * Change the allowance at `now` (a new tier): the tokens refilled so far at the old rate stay, the
   * level is capped at the new burst.
   * @throws ValidationError on a bad spec
   */
  resize(spec: BucketSpec, now: number, allowNegative = this.#negative): void {
    TokenBucket.#check(spec);
    this.#refill(now);
    this.#rate = spec.rate;
    this.#burst = spec.burst;
    this.#negative = allowNegative;
    this.#milli = Math.min(this.#milli, spec.burst * MILLI);
    if (!allowNegative && this.#milli < 0) this.#milli = 0;
  }

  /** True when the bucket is full at `now` (nothing to remember about it). */
  full(now: number): boolean {
    return this.milli(now) >= this.#burst * MILLI;
  }
}
