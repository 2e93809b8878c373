/**
 * Signing micro-benchmark. Run: node --import tsx test/bench/signing.bench.ts
 * Prints:
 *   figure: order_digest_us = <n> us            (OrderHasher.digest per order)
 *   figure: signature_verify_us = <n> us        (digest + recoverSigner per signed order)
 *   figure: signature_verifies_per_sec = <n> verify/s
 *   figure: order_digest_v2_us = <n> us         (OrderHasherV2.digest per V2 order)
 *   figure: signature_verify_v2_us = <n> us     (recoverOrderV2 per signed V2 order: digest + recovery)
 */
import { Wallet } from 'ethers';
import { OrderHasher, CTF_EXCHANGE, recoverSigner, signOrder } from '../../src/api/signing/order.ts';
import type { SignedOrderStruct } from '../../src/api/signing/order.ts';
import {
  CTF_EXCHANGE_V2,
  OrderHasherV2,
  ZERO_BYTES32,
  recoverOrderV2,
  signOrderV2,
  type SignedOrderStructV2,
} from '../../src/api/signing/order-v2.ts';

const wallet = new Wallet('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const hasher = new OrderHasher(137, CTF_EXCHANGE);
const N = 256;
const orders: SignedOrderStruct[] = [];
const sigs: string[] = [];
for (let i = 0; i < N; i++) {
  const o: SignedOrderStruct = {
    salt: BigInt(Math.round(Math.random() * Date.now())),
    maker: wallet.address,
    signer: wallet.address,
    taker: '0x0000000000000000000000000000000000000000',
    tokenId: 71321045679252212594626385532706912750332728571942532289631379312455583992563n + BigInt(i),
    makerAmount: BigInt(1_000_000 + i * 10_000),
    takerAmount: BigInt(2_000_000 + i * 10_000),
    expiration: 0n,
    nonce: 0n,
    feeRateBps: 0n,
    side: (i & 1) as 0 | 1,
    signatureType: 0,
  };
  orders.push(o);
  sigs.push(signOrder(wallet, o, 137, false).signature);
}
const expected = wallet.address.toLowerCase();
const hasherV2 = new OrderHasherV2(137, CTF_EXCHANGE_V2);
const ordersV2: SignedOrderStructV2[] = orders.map((o) => ({
  salt: o.salt,
  maker: o.maker,
  signer: o.signer,
  tokenId: o.tokenId,
  makerAmount: o.makerAmount,
  takerAmount: o.takerAmount,
  side: o.side,
  signatureType: 0,
  timestamp: 1_777_777_777_777n + (o.salt % 1000n),
  metadata: ZERO_BYTES32,
  builder: ZERO_BYTES32,
}));
const sigsV2 = ordersV2.map((o) => signOrderV2(wallet, o, 137, false).signature);

/** Run `fn(i)` repeatedly for about `ms` milliseconds; returns microseconds per call. */
function measure(ms: number, fn: (i: number) => void): number {
  let calls = 0;
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(ms) * 1_000_000n;
  let now = start;
  while (now < deadline) {
    for (let k = 0; k < 64; k++) fn(calls++);
    now = process.hrtime.bigint();
  }
  return Number(now - start) / 1000 / calls;
}

let sink = 0;
const digestOnce = (i: number): void => {
  sink ^= hasher.digest(orders[i % N]!).charCodeAt(5);
};
const verifyOnce = (i: number): void => {
  const k = i % N;
  const addr = recoverSigner(hasher.digest(orders[k]!), sigs[k]!);
  if (addr !== expected) throw new Error('bench: recovered a wrong address');
};

measure(300, digestOnce); // warm-up
const digestUs = measure(2000, digestOnce);
measure(300, verifyOnce); // warm-up
const verifyUs = measure(2000, verifyOnce);

const digestOnceV2 = (i: number): void => {
  sink ^= hasherV2.digest(ordersV2[i % N]!).charCodeAt(5);
};
const verifyOnceV2 = (i: number): void => {
  const k = i % N;
  if (recoverOrderV2(hasherV2, ordersV2[k]!, sigsV2[k]!).recovered !== expected)
    throw new Error('bench: recovered a wrong address (V2)');
};
measure(300, digestOnceV2);
const digestV2Us = measure(2000, digestOnceV2);
measure(300, verifyOnceV2);
const verifyV2Us = measure(2000, verifyOnceV2);

console.log(`figure: order_digest_us = ${digestUs.toFixed(2)} us`);
console.log(`figure: signature_verify_us = ${verifyUs.toFixed(1)} us`);
console.log(`figure: signature_verifies_per_sec = ${Math.round(1e6 / verifyUs)} verify/s`);
console.log(`figure: order_digest_v2_us = ${digestV2Us.toFixed(2)} us`);
console.log(`figure: signature_verify_v2_us = ${verifyV2Us.toFixed(1)} us`);
if (sink === -1) console.log(sink);
