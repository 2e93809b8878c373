/**
 * Shared harness of the `mmkit run` end-to-end tests: a paper exchange the test controls (with its
 * flow agents on, so books have a mid), a data directory holding a known paper wallet, the daemon as
 * a child process, and a counterparty that trades against the bot's bids. Everything started is
 * stopped by `close()`, also when a test fails.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { startExchange, type RunningExchange } from '../../../src/exchange/server.ts';
import type { Trader } from '../../integration/support/trader.ts';

const BIN = new URL('../../../bin/mmkit.js', import.meta.url).pathname;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface BotProcess {
  p: ChildProcess;
  out(): string;
  err(): string;
}

export class BotHarness {
  private readonly children: ChildProcess[] = [];
  private readonly exchanges: RunningExchange[] = [];

  /** A paper exchange with agents trading (no lifecycle, so the bot's markets stay open). */
  async exchange(seed: number): Promise<{ ex: RunningExchange; base: string }> {
    const ex = await startExchange({ port: 0, seed, world: { agents: 'default', lifecycle: false, priceFeed: true } });
    this.exchanges.push(ex);
    return { ex, base: ex.urls.clob_url.replace(/\/clob$/, '') };
  }

  /** A data directory with a paper wallet the test knows: returns it and the bot's address. */
  dataDir(): { dir: string; address: string } {
    const dir = mkdtempSync(join(tmpdir(), 'mmkit-e2e-'));
    const bot = new Wallet(Wallet.createRandom().privateKey);
    writeFileSync(join(dir, 'paper-wallet.key'), bot.privateKey + '\n', { mode: 0o600 });
    return { dir, address: bot.address.toLowerCase() };
  }

  /** `mmkit run --exchange-url base --data-dir dir ...args` as a child process. */
  startBot(base: string, dir: string, args: string[] = [], env: Record<string, string> = {}): BotProcess {
    const p = spawn(process.execPath, [BIN, 'run', '--exchange-url', base, '--data-dir', dir, '--log-level', 'info', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    this.children.push(p);
    let out = '';
    let err = '';
    p.stdout!.on('data', (d) => (out += d));
    p.stderr!.on('data', (d) => (err += d));
    return { p, out: () => out, err: () => err };
  }

  async close(): Promise<void> {
    for (const c of this.children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await Promise.all(this.exchanges.map((e) => e.close()));
  }
}

/** Waits (up to 20 s) until the bot has orders resting at the exchange. */
export async function waitForQuotes(ex: RunningExchange, address: string): Promise<number> {
  for (let i = 0; i < 100 && ex.exchange.openOrders(address).length === 0; i++) await sleep(200);
  return ex.exchange.openOrders(address).length;
}

/** The bot's fills at the exchange, as "tradeId|orderId" (taker and maker sides). */
export function botFills(ex: RunningExchange, address: string): string[] {
  return ex.exchange.tradesOf(address).flatMap((r) =>
    r.trade.takerAccount === address
      ? [`${r.trade.id}|${r.trade.takerOrderId}`]
      : r.trade.makers.filter((mk) => mk.account === address).map((mk) => `${r.trade.id}|${mk.orderId}`),
  );
}

/**
 * The counterparty sweeps the book down to one of the bot's bids through the complementary token
 * (a mint). Returns false when the bot has no bid right now.
 */
export async function hitBotBid(ex: RunningExchange, t: Trader, address: string): Promise<boolean> {
  const bid = ex.exchange.openOrders(address).find((o) => o.side === 'BUY');
  if (bid === undefined) return false;
  const m = ex.exchange.marketOfToken(bid.tokenId)!;
  const other = m.entry.meta.tokens[m.index === 0 ? 1 : 0];
  const ahead = ex.exchange.engine.book(bid.tokenId).bids.filter((l) => l.price >= bid.price).reduce((s, l) => s + l.size, 0);
  const px = ((10000 - bid.price) / 10000).toFixed(4);
  const r = await t.place(other, 'BUY', px, (Math.max(5_000_000, ahead) / 1e6).toFixed(2), { type: 'FAK', tick: '0.0001', negRisk: m.entry.meta.negRisk });
  if (r.status !== 200) throw new Error(`counterparty order refused: ${JSON.stringify(r.body)}`);
  return true;
}

/** Hits the bot's bids (retrying while it re-quotes) until it has at least one fill. */
export async function makeBotFill(ex: RunningExchange, t: Trader, address: string): Promise<void> {
  for (let i = 0; i < 20 && botFills(ex, address).length === 0; i++) {
    await hitBotBid(ex, t, address);
    await sleep(300);
  }
}
