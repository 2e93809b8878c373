/**
 * The whole chain of a recorded feed's rewards: the paper exchange gives a market a reward config
 * (POST /admin/rewards), its CLOB record carries it, the recorder resolves the market through the
 * live venue's mapper and keeps the config in the feed's header, and a backtest of that feed scores
 * our quotes against the recorded book and reports the rewards. Real exchange on loopback, real
 * WebSockets, real recorder, runner and store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { marketReader, resolveMarkets, startRecorder, venueUrls } from '../../src/backtest/recorder.ts';
import { replayFeeds } from '../../src/backtest/replay.ts';
import { runBacktest } from '../../src/backtest/runner.ts';
import { startVenue, sleep, type TestVenue } from './support/setup.ts';

const STRATEGY = new URL('../support/two-sided-quotes-strategy.ts', import.meta.url).pathname;

let v: TestVenue;
let dir: string;
beforeAll(async () => {
  v = await startVenue({ http: { rateLimits: { enabled: false, scale: 1, queueMs: 0 } } });
  dir = mkdtempSync(join(tmpdir(), 'mmkit-rec-rewards-'));
}, 60_000);
afterAll(async () => {
  await v?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a recorded feed keeps the reward config, and its backtest reports rewards', () => {
  it('exchange config -> CLOB record -> feed header -> rewards scored in the backtest', async () => {
    const m = v.m1;
    const yes = m.tokens[0]!.token_id;
    const no = m.tokens[1]!.token_id;
    // 3 cents, 20 shares, 144 USDC a day
    const set = await v.admin('/rewards', {
      condition_id: m.condition_id,
      rewards: { max_spread: 3, min_size: 20, daily_rate: 144 },
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    // someone else rests 100 at 0.48 and 100 at 0.52 (a NO bid at 0.48); nothing else in the book
    const other = await v.trader();
    expect((await other.place(yes, 'BUY', '0.48', '100')).status).toBe(200);
    expect((await other.place(no, 'BUY', '0.48', '100')).status).toBe(200);

    const base = v.clob.replace(/\/clob$/, '');
    const urls = venueUrls(base);
    const markets = await resolveMarkets(urls, { markets: [m.condition_id] });
    expect(markets[0]?.rewards).toEqual({ maxSpread: 300, minSize: 20_000_000, dailyRate: 144_000_000 });
    const out = join(dir, 'rewarded.ndjson.gz');
    const rec = startRecorder({ out, markets, marketUrl: urls.market, source: base });
    await rec.connected();
    await sleep(3000);
    await rec.stop();

    // our 50 at 0.49 / 0.51 against their 100 at 0.48 / 0.52: 2/3 of each sample's pool
    const r = await runBacktest({ feeds: [out], strategy: STRATEGY, rewardSampleMs: 500 });
    const row = r.rewards?.byMarket[0];
    expect(r.rewards?.source).toBe('estimate');
    expect(row?.market).toBe(m.condition_id);
    expect(row!.samples).toBeGreaterThanOrEqual(4);
    expect(row!.scoredSamples).toBeGreaterThanOrEqual(row!.samples - 1);
    // each scored sample: 144e6 micro x 500 ms / 1 day x 2/3
    const exact = (n: number): number => Number((BigInt(n) * 144_000_000n * 500n * 2n) / (3n * 86_400_000n));
    expect(row!.accrued).toBe(exact(row!.scoredSamples));
    expect(r.rewards?.total).toBe(row!.accrued);
  }, 90_000);

  it('a reward config given while recording: a market line at that time, and the backtest scores from then on', async () => {
    const m = v.markets.find(
      (x) => !x.neg_risk && x.minimum_tick_size === 0.01 && x.condition_id !== v.m1.condition_id,
    )!;
    const [yes, no] = m.tokens.map((t) => t.token_id) as [string, string];
    expect((await v.admin('/rewards', { condition_id: m.condition_id, rewards: null })).status).toBe(200);
    const other = await v.trader();
    expect((await other.place(yes, 'BUY', '0.48', '100')).status).toBe(200);
    expect((await other.place(no, 'BUY', '0.48', '100')).status).toBe(200);

    const base = v.clob.replace(/\/clob$/, '');
    const urls = venueUrls(base);
    const markets = await resolveMarkets(urls, { markets: [m.condition_id] });
    expect(markets[0]?.rewards ?? null).toBeNull();
    const out = join(dir, 'rewarded-later.ndjson.gz');
    const reader = marketReader(urls.clob);
    const rec = startRecorder({
      out,
      markets,
      marketUrl: urls.market,
      source: base,
      marketRefresh: { everyMs: 200, read: reader.read },
    });
    try {
      await rec.connected();
      await sleep(2500); // no rewards yet
      const set = await v.admin('/rewards', {
        condition_id: m.condition_id,
        rewards: { max_spread: 3, min_size: 20, daily_rate: 144 },
      });
      expect(set.status, JSON.stringify(set.body)).toBe(200);
      await sleep(3000);
    } finally {
      await rec.stop();
      await reader.close();
    }
    expect(rec.stats().marketUpdates).toBe(1);
    // the feed: its header without rewards, then one market line with the config
    const items = [];
    for await (const it of replayFeeds([out])) items.push(it);
    const header = items.find((i) => i.kind === 'header');
    expect(header?.kind === 'header' && (header.header.markets[0]?.rewards ?? null)).toBeNull();
    const lines = items.filter((i) => i.kind === 'market');
    expect(lines).toHaveLength(1);
    const changedAt = lines[0]!.t;
    expect(lines[0]!.kind === 'market' && lines[0]!.info.rewards).toEqual({
      maxSpread: 300,
      minSize: 20_000_000,
      dailyRate: 144_000_000,
    });

    // the backtest scores from the market line on: samples only in the ~3 s after it, every one at 2/3
    const r = await runBacktest({ feeds: [out], strategy: STRATEGY, rewardSampleMs: 500 });
    const row = r.rewards?.byMarket[0];
    expect(row?.market).toBe(m.condition_id);
    const end = Math.max(...items.map((i) => i.t));
    expect(row!.samples).toBeGreaterThanOrEqual(3);
    expect(row!.samples).toBeLessThanOrEqual(Math.ceil((end - changedAt) / 500) + 1);
    const exact = (n: number): number => Number((BigInt(n) * 144_000_000n * 500n * 2n) / (3n * 86_400_000n));
    expect(row!.accrued).toBe(exact(row!.scoredSamples));
    expect(row!.scoredSamples).toBeGreaterThanOrEqual(row!.samples - 1);
  }, 90_000);
});
