/**
 * EIP-712 signed orders of the CTF Exchange V2 (domain version "2"), the protocol of the public
 * service since 2026-04-28 (V1 orders, ./order.ts, are refused there since). Shared by the bot and,
 * later, the paper exchange.
 *
 * What is signed (the public client `@polymarket/clob-client-v2` 1.1.0, order-utils/
 * exchangeOrderBuilderV2.js and order-utils/model/ctfExchangeV2TypedData.js):
 *   domain  { name "Polymarket CTF Exchange", version "2", chainId, verifyingContract }
 *   Order(uint256 salt,address maker,address signer,uint256 tokenId,uint256 makerAmount,
 *         uint256 takerAmount,uint8 side,uint8 signatureType,uint256 timestamp,bytes32 metadata,
 *         bytes32 builder)
 * V1's `taker`, `nonce` and `feeRateBps` are gone (fees are applied by the operator at match time);
 * `timestamp` is the signing time in MILLISECONDS; `expiration` (unix seconds, 0 = none) travels in
 * the POST /order body but is NOT signed; `builder` is a bytes32 builder code and `metadata` a
 * bytes32, both zero by default.
 *
 * - The order id is the EIP-712 digest of the order (`OrderHasherV2.digest`), as for V1.
 * - `OrderHasherV2` precomputes the domain separator and ABI-encodes the struct by hand into a
 *   reused buffer (12 words against V1's 13); it equals `TypedDataEncoder.hash` of ethers (tested).
 * - Signature types: EOA 0, POLY_PROXY 1, POLY_GNOSIS_SAFE 2 (a 65-byte ECDSA signature of the
 *   digest by `signer`), and POLY_1271 3 (deposit wallets: `signer` = `maker` = the wallet, an
 *   ERC-1271 contract; the signature is the ERC-7739 `TypedDataSign` envelope the public client
 *   builds, see `encodePoly1271Signature`). mmkit signs and recovers all four.
 * - `recoverOrderV2` returns the LOWER-CASE address of the EOA whose key signed, and throws
 *   AuthError on a malformed or inconsistent signature, never a raw exception. For POLY_1271 that
 *   EOA is the deposit wallet's owner as the signature claims it: that it really owns the wallet is
 *   on-chain state (the wallet's `isValidSignature`), for the caller to decide.
 * - `orderToWireV2` / `orderFromWireV2` convert to and from the `order` object of the POST /order
 *   body, exactly as the public client's `orderToJsonV2` sends it (no `taker`).
 *
 * Pure: no I/O, no wall clock.
 */
import { Buffer } from 'node:buffer';
import { TypedDataEncoder, keccak256, toUtf8Bytes } from 'ethers';
import type { TypedDataDomain, TypedDataField } from 'ethers';
import { AuthError, ValidationError } from '../../core/errors.ts';
import { isAddress, toAddress } from '../../core/ids.ts';
import { keccak256Bytes, signDigest } from './fast-crypto.ts';
import {
  HEX64,
  type KeyHolder,
  parseUint256,
  parseWireSalt,
  recoverSignerFrom,
  rememberWireJson,
  saltToWire,
  SIG_HEX,
  writeAddress,
  writeBytes32,
  writeSmall,
  writeUint,
  ZERO_BYTES32,
} from './order-common.ts';
import type { WireOrder } from './order.ts';

export { ZERO_BYTES32 } from './order-common.ts';

// ---- what is signed -------------------------------------------------------------------------------

/** EOA 0, POLY_PROXY 1, POLY_GNOSIS_SAFE 2, POLY_1271 3 (deposit wallets, ERC-1271 + ERC-7739). */
export type SignatureTypeV2 = 0 | 1 | 2 | 3;
/** The signature types by name (the public client's `SignatureTypeV2`). */
export const SIGNATURE_TYPE_V2 = Object.freeze({ EOA: 0, POLY_PROXY: 1, POLY_GNOSIS_SAFE: 2, POLY_1271: 3 } as const);

/** The signed V2 order struct, exactly the EIP-712 `Order` type (neither `expiration` nor the signature is part of it). */
export interface SignedOrderStructV2 {
  salt: bigint;
  /** The funds' owner: the wallet (EOA), its proxy or Safe (1, 2), or the deposit wallet (3). */
  maker: string;
  /** The key's address (0, 1, 2), or the deposit wallet itself (3: signer = maker). */
  signer: string;
  tokenId: bigint;
  makerAmount: bigint;
  takerAmount: bigint;
  /** BUY 0, SELL 1. */
  side: 0 | 1;
  signatureType: SignatureTypeV2;
  /** Signing time, unix MILLISECONDS. */
  timestamp: bigint;
  /** bytes32 (0x + 64 hex); ZERO_BYTES32 by default. */
  metadata: string;
  /** bytes32 builder code (0x + 64 hex); ZERO_BYTES32 when none. */
  builder: string;
}

/** EIP-712 domain name and version of the V2 exchanges. */
export const ORDER_DOMAIN_NAME_V2 = 'Polymarket CTF Exchange';
export const ORDER_DOMAIN_VERSION_V2 = '2';

/** EIP-712 types of the V2 order (the public client's CTF_EXCHANGE_V2_ORDER_STRUCT). */
export const ORDER_TYPES_V2: { Order: TypedDataField[] } = {
  Order: [
    { name: 'salt', type: 'uint256' },
    { name: 'maker', type: 'address' },
    { name: 'signer', type: 'address' },
    { name: 'tokenId', type: 'uint256' },
    { name: 'makerAmount', type: 'uint256' },
    { name: 'takerAmount', type: 'uint256' },
    { name: 'side', type: 'uint8' },
    { name: 'signatureType', type: 'uint8' },
    { name: 'timestamp', type: 'uint256' },
    { name: 'metadata', type: 'bytes32' },
    { name: 'builder', type: 'bytes32' },
  ],
};

/** `Order(uint256 salt,address maker,...,bytes32 builder)`: the EIP-712 type string (186 characters). */
export const ORDER_TYPE_STRING_V2: string = `Order(${ORDER_TYPES_V2.Order.map((f) => `${f.type} ${f.name}`).join(',')})`;
/** keccak256 of ORDER_TYPE_STRING_V2. */
export const ORDER_TYPE_HASH_V2: string = keccak256(toUtf8Bytes(ORDER_TYPE_STRING_V2));

// ---- contracts ------------------------------------------------------------------------------------

/**
 * CTF Exchange V2 on Polygon (137) and Amoy (80002): the verifying contract of ordinary markets.
 * Sources: the public client's config.js (`exchangeV2`) and the public docs' "Contracts" page
 * (docs.polymarket.com/resources/contracts).
 */
export const CTF_EXCHANGE_V2 = '0xE111180000d2663C0091e4f400237545B87B996B';
/** Neg Risk CTF Exchange V2 (137 and 80002): the verifying contract of `neg_risk` markets. */
export const NEG_RISK_CTF_EXCHANGE_V2 = '0xe2222d279d744050d28e00520010520000310F59';
/** pUSD (Polymarket USD), the V2 collateral, wrapped from USDC.e by an on-ramp (137 and 80002). */
export const PUSD = '0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB';
/** pUSD has 6 decimals, as USDC.e had: amounts stay in micro-units. */
export const PUSD_DECIMALS = 6;

/** The V2 contracts of one chain. */
export interface ContractsV2 {
  readonly exchange: string;
  readonly negRiskExchange: string;
  readonly collateral: string;
}

/** V2 contracts by chain id, from the public client's config.js (Polygon 137, Amoy 80002: the same addresses). */
export const CONTRACTS_V2: Readonly<Record<137 | 80002, ContractsV2>> = Object.freeze({
  137: Object.freeze({ exchange: CTF_EXCHANGE_V2, negRiskExchange: NEG_RISK_CTF_EXCHANGE_V2, collateral: PUSD }),
  80002: Object.freeze({ exchange: CTF_EXCHANGE_V2, negRiskExchange: NEG_RISK_CTF_EXCHANGE_V2, collateral: PUSD }),
});

/**
 * The default verifying contract of a V2 order: NEG_RISK_CTF_EXCHANGE_V2 when `negRisk`,
 * CTF_EXCHANGE_V2 otherwise. These are the addresses of 137 and 80002; for another chain id (a
 * paper exchange's own chain) they are the default too, as in V1's `orderDomain`: pass
 * `verifyingContract` to sign for other contracts.
 */
export function exchangeAddressV2(negRisk: boolean): string {
  return negRisk ? NEG_RISK_CTF_EXCHANGE_V2 : CTF_EXCHANGE_V2;
}

/** The EIP-712 domain of a V2 order (`verifyingContract` overrides the default of `exchangeAddressV2`). */
export function orderDomainV2(
  chainId: number,
  negRisk: boolean,
  verifyingContract?: string,
): TypedDataDomain & { name: string; version: string; chainId: number; verifyingContract: string } {
  return {
    name: ORDER_DOMAIN_NAME_V2,
    version: ORDER_DOMAIN_VERSION_V2,
    chainId,
    verifyingContract: verifyingContract ?? exchangeAddressV2(negRisk),
  };
}

// ---- POLY_1271: the ERC-7739 envelope ------------------------------------------------------------

/**
 * The EIP-712 domain of a deposit wallet, as the public client names it in the ERC-7739
 * `TypedDataSign` struct (`verifyingContract` = the wallet, `salt` = zero).
 */
export const DEPOSIT_WALLET_DOMAIN = Object.freeze({ name: 'DepositWallet', version: '1' } as const);

/** EIP-712 types of the ERC-7739 nested signature of an order (primary type `TypedDataSign`). */
export const TYPED_DATA_SIGN_TYPES_V2: { TypedDataSign: TypedDataField[]; Order: TypedDataField[] } = {
  TypedDataSign: [
    { name: 'contents', type: 'Order' },
    { name: 'name', type: 'string' },
    { name: 'version', type: 'string' },
    { name: 'chainId', type: 'uint256' },
    { name: 'verifyingContract', type: 'address' },
    { name: 'salt', type: 'bytes32' },
  ],
  Order: ORDER_TYPES_V2.Order,
};

const TYPED_DATA_SIGN_TYPE_HASH: string = keccak256(
  toUtf8Bytes(
    `TypedDataSign(${TYPED_DATA_SIGN_TYPES_V2.TypedDataSign.map((f) => `${f.type} ${f.name}`).join(',')})` +
      ORDER_TYPE_STRING_V2,
  ),
);

/** Bytes of a POLY_1271 signature of an order: 65 + 32 + 32 + 186 (the type string) + 2 = 317. */
export const POLY_1271_SIGNATURE_BYTES = 65 + 32 + 32 + ORDER_TYPE_STRING_V2.length + 2;
const POLY_1271_HEX = new RegExp(`^0x[0-9a-fA-F]{${POLY_1271_SIGNATURE_BYTES * 2}}$`);
const ORDER_TYPE_STRING_V2_HEX = Buffer.from(ORDER_TYPE_STRING_V2, 'utf8').toString('hex');
const ORDER_TYPE_STRING_V2_LEN_HEX = ORDER_TYPE_STRING_V2.length.toString(16).padStart(4, '0');

/** The parts of a POLY_1271 (ERC-7739) order signature. */
export interface Poly1271Envelope {
  /** 65-byte ECDSA signature (0x-hex) by the wallet's owner of the `TypedDataSign` digest. */
  readonly innerSignature: string;
  /** The exchange's EIP-712 domain separator (0x-hex, 32 bytes). */
  readonly appDomainSeparator: string;
  /** The order's struct hash (0x-hex, 32 bytes). */
  readonly contentsHash: string;
  /** The contents type string: ORDER_TYPE_STRING_V2 for an order. */
  readonly contentsType: string;
}

/**
 * The POLY_1271 signature the public client sends (its `buildOrderSignature`):
 * `innerSignature ‖ appDomainSeparator ‖ contentsHash ‖ utf8(contentsType) ‖ uint16(len(contentsType))`,
 * the ERC-7739 `TypedDataSign` layout. 0x-prefixed lower-case hex.
 * @throws ValidationError when a part is malformed.
 */
export function encodePoly1271Signature(e: Poly1271Envelope): string {
  if (!SIG_HEX.test(e.innerSignature)) throw new ValidationError('innerSignature: expected 0x + 130 hex');
  if (!HEX64.test(e.appDomainSeparator)) throw new ValidationError('appDomainSeparator: expected 0x + 64 hex');
  if (!HEX64.test(e.contentsHash)) throw new ValidationError('contentsHash: expected 0x + 64 hex');
  const type = Buffer.from(e.contentsType, 'utf8');
  if (type.length === 0 || type.length > 0xffff) throw new ValidationError('contentsType: 1 to 65535 bytes');
  return (
    '0x' +
    e.innerSignature.slice(2).toLowerCase() +
    e.appDomainSeparator.slice(2).toLowerCase() +
    e.contentsHash.slice(2).toLowerCase() +
    type.toString('hex') +
    type.length.toString(16).padStart(4, '0')
  );
}

/**
 * Splits a POLY_1271 order signature into its parts. Strict: exactly POLY_1271_SIGNATURE_BYTES bytes
 * whose trailing length is that of ORDER_TYPE_STRING_V2 (the only contents an order signature has).
 * @throws AuthError when malformed.
 */
export function decodePoly1271Signature(signature: string): Poly1271Envelope {
  if (typeof signature !== 'string' || !POLY_1271_HEX.test(signature)) {
    throw new AuthError(
      `invalid POLY_1271 signature: expected 0x + ${POLY_1271_SIGNATURE_BYTES * 2} hex (ERC-7739 TypedDataSign envelope)`,
    );
  }
  const h = signature.slice(2).toLowerCase();
  const len = parseInt(h.slice(-4), 16);
  if (len !== ORDER_TYPE_STRING_V2.length)
    throw new AuthError(
      `invalid POLY_1271 signature: contents type length ${len}, expected ${ORDER_TYPE_STRING_V2.length}`,
    );
  return {
    innerSignature: '0x' + h.slice(0, 130),
    appDomainSeparator: '0x' + h.slice(130, 194),
    contentsHash: '0x' + h.slice(194, 258),
    contentsType: Buffer.from(h.slice(258, h.length - 4), 'hex').toString('utf8'),
  };
}

// ---- the fast hasher ------------------------------------------------------------------------------

/**
 * Computes V2 order digests (= order ids) for one (chainId, verifyingContract) domain, fast.
 * Not re-entrant across threads (it reuses buffers), which is fine in one JS realm.
 */
export class OrderHasherV2 {
  /** The EIP-712 domain separator, 0x-prefixed lower-case hex. */
  readonly domainSeparator: string;
  readonly chainId: number;
  readonly verifyingContract: string;
  /** typeHash ‖ 11 field words. */
  readonly #struct = Buffer.alloc(12 * 32);
  /** 0x1901 ‖ domainSeparator ‖ structHash. */
  readonly #outer = Buffer.alloc(66);
  /** TypedDataSign: typeHash ‖ contents ‖ keccak(name) ‖ keccak(version) ‖ chainId ‖ wallet ‖ salt 0. */
  readonly #tds = Buffer.alloc(7 * 32);
  /** The last token id encoded and its word: a market maker signs the same few tokens over and over. */
  #tokenId: bigint = -1n;
  readonly #tokenWord = Buffer.alloc(32);

  /** @throws ValidationError when chainId is not a non-negative safe integer or the contract is not an address. */
  constructor(chainId: number, verifyingContract: string) {
    if (!Number.isSafeInteger(chainId) || chainId < 0)
      throw new ValidationError(`chainId: not a non-negative integer: ${String(chainId)}`);
    if (!isAddress(verifyingContract))
      throw new ValidationError(`verifyingContract: not an address: ${String(verifyingContract)}`);
    this.chainId = chainId;
    this.verifyingContract = verifyingContract;
    this.domainSeparator = TypedDataEncoder.hashDomain({
      name: ORDER_DOMAIN_NAME_V2,
      version: ORDER_DOMAIN_VERSION_V2,
      chainId,
      verifyingContract,
    });
    this.#struct.write(ORDER_TYPE_HASH_V2.slice(2), 0, 'hex');
    this.#outer[0] = 0x19;
    this.#outer[1] = 0x01;
    this.#outer.write(this.domainSeparator.slice(2), 2, 'hex');
    const t = this.#tds;
    t.write(TYPED_DATA_SIGN_TYPE_HASH.slice(2), 0, 'hex');
    t.write(keccak256(toUtf8Bytes(DEPOSIT_WALLET_DOMAIN.name)).slice(2), 64, 'hex');
    t.write(keccak256(toUtf8Bytes(DEPOSIT_WALLET_DOMAIN.version)).slice(2), 96, 'hex');
    writeUint(t, 4, BigInt(chainId), 'chainId');
  }

  /**
   * The EIP-712 struct hash of `o` (32 fresh bytes).
   * @throws ValidationError when a field is out of its type's range (uint256, address, bytes32,
   *   side 0/1, signatureType 0-3).
   */
  structHash(o: SignedOrderStructV2): Buffer {
    const b = this.#struct;
    writeUint(b, 1, o.salt, 'salt');
    writeAddress(b, 2, o.maker, 'maker');
    writeAddress(b, 3, o.signer, 'signer');
    if (o.tokenId === this.#tokenId) {
      this.#tokenWord.copy(b, 4 * 32);
    } else {
      writeUint(b, 4, o.tokenId, 'tokenId');
      b.copy(this.#tokenWord, 0, 4 * 32, 5 * 32);
      this.#tokenId = o.tokenId;
    }
    writeUint(b, 5, o.makerAmount, 'makerAmount');
    writeUint(b, 6, o.takerAmount, 'takerAmount');
    if (o.side !== 0 && o.side !== 1)
      throw new ValidationError(`side: must be 0 (BUY) or 1 (SELL), got ${String(o.side)}`);
    writeSmall(b, 7, o.side);
    const st = o.signatureType;
    if (st !== 0 && st !== 1 && st !== 2 && st !== 3)
      throw new ValidationError(`signatureType: must be 0, 1, 2 or 3, got ${String(st)}`);
    writeSmall(b, 8, st);
    writeUint(b, 9, o.timestamp, 'timestamp');
    writeBytes32(b, 10, o.metadata, 'metadata');
    writeBytes32(b, 11, o.builder, 'builder');
    return keccak256Bytes(b);
  }

  /** The EIP-712 digest of an order given its struct hash (32 fresh bytes). */
  digestOfStructHash(structHash: Uint8Array): Buffer {
    this.#outer.set(structHash, 34);
    return keccak256Bytes(this.#outer);
  }

  /** The EIP-712 digest of `o` (32 fresh bytes). @throws ValidationError as `structHash`. */
  digestBytes(o: SignedOrderStructV2): Buffer {
    return this.digestOfStructHash(this.structHash(o));
  }

  /**
   * The EIP-712 digest of `o` (0x-prefixed lower-case hex): the order id, equal to
   * `TypedDataEncoder.hash(orderDomainV2(...), ORDER_TYPES_V2, o)`.
   * @throws ValidationError as `structHash`.
   */
  digest(o: SignedOrderStructV2): string {
    return '0x' + this.digestBytes(o).toString('hex');
  }

  /**
   * The digest a deposit wallet's owner signs for a POLY_1271 order (ERC-7739): the EIP-712 hash,
   * in THIS exchange's domain, of `TypedDataSign{contents: the order, name "DepositWallet",
   * version "1", chainId, verifyingContract: wallet, salt: 0}` (32 fresh bytes).
   * @throws ValidationError when `wallet` is not an address.
   */
  typedDataSignDigest(structHash: Uint8Array, wallet: string): Buffer {
    const t = this.#tds;
    t.set(structHash, 32);
    writeAddress(t, 5, wallet, 'wallet');
    this.#outer.set(keccak256Bytes(t), 34);
    return keccak256Bytes(this.#outer);
  }
}

const hasherCache = new Map<string, OrderHasherV2>();

/** A cached V2 hasher per (chainId, verifyingContract); the contract defaults to `exchangeAddressV2(negRisk)`. */
export function orderHasherV2(chainId: number, negRisk: boolean, verifyingContract?: string): OrderHasherV2 {
  const vc = verifyingContract ?? exchangeAddressV2(negRisk);
  const key = `${chainId}:${vc.toLowerCase()}`;
  let h = hasherCache.get(key);
  if (h === undefined) {
    h = new OrderHasherV2(chainId, vc);
    hasherCache.set(key, h);
  }
  return h;
}

// ---- sign and recover -----------------------------------------------------------------------------

/**
 * Sign `o` with a raw 32-byte private key (the fast path: native libsecp256k1 when available):
 * its digest (the order id, 0x-hex) and its signature, a 65-byte `r‖s‖v` for types 0-2, the
 * ERC-7739 envelope for POLY_1271 (the key is then the deposit wallet's owner; `o.signer` is the
 * wallet). Deterministic (RFC 6979), low-s, v 27/28: the bytes of the public client for the same fields.
 * @throws ValidationError when a field is out of range; TypeError when the key is not 32 bytes.
 */
export function signOrderWithKeyV2(
  privKey: Uint8Array,
  hasher: OrderHasherV2,
  o: SignedOrderStructV2,
): { digest: string; signature: string } {
  const sh = hasher.structHash(o);
  const d = hasher.digestOfStructHash(sh);
  const digest = '0x' + d.toString('hex');
  if (o.signatureType !== 3) return { digest, signature: signDigest(privKey, d) };
  const inner = signDigest(privKey, hasher.typedDataSignDigest(sh, o.signer));
  const signature =
    '0x' +
    inner.slice(2) +
    hasher.domainSeparator.slice(2) +
    sh.toString('hex') +
    ORDER_TYPE_STRING_V2_HEX +
    ORDER_TYPE_STRING_V2_LEN_HEX;
  return { digest, signature };
}

/**
 * Sign a V2 order with a wallet (an ethers `Wallet`, or `{ signingKey }`): as `signOrderWithKeyV2`,
 * for the default contract of (chainId, negRisk) or `verifyingContract`.
 * @throws ValidationError when a field is out of range.
 */
export function signOrderV2(
  wallet: KeyHolder,
  o: SignedOrderStructV2,
  chainId: number,
  negRisk: boolean,
  verifyingContract?: string,
): { digest: string; signature: string } {
  const key = Buffer.from(wallet.signingKey.privateKey.slice(2), 'hex');
  return signOrderWithKeyV2(key, orderHasherV2(chainId, negRisk, verifyingContract), o);
}

/** What `recoverOrderV2` finds. */
export interface RecoveredOrderV2 {
  /** The order id: the EIP-712 digest (0x-prefixed lower-case hex). */
  readonly digest: string;
  /**
   * The LOWER-CASE address of the EOA whose key signed: for types 0-2 it must equal `o.signer`; for
   * POLY_1271 it is the deposit wallet's owner as the signature claims (whether it owns the wallet
   * `o.signer` is on-chain state, the wallet's ERC-1271 `isValidSignature`: the caller decides).
   */
  readonly recovered: string;
}

/**
 * Recover who signed a V2 order. POLY_1271: the envelope must be the order's (this hasher's domain
 * separator, the order's struct hash, ORDER_TYPE_STRING_V2), and the inner signature is recovered
 * over the `TypedDataSign` digest for the wallet `o.signer`.
 * @throws AuthError on a malformed, non-canonical or inconsistent signature; ValidationError when a
 *   field of `o` is out of range.
 */
export function recoverOrderV2(hasher: OrderHasherV2, o: SignedOrderStructV2, signature: string): RecoveredOrderV2 {
  const sh = hasher.structHash(o);
  const digestBytes = hasher.digestOfStructHash(sh);
  const digest = '0x' + digestBytes.toString('hex');
  if (o.signatureType !== 3) return { digest, recovered: recoverSignerFrom(digestBytes, signature) };
  const e = decodePoly1271Signature(signature);
  if (e.appDomainSeparator !== hasher.domainSeparator)
    throw new AuthError('invalid POLY_1271 signature: signed for another exchange domain');
  if (e.contentsHash !== '0x' + sh.toString('hex'))
    throw new AuthError('invalid POLY_1271 signature: its contents hash is not this order');
  if (e.contentsType !== ORDER_TYPE_STRING_V2)
    throw new AuthError('invalid POLY_1271 signature: its contents type is not the V2 Order');
  const recovered = recoverSignerFrom(hasher.typedDataSignDigest(sh, o.signer), e.innerSignature);
  return { digest, recovered };
}

// ---- the wire -------------------------------------------------------------------------------------

/**
 * The `order` object of a V2 POST /order body, as sent on the wire: the field order and types of the
 * public client's `orderToJsonV2` (which has no `taker`: it is not part of a V2 order).
 */
export interface WireOrderV2 {
  /** A JSON number (the public client sends parseInt of the salt). */
  salt: number;
  maker: string;
  signer: string;
  tokenId: string;
  makerAmount: string;
  takerAmount: string;
  side: 'BUY' | 'SELL';
  signatureType: SignatureTypeV2;
  /** Signing time, unix milliseconds, a decimal string. */
  timestamp: string;
  /** GTD expiration, unix seconds ("0": none); NOT signed. */
  expiration: string;
  metadata: string;
  builder: string;
  /** 0x + 130 hex (types 0-2), or the POLY_1271 envelope (0x + 634 hex). */
  signature: string;
}

/** A wire order of either protocol (what the client posts). */
export type AnyWireOrder = WireOrder | WireOrderV2;

/** The last token id written to a wire, and its decimal text (a 77-digit bigint prints in ~0.3 us). */
let lastTokenId: bigint | undefined;
let lastTokenIdText = '';

/**
 * The wire form of a signed V2 order, with its (unsigned) expiration in unix seconds.
 * @throws ValidationError when the salt is above 2^53-1 (it could not survive a JSON number) or the
 *   expiration is not a uint256.
 */
export function orderToWireV2(o: SignedOrderStructV2, signature: string, expiration: bigint = 0n): WireOrderV2 {
  if (typeof expiration !== 'bigint' || expiration < 0n)
    throw new ValidationError(`expiration: not a uint256: ${String(expiration)}`);
  if (o.tokenId !== lastTokenId) {
    lastTokenIdText = o.tokenId.toString();
    lastTokenId = o.tokenId;
  }
  return {
    salt: saltToWire(o.salt),
    maker: o.maker,
    signer: o.signer,
    tokenId: lastTokenIdText,
    makerAmount: o.makerAmount.toString(),
    takerAmount: o.takerAmount.toString(),
    side: o.side === 0 ? 'BUY' : 'SELL',
    signatureType: o.signatureType,
    timestamp: o.timestamp.toString(),
    expiration: expiration.toString(),
    metadata: o.metadata,
    builder: o.builder,
    signature,
  };
}

/**
 * `orderToWireV2` of an order just signed, FROZEN, with its JSON text computed now and remembered
 * (`wireJson` gives it): see `signedWire` of ./order.ts.
 * @throws ValidationError as `orderToWireV2`
 */
export function signedWireV2(o: SignedOrderStructV2, signature: string, expiration: bigint = 0n): WireOrderV2 {
  const w = orderToWireV2(o, signature, expiration);
  return rememberWireJson(w, plainWire(w) ? wireJsonV2(w) : undefined);
}

const HEX_STRING = /^0x[0-9a-fA-F]*$/;

/** True when no string of `w` needs escaping in JSON (addresses, bytes32 and the signature are plain hex). */
function plainWire(w: WireOrderV2): boolean {
  return (
    isAddress(w.maker) &&
    isAddress(w.signer) &&
    HEX64.test(w.metadata) &&
    HEX64.test(w.builder) &&
    typeof w.signature === 'string' &&
    HEX_STRING.test(w.signature) &&
    (w.side === 'BUY' || w.side === 'SELL')
  );
}

/**
 * `JSON.stringify(w)` of a plain wire (`plainWire`), written out: a few times faster than the
 * generic serialiser, on the signing path. Equal to it (tested).
 */
function wireJsonV2(w: WireOrderV2): string {
  return (
    '{"salt":' +
    w.salt +
    ',"maker":"' +
    w.maker +
    '","signer":"' +
    w.signer +
    '","tokenId":"' +
    w.tokenId +
    '","makerAmount":"' +
    w.makerAmount +
    '","takerAmount":"' +
    w.takerAmount +
    '","side":"' +
    w.side +
    '","signatureType":' +
    w.signatureType +
    ',"timestamp":"' +
    w.timestamp +
    '","expiration":"' +
    w.expiration +
    '","metadata":"' +
    w.metadata +
    '","builder":"' +
    w.builder +
    '","signature":"' +
    w.signature +
    '"}'
  );
}

const UINT_FIELDS_V2 = ['tokenId', 'makerAmount', 'takerAmount', 'timestamp', 'expiration'] as const;

/**
 * Parse and strictly validate the `order` object of a V2 POST /order body.
 *
 * - salt: a non-negative safe-integer JSON number, or a uint256 decimal string;
 * - maker, signer: 0x + 40 hex (returned lower-cased);
 * - tokenId, makerAmount, takerAmount, timestamp (ms), expiration (s): uint256 decimal strings;
 * - side: "BUY" | "SELL"; signatureType: the number 0, 1, 2 or 3;
 * - metadata, builder: 0x + 64 hex (returned lower-cased);
 * - signature: 0x + 130 hex for types 0-2, the POLY_1271 envelope (0x + 634 hex) for type 3.
 * Unknown extra fields are ignored (a `taker` too: it is not signed in V2).
 * @throws ValidationError naming the first bad field; never anything else.
 */
export function orderFromWireV2(json: unknown): {
  order: SignedOrderStructV2;
  expiration: bigint;
  signature: string;
} {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new ValidationError('order: expected a JSON object');
  }
  const w = json as Record<string, unknown>;
  if (w['timestamp'] === undefined && (w['nonce'] !== undefined || w['feeRateBps'] !== undefined)) {
    throw new ValidationError('order.timestamp: missing; this looks like a V1 order (nonce, feeRateBps), not a V2 one');
  }
  const salt = parseWireSalt(w['salt']);
  const maker = w['maker'];
  if (!isAddress(maker)) throw new ValidationError('order.maker: expected an address (0x + 40 hex)');
  const signer = w['signer'];
  if (!isAddress(signer)) throw new ValidationError('order.signer: expected an address (0x + 40 hex)');
  const u: Record<(typeof UINT_FIELDS_V2)[number], bigint> = {
    tokenId: 0n,
    makerAmount: 0n,
    takerAmount: 0n,
    timestamp: 0n,
    expiration: 0n,
  };
  for (const f of UINT_FIELDS_V2) u[f] = parseUint256(w[f], f);
  const side = w['side'];
  if (side !== 'BUY' && side !== 'SELL') throw new ValidationError('order.side: expected "BUY" or "SELL"');
  const st = w['signatureType'];
  if (st !== 0 && st !== 1 && st !== 2 && st !== 3)
    throw new ValidationError('order.signatureType: expected the number 0, 1, 2 or 3');
  // "" is the zero bytes32 (the public service's own order example sends `"metadata": ""`)
  const metadata = w['metadata'] === '' ? ZERO_BYTES32 : w['metadata'];
  if (typeof metadata !== 'string' || !HEX64.test(metadata))
    throw new ValidationError('order.metadata: expected a bytes32 (0x + 64 hex, or "" for zero)');
  const builder = w['builder'] === '' ? ZERO_BYTES32 : w['builder'];
  if (typeof builder !== 'string' || !HEX64.test(builder))
    throw new ValidationError('order.builder: expected a bytes32 (0x + 64 hex, or "" for zero)');
  const signature = w['signature'];
  if (st === 3) {
    if (typeof signature !== 'string' || !POLY_1271_HEX.test(signature)) {
      throw new ValidationError(
        `order.signature: expected the POLY_1271 envelope, 0x + ${POLY_1271_SIGNATURE_BYTES * 2} hex (${POLY_1271_SIGNATURE_BYTES} bytes)`,
      );
    }
  } else if (typeof signature !== 'string' || !SIG_HEX.test(signature)) {
    throw new ValidationError('order.signature: expected 0x + 130 hex (65 bytes)');
  }
  return {
    order: {
      salt,
      maker: toAddress(maker),
      signer: toAddress(signer),
      tokenId: u.tokenId,
      makerAmount: u.makerAmount,
      takerAmount: u.takerAmount,
      side: side === 'BUY' ? 0 : 1,
      signatureType: st,
      timestamp: u.timestamp,
      metadata: metadata.toLowerCase(),
      builder: builder.toLowerCase(),
    },
    expiration: u.expiration,
    signature,
  };
}

/**
 * The protocol of a wire order, by its shape (as the public client's `isV2Order`): 2 when it has
 * `timestamp`, `metadata` and `builder`; 1 when it has `nonce` and `feeRateBps` instead; undefined
 * when it is neither (not an object, or malformed: the strict parser of either says why).
 */
export function wireProtocolOf(json: unknown): 1 | 2 | undefined {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined;
  const w = json as Record<string, unknown>;
  if ('timestamp' in w && 'metadata' in w && 'builder' in w) return 2;
  if ('nonce' in w && 'feeRateBps' in w) return 1;
  return undefined;
}

/** True for a bytes32 (0x + 64 hex). */
export function isBytes32(v: unknown): v is string {
  return typeof v === 'string' && HEX64.test(v);
}
