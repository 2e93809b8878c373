/**
 * Order ids (and trade ids) in pages that are joined into one string each when full, so the
 * collector sees one object per page of ids.
 *
 * For the matching engine only (src/exchange/matching/engine.ts and its modules).
 */

/**
 * Strings per page of StringPages (log2): small, so that a page is joined (and its strings
 * dropped) before a young-generation collection would have to copy them. A page of 2,048 order
 * ids (~135 KB) goes straight to the large-object space; trade ids come more slowly, in pages of 256.
 */
export const ID_PAGE_BITS = 11;
export const TRADE_ID_PAGE_BITS = 8;

/**
 * Strings kept forever (order ids, trade ids), by number, in pages. A full page is joined into one
 * flat string: the garbage collector then sees one object per page instead of one per string
 * (marking the heap is what a big order history costs), and the memory is about halved. A packed
 * string is handed out as a slice of its page (a small view object, no copy).
 */
export class StringPages {
  private readonly size: number;
  private readonly mask: number;
  /** Joined strings of the full pages. */
  private readonly packed: string[] = [];
  /** Start of each string in its page: page p's offsets at [p * (size + 1), p * (size + 1) + size]. */
  private offs: Int32Array;
  /** The strings of the page being filled. */
  private cur: string[] = [];

  /** Pages of 2^bits strings. */
  constructor(private readonly bits: number) {
    this.size = 1 << bits;
    this.mask = this.size - 1;
    this.offs = new Int32Array(this.size + 1);
  }

  get(n: number): string {
    const p = n >>> this.bits;
    if (p === this.packed.length) return this.cur[n & this.mask]!;
    const b = p * (this.size + 1) + (n & this.mask);
    return this.packed[p]!.slice(this.offs[b]!, this.offs[b + 1]!);
  }

  /** True when string n equals s (without building it). */
  equals(n: number, s: string): boolean {
    const p = n >>> this.bits;
    if (p === this.packed.length) return this.cur[n & this.mask] === s;
    const b = p * (this.size + 1) + (n & this.mask);
    const start = this.offs[b]!;
    return this.offs[b + 1]! - start === s.length && this.packed[p]!.startsWith(s, start);
  }

  /** Stores string number n (numbers come in order: 0, 1, 2, ...). */
  set(n: number, s: string): void {
    const cur = this.cur;
    const i = cur.length;
    cur.push(s);
    // the offsets are written now, while the string is in cache
    const b = (n >>> this.bits) * (this.size + 1) + i;
    if (b + 1 >= this.offs.length) {
      const o = new Int32Array(this.offs.length * 2);
      o.set(this.offs);
      this.offs = o;
    }
    this.offs[b + 1] = this.offs[b]! + s.length;
    if (i + 1 < this.size) return;
    // the page is full: pack it
    this.packed.push(cur.join(''));
    this.cur = [];
  }
}
