/**
 * The hot primitives of order signing and verification: keccak-256, secp256k1 signing and public-key
 * recovery. Two interchangeable backends:
 *
 *  - `native`: package `keccak` (its native KeccakState, used directly: no stream object per hash)
 *    and package `secp256k1` (bindings to libsecp256k1). Both ship prebuilt binaries for linux-x64.
 *    Measured on this project's CI machine: signing ~45 us vs ~470 us in ethers v6; recovery
 *    57 us vs 1,390 us; keccak of 416 bytes ~4 us vs ~30-70 us.
 *  - `pure-js`: ethers v6 (noble-curves / noble-hashes). Used when a native module cannot be loaded,
 *    or on request: environment variable `MMKIT_PURE_JS_CRYPTO=1` (read once, at load), or
 *    `setCryptoBackend('pure-js')` at run time.
 *
 * Both backends give identical bytes: keccak is keccak; ECDSA signing is RFC 6979 deterministic
 * (no extra entropy) with low-s normalisation (EIP-2, which the exchange requires) in both
 * libsecp256k1 and noble; v is recid + 27. Tested in test/unit/api/orders.test.ts.
 */
import { Buffer } from 'node:buffer';
import { createRequire } from 'node:module';
import path from 'node:path';
import { SigningKey, Signature, keccak256 as ethersKeccak256 } from 'ethers';

/** Name of a crypto backend. */
export type CryptoBackendName = 'native' | 'pure-js';

/** One implementation of the three primitives. */
export interface CryptoBackend {
  readonly name: CryptoBackendName;
  /** keccak-256 of `data` (32 bytes). */
  keccak256(data: Uint8Array): Buffer;
  /**
   * Uncompressed public key (65 bytes, 0x04 ‖ X ‖ Y) that signed `msg32` with the compact signature
   * `rs` (64 bytes) and recovery id `recid` (0 or 1).
   * @throws Error when no key can be recovered.
   */
  recoverPublicKey(rs: Uint8Array, recid: number, msg32: Uint8Array): Uint8Array;
  /**
   * Sign a 32-byte digest: 0x-prefixed 65-byte hex `r ‖ s ‖ v`, low-s, v = 27 + recid.
   * @throws Error on a malformed key or digest (not 32 bytes, key out of range).
   */
  signDigest(privKey: Uint8Array, digest32: Uint8Array): string;
}

// ---- pure JS (ethers) ----------------------------------------------------------------------------

function hexOf(b: Uint8Array): string {
  return '0x' + Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}

function check32(what: string, b: Uint8Array): void {
  if (!(b instanceof Uint8Array) || b.length !== 32) throw new TypeError(`${what} must be a 32-byte Uint8Array`);
}

/** One cached SigningKey: a bot signs with the same key over and over. */
let lastKeyHex = '';
let lastKey: SigningKey | undefined;

/** The ethers v6 implementation (noble): always available, ~10x slower than native. */
export const pureJsCrypto: CryptoBackend = {
  name: 'pure-js',
  keccak256(data: Uint8Array): Buffer {
    return Buffer.from(ethersKeccak256(data).slice(2), 'hex');
  },
  recoverPublicKey(rs: Uint8Array, recid: number, msg32: Uint8Array): Uint8Array {
    check32('message', msg32);
    if (rs.length !== 64) throw new TypeError('signature must be 64 bytes');
    if (recid !== 0 && recid !== 1) throw new TypeError('recid must be 0 or 1');
    const sig = Signature.from({ r: hexOf(rs.subarray(0, 32)), s: hexOf(rs.subarray(32, 64)), v: 27 + recid });
    return Buffer.from(SigningKey.recoverPublicKey(msg32, sig).slice(2), 'hex');
  },
  signDigest(privKey: Uint8Array, digest32: Uint8Array): string {
    check32('private key', privKey);
    check32('digest', digest32);
    const hex = hexOf(privKey);
    if (hex !== lastKeyHex || lastKey === undefined) {
      lastKey = new SigningKey(hex);
      lastKeyHex = hex;
    }
    return lastKey.sign(digest32).serialized;
  },
};

// ---- native (keccak + libsecp256k1) --------------------------------------------------------------

interface NativeKeccakState {
  initialize(rate: number, capacity: number): void;
  absorb(data: Buffer): void;
  squeeze(length: number): Buffer;
}
interface NativeSecp256k1 {
  ecdsaSign(msg32: Uint8Array, seckey: Uint8Array): { signature: Uint8Array; recid: number };
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed?: boolean): Uint8Array;
}

/** Why the native backend is unavailable (undefined when it loaded). */
export let nativeCryptoError: string | undefined;

function loadNative(): CryptoBackend | undefined {
  try {
    const req = createRequire(import.meta.url);
    // `secp256k1/bindings` throws when the addon cannot load (the package's index would silently
    // fall back to elliptic; we want to know, and to fall back to ethers instead).
    const secp = req('secp256k1/bindings') as NativeSecp256k1;
    // keccak: load its addon through node-gyp-build (as keccak/bindings.js does) to reach the
    // KeccakState class itself; the package's API wraps every hash in a Transform stream.
    const keccakPkg = req.resolve('keccak/package.json');
    const gyp = createRequire(keccakPkg)('node-gyp-build') as (dir: string) => unknown;
    const KeccakState = gyp(path.dirname(keccakPkg)) as new () => NativeKeccakState;
    if (typeof KeccakState !== 'function') throw new Error('keccak: native add-on did not load');
    const state = new KeccakState();
    const nativeKeccak = (data: Uint8Array): Buffer => {
      state.initialize(1088, 512);
      state.absorb(Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength));
      return state.squeeze(32);
    };
    // Self-test against the pure-JS reference: a broken binary must not sign orders.
    const probe = Buffer.from('mmkit');
    if (!nativeKeccak(probe).equals(pureJsCrypto.keccak256(probe))) throw new Error('keccak: native self-test failed');
    return {
      name: 'native',
      keccak256: nativeKeccak,
      recoverPublicKey(rs: Uint8Array, recid: number, msg32: Uint8Array): Uint8Array {
        return secp.ecdsaRecover(rs, recid, msg32, false);
      },
      signDigest(privKey: Uint8Array, digest32: Uint8Array): string {
        check32('private key', privKey);
        check32('digest', digest32);
        const r = secp.ecdsaSign(digest32, privKey);
        return (
          '0x' +
          Buffer.from(r.signature.buffer, r.signature.byteOffset, 64).toString('hex') +
          (r.recid === 0 ? '1b' : '1c')
        );
      },
    };
  } catch (err) {
    nativeCryptoError = err instanceof Error ? err.message : String(err);
    return undefined;
  }
}

/** The native backend, or undefined when its modules could not be loaded here. */
export const nativeCrypto: CryptoBackend | undefined = loadNative();

const envPureJs = /^(1|true|yes)$/i.test(process.env.MMKIT_PURE_JS_CRYPTO ?? '');
let active: CryptoBackend = envPureJs || nativeCrypto === undefined ? pureJsCrypto : nativeCrypto;

/** The backend in use. */
export function cryptoBackend(): CryptoBackend {
  return active;
}

/**
 * Switch backend for the whole process (tests, benchmarks).
 * @throws Error when 'native' is asked for but unavailable (see `nativeCryptoError`).
 */
export function setCryptoBackend(name: CryptoBackendName): void {
  if (name === 'native') {
    if (nativeCrypto === undefined) throw new Error(`native crypto unavailable: ${nativeCryptoError ?? 'unknown'}`);
    active = nativeCrypto;
  } else {
    active = pureJsCrypto;
  }
}

/** keccak-256 of `data`, with the active backend. */
export function keccak256Bytes(data: Uint8Array): Buffer {
  return active.keccak256(data);
}

/**
 * Uncompressed public key (65 bytes, 0x04 ‖ X ‖ Y) that signed `msg32` with the compact signature
 * `rs` (64 bytes) and recovery id `recid` (0 or 1), with the active backend.
 * @throws Error when no key can be recovered.
 */
export function recoverPublicKey(rs: Uint8Array, recid: number, msg32: Uint8Array): Uint8Array {
  return active.recoverPublicKey(rs, recid, msg32);
}

/**
 * Sign a 32-byte digest with a 32-byte private key, with the active backend: the 0x-prefixed 65-byte
 * hex signature `r ‖ s ‖ v` (RFC 6979 deterministic, low-s, v = 27 + recid), the form of ethers'
 * `Signature.serialized` and of the venue's order signatures.
 * @throws TypeError when the key or digest is not 32 bytes; Error when the key is out of range.
 */
export function signDigest(privKey: Uint8Array, digest32: Uint8Array): string {
  return active.signDigest(privKey, digest32);
}
