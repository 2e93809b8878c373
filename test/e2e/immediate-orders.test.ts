/**
 * A strategy's immediate orders (FOK/FAK) as a plugin author uses them: a plugin that returns one
 * FAK buy at the best ask, run through `mmkit strategy check` (the real daemon on an in-process
 * paper exchange), shows the order placed and filled, and the fill is in the store; the same plugin
 * in a backtest of the sample feed is filled by the exchange's rules (a taker buy at no worse than
 * its limit, no more than it asked for).
 */
import { mkdirSync, mkdtempSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { ONE_FAK_PLUGIN } from './support/one-fak.ts';
import { ROOT, runMmkit } from './support/cli.ts';

const FEED = join(ROOT, 'test/fixtures/sample-feed.ndjson.gz');

/** Scratch space inside the project (so 'mmkit/strategy' resolves), outside tsconfig's and vitest's includes. */
mkdirSync(join(ROOT, '.tmp'), { recursive: true });
const scratch = mkdtempSync(join(ROOT, '.tmp', 'immediate-e2e-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  try {
    rmdirSync(join(ROOT, '.tmp'));
  } catch {
    /* another run uses it */
  }
});

const plugin = join(scratch, 'one-fak.ts');
writeFileSync(plugin, ONE_FAK_PLUGIN);

const mmkit = (args: string[]) => runMmkit(args);
/** `mmkit backtest` of the sample feed with the plugin, its store in `storeFile`, `--json`. */
const backtest = (storeFile: string, extra: string[] = []) =>
  mmkit([
    'backtest',
    '--feed',
    FEED,
    '--strategy',
    plugin,
    '--json',
    '--no-feed-cache',
    '--store',
    storeFile,
    ...extra,
  ]);

describe('immediate orders (FOK/FAK) from a strategy', () => {
  it('mmkit strategy check: the FAK buy is placed, filled, and its fill is in the store', async () => {
    const r = await mmkit(['strategy', 'check', plugin, '--duration', '10s', '--json', '--keep', '--seed', '7']);
    expect(r.code, r.err + r.out).toBe(0);
    const report = JSON.parse(r.out) as {
      ok: boolean;
      summary: { ordersPlaced: number; fills: number };
      orders: Array<{ type: string; side: string; status: string; matched: string; price: string; size: string }>;
      dataDir: string;
    };
    try {
      const fak = report.orders.filter((o) => o.type === 'FAK');
      expect(fak, JSON.stringify(report.orders)).toHaveLength(1);
      expect(fak[0]!.side).toBe('BUY');
      expect(Number(fak[0]!.matched)).toBeGreaterThan(0);
      expect(Number(fak[0]!.matched)).toBeLessThanOrEqual(Number(fak[0]!.size));
      expect(report.summary.ordersPlaced).toBe(1);
      expect(report.summary.fills).toBeGreaterThanOrEqual(1);
      const db = new Database(join(report.dataDir, 'mmkit.db'), { readonly: true });
      try {
        const rows = db
          .prepare(
            "SELECT f.side, f.role, f.price, f.size, o.price AS limit_price FROM fills f JOIN orders o ON o.id = f.order_id WHERE o.type = 'FAK'",
          )
          .all() as Array<{ side: string; role: string; price: number; size: number; limit_price: number }>;
        expect(rows.length).toBeGreaterThanOrEqual(1);
        for (const f of rows) {
          expect(f).toMatchObject({ side: 'BUY', role: 'TAKER' });
          expect(f.price).toBeLessThanOrEqual(f.limit_price);
        }
        const total = rows.reduce((a, f) => a + f.size, 0);
        expect(total / 1e6).toBeCloseTo(Number(fak[0]!.matched), 6);
      } finally {
        db.close();
      }
    } finally {
      rmSync(report.dataDir, { recursive: true, force: true });
    }
  }, 180_000);

  it('a backtest of the sample feed fills the same plugin by the rules', async () => {
    const storeFile = join(scratch, 'backtest.db');
    const r = await backtest(storeFile);
    expect(r.code, r.err).toBe(0);
    const res = JSON.parse(r.out) as { orders: { ordersSent: number; ordersAccepted: number; ordersFilled: number } };
    expect(res.orders).toMatchObject({ ordersSent: 1, ordersAccepted: 1, ordersFilled: 1 });
    const db = new Database(storeFile, { readonly: true });
    try {
      const orders = db.prepare('SELECT type, side, price, size, size_matched, status FROM orders').all() as Array<{
        type: string;
        side: string;
        price: number;
        size: number;
        size_matched: number;
        status: string;
      }>;
      expect(orders).toHaveLength(1);
      const o = orders[0]!;
      expect(o).toMatchObject({ type: 'FAK', side: 'BUY', size: 5_000_000 });
      const fills = db.prepare('SELECT side, role, price, size FROM fills').all() as Array<{
        side: string;
        role: string;
        price: number;
        size: number;
      }>;
      expect(fills.length).toBeGreaterThanOrEqual(1);
      for (const f of fills) {
        expect(f).toMatchObject({ side: 'BUY', role: 'TAKER' });
        expect(f.price).toBeLessThanOrEqual(o.price);
      }
      const total = fills.reduce((a, f) => a + f.size, 0);
      expect(total).toBeGreaterThan(0);
      expect(total).toBeLessThanOrEqual(o.size);
      expect(o.size_matched).toBe(total);
    } finally {
      db.close();
    }
  }, 180_000);

  it("the daily loss limit (bot.risk.maxDailyLoss) stops the backtest as it stops the daemon: the day's open kept in its store", async () => {
    const storeFile = join(scratch, 'backtest-daily.db');
    const r = await backtest(storeFile, ['--risk', '{"maxLoss":0,"maxDailyLoss":0.000001}']);
    expect(r.code, r.err).toBe(0);
    const res = JSON.parse(r.out) as { stopReason: string; startMs: number; orders: { ordersFilled: number } };
    expect(res.orders.ordersFilled).toBe(1);
    // bought at the ask: marked at the mid, the day is under water at once
    const day = new Date(res.startMs).toISOString().slice(0, 10);
    expect(res.stopReason).toMatch(
      new RegExp(`^kill switch: lossLimit: PnL of the day -[0-9.]+ below -0\\.000001 \\(UTC ${day}: 0 at its open`),
    );
    const db = new Database(storeFile, { readonly: true });
    try {
      expect(db.prepare('SELECT date, pnl FROM day_opens').all()).toEqual([{ date: day, pnl: 0 }]);
    } finally {
      db.close();
    }
  }, 180_000);
});
