import { describe, expect, it } from 'vitest';
import { describeStop, runExitCode, type RunStop } from '../../../src/cli/run-stop.ts';
import { ExitCode } from '../../../src/cli/exit-codes.ts';
import type { KillTrigger } from '../../../src/risk/kill-switch.ts';

const trip = (trigger: KillTrigger): RunStop => ({ kind: 'killSwitch', trigger, message: 'm' });

describe('run stop and exit code', () => {
  it('a kill switch tripped by risk exits 4, flat or not', () => {
    expect(ExitCode.RISK_STOP).toBe(4);
    // (storeFailure: a fill that could not be stored, e.g. on a full disk: trial 6 F2)
    for (const t of ['lossLimit', 'rejections', 'heartbeatFailure', 'storeFailure', 'manual'] as const) {
      expect(runExitCode(trip(t), true)).toBe(4);
      expect(runExitCode(trip(t), false)).toBe(4);
    }
  });

  it('heartbeats the venue never answered (hung, down): exit 3 when flat, restartable; 4 when orders were left (trial 17 F1)', () => {
    const hung: RunStop = { kind: 'killSwitch', trigger: 'heartbeatFailure', message: 'm', venueUnavailable: true };
    expect(runExitCode(hung, true)).toBe(ExitCode.UNREACHABLE);
    expect(runExitCode(hung, false)).toBe(ExitCode.RISK_STOP);
  });

  it('an operator stop (mmkit kill, a signal, the duration) exits 0 when flat, 1 when not', () => {
    const asked: RunStop[] = [
      trip('cli'),
      trip('signal'),
      { kind: 'signal', signal: 'SIGTERM' },
      { kind: 'signal', signal: 'SIGINT' },
      { kind: 'signal', signal: 'SIGHUP' },
      { kind: 'duration' },
      { kind: 'abort' },
    ];
    for (const s of asked) {
      expect(runExitCode(s, true)).toBe(ExitCode.OK);
      expect(runExitCode(s, false)).toBe(ExitCode.FAILURE);
    }
  });

  it('says why in the words the summary always printed', () => {
    expect(describeStop({ kind: 'signal', signal: 'SIGTERM' })).toBe('SIGTERM');
    expect(describeStop({ kind: 'duration' })).toBe('duration');
    expect(describeStop({ kind: 'abort' })).toBe('abort');
    expect(
      describeStop({ kind: 'killSwitch', trigger: 'heartbeatFailure', message: '2 consecutive heartbeat failures' }),
    ).toBe('kill switch: heartbeatFailure: 2 consecutive heartbeat failures');
    // a kill through the control API (mmkit kill, the status page, curl): not labelled as a command line's
    expect(describeStop({ kind: 'killSwitch', trigger: 'cli', message: 'curl kill' })).toBe(
      'kill switch over HTTP: curl kill',
    );
  });
});
