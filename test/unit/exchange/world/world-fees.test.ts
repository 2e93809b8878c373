/**
 * A paper world whose markets charge takers a fee (trial 11: no shipped world had one, so the fee
 * paths of a paper run and of the backtest of its recording could not be compared):
 * `exchange.feeRateBps` / `--fee-rate-bps` sets the rate of every market the world seeds and of every
 * market its lifecycle lists later; 0 (the default) leaves the world as it was.
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../../src/core/clock.ts';
import { DEFAULT_EXCHANGE_OPTIONS, PaperExchange } from '../../../../src/exchange/exchange.ts';
import { withWorldFee } from '../../../../src/exchange/world/world-fees.ts';
import { seedWorld, startWorld } from '../../../../src/exchange/world/index.ts';

function world(feeRateBps?: number) {
  const clock = new VirtualClock(Date.UTC(2026, 0, 1));
  const ex = new PaperExchange({ ...DEFAULT_EXCHANGE_OPTIONS, clock });
  seedWorld(ex, 5, feeRateBps !== undefined ? { feeRateBps } : {});
  ex.start();
  const seeded = new Set(ex.listMarkets().map((m) => m.meta.conditionId));
  const w = startWorld(ex, {
    seed: 5,
    agents: 'none',
    lifecycle: true,
    priceFeed: true,
    ...(feeRateBps !== undefined ? { feeRateBps } : {}),
  });
  // long enough for the rolling crypto windows to list new markets
  clock.advance(40 * 60_000);
  w.stop();
  ex.stop();
  const all = ex.listMarkets().map((m) => m.meta);
  return {
    seeded: all.filter((m) => seeded.has(m.conditionId)),
    listed: all.filter((m) => !seeded.has(m.conditionId)),
  };
}

describe('a paper world with taker fees', () => {
  it('every seeded market and every market listed later has the rate; without it, none', () => {
    const fee = world(200);
    expect(fee.seeded.length).toBeGreaterThan(10);
    expect(fee.listed.length).toBeGreaterThan(0);
    for (const m of [...fee.seeded, ...fee.listed]) expect(m.feeRateBps, m.question).toBe(200);
    const none = world();
    for (const m of [...none.seeded, ...none.listed]) expect(m.feeRateBps).toBe(0);
    // the same markets otherwise
    expect(none.seeded.map((m) => m.conditionId)).toEqual(fee.seeded.map((m) => m.conditionId));
  });

  it('refuses a rate that is not an integer of bps in [0, 1000], before anything is written', () => {
    for (const bad of [-1, 1001, 2.5, Number.NaN])
      expect(() => withWorldFee({ feeRateBps: 0 }, bad)).toThrow(/world fee rate must be an integer of bps/);
    const ex = new PaperExchange({ ...DEFAULT_EXCHANGE_OPTIONS, clock: new VirtualClock(0) });
    expect(() => seedWorld(ex, 5, { feeRateBps: 5000 })).toThrow(RangeError);
    expect(ex.listMarkets()).toEqual([]);
  });
});
