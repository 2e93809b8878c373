/**
 * The simulated venue's budget meter (src/venues/sim/sim-budget.ts): requests counted against the
 * section-8 rules in virtual time, and how long a request must wait when a window is full (the
 * backtest's venue holds it that long, as the live client's budgets would).
 */
import { describe, expect, it } from 'vitest';
import { BudgetMeter } from '../../../../src/venues/sim/sim-budget.ts';

const tight = () =>
  new BudgetMeter({
    rules: {
      'POST /orders:burst': { limit: 3, windowMs: 1_000 },
      'POST /orders:sustained': { limit: 5, windowMs: 10_000 },
    },
  });
const use = (m: BudgetMeter, rule: string) => m.usage().find((u) => u.rule === rule)!;

describe('BudgetMeter', () => {
  it('no wait while every window has room', () => {
    const m = tight();
    expect([m.record('POST /orders', 0), m.record('POST /orders', 0), m.record('POST /orders', 0)]).toEqual([0, 0, 0]);
    expect(use(m, 'POST /orders:burst')).toMatchObject({ requests: 3, peak: 3, over: 0 });
  });

  it('a full window: the request waits until the oldest leaves it, and later ones queue behind it', () => {
    const m = tight();
    for (let i = 0; i < 3; i++) m.record('POST /orders', 100 * i); // 0, 100, 200
    expect(m.record('POST /orders', 300)).toBe(700); // sent at 1000: the request at 0 has left (0, 1000]
    expect(m.record('POST /orders', 300)).toBe(800); // at 1100, after the one at 100 left, not before the last
    const b = use(m, 'POST /orders:burst');
    expect(b).toMatchObject({ requests: 5, peak: 3, over: 2 });
    // the sustained window (5 per 10 s) is now full: the next waits for it, not for the burst
    expect(m.record('POST /orders', 1_200)).toBe(10_000 - 1_200);
    // over: the fifth queued behind the fourth (held by the burst), the sixth found the window full
    expect(use(m, 'POST /orders:sustained')).toMatchObject({ requests: 6, peak: 5, over: 2 });
  });

  it('other endpoints have their own windows', () => {
    const m = tight();
    for (let i = 0; i < 3; i++) m.record('POST /orders', 0);
    expect(m.record('DELETE /orders', 0)).toBe(0);
    expect(m.record('POST /orders', 0)).toBe(1_000);
  });
});
