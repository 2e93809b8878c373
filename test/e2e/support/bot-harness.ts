/**
 * Shared harness of the `mmkit run` end-to-end tests: a paper exchange the test controls (with its
 * flow agents on, so books have a mid), a data directory holding a known paper wallet, the daemon as
 * a child process, and a counterparty that trades against the bot's bids. Everything started is
 * stopped by `close()`, also when a test fails.
 */
import { once } from 'node:events';
import { spawn, type ChildProcess } from 'node:child_process';
import { finished } from 'node:stream/promises';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { startExchange, type RunningExchange } from '../../../src/exchange/server.ts';
import type { Trader } from '../../integration/support/trader.ts';

const BIN = new URL('../../../bin/mmkit.js', import.meta.url).pathname;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The exit code of a child process (null when a signal ended it), whether it has exited already or
 * exits later: `once(p, 'exit')` alone never resolves for a process that exited before it was
 * called (the kill-switch daemon exits on its own while a test is still checking the venue).
 *
 * Resolves once its piped stdout and stderr have been read to their end too: 'exit' can come before
 * the last output does (the summary, the last log lines), and on a loaded machine it often does.
 */
export async function exited(p: ChildProcess): Promise<number | null> {
  if (p.exitCode === null && p.signalCode === null) await once(p, 'exit');
  await outputDrained(p);
  return p.exitCode;
}

/**
 * Waits until a child's piped stdout and stderr have ended (everything it wrote was read), bounded
 * by `timeoutMs` (a grandchild holding the pipe open must not hang the test: the assertions on the
 * output then say what is missing).
 */
export async function outputDrained(p: ChildProcess, timeoutMs = 30_000): Promise<void> {
  const streams = [p.stdout, p.stderr].filter((s) => s !== null);
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    Promise.all(streams.map((s) => finished(s).catch(() => undefined))),
    new Promise((r) => (timer = setTimeout(r, timeoutMs))),
  ]).finally(() => clearTimeout(timer));
}

export interface BotProcess {
  p: ChildProcess;
  out(): string;
  err(): string;
}

export class BotHarness {
  private readonly children: ChildProcess[] = [];
  private readonly exchanges: RunningExchange[] = [];

  /**
   * A paper exchange with agents trading (no lifecycle, so the bot's markets stay open). With
   * `adminToken`, its /admin routes are served (see `Admin`); `rate` multiplies the agents'
   * activity (default 1).
   */
  async exchange(
    seed: number,
    o: { adminToken?: string; rate?: number; protocol?: 1 | 2 } = {},
  ): Promise<{ ex: RunningExchange; base: string }> {
    const ex = await startExchange({
      port: 0,
      seed,
      ...(o.protocol !== undefined ? { exchange: { protocol: o.protocol } } : {}),
      world: {
        agents: 'default',
        lifecycle: false,
        priceFeed: true,
        ...(o.rate !== undefined ? { rate: o.rate } : {}),
      },
      ...(o.adminToken !== undefined ? { http: { adminToken: o.adminToken } } : {}),
    });
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

  /**
   * `mmkit run --exchange-url base --data-dir dir ...args` as a child process. A fleet member
   * (`MMKIT_REDIS_URL` in `env`) gets the key of the data dir's paper wallet as MMKIT_PRIVATE_KEY
   * (unless `env` names a wallet), with MMKIT_VENUE_KIND paper: a member refuses a data dir's own paper
   * wallet (src/cli/run-fleet.ts).
   */
  startBot(base: string, dir: string, args: string[] = [], env: Record<string, string> = {}): BotProcess {
    const member =
      env['MMKIT_REDIS_URL'] !== undefined &&
      env['MMKIT_PRIVATE_KEY'] === undefined &&
      env['MMKIT_KEYSTORE_FILE'] === undefined &&
      existsSync(join(dir, 'paper-wallet.key'))
        ? {
            MMKIT_PRIVATE_KEY: readFileSync(join(dir, 'paper-wallet.key'), 'utf8').trim(),
            // a key configured makes a loopback venue live (src/cli/venue-kind.ts): this one is a paper wallet
            MMKIT_VENUE_KIND: 'paper',
          }
        : {};
    const p = spawn(
      process.execPath,
      [BIN, 'run', '--exchange-url', base, '--data-dir', dir, '--log-level', 'info', ...args],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        // the status server on a free port (tests run daemons in parallel; the default 8787 would clash)
        env: { ...process.env, MMKIT_HTTP_PORT: '0', ...member, ...env },
      },
    );
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

/**
 * Waits (up to `timeoutMs`, default 60 s: a daemon starting on a loaded machine takes its time)
 * until the bot has orders resting at the exchange; returns how many.
 */
export async function waitForQuotes(ex: RunningExchange, address: string, timeoutMs = 60_000): Promise<number> {
  await waitUntil(() => ex.exchange.openOrders(address).length > 0, timeoutMs, 100);
  return ex.exchange.openOrders(address).length;
}

/** The bot's fills at the exchange, as "tradeId|orderId" (taker and maker sides). */
export function botFills(ex: RunningExchange, address: string): string[] {
  return ex.exchange
    .tradesOf(address)
    .flatMap((r) =>
      r.trade.takerAccount === address
        ? [`${r.trade.id}|${r.trade.takerOrderId}`]
        : r.trade.makers.filter((mk) => mk.account === address).map((mk) => `${r.trade.id}|${mk.orderId}`),
    );
}

/**
 * The counterparty sweeps the book down to one of the bot's bids (on `market` when given) through
 * the complementary token (a mint). Returns false when the bot has no bid there right now.
 */
export async function hitBotBid(ex: RunningExchange, t: Trader, address: string, market?: string): Promise<boolean> {
  const bid = ex.exchange
    .openOrders(address)
    .find((o) => o.side === 'BUY' && (market === undefined || o.market === market));
  if (bid === undefined) return false;
  const m = ex.exchange.marketOfToken(bid.tokenId)!;
  const other = m.entry.meta.tokens[m.index === 0 ? 1 : 0];
  const ahead = ex.exchange.engine
    .book(bid.tokenId)
    .bids.filter((l) => l.price >= bid.price)
    .reduce((s, l) => s + l.size, 0);
  const px = ((10000 - bid.price) / 10000).toFixed(4);
  const r = await t.place(other, 'BUY', px, (Math.max(5_000_000, ahead) / 1e6).toFixed(2), {
    type: 'FAK',
    tick: '0.0001',
    negRisk: m.entry.meta.negRisk,
  });
  if (r.status !== 200) throw new Error(`counterparty order refused: ${JSON.stringify(r.body)}`);
  return true;
}

/**
 * `hitBotBid`, retried until the bot has a bid there (up to `timeoutMs`). The bot replaces its bids
 * cancel-first, so for a moment after a fill or a re-quote it has none (tens of ms on a quiet
 * machine, over half a second under CI load): a single look can miss them. Returns false only when
 * it had no bid there during the whole wait.
 */
export async function hitBotBidWithin(
  ex: RunningExchange,
  t: Trader,
  address: string,
  market: string | undefined,
  timeoutMs: number,
): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await hitBotBid(ex, t, address, market)) return true;
    if (Date.now() >= end) return false;
    await sleep(50);
  }
}

/**
 * Hits the bot's bids (retrying while it re-quotes) until it has at least `atLeast` fills (default
 * one), for up to `timeoutMs` (default 30 s); returns whether it has them.
 */
export async function makeBotFill(
  ex: RunningExchange,
  t: Trader,
  address: string,
  timeoutMs = 30_000,
  /** Until the bot has this many fills (default 1: any). */
  atLeast = 1,
): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (botFills(ex, address).length < atLeast && Date.now() < end) {
    await hitBotBid(ex, t, address);
    await sleep(300);
  }
  return botFills(ex, address).length >= atLeast;
}

/**
 * The exchange's admin API over real HTTP (the exchange must be started with the same token): fault
 * rules, tick-size changes, closing and resolving markets. A refused call throws.
 */
export class Admin {
  constructor(
    private readonly base: string,
    private readonly token: string,
  ) {}

  async call<T = unknown>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const r = await fetch(`${this.base}/admin${path}`, {
      method,
      headers: { 'x-admin-token': this.token, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await r.text();
    if (!r.ok) throw new Error(`admin ${method} ${path}: HTTP ${r.status} ${text.slice(0, 300)}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }
  /** Adds a fault rule (see src/exchange/faults.ts); returns its id. */
  async addFault(rule: Record<string, unknown>): Promise<string> {
    return (await this.call<{ rule: { id: string } }>('POST', '/faults', rule)).rule.id;
  }
  async removeFault(id: string): Promise<void> {
    await this.call('DELETE', `/faults/${encodeURIComponent(id)}`);
  }
  async clearFaults(): Promise<void> {
    await this.call('DELETE', '/faults');
  }
  async setTickSize(conditionId: string, tick: '0.1' | '0.01' | '0.001' | '0.0001'): Promise<void> {
    await this.call('POST', `/markets/${conditionId}/tick-size`, { tick_size: tick });
  }
  async resolve(conditionId: string, winningToken: string): Promise<void> {
    await this.call('POST', `/markets/${conditionId}/resolve`, { winning_token: winningToken });
  }
}

/** One pino JSON line of the daemon's log (stderr). */
export interface LogLine {
  level: number;
  time: number;
  msg: string;
  [k: string]: unknown;
}

/** The daemon's log lines (pino JSON on stderr), parsed; lines that are not JSON are skipped. */
export function logLines(stderr: string): LogLine[] {
  const out: LogLine[] = [];
  for (const l of stderr.split('\n')) {
    if (!l.startsWith('{')) continue;
    try {
      out.push(JSON.parse(l) as LogLine);
    } catch {
      /* a line cut in the middle of a write */
    }
  }
  return out;
}

/** The condition ids the daemon said it trades (its "starting" log line), or undefined before it. */
export function botMarkets(stderr: string): string[] | undefined {
  const s = logLines(stderr).find((l) => l.msg === 'starting');
  return (s?.['markets'] as Array<{ market: string }> | undefined)?.map((m) => m.market);
}

/** Polls `cond` every `everyMs` until it holds or `timeoutMs` passes; returns whether it held. */
export async function waitUntil(cond: () => boolean, timeoutMs: number, everyMs = 50): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (cond()) return true;
    if (Date.now() >= end) return false;
    await sleep(everyMs);
  }
}

/** One HTTP request as the exchange received it. */
export interface SeenRequest {
  at: number;
  method: string;
  path: string;
}

/**
 * Records every non-admin HTTP request the exchange receives (method, path, arrival time), counted
 * at the exchange: its fault-injection hook sees each request before any handler or rate limit.
 * Returns the live list.
 */
export function recordRequests(ex: RunningExchange): SeenRequest[] {
  const seen: SeenRequest[] = [];
  const f = ex.faults;
  const orig = f.http.bind(f);
  f.http = (method: string, path: string) => {
    seen.push({ at: Date.now(), method, path });
    return orig(method, path);
  };
  return seen;
}

/**
 * `n` liquid markets for the bot (`--markets`): active, ending in more than an hour, a two-sided
 * YES book with its mid in [0.25, 0.75] (so every band of the bot fits in the price range), most
 * resting liquidity first; `tick` keeps only markets of that tick. Deterministic for a seed, unlike
 * the daemon's own pick (which reads the books at its start).
 */
export function liquidMarkets(
  ex: RunningExchange,
  n: number,
  o: { tick?: string; minHoursToEnd?: number } = {},
): string[] {
  const now = Date.now();
  const px = ex.exchange;
  const minMs = (o.minHoursToEnd ?? 1) * 3_600_000;
  return px
    .listMarkets()
    .filter((m) => Date.parse(m.meta.endDate) - now > minMs && (o.tick === undefined || m.meta.tick === o.tick))
    .map((m) => ({ m, st: px.marketState(m) }))
    .filter(({ st }) => st.status === 'active' && st.mid[0] !== undefined && st.mid[0] >= 2500 && st.mid[0] <= 7500)
    .sort((a, b) => px.liquidity(b.m) - px.liquidity(a.m))
    .slice(0, n)
    .map(({ m }) => m.meta.conditionId);
}

/**
 * Watches, from the exchange's side, when `address` has orders resting and when it has none: the
 * exchange calls its listeners synchronously as each operation ends, so the times are those of the
 * cancel (or fill) that emptied the book of the bot, not those of a test's later look (a loaded
 * machine delays a polling test by hundreds of ms). `flatSince(t)` is the first moment at or after
 * `t` (unix ms, this machine's clock, which the daemon's log times share) when the bot had nothing
 * resting, or 0 if it has not happened (yet).
 */
export function watchFlat(ex: RunningExchange, address: string): { flatSince(t: number): number; stop(): void } {
  const changes: Array<{ at: number; flat: boolean }> = [];
  const check = () => {
    const flat = ex.exchange.openOrders(address).length === 0;
    if (changes.length === 0 || changes[changes.length - 1]!.flat !== flat) changes.push({ at: Date.now(), flat });
  };
  check();
  const off = ex.exchange.subscribe(check);
  return {
    flatSince: (t) => {
      check();
      let flatAtT: boolean | undefined; // the state at t (undefined: the watch started later)
      for (const c of changes) {
        if (c.at <= t) flatAtT = c.flat;
        else if (flatAtT === true) return t;
        else if (c.flat) return c.at;
        else flatAtT = false;
      }
      return flatAtT === true ? t : 0;
    },
    stop: () => {
      off();
    },
  };
}
