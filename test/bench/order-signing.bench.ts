/**
 * Order building + signing benchmark (one core). Run: node --import tsx test/bench/order-signing.bench.ts
 * Prints:
 *   figure: signed_orders_per_sec = <n> orders/s          OrderBuilder.buildLimit of V1 orders (amounts,
 *                                                         EIP-712 digest, native secp256k1 signature, wire form)
 *   figure: signed_orders_per_sec_v2 = <n> orders/s       the same for V2 orders (CTF Exchange V2: signed
 *                                                         timestamp, metadata, builder), measured in the same
 *                                                         run, in rounds alternating with V1; then the ratio
 *                                                         v2/v1 as a `#` line (V2 must be at least as fast)
 *   figure: signed_orders_per_sec_pure_js = <n> orders/s  V1 on the pure-JS fallback (ethers/noble)
 *   figure: ethers_sign_typed_data_us = <n> us            ethers Wallet.signTypedData of one order, for comparison
 */
import { Wallet } from 'ethers';
import { OrderBuilder, type LimitOrderInput } from '../../src/api/orders.ts';
import { setCryptoBackend, nativeCrypto } from '../../src/api/signing/fast-crypto.ts';
import { ORDER_TYPES, orderDomain, recoverSigner } from '../../src/api/signing/order.ts';
import { orderHasherV2, recoverOrderV2 } from '../../src/api/signing/order-v2.ts';

const wallet = new Wallet('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const builder = new OrderBuilder({ wallet, chainId: 137, protocol: 1 });
const builderV2 = new OrderBuilder({ wallet, chainId: 137, protocol: 2 });
const TOKEN = '71321045679252212594626385532706912750332728571942532289631379312455583992563';

// A quoting mix: both sides, prices across the book, sizes in decimal strings.
const inputs: LimitOrderInput[] = [];
for (let i = 0; i < 256; i++) {
  inputs.push({
    tokenId: TOKEN,
    side: i & 1 ? 'SELL' : 'BUY',
    price: (0.05 + (i % 90) / 100).toFixed(2),
    size: `${5 + (i % 37)}.${String(i % 100).padStart(2, '0')}`,
    tick: '0.01',
    negRisk: (i & 7) === 0,
  });
}

/** Run `fn(i)` repeatedly for about `ms` milliseconds; returns calls per second. */
function rate(ms: number, fn: (i: number) => void): number {
  let calls = 0;
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(ms) * 1_000_000n;
  let now = start;
  while (now < deadline) {
    for (let k = 0; k < 16; k++) fn(calls++);
    now = process.hrtime.bigint();
  }
  return (calls * 1e9) / Number(now - start);
}

let sink = 0;
const buildOnce = (i: number): void => {
  const o = builder.buildLimit(inputs[i & 255]!);
  sink ^= o.signature.charCodeAt(10);
};
const buildOnceV2 = (i: number): void => {
  const o = builderV2.buildLimit(inputs[i & 255]!);
  sink ^= o.signature.charCodeAt(10);
};

// Sanity: what we measure is valid.
const probe = builder.buildLimit(inputs[0]!);
if (recoverSigner(probe.id, probe.signature) !== wallet.address.toLowerCase()) throw new Error('bench: bad signature');
const probeV2 = builderV2.buildLimit(inputs[0]!);
if (
  recoverOrderV2(orderHasherV2(137, true), probeV2.struct, probeV2.signature).recovered !== wallet.address.toLowerCase()
)
  throw new Error('bench: bad V2 signature');

/**
 * V1 and V2 by the same method in the same run: 20 rounds of 100 ms each, in pairs whose order
 * alternates (V1 then V2, V2 then V1: a neighbour's load on a shared machine, or a collection of
 * what the previous round allocated, falls on both alike). Each figure is its rate over its 2 s in
 * all; the ratio is the median of the pairs' ratios, which a burst of load on one round does not move.
 */
function rates(): { v1: number; v2: number; ratio: number } {
  rate(500, buildOnce); // warm-up
  rate(500, buildOnceV2);
  const ROUNDS = 20;
  let v1 = 0;
  let v2 = 0;
  const ratios: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    let a: number;
    let b: number;
    if (r & 1) {
      b = rate(100, buildOnceV2);
      a = rate(100, buildOnce);
    } else {
      a = rate(100, buildOnce);
      b = rate(100, buildOnceV2);
    }
    v1 += a / ROUNDS;
    v2 += b / ROUNDS;
    ratios.push(b / a);
  }
  ratios.sort((x, y) => x - y);
  return { v1, v2, ratio: (ratios[ROUNDS / 2 - 1]! + ratios[ROUNDS / 2]!) / 2 };
}

function printRates({ v1, v2, ratio }: { v1: number; v2: number; ratio: number }): void {
  console.log(`figure: signed_orders_per_sec = ${Math.round(v1)} orders/s`);
  console.log(`figure: signed_orders_per_sec_v2 = ${Math.round(v2)} orders/s`);
  console.log(
    `# signed orders v2/v1 = ${ratio.toFixed(3)} (median of 20 paired rounds; ${(v2 / v1).toFixed(3)} from the figures)`,
  );
}

if (nativeCrypto !== undefined) {
  setCryptoBackend('native');
  printRates(rates());
} else {
  console.log(
    '# native crypto unavailable: signed_orders_per_sec and signed_orders_per_sec_v2 are the pure-JS figures',
  );
}

setCryptoBackend('pure-js');
let js: number;
if (nativeCrypto === undefined) {
  const r = rates();
  js = r.v1;
  printRates(r);
} else {
  rate(300, buildOnce);
  js = rate(2000, buildOnce);
}
console.log(`figure: signed_orders_per_sec_pure_js = ${Math.round(js)} orders/s`);

const domain = orderDomain(137, false);
const struct = probe.struct;
for (let i = 0; i < 20; i++) await wallet.signTypedData(domain, ORDER_TYPES, struct);
let n = 0;
const t0 = process.hrtime.bigint();
while (process.hrtime.bigint() - t0 < 1_000_000_000n) {
  await wallet.signTypedData(domain, ORDER_TYPES, { ...struct, salt: struct.salt + BigInt(n++) });
}
const us = Number(process.hrtime.bigint() - t0) / 1000 / n;
console.log(`figure: ethers_sign_typed_data_us = ${us.toFixed(0)} us`);
if (sink === -1) console.log(sink);
