/**
 * What the signed orders of both exchange protocols share (V1: ./order.ts, V2: ./order-v2.ts):
 * the ECDSA recovery of a signer, the key holder type, the hand-rolled ABI words of the fast
 * hashers, the strict parsers of wire fields, and the remembered JSON text of signed wire orders.
 *
 * Pure: no I/O, no wall clock.
 */
import { Buffer } from 'node:buffer';
import type { SigningKey } from 'ethers';
import { AuthError, ValidationError } from '../../core/errors.ts';
import { isAddress, isUintString } from '../../core/ids.ts';
import { keccak256Bytes, recoverPublicKey } from './fast-crypto.ts';

export const MAX_UINT256 = (1n << 256n) - 1n;
/** 0x + 32 bytes of hex (a digest, a bytes32 field). */
export const HEX64 = /^0x[0-9a-fA-F]{64}$/;
/** 0x + 65 bytes of hex: an ECDSA signature r ‖ s ‖ v. */
export const SIG_HEX = /^0x[0-9a-fA-F]{130}$/;
/** bytes32 zero, the default `metadata` and `builder` of a V2 order. */
export const ZERO_BYTES32 = '0x0000000000000000000000000000000000000000000000000000000000000000';
/** secp256k1 group order / 2: signatures with a larger s are malleable twins (EIP-2), refused. */
const SECP256K1_HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

/** Anything that holds a secp256k1 key: an ethers `Wallet`, or `{ signingKey }`. */
export interface KeyHolder {
  readonly signingKey: SigningKey;
}

/**
 * Recover the signer's address from a 32-byte digest and a 65-byte `r‖s‖v` signature.
 *
 * Returns the address in LOWER CASE (no EIP-55 checksum: it saves a keccak and matches
 * `toAddress`); compare with `toAddress(x)` or case-insensitively.
 *
 * Accepted like the chain's ECDSA (OpenZeppelin): v is 27 or 28 (0 and 1 are also accepted as the
 * y-parity), s is in the lower half of the curve order (EIP-2; high-s twins are refused).
 * @throws AuthError on a malformed or unrecoverable signature; ValidationError on a malformed digest.
 */
export function recoverSigner(digest: string, signature: string): string {
  if (typeof digest !== 'string' || !HEX64.test(digest))
    throw new ValidationError('digest: not 0x-prefixed 32-byte hex');
  return recoverSignerFrom(Buffer.from(digest.slice(2), 'hex'), signature);
}

/**
 * `recoverSigner` with the digest as 32 bytes (e.g. straight from a hasher).
 * @throws AuthError on a malformed or unrecoverable signature; ValidationError when the digest is not 32 bytes.
 */
export function recoverSignerFrom(digest: Uint8Array, signature: string): string {
  if (!(digest instanceof Uint8Array) || digest.length !== 32) throw new ValidationError('digest: not 32 bytes');
  if (typeof signature !== 'string' || !SIG_HEX.test(signature)) {
    throw new AuthError('invalid signature: expected 0x-prefixed 65-byte hex (r, s, v)');
  }
  const v = parseInt(signature.slice(130, 132), 16);
  if (v !== 27 && v !== 28 && v !== 0 && v !== 1) throw new AuthError(`invalid signature: bad v ${v}`);
  const s = BigInt('0x' + signature.slice(66, 130));
  const r = signature.slice(2, 66);
  if (s === 0n || s > SECP256K1_HALF_N) throw new AuthError('invalid signature: s out of range (non-canonical)');
  if (/^0+$/.test(r)) throw new AuthError('invalid signature: r is zero');
  const sig = Buffer.from(signature.slice(2, 130), 'hex');
  let pub: Uint8Array;
  try {
    pub = recoverPublicKey(sig, v >= 27 ? v - 27 : v, digest);
  } catch (err) {
    throw new AuthError('invalid signature: cannot recover a public key', 'UNAUTHORIZED', { cause: err });
  }
  // pub = 0x04 ‖ X ‖ Y (uncompressed); the address is the last 20 bytes of keccak256(X ‖ Y).
  return '0x' + keccak256Bytes(pub.subarray(1)).toString('hex', 12);
}

// ---- ABI words of the hand-rolled encoders (word = 32 bytes, big-endian) --------------------------

/** Writes the uint256 `v` as word `word` of `b`. @throws ValidationError when out of range. */
export function writeUint(b: Buffer, word: number, v: bigint, field: string): void {
  if (typeof v !== 'bigint' || v < 0n || v > MAX_UINT256)
    throw new ValidationError(`${field}: not a uint256: ${String(v)}`);
  const end = (word + 1) * 32;
  const start = word * 32;
  if (v <= 0xffffffffn) {
    // Fast path for the common small fields.
    b.fill(0, start, end - 4);
    b.writeUInt32BE(Number(v), end - 4);
    return;
  }
  if (v <= 0xffffffffffffn) {
    // Millisecond timestamps, most salts: 6 bytes.
    b.fill(0, start, end - 6);
    b.writeUIntBE(Number(v), end - 6, 6);
    return;
  }
  let hex = v.toString(16);
  if (hex.length & 1) hex = '0' + hex;
  const off = end - hex.length / 2;
  b.fill(0, start, off);
  b.write(hex, off, 'hex');
}

/** Writes the address `a` (0x + 40 hex, any case) as word `word`. @throws ValidationError when not an address. */
export function writeAddress(b: Buffer, word: number, a: string, field: string): void {
  if (!isAddress(a)) throw new ValidationError(`${field}: not an address: ${String(a)}`);
  const start = word * 32;
  b.fill(0, start, start + 12);
  b.write(a.slice(2), start + 12, 'hex');
}

/** Writes a small unsigned integer (uint8) as word `word`; the caller checks its range. */
export function writeSmall(b: Buffer, word: number, v: number): void {
  const start = word * 32;
  b.fill(0, start, start + 31);
  b[start + 31] = v;
}

/** Writes the bytes32 `h` (0x + 64 hex, any case) as word `word`. @throws ValidationError when malformed. */
export function writeBytes32(b: Buffer, word: number, h: string, field: string): void {
  const start = word * 32;
  if (h === ZERO_BYTES32) {
    b.fill(0, start, start + 32);
    return;
  }
  if (typeof h !== 'string' || !HEX64.test(h)) throw new ValidationError(`${field}: not a bytes32 (0x + 64 hex)`);
  b.write(h.slice(2), start, 'hex');
}

// ---- wire parsing ---------------------------------------------------------------------------------

/** A uint256 decimal string of field `order.<field>`. @throws ValidationError otherwise. */
export function parseUint256(v: unknown, field: string): bigint {
  if (!isUintString(v)) throw new ValidationError(`order.${field}: expected a uint256 decimal string`);
  const n = BigInt(v);
  if (n > MAX_UINT256) throw new ValidationError(`order.${field}: exceeds uint256`);
  return n;
}

/**
 * The salt of a wire order: a non-negative safe-integer JSON number (what the public clients send:
 * `parseInt` of the salt), or a uint256 decimal string.
 * @throws ValidationError otherwise.
 */
export function parseWireSalt(rawSalt: unknown): bigint {
  if (typeof rawSalt === 'number') {
    if (!Number.isSafeInteger(rawSalt) || rawSalt < 0) {
      throw new ValidationError('order.salt: expected a non-negative integer (at most 2^53-1 as a JSON number)');
    }
    return BigInt(rawSalt);
  }
  if (typeof rawSalt === 'string') return parseUint256(rawSalt, 'salt');
  throw new ValidationError('order.salt: expected a number or a decimal string');
}

/** The salt as a JSON number. @throws ValidationError when above 2^53-1 (it could not survive JSON exactly). */
export function saltToWire(salt: bigint): number {
  if (salt > BigInt(Number.MAX_SAFE_INTEGER) || salt < 0n) {
    throw new ValidationError(`salt: ${salt} does not fit a JSON number exactly (max 2^53-1)`);
  }
  return Number(salt);
}

// ---- JSON text of signed wire orders --------------------------------------------------------------

/** The JSON text of wire orders frozen by `rememberWireJson`, computed once when the order was signed. */
const wireJsonCache = new WeakMap<object, string>();

/**
 * Freezes a wire order just signed (a signed order never changes: its id is its hash, and a retry
 * must resend the identical bytes) and remembers its JSON text, so that posting it later (often
 * long after a speculative signature made in idle time) does not serialise it again. `json`, when
 * given, is that text already made (it must equal `JSON.stringify(w)`).
 */
export function rememberWireJson<W extends object>(w: W, json?: string): Readonly<W> {
  const frozen = Object.freeze(w);
  wireJsonCache.set(frozen, json ?? JSON.stringify(frozen));
  return frozen;
}

/**
 * `JSON.stringify(w)` of a wire order (V1 or V2): remembered for a wire from `signedWire` /
 * `signedWireV2` (frozen, so the text cannot go stale), computed otherwise.
 */
export function wireJson(w: object): string {
  return wireJsonCache.get(w) ?? JSON.stringify(w);
}
