/**
 * A real Redis of the test file's own (./redis.ts), for a vitest suite: started before its tests
 * (`beforeAll`) and stopped after them (`afterAll`). Apart from ./redis.ts, which scripts outside
 * vitest (the benches) import too: this one imports vitest.
 */
import { afterAll, beforeAll } from 'vitest';
import { startRedis, type TestRedis } from './redis.ts';

/**
 * Starts a Redis before the file's tests and stops it after them. The object returned stands for it
 * once started: read it inside the tests and hooks, not at load (it throws then).
 * @param opts.beforeStop run after the tests, before the Redis stops (e.g. close the bots using it)
 */
export function useTestRedis(opts: { beforeStop?: () => Promise<void> } = {}): TestRedis {
  let redis: TestRedis | undefined;
  const live = (): TestRedis => {
    if (redis === undefined) throw new Error('useTestRedis: Redis is not started yet (read it inside a test)');
    return redis;
  };
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await opts.beforeStop?.();
    await redis?.stop();
  });
  return {
    get port() {
      return live().port;
    },
    get url() {
      return live().url;
    },
    stop: () => live().stop(),
    kill: () => live().kill(),
    restart: () => live().restart(),
    pause: () => live().pause(),
    resume: () => live().resume(),
  };
}
