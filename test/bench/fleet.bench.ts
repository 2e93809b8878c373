/**
 * A fleet's shared budgets under saturation: three members (each its own transport, budgets and
 * Redis connection, as three daemons would have) on ONE wallet, sharing the account's windows
 * through a private Redis (src/fleet/shared-budgets.ts), against a paper exchange in its own
 * process with its DEFAULT windows (the per-signer buckets off on both sides, as in the first phase
 * of budget-saturation.bench.ts). Each member runs saturating producers of POST /orders (one
 * pre-signed order each) for ~12 s.
 * Figures: the share of the POST /orders burst window (1000 / 10 s) the fleet uses together, as the
 * LOWEST count over every 10 s window inside the run divided by the limit (`fleet_budget_use`), and
 * the 429s the exchange answered (`fleet_429_count`, must be 0). Requires redis-server.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { Wallet } from 'ethers';
import secp256k1 from 'secp256k1';
import { createOrDeriveApiKey } from '../../src/api/auth.ts';
import { ClobClient, type SignedOrderLike } from '../../src/api/clob.ts';
import { Budgets } from '../../src/api/http/budgets.ts';
import { createTransport, type HttpTransport } from '../../src/api/http/transport.ts';
import { orderHasher, orderToWire, type SignedOrderStruct } from '../../src/api/signing/order.ts';
import { LiveClock } from '../../src/core/clock.ts';
import { DEFAULT_RATE_RULES } from '../../src/core/rate-limits.ts';
import { limitOrderAmounts } from '../../src/core/units.ts';
import { openSharedBudgets, type SharedBudgets } from '../../src/fleet/shared-budgets.ts';
import { startRedis } from '../support/redis.ts';

const RUN_MS = 12_000;
const WINDOW_MS = 10_000;
const MEMBERS = 3;
const WORKERS = 6; // per member (more only queue at the exchange: each in-flight request is a slot reused later)
const LIMIT = DEFAULT_RATE_RULES.find((r) => r.name === 'POST /orders:burst')!.limit;

function minWindow(times: number[], start: number, end: number): number {
  const ts = [...times].sort((a, b) => a - b);
  let min = Infinity;
  for (let a = start; a + WINDOW_MS <= end; a += 50) {
    let n = 0;
    for (const x of ts) if (x >= a && x < a + WINDOW_MS) n++;
    min = Math.min(min, n);
  }
  return min;
}

const redis = await startRedis();
const ex = spawn(
  process.execPath,
  [
    'bin/mmkit.js',
    'exchange',
    '--port',
    '0',
    '--json',
    '--agents',
    'none',
    '--no-lifecycle',
    '--signer-limits',
    'off',
    '--protocol',
    '1', // the orders are V1-signed
    '--log-level',
    'error',
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const transports: HttpTransport[] = [];
const fleets: SharedBudgets[] = [];
try {
  const [line] = (await once(createInterface({ input: ex.stdout! }), 'line')) as [string];
  const urls = JSON.parse(line) as { clob_url: string };
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

  let token: string | undefined;
  for await (const m of clobs[0]!.marketsAll({ limit: 100 }))
    if (!m.negRisk && m.tickSize === '0.01' && m.acceptingOrders) {
      token = m.tokens[0]!.tokenId;
      break;
    }
  if (token === undefined) throw new Error('no 0.01-tick market');

  // pre-sign BUY 0.01 × 5 orders with native secp256k1: more than 12 s of budget can take
  const hasher = orderHasher(137, false);
  const amounts = limitOrderAmounts('BUY', '0.01', '0.01', '5');
  const priv = Buffer.from(wallet.privateKey.slice(2), 'hex');
  const orders: SignedOrderLike[] = [];
  let salt = Date.now();
  for (let k = 0; k < 2 * LIMIT + MEMBERS * WORKERS + 200; k++) {
    const o: SignedOrderStruct = {
      salt: BigInt(salt++),
      maker: wallet.address,
      signer: wallet.address,
      taker: '0x0000000000000000000000000000000000000000',
      tokenId: BigInt(token),
      makerAmount: amounts.makerAmount,
      takerAmount: amounts.takerAmount,
      expiration: 0n,
      nonce: 0n,
      feeRateBps: 0n,
      side: 0,
      signatureType: 0,
    };
    const id = hasher.digest(o);
    const sig = secp256k1.ecdsaSign(Buffer.from(id.slice(2), 'hex'), priv);
    orders.push({
      id,
      wire: orderToWire(o, '0x' + Buffer.from(sig.signature).toString('hex') + (sig.recid + 27).toString(16)),
    });
  }

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
  console.error(`# fleet: ${MEMBERS} members sent POST /orders ${sends.length} in ${RUN_MS} ms`);
  console.log(`figure: fleet_budget_use = ${use.toFixed(1)} %`);
  console.log(`figure: fleet_429_count = ${refused} count`);
} finally {
  for (const t of transports) await t.close();
  for (const f of fleets) await f.close();
  if (ex.exitCode === null) {
    ex.kill('SIGTERM');
    await once(ex, 'exit');
  }
  await redis.stop();
}
