/**
 * Trial 21 F6: a quote above the risk gate's maxOrderSize is sent cut to it; the strategy's refresh
 * tolerance (`finishQuotes` -> `reconcileLive`) compared its live orders with the UNCUT size, so no
 * live order ever stood for the quote and every tick of the centre cancelled and replaced (a sweep
 * over `size` ranked size=30 far below size=10 though both send 10-share orders). The kernel now
 * tells the strategy the gate's limit (StrategyState.maxOrderSize): both sizes trade alike.
 * A synthetic-world backtest through the one kernel (src/kernel), the shipped template strategy.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/backtest/runner.ts';
import type { BacktestResult } from '../../src/backtest/types.ts';

const run = (size: number): Promise<BacktestResult> =>
  runBacktest({
    world: { seed: 3, durationMs: 10 * 60_000, warmupMs: 30_000, marketCount: 2 },
    strategy: join(import.meta.dirname, '../../strategies/template.ts'),
    params: { size, priceTolerance: 2, halfSpread: 0.02 },
    risk: { maxOrderSizeShares: 10 },
    seed: 7,
  });

describe('backtest: quotes cut by the gate keep their live orders', () => {
  it('a 30-share quote sent as 10 (maxOrderSize) trades as a 10-share quote does: no cancel/replace churn', async () => {
    const ten = await run(10);
    const thirty = await run(30);
    expect(ten.counts.quotesTrimmed).toBeUndefined();
    expect(thirty.counts.quotesTrimmed?.['ORDER_SIZE'] ?? 0).toBeGreaterThan(0);
    expect(ten.orders.ordersAccepted).toBeGreaterThan(0);
    // (before the fix: 28 orders, 26 cancelled, no fill, against 7, 1 and 4)
    expect(thirty.orders.ordersAccepted).toBe(ten.orders.ordersAccepted);
    expect(thirty.orders.idsCancelled).toBe(ten.orders.idsCancelled);
    const fills = (r: BacktestResult) => r.fills.map((f) => `${f.side} ${f.price} ${f.size}`);
    expect(fills(thirty)).toEqual(fills(ten));
    expect(fills(ten).length).toBeGreaterThan(0);
  }, 120_000);
});
