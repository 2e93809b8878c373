/**
 * L1 auth: the EIP-712 `ClobAuth` attestation that creates (POST /auth/api-key) or derives
 * (GET /auth/derive-api-key) API credentials. Domain {name 'ClobAuthDomain', version '1', chainId}
 * with no verifying contract; timestamp is unix seconds as a string; nonce defaults to 0.
 *
 * Pure and synchronous: signing uses the wallet's SigningKey directly (deterministic RFC 6979).
 */
import { TypedDataEncoder, computeAddress } from 'ethers';
import type { SigningKey, TypedDataField } from 'ethers';
import { AuthError } from '../../core/errors.ts';
import { isAddress } from '../../core/ids.ts';
import { recoverSigner } from './order.ts';

/** The attestation text of every ClobAuth message. */
export const CLOB_AUTH_MESSAGE = 'This message attests that I control the given wallet';

/** EIP-712 types of ClobAuth, in the venue's field order. */
export const CLOB_AUTH_TYPES: { ClobAuth: TypedDataField[] } = {
  ClobAuth: [
    { name: 'address', type: 'address' },
    { name: 'timestamp', type: 'string' },
    { name: 'nonce', type: 'uint256' },
    { name: 'message', type: 'string' },
  ],
};

/** The ClobAuth EIP-712 domain for a chain. */
export function clobAuthDomain(chainId: number): { name: string; version: string; chainId: number } {
  return { name: 'ClobAuthDomain', version: '1', chainId };
}

/** A signer for L1 auth: an ethers `Wallet`, or `{ signingKey }` (the address is then derived). */
export interface L1Signer {
  readonly signingKey: SigningKey;
  readonly address?: string;
}

function addressOf(wallet: L1Signer): string {
  return wallet.address ?? computeAddress(wallet.signingKey.publicKey);
}

/**
 * The EIP-712 digest of a ClobAuth message.
 * @throws AuthError when the address, timestamp or nonce is malformed.
 */
export function clobAuthDigest(
  chainId: number,
  address: string,
  timestamp: number | string,
  nonce: number | bigint | string,
): string {
  if (!isAddress(address)) throw new AuthError('invalid POLY_ADDRESS: expected 0x + 40 hex');
  const ts = String(timestamp);
  if (!/^[0-9]{1,20}$/.test(ts)) throw new AuthError('invalid POLY_TIMESTAMP: expected unix seconds');
  const n = String(nonce);
  if (!/^[0-9]{1,78}$/.test(n) || BigInt(n) >= 1n << 256n)
    throw new AuthError('invalid POLY_NONCE: expected a uint256');
  try {
    return TypedDataEncoder.hash(clobAuthDomain(chainId), CLOB_AUTH_TYPES, {
      address,
      timestamp: ts,
      nonce: BigInt(n),
      message: CLOB_AUTH_MESSAGE,
    });
  } catch (err) {
    throw new AuthError('invalid ClobAuth fields', 'UNAUTHORIZED', { cause: err });
  }
}

/**
 * Sign the ClobAuth attestation (the POLY_SIGNATURE of L1 headers). Synchronous.
 * @param timestamp unix seconds
 * @param nonce default 0; the same nonce derives the same API key
 */
export function signClobAuth(
  wallet: L1Signer,
  chainId: number,
  timestamp: number | string,
  nonce: number | bigint = 0,
): string {
  const digest = clobAuthDigest(chainId, addressOf(wallet), timestamp, nonce);
  return wallet.signingKey.sign(digest).serialized;
}

/**
 * Recover the address that signed a ClobAuth attestation, LOWER-CASE. The caller compares it with
 * POLY_ADDRESS (case-insensitively) and checks the timestamp's freshness itself.
 * @throws AuthError on a malformed address, timestamp, nonce or signature.
 */
export function recoverClobAuth(
  chainId: number,
  address: string,
  timestamp: number | string,
  nonce: number | bigint | string,
  signature: string,
): string {
  return recoverSigner(clobAuthDigest(chainId, address, timestamp, nonce), signature);
}

/** The L1 headers of POST /auth/api-key and GET /auth/derive-api-key. */
export interface L1Headers {
  POLY_ADDRESS: string;
  POLY_SIGNATURE: string;
  POLY_TIMESTAMP: string;
  POLY_NONCE: string;
}

/** Build the L1 headers (POLY_ADDRESS is the wallet's address as it holds it: checksummed for a Wallet). */
export function l1Headers(
  wallet: L1Signer,
  chainId: number,
  timestamp: number | string,
  nonce: number | bigint = 0,
): L1Headers {
  return {
    POLY_ADDRESS: addressOf(wallet),
    POLY_SIGNATURE: signClobAuth(wallet, chainId, timestamp, nonce),
    POLY_TIMESTAMP: String(timestamp),
    POLY_NONCE: String(nonce),
  };
}
