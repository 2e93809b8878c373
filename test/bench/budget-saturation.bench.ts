/**
 * Budget saturation, in two phases, each against a paper exchange in its own process (`mmkit
 * exchange`), as in production, through mmkit's transport and budgets; each runs ~12 s.
 *
 * 1. The windows (the edge's per-endpoint limits, spec section 8): the exchange's DEFAULT windows,
 *    the per-signer buckets off on both sides; a saturating producer of POST /orders (15 pre-signed
 *    orders each) and DELETE /orders (cancelling what was placed). Figures: the share of the
 *    POST /orders and DELETE /orders burst windows (1000 / 10 s each) in use, as the LOWEST count over
 *    every 10 s window inside the run divided by the burst limit, and the number of 429s.
 * 2. The per-signer token buckets (the venue's "CLOB Trading Rate Limits"): the exchange's defaults
 *    (enforce, standard tier: 40 orders / s, 80 cancels / s), the client at its default (auto); the
 *    same producer of 15-order batches, and DELETE /orders of 15 ids (the placed ones, padded with
 *    ids of no order: the venue counts submitted ids). Figures: orders and cancelled ids in the
 *    LOWEST 10 s window divided by the tier's refill over 10 s (400 and 800), and the 429s.
 */
import type { ChildProcess } from 'node:child_process';
import { Wallet } from 'ethers';
import { createTransport } from '../../src/api/http/transport.ts';
import { ClobClient, type SignedOrderLike } from '../../src/api/clob.ts';
import { createOrDeriveApiKey } from '../../src/api/auth.ts';
import { DEFAULT_RATE_RULES } from '../../src/core/rate-limits.ts';
import { signerTier, TIGHTEST_SIGNER_TIER } from '../../src/core/signer-limits.ts';
import { exchangeUrls, spawnExchange, stopExchange } from './support/exchange-process.ts';
import { centTickToken, presignBuys } from './support/presign.ts';

const RUN_MS = 12_000;
const WINDOW_MS = 10_000;
const WORKERS = 32;

const burstLimit = (name: string): number => DEFAULT_RATE_RULES.find((r) => r.name === name)!.limit;

/** The fewest requests in any 10 s window inside [start, end] (windows start every 50 ms). */
function minWindow(times: number[], start: number, end: number): number {
  let min = Infinity;
  for (let a = start; a + WINDOW_MS <= end; a += 50) {
    const n = times.filter((x) => x >= a && x < a + WINDOW_MS).length;
    min = Math.min(min, n);
  }
  return min;
}

const hist = (ts: number[], start: number) => {
  const h: number[] = [];
  for (const x of ts) {
    const i = Math.floor((x - start) / 500);
    h[i] = (h[i] ?? 0) + 1;
  }
  return Array.from(h, (v) => v ?? 0).join(' ');
};

interface PhaseResult {
  postTimes: number[];
  deleteTimes: number[];
  start: number;
  end: number;
  statuses: Record<number, number>;
}

async function phase(
  name: string,
  batchesNeeded: number,
  signer: 'off' | 'default',
  padCancels: boolean,
): Promise<PhaseResult> {
  // the padded cancels are refusals the security log would print: errors only
  const flags = ['--log-level', padCancels ? 'error' : 'warn'];
  if (signer === 'off') flags.push('--signer-limits', 'off');
  const p = spawnExchange(flags);
  try {
    return await run(name, batchesNeeded, signer, padCancels, p);
  } finally {
    await stopExchange(p);
  }
}

async function run(
  name: string,
  batchesNeeded: number,
  signer: 'off' | 'default',
  padCancels: boolean,
  p: ChildProcess,
): Promise<PhaseResult> {
  const urls = await exchangeUrls(p);

  const wallet = new Wallet(Wallet.createRandom().privateKey);
  const postTimes: number[] = [];
  const deleteTimes: number[] = [];
  // send times as each request leaves its budget (the server counts arrivals, not answers)
  const onSend = (e: { method: string; path: string; at: number }) => {
    if (e.path === '/orders') (e.method === 'POST' ? postTimes : deleteTimes).push(e.at);
  };
  const t = createTransport({
    urls: { clob: urls.clob_url },
    signer: wallet,
    onSend,
    ...(signer === 'off' ? { budgets: { signerTier: 'off' as const } } : {}),
  });
  t.setCredentials(await createOrDeriveApiKey(t));
  const clob = new ClobClient(t);

  const token = await centTickToken(clob);

  // pre-sign BUY 0.01 × 5 orders ($0.05 each) with native secp256k1, in batches of 15
  const s0 = performance.now();
  const signed = presignBuys(wallet, token, batchesNeeded * 15, Date.now());
  const batches: SignedOrderLike[][] = [];
  for (let b = 0; b < batchesNeeded; b++) batches.push(signed.slice(b * 15, b * 15 + 15));
  console.error(`# ${name}: pre-signed ${batchesNeeded * 15} orders in ${Math.round(performance.now() - s0)} ms`);

  const placed: string[] = [];
  let nextBatch = 0;
  let rejected = 0;
  let firstRefusal: { code?: string; message?: string } | undefined;
  let fake = 0;
  const start = Date.now();
  const end = start + RUN_MS;

  async function poster(): Promise<void> {
    while (Date.now() < end) {
      const b = batches[nextBatch++];
      if (b === undefined) throw new Error('ran out of pre-signed batches; raise the count');
      const res = await clob.postOrders(b.map((order) => ({ order })));
      const ids = res.filter((r) => r.ok).map((r) => r.orderId as string);
      rejected += res.length - ids.length;
      firstRefusal ??= res.find((r) => !r.ok);
      placed.push(...ids);
    }
  }

  async function canceller(): Promise<void> {
    while (Date.now() < end) {
      const ids = placed.splice(0, 15);
      if (padCancels) while (ids.length < 15) ids.push(`0x${(++fake).toString(16).padStart(64, 'f')}`); // no such order
      if (ids.length === 0) {
        await new Promise((r) => setTimeout(r, 2));
        continue;
      }
      await clob.cancelOrders(ids);
    }
  }

  await Promise.all([...Array.from({ length: WORKERS }, poster), ...Array.from({ length: WORKERS }, canceller)]);
  // leave the account clean: cancel what is left
  await clob.cancelAll();
  console.error(`# ${name}: post/500ms: ` + hist(postTimes, start));
  console.error(`# ${name}: del/500ms:  ` + hist(deleteTimes, start));
  const statuses = t.stats().statuses;
  console.error(
    `# ${name}: sent POST /orders ${postTimes.length}, DELETE /orders ${deleteTimes.length} in ${RUN_MS} ms; refused entries ${rejected}; statuses ${JSON.stringify(statuses)}`,
  );
  await t.close();
  // a bench of refused orders measures neither the cancels nor the order path (it once ran on V1
  // orders against a V2 exchange: every entry refused, no DELETE sent, and nobody saw it)
  if (rejected > postTimes.length * 15 * 0.01)
    throw new Error(
      `${name}: ${rejected} of ${postTimes.length * 15} orders refused (first: ${firstRefusal?.code} ${firstRefusal?.message})`,
    );
  return { postTimes, deleteTimes, start, end, statuses };
}

// 1. the windows, the signer buckets off on both sides
const w = await phase('windows', 2600 /* > what 12 s of budget can take (about 2 × 1000) */, 'off', false);
const postUse = (100 * minWindow(w.postTimes, w.start, w.end)) / burstLimit('POST /orders:burst');
const delUse = (100 * minWindow(w.deleteTimes, w.start, w.end)) / burstLimit('DELETE /orders:burst');
console.log(`figure: budget_post_orders_burst_use = ${postUse.toFixed(1)} %`);
console.log(`figure: budget_delete_orders_burst_use = ${delUse.toFixed(1)} %`);
console.log(`figure: budget_429_count = ${w.statuses[429] ?? 0} count`);

// 2. the per-signer buckets at the exchange's defaults (standard tier)
const tier = signerTier(TIGHTEST_SIGNER_TIER);
const sgn = await phase(
  'signer buckets',
  Math.ceil((tier.order.burst + (tier.order.rate * RUN_MS) / 1000) / 15) + WORKERS + 8,
  'default',
  true,
);
const orderUse = (100 * 15 * minWindow(sgn.postTimes, sgn.start, sgn.end)) / ((tier.order.rate * WINDOW_MS) / 1000);
const cancelUse = (100 * 15 * minWindow(sgn.deleteTimes, sgn.start, sgn.end)) / ((tier.cancel.rate * WINDOW_MS) / 1000);
console.log(`figure: budget_signer_order_use = ${orderUse.toFixed(1)} %`);
console.log(`figure: budget_signer_cancel_use = ${cancelUse.toFixed(1)} %`);
console.log(`figure: budget_signer_429_count = ${sgn.statuses[429] ?? 0} count`);
