/**
 * The daily loss limit of a fleet, end to end (two `mmkit run` daemons, one paper wallet, a real
 * Redis): bot.risk.maxDailyLoss is the account's. Member ra takes a loss (a FAK buy with a taker fee)
 * past the limit: it stops (exit 4) and trips the fleet's kill switch. The operator re-arms the fleet
 * the same UTC day; member rb, a new ledger with nothing lost of its own, starts: the account's day
 * (ra's loss kept in the members' sum) is still past the limit, so rb stops before its strategy gets
 * any event (no "quoting allowed", no order at the exchange), saying the members' sum. Before, ra's
 * last figure in the sum was the round's before its loss (0: the re-armed fleet forgot the loss), and
 * rb checked only its own day before quoting (it quoted until the fleet's next round).
 */
import { mkdirSync, mkdtempSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { ExchangeEvent } from '../../src/exchange/exchange.ts';
import { startExchange } from '../../src/exchange/server.ts';
import { fleetKeys } from '../../src/fleet/fleet-keys.ts';
import { readFleetKill } from '../../src/fleet/kill.ts';
import { liquidMarkets, waitUntil } from './support/bot-harness.ts';
import { ROOT, runMmkit } from './support/cli.ts';
import { fleetHarness, walletDirs } from './support/fleet-harness.ts';
import { EAGER_FAK_PLUGIN, ONE_FAK_PLUGIN } from './support/one-fak.ts';

/** Scratch space inside the project (so 'mmkit/strategy' resolves), outside tsconfig's and vitest's includes. */
mkdirSync(join(ROOT, '.tmp'), { recursive: true });
const scratch = mkdtempSync(join(ROOT, '.tmp', 'fleet-daily-loss-e2e-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  try {
    rmdirSync(join(ROOT, '.tmp'));
  } catch {
    /* another run uses it */
  }
});
// the one-FAK plugin, sending again on every tick until it has a fill: a fleet member's first ticks
// may come before it holds a market's lease (the gate refuses them: another member holds it)
const untilFilled = ONE_FAK_PLUGIN.replace(
  "if (sent || event.type !== 'timer'",
  "if (event.type === 'fill') sent = true;\n        if (sent || event.type !== 'timer'",
).replace('          sent = true;\n', '');
if (untilFilled.includes('          sent = true;') || !untilFilled.includes("if (event.type === 'fill') sent = true;"))
  throw new Error('the one-fak plugin changed');
const oneFak = join(scratch, 'fak-until-filled.ts');
writeFileSync(oneFak, untilFilled);
const eager = join(scratch, 'eager-fak.ts');
writeFileSync(eager, EAGER_FAK_PLUGIN);

const { h, r } = fleetHarness();

describe('a fleet: the daily loss limit is the account’s', () => {
  it('a member started after a re-arm the same day stops before its strategy acts, on the members’ sum', async () => {
    const ex = await startExchange({
      port: 0,
      seed: 31,
      world: { agents: 'default', lifecycle: false, priceFeed: false, feeRateBps: 200 },
    });
    const redis = new Redis(r.url);
    try {
      const base = ex.urls.clob_url.replace(/\/clob$/, '');
      let markets: string[] = [];
      await waitUntil(() => (markets = liquidMarkets(ex, 2)).length === 2, 60_000);
      expect(markets).toHaveLength(2);
      const { address, dirs } = walletDirs(h, ['ra', 'rb', 'rc']);
      const keys = fleetKeys(address);
      const placedBy = new Map<string, number>();
      let phase = 'ra';
      ex.exchange.subscribe((events: readonly ExchangeEvent[]) => {
        for (const e of events)
          if (e.type === 'order_placed' && e.order.account === address)
            placedBy.set(phase, (placedBy.get(phase) ?? 0) + 1);
      });
      const env = (member: string) => ({
        MMKIT_REDIS_URL: r.url,
        MMKIT_FLEET_MEMBER: member,
        MMKIT_RISK_MAX_LOSS: '0',
        MMKIT_RISK_MAX_DAILY_LOSS: '0.000001',
        MMKIT_STATUS_INTERVAL_MS: '600000',
        MMKIT_LOG_FORMAT: 'json',
      });
      const args = (plugin: string) => ['--strategy', plugin, '--duration', '300s', '--markets', markets.join(',')];

      // ra loses (the fee and the spread) past the day's limit: it stops, and the fleet with it
      const ra = h.startBot(base, dirs.ra, args(oneFak), env('ra'));
      expect(await waitUntil(() => ra.p.exitCode !== null, 90_000), (ra.out() + ra.err()).slice(-3000)).toBe(true);
      expect(ra.p.exitCode, ra.err().slice(-3000)).toBe(4);
      expect(ra.out() + ra.err()).toMatch(/PnL of the day -[0-9.]+ below -0\.000001/);
      expect(placedBy.get('ra')).toBeGreaterThan(0);
      expect(await readFleetKill(redis, keys)).not.toBeNull();
      const trades = ex.exchange.tradesOf(address).length;
      expect(trades).toBeGreaterThan(0);

      // its last figures are in the fleet's sums (written at its exit: the rounds' last was before the loss)
      const day = Object.values(await redis.hgetall(keys.dayPnl));
      expect(day).toHaveLength(1);
      expect(Number(day[0]!.split(':')[1])).toBeLessThan(0);
      // the operator re-arms the fleet the same day
      const re = await runMmkit(['kill', '--fleet', '--account', address, '--rearm'], {
        env: { MMKIT_REDIS_URL: r.url },
      });
      expect(re.code, re.err).toBe(0);
      expect(await readFleetKill(redis, keys)).toBeNull();

      // rb: its own day is flat, the account's is not: it stops before its strategy gets any event
      phase = 'rb';
      const rb = h.startBot(base, dirs.rb, args(eager), env('rb'));
      expect(await waitUntil(() => rb.p.exitCode !== null, 90_000), (rb.out() + rb.err()).slice(-3000)).toBe(true);
      expect(rb.p.exitCode, rb.err().slice(-3000)).toBe(4);
      const log = rb.out() + rb.err();
      expect(log, log.slice(-3000)).toMatch(
        /fleet PnL of the day -[0-9.]+ below -0\.000001 \(UTC \d{4}-\d{2}-\d{2}, the members' sum\)/,
      );
      expect(log).toContain('joined the fleet');
      expect(log).not.toContain('quoting allowed');
      expect(placedBy.get('rb') ?? 0).toBe(0);
      expect(ex.exchange.tradesOf(address).length).toBe(trades);
      expect(ex.exchange.openOrders(address)).toEqual([]);
      // the trip is the fleet's again, by rb
      expect((await readFleetKill(redis, keys))?.by).toBe('rb');
      // a member started on the tripped fleet stops before quoting, saying since when and how to re-arm (trial 22 F8)
      phase = 'rc';
      const rc = h.startBot(base, dirs.rc, args(eager), env('rc'));
      expect(await waitUntil(() => rc.p.exitCode !== null, 90_000), (rc.out() + rc.err()).slice(-3000)).toBe(true);
      expect(rc.p.exitCode, rc.err().slice(-3000)).toBe(4);
      expect(rc.out() + rc.err()).toMatch(/by rb at \d{4}-\d{2}-\d{2}T[0-9:.]+Z; re-arm: mmkit kill --fleet --rearm/);
      expect(placedBy.get('rc') ?? 0).toBe(0);
    } finally {
      redis.disconnect();
      await ex.close();
    }
  }, 240_000);
});
