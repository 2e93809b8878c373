/**
 * Issue 16: a seeded fuzz run of every HTTP route's parsers and of the WebSocket message handlers
 * (test/fuzz/: the same harness as `npm run fuzz`, which runs 1,000,000 inputs), small enough for
 * the suite. Invariants per input: no 5xx, no crash, every refusal in the envelope, the exchange's
 * state unchanged by refused input. A failure prints the shrunk counterexample; replay it with
 * `npm run fuzz -- --seed <seed> --inputs <n>`.
 */
import { describe, expect, it } from 'vitest';
import { describeStats, fuzzRun } from '../fuzz/run.ts';

const SEED = 20_250_601;
const INPUTS = 12_000;

describe('fuzzing the paper exchange (issue 16)', () => {
  it(`${INPUTS} generated and mutated inputs, seed ${SEED}: no invariant broken`, async () => {
    const r = await fuzzRun({ inputs: INPUTS, seed: SEED });
    const report = [
      ...describeStats(r.stats),
      ...(r.failure
        ? [
            `FAILURE (seed ${r.seed}, path ${r.failure.path}): ${r.failure.message}`,
            `counterexample: ${r.failure.counterexample}`,
          ]
        : []),
    ].join('\n');
    expect(r.failures, report).toBe(0);
    expect(r.inputs).toBe(INPUTS);
    // the inputs reach past the parsers: signed requests past authentication, orders admitted and
    // traded, every route template exercised, both transports of both protocols
    const s = r.stats;
    expect(s.pastAuth, report).toBeGreaterThan(500);
    expect(s.ordersAccepted, report).toBeGreaterThan(20);
    expect(s.tradesAtEnd, report).toBeGreaterThan(0);
    expect(s.httpLoopback, report).toBeGreaterThan(20);
    expect(s.wsReal, report).toBeGreaterThan(5);
    expect(s.wsErrorFrames, report).toBeGreaterThan(100);
    expect(s.registered.length).toBeGreaterThan(100);
    expect(
      s.registered.filter((k) => (s.routes[k]?.n ?? 0) === 0),
      'routes never fuzzed',
    ).toEqual([]);
    expect(s.registered.filter((k) => (s.routes[k]?.ok ?? 0) > 0).length, report).toBeGreaterThan(100);
  }, 180_000);
});
