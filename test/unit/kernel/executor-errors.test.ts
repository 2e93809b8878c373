import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.ts';
import { NetworkError } from '../../../src/core/errors.ts';
import { executorErrorReporter } from '../../../src/kernel/executor-errors.ts';
import { KillSwitch } from '../../../src/risk/kill-switch.ts';

function parts() {
  const clock = new VirtualClock(1_000);
  const kill = new KillSwitch(clock, {});
  const lines: Array<{ obj: Record<string, unknown>; msg: string }> = [];
  const log = { warn: (obj: object, msg: string) => lines.push({ obj: obj as Record<string, unknown>, msg }) };
  return { clock, kill, lines, report: executorErrorReporter({ kill, log, clock }) };
}

describe('executorErrorReporter', () => {
  it('a store failure trips the kill switch as storeFailure, with the cause', () => {
    const { kill, lines, report } = parts();
    report({ where: 'store', error: new Error('database or disk is full') });
    expect(kill.tripped).toBe(true);
    expect(kill.reason).toMatchObject({ trigger: 'storeFailure' });
    expect(kill.reason?.message).toContain('an order could not be stored: database or disk is full');
    expect(lines).toEqual([]);
  });

  it('any other failure is one WARN line per `where` per window; the lines held back are counted', () => {
    const { clock, kill, lines, report } = parts();
    const err = new NetworkError('connect ECONNREFUSED');
    report({ where: 'cycle 0xaa', error: err });
    report({ where: 'cycle 0xaa', error: err });
    report({ where: 'cycle 0xbb', error: err });
    report({ where: 'audit', error: new Error('disk I/O error') });
    expect(kill.tripped).toBe(false);
    expect(lines.map((l) => l.obj['where'])).toEqual(['cycle 0xaa', 'cycle 0xbb', 'audit']);
    expect(lines[0]).toMatchObject({ msg: 'execution error', obj: { err: 'connect ECONNREFUSED', code: 'NETWORK' } });
    clock.advance(9_999);
    report({ where: 'cycle 0xaa', error: err });
    expect(lines).toHaveLength(3);
    clock.advance(1);
    report({ where: 'cycle 0xaa', error: err });
    expect(lines).toHaveLength(4);
    expect(lines[3]!.obj).toMatchObject({ where: 'cycle 0xaa', suppressed: 2 });
  });

  it('after the switch tripped, failures are not repeated as WARN lines', () => {
    const { kill, lines, report } = parts();
    kill.trip('manual', 'stop');
    report({ where: 'cycle 0xaa', error: new Error('halted') });
    expect(lines).toEqual([]);
  });
});
