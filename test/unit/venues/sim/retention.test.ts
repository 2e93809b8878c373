/**
 * FinishedOrders (src/venues/sim/retention.ts) against the plain version it replaces: at each
 * sweep, scan every order kept, stamp a finished one with the sweep's time the first time it is
 * seen finished, and drop it at a later sweep at least `retainMs` after that stamp.
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../../../../src/core/random.ts';
import { FinishedOrders } from '../../../../src/venues/sim/retention.ts';

interface Order {
  readonly id: number;
  done: boolean;
}

/** The plain sweep: a scan of every order kept (the simulated venue's before FinishedOrders). */
class PlainSweep {
  readonly #doneAt = new Map<Order, number>();
  constructor(
    private readonly retainMs: number,
    private readonly kept: Map<number, Order>,
  ) {}
  sweep(now: number, drop: (o: Order) => void): void {
    if (this.retainMs === Infinity) return;
    const before = now - this.retainMs;
    for (const o of this.kept.values()) {
      if (!o.done) continue;
      const at = this.#doneAt.get(o);
      if (at === undefined) this.#doneAt.set(o, now);
      else if (at <= before) {
        this.#doneAt.delete(o);
        drop(o);
      }
    }
  }
}

/** Orders placed and finished at random times, swept at irregular times: the ids dropped at each sweep. */
function run(retainMs: number, seed: number, fast: boolean): number[][] {
  const rng = new Rng(seed);
  const r = (): number => rng.next();
  const kept = new Map<number, Order>();
  const live: Order[] = [];
  const finished = new FinishedOrders<Order>(retainMs);
  const plain = new PlainSweep(retainMs, kept);
  const out: number[][] = [];
  let id = 0;
  let now = 0;
  for (let step = 0; step < 400; step++) {
    now += Math.floor(r() * 40_000);
    for (let k = Math.floor(r() * 6); k > 0; k--) {
      const o = { id: id++, done: false };
      kept.set(o.id, o);
      // some finish at once (filled or cancelled on arrival), the others rest a while
      if (r() < 0.3) {
        o.done = true;
        finished.finished(o);
      } else live.push(o);
    }
    for (let k = Math.floor(r() * 5); k > 0 && live.length > 0; k--) {
      const o = live.splice(Math.floor(r() * live.length), 1)[0]!;
      o.done = true;
      finished.finished(o);
    }
    if (r() < 0.4) {
      const dropped: number[] = [];
      const drop = (o: Order): void => {
        kept.delete(o.id);
        dropped.push(o.id);
      };
      if (fast) finished.sweep(now, drop);
      else plain.sweep(now, drop);
      out.push(dropped.sort((a, b) => a - b));
    }
  }
  return out;
}

describe('FinishedOrders', () => {
  it('drops the same orders at the same sweeps as a scan of every order kept', () => {
    for (const retainMs of [0, 1, 30_000, 60_000, 600_000, Infinity])
      for (let seed = 1; seed <= 20; seed++) {
        const plain = run(retainMs, seed, false);
        expect(run(retainMs, seed, true)).toEqual(plain);
        if (retainMs === 60_000) expect(plain.flat().length).toBeGreaterThan(0);
      }
  });
});
