/**
 * A fleet's shared budgets under saturation (issue 21, "Done when", first point), in two phases.
 *
 * 1. Three `mmkit run` DAEMONS (bin/mmkit.js, child processes) on ONE paper wallet, each its own
 *    data dir and fleet.member, one private Redis (test/support/redis.ts), against the real paper
 *    exchange (in this process, so its rate limiter can be watched) with every rate limit scaled
 *    down (`rateLimits.scale` SCALE; the daemons budget with `budgets.scale` SCALE, the same table).
 *    Each daemon runs test/support/churn-quotes-strategy.ts, a layering quoter: one POST /orders per
 *    level it adds and one DELETE /orders per ladder pulled, as fast as the budgets let it. The
 *    twelve markets are split by the fleet's market leases (four each). Measured AT THE EXCHANGE: the
 *    time its rate limiter admitted each POST /orders of the account; over a steady stretch
 *    (MEASURE_MS, once every member quotes its four markets), the LARGEST count of admitted POST
 *    /orders in any 10 s window, divided by the burst limit (`fleet_budget_use_max`), the lowest
 *    (`fleet_budget_use`: every window of the stretch used at least that), and the 429s the exchange answered over the whole run
 *    (`fleet_429_count`, its security log; must be 0).
 *    The venue's PER-SIGNER buckets are enforced by the exchange (the wallet at tier gold, scaled
 *    like every limit: 40 orders/s, burst 60) and shared by the daemons through Redis
 *    (src/fleet/signer-gate.ts; budgets.signerTier auto: they start at the tightest tier and adopt
 *    the one the exchange names). As on a real account, the POST /orders window binds first.
 * 2. The same with three IN-PROCESS members (each its own transport, budgets and Redis connection)
 *    posting pre-signed orders at the exchange's default windows, the per-signer buckets off on both
 *    sides, ~12 s: the LOWEST count over every 10 s window divided by the limit
 *    (`fleet_inproc_budget_use`) and the 429s (`fleet_inproc_429_count`).
 * Requires redis-server.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { Redis } from 'ioredis';
import { createOrDeriveApiKey } from '../../src/api/auth.ts';
import { ClobClient } from '../../src/api/clob.ts';
import { Budgets } from '../../src/api/http/budgets.ts';
import { createTransport, type HttpTransport } from '../../src/api/http/transport.ts';
import { LiveClock } from '../../src/core/clock.ts';
import { DEFAULT_RATE_RULES } from '../../src/core/rate-limits.ts';
import { startExchange } from '../../src/exchange/server.ts';
import { fleetKeys } from '../../src/fleet/fleet-keys.ts';
import { openSharedBudgets, type SharedBudgets } from '../../src/fleet/shared-budgets.ts';
import { liquidMarkets } from '../e2e/support/bot-harness.ts';
import { startRedis } from '../support/redis.ts';
import { exchangeUrls, spawnExchange, stopExchange } from './support/exchange-process.ts';
import { centTickToken, presignBuys } from './support/presign.ts';

const RUN_MS = 12_000;
const WINDOW_MS = 10_000;
const MEMBERS = 3;
const WORKERS = 6; // per member (more only queue at the exchange: each in-flight request is a slot reused later)
const LIMIT = DEFAULT_RATE_RULES.find((r) => r.name === 'POST /orders:burst')!.limit;

// the daemons' phase
const SCALE = 0.1; // every rate limit, both sides: POST /orders 100 per 10 s (1,500 per 10 min)
const SCALED_LIMIT = Math.max(1, Math.floor(LIMIT * SCALE));
const MARKETS = 12; // four per member: each member's executor runs one cycle per market at a time, so demand exceeds the budget
const MEASURE_MS = 30_000;
const SETTLE_MS = 3_000; // after the split, before measuring
const BIN = new URL('../../bin/mmkit.js', import.meta.url).pathname;
const STRATEGY = new URL('../support/churn-quotes-strategy.ts', import.meta.url).pathname;

function minWindow(times: number[], start: number, end: number): number {
  return windowCounts(times, start, end).min;
}

/** The fewest and the most entries of `times` in any WINDOW_MS window inside [start, end] (windows every 50 ms). */
function windowCounts(times: number[], start: number, end: number): { min: number; max: number } {
  const ts = [...times].sort((a, b) => a - b);
  let min = Infinity;
  let max = 0;
  for (let a = start; a + WINDOW_MS <= end; a += 50) {
    let n = 0;
    for (const x of ts) if (x >= a && x < a + WINDOW_MS) n++;
    min = Math.min(min, n);
    max = Math.max(max, n);
  }
  return { min, max };
}

/** Counts of `times` in each second of [start, end), space-separated. */
function perSecond(times: number[], start: number, end: number): string {
  const n = Array.from({ length: Math.ceil((end - start) / 1000) }, () => 0);
  for (const t of times) if (t >= start && t < end) n[Math.floor((t - start) / 1000)]!++;
  return n.join(' ');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Daemon {
  name: string;
  p: ChildProcess;
  err(): string;
}

async function daemonFleet(): Promise<{ use: number; min: number; refused: number }> {
  const redis = await startRedis();
  const ex = await startExchange({
    port: 0,
    seed: 21,
    world: { agents: 'default', lifecycle: false, priceFeed: true },
    http: {
      rateLimits: { enabled: true, scale: SCALE, queueMs: 500 },
      // enforced; the wallet's tier gold (see the module comment)
      signerLimits: { mode: 'enforce', tier: 'gold' },
    },
  });
  const dirs: string[] = [];
  const daemons: Daemon[] = [];
  const watch = new Redis(redis.url);
  try {
    const policy = ex.rateLimits;
    if (policy === undefined) throw new Error('the exchange runs without rate limits');
    // the exchange's own record: when its limiter admitted each POST /orders (any identity: the
    // members share one API key, and nothing else posts orders here)
    const admitted: number[] = [];
    const cancels: number[] = []; // DELETE /orders, for the diagnostic line only
    const acquire = policy.acquire.bind(policy);
    policy.acquire = (identity, rules, now, cost) => {
      const r = acquire(identity, rules, now, cost);
      if (r.ok && rules.some((x) => x.name === 'POST /orders:burst')) admitted.push(now);
      if (r.ok && rules.some((x) => x.name === 'DELETE /orders:burst')) cancels.push(now);
      return r;
    };
    const base = ex.urls.clob_url.replace(/\/clob$/, '');
    let markets: string[] = [];
    const t0 = Date.now();
    while ((markets = liquidMarkets(ex, MARKETS)).length < MARKETS) {
      if (Date.now() - t0 > 60_000) throw new Error(`only ${markets.length} liquid markets`);
      await sleep(250);
    }

    // one wallet, three data dirs
    const wallet = new Wallet(Wallet.createRandom().privateKey);
    const address = wallet.address.toLowerCase();
    for (let i = 0; i < MEMBERS; i++) {
      const dir = mkdtempSync(join(tmpdir(), 'mmkit-fbench-'));
      writeFileSync(join(dir, 'paper-wallet.key'), wallet.privateKey + '\n', { mode: 0o600 });
      dirs.push(dir);
    }
    for (let i = 0; i < MEMBERS; i++) {
      const name = `bench-${String.fromCharCode(97 + i)}`;
      const p = spawn(
        process.execPath,
        [
          BIN,
          'run',
          '--exchange-url',
          base,
          '--data-dir',
          dirs[i]!,
          '--log-level',
          'warn',
          '--log-format',
          'json',
          '--duration',
          '600s',
          '--markets',
          markets.join(','),
          '--strategy',
          STRATEGY,
        ],
        {
          stdio: ['ignore', 'ignore', 'pipe'],
          env: {
            ...process.env,
            MMKIT_HTTP_PORT: '0',
            MMKIT_REDIS_URL: redis.url,
            // one wallet: a fleet member refuses a data dir's own paper wallet
            MMKIT_PRIVATE_KEY: wallet.privateKey,
            MMKIT_FLEET_MEMBER: name,
            MMKIT_FLEET_MAX_MEMBERS: String(MEMBERS),
            MMKIT_BUDGET_SCALE: String(SCALE),
            MMKIT_BUDGET_SIGNER_TIER: 'auto', // shared through Redis (see the module comment)
            MMKIT_RISK_MAX_REJECTIONS: '0',
          },
        },
      );
      let err = '';
      p.stderr!.on('data', (d) => {
        err = (err + d).slice(-20_000);
      });
      daemons.push({ name, p, err: () => err });
    }
    const logs = () => daemons.map((d) => `--- ${d.name} (exit ${d.p.exitCode})\n${d.err().slice(-1500)}`).join('\n');

    // warm-up: every member holds its four market leases and every market has orders
    const keys = fleetKeys(address);
    const holders = async () =>
      Promise.all(markets.map(async (m) => (await watch.get(keys.marketLease(m)))?.split(':')[0] ?? null));
    const split = async () => {
      const hs = await holders();
      const quoted = new Set(ex.exchange.openOrders(address).map((o) => o.market));
      return (
        daemons.every((d) => hs.filter((x) => x === d.name).length === MARKETS / MEMBERS) && quoted.size === MARKETS
      );
    };
    const startedAt = Date.now();
    while (!(await split())) {
      if (daemons.some((d) => d.p.exitCode !== null)) throw new Error(`a daemon exited\n${logs()}`);
      if (Date.now() - startedAt > 180_000) throw new Error(`no split after 180 s: ${await holders()}\n${logs()}`);
      await sleep(250);
    }
    console.error(`# daemons: split after ${Date.now() - startedAt} ms: ${(await holders()).join(' ')}`);
    await sleep(SETTLE_MS);
    const from = Date.now();
    await sleep(MEASURE_MS);
    const to = Date.now();
    if (daemons.some((d) => d.p.exitCode !== null)) throw new Error(`a daemon exited\n${logs()}`);
    const { min, max } = windowCounts(admitted, from, to);
    const refused = ex.security.counts().rate_limited;
    const inside = admitted.filter((t) => t >= from && t < to).length;
    console.error(
      `# daemons: POST /orders admitted ${admitted.length} in all, ${inside} in the ${MEASURE_MS} ms measured; per 10 s window ${min}..${max} of ${SCALED_LIMIT}; 429s ${refused}`,
    );
    // where a low window comes from: admissions per second over the stretch
    console.error(`# daemons: POST /orders per s:   ${perSecond(admitted, from, to)}`);
    console.error(`# daemons: DELETE /orders per s: ${perSecond(cancels, from, to)}`);
    for (const d of daemons) d.p.kill('SIGTERM');
    for (const d of daemons) if (d.p.exitCode === null && d.p.signalCode === null) await once(d.p, 'exit');
    const codes = daemons.map((d) => d.p.exitCode);
    if (codes.some((c) => c !== 0)) console.error(`# daemons: exit codes ${codes.join(' ')}\n${logs()}`);
    return { use: (100 * max) / SCALED_LIMIT, min: (100 * min) / SCALED_LIMIT, refused };
  } finally {
    for (const d of daemons) if (d.p.exitCode === null && d.p.signalCode === null) d.p.kill('SIGKILL');
    watch.disconnect();
    await ex.close();
    await redis.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

async function inprocFleet(): Promise<{ use: number; refused: number }> {
  const redis = await startRedis();
  const ex = spawnExchange(['--signer-limits', 'off', '--log-level', 'error']);
  const transports: HttpTransport[] = [];
  const fleets: SharedBudgets[] = [];
  try {
    const urls = await exchangeUrls(ex);
    const wallet = new Wallet(Wallet.createRandom().privateKey);
    const clock = new LiveClock();
    const sends: number[] = [];
    const clobs: ClobClient[] = [];
    for (let i = 0; i < MEMBERS; i++) {
      const f = await openSharedBudgets({
        url: redis.url,
        member: `bench-${i}`,
        account: wallet.address,
        budgets: { signerTier: 'off' },
        clock,
      });
      fleets.push(f);
      const t = createTransport({
        urls: { clob: urls.clob_url },
        signer: wallet,
        budgets: new Budgets({ signerTier: 'off' }, clock, { gate: f.gate }),
        onSend: (e) => {
          if (e.method === 'POST' && e.path === '/orders') sends.push(e.at);
        },
      });
      transports.push(t);
      t.setCredentials(await createOrDeriveApiKey(t));
      clobs.push(new ClobClient(t));
    }

    const token = await centTickToken(clobs[0]!);

    // pre-sign BUY 0.01 × 5 orders with native secp256k1: more than 12 s of budget can take
    const orders = presignBuys(wallet, token, 2 * LIMIT + MEMBERS * WORKERS + 200, Date.now());

    let next = 0;
    const start = Date.now();
    const end = start + RUN_MS;
    const poster = async (clob: ClobClient) => {
      while (Date.now() < end) {
        const order = orders[next++];
        if (order === undefined) throw new Error('ran out of pre-signed orders');
        await clob.postOrders([{ order }]);
      }
    };
    await Promise.all(clobs.flatMap((c) => Array.from({ length: WORKERS }, () => poster(c))));
    await clobs[0]!.cancelAll();
    let refused = 0;
    for (const t of transports) refused += t.stats().statuses[429] ?? 0;
    const use = (100 * minWindow(sends, start, end)) / LIMIT;
    console.error(`# in-process fleet: ${MEMBERS} members sent POST /orders ${sends.length} in ${RUN_MS} ms`);
    return { use, refused };
  } finally {
    for (const t of transports) await t.close();
    for (const f of fleets) await f.close();
    await stopExchange(ex);
    await redis.stop();
  }
}

const d = await daemonFleet();
console.log(`figure: fleet_budget_use = ${d.min.toFixed(1)} %`);
console.log(`figure: fleet_budget_use_max = ${d.use.toFixed(1)} %`);
console.log(`figure: fleet_429_count = ${d.refused} count`);
const inproc = await inprocFleet();
console.log(`figure: fleet_inproc_budget_use = ${inproc.use.toFixed(1)} %`);
console.log(`figure: fleet_inproc_429_count = ${inproc.refused} count`);
