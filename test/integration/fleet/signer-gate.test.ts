/**
 * The fleet's shared per-signer buckets (src/fleet/signer-gate.ts) over a real Redis:
 *  - exactness: random sequences of acquires (orders, cancels, cancel-alls), releases (answered,
 *    429 of the buckets with their headers, unsent, no answer), tier changes named by the venue and
 *    time steps give the same grants and bucket levels as the local SignerBudget
 *    (src/api/http/signer-budget.ts), one VirtualClock driving both (the scripts get its time);
 *  - a member's ticket that is never released is charged at its deadline;
 *  - fail fast: with Redis killed, an acquire rejects with SharedBudgetUnavailableError.
 */
import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type SendOutcome,
  SignerBudget,
  type SignerGate,
  type SignerTicket,
} from '../../../src/api/http/signer-budget.ts';
import { VirtualClock } from '../../../src/core/clock.ts';
import { ValidationError } from '../../../src/core/errors.ts';
import type { SignerBucketName, SignerTierName } from '../../../src/core/signer-limits.ts';
import { connectFleetRedis } from '../../../src/fleet/redis.ts';
import { RedisSignerGate } from '../../../src/fleet/signer-gate.ts';
import { SharedBudgetUnavailableError } from '../../../src/fleet/window-gate.ts';
import { startRedis, type TestRedis } from '../../support/redis.ts';
import { GatePair } from '../support/gate-pair.ts';

let r: TestRedis;
let redis: Redis;
beforeAll(async () => {
  r = await startRedis();
  redis = await connectFleetRedis(r.url);
});
afterAll(async () => {
  redis?.disconnect();
  await r?.stop();
});

// scale 0.1: standard order 4/s burst 6, cancel 8/s burst 12; copper 6/9, 12/18; platinum 45/67,
// 90/135 without a negative cancel balance
const SCALE = 0.1;
const TIERS: SignerTierName[] = ['standard', 'copper', 'platinum'];

type Op =
  | { t: 'acq'; bucket: SignerBucketName; cost: number; post: boolean }
  | {
      t: 'rel';
      pick: number;
      kind: 'ok' | '429' | 'unsent' | 'none';
      cancelled: number;
      tier?: SignerTierName;
      remaining: number;
      retry: number;
    }
  | { t: 'adv'; ms: number }
  | { t: 'adopt'; tier: SignerTierName };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .record({
        bucket: fc.constantFrom<SignerBucketName>('order', 'cancel'),
        cost: fc.integer({ min: 1, max: 14 }),
        post: fc.boolean(),
      })
      .map((o) => ({
        t: 'acq' as const,
        ...o,
        post: o.bucket === 'cancel' && o.post,
        cost: o.bucket === 'cancel' && o.post ? 1 : o.cost,
      })),
  },
  {
    weight: 5,
    arbitrary: fc
      .record({
        pick: fc.nat(),
        kind: fc.constantFrom<'ok' | '429' | 'unsent' | 'none'>('ok', 'ok', 'ok', '429', 'unsent', 'none'),
        cancelled: fc.integer({ min: 0, max: 20 }),
        tier: fc.option(fc.constantFrom(...TIERS), { nil: undefined, freq: 3 }),
        remaining: fc.integer({ min: -3, max: 10 }),
        retry: fc.integer({ min: 0, max: 2 }),
      })
      .map((o) => ({ t: 'rel' as const, ...o })),
  },
  {
    weight: 4,
    arbitrary: fc
      .oneof(
        fc.integer({ min: 0, max: 1500 }),
        fc.integer({ min: 0, max: 30 }),
        fc.constantFrom(124, 125, 126, 249, 250, 251),
      )
      .map((ms) => ({ t: 'adv' as const, ms })),
  },
  { weight: 1, arbitrary: fc.constantFrom(...TIERS).map((tier) => ({ t: 'adopt' as const, tier })) },
);

function outcome(op: Extract<Op, { t: 'rel' }>): SendOutcome | 'unsent' | undefined {
  if (op.kind === 'unsent') return 'unsent';
  if (op.kind === 'none') return undefined;
  const headers: Record<string, string> = {};
  if (op.tier !== undefined) headers['poly-ratelimit-tier'] = op.tier;
  if (op.kind === '429') {
    headers['poly-ratelimit-tier'] = op.tier ?? 'standard';
    headers['poly-ratelimit-remaining'] = String(op.remaining);
    if (op.retry > 0) headers['retry-after'] = String(op.retry);
    return { status: 429, headers, text: '' };
  }
  const canceled = Array.from({ length: op.cancelled }, (_, i) => `0x${i}`);
  return { status: 200, headers, text: JSON.stringify({ canceled }) };
}

let run = 0;

describe('RedisSignerGate against the local SignerBudget (time injected)', () => {
  it('gives the same grants and levels on random sequences', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 20, maxLength: 100 }), async (ops) => {
        const clock = new VirtualClock(1_700_000_000_000);
        const local = new SignerBudget(clock, { tier: 'standard', scale: SCALE });
        const shared = new RedisSignerGate(redis, clock, {
          signer: `0xsig${++run}`,
          member: 'm1',
          scale: SCALE,
          liveTtlMs: 100_000_000,
          now: () => clock.now(),
        });
        const both = new GatePair<SignerGate, SignerTicket>(local, shared);
        const { L, R } = both;
        const settle = async () => {
          // the shared gate's scripts answer after the virtual time moved on: wakes it armed in the
          // past fire at the next advance
          for (let i = 0; i < 6; i++) {
            await shared.idle();
            await new Promise((res) => setImmediate(res));
            clock.advance(0);
          }
        };
        try {
          for (const [step, op] of ops.entries()) {
            switch (op.t) {
              case 'acq': {
                const req = { bucket: op.bucket, cost: op.cost, postCharged: op.post };
                both.acquire((g) => g.acquire(req));
                break;
              }
              case 'rel': {
                const o = outcome(op);
                both.release(op.pick, (t) => t.release(o));
                break;
              }
              case 'adv':
                clock.advance(op.ms);
                break;
              case 'adopt':
                local.adoptTier(op.tier);
                shared.adoptTier(op.tier);
                break;
            }
            await settle();
            expect([...R.tickets.keys()].sort(), `grants after step ${step}`).toEqual([...L.tickets.keys()].sort());
            expect([...R.failed].sort(), `refusals after step ${step}`).toEqual([...L.failed].sort());
            await shared.refresh();
            const a = local.stats();
            const b = shared.stats();
            expect(b.tier, `tier after step ${step}`).toBe(a.tier);
            for (const n of ['order', 'cancel'] as const) expect({ n, step, ...b[n] }).toEqual({ n, step, ...a[n] });
          }
        } finally {
          local.close(new Error('done'));
          shared.close(new Error('done'));
          await shared.idle();
        }
      }),
      { numRuns: 100 },
    );
  }, 120_000);
});

describe('RedisSignerGate', () => {
  it('charges a ticket never released at its deadline (a dead member), and refuses a cost above the burst', async () => {
    const clock = new VirtualClock(1_700_000_000_000);
    const o = { signer: '0xdead', scale: SCALE, liveTtlMs: 1_000, now: () => clock.now() };
    const dead = new RedisSignerGate(redis, clock, { ...o, member: 'dead' });
    const live = new RedisSignerGate(redis, clock, { ...o, member: 'live' });
    await dead.acquire({ bucket: 'order', cost: 6, postCharged: false }); // never released
    dead.close(new Error('died'));
    let got = false;
    void live.acquire({ bucket: 'order', cost: 1, postCharged: false }).then(() => {
      got = true;
    });
    await live.idle();
    expect(got).toBe(false);
    clock.advance(1_000); // the deadline: charged now, bucket empty; 1 token after 250 ms
    await live.idle();
    expect(got).toBe(false);
    for (let i = 0; i < 5 && !got; i++) {
      clock.advance(60);
      await live.idle();
      await new Promise((res) => setImmediate(res));
    }
    expect(got).toBe(true);
    expect(clock.now()).toBeGreaterThanOrEqual(1_700_000_001_250);
    await expect(live.acquire({ bucket: 'order', cost: 7, postCharged: false })).rejects.toBeInstanceOf(
      ValidationError,
    );
    live.close(new Error('done'));
  });

  it('rejects quickly with a typed error when Redis is down; cancels then draw on the member’s reserve', async () => {
    const r2 = await startRedis();
    const c = await connectFleetRedis(r2.url);
    const clock = new VirtualClock(1_700_000_000_000);
    // standard cancel bucket 120, 80/s; 8 members: each keeps 7 tokens at 5/s, the shared one 64, 40/s
    const g = new RedisSignerGate(c, clock, { signer: '0xdown', member: 'a', reserve: { maxMembers: 8 } });
    try {
      await g.refresh();
      await (await g.acquire({ bucket: 'cancel', cost: 1, postCharged: false })).release();
      await g.idle();
      await g.refresh();
      expect(g.stats().cancel).toMatchObject({ burst: 64, rate: 40, available: 63 });
      await expect(g.acquire({ bucket: 'cancel', cost: 65, postCharged: false })).rejects.toBeInstanceOf(
        ValidationError,
      );
      await r2.kill();
      const t0 = Date.now();
      await expect(g.acquire({ bucket: 'order', cost: 1, postCharged: false })).rejects.toBeInstanceOf(
        SharedBudgetUnavailableError,
      );
      expect(Date.now() - t0).toBeLessThan(1_500);
      await expect(g.acquire({ bucket: 'cancel', cost: 8, postCharged: false })).rejects.toBeInstanceOf(
        SharedBudgetUnavailableError,
      );
      const t = await g.acquire({ bucket: 'cancel', cost: 5, postCharged: false });
      let third = false;
      const p3 = g.acquire({ bucket: 'cancel', cost: 3, postCharged: false }).then((x) => {
        third = true;
        return x;
      });
      await g.idle();
      expect(third).toBe(false); // 5 in flight + 3 > 7: waits
      t.release({ status: 200, headers: {} }); // 2 tokens left, 3 needed: 200 ms at 5 / s
      clock.advance(50);
      await g.idle();
      await new Promise((res) => setImmediate(res));
      expect(third).toBe(false);
      for (let i = 0; i < 10 && !third; i++) {
        clock.advance(50);
        await g.idle();
        await new Promise((res) => setImmediate(res));
      }
      expect(third).toBe(true);
      (await p3).release({ status: 200, headers: {} });
    } finally {
      g.close(new Error('done'));
      c.disconnect();
      await r2.stop().catch(() => undefined);
    }
  });
});

describe('RedisSignerGate after Redis restarted empty', () => {
  it('a member that used the buckets finds them empty (refilling from zero), not full; a first user finds them full', async () => {
    const r3 = await startRedis();
    const c = await connectFleetRedis(r3.url);
    const clock = new VirtualClock(1_700_000_000_000);
    const o = { signer: '0xrestart', scale: SCALE, now: () => clock.now() };
    const g = new RedisSignerGate(c, clock, { ...o, member: 'a' });
    try {
      // first use: full (standard at 0.1: order burst 6, 4/s)
      for (let i = 0; i < 6; i++) await (await g.acquire({ bucket: 'order', cost: 1, postCharged: false })).release();
      await r3.restart(); // same port, nothing kept
      for (let i = 0; i < 50 && c.status !== 'ready'; i++) await new Promise((res) => setTimeout(res, 50));
      let got = false;
      void g.acquire({ bucket: 'order', cost: 1, postCharged: false }).then((t) => {
        got = true;
        return t.release();
      });
      await g.idle();
      await new Promise((res) => setImmediate(res));
      // recreated empty: the venue's bucket may be drained by what was just sent
      expect(got).toBe(false);
      for (let i = 0; i < 10 && !got; i++) {
        clock.advance(50);
        await g.idle();
        await new Promise((res) => setImmediate(res));
      }
      expect(got).toBe(true); // one token after 250 ms at 4/s
      expect(clock.now()).toBeGreaterThanOrEqual(1_700_000_000_250);
      // a member that never used them (a first start) finds the other bucket as it was made
      const fresh = new RedisSignerGate(c, clock, { ...o, signer: '0xother', member: 'b' });
      for (let i = 0; i < 6; i++)
        await (await fresh.acquire({ bucket: 'order', cost: 1, postCharged: false })).release();
      fresh.close(new Error('done'));
    } finally {
      g.close(new Error('done'));
      c.disconnect();
      await r3.stop();
    }
  });
});
