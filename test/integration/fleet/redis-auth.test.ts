/**
 * The fleet's Redis refusing the credentials is a configuration to mend (ConfigError naming
 * fleet.redisUrl: `mmkit run` exits 2), not an outage (FleetUnreachableError: exit 3, which a
 * supervisor restarts forever): trial 22 F7. The password is never in the message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/errors.ts';
import { connectFleetRedis, FleetUnreachableError } from '../../../src/fleet/redis.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';

let r: TestRedis;
beforeAll(async () => {
  r = await startRedis();
  const admin = await connectFleetRedis(r.url);
  await admin.config('SET', 'requirepass', 's3cret-pw');
  admin.disconnect();
});
afterAll(async () => {
  await r?.stop();
});

const at = (auth: string) => `redis://${auth}127.0.0.1:${r.port}`;

describe('connectFleetRedis and the credentials', () => {
  it.each([
    ['a wrong password', ':wrong-pw@', /WRONGPASS/],
    ['no password where one is needed', '', /NOAUTH/],
  ])('%s: ConfigError naming fleet.redisUrl, the password never shown', async (_, auth, said) => {
    const err = await connectFleetRedis(at(auth)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect(err).not.toBeInstanceOf(FleetUnreachableError);
    expect((err as ConfigError).key).toBe('fleet.redisUrl');
    expect((err as Error).message).toMatch(said);
    expect((err as Error).message).toContain('refused the credentials');
    expect((err as Error).message).not.toContain('wrong-pw');
  });

  it('the right password connects; an address where nothing listens is unreachable', async () => {
    const c = await connectFleetRedis(at(':s3cret-pw@'));
    expect(await c.ping()).toBe('PONG');
    c.disconnect();
    await expect(connectFleetRedis('redis://127.0.0.1:1')).rejects.toBeInstanceOf(FleetUnreachableError);
  });
});
