/**
 * The two hot primitives of order verification, on native code: keccak-256 (package `keccak`) and
 * secp256k1 public-key recovery (package `secp256k1`, bindings to libsecp256k1). Both packages ship
 * prebuilt binaries for linux-x64 and fall back to pure JS elsewhere. Measured on this project's CI
 * machine: recovery 57 us native vs 1,390 us in ethers v6; keccak of 416 bytes 4 us vs 29 us.
 */
import createKeccakHash from 'keccak';
import secp256k1 from 'secp256k1';

export function keccak256Bytes(data: Uint8Array): Buffer {
  return createKeccakHash('keccak256').update(Buffer.from(data.buffer, data.byteOffset, data.byteLength)).digest();
}

/**
 * Uncompressed public key (65 bytes, 0x04 ‖ X ‖ Y) that signed `msg32` with the compact signature
 * `rs` (64 bytes) and recovery id `recid` (0 or 1).
 * @throws Error when no key can be recovered.
 */
export function recoverPublicKey(rs: Uint8Array, recid: number, msg32: Uint8Array): Uint8Array {
  return secp256k1.ecdsaRecover(rs, recid, msg32, false);
}
