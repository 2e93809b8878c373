/**
 * HTTP over loopback with a keep-alive client (undici Pool): requests per second of GET /book and of
 * POST /orders carrying 15 signed orders. The exchange runs in its own process (`mmkit exchange`),
 * rate limits off, so the figure is the server's throughput, not the spec's budget.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { Wallet } from 'ethers';
import { Pool } from 'undici';
import { l1Headers } from '../../src/api/signing/clob-auth.ts';
import { l2Headers } from '../../src/api/signing/hmac.ts';
import { presignBuy } from './support/presign.ts';

const DURATION_MS = 3000;
const CONNECTIONS = 16;

const p = spawn(
  process.execPath,
  ['bin/mmkit.js', 'exchange', '--port', '0', '--json', '--no-rate-limits', '--log-level', 'error'],
  {
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
// the exchange never outlives the bench, even when a phase throws (a failed run once left its world running)
process.on('exit', () => p.kill('SIGKILL'));
const [line] = (await once(createInterface({ input: p.stdout! }), 'line')) as [string];
const urls = JSON.parse(line) as { clob_url: string };
const base = new URL(urls.clob_url);
const pool = new Pool(base.origin, { connections: CONNECTIONS, pipelining: 1 });
const prefix = base.pathname;

async function req(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; json: any }> {
  const r = await pool.request({
    method: method as 'GET',
    path: prefix + path,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body ? { body } : {}),
  });
  const text = await r.body.text();
  return { status: r.statusCode, json: text ? JSON.parse(text) : undefined };
}

async function run(_name: string, make: (i: number) => Promise<void>): Promise<number> {
  let done = 0;
  const end = Date.now() + DURATION_MS;
  const worker = async (w: number) => {
    for (let i = w; Date.now() < end; i += CONNECTIONS) {
      await make(i);
      done++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, (_, w) => worker(w)));
  const rps = done / ((performance.now() - t0) / 1000);
  return rps;
}

const markets = (await req('GET', '/markets?limit=100')).json.data as Array<{
  neg_risk: boolean;
  minimum_tick_size: number;
  tokens: Array<{ token_id: string }>;
}>;
const m = markets.find((x) => !x.neg_risk && x.minimum_tick_size === 0.01)!;
const token = m.tokens[0]!.token_id;

// warm-up and GET /book
await run('warmup', async () => void (await req('GET', `/book?token_id=${token}`)));
const bookRps = await run('book', async () => {
  const r = await req('GET', `/book?token_id=${token}`);
  if (r.status !== 200) throw new Error(`GET /book ${r.status}`);
});
console.log(`figure: http_get_book_rps = ${Math.round(bookRps)} req/s`);

// POST /orders: pre-signed batches of 15 (signed with native secp256k1 to keep setup short)
const wallets = Array.from({ length: 4 }, () => new Wallet(Wallet.createRandom().privateKey));
const creds: Array<{ apiKey: string; secret: string; passphrase: string }> = [];
for (const w of wallets) {
  const r = await req('POST', '/auth/api-key', { ...l1Headers(w, 137, Math.floor(Date.now() / 1000), 0) });
  creds.push(r.json);
}
const BATCHES = 3000;
const batches: Array<{ w: number; body: string }> = [];
let salt = 1;
for (let b = 0; b < BATCHES; b++) {
  const w = b % wallets.length;
  const wallet = wallets[w]!;
  const entries = [];
  for (let k = 0; k < 15; k++)
    entries.push({ order: presignBuy(wallet, token, salt++).wire, owner: creds[w]!.apiKey, orderType: 'GTC' });
  batches.push({ w, body: JSON.stringify(entries) });
}
let next = 0;
let accepted = 0;
const ordersRps = await run('orders', async () => {
  const b = batches[next++ % BATCHES]!;
  if (next > BATCHES) throw new Error('ran out of pre-signed batches; raise BATCHES');
  const c = creds[b.w]!;
  const h = l2Headers(
    { key: c.apiKey, secret: c.secret, passphrase: c.passphrase },
    wallets[b.w]!.address,
    'POST',
    '/orders',
    b.body,
    Math.floor(Date.now() / 1000),
  );
  const r = await req('POST', '/orders', { ...h }, b.body);
  if (r.status !== 200) throw new Error(`POST /orders ${r.status} ${JSON.stringify(r.json).slice(0, 200)}`);
  accepted += (r.json as Array<{ success: boolean }>).filter((x) => x.success).length;
});
if (accepted < next * 15 * 0.99) throw new Error(`only ${accepted} of ${next * 15} orders accepted`);
console.log(`figure: http_post_orders_rps = ${Math.round(ordersRps)} req/s`);
console.log(`figure: http_post_orders_orders_per_sec = ${Math.round(ordersRps * 15)} orders/s`);

await pool.close();
p.kill('SIGTERM');
await once(p, 'exit');
