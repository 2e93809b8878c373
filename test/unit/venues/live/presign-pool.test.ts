import { afterEach, describe, expect, it } from 'vitest';
import { PresignPool, type PresignToken } from '../../../../src/venues/live/presign-pool.ts';
import type { MarketInfo } from '../../../../src/core/venue.ts';

const market: MarketInfo = {
  market: '0xm' as any,
  question: 'q',
  tokens: [
    { tokenId: 'yes' as any, outcome: 'Yes' },
    { tokenId: 'no' as any, outcome: 'No' },
  ],
  tick: '0.01',
  minOrderSize: 5_000_000 as any,
  negRisk: false,
  feeRateBps: 0,
  active: true,
  endDate: '',
};

/** A builder that counts its signatures and names each by its price and sequence. */
function fakeBuilder() {
  const signed: Array<{ price: number; size: number }> = [];
  return {
    signed,
    buildLimit(a: any) {
      signed.push({ price: a.price, size: a.size });
      return { id: `${a.price}-${signed.length}`, wire: {} } as any;
    },
  };
}

/** Lets the pool's idle steps run (one signature per turn). */
async function idle(turns = 50): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
}

const pools: PresignPool[] = [];
function pool(opts: ConstructorParameters<typeof PresignPool>[0], tok: PresignToken = { m: market, no: 0 }) {
  const b = fakeBuilder();
  const p = new PresignPool(opts, b, (id) => (id === 'yes' ? tok : undefined));
  pools.push(p);
  return { p, b, tok };
}
afterEach(() => {
  for (const p of pools.splice(0)) p.close();
});

describe('PresignPool', () => {
  it('signs a prepared GTC order at its price and the ticks either side, in idle time', async () => {
    const { p, b, tok } = pool({ ticks: 1, copies: 1 });
    expect(p.enabled).toBe(true);
    p.prepared({ tokenId: 'yes', side: 'BUY', price: 4_500, size: 10_000_000 });
    expect(b.signed).toHaveLength(0); // nothing on the hot path
    await idle();
    expect(b.signed.map((s) => s.price).sort()).toEqual([4_400, 4_500, 4_600]);
    expect(p.stats()).toMatchObject({ presigned: 3, presignHeld: 3 });
    const hit = p.take(tok, 'BUY', 4_600, 10_000_000);
    expect(hit?.id).toMatch(/^4600-/);
    expect(p.take(tok, 'BUY', 4_600, 10_000_000)).toBeUndefined(); // one copy, used once
    expect(p.take(tok, 'BUY', 4_500, 20_000_000)).toBeUndefined(); // another size
    expect(p.take(tok, 'SELL', 4_500, 10_000_000)).toBeUndefined(); // another side
    expect(p.stats()).toMatchObject({ presignHits: 1, presignMisses: 3, presignHeld: 2 });
  });

  it('refuses a pre-signed order signed for another tick, fee or neg-risk', async () => {
    const { p, tok } = pool({ ticks: 0, copies: 1 });
    p.prepared({ tokenId: 'yes', side: 'BUY', price: 4_500, size: 10_000_000 });
    await idle();
    const changed: PresignToken = { m: { ...market, feeRateBps: 100 }, no: tok.no };
    expect(p.take(changed, 'BUY', 4_500, 10_000_000)).toBeUndefined();
    expect(p.take(tok, 'BUY', 4_500, 10_000_000)).toBeDefined();
  });

  it('keeps up to `copies` per order and at most `capacity` in all', async () => {
    const { p, b } = pool({ ticks: 2, copies: 2, capacity: 3 });
    p.prepared({ tokenId: 'yes', side: 'BUY', price: 4_500, size: 10_000_000 });
    await idle(100);
    expect(p.stats().presignHeld).toBeLessThanOrEqual(3);
    expect(b.signed.length).toBeGreaterThan(3); // older ones dropped as newer came
  });

  it('does nothing when disabled or closed', async () => {
    const off = pool(false);
    expect(off.p.enabled).toBe(false);
    const { p, b } = pool({});
    p.close();
    p.prepared({ tokenId: 'yes', side: 'BUY', price: 4_500, size: 10_000_000 });
    await idle();
    expect(b.signed).toHaveLength(0);
  });
});
