/**
 * Two members of a fleet signing with one key against the real paper exchange with its per-signer
 * buckets enforced (scaled down: 4 orders / s, a burst of 6) and a real Redis: with the buckets
 * shared (src/fleet/signer-gate.ts, wired by openSharedBudgets as `mmkit run` does with
 * fleet.redisUrl) they together never get a 429 and use the bucket; each budgeting the buckets
 * alone (the windows still shared), the same traffic is refused.
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

const SCALE = 0.1; // standard tier: orders 4 / s, burst 6

let v: TestVenue;
let r: TestRedis;
const open: HttpTransport[] = [];
const fleets: SharedBudgets[] = [];
let salt = 1;

beforeAll(async () => {
  r = await startRedis();
  v = await startVenue({
    exchange: { protocol: 1 },
    http: { rateLimits: { enabled: true, scale: SCALE, queueMs: 0 } },
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

/** A member on the shared wallet: shared windows always, shared signer buckets when `shareSigner`. */
async function member(wallet: Wallet, name: string, shareSigner: boolean) {
  const clock = new LiveClock();
  const config: BudgetConfig = { scale: SCALE };
  const f = await openSharedBudgets({
    url: r.url,
    member: name,
    account: wallet.address,
    ...(shareSigner ? { signer: wallet.address } : {}),
    budgets: config,
    maxMembers: 2,
    reserve: 0,
    clock,
  });
  fleets.push(f);
  expect(f.signer !== undefined).toBe(shareSigner);
  const budgets = new Budgets(config, clock, { gate: f.gate, ...(f.signer !== undefined ? { signer: f.signer } : {}) });
  const t = createTransport({ urls: { clob: v.clob }, signer: wallet, budgets, retry: { maxAttempts: 1 } });
  open.push(t);
  t.setCredentials(await createOrDeriveApiKey(t));
  return { t, clob: new ClobClient(t) };
}

async function saturate(wallet: Wallet, shareSigner: boolean, tag: string) {
  const a = await member(wallet, `${tag}-a`, shareSigner);
  const b = await member(wallet, `${tag}-b`, shareSigner);
  const N = 8; // each: 16 orders together, 6 at once then 4 / s at the exchange
  const t0 = Date.now();
  const outcomes = await Promise.allSettled(
    [a, b].flatMap((m) => Array.from({ length: N }, () => m.clob.postOrders([{ order: sign(wallet, yes(v.m1)) }]))),
  );
  const ms = Date.now() - t0;
  const refused = (a.t.stats().statuses[429] ?? 0) + (b.t.stats().statuses[429] ?? 0);
  return { ms, refused, ok: outcomes.filter((o) => o.status === 'fulfilled').length };
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
