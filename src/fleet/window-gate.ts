/**
 * A fleet's shared request budgets: `RedisWindowGate` is `WindowGate` (src/api/http/budgets.ts)
 * with its state in Redis, so every daemon on one account draws from the same exact sliding
 * windows (issue 21; design: /work/notes/issue21-research.md §0, §1.3).
 *
 * The same decisions as the local gate, by construction:
 *  - the same rules (`budgetRules(config)`, from the one table src/core/rate-limits.ts); every
 *    member checks on `open` that the fleet runs the same table and margin (a digest in Redis), and
 *    refuses to join otherwise;
 *  - the same algorithm: one Lua script (./window-scripts.ts `ACQUIRE`) runs `WindowGate#pump`
 *    atomically over this member's waiters in FIFO order: all or nothing over the rules of each
 *    request, a request blocked on a rule holds back the later ones that need it; in-flight slots
 *    are held from the grant until the answer and stamped with the ANSWER time (`RELEASE`), and a
 *    slot frees `windowMs + marginMs` after its stamp;
 *  - one clock: Redis `TIME` (monotonic-clamped), so no clock sync between machines is needed.
 *    Timers here are the injected Clock's, armed with the delay Redis computed.
 * FIFO holds within a member; across members the order is that of the scripts' arrival.
 *
 * Proven by the differential property test (test/integration/fleet/window-gate.test.ts): random
 * sequences fed to this gate over a real Redis (time injected) and to the local WindowGate give the
 * same grants and the same counts.
 *
 * A slot whose member died (no release) counts as answered at its deadline (`liveTtlMs` after the
 * grant, pushed on every `liveTtlMs / 3` while the request is still in flight).
 *
 * Fail fast: the connection is the fleet's fail-fast profile (src/fleet/redis.ts), so when Redis is
 * down or hung an `acquire` rejects within its command timeout (500 ms) with a
 * `SharedBudgetUnavailableError`; nothing is sent. A failed release leaves the slot counted until
 * its deadline (conservative).
 *
 * Redis lost the windows (restarted without persistence, a failover): an epoch key disappears with
 * them. The first member to see that starts a new epoch and holds every grant for `reseedGraceMs`
 * (2 s); meanwhile every member (each checks every `epochCheckMs`, 500 ms, and before its next
 * grant) re-adds its own stamps still in their windows and its slots in flight, kept locally for
 * that. A member that cannot reach Redis during the hold, or a dead one, cannot re-add its stamps.
 *
 * The emergency reserve for pulling quotes while Redis is unreachable: ./reserve-gate.ts.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Clock, TimerHandle } from '../core/clock.ts';
import { ConfigError, NetworkError, type ErrorOptions } from '../core/errors.ts';
import type { RateRule } from '../core/rate-limits.ts';
import type { BudgetGate, BudgetTicket } from '../api/http/budgets.ts';
import { WakeTimer } from '../api/http/wake-timer.ts';
import { abortReason, queueWaiter } from '../api/http/budget-waiters.ts';
import { Script } from './lua-script.ts';
import {
  ACQUIRE,
  EPOCH,
  LOWER,
  MEMBERS,
  NEVER,
  PAUSE,
  RELEASE,
  RENEW,
  RESEED,
  STATE,
  TABLE,
} from './window-scripts.ts';

/**
 * Redis could not be asked for a budget slot (down, hung, or an error): the request was not sent.
 * Its own code, FLEET_BUDGET_UNAVAILABLE (not the venue's SERVICE_UNAVAILABLE: the venue is not at
 * fault), and not retried by the transport (src/api/http/retry.ts): the member fails closed while
 * its Redis is away (./fail-closed.ts), so a retry would only fill the log. The message is worded
 * for an operator; the Redis client's own error is the `cause`.
 */
export class SharedBudgetUnavailableError extends NetworkError {
  constructor(message: string, opts?: ErrorOptions) {
    super(message, 'FLEET_BUDGET_UNAVAILABLE', opts);
  }

  /** The error for `what` (the shared budgets' part) after the Redis client's error `cause`. */
  static of(what: string, cause: unknown): SharedBudgetUnavailableError {
    return new SharedBudgetUnavailableError(
      `fleet ${what}: the fleet's Redis is unreachable, so the request was not sent (the member pauses quoting until Redis is back)`,
      { cause },
    );
  }
}

export interface RedisWindowGateOptions {
  /** The account whose budgets these are (the wallet or funder address): the keys' hash tag. */
  account: string;
  /** This member's name (src/fleet/redis.ts memberName): in slot ids. */
  member: string;
  /** As WindowGate's: extra time a slot stays counted after its window, ms (default 50). */
  marginMs?: number;
  /** An in-flight slot's deadline after its grant or last renewal, ms (default 30,000). */
  liveTtlMs?: number;
  /** How often to look again when only in-flight slots (maybe another member's) block, ms (default 50). */
  pollMs?: number;
  /** Most waiters in one acquire script (default 256). */
  maxBatch?: number;
  /**
   * Most members sharing these budgets (0: no cap). A member beyond it refuses to join: the
   * emergency reserves (./reserve-gate.ts) are sized for this many. Members are counted by name,
   * seen on every tick (5 s); one silent for 3 ticks no longer counts.
   */
  maxMembers?: number;
  /**
   * After Redis lost the windows (a restart without persistence, a failover), grants are held this
   * long while every member re-adds its own recent stamps, ms (default 2,000; 0: not held).
   */
  reseedGraceMs?: number;
  /** How often a member checks whether Redis lost the windows, ms (default 500). */
  epochCheckMs?: number;
  /** Tests: the time the scripts use in place of Redis TIME (unix ms). */
  now?: () => number;
}

interface SharedRule {
  rule: RateRule;
  /** done, live, pause, limit */
  keys: [string, string, string, string];
  /** The lowest limit learned here (Infinity: none). */
  learned: number;
  pausedUntil: number;
  snap: { stamped: number; inflight: number; pausedUntil: number; learned: number };
  /** This member's own stamps (slot, Redis ms) still inside the window: re-added after Redis lost them. */
  own: [string, number][];
  ownHead: number;
}

interface Waiter {
  rules: SharedRule[];
  slot: string;
  resolve: (t: BudgetTicket) => void;
  reject: (e: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

const S = {
  acquire: new Script(ACQUIRE),
  release: new Script(RELEASE),
  renew: new Script(RENEW),
  pause: new Script(PAUSE),
  lower: new Script(LOWER),
  state: new Script(STATE),
  table: new Script(TABLE),
  members: new Script(MEMBERS),
  epoch: new Script(EPOCH),
  reseed: new Script(RESEED),
};

/** The key prefix of an account's windows. */
export function windowPrefix(account: string): string {
  return `mmkit:{${account.toLowerCase()}}:w:`;
}

/** The digest every member of a fleet must share: the rules in force and the margin. */
export function ruleTableDigest(rules: readonly RateRule[], marginMs: number): string {
  const t = rules.map((r) => [r.name, r.limit, r.windowMs]);
  return createHash('sha256').update(JSON.stringify({ t, marginMs })).digest('hex').slice(0, 32);
}

/** The shared windows of one account on Redis; see the module comment. */
export class RedisWindowGate implements BudgetGate {
  readonly #redis: Redis;
  readonly #clock: Clock;
  readonly #prefix: string;
  readonly #marginMs: number;
  readonly #ttl: number;
  readonly #pollMs: number;
  readonly #maxBatch: number;
  readonly #now: (() => number) | undefined;
  readonly #rules = new Map<string, SharedRule>();
  readonly #digest: string;
  readonly #slotBase: string;
  #seq = 0;
  #waiters: Waiter[] = [];
  #passing = false;
  #again = false;
  readonly #pending = new Set<Promise<unknown>>();
  readonly #wake: WakeTimer;
  /** Slots held (granted, not released): for renewal. */
  readonly #held = new Map<string, SharedRule[]>();
  #tick: TimerHandle | undefined;
  /** Redis time minus local time at the last reply (converts pause times). */
  #offset = 0;
  #refreshedAt = -Infinity;
  #errors = 0;
  readonly #member: string;
  readonly #maxMembers: number;
  readonly #tickMs: number;
  readonly #graceMs: number;
  readonly #epochCheckMs: number;
  /** The epoch of the windows this member's stamps are in ('' : none yet). */
  #epoch = '';
  #epochTimer: TimerHandle | undefined;

  /**
   * Prefer `RedisWindowGate.open` (it checks the fleet's rule table first).
   * @throws ConfigError on a bad option
   */
  constructor(redis: Redis, rules: Iterable<RateRule>, clock: Clock, o: RedisWindowGateOptions) {
    this.#redis = redis;
    this.#clock = clock;
    this.#marginMs = o.marginMs ?? 50;
    if (!(this.#marginMs >= 0) || !Number.isFinite(this.#marginMs))
      throw new ConfigError('budgets.marginMs', 'must be a non-negative number');
    this.#ttl = o.liveTtlMs ?? 30_000;
    this.#pollMs = o.pollMs ?? 50;
    this.#maxBatch = o.maxBatch ?? 256;
    this.#member = o.member;
    this.#maxMembers = o.maxMembers ?? 0;
    this.#graceMs = o.reseedGraceMs ?? 2_000;
    this.#epochCheckMs = o.epochCheckMs ?? 500;
    if (!Number.isSafeInteger(this.#graceMs) || this.#graceMs < 0)
      throw new ConfigError('fleet.reseedGraceMs', 'must be a non-negative integer');
    if (!Number.isSafeInteger(this.#epochCheckMs) || this.#epochCheckMs < 1)
      throw new ConfigError('fleet.epochCheckMs', 'must be a positive integer');
    if (!Number.isSafeInteger(this.#maxMembers) || this.#maxMembers < 0)
      throw new ConfigError('fleet.maxMembers', 'must be a non-negative integer');
    for (const [k, v] of [
      ['liveTtlMs', this.#ttl],
      ['pollMs', this.#pollMs],
      ['maxBatch', this.#maxBatch],
    ] as const)
      if (!Number.isSafeInteger(v) || v < 1) throw new ConfigError(`fleet.${k}`, 'must be a positive integer');
    if (o.account === '') throw new ConfigError('fleet', 'the shared budgets need the account address');
    this.#now = o.now;
    this.#prefix = windowPrefix(o.account);
    this.#slotBase = `${o.member}:${Math.floor(Math.random() * 2 ** 48).toString(36)}:`;
    const list = [...rules];
    for (const r of list) {
      const p = this.#prefix;
      this.#rules.set(r.name, {
        rule: r,
        keys: [`${p}done:${r.name}`, `${p}live:${r.name}`, `${p}pause:${r.name}`, `${p}limit:${r.name}`],
        learned: Infinity,
        pausedUntil: 0,
        snap: { stamped: 0, inflight: 0, pausedUntil: 0, learned: 0 },
        own: [],
        ownHead: 0,
      });
    }
    this.#digest = ruleTableDigest(list, this.#marginMs);
    this.#tickMs = Math.max(1, Math.min(5_000, Math.floor(this.#ttl / 3)));
    this.#wake = new WakeTimer(clock, () => this.#pump());
  }

  /**
   * A gate whose rule table agrees with the fleet's (the first member sets it; it lasts the
   * longest window after the last member stops renewing it).
   * @throws ConfigError when the fleet runs another table or margin; SharedBudgetUnavailableError when Redis cannot be reached
   */
  static async open(
    redis: Redis,
    rules: Iterable<RateRule>,
    clock: Clock,
    o: RedisWindowGateOptions,
  ): Promise<RedisWindowGate> {
    const g = new RedisWindowGate(redis, rules, clock, o);
    await g.#checkTable();
    const [ok, n] = await g.#seen(false);
    if (!ok)
      throw new ConfigError(
        'fleet.maxMembers',
        `the fleet has ${n} members already, its most (every member's emergency reserve is counted out of the shared budgets)`,
      );
    // a fresh Redis: the epoch starts without a hold (members already running start it with one)
    g.#epoch = await g.#currentEpoch(0);
    g.#tick = clock.setInterval(() => g.#onTick(), g.#tickMs);
    g.#epochTimer = clock.setInterval(() => g.#track(g.#checkEpoch()), g.#epochCheckMs);
    return g;
  }

  get #epochKeys(): [string, string, string] {
    return [`${this.#prefix}clock`, `${this.#prefix}epoch`, `${this.#prefix}hold`];
  }

  #newEpoch(): string {
    return `${this.#slotBase}${this.#clock.now().toString(36)}`;
  }

  /** The epoch in force; started (with grants held for graceMs) when Redis lost it. */
  async #currentEpoch(graceMs: number): Promise<string> {
    return String(await this.#run(S.epoch, this.#epochKeys, [this.#newEpoch(), graceMs, this.#nowArg()]));
  }

  /** Redis lost the windows (or another member started a new epoch): re-add this member's stamps. */
  async #checkEpoch(): Promise<void> {
    const e = await this.#currentEpoch(this.#graceMs);
    if (e !== this.#epoch) await this.#reseed(e);
  }

  /** Re-add this member's stamps still in their windows and its slots in flight under `epoch`. */
  async #reseed(epoch: string): Promise<void> {
    const keys: string[] = [`${this.#prefix}clock`, `${this.#prefix}epoch`];
    const args: (string | number)[] = [epoch, this.#ttl, this.#nowArg()];
    const now = this.#clock.now() + this.#offset;
    for (const r of this.#rules.values()) {
      this.#prune(r, now);
      const live = [...this.#held].filter(([, rules]) => rules.includes(r)).map(([slot]) => slot);
      const n = r.own.length - r.ownHead;
      if (n === 0 && live.length === 0) continue;
      keys.push(r.keys[0], r.keys[1]);
      args.push(r.rule.windowMs + this.#marginMs, n);
      for (let i = r.ownHead; i < r.own.length; i++) args.push(r.own[i]![0], r.own[i]![1]);
      args.push(live.length, ...live);
    }
    const res = (await this.#run(S.reseed, keys, args)) as [number, string];
    if (Number(res[0]) === 1) this.#epoch = epoch;
  }

  /** Drop own stamps out of their window (`now`: Redis ms). */
  #prune(r: SharedRule, now: number): void {
    const span = r.rule.windowMs + this.#marginMs;
    while (r.ownHead < r.own.length && r.own[r.ownHead]![1] + span <= now) r.ownHead++;
    if (r.ownHead > 1024 && r.ownHead * 2 > r.own.length) {
      r.own = r.own.slice(r.ownHead);
      r.ownHead = 0;
    }
  }

  /** Record this member as seen (or leaving); [joined, members]. */
  async #seen(leave: boolean): Promise<[boolean, number]> {
    const res = (await this.#run(
      S.members,
      [`${this.#prefix}clock`, `${this.#prefix}members`],
      [this.#member, 3 * this.#tickMs, this.#nowArg(), this.#maxMembers, leave ? 1 : 0],
    )) as number[];
    return [Number(res[0]) === 1, Number(res[1])];
  }

  /** Whether the connection is up now (a down one fails every script at once). */
  available(): boolean {
    return this.#redis.status === 'ready';
  }

  /** Leave the fleet's member count (on an orderly stop). */
  async leave(): Promise<void> {
    await this.#seen(true);
  }

  get #tableKey(): string {
    return `${this.#prefix}table`;
  }

  get #tableTtl(): number {
    let w = 0;
    for (const r of this.#rules.values()) w = Math.max(w, r.rule.windowMs);
    return w + this.#marginMs + this.#ttl;
  }

  async #checkTable(): Promise<void> {
    const cur = String(await this.#run(S.table, [this.#tableKey], [this.#digest, this.#tableTtl]));
    if (cur !== this.#digest) {
      // (the table outlives its last member by the longest window: a fleet upgraded to a version
      // whose shared budgets differ, e.g. another emergency reserve, waits that out once)
      const ttl = Number(await this.#redis.pttl(this.#tableKey).catch(() => -1));
      throw new ConfigError(
        'budgets',
        'the fleet sharing this account runs other budget rules or margin (budgets.*, or the emergency reserve of another mmkit version): every member must use the same ones' +
          (ttl > 0
            ? `; the other rules are kept ${Math.ceil(ttl / 1000)} s more while no member of theirs runs (their windows may still hold requests)`
            : ''),
      );
    }
  }

  async #run(s: Script, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    try {
      return await s.run(this.#redis, keys, args);
    } catch (e) {
      this.#errors++;
      throw SharedBudgetUnavailableError.of('request budgets', e);
    }
  }

  #nowArg(): string {
    return this.#now === undefined ? '' : String(this.#now());
  }

  /** Run a background operation, tracked by `idle()`; its failure is counted, never thrown. */
  #track(p: Promise<unknown>): void {
    const q = p.catch(() => undefined).finally(() => this.#pending.delete(q));
    this.#pending.add(q);
  }

  /** Resolves once no script of this gate is running or due (tests; shutdown). */
  async idle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }

  /** Scripts that failed so far (Redis down or hung). */
  get errors(): number {
    return this.#errors;
  }

  #rule(name: string): SharedRule {
    const r = this.#rules.get(name);
    if (r === undefined) throw new ConfigError(`budgets.rules.${name}`, 'unknown rule');
    return r;
  }

  #limitOf(r: SharedRule): number {
    let l = Math.min(r.rule.limit, r.learned);
    if (r.snap.learned > 0) l = Math.min(l, r.snap.learned);
    return l;
  }

  rule(name: string): RateRule | undefined {
    const r = this.#rules.get(name);
    return r === undefined ? undefined : { name: r.rule.name, limit: this.#limitOf(r), windowMs: r.rule.windowMs };
  }

  names(): string[] {
    return [...this.#rules.keys()];
  }

  /**
   * One slot in every named rule, all or nothing, FIFO per rule within this member.
   * @throws the signal's reason when aborted while waiting; SharedBudgetUnavailableError when Redis
   *   does not answer; ConfigError on an unknown rule name
   */
  acquire(names: readonly string[], signal?: AbortSignal): Promise<BudgetTicket> {
    const rules = names.map((n) => this.#rule(n));
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise<BudgetTicket>((resolve, reject) => {
      const w: Waiter = { rules, slot: this.#slotBase + ++this.#seq, resolve, reject, signal, onAbort: undefined };
      queueWaiter(
        () => this.#waiters,
        w,
        () => this.#pump(),
      );
    });
  }

  #pump(): void {
    if (this.#passing) {
      this.#again = true;
      return;
    }
    if (this.#waiters.length === 0) return;
    this.#passing = true;
    this.#track(this.#passes());
  }

  /** Acquire passes until nothing changed meanwhile (`#passing` is cleared in the same turn as the last check). */
  async #passes(): Promise<void> {
    try {
      do {
        this.#again = false;
        const batch = this.#waiters.slice(0, this.#maxBatch);
        if (batch.length === 0) return;
        const index = new Map<SharedRule, number>();
        const keys: string[] = [...this.#epochKeys];
        const ruleArgs: number[] = [];
        for (const w of batch)
          for (const r of w.rules)
            if (!index.has(r)) {
              index.set(r, index.size + 1);
              keys.push(...r.keys);
              ruleArgs.push(Math.min(r.rule.limit, r.learned), r.rule.windowMs);
            }
        const args: (string | number)[] = [
          this.#ttl,
          this.#marginMs,
          this.#nowArg(),
          index.size,
          this.#epoch,
          this.#newEpoch(),
          this.#graceMs,
          ...ruleArgs,
        ];
        for (const w of batch) args.push(w.slot, w.rules.length, ...w.rules.map((r) => index.get(r)!));
        let res: number[];
        try {
          res = (await this.#run(S.acquire, keys, args)) as number[];
          if (Number(res[1]) === -1) {
            // Redis lost the windows, or this member has not re-added its stamps to the new epoch yet
            await this.#reseed(String(res[2]));
            this.#again = true;
            continue;
          }
        } catch (err) {
          // fail fast: everyone of the batch still waiting gets the error (nothing was sent)
          for (const w of batch) this.#drop(w, err);
          continue;
        }
        const now = Number(res[0]);
        this.#offset = now - this.#clock.now();
        let earliest = Infinity;
        let granted = 0;
        for (let i = 0; i < batch.length; i++) {
          const w = batch[i]!;
          const ok = Number(res[1 + 2 * i]) === 1;
          const at = Number(res[2 + 2 * i]);
          const waiting = this.#waiters.includes(w);
          if (ok) {
            granted++;
            this.#held.set(w.slot, w.rules);
            const ticket = this.#ticket(w);
            if (!waiting) {
              ticket.release(); // aborted or closed while the script ran
              continue;
            }
            this.#waiters.splice(this.#waiters.indexOf(w), 1);
            if (w.signal && w.onAbort) w.signal.removeEventListener('abort', w.onAbort);
            w.resolve(ticket);
          } else if (waiting && at > 0) {
            earliest = Math.min(earliest, at >= NEVER ? now + this.#pollMs : at);
          }
        }
        if (granted > 0 && this.#waiters.length > batch.length - granted) this.#again = true;
        if (this.#waiters.length > 0 && earliest < Infinity) this.#wake.arm(this.#clock.now() + (earliest - now));
        else if (this.#waiters.length === 0) this.#wake.clear();
      } while (this.#again);
    } finally {
      this.#passing = false;
    }
  }

  #drop(w: Waiter, err: unknown): void {
    const i = this.#waiters.indexOf(w);
    if (i < 0) return;
    this.#waiters.splice(i, 1);
    if (w.signal && w.onAbort) w.signal.removeEventListener('abort', w.onAbort);
    w.reject(err);
  }

  #ticket(w: Waiter): BudgetTicket {
    let done = false;
    return {
      release: () => {
        if (done) return;
        done = true;
        this.#held.delete(w.slot);
        const keys: string[] = [`${this.#prefix}clock`];
        const args: (string | number)[] = [w.slot, '', this.#nowArg()];
        for (const r of w.rules) {
          keys.push(r.keys[0], r.keys[1]);
          args.push(r.rule.windowMs + this.#marginMs);
        }
        // kept here too (Redis's stamp; this estimate when Redis did not answer), for a reseed
        const estimate = this.#clock.now() + this.#offset;
        const keep = (at: number) => {
          for (const r of w.rules) {
            r.own.push([w.slot, at]);
            this.#prune(r, at);
          }
        };
        this.#track(
          this.#run(S.release, keys, args)
            .then(
              (now) => keep(Number(now)),
              (err: unknown) => {
                keep(estimate);
                throw err;
              },
            )
            .finally(() => this.#pump()),
        );
      },
    };
  }

  /** Pause rules until `untilMs` (local clock; a 429's reset) for the whole fleet. */
  pause(names: readonly string[], untilMs: number): void {
    const rules = names.map((n) => this.#rule(n));
    const at = Math.round(untilMs + this.#offset);
    const runs: Promise<unknown>[] = [];
    for (const r of rules) {
      r.pausedUntil = Math.max(r.pausedUntil, untilMs);
      runs.push(this.#run(S.pause, [`${this.#prefix}clock`, r.keys[2]], [at, '', this.#nowArg()]));
    }
    this.#track(Promise.allSettled(runs).then(() => this.#pump()));
  }

  /** Lower a rule's limit for the whole fleet (learned from the server); never raises it. */
  lowerLimit(name: string, limit: number): void {
    const r = this.#rule(name);
    const l = Math.max(1, Math.floor(limit));
    if (l < this.#limitOf(r)) {
      r.learned = l;
      this.#track(this.#run(S.lower, [r.keys[3]], [l]));
    }
  }

  /**
   * Per rule, as of the last `refresh()` (a stale snapshot starts one in the background): counted
   * slots of the whole fleet, in flight, this member's waiters, pause, limit.
   */
  ruleState(name: string): {
    used: number;
    inflight: number;
    waiting: number;
    pausedUntil: number;
    limit: number;
    learned: boolean;
  } {
    const r = this.#rule(name);
    if (this.#clock.now() - this.#refreshedAt >= 500) this.#track(this.refresh());
    let waiting = 0;
    for (const w of this.#waiters) if (w.rules.includes(r)) waiting++;
    const now = this.#clock.now();
    const paused = Math.max(r.pausedUntil, r.snap.pausedUntil > 0 ? r.snap.pausedUntil - this.#offset : 0);
    const limit = this.#limitOf(r);
    return {
      used: r.snap.stamped + r.snap.inflight,
      inflight: r.snap.inflight,
      waiting,
      pausedUntil: paused > now ? paused : 0,
      limit,
      learned: limit < r.rule.limit,
    };
  }

  /** Read every rule's shared state from Redis (for `ruleState`). */
  async refresh(): Promise<void> {
    this.#refreshedAt = this.#clock.now();
    const rules = [...this.#rules.values()];
    const keys = [`${this.#prefix}clock`, ...rules.flatMap((r) => r.keys)];
    const res = (await this.#run(S.state, keys, [
      this.#ttl,
      this.#marginMs,
      this.#nowArg(),
      ...rules.map((r) => r.rule.windowMs),
    ])) as number[];
    this.#offset = Number(res[0]) - this.#clock.now();
    rules.forEach((r, i) => {
      r.snap = {
        stamped: Number(res[1 + 4 * i]),
        inflight: Number(res[2 + 4 * i]),
        pausedUntil: Number(res[3 + 4 * i]),
        learned: Number(res[4 + 4 * i]),
      };
    });
  }

  #onTick(): void {
    this.#track(this.#checkTable());
    this.#track(this.#seen(false));
    if (this.#held.size === 0) return;
    const live = new Set<string>();
    for (const rules of this.#held.values()) for (const r of rules) live.add(r.keys[1]);
    this.#track(
      this.#run(S.renew, [`${this.#prefix}clock`, ...live], [this.#ttl, '', this.#nowArg(), ...this.#held.keys()]),
    );
  }

  /** Reject every waiter and stop the timers (slots held stay until released). */
  close(reason: unknown): void {
    const ws = this.#waiters;
    this.#waiters = [];
    for (const w of ws) {
      if (w.signal && w.onAbort) w.signal.removeEventListener('abort', w.onAbort);
      w.reject(reason);
    }
    this.#wake.clear();
    if (this.#tick !== undefined) this.#clock.clearInterval(this.#tick);
    this.#tick = undefined;
    if (this.#epochTimer !== undefined) this.#clock.clearInterval(this.#epochTimer);
    this.#epochTimer = undefined;
  }
}
