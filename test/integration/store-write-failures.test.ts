/**
 * A ledger write that fails stops trading, as a fill or an order that could not be stored does (the
 * kill switch's `storeFailure`; the orders and fills: test/e2e/cli-run-order-write-failure.test.ts,
 * cli-run-disk-full.test.ts), against the real paper exchange on loopback, the live venue adapter and a
 * real SQLite store whose writes are refused by a TRIGGER (what a full disk or an I/O error does to the
 * same statements):
 *
 *  - a position adjustment of the position audit (the positions at the next start come from it);
 *  - a merge (or redemption) done at the venue whose operation cannot be recorded. Before, the merge
 *    was logged as failed and retried, the ledger without it, and the bot traded on.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveClock } from '../../src/core/clock.ts';
import { createTrader, type Trader as Bot } from '../../src/kernel/create-trader.ts';
import { resolveRiskLimits } from '../../src/risk/limits.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { loadStrategy } from '../../src/strategy/loader.ts';
import { resolveParams } from '../../src/strategy/params.ts';
import type { LiveVenue } from '../../src/venues/live/live-venue.ts';
import { eventually, startVenue, type TestVenue, liveVenueFor } from './support/setup.ts';

const STRATEGY = new URL('../support/fixed-quotes-strategy.ts', import.meta.url).pathname;

let v: TestVenue;
let dir: string;
beforeAll(async () => {
  v = await startVenue();
  dir = mkdtempSync(join(tmpdir(), 'mmkit-store-fail-'));
  // a quiet book on m1 (bid 0.45, ask 0.55): the bot's bids at 0.41 and 0.43 rest
  const maker = await v.trader();
  for (const t of v.m1.tokens) expect((await maker.place(t.token_id, 'BUY', '0.45', '200')).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await v?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Run {
  bot: Bot;
  venue: LiveVenue;
  store: Store;
  address: string;
  logs: Array<{ msg: string; obj: Record<string, unknown> }>;
  stop(): Promise<void>;
}

/**
 * A fresh wallet and (not started) the bot on it, its store refusing `refuse` on `table`
 * (a trigger made by another connection to the same file, as a test's stand-in for a full disk).
 */
async function setupRun(
  name: string,
  refuse: 'INSERT' | 'UPDATE',
  table: 'adjustments' | 'operations',
  opts: { audit?: boolean; tokens?: number; both?: boolean; merge?: boolean } = {},
): Promise<Run> {
  const wallet = new Wallet(Wallet.createRandom().privateKey);
  const clock = new LiveClock();
  const venue = await liveVenueFor(v, { wallet, clock, silenceMs: 0 }, 'content', 'relayer');
  const market = (await venue.markets()).find((m) => m.market === v.m1.condition_id)!;
  const file = join(dir, `${name}.db`);
  const store = openStore(file, { clock });
  const db = new Database(file);
  db.exec(
    `CREATE TRIGGER refuse_it BEFORE ${refuse} ON ${table} BEGIN SELECT RAISE(ABORT, 'test: the disk refuses it'); END`,
  );
  db.close();
  // shares the wallet holds that the ledger does not: the start's position audit adjusts them
  if (opts.tokens !== undefined)
    for (const t of opts.both === true ? v.m1.tokens : [v.m1.tokens[0]!])
      v.running.exchange.setTokens(wallet.address, t.token_id, opts.tokens);
  const def = await loadStrategy(STRATEGY);
  const logs: Run['logs'] = [];
  const log = (level: string) => (obj: object, msg?: string) =>
    void logs.push({ msg: `${level}: ${msg ?? ''}`, obj: obj as Record<string, unknown> });
  const bot = createTrader({
    venue,
    clock,
    store,
    strategy: def,
    params: resolveParams(def.params, { p1: 0.41, p2: 0.43, size: 5 }),
    markets: [market],
    limits: resolveRiskLimits({}),
    log: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
    tickMs: 200,
    postOnly: true,
    ...(opts.audit === true ? { positionAudit: { everyMs: 0, opening: 'unknown' as const } } : {}),
    ...(opts.merge === true ? { collateral: { mergeMinSize: 1_000_000, redeem: false, everyMs: 0 } } : {}),
  });
  let stopped = false;
  return {
    bot,
    venue,
    store,
    address: wallet.address.toLowerCase(),
    logs,
    async stop() {
      if (stopped) return;
      stopped = true;
      await bot.stop();
      await bot.cancelAll('test end');
      const flat = await bot.verifyFlat(10_000);
      await bot.close();
      store.close();
      await venue.close();
      expect(flat.flat).toBe(true);
    },
  };
}

describe('a ledger write that fails stops trading (storeFailure)', () => {
  it('a position adjustment that cannot be stored trips the kill switch: the start does not quote', async () => {
    const r = await setupRun('adjustment', 'INSERT', 'adjustments', { audit: true, tokens: 10_000_000 });
    try {
      const started = await r.bot.start().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(started, 'the start fails: it cannot set the positions from the venue').toBeInstanceOf(Error);
      expect(r.bot.kill.reason?.trigger).toBe('storeFailure');
      expect(r.bot.kill.reason?.message).toContain('a position adjustment (unknown) could not be stored');
      expect(r.bot.executor.stats().ordersSent).toBe(0);
      expect(v.running.exchange.openOrders(r.address)).toEqual([]);
    } finally {
      await r.stop();
    }
  }, 60_000);

  it('a merge done at the venue whose operation cannot be stored trips the kill switch', async () => {
    const r = await setupRun('merge', 'INSERT', 'operations', {
      tokens: 10_000_000,
      both: true,
      merge: true,
      audit: true,
    });
    try {
      await r.bot.start();
      expect(await eventually(() => r.bot.kill.tripped, 30_000), JSON.stringify(r.logs.slice(-5))).toBe(true);
      expect(r.bot.kill.reason?.trigger).toBe('storeFailure');
      expect(r.bot.kill.reason?.message).toMatch(
        /a merge done at the venue \(tx \S+\) could not be stored: test: the disk/,
      );
    } finally {
      await r.stop();
    }
  }, 60_000);
});
