/** /healthz's judgement: healthy only while running with fresh data and a working heartbeat. */
import { describe, expect, it } from 'vitest';
import { assessHealth, type HealthInput } from '../../../src/ops/health.ts';

const T = 1_000_000;
const base: HealthInput = {
  lifecycle: 'running',
  runningSince: T - 60_000,
  market: { connected: true, lastDataAt: T - 500 },
  user: { connected: true, lastDataAt: 0 },
  books: [
    { market: '0xaaaaaaaaaaaa', tokenId: 't1', outcome: 'Yes', stale: false },
    { market: '0xaaaaaaaaaaaa', tokenId: 't2', outcome: 'No', stale: false },
  ],
  heartbeat: { consecutiveFailures: 0 },
  killSwitch: { tripped: false },
  feedStaleMs: 10_000,
};
const codes = (h: HealthInput) => assessHealth(h, T).reasons.map((r) => r.code);

describe('assessHealth', () => {
  it('is ok while running with fresh data', () => {
    const r = assessHealth(base, T);
    expect(r).toMatchObject({ status: 'ok', healthy: true, reasons: [] });
    expect(r.checks).toMatchObject({
      lifecycle: 'running',
      marketDataAgeSec: 0.5,
      marketStream: 'up',
      userStream: 'up',
      staleBooks: 0,
    });
  });
  it('is unhealthy before running (start-up reconciliation pending) and while stopping', () => {
    expect(codes({ ...base, lifecycle: 'starting' })).toContain('starting');
    expect(codes({ ...base, lifecycle: 'reconciling' })).toEqual(['reconciling']);
    expect(codes({ ...base, lifecycle: 'stopping' })).toEqual(['stopping']);
  });
  it('says feed_stale after feedStaleMs without market data (a frozen socket), and stream down on a disconnect', () => {
    expect(codes({ ...base, market: { connected: true, lastDataAt: T - 10_001 } })).toEqual(['feed_stale']);
    expect(codes({ ...base, market: { connected: true, lastDataAt: T - 10_001 }, feedStaleMs: 0 })).toEqual([]);
    // no data at all yet: counted from when the daemon started running
    expect(codes({ ...base, market: { connected: true, lastDataAt: 0 }, runningSince: T - 11_000 })).toEqual([
      'feed_stale',
    ]);
    expect(codes({ ...base, market: { connected: false, lastDataAt: T - 100, reason: 'closed 1006' } })).toEqual([
      'market_stream_down',
    ]);
    expect(
      assessHealth({ ...base, market: { connected: false, lastDataAt: T, reason: 'closed 1006' } }, T).reasons[0]!
        .message,
    ).toContain('closed 1006');
    expect(codes({ ...base, user: { connected: false, lastDataAt: 0 } })).toEqual(['user_stream_down']);
  });
  it('says feed_stale for a stale traded book, but not for a resolved market', () => {
    const stale = { ...base, books: [{ ...base.books[0]!, stale: true }, base.books[1]!] };
    expect(codes(stale)).toEqual(['feed_stale']);
    expect(codes({ ...base, books: [{ ...base.books[0]!, stale: true, retired: true }] })).toEqual([]);
  });
  it('says no feed_stale for the silence once every followed market resolved (nothing more comes; trial 25 F5)', () => {
    const silent = { ...base, market: { connected: true, lastDataAt: T - 60_000 } };
    const retired = silent.books.map((b) => ({ ...b, stale: true, retired: true }));
    expect(codes({ ...silent, books: retired })).toEqual([]);
    // one market still open: its silence is a stale feed
    expect(codes({ ...silent, books: [retired[0]!, base.books[1]!] })).toEqual(['feed_stale']);
  });
  it('is unhealthy while the strategy is failing (its quotes pulled; trial 21 F1)', () => {
    const r = assessHealth(
      { ...base, strategyFailing: { consecutive: 7, lastError: 'late21' } },
      base.runningSince + 1000,
    );
    expect(r.reasons.map((x) => x.code)).toEqual(['strategy_failing']);
    expect(r.reasons[0]!.message).toContain('erred on 7 evaluations in a row (last: late21)');
  });
  it("is unhealthy while a fleet member cannot reach the fleet's Redis (trial 22 F5)", () => {
    expect(codes({ ...base, fleetUnreachable: true })).toEqual(['fleet_unreachable']);
    expect(codes({ ...base, fleetUnreachable: false })).toEqual([]);
  });
  it('is unhealthy while the heartbeat fails and once the kill switch tripped', () => {
    expect(codes({ ...base, heartbeat: { consecutiveFailures: 2, error: 'HTTP 500' } })).toEqual(['heartbeat_failing']);
    expect(codes({ ...base, killSwitch: { tripped: true, trigger: 'cli', message: 'operator' } })).toEqual([
      'kill_switch',
    ]);
  });
});
