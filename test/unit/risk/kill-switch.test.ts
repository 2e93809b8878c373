import { describe, expect, it, vi } from 'vitest';
import type { Micro } from '../../../src/core/units.ts';
import { VirtualClock } from '../../../src/core/clock.ts';
import { KillSwitch, type TripReason } from '../../../src/risk/kill-switch.ts';
import { resolveRiskLimits } from '../../../src/risk/limits.ts';

const SH = 1_000_000;
const limits = resolveRiskLimits({
  maxLoss: 50,
  maxRejections: 3,
  rejectionWindowMs: 1_000,
  maxHeartbeatFailures: 2,
}).killSwitch;

describe('KillSwitch', () => {
  it('starts armed and trips once, keeping the first reason; listeners run once', () => {
    const clock = new VirtualClock(10_000);
    const ks = new KillSwitch(clock, { limits });
    const seen: TripReason[] = [];
    ks.onTrip((r) => seen.push(r));
    expect(ks.tripped).toBe(false);
    expect(ks.reason).toBeNull();
    clock.advance(5);
    expect(ks.trip('cli', 'operator said stop')).toBe(true);
    expect(ks.trip('signal', 'SIGTERM')).toBe(false);
    expect(ks.tripped).toBe(true);
    expect(ks.reason).toEqual({ trigger: 'cli', message: 'operator said stop', at: 10_005 });
    expect(seen).toEqual([ks.reason]);
  });
  it('stays tripped: nothing re-arms it', () => {
    const ks = new KillSwitch(new VirtualClock(), { limits });
    ks.trip('signal');
    ks.recordHeartbeat(true);
    ks.recordPnl(1_000 * SH, 0);
    expect(ks.tripped).toBe(true);
    expect(ks.reason?.trigger).toBe('signal');
    expect(ks.reason?.message).toBe('signal');
  });
  it('calls a late subscriber at once, and unsubscribing works', () => {
    const ks = new KillSwitch(new VirtualClock(), { limits });
    const a = vi.fn();
    const off = ks.onTrip(a);
    off();
    ks.trip('manual', 'invariant');
    expect(a).not.toHaveBeenCalled();
    const late = vi.fn();
    ks.onTrip(late);
    expect(late).toHaveBeenCalledWith(ks.reason);
  });
  it('a throwing listener does not stop the others or the trip', () => {
    const errors: unknown[] = [];
    const ks = new KillSwitch(new VirtualClock(), { limits, onListenerError: (e) => errors.push(e) });
    const b = vi.fn();
    ks.onTrip(() => {
      throw new Error('listener bug');
    });
    ks.onTrip(b);
    expect(ks.trip('cli')).toBe(true);
    expect(b).toHaveBeenCalledOnce();
    expect(errors).toHaveLength(1);
    expect(ks.tripped).toBe(true);
  });
  it('trips on the loss limit (realized + unrealized below -maxLoss)', () => {
    const ks = new KillSwitch(new VirtualClock(), { limits });
    expect(ks.recordPnl(-30 * SH, -20 * SH)).toBe(false); // exactly -50: not below
    expect(ks.recordPnl(10 * SH, -61 * SH)).toBe(true);
    expect(ks.reason?.trigger).toBe('lossLimit');
    expect(ks.reason?.message).toBe('PnL -51 below -50 (realized 10, unrealized -61)');
  });
  it('says the loss to the micro, realized before fees and the fees apart (trial 19 F6)', () => {
    const ks = new KillSwitch(new VirtualClock(), { limits: { ...limits, maxLoss: 1_500_000 as Micro } });
    expect(ks.recordPnl(-382_210, -1_200_000, 382_210)).toBe(true);
    expect(ks.reason?.message).toBe('PnL -1.58221 below -1.5 (realized 0, fees 0.38221, unrealized -1.2)');
  });
  it('trips on N rejections within the window, not when they are spread out', () => {
    const clock = new VirtualClock(0);
    const ks = new KillSwitch(clock, { limits });
    ks.recordRejection('INVALID_ORDER_MIN_SIZE');
    clock.advance(600);
    ks.recordRejection();
    clock.advance(600); // the first one left the window
    expect(ks.recordRejection()).toBe(false);
    clock.advance(100);
    expect(ks.recordRejection('INVALID_ORDER_NOT_ENOUGH_BALANCE')).toBe(true);
    expect(ks.reason).toMatchObject({ trigger: 'rejections', at: 1_300 });
    expect(ks.reason?.message).toMatch(/3 order rejections within 1000 ms \(last: INVALID_ORDER_NOT_ENOUGH_BALANCE\)/);
  });
  it('trips on consecutive heartbeat failures; a success resets the count', () => {
    const ks = new KillSwitch(new VirtualClock(), { limits });
    ks.recordHeartbeat(false);
    ks.recordHeartbeat(true);
    expect(ks.recordHeartbeat(false)).toBe(false);
    expect(ks.recordHeartbeat(false)).toBe(true);
    expect(ks.reason?.trigger).toBe('heartbeatFailure');
  });
  it('says when every failed heartbeat went unanswered (the venue unavailable, no refusal: trial 17 F1)', () => {
    const hung = new KillSwitch(new VirtualClock(), { limits });
    hung.recordHeartbeat(false, 'no answer', true);
    hung.recordHeartbeat(false, 'no answer', true);
    expect(hung.reason).toMatchObject({ trigger: 'heartbeatFailure', venueUnavailable: true });
    // one refusal among them (a 401): a heartbeat failure as before
    const refused = new KillSwitch(new VirtualClock(), { limits });
    refused.recordHeartbeat(false, '401', false);
    refused.recordHeartbeat(false, 'no answer', true);
    expect(refused.reason?.trigger).toBe('heartbeatFailure');
    expect(refused.reason).not.toHaveProperty('venueUnavailable');
    // a success in between starts the run afresh
    const again = new KillSwitch(new VirtualClock(), { limits });
    again.recordHeartbeat(false, '401', false);
    again.recordHeartbeat(true);
    again.recordHeartbeat(false, 'no answer', true);
    again.recordHeartbeat(false, 'no answer', true);
    expect(again.reason).toMatchObject({ venueUnavailable: true });
  });
  it("names the last heartbeat failure's cause in the reason (findings-6 F7: a clock skew reads as the 401)", () => {
    const ks = new KillSwitch(new VirtualClock(), { limits });
    const err = 'POST /v1/heartbeats: 401 UNAUTHORIZED: POLY_TIMESTAMP is 401 s away from server time (max 300 s)';
    ks.recordHeartbeat(false, 'heartbeat: no answer within 3000 ms');
    ks.recordHeartbeat(false, err);
    expect(ks.reason?.message).toBe(`2 consecutive heartbeat failures (last: ${err})`);
  });
  it('0 disables the automatic triggers', () => {
    const off = resolveRiskLimits({ maxLoss: 0, maxRejections: 0, maxHeartbeatFailures: 0 }).killSwitch;
    const ks = new KillSwitch(new VirtualClock(), { limits: off });
    ks.recordPnl(-1e12, 0);
    for (let i = 0; i < 100; i++) ks.recordRejection();
    for (let i = 0; i < 100; i++) ks.recordHeartbeat(false);
    expect(ks.tripped).toBe(false);
  });
  it('uses the default limits when none are given', () => {
    const ks = new KillSwitch(new VirtualClock());
    for (let i = 0; i < 9; i++) ks.recordRejection();
    expect(ks.tripped).toBe(false);
    ks.recordRejection();
    expect(ks.tripped).toBe(true);
  });
});
