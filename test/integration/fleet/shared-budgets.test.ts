/**
 * Two members of a fleet on one wallet against the real paper exchange (tiny limits, a 429 at once
 * on any overshoot) and a real Redis: with their budgets shared (src/fleet/shared-budgets.ts, as
 * `mmkit run` wires them with fleet.redisUrl) they together never get a 429 and use the budget; with
 * local budgets only (one process each, as without a fleet) the same traffic is refused.
 */
import { Wallet } from 'ethers';
import { describe, expect, it } from 'vitest';
import { Budgets, type BudgetConfig } from '../../../src/api/http/budgets.ts';
import { LiveClock } from '../../../src/core/clock.ts';
import { openSharedBudgets } from '../../../src/fleet/shared-budgets.ts';
import { clobUser } from '../support/clob-user.ts';
import { fleetOnVenue, orderBurst } from '../support/fleet-on-venue.ts';
import { yes } from '../support/setup.ts';

const LIMIT = 5;
const WINDOW = 1000;
const RULES = { 'POST /orders:burst': { limit: LIMIT, windowMs: WINDOW } };

const env = fleetOnVenue({
  exchange: { protocol: 1 },
  http: { rateLimits: { enabled: true, scale: 1, queueMs: 0, rules: RULES } },
});

/** A member: its own transport and budgets on the shared wallet (shared windows when `shared`). */
async function member(wallet: Wallet, name: string, shared: boolean) {
  const clock = new LiveClock();
  const config: BudgetConfig = { rules: RULES };
  let budgets: Budgets;
  if (shared) {
    const f = await openSharedBudgets({
      url: env.r.url,
      member: name,
      account: wallet.address,
      budgets: config,
      clock,
    });
    env.fleets.push(f);
    budgets = new Budgets(config, clock, { gate: f.gate });
  } else budgets = new Budgets(config, clock);
  // no retries: a 429 shows as a 429
  return clobUser(env.open, { urls: { clob: env.v.clob }, budgets, retry: { maxAttempts: 1 } }, wallet);
}

async function saturate(wallet: Wallet, shared: boolean, tag: string) {
  const a = await member(wallet, `${tag}-a`, shared);
  const b = await member(wallet, `${tag}-b`, shared);
  return orderBurst([a, b], yes(env.v.m1), 8); // each: 16 together, 5 per second at the exchange
}

describe('two members on one wallet', () => {
  it('sharing their budgets through Redis: no 429, the budget used', async () => {
    const wallet = new Wallet(Wallet.createRandom().privateKey);
    const { ms, refused, ok } = await saturate(wallet, true, 'shared');
    expect(refused).toBe(0);
    expect(ok).toBe(16);
    // 16 requests at 5 per (1 s + answer + margin): 3 full windows, not many more
    expect(ms).toBeGreaterThanOrEqual(3 * WINDOW);
    expect(ms).toBeLessThan(3 * WINDOW + 3_000);
  }, 30_000);

  it('each with local budgets only (no fleet): the exchange refuses', async () => {
    const wallet = new Wallet(Wallet.createRandom().privateKey);
    const { refused } = await saturate(wallet, false, 'local');
    expect(refused).toBeGreaterThan(0);
  }, 30_000);
});
