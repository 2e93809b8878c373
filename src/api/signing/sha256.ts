/**
 * SHA-256 in plain JavaScript (FIPS 180-4), for the HMAC of L2 request signatures (./hmac.ts).
 *
 * Why not node:crypto: an L2 signature is computed on the tick-to-order path (one per cancel and
 * per order batch), over short messages (a cancel is ~170 bytes, a batch of two orders ~1.3 KB),
 * usually after the process slept waiting for the socket. Measured on this project's machine, the
 * first native hash after such a pause costs ~45-50 us more than the next one (cold native code
 * and provider lookup), while this code, kept hot by the JIT, hashes a short message in a few
 * microseconds whether or not it ran just before. Long messages are left to node:crypto (see
 * `JS_MAX_BYTES` in ./hmac.ts), where its throughput wins.
 *
 * The state is an Int32Array of 8 words; `compress` folds 64-byte blocks into it. HMAC keys are
 * prepared once (the state after the ipad/opad block), so a signature hashes only the message and
 * one outer block. Verified against node:crypto in test/unit/api/signing.test.ts (vectors and
 * random keys and messages) and by a self-test when ./hmac.ts loads.
 */

/** The first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

/** The initial hash value. */
export const SHA256_IV: Readonly<Int32Array> = new Int32Array([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]);

/** The message schedule (one per realm: hashing is synchronous). */
const W = new Int32Array(64);

/** Folds the 64-byte block at `block[off..off+64)` into the state `h` (8 words). */
export function sha256Compress(h: Int32Array, block: Uint8Array, off: number): void {
  const w = W;
  for (let i = 0; i < 16; i++) {
    const j = off + i * 4;
    w[i] = (block[j]! << 24) | (block[j + 1]! << 16) | (block[j + 2]! << 8) | block[j + 3]!;
  }
  for (let i = 16; i < 64; i++) {
    const x = w[i - 15]!;
    const y = w[i - 2]!;
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) | 0;
  }
  let a = h[0]!;
  let b = h[1]!;
  let c = h[2]!;
  let d = h[3]!;
  let e = h[4]!;
  let f = h[5]!;
  let g = h[6]!;
  let hh = h[7]!;
  for (let i = 0; i < 64; i++) {
    const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    // Ch(e, f, g) = g ^ (e & (f ^ g)); Maj(a, b, c) = (a & b) | (c & (a | b)): the usual identities
    const t1 = (hh + s1 + (g ^ (e & (f ^ g))) + K[i]! + w[i]!) | 0;
    const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (s0 + ((a & b) | (c & (a | b)))) | 0;
    hh = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  h[0] = (h[0]! + a) | 0;
  h[1] = (h[1]! + b) | 0;
  h[2] = (h[2]! + c) | 0;
  h[3] = (h[3]! + d) | 0;
  h[4] = (h[4]! + e) | 0;
  h[5] = (h[5]! + f) | 0;
  h[6] = (h[6]! + g) | 0;
  h[7] = (h[7]! + hh) | 0;
}

/** Writes the state `h` as 32 big-endian bytes at `out[off..off+32)`. */
export function sha256Digest(h: Int32Array, out: Uint8Array, off: number): void {
  for (let i = 0; i < 8; i++) {
    const v = h[i]!;
    const j = off + i * 4;
    out[j] = v >>> 24;
    out[j + 1] = v >>> 16;
    out[j + 2] = v >>> 8;
    out[j + 3] = v;
  }
}

/**
 * Pads the `n` message bytes at the start of `buf` (the final blocks of a message whose first
 * `prefixBytes` bytes were already compressed) and folds every block into `h`. `buf` must have room
 * for the padding: n + 72 bytes.
 */
export function sha256Finish(h: Int32Array, buf: Uint8Array, n: number, prefixBytes: number): void {
  const end = (n + 9 + 63) & ~63;
  buf[n] = 0x80;
  // at most 63 zero bytes: a plain loop (a Buffer's fill goes through Node's checks and a native call)
  for (let i = n + 1; i < end - 8; i++) buf[i] = 0;
  // the length in bits, big-endian over 64 bits (messages here stay far below 2^53 bits)
  const bits = (prefixBytes + n) * 8;
  const hi = Math.floor(bits / 0x100000000);
  const lo = bits >>> 0;
  buf[end - 8] = hi >>> 24;
  buf[end - 7] = hi >>> 16;
  buf[end - 6] = hi >>> 8;
  buf[end - 5] = hi;
  buf[end - 4] = lo >>> 24;
  buf[end - 3] = lo >>> 16;
  buf[end - 2] = lo >>> 8;
  buf[end - 1] = lo;
  for (let off = 0; off < end; off += 64) sha256Compress(h, buf, off);
}
