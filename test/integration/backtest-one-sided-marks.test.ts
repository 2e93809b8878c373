/**
 * A backtest's marks of a book that lost a side (user trial: a long of 15 NO whose bids vanished
 * after news, book bids [] / asks [0.30], was marked at the mid from before the collapse and
 * reported as a gain): a held position is marked as the daemon's loss limit marks it
 * (src/risk/marks.ts `riskMark`): a long with no bid at the lower of the best ask and the last mid.
 * The real runner, engine, simulated venue and store on a hand-written feed; a plugin strategy
 * buys 15 NO at the ask (FAK) once, then the NO bids vanish.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/backtest/runner.ts';
import { genMarkets } from '../support/feed-gen.ts';
import { bookFrame, writeBuyNoOnce, writeHandFeed } from '../support/hand-feed.ts';

const START = Date.UTC(2026, 0, 1);
const M = genMarkets(21, 1)[0]!;
const [YES, NO] = [M.tokens[0]!.tokenId, M.tokens[1]!.tokenId];
let dir: string;
let feed: string;
let strategy: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mmkit-bt-one-sided-'));
  feed = join(dir, 'collapse.ndjson.gz');
  writeHandFeed(feed, START, M, [
    // NO 0.64 / 0.67 (mid 0.655), YES the complement
    bookFrame(M, START + 100, YES, [['0.33', '100']], [['0.36', '100']]),
    bookFrame(M, START + 100, NO, [['0.64', '100']], [['0.67', '100']]),
    // the same books a while later (the bot has bought by then)
    bookFrame(M, START + 20_000, YES, [['0.33', '100']], [['0.36', '100']]),
    bookFrame(M, START + 20_000, NO, [['0.64', '100']], [['0.67', '100']]),
    // news: the NO bids vanish (asks 0.30 only), the YES asks with them
    bookFrame(M, START + 30_000, YES, [['0.70', '100']], []),
    bookFrame(M, START + 30_000, NO, [], [['0.30', '100']]),
    bookFrame(M, START + 60_000, YES, [['0.70', '100']], []),
    bookFrame(M, START + 60_000, NO, [], [['0.30', '100']]),
  ]);
  // buys 15 NO at the ask once (FAK)
  strategy = join(dir, 'buy-no-once.ts');
  writeBuyNoOnce(strategy, { shares: 15 });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('backtest: a held long whose book lost its bids', () => {
  it('is marked at the ask (below the last mid), not at the mid before the collapse', async () => {
    const r = await runBacktest({ feeds: [feed], strategy, seed: 1, sampleMs: 1_000 });
    expect(r.stopReason).toBe('end of feed');
    const p = r.positions.find((x) => x.tokenId === NO);
    expect(p).toMatchObject({ size: 15_000_000, avgPrice: 6700 });
    // the lower of the ask (0.30) and the last mid (0.655)
    expect(p?.mark).toBe(3000);
    // 15 × (0.30 − 0.67) = −5.55 (at the old mid it was 15 × (0.655 − 0.67) = −0.225)
    expect(r.pnl.unrealized).toBe(-5_550_000);
    expect(r.pnl.total).toBe(-5_550_000);
    expect(r.pnl.unmarked).toEqual([]);
    // the PnL samples (the charts, the drawdown) say the same once the bids are gone
    const t = r.samples.t;
    const after = t.findIndex((x) => x >= START + 31_000);
    expect(after).toBeGreaterThan(0);
    for (let i = after; i < t.length; i++) expect(r.samples.pnl.unrealized[i]).toBe(-5_550_000);
    // and before the collapse the mid: 15 × (0.655 − 0.67)
    const before = t.findLastIndex((x) => x < START + 30_000);
    expect(r.samples.pnl.unrealized[before]).toBe(-225_000);
  }, 60_000);
});
