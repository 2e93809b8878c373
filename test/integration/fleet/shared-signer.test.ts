/**
 * Two members of a fleet signing with one key against the real paper exchange with its per-signer
 * buckets enforced (scaled down: 4 orders / s, a burst of 6) and a real Redis: with the buckets
 * shared (src/fleet/signer-gate.ts, wired by openSharedBudgets as `mmkit run` does with
 * fleet.redisUrl) they together never get a 429 and use the bucket; each budgeting the buckets
 * alone (the windows still shared), the same traffic is refused.
 */
import { Wallet } from 'ethers';
import { describe, expect, it } from 'vitest';
import { Budgets, type BudgetConfig } from '../../../src/api/http/budgets.ts';
import { LiveClock } from '../../../src/core/clock.ts';
import { openSharedBudgets } from '../../../src/fleet/shared-budgets.ts';
import { clobUser } from '../support/clob-user.ts';
import { fleetOnVenue, orderBurst } from '../support/fleet-on-venue.ts';
import { yes } from '../support/setup.ts';

const SCALE = 0.1; // standard tier: orders 4 / s, burst 6

const env = fleetOnVenue({
  exchange: { protocol: 1 },
  http: { rateLimits: { enabled: true, scale: SCALE, queueMs: 0 } },
});

/** A member on the shared wallet: shared windows always, shared signer buckets when `shareSigner`. */
async function member(wallet: Wallet, name: string, shareSigner: boolean) {
  const clock = new LiveClock();
  const config: BudgetConfig = { scale: SCALE };
  const f = await openSharedBudgets({
    url: env.r.url,
    member: name,
    account: wallet.address,
    ...(shareSigner ? { signer: wallet.address } : {}),
    budgets: config,
    maxMembers: 2,
    reserve: 0,
    clock,
  });
  env.fleets.push(f);
  expect(f.signer !== undefined).toBe(shareSigner);
  const budgets = new Budgets(config, clock, { gate: f.gate, ...(f.signer !== undefined ? { signer: f.signer } : {}) });
  return clobUser(env.open, { urls: { clob: env.v.clob }, budgets, retry: { maxAttempts: 1 } }, wallet);
}

async function saturate(wallet: Wallet, shareSigner: boolean, tag: string) {
  const a = await member(wallet, `${tag}-a`, shareSigner);
  const b = await member(wallet, `${tag}-b`, shareSigner);
  return orderBurst([a, b], yes(env.v.m1), 8); // each: 16 orders together, 6 at once then 4 / s at the exchange
}

describe('two members signing with one key', () => {
  it('sharing the per-signer buckets through Redis: no 429, the bucket used', async () => {
    const wallet = new Wallet(Wallet.createRandom().privateKey);
    const { ms, refused, ok } = await saturate(wallet, true, 'shared');
    expect(refused).toBe(0);
    expect(ok).toBe(16);
    // (16 - 6) / 4 per s = 2.5 s at least; not much more
    expect(ms).toBeGreaterThanOrEqual(2_400);
    expect(ms).toBeLessThan(2_500 + 3_000);
  }, 30_000);

  it('each budgeting the buckets alone: the exchange refuses', async () => {
    const wallet = new Wallet(Wallet.createRandom().privateKey);
    const { refused } = await saturate(wallet, false, 'local');
    expect(refused).toBeGreaterThan(0);
  }, 30_000);
});
