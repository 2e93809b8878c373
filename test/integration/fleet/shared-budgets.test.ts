/**
 * Two members of a fleet on one wallet against the real paper exchange (tiny limits, a 429 at once
 * on any overshoot) and a real Redis: with their budgets shared (src/fleet/shared-budgets.ts, as
 * `mmkit run` wires them with fleet.redisUrl) they together never get a 429 and use the budget; with
 * local budgets only (one process each, as without a fleet) the same traffic is refused.
 */
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrDeriveApiKey } from '../../../src/api/auth.ts';
import { ClobClient, type SignedOrderLike } from '../../../src/api/clob.ts';
import { Budgets, type BudgetConfig } from '../../../src/api/http/budgets.ts';
import { createTransport, type HttpTransport } from '../../../src/api/http/transport.ts';
import { orderToWire, type SignedOrderStruct, signOrder } from '../../../src/api/signing/order.ts';
import { LiveClock } from '../../../src/core/clock.ts';
import { limitOrderAmounts } from '../../../src/core/units.ts';
import { openSharedBudgets, type SharedBudgets } from '../../../src/fleet/shared-budgets.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';
import { startVenue, type TestVenue, yes } from '../support/setup.ts';

const LIMIT = 5;
const WINDOW = 1000;
const RULES = { 'POST /orders:burst': { limit: LIMIT, windowMs: WINDOW } };

let v: TestVenue;
let r: TestRedis;
const open: HttpTransport[] = [];
const fleets: SharedBudgets[] = [];
let salt = 1;

beforeAll(async () => {
  r = await startRedis();
  v = await startVenue({
    exchange: { protocol: 1 },
    http: { rateLimits: { enabled: true, scale: 1, queueMs: 0, rules: RULES } },
  });
});
afterAll(async () => {
  for (const t of open) await t.close();
  for (const f of fleets) await f.close();
  await v?.close();
  await r?.stop();
});

function sign(wallet: Wallet, tokenId: string): SignedOrderLike {
  const a = limitOrderAmounts('BUY', '0.01', '0.01', '5');
  const struct: SignedOrderStruct = {
    salt: BigInt(Date.now() * 1000 + salt++),
    maker: wallet.address,
    signer: wallet.address,
    taker: '0x0000000000000000000000000000000000000000',
    tokenId: BigInt(tokenId),
    makerAmount: a.makerAmount,
    takerAmount: a.takerAmount,
    expiration: 0n,
    nonce: 0n,
    feeRateBps: 0n,
    side: 0,
    signatureType: 0,
  };
  const { digest, signature } = signOrder(wallet, struct, 137, false);
  return { id: digest, wire: orderToWire(struct, signature) };
}

/** A member: its own transport and budgets on the shared wallet (shared windows when `shared`). */
async function member(wallet: Wallet, name: string, shared: boolean) {
  const clock = new LiveClock();
  const config: BudgetConfig = { rules: RULES };
  let budgets: Budgets;
  if (shared) {
    const f = await openSharedBudgets({
      url: r.url,
      member: name,
      account: wallet.address,
      budgets: config,
      clock,
    });
    fleets.push(f);
    budgets = new Budgets(config, clock, { gate: f.gate });
  } else budgets = new Budgets(config, clock);
  // no retries: a 429 shows as a 429
  const t = createTransport({
    urls: { clob: v.clob },
    signer: wallet,
    budgets,
    retry: { maxAttempts: 1 },
  });
  open.push(t);
  t.setCredentials(await createOrDeriveApiKey(t));
  return { t, clob: new ClobClient(t) };
}

async function saturate(wallet: Wallet, shared: boolean, tag: string) {
  const a = await member(wallet, `${tag}-a`, shared);
  const b = await member(wallet, `${tag}-b`, shared);
  const N = 8; // each: 16 together, 5 per second at the exchange
  const t0 = Date.now();
  const outcomes = await Promise.allSettled(
    [a, b].flatMap((m) => Array.from({ length: N }, () => m.clob.postOrders([{ order: sign(wallet, yes(v.m1)) }]))),
  );
  const ms = Date.now() - t0;
  const refused = (a.t.stats().statuses[429] ?? 0) + (b.t.stats().statuses[429] ?? 0);
  return { ms, refused, ok: outcomes.filter((o) => o.status === 'fulfilled').length };
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
