import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.ts';
import { NetworkError } from '../../../src/core/errors.ts';
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

  // findings-6: against a hung venue a beat was retried inside one call for 40 s and more, never
  // counted as failed, so maxHeartbeatFailures could not trip
  it('a beat with no answer within timeoutMs has failed: counted, paused, its signal aborted, retried', async () => {
    const clock = new VirtualClock(0);
    const signals: AbortSignal[] = [];
    const pauses: string[] = [];
    const statuses: HeartbeatStatus[] = [];
    const hb = new HeartbeatKeeper({
      clock,
      // a hung venue: never answers (not even to its signal)
      beat: (signal) => {
        signals.push(signal);
        return new Promise<boolean>(() => {});
      },
      active: () => true,
      target: { pause: (r) => pauses.push(`pause:${r}`), resume: (r) => pauses.push(`resume:${r}`) },
    });
    hb.onStatus((x) => statuses.push(x));
    hb.start();
    for (let t = 0; t < 12_000; t += 100) {
      clock.advance(100);
      await flush(3);
    }
    // default bound 3 s, then a retry 1 s later: failures at 3, 7, 11 s
    expect(statuses.map((x) => [x.lastAttemptAt, x.consecutiveFailures])).toEqual([
      [3000, 1],
      [7000, 2],
      [11_000, 3],
    ]);
    expect(statuses[0]!.error).toBe('heartbeat: no answer within 3000 ms');
    // the venue's availability, not a refusal (the kill switch's trip says so: trial 17 F1)
    expect(statuses.every((x) => x.unavailable === true)).toBe(true);
    expect(pauses).toEqual(['pause:heartbeat']);
    expect(signals.slice(0, 3).every((x) => x.aborted)).toBe(true);
    // stop waits for the beat in flight: bounded too
    const stopped = hb.stop();
    clock.advance(3000);
    await stopped;
  });

  it("a thrown error's message is the failure's error (the venue's own words)", async () => {
    const clock = new VirtualClock(0);
    const hb = new HeartbeatKeeper({
      clock,
      beat: async () => {
        throw new Error('POST /v1/heartbeats: 401 UNAUTHORIZED: POLY_TIMESTAMP is 401 s away from server time');
      },
      active: () => true,
    });
    await hb.beatNow();
    expect(hb.status()).toMatchObject({ ok: false, consecutiveFailures: 1 });
    expect(hb.status().error).toMatch(/401 UNAUTHORIZED: POLY_TIMESTAMP/);
    expect(hb.status().unavailable).toBeUndefined(); // a refusal
    expect(clock.pending()).toBe(0);
  });

  it('an error worth retrying (a 503, the network) is the venue unavailable; a false answer is a refusal', async () => {
    const clock = new VirtualClock(0);
    let answer: () => Promise<boolean> = async () => {
      throw new NetworkError('503 from the venue', 'SERVICE_UNAVAILABLE');
    };
    const hb = new HeartbeatKeeper({ clock, beat: () => answer(), active: () => true });
    await hb.beatNow();
    expect(hb.status()).toMatchObject({ ok: false, unavailable: true });
    answer = async () => false;
    await hb.beatNow();
    expect(hb.status().ok).toBe(false);
    expect(hb.status().unavailable).toBeUndefined();
    await hb.stop();
  });

  it('refuses a non-positive timeoutMs', () => {
    expect(
      () =>
        new HeartbeatKeeper({ clock: new VirtualClock(0), beat: async () => true, active: () => true, timeoutMs: 0 }),
    ).toThrow(RangeError);
  });
});
