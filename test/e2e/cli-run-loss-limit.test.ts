/**
 * The loss limit (bot.risk.maxLoss) as a head of trading relies on it (trial 19 F1): checked after
 * every fill and at start, not at the pace of the status line (bot.statusIntervalMs, here 10
 * minutes). `mmkit run` (a child process) with a plugin that takes once with a FAK buy at the best ask
 * on a paper exchange with a taker fee: the fee and the spread put it below a limit of 0.000001 USDC
 * at once, and the kill switch stops it (exit 4) within seconds, saying the loss to the micro. Started
 * again on the same data dir, past its limit, it stops before it places any order. The daily limit
 * (bot.risk.maxDailyLoss, the epoch's off) does the same with the UTC day's PnL, and a restart the
 * same day keeps the day's open (the store's): it stops before trading instead of opening the day
 * again at the loss.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { startExchange, type RunningExchange } from '../../src/exchange/server.ts';
import { BotHarness, exited } from './support/bot-harness.ts';
import { EAGER_FAK_PLUGIN, ONE_FAK_PLUGIN } from './support/one-fak.ts';
import { ROOT } from './support/cli.ts';

/** Scratch space inside the project (so 'mmkit/strategy' resolves), outside tsconfig's and vitest's includes. */
mkdirSync(join(ROOT, '.tmp'), { recursive: true });
const scratch = mkdtempSync(join(ROOT, '.tmp', 'loss-limit-e2e-'));
const h = new BotHarness();
let ex: RunningExchange | undefined;
afterAll(async () => {
  await h.close();
  await ex?.close();
  rmSync(scratch, { recursive: true, force: true });
  try {
    rmdirSync(join(ROOT, '.tmp'));
  } catch {
    /* another run uses it */
  }
});

const plugin = join(scratch, 'one-fak.ts');
writeFileSync(plugin, ONE_FAK_PLUGIN);
// the restarts run a plugin that trades on its first event: the limits are checked before it gets one
const eager = join(scratch, 'eager-fak.ts');
writeFileSync(eager, EAGER_FAK_PLUGIN);

const ENV = { MMKIT_RISK_MAX_LOSS: '0.000001', MMKIT_STATUS_INTERVAL_MS: '600000', MMKIT_LOG_FORMAT: 'json' };

describe('mmkit run: the loss limit', () => {
  it('trips within seconds of the losing fill, not at the status line; a restart past it trades nothing', async () => {
    ex = await startExchange({
      port: 0,
      seed: 23,
      world: { agents: 'default', lifecycle: false, priceFeed: false, feeRateBps: 200 },
    });
    const base = ex.urls.clob_url.replace(/\/clob$/, '');
    const { dir, address } = h.dataDir();
    const tradeCount = () => ex!.exchange.tradesOf(address).length;

    const t0 = Date.now();
    const bot = h.startBot(base, dir, ['--strategy', plugin, '--duration', '300s'], ENV);
    const code = await exited(bot.p);
    const took = Date.now() - t0;
    expect(code, bot.err().slice(-3000)).toBe(4);
    expect(took).toBeLessThan(120_000); // the status line would have waited 10 minutes
    expect(tradeCount()).toBeGreaterThan(0);
    const log = bot.out() + bot.err();
    const trip = /PnL (-[0-9.]+) below -0\.000001 \(realized 0, fees ([0-9.]+), unrealized (-?[0-9.]+)\)/.exec(log);
    expect(trip, log.slice(-3000)).not.toBeNull();
    expect(Number(trip![2])).toBeGreaterThan(0);
    // the fill's log line says its fee (the store's)
    const fill = log.split('\n').find((l) => l.includes('"msg":"fill"'));
    expect(JSON.parse(fill!)).toMatchObject({ role: 'TAKER', fee: trip![2] });

    // again, on the same data dir: past the limit at start, it stops before any order
    const trades = tradeCount();
    const again = h.startBot(base, dir, ['--strategy', eager, '--duration', '300s'], ENV);
    expect(await exited(again.p), again.err().slice(-3000)).toBe(4);
    expect(again.out() + again.err()).toMatch(/PnL -[0-9.]+ below -0\.000001/);
    expect(tradeCount()).toBe(trades);
    expect(ex.exchange.openOrders(address)).toEqual([]);
    expect(readFileSync(join(dir, 'mmkit.db')).length).toBeGreaterThan(0);
  }, 240_000);

  it('the daily limit: trips on the loss of the day; a restart the same day keeps its open and trades nothing', async () => {
    const ex2 = await startExchange({
      port: 0,
      seed: 29,
      // no taker fee: the loss is the spread alone, which only the books' marks show (at the start of a
      // restart they come with the streams: the limit must wait for them before the strategy acts)
      world: { agents: 'default', lifecycle: false, priceFeed: false, feeRateBps: 0 },
    });
    try {
      const base = ex2.urls.clob_url.replace(/\/clob$/, '');
      const { dir, address } = h.dataDir();
      const tradeCount = () => ex2.exchange.tradesOf(address).length;
      const env = { ...ENV, MMKIT_RISK_MAX_LOSS: '0', MMKIT_RISK_MAX_DAILY_LOSS: '0.000001' };
      const bot = h.startBot(base, dir, ['--strategy', plugin, '--duration', '300s'], env);
      expect(await exited(bot.p), bot.err().slice(-3000)).toBe(4);
      expect(tradeCount()).toBeGreaterThan(0);
      const trip =
        /PnL of the day (-[0-9.]+) below -0\.000001 \(UTC (\d{4}-\d{2}-\d{2}): (-?[0-9.]+) at its open, (-[0-9.]+) now\)/;
      const first = trip.exec(bot.out() + bot.err());
      expect(first, (bot.out() + bot.err()).slice(-3000)).not.toBeNull();
      expect(first![3]).toBe('0');
      expect(first![1]).toBe(first![4]);
      const day = first![2]!;
      // the exit summary says the day's PnL as the limit judged it
      const summary = (bot.out() + bot.err()).split('\n').find((l) => l.includes('"msg":"summary"'));
      expect(JSON.parse(summary!).dayPnl).toEqual({ date: day, pnl: first![1] });
      // the store keeps the day's open (the fresh ledger's 0)
      const db = new Database(join(dir, 'mmkit.db'), { readonly: true });
      expect(db.prepare('SELECT date, pnl FROM day_opens').all()).toEqual([{ date: day, pnl: 0 }]);
      db.close();

      // again: the day opened at 0 (not at the loss it is at now), so it stops before any order (a
      // restart that finds another UTC day, a run around midnight, opens that day: then it may trade once)
      const trades = tradeCount();
      const again = h.startBot(base, dir, ['--strategy', eager, '--duration', '300s'], env);
      expect(await exited(again.p), again.err().slice(-3000)).toBe(4);
      const second = trip.exec(again.out() + again.err());
      expect(second, (again.out() + again.err()).slice(-3000)).not.toBeNull();
      if (second![2] === day) {
        expect(second![3]).toBe('0');
        expect(tradeCount()).toBe(trades);
      }
      expect(ex2.exchange.openOrders(address)).toEqual([]);
    } finally {
      await ex2.close();
    }
  }, 240_000);
});
