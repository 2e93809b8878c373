/**
 * Fleet members against the real paper exchange and a real Redis (issue 21): the hooks that start
 * and close both, and the burst of orders that shows whether the members together stay inside the
 * exchange's limits.
 */
import { afterAll, beforeAll } from 'vitest';
import type { HttpTransport } from '../../../src/api/http/transport.ts';
import type { ExchangeServerOptions } from '../../../src/exchange/server.ts';
import type { SharedBudgets } from '../../../src/fleet/shared-budgets.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';
import { type ClobUser, signV1Order } from './clob-user.ts';
import { startVenue, type TestVenue } from './setup.ts';

export interface FleetOnVenue {
  /** The exchange (set in beforeAll). */
  v: TestVenue;
  /** The Redis (set in beforeAll). */
  r: TestRedis;
  /** The members' transports, closed in afterAll. */
  open: HttpTransport[];
  /** The members' shared budgets, closed in afterAll. */
  fleets: SharedBudgets[];
}

/** Registers the hooks: a Redis and an exchange on `venue` before all tests, all closed after them. */
export function fleetOnVenue(venue: Partial<ExchangeServerOptions>): FleetOnVenue {
  const env = { open: [], fleets: [] } as unknown as FleetOnVenue;
  beforeAll(async () => {
    env.r = await startRedis();
    env.v = await startVenue(venue);
  });
  afterAll(async () => {
    for (const t of env.open) await t.close();
    for (const f of env.fleets) await f.close();
    await env.v?.close();
    await env.r?.stop();
  });
  return env;
}

/**
 * `n` single-order batches (a buy of 5 at 0.01 of `tokenId`) from each member, all at once: how
 * long they took, how many the exchange refused with a 429, and how many were placed.
 */
export async function orderBurst(
  members: ClobUser[],
  tokenId: string,
  n: number,
): Promise<{ ms: number; refused: number; ok: number }> {
  const t0 = Date.now();
  const outcomes = await Promise.allSettled(
    members.flatMap((m) =>
      Array.from({ length: n }, () =>
        m.clob.postOrders([{ order: signV1Order(m.wallet, tokenId, 'BUY', '0.01', '5') }]),
      ),
    ),
  );
  const ms = Date.now() - t0;
  const refused = members.reduce((sum, m) => sum + (m.t.stats().statuses[429] ?? 0), 0);
  return { ms, refused, ok: outcomes.filter((o) => o.status === 'fulfilled').length };
}
