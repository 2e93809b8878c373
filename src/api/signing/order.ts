/**
 * EIP-712 signed orders of the CTF Exchange V1 (domain version "1"), shared by the bot and the paper
 * exchange. The V2 orders of the public service since 2026-04-28 are in ./order-v2.ts; what both
 * share (signer recovery, ABI words, wire parsing, the JSON of signed wires) in ./order-common.ts,
 * re-exported here for this module's importers (`recoverSigner`, `KeyHolder`, `wireJson`).
 *
 * - The order id is the EIP-712 digest of the order (`OrderHasher.digest`), computable before sending.
 * - `OrderHasher` precomputes the type hash and the domain separator once and ABI-encodes the struct
 *   by hand into a reused buffer; it equals `TypedDataEncoder.hash` of ethers (tested).
 * - `recoverSigner` returns the LOWER-CASE address (the form of `toAddress` in core/ids) and throws
 *   `AuthError` on a malformed signature, never a raw exception.
 * - `orderToWire` / `orderFromWire` convert to and from the `order` object of the POST /order body.
 *
 * Pure: no I/O, no wall clock.
 */
import { Buffer } from 'node:buffer';
import { TypedDataEncoder, keccak256, toUtf8Bytes } from 'ethers';
import type { TypedDataDomain, TypedDataField } from 'ethers';
import { ValidationError } from '../../core/errors.ts';
import { keccak256Bytes } from './fast-crypto.ts';
import { isAddress, toAddress } from '../../core/ids.ts';
import {
  type KeyHolder,
  parseUint256,
  parseWireSalt,
  rememberWireJson,
  saltToWire,
  SIG_HEX,
  writeAddress,
  writeSmall,
  writeUint,
} from './order-common.ts';

export { recoverSigner, wireJson, type KeyHolder } from './order-common.ts';

/** The signed order struct, exactly the EIP-712 `Order` type (the signature is not part of it). */
export interface SignedOrderStruct {
  salt: bigint;
  maker: string;
  signer: string;
  taker: string;
  tokenId: bigint;
  makerAmount: bigint;
  takerAmount: bigint;
  expiration: bigint;
  nonce: bigint;
  feeRateBps: bigint;
  /** BUY 0, SELL 1. */
  side: 0 | 1;
  /** EOA 0, POLY_PROXY 1, POLY_GNOSIS_SAFE 2. */
  signatureType: 0 | 1 | 2;
}

/** CTF Exchange on Polygon (137): the verifying contract of ordinary markets. */
export const CTF_EXCHANGE = '0x4bFb41d5B3570DeFd03C39a9A4D8dE6Bd8B8982E';
/** Neg-risk CTF Exchange on Polygon (137): the verifying contract of `neg_risk` markets. */
export const NEG_RISK_CTF_EXCHANGE = '0xC5d563A36AE78145C45a50134d48A1215220f80a';

/** EIP-712 domain name and version of the exchange. */
export const ORDER_DOMAIN_NAME = 'Polymarket CTF Exchange';
export const ORDER_DOMAIN_VERSION = '1';

/** EIP-712 types of the order, fields in the venue's order (venue-conventions "Signed orders"). */
export const ORDER_TYPES: { Order: TypedDataField[] } = {
  Order: [
    { name: 'salt', type: 'uint256' },
    { name: 'maker', type: 'address' },
    { name: 'signer', type: 'address' },
    { name: 'taker', type: 'address' },
    { name: 'tokenId', type: 'uint256' },
    { name: 'makerAmount', type: 'uint256' },
    { name: 'takerAmount', type: 'uint256' },
    { name: 'expiration', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'feeRateBps', type: 'uint256' },
    { name: 'side', type: 'uint8' },
    { name: 'signatureType', type: 'uint8' },
  ],
};

/** `keccak256("Order(uint256 salt,address maker,...)")`, derived from ORDER_TYPES. */
export const ORDER_TYPE_HASH: string = keccak256(
  toUtf8Bytes(`Order(${ORDER_TYPES.Order.map((f) => `${f.type} ${f.name}`).join(',')})`),
);

/**
 * The EIP-712 domain of an order. `verifyingContract` overrides the default, which is
 * NEG_RISK_CTF_EXCHANGE when `negRisk` and CTF_EXCHANGE otherwise (e.g. Amoy 80002 uses
 * 0xdFE02Eb6733538f8Ea35D585af8DE5958AD99E40).
 */
export function orderDomain(
  chainId: number,
  negRisk: boolean,
  verifyingContract?: string,
): TypedDataDomain & {
  name: string;
  version: string;
  chainId: number;
  verifyingContract: string;
} {
  return {
    name: ORDER_DOMAIN_NAME,
    version: ORDER_DOMAIN_VERSION,
    chainId,
    verifyingContract: verifyingContract ?? (negRisk ? NEG_RISK_CTF_EXCHANGE : CTF_EXCHANGE),
  };
}

const UINT_FIELDS = ['salt', 'tokenId', 'makerAmount', 'takerAmount', 'expiration', 'nonce', 'feeRateBps'] as const;
const ADDRESS_FIELDS = ['maker', 'signer', 'taker'] as const;

/**
 * Computes order digests (= order ids) for one (chainId, verifyingContract) domain, fast.
 * Not re-entrant across threads (it reuses a buffer), which is fine in one JS realm.
 */
export class OrderHasher {
  /** The EIP-712 domain separator, 0x-prefixed hex. */
  readonly domainSeparator: string;
  readonly chainId: number;
  readonly verifyingContract: string;
  /** typeHash ‖ 12 field words. */
  readonly #struct = Buffer.alloc(13 * 32);
  /** 0x1901 ‖ domainSeparator ‖ structHash. */
  readonly #outer = Buffer.alloc(66);

  /** @throws ValidationError when chainId is not a non-negative safe integer or the contract is not an address. */
  constructor(chainId: number, verifyingContract: string) {
    if (!Number.isSafeInteger(chainId) || chainId < 0)
      throw new ValidationError(`chainId: not a non-negative integer: ${String(chainId)}`);
    if (!isAddress(verifyingContract))
      throw new ValidationError(`verifyingContract: not an address: ${String(verifyingContract)}`);
    this.chainId = chainId;
    this.verifyingContract = verifyingContract;
    this.domainSeparator = TypedDataEncoder.hashDomain({
      name: ORDER_DOMAIN_NAME,
      version: ORDER_DOMAIN_VERSION,
      chainId,
      verifyingContract,
    });
    this.#struct.write(ORDER_TYPE_HASH.slice(2), 0, 'hex');
    this.#outer[0] = 0x19;
    this.#outer[1] = 0x01;
    this.#outer.write(this.domainSeparator.slice(2), 2, 'hex');
  }

  /**
   * The EIP-712 digest of `o` (0x-prefixed lower-case hex), equal to
   * `TypedDataEncoder.hash(orderDomain(...), ORDER_TYPES, o)`.
   * @throws ValidationError when a field is out of its type's range (uint256, address, side, signatureType).
   */
  digest(o: SignedOrderStruct): string {
    const b = this.#struct;
    writeUint(b, 1, o.salt, 'salt');
    writeAddress(b, 2, o.maker, 'maker');
    writeAddress(b, 3, o.signer, 'signer');
    writeAddress(b, 4, o.taker, 'taker');
    writeUint(b, 5, o.tokenId, 'tokenId');
    writeUint(b, 6, o.makerAmount, 'makerAmount');
    writeUint(b, 7, o.takerAmount, 'takerAmount');
    writeUint(b, 8, o.expiration, 'expiration');
    writeUint(b, 9, o.nonce, 'nonce');
    writeUint(b, 10, o.feeRateBps, 'feeRateBps');
    if (o.side !== 0 && o.side !== 1)
      throw new ValidationError(`side: must be 0 (BUY) or 1 (SELL), got ${String(o.side)}`);
    writeSmall(b, 11, o.side);
    if (o.signatureType !== 0 && o.signatureType !== 1 && o.signatureType !== 2) {
      throw new ValidationError(`signatureType: must be 0, 1 or 2, got ${String(o.signatureType)}`);
    }
    writeSmall(b, 12, o.signatureType);
    keccak256Bytes(b).copy(this.#outer, 34);
    return '0x' + keccak256Bytes(this.#outer).toString('hex');
  }
}

const hasherCache = new Map<string, OrderHasher>();

/** A cached hasher per (chainId, verifyingContract). */
export function orderHasher(chainId: number, negRisk: boolean, verifyingContract?: string): OrderHasher {
  const vc = verifyingContract ?? (negRisk ? NEG_RISK_CTF_EXCHANGE : CTF_EXCHANGE);
  const key = `${chainId}:${vc.toLowerCase()}`;
  let h = hasherCache.get(key);
  if (h === undefined) {
    h = new OrderHasher(chainId, vc);
    hasherCache.set(key, h);
  }
  return h;
}

/**
 * Sign an order: its digest (the order id) and the 65-byte signature (deterministic RFC 6979, v 27/28).
 * @throws ValidationError when a field is out of range.
 */
export function signOrder(
  wallet: KeyHolder,
  o: SignedOrderStruct,
  chainId: number,
  negRisk: boolean,
  verifyingContract?: string,
): { digest: string; signature: string } {
  const digest = orderHasher(chainId, negRisk, verifyingContract).digest(o);
  return { digest, signature: wallet.signingKey.sign(digest).serialized };
}

/** The `order` object of a POST /order body, as sent on the wire. */
export interface WireOrder {
  /** A JSON number (the public client sends parseInt of the salt). */
  salt: number;
  maker: string;
  signer: string;
  taker: string;
  tokenId: string;
  makerAmount: string;
  takerAmount: string;
  side: 'BUY' | 'SELL';
  expiration: string;
  nonce: string;
  feeRateBps: string;
  signatureType: 0 | 1 | 2;
  signature: string;
}

/**
 * The wire form of a signed order (field order of the public client's `orderToJson`).
 * @throws ValidationError when the salt is above 2^53-1 (it could not survive a JSON number).
 */
export function orderToWire(o: SignedOrderStruct, signature: string): WireOrder {
  return {
    salt: saltToWire(o.salt),
    maker: o.maker,
    signer: o.signer,
    taker: o.taker,
    tokenId: o.tokenId.toString(),
    makerAmount: o.makerAmount.toString(),
    takerAmount: o.takerAmount.toString(),
    side: o.side === 0 ? 'BUY' : 'SELL',
    expiration: o.expiration.toString(),
    nonce: o.nonce.toString(),
    feeRateBps: o.feeRateBps.toString(),
    signatureType: o.signatureType,
    signature,
  };
}

/**
 * The wire form of an order just signed, FROZEN (a signed order never changes: its id is its hash,
 * and a retry must resend the identical bytes), with its JSON text computed now and remembered, so
 * that posting it later (often long after a speculative signature made in idle time) does not
 * serialise it again. `wireJson` gives that text.
 * @throws ValidationError as `orderToWire`
 */
export function signedWire(o: SignedOrderStruct, signature: string): WireOrder {
  return rememberWireJson(orderToWire(o, signature));
}

/**
 * Parse and strictly validate the `order` object of a POST /order body.
 *
 * - salt: a non-negative safe-integer JSON number, or a uint256 decimal string;
 * - maker, signer, taker: 0x + 40 hex (returned lower-cased);
 * - tokenId, makerAmount, takerAmount, expiration, nonce, feeRateBps: uint256 decimal strings;
 * - side: "BUY" | "SELL"; signatureType: the number 0, 1 or 2; signature: 0x + 130 hex.
 * Unknown extra fields are ignored.
 * @throws ValidationError naming the first bad field; never anything else.
 */
export function orderFromWire(json: unknown): { order: SignedOrderStruct; signature: string } {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new ValidationError('order: expected a JSON object');
  }
  const w = json as Record<string, unknown>;
  const salt = parseWireSalt(w['salt']);
  const addrs: Record<(typeof ADDRESS_FIELDS)[number], string> = { maker: '', signer: '', taker: '' };
  for (const f of ADDRESS_FIELDS) {
    const a = w[f];
    if (!isAddress(a)) throw new ValidationError(`order.${f}: expected an address (0x + 40 hex)`);
    addrs[f] = toAddress(a);
  }
  const uints: Record<(typeof UINT_FIELDS)[number], bigint> = {
    salt,
    tokenId: 0n,
    makerAmount: 0n,
    takerAmount: 0n,
    expiration: 0n,
    nonce: 0n,
    feeRateBps: 0n,
  };
  for (const f of UINT_FIELDS) {
    if (f === 'salt') continue;
    uints[f] = parseUint256(w[f], f);
  }
  const side = w['side'];
  if (side !== 'BUY' && side !== 'SELL') throw new ValidationError('order.side: expected "BUY" or "SELL"');
  const st = w['signatureType'];
  if (st !== 0 && st !== 1 && st !== 2) throw new ValidationError('order.signatureType: expected the number 0, 1 or 2');
  const signature = w['signature'];
  if (typeof signature !== 'string' || !SIG_HEX.test(signature)) {
    throw new ValidationError('order.signature: expected 0x + 130 hex (65 bytes)');
  }
  return {
    order: {
      salt: uints.salt,
      maker: addrs.maker,
      signer: addrs.signer,
      taker: addrs.taker,
      tokenId: uints.tokenId,
      makerAmount: uints.makerAmount,
      takerAmount: uints.takerAmount,
      expiration: uints.expiration,
      nonce: uints.nonce,
      feeRateBps: uints.feeRateBps,
      side: side === 'BUY' ? 0 : 1,
      signatureType: st,
    },
    signature,
  };
}
