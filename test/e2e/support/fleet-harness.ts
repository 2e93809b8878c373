/**
 * The setup the fleet e2e tests share: a bot harness and a real Redis of the test file's own
 * (test/support/redis-suite.ts), started before its tests and closed after them (the bots first,
 * then the Redis). `r` stands for the Redis once started (read inside the tests, not at load).
 * `walletDirs` makes the members' data dirs of one paper wallet; `memberLedger` reads what one
 * member's store booked; `plainMarkets` and `waitOneMarketEach` set up a scene of one market a member.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Redis } from 'ioredis';
import type { RunningExchange } from '../../../src/exchange/server.ts';
import type { FleetKeys } from '../../../src/fleet/fleet-keys.ts';
import type { TestRedis } from '../../support/redis.ts';
import { useTestRedis } from '../../support/redis-suite.ts';
import { BotHarness, type BotProcess, liquidMarkets, sleep, waitUntil } from './bot-harness.ts';

/** A bot harness and a Redis of the test file's own (see the module comment). */
export function fleetHarness(): { h: BotHarness; r: TestRedis } {
  const h = new BotHarness();
  const r = useTestRedis({ beforeStop: () => h.close() });
  return { h, r };
}

/**
 * A fleet member `name` of the Redis at `redisUrl`: `mmkit run` on `dir` for 600 s, quoting `markets`, with `env` on top
 * (each test's own audits, merges, limits).
 */
export function startMember(
  h: BotHarness,
  base: string,
  redisUrl: string,
  name: string,
  dir: string,
  markets: readonly string[],
  env: Record<string, string> = {},
): BotProcess {
  return h.startBot(base, dir, ['--duration', '600s', '--markets', markets.join(',')], {
    MMKIT_REDIS_URL: redisUrl,
    MMKIT_FLEET_MEMBER: name,
    ...env,
  });
}

/** The tail (`chars`) of each member's log, under its name: a failed expectation's message. */
export function membersLog(bots: Readonly<Record<string, BotProcess>>, chars = 3000): string {
  return Object.entries(bots)
    .map(([n, b]) => `--- ${n}\n${b.err().slice(-chars)}`)
    .join('\n');
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

/** `count` liquid markets of the paper exchange that are not neg-risk (waited for up to 60 s; fewer when they did not come). */
export async function plainMarkets(ex: RunningExchange, count: number): Promise<string[]> {
  const negRisk = new Map(ex.exchange.listMarkets().map((m) => [m.meta.conditionId, m.meta.negRisk]));
  let markets: string[] = [];
  await waitUntil(
    () =>
      (markets = liquidMarkets(ex, 8)
        .filter((m) => !negRisk.get(m))
        .slice(0, count)).length === count,
    60_000,
  );
  return markets;
}

/**
 * Waits (up to `timeoutMs`) until every member of `names` holds the lease of one of `markets` and
 * every market is quoted on `address`; `holders` names each market's holder (null: none).
 */
export async function waitOneMarketEach(
  o: { redis: Redis; keys: FleetKeys; ex: RunningExchange; address: string },
  markets: readonly string[],
  names: readonly string[],
  timeoutMs = 120_000,
): Promise<{ ok: boolean; holders: (string | null)[] }> {
  const holderOf = async (m: string) => (await o.redis.get(o.keys.marketLease(m)))?.split(':')[0] ?? null;
  let holders: (string | null)[] = [];
  const split = async () => {
    holders = await Promise.all(markets.map(holderOf));
    const quoted = new Set(o.ex.exchange.openOrders(o.address).map((x) => x.market));
    return names.every((n) => holders.includes(n)) && markets.every((m) => quoted.has(m));
  };
  let ok = false;
  const end = Date.now() + timeoutMs;
  while (!(ok = await split()) && Date.now() < end) await sleep(250);
  return { ok, holders };
}
