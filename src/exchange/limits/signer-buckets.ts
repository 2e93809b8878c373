/**
 * The paper exchange's per-signer trading limits (the venue's "CLOB Trading Rate Limits"; the tiers,
 * costs and the token bucket are src/core/signer-limits.ts, shared with the bot's budgets): two
 * token buckets per signer address, orders and cancels, on top of the Cloudflare-style windows of
 * ./policy.ts.
 *
 * - `evaluate` admits a request all or nothing: a batch is taken whole when the bucket holds a
 *   token for every entry, else nothing is taken and nothing may be processed (429 with the time
 *   the bucket will hold enough); a cost above the tier's burst can never be admitted (429 without
 *   Retry-After: split it).
 * - `settle` charges the rest of a cancel-all / cancel-market-orders once the cancelled count is
 *   known: below zero on the tiers with a negative cancel balance, floored at zero on the others.
 * - Modes: `enforce` (the public service since its warning period ended), `warn` (the warning
 *   period: a request enforcement would refuse is processed, charged nothing, and flagged with
 *   `Poly-RateLimit-Warning: true`), `off`.
 * - Tiers: a default tier for every signer (the paper exchange's: standard) and per-address
 *   overrides (the admin route), applied at once (the public service refreshes every 3 h).
 *
 * Pure: no wall clock; every call takes `now` (unix ms). Signers whose buckets are full and whose
 * tier is the default hold no state after a `sweep`.
 */
import { ConfigError } from '../../core/errors.ts';
import {
  signerTier,
  TokenBucket,
  type SignerBucketName,
  type SignerRequest,
  type SignerTier,
  type SignerTierName,
} from '../../core/signer-limits.ts';

export type SignerLimitMode = 'off' | 'warn' | 'enforce';
export const SIGNER_LIMIT_MODES: readonly SignerLimitMode[] = ['off', 'warn', 'enforce'];

export interface SignerLimiterOptions {
  mode: SignerLimitMode;
  /** The tier of every signer without an override. Default standard. */
  tier?: SignerTierName;
  /** Multiplies every rate and burst (floored, at least 1). Default 1. */
  scale?: number;
  /** Per-address tier overrides (address → tier). */
  tiers?: Record<string, SignerTierName>;
}

/** The outcome of `evaluate` (what the headers say). */
export interface SignerDecision {
  /** The request may be processed (always in warn mode). */
  ok: boolean;
  /** Warn mode: enforcement would have refused it (`Poly-RateLimit-Warning: true`). */
  warning: boolean;
  /** Its cost exceeds the tier's burst: it can never be admitted in one request. */
  overBurst: boolean;
  tier: SignerTierName;
  bucket: SignerBucketName;
  cost: number;
  burst: number;
  /** Whole tokens left after the request (or held now, when refused). */
  remaining: number;
  /** Unix ms when the bucket holds enough for it (now when admitted; now when never). */
  resetAt: number;
  /** When refused with a cost that fits the burst: ms until the bucket holds enough. */
  retryAfterMs: number | undefined;
}

interface SignerState {
  order: TokenBucket;
  cancel: TokenBucket;
  tier: SignerTierName;
}

/** Per-signer order and cancel buckets. */
export class SignerLimiter {
  readonly mode: SignerLimitMode;
  readonly defaultTier: SignerTierName;
  readonly #scale: number;
  readonly #states = new Map<string, SignerState>();
  readonly #overrides = new Map<string, SignerTierName>();
  readonly #tiers = new Map<SignerTierName, SignerTier>();

  /** @throws ConfigError on an unknown mode or tier, or a bad scale. */
  constructor(opts: SignerLimiterOptions) {
    if (!SIGNER_LIMIT_MODES.includes(opts.mode))
      throw new ConfigError('exchange.signerLimits', `must be one of ${SIGNER_LIMIT_MODES.join(', ')}`);
    this.mode = opts.mode;
    this.#scale = opts.scale ?? 1;
    this.defaultTier = signerTier(opts.tier ?? 'standard', this.#scale, 'exchange.signerTier').name;
    for (const [a, t] of Object.entries(opts.tiers ?? {})) this.setTier(a, t);
  }

  /** The tier's allowances after the scale. */
  spec(name: SignerTierName): SignerTier {
    let t = this.#tiers.get(name);
    if (t === undefined) {
      t = signerTier(name, this.#scale, 'exchange.signerTier');
      this.#tiers.set(name, t);
    }
    return t;
  }

  /** The tier of a signer address. */
  tierOf(address: string): SignerTierName {
    return this.#overrides.get(address.toLowerCase()) ?? this.defaultTier;
  }

  /**
   * Set a signer's tier (from now on; its buckets keep their tokens, capped at the new burst).
   * @throws ConfigError on an unknown tier
   */
  setTier(address: string, tier: string, now?: number): SignerTierName {
    const a = address.toLowerCase();
    const t = signerTier(tier, this.#scale, 'exchange.signerTier');
    if (t.name === this.defaultTier) this.#overrides.delete(a);
    else this.#overrides.set(a, t.name);
    const s = this.#states.get(a);
    if (s !== undefined && s.tier !== t.name) {
      const at = now ?? 0;
      s.order.resize(t.order, at, false);
      s.cancel.resize(t.cancel, at, t.negativeCancelBalance);
      s.tier = t.name;
    }
    return t.name;
  }

  #state(address: string, now: number): SignerState {
    const a = address.toLowerCase();
    let s = this.#states.get(a);
    if (s === undefined) {
      const tier = this.tierOf(a);
      const t = this.spec(tier);
      s = {
        tier,
        order: new TokenBucket(t.order, now, false),
        cancel: new TokenBucket(t.cancel, now, t.negativeCancelBalance),
      };
      this.#states.set(a, s);
    }
    return s;
  }

  /** Count a request of `address` at `now`, all or nothing (see the module comment). */
  evaluate(address: string, req: SignerRequest, now: number): SignerDecision {
    const s = this.#state(address, now);
    const b = req.bucket === 'order' ? s.order : s.cancel;
    const base = { tier: s.tier, bucket: req.bucket, cost: req.cost, burst: b.burst };
    const overBurst = req.cost > b.burst;
    if (!overBurst && b.take(req.cost, now))
      return {
        ...base,
        ok: true,
        warning: false,
        overBurst,
        remaining: b.tokens(now),
        resetAt: now,
        retryAfterMs: undefined,
      };
    const wait = overBurst ? undefined : b.waitMs(req.cost, now);
    return {
      ...base,
      ok: this.mode === 'warn',
      warning: this.mode === 'warn',
      overBurst,
      remaining: b.tokens(now),
      resetAt: now + (wait ?? 0),
      retryAfterMs: wait,
    };
  }

  /**
   * The post-charge of a cancel-all / cancel-market-orders: one token per cancelled order, taken
   * whatever the level (floored at zero unless the tier allows a negative cancel balance). In warn
   * mode only what the bucket holds is taken (the warning period charges nothing it would refuse).
   * Returns the whole tokens left.
   */
  settle(address: string, bucket: SignerBucketName, extra: number, now: number): number {
    const s = this.#state(address, now);
    const b = bucket === 'order' ? s.order : s.cancel;
    if (extra > 0) {
      if (this.mode === 'warn') b.take(Math.min(extra, Math.max(0, b.tokens(now))), now);
      else b.charge(extra, now);
    }
    return b.tokens(now);
  }

  /** Drop the signers whose buckets are both full (they hold nothing a fresh state would not). */
  sweep(now: number): number {
    let n = 0;
    for (const [a, s] of this.#states)
      if (s.order.full(now) && s.cancel.full(now)) {
        this.#states.delete(a);
        n++;
      }
    return n;
  }

  /** Signers with state (for tests). */
  size(): number {
    return this.#states.size;
  }
}
