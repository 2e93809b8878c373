/**
 * The bot's budgets against the paper exchange's per-signer buckets (default: enforce, standard
 * tier, 40 orders / s with a burst of 60, 80 cancels / s with a burst of 120): a burst of batches
 * and cancels is held by the client, never refused by the venue; the client adopts the tier the
 * venue names.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Wallet } from 'ethers';
import type { HttpTransport } from '../../src/api/http/transport.ts';
import type { OrderId } from '../../src/core/ids.ts';
import { CANCEL_CHUNK_IDS } from '../../src/core/signer-limits.ts';
import { clobUser, signV1Order } from './support/clob-user.ts';
import { startVenue, yes, type TestVenue, liveVenueFor } from './support/setup.ts';

let v: TestVenue;
const open: HttpTransport[] = [];
const sign = (wallet: Wallet, tokenId: string) => signV1Order(wallet, tokenId, 'BUY', '0.01', '5');

const user = () => clobUser(open, { urls: { clob: v.clob } });

beforeAll(async () => {
  // the exchange's defaults: windows at scale 1, the signer buckets enforced at the standard tier
  // its orders are V1-signed (signV1Order)
  v = await startVenue({ exchange: { protocol: 1 }, http: { rateLimits: { enabled: true, scale: 1, queueMs: 0 } } });
});
afterAll(async () => {
  for (const t of open) await t.close();
  await v?.close();
});

describe('the client against the per-signer buckets', () => {
  it('a burst of batches and cancels never gets a 429: the client waits for its bucket', async () => {
    const u = await user();
    const BATCHES = 10; // 150 orders: 60 at once, then 40 / s
    const t0 = Date.now();
    const res = await Promise.all(
      Array.from({ length: BATCHES }, () =>
        u.clob.postOrders(Array.from({ length: 15 }, () => ({ order: sign(u.wallet, yes(v.m1)) }))),
      ),
    );
    const ms = Date.now() - t0;
    expect(res.flat().every((r) => r.ok)).toBe(true);
    expect(u.t.stats().statuses[429]).toBeUndefined();
    // (150 - 60) / 40 s at least: the client held them; not much more: it used the bucket
    expect(ms).toBeGreaterThanOrEqual(2200);
    expect(ms).toBeLessThan(2250 + 3000);
    expect(v.running.exchange.openOrders(u.wallet.address.toLowerCase())).toHaveLength(150);

    // cancels: one id at a time, concurrently (150 cancels: 120 at once, then 80 / s), then a cancel-all
    const ids: string[] = res.flat().map((r) => r.orderId as string);
    await Promise.all(ids.slice(0, 140).map((id) => u.clob.cancelOrder(id)));
    const all = await u.clob.cancelAll();
    expect(all.canceled).toHaveLength(10);
    expect(u.t.stats().statuses[429]).toBeUndefined();
    expect(v.running.security.counts().rate_limited).toBe(0);
    expect(u.t.budgets.signer?.tier).toBe('standard');
  }, 30_000);

  it('adopts the tier the venue names in Poly-RateLimit-Tier', async () => {
    const u = await user();
    expect((await v.admin('/rate-limit-tier', { address: u.wallet.address, tier: 'silver' })).status).toBe(200);
    expect(u.t.budgets.signer?.tier).toBe('standard');
    await u.clob.postOrders([{ order: sign(u.wallet, yes(v.m1)) }]);
    expect(u.t.budgets.signer?.tier).toBe('silver');
    // silver: 300 orders at once
    const t0 = Date.now();
    await Promise.all(
      Array.from({ length: 16 }, () =>
        u.clob.postOrders(Array.from({ length: 15 }, () => ({ order: sign(u.wallet, yes(v.m1)) }))),
      ),
    );
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(u.t.stats().statuses[429]).toBeUndefined();
    await u.clob.cancelAll();
  }, 30_000);

  it('the venue adapter cancels many ids in chunks every tier admits; the client refuses a larger one unsent', async () => {
    const venue = await liveVenueFor(v, { silenceMs: 0 });
    try {
      const ids = Array.from(
        { length: 2 * CANCEL_CHUNK_IDS + 1 },
        (_, i) => `0x${(i + 1).toString(16).padStart(64, '0')}`,
      );
      const out = await venue.cancel(ids as OrderId[]);
      expect(out.notCanceled.size).toBe(ids.length);
      expect(v.running.security.counts().rate_limited).toBe(0);
    } finally {
      await venue.close();
    }
    const w = await user();
    const big = Array.from({ length: CANCEL_CHUNK_IDS + 1 }, (_, i) => `0x${(i + 1).toString(16).padStart(64, '0')}`);
    await expect(w.clob.cancelOrders(big)).rejects.toThrow(/split it/);
    expect(w.t.stats().statuses[429]).toBeUndefined();
    expect(w.t.stats().attempts).toBe(1); // the key creation only: the cancel was never sent
  }, 30_000);
});
