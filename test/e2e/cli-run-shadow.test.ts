/**
 * `mmkit run --shadow` against a running paper exchange, as a user runs it, for about a minute:
 *  - the exchange records no order from the bot's key (its paper wallet in the data dir is never
 *    read: no API key is created, no order placed, no trade, by anyone, during the run);
 *  - the shadow store (<dataDir>/shadow/mmkit.db) has fills, in a shadow ledger epoch of its own; the
 *    data dir's live lock and live store are never touched; `mmkit status --shadow` and /metrics say
 *    SHADOW; the summary says SHADOW and "orders sent to the venue: 0";
 *  - a backtest of a feed recorded alongside (src/backtest/recorder.ts), with the same strategy,
 *    params, risk, queue model, latency and seed, gives fills within the tolerance of the
 *    backtest-vs-live test (test/e2e/support/fill-compare.ts: `violations`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/backtest/runner.ts';
import { comparisonRun, PARAMS, RISK, startComparison, worldLine } from './support/bands-world.ts';
import { exited, sleep, waitUntil } from './support/bot-harness.ts';
import { runMmkit } from './support/cli.ts';
import { fillsOf, head, row, storedFill, summarize, violations, type StoredFill } from './support/fill-compare.ts';

const DURATION_S = 60;
/** The simulated venue's one-way latency (shadow.latencyMs), and the backtest's. */
const LATENCY_MS = 50;
const MIN_SHADOW_FILLS = 10;

const w = comparisonRun();
const { h } = w;

describe('mmkit run --shadow', () => {
  it('trades live books with simulated fills, sends nothing, and agrees with a backtest of a feed recorded alongside', async () => {
    // the recorder alongside; the bot's account as the exchange sees it; the keys before the run
    const { x, base, ids, markets, dir, address, raw, own, rec, config } = await startComparison(
      w,
      'alongside.ndjson.gz',
    );
    const keysBefore = x.exchange.keys.all().length;

    const bot = h.startBot(
      base,
      dir,
      ['--shadow', '--config', config, '--markets', ids.join(','), '--duration', `${DURATION_S}s`],
      { MMKIT_SHADOW_LATENCY_MS: String(LATENCY_MS), MMKIT_SHADOW_QUEUE: 'risk-averse', MMKIT_SHADOW_SEED: '1' },
    );

    // while it runs: its own lock and status record in <dataDir>/shadow, never the live lock
    const shadowDir = join(dir, 'shadow');
    await waitUntil(() => existsSync(join(shadowDir, 'daemon.json')), 60_000);
    expect(existsSync(join(shadowDir, 'daemon.lock'))).toBe(true);
    expect(existsSync(join(dir, 'daemon.lock'))).toBe(false);
    const st = await runMmkit(['status', '--shadow', '--data-dir', dir, '--json'], { timeoutMs: 60_000 });
    const snap = JSON.parse(st.out) as { mode?: string };
    expect(snap.mode, st.err).toBe('shadow');
    const human = await runMmkit(['status', '--shadow', '--data-dir', dir], { timeoutMs: 60_000 });
    expect(human.out).toMatch(/^SHADOW: /);
    const statusUrl = (JSON.parse(readFileSync(join(shadowDir, 'daemon.json'), 'utf8')) as { statusUrl: string })
      .statusUrl;
    expect(await (await fetch(`${statusUrl}/metrics`)).text()).toMatch(/mmkit_info\{[^}]*mode="shadow"/);

    const code = await exited(bot.p);
    expect(code, bot.err().slice(-3000)).toBe(0);
    await sleep(300);
    const recStats = await rec.stop();
    own.stop();
    expect(recStats.connects.m).toBe(1);
    expect(bot.out()).toMatch(/^SHADOW run: .*orders sent to the venue: 0$/m);
    // the figures to compare with the backtest of its recording, as a run's summary has them (trial 21 F11)
    expect(bot.out()).toMatch(/^ {2}markouts {10}/m);
    expect(bot.out()).toMatch(/^ {2}fill ratio {8}/m);

    // nothing reached the exchange: no key, no order, no trade of the bot's account, no key of anyone
    expect(x.exchange.keys.hasAny(address)).toBe(false);
    expect(x.exchange.keys.all().length).toBe(keysBefore);
    expect(own.placedAt.size).toBe(0);
    expect(x.exchange.tradesOf(address)).toHaveLength(0);
    // the live store and lock were never made
    expect(existsSync(join(dir, 'mmkit.db'))).toBe(false);
    expect(existsSync(join(dir, 'daemon.lock'))).toBe(false);

    // the shadow store: fills, in a shadow epoch
    const db = new Database(join(shadowDir, 'mmkit.db'), { readonly: true });
    const epochs = db.prepare('SELECT venue, address FROM epochs').all() as Array<{ venue: string; address: string }>;
    const session = db.prepare('SELECT started_at, ended_at FROM sessions').get() as {
      started_at: number;
      ended_at: number;
    };
    const rows = db.prepare('SELECT market, token, side, price, size, fee, role, match_time FROM fills').all() as Array<
      StoredFill & { match_time: number }
    >;
    db.close();
    expect(epochs).toHaveLength(1);
    expect(epochs[0]!.venue).toMatch(/^shadow:/);
    expect(epochs[0]!.address).toMatch(/^shadow@\d+$/);
    const shadowFills = rows.map((r) => storedFill(r, r.match_time));
    expect(shadowFills.length, 'the shadow run is too quiet to compare').toBeGreaterThanOrEqual(MIN_SHADOW_FILLS);

    // the backtest of the feed recorded alongside: same strategy, params, risk, queue, latency, seed
    const r = await runBacktest({
      feeds: [raw],
      strategy: 'bands',
      params: PARAMS,
      risk: RISK,
      markets: ids,
      queue: 'risk-averse',
      latencyMs: LATENCY_MS,
      seed: 1,
      postOnly: true,
    });
    expect(r.stopReason).toBe('end of feed');
    const shadowSum = summarize(shadowFills, markets);
    // the feed began before the shadow run was up (a process start) and ended after it: the
    // backtest's fills of the shadow session's span are compared
    const btFills = fillsOf(r).filter((f) => f.t >= session.started_at && f.t <= session.ended_at);
    const btSum = summarize(btFills, markets, shadowFills);
    const lines = [
      `shadow vs backtest of the feed recorded alongside: ${worldLine(DURATION_S)}, latency ${LATENCY_MS} ms`,
      head(),
      row('SHADOW (mmkit run --shadow)', shadowSum.total),
      row('backtest risk-averse', btSum.total),
    ];
    for (const m of ids) {
      lines.push(`market ${m.slice(0, 10)}`);
      lines.push(row('  SHADOW', shadowSum.markets.get(m)!));
      lines.push(row('  backtest', btSum.markets.get(m)!));
    }
    const v = violations(shadowSum, btSum);
    lines.push(v.length === 0 ? 'close' : `NOT close: ${v.join('; ')}`);
    console.log(lines.join('\n'));
    expect(v).toEqual([]);
  }, 300_000);
});
