/**
 * The emergency reserve of a fleet member's budgets (issue 21; /work/notes/issue21-research.md §0):
 * when Redis is unreachable nobody can grant a shared slot, yet a member must still pull its quotes
 * (DELETE /cancel-all, /cancel-market-orders) and, as the heartbeat holder, feed the dead-man
 * switch (POST /v1/heartbeats). So every rule those requests use keeps `reserve` slots per member
 * out of the shared windows: the shared limit is `limit − maxMembers × reserve`, and each member
 * holds a local WindowGate of `reserve` slots per such rule, used only for those requests and only
 * while the shared gate cannot answer. Together the fleet stays inside every limit:
 * (limit − M·r) shared + M·r reserved, whatever the timing. `fleet.maxMembers` is enforced when a
 * member joins (./window-gate.ts).
 */
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

/**
 * The rules split: `shared` (every rule, those of the reserve lowered by maxMembers × reserve) for
 * the Redis gate, `reserve` (reserve slots of those rules) for the local one.
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
    const left = r.limit - o.maxMembers * o.reserve;
    if (left < 1)
      throw new ConfigError(
        'fleet.reserve',
        `rule ${r.name} allows ${r.limit}: it cannot keep ${o.reserve} for each of ${o.maxMembers} members (lower fleet.reserve or fleet.maxMembers)`,
      );
    shared.push({ name: r.name, limit: left, windowMs: r.windowMs });
    reserve.push({ name: r.name, limit: o.reserve, windowMs: r.windowMs });
  }
  return { shared, reserve };
}

/** The shared gate, with this member's emergency reserve behind it (see the module comment). */
export class ReserveGate implements BudgetGate {
  readonly #shared: RedisWindowGate;
  readonly #reserve: WindowGate;
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
      this.#reserve.acquire(names, signal).then((t) => {
        this.#used++;
        return t;
      });
    if (!this.#shared.available()) return fromReserve();
    return this.#shared.acquire(names, signal).catch((err: unknown) => {
      if (err instanceof SharedBudgetUnavailableError) return fromReserve();
      throw err;
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
