import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.ts';

/** The reference behaviour: a linear scan of every timer (the clock's original algorithm). */
class ScanClock {
  t: number;
  seq = 0;
  timers = new Map<number, { id: number; at: number; every: number; fn: () => void }>();
  constructor(t: number) {
    this.t = t;
  }
  advanceTo(target: number): void {
    for (;;) {
      let next: { id: number; at: number; every: number; fn: () => void } | undefined;
      for (const x of this.timers.values())
        if (x.at <= target && (next === undefined || x.at < next.at || (x.at === next.at && x.id < next.id))) next = x;
      if (next === undefined) break;
      this.t = Math.max(this.t, next.at);
      if (next.every > 0) next.at += next.every;
      else this.timers.delete(next.id);
      next.fn();
    }
    this.t = target;
  }
  setTimeout(fn: () => void, ms: number) {
    const id = ++this.seq;
    this.timers.set(id, { id, at: this.t + Math.max(0, ms), every: 0, fn });
    return { id };
  }
  setInterval(fn: () => void, ms: number) {
    const id = ++this.seq;
    const every = Math.max(1, ms);
    this.timers.set(id, { id, at: this.t + every, every, fn });
    return { id };
  }
  clear(h: { id: number }) {
    this.timers.delete(h.id);
  }
}

describe('VirtualClock (heap) behaves like the linear scan', () => {
  it('ties fire in creation order; intervals keep their place among equal times', () => {
    const c = new VirtualClock(0);
    const out: string[] = [];
    c.setInterval(() => out.push(`i@${c.now()}`), 10);
    c.setTimeout(() => out.push(`a@${c.now()}`), 10);
    c.setTimeout(() => out.push(`b@${c.now()}`), 20);
    c.advance(20);
    expect(out).toEqual(['i@10', 'a@10', 'i@20', 'b@20']);
    expect(c.fired).toBe(4);
  });

  it('timers created or cleared inside callbacks are honoured within the same advance', () => {
    const c = new VirtualClock(100);
    const out: string[] = [];
    let h: { id: number } | undefined;
    c.setTimeout(() => {
      out.push(`x@${c.now()}`);
      c.setTimeout(() => out.push(`y@${c.now()}`), 5);
      if (h) c.clearTimeout(h);
    }, 1);
    h = c.setTimeout(() => out.push('never'), 3);
    const iv = c.setInterval(() => {
      out.push(`i@${c.now()}`);
      c.clearInterval(iv);
    }, 2);
    c.advance(50);
    expect(out).toEqual(['x@101', 'i@102', 'y@106']);
    expect(c.pending()).toBe(0);
    expect(c.nextAt()).toBeUndefined();
  });

  it('a random schedule fires exactly as the linear scan does', () => {
    let seed = 12345;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const a = new VirtualClock(0);
    const b = new ScanClock(0);
    const outA: string[] = [];
    const outB: string[] = [];
    const handlesA: { id: number }[] = [];
    const handlesB: { id: number }[] = [];
    const ops: Array<[number, number, number]> = [];
    for (let i = 0; i < 3000; i++) ops.push([Math.floor(rnd() * 4), Math.floor(rnd() * 200), Math.floor(rnd() * 1e6)]);
    let k = 0;
    for (const [op, ms, r] of ops) {
      const tag = `t${k++}`;
      if (op === 0) {
        handlesA.push(a.setTimeout(() => outA.push(`${tag}@${a.now()}`), ms));
        handlesB.push(b.setTimeout(() => outB.push(`${tag}@${b.t}`), ms));
      } else if (op === 1 && ms < 20) {
        handlesA.push(a.setInterval(() => outA.push(`${tag}@${a.now()}`), ms + 5));
        handlesB.push(b.setInterval(() => outB.push(`${tag}@${b.t}`), ms + 5));
      } else if (op === 2 && handlesA.length > 0) {
        const j = r % handlesA.length;
        a.clearTimeout(handlesA[j]!);
        b.clear(handlesB[j]!);
      } else {
        a.advance(ms);
        b.advanceTo(b.t + ms);
      }
    }
    a.advance(10_000);
    b.advanceTo(b.t + 10_000);
    expect(outA.length).toBeGreaterThan(1000);
    expect(outA).toEqual(outB);
  });
});
