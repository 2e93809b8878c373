/**
 * `mmkit run` when the store refuses the bot's ORDER writes (a real SQLite failure: a trigger that
 * raises on the orders table; on a real machine, a full disk or an I/O error). Before, only a fill
 * that could not be written stopped trading: an order whose row could not be written before sending
 * failed its cycle silently (debug line only) and was retried forever, and a transition that could
 * not be written was dropped while the bot kept placing. Now both trip the kill switch as a store
 * failure (`storeFailure`, exit 4, summary printed), and an order that could not be recorded is
 * never sent.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../src/exchange/matching/types.ts';
import { openStore } from '../../src/store/store.ts';
import { BotHarness, exited, logLines } from './support/bot-harness.ts';

const h = new BotHarness();
afterAll(() => h.close());

/** A fresh store in `dir` (the daemon's schema) whose `orders` table refuses `op` with `message`. */
function refusingStore(dir: string, op: 'INSERT' | 'UPDATE', message: string): void {
  const file = join(dir, 'mmkit.db');
  openStore(file).close();
  const db = new Database(file);
  db.exec(`CREATE TRIGGER refuse_orders BEFORE ${op} ON orders BEGIN SELECT RAISE(FAIL, '${message}'); END`);
  db.close();
}

async function exitCode(p: Parameters<typeof exited>[0], ms: number): Promise<number | null | 'timeout'> {
  return Promise.race([exited(p), new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), ms))]);
}

describe('mmkit run: the store refuses the bot’s order writes', () => {
  it('an order whose row cannot be written is not sent: storeFailure trip, summary, exit 4', async () => {
    const { ex, base } = await h.exchange(71);
    const { dir, address } = h.dataDir();
    refusingStore(dir, 'INSERT', 'injected: orders cannot be written');
    let placed = 0;
    ex.exchange.subscribe((events) => {
      for (const e of events as readonly EngineEvent[])
        if (e.type === 'order_placed' && e.order.account === address) placed++;
    });
    const bot = h.startBot(base, dir, ['--duration', '600s', '--log-format', 'json']);
    const code = await exitCode(bot.p, 180_000);
    expect(code, bot.err().slice(-3000)).toBe(4);
    expect(bot.out()).toContain(
      'mmkit run stopped (kill switch: storeFailure: an order could not be stored: injected: orders cannot be written',
    );
    expect(placed).toBe(0);
    expect(ex.exchange.openOrders(address)).toEqual([]);
    expect(logLines(bot.err()).find((l) => l.msg === 'summary')).toMatchObject({
      stop: { kind: 'killSwitch', trigger: 'storeFailure' },
      openOrdersAtExit: 0,
    });
  }, 300_000);

  it('an order’s transition that cannot be written: storeFailure trip, orders cancelled, exit 4', async () => {
    const { ex, base } = await h.exchange(72);
    const { dir, address } = h.dataDir();
    refusingStore(dir, 'UPDATE', 'injected: order updates cannot be written');
    const bot = h.startBot(base, dir, ['--duration', '600s', '--log-format', 'json']);
    const code = await exitCode(bot.p, 180_000);
    expect(code, bot.err().slice(-3000)).toBe(4);
    expect(bot.out()).toContain(
      'mmkit run stopped (kill switch: storeFailure: an order could not be stored: injected: order updates cannot be written',
    );
    expect(bot.out()).toContain('open orders left  0');
    expect(ex.exchange.openOrders(address)).toEqual([]);
  }, 300_000);
});
