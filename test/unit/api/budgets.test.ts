import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LiveClock, VirtualClock } from '../../../src/core/clock.ts';
import { ConfigError } from '../../../src/core/errors.ts';
import { Budgets, WindowGate, type BudgetTicket } from '../../../src/api/http/budgets.ts';
import { SlidingWindowLimiter } from '../../../src/exchange/limits/sliding-window.ts';

const T0 = 1_700_000_000_000;
const flush = () => new Promise<void>((r) => setImmediate(r));

/** Collects acquisitions as they resolve. */
function track(p: Promise<BudgetTicket>, log: string[], name: string): Promise<BudgetTicket> {
  return p.then((t) => {
    log.push(name);
    return t;
  });
}

describe('WindowGate', () => {
  it('is an exact sliding window: a slot frees windowMs (+ margin) after the ANSWER of the request that took it', async () => {
    const clock = new VirtualClock(T0);
    const g = new WindowGate([{ name: 'r', limit: 2, windowMs: 1000 }], clock, { marginMs: 0 });
    const log: string[] = [];
    const a = await track(g.acquire(['r']), log, 'a');
    const b = await track(g.acquire(['r']), log, 'b');
    clock.advance(100);
    a.release(); // stamped T0+100
    clock.advance(200);
    b.release(); // stamped T0+300
    const c = track(g.acquire(['r']), log, 'c');
    const d = track(g.acquire(['r']), log, 'd');
    await flush();
    expect(log).toEqual(['a', 'b']);
    clock.advanceTo(T0 + 1099);
    await flush();
    expect(log).toEqual(['a', 'b']);
    clock.advanceTo(T0 + 1100);
    await flush();
    expect(log).toEqual(['a', 'b', 'c']);
    clock.advanceTo(T0 + 1299);
    await flush();
    expect(log).toEqual(['a', 'b', 'c']);
    clock.advanceTo(T0 + 1300);
    await flush();
    expect(log).toEqual(['a', 'b', 'c', 'd']);
    (await c).release();
    (await d).release();
  });

  it('holds in-flight slots: a request without an answer keeps its slot however long it takes', async () => {
    const clock = new VirtualClock(T0);
    const g = new WindowGate([{ name: 'r', limit: 1, windowMs: 1000 }], clock, { marginMs: 0 });
    const a = await g.acquire(['r']);
    const log: string[] = [];
    const b = track(g.acquire(['r']), log, 'b');
    clock.advance(5000);
    await flush();
    expect(log).toEqual([]);
    expect(g.ruleState('r')).toMatchObject({ used: 1, inflight: 1, waiting: 1 });
    a.release(); // answered at T0+5000: the slot frees at T0+6000
    clock.advance(999);
    await flush();
    expect(log).toEqual([]);
    clock.advance(1);
    await flush();
    expect(log).toEqual(['b']);
    (await b).release();
  });

  it('adds the safety margin to every window', async () => {
    const clock = new VirtualClock(T0);
    const g = new WindowGate([{ name: 'r', limit: 1, windowMs: 1000 }], clock, { marginMs: 250 });
    (await g.acquire(['r'])).release();
    const log: string[] = [];
    const b = track(g.acquire(['r']), log, 'b');
    clock.advance(1249);
    await flush();
    expect(log).toEqual([]);
    clock.advance(1);
    await flush();
    expect(log).toEqual(['b']);
    (await b).release();
  });

  it('applies burst and sustained together: the sustained window binds while the burst has room', async () => {
    const clock = new VirtualClock(T0);
    const g = new WindowGate(
      [
        { name: 'burst', limit: 2, windowMs: 1000 },
        { name: 'sustained', limit: 3, windowMs: 10_000 },
      ],
      clock,
      { marginMs: 0 },
    );
    const both = ['burst', 'sustained'];
    (await g.acquire(both)).release();
    (await g.acquire(both)).release();
    clock.advance(1000); // burst window empty again
    (await g.acquire(both)).release(); // 3rd: sustained now full
    const log: string[] = [];
    const d = track(g.acquire(both), log, 'd');
    clock.advance(5000);
    await flush();
    expect(log).toEqual([]); // burst has room, sustained does not
    expect(g.ruleState('burst').used).toBe(0);
    expect(g.ruleState('sustained').used).toBe(3);
    clock.advanceTo(T0 + 10_000);
    await flush();
    expect(log).toEqual(['d']);
    (await d).release();
  });

  it('is all or nothing: a request blocked on one rule consumes nothing from the others, and does not hold back requests that do not need the full rule', async () => {
    const clock = new VirtualClock(T0);
    const g = new WindowGate(
      [
        { name: 'general', limit: 100, windowMs: 1000 },
        { name: 'orders', limit: 1, windowMs: 1000 },
        { name: 'book', limit: 10, windowMs: 1000 },
      ],
      clock,
      { marginMs: 0 },
    );
    (await g.acquire(['general', 'orders'])).release();
    const log: string[] = [];
    const blocked = track(g.acquire(['general', 'orders']), log, 'order2');
    await flush();
    expect(g.ruleState('general').used).toBe(1);
    const book = await track(g.acquire(['general', 'book']), log, 'book');
    expect(log).toEqual(['book']);
    book.release();
    expect(g.ruleState('general').used).toBe(2);
    clock.advance(1000);
    await flush();
    expect(log).toEqual(['book', 'order2']);
    (await blocked).release();
  });

  it('keeps FIFO order per rule', async () => {
    const clock = new VirtualClock(T0);
    const g = new WindowGate([{ name: 'r', limit: 1, windowMs: 100 }], clock, { marginMs: 0 });
    const log: string[] = [];
    const ps = ['a', 'b', 'c', 'd'].map((n) => track(g.acquire(['r']), log, n).then((t) => t.release()));
    for (let i = 0; i < 10; i++) {
      await flush();
      clock.advance(100);
    }
    await Promise.all(ps);
    expect(log).toEqual(['a', 'b', 'c', 'd']);
  });

  it('an aborted waiter leaves the line and consumes nothing', async () => {
    const clock = new VirtualClock(T0);
    const g = new WindowGate([{ name: 'r', limit: 1, windowMs: 1000 }], clock, { marginMs: 0 });
    const a = await g.acquire(['r']);
    const ac = new AbortController();
    const b = g.acquire(['r'], ac.signal);
    ac.abort(new Error('stop'));
    await expect(b).rejects.toThrow('stop');
    expect(g.ruleState('r')).toMatchObject({ used: 1, waiting: 0 });
    a.release();
    clock.advance(1000);
    const c = await g.acquire(['r']);
    c.release();
  });

  it('pause holds every request needing the rule until the given time', async () => {
    const clock = new VirtualClock(T0);
    const g = new WindowGate([{ name: 'r', limit: 100, windowMs: 1000 }], clock, { marginMs: 0 });
    g.pause(['r'], T0 + 700);
    const log: string[] = [];
    const p = track(g.acquire(['r']), log, 'a');
    clock.advance(699);
    await flush();
    expect(log).toEqual([]);
    clock.advance(1);
    await flush();
    expect(log).toEqual(['a']);
    (await p).release();
  });

  it('send-time stamps overshoot a server that counts at arrival; answer-time stamps do not', async () => {
    // two requests sent at T0: the first waits 300 ms in a socket queue, the second arrives at once.
    // When the client's window frees (T0 + 1000 with send stamps), two more go out and arrive at once.
    const run = async (stampAt: 'send' | 'completion'): Promise<number> => {
      const clock = new VirtualClock(T0);
      const g = new WindowGate([{ name: 'r', limit: 2, windowMs: 1000 }], clock, { marginMs: 0, stampAt });
      const server = new SlidingWindowLimiter({ limit: 2, windowMs: 1000 });
      let refused = 0;
      const send = async (arrivalDelay: number) => {
        const t = await g.acquire(['r']);
        clock.setTimeout(() => {
          if (!server.tryAcquire('k', clock.now()).ok) refused++;
          clock.setTimeout(() => t.release(), 1);
        }, arrivalDelay);
      };
      const all = [send(300), send(0), send(0), send(0)];
      for (let i = 0; i < 400; i++) {
        await flush();
        clock.advance(5);
      }
      await Promise.all(all);
      return refused;
    };
    expect(await run('send')).toBeGreaterThan(0);
    expect(await run('completion')).toBe(0);
  });

  it('never lets a reordering server refuse (property: random send, arrival and answer delays)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.array(
          fc.record({
            gap: fc.integer({ min: 0, max: 150 }),
            arrive: fc.integer({ min: 0, max: 400 }),
            answer: fc.integer({ min: 0, max: 400 }),
          }),
          {
            minLength: 5,
            maxLength: 40,
          },
        ),
        async (limit, reqs) => {
          const clock = new VirtualClock(T0);
          const g = new WindowGate([{ name: 'r', limit, windowMs: 1000 }], clock, { marginMs: 0 });
          const server = new SlidingWindowLimiter({ limit, windowMs: 1000 });
          let refused = 0;
          let done = 0;
          let at = 0;
          for (const r of reqs) {
            at += r.gap;
            clock.setTimeout(() => {
              void g.acquire(['r']).then((t) => {
                clock.setTimeout(() => {
                  if (!server.tryAcquire('k', clock.now()).ok) refused++;
                  clock.setTimeout(() => {
                    t.release();
                    done++;
                  }, r.answer);
                }, r.arrive);
              });
            }, at);
          }
          for (let i = 0; i < 20_000 && done < reqs.length; i++) {
            await flush();
            clock.advance(10);
          }
          expect(done).toBe(reqs.length);
          expect(refused).toBe(0);
        },
      ),
      { numRuns: 40 },
    );
  }, 60_000);
});

describe('Budgets', () => {
  it('uses the spec numbers by default and routes every applicable rule', () => {
    const b = new Budgets({}, new VirtualClock(T0));
    expect(b.rulesFor('clob', 'POST', '/orders')).toEqual([
      'general',
      'clob',
      'POST /orders:burst',
      'POST /orders:sustained',
    ]);
    expect(b.gate.rule('POST /orders:burst')).toEqual({ name: 'POST /orders:burst', limit: 1000, windowMs: 10_000 });
    expect(b.gate.rule('POST /orders:sustained')).toEqual({
      name: 'POST /orders:sustained',
      limit: 15000,
      windowMs: 600_000,
    });
    expect(b.rulesFor('data', 'GET', '/users/0xabc/pnl')).toEqual(['general', 'user-pnl']);
    expect(b.endpointKey('clob', 'GET', '/data/order/0xabc123')).toBe('clob GET /data/order/:id');
    // the relayer's /submit: 25 requests a minute (spec 8.1); its lookups only the general rule
    expect(b.rulesFor('relayer', 'POST', '/submit')).toEqual(['general', 'relayer-submit']);
    expect(b.gate.rule('relayer-submit')).toEqual({ name: 'relayer-submit', limit: 25, windowMs: 60_000 });
    expect(b.rulesFor('relayer', 'GET', '/transaction')).toEqual(['general']);
  });

  it('holds the 26th relayer submit of a minute until the first slot frees', async () => {
    const clock = new VirtualClock(T0);
    const b = new Budgets({ marginMs: 0 }, clock);
    let sent = 0;
    const send = async () => {
      sent++;
    };
    for (let i = 0; i < 25; i++) await b.schedule('relayer', 'POST', '/submit', send);
    const late = b.schedule('relayer', 'POST', '/submit', send);
    await flush();
    expect(sent).toBe(25);
    clock.advanceTo(T0 + 59_999);
    await flush();
    expect(sent).toBe(25);
    clock.advanceTo(T0 + 60_000);
    await late;
    expect(sent).toBe(26);
  });

  it('takes overrides and a scale, and refuses unknown rules', () => {
    const b = new Budgets(
      { scale: 0.5, rules: { 'POST /orders:burst': { limit: 10, windowMs: 1000 } } },
      new VirtualClock(T0),
    );
    expect(b.gate.rule('POST /orders:burst')).toEqual({ name: 'POST /orders:burst', limit: 5, windowMs: 1000 });
    expect(b.gate.rule('general')?.limit).toBe(7500);
    expect(() => new Budgets({ rules: { 'POST /nope': { limit: 1 } } }, new VirtualClock(T0))).toThrow(ConfigError);
    expect(() => new Budgets({ marginMs: -1 }, new VirtualClock(T0))).toThrow(ConfigError);
  });

  it('schedules through the endpoint queue and the windows; a batch is one request', async () => {
    const b = new Budgets(
      { rules: { 'POST /orders:burst': { limit: 3, windowMs: 60_000 } }, marginMs: 0 },
      new LiveClock(),
    );
    let sent = 0;
    const results = await Promise.all(
      [1, 2, 3].map(() =>
        b.schedule('clob', 'POST', '/orders', async () => {
          sent++;
          return 'ok';
        }),
      ),
    );
    expect(results).toEqual(['ok', 'ok', 'ok']);
    const ac = new AbortController();
    const fourth = b.schedule('clob', 'POST', '/orders', async () => 'late', ac.signal);
    await new Promise((r) => setTimeout(r, 50));
    const st = b.stats();
    const burst = st.rules.find((r) => r.name === 'POST /orders:burst')!;
    expect(burst).toMatchObject({ limit: 3, used: 3, waiting: 1 });
    expect(st.endpoints.find((e) => e.key === 'clob POST /orders')).toBeDefined();
    ac.abort(new Error('gave up'));
    await expect(fourth).rejects.toThrow('gave up');
    expect(sent).toBe(3);
    await b.stop();
  });

  it('on a 429: pauses the rule the server names by its limit, or learns a lower limit', () => {
    const clock = new VirtualClock(T0);
    const b = new Budgets({ rules: { 'POST /orders:burst': { limit: 10, windowMs: 1000 } } }, clock);
    // the server says its limit is 5: ours (10) is looser, so the burst rule learns 5
    expect(b.onRateLimited('clob', 'POST', '/orders', 800, 5)).toEqual(['POST /orders:burst']);
    expect(b.gate.rule('POST /orders:burst')?.limit).toBe(5);
    expect(b.gate.ruleState('POST /orders:burst')).toMatchObject({ pausedUntil: T0 + 800, learned: true });
    // an exact match is paused without learning
    expect(b.onRateLimited('clob', 'GET', '/book', 100, 100)).toEqual(['GET /book']);
    expect(b.gate.rule('GET /book')?.limit).toBe(100);
    // no usable limit: the endpoint's own rules
    expect(b.onRateLimited('clob', 'DELETE', '/orders', 100, 0)).toEqual([
      'DELETE /orders:burst',
      'DELETE /orders:sustained',
    ]);
    expect(b.onRateLimited('clob', 'GET', '/data/orders', 100)).toEqual(['clob']);
    expect(b.onRateLimited('gamma', 'GET', '/events', 100)).toEqual(['gamma-api']);
  });

  it('with learning off, a 429 only pauses', () => {
    const b = new Budgets(
      { learnFromHeaders: false, rules: { 'POST /orders:burst': { limit: 10, windowMs: 1000 } } },
      new VirtualClock(T0),
    );
    expect(b.onRateLimited('clob', 'POST', '/orders', 800, 5)).toEqual([
      'POST /orders:burst',
      'POST /orders:sustained',
    ]);
    expect(b.gate.rule('POST /orders:burst')?.limit).toBe(10);
  });
});
