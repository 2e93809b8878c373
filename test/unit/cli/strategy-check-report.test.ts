/**
 * `mmkit strategy check`'s report from the run's summary (review-2 F3: exact counts, no lower
 * bound) and its warnings (user trial 4, F21: most quotes refused, a slow handler).
 */
import { describe, expect, it } from 'vitest';
import { checkWarnings, SLOW_HANDLER_MS, strategyErrorsOf, testCommand } from '../../../src/cli/strategy.ts';

describe('strategy check: the strategy errors', () => {
  it("counts them from the run's summary (exact), the first's kind from the log lines", () => {
    const lines = [
      { msg: 'engine ready: quoting allowed' },
      { msg: 'strategy handler threw (output dropped)', err: 'boom', at: '/x/bad.ts:3:9', occurrences: 10 },
    ];
    const summary = { strategyErrors: 1801, firstStrategyError: { message: 'boom', at: '/x/bad.ts:3:9' } };
    expect(strategyErrorsOf(summary, lines)).toEqual({
      count: 1801,
      first: { message: 'boom', at: '/x/bad.ts:3:9', kind: 'threw' },
    });
    const invalid = { strategyErrors: 3, firstStrategyError: { message: 'invalid output: unknown key', at: null } };
    expect(strategyErrorsOf(invalid, []).first?.kind).toBe('invalid output');
    expect(strategyErrorsOf(invalid, [{ msg: 'strategy output invalid (output dropped)' }]).first?.kind).toBe(
      'invalid output',
    );
    expect(strategyErrorsOf({ strategyErrors: 0, firstStrategyError: null }, lines)).toEqual({
      count: 0,
      first: null,
    });
  });
});

describe('strategy check: warnings', () => {
  const timing = (o: Partial<{ asked: number; slowestMs: number }>) => ({
    asked: 31,
    calls: 40,
    slowestMs: 3,
    p99Ms: 1,
    ...o,
  });

  it('warns when the gate refused more than half of what the strategy asked for', () => {
    expect(checkWarnings({ OFF_TICK: 30 }, timing({}))).toEqual(['most quotes refused: OFF_TICK x30 of 31']);
    // all of them: said so (trial 23 F9: "most quotes refused: INVALID_PRICE x4 of 4")
    expect(checkWarnings({ INVALID_PRICE: 31 }, timing({}))).toEqual(['every quote refused: INVALID_PRICE x31 of 31']);
    expect(checkWarnings({ PRICE_BAND: 1, OFF_TICK: 15 }, timing({}))).toEqual([
      'most quotes refused: OFF_TICK x15, PRICE_BAND x1 of 31',
    ]);
    expect(checkWarnings({ OFF_TICK: 15 }, timing({}))).toEqual([]);
    expect(checkWarnings({}, timing({ asked: 0 }))).toEqual([]);
  });

  it('warns when exactly half was refused: one side of a two-sided quoter every time (trial 10 F4)', () => {
    expect(checkWarnings({ OFF_TICK: 8 }, timing({ asked: 16 }))).toEqual([
      'half the quotes refused: OFF_TICK x8 of 16 (one side or one token refused every time?)',
    ]);
    expect(checkWarnings({ OFF_TICK: 7 }, timing({ asked: 16 }))).toEqual([]);
  });

  it('warns when every immediate order was refused, whatever the quotes (trial 21 F7)', () => {
    // 8 FOK refused among 96 asked: the resting quotes keep the first count under half
    expect(checkWarnings({ ORDER_SIZE: 8 }, timing({ asked: 96 }), { refused: { ORDER_SIZE: 8 }, sent: 0 })).toEqual([
      'every immediate order refused: ORDER_SIZE x8 of 8 (none reached the venue)',
    ]);
    expect(checkWarnings({ ORDER_SIZE: 8 }, timing({ asked: 96 }), { refused: { ORDER_SIZE: 8 }, sent: 1 })).toEqual(
      [],
    );
    expect(checkWarnings({}, timing({ asked: 96 }), { refused: {}, sent: 0 })).toEqual([]);
  });

  it('warns when the slowest onEvent took over 100 ms', () => {
    expect(SLOW_HANDLER_MS).toBe(100);
    expect(checkWarnings({}, timing({ slowestMs: 100 }))).toEqual([]);
    expect(checkWarnings({}, timing({ slowestMs: 401.4 }))).toEqual([
      'slow handler: the slowest onEvent took 401 ms (over 100 ms: handlers must be cheap, README "Rules")',
    ]);
    expect(checkWarnings({ OFF_TICK: 30 }, undefined)).toEqual([]);
  });
});

describe('strategy new: the test command it prints (trial 10 F10)', () => {
  it("runs a test under the checkout's strategies/ by path, elsewhere with --root from the checkout", () => {
    expect(testCommand('/co/strategies', 'q', '/co')).toBe('npx vitest run /co/strategies/q.test.ts');
    expect(testCommand('/co/strategies/mine', 'q', '/co')).toBe('npx vitest run /co/strategies/mine/q.test.ts');
    expect(testCommand('/home/me/bots', 'q', '/co')).toBe('cd /co && npx vitest run --root /home/me/bots q.test.ts');
    expect(testCommand('/co/strategies-old', 'q', '/co')).toBe(
      'cd /co && npx vitest run --root /co/strategies-old q.test.ts',
    );
  });
});
