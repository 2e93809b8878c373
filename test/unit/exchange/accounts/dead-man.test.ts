/** The dead-man switch's armed set (pure): arming, heartbeats, expiry, and the restart re-basing. */
import { describe, expect, it } from 'vitest';
import { DeadManSwitch } from '../../../../src/exchange/accounts/dead-man.ts';

describe('DeadManSwitch', () => {
  it('expires only armed addresses silent longer than the timeout', () => {
    const d = new DeadManSwitch();
    d.beat('a', 0); // not armed: a heartbeat alone does not arm (the exchange journals the arming)
    expect(d.isArmed('a')).toBe(false);
    d.set('a', true, 1_000);
    d.set('b', true, 2_000);
    expect(d.expired(11_000, 10_000)).toEqual([]);
    expect(d.expired(11_001, 10_000)).toEqual(['a']);
    d.beat('a', 11_000);
    expect(d.expired(12_001, 10_000)).toEqual(['b']);
    d.set('b', false, 12_001);
    expect(d.armed()).toEqual(['a']);
  });

  it('restartAll begins every armed window at the restart', () => {
    const d = new DeadManSwitch();
    d.set('a', true, 1_000);
    d.set('b', true, 5_000);
    d.restartAll(100_000);
    expect(d.expired(110_000, 10_000)).toEqual([]);
    expect(d.expired(110_001, 10_000)).toEqual(['a', 'b']);
  });
});
