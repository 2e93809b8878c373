/**
 * A backtest's final marks, and so its unrealized and total PnL, are the books' at the end of the
 * run, whatever the sampling period of the charts (`sampleMs`, `--sample-ms`). A recording ends with
 * the recorder's stop marker, a disconnect that leaves the books stale: the marks were then the mids
 * of the last PnL sample, up to a sampling period old (trial 11 F2: +10.19 USDC at 60 s, +9.41 at 1 s).
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/backtest/runner.ts';

/** 5.5 minutes of a paper exchange (seed 7, realistic profile, 3 markets) recorded by `mmkit record` (trial 11). */
const FEED = new URL('../fixtures/paper-feed-5m.ndjson.gz', import.meta.url).pathname;

describe('backtest: the final marks do not depend on the sampling period', () => {
  it.skipIf(!existsSync(FEED))(
    'a recording (it ends with the stop marker) at 1 s, 60 s and 7 s sampling',
    async () => {
      const run = (sampleMs: number) =>
        runBacktest({
          feeds: [FEED],
          strategy: 'bands',
          postOnly: true,
          latencyMs: 2,
          sampleMs,
          risk: { maxRejections: 100_000 },
        });
      const [a, b, c] = [await run(1_000), await run(60_000), await run(7_000)];
      expect(a.fillCount).toBeGreaterThan(0);
      expect(a.positions.some((p) => p.size !== 0 && p.mark !== null)).toBe(true);
      for (const x of [b, c]) {
        expect(x.fills).toEqual(a.fills);
        expect(x.positions).toEqual(a.positions);
        expect(x.pnl).toEqual(a.pnl);
      }
    },
    120_000,
  );
});
