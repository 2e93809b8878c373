import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.ts';
import { HeartbeatKeeper, type HeartbeatStatus } from '../../../src/execution/heartbeat.ts';
import { flush } from './fake-venue.ts';

function setup(opts: { active?: boolean } = {}) {
  const clock = new VirtualClock(0);
  let active = opts.active ?? true;
  let ok = true;
  const beats: number[] = [];
  const pauses: string[] = [];
  const statuses: HeartbeatStatus[] = [];
  const hb = new HeartbeatKeeper({
    clock,
    beat: async () => {
      beats.push(clock.now());
      if (ok === null) throw new Error('boom');
      return ok;
    },
    active: () => active,
    target: { pause: (r) => pauses.push(`pause:${r}`), resume: (r) => pauses.push(`resume:${r}`) },
  });
  hb.onStatus((s) => statuses.push(s));
  const advance = async (ms: number) => {
    for (let t = 0; t < ms; t += 100) {
      clock.advance(100);
      await flush(3);
    }
  };
  return {
    clock,
    hb,
    beats,
    pauses,
    statuses,
    advance,
    setActive: (a: boolean) => (active = a),
    setOk: (o: boolean | null) => (ok = o as boolean),
  };
}

describe('HeartbeatKeeper', () => {
  it('beats at start and every 5 s while orders rest', async () => {
    const s = setup();
    s.hb.start();
    await flush();
    await s.advance(15_000);
    expect(s.beats).toEqual([0, 5000, 10_000, 15_000]);
    expect(s.hb.status()).toMatchObject({ ok: true, sent: 4, failed: 0, lastOkAt: 15_000 });
    await s.hb.stop();
  });

  it('does not beat while nothing rests', async () => {
    const s = setup({ active: false });
    s.hb.start();
    await s.advance(12_000);
    expect(s.beats).toEqual([]);
    s.setActive(true);
    await s.advance(5000);
    expect(s.beats).toEqual([15_000]);
    await s.hb.stop();
  });

  it('a failed heartbeat pauses new orders at once, retries every second, and resumes only on success', async () => {
    const s = setup();
    s.hb.start();
    await flush();
    s.setOk(false);
    await s.advance(5000);
    expect(s.pauses).toEqual(['pause:heartbeat']);
    expect(s.hb.status()).toMatchObject({ ok: false, consecutiveFailures: 1, error: 'heartbeat refused' });
    // keeps trying every second even though the venue cancelled everything (nothing rests now)
    s.setActive(false);
    s.setOk(null);
    await s.advance(2000);
    expect(s.beats).toEqual([0, 5000, 6000, 7000]);
    expect(s.hb.status()).toMatchObject({ consecutiveFailures: 3, error: 'boom' });
    expect(s.pauses).toEqual(['pause:heartbeat']);
    s.setOk(true);
    await s.advance(1000);
    expect(s.pauses).toEqual(['pause:heartbeat', 'resume:heartbeat']);
    expect(s.hb.status()).toMatchObject({ ok: true, consecutiveFailures: 0, failed: 3 });
    expect(s.statuses.map((x) => x.ok)).toEqual([true, false, false, false, true]);
    await s.hb.stop();
  });

  it('stop is idempotent and stops the timer', async () => {
    const s = setup();
    s.hb.start();
    await flush();
    await s.hb.stop();
    await s.hb.stop();
    await s.advance(20_000);
    expect(s.beats).toEqual([0]);
    expect(s.clock.pending()).toBe(0);
  });

  it('never overlaps beats: a slow heartbeat delays the next', async () => {
    const clock = new VirtualClock(0);
    let calls = 0;
    let release!: (v: boolean) => void;
    const hb = new HeartbeatKeeper({
      clock,
      beat: () => {
        calls++;
        return new Promise<boolean>((r) => (release = r));
      },
      active: () => true,
    });
    hb.start();
    clock.advance(20_000);
    await flush();
    expect(calls).toBe(1);
    await Promise.all([hb.beatNow(), (async () => release(true))()]);
    expect(hb.status().ok).toBe(true);
    await hb.stop();
  });
});
