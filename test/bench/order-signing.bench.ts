/**
 * Order building + signing benchmark (one core). Run: node --import tsx test/bench/order-signing.bench.ts
 * Prints:
 *   figure: signed_orders_per_sec = <n> orders/s          OrderBuilder.buildLimit (amounts, EIP-712
 *                                                         digest, native secp256k1 signature, wire form)
 *   figure: signed_orders_per_sec_pure_js = <n> orders/s  the same on the pure-JS fallback (ethers/noble)
 *   figure: ethers_sign_typed_data_us = <n> us            ethers Wallet.signTypedData of one order, for comparison
 */
import { Wallet } from 'ethers';
import { OrderBuilder, type LimitOrderInput } from '../../src/api/orders.ts';
import { setCryptoBackend, nativeCrypto } from '../../src/api/signing/fast-crypto.ts';
import { ORDER_TYPES, orderDomain, recoverSigner } from '../../src/api/signing/order.ts';

const wallet = new Wallet('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const builder = new OrderBuilder({ wallet, chainId: 137 });
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

// Sanity: what we measure is valid.
const probe = builder.buildLimit(inputs[0]!);
if (recoverSigner(probe.id, probe.signature) !== wallet.address.toLowerCase()) throw new Error('bench: bad signature');

if (nativeCrypto !== undefined) {
  setCryptoBackend('native');
  rate(500, buildOnce); // warm-up
  console.log(`figure: signed_orders_per_sec = ${Math.round(rate(2000, buildOnce))} orders/s`);
} else {
  console.log('# native crypto unavailable: signed_orders_per_sec is the pure-JS figure');
}

setCryptoBackend('pure-js');
rate(300, buildOnce);
const js = rate(2000, buildOnce);
if (nativeCrypto === undefined) console.log(`figure: signed_orders_per_sec = ${Math.round(js)} orders/s`);
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
