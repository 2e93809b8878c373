/**
 * The fleet's Redis connections (issue 21; the design: /work/notes/issue21-research.md is the
 * team's research, README "Scaling out" the user's view). ioredis 5.11.1, pinned: BullMQ 6 is
 * tested with it and Bottleneck's ioredis datastore runs on it; 6.x switches to RESP3.
 *
 * Two profiles:
 *  - `fleet` (shared budgets, leases, risk, kill switch): fail fast. No offline queue, no retries,
 *    a 500 ms command timeout: a command fails within half a second whether Redis is down or hung,
 *    so the daemon fails closed (pulls its quotes) instead of waiting on a queue that may never
 *    drain. It reconnects on its own (backoff up to 500 ms) and `ready` says when it is back.
 *  - `queue` (BullMQ): `maxRetriesPerRequest: null`, which BullMQ's workers require.
 *
 * The URL may carry a password: it is never logged nor put in an error (`redactRedisUrl`).
 */
import { hostname } from 'node:os';
import { Redis, type RedisOptions } from 'ioredis';
import { ConfigError, NetworkError } from '../core/errors.ts';

/** The fleet's Redis could not be reached at start (the message names the URL redacted). */
export class FleetUnreachableError extends NetworkError {}

/** Redis refusing a connection's credentials (a wrong password or user, or none given where one is needed). */
const AUTH_REFUSED = /^(WRONGPASS|NOAUTH)\b|invalid (username-)?password/i;

/** How long a fleet command may take before it counts as failed, ms. */
export const FLEET_COMMAND_TIMEOUT_MS = 500;

/** The URL without its credentials, for logs and errors. */
export function redactRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.username !== '' || u.password !== '') {
      u.username = '';
      u.password = '';
      return u.toString().replace('//', '//***@');
    }
    return u.toString();
  } catch {
    return '(unparseable redis url)';
  }
}

/**
 * Checks a fleet Redis URL (redis:// or rediss://, a host); returns it.
 * @throws ConfigError (the key `fleet.redisUrl`, the URL redacted) when malformed
 */
export function checkRedisUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ConfigError('fleet.redisUrl', `not a URL: ${redactRedisUrl(url)}`);
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:')
    throw new ConfigError('fleet.redisUrl', `must start with redis:// or rediss://, got ${u.protocol}//`);
  if (u.hostname === '') throw new ConfigError('fleet.redisUrl', 'has no host');
  return url;
}

const MEMBER = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * This daemon's member name: the configured one, else `<hostname>-<pid>`.
 * @throws ConfigError when the configured name has other characters or is longer than 64
 */
export function memberName(configured: string, pid = process.pid, host = hostname()): string {
  if (configured !== '') {
    if (!MEMBER.test(configured))
      throw new ConfigError('fleet.member', "letters, digits, '.', '_', '-' only, 1 to 64 of them");
    return configured;
  }
  return `${host.replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 50)}-${pid}`;
}

/** Options of the fail-fast profile (see the module comment). */
export function fleetRedisOptions(extra: RedisOptions = {}): RedisOptions {
  return {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: FLEET_COMMAND_TIMEOUT_MS,
    connectTimeout: 1_000,
    autoResendUnfulfilledCommands: false,
    retryStrategy: (n: number) => Math.min(50 * 2 ** n, 500),
    lazyConnect: true,
    ...extra,
  };
}

/** Options of the BullMQ profile. */
export function queueRedisOptions(extra: RedisOptions = {}): RedisOptions {
  return { maxRetriesPerRequest: null, lazyConnect: true, ...extra };
}

/**
 * A connected fail-fast client (see the module comment). Connection errors after the first are
 * reported to `onError` (default: ignored; the callers watch `status`), never thrown.
 * @throws FleetUnreachableError (URL redacted) when the first connection fails
 */
export async function connectFleetRedis(
  url: string,
  o: { onError?: (err: Error) => void; options?: RedisOptions } = {},
): Promise<Redis> {
  const c = new Redis(checkRedisUrl(url), fleetRedisOptions(o.options));
  // the first connection's errors: Redis refusing the credentials says so only here
  let refused: string | undefined;
  c.on('error', (err: Error) => {
    if (refused === undefined && AUTH_REFUSED.test(err.message)) refused = err.message;
    o.onError?.(err);
  });
  try {
    await c.connect();
  } catch (err) {
    c.disconnect();
    // a configuration to mend, not an outage to wait out (exit 2, not 3: trial 22 F7)
    if (refused !== undefined)
      throw new ConfigError(
        'fleet.redisUrl',
        `Redis at ${redactRedisUrl(url)} refused the credentials: ${refused} (the URL's password, redis://:PASSWORD@host:port, or user)`,
      );
    throw new FleetUnreachableError(`fleet: cannot reach Redis at ${redactRedisUrl(url)}: ${(err as Error).message}`);
  }
  return c;
}

/** A client of the BullMQ profile (not connected: BullMQ connects it). */
export function queueRedis(url: string, options: RedisOptions = {}): Redis {
  return new Redis(checkRedisUrl(url), queueRedisOptions(options));
}
