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

/**
 * A 0x + 64 hex id, reproducible from (seed, namespace, n) and unique per (namespace, n): namespace
 * 1 is our orders (`prepare`), 2 the recorded world's takers that filled us.
 */
export function hexId(seed: number, ns: number, n: number): string {
  let h = (Math.imul(seed | 0, 0x9e3779b1) ^ Math.imul(ns, 0x85ebca6b) ^ Math.imul(n | 0, 0xc2b2ae35)) >>> 0;
  let out = '0x';
  for (let i = 0; i < 6; i++) {
    h = (h + 0x6d2b79f5 + i) >>> 0;
    let t = h;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out += hex8((t ^ (t >>> 14)) >>> 0);
  }
  // n < 2^53: its high and low 32 bits
  return out + hex8(Math.floor(n / 0x100000000) >>> 0) + hex8(n >>> 0);
}

/** The sequence number of an order id made by `prepare` with `seed` (undefined for any other id). */
export function seqOf(id: string, seed: number): number | undefined {
  if (id.length !== 66) return undefined;
  const n = Number.parseInt(id.slice(50), 16);
  return Number.isSafeInteger(n) && n > 0 && n < 2 ** 31 && hexId(seed, 1, n) === id ? n : undefined;
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
