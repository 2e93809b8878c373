/**
 * `mmkit backtest|sweep --from TIME --to TIME` (trial 11 F5): an ISO 8601 time with its zone or unix
 * ms, for feed backtests only, the end after the start; the runner's `fromMs`/`toMs`.
 */
import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { backtestOptionsOf, timeArg, type SourceCliOptions } from '../../../src/cli/backtest.ts';

const FEED = new URL('../../fixtures/paper-feed-5m.ndjson.gz', import.meta.url).pathname;
const feed = (more: Partial<SourceCliOptions> = {}): SourceCliOptions => ({
  feed: [FEED],
  strategy: 'bands',
  seed: 1,
  latencyMs: 0,
  feedCache: false,
  ...more,
});

describe('--from / --to', () => {
  it('parse ISO 8601 times with their zone and unix ms; anything else names the flag', () => {
    const from = timeArg('--from');
    expect(from('2026-11-28T22:10:00Z')).toBe(Date.UTC(2026, 10, 28, 22, 10));
    expect(from('2026-11-28T23:10:00.500+01:00')).toBe(Date.UTC(2026, 10, 28, 22, 10, 0, 500));
    expect(from('1795904052822')).toBe(1795904052822);
    expect(from('1795903722818.2764')).toBe(1795903722818.2764); // a feed's startMs, pasted
    for (const bad of ['yesterday', '2026-11-28', '2026-11-28T22:10:00', '-5', '1e12', '', '1.', '.5'])
      expect(() => from(bad), bad).toThrow(InvalidArgumentError);
    expect(() => timeArg('--to')('soon')).toThrow(/--to must be an ISO 8601 time with its zone/);
  });

  it("become the runner's window; the end must come after the start; a world backtest has none", () => {
    expect(backtestOptionsOf(feed({ from: 1000, to: 2000 }), {})).toMatchObject({ fromMs: 1000, toMs: 2000 });
    const none = backtestOptionsOf(feed(), {});
    expect(none.fromMs).toBeUndefined();
    expect(none.toMs).toBeUndefined();
    expect(() => backtestOptionsOf(feed({ from: 2000, to: 2000 }), {})).toThrow(/--to .* must be after --from/);
    const world = { world: 1, duration: '1h', strategy: 'bands', seed: 1, latencyMs: 0 };
    expect(() => backtestOptionsOf({ ...world, to: 2000 }, {})).toThrow(/--to applies to --feed backtests only/);
  });
});

describe('--world-fee-rate-bps', () => {
  it("becomes the world's taker fee rate; a feed backtest has none", () => {
    const world = { world: 1, duration: '1h', strategy: 'bands', seed: 1, latencyMs: 0 };
    expect(backtestOptionsOf({ ...world, worldFeeRateBps: 200 }, {}).world).toMatchObject({ feeRateBps: 200 });
    expect(backtestOptionsOf(world, {}).world?.feeRateBps).toBeUndefined();
    expect(() => backtestOptionsOf(feed({ worldFeeRateBps: 200 }), {})).toThrow(
      /--world-fee-rate-bps applies to --world backtests only/,
    );
  });
});
