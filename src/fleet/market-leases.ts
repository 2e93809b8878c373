/**
 * Market leases (issue 21; research §3.3): no two members quote one market. Each market of the
 * fleet's universe has a lease `lease:mkt:<id>` (ttl L = 5 s); a member renews all of its leases in
 * one round trip every L/3, keeps its fair share (./market-share.ts) and claims free markets in its
 * rendezvous order. Membership is a ZSET (score = Redis TIME, refreshed every round; a member unseen
 * for `memberDeadMs`, 3 s, is dead), so when a member dies its leases expire within L and the others
 * claim them within about L + L/3.
 *
 * A taker is told who held the market before (`onGained(market, previous)`): the wiring cancels that
 * member's orders on the market (`DELETE /cancel-market-orders`) BEFORE quoting, since the lease made
 * the market exclusive, so whatever rests there belonged to a member that is gone. Cancelled, not
 * adopted (README "Scaling out"). `holds(market)` turns true only once `onGained` resolved, and false
 * at the self-fence deadline (`sentAt(last good renew) + 0.8 L`) or when a renew says "lost". While
 * Redis is unreachable nothing is claimed or released; the fail-closed guard (./fail-closed.ts) pulls
 * the quotes anyway.
 */
import type { Redis } from 'ioredis';
import type { Clock, TimerHandle } from '../core/clock.ts';
import { ValidationError } from '../core/errors.ts';
import type { FleetKeys } from './fleet-keys.ts';
import { FENCE_LUA, type RedisLeases, parseLeaseValue, selfFenceUntil } from './lease.ts';
import { Script } from './lua-script.ts';
import { planShare } from './market-share.ts';

// KEYS: members; ARGV: member, deadMs -> the live members (after dropping the dead)
const TOUCH = new Script(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
return redis.call('ZRANGE', KEYS[1], 0, -1)
`);
// KEYS: per candidate (lease, fence, last); ARGV: member, ttl, limit
// -> flat {index, fence, value, previous holder value or ''} per market claimed
const CLAIM = new Script(`
${FENCE_LUA}
local out, n, limit = {}, 0, tonumber(ARGV[3])
for i = 1, #KEYS / 3 do
  if n >= limit then break end
  local k = KEYS[3*i-2]
  if redis.call('EXISTS', k) == 0 then
    local f, fs = nextFence(KEYS[3*i-1])
    local val = ARGV[1] .. ':' .. fs
    redis.call('SET', k, val, 'PX', ARGV[2])
    local prev = redis.call('GET', KEYS[3*i]) or ''
    redis.call('SET', KEYS[3*i], val)
    n = n + 1
    out[#out+1] = i; out[#out+1] = f; out[#out+1] = val; out[#out+1] = prev
  end
end
return out
`);

/** Who held a market before this member took it. */
export interface PreviousHolder {
  readonly member: string;
  readonly fence: number;
}

export interface MarketLeasesOptions {
  readonly leases: RedisLeases;
  readonly keys: FleetKeys;
  readonly member: string;
  readonly clock: Clock;
  /** The fleet's markets (condition ids): the same list on every member. */
  readonly markets: readonly string[];
  /** Lease ttl, ms (default 5000). */
  readonly ttlMs?: number;
  /** Round period (renew, membership, claims), ms (default ttl/3). */
  readonly roundMs?: number;
  /** A member unseen this long is dead, ms (default 3000). */
  readonly memberDeadMs?: number;
  /**
   * A market was taken (previous: its last holder when another member, else null; `recorded`: a last
   * holder was recorded at all, this member or another). Cancel that member's orders there before
   * quoting; `holds()` turns true once this resolves. A rejection gives the market back.
   */
  readonly onGained?: (market: string, previous: PreviousHolder | null, recorded: boolean) => Promise<void> | void;
  /** A market is no longer this member's (lost, expired or given up): pull its quotes. */
  readonly onLost?: (market: string) => Promise<void> | void;
}

interface Held {
  value: string;
  fence: number;
  validUntil: number;
  ready: boolean;
}

/** One member's market leases (see the module comment). */
export class MarketLeases {
  readonly #o: Required<Omit<MarketLeasesOptions, 'onGained' | 'onLost'>> &
    Pick<MarketLeasesOptions, 'onGained' | 'onLost'>;
  readonly #held = new Map<string, Held>();
  #live: string[] = [];
  #timer: TimerHandle | undefined;
  #busy = false;
  #stopped = false;
  #rounds = 0;

  /** @throws ValidationError on a bad market id or duplicates; RangeError on periods that cannot keep a lease */
  constructor(o: MarketLeasesOptions) {
    const ttlMs = o.ttlMs ?? 5000;
    this.#o = { ttlMs, roundMs: Math.floor(ttlMs / 3), memberDeadMs: 3000, ...o };
    for (const m of o.markets) o.keys.marketLease(m);
    if (new Set(o.markets).size !== o.markets.length) throw new ValidationError('fleet markets: duplicate market id');
    if (!(this.#o.roundMs > 0 && this.#o.roundMs < 0.8 * ttlMs))
      throw new RangeError('market leases: roundMs must be positive and below 0.8 × ttlMs');
    if (!(this.#o.memberDeadMs > this.#o.roundMs))
      throw new RangeError('market leases: memberDeadMs must be above roundMs');
  }

  /** Joins (a first round that only announces this member; claims start a round later). Idempotent. */
  async start(): Promise<void> {
    if (this.#timer !== undefined) return;
    this.#stopped = false;
    this.#timer = this.#o.clock.setInterval(() => void this.round(), this.#o.roundMs);
    await this.round();
  }

  /** Leaves: pulls every market (onLost), then releases the leases and the membership. */
  async stop(): Promise<void> {
    this.halt();
    const held = [...this.#held];
    this.#held.clear();
    for (const [m] of held) await this.#lost(m);
    await Promise.all(
      held.map(([m, h]) => this.#o.leases.release(this.#o.keys.marketLease(m), h.value).catch(() => false)),
    );
    // (tried a few times: a command timed out under load, or a connection reconnecting, left this member
    // looking live for memberDeadMs after it left, and a member started then was judged against it)
    for (let attempt = 0; attempt < 4; attempt++) {
      const ok = await this.#o.leases.redis.zrem(this.#o.keys.members, this.#o.member).then(
        () => true,
        () => false,
      );
      if (ok) break;
      // real time, not the injected clock: a leave waits on the network, and a test's virtual clock never advances here
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** Stops without releasing anything (what a crash looks like to the others). */
  halt(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#o.clock.clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Whether this member may quote `market` now (held, taken over, inside its self-fence). */
  holds(market: string): boolean {
    const h = this.#held.get(market);
    return h?.ready === true && this.#o.clock.now() < h.validUntil;
  }

  /** The markets held (taken over or being taken over), sorted. */
  held(): string[] {
    return [...this.#held.keys()].sort();
  }

  /** The live members seen in the last round, sorted. */
  liveMembers(): readonly string[] {
    return this.#live;
  }

  /** One round: membership, renew, give up extras, claim. Rounds never overlap; a failed one changes nothing. */
  async round(): Promise<void> {
    if (this.#busy || this.#stopped) return;
    this.#busy = true;
    try {
      await this.#round();
    } catch {
      /* Redis unreachable: keep what we have until the self-fence; the guard pulls quotes */
    } finally {
      this.#busy = false;
    }
  }

  async #round(): Promise<void> {
    const { leases, keys, member, clock, ttlMs } = this.#o;
    const live = (await TOUCH.run(leases.redis, [keys.members], [member, this.#o.memberDeadMs])) as string[];
    this.#live = [...live].sort();
    // renew
    const mine = [...this.#held];
    const sent = clock.now();
    const ok = await leases.renewAll(
      mine.map(([m, h]) => ({ key: keys.marketLease(m), value: h.value })),
      ttlMs,
    );
    for (let i = 0; i < mine.length; i++) {
      const [m, h] = mine[i]!;
      if (this.#held.get(m) !== h) continue;
      if (ok[i]) h.validUntil = selfFenceUntil(sent, ttlMs);
      else {
        this.#held.delete(m);
        await this.#lost(m);
      }
    }
    if (this.#stopped) return;
    // the first round only announces this member: claims start once the others could see it, so a
    // member starting alongside others does not take everything and give it back a round later
    if (this.#rounds++ === 0) return;
    const plan = planShare(member, live, this.#o.markets, new Set(this.#held.keys()));
    // give up extras (a member joined): pull the quotes first, then release
    for (const m of plan.release) {
      const h = this.#held.get(m);
      if (h === undefined) continue;
      this.#held.delete(m);
      await this.#lost(m);
      await leases.release(keys.marketLease(m), h.value);
    }
    const want = plan.share - this.#held.size;
    if (want <= 0 || plan.candidates.length === 0) return;
    const cand = plan.candidates;
    const ks = cand.flatMap((m) => {
      const k = keys.marketLease(m);
      return [k, keys.fence(k), `${k}:last`];
    });
    const t0 = clock.now();
    const got = (await CLAIM.run(leases.redis, ks, [member, ttlMs, want])) as Array<string | number>;
    const gained: Array<[string, Held, PreviousHolder | null, boolean]> = [];
    for (let j = 0; j + 3 < got.length; j += 4) {
      const m = cand[Number(got[j]) - 1]!;
      const h: Held = {
        value: String(got[j + 2]),
        fence: Number(got[j + 1]),
        validUntil: selfFenceUntil(t0, ttlMs),
        ready: false,
      };
      const prev = parseLeaseValue(String(got[j + 3]));
      this.#held.set(m, h);
      // (recorded: the market had a last holder, another member or this one: a Redis that lost its records has none)
      gained.push([m, h, prev !== null && prev.member !== member ? prev : null, String(got[j + 3]) !== '']);
    }
    for (const [m, h, prev, recorded] of gained) {
      try {
        await this.#o.onGained?.(m, prev, recorded);
        if (this.#held.get(m) === h) h.ready = true;
      } catch {
        if (this.#held.get(m) === h) {
          this.#held.delete(m);
          await leases.release(keys.marketLease(m), h.value).catch(() => false);
        }
      }
    }
  }

  async #lost(market: string): Promise<void> {
    try {
      await this.#o.onLost?.(market);
    } catch {
      /* the market is gone either way */
    }
  }
}

// KEYS: members; ARGV: deadMs -> the members seen within deadMs (Redis TIME)
const LIVE = new Script(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('ZRANGEBYSCORE', KEYS[1], now - tonumber(ARGV[1]), '+inf')
`);

/** The fleet's live members (seen within `deadMs`, by Redis's clock), sorted; read-only. */
export async function readLiveMembers(redis: Redis, keys: FleetKeys, deadMs = 3000): Promise<string[]> {
  return ((await LIVE.run(redis, [keys.members], [deadMs])) as string[]).sort();
}
