/**
 * Hidden fair probabilities: what the informed traders know and nobody else sees. They live in the
 * world's memory only, never in the exchange, and are recomputed from (seed, market, creation time,
 * end time) after a restart: every model below is a pure function of those and of time.
 *
 *  - crypto markets: P(price at end >= strike) under the symbol's simulated walk (crypto.ts);
 *    settled on the walk's price at the end time.
 *  - binary markets: a "digital" on a latent random walk L: YES iff L(end) > 0, and
 *    fair(t) = Φ(L(t) / sqrt(remaining fraction of the market's life)). L starts at Φ⁻¹(p0), so the
 *    opening probability is p0; it diffuses (total variance 1 over the life) and jumps now and
 *    then (news), so the fair value converges to the outcome as the end nears.
 *  - neg-risk groups (the markets of one neg-risk event, exactly one of which resolves YES): one
 *    latent logit walk per member; fair = softmax(x / temperature), the temperature shrinking with
 *    the remaining life, and the winner is the member with the highest x at the end.
 */
import type { Rng } from '../../core/random.ts';
import type { MarketMeta } from '../markets.ts';
import { probAbove, type CryptoWalk } from './crypto.ts';
import type { NewsModel } from './news.ts';
import { CRYPTO_SYMBOLS, type CryptoSymbol, type EventRec } from './model.ts';
import { normCdf, normInv } from './normal.ts';
import { rngFor } from './seeding.ts';

/** Parameters of a latent walk (see LatentWalk). */
export interface LatentWalkParams {
  startMs: number;
  endMs: number;
  stepMs: number;
  x0: number;
  /** Standard deviation of one step. */
  sigma: number;
  /** Probability of a jump in one step. */
  jumpProb: number;
  /** Standard deviation of a jump, scaled by sqrt(remaining life fraction). */
  jumpSigma: number;
  /** Mean reversion toward x0 per step (0 = none). */
  kappa: number;
}

/**
 * A seeded random walk in discrete steps from startMs, frozen at the end: valueAt(t) for t at or
 * after the end is the settled value. It only moves forward (asking for an earlier time gives the
 * current value), and it is a pure function of its params and its seeded stream.
 */
export class LatentWalk {
  private k = 0;
  private x: number;
  readonly endStep: number;
  constructor(
    private readonly rng: Rng,
    readonly p: LatentWalkParams,
  ) {
    this.x = p.x0;
    this.endStep = Math.max(1, Math.ceil((p.endMs - p.startMs) / p.stepMs));
  }
  /** Value at time t (steps are taken lazily). */
  valueAt(t: number): number {
    const kt = t <= this.p.startMs ? 0 : Math.min(this.endStep, Math.floor((t - this.p.startMs) / this.p.stepMs));
    if (kt > this.k) this.advanceTo(kt);
    return this.x;
  }
  private advanceTo(kt: number): void {
    const { sigma, jumpProb, jumpSigma, kappa, x0 } = this.p;
    const rng = this.rng;
    let x = this.x;
    for (let k = this.k + 1; k <= kt; k++) {
      x += sigma * rng.normal() - kappa * (x - x0);
      if (rng.next() < jumpProb) x += jumpSigma * Math.sqrt(Math.max(0, 1 - k / this.endStep)) * rng.normal();
    }
    this.x = x;
    this.k = kt;
  }
}

/** Step of the latent walks: finer for short-lived markets. */
function stepFor(lifeMs: number): number {
  return lifeMs < 6 * 3_600_000 ? 5_000 : 30_000;
}

/** Mean time between news jumps for a market of this life. */
function jumpEveryMs(lifeMs: number, rng: Rng): number {
  const base = Math.min(45 * 60_000, Math.max(4 * 60_000, lifeMs / 12));
  return base * (0.6 + 0.8 * rng.next());
}

/**
 * The opening probability of a binary (non-crypto, non-neg-risk) market, fixed by (seed, market):
 * a fifth of markets are long shots or near-certainties, the rest anywhere in 0.12..0.88.
 */
export function binaryP0(seed: number, conditionId: string): number {
  const rng = rngFor(seed, `p0:${conditionId}`);
  const u = rng.next();
  const v = rng.next();
  if (u < 0.1) return 0.015 + 0.075 * v;
  if (u < 0.2) return 0.91 + 0.075 * v;
  return 0.12 + 0.76 * v;
}

/** The opening logit of member `index` of a neg-risk group: the first listed is the favourite. */
export function groupX0(seed: number, conditionId: string, index: number): number {
  return -0.55 * index + 0.35 * rngFor(seed, `x0:${conditionId}`).normal();
}

/** The strike a crypto market's description states ("Price to beat: $95,123.45"), if any. */
export function parseStrike(description: string): number | undefined {
  const m = /price to beat:?\s*\$([0-9][0-9,]*(?:\.[0-9]+)?)/i.exec(description);
  if (m === null) return undefined;
  const v = Number(m[1]!.replace(/,/g, ''));
  return Number.isFinite(v) && v > 0 ? v : undefined;
}

export function isCryptoSymbol(s: unknown): s is CryptoSymbol {
  return typeof s === 'string' && (CRYPTO_SYMBOLS as readonly string[]).includes(s);
}

/** What the model needs to know about a market. */
export interface MarketFacts {
  meta: MarketMeta;
  /** When the exchange added the market (unix ms; the journal keeps it across restarts). */
  createdMs: number;
}

type Model =
  | { kind: 'crypto'; walk: CryptoWalk; strike: number; endMs: number }
  | { kind: 'binary'; walk: LatentWalk; startMs: number; endMs: number }
  | { kind: 'group'; group: Group; index: number };

interface Group {
  eventId: string;
  /** Number of event markets when built (rebuilt when the event gains markets). */
  eventSize: number;
  members: string[];
  walks: LatentWalk[];
  startMs: number;
  endMs: number;
}

/** The hidden probabilities of all markets of one world (see the module comment). */
export class FairModel {
  private readonly models = new Map<string, Model>();
  private readonly groups = new Map<string, Group>();

  constructor(
    readonly seed: number,
    private readonly cryptoWalk: (s: CryptoSymbol) => CryptoWalk,
    private readonly facts: (conditionId: string) => MarketFacts | undefined,
    private readonly eventOf: (conditionId: string) => EventRec | undefined,
    /** Announced news (profiles other than calm): jumps added to the latent variables. */
    readonly news?: NewsModel,
  ) {}

  /**
   * Probability (0..1) that the market resolves YES, as known at time t. At or after the end: 1 or 0.
   * `newsAsOf` (<= t): the time up to which news is known (an informed trader's delay); default t.
   */
  fair(conditionId: string, t: number, newsAsOf = t): number {
    const m = this.model(conditionId);
    if (m === undefined) return 0.5;
    switch (m.kind) {
      case 'crypto': {
        const end = Math.min(t, m.endMs);
        return probAbove(m.walk.priceAt(end), m.strike, m.walk.sigma, m.endMs - t);
      }
      case 'binary': {
        let x = m.walk.valueAt(t);
        if (this.news !== undefined)
          x += this.news.offset(conditionId, { startMs: m.startMs, endMs: m.endMs }, Math.min(newsAsOf, t, m.endMs));
        if (t >= m.endMs) return x > 0 ? 1 : 0;
        return normCdf(x / Math.sqrt((m.endMs - t) / (m.endMs - m.startMs)));
      }
      case 'group':
        return groupFair(m.group, m.index, t, this.news, newsAsOf);
    }
  }

  /** The market's life as its model sees it (news tracks use it), or undefined for crypto or unknown markets. */
  newsLife(conditionId: string): { startMs: number; endMs: number } | undefined {
    const m = this.model(conditionId);
    if (m === undefined || m.kind === 'crypto') return undefined;
    if (m.kind === 'binary') return { startMs: m.startMs, endMs: m.endMs };
    return { startMs: m.group.startMs, endMs: m.group.endMs };
  }

  /** True when the market resolves YES (its fair value at its end time). */
  resolvesYes(conditionId: string): boolean {
    const f = this.facts(conditionId);
    if (f === undefined) return false;
    return this.fair(conditionId, Math.max(Date.parse(f.meta.endDate), f.createdMs)) >= 0.5;
  }

  /** Drop a market's model (it resolved). */
  forget(conditionId: string): void {
    const m = this.models.get(conditionId);
    this.models.delete(conditionId);
    this.news?.forget(conditionId);
    if (m?.kind === 'group' && m.group.members.every((c) => !this.models.has(c))) this.groups.delete(m.group.eventId);
  }

  private model(conditionId: string): Model | undefined {
    const cached = this.models.get(conditionId);
    if (cached !== undefined && (cached.kind !== 'group' || this.groupFresh(cached.group))) return cached;
    const f = this.facts(conditionId);
    if (f === undefined) return undefined;
    const m = this.build(f);
    this.models.set(conditionId, m);
    return m;
  }

  private groupFresh(g: Group): boolean {
    return (this.eventOf(g.members[0]!)?.marketIds.length ?? g.eventSize) === g.eventSize;
  }

  private build(f: MarketFacts): Model {
    const { meta } = f;
    const endMs = Math.max(Date.parse(meta.endDate), f.createdMs + 1000);
    if (isCryptoSymbol(meta.cryptoSymbol)) {
      const walk = this.cryptoWalk(meta.cryptoSymbol);
      const strike = parseStrike(meta.description) ?? walk.priceAt(f.createdMs);
      return { kind: 'crypto', walk, strike, endMs };
    }
    if (meta.negRisk) {
      const ev = this.eventOf(meta.conditionId);
      if (ev !== undefined) {
        const g = this.group(ev);
        const index = g.members.indexOf(meta.conditionId);
        if (index >= 0) return { kind: 'group', group: g, index };
      }
    }
    const life = endMs - f.createdMs;
    const stepMs = stepFor(life);
    const rng = rngFor(this.seed, `fair:${meta.conditionId}`);
    const p0 = binaryP0(this.seed, meta.conditionId);
    const walk = new LatentWalk(rng, {
      startMs: f.createdMs,
      endMs,
      stepMs,
      x0: normInv(p0),
      sigma: Math.sqrt(stepMs / life),
      jumpProb: stepMs / jumpEveryMs(life, rng),
      jumpSigma: life < 6 * 3_600_000 ? 0.45 : 0.18,
      kappa: life > 3 * 86_400_000 ? stepMs / (12 * 3_600_000) : 0,
    });
    return { kind: 'binary', walk, startMs: f.createdMs, endMs };
  }

  private group(ev: EventRec): Group {
    const have = this.groups.get(ev.id);
    if (have !== undefined && have.eventSize === ev.marketIds.length) return have;
    const members: string[] = [];
    const facts: MarketFacts[] = [];
    for (const c of ev.marketIds) {
      const f = this.facts(c);
      if (f?.meta.negRisk) {
        members.push(c);
        facts.push(f);
      }
    }
    const startMs = Math.min(...facts.map((f) => f.createdMs));
    const endMs = Math.max(...facts.map((f) => Date.parse(f.meta.endDate)), startMs + 1000);
    const life = endMs - startMs;
    const stepMs = stepFor(life);
    const walks = facts.map((f, i) => {
      const rng = rngFor(this.seed, `fair:${f.meta.conditionId}`);
      return new LatentWalk(rng, {
        startMs: f.createdMs,
        endMs,
        stepMs,
        x0: groupX0(this.seed, f.meta.conditionId, i),
        sigma: Math.max(0.002, 0.8 * Math.sqrt(stepMs / life)),
        jumpProb: stepMs / jumpEveryMs(life, rng),
        jumpSigma: life < 6 * 3_600_000 ? 0.6 : 0.25,
        kappa: life > 3 * 86_400_000 ? stepMs / (12 * 3_600_000) : 0,
      });
    });
    // a rebuilt group must not keep stale member models
    if (have !== undefined) for (const c of have.members) this.models.delete(c);
    const g: Group = { eventId: ev.id, eventSize: ev.marketIds.length, members, walks, startMs, endMs };
    this.groups.set(ev.id, g);
    return g;
  }
}

function groupFair(g: Group, index: number, t: number, news: NewsModel | undefined, newsAsOf: number): number {
  const n = g.walks.length;
  const life = { startMs: g.startMs, endMs: g.endMs };
  const off = (i: number, at: number): number =>
    news === undefined ? 0 : news.offset(g.members[i]!, life, Math.min(at, g.endMs));
  if (t >= g.endMs) {
    let best = 0;
    let bx = -Infinity;
    for (let i = 0; i < n; i++) {
      const x = g.walks[i]!.valueAt(g.endMs) + off(i, newsAsOf);
      if (x > bx) {
        bx = x;
        best = i;
      }
    }
    return best === index ? 1 : 0;
  }
  const temp = Math.min(1, Math.max(0.02, Math.sqrt((g.endMs - t) / (g.endMs - g.startMs))));
  let max = -Infinity;
  const xs = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const x = (g.walks[i]!.valueAt(t) + off(i, Math.min(newsAsOf, t))) / temp;
    xs[i] = x;
    if (x > max) max = x;
  }
  let sum = 0;
  for (let i = 0; i < n; i++) sum += Math.exp(xs[i]! - max);
  return Math.exp(xs[index]! - max) / sum;
}
