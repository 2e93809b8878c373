/**
 * kill -9 in the middle of a run, then a restart: the restarted daemon reconciles (the orders the
 * dead one left at the venue are cancelled, fills missed while down are backfilled), no fill is
 * lost or doubled, every order the venue ever saw was recorded before it was sent, and the second
 * run stops with zero open orders.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Wallet } from 'ethers';
import { afterAll, describe, expect, it } from 'vitest';
import { startExchange, type RunningExchange } from '../../src/exchange/server.ts';
import { Trader } from '../integration/support/trader.ts';

const BIN = new URL('../../bin/mmkit.js', import.meta.url).pathname;
const children: ChildProcess[] = [];
const exchanges: RunningExchange[] = [];
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await Promise.all(exchanges.map((e) => e.close()));
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function startBot(base: string, dir: string, extra: string[]): { p: ChildProcess; out: () => string; err: () => string } {
  const p = spawn(process.execPath, [BIN, 'run', '--exchange-url', base, '--data-dir', dir, '--log-level', 'info', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(p);
  let out = '';
  let err = '';
  p.stdout!.on('data', (d) => (out += d));
  p.stderr!.on('data', (d) => (err += d));
  return { p, out: () => out, err: () => err };
}

describe('mmkit run: kill -9 and restart', () => {
  it('loses no fill, doubles none, and leaves no order behind', async () => {
    const ex = await startExchange({ port: 0, seed: 4, world: { agents: 'default', lifecycle: false, priceFeed: true } });
    exchanges.push(ex);
    const dir = mkdtempSync(join(tmpdir(), 'mmkit-restart-'));
    const bot = new Wallet(Wallet.createRandom().privateKey);
    writeFileSync(join(dir, 'paper-wallet.key'), bot.privateKey + '\n', { mode: 0o600 });
    const addr = bot.address.toLowerCase();
    const base = ex.urls.clob_url.replace(/\/clob$/, '');
    const botFills = () =>
      ex.exchange.tradesOf(addr).flatMap((r) =>
        r.trade.takerAccount === addr ? [`${r.trade.id}|${r.trade.takerOrderId}`] : r.trade.makers.filter((mk) => mk.account === addr).map((mk) => `${r.trade.id}|${mk.orderId}`),
      );
    const t = new Trader(ex.urls.clob_url);
    await t.createKey();
    /** Sweep the book down to one of the bot's bids (a complementary mint), so the bot gets a fill. */
    const hitBot = async () => {
      const bid = ex.exchange.openOrders(addr).find((o) => o.side === 'BUY');
      if (bid === undefined) return;
      const m = ex.exchange.marketOfToken(bid.tokenId)!;
      const other = m.entry.meta.tokens[m.index === 0 ? 1 : 0];
      const ahead = ex.exchange.engine.book(bid.tokenId).bids.filter((l) => l.price >= bid.price).reduce((s, l) => s + l.size, 0);
      await t.place(other, 'BUY', ((10000 - bid.price) / 10000).toFixed(4), (Math.max(5_000_000, ahead) / 1e6).toFixed(2), { type: 'FAK', tick: '0.0001', negRisk: m.entry.meta.negRisk });
    };

    // run 1: quote, get a fill, then die without any chance to clean up
    const b1 = startBot(base, dir, []);
    for (let i = 0; i < 100 && ex.exchange.openOrders(addr).length === 0; i++) await sleep(200);
    expect(ex.exchange.openOrders(addr).length, b1.err().slice(-2000)).toBeGreaterThan(0);
    for (let i = 0; i < 20 && botFills().length === 0; i++) {
      await hitBot();
      await sleep(300);
    }
    expect(botFills().length).toBeGreaterThan(0);
    await sleep(500);
    b1.p.kill('SIGKILL');
    await once(b1.p, 'exit');
    const left = ex.exchange.openOrders(addr).map((o) => o.id);
    expect(left.length).toBeGreaterThan(0); // the dead daemon's quotes are still resting
    // while it is down, the market trades against what it left
    const bid = ex.exchange.openOrders(addr).find((o) => o.side === 'BUY');
    if (bid) await hitBot();

    // run 2: reconcile, quote again, stop cleanly
    const b2 = startBot(base, dir, ['--duration', '12s']);
    const [code] = await once(b2.p, 'exit');
    expect(code, b2.err().slice(-3000)).toBe(0);
    expect(b2.out()).toContain('open orders left  0');
    expect(ex.exchange.openOrders(addr)).toEqual([]);
    // the orders the dead daemon left were cancelled by the reconciliation
    for (const id of left) expect(['CANCELED', 'MATCHED']).toContain(ex.exchange.engine.getOrder(id)!.status);

    const db = new Database(join(dir, 'mmkit.db'), { readonly: true });
    const fills = db.prepare('SELECT trade_id, order_id FROM fills').all() as Array<{ trade_id: string; order_id: string }>;
    const orderIds = new Set((db.prepare('SELECT id FROM orders').all() as Array<{ id: string }>).map((r) => r.id));
    db.close();
    // every fill at the venue is in the store exactly once (backfilled if it happened while down)
    const stored = fills.map((r) => `${r.trade_id}|${r.order_id}`);
    expect(new Set(stored).size).toBe(stored.length);
    expect(stored.sort()).toEqual([...new Set(botFills())].sort());
    // every order the venue ever saw from the bot was recorded before it was sent: no stray or duplicate orders
    const venueOrders = ex.exchange.engine.ordersOf(addr).map((o) => o.id);
    expect(new Set(venueOrders).size).toBe(venueOrders.length);
    for (const id of venueOrders) expect(orderIds.has(id)).toBe(true);
  }, 120_000);
});
