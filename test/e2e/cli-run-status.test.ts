/**
 * The daemon as an operator watches it: `mmkit run` against a paper exchange the test controls,
 * with canary secrets planted (the wallet's private key in the paper wallet file AND the
 * environment, the API key, secret and passphrase created for that wallet and given by env), and a
 * run that includes failures (HTTP 500s and 429s on the order and balance endpoints, a dropped and
 * a frozen market stream, injected through the exchange's admin faults API).
 *
 * It proves:
 *  - /metrics exports the mmkit_ metrics with plausible values (orders placed, fills, 429s counted,
 *    stream reconnects, tick-to-order samples, budgets, event-loop lag);
 *  - /healthz is 200 while all is well, 503 (market_stream_down) while the market stream is
 *    dropped, 503 (feed_stale) while it is frozen, and 200 again after each;
 *  - `mmkit status --json` from a second process finds the daemon (its data directory's
 *    daemon.json: the daemon listens on a random port) and reports the markets it trades; the exit
 *    code says healthy (0) / unhealthy (1) / unreachable (3);
 *  - `mmkit kill` trips the kill switch, returns once the daemon confirmed zero open orders (the
 *    exchange agrees), and the daemon exits 0;
 *  - no canary (nor the daemon's control token) appears in the daemon's stdout or stderr (logs, warnings, errors, the summary), in
 *    /metrics, /api/status, /healthz, the SSE stream, nor in the CLI's output.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { afterAll, describe, expect, it } from 'vitest';
import { createOrDeriveApiKey } from '../../src/api/auth.ts';
import { createTransport } from '../../src/api/http/transport.ts';
import { Trader } from '../integration/support/trader.ts';
import {
  Admin,
  BotHarness,
  botMarkets,
  hitBotBid,
  makeBotFill,
  sleep,
  waitForQuotes,
  waitUntil,
  exited,
} from './support/bot-harness.ts';

const BIN = new URL('../../bin/mmkit.js', import.meta.url).pathname;
const h = new BotHarness();
afterAll(() => h.close());

/** `mmkit ...args` as a second process; resolves with its exit code and output. */
async function mmkit(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; out: string; err: string }> {
  const p = spawn(process.execPath, [BIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let out = '';
  let err = '';
  p.stdout.on('data', (d) => (out += d));
  p.stderr.on('data', (d) => (err += d));
  // 'close', not 'exit': the exit can come before the last output has been read
  const [code] = (await once(p, 'close')) as [number | null];
  return { code, out, err };
}

async function get(url: string): Promise<{ status: number; text: string }> {
  const r = await fetch(url);
  return { status: r.status, text: await r.text() };
}

/** The value of one sample of the exposition text (sum over matching label sets). */
function metric(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  let found = false;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name + '{') && !line.startsWith(name + ' ')) continue;
    if (!Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) continue;
    found = true;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return found ? sum : NaN;
}

describe('mmkit run: metrics, health, status and kill, with no secret anywhere', () => {
  it('exports metrics, reports health through failures, answers status, and stops flat on kill', async () => {
    const adminToken = 'admin-token-for-the-status-test';
    const { ex, base } = await h.exchange(11, { adminToken });
    const admin = new Admin(base, adminToken);
    const { dir, address } = h.dataDir();

    // ---- canaries: the wallet key (file + env) and API credentials created for that wallet -------
    const privateKey = readFileSync(join(dir, 'paper-wallet.key'), 'utf8').trim();
    const transport = createTransport({
      urls: { clob: ex.urls.clob_url },
      signer: new Wallet(privateKey),
      chainId: 137,
    });
    const creds = await createOrDeriveApiKey(transport);
    await transport.close();
    const canaries = [
      privateKey,
      privateKey.slice(2),
      privateKey.slice(2).toUpperCase(),
      creds.apiKey,
      creds.secret,
      creds.passphrase,
    ];
    const leaks = (text: string, where: string): string[] =>
      canaries.filter((c) => text.includes(c)).map((c) => `${where}: ${c.slice(0, 6)}…`);

    // (a long --duration: `mmkit kill` stops it; on a loaded machine the steps take minutes)
    const bot = h.startBot(base, dir, ['--duration', '900s'], {
      MMKIT_PRIVATE_KEY: privateKey,
      MMKIT_API_KEY: creds.apiKey,
      MMKIT_API_SECRET: creds.secret,
      MMKIT_API_PASSPHRASE: creds.passphrase,
      MMKIT_FEED_STALE_MS: '4000',
      // (the market channel's silence deadline may not be longer: venue.marketSilenceMs)
      MMKIT_MARKET_SILENCE_MS: '4000',
      MMKIT_STATUS_INTERVAL_MS: '1000',
    });
    const seen: string[] = []; // every body fetched from the daemon, checked for canaries at the end

    // the daemon records its status URL (random port) in the data directory (written whole, then
    // renamed); its log line may reach us later than the file: wait for both
    const statusUrl = (): string | undefined => {
      try {
        return (JSON.parse(readFileSync(join(dir, 'daemon.json'), 'utf8')) as { statusUrl?: string }).statusUrl;
      } catch {
        return undefined; // not there yet, or half-written
      }
    };
    const recorded = () => {
      const u = statusUrl();
      return u !== undefined && bot.err().includes(`status page on ${u}`);
    };
    expect(await waitUntil(recorded, 60_000), bot.err().slice(-2000)).toBe(true);
    const url = statusUrl()!;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(bot.err()).toContain(`status page on ${url}`);
    // the control token (<dataDir>/control.token, for `mmkit kill`) is a secret too
    canaries.push(readFileSync(join(dir, 'control.token'), 'utf8').trim());
    expect(await waitForQuotes(ex, address), bot.err().slice(-2000)).toBeGreaterThan(0);

    const healthz = async () => {
      const r = await get(`${url}/healthz`);
      seen.push(r.text);
      return { status: r.status, body: JSON.parse(r.text) as { status: string; reasons: Array<{ code: string }> } };
    };
    const waitHealth = async (status: number, code?: string, timeoutMs = 30_000) => {
      const end = Date.now() + timeoutMs;
      let last = await healthz();
      while (
        !(last.status === status && (code === undefined || last.body.reasons.some((r) => r.code === code))) &&
        Date.now() < end
      ) {
        await sleep(200);
        last = await healthz();
      }
      return last;
    };
    const healthy = await waitHealth(200);
    expect(healthy.status, JSON.stringify(healthy.body)).toBe(200);
    expect(healthy.body.status).toBe('ok');

    // ---- a run with failures: 500s and 429s on the order path and the balance poll ---------------
    const faults = [
      await admin.addFault({ route: 'POST /clob/orders', status: 500, probability: 0.4 }),
      await admin.addFault({ route: 'POST /clob/orders', status: 429, probability: 0.4 }),
      await admin.addFault({ route: 'GET /clob/balances', status: 429 }),
    ];
    const t = new Trader(ex.urls.clob_url);
    await t.createKey();
    expect(await makeBotFill(ex, t, address), bot.err().slice(-2000)).toBe(true);
    // the faults stay until the daemon has met a 429 (a balance poll every 5 s meets one; later on a
    // loaded machine) and at least one balance poll has run into them
    const rateLimited = async () => metric((await get(`${url}/metrics`)).text, 'mmkit_http_rate_limited_total') > 0;
    const faultsFrom = Date.now();
    while (!(await rateLimited()) && Date.now() - faultsFrom < 60_000) await sleep(500);
    await sleep(Math.max(0, faultsFrom + 6000 - Date.now()));
    for (const f of faults) await admin.removeFault(f);

    // ---- metrics ----------------------------------------------------------------------------------
    // fills, and quotes that a market frame caused (tick-to-order samples: most book events change
    // no quote, so keep the books moving until some do)
    let m = (await get(`${url}/metrics`)).text;
    const until = Date.now() + 60_000;
    while (
      Date.now() < until &&
      !(metric(m, 'mmkit_fills_total') > 0 && metric(m, 'mmkit_tick_to_order_seconds_count') > 0)
    ) {
      await hitBotBid(ex, t, address);
      await sleep(700);
      m = (await get(`${url}/metrics`)).text;
    }
    seen.push(m);
    expect(metric(m, 'mmkit_orders_total', { outcome: 'placed' }), m).toBeGreaterThan(0);
    expect(metric(m, 'mmkit_orders_total', { outcome: 'live' })).toBeGreaterThan(0);
    expect(metric(m, 'mmkit_quotes_submitted_total')).toBeGreaterThan(0);
    expect(metric(m, 'mmkit_fills_total')).toBeGreaterThan(0);
    expect(metric(m, 'mmkit_fill_volume_shares_total')).toBeGreaterThan(0);
    expect(metric(m, 'mmkit_http_rate_limited_total')).toBeGreaterThan(0);
    expect(metric(m, 'mmkit_tick_to_order_seconds_count')).toBeGreaterThan(0);
    expect(metric(m, 'mmkit_tick_to_order_seconds_sum') / metric(m, 'mmkit_tick_to_order_seconds_count')).toBeLessThan(
      1,
    );
    // order and cancel round trips (trial 11 F10: what a backtest's --latency-ms stands for)
    expect(metric(m, 'mmkit_order_round_trip_seconds_count', { op: 'place' })).toBeGreaterThan(0);
    expect(
      metric(m, 'mmkit_order_round_trip_seconds_sum', { op: 'place' }) /
        metric(m, 'mmkit_order_round_trip_seconds_count', { op: 'place' }),
    ).toBeLessThan(5);
    expect(metric(m, 'mmkit_stream_lag_seconds_count', { stream: 'market' })).toBeGreaterThan(0);
    expect(metric(m, 'mmkit_stream_up', { stream: 'market' })).toBe(1);
    expect(metric(m, 'mmkit_budget_used', { rule: 'POST /orders:burst' })).toBeGreaterThanOrEqual(0);
    expect(metric(m, 'mmkit_budget_limit', { rule: 'POST /orders:burst' })).toBeGreaterThan(0);
    expect(metric(m, 'mmkit_nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    // the store's size on disk (an alert on its growth: README "Disk over weeks")
    expect(metric(m, 'mmkit_store_size_bytes')).toBeGreaterThan(4096);
    expect(metric(m, 'mmkit_heartbeat_ok')).toBeGreaterThanOrEqual(0);
    expect(m).toMatch(/^mmkit_position_shares\{/m);
    expect(m).toMatch(/^mmkit_pnl_realized_usdc /m);
    for (const line of m.split('\n'))
      if (line !== '' && !line.startsWith('#')) expect(line.startsWith('mmkit_'), line).toBe(true);

    // ---- health through a dropped market stream ---------------------------------------------------
    const drop = await admin.addFault({ stream: 'market', drop: true });
    const down = await waitHealth(503, 'market_stream_down', 60_000);
    expect(down.status, JSON.stringify(down.body)).toBe(503);
    // a second process sees it too: `mmkit status` exits 1 while unhealthy
    const unhealthy = await mmkit(['status', '--json', '--data-dir', dir]);
    expect(unhealthy.code, unhealthy.err).toBe(1);
    expect(
      (JSON.parse(unhealthy.out) as { health: { reasons: Array<{ code: string }> } }).health.reasons.map((r) => r.code),
    ).toContain('market_stream_down');
    seen.push(unhealthy.out, unhealthy.err);
    await admin.removeFault(drop);
    const back = await waitHealth(200, undefined, 90_000);
    expect(back.status, JSON.stringify(back.body) + bot.err().slice(-1500)).toBe(200);
    m = (await get(`${url}/metrics`)).text;
    seen.push(m);
    expect(metric(m, 'mmkit_stream_disconnects_total', { stream: 'market' })).toBeGreaterThan(0);
    expect(metric(m, 'mmkit_stream_reconnects_total', { stream: 'market' })).toBeGreaterThan(0);

    // ---- health through a frozen market stream (open, PONGs answered, no data) --------------------
    const freeze = await admin.addFault({ stream: 'market', freeze: true });
    const stale = await waitHealth(503, 'feed_stale', 60_000);
    expect(stale.status, JSON.stringify(stale.body)).toBe(503);
    await admin.removeFault(freeze);
    const fresh = await waitHealth(200, undefined, 90_000);
    expect(fresh.status, JSON.stringify(fresh.body)).toBe(200);

    // ---- status from a second process --------------------------------------------------------------
    const traded = botMarkets(bot.err())!;
    expect(traded.length).toBeGreaterThan(0);
    let st = await mmkit(['status', '--json', '--data-dir', dir]);
    // healthy is judged at that instant: give a momentary stale book a moment to heal
    for (const end = Date.now() + 60_000; st.code !== 0 && Date.now() < end; ) {
      await sleep(1000);
      st = await mmkit(['status', '--json', '--data-dir', dir]);
    }
    expect(st.code, st.err + st.out.slice(0, 1500)).toBe(0);
    const status = JSON.parse(st.out) as {
      markets: Array<{ market: string; tokens: Array<{ bestBid: string | null }>; quotes: unknown[] }>;
      health: { healthy: boolean };
      fills: { count: number; recent: unknown[] };
      strategy: { name: string };
      pnl: { total: string; series: unknown[] };
      orders: { roundTrips: { place: { count: number; p50Ms: number; p90Ms: number; maxMs: number } | null } };
      trading: {
        markouts: Array<{ horizonMs: number; fills: number; avg: number | null }>;
        ordersFilled: number;
        fillRatio: number | null;
        maxDrawdown: string;
      };
    };
    // markouts, fill ratio and drawdown, as a backtest reports them (trial 11 F4)
    expect(status.trading.markouts.map((x) => x.horizonMs)).toEqual([1000, 10_000, 60_000]);
    expect(status.trading.markouts[0]!.fills).toBeGreaterThan(0);
    expect(status.trading.markouts[0]!.avg).not.toBeNull();
    expect(status.trading.ordersFilled).toBeGreaterThan(0);
    expect(status.trading.fillRatio).toBeGreaterThan(0);
    expect(status.trading.maxDrawdown).toMatch(/^\d+(\.\d+)?$/);
    const rt = status.orders.roundTrips.place!;
    expect(rt.count).toBeGreaterThan(0);
    expect(rt.p50Ms).toBeGreaterThan(0);
    expect(rt.p50Ms).toBeLessThanOrEqual(rt.p90Ms);
    expect(rt.p90Ms).toBeLessThanOrEqual(rt.maxMs);
    expect(status.markets.map((x) => x.market).sort()).toEqual([...traded].sort());
    expect(status.health.healthy).toBe(true);
    expect(status.fills.count).toBeGreaterThan(0);
    expect(status.fills.recent.length).toBeGreaterThan(0);
    expect(status.pnl.total).toMatch(/^-?\d+(\.\d+)?$/);
    expect(status.pnl.series.length).toBeGreaterThan(0);
    expect(status.markets.some((x) => x.tokens.some((tk) => tk.bestBid !== null))).toBe(true);
    seen.push(st.out, st.err);
    // (judged at that instant too)
    let human = await mmkit(['status', '--url', url]);
    for (const end = Date.now() + 60_000; human.code !== 0 && Date.now() < end; ) {
      await sleep(1000);
      human = await mmkit(['status', '--url', url]);
    }
    expect(human.out).toContain(`mmkit daemon at ${url}: HEALTHY`);
    expect(human.out).toMatch(/^markouts {4}\+1s [+-]\d\.\d{4} /m);
    expect(human.out).toMatch(/^fill ratio {2}\d+\.\d % of orders placed got a fill/m);
    expect(human.out).toMatch(/^round trips place [\d.]+ ms median \(p90 [\d.]+, max [\d.]+; \d+ answers?/m);
    seen.push(human.out, human.err);
    const nobody = await mmkit(['status', '--url', 'http://127.0.0.1:1']);
    expect(nobody.code).toBe(3);
    expect(nobody.err).toContain('no mmkit daemon reachable');
    // fetch's refusal of that port in words, not its bare TypeError
    expect(nobody.err).toContain('(bad port)');
    expect(nobody.err).not.toContain('TypeError');
    seen.push((await get(`${url}/api/status`)).text);
    // one SSE frame
    const sse = await fetch(`${url}/api/events`);
    const reader = sse.body!.getReader();
    let frame = '';
    while (!frame.includes('event: status')) frame += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    seen.push(frame);

    // ---- kill from a second process ----------------------------------------------------------------
    const killed = await mmkit(['kill', '--data-dir', dir, '--json']);
    expect(killed.code, killed.err + killed.out).toBe(0);
    expect(JSON.parse(killed.out)).toMatchObject({ flat: true, openOrders: 0, killed: true });
    expect(ex.exchange.openOrders(address)).toEqual([]);
    seen.push(killed.out, killed.err);
    const code = await exited(bot.p);
    expect(code, bot.err().slice(-3000)).toBe(0);
    expect(bot.out()).toContain('kill switch over HTTP');
    expect(bot.out()).toContain('open orders left  0');
    expect(bot.out()).toMatch(/^ {2}markouts {10}\+1s [+-]\d\.\d{4} {3}\+10s /m);
    expect(bot.out()).toMatch(/^ {2}fill ratio {8}\d+\.\d % of orders placed got a fill \(\d+\)$/m);
    expect(bot.out()).toMatch(/^ {2}max drawdown {6}\d+(\.\d+)? USDC/m);
    expect(bot.out()).toMatch(/round trips to the venue .*\n {2}place [\d.]+ ms median .*; cancel [\d.]+ ms median/);
    expect(ex.exchange.openOrders(address)).toEqual([]);
    expect(existsSync(join(dir, 'daemon.json'))).toBe(false);

    // ---- no canary anywhere ------------------------------------------------------------------------
    // the run did include failures: warnings about them are in the log
    expect(bot.err()).toMatch(/"level":40/);
    expect(bot.err()).toMatch(/429|rate limited/i);
    const found = [
      ...leaks(bot.out(), 'daemon stdout'),
      ...leaks(bot.err(), 'daemon stderr'),
      ...seen.flatMap((s, i) => leaks(s, `response ${i}`)),
    ];
    expect(found).toEqual([]);
  }, 600_000);
});
