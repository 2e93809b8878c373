/**
 * The daemon's shutdown, and fills its user channel did not deliver.
 *
 * An account that could not be checked at exit is not called flat: when the venue's open-orders
 * listing fails throughout the check, the daemon exits 1 and says the open orders are unknown
 * (before, it printed "open orders left 0" and exited 0).
 *
 * Fills the daemon's user channel never delivered still reach SQLite, once, by the end of the run.
 *
 * The daemon stops its engine (and with it the user channel) before it cancels its orders at
 * shutdown, and a user channel can go quiet without closing (nothing detects a silent user channel:
 * an account can be quiet for hours). Either way a fill matched at the venue was not seen as an
 * event. At shutdown, once the venue shows no open order (so nothing can fill any more), the daemon
 * takes the venue's trade history since the run started and stores what it lacks.
 *
 * While it runs, the daemon audits the user channel (`venue.userAuditMs`): the trades since the last
 * audit are fetched over REST and the fills the channel did not deliver are recorded then.
 *
 * Here the exchange freezes the user channel (sockets open, PONGs answered, no data) and a
 * counterparty fills the bot's bids:
 *  - with the audit off, the daemon is stopped with SIGTERM: every fill of the bot at the exchange
 *    must be in SQLite exactly once, and the daemon must say it backfilled them at shutdown;
 *  - with the audit on (1 s), the fills reach SQLite while the daemon runs, once, and it says so.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { Trader } from '../integration/support/trader.ts';
import {
  Admin,
  BotHarness,
  botFills,
  exited,
  hitBotBid,
  logLines,
  sleep,
  waitForQuotes,
  waitUntil,
} from './support/bot-harness.ts';

const TOKEN = 'e2e-shutdown-fills-admin';
const h = new BotHarness();
afterAll(() => h.close());

/**
 * A daemon (user-channel audit every `auditMs`) quoting on a fresh exchange, whose user channel is
 * then frozen while a counterparty fills its bids: returns the fills the channel never delivered.
 */
async function frozenFill(seed: number, auditMs: string, env: Record<string, string> = {}) {
  const { ex, base } = await h.exchange(seed, { adminToken: TOKEN });
  const admin = new Admin(base, TOKEN);
  const { dir, address } = h.dataDir();
  // (a long --duration: the test stops it; on a loaded machine its steps take minutes, not seconds)
  const bot = h.startBot(base, dir, ['--duration', '600s'], { MMKIT_USER_AUDIT_MS: auditMs, ...env });
  expect(await waitForQuotes(ex, address), bot.err().slice(-2000)).toBeGreaterThan(0);
  const t = new Trader(ex.urls.clob_url);
  await t.createKey();
  await admin.addFault({ stream: 'user', freeze: true });
  const frozenAt = botFills(ex, address).length;
  const end = Date.now() + 30_000;
  while (botFills(ex, address).length === frozenAt && Date.now() < end) {
    await hitBotBid(ex, t, address);
    await sleep(250);
  }
  const unseen = botFills(ex, address).slice(frozenAt);
  expect(unseen.length, 'the counterparty could not fill a bid of the bot').toBeGreaterThan(0);
  return { ex, dir, address, bot, unseen };
}

describe('mmkit run: shutdown', () => {
  it('a fill the user channel never delivered is stored once at shutdown', async () => {
    const { ex, dir, address, bot, unseen } = await frozenFill(5, '0');

    bot.p.kill('SIGTERM');
    const code = await exited(bot.p);
    expect(code, bot.err().slice(-3000)).toBe(0);
    expect(ex.exchange.openOrders(address)).toEqual([]);

    // every fill of the bot at the exchange is in SQLite exactly once, the unseen ones included
    const venueFills = [...new Set(botFills(ex, address))].sort();
    const db = new Database(join(dir, 'mmkit.db'), { readonly: true });
    const rows = db.prepare('SELECT trade_id, order_id FROM fills').all() as Array<{
      trade_id: string;
      order_id: string;
    }>;
    db.close();
    expect(rows.map((r) => `${r.trade_id}|${r.order_id}`).sort()).toEqual(venueFills);

    // they came from the shutdown backfill (the frozen channel delivered none of them)
    const lines = logLines(bot.err());
    const note = lines.find((l) =>
      l.msg.startsWith('fills the user channel had not delivered, backfilled at shutdown'),
    );
    expect(note, bot.err().slice(-3000)).toBeDefined();
    expect(note!['fills']).toBeGreaterThanOrEqual(unseen.length);
    const backfilled = new Set(
      lines
        .filter((l) => l.msg === 'fill' && l['backfilled'] === true)
        .map((l) => `${String(l['trade'])}|${String(l['order'])}`),
    );
    for (const f of unseen) expect(backfilled.has(f), `${f} was not backfilled`).toBe(true);
    // the fill ratio counts the orders those fills filled, as the fills line counts the fills (trial 13 F8)
    const filledOrders = new Set(rows.map((r) => r.order_id)).size;
    expect(bot.out(), bot.out()).toMatch(
      new RegExp(`\\n {2}fill ratio {8}[0-9.]+ % of orders placed got a fill \\(${filledOrders}\\)\\n`),
    );
  }, 240_000);

  it('with the audit on, a fill the frozen user channel never delivered is stored while the daemon runs, once', async () => {
    const { ex, dir, address, bot, unseen } = await frozenFill(6, '1000');

    // the daemon still runs, its user channel still frozen: the audit stores the fills
    const db = new Database(join(dir, 'mmkit.db'), { readonly: true });
    const stored = () =>
      new Set(
        (db.prepare('SELECT trade_id, order_id FROM fills').all() as Array<{ trade_id: string; order_id: string }>).map(
          (r) => `${r.trade_id}|${r.order_id}`,
        ),
      );
    const ok = await waitUntil(() => unseen.every((f) => stored().has(f)), 60_000); // an audit leaves fills younger than 5 s to the stream
    expect(
      ok,
      `not stored while running: ${unseen.filter((f) => !stored().has(f)).join(', ')}\n${bot.err().slice(-3000)}`,
    ).toBe(true);
    expect(bot.p.exitCode).toBe(null);
    // they came over REST while running (the audit; or, if the frozen socket was replaced meanwhile,
    // as on a loaded machine, the reconnect's reconciliation), never from the frozen stream.
    // The daemon commits a fill, then logs it: the row can be read before its log line has reached
    // us through the pipe (a loaded machine widens that gap), so wait for the lines too.
    const fillLine = (f: string) =>
      logLines(bot.err()).find((l) => l.msg === 'fill' && `${String(l['trade'])}|${String(l['order'])}` === f);
    await waitUntil(() => unseen.every((f) => fillLine(f) !== undefined), 30_000);
    expect(bot.p.exitCode).toBe(null);
    for (const f of unseen) {
      const line = fillLine(f);
      expect(line, `${f}: no fill line\n${bot.err().slice(-3000)}`).toBeDefined();
      expect(line!['source']).toBe('reconcile');
      expect(line!['backfilled']).toBeUndefined(); // not the shutdown backfill
    }

    bot.p.kill('SIGTERM');
    expect(await exited(bot.p), bot.err().slice(-3000)).toBe(0);
    expect(ex.exchange.openOrders(address)).toEqual([]);
    const rows = (
      db.prepare('SELECT trade_id, order_id FROM fills').all() as Array<{ trade_id: string; order_id: string }>
    ).map((r) => `${r.trade_id}|${r.order_id}`);
    db.close();
    expect(rows.sort()).toEqual([...new Set(botFills(ex, address))].sort());
  }, 240_000);

  it("the position audit books a fill the frozen user channel never delivered, and the session's live fill count has it", async () => {
    // the user channel's audit off: the position audit (every second) finds the holdings moved and books the trades
    const { dir, bot, unseen } = await frozenFill(7, '0', {
      MMKIT_POSITION_AUDIT_MS: '1000',
      MMKIT_STATUS_INTERVAL_MS: '500',
    });
    const booked = () =>
      logLines(bot.err())
        .filter((l) => l.msg === 'fill (booked by the position audit)')
        .map((l) => `${String(l['trade'])}|${String(l['order'])}`);
    expect(await waitUntil(() => unseen.every((f) => booked().includes(f)), 60_000), bot.err().slice(-3000)).toBe(true);
    // the status line's `fills` (as /api/status and the metrics count them) is the store's own fills
    const db = new Database(join(dir, 'mmkit.db'), { readonly: true });
    const own = () => Number(db.prepare("SELECT COUNT(*) FROM fills WHERE source = 'bot'").pluck().get());
    const lastStatus = () =>
      logLines(bot.err())
        .filter((l) => l.msg === 'status')
        .at(-1);
    const counted = await waitUntil(() => lastStatus()?.['fills'] === own(), 20_000);
    expect(counted, `status fills ${String(lastStatus()?.['fills'])}, store ${own()}\n${bot.err().slice(-2000)}`).toBe(
      true,
    );
    db.close();
    bot.p.kill('SIGTERM');
    expect(await exited(bot.p), bot.err().slice(-3000)).toBe(0);
  }, 240_000);

  it('with the audit on, orders cancelled behind its back while the user channel is frozen are seen and quoted again', async () => {
    const { ex, base } = await h.exchange(9, { adminToken: TOKEN });
    const admin = new Admin(base, TOKEN);
    const { dir, address } = h.dataDir();
    const bot = h.startBot(base, dir, ['--duration', '600s', '--log-level', 'debug'], { MMKIT_USER_AUDIT_MS: '1000' });
    expect(await waitForQuotes(ex, address), bot.err().slice(-2000)).toBeGreaterThan(0);
    await admin.addFault({ stream: 'user', freeze: true });
    // another session of the same account (or the venue) cancels everything; the daemon hears nothing
    const gone = ex.exchange.cancelAll(address).canceled;
    expect(gone.length).toBeGreaterThan(0);
    expect(ex.exchange.openOrders(address)).toEqual([]);
    // the audit finds them cancelled, and the daemon quotes again (with new orders), still frozen
    const requoted = () => ex.exchange.openOrders(address).some((o) => !gone.includes(o.id));
    expect(await waitUntil(requoted, 60_000), bot.err().slice(-3000)).toBe(true);
    bot.p.kill('SIGTERM');
    expect(await exited(bot.p), bot.err().slice(-3000)).toBe(0);
    expect(ex.exchange.openOrders(address)).toEqual([]);
  }, 240_000);

  it('exits 1, open orders unknown, when the venue cannot be checked at exit (never a false "0 left")', async () => {
    const { ex, base } = await h.exchange(7, { adminToken: TOKEN });
    const admin = new Admin(base, TOKEN);
    const { dir, address } = h.dataDir();
    const bot = h.startBot(base, dir, ['--duration', '600s'], { MMKIT_USER_AUDIT_MS: '0' });
    expect(await waitForQuotes(ex, address), bot.err().slice(-2000)).toBeGreaterThan(0);
    // the open-orders listing fails from now on (the cancels still work)
    await admin.addFault({ route: 'GET /clob/data/orders', status: 503 });
    bot.p.kill('SIGTERM');
    const code = await exited(bot.p);
    expect(code, bot.err().slice(-3000)).toBe(1);
    expect(bot.out()).toContain('open orders left  unknown');
    expect(bot.out()).not.toContain('open orders left  0');
    const lines = logLines(bot.err());
    // unknown is null in the JSON summary (not a -1 sentinel)
    expect(lines.find((l) => l.msg === 'summary')).toMatchObject({ noOrdersLeft: false, openOrdersAtExit: null });
    // one ERROR line says orders may still rest, where, and how to list and cancel them
    const gaveUp = lines.filter((l) => l.level >= 50 && l.msg.startsWith('could not cancel/verify all orders'));
    expect(gaveUp, bot.err().slice(-3000)).toHaveLength(1);
    expect(gaveUp[0]).toMatchObject({ component: 'daemon', venue: base });
    expect(gaveUp[0]!.msg).toContain(`may still rest at the venue (${base})`);
    expect(gaveUp[0]!.msg).toContain(`\`mmkit orders --exchange-url ${base} --data-dir ${dir}\``);
    expect(gaveUp[0]!.msg).toContain(`\`mmkit cancel-all --exchange-url ${base} --data-dir ${dir}\``);
    // (the cancel-all did go through: the account is in fact flat, but the daemon could not see it)
    expect(ex.exchange.openOrders(address)).toEqual([]);
  }, 240_000);
});
