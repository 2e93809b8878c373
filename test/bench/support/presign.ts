/**
 * What the saturating benches share (budget-saturation, fleet, http): requests signed before the
 * run (BUY 0.01 × 5 orders, $0.05 each, signed with native secp256k1 to keep the setup short), so
 * the producer loops measure the budgets, not the signing; and the market they are placed on.
 * The orders are V2 ones, the protocol the paper exchange speaks by default (as the public service
 * since 2026-04-28): V1 orders are refused `order_version_mismatch`, and a bench of refusals measures
 * neither the budgets' cancels nor the order path.
 */
import type { Wallet } from 'ethers';
import secp256k1 from 'secp256k1';
import type { ClobClient, SignedOrderLike } from '../../../src/api/clob.ts';
import {
  orderHasherV2,
  orderToWireV2,
  type SignedOrderStructV2,
  ZERO_BYTES32,
} from '../../../src/api/signing/order-v2.ts';
import { limitOrderAmounts } from '../../../src/core/units.ts';

const hasher = orderHasherV2(137, false);
const amounts = limitOrderAmounts('BUY', '0.01', '0.01', '5');

/** One BUY 0.01 × 5 order of `token` by `wallet` (chain 137, not neg-risk), with this salt. */
export function presignBuy(wallet: Wallet, token: string, salt: number): SignedOrderLike {
  const priv = Buffer.from(wallet.privateKey.slice(2), 'hex');
  const o: SignedOrderStructV2 = {
    salt: BigInt(salt),
    maker: wallet.address,
    signer: wallet.address,
    tokenId: BigInt(token),
    makerAmount: amounts.makerAmount,
    takerAmount: amounts.takerAmount,
    side: 0,
    signatureType: 0,
    timestamp: BigInt(Date.now()),
    metadata: ZERO_BYTES32,
    builder: ZERO_BYTES32,
  };
  const id = hasher.digest(o);
  const sig = secp256k1.ecdsaSign(Buffer.from(id.slice(2), 'hex'), priv);
  return {
    id,
    wire: orderToWireV2(o, '0x' + Buffer.from(sig.signature).toString('hex') + (sig.recid + 27).toString(16)),
  };
}

/** `count` such orders, salts from `salt0` on. */
export function presignBuys(wallet: Wallet, token: string, count: number, salt0: number): SignedOrderLike[] {
  return Array.from({ length: count }, (_, k) => presignBuy(wallet, token, salt0 + k));
}

/** The first YES token of a 0.01-tick market that accepts orders (not neg-risk). @throws when none */
export async function centTickToken(clob: ClobClient): Promise<string> {
  for await (const m of clob.marketsAll({ limit: 100 }))
    if (!m.negRisk && m.tickSize === '0.01' && m.acceptingOrders) return m.tokens[0]!.tokenId;
  throw new Error('no 0.01-tick market');
}
