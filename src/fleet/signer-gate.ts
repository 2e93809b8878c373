/**
 * The venue's per-signer token buckets shared by a fleet (issue 21): every member signs with the
 * same key, so the venue counts their orders and cancels in one bucket; each member budgeting the
 * buckets alone (src/api/http/signer-budget.ts) would let the fleet overshoot them N times.
 * `RedisSignerGate` is the local `SignerBudget` with its state in Redis (./signer-scripts.ts): the
 * same costs, the same in-flight reservation until the answer, the same cancel-all exclusivity, the
 * same tier adoption from `Poly-RateLimit-Tier` (for the whole fleet) and 429 handling, clocked by
 * Redis TIME, integers only. Waiters queue FIFO per bucket in each member; between members the
 * first script to run wins. A ticket of a member that died is charged at its deadline
 * (`liveTtlMs`, renewed every third of it while the request is in flight).
 *
 * Fail fast: when Redis does not answer, `acquire` rejects with SharedBudgetUnavailableError (the
 * request is not sent); a release that cannot reach Redis is lost (the ticket is then charged at
 * its deadline, which is later: conservative).
 *
 * The emergency reserve (`reserve`, as the windows' ./reserve-gate.ts): a member must still pull its
 * quotes while Redis is unreachable, and cancels draw on the cancel bucket. So half of the tightest
 * tier's cancel bucket is kept out of the shared one and split among `maxMembers`: each member holds
 * a local bucket of burst ⌊B/2M⌋ and rate ⌊R/2M⌋ used only for cancels and only when Redis did not
 * answer; the shared cancel bucket is lowered by M times that (every tier). A union of token buckets
 * admits at most the sum of their bursts plus the sum of their rates × time in any interval, so the
 * fleet stays inside the venue's bucket whatever the timing. A cancel the reserve cannot take now
 * waits for it (Redis asked again first); one above the reserve's burst is refused with
 * SharedBudgetUnavailableError.
 */
import type { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import type { Clock, TimerHandle } from '../core/clock.ts';
import { ConfigError, ValidationError } from '../core/errors.ts';
import {
  parseSignerTier,
  SIGNER_HEADERS,
  signerTier,
  TIGHTEST_SIGNER_TIER,
  type SignerBucketName,
  type SignerRequest,
  type SignerTier,
  type SignerTierName,
  TokenBucket,
} from '../core/signer-limits.ts';
import {
  cancelledCount,
  header,
  type HeldTokens,
  holdTokens,
  releaseTokens,
  type SendOutcome,
  type SignerBucketStats,
  type SignerBudgetStats,
  type SignerGate,
  type SignerTicket,
  type SignerWaiter,
} from '../api/http/signer-budget.ts';
import { abortReason } from '../api/http/budget-waiters.ts';
import { WakeTimer } from '../api/http/wake-timer.ts';
import { Script } from './lua-script.ts';
import { ACQUIRE, NEVER, RELEASE, RENEW, STATE } from './signer-scripts.ts';
import { SharedBudgetUnavailableError } from './window-gate.ts';

export interface RedisSignerGateOptions {
  /** The signer's address: the keys' hash tag. */
  signer: string;
  /** This member's name: in ticket ids. */
  member: string;
  /** The tier to start from when the fleet names none yet (default standard, the tightest). */
  tier?: SignerTierName;
  /** As SignerBudget's: rates and bursts scaled (tests against a scaled-down venue). */
  scale?: number;
  /** A ticket's deadline after its grant or last renewal, ms (default 30,000). */
  liveTtlMs?: number;
  /** How often to look again when only in-flight tokens (maybe another member's) block, ms (default 50). */
  pollMs?: number;
  /** Tests: the time the scripts use in place of Redis TIME (unix ms). */
  now?: () => number;
  /** Keep an emergency reserve of the cancel bucket for this many members (see the module comment; absent: none). */
  reserve?: { maxMembers: number };
}

/** The local emergency reserve of the cancel bucket. */
interface Reserve extends HeldTokens {
  members: number;
  spec: { rate: number; burst: number };
  bucket: TokenBucket;
}

const S = {
  acquire: new Script(ACQUIRE),
  release: new Script(RELEASE),
  renew: new Script(RENEW),
  state: new Script(STATE),
};

interface Waiter extends SignerWaiter {
  /** Aborted while its script ran: a grant is given back at once. */
  gone: boolean;
}

interface Bucket {
  name: SignerBucketName;
  keys: [string, string, string];
  waiters: Waiter[];
  running: boolean;
  again: boolean;
  wake: WakeTimer;
}

/** A tier as the scripts take it: name, order rate, order burst, cancel rate, cancel burst, cancel negative. */
function tierArgs(t: SignerTier): (string | number)[] {
  return [t.name, t.order.rate, t.order.burst, t.cancel.rate, t.cancel.burst, t.negativeCancelBalance ? 1 : 0];
}

/** The key prefix of a signer's shared buckets. */
export function signerPrefix(signer: string): string {
  return `mmkit:{${signer.toLowerCase()}}:s:`;
}

const EMPTY_STATS = (bucket: SignerBucketName, t: SignerTier): SignerBucketStats => ({
  bucket,
  rate: t[bucket].rate,
  burst: t[bucket].burst,
  available: t[bucket].burst,
  inflight: 0,
  waiting: 0,
  pausedUntil: 0,
});

/** The per-signer buckets of one signer, shared by the fleet through Redis. */
export class RedisSignerGate implements SignerGate {
  readonly #redis: Redis;
  readonly #clock: Clock;
  readonly #prefix: string;
  readonly #scale: number;
  readonly #ttl: number;
  readonly #pollMs: number;
  readonly #now: (() => number) | undefined;
  readonly #order: Bucket;
  readonly #cancel: Bucket;
  readonly #held = new Map<string, Bucket>();
  readonly #pending = new Set<Promise<unknown>>();
  readonly #ticketBase: string;
  #seq = 0;
  /** Whether this member has used the fleet's buckets (then buckets found gone are made empty: signer-scripts.ts INIT). */
  #used = false;
  #tier: SignerTierName;
  #spec: SignerTier;
  #tick: TimerHandle | undefined;
  /** Redis time minus local time at the last reply. */
  #offset = 0;
  #snap: SignerBudgetStats;
  readonly #reserve: Reserve | undefined;
  #refreshedAt = -Infinity;
  #errors = 0;

  /** @throws ConfigError on an unknown tier or a bad scale; ValidationError on a bad option */
  constructor(redis: Redis, clock: Clock, o: RedisSignerGateOptions) {
    this.#redis = redis;
    this.#clock = clock;
    this.#prefix = signerPrefix(o.signer);
    this.#scale = o.scale ?? 1;
    this.#spec = signerTier(o.tier ?? TIGHTEST_SIGNER_TIER, this.#scale, 'budgets.signerTier');
    this.#tier = this.#spec.name;
    this.#ttl = o.liveTtlMs ?? 30_000;
    this.#pollMs = o.pollMs ?? 50;
    for (const [k, v] of [
      ['liveTtlMs', this.#ttl],
      ['pollMs', this.#pollMs],
    ] as const)
      if (!Number.isSafeInteger(v) || v < 1) throw new ValidationError(`signer gate ${k} must be a positive integer`);
    this.#now = o.now;
    this.#ticketBase = `${o.member}:${randomBytes(4).toString('hex')}:`;
    if (o.reserve !== undefined) {
      const n = o.reserve.maxMembers;
      const tight = signerTier(TIGHTEST_SIGNER_TIER, this.#scale, 'budgets.signerTier').cancel;
      const spec = { rate: Math.floor(tight.rate / (2 * n)), burst: Math.floor(tight.burst / (2 * n)) };
      if (!Number.isSafeInteger(n) || n < 1 || spec.rate < 1 || spec.burst < 1)
        throw new ConfigError(
          'fleet.maxMembers',
          `the per-signer cancel bucket (${tight.burst}, ${tight.rate}/s) cannot keep an emergency reserve for ${n} members`,
        );
      this.#reserve = {
        members: n,
        spec,
        bucket: new TokenBucket(spec, clock.now(), true),
        inflight: 0,
        inflightCount: 0,
        exclusive: false,
      };
    }
    const bucket = (name: SignerBucketName): Bucket => {
      const b: Bucket = {
        name,
        keys: [`${this.#prefix}${name}`, `${this.#prefix}${name}:live`, `${this.#prefix}${name}:cost`],
        waiters: [],
        running: false,
        again: false,
        wake: new WakeTimer(clock, () => this.#pump(b)),
      };
      return b;
    };
    this.#order = bucket('order');
    this.#cancel = bucket('cancel');
    this.#snap = {
      tier: this.#tier,
      order: EMPTY_STATS('order', this.#spec),
      cancel: EMPTY_STATS('cancel', this.#spec),
    };
    this.#tick = clock.setInterval(() => this.#renew(), Math.max(1, Math.floor(this.#ttl / 3)));
  }

  /** The tier budgeted against (the fleet's, as of the last script). */
  get tier(): SignerTierName {
    return this.#tier;
  }

  /** Scripts that failed so far. */
  get errors(): number {
    return this.#errors;
  }

  #nowArg(): string {
    return this.#now === undefined ? '' : String(this.#now());
  }

  async #run(s: Script, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    try {
      return await s.run(this.#redis, keys, args);
    } catch (e) {
      this.#errors++;
      throw SharedBudgetUnavailableError.of('signer buckets', e);
    }
  }

  #track(p: Promise<unknown>): void {
    const q = p.catch(() => undefined).finally(() => this.#pending.delete(q));
    this.#pending.add(q);
  }

  /** Resolves once no script of this gate is running (tests; shutdown). */
  async idle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }

  /** clock, tier, order state, cancel state, and the bucket's live and cost keys. */
  #keys(b: Bucket): string[] {
    return [
      `${this.#prefix}clock`,
      `${this.#prefix}tier`,
      this.#order.keys[0],
      this.#cancel.keys[0],
      b.keys[1],
      b.keys[2],
    ];
  }

  #setTier(name: string): void {
    const t = parseSignerTier(name);
    if (t === undefined || t === this.#tier) return;
    this.#spec = signerTier(t, this.#scale, 'budgets.signerTier');
    this.#tier = t;
  }

  /**
   * Wait (FIFO per bucket in this member) until the fleet's bucket holds the request's cost, then
   * hold it as in flight.
   * @throws ValidationError when the cost exceeds the bucket's burst; SharedBudgetUnavailableError
   *   when Redis does not answer; the signal's reason when aborted while waiting
   */
  acquire(req: SignerRequest, signal?: AbortSignal): Promise<SignerTicket> {
    const b = req.bucket === 'order' ? this.#order : this.#cancel;
    if (req.cost > this.#sharedSpec(this.#spec)[req.bucket].burst)
      return Promise.reject(this.#tooBig(req, this.#sharedSpec(this.#spec)[req.bucket].burst));
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise<SignerTicket>((resolve, reject) => {
      const w: Waiter = { req, resolve, reject, signal, onAbort: undefined, gone: false };
      if (signal !== undefined) {
        w.onAbort = () => {
          w.gone = true;
          const i = b.waiters.indexOf(w);
          if (i > 0 || (i === 0 && !b.running)) {
            b.waiters.splice(i, 1);
            reject(abortReason(signal));
            this.#pump(b);
          }
        };
        signal.addEventListener('abort', w.onAbort, { once: true });
      }
      b.waiters.push(w);
      this.#pump(b);
    });
  }

  #tooBig(req: SignerRequest, burst: number): ValidationError {
    return new ValidationError(
      `this request costs ${req.cost} ${req.bucket} tokens but the ${this.#tier} tier's ${req.bucket} bucket holds ` +
        `at most ${burst}: the venue can never admit it; split it into requests of at most ${burst}`,
    );
  }

  #settle(b: Bucket, w: Waiter): void {
    const i = b.waiters.indexOf(w);
    if (i >= 0) b.waiters.splice(i, 1);
    if (w.signal && w.onAbort) w.signal.removeEventListener('abort', w.onAbort);
  }

  #pump(b: Bucket): void {
    if (b.running) {
      b.again = true;
      return;
    }
    const w = b.waiters[0];
    if (w === undefined) return;
    b.running = true;
    b.again = false;
    const ticket = `${this.#ticketBase}${++this.#seq}`;
    const sentAt = this.#clock.now();
    const run = this.#run(S.acquire, this.#keys(b), [
      this.#nowArg(),
      ...tierArgs(this.#sharedSpec(this.#spec)),
      ticket,
      w.req.cost,
      w.req.postCharged ? 1 : 0,
      this.#ttl,
      b.name === 'order' ? 1 : 2,
      this.#used ? 'E' : 'F',
    ]).then(
      (res) => {
        this.#used = true;
        const [now, code, v] = res as [number, number, number | string];
        this.#offset = Number(now) - sentAt;
        if (code === 1) {
          this.#settle(b, w);
          this.#held.set(ticket, b);
          const t = this.#ticket(b, ticket, w.req);
          if (w.gone) {
            t.release('unsent');
            w.reject(w.signal !== undefined ? abortReason(w.signal) : new DOMException('closed', 'AbortError'));
          } else w.resolve(t);
          b.again = true;
        } else if (code === -2) {
          this.#setTier(String(v));
          b.again = true;
        } else if (code === -3) {
          this.#settle(b, w);
          w.reject(this.#tooBig(w.req, Number(v)));
          b.again = true;
        } else {
          const at = Number(v);
          const local = at >= NEVER ? this.#clock.now() + this.#pollMs : at - this.#offset;
          b.wake.arm(local);
        }
      },
      (err: unknown) => {
        // fail fast: the head waiter gets the error (or, a cancel, the emergency reserve), the others try in turn
        const r = this.#reserve;
        if (b.name === 'cancel' && !w.gone && r !== undefined && w.req.cost <= r.spec.burst) {
          const t = this.#fromReserve(w.req);
          if (t !== undefined) {
            this.#settle(b, w);
            w.resolve(t);
            b.again = true;
          } else {
            // the reserve refills (or its requests in flight come back): look again then (Redis first)
            const wait = r.bucket.waitMs(w.req.cost + r.inflight, this.#clock.now());
            b.wake.arm(this.#clock.now() + (Number.isFinite(wait) && wait > 0 ? wait : this.#pollMs));
          }
          return;
        }
        this.#settle(b, w);
        w.reject(err);
        b.again = true;
      },
    );
    this.#track(
      run.finally(() => {
        b.running = false;
        if (w.gone && b.waiters[0] === w) {
          this.#settle(b, w);
          w.reject(abortReason(w.signal!));
          b.again = true;
        }
        if (b.again) this.#pump(b);
      }),
    );
  }

  /** A ticket of the local reserve when it can take `req` now (Redis unreachable), else undefined. */
  #fromReserve(req: SignerRequest): SignerTicket | undefined {
    const r = this.#reserve;
    if (r === undefined) return undefined;
    const now = this.#clock.now();
    if (r.exclusive || (req.postCharged && r.inflightCount > 0)) return undefined;
    if (r.bucket.milli(now) < (req.cost + r.inflight) * 1000) return undefined;
    holdTokens(r, req);
    let done = false;
    return {
      release: (outcome) => {
        if (done) return;
        done = true;
        releaseTokens(r, r.bucket, req, outcome, this.#clock.now());
      },
    };
  }

  /** A tier as the shared bucket budgets it: the cancel bucket less the members' reserves. */
  #sharedSpec(t: SignerTier): SignerTier {
    const r = this.#reserve;
    if (r === undefined) return t;
    return {
      ...t,
      cancel: { rate: t.cancel.rate - r.members * r.spec.rate, burst: t.cancel.burst - r.members * r.spec.burst },
    };
  }

  #ticket(b: Bucket, ticket: string, req: SignerRequest): SignerTicket {
    let done = false;
    return {
      release: (outcome?: SendOutcome | 'unsent') => {
        if (done) return;
        done = true;
        this.#held.delete(ticket);
        const o = outcome === 'unsent' ? undefined : outcome;
        const charge = outcome !== 'unsent' && o?.status !== 429 ? 1 : 0;
        const post =
          req.postCharged && o !== undefined && o.status >= 200 && o.status < 300 ? cancelledCount(o.text) : 0;
        const named = o !== undefined ? parseSignerTier(header(o.headers, SIGNER_HEADERS.tier)) : undefined;
        const t = named !== undefined ? signerTier(named, this.#scale, 'budgets.signerTier') : undefined;
        let lower = '';
        let retryMs = 0;
        let resetMs = 0;
        const pause = o !== undefined && o.status === 429 && header(o.headers, SIGNER_HEADERS.tier) !== undefined;
        if (pause) {
          const remaining = Number(header(o.headers, SIGNER_HEADERS.remaining));
          if (Number.isFinite(remaining)) lower = String(Math.floor(remaining));
          const retry = Number(header(o.headers, 'retry-after'));
          const reset = Number(header(o.headers, SIGNER_HEADERS.reset));
          if (Number.isFinite(retry) && retry > 0) retryMs = Math.ceil(retry * 1000);
          // the venue's reset is unix seconds: Redis's clock is the fleet's, close enough to the venue's
          if (Number.isFinite(reset) && reset > 0) resetMs = Math.ceil(reset * 1000);
        }
        this.#track(
          this.#release(b, ticket, charge, post, t, lower, retryMs, resetMs, pause).finally(() => {
            this.#pump(this.#order);
            this.#pump(this.#cancel);
          }),
        );
      },
    };
  }

  async #release(
    b: Bucket,
    ticket: string,
    charge: number,
    post: number,
    t: SignerTier | undefined,
    lower: string,
    retryMs: number,
    resetMs: number,
    pause: boolean,
  ): Promise<void> {
    const res = (await this.#run(S.release, this.#keys(b), [
      this.#nowArg(),
      ...tierArgs(this.#sharedSpec(this.#spec)),
      b.name === 'order' ? 1 : 2,
      ticket,
      charge,
      post,
      ...(t !== undefined ? tierArgs(this.#sharedSpec(t)) : ['', 0, 0, 0, 0, 0]),
      lower,
      retryMs,
      resetMs,
      pause ? 1 : 0,
      this.#used ? 'E' : 'F',
    ])) as [number, string];
    this.#used = true;
    this.#setTier(String(res[1]));
  }

  /**
   * Budget against another tier from now on, for the whole fleet (a higher one keeps the tokens, a
   * lower one empties the buckets).
   * @throws ConfigError on an unknown tier
   */
  adoptTier(name: string): void {
    const t = signerTier(name, this.#scale, 'budgets.signerTier');
    if (t.name === this.#tier) return;
    this.#track(
      this.#release(this.#order, '', 0, 0, t, '', 0, 0, false).finally(() => {
        this.#pump(this.#order);
        this.#pump(this.#cancel);
      }),
    );
  }

  /** The fleet's buckets as of the last `refresh()` (a stale snapshot starts one), this member's waiters. */
  stats(): SignerBudgetStats {
    if (this.#clock.now() - this.#refreshedAt >= 500) this.#track(this.refresh());
    return {
      tier: this.#snap.tier,
      order: { ...this.#snap.order, waiting: this.#order.waiters.length },
      cancel: { ...this.#snap.cancel, waiting: this.#cancel.waiters.length },
    };
  }

  /** Read both buckets from Redis (for `stats`). */
  async refresh(): Promise<void> {
    const sentAt = this.#clock.now();
    this.#refreshedAt = sentAt;
    const res = (await this.#run(
      S.state,
      [`${this.#prefix}clock`, `${this.#prefix}tier`, ...this.#order.keys, ...this.#cancel.keys],
      [this.#nowArg()],
    )) as (number | string)[];
    const now = Number(res[0]);
    this.#offset = now - sentAt;
    if (res[1] !== '') this.#setTier(String(res[1]));
    const one = (bucket: SignerBucketName, i: number): SignerBucketStats => {
      const [m, rate, burst, inflight, , paused] = res.slice(i, i + 6).map(Number) as number[];
      if (burst === 0) return EMPTY_STATS(bucket, this.#spec);
      return {
        bucket,
        rate: rate!,
        burst: burst!,
        available: Math.floor((m! - inflight! * 1000) / 1000),
        inflight: inflight!,
        waiting: 0,
        pausedUntil: paused! > now ? paused! - this.#offset : 0,
      };
    };
    this.#snap = { tier: this.#tier, order: one('order', 2), cancel: one('cancel', 8) };
  }

  #renew(): void {
    if (this.#held.size === 0) return;
    this.#track(
      this.#run(
        S.renew,
        [`${this.#prefix}clock`, this.#order.keys[1], this.#cancel.keys[1]],
        [this.#nowArg(), this.#ttl, ...this.#held.keys()],
      ),
    );
  }

  /** Reject every waiter and stop the timers (tickets held stay until released). */
  close(reason: unknown): void {
    for (const b of [this.#order, this.#cancel]) {
      const ws = b.waiters;
      b.waiters = [];
      for (const w of ws) {
        w.gone = true;
        if (w.signal && w.onAbort) w.signal.removeEventListener('abort', w.onAbort);
        w.reject(reason);
      }
      b.wake.clear();
    }
    if (this.#tick !== undefined) this.#clock.clearInterval(this.#tick);
    this.#tick = undefined;
  }
}
