/**
 * The streams' per-connection message budget (src/exchange/ws/budget.ts) and the limits' defaults
 * and validation (streamLimits): pure arithmetic on given times.
 */
import { describe, expect, it } from 'vitest';
import { ConnBudget, DEFAULT_BUDGET, TokenBucket } from '../../../../src/exchange/ws/budget.ts';
import { streamLimits } from '../../../../src/exchange/ws/index.ts';

describe('TokenBucket', () => {
  it('starts full, takes while tokens last, refills at its rate up to its capacity', () => {
    const b = new TokenBucket(3, 2, 0);
    expect([b.take(1, 0), b.take(1, 0), b.take(1, 0), b.take(1, 0)]).toEqual([true, true, true, false]);
    expect(b.waitMs(1, 0)).toBe(500);
    expect(b.take(1, 499)).toBe(false);
    expect(b.take(1, 500)).toBe(true);
    expect(b.level(100_000)).toBe(3); // capped
    expect(b.take(4, 100_000)).toBe(false); // more than there is: nothing taken
    expect(b.level(100_000)).toBe(3);
  });

  it('draws while positive, going into debt, and refuses until the debt is repaid', () => {
    const b = new TokenBucket(100, 10, 0);
    expect(b.canDraw(0)).toBe(true);
    b.charge(250, 0); // one big reply overdraws
    expect(b.level(0)).toBe(-150);
    expect(b.waitMs(Number.MIN_VALUE, 10_000)).toBe(5000);
    expect(b.canDraw(14_999)).toBe(false);
    expect(b.canDraw(15_001)).toBe(true);
  });

  it('never refills at rate 0; time going backwards changes nothing', () => {
    const b = new TokenBucket(1, 0, 1000);
    expect(b.take(1, 1000)).toBe(true);
    expect(b.waitMs(1, 5000)).toBe(Number.POSITIVE_INFINITY);
    const c = new TokenBucket(2, 1, 1000);
    c.take(2, 1000);
    expect(c.level(500)).toBe(0);
    expect(c.level(2000)).toBe(1);
  });
});

describe('ConnBudget', () => {
  const opts = { messageBurst: 5, messagesPerSec: 1, replyBurstBytes: 1000, replyBytesPerSec: 100, maxStrikes: 10 };

  it('lets a burst of frames through, then refuses; the first refusal after a calm spell is flagged', () => {
    const b = new ConnBudget(opts, 0);
    for (let i = 0; i < 5; i++) expect(b.message(0)).toBeUndefined();
    const r1 = b.message(0);
    expect(r1).toEqual({ first: true, close: false, retryInMs: 1000 });
    expect(b.message(10)?.first).toBe(false);
    expect(b.message(1000)).toBeUndefined(); // refilled one
    // strikes leak one per second: calm again after 2 s without refusal
    expect(b.message(3500)).toBeUndefined(); // 2.5 tokens refilled
    expect(b.message(3500)).toBeUndefined();
    const r = b.message(3500);
    expect(r?.first).toBe(true);
    expect(b.refused).toBe(3);
  });

  it('closes a flood: the strikes reach the maximum', () => {
    const b = new ConnBudget(opts, 0);
    for (let i = 0; i < 5; i++) b.message(0);
    const verdicts = Array.from({ length: 10 }, () => b.message(0)!);
    expect(verdicts.map((v) => v.close)).toEqual([...Array(9).fill(false), true]);
    expect(verdicts.filter((v) => v.first)).toHaveLength(1);
  });

  it('a slow trickle of refusals is never closed (strikes leak)', () => {
    const b = new ConnBudget(opts, 0);
    let t = 0;
    for (let i = 0; i < 5; i++) b.message(t);
    for (let i = 0; i < 200; i++) {
      t += 1001; // one frame per second refills one token: accepted
      expect(b.message(t)).toBeUndefined();
      const r = b.message(t); // the second of the second is refused
      expect(r?.close).toBe(false);
    }
  });

  it('replies: sent while the bucket is positive (overdraw allowed), refused while repaying', () => {
    const b = new ConnBudget(opts, 0);
    expect(b.reply(0)).toBeUndefined();
    b.charge(1500, 0);
    const r = b.reply(0);
    expect(r).toMatchObject({ first: true, close: false });
    expect(r!.retryInMs).toBe(5000); // 500 bytes of debt at 100 B/s
    expect(b.reply(5001)).toBeUndefined();
  });

  it('defaults: a bot PINGing every 10 s and resyncing now and then never trips', () => {
    const b = new ConnBudget(DEFAULT_BUDGET, 0);
    for (let t = 0; t < 3_600_000; t += 1000) {
      if (t % 10_000 === 0) expect(b.message(t)).toBeUndefined(); // PING
      if (t % 5000 === 0) {
        // a resync of 10 books of 3 KB every 5 s
        expect(b.message(t)).toBeUndefined();
        expect(b.reply(t)).toBeUndefined();
        b.charge(30_000, t);
      }
    }
    expect(b.refused).toBe(0);
    // and a burst of 50 subscription frames at once
    for (let i = 0; i < 50; i++) expect(b.message(3_600_000)).toBeUndefined();
  });
});

describe('streamLimits', () => {
  it('applies the documented defaults', () => {
    expect(streamLimits({})).toEqual({
      maxConnections: 1000,
      maxConnectionsPerIp: 100,
      authTimeoutMs: 10_000,
      pingIntervalMs: 30_000,
      idleTimeoutMs: 60_000,
      budget: DEFAULT_BUDGET,
    });
    expect(streamLimits({ pingIntervalMs: 100 }).idleTimeoutMs).toBe(200);
    expect(streamLimits({ budget: { messagesPerSec: 5 } }).budget).toEqual({ ...DEFAULT_BUDGET, messagesPerSec: 5 });
  });

  it('refuses an idle timeout not above the ping interval, and negative or fractional values', () => {
    expect(() => streamLimits({ pingIntervalMs: 1000, idleTimeoutMs: 1000 })).toThrow(/idleTimeoutMs/);
    expect(() => streamLimits({ maxConnections: -1 })).toThrow(/maxConnections/);
    expect(() => streamLimits({ maxConnectionsPerIp: 0 })).toThrow(
      /^streams: maxConnectionsPerIp must be an integer >= 1/,
    );
    expect(() => streamLimits({ budget: { maxStrikes: 1.5 } })).toThrow(/budget.maxStrikes/);
    expect(streamLimits({ pingIntervalMs: 0, idleTimeoutMs: 0 }).pingIntervalMs).toBe(0); // pings off
  });
});
