/**
 * The test Redis (test/support/redis.ts) and the pinned client (ioredis 5.11.1): a private
 * redis-server answers, loses its data on a restart (no persistence), and a client set to fail
 * fast (no offline queue, no retries) gets an error at once while it is down.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../../support/redis.ts';

let r: TestRedis;
beforeAll(async () => {
  r = await startRedis();
});
afterAll(async () => {
  await r?.stop();
});

describe('a private Redis for tests', () => {
  it('answers on its own port, forgets everything on a restart, and fails fast while down', async () => {
    expect(r.port).not.toBe(6379);
    const c = new Redis(r.url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: 500,
      retryStrategy: (n) => Math.min(50 * 2 ** n, 500),
    });
    c.on('error', () => undefined);
    await new Promise<void>((res) => (c.status === 'ready' ? res() : c.once('ready', () => res())));
    await c.set('k', 'v');
    expect(await c.get('k')).toBe('v');
    await r.kill();
    await expect(c.get('k')).rejects.toThrow();
    await r.restart();
    await new Promise<void>((res) => (c.status === 'ready' ? res() : c.once('ready', () => res())));
    expect(await c.get('k')).toBeNull();
    c.disconnect();
  }, 30_000);
});
