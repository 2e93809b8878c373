import type { Redis } from 'ioredis';
import { ValidationError } from '../core/errors.ts';
import { Script } from './lua-script.ts';

/** The part of a lease's ttl a holder trusts (self-fencing). */
export const SELF_FENCE_FRACTION = 0.8;

/** Until when a holder may act, given when its last successful acquire/renew was sent. */
export function selfFenceUntil(sentAt: number, ttlMs: number, fraction = SELF_FENCE_FRACTION): number {
  return sentAt + Math.floor(ttlMs * fraction);
}

/** A lease value `<member>:<fence>` parsed; null when it is not one. */
export function parseLeaseValue(v: string): { member: string; fence: number } | null {
  const i = v.lastIndexOf(':');
  if (i <= 0) return null;
  const fence = Number(v.slice(i + 1));
  if (!Number.isSafeInteger(fence) || fence <= 0) return null;
  return { member: v.slice(0, i), fence };
}

const MEMBER = /^[A-Za-z0-9._-]{1,64}$/;

function checkTtl(ttlMs: number): void {
  if (!Number.isInteger(ttlMs) || ttlMs < 10 || ttlMs > 3_600_000)
    throw new ValidationError(`lease ttl must be an integer of ms in [10, 3600000], got ${ttlMs}`);
}

/**
 * Lua: `nextFence(counterKey)` returns the next fence of a lease (a number, exact below 2^53) and
 * its decimal string: max(INCR, Redis TIME in µs), written back so that the next INCR continues
 * from it. Monotonic across a Redis restarted empty (see the module comment).
 */
export const FENCE_LUA = `
local function nextFence(counter)
  local f = redis.call('INCR', counter)
  local t = redis.call('TIME')
  local us = tonumber(t[1]) * 1000000 + tonumber(t[2])
  if us > f then
    f = us
    redis.call('SET', counter, string.format('%.0f', f))
  end
  return f, string.format('%.0f', f)
end
`;

// KEYS: lease, fence counter; ARGV: member, ttl
const ACQUIRE = new Script(`
${FENCE_LUA}
local v = redis.call('GET', KEYS[1])
if v then return {0, redis.call('PTTL', KEYS[1]), v} end
local f, fs = nextFence(KEYS[2])
local val = ARGV[1] .. ':' .. fs
redis.call('SET', KEYS[1], val, 'PX', ARGV[2])
return {1, f, val}
`);
// KEYS: lease; ARGV: value, ttl
const RENEW = new Script(`
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
return 0
`);
// KEYS: leases; ARGV: ttl, then one value per key
const RENEW_ALL = new Script(`
local out = {}
for i = 1, #KEYS do
  if redis.call('GET', KEYS[i]) == ARGV[i + 1] then redis.call('PEXPIRE', KEYS[i], ARGV[1]) out[i] = 1 else out[i] = 0 end
end
return out
`);
// KEYS: lease; ARGV: value
const RELEASE = new Script(`
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) return 1 end
return 0
`);

/** What an acquire answered. */
export type AcquireResult =
  | { readonly ok: true; readonly value: string; readonly fence: number }
  | { readonly ok: false; readonly holder: string; readonly ttlMs: number };

/** The lease operations of one Redis connection (see the module comment). */
export class RedisLeases {
  constructor(readonly redis: Redis) {}

  /**
   * Takes `key` for `member` unless someone holds it.
   * @throws ValidationError on a bad member name or ttl (nothing sent); the client's error when Redis fails
   */
  async acquire(key: string, member: string, ttlMs: number): Promise<AcquireResult> {
    if (!MEMBER.test(member)) throw new ValidationError(`not a fleet member name: "${member}"`);
    checkTtl(ttlMs);
    const r = (await ACQUIRE.run(this.redis, [key, `${key}:fence`], [member, ttlMs])) as [number, number, string];
    if (r[0] === 1) return { ok: true, fence: Number(r[1]), value: String(r[2]) };
    return { ok: false, ttlMs: Number(r[1]), holder: String(r[2]) };
  }

  /** Extends the lease by ttl from now if it still holds `value`; false when it passed on or expired. */
  async renew(key: string, value: string, ttlMs: number): Promise<boolean> {
    checkTtl(ttlMs);
    return (await RENEW.run(this.redis, [key], [value, ttlMs])) === 1;
  }

  /** `renew` of many leases in one round trip; answers, in order, whether each is still held. */
  async renewAll(leases: ReadonlyArray<{ key: string; value: string }>, ttlMs: number): Promise<boolean[]> {
    checkTtl(ttlMs);
    if (leases.length === 0) return [];
    const r = (await RENEW_ALL.run(
      this.redis,
      leases.map((l) => l.key),
      [ttlMs, ...leases.map((l) => l.value)],
    )) as number[];
    return r.map((x) => x === 1);
  }

  /** Drops the lease if it still holds `value`; false when it had passed on or expired. */
  async release(key: string, value: string): Promise<boolean> {
    return (await RELEASE.run(this.redis, [key], [value])) === 1;
  }

  /** The current holder, or null. */
  async holder(key: string): Promise<{ member: string; fence: number } | null> {
    const v = await this.redis.get(key);
    return v === null ? null : parseLeaseValue(v);
  }
}
