/**
 * `mmkit run` as a user runs it, against a paper exchange the test controls: it quotes, a
 * counterparty trades against its quotes, the fill lands in SQLite exactly once, and at the end of
 * --duration it cancels everything and exits 0 with zero open orders at the exchange.
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

describe('mmkit run', () => {
  it('quotes, records a fill once, and stops with zero open orders', async () => {
    const ex = await startExchange({ port: 0, seed: 3, world: { agents: 'default', lifecycle: false, priceFeed: true } });
    exchanges.push(ex);
    const dir = mkdtempSync(join(tmpdir(), 'mmkit-run-'));
    const bot = new Wallet(Wallet.createRandom().privateKey);
    writeFileSync(join(dir, 'paper-wallet.key'), bot.privateKey + '\n', { mode: 0o600 });
    const base = ex.urls.clob_url.replace(/\/clob$/, '');
    const p = spawn(process.execPath, [BIN, 'run', '--exchange-url', base, '--data-dir', dir, '--duration', '25s', '--log-level', 'info'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(p);
    let out = '';
    let err = '';
    p.stdout!.on('data', (d) => (out += d));
    p.stderr!.on('data', (d) => (err += d));
    const addr = bot.address.toLowerCase();
    // wait for the bot's quotes
    let open = ex.exchange.openOrders(addr);
    for (let i = 0; i < 100 && open.length === 0; i++) {
      await sleep(200);
      open = ex.exchange.openOrders(addr);
    }
    expect(open.length, err.slice(-2000)).toBeGreaterThan(0);
    // a counterparty sweeps the book down to one of the bot's bids through the complementary token
    // (a mint), retrying while the bot re-quotes, until the bot has a fill
    const t = new Trader(ex.urls.clob_url);
    await t.createKey();
    const botFills = () =>
      ex.exchange.tradesOf(addr).flatMap((r) =>
        r.trade.takerAccount === addr ? [`${r.trade.id}|${r.trade.takerOrderId}`] : r.trade.makers.filter((mk) => mk.account === addr).map((mk) => `${r.trade.id}|${mk.orderId}`),
      );
    for (let attempt = 0; attempt < 20 && botFills().length === 0; attempt++) {
      const bid = ex.exchange.openOrders(addr).find((o) => o.side === 'BUY');
      if (bid === undefined) {
        await sleep(200);
        continue;
      }
      const m = ex.exchange.marketOfToken(bid.tokenId)!;
      const other = m.entry.meta.tokens[m.index === 0 ? 1 : 0];
      const ahead = ex.exchange.engine.book(bid.tokenId).bids.filter((l) => l.price >= bid.price).reduce((s, l) => s + l.size, 0);
      const size = (Math.max(5_000_000, ahead) / 1e6).toFixed(2);
      const px = ((10000 - bid.price) / 10000).toFixed(4);
      const hit = await t.place(other, 'BUY', px, size, { type: 'FAK', tick: '0.0001', negRisk: m.entry.meta.negRisk });
      expect(hit.status, JSON.stringify(hit.body)).toBe(200);
      await sleep(300);
    }
    const [code] = await once(p, 'exit');
    expect(code, err.slice(-3000)).toBe(0);
    expect(out).toContain('open orders left  0');
    expect(ex.exchange.openOrders(addr)).toEqual([]);
    // every fill of the bot at the exchange is in SQLite exactly once
    const venueFills = botFills();
    expect(venueFills.length).toBeGreaterThan(0);
    const db = new Database(join(dir, 'mmkit.db'), { readonly: true });
    const rows = db.prepare('SELECT trade_id, order_id FROM fills').all() as Array<{ trade_id: string; order_id: string }>;
    db.close();
    expect(rows.map((r) => `${r.trade_id}|${r.order_id}`).sort()).toEqual([...new Set(venueFills)].sort());
  }, 90_000);
});
