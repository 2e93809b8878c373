/**
 * The setup the fleet e2e tests share: a bot harness and a real Redis of the test file's own
 * (test/support/redis.ts), started before its tests and closed after them (the bots first, then
 * the Redis). `r` stands for the Redis once started (read inside the tests, not at load).
 */
import { afterAll, beforeAll } from 'vitest';
import { startRedis, type TestRedis } from '../../support/redis.ts';
import { BotHarness } from './bot-harness.ts';

export function fleetHarness(): { h: BotHarness; r: TestRedis } {
  const h = new BotHarness();
  let redis: TestRedis | undefined;
  const live = (): TestRedis => {
    if (redis === undefined) throw new Error('fleetHarness: Redis is not started yet (read it inside a test)');
    return redis;
  };
  const r: TestRedis = {
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
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await h.close();
    await redis?.stop();
  });
  return { h, r };
}
