import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.ts';

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
