import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.ts';
import { DaemonOps } from '../../../src/ops/daemon-ops.ts';

const log = pino({ level: 'silent' });

describe("the daemon's ops in shadow mode", () => {
  it('say shadow on /api/status (mode) and /metrics (mmkit_info{mode="shadow"}); a live daemon says live and keeps its info labels', async () => {
    const clock = new VirtualClock(1_700_000_000_000);
    const shadow = new DaemonOps({ clock, log, version: '1.0.0', mode: 'shadow' });
    expect(shadow.monitor.current().mode).toBe('shadow');
    expect(await shadow.metrics.render()).toMatch(/^mmkit_info\{version="1\.0\.0",mode="shadow"\} 1$/m);
    const live = new DaemonOps({ clock, log, version: '1.0.0' });
    expect(live.monitor.current().mode).toBe('live');
    expect(await live.metrics.render()).toMatch(/^mmkit_info\{version="1\.0\.0"\} 1$/m);
    await shadow.close();
    await live.close();
  });

  it('say no user stream in shadow mode (its fills are simulated), whatever events say (trial 15 F3)', async () => {
    const clock = new VirtualClock(1_700_000_000_000);
    const shadow = new DaemonOps({ clock, log, version: '1.0.0', mode: 'shadow' });
    const live = new DaemonOps({ clock, log, version: '1.0.0' });
    const resynced = { type: 'resynced', stream: 'user', initial: true, recvTime: clock.now(), venueTime: clock.now() };
    for (const o of [shadow, live]) o.monitor.onEvent(resynced as unknown as Parameters<typeof o.monitor.onEvent>[0]);
    expect(shadow.monitor.health().checks.userStream).toBe('none');
    expect(live.monitor.health().checks.userStream).toBe('up');
    await shadow.close();
    await live.close();
  });
});
