/**
 * The fill-based figures of a backtest, measured ONLINE as the fills happen (the runner feeds every
 * fill here once, and each markout mid when its horizon is reached), so that a run of any length
 * keeps bounded state: per markout horizon three running sums, per token four numbers, and the
 * fills still waiting for a markout (at most the last 60 s of virtual time of them, kept by the
 * runner's timers, not here). Pure: no clock, no I/O.
 *
 * The figures are exactly those src/backtest/metrics.ts defines and computes from a complete fill
 * list (`fillStatsOf`), with the same arithmetic in the same order, so they are equal to the last
 * bit (a test runs backtests and compares both):
 *  - counts, maker fills, volume, fees: integer sums; notional: Σ size × price in bigint, divided
 *    by the price scale (rounded down) once at the end;
 *  - markouts: a fill's term (mid − price for a BUY, price − mid for a SELL, × size) is added when
 *    its mid at the horizon is known, in floating point as metrics.ts adds them. The runner's
 *    markout timers of one horizon fire in the order of the fills (same delay; the virtual clock
 *    fires ties in creation order), so the sums are made in the order of the fill list;
 *  - time at the inventory limit: positions change only at fills, so the intervals at the limit are
 *    closed as the fills come (fills come in time order: the virtual clock never goes back), and
 *    the one still open is closed at the end.
 *
 * Also here, bounded buffers for the result: the most recent fill rows (a ring of columns, allocated
 * once) and the fill points of the HTML report's charts (one fill in `stride`, halved like the
 * runner's samples).
 */
import { PRICE_SCALE } from '../core/units.ts';
import { r6 } from './metrics.ts';
import type { FillPoints, FillStats, InventoryTime, StatFill } from './types.ts';

export type { FillPoints, FillStats, StatFill } from './types.ts';

interface Horizon {
  n: number;
  size: number;
  wsum: number;
}
interface TokenInventory {
  pos: number;
  /** When |position| last reached the limit (undefined: never). */
  since: number | undefined;
  at: number;
  maxAbs: number;
  /** This token's inventory limit, micro-shares (0: none). */
  limit: number;
}

/** Options of the accumulator. */
export interface FillStatsOptions {
  readonly horizonsMs: readonly number[];
  /** Inventory limit, micro-shares (0: no limit: the time at it stays 0). */
  readonly limit: number;
  /** Tokens whose limit differs from `limit` (a market with its own risk limits), micro-shares. */
  readonly tokenLimits?: ReadonlyMap<string, number>;
  /** Start of the run, unix ms. */
  readonly startMs: number;
  /** Tokens reported even without a fill (the traded markets' tokens, in order). */
  readonly tokens: readonly string[];
}

/** The online accumulator (see the module comment). */
export class FillStatsAccumulator {
  #fills = 0;
  #maker = 0;
  #volume = 0;
  #notional = 0n;
  #fees = 0;
  readonly #h: Horizon[];
  readonly #inv = new Map<string, TokenInventory>();
  readonly #o: FillStatsOptions;

  constructor(o: FillStatsOptions) {
    this.#o = o;
    this.#h = o.horizonsMs.map(() => ({ n: 0, size: 0, wsum: 0 }));
    for (const t of o.tokens) if (!this.#inv.has(t)) this.#inv.set(t, this.#fresh(t));
  }

  #fresh(tokenId: string): TokenInventory {
    return { pos: 0, since: undefined, at: 0, maxAbs: 0, limit: this.#o.tokenLimits?.get(tokenId) ?? this.#o.limit };
  }

  /** Fills counted so far. */
  get fills(): number {
    return this.#fills;
  }

  /** A new fill (in time order). */
  add(f: StatFill): void {
    this.#fills++;
    if (f.role === 'MAKER') this.#maker++;
    this.#volume += f.size;
    this.#notional += BigInt(f.size) * BigInt(f.price);
    this.#fees += f.fee;
    const { startMs } = this.#o;
    let s = this.#inv.get(f.tokenId);
    if (s === undefined) this.#inv.set(f.tokenId, (s = this.#fresh(f.tokenId)));
    const limit = s.limit;
    const before = s.pos;
    const after = before + (f.side === 'BUY' ? f.size : -f.size);
    const time = Math.max(f.t, startMs);
    if (Math.abs(before) >= limit && limit > 0) s.at += time - (s.since ?? startMs);
    if (Math.abs(after) >= limit && limit > 0) s.since = time;
    s.pos = after;
    s.maxAbs = Math.max(s.maxAbs, Math.abs(after));
  }

  /** The mid of a fill's token at horizon `i` (pips; null: unknown, left out). */
  markout(f: StatFill, i: number, mid: number | null): void {
    if (mid === null) return;
    const h = this.#h[i];
    if (h === undefined) return;
    const d = f.side === 'BUY' ? mid - f.price : f.price - mid;
    h.wsum += d * f.size;
    h.size += f.size;
    h.n++;
  }

  /**
   * Takes a fill back out (it became void: a FAILED trade), with the markout mids it got: out of the
   * counts, sums and markouts. The time already measured at the inventory limit stays (the path as
   * it was lived); the position goes on from the corrected one.
   */
  remove(f: StatFill, markouts: readonly (number | null)[]): void {
    this.#fills--;
    if (f.role === 'MAKER') this.#maker--;
    this.#volume -= f.size;
    this.#notional -= BigInt(f.size) * BigInt(f.price);
    this.#fees -= f.fee;
    markouts.forEach((mid, i) => {
      const h = this.#h[i];
      if (mid === null || h === undefined) return;
      const d = f.side === 'BUY' ? mid - f.price : f.price - mid;
      h.wsum -= d * f.size;
      h.size -= f.size;
      h.n--;
    });
    const s = this.#inv.get(f.tokenId);
    if (s !== undefined) s.pos -= f.side === 'BUY' ? f.size : -f.size;
  }

  /** The figures of a run that ended at `endMs` (no fill after it). */
  result(endMs: number): FillStats {
    const { startMs, horizonsMs } = this.#o;
    const span = Math.max(0, endMs - startMs);
    const inventory: InventoryTime[] = [];
    for (const [tokenId, s] of this.#inv) {
      const limit = s.limit;
      let ms = s.at;
      if (limit > 0 && Math.abs(s.pos) >= limit) ms += endMs - (s.since ?? startMs);
      inventory.push({
        tokenId,
        atLimitMs: Math.round(ms * 1000) / 1000,
        fraction: span > 0 ? r6(ms / span) : 0,
        maxAbs: s.maxAbs,
      });
    }
    return {
      fills: this.#fills,
      makerFills: this.#maker,
      volume: this.#volume,
      notional: Number(this.#notional / BigInt(PRICE_SCALE)),
      fees: this.#fees,
      markouts: horizonsMs.map((horizonMs, i) => {
        const h = this.#h[i]!;
        return { horizonMs, fills: h.n, avg: h.size > 0 ? r6(h.wsum / h.size / PRICE_SCALE) : null };
      }),
      inventory,
    };
  }
}

/** One fill row as the result keeps it (the shape of runner.ts `FillRow`). */
export interface KeptFill extends StatFill {
  readonly tradeId: string;
  readonly orderId: string;
  readonly market: string;
  /** The token's mid when the fill was processed (pips), null without a two-sided book. */
  readonly mid: number | null;
  /** The token's mid at each markout horizon (pips); null when unknown (or not yet known). */
  readonly markouts: (number | null)[];
}

/**
 * The most recent `cap` fill rows, oldest first: a ring of columns allocated once (typed arrays for
 * the numbers), so the heap holds `cap` rows' worth from the start and does not grow as rows come:
 * only the rows' id strings come and go (a row object costs ~270 B of heap, a row here ~60).
 * Rows are numbered from 0 in the order pushed (`push` returns the number), so a markout that comes
 * later finds its row, or finds it gone.
 */
export class FillRowRing {
  readonly cap: number;
  readonly #horizons: number;
  #pushed = 0;
  /** Number of the row in each slot; -1: empty (or the row became void). */
  readonly #no: Float64Array;
  readonly #t: Float64Array;
  readonly #price: Float64Array;
  readonly #size: Float64Array;
  readonly #fee: Float64Array;
  /** NaN: null. */
  readonly #mid: Float64Array;
  readonly #mk: Float64Array;
  /** 1: BUY, 0: SELL. */
  readonly #buy: Uint8Array;
  /** 1: MAKER, 0: TAKER. */
  readonly #maker: Uint8Array;
  readonly #tradeId: string[];
  readonly #orderId: string[];
  readonly #market: string[];
  readonly #tokenId: string[];

  /** @param cap rows kept (0: none); @param horizons markouts per row */
  constructor(cap: number, horizons: number) {
    this.cap = Math.max(0, Math.floor(cap));
    this.#horizons = horizons;
    const n = this.cap;
    this.#no = new Float64Array(n).fill(-1);
    this.#t = new Float64Array(n);
    this.#price = new Float64Array(n);
    this.#size = new Float64Array(n);
    this.#fee = new Float64Array(n);
    this.#mid = new Float64Array(n);
    this.#mk = new Float64Array(n * horizons);
    this.#buy = new Uint8Array(n);
    this.#maker = new Uint8Array(n);
    this.#tradeId = new Array<string>(n).fill('');
    this.#orderId = new Array<string>(n).fill('');
    this.#market = new Array<string>(n).fill('');
    this.#tokenId = new Array<string>(n).fill('');
  }

  /** Keeps `f` (dropping the oldest row when full); returns its number. */
  push(f: KeptFill): number {
    const no = this.#pushed++;
    if (this.cap === 0) return no;
    const i = no % this.cap;
    this.#no[i] = no;
    this.#t[i] = f.t;
    this.#price[i] = f.price;
    this.#size[i] = f.size;
    this.#fee[i] = f.fee;
    this.#mid[i] = f.mid ?? NaN;
    for (let h = 0; h < this.#horizons; h++) this.#mk[i * this.#horizons + h] = f.markouts[h] ?? NaN;
    this.#buy[i] = f.side === 'BUY' ? 1 : 0;
    this.#maker[i] = f.role === 'MAKER' ? 1 : 0;
    this.#tradeId[i] = f.tradeId;
    this.#orderId[i] = f.orderId;
    this.#market[i] = f.market;
    this.#tokenId[i] = f.tokenId;
    return no;
  }

  /** Records the markout mid `h` of row `no`, if the row is still kept. */
  setMarkout(no: number, h: number, mid: number | null): void {
    if (this.cap === 0) return;
    const i = no % this.cap;
    if (this.#no[i] === no) this.#mk[i * this.#horizons + h] = mid ?? NaN;
  }

  #row(i: number): KeptFill {
    const mid = this.#mid[i]!;
    const markouts: (number | null)[] = [];
    for (let h = 0; h < this.#horizons; h++) {
      const m = this.#mk[i * this.#horizons + h]!;
      markouts.push(Number.isNaN(m) ? null : m);
    }
    return {
      t: this.#t[i]!,
      tradeId: this.#tradeId[i]!,
      orderId: this.#orderId[i]!,
      market: this.#market[i]!,
      tokenId: this.#tokenId[i]!,
      side: this.#buy[i] === 1 ? 'BUY' : 'SELL',
      price: this.#price[i]!,
      size: this.#size[i]!,
      fee: this.#fee[i]!,
      role: this.#maker[i] === 1 ? 'MAKER' : 'TAKER',
      mid: Number.isNaN(mid) ? null : mid,
      markouts,
    };
  }

  /** Takes out the kept row of this (trade, order), if any: its number and the row (with its markouts so far). */
  remove(tradeId: string, orderId: string): { no: number; row: KeptFill } | undefined {
    for (let i = 0; i < this.cap; i++) {
      if (this.#no[i]! < 0 || this.#tradeId[i] !== tradeId || this.#orderId[i] !== orderId) continue;
      const no = this.#no[i]!;
      const row = this.#row(i);
      this.#no[i] = -1;
      this.#tradeId[i] = this.#orderId[i] = this.#market[i] = this.#tokenId[i] = '';
      return { no, row };
    }
    return undefined;
  }

  /** The kept rows, oldest first (fresh objects). */
  toArray(): KeptFill[] {
    const out: KeptFill[] = [];
    if (this.cap === 0) return out;
    const start = this.#pushed > this.cap ? this.#pushed % this.cap : 0;
    const n = Math.min(this.#pushed, this.cap);
    for (let k = 0; k < n; k++) {
      const i = (start + k) % this.cap;
      if (this.#no[i]! >= 0) out.push(this.#row(i));
    }
    return out;
  }
}

/** Builds the FillPoints of a run (see FillPoints). */
export class FillPointSampler {
  readonly #p: FillPoints & { stride: number } = { stride: 1, t: [], tokenId: [], side: [], price: [], size: [] };
  #seen = 0;
  readonly #max: number;
  constructor(max: number) {
    this.#max = Math.max(2, Math.floor(max));
  }
  add(f: StatFill): void {
    const p = this.#p;
    if (this.#seen++ % p.stride !== 0) return;
    p.t.push(f.t);
    p.tokenId.push(f.tokenId);
    p.side.push(f.side);
    p.price.push(f.price);
    p.size.push(f.size);
    if (p.t.length < this.#max) return;
    const keep = <T>(a: T[]): void => {
      let j = 0;
      for (let i = 0; i < a.length; i += 2) a[j++] = a[i]!;
      a.length = j;
    };
    keep(p.t), keep(p.tokenId), keep(p.side), keep(p.price), keep(p.size);
    p.stride *= 2;
  }
  result(): FillPoints {
    const p = this.#p;
    return {
      stride: p.stride,
      t: p.t.slice(),
      tokenId: p.tokenId.slice(),
      side: p.side.slice(),
      price: p.price.slice(),
      size: p.size.slice(),
    };
  }
}
