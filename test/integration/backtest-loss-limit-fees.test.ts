/**
 * A backtest's loss limits (`risk.maxLoss`, `risk.maxDailyLoss`) judge the PnL net of fees, as the
 * daemon's do (src/cli/run-status-line.ts `checkLoss`): a run whose fees take its PnL below the
 * limit while the PnL before them stays above it stops with the kill switch, as the live bot would,
 * and the trip message says the fees apart. The real runner, engine, simulated venue and kill switch
 * on a hand-written feed of a market charging a 10 % taker fee rate; a plugin strategy buys 50 NO at
 * the ask (FAK) once, 10 s in (the UTC day opened before, flat), and holds: 50 × (0.50 − 0.51) =
 * −0.50 at the mid, the fee 50 × 0.1 × 0.51 × 0.49 = 1.2495 (V2), so −1.7495 net against a limit of 1.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/backtest/runner.ts';
import { genMarkets } from '../support/feed-gen.ts';
import { bookFrame, writeBuyNoOnce, writeHandFeed } from '../support/hand-feed.ts';

const START = Date.UTC(2026, 0, 1, 12);
const M = { ...genMarkets(22, 1)[0]!, feeRateBps: 1000 };
const [YES, NO] = [M.tokens[0]!.tokenId, M.tokens[1]!.tokenId];
let dir: string;
let feed: string;
let strategy: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mmkit-bt-loss-fees-'));
  feed = join(dir, 'fees.ndjson.gz');
  // the same books (one level a side, 500 shares each) every 10 s for a minute: the PnL before fees stays at −0.50
  const frames: string[] = [];
  for (let t = START + 100; t < START + 60_000; t += 10_000)
    frames.push(
      bookFrame(M, t, YES, [['0.49', '500']], [['0.51', '500']]),
      bookFrame(M, t, NO, [['0.49', '500']], [['0.51', '500']]),
    );
  writeHandFeed(feed, START, M, frames);
  // buys 50 NO at the ask once (FAK), at its second book
  strategy = join(dir, 'buy-no-once.ts');
  writeBuyNoOnce(strategy, { shares: 50, afterBooks: 2 });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('backtest: the loss limits judge the PnL net of fees', () => {
  it('maxLoss: fees take the PnL below it (not the PnL before them): the kill switch stops the run', async () => {
    const r = await runBacktest({ feeds: [feed], strategy, seed: 1, risk: { maxLoss: 1 } });
    expect(r.pnl.fees).toBe(1_249_500);
    // before fees above the limit, after them below it
    expect(r.pnl.realized + r.pnl.unrealized).toBe(-500_000);
    expect(r.pnl.total).toBe(-1_749_500);
    expect(r.stopReason).toMatch(/^kill switch: lossLimit: PnL -1\.7495 below -1 \(/);
    // the fees apart, the realized PnL before them (as the daemon's message)
    expect(r.stopReason).toContain('(realized 0, fees 1.2495, unrealized -0.5)');
    expect(r.endMs).toBeLessThan(START + 50_000);
  }, 60_000);

  it('maxDailyLoss: the same, against the UTC day opened at the start', async () => {
    const r = await runBacktest({ feeds: [feed], strategy, seed: 1, risk: { maxLoss: 0, maxDailyLoss: 1 } });
    expect(r.pnl.realized + r.pnl.unrealized).toBe(-500_000);
    expect(r.stopReason).toMatch(
      /^kill switch: lossLimit: PnL of the day -1\.7495 below -1 \(UTC 2026-01-01: 0 at its open/,
    );
  }, 60_000);

  it('a limit the PnL after fees stays above: the run goes to the end of the feed', async () => {
    const r = await runBacktest({ feeds: [feed], strategy, seed: 1, risk: { maxLoss: 2, maxDailyLoss: 2 } });
    expect(r.pnl.total).toBe(-1_749_500);
    expect(r.stopReason).toBe('end of feed');
  }, 60_000);
});
