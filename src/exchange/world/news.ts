/**
 * News: announced jumps of a market's hidden fair value (profiles other than calm).
 *
 * Each market has its own seeded stream of jumps: Poisson arrivals at `perMarketPerHour`, made
 * `nearEndBoost` times as frequent in the last `nearEndFraction` of its life (by thinning: candidates
 * at the highest rate, kept with probability rate(t) / highest rate), each a normal move of the
 * market's latent variable. A jump moves a market at 0.5 by about `sizeProb` in probability whatever
 * its age (the latent move is scaled by the square root of the remaining life, as the fair value is
 * Φ(x / sqrt(remaining))), and one in `bigShare` is three times as big.
 *
 * Like the latent walks (fair.ts), the jumps are a pure function of (seed, market, creation and end
 * time): a restarted world recomputes the same ones. They are generated lazily, in time order, and
 * can be read at any past time (`offset(cid, t)`), so an informed trader who learns of a jump late
 * sees the fair value as of its delay.
 */
import type { Rng } from '../../core/random.ts';
import type { NewsParams } from './profiles.ts';
import { rngFor } from './seeding.ts';

/** One jump of a market's latent variable. */
export interface NewsJump {
  readonly at: number;
  /** Move of the latent variable. */
  readonly dx: number;
}

/** An announced news jump (RunningWorld.news()). */
export interface NewsEvent {
  market: string;
  at: number;
  /** Fair value (0..1) just before and at the jump. */
  before: number;
  after: number;
}

/** The life of a market, as the news model needs it. */
export interface NewsLife {
  startMs: number;
  endMs: number;
}

/** φ(0): the slope of Φ at 0 (a latent move dx moves a market at 0.5 by about 0.4 dx). */
const PHI0 = 0.3989422804014327;

class Track {
  readonly jumps: NewsJump[] = [];
  /** Offsets: sums[i] = jumps[0..i].dx summed. */
  readonly sums: number[] = [];
  private cand: number;
  private readonly rng: Rng;
  private readonly maxPerMs: number;
  constructor(
    seed: number,
    cid: string,
    private readonly life: NewsLife,
    private readonly p: NewsParams,
  ) {
    this.rng = rngFor(seed, `news:${cid}`);
    this.maxPerMs = (p.perMarketPerHour * Math.max(1, p.nearEndBoost)) / 3_600_000;
    this.cand = life.startMs;
  }
  /** Generate jumps up to time t (inclusive). */
  extendTo(t: number): void {
    const { startMs, endMs } = this.life;
    const p = this.p;
    if (!(this.maxPerMs > 0)) return;
    const lifeMs = endMs - startMs;
    while (this.cand <= t && this.cand < endMs) {
      this.cand += this.rng.exp(1 / this.maxPerMs);
      const at = Math.round(this.cand);
      const u = this.rng.next();
      const z = this.rng.normal();
      const big = this.rng.next() < p.bigShare;
      if (at >= endMs) break;
      const remaining = (endMs - at) / lifeMs;
      const rate = (p.perMarketPerHour * (remaining < p.nearEndFraction ? p.nearEndBoost : 1)) / 3_600_000;
      if (u * this.maxPerMs >= rate) continue;
      const dx = (p.sizeProb / PHI0) * Math.sqrt(Math.max(0, remaining)) * z * (big ? 3 : 1);
      this.jumps.push({ at, dx });
      this.sums.push((this.sums.at(-1) ?? 0) + dx);
    }
  }
  /** Index of the last jump at or before t, or -1. */
  lastAt(t: number): number {
    this.extendTo(t);
    const js = this.jumps;
    let lo = 0;
    let hi = js.length - 1;
    let r = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (js[mid]!.at <= t) {
        r = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return r;
  }
}

/** The news of every market of one world (see the module comment). */
export class NewsModel {
  private readonly tracks = new Map<string, Track>();
  constructor(
    readonly seed: number,
    readonly params: NewsParams,
  ) {}

  private track(cid: string, life: NewsLife): Track {
    let t = this.tracks.get(cid);
    if (t === undefined) this.tracks.set(cid, (t = new Track(this.seed, cid, life, this.params)));
    return t;
  }

  /** The sum of the market's latent jumps at or before `t`. */
  offset(cid: string, life: NewsLife, t: number): number {
    const tr = this.track(cid, life);
    const i = tr.lastAt(t);
    return i < 0 ? 0 : tr.sums[i]!;
  }

  /** The market's first jump strictly after `t`, if it has one before its end. */
  nextAfter(cid: string, life: NewsLife, t: number): NewsJump | undefined {
    const tr = this.track(cid, life);
    // extend until a jump after t exists or the end is reached
    let horizon = t + 3_600_000;
    for (;;) {
      tr.extendTo(horizon);
      const i = tr.lastAt(t) + 1;
      if (i < tr.jumps.length) return tr.jumps[i];
      if (horizon >= life.endMs) return undefined;
      horizon += 6 * 3_600_000;
    }
  }

  /** The market's jumps in (from, to]. */
  between(cid: string, life: NewsLife, from: number, to: number): NewsJump[] {
    const tr = this.track(cid, life);
    const a = tr.lastAt(from) + 1;
    const b = tr.lastAt(to);
    return tr.jumps.slice(a, b + 1);
  }

  forget(cid: string): void {
    this.tracks.delete(cid);
  }
}
