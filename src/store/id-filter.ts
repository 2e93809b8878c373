/**
 * A fixed-size Bloom filter of string ids: `add(id)`, then `mayHave(id)` is true for every id
 * added, and false for most others. A false answer is exact (the id was never added); a true one
 * must be checked. 128 KiB whatever the number of ids: with 20,000 ids about 1 answer in 700 for
 * an id never added is a (harmless) true, with 200,000 about 1 in 10.
 */

const BITS = 1 << 20;
const MASK = BITS - 1;

/** See the module comment. */
export class IdFilter {
  readonly #bits = new Int32Array(BITS >>> 5);

  add(id: string): void {
    const h = hash(id);
    const a = h & MASK;
    const b = second(h);
    this.#bits[a >>> 5]! |= 1 << (a & 31);
    this.#bits[b >>> 5]! |= 1 << (b & 31);
  }

  /** False: `id` was never added. True: it may have been. */
  mayHave(id: string): boolean {
    const h = hash(id);
    const a = h & MASK;
    const b = second(h);
    return (this.#bits[a >>> 5]! & (1 << (a & 31))) !== 0 && (this.#bits[b >>> 5]! & (1 << (b & 31))) !== 0;
  }
}

/** The second bit of a hash (its bits mixed again). */
function second(h: number): number {
  return (Math.imul(h, 0x9e3779b1) >>> 12) & MASK;
}

/** 32-bit FNV-1a of the string's UTF-16 code units, finalised (murmur3's mix). */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
