/**
 * `mmkit backtest` and `mmkit sweep` on a recorded feed whose header carries a reward config, as a
 * user runs them: the rewards are in `--json` (apart from the PnL, and summed in the metrics), in
 * the summary, in the HTML report, and in the sweep's table and ranking.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REWARD_MARKET, writeRewardFeed } from '../support/reward-feed.ts';
import { runMmkit } from './support/cli.ts';

const STRATEGY = new URL('../support/two-sided-quotes-strategy.ts', import.meta.url).pathname;
let dir: string;
let feed: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mmkit-e2e-rewards-'));
  feed = join(dir, 'rewarded.ndjson.gz');
  // 3 cents, 20 shares, 144 USDC a day; the others 100 at 0.48 / 0.52; ten minutes
  writeRewardFeed(feed, {
    rewards: { maxSpread: 300, minSize: 20_000_000, dailyRate: 144_000_000 },
    bids: [[4800, 100_000_000]],
    asks: [[5200, 100_000_000]],
    durationMs: 600_001,
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('mmkit backtest / sweep with liquidity rewards', () => {
  it('--json, the summary and the report show the rewards apart from the PnL', async () => {
    const base = ['backtest', '--feed', feed, '--strategy', STRATEGY, '--no-feed-cache'];
    const j = await runMmkit([...base, '--json']);
    expect(j.code, j.err).toBe(0);
    const r = JSON.parse(j.out) as {
      pnl: { total: number };
      rewards: unknown;
      metrics: { pnl: number; rewards: number; pnlWithRewards: number };
    };
    // our 50 at 0.49 / 0.51 against the others' 100 at 0.48 / 0.52: 2/3 of 0.1 USDC a minute
    expect(r.rewards).toEqual({
      source: 'estimate',
      total: 666_666,
      byMarket: [{ market: REWARD_MARKET, accrued: 666_666, samples: 10, scoredSamples: 10 }],
    });
    expect(r.metrics.rewards).toBe(666_666);
    expect(r.metrics.pnlWithRewards).toBe(r.metrics.pnl + 666_666);
    const report = join(dir, 'report.html');
    const t = await runMmkit([...base, '--report', report]);
    expect(t.code, t.err).toBe(0);
    expect(t.out).toMatch(/^ {2}rewards {9}\+0\.67 USDC estimated against the recorded book/m);
    expect(readFileSync(report, 'utf8')).toContain('<h2>Liquidity rewards</h2>');
  }, 120_000);

  it('a sweep shows rewards and PnL + rewards, and ranks by them', async () => {
    const s = await runMmkit([
      'sweep',
      '--feed',
      feed,
      '--strategy',
      STRATEGY,
      '--grid',
      '{"size":[10,50,100]}',
      '--workers',
      '0',
      '--rank',
      'rewards',
      '--no-feed-cache',
    ]);
    expect(s.code, s.err).toBe(0);
    const lines = s.out.trim().split('\n');
    expect(lines[3]).toMatch(/^#\s+size\s+PnL\s+rewards\s+PnL\+rw\s/);
    // 100 shares: 44.4 against 11.1 = 4/5 of the pool; 50: 2/3; 10 (below the min size): nothing
    expect(lines.slice(4).map((l) => l.split(/\s+/).slice(1, 4))).toEqual([
      ['100', '+0.00', '+0.80'],
      ['50', '+0.00', '+0.67'],
      ['10', '+0.00', '+0.00'],
    ]);
  }, 180_000);

  it("--world with --rewards-epoch / --rewards-min-payout: the exchange's payout; the flags refused with --feed", async () => {
    const w = await runMmkit([
      'backtest',
      '--world',
      '1',
      '--duration',
      '3m',
      '--strategy',
      'bands',
      '--rewards-epoch',
      '1m',
      '--rewards-min-payout',
      '0',
      '--json',
    ]);
    expect(w.code, w.err).toBe(0);
    const r = JSON.parse(w.out) as { source: { world: { rewards: unknown } }; rewards: { source: string } };
    expect(r.source.world.rewards).toEqual({ epochMs: 60_000, minPayout: 0 });
    expect(r.rewards.source).toBe('exchange');
    const f = await runMmkit(['backtest', '--feed', feed, '--strategy', 'bands', '--rewards-epoch', '1m']);
    expect(f.code).toBe(2);
    expect(f.err).toContain('--rewards-epoch applies to --world backtests only');
    const bad = await runMmkit([
      'backtest',
      '--world',
      '1',
      '--duration',
      '1m',
      '--strategy',
      'bands',
      '--rewards-sample',
      '2d',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--rewards-\*: .*sampleMs/);
  }, 120_000);
});
