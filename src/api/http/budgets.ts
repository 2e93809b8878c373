/**
 * Request budgets: every request passes the budget of its endpoint before it is sent, so the venue
 * never has to say 429 (spec section 8; the rule table is src/core/rate-limits.ts, shared with the
 * paper exchange).
 *
 * Two layers:
 *  1. One Bottleneck per (api, method, endpoint): a FIFO queue with a concurrency cap, so a burst of
 *     calls to one endpoint waits in line instead of piling onto the sockets.
 *  2. A `WindowGate` of exact sliding windows, one per rule, shared by every endpoint the rule
 *     covers (`general` and `clob` by all of the CLOB, `POST /orders:burst` by one endpoint...). A
 *     request takes one slot in EVERY applicable rule at once (burst and sustained, the per-endpoint
 *     rule, the API group, `general`), all or nothing, and waits while any of them is full.
 *
 * Why the windows cannot overshoot the server's (the safety margin, measured):
 * The server counts a request when it ARRIVES; the client cannot see that instant, only bound it:
 * sent ≤ arrived ≤ answered. Counting a slot at send time (the naive way) lets two requests that
 * the client sent windowMs apart arrive less than windowMs apart (the first one waited in a socket
 * queue, the second did not): the unit test "send-time stamps overshoot a reordering server" shows
 * the server refusing such requests. So a slot is held as in-flight from send until the answer (or
 * the failure) and then stamped with the ANSWER time, which is never before the server's count;
 * the slot frees `windowMs + marginMs` after that stamp. Whatever the delays and the reordering,
 * every request the server counts in a window is one the client still counts (property-tested
 * against the exchange's own limiter with random latencies). `marginMs` (default 50 ms) only
 * absorbs timer granularity and clock-rate drift. The price of safety is time, not count: each
 * slot is reused (answer latency + marginMs) later than it could be, so at most rate × (latency +
 * margin) requests per window go unused: measured by test/bench/budget-saturation.bench.ts
 * against the exchange's default limits, 97-99% of the POST /orders and DELETE /orders burst
 * budgets in use in every 10 s window, zero 429s. A 1% count headroom instead would not be safe:
 * a full window refills all at once, so traffic stays clumped and a clump that arrives late
 * overlaps the next one at the server.
 *
 * On a 429 (`onRateLimited`): the rule that tripped is paused for everyone until the server's reset
 * (a shared circuit: no retry storm), and, when X-RateLimit-Limit says the server's limit is below
 * ours, that rule's limit is lowered to it (learned), so a misconfigured budget converges after
 * one refusal.
 *
 * A batch (POST /orders with 15 orders, DELETE /orders with many ids) is one request in the
 * windows, as the venue's edge counts it.
 *
 * 3. The venue's per-signer token buckets (./signer-budget.ts; the table is src/core/signer-limits.ts):
 *    an order or cancel request first waits until its signer's bucket holds its cost: there a batch
 *    counts its entries, a cancel its ids, a cancel-all 1 and then the orders it cancelled. Then it
 *    takes its window slots. Nothing here splits a request: one costing more than the bucket's burst
 *    is refused (ValidationError) before it is sent; the executor's batches (MAX_BATCH_ORDERS, 15)
 *    fit every tier's order burst (60 at the tightest) and the venue adapter cancels in chunks of
 *    CANCEL_CHUNK_IDS (120, the tightest cancel burst).
 */
import Bottleneck from 'bottleneck';
import type { Clock } from '../../core/clock.ts';
import { WakeTimer } from './wake-timer.ts';
import { abortReason, queueWaiter } from './budget-waiters.ts';
import { ConfigError } from '../../core/errors.ts';
import { resolveRateRules, ruleNamesFor, type RateRule } from '../../core/rate-limits.ts';
import type { BudgetSignerTier, SignerRequest } from '../../core/signer-limits.ts';
import {
  SignerBudget,
  type SignerGate,
  startTierOf,
  type SendOutcome,
  type SignerBudgetStats,
  type SignerTicket,
} from './signer-budget.ts';
import type { ApiName, HttpMethod } from './types.ts';

export type { SendOutcome } from './signer-budget.ts';

/** Budget configuration. Defaults are the spec's numbers. */
export interface BudgetConfig {
  /** Gate requests at all (default true). With false, requests go straight out (Bottleneck still queues). */
  enabled?: boolean;
  /** Multiplies every limit (after `rules`); floored, at least 1. Default 1. */
  scale?: number;
  /** Per rule name of src/core/rate-limits.ts, a replacement limit and/or window. */
  rules?: Partial<Record<string, { limit?: number; windowMs?: number }>>;
  /** Extra time a slot stays counted after its window, ms (default 50). See the module comment. */
  marginMs?: number;
  /** Requests in flight per endpoint (default 16). */
  maxConcurrent?: number;
  /** Lower a rule's limit to the server's X-RateLimit-Limit after a 429 (default true). */
  learnFromHeaders?: boolean;
  /**
   * When a slot is stamped: 'completion' (default: the answer's time, safe under any reordering)
   * or 'send' (naive; kept to measure the difference in tests).
   */
  stampAt?: 'completion' | 'send';
  /**
   * The venue's per-signer buckets: 'auto' (default: start at standard, the tightest, and adopt the
   * tier the venue names in Poly-RateLimit-Tier), a tier to start from (then adopt likewise), or
   * 'off'. `scale` multiplies their rates and bursts too.
   */
  signerTier?: BudgetSignerTier;
}

/** One rule's state for metrics. */
export interface RuleStats {
  name: string;
  limit: number;
  windowMs: number;
  /** Slots counted now: stamped in the window plus in flight. */
  used: number;
  inflight: number;
  /** Requests at the gate waiting for this rule. */
  waiting: number;
  /** Requests queued in the Bottlenecks of endpoints this rule covers (not yet at the gate). */
  queued: number;
  /** Unix ms until which the rule is paused after a 429 (0: not paused). */
  pausedUntil: number;
  /** True when the limit was lowered from a 429's X-RateLimit-Limit. */
  learned: boolean;
}

/** Per-endpoint queue state for metrics. */
export interface EndpointStats {
  key: string;
  queued: number;
  running: number;
  rules: string[];
}

/** Everything `Budgets.stats()` reports: per rule and per endpoint queue. */
export interface BudgetStats {
  rules: RuleStats[];
  endpoints: EndpointStats[];
  /** The per-signer buckets (absent when off). */
  signer?: SignerBudgetStats;
}

/** The budget slot of a running request (see `Budgets.schedule`). */
export interface BudgetSlot {
  /**
   * Take over the release: the slot stays held until the returned function is called (idempotent),
   * with the answer when there is one (the signer buckets read its post-charge and tier).
   */
  detach(): (outcome?: SendOutcome) => void;
}

/** A slot held in every rule of a request; release it once, when the answer (or the failure) came. */
export interface BudgetTicket {
  release(): void;
}

interface RuleWindow {
  rule: RateRule;
  limit: number;
  learned: boolean;
  /** Stamps (unix ms) of finished requests, non-decreasing, live from `head`. */
  stamps: number[];
  head: number;
  inflight: number;
  pausedUntil: number;
}

interface Waiter {
  windows: RuleWindow[];
  resolve: (t: BudgetTicket) => void;
  reject: (e: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/**
 * What `Budgets` needs of its windows: the local `WindowGate` below, or a fleet's shared windows on
 * Redis (src/fleet/window-gate.ts `RedisWindowGate`, the same decisions with the state in Redis).
 */
export interface BudgetGate {
  /** The effective rule (limit possibly learned) of that name. */
  rule(name: string): RateRule | undefined;
  /**
   * One slot in every named rule, all or nothing, waiting until all have room. `opts.reserve`: the
   * request pulls quotes or keeps the dead-man switch fed (`isReserveRequest`), so a fleet's gate
   * may grant it from its emergency reserve when the shared state is unreachable.
   */
  acquire(names: readonly string[], signal?: AbortSignal, opts?: { reserve?: boolean }): Promise<BudgetTicket>;
  /** Pause rules until `untilMs` (a 429's reset). */
  pause(names: readonly string[], untilMs: number): void;
  /** Lower a rule's limit (learned from the server); never raises it. */
  lowerLimit(name: string, limit: number): void;
  /** Per rule: counted, in flight, waiting, pause, limit. */
  ruleState(name: string): {
    used: number;
    inflight: number;
    waiting: number;
    pausedUntil: number;
    limit: number;
    learned: boolean;
  };
  names(): string[];
  /** Reject every waiter and stop the timers. */
  close(reason: unknown): void;
}

/**
 * Exact sliding windows for a set of rules, with in-flight slots, all-or-nothing acquisition and a
 * FIFO line per rule (a request blocked on a rule holds back later requests that need that rule,
 * and only those). Time comes from the injected clock; timers from it too.
 */
export class WindowGate implements BudgetGate {
  readonly #clock: Clock;
  readonly #marginMs: number;
  readonly #stampAtSend: boolean;
  readonly #windows = new Map<string, RuleWindow>();
  #waiters: Waiter[] = [];
  readonly #wake: WakeTimer;

  constructor(
    rules: Iterable<RateRule>,
    clock: Clock,
    opts: { marginMs?: number; stampAt?: 'completion' | 'send' } = {},
  ) {
    this.#clock = clock;
    this.#wake = new WakeTimer(clock, () => this.#pump());
    this.#marginMs = opts.marginMs ?? 50;
    this.#stampAtSend = opts.stampAt === 'send';
    if (!(this.#marginMs >= 0) || !Number.isFinite(this.#marginMs))
      throw new ConfigError('budgets.marginMs', 'must be a non-negative number');
    for (const r of rules)
      this.#windows.set(r.name, {
        rule: r,
        limit: r.limit,
        learned: false,
        stamps: [],
        head: 0,
        inflight: 0,
        pausedUntil: 0,
      });
  }

  /** The effective rule (limit possibly learned) of that name. */
  rule(name: string): RateRule | undefined {
    const w = this.#windows.get(name);
    return w === undefined ? undefined : { name: w.rule.name, limit: w.limit, windowMs: w.rule.windowMs };
  }

  #window(name: string): RuleWindow {
    const w = this.#windows.get(name);
    if (w === undefined) throw new ConfigError(`budgets.rules.${name}`, 'unknown rule');
    return w;
  }

  /**
   * Take one slot in every named rule, waiting (FIFO per rule) until all have room.
   * @throws the signal's reason when aborted while waiting; ConfigError on an unknown rule name.
   */
  acquire(names: readonly string[], signal?: AbortSignal): Promise<BudgetTicket> {
    const windows = names.map((n) => this.#window(n));
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise<BudgetTicket>((resolve, reject) => {
      const w: Waiter = { windows, resolve, reject, signal, onAbort: undefined };
      queueWaiter(
        () => this.#waiters,
        w,
        () => this.#pump(),
      );
    });
  }

  /** Pause rules until `untilMs` (a 429's reset): every request needing them waits. */
  pause(names: readonly string[], untilMs: number): void {
    for (const n of names) {
      const w = this.#window(n);
      w.pausedUntil = Math.max(w.pausedUntil, untilMs);
    }
    this.#pump();
  }

  /** Lower a rule's limit (learned from the server); never raises it. */
  lowerLimit(name: string, limit: number): void {
    const w = this.#window(name);
    const l = Math.max(1, Math.floor(limit));
    if (l < w.limit) {
      w.limit = l;
      w.learned = true;
    }
  }

  /** Per rule: counted, in flight, waiting (rules never used are included with zeros). */
  ruleState(name: string): {
    used: number;
    inflight: number;
    waiting: number;
    pausedUntil: number;
    limit: number;
    learned: boolean;
  } {
    const w = this.#window(name);
    this.#evict(w, this.#clock.now());
    let waiting = 0;
    for (const x of this.#waiters) if (x.windows.includes(w)) waiting++;
    return {
      used: w.stamps.length - w.head + w.inflight,
      inflight: w.inflight,
      waiting,
      pausedUntil: w.pausedUntil > this.#clock.now() ? w.pausedUntil : 0,
      limit: w.limit,
      learned: w.learned,
    };
  }

  names(): string[] {
    return [...this.#windows.keys()];
  }

  /** Reject every waiter and stop the timer (the gate stays usable). */
  close(reason: unknown): void {
    const ws = this.#waiters;
    this.#waiters = [];
    for (const w of ws) {
      if (w.signal && w.onAbort) w.signal.removeEventListener('abort', w.onAbort);
      w.reject(reason);
    }
    this.#wake.clear();
  }

  #evict(w: RuleWindow, now: number): void {
    const span = w.rule.windowMs + this.#marginMs;
    while (w.head < w.stamps.length && w.stamps[w.head]! + span <= now) w.head++;
    if (w.head > 1024 && w.head * 2 > w.stamps.length) {
      w.stamps = w.stamps.slice(w.head);
      w.head = 0;
    }
  }

  /** 0 when a slot is free now, else the unix ms when one frees (Infinity: only in-flight slots, wait for a release). */
  #readyAt(w: RuleWindow, now: number): number {
    this.#evict(w, now);
    const stamped = w.stamps.length - w.head;
    const excess = stamped + w.inflight + 1 - w.limit;
    let at = 0;
    if (excess > 0)
      at = excess <= stamped ? w.stamps[w.head + excess - 1]! + w.rule.windowMs + this.#marginMs : Infinity;
    if (w.pausedUntil > now) at = Math.max(at, w.pausedUntil);
    return at;
  }

  #pump(): void {
    const now = this.#clock.now();
    const blocked = new Set<RuleWindow>();
    let earliest = Infinity;
    const keep: Waiter[] = [];
    for (const waiter of this.#waiters) {
      let wait = 0;
      let held = false;
      for (const w of waiter.windows) {
        if (blocked.has(w)) held = true;
        const at = this.#readyAt(w, now);
        if (at > 0) {
          blocked.add(w);
          wait = Math.max(wait, at);
        }
      }
      if (wait === 0 && !held) {
        for (const w of waiter.windows) {
          if (this.#stampAtSend) this.#push(w, now);
          else w.inflight++;
        }
        if (waiter.signal && waiter.onAbort) waiter.signal.removeEventListener('abort', waiter.onAbort);
        waiter.resolve(this.#ticket(waiter.windows));
        continue;
      }
      if (wait > 0) earliest = Math.min(earliest, wait);
      keep.push(waiter);
    }
    this.#waiters = keep;
    this.#arm(earliest);
  }

  #push(w: RuleWindow, ts: number): void {
    const last = w.stamps.length > w.head ? w.stamps[w.stamps.length - 1]! : -Infinity;
    w.stamps.push(Math.max(ts, last));
  }

  #ticket(windows: RuleWindow[]): BudgetTicket {
    let done = this.#stampAtSend;
    return {
      release: () => {
        if (done) return;
        done = true;
        const now = this.#clock.now();
        for (const w of windows) {
          w.inflight--;
          this.#push(w, now);
        }
        this.#pump();
      },
    };
  }

  #arm(at: number): void {
    this.#wake.arm(this.#waiters.length === 0 ? Infinity : at);
  }
}

/**
 * The requests a fleet member must still be able to send when the fleet's shared budgets are
 * unreachable (src/fleet/reserve-gate.ts): pulling its quotes (its own orders by id, as the
 * executor cancels them; cancel-all, cancel-market-orders) and feeding the dead-man switch
 * (heartbeats).
 */
export function isReserveRequest(api: ApiName, method: HttpMethod, path: string): boolean {
  if (api !== 'clob') return false;
  const p = path.split('?')[0]!.replace(/\/+$/, '');
  return (
    (method === 'DELETE' && (p === '/orders' || p === '/cancel-all' || p === '/cancel-market-orders')) ||
    (method === 'POST' && (p === '/v1/heartbeats' || p === '/heartbeats'))
  );
}

/** The rules every group-level fallback of a 429 skips (they cover everything). */
const BROAD = new Set(['general', 'clob']);

const ID_SEGMENT = /^(0x[0-9a-f]+|\d{4,}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;
const MAX_ENDPOINTS = 500;

/**
 * The rules a budget configuration gates (src/core/rate-limits.ts after `scale` and `rules`), in
 * table order. The one source of the limits for the local gate and the fleet's shared one.
 * @throws ConfigError on an unknown rule name or a bad number
 */
export function budgetRules(config: BudgetConfig = {}): RateRule[] {
  return [
    ...resolveRateRules(
      {
        ...(config.scale !== undefined ? { scale: config.scale } : {}),
        ...(config.rules ? { rules: config.rules } : {}),
      },
      'budgets',
    ).values(),
  ];
}

/**
 * The budgets of one identity (one API key): a Bottleneck per endpoint in front of a WindowGate
 * of every spec-section-8 rule (or, in a fleet, the given shared gate over the same rules).
 */
export class Budgets {
  readonly #clock: Clock;
  readonly #gate: BudgetGate;
  readonly #enabled: boolean;
  readonly #learn: boolean;
  readonly #maxConcurrent: number;
  readonly #limiters = new Map<string, { limiter: Bottleneck; rules: string[]; active: number; folded: boolean }>();
  readonly #signer: SignerGate | undefined;

  /**
   * `opts.gate`: windows to use in place of a local WindowGate (a fleet's, built over
   * `budgetRules(config)`; `marginMs` and `stampAt` are then the gate's own). `opts.signer`: per-signer
   * buckets to use in place of a local SignerBudget (a fleet's shared ones; unused when they are off).
   * @throws ConfigError on an unknown rule name or tier, or a bad number.
   */
  constructor(config: BudgetConfig = {}, clock: Clock, opts: { gate?: BudgetGate; signer?: SignerGate } = {}) {
    this.#clock = clock;
    const tier = startTierOf(config.signerTier);
    this.#signer =
      tier === undefined || config.enabled === false
        ? undefined
        : (opts.signer ??
          new SignerBudget(clock, { tier, ...(config.scale !== undefined ? { scale: config.scale } : {}) }));
    const rules = budgetRules(config);
    this.#gate =
      opts.gate ??
      new WindowGate(rules, clock, {
        ...(config.marginMs !== undefined ? { marginMs: config.marginMs } : {}),
        ...(config.stampAt !== undefined ? { stampAt: config.stampAt } : {}),
      });
    this.#enabled = config.enabled ?? true;
    this.#learn = config.learnFromHeaders ?? true;
    this.#maxConcurrent = config.maxConcurrent ?? 16;
    if (!Number.isSafeInteger(this.#maxConcurrent) || this.#maxConcurrent < 1)
      throw new ConfigError('budgets.maxConcurrent', 'must be a positive integer');
  }

  /** The gate (for tests and metrics). */
  get gate(): BudgetGate {
    return this.#gate;
  }

  /** The per-signer buckets (undefined when off). */
  get signer(): SignerGate | undefined {
    return this.#signer;
  }

  /** The rule names that apply to a request (src/core/rate-limits.ts). */
  rulesFor(api: ApiName, method: HttpMethod, path: string): string[] {
    return ruleNamesFor(api, method, path);
  }

  /** The Bottleneck key of an endpoint: ids in the path (0x…, long numbers, UUIDs) become `:id`. */
  endpointKey(api: ApiName, method: HttpMethod, path: string): string {
    const q = path.indexOf('?');
    const p = (q >= 0 ? path.slice(0, q) : path)
      .split('/')
      .map((s) => (ID_SEGMENT.test(s) ? ':id' : s))
      .join('/');
    return `${api} ${method} ${p}`;
  }

  #endpoint(
    api: ApiName,
    method: HttpMethod,
    path: string,
  ): { limiter: Bottleneck; rules: string[]; active: number; folded: boolean } {
    let key = this.endpointKey(api, method, path);
    let e = this.#limiters.get(key);
    if (e !== undefined) return e;
    // bound the number of queues (unknown id shapes in paths): fold the rest per API and method
    if (this.#limiters.size >= MAX_ENDPOINTS) {
      key = `${api} ${method} *`;
      e = this.#limiters.get(key);
      if (e !== undefined) return e;
    }
    e = {
      limiter: new Bottleneck({ maxConcurrent: this.#maxConcurrent }),
      rules: this.rulesFor(api, method, path),
      active: 0,
      folded: key.endsWith(' *'),
    };
    this.#limiters.set(key, e);
    return e;
  }

  /**
   * Run `send` once the endpoint's queue, the signer's bucket (when `signer` says what the request
   * costs there) and every applicable window allow it. The slot is held until `send` settles, or, if
   * `send` calls `slot.detach()`, until the function that returns is called (for a request that
   * outlives its caller's timeout: its slot is held until its answer).
   * @throws whatever `send` throws; the signal's reason when aborted while queued or waiting; a
   *   ValidationError when `signer`'s cost exceeds its bucket's burst
   */
  async schedule<T>(
    api: ApiName,
    method: HttpMethod,
    path: string,
    send: (slot: BudgetSlot) => Promise<T>,
    signal?: AbortSignal,
    signer?: SignerRequest,
  ): Promise<T> {
    const e = this.#endpoint(api, method, path);
    const rules = e.folded ? this.rulesFor(api, method, path) : e.rules;
    const reserve = isReserveRequest(api, method, path);
    const job = async (): Promise<T> => {
      if (signal?.aborted) throw abortReason(signal);
      if (!this.#enabled) return send({ detach: () => () => undefined });
      const sticket: SignerTicket | undefined =
        signer !== undefined && this.#signer !== undefined ? await this.#signer.acquire(signer, signal) : undefined;
      let ticket: BudgetTicket;
      try {
        ticket = await this.#gate.acquire(rules, signal, reserve ? { reserve } : undefined);
      } catch (err) {
        sticket?.release('unsent');
        throw err;
      }
      let detached = false;
      try {
        return await send({
          detach: () => {
            detached = true;
            return (outcome?: SendOutcome) => {
              ticket.release();
              sticket?.release(outcome);
            };
          },
        });
      } finally {
        if (!detached) {
          ticket.release();
          sticket?.release();
        }
      }
    };
    const counted = async (): Promise<T> => {
      e.active++;
      try {
        return await job();
      } finally {
        e.active--;
      }
    };
    // Fast path: nobody is queued for this endpoint and it has room: skip Bottleneck's timer-driven
    // dispatch (milliseconds of latency) and go straight to the window gate, which keeps the FIFO
    // order per rule. (Bottleneck does not see fast-path jobs, so concurrency may briefly reach
    // twice maxConcurrent; the windows, which are what the venue enforces, are never exceeded.)
    const c = e.limiter.counts();
    const idle = c.RECEIVED === 0 && c.QUEUED === 0 && c.RUNNING === 0 && c.EXECUTING === 0;
    const run = idle && e.active < this.#maxConcurrent ? counted() : e.limiter.schedule(counted);
    if (signal === undefined) return run;
    return raceAbort(run, signal);
  }

  /**
   * A 429 arrived for this endpoint: pause the rule that tripped until `retryAfterMs` from now, for
   * every request that needs it, and learn the server's limit when it is below ours.
   * The rule is the one whose limit equals X-RateLimit-Limit; else, when learning, the tightest
   * rule above the server's limit (lowered to it); else the endpoint's own rules.
   * Returns the names paused. A 429 of the venue's per-signer buckets (`layer` 'signer') pauses no
   * window: its bucket was lowered and paused when the slot was released (./signer-budget.ts).
   */
  onRateLimited(
    api: ApiName,
    method: HttpMethod,
    path: string,
    retryAfterMs: number,
    serverLimit?: number,
    layer: 'window' | 'signer' = 'window',
  ): string[] {
    if (layer === 'signer') return [];
    const names = this.rulesFor(api, method, path);
    let target: string[] = [];
    if (serverLimit !== undefined && Number.isSafeInteger(serverLimit) && serverLimit > 0) {
      target = names.filter((n) => this.#gate.rule(n)?.limit === serverLimit);
      if (target.length === 0 && this.#learn) {
        let best: RateRule | undefined;
        for (const n of names) {
          const r = this.#gate.rule(n)!;
          if (r.limit > serverLimit && (best === undefined || r.limit < best.limit)) best = r;
        }
        if (best !== undefined) {
          this.#gate.lowerLimit(best.name, serverLimit);
          target = [best.name];
        }
      }
    }
    if (target.length === 0) {
      target = names.filter((n) => !BROAD.has(n));
      if (target.length === 0) target = names.filter((n) => n !== 'general');
      if (target.length === 0) target = names;
    }
    this.#gate.pause(target, this.#clock.now() + Math.max(0, retryAfterMs));
    return target;
  }

  /** Per rule and per endpoint figures, for metrics. Only rules some endpoint has used are listed. */
  stats(): BudgetStats {
    const used = new Set<string>();
    const queuedByRule = new Map<string, number>();
    const endpoints: EndpointStats[] = [];
    for (const [key, e] of this.#limiters) {
      const c = e.limiter.counts();
      const queued = (c.RECEIVED ?? 0) + (c.QUEUED ?? 0);
      endpoints.push({ key, queued, running: (c.RUNNING ?? 0) + (c.EXECUTING ?? 0), rules: [...e.rules] });
      for (const r of e.rules) {
        used.add(r);
        queuedByRule.set(r, (queuedByRule.get(r) ?? 0) + queued);
      }
    }
    const rules: RuleStats[] = [];
    for (const name of this.#gate.names()) {
      if (!used.has(name)) continue;
      const s = this.#gate.ruleState(name);
      const r = this.#gate.rule(name)!;
      rules.push({
        name,
        limit: s.limit,
        windowMs: r.windowMs,
        used: s.used,
        inflight: s.inflight,
        waiting: s.waiting,
        queued: queuedByRule.get(name) ?? 0,
        pausedUntil: s.pausedUntil,
        learned: s.learned,
      });
    }
    return { rules, endpoints, ...(this.#signer !== undefined ? { signer: this.#signer.stats() } : {}) };
  }

  /** Reject everything queued or waiting; idempotent. */
  async stop(reason: unknown = new DOMException('budgets stopped', 'AbortError')): Promise<void> {
    this.#gate.close(reason);
    this.#signer?.close(reason);
    await Promise.all(
      [...this.#limiters.values()].map((e) => e.limiter.stop({ dropWaitingJobs: true }).catch(() => undefined)),
    );
    this.#limiters.clear();
  }
}

/** Settle with `p`, or reject with the signal's reason as soon as it aborts (p keeps running). */
export function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    p.catch(() => undefined);
    return Promise.reject(abortReason(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      p.catch(() => undefined);
      reject(abortReason(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
