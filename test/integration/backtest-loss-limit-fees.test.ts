/**
 * A backtest's loss limits (`risk.maxLoss`, `risk.maxDailyLoss`) judge the PnL net of fees, as the
 * daemon's do (src/cli/run-status-line.ts `checkLoss`): a run whose fees take its PnL below the
 * limit while the PnL before them stays above it stops with the kill switch, as the live bot would,
 * and the trip message says the fees apart. The real runner, engine, simulated venue and kill switch
 * on a hand-written feed of a market charging a 10 % taker fee rate; a plugin strategy buys 50 NO at
 * the ask (FAK) once, 10 s in (the UTC day opened before, flat), and holds: 50 × (0.50 − 0.51) =
 * −0.50 at the mid, the fee 50 × 0.1 × 0.51 × 0.49 = 1.2495 (V2), so −1.7495 net against a limit of 1.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/backtest/runner.ts';
import { frameLine, headerLine } from '../../src/venues/sim/feed.ts';
import { genMarkets } from '../support/feed-gen.ts';

const API = pathToFileURL(fileURLToPath(new URL('../../src/strategy/index.ts', import.meta.url))).href;
const START = Date.UTC(2026, 0, 1, 12);
const M = { ...genMarkets(22, 1)[0]!, feeRateBps: 1000 };
const [YES, NO] = [M.tokens[0]!.tokenId, M.tokens[1]!.tokenId];
let dir: string;
let feed: string;
let strategy: string;

/** A `book` frame of `token`: one level a side, 500 shares each. */
function bookFrame(t: number, token: string, bid: string, ask: string): string {
  const msg = {
    event_type: 'book',
    market: M.market,
    asset_id: token,
    timestamp: String(t),
    hash: `h${t}${token.slice(0, 4)}`,
    bids: [{ price: bid, size: '500' }],
    asks: [{ price: ask, size: '500' }],
    min_order_size: '5',
    tick_size: '0.01',
    neg_risk: false,
    last_trade_price: '',
  };
  return frameLine(t, 'm', JSON.stringify(msg));
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mmkit-bt-loss-fees-'));
  feed = join(dir, 'fees.ndjson.gz');
  const lines = [headerLine({ h: 1, t: START, part: 0, source: 'synthetic', recorder: 'test', markets: [M] })];
  // the same books every 10 s for a minute: the PnL before fees stays at −0.50
  for (let t = START + 100; t < START + 60_000; t += 10_000)
    lines.push(bookFrame(t, YES, '0.49', '0.51'), bookFrame(t, NO, '0.49', '0.51'));
  writeFileSync(feed, gzipSync(`${lines.join('\n')}\n`));
  strategy = join(dir, 'buy-no-once.ts');
  writeFileSync(
    strategy,
    `import { defineStrategy } from ${JSON.stringify(API)};
export default defineStrategy({
  name: 'buy-no-once',
  description: 'buys 50 NO at the ask once (FAK), at its second book',
  params: {},
  create(ctx) {
    let sent = false;
    let books = 0;
    return {
      onEvent(event, state) {
        if (sent) return undefined;
        const m = [...ctx.markets.values()][0];
        const no = m.tokens[1].tokenId;
        if (event.type === 'book_snapshot' && event.tokenId === no) books++;
        if (books < 2) return undefined;
        const b = state.book(no);
        if (b === undefined || b.stale || b.bestBid === null || b.bestAsk === null) return undefined;
        sent = true;
        const order = { market: m.market, tokenId: no, side: 'BUY', price: b.bestAsk, size: 50_000_000, type: 'FAK' };
        return { orders: [order] };
      },
    };
  },
});
`,
  );
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
