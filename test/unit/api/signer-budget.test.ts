import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Budgets } from '../../../src/api/http/budgets.ts';
import { SignerBudget, type SendOutcome } from '../../../src/api/http/signer-budget.ts';
import { VirtualClock } from '../../../src/core/clock.ts';
import { ValidationError } from '../../../src/core/errors.ts';
import type { SignerRequest } from '../../../src/core/signer-limits.ts';
import { SignerLimiter } from '../../../src/exchange/limits/signer-buckets.ts';

const T0 = 1_700_000_000_000;
const flush = () => new Promise<void>((r) => setImmediate(r));
const orders = (n: number): SignerRequest => ({ bucket: 'order', cost: n, postCharged: false });
const cancels = (n: number): SignerRequest => ({ bucket: 'cancel', cost: n, postCharged: false });
const CANCEL_ALL: SignerRequest = { bucket: 'cancel', cost: 1, postCharged: true };
const ok = (headers: Record<string, string> = {}, text = '{}'): SendOutcome => ({ status: 200, headers, text });

describe('SignerBudget', () => {
  it('holds a batch until its bucket holds all its entries, charging at the answer (FIFO per bucket)', async () => {
    const clock = new VirtualClock(T0);
    const s = new SignerBudget(clock);
    const tickets = await Promise.all([1, 2, 3, 4].map(() => s.acquire(orders(15))));
    let fifth = false;
    let single = false;
    void s.acquire(orders(15)).then((t) => {
      fifth = true;
      clock.setTimeout(() => t.release(ok()), 5);
    });
    void s.acquire(orders(1)).then(() => (single = true)); // behind the batch: FIFO
    clock.advance(5);
    for (const t of tickets) t.release(ok()); // answered at T0 + 5: the bucket refills from there
    await flush();
    expect(s.stats().order).toMatchObject({ available: 0, inflight: 0, waiting: 2 });
    clock.advance(374); // 15 tokens at 40 / s = 375 ms after the answers
    await flush();
    expect(fifth).toBe(false);
    clock.advance(1);
    await flush();
    expect(fifth).toBe(true);
    expect(single).toBe(false);
    clock.advance(5 + 25);
    await flush();
    expect(single).toBe(true);
    // the cancel bucket was never touched
    expect(s.stats().cancel).toMatchObject({ available: 120, waiting: 0 });
  });

  it('refuses a request above the burst at once (split it): it could never pass', async () => {
    const s = new SignerBudget(new VirtualClock(T0));
    await expect(s.acquire(orders(61))).rejects.toThrow(ValidationError);
    await expect(s.acquire(cancels(121))).rejects.toThrow(/split it/);
    await expect(s.acquire(cancels(120))).resolves.toBeDefined();
  });

  it('an unsent request gives its tokens back; a 429 charges nothing, lowers the level and pauses the bucket', async () => {
    const clock = new VirtualClock(T0);
    const s = new SignerBudget(clock);
    (await s.acquire(orders(60))).release('unsent');
    expect(s.stats().order.available).toBe(60);
    const t = await s.acquire(orders(10));
    t.release({
      status: 429,
      headers: {
        'poly-ratelimit-tier': 'standard',
        'poly-ratelimit-remaining': '3',
        'poly-ratelimit-reset': String(Math.ceil((T0 + 1000) / 1000)),
        'retry-after': '1',
      },
    });
    expect(s.stats().order).toMatchObject({ available: 3, pausedUntil: T0 + 1000 });
    let admitted = false;
    void s.acquire(orders(1)).then(() => (admitted = true));
    clock.advance(999);
    await flush();
    expect(admitted).toBe(false);
    clock.advance(1);
    await flush();
    expect(admitted).toBe(true);
  });

  it('a 429 naming another tier admits no waiter before its lowering and pause apply', async () => {
    const clock = new VirtualClock(T0);
    const s = new SignerBudget(clock);
    const t = await s.acquire(orders(10));
    let admitted = false;
    void s.acquire(orders(55)).then(() => (admitted = true)); // 50 left: waits
    t.release({
      status: 429,
      headers: { 'poly-ratelimit-tier': 'copper', 'poly-ratelimit-remaining': '0', 'retry-after': '1' },
    });
    await flush();
    // copper (burst 90) keeps the 60 tokens, but the venue says none are left until its retry
    expect(admitted).toBe(false);
    expect(s.stats()).toMatchObject({ tier: 'copper', order: { available: 0, pausedUntil: T0 + 1000 } });
  });

  it('cancel-all waits for the cancels in flight, holds the cancel bucket alone, then charges its cancelled orders', async () => {
    const clock = new VirtualClock(T0);
    const s = new SignerBudget(clock);
    const c1 = await s.acquire(cancels(5));
    let all: Awaited<ReturnType<SignerBudget['acquire']>> | undefined;
    void s.acquire(CANCEL_ALL).then((t) => (all = t));
    let after = false;
    void s.acquire(cancels(1)).then(() => (after = true));
    await flush();
    expect(all).toBeUndefined(); // a cancel is in flight
    c1.release(ok());
    await flush();
    expect(all).toBeDefined();
    expect(after).toBe(false); // the cancel-all holds the bucket until its answer
    // 200 orders cancelled on standard (negative cancel balance allowed): 120 - 5 - 1 - 200 = -86
    all!.release(
      ok({ 'poly-ratelimit-tier': 'standard' }, JSON.stringify({ canceled: Array(200).fill('x'), not_canceled: {} })),
    );
    await flush();
    expect(s.stats().cancel.available).toBe(-86);
    expect(after).toBe(false);
    clock.advance(Math.ceil(87_000 / 80) - 1);
    await flush();
    expect(after).toBe(false);
    clock.advance(1);
    await flush();
    expect(after).toBe(true);
  });

  it('floors the cancel bucket at zero on the tiers that floor', async () => {
    const s = new SignerBudget(new VirtualClock(T0), { tier: 'platinum' });
    (await s.acquire(CANCEL_ALL)).release(ok({}, JSON.stringify({ canceled: Array(5000).fill('x') })));
    expect(s.stats().cancel.available).toBe(0);
  });

  it('adopts the tier the venue names: a higher one keeps the tokens, a lower one empties the buckets', async () => {
    const clock = new VirtualClock(T0);
    const s = new SignerBudget(clock);
    expect(s.tier).toBe('standard');
    (await s.acquire(orders(10))).release(ok({ 'poly-ratelimit-tier': 'Gold' }));
    expect(s.tier).toBe('gold');
    expect(s.stats().order).toMatchObject({ burst: 600, rate: 400, available: 50 });
    clock.advance(1000);
    expect(s.stats().order.available).toBe(450);
    await expect(s.acquire(orders(61))).resolves.toBeDefined(); // impossible at standard, fine at gold
    (await s.acquire(orders(1))).release(ok({ 'poly-ratelimit-tier': 'bronze' }));
    expect(s.stats().order).toMatchObject({ burst: 120, available: -61 }); // the 61 still in flight
    expect(s.stats().cancel).toMatchObject({ burst: 240, available: 0 });
    // an unknown tier name leaves the tier alone
    const p = s.acquire(cancels(1));
    clock.advance(7); // one token at 160 / s
    (await p).release(ok({ 'poly-ratelimit-tier': 'titanium' }));
    expect(s.tier).toBe('bronze');
  });

  it('never lets the venue refuse (property: random costs, cancel-alls, arrival and answer delays, reordering)', async () => {
    const req = fc.oneof(
      fc.record({ kind: fc.constant('order' as const), n: fc.integer({ min: 1, max: 15 }) }),
      fc.record({ kind: fc.constant('cancel' as const), n: fc.integer({ min: 1, max: 120 }) }),
      fc.record({ kind: fc.constant('all' as const), n: fc.integer({ min: 0, max: 300 }) }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('standard', 'copper', 'platinum'),
        fc.array(
          fc.record({
            r: req,
            gap: fc.integer({ min: 0, max: 60 }),
            arrive: fc.integer({ min: 0, max: 300 }),
            answer: fc.integer({ min: 0, max: 300 }),
          }),
          { minLength: 5, maxLength: 60 },
        ),
        async (tier, reqs) => {
          const clock = new VirtualClock(T0);
          const client = new SignerBudget(clock, { tier: tier as 'standard' });
          const server = new SignerLimiter({ mode: 'enforce', tier: tier as 'standard' });
          const ADDR = '0x00000000000000000000000000000000000000aa';
          let refused = 0;
          let done = 0;
          let at = 0;
          for (const x of reqs) {
            at += x.gap;
            const r: SignerRequest =
              x.r.kind === 'order' ? orders(x.r.n) : x.r.kind === 'cancel' ? cancels(x.r.n) : CANCEL_ALL;
            clock.setTimeout(() => {
              void client.acquire(r).then((t) => {
                clock.setTimeout(() => {
                  const d = server.evaluate(ADDR, r, clock.now());
                  if (!d.ok) refused++;
                  else if (r.postCharged) server.settle(ADDR, 'cancel', x.r.n, clock.now());
                  const text = JSON.stringify({ canceled: Array(r.postCharged ? x.r.n : 0).fill('x') });
                  clock.setTimeout(() => {
                    t.release(d.ok ? ok({ 'poly-ratelimit-tier': d.tier }, text) : { status: 429, headers: {} });
                    done++;
                  }, x.answer);
                }, x.arrive);
              });
            }, at);
          }
          for (let i = 0; i < 50_000 && done < reqs.length; i++) {
            await flush();
            clock.advance(10);
          }
          expect(done).toBe(reqs.length);
          expect(refused).toBe(0);
        },
      ),
      { numRuns: 60 },
    );
  }, 120_000);
});

describe('Budgets with the signer buckets', () => {
  it('an order request waits for its signer bucket, then its windows; off disables the buckets', async () => {
    const clock = new VirtualClock(T0);
    const b = new Budgets({}, clock);
    expect(b.signer?.tier).toBe('standard');
    const sent: number[] = [];
    const send = (n: number) =>
      b.schedule('clob', 'POST', '/orders', async () => sent.push(n), undefined, orders(15)).then(() => undefined);
    await Promise.all([send(1), send(2), send(3), send(4)]);
    const fifth = send(5);
    await flush();
    expect(sent).toEqual([1, 2, 3, 4]);
    expect(b.stats().signer?.order).toMatchObject({ available: 0, waiting: 1 });
    clock.advance(375);
    await fifth;
    expect(sent).toEqual([1, 2, 3, 4, 5]);
    // a request above the burst is never sent
    await expect(
      b.schedule('clob', 'POST', '/orders', async () => sent.push(6), undefined, orders(61)),
    ).rejects.toThrow(ValidationError);
    expect(new Budgets({ signerTier: 'off' }, clock).signer).toBeUndefined();
    expect(new Budgets({ enabled: false }, clock).signer).toBeUndefined();
    expect(new Budgets({ signerTier: 'gold', scale: 0.5 }, clock).signer?.stats().order).toMatchObject({
      rate: 200,
      burst: 300,
    });
  });
});
