import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../../src/core/clock.ts';
import { Rng } from '../../../../src/core/random.ts';
import { OrderIds } from '../../../../src/exchange/world/agents.ts';
import { agentRatesOf } from '../../../../src/exchange/world/index.ts';
import { Timers } from '../../../../src/exchange/world/runtime.ts';

describe('Timers', () => {
  it('keeps running after a callback throws, reports it, and clears everything', () => {
    const clock = new VirtualClock(0);
    const errors: unknown[] = [];
    const t = new Timers(clock, (e) => errors.push(e));
    let ticks = 0;
    t.every(100, () => {
      ticks++;
      if (ticks === 2) throw new Error('boom');
    });
    let arrivals = 0;
    t.poisson(
      new Rng(1),
      () => 50,
      () => {
        arrivals++;
        if (arrivals === 1) throw new Error('bang');
      },
    );
    clock.advance(1000);
    expect(ticks).toBe(10);
    expect(arrivals).toBeGreaterThan(5);
    expect(errors.map((e) => (e as Error).message).sort()).toEqual(['bang', 'boom']);
    t.clear();
    expect(clock.pending()).toBe(0);
    clock.advance(1000);
    expect(ticks).toBe(10);
    t.every(10, () => ticks++); // no timers after clear
    expect(clock.pending()).toBe(0);
  });

  it('poisson arrivals have the asked mean and pause while the mean is not finite', () => {
    const clock = new VirtualClock(0);
    const t = new Timers(clock, (e) => {
      throw e;
    });
    let n = 0;
    let paused = true;
    t.poisson(
      new Rng(7),
      () => (paused ? Infinity : 200),
      () => n++,
    );
    clock.advance(10_000);
    expect(n).toBe(0);
    paused = false;
    clock.advance(200_000);
    expect(n).toBeGreaterThan(900);
    expect(n).toBeLessThan(1100);
    t.clear();
  });
});

describe('OrderIds', () => {
  it('gives 32-byte hex ids, deterministic per (seed, start), never reused after a restart', () => {
    const known = new Set<string>();
    const a = new OrderIds(1, 1000, (id) => known.has(id));
    const ids = [a.next(), a.next(), a.next()];
    for (const id of ids) expect(id).toMatch(/^0x[0-9a-f]{64}$/);
    expect(new Set(ids).size).toBe(3);
    expect(new OrderIds(1, 1000, () => false).next()).toBe(ids[0]);
    // the first order of that run was refused, the second accepted: a restart at the same time moves on
    known.add(ids[1]!);
    const b = new OrderIds(1, 1000, (id) => known.has(id));
    expect(b.prefix).not.toBe(a.prefix);
    expect(new OrderIds(1, 2000, () => false).prefix).not.toBe(a.prefix);
  });
});

describe('agent rates', () => {
  it('scale with the rate multiplier and refuse nonsense', () => {
    const one = agentRatesOf({});
    const two = agentRatesOf({ rate: 2 });
    expect(two.noisePerMarketPerMin).toBe(2 * one.noisePerMarketPerMin);
    expect(two.informedPerMarketPerMin).toBe(2 * one.informedPerMarketPerMin);
    expect(two.lpRefreshMs).toBe(one.lpRefreshMs / 2);
    expect(agentRatesOf({ rates: { noisePerMarketPerMin: 1 } }).noisePerMarketPerMin).toBe(1);
    expect(() => agentRatesOf({ rate: -1 })).toThrow(RangeError);
    expect(() => agentRatesOf({ rate: Number.NaN })).toThrow(RangeError);
  });
});
