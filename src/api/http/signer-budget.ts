/**
 * The client's side of the venue's per-signer token buckets (the table and the bucket are
 * src/core/signer-limits.ts, shared with the paper exchange): every order and cancel request waits
 * here until its bucket holds its cost, so the venue never has to refuse it.
 *
 * Costs: `POST /order` 1, `POST /orders` its entries, `DELETE /order` 1, `DELETE /orders` its ids,
 * `DELETE /cancel-all` and `/cancel-market-orders` 1 when sent plus, once the answer says, one per
 * cancelled order. A request costing more than the bucket's burst is refused here at once
 * (ValidationError: split it), never sent: it could never pass.
 *
 * Why it cannot overshoot the venue (the same argument as the windows' in budgets.ts): the venue
 * charges a request when it ARRIVES, somewhere between its send and its answer. Here a request's
 * cost is held as in flight from admission until its answer, and only then charged to a bucket
 * that refills from that moment (the latest the venue can have charged it). An earlier charge at the
 * venue only leaves its bucket fuller afterwards, and while a request is in flight its cost is
 * reserved, so at every instant the venue's level is at least this one's: whatever the latencies
 * and the reordering, every request admitted here finds its tokens there. A cancel-all's post-charge
 * is unknown until its answer, so it waits until no other cancel is in flight and holds the cancel
 * bucket alone until answered; then its count is charged (floored at zero on the tiers that floor,
 * which, with nothing else in flight, the venue's earlier floor can only leave fuller). The price is
 * the refill lost while a request is in flight: at 40 tokens/s and a few ms of latency, nothing to
 * speak of.
 *
 * Tiers: it starts at the configured tier (default: the tightest, standard) and adopts the tier the
 * venue names in `Poly-RateLimit-Tier`: a higher tier keeps the tokens held (the venue's bucket,
 * refilled faster, holds at least as many), a lower one empties the buckets (the venue's may hold
 * fewer than the burst). A 429 from these buckets (it carries `Poly-RateLimit-*`) lowers the level to
 * the venue's `Poly-RateLimit-Remaining` and pauses the bucket until its Retry-After.
 */
import type { Clock } from '../../core/clock.ts';
import { WakeTimer } from './wake-timer.ts';
import { abortReason } from './budget-waiters.ts';
import { ConfigError, ValidationError } from '../../core/errors.ts';
import {
  parseSignerTier,
  signerTier,
  SIGNER_HEADERS,
  TIGHTEST_SIGNER_TIER,
  TokenBucket,
  type SignerBucketName,
  type SignerRequest,
  type SignerTierName,
} from '../../core/signer-limits.ts';

/** What the answer of a request said (for the post-charge and the tier). */
export interface SendOutcome {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body text (read for a cancel-all's count only). */
  text?: string;
}

/** A held admission: release it once, with the answer, or 'unsent' when the request never left. */
export interface SignerTicket {
  release(outcome?: SendOutcome | 'unsent'): void;
}

/** One bucket's state, for metrics. */
export interface SignerBucketStats {
  bucket: SignerBucketName;
  rate: number;
  burst: number;
  /** Whole tokens available now (charged and in flight deducted). */
  available: number;
  /** Tokens held by requests in flight. */
  inflight: number;
  waiting: number;
  /** Unix ms until which the bucket is paused after a 429 (0: not paused). */
  pausedUntil: number;
}

export interface SignerBudgetStats {
  tier: SignerTierName;
  order: SignerBucketStats;
  cancel: SignerBucketStats;
}

/** A request waiting for its bucket (here, and in a fleet's shared gate). */
export interface SignerWaiter {
  req: SignerRequest;
  resolve: (t: SignerTicket) => void;
  reject: (e: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/**
 * What a bucket holds for its admitted requests until their answers: this module's buckets, and a
 * fleet member's emergency reserve (src/fleet/signer-gate.ts).
 */
export interface HeldTokens {
  /** Tokens of admitted requests not yet answered. */
  inflight: number;
  inflightCount: number;
  /** A cancel-all in flight holds the bucket alone. */
  exclusive: boolean;
}

interface BucketState extends HeldTokens {
  name: SignerBucketName;
  /** Charged at answer time. */
  done: TokenBucket;
  pausedUntil: number;
  waiters: SignerWaiter[];
}

/** A response header's first value (either case of its name). */
export function header(h: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = h[name.toLowerCase()] ?? h[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Cancelled orders in a cancel answer (`{canceled: [...]}`, possibly in the success envelope). */
export function cancelledCount(text: string | undefined): number {
  if (text === undefined || text === '') return 0;
  try {
    const v = JSON.parse(text) as { canceled?: unknown; data?: { canceled?: unknown } };
    const c = Array.isArray(v?.canceled) ? v.canceled : v?.data?.canceled;
    return Array.isArray(c) ? c.length : 0;
  } catch {
    return 0;
  }
}

/** Hold `req`'s tokens (a cancel-all: the bucket alone) from its admission until its answer. */
export function holdTokens(h: HeldTokens, req: SignerRequest): void {
  h.inflight += req.cost;
  h.inflightCount++;
  if (req.postCharged) h.exclusive = true;
}

/**
 * Give back what `req` held (holdTokens) and, unless it was never sent, charge `done` at `at` for
 * what the venue took: its cost unless the answer is a 429, and a cancel-all's count once answered.
 */
export function releaseTokens(
  h: HeldTokens,
  done: TokenBucket,
  req: SignerRequest,
  outcome: SendOutcome | 'unsent' | undefined,
  at: number,
): void {
  h.inflight -= req.cost;
  h.inflightCount--;
  if (req.postCharged) h.exclusive = false;
  if (outcome === 'unsent') return;
  // a 429 (of these buckets, or of the edge's windows in front of them) took no token; any
  // other answer, or none (it may have landed), is charged: when unsure, charge
  if (outcome?.status !== 429) done.charge(req.cost, at);
  if (req.postCharged && outcome !== undefined && outcome.status >= 200 && outcome.status < 300)
    done.charge(cancelledCount(outcome.text), at);
}

/**
 * What `Budgets` uses of the per-signer buckets: this module's local `SignerBudget`, or a fleet's
 * shared one (src/fleet/signer-gate.ts) when several processes sign with one key.
 */
export interface SignerGate {
  readonly tier: SignerTierName;
  acquire(req: SignerRequest, signal?: AbortSignal): Promise<SignerTicket>;
  adoptTier(name: string): void;
  stats(): SignerBudgetStats;
  close(reason: unknown): void;
}

/** The per-signer buckets of one signer, as the client budgets them. */
export class SignerBudget implements SignerGate {
  readonly #clock: Clock;
  readonly #scale: number;
  #tier: SignerTierName;
  readonly #order: BucketState;
  readonly #cancel: BucketState;
  readonly #wake: WakeTimer;

  /** @throws ConfigError on an unknown tier or a bad scale. */
  constructor(clock: Clock, opts: { tier?: SignerTierName; scale?: number } = {}) {
    this.#clock = clock;
    this.#wake = new WakeTimer(clock, () => this.#pump());
    this.#scale = opts.scale ?? 1;
    const t = signerTier(opts.tier ?? TIGHTEST_SIGNER_TIER, this.#scale, 'budgets.signerTier');
    this.#tier = t.name;
    const now = clock.now();
    const state = (name: SignerBucketName, done: TokenBucket): BucketState => ({
      name,
      done,
      inflight: 0,
      inflightCount: 0,
      exclusive: false,
      pausedUntil: 0,
      waiters: [],
    });
    this.#order = state('order', new TokenBucket(t.order, now, false));
    this.#cancel = state('cancel', new TokenBucket(t.cancel, now, t.negativeCancelBalance));
  }

  /** The tier budgeted against now. */
  get tier(): SignerTierName {
    return this.#tier;
  }

  #bucket(name: SignerBucketName): BucketState {
    return name === 'order' ? this.#order : this.#cancel;
  }

  /**
   * Wait (FIFO per bucket) until the request's bucket holds its cost, then hold it as in flight.
   * @throws ValidationError when the cost exceeds the bucket's burst (split the request); the
   *   signal's reason when aborted while waiting
   */
  acquire(req: SignerRequest, signal?: AbortSignal): Promise<SignerTicket> {
    const b = this.#bucket(req.bucket);
    if (req.cost > b.done.burst)
      return Promise.reject(
        new ValidationError(
          `this request costs ${req.cost} ${req.bucket} tokens but the ${this.#tier} tier's ${req.bucket} bucket holds ` +
            `at most ${b.done.burst}: the venue can never admit it; split it into requests of at most ${b.done.burst}`,
        ),
      );
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise<SignerTicket>((resolve, reject) => {
      const w: SignerWaiter = { req, resolve, reject, signal, onAbort: undefined };
      if (signal !== undefined) {
        w.onAbort = () => {
          const i = b.waiters.indexOf(w);
          if (i >= 0) {
            b.waiters.splice(i, 1);
            reject(abortReason(signal));
            this.#pump();
          }
        };
        signal.addEventListener('abort', w.onAbort, { once: true });
      }
      b.waiters.push(w);
      this.#pump();
    });
  }

  /** 0 when the bucket can admit `req` now; else the unix ms to look again (Infinity: at a release). */
  #readyAt(b: BucketState, req: SignerRequest, now: number): number {
    if (b.exclusive) return Infinity;
    if (req.postCharged && b.inflightCount > 0) return Infinity;
    let at = 0;
    if (b.pausedUntil > now) at = b.pausedUntil;
    const wait = b.done.waitMs(req.cost + b.inflight, now);
    if (wait === Infinity) return Infinity; // the in-flight tokens must come back first
    if (wait > 0) at = Math.max(at, now + wait);
    return at;
  }

  #pump(): void {
    const now = this.#clock.now();
    let earliest = Infinity;
    for (const b of [this.#order, this.#cancel]) {
      while (b.waiters.length > 0) {
        const w = b.waiters[0]!;
        // a tier change may have shrunk the burst below a waiting request's cost
        if (w.req.cost > b.done.burst) {
          b.waiters.shift();
          if (w.signal && w.onAbort) w.signal.removeEventListener('abort', w.onAbort);
          w.reject(
            new ValidationError(
              `this request costs ${w.req.cost} ${b.name} tokens but the ${this.#tier} tier's ${b.name} bucket holds at most ${b.done.burst}: split it`,
            ),
          );
          continue;
        }
        const at = this.#readyAt(b, w.req, now);
        if (at > 0) {
          earliest = Math.min(earliest, at);
          break;
        }
        b.waiters.shift();
        holdTokens(b, w.req);
        if (w.signal && w.onAbort) w.signal.removeEventListener('abort', w.onAbort);
        w.resolve(this.#ticket(b, w.req));
      }
    }
    this.#arm(earliest);
  }

  #ticket(b: BucketState, req: SignerRequest): SignerTicket {
    let done = false;
    return {
      release: (outcome) => {
        if (done) return;
        done = true;
        const now = this.#clock.now();
        releaseTokens(b, b.done, req, outcome, now);
        if (outcome !== undefined && outcome !== 'unsent') this.#observe(outcome, b, now);
        this.#pump();
      },
    };
  }

  /** Adopt the tier the venue names; after a 429 of these buckets, lower and pause the bucket. */
  #observe(o: SendOutcome, b: BucketState, now: number): void {
    const named = parseSignerTier(header(o.headers, SIGNER_HEADERS.tier));
    // no admission in between: a 429's lowering and pause below apply first (release pumps after)
    if (named !== undefined && named !== this.#tier) this.#adopt(named);
    // a 429 of these buckets carries their headers; one of the edge's windows does not
    if (o.status !== 429 || header(o.headers, SIGNER_HEADERS.tier) === undefined) return;
    const remaining = Number(header(o.headers, SIGNER_HEADERS.remaining));
    if (Number.isFinite(remaining)) b.done.lowerTo(Math.floor(remaining), now);
    const retry = Number(header(o.headers, 'retry-after'));
    const reset = Number(header(o.headers, SIGNER_HEADERS.reset));
    let until = now;
    if (Number.isFinite(retry) && retry > 0) until = Math.max(until, now + retry * 1000);
    if (Number.isFinite(reset) && reset > 0) until = Math.max(until, reset * 1000);
    b.pausedUntil = Math.max(b.pausedUntil, until);
  }

  /**
   * Budget against another tier from now on: a higher one keeps the tokens held, a lower one empties
   * the buckets (see the module comment).
   * @throws ConfigError on an unknown tier
   */
  adoptTier(name: string): void {
    this.#adopt(name);
    this.#pump();
  }

  #adopt(name: string): void {
    const t = signerTier(name, this.#scale, 'budgets.signerTier');
    if (t.name === this.#tier) return;
    const now = this.#clock.now();
    const lower = t.order.burst < this.#order.done.burst;
    this.#order.done.resize(t.order, now, false);
    this.#cancel.done.resize(t.cancel, now, t.negativeCancelBalance);
    if (lower) {
      this.#order.done.lowerTo(0, now);
      this.#cancel.done.lowerTo(0, now);
    }
    this.#tier = t.name;
  }

  stats(): SignerBudgetStats {
    const now = this.#clock.now();
    const one = (b: BucketState): SignerBucketStats => ({
      bucket: b.name,
      rate: b.done.rate,
      burst: b.done.burst,
      available: Math.floor((b.done.milli(now) - b.inflight * 1000) / 1000),
      inflight: b.inflight,
      waiting: b.waiters.length,
      pausedUntil: b.pausedUntil > now ? b.pausedUntil : 0,
    });
    return { tier: this.#tier, order: one(this.#order), cancel: one(this.#cancel) };
  }

  /** Reject every waiter and stop the timer (the budget stays usable). */
  close(reason: unknown): void {
    for (const b of [this.#order, this.#cancel]) {
      const ws = b.waiters;
      b.waiters = [];
      for (const w of ws) {
        if (w.signal && w.onAbort) w.signal.removeEventListener('abort', w.onAbort);
        w.reject(reason);
      }
    }
    this.#wake.clear();
  }

  #arm(at: number): void {
    this.#wake.arm(at);
  }
}

/** The tier a BudgetConfig's `signerTier` starts from, or undefined for `off`. */
export function startTierOf(v: string | undefined): SignerTierName | undefined {
  if (v === undefined || v === 'auto') return TIGHTEST_SIGNER_TIER;
  if (v === 'off') return undefined;
  const t = parseSignerTier(v);
  if (t === undefined) throw new ConfigError('budgets.signerTier', `unknown tier ${JSON.stringify(v)}`);
  return t;
}
