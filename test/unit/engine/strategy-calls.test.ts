/**
 * The handler-time histogram behind `strategy check`'s "slowest onEvent ..., p99 ..." line
 * (src/engine/strategy-calls.ts: CallTimes).
 */
import { describe, expect, it } from 'vitest';
import { CallTimes } from '../../../src/engine/strategy-calls.ts';

const timed = (ms: readonly number[]) => {
  const t = new CallTimes();
  for (const x of ms) t.add(x);
  return t.timing();
};

describe('CallTimes: the p99 of handler times', () => {
  it('is the slowest call when there are 100 calls or fewer (trial 10 F23: 26 fast calls and one of 15 s)', () => {
    expect(timed([...Array<number>(26).fill(0.05), 15_000])).toMatchObject({
      calls: 27,
      slowestMs: 15_000,
      p99Ms: 15_000,
    });
    expect(timed([0.2, 3, 0.5]).p99Ms).toBe(3);
  });
  it("is its bucket's upper bound below 1.2 s, and the slowest in the unbounded last bucket", () => {
    // 1000 calls: the 990th fastest decides
    const many = [...Array<number>(985).fill(0.05), ...Array<number>(14).fill(4.23), 50];
    expect(timed(many).p99Ms).toBeCloseTo(4.3, 9);
    const slow = [...Array<number>(985).fill(0.05), ...Array<number>(14).fill(2_000), 9_000];
    expect(timed(slow)).toMatchObject({ slowestMs: 9_000, p99Ms: 9_000 });
    expect(timed([...Array<number>(1000).fill(0.05)]).p99Ms).toBe(0.05);
  });
  it('says the slowest to the µs, without float noise (trial 23 F9)', () => {
    expect(timed([0.7790119999999661, 0.1])).toMatchObject({ slowestMs: 0.779, p99Ms: 0.779 });
    // rounded up too, the p99 with it (review 48b F7)
    expect(timed([0.7795999999999661, 0.1])).toMatchObject({ slowestMs: 0.78, p99Ms: 0.78 });
  });
  it('is 0 with no call', () => {
    expect(timed([])).toMatchObject({ calls: 0, slowestMs: 0, p99Ms: 0 });
  });
});
