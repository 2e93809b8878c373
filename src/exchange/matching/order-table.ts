/**
 * The matching engine's order table: every order ever accepted, as rows of the layout in
 * src/exchange/matching/order-layout.ts, with an open-addressing hash index from id to handle.
 *
 * For the matching engine only (src/exchange/matching/engine.ts).
 */
import { ID_PAGE_BITS, StringPages } from './id-pages.ts';
import * as layout from './order-layout.ts';

// V8 detail, for speed only: local copies of the layout constants (see the note in engine.ts).
const { DS, I_TMORE, I_TRADE, IS, IS_BITS, NIL, PAGE_BITS, PAGE_MASK, PAGE_SIZE } = layout;

/**
 * Every order ever accepted: an Int32 row and a Float64 row per handle (in pages of PAGE_SIZE
 * orders, so the table grows without copying), its id (StringPages), and the id index: open
 * addressing with linear probing at load <= 3/4, each slot a (hash, handle + 1) pair of Int32s, 0
 * meaning empty.
 */
export class OrderTable {
  n = 0;
  readonly ip: Int32Array[] = [];
  readonly dp: Float64Array[] = [];
  readonly ids = new StringPages(ID_PAGE_BITS);
  /** Trade-link pool: (trade sequence number, older link) pairs chaining an order's later trades. */
  links = new Int32Array(2048);
  nLinks = 0;
  /** The id index: 2^bits slots, addressed by the top bits of the hash (so growing is a linear merge). */
  private slots: Int32Array;
  private bits: number;

  constructor() {
    this.bits = 11;
    this.slots = new Int32Array(2 << this.bits);
  }

  gi(o: number, f: number): number {
    return this.ip[o >>> PAGE_BITS]![((o & PAGE_MASK) << IS_BITS) + f]!;
  }
  si(o: number, f: number, v: number): void {
    this.ip[o >>> PAGE_BITS]![((o & PAGE_MASK) << IS_BITS) + f] = v;
  }
  gd(o: number, f: number): number {
    return this.dp[o >>> PAGE_BITS]![(o & PAGE_MASK) * DS + f]!;
  }

  /** The handle of the order with this id (hash `h`), or NIL. */
  find(id: string, h: number): number {
    const sl = this.slots;
    const mask = (1 << this.bits) - 1;
    for (let s = h >>> (32 - this.bits); ; s = (s + 1) & mask) {
      const v = sl[2 * s + 1]!;
      if (v === 0) return NIL;
      if (sl[2 * s] === h && this.ids.equals(v - 1, id)) return v - 1;
    }
  }

  /** Appends an order (the caller fills its rows) and indexes its id. */
  add(id: string, h: number): number {
    const o = this.n++;
    if ((o & PAGE_MASK) === 0) {
      this.ip.push(new Int32Array(PAGE_SIZE * IS));
      this.dp.push(new Float64Array(PAGE_SIZE * DS));
    }
    this.ids.set(o, id);
    if (4 * this.n > 3 << this.bits) this.grow();
    const sl = this.slots;
    const mask = (1 << this.bits) - 1;
    let s = h >>> (32 - this.bits);
    while (sl[2 * s + 1] !== 0) s = (s + 1) & mask;
    sl[2 * s] = h;
    sl[2 * s + 1] = o + 1;
    return o;
  }

  /** Records that order `o` took part in trade number `seq`. */
  noteTrade(o: number, seq: number): void {
    const IP = this.ip[o >>> PAGE_BITS]!;
    const ib = (o & PAGE_MASK) << IS_BITS;
    if (IP[ib + I_TRADE] === 0) {
      IP[ib + I_TRADE] = seq;
      return;
    }
    if (2 * this.nLinks === this.links.length) {
      const l = new Int32Array(this.links.length * 2);
      l.set(this.links);
      this.links = l;
    }
    const k = this.nLinks++;
    this.links[2 * k] = seq;
    this.links[2 * k + 1] = IP[ib + I_TMORE]!;
    IP[ib + I_TMORE] = k;
  }

  /**
   * Doubles the id index. Slots are addressed by the top bits of the hash, so old slot s goes to new
   * slot 2s or 2s+1: reading the old table in order writes the new one (almost) in order, with no
   * random memory access; the hashes are kept in the table, the ids are not touched.
   */
  private grow(): void {
    const old = this.slots;
    const bits = this.bits + 1;
    const sl = new Int32Array(old.length * 2);
    const mask = (1 << bits) - 1;
    const shift = 32 - bits;
    for (let j = 0; j < old.length; j += 2) {
      const v = old[j + 1]!;
      if (v === 0) continue;
      const h = old[j]!;
      let s = h >>> shift;
      while (sl[2 * s + 1] !== 0) s = (s + 1) & mask;
      sl[2 * s] = h;
      sl[2 * s + 1] = v;
    }
    this.slots = sl;
    this.bits = bits;
  }
}

/**
 * 32-bit hash of an order id for the id index (FNV-1a, murmur finaliser). Ids longer than 32
 * characters (order digests are 66) are hashed on their length, first 8 and last 24 characters:
 * plenty for digests and uuids, and a collision only costs a probe, never correctness.
 */
export function hashId(s: string): number {
  const n = s.length;
  let h = 0x811c9dc5 ^ n;
  if (n <= 32) {
    for (let i = 0; i < n; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  } else {
    for (let i = 0; i < 8; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
    for (let i = n - 24; i < n; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}
