/**
 * The setup the fleet e2e tests share: a bot harness and a real Redis of the test file's own
 * (test/support/redis-suite.ts), started before its tests and closed after them (the bots first,
 * then the Redis). `r` stands for the Redis once started (read inside the tests, not at load).
 * `walletDirs` makes the members' data dirs of one paper wallet; `memberLedger` reads what one
 * member's store booked.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { TestRedis } from '../../support/redis.ts';
import { useTestRedis } from '../../support/redis-suite.ts';
import { BotHarness } from './bot-harness.ts';

/** A bot harness and a Redis of the test file's own (see the module comment). */
export function fleetHarness(): { h: BotHarness; r: TestRedis } {
  const h = new BotHarness();
  const r = useTestRedis({ beforeStop: () => h.close() });
  return { h, r };
}

/**
 * Data dirs of ONE paper wallet, one per name: the first one's paper key (made by `h.dataDir()`)
 * copied into the others, so every member trades the same account.
 */
export function walletDirs<N extends string>(
  h: BotHarness,
  names: readonly N[],
): { address: string; dirs: Record<N, string> } {
  const first = h.dataDir();
  const dirs = {} as Record<N, string>;
  names.forEach((n, i) => {
    dirs[n] = i === 0 ? first.dir : h.dataDir().dir;
    if (i > 0) copyFileSync(join(first.dir, 'paper-wallet.key'), join(dirs[n], 'paper-wallet.key'));
  });
  return { address: first.address, dirs };
}

/** A member's ledger: its orders' ids and its fills (`trade|order`), from its data dir's store (read-only). */
export function memberLedger(dir: string): { orders: Set<string>; fills: string[] } {
  const db = new Database(join(dir, 'mmkit.db'), { readonly: true, fileMustExist: true });
  try {
    const orders = new Set((db.prepare('SELECT id FROM orders').all() as Array<{ id: string }>).map((x) => x.id));
    const fills = (db.prepare('SELECT trade_id, order_id FROM fills').all() as Array<Record<string, string>>).map(
      (x) => `${x['trade_id']}|${x['order_id']}`,
    );
    return { orders, fills };
  } finally {
    db.close();
  }
}
