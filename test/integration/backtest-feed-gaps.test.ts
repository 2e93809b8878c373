/**
 * Trial 23 F2: two feeds of different sessions, hours apart, merged with nothing said of the time
 * between them, and a Sharpe ratio made of the empty hours (68 changes of 0). The real runner on two
 * hand-written feeds of one market with 5 hours between them: the result names the gap, the summary
 * says it, and the per-period figures leave it out.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeMetrics } from '../../src/backtest/metrics.ts';
import { formatSummary } from '../../src/backtest/report.ts';
import { runBacktest } from '../../src/backtest/runner.ts';
import { genMarkets } from '../support/feed-gen.ts';
import { statusLine } from '../../src/venues/sim/feed.ts';
import { bookFrame, writeHandFeed } from '../support/hand-feed.ts';

const H = 3_600_000;
const START = Date.UTC(2026, 0, 1);
const M = genMarkets(23, 1)[0]!;
const [YES, NO] = [M.tokens[0]!.tokenId, M.tokens[1]!.tokenId];
let dir: string;
const files: string[] = [];

/** Books of the market every 10 minutes over [from, to). */
const books = (from: number, to: number): string[] => {
  const out: string[] = [];
  for (let t = from; t < to; t += 600_000)
    out.push(
      bookFrame(M, t, YES, [['0.49', '100']], [['0.51', '100']]),
      bookFrame(M, t, NO, [['0.49', '100']], [['0.51', '100']]),
    );
  return out;
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mmkit-bt-gaps-'));
  // one session of 2 hours (the recorder's stop at its end), another 5 hours after it
  files.push(join(dir, 'day1.ndjson.gz'), join(dir, 'day2.ndjson.gz'), join(dir, 'quiet.ndjson.gz'));
  writeHandFeed(files[0]!, START, M, [
    ...books(START + 100, START + 2 * H),
    statusLine(START + 2 * H, 'm', 'disconnect', 'stop'),
  ]);
  writeHandFeed(files[1]!, START + 7 * H, M, books(START + 7 * H, START + 9 * H));
  // one session, connected throughout, whose market is quiet for 3 hours (nothing changes): no gap
  writeHandFeed(files[2]!, START, M, [
    ...books(START + 100, START + H),
    ...books(START + 4 * H, START + 5 * H),
    statusLine(START + 5 * H, 'm', 'disconnect', 'stop'),
  ]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('backtest: feeds with a gap between them', () => {
  it('names the gap, says it in the summary, and leaves it out of the Sharpe periods', async () => {
    const r = await runBacktest({ feeds: [files[0]!, files[1]!], strategy: 'bands', seed: 1 });
    expect(r.stopReason).toBe('end of feed');
    // from the recorder's stop to the next record
    expect(r.gaps).toEqual([{ fromMs: START + 2 * H, toMs: START + 7 * H }]);
    const m = computeMetrics(r);
    // about 9 hours from the first record to the last, of which 4 whole ones lie in the gap
    expect(m.sharpe.periods).toBeLessThanOrEqual(5);
    expect(formatSummary(r, m)).toMatch(/\n {2}gaps {12}1 with no data for an hour or more, 5h 0m in all \(the first /);
    // one feed alone: no gap
    const one = await runBacktest({ feeds: [files[0]!], strategy: 'bands', seed: 1 });
    expect(one.gaps).toBeUndefined();
    // a connected recording of a quiet market: hours without a record, no gap (review 48b F1)
    const quiet = await runBacktest({ feeds: [files[2]!], strategy: 'bands', seed: 1 });
    expect(quiet.gaps).toBeUndefined();
    // a window starting or ending inside the gap: the gap from the window's start, or up to its end (F2)
    const both = [files[0]!, files[1]!];
    const from = await runBacktest({ feeds: both, strategy: 'bands', seed: 1, fromMs: START + 4 * H });
    expect(from.gaps).toEqual([{ fromMs: START + 4 * H, toMs: START + 7 * H }]);
    const to = await runBacktest({ feeds: both, strategy: 'bands', seed: 1, toMs: START + 5 * H });
    expect(to.gaps).toEqual([{ fromMs: START + 2 * H, toMs: START + 5 * H }]);
  }, 60_000);
});
