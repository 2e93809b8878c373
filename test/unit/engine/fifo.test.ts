/** Fifo: the engine state's queue of keys in insertion order, against a plain array. */
import { describe, expect, it } from 'vitest';
import { Fifo } from '../../../src/engine/fifo.ts';

describe('Fifo', () => {
  it('shifts what was pushed, oldest first, as Array#push/shift do (across its compactions)', () => {
    const q = new Fifo<number>();
    const model: number[] = [];
    let seed = 7;
    const rnd = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    let next = 0;
    for (let i = 0; i < 20_000; i++) {
      // pushes a little more often than shifts, so the queue grows past the compaction threshold
      if (rnd(5) < 3) {
        q.push(next);
        model.push(next++);
      } else expect(q.shift()).toBe(model.shift());
      expect(q.size).toBe(model.length);
    }
    while (model.length > 0) expect(q.shift()).toBe(model.shift());
    expect(q.shift()).toBeUndefined();
    expect(q.size).toBe(0);
    q.push(-1);
    expect(q.shift()).toBe(-1);
  });
});
