/**
 * Each fleet member's status record in Redis (issue 21, "Operating a fleet"): what `mmkit fleet
 * status` and the status page read about the other members. A member publishes a small JSON record
 * every `everyMs` (default 2 s) under `<prefix>status:<member>` with a ttl of 3 periods, so a dead
 * member's record disappears on its own (Redis's clock decides, no clock sync between machines);
 * `stop()` deletes it at once.
 *
 * The record: member name, markets it holds (its leases), open orders, fills this session, PnL
 * (realized, unrealized, fees, rewards, total: decimal strings of collateral), the shared budgets'
 * use as this member last read them (the windows are the fleet's, so any fresh record tells the
 * fleet's use), the heartbeat lease (held or not), and `at` (the member's clock, unix ms).
 *
 * Publishing never throws: a failure (Redis down) is counted and the next tick tries again.
 */
import type { Redis } from 'ioredis';
import type { Clock, TimerHandle } from '../core/clock.ts';
import { ValidationError } from '../core/errors.ts';
import { AMOUNT_DECIMALS, formatAmount, parseFixed } from '../core/units.ts';
import type { FleetKeys } from './fleet-keys.ts';

/** PnL figures, decimal strings of collateral (e.g. "-1.25"). total = realized + unrealized - fees + rewards. */
export interface MemberPnl {
  readonly realized: string;
  readonly unrealized: string;
  readonly fees: string;
  readonly rewards: string;
  readonly total: string;
}

/** One budget rule's use, fleet-wide, as a member last read it from the shared windows. */
export interface MemberBudgetUse {
  readonly used: number;
  readonly limit: number;
}

/** A member's status record (see the module comment). */
export interface MemberStatusRecord {
  readonly member: string;
  readonly markets: readonly string[];
  readonly openOrders: number;
  readonly fills: number;
  readonly pnl: MemberPnl;
  readonly budgets: Readonly<Record<string, MemberBudgetUse>>;
  readonly heartbeat: boolean;
  /**
   * The member's ledger id (its data dir's `fleet-ledger.id`): a daemon that joins under a name whose
   * live record has another ledger id is another daemon, refused (trial 14 F1); absent in older records.
   */
  readonly ledger?: string;
  /** The machine (host name) and process id of the member's daemon: `mmkit kill --fleet` waits for its exit there. */
  readonly host?: string;
  readonly pid?: number;
  /** When the record was made, the member's clock (unix ms). */
  readonly at: number;
}

/** The key of a member's record. */
export function memberStatusKey(keys: FleetKeys, member: string): string {
  return `${keys.prefix}status:${member}`;
}

const DECIMAL = /^-?\d{1,15}(\.\d{1,6})?$/;
const MEMBER = /^[A-Za-z0-9._-]{1,64}$/;

function count(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
    throw new ValidationError(`member status: ${what} must be a non-negative integer`);
  return v;
}

function decimal(v: unknown, what: string): string {
  if (typeof v !== 'string' || !DECIMAL.test(v))
    throw new ValidationError(`member status: pnl.${what} must be a decimal string`);
  return v;
}

/**
 * A record read back (JSON) and checked.
 * @throws ValidationError when it is not a member status record
 */
export function parseMemberStatus(raw: string): MemberStatusRecord {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    throw new ValidationError('member status: not JSON');
  }
  if (o === null || typeof o !== 'object') throw new ValidationError('member status: not an object');
  if (typeof o.member !== 'string' || !MEMBER.test(o.member))
    throw new ValidationError('member status: bad member name');
  if (!Array.isArray(o.markets) || !o.markets.every((m) => typeof m === 'string'))
    throw new ValidationError('member status: markets must be a list of ids');
  if (o.ledger !== undefined && (typeof o.ledger !== 'string' || o.ledger.length === 0 || o.ledger.length > 128))
    throw new ValidationError('member status: bad ledger id');
  if (o.host !== undefined && (typeof o.host !== 'string' || o.host.length === 0 || o.host.length > 255))
    throw new ValidationError('member status: bad host');
  if (o.pid !== undefined && (typeof o.pid !== 'number' || !Number.isSafeInteger(o.pid) || o.pid < 1))
    throw new ValidationError('member status: bad pid');
  const p = o.pnl as Record<string, unknown> | null;
  if (p === null || typeof p !== 'object') throw new ValidationError('member status: no pnl');
  const b = o.budgets as Record<string, unknown> | null;
  if (b === null || typeof b !== 'object' || Array.isArray(b)) throw new ValidationError('member status: no budgets');
  const budgets: Record<string, MemberBudgetUse> = {};
  for (const [k, v] of Object.entries(b)) {
    const u = v as Record<string, unknown> | null;
    if (u === null || typeof u !== 'object') throw new ValidationError(`member status: budget ${k} malformed`);
    budgets[k] = { used: count(u.used, `budgets.${k}.used`), limit: count(u.limit, `budgets.${k}.limit`) };
  }
  return {
    member: o.member,
    markets: o.markets as string[],
    openOrders: count(o.openOrders, 'openOrders'),
    fills: count(o.fills, 'fills'),
    pnl: {
      realized: decimal(p.realized, 'realized'),
      unrealized: decimal(p.unrealized, 'unrealized'),
      fees: decimal(p.fees, 'fees'),
      rewards: decimal(p.rewards, 'rewards'),
      total: decimal(p.total, 'total'),
    },
    budgets,
    heartbeat: o.heartbeat === true,
    ...(typeof o.ledger === 'string' ? { ledger: o.ledger } : {}),
    ...(typeof o.host === 'string' ? { host: o.host } : {}),
    ...(typeof o.pid === 'number' ? { pid: o.pid } : {}),
    at: count(o.at, 'at'),
  };
}

/** PnL (micro-collateral) as a record carries it. */
export function memberPnl(micro: { realized: number; unrealized: number; fees: number; rewards: number }): MemberPnl {
  return {
    realized: formatAmount(micro.realized),
    unrealized: formatAmount(micro.unrealized),
    fees: formatAmount(micro.fees),
    rewards: formatAmount(micro.rewards),
    total: formatAmount(micro.realized + micro.unrealized - micro.fees + micro.rewards),
  };
}

/** A signed decimal string of collateral -> micro (bigint). */
function micro(s: string): bigint {
  return s.startsWith('-') ? -parseFixed(s.slice(1), AMOUNT_DECIMALS) : parseFixed(s, AMOUNT_DECIMALS);
}

/** The members' PnL added up exactly (integers inside), decimal strings. */
export function totalPnl(records: readonly MemberStatusRecord[]): MemberPnl {
  const sum = (k: keyof MemberPnl) => records.reduce((s, r) => s + micro(r.pnl[k]), 0n);
  return {
    realized: formatAmount(sum('realized')),
    unrealized: formatAmount(sum('unrealized')),
    fees: formatAmount(sum('fees')),
    rewards: formatAmount(sum('rewards')),
    total: formatAmount(sum('total')),
  };
}

/** The fleet's budget use: per rule, the freshest record's figure (the windows are shared). */
export function fleetBudgetUse(records: readonly MemberStatusRecord[]): Record<string, MemberBudgetUse> {
  const out: Record<string, MemberBudgetUse> = {};
  for (const r of [...records].sort((a, b) => a.at - b.at)) Object.assign(out, r.budgets);
  return out;
}

/** Write one record (ttl `ttlMs`). */
export async function publishMemberStatus(
  redis: Redis,
  keys: FleetKeys,
  rec: MemberStatusRecord,
  ttlMs: number,
): Promise<void> {
  await redis.set(memberStatusKey(keys, rec.member), JSON.stringify(rec), 'PX', ttlMs);
}

/** The records of `members` that are there and well-formed (a malformed one is skipped), by name. */
export async function readMemberStatuses(
  redis: Redis,
  keys: FleetKeys,
  members: readonly string[],
): Promise<MemberStatusRecord[]> {
  if (members.length === 0) return [];
  const raws = await redis.mget(...members.map((m) => memberStatusKey(keys, m)));
  const out: MemberStatusRecord[] = [];
  for (const raw of raws) {
    if (raw === null) continue;
    try {
      out.push(parseMemberStatus(raw));
    } catch {
      // another version's record, or damaged: not shown
    }
  }
  return out.sort((a, b) => a.member.localeCompare(b.member));
}

export interface MemberStatusPublisherOptions {
  readonly redis: Redis;
  readonly keys: FleetKeys;
  readonly clock: Clock;
  /** This member's record now (`at` is set here). */
  readonly collect: () => Omit<MemberStatusRecord, 'at'>;
  /** Period, ms (default 2000); the record's ttl is 3 periods. */
  readonly everyMs?: number;
}

/** Publishes this member's record every period (see the module comment). */
export class MemberStatusPublisher {
  readonly #o: MemberStatusPublisherOptions;
  readonly #every: number;
  #timer: TimerHandle | undefined;
  #member: string | undefined;
  #inflight: Promise<void> | undefined;
  /** Publications that failed (Redis down, or `collect` threw). */
  failures = 0;
  /** Publications that succeeded. */
  published = 0;

  constructor(o: MemberStatusPublisherOptions) {
    const every = o.everyMs ?? 2000;
    if (!Number.isInteger(every) || every < 10)
      throw new ValidationError(`member status period must be an integer >= 10 ms, got ${every}`);
    this.#o = o;
    this.#every = every;
  }

  /** Publish now, then every period. */
  start(): void {
    if (this.#timer !== undefined) return;
    void this.publishNow();
    this.#timer = this.#o.clock.setInterval(() => void this.publishNow(), this.#every);
  }

  /** One publication (never throws). */
  publishNow(): Promise<void> {
    if (this.#inflight !== undefined) return this.#inflight;
    const run = async () => {
      try {
        const rec = { ...this.#o.collect(), at: this.#o.clock.now() };
        this.#member = rec.member;
        await publishMemberStatus(this.#o.redis, this.#o.keys, rec, 3 * this.#every);
        this.published++;
      } catch {
        this.failures++;
      }
    };
    this.#inflight = run().finally(() => {
      this.#inflight = undefined;
    });
    return this.#inflight;
  }

  /** Stop publishing and delete the record (best effort). */
  async stop(): Promise<void> {
    if (this.#timer !== undefined) this.#o.clock.clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#inflight;
    if (this.#member !== undefined)
      await this.#o.redis.del(memberStatusKey(this.#o.keys, this.#member)).catch(() => undefined);
  }
}
