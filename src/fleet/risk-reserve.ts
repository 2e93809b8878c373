/**
 * The account's risk limits shared by a fleet (issue 21): `risk.maxNotionalGlobal` and
 * `risk.maxOpenOrdersGlobal` are the account's caps, and the members together never exceed them.
 *
 * Each member holds a grant, a credit line of notional (µ-collateral) and open orders, in one Redis
 * hash (`<prefix>risk:grants`, member -> "<notional>:<orders>:<refreshed at>"). The GRANT script
 * sets a member's grant to what it asks, cut to what the other members' grants leave of the caps,
 * atomically (integers; a bad ask is refused with nothing changed), so the sum of the grants never
 * exceeds the caps. The member's local gate then enforces own usage <= own grant (the kernel reads
 * the grant as its global caps: TraderFleet.globalCaps), so no order needs a Redis round trip.
 *
 * The keeper (`RiskKeeper`) asks every second for `usage + headroom` (headroom = a share of the
 * caps, `planAsk`): grants grow while the member uses them and shrink back when unused. The order
 * keeps the local gate safe: a smaller grant is adopted locally BEFORE it is sent (and held
 * `settleMs` first, so that the orders approved under the larger one are counted in the usage the
 * ask is made from), a larger one only AFTER Redis granted it. While Redis is unreachable the grant in force stays (the fail-closed
 * guard pulls the quotes anyway).
 *
 * Giving back to a member short of room (a member that restarted finds the caps held by the others,
 * who keep them while they use them): a member whose ask for room (`press`) was cut below its fair
 * share `ceil(cap / live members)` is marked short in `<prefix>risk:short` by the GRANT script
 * (per dimension, for `SHORT_MS`; cleared once it is not cut below its fair share any more), and the
 * script tells every other member so. A member told so gives back down to `floor(cap / live
 * members)` in that dimension (rounded down, so that the short one can reach its share rounded up
 * within the caps): its gate enforces the fair share at once (so it places no more, and the quotes it cuts
 * are cancelled), while the grant it asks Redis for stays at least its open orders' usage, so the
 * orders resting never exceed the caps together; the stored grant follows the usage down.
 *
 * Reaping: a grant not refreshed for `reapMs` (default 8 s: the membership's 3 s death plus one
 * market-lease period of 5 s, so that the market's taker has cancelled the dead member's orders)
 * is removed by the next GRANT of any member. A member that leaves cleanly releases its grant.
 * Every member must be configured with the same caps (a member's GRANT checks against its own).
 */
import type { Redis } from 'ioredis';
import type { Clock, TimerHandle } from '../core/clock.ts';
import { ValidationError } from '../core/errors.ts';
import type { FleetKeys } from './fleet-keys.ts';
import { Script } from './lua-script.ts';

/** Notional (µ-collateral) and open orders: a grant, a usage, or the caps. */
export interface RiskAmounts {
  readonly notional: number;
  readonly orders: number;
}

/** One member's grant as stored. */
export interface RiskGrant extends RiskAmounts {
  readonly member: string;
  /** When it was last asked for, Redis TIME ms. */
  readonly refreshedAt: number;
}

/** Grant not refreshed this long is reaped, ms (3 s membership death + a 5 s market lease). */
export const DEFAULT_REAP_MS = 8000;

/** A member's mark "short of room" counts this long after its last cut ask, ms (it asks every second). */
export const SHORT_MS = 3000;

/** Per dimension: whether another member is short of room (the others give back to their fair share). */
export interface RiskShortage {
  readonly notional: boolean;
  readonly orders: boolean;
}

const NONE_SHORT: RiskShortage = Object.freeze({ notional: false, orders: false });

/** The fair share of each cap among `liveMembers`: `ceil(cap / live members)`. Pure. */
export function fairShare(caps: RiskAmounts, liveMembers: number): RiskAmounts {
  const live = Math.max(1, Math.floor(liveMembers));
  return { notional: Math.ceil(caps.notional / live), orders: Math.ceil(caps.orders / live) };
}

const MEMBER = /^[A-Za-z0-9._-]{1,64}$/;

function checkAmounts(what: string, a: RiskAmounts): void {
  for (const [k, v] of [
    ['notional', a.notional],
    ['orders', a.orders],
  ] as const)
    if (!Number.isSafeInteger(v) || v < 0)
      throw new ValidationError(`${what}.${k} must be a non-negative safe integer, got ${v}`);
}

function checkMember(member: string): void {
  if (!MEMBER.test(member)) throw new ValidationError(`not a fleet member name: "${member}"`);
}

/**
 * What a member asks for, per dimension: its usage plus a headroom of `cap / (2 × live members)`
 * (at least 1 unit when the cap is positive), never more than the cap. `pressed` (the gate cut a
 * quote for lack of global room since the last ask) with the grant `held`: also at least
 * `held + headroom` up to a fair share `cap / live members`, so that a member whose quotes need
 * more than its headroom grows (beyond the fair share only through what it really uses). Pure.
 */
export function planAsk(
  usage: RiskAmounts,
  caps: RiskAmounts,
  liveMembers: number,
  pressed?: { readonly held: RiskAmounts },
): RiskAmounts {
  const live = Math.max(1, Math.floor(liveMembers));
  const one = (u: number, cap: number, held: number | undefined) => {
    if (cap <= 0) return 0;
    const head = Math.max(1, Math.ceil(cap / (2 * live)));
    let ask = Math.max(0, u) + head;
    if (held !== undefined) ask = Math.max(ask, Math.min(held + head, Math.ceil(cap / live)));
    return Math.min(cap, ask);
  };
  return {
    notional: one(usage.notional, caps.notional, pressed?.held.notional),
    orders: one(usage.orders, caps.orders, pressed?.held.orders),
  };
}

// KEYS: grants, short; ARGV: member, wantN, wantO, capN, capO, reapMs, fairN, fairO, shortMs
// (fair 0: not asking for room, never marked short)
// -> {grantN, grantO, othersShortN, othersShortO, reaped member...} (numbers as strings: exact up to 2^53)
const GRANT = new Script(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local me = ARGV[1]
local wantN, wantO = tonumber(ARGV[2]), tonumber(ARGV[3])
local capN, capO, reap = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
if not (wantN and wantO and capN and capO and reap) or wantN < 0 or wantO < 0 or capN < 0 or capO < 0 then
  return redis.error_reply('ERR risk grant: bad arguments')
end
local all = redis.call('HGETALL', KEYS[1])
local usedN, usedO, reaped = 0, 0, {}
for i = 1, #all, 2 do
  local m = all[i]
  if m ~= me then
    local n, o, at = string.match(all[i + 1], '^(%d+):(%d+):(%d+)$')
    if n == nil or now - tonumber(at) > reap then
      redis.call('HDEL', KEYS[1], m)
      reaped[#reaped + 1] = m
    else
      usedN = usedN + tonumber(n)
      usedO = usedO + tonumber(o)
    end
  end
end
local gN = math.max(0, math.min(wantN, capN - usedN))
local gO = math.max(0, math.min(wantO, capO - usedO))
redis.call('HSET', KEYS[1], me, string.format('%.0f:%.0f:%.0f', gN, gO, now))
local fairN, fairO = tonumber(ARGV[7]) or 0, tonumber(ARGV[8]) or 0
local shortMs = tonumber(ARGV[9]) or 3000
local sN = (gN < wantN and gN < fairN) and 1 or 0
local sO = (gO < wantO and gO < fairO) and 1 or 0
if sN + sO > 0 then
  redis.call('HSET', KEYS[2], me, string.format('%.0f:%d:%d', now, sN, sO))
else
  redis.call('HDEL', KEYS[2], me)
end
local gone = {}
for _, m in ipairs(reaped) do gone[m] = true end
local oN, oO = 0, 0
local short = redis.call('HGETALL', KEYS[2])
for i = 1, #short, 2 do
  local m = short[i]
  if m ~= me then
    local at, a, b = string.match(short[i + 1], '^(%d+):([01]):([01])$')
    if at == nil or gone[m] or now - tonumber(at) > shortMs then
      redis.call('HDEL', KEYS[2], m)
    else
      if a == '1' then oN = 1 end
      if b == '1' then oO = 1 end
    end
  end
end
local out = {string.format('%.0f', gN), string.format('%.0f', gO), tostring(oN), tostring(oO)}
for _, m in ipairs(reaped) do out[#out + 1] = m end
return out
`);

/** Parses a stored grant; null when unreadable (the GRANT script reaps those). */
export function parseGrant(member: string, raw: string): RiskGrant | null {
  const m = /^(\d+):(\d+):(\d+)$/.exec(raw);
  if (m === null) return null;
  const [notional, orders, refreshedAt] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (![notional, orders, refreshedAt].every(Number.isSafeInteger)) return null;
  return { member, notional, orders, refreshedAt };
}

/** The grants of the fleet's members (Redis side). */
export class RiskGrants {
  constructor(
    readonly redis: Redis,
    readonly keys: FleetKeys,
    readonly caps: RiskAmounts,
    readonly reapMs = DEFAULT_REAP_MS,
  ) {
    checkAmounts('risk caps', caps);
    if (!Number.isSafeInteger(reapMs) || reapMs < 1) throw new ValidationError(`reapMs must be a positive integer`);
  }

  /**
   * Sets `member`'s grant to `want` cut to what the others leave of the caps (and reaps stale
   * grants). With `fair` (the member asks for room: its fair share), a cut below it marks the member
   * short of room, and no cut clears the mark. Returns the grant in force, the members reaped and
   * whether another member is short of room (then this one gives back to its fair share).
   * @throws ValidationError on a bad member or ask (nothing sent); the client's error when Redis fails
   */
  async request(
    member: string,
    want: RiskAmounts,
    fair?: RiskAmounts,
  ): Promise<{ grant: RiskAmounts; reaped: string[]; othersShort: RiskShortage }> {
    checkMember(member);
    checkAmounts('risk ask', want);
    if (fair !== undefined) checkAmounts('risk fair share', fair);
    const r = (await GRANT.run(
      this.redis,
      [this.keys.riskGrants, this.keys.riskShort],
      [
        member,
        want.notional,
        want.orders,
        this.caps.notional,
        this.caps.orders,
        this.reapMs,
        fair?.notional ?? 0,
        fair?.orders ?? 0,
        SHORT_MS,
      ],
    )) as string[];
    return {
      grant: { notional: Number(r[0]), orders: Number(r[1]) },
      othersShort: r[2] === '1' || r[3] === '1' ? { notional: r[2] === '1', orders: r[3] === '1' } : NONE_SHORT,
      reaped: r.slice(4),
    };
  }

  /** Gives the whole grant back (a member leaving); its mark "short of room" goes too. */
  async release(member: string): Promise<void> {
    checkMember(member);
    await this.redis.multi().hdel(this.keys.riskGrants, member).hdel(this.keys.riskShort, member).exec();
  }

  /** Every grant stored (sorted by member); unreadable ones left out. */
  async read(): Promise<RiskGrant[]> {
    const all = await this.redis.hgetall(this.keys.riskGrants);
    return Object.entries(all)
      .map(([m, v]) => parseGrant(m, v))
      .filter((g): g is RiskGrant => g !== null)
      .sort((a, b) => (a.member < b.member ? -1 : a.member > b.member ? 1 : 0));
  }
}

export interface RiskKeeperOptions {
  readonly grants: RiskGrants;
  readonly member: string;
  readonly clock: Clock;
  /** This member's own usage now (its open orders' notional, µ, and count). */
  readonly usage: () => RiskAmounts;
  /** How many members are alive now (for the headroom; ./market-leases.ts liveMembers().length). */
  readonly liveMembers: () => number;
  /** Period, ms (default 1000). */
  readonly everyMs?: number;
  /**
   * Before a smaller grant is sent: how long the local gate enforces it first, ms (default 250), so
   * that the orders it approved under the larger one are tracked (counted in `usage`) by then.
   */
  readonly settleMs?: number;
  /** A round failed (Redis unreachable): the grant in force stays. */
  readonly onError?: (err: unknown) => void;
}

/**
 * Keeps a member's grant fitted to its usage (see the module comment). `caps()` is what the local
 * gate enforces: zero before the first grant (nothing may be placed before the fleet granted it).
 */
export class RiskKeeper {
  readonly #o: RiskKeeperOptions;
  #local: RiskAmounts = { notional: 0, orders: 0 };
  #timer: TimerHandle | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;
  #pressed = false;
  /** Whether the fair share was asked for last round (the mark "short" is set or cleared only then). */
  #pressedLast = false;
  /** Another member is short of room (the last grant said so): give back down to the fair share. */
  #yield: RiskShortage = NONE_SHORT;

  constructor(o: RiskKeeperOptions) {
    checkMember(o.member);
    if (!((o.everyMs ?? 1000) > 0)) throw new RangeError('risk keeper: everyMs must be positive');
    this.#o = o;
  }

  /** The global caps this member's gate enforces now (the same object until it changes). */
  caps(): RiskAmounts {
    return this.#local;
  }

  /** The gate cut a quote for lack of global room: the next round asks for more (planAsk `pressed`). */
  press(): void {
    this.#pressed = true;
  }

  /** One round now, then every `everyMs`. Resolves after the first round (even a failed one). */
  async start(): Promise<void> {
    if (this.#timer !== undefined || this.#stopped) return;
    this.#timer = this.#o.clock.setInterval(() => void this.round(), this.#o.everyMs ?? 1000);
    await this.round();
  }

  /** One round: ask for usage + headroom; shrink locally first, grow locally after the grant. */
  round(): Promise<void> {
    this.#running ??= this.#round().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #round(): Promise<void> {
    if (this.#stopped) return;
    let want = this.#ask();
    if (want.notional < this.#local.notional || want.orders < this.#local.orders) {
      // give back: the gate enforces the smaller grant first; once what it approved under the larger
      // one is tracked, ask again from the usage then (never below it)
      this.#shrink(want);
      await new Promise<void>((res) => this.#o.clock.setTimeout(res, this.#o.settleMs ?? 250));
      if (this.#stopped) return;
      want = this.#shrinkTo();
      this.#shrink(want);
    }
    // giving back to a member short of room: the gate enforces `want` (at most the fair share), but
    // the grant asked stays at least what rests now (the orders resting never exceed the caps together)
    const y = this.#yield;
    let ask = want;
    if (y.notional || y.orders) {
      const u = this.#o.usage();
      ask = {
        notional: y.notional ? Math.max(want.notional, u.notional) : want.notional,
        orders: y.orders ? Math.max(want.orders, u.orders) : want.orders,
      };
    }
    try {
      const fair = this.#pressedLast ? fairShare(this.#o.grants.caps, this.#o.liveMembers()) : undefined;
      const { grant, othersShort } = await this.#o.grants.request(this.#o.member, ask, fair);
      if (this.#stopped) return;
      this.#yield = othersShort;
      this.#adopt({ notional: Math.min(grant.notional, want.notional), orders: Math.min(grant.orders, want.orders) });
    } catch (e) {
      this.#o.onError?.(e);
    }
  }

  /**
   * planAsk, at most the fair share rounded down in a dimension where another member is short of
   * room (rounded down: then the short member can reach its own, rounded up, within the caps).
   */
  #yielded(a: RiskAmounts): RiskAmounts {
    const y = this.#yield;
    if (!y.notional && !y.orders) return a;
    const live = Math.max(1, Math.floor(this.#o.liveMembers()));
    const caps = this.#o.grants.caps;
    const fair = { notional: Math.floor(caps.notional / live), orders: Math.floor(caps.orders / live) };
    return {
      notional: y.notional ? Math.min(a.notional, fair.notional) : a.notional,
      orders: y.orders ? Math.min(a.orders, fair.orders) : a.orders,
    };
  }

  #shrinkTo(): RiskAmounts {
    return this.#yielded(planAsk(this.#o.usage(), this.#o.grants.caps, this.#o.liveMembers()));
  }

  #ask(): RiskAmounts {
    const pressed = this.#pressed;
    this.#pressed = false;
    this.#pressedLast = pressed;
    return this.#yielded(
      planAsk(this.#o.usage(), this.#o.grants.caps, this.#o.liveMembers(), pressed ? { held: this.#local } : undefined),
    );
  }

  #shrink(want: RiskAmounts): void {
    this.#adopt({
      notional: Math.min(this.#local.notional, want.notional),
      orders: Math.min(this.#local.orders, want.orders),
    });
  }

  #adopt(a: RiskAmounts): void {
    if (a.notional !== this.#local.notional || a.orders !== this.#local.orders)
      this.#local = Object.freeze({ notional: a.notional, orders: a.orders });
  }

  /** Stops the rounds; `release` also gives the grant back (a clean leave). */
  async stop(release = true): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#o.clock.clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running?.catch(() => undefined);
    this.#local = Object.freeze({ notional: 0, orders: 0 });
    if (release) await this.#o.grants.release(this.#o.member);
  }
}
