/**
 * The emergency reserve of a fleet member's budgets (issue 21; /work/notes/issue21-research.md §0):
 * when Redis is unreachable nobody can grant a shared slot, yet a member must still pull its quotes
 * (DELETE /orders by id, DELETE /cancel-all, /cancel-market-orders) and, as the heartbeat holder,
 * feed the dead-man switch (POST /v1/heartbeats). So every rule those requests use keeps r slots
 * per member out of the shared windows: the shared limit is `limit − maxMembers × r`, and each
 * member holds a local WindowGate of r slots per such rule, used only for those requests and only
 * while the shared gate cannot answer. Together the fleet stays inside every limit:
 * (limit − M·r) shared + M·r reserved, whatever the timing. `fleet.maxMembers` is enforced when a
 * member joins (./window-gate.ts).
 *
 * r is `fleet.reserve` per 10 s of the rule's window, or 1 % of its limit when more (`reserveSlots`):
 * a sustained rule of 10 minutes keeps 60 times as many, else its reserve, used up by the pulls of one outage, would hold every
 * cancel of the next for the rest of its 10 minutes (trial 14 F4: a member's quotes rested through a
 * second outage, and the cycles waiting on the reserve held their markets and the shutdown); at
 * most half the rule's limit goes to the fleet's reserves (never less than `fleet.reserve`).
 *
 * A request never waits on the reserve for long (RESERVE_WAIT_MS): it fails fast, as the shared
 * gate does when Redis is away (SharedBudgetUnavailableError), so the executor's cycle ends and
 * the next one tries again, through the shared gate once Redis is back.
 */
import { abortReason } from '../api/http/budget-waiters.ts';
import type { BudgetGate, BudgetTicket } from '../api/http/budgets.ts';
import { WindowGate } from '../api/http/budgets.ts';
import type { Clock } from '../core/clock.ts';
import { ConfigError } from '../core/errors.ts';
import { type RateRule, ruleNamesFor } from '../core/rate-limits.ts';
import { type RedisWindowGate, SharedBudgetUnavailableError } from './window-gate.ts';

/** The rules of the requests the reserve serves (isReserveRequest in src/api/http/budgets.ts). */
export function reserveRuleNames(): Set<string> {
  return new Set([
    ...ruleNamesFor('clob', 'DELETE', '/orders'),
    ...ruleNamesFor('clob', 'DELETE', '/cancel-all'),
    ...ruleNamesFor('clob', 'DELETE', '/cancel-market-orders'),
    ...ruleNamesFor('clob', 'POST', '/v1/heartbeats'),
  ]);
}

/** How long a request waits for this member's reserve before it fails (ms): see the module comment. */
export const RESERVE_WAIT_MS = 1000;

const RESERVE_PER_MS = 10_000;

/**
 * A member's reserve slots of `rule`: `reserve` per 10 s of its window, or 1 % of its limit when
 * that is more (the broad rules every request counts in, `general` and `clob`, 15,000 per 10 s:
 * the pulls of every market and the heartbeats draw on them at once), at most half its limit
 * shared among `maxMembers`, never less than `reserve` (splitReserve refuses a limit too small).
 */
export function reserveSlots(rule: RateRule, reserve: number, maxMembers: number): number {
  const scaled = Math.max(
    reserve * Math.max(1, Math.floor(rule.windowMs / RESERVE_PER_MS)),
    Math.floor(rule.limit / 100),
  );
  return Math.max(reserve, Math.min(scaled, Math.floor(rule.limit / (2 * maxMembers))));
}

/**
 * The rules split: `shared` (every rule, those of the reserve lowered by maxMembers × their
 * reserveSlots) for the Redis gate, `reserve` (those slots of those rules) for the local one.
 * @throws ConfigError when a rule's limit cannot hold the reserves of maxMembers members
 */
export function splitReserve(
  rules: readonly RateRule[],
  o: { maxMembers: number; reserve: number },
): { shared: RateRule[]; reserve: RateRule[] } {
  if (!Number.isSafeInteger(o.reserve) || o.reserve < 0)
    throw new ConfigError('fleet.reserve', 'must be a non-negative integer');
  if (o.reserve === 0) return { shared: [...rules], reserve: [] };
  if (!Number.isSafeInteger(o.maxMembers) || o.maxMembers < 1)
    throw new ConfigError('fleet.maxMembers', 'must be a positive integer when fleet.reserve is on');
  const names = reserveRuleNames();
  const shared: RateRule[] = [];
  const reserve: RateRule[] = [];
  for (const r of rules) {
    if (!names.has(r.name)) {
      shared.push(r);
      continue;
    }
    const slots = reserveSlots(r, o.reserve, o.maxMembers);
    const left = r.limit - o.maxMembers * slots;
    if (left < 1)
      throw new ConfigError(
        'fleet.reserve',
        `rule ${r.name} allows ${r.limit}: it cannot keep ${slots} for each of ${o.maxMembers} members (lower fleet.reserve or fleet.maxMembers)`,
      );
    shared.push({ name: r.name, limit: left, windowMs: r.windowMs });
    reserve.push({ name: r.name, limit: slots, windowMs: r.windowMs });
  }
  return { shared, reserve };
}

/** The shared gate, with this member's emergency reserve behind it (see the module comment). */
export class ReserveGate implements BudgetGate {
  readonly #shared: RedisWindowGate;
  readonly #reserve: WindowGate;
  readonly #clock: Clock;
  /** Per rule with a reserve: the slots the fleet's reserves keep (maxMembers × reserve). */
  readonly #kept = new Map<string, number>();
  #used = 0;

  /** `reserve`: this member's reserve rules; `maxMembers`: how many members keep one. */
  constructor(
    shared: RedisWindowGate,
    reserve: readonly RateRule[],
    clock: Clock,
    o: { maxMembers: number; marginMs?: number },
  ) {
    this.#shared = shared;
    this.#clock = clock;
    this.#reserve = new WindowGate(reserve, clock, o.marginMs !== undefined ? { marginMs: o.marginMs } : {});
    for (const r of reserve) this.#kept.set(r.name, r.limit * o.maxMembers);
  }

  /** Requests granted from the reserve so far. */
  get reserveUsed(): number {
    return this.#used;
  }

  /**
   * As the shared gate; a reserve request (`opts.reserve`) whose rules all have a reserve is
   * granted from it when the shared gate is unreachable (at once when the connection is down).
   */
  acquire(names: readonly string[], signal?: AbortSignal, opts?: { reserve?: boolean }): Promise<BudgetTicket> {
    const covered = opts?.reserve === true && names.length > 0 && names.every((n) => this.#reserve.rule(n));
    if (!covered) return this.#shared.acquire(names, signal);
    const fromReserve = () =>
      this.#fromReserve(names, signal).then((t) => {
        this.#used++;
        return t;
      });
    if (!this.#shared.available()) return fromReserve();
    return this.#shared.acquire(names, signal).catch((err: unknown) => {
      if (err instanceof SharedBudgetUnavailableError) return fromReserve();
      throw err;
    });
  }

  /**
   * A slot of the reserve, waited for at most RESERVE_WAIT_MS (then SharedBudgetUnavailableError:
   * see the module comment); the caller's `signal` aborts it as before.
   */
  #fromReserve(names: readonly string[], signal: AbortSignal | undefined): Promise<BudgetTicket> {
    const ac = new AbortController();
    const onAbort = () => ac.abort(abortReason(signal!));
    if (signal !== undefined) {
      if (signal.aborted) return Promise.reject(abortReason(signal));
      signal.addEventListener('abort', onAbort, { once: true });
    }
    const timer = this.#clock.setTimeout(
      () =>
        ac.abort(
          new SharedBudgetUnavailableError(
            `fleet request budgets: the fleet's Redis is unreachable and this member's emergency reserve of ${names.join(', ')} is used up for now, so the request was not sent (tried again at the next cycle)`,
          ),
        ),
      RESERVE_WAIT_MS,
    );
    return this.#reserve.acquire(names, ac.signal).finally(() => {
      this.#clock.clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    });
  }

  /** The rule as the venue has it: the shared limit plus the reserves (what a 429's X-RateLimit-Limit is compared with). */
  rule(name: string): RateRule | undefined {
    const r = this.#shared.rule(name);
    return r === undefined ? undefined : { ...r, limit: r.limit + (this.#kept.get(name) ?? 0) };
  }

  pause(names: readonly string[], untilMs: number): void {
    this.#shared.pause(names, untilMs);
    const mine = names.filter((n) => this.#reserve.rule(n));
    if (mine.length > 0) this.#reserve.pause(mine, untilMs);
  }

  /** The venue's limit learned: the shared part is what is left of it after the reserves. */
  lowerLimit(name: string, limit: number): void {
    this.#shared.lowerLimit(name, Math.max(1, Math.floor(limit) - (this.#kept.get(name) ?? 0)));
  }

  /** The shared windows' state (limit: the shared part). */
  ruleState(name: string): ReturnType<BudgetGate['ruleState']> {
    return this.#shared.ruleState(name);
  }

  names(): string[] {
    return this.#shared.names();
  }

  close(reason: unknown): void {
    this.#shared.close(reason);
    this.#reserve.close(reason);
  }
}
