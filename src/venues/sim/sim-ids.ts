/**
 * Deterministic ids of the simulated venue: order ids (0x + 64 hex) reproducible from the seed, a
 * namespace and a counter, and the one-bit-per-order memory of dropped ids that keeps a pruned
 * order's id a duplicate forever.
 */

/** Two lowercase hex digits of each byte value (hexId's table: a lookup per byte instead of toString/padStart per word). */
const HEX2: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** Eight hex digits of a 32-bit unsigned value. */
function hex8(v: number): string {
  return HEX2[v >>> 24]! + HEX2[(v >>> 16) & 255]! + HEX2[(v >>> 8) & 255]! + HEX2[v & 255]!;
}

/** The first hash of hexId's words. */
function hashSeed(seed: number, ns: number, n: number): number {
  return (Math.imul(seed | 0, 0x9e3779b1) ^ Math.imul(ns, 0x85ebca6b) ^ Math.imul(n | 0, 0xc2b2ae35)) >>> 0;
}

/** One 32-bit word of hexId's hash part, from the running hash `h`. */
function hashWord(h: number): number {
  let t = h;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return (t ^ (t >>> 14)) >>> 0;
}

/**
 * A 0x + 64 hex id, reproducible from (seed, namespace, n) and unique per (namespace, n): namespace
 * 1 is our orders (`prepare`), 2 the recorded world's takers that filled us.
 */
export function hexId(seed: number, ns: number, n: number): string {
  let h = hashSeed(seed, ns, n);
  let out = '0x';
  for (let i = 0; i < 6; i++) {
    h = (h + 0x6d2b79f5 + i) >>> 0;
    out += hex8(hashWord(h));
  }
  // n < 2^53: its high and low 32 bits
  return out + hex8(Math.floor(n / 0x100000000) >>> 0) + hex8(n >>> 0);
}

/** The value of the lowercase hex digit at `id[at]`, or -1. */
function hexDigit(id: string, at: number): number {
  const c = id.charCodeAt(at);
  return c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1;
}

/** True when `id[at..at+8)` is hex8(v) (lowercase). */
function isHex8(id: string, at: number, v: number): boolean {
  for (let k = 0; k < 8; k++) if (hexDigit(id, at + k) !== ((v >>> (28 - 4 * k)) & 15)) return false;
  return true;
}

/**
 * The sequence number of an order id made by `prepare` with `seed` (undefined for any other id):
 * `n` with `hexId(seed, 1, n) === id`, 0 < n < 2^31, read and checked digit by digit (no string
 * made: the simulated venue asks for each order it drops).
 */
export function seqOf(id: string, seed: number): number | undefined {
  if (id.length !== 66 || id.charCodeAt(0) !== 48 || id.charCodeAt(1) !== 120) return undefined; // '0x'
  // the tail: hex8 of the high 32 bits (0 below 2^31), then of the low ones
  let n = 0;
  for (let k = 50; k < 66; k++) {
    const d = hexDigit(id, k);
    if (d < 0) return undefined;
    n = n * 16 + d;
  }
  if (!(n > 0 && n < 2 ** 31)) return undefined;
  let h = hashSeed(seed, 1, n);
  for (let i = 0; i < 6; i++) {
    h = (h + 0x6d2b79f5 + i) >>> 0;
    if (!isHex8(id, 2 + 8 * i, hashWord(h))) return undefined;
  }
  return n;
}

/**
 * The ids of our orders dropped from memory (see SimVenueOptions.retainMs), one bit per sequence
 * number, so a dropped order's id still counts as a duplicate if placed again.
 */
export class DroppedIds {
  #bits = new Uint8Array(1024);
  constructor(private readonly seed: number) {}

  /** Remembers a dropped order's sequence number (the tail of ids made by `prepare`); other ids are ignored. */
  add(id: string): void {
    const n = seqOf(id, this.seed);
    if (n === undefined) return;
    let bits = this.#bits;
    if (n >> 3 >= bits.length) {
      const grown = new Uint8Array(Math.max(bits.length * 2, (n >> 3) + 1));
      grown.set(bits);
      this.#bits = bits = grown;
    }
    bits[n >> 3]! |= 1 << (n & 7);
  }

  /** Whether `id` is one of ours that was dropped. */
  has(id: string): boolean {
    if (id.length !== 66) return false;
    const n = Number.parseInt(id.slice(50), 16);
    const bits = this.#bits;
    // the bit first (cheap, nearly always clear), then whether the id really is ours
    if (!(n >= 0 && n >> 3 < bits.length && (bits[n >> 3]! & (1 << (n & 7))) !== 0)) return false;
    return seqOf(id, this.seed) === n;
  }
}
