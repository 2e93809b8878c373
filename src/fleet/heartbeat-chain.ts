/**
 * The fleet's heartbeat chain (issue 21; research §3.1/§3.2): the venue chains heartbeats, each
 * sent with the id the previous one returned, one chain per account. Only the heartbeat lease holder
 * (./heartbeat-lease.ts) beats, so when another member takes over it must go on from the holder's
 * last id, which it cannot know locally: the holder writes every new id to Redis, and a taker
 * starts from the id it reads there.
 *
 * The write is fenced: it lands only when the writer's lease fence is >= the one stored with the
 * id (Lua, one round trip), so a former holder still beating inside its self-fence, or riding a
 * Redis outage, can never overwrite the chain of the member that took over after it (fences grow
 * with every grant, across a Redis restarted empty too: ./lease.ts). The record expires after
 * `ttlMs` (default 30 s, three dead-man windows): an id older than that belongs to a chain the venue
 * has ended, and a taker then starts a new one (null).
 */
import type { Redis } from 'ioredis';
import { ValidationError } from '../core/errors.ts';
import { Script } from './lua-script.ts';

// KEYS: state hash; ARGV: id, fence, ttl -> 1 written, 0 refused (a larger fence is stored)
const RECORD = new Script(`
local f = tonumber(redis.call('HGET', KEYS[1], 'fence') or '0')
if tonumber(ARGV[2]) < f then return 0 end
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'fence', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`);

/** The last heartbeat of the fleet's chain. */
export interface ChainLink {
  readonly id: string;
  readonly fence: number;
}

export class HeartbeatChain {
  readonly #ttlMs: number;

  /** @throws ValidationError on a bad ttl */
  constructor(
    readonly redis: Redis,
    /** FleetKeys.heartbeatState */
    readonly key: string,
    o: { ttlMs?: number } = {},
  ) {
    this.#ttlMs = o.ttlMs ?? 30_000;
    if (!Number.isSafeInteger(this.#ttlMs) || this.#ttlMs < 1)
      throw new ValidationError('heartbeat chain ttlMs must be a positive integer');
  }

  /**
   * Write `id` as the chain's last link, only if `fence` (the writer's heartbeat lease fence) is at
   * least the stored one. Returns whether it was written.
   * @throws ValidationError on an empty id or a bad fence; Redis errors (fail-fast client)
   */
  async record(id: string, fence: number): Promise<boolean> {
    if (typeof id !== 'string' || id === '') throw new ValidationError('heartbeat id must be a non-empty string');
    if (!Number.isSafeInteger(fence) || fence < 1)
      throw new ValidationError(`heartbeat fence must be a positive integer, got ${fence}`);
    return Number(await RECORD.run(this.redis, [this.key], [id, fence, this.#ttlMs])) === 1;
  }

  /** The chain's last link, or null when none is recorded (or it expired). */
  async last(): Promise<ChainLink | null> {
    const [id, fence] = await this.redis.hmget(this.key, 'id', 'fence');
    if (id === null || id === undefined || fence === null || fence === undefined) return null;
    return { id, fence: Number(fence) };
  }
}
