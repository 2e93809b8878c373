/**
 * A fleet member's emergency reserve (src/fleet/reserve-gate.ts) with a real Redis and the real
 * paper exchange: while Redis is down, orders are refused unsent, but the member can still pull its
 * quotes (DELETE /cancel-all) and heartbeat, from its reserve of `fleet.reserve` slots per window;
 * back on Redis it draws from the shared windows again. And `fleet.maxMembers` caps the fleet.
 */
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrDeriveApiKey } from '../../../src/api/auth.ts';
import { ClobClient } from '../../../src/api/clob.ts';
import { Budgets } from '../../../src/api/http/budgets.ts';
import { createTransport, type HttpTransport } from '../../../src/api/http/transport.ts';
import { LiveClock } from '../../../src/core/clock.ts';
import { ConfigError } from '../../../src/core/errors.ts';
import { RESERVE_WAIT_MS, ReserveGate } from '../../../src/fleet/reserve-gate.ts';
import { openSharedBudgets, type SharedBudgets } from '../../../src/fleet/shared-budgets.ts';
import { SharedBudgetUnavailableError } from '../../../src/fleet/window-gate.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';
import { startVenue, type TestVenue } from '../support/setup.ts';

let v: TestVenue;
let r: TestRedis;
const open: HttpTransport[] = [];
const fleets: SharedBudgets[] = [];

beforeAll(async () => {
  r = await startRedis();
  v = await startVenue({ exchange: { protocol: 1 } });
});
afterAll(async () => {
  for (const t of open) await t.close();
  for (const f of fleets) await f.close();
  await v?.close();
  await r?.stop();
});

const ready = (f: SharedBudgets) =>
  new Promise<void>((res) => (f.redis.status === 'ready' ? res() : f.redis.once('ready', () => res())));

describe('the emergency reserve', () => {
  it('pulls quotes while Redis is down, refuses the rest unsent, and draws from Redis again when it is back', async () => {
    const wallet = new Wallet(Wallet.createRandom().privateKey);
    const clock = new LiveClock();
    const f = await openSharedBudgets({
      url: r.url,
      member: 'reserve-a',
      account: wallet.address,
      budgets: {},
      maxMembers: 2,
      reserve: 2,
      clock,
    });
    fleets.push(f);
    expect(f.gate).toBeInstanceOf(ReserveGate);
    const gate = f.gate as ReserveGate;
    // the venue's limit is what a 429 is compared with: the shared part plus the reserves
    expect(gate.rule('DELETE /cancel-all:burst')?.limit).toBe(250);
    expect(f.shared.rule('DELETE /cancel-all:burst')?.limit).toBe(250 - 2 * 2);
    const t = createTransport({
      urls: { clob: v.clob },
      signer: wallet,
      budgets: new Budgets({}, clock, { gate: f.gate }),
      retry: { maxAttempts: 1 },
    });
    open.push(t);
    t.setCredentials(await createOrDeriveApiKey(t));
    const clob = new ClobClient(t);
    await clob.cancelAll(); // through Redis
    expect(gate.reserveUsed).toBe(0);

    await r.kill();
    const sentBefore = t.stats().attempts;
    const t0 = Date.now();
    await expect(clob.openOrdersAll().next()).rejects.toBeInstanceOf(SharedBudgetUnavailableError);
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect(t.stats().attempts).toBe(sentBefore); // nothing sent
    // pulling quotes still works: from the reserve, 2 per window
    const firstPullAt = Date.now();
    await clob.cancelAll();
    await clob.cancelAll();
    expect(gate.reserveUsed).toBe(2);
    expect(t.stats().attempts).toBe(sentBefore + 2);
    // the third waits for the reserve's window (10 s): it does not go out now
    const ac = new AbortController();
    const third = clob.cancelAll({ signal: ac.signal }).catch((e: unknown) => e);
    await new Promise((res) => setTimeout(res, 300));
    expect(t.stats().attempts).toBe(sentBefore + 2);
    ac.abort();
    await third;
    // ... and not for long (trial 14 F4: a cycle waiting on the reserve held its market and the
    // shutdown): it fails unsent after RESERVE_WAIT_MS, as the shared gate does when Redis is away
    const t1 = Date.now();
    await expect(clob.cancelAll()).rejects.toBeInstanceOf(SharedBudgetUnavailableError);
    expect(Date.now() - t1).toBeGreaterThanOrEqual(RESERVE_WAIT_MS - 50);
    expect(Date.now() - t1).toBeLessThan(RESERVE_WAIT_MS + 2_000);
    expect(t.stats().attempts).toBe(sentBefore + 2);
    // the burst window rolled: the reserve pulls again (its sustained rule, 10 min, keeps 60 times
    // as many: a second outage's pulls are not held for the rest of the 10 minutes)
    await new Promise((res) => setTimeout(res, Math.max(0, firstPullAt + 10_300 - Date.now())));
    await clob.cancelAll();
    await clob.cancelAll();
    expect(gate.reserveUsed).toBe(4);
    expect(t.stats().attempts).toBe(sentBefore + 4);

    await r.restart();
    await ready(f);
    await clob.cancelAll();
    expect(gate.reserveUsed).toBe(4); // through Redis again
    expect(t.stats().attempts).toBe(sentBefore + 5);
  }, 60_000);

  it('caps the fleet at fleet.maxMembers; a member that leaves frees its place', async () => {
    const clock = new LiveClock();
    const o = { url: r.url, account: '0xcap', budgets: {}, maxMembers: 2, reserve: 1, clock };
    const a = await openSharedBudgets({ ...o, member: 'a' });
    const b = await openSharedBudgets({ ...o, member: 'b' });
    await expect(openSharedBudgets({ ...o, member: 'c' })).rejects.toBeInstanceOf(ConfigError);
    // a restarted member (same name) takes its own place, not another
    const a2 = await openSharedBudgets({ ...o, member: 'a' });
    await b.close();
    const c = await openSharedBudgets({ ...o, member: 'c' });
    await expect(openSharedBudgets({ ...o, member: 'd' })).rejects.toBeInstanceOf(ConfigError);
    for (const x of [c, a2, a]) await x.close();
  }, 30_000);
});
