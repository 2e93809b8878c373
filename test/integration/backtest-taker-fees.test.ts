/**
 * Taker fees in a backtest (trial 8 F8): on a recorded feed whose markets charge a taker fee, the
 * simulated venue charges the fee of the paper exchange's default protocol (2: the V2 curve
 * `size × rate × p × (1 − p)`, floored to 0.00001, each level apart), and the store books exactly
 * what it charged: the run's `pnl.fees` equals the venue's own counter, and every taker fill's fee is
 * on the V2 curve (a multiple of 10 micro, below the V1 figure `size × rate × min(p, 1 − p)`).
 * A plugin strategy takes with FAK orders (buys at the ask, then sells at the bid).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/backtest/runner.ts';
import { curveFee, v1Fee } from '../../src/core/fees.ts';
import { openStore } from '../../src/store/store.ts';
import { writeFeed } from '../support/feed-gen.ts';

const API = pathToFileURL(fileURLToPath(new URL('../../src/strategy/index.ts', import.meta.url))).href;
const FEE_BPS = 1000;
const dir = mkdtempSync(join(tmpdir(), 'mmkit-bt-taker-fees-'));
let feed: string;
let strategy: string;

beforeAll(async () => {
  feed = join(dir, 'fee-feed.ndjson.gz');
  await writeFeed(feed, { seed: 11, markets: 2, messages: 4000, meanGapMs: 60, feeRateBps: FEE_BPS });
  strategy = join(dir, 'taker.ts');
  writeFileSync(
    strategy,
    `import { defineStrategy } from ${JSON.stringify(API)};
export default defineStrategy({
  name: 'taker',
  description: 'every 10 ticks: buy 5 at the ask, then sell 5 at the bid (FAK)',
  params: {},
  create(ctx) {
    let n = 0;
    return {
      onEvent(event, state) {
        if (event.type !== 'timer' || event.name !== 'tick') return undefined;
        n++;
        if (n % 10 !== 0) return undefined;
        const orders = [];
        for (const m of ctx.markets.values()) {
          const yes = m.tokens[0].tokenId;
          const b = state.book(yes);
          if (b === undefined || b.stale || b.bestBid === null || b.bestAsk === null) continue;
          const size = Math.max(m.minOrderSize, 5_000_000);
          const held = state.position(yes)?.size ?? 0;
          if ((n / 10) % 2 === 1 || held < size)
            orders.push({ market: m.market, tokenId: yes, side: 'BUY', price: b.bestAsk, size, type: 'FAK' });
          else orders.push({ market: m.market, tokenId: yes, side: 'SELL', price: b.bestBid, size, type: 'FAK' });
        }
        return orders.length ? { orders } : undefined;
      },
    };
  },
});
`,
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('backtest: taker fees on a fee-charging feed', () => {
  it('the store books the V2 fee the simulated venue charged', async () => {
    const file = join(dir, 'run.db');
    const r = await runBacktest({ feeds: [feed], strategy, seed: 1, storePath: file, risk: { maxRejections: 1000 } });
    expect(r.pnl.fees).toBeGreaterThan(0);
    // what the venue charged = what the store booked
    expect((r.venue as { fees: number }).fees).toBe(r.pnl.fees);
    const store = openStore(file);
    try {
      const takers = store.fills().filter((f) => f.role === 'TAKER' && f.status !== 'FAILED');
      expect(takers.length).toBeGreaterThan(20);
      let onCurve = 0;
      let v1 = 0;
      let booked = 0;
      for (const f of takers) {
        booked += f.fee;
        v1 += v1Fee(f.size, f.price, FEE_BPS);
        // each level's fee is floored to 0.00001: so is their sum
        expect(f.fee % 10).toBe(0);
        expect(f.fee).toBeLessThanOrEqual(v1Fee(f.size, f.price, FEE_BPS));
        if (f.fee === curveFee(f.size, f.price, FEE_BPS)) onCurve++;
      }
      expect(booked).toBe(r.pnl.fees);
      // a fill at one level is exactly on the curve (a sweep is the sum of its levels')
      expect(onCurve).toBeGreaterThan(takers.length / 2);
      // the V1 formula would have overstated the fees
      expect(v1).toBeGreaterThan(booked);
    } finally {
      store.close();
    }
  }, 120_000);
});
