import { describe, expect, it } from 'vitest';
import { guardedClock, VirtualClock } from '../../../src/core/clock.ts';

describe('VirtualClock', () => {
  it('fires timers in time order as it advances', () => {
    const c = new VirtualClock(1000);
    const fired: string[] = [];
    c.setTimeout(() => fired.push(`b@${c.now()}`), 20);
    c.setTimeout(() => fired.push(`a@${c.now()}`), 10);
    const h = c.setTimeout(() => fired.push('never'), 15);
    c.clearTimeout(h);
    c.advance(15);
    expect(fired).toEqual(['a@1010']);
    c.advance(100);
    expect(fired).toEqual(['a@1010', 'b@1020']);
    expect(c.now()).toBe(1115);
  });
  it('repeats intervals and stops when cleared', () => {
    const c = new VirtualClock(0);
    let n = 0;
    const h = c.setInterval(() => n++, 100);
    c.advance(350);
    expect(n).toBe(3);
    c.clearInterval(h);
    c.advance(1000);
    expect(n).toBe(3);
  });
  it('refuses to go backwards', () => {
    const c = new VirtualClock(500);
    expect(() => c.advance(-1)).toThrow(RangeError);
    expect(() => c.advanceTo(499)).toThrow(RangeError);
    expect(c.now()).toBe(500);
  });
});

describe("guardedClock (a strategy's ctx.clock: trial 23 F1)", () => {
  it("hands a callback's throw or rejection to onError; the clock and its other timers go on", async () => {
    const clock = new VirtualClock(0);
    const errors: unknown[] = [];
    const g = guardedClock(clock, (e) => errors.push(e));
    let ticks = 0;
    g.setInterval(() => {
      ticks++;
      throw new Error(`boom ${ticks}`);
    }, 100);
    g.setTimeout(() => Promise.reject(new Error('async boom')) as unknown as void, 150);
    let fine = 0;
    g.setTimeout(() => fine++, 250);
    expect(() => clock.advanceTo(300)).not.toThrow();
    await Promise.resolve();
    expect(ticks).toBe(3);
    expect(fine).toBe(1);
    expect(errors.map((e) => (e as Error).message)).toEqual(['boom 1', 'boom 2', 'boom 3', 'async boom']);
    expect(g.now()).toBe(300);
    // without the guard the throw reaches whoever drives the clock
    const raw = new VirtualClock(0);
    raw.setTimeout(() => {
      throw new Error('raw');
    }, 10);
    expect(() => raw.advanceTo(20)).toThrow('raw');
  });
});
