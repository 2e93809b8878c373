/**
 * The fleet's one way of running its Lua scripts on Redis (every atomic step of the fleet is one:
 * leases, market leases, the shared budgets' windows and signer buckets, the registries, the reward
 * claims): by EVALSHA, which sends the script's SHA-1 only, falling back to EVAL (the whole source)
 * when Redis answers NOSCRIPT, as it does after a restart or a SCRIPT FLUSH emptied its cache (EVAL
 * loads it again). No SCRIPT LOAD up front: the first EVAL of each script does it, on whatever
 * Redis the connection reaches then.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/** A Lua script run by EVALSHA, falling back to EVAL when Redis does not know it (after a restart). */
export class Script {
  readonly sha: string;
  constructor(readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }
  /** Runs the script. @throws what Redis throws (EVALSHA's error unless NOSCRIPT; then EVAL's) */
  async run(redis: Redis, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (e) {
      if (!(e instanceof Error) || !e.message.startsWith('NOSCRIPT')) throw e;
      return redis.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}
