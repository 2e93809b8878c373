/**
 * GTD orders of the matching engine in a binary min-heap keyed by (expiresAt, handle), with lazy
 * deletion.
 *
 * For the matching engine only (src/exchange/matching/engine.ts).
 */

/**
 * Binary min-heap of (expiresAt, handle) pairs in typed arrays, earliest expiry first, then earliest
 * acceptance. The engine deletes lazily: an entry whose order is no longer LIVE is skipped when it
 * surfaces, and the heap is rebuilt when most of it is dead.
 */
export class ExpiryHeap {
  n = 0;
  private key = new Float64Array(256);
  private val = new Int32Array(256);

  peekKey(): number {
    return this.n === 0 ? Infinity : this.key[0]!;
  }

  push(k: number, v: number): void {
    if (this.n === this.key.length) {
      const key = new Float64Array(this.n * 2);
      key.set(this.key);
      this.key = key;
      const val = new Int32Array(this.n * 2);
      val.set(this.val);
      this.val = val;
    }
    const key = this.key;
    const val = this.val;
    let i = this.n++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pk = key[p]!;
      if (pk < k || (pk === k && val[p]! < v)) break;
      key[i] = pk;
      val[i] = val[p]!;
      i = p;
    }
    key[i] = k;
    val[i] = v;
  }

  /** Removes the top entry and returns its handle (the heap must not be empty). */
  pop(): number {
    const key = this.key;
    const val = this.val;
    const top = val[0]!;
    const n = --this.n;
    if (n > 0) this.siftDown(0, key[n]!, val[n]!);
    return top;
  }

  private siftDown(i: number, k: number, v: number): void {
    const key = this.key;
    const val = this.val;
    const n = this.n;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      let c = l;
      const r = l + 1;
      if (r < n && (key[r]! < key[l]! || (key[r] === key[l] && val[r]! < val[l]!))) c = r;
      const ck = key[c]!;
      if (k < ck || (k === ck && v < val[c]!)) break;
      key[i] = ck;
      val[i] = val[c]!;
      i = c;
    }
    key[i] = k;
    val[i] = v;
  }

  /** Keeps only the entries whose handle passes `keep`, and restores the heap order. */
  filter(keep: (v: number) => boolean): void {
    const key = this.key;
    const val = this.val;
    let m = 0;
    for (let i = 0; i < this.n; i++) {
      if (!keep(val[i]!)) continue;
      key[m] = key[i]!;
      val[m] = val[i]!;
      m++;
    }
    this.n = m;
    for (let i = (m >> 1) - 1; i >= 0; i--) this.siftDown(i, key[i]!, val[i]!);
  }
}
